/* SPDX-License-Identifier: MIT */
#include "energy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const why_names[RB_ENERGY_STATE_COUNT] = {
    "",     "",      "short",       "stalled",   "interleaved", "several_gpus",
    "cold", "unavailable", "uncertain", "above_limit", "below_idle"};

static const char *const why_texts[RB_ENERGY_STATE_COUNT] = {
    "",
    "",
    "its timed samples add up to less than 100 ms, too short for the counter",
    "NVML's energy counter did not advance over its timed samples",
    "timed in ~1 ms samples in turn with its pair's other variants: one counter for all",
    "its pair spans several GPUs, and the counter is one GPU's",
    "timed cold: the L2 flush before each sample draws energy of its own",
    "no NVML total-energy counter",
    "the counter's edges bound its joules to no better than 5%",
    "its mean power came out above the board's power limit: a counter reading, not a figure",
    "its mean power came out below the board's idle power: a counter reading, not a figure"};

void rb_energy_init(rb_energy *e)
{
    memset(e, 0, sizeof *e);
    e->state = RB_ENERGY_NONE;
    e->rejected_w = NAN;
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
    e->timed_s += window_s;
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
    e->error_j += 2e-3; /* a millijoule of rounding at each end */
    if (e->state == RB_ENERGY_NONE)
        e->state = RB_ENERGY_OK;
}

void rb_energy_add_edges(rb_energy *e, int have, const rb_energy_edges *w, double timed_s,
                         double launches)
{
    double joules = 0.0, window_s = 0.0, u = 0.0;
    if (have && timed_s > 0 && rb_energy_edges_window(w, &joules, &window_s, &u) == 0) {
        /* the operations the variant ran in the window, at the rate it ran them timed */
        rb_energy_add_window(e, 1, 0, (unsigned long long)llround(joules * 1e3), window_s,
                             launches * window_s / timed_s);
        e->timed_s += timed_s - window_s;
        if (e->state == RB_ENERGY_OK)
            e->error_j += u * joules - 2e-3; /* u holds the rounding already */
        return;
    }
    /* no complete window: UNAVAILABLE without readings, else STALLED */
    rb_energy_add_window(e, have, 0, 0, timed_s, launches);
}

double rb_energy_uncertainty(const rb_energy *e)
{
    return e->state == RB_ENERGY_OK && e->joules > 0 ? e->error_j / e->joules : NAN;
}

void rb_energy_finish(rb_energy *e)
{
    int long_enough = e->timed_s >= RB_ENERGY_MIN_WINDOW_S;
    if (e->state == RB_ENERGY_OK && !(long_enough && e->launches > 0 && e->joules > 0))
        e->state = long_enough ? RB_ENERGY_STALLED : RB_ENERGY_SHORT;
    if (e->state == RB_ENERGY_STALLED && !long_enough)
        e->state = RB_ENERGY_SHORT; /* too short to say the counter is stuck */
    if (e->state == RB_ENERGY_OK && !(rb_energy_uncertainty(e) <= RB_ENERGY_MAX_UNCERTAINTY))
        e->state = RB_ENERGY_UNCERTAIN;
    if (e->state != RB_ENERGY_OK)
        rb_energy_none(e, e->state);
}

void rb_energy_bound(rb_energy *e, double idle_w, double limit_w)
{
    double w = rb_energy_mean_w(e), u = rb_energy_uncertainty(e);
    if (!isfinite(w))
        return;
    rb_energy_state why = RB_ENERGY_OK;
    if (limit_w > 0 && w * (1 - u) > limit_w)
        why = RB_ENERGY_ABOVE_LIMIT;
    else if (idle_w > 0 && w * (1 + u) < idle_w)
        why = RB_ENERGY_BELOW_IDLE;
    if (why == RB_ENERGY_OK)
        return;
    rb_energy_none(e, why);
    e->rejected_w = w;
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
                       json_set_string(o, "energy_why", rb_energy_why(e->state)) ||
                       (isfinite(e->rejected_w) &&
                        json_set_number(o, "energy_rejected_w", e->rejected_w))
                   ? -1
                   : 0;
    json_value *x = json_new_object();
    if (!x || json_set_number(x, "joules", e->joules) ||
        json_set_number(x, "window_s", e->window_s) ||
        json_set_number(x, "launches", e->launches) || json_set_number(x, "windows", e->windows) ||
        json_set_number(x, "joules_per_launch", rb_energy_j_per_launch(e)) ||
        json_set_number(x, "mean_power_w", rb_energy_mean_w(e)) ||
        json_set_number(x, "uncertainty", rb_energy_uncertainty(e))) {
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
        double w = json_number_at(variant, "energy_rejected_w");
        e->rejected_w = isfinite(w) ? w : NAN;
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
    e->timed_s = e->window_s;
    double u = json_number_at(x, "uncertainty"); /* absent in a file from before the edges */
    e->error_j = u >= 0 && isfinite(u) ? u * e->joules : 0.0;
    e->state = RB_ENERGY_OK;
    return 0;
}

/* ---- the counter's edges ---- */

void rb_energy_edges_init(rb_energy_edges *w)
{
    memset(w, 0, sizeof *w);
    w->end_after_s = INFINITY;
}

void rb_energy_edges_end_after(rb_energy_edges *w, double t_s)
{
    w->end_after_s = t_s;
}

/* An edge between the previous reading and this one, dated at their midpoint. */
static void edge_seen(rb_energy_edges *w, double t_s, unsigned long long mj)
{
    double gap = t_s - w->last_t_s, at = w->last_t_s + gap / 2;
    w->edges++;
    if (!(gap <= RB_ENERGY_EDGE_MAX_GAP_S))
        return; /* dated too loosely to bound a window */
    if (!w->started) {
        w->started = 1;
        w->start_s = at;
        w->start_res_s = gap / 2;
        w->start_mj = mj;
    } else if (at > w->prev_at_s) {
        double p = (double)(mj - w->prev_mj) * 1e-3 / (at - w->prev_at_s);
        w->steps++;
        w->step_w += p;
        w->step_w2 += p * p;
    }
    w->prev_at_s = at;
    w->prev_mj = mj;
    if (w->steps >= RB_ENERGY_EDGE_MIN_STEPS && at >= w->end_after_s &&
        at - w->start_s >= RB_ENERGY_EDGE_MIN_WINDOW_S) {
        w->done = 1;
        w->end_s = at;
        w->end_res_s = gap / 2;
        w->end_mj = mj;
    }
}

int rb_energy_edges_feed(rb_energy_edges *w, double t_s, unsigned long long mj)
{
    if (w->done || w->went_back)
        return w->done;
    if (w->readings++ > 0) {
        if (mj < w->last_mj)
            w->went_back = 1;
        else if (mj != w->last_mj)
            edge_seen(w, t_s, mj);
    }
    w->last_t_s = t_s;
    w->last_mj = mj;
    return w->done;
}

int rb_energy_edges_window(const rb_energy_edges *w, double *joules, double *window_s,
                           double *uncertainty)
{
    if (!w->done || w->went_back)
        return -1;
    *joules = (double)(w->end_mj - w->start_mj) * 1e-3;
    *window_s = w->end_s - w->start_s;
    *uncertainty = (w->start_res_s + w->end_res_s) / *window_s + 2e-3 / *joules;
    /* the steps' spread: the standard error of their mean power, over the mean */
    int k = w->steps;
    double mean = w->step_w / k, var = (w->step_w2 - k * mean * mean) / (k - 1);
    if (mean > 0)
        *uncertainty += sqrt(fmax(var, 0.0) / k) / mean;
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MAX_INTERVALS 256

int rb_energy_counter_from(const double *t_s, const unsigned long long *mj, int n,
                           rb_energy_counter *c)
{
    memset(c, 0, sizeof *c);
    c->update_s = c->update_max_s = c->power_w = NAN;
    if (n < 2)
        return -1;
    c->readings = n;
    c->poll_s = (t_s[n - 1] - t_s[0]) / (n - 1);
    double intervals[MAX_INTERVALS], first_s = NAN, last_s = NAN;
    unsigned long long first_mj = 0, last_mj = 0;
    int k = 0;
    for (int i = 1; i < n; i++) {
        if (mj[i] == mj[i - 1])
            continue;
        c->edges++;
        double gap = t_s[i] - t_s[i - 1], at = t_s[i - 1] + gap / 2;
        if (mj[i] < mj[i - 1] || !(gap <= RB_ENERGY_EDGE_MAX_GAP_S))
            continue;
        if (isfinite(last_s) && k < MAX_INTERVALS)
            intervals[k++] = at - last_s;
        if (!isfinite(first_s)) {
            first_s = at;
            first_mj = mj[i];
        }
        last_s = at;
        last_mj = mj[i];
    }
    if (k >= 1) {
        qsort(intervals, (size_t)k, sizeof *intervals, compare_doubles);
        c->update_s = k % 2 ? intervals[k / 2] : (intervals[k / 2 - 1] + intervals[k / 2]) / 2;
        c->update_max_s = intervals[k - 1];
        c->power_w = (double)(last_mj - first_mj) * 1e-3 / (last_s - first_s);
    }
    return 0;
}
