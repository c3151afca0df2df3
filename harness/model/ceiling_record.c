/* SPDX-License-Identifier: MIT */
#include "ceiling_record.h"

#include <math.h>
#include <string.h>

#include "util.h"

const char *const rb_ceiling_keys[] = {"dram_gbps",     "dram_read_gbps",   "dram_write_gbps",
                                       "l2_read_gbps",  "smem_gbps",        "fp32_tflops",
                                       "fp64_tflops",   "tf32_tflops",      "bf16_tflops",
                                       "fp16_tflops",   "fp8_tflops",       "pcie_h2d_gbps",
                                       "pcie_d2h_gbps", "pcie_duplex_gbps", "nvlink_gbps",
                                       "nvlink_bidir_gbps",
                                       "launch_us",     "graph_node_us",    "dram_latency_us",
                                       NULL};

int rb_ceiling_key_known(const char *key)
{
    for (int i = 0; rb_ceiling_keys[i]; i++)
        if (!strcmp(key, rb_ceiling_keys[i]))
            return 1;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

const char *rb_ceiling_unit(const char *key)
{
    return ends_with(key, "_gbps")     ? "GB/s"
           : ends_with(key, "_tflops") ? "TFLOP/s"
           : ends_with(key, "_us")     ? "us"
                                       : "";
}

json_value *rb_ceiling_method_json(const rb_ceiling_method *m)
{
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "method", m->method) || json_set_string(o, "size", m->size) ||
        json_set_number(o, "samples", m->samples) || json_set_number(o, "noise", m->noise) ||
        (!isnan(m->sm_clock_mhz) && json_set_number(o, "sm_clock_mhz", m->sm_clock_mhz)) ||
        (!isnan(m->power_w) && json_set_number(o, "power_w", m->power_w))) {
        json_free(o);
        return NULL;
    }
    return o;
}

json_value *rb_ceiling_roof_line(const char *key, double value, const rb_ceiling_method *m)
{
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "type", "ceiling") || json_set_string(o, "key", key) ||
        json_set_number(o, "value", value) ||
        json_object_set(o, "method", rb_ceiling_method_json(m))) {
        json_free(o);
        return NULL;
    }
    return o;
}

json_value *rb_ceiling_skip_line(const char *key, const char *reason)
{
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "type", "ceiling_skip") || json_set_string(o, "key", key) ||
        json_set_string(o, "reason", reason)) {
        json_free(o);
        return NULL;
    }
    return o;
}

static int refuse(char *err, size_t err_size, const char *what, const char *key)
{
    rb_fmt(err, err_size, "ceiling %s: %s", key, what);
    return -1;
}

static int is_number(const json_value *x, double lo)
{
    return x && x->type == JSON_NUMBER && isfinite(x->number) && x->number >= lo;
}

static int check_method(const json_value *m, const char *key, char *err, size_t err_size)
{
    static const char *const allowed[] = {"method", "size",         "samples",
                                          "noise",  "sm_clock_mhz", "power_w"};
    if (!m || m->type != JSON_OBJECT)
        return refuse(err, err_size, "method: expected an object", key);
    for (size_t i = 0; i < m->count; i++) {
        int ok = 0;
        for (size_t k = 0; k < sizeof allowed / sizeof allowed[0]; k++)
            ok |= !strcmp(m->keys[i], allowed[k]);
        if (!ok)
            return refuse(err, err_size, "method: unknown key", key);
    }
    const json_value *text = json_get(m, "method"), *size = json_get(m, "size");
    if (!text || text->type != JSON_STRING || !size || size->type != JSON_STRING)
        return refuse(err, err_size, "method: method and size must be strings", key);
    if (!is_number(json_get(m, "samples"), 1) || !is_number(json_get(m, "noise"), 0))
        return refuse(err, err_size, "method: samples must be >= 1 and noise >= 0", key);
    const json_value *clock = json_get(m, "sm_clock_mhz"), *power = json_get(m, "power_w");
    if ((clock && !(is_number(clock, 0) && clock->number > 0)) ||
        (power && !(is_number(power, 0) && power->number > 0)))
        return refuse(err, err_size, "method: sm_clock_mhz and power_w must be positive", key);
    return 0;
}

int rb_ceiling_record_check(const json_value *line, char *err, size_t err_size)
{
    const json_value *key = json_get(line, "key"), *value = json_get(line, "value");
    if (!key || key->type != JSON_STRING)
        return refuse(err, err_size, "no key", "?");
    if (!rb_ceiling_key_known(key->string))
        return refuse(err, err_size, "not a roof key", key->string);
    if (!is_number(value, 0) || !(value->number > 0))
        return refuse(err, err_size, "the value must be a positive finite number", key->string);
    return check_method(json_get(line, "method"), key->string, err, err_size);
}

int rb_ceilings_over_peak(const json_value *values, const json_value *peaks, char *err,
                          size_t err_size)
{
    int over = 0;
    if (err_size)
        err[0] = '\0';
    for (size_t i = 0; values && values->type == JSON_OBJECT && i < values->count; i++) {
        const char *key = values->keys[i];
        const json_value *v = values->items[i], *peak = json_get(peaks, key);
        if (!(ends_with(key, "_gbps") || ends_with(key, "_tflops")) || !v ||
            v->type != JSON_NUMBER || !peak || peak->type != JSON_NUMBER || !(peak->number > 0))
            continue;
        if (v->number <= peak->number * (1 + RB_CEILING_RECORD_MARGIN))
            continue;
        size_t len = strlen(err);
        rb_fmt(err + len, err_size - len,
               "%s%s: measured %.6g %s is %.1f%% above the datasheet peak peaks.%s = %.6g (more "
               "than %.0f%%: a cache hit, a wrong byte or flop count, or a wrong peak)",
               over ? "\n" : "", key, v->number, rb_ceiling_unit(key),
               100.0 * (v->number / peak->number - 1), key, peak->number,
               100.0 * RB_CEILING_RECORD_MARGIN);
        over++;
    }
    return over;
}

int rb_ceilings_store(json_value *ceilings, const json_value *values, const json_value *methods,
                      const char *source)
{
    if (!ceilings || ceilings->type != JSON_OBJECT)
        return -1;
    for (size_t i = 0; values && i < values->count; i++)
        if (json_object_set(ceilings, values->keys[i], json_clone(values->items[i])))
            return -1;
    json_value *all = json_get(ceilings, "methods");
    if (!all || all->type != JSON_OBJECT) {
        all = json_new_object();
        if (json_object_set(ceilings, "methods", all))
            return -1;
    }
    for (size_t i = 0; methods && i < methods->count; i++)
        if (json_object_set(all, methods->keys[i], json_clone(methods->items[i])))
            return -1;
    return json_set_string(ceilings, "source", source);
}

/* The roofs of a platform reference, in the order its line names them: the quick three
 * (probe 0: always there) and each probe's, the launch latency last. */
static const struct {
    const char *key, *label, *unit;
    int decimals;
    unsigned probe;
} platform_roofs[] = {
    {"dram_gbps", "DRAM copy", "GB/s", 1, 0},
    {"dram_read_gbps", "DRAM read", "GB/s", 1, RB_PROBE_DRAM_READ},
    {"dram_write_gbps", "DRAM write", "GB/s", 1, RB_PROBE_DRAM_WRITE},
    {"l2_read_gbps", "L2 read", "GB/s", 1, RB_PROBE_L2},
    {"fp32_tflops", "FP32", "TFLOP/s", 2, 0},
    {"pcie_h2d_gbps", "PCIe h2d", "GB/s", 2, RB_PROBE_PCIE},
    {"pcie_d2h_gbps", "PCIe d2h", "GB/s", 2, RB_PROBE_PCIE},
    {"pcie_duplex_gbps", "PCIe duplex", "GB/s", 2, RB_PROBE_PCIE},
    {"launch_us", "launch", "us", 3, 0},
};
#define PLATFORM_ROOFS (sizeof platform_roofs / sizeof platform_roofs[0])

unsigned rb_platform_probe_of(const char *key)
{
    for (size_t i = 0; key && i < PLATFORM_ROOFS; i++)
        if (!strcmp(key, platform_roofs[i].key))
            return platform_roofs[i].probe;
    return 0;
}

void rb_platform_probes_text(unsigned probes, char *buf, size_t size)
{
    static const char *const names[] = {"DRAM read", "DRAM write", "L2 read", "PCIe"};
    buf[0] = '\0';
    for (unsigned b = 0; b < sizeof names / sizeof names[0]; b++)
        if (probes & 1u << b) {
            size_t len = strlen(buf);
            rb_fmt(buf + len, size - len, "%s%s", len ? ", " : "", names[b]);
        }
}

json_value *rb_platform_json(const json_value *values, const json_value *methods,
                             const char *reason)
{
    json_value *o = json_new_object();
    if (!o)
        return NULL;
    if (!values) {
        if (json_set_string(o, "source", "none") ||
            (reason && json_set_string(o, "reason", reason))) {
            json_free(o);
            return NULL;
        }
        return o;
    }
    json_value *m = json_new_object();
    int bad = !m || json_set_string(o, "source", RB_PLATFORM_SOURCE);
    for (size_t i = 0; !bad && i < PLATFORM_ROOFS; i++) {
        const json_value *v = json_get(values, platform_roofs[i].key);
        const json_value *method = json_get(methods, platform_roofs[i].key);
        if (platform_roofs[i].probe && !v)
            continue; /* a probe this run did not take */
        bad |= json_set_number(o, platform_roofs[i].key,
                               v && v->type == JSON_NUMBER ? v->number : NAN);
        if (method)
            bad |= json_object_set(m, platform_roofs[i].key, json_clone(method));
    }
    if (bad || json_object_set(o, "methods", m)) {
        if (bad)
            json_free(m);
        json_free(o);
        return NULL;
    }
    return o;
}

void rb_platform_text(const json_value *platform, char *buf, size_t size)
{
    const json_value *source = json_get(platform, "source");
    buf[0] = '\0';
    if (!source || source->type != JSON_STRING || !strcmp(source->string, "none")) {
        rb_fmt(buf, size, "not measured");
        return;
    }
    for (size_t i = 0; i < PLATFORM_ROOFS; i++) {
        const json_value *v = json_get(platform, platform_roofs[i].key);
        size_t len = strlen(buf);
        if (platform_roofs[i].probe && !v)
            continue;
        if (v && v->type == JSON_NUMBER && isfinite(v->number))
            rb_fmt(buf + len, size - len, "%s%s %.*f %s", len ? ", " : "", platform_roofs[i].label,
                   platform_roofs[i].decimals, v->number, platform_roofs[i].unit);
        else
            rb_fmt(buf + len, size - len, "%s%s - %s", len ? ", " : "", platform_roofs[i].label,
                   platform_roofs[i].unit);
    }
}

int rb_smem_over_bound(double gbps, int sms, double sm_clock_mhz, char *err, size_t err_size)
{
    double bound = (double)sms * 128.0 * sm_clock_mhz * 1e6 / 1e9;
    if (!(sms > 0) || !isfinite(sm_clock_mhz) || !(gbps > bound * (1.0 + RB_CEILING_RECORD_MARGIN)))
        return 0;
    rb_fmt(err, err_size,
           "smem_gbps: measured %.1f GB/s is above the %.1f GB/s that %d SMs x 128 B/clock x %.0f "
           "MHz allow: a miscount, not a roof; nothing recorded",
           gbps, bound, sms, sm_clock_mhz);
    return 1;
}
