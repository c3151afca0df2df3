/* SPDX-License-Identifier: MIT */
#include "energy.h"

#include <math.h>
#include <string.h>

#include "util.h"

static const char *const why_names[RB_ENERGY_STATE_COUNT] = {
    "", "", "short", "stalled", "interleaved", "several_gpus", "cold", "unavailable"};

static const char *const why_texts[RB_ENERGY_STATE_COUNT] = {
    "",
    "",
    "its timed samples add up to less than 100 ms, too short for the counter",
    "NVML's energy counter did not advance over its timed samples",
    "timed in ~1 ms samples in turn with its pair's other variants: one counter for all",
    "its pair spans several GPUs, and the counter is one GPU's",
    "timed cold: the L2 flush before each sample draws energy of its own",
    "no NVML total-energy counter"};

void rb_energy_init(rb_energy *e)
{
    memset(e, 0, sizeof *e);
    e->state = RB_ENERGY_NONE;
}

void rb_energy_none(rb_energy *e, rb_energy_state why)
{
    rb_energy_init(e);
    e->state = why;
}

void rb_energy_add_window(rb_energy *e, int have, unsigned long long mj_before,
                          unsigned long long mj_after, double window_s, double launches)
{
    if (e->state == RB_ENERGY_UNAVAILABLE)
        return;
    e->windows++;
    e->window_s += window_s;
    e->launches += launches;
    if (!have) {
        e->state = RB_ENERGY_UNAVAILABLE;
        return;
    }
    /* A counter that did not move says nothing of the energy drawn: never 0 J. */
    if (!(mj_after > mj_before)) {
        e->state = RB_ENERGY_STALLED;
        return;
    }
    e->joules += (double)(mj_after - mj_before) * 1e-3;
    if (e->state == RB_ENERGY_NONE)
        e->state = RB_ENERGY_OK;
}

void rb_energy_finish(rb_energy *e)
{
    if (e->state == RB_ENERGY_OK &&
        !(e->window_s >= RB_ENERGY_MIN_WINDOW_S && e->launches > 0 && e->joules > 0))
        e->state = e->window_s >= RB_ENERGY_MIN_WINDOW_S ? RB_ENERGY_STALLED : RB_ENERGY_SHORT;
    if (e->state == RB_ENERGY_STALLED && !(e->window_s >= RB_ENERGY_MIN_WINDOW_S))
        e->state = RB_ENERGY_SHORT; /* too short to say the counter is stuck */
    if (e->state != RB_ENERGY_OK)
        rb_energy_none(e, e->state);
}

double rb_energy_j_per_launch(const rb_energy *e)
{
    return e->state == RB_ENERGY_OK && e->launches > 0 ? e->joules / e->launches : NAN;
}

double rb_energy_mean_w(const rb_energy *e)
{
    return e->state == RB_ENERGY_OK && e->window_s > 0 ? e->joules / e->window_s : NAN;
}

double rb_energy_giga_per_j(const rb_energy *e, double work)
{
    double j = rb_energy_j_per_launch(e);
    return work > 0 && j > 0 ? work / j * 1e-9 : NAN;
}

const char *rb_energy_why(rb_energy_state s)
{
    return (unsigned)s < RB_ENERGY_STATE_COUNT ? why_names[s] : "";
}

int rb_energy_why_from_name(const char *s, rb_energy_state *out)
{
    for (int i = RB_ENERGY_SHORT; i < RB_ENERGY_STATE_COUNT; i++)
        if (!strcmp(s, why_names[i])) {
            *out = (rb_energy_state)i;
            return 0;
        }
    return -1;
}

const char *rb_energy_why_text(rb_energy_state s)
{
    return (unsigned)s < RB_ENERGY_STATE_COUNT ? why_texts[s] : "";
}

int rb_energy_to_json(const rb_energy *e, json_value *o)
{
    if (e->state == RB_ENERGY_NONE)
        return 0;
    if (e->state != RB_ENERGY_OK)
        return json_object_set(o, "energy", json_new_null()) ||
                       json_set_string(o, "energy_why", rb_energy_why(e->state))
                   ? -1
                   : 0;
    json_value *x = json_new_object();
    if (!x || json_set_number(x, "joules", e->joules) ||
        json_set_number(x, "window_s", e->window_s) ||
        json_set_number(x, "launches", e->launches) || json_set_number(x, "windows", e->windows) ||
        json_set_number(x, "joules_per_launch", rb_energy_j_per_launch(e)) ||
        json_set_number(x, "mean_power_w", rb_energy_mean_w(e))) {
        json_free(x);
        return -1;
    }
    return json_object_set(o, "energy", x);
}

int rb_energy_set_rates(json_value *o, const rb_energy *e, double flops, double bytes)
{
    json_value *x = json_get(o, "energy");
    if (!x || x->type != JSON_OBJECT)
        return 0;
    int bad = 0;
    if (flops > 0)
        bad |= json_set_number(x, "gflop_per_j", rb_energy_giga_per_j(e, flops));
    if (bytes > 0)
        bad |= json_set_number(x, "gb_per_j", rb_energy_giga_per_j(e, bytes));
    return bad ? -1 : 0;
}

/* A positive finite number of x named key, or -1. */
static int positive_at(const json_value *x, const char *key, double *out)
{
    double v = json_number_at(x, key);
    if (!(v > 0 && isfinite(v)))
        return -1;
    *out = v;
    return 0;
}

int rb_energy_from_json(const json_value *variant, rb_energy *e, char *err, size_t err_size)
{
    rb_energy_init(e);
    const json_value *x = json_get(variant, "energy");
    if (!x)
        return 0;
    if (x->type == JSON_NULL) {
        rb_energy_state why = RB_ENERGY_UNAVAILABLE;
        const char *word = json_string_at(variant, "energy_why", NULL);
        if (word && rb_energy_why_from_name(word, &why) != 0) {
            rb_fmt(err, err_size, "energy_why: '%.40s' is not a reason", word);
            return -1;
        }
        rb_energy_none(e, why);
        return 0;
    }
    double windows = json_number_at(x, "windows");
    if (x->type != JSON_OBJECT || positive_at(x, "joules", &e->joules) ||
        positive_at(x, "window_s", &e->window_s) || positive_at(x, "launches", &e->launches)) {
        rb_energy_init(e);
        rb_fmt(err, err_size,
               "energy: an object with positive joules, window_s and launches "
               "expected");
        return -1;
    }
    e->windows = windows >= 1 && windows <= 1e6 ? (int)windows : 1;
    e->state = RB_ENERGY_OK;
    return 0;
}
