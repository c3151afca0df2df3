/* SPDX-License-Identifier: MIT */
#include "clocks.h"

#include <math.h>
#include <string.h>

#include "util.h"

static const char *const reason_names[RB_REASON_COUNT] = {
    "power_cap",  "thermal",        "hw_slowdown", "sync_boost", "sw_thermal",
    "hw_thermal", "hw_power_brake", "app_clocks",  "idle",
};

const char *rb_clock_reason_name(rb_clock_reason r)
{
    return (unsigned)r < RB_REASON_COUNT ? reason_names[r] : "?";
}

int rb_clock_reason_from_name(const char *name, rb_clock_reason *out)
{
    for (int r = 0; r < RB_REASON_COUNT; r++)
        if (!strcmp(name, reason_names[r])) {
            *out = (rb_clock_reason)r;
            return 0;
        }
    return -1;
}

/* nvml.h: nvmlClocksEventReasonGpuIdle 0x1, ApplicationsClocksSetting 0x2, SwPowerCap 0x4,
 * HwSlowdown 0x8, SyncBoost 0x10, SwThermalSlowdown 0x20, HwThermalSlowdown 0x40,
 * HwPowerBrakeSlowdown 0x80 (DisplayClockSetting 0x100 is not a slowdown: left out). */
static const struct {
    unsigned long long nvml_bit;
    rb_clock_reason reason;
} nvml_map[] = {
    {0x1ull, RB_REASON_IDLE},        {0x2ull, RB_REASON_APP_CLOCKS},
    {0x4ull, RB_REASON_POWER_CAP},   {0x8ull, RB_REASON_HW_SLOWDOWN},
    {0x10ull, RB_REASON_SYNC_BOOST}, {0x20ull, RB_REASON_SW_THERMAL},
    {0x40ull, RB_REASON_HW_THERMAL}, {0x80ull, RB_REASON_HW_POWER_BRAKE},
};

unsigned rb_clock_reasons_from_nvml(unsigned long long nvml_bits)
{
    unsigned mask = 0;
    for (size_t i = 0; i < sizeof nvml_map / sizeof nvml_map[0]; i++)
        if (nvml_bits & nvml_map[i].nvml_bit)
            mask |= 1u << nvml_map[i].reason;
    return mask;
}

int rb_clock_reasons_throttled(unsigned reasons)
{
    const unsigned slowdown = 1u << RB_REASON_THERMAL | 1u << RB_REASON_SW_THERMAL |
                              1u << RB_REASON_HW_THERMAL | 1u << RB_REASON_HW_SLOWDOWN |
                              1u << RB_REASON_HW_POWER_BRAKE;
    return (reasons & slowdown) != 0;
}

void rb_clock_reasons_text(unsigned reasons, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int r = 0; r < RB_REASON_COUNT; r++)
        if (reasons & 1u << r) {
            size_t len = strlen(buf);
            rb_fmt(buf + len, size - len, "%s%s", len ? ", " : "", reason_names[r]);
        }
    if (!buf[0])
        rb_fmt(buf, size, "none");
}

void rb_clocks_init(rb_clocks *c)
{
    memset(c, 0, sizeof *c);
    c->sm_mhz_min = NAN;
}

void rb_clocks_add(rb_clocks *c, double sm_mhz, int have_reasons, unsigned long long nvml_bits)
{
    c->samples++;
    if (sm_mhz > 0) { /* NaN and a zero reading are not clocks */
        c->sm_mhz_sum += sm_mhz;
        c->clock_samples++;
        if (!(sm_mhz >= c->sm_mhz_min)) /* NaN at first: taken */
            c->sm_mhz_min = sm_mhz;
    }
    if (have_reasons)
        c->reasons |= rb_clock_reasons_from_nvml(nvml_bits);
}

double rb_clocks_mean_mhz(const rb_clocks *c)
{
    return c->clock_samples > 0 ? c->sm_mhz_sum / c->clock_samples : NAN;
}

int rb_clocks_to_json(const rb_clocks *c, json_value *o)
{
    if (!(c->samples > 0))
        return 0;
    json_value *k = json_new_object(), *list = json_new_array();
    int bad = !k || !list;
    for (int r = 0; !bad && r < RB_REASON_COUNT; r++)
        if (c->reasons & 1u << r)
            bad |= json_array_push(list, json_new_string(reason_names[r]));
    if (bad) {
        json_free(k);
        json_free(list);
        return -1;
    }
    bad = json_set_number(k, "sm_mhz_mean", rb_clocks_mean_mhz(c)) ||
          json_set_number(k, "sm_mhz_min", c->sm_mhz_min) ||
          json_set_number(k, "samples", c->samples) || json_object_set(k, "reasons", list);
    if (bad) {
        json_free(k);
        return -1;
    }
    return json_object_set(o, "clocks", k) ||
                   json_set_bool(o, "throttled", rb_clock_reasons_throttled(c->reasons))
               ? -1
               : 0;
}

int rb_clocks_from_json(const json_value *variant, rb_clocks *c, char *err, size_t err_size)
{
    rb_clocks_init(c);
    const json_value *k = json_get(variant, "clocks");
    if (!k)
        return 0;
    const json_value *mean = json_get(k, "sm_mhz_mean"), *min = json_get(k, "sm_mhz_min");
    const json_value *n = json_get(k, "samples"), *list = json_get(k, "reasons");
    if (k->type != JSON_OBJECT || !n || n->type != JSON_NUMBER || !(n->number >= 1) || !list ||
        list->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "clocks: an object with samples (>= 1) and reasons expected");
        return -1;
    }
    c->samples = n->number;
    /* The mean comes back as a sum over the clock readings (all of them, as far as the file
     * says): mean x samples. A null mean (no clock read) leaves no clock reading. */
    if (mean && mean->type == JSON_NUMBER) {
        c->clock_samples = c->samples;
        c->sm_mhz_sum = mean->number * c->samples;
    }
    if (min && min->type == JSON_NUMBER)
        c->sm_mhz_min = min->number;
    for (size_t i = 0; i < list->count; i++) {
        rb_clock_reason r;
        if (list->items[i]->type == JSON_STRING &&
            rb_clock_reason_from_name(list->items[i]->string, &r) == 0)
            c->reasons |= 1u << r;
    }
    return 0;
}
