/* SPDX-License-Identifier: MIT */
#include "runcmp.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "name_index.h"
#include "stats.h"
#include "text.h"
#include "util.h"

const char *rb_change_name(rb_change c)
{
    static const char *const names[] = {"same",    "faster", "slower",
                                        "unclear", "blind",  "not_compared"};
    return names[c];
}

const char *rb_cause_name(rb_cause c)
{
    static const char *const names[] = {"",          "platform",    "code",
                                        "throttled", "unexplained", "contended"};
    return names[c];
}

double rb_runcmp_floor(double noise_old, double noise_new)
{
    double f = RB_RUNCMP_MIN_FLOOR;
    if (noise_old / 2 > f)
        f = noise_old / 2;
    if (noise_new / 2 > f)
        f = noise_new / 2;
    return f;
}

rb_change rb_runcmp_verdict(double lo, double hi, double floor)
{
    if (!(lo <= hi) || !(lo > 0))
        return RB_CHANGE_UNCLEAR;
    if (lo <= 1.0 && hi >= 1.0)
        return RB_CHANGE_SAME;
    if (lo >= 1.0 / (1.0 + floor) && hi <= 1.0 + floor)
        return RB_CHANGE_SAME;
    if (lo > 1.0 + floor)
        return RB_CHANGE_SLOWER;
    if (hi < 1.0 / (1.0 + floor))
        return RB_CHANGE_FASTER;
    return RB_CHANGE_UNCLEAR;
}

/* ---- reading the documents ---- */

/* The named items of an array (pairs, variants), found by name in constant expected time: a
 * results file of 50,000 pairs, or a pair of 50,000 variants, is compared in linear time. An
 * array of a few items is searched as it is. */
typedef struct named {
    const json_value *arr;
    rb_name_index ix;
    int oom;
} named;

#define RB_NAMED_SCAN 8

static void named_init(named *n, const json_value *arr)
{
    memset(n, 0, sizeof *n);
    n->arr = arr && arr->type == JSON_ARRAY ? arr : NULL;
    for (size_t i = 0; n->arr && n->arr->count > RB_NAMED_SCAN && i < n->arr->count; i++) {
        const char *name = json_string_at(n->arr->items[i], "name", NULL);
        if (name && rb_name_index_put(&n->ix, name, (int)i) < 0)
            n->oom = 1;
    }
}

/* The first item named name, or NULL. */
static const json_value *named_find(const named *n, const char *name)
{
    if (!n->arr || !name)
        return NULL;
    if (n->arr->count > RB_NAMED_SCAN) {
        int i = rb_name_index_get(&n->ix, name);
        return i < 0 ? NULL : n->arr->items[i];
    }
    for (size_t i = 0; i < n->arr->count; i++) {
        const char *x = json_string_at(n->arr->items[i], "name", NULL);
        if (x && !strcmp(x, name))
            return n->arr->items[i];
    }
    return NULL;
}

/* One run's median of a variant and its 95% interval: from the sample times when time_ms.samples
 * holds them, else the recorded median_ci_lo / median_ci_hi (NaN when the run had too few). */
typedef struct side {
    double median, lo, hi, noise;
} side;

static void read_side(const json_value *variant, side *s)
{
    const json_value *t = json_get(variant, "time_ms"), *samples = json_get(t, "samples");
    s->median = json_number_at(t, "median");
    s->lo = json_number_at(t, "median_ci_lo");
    s->hi = json_number_at(t, "median_ci_hi");
    s->noise = json_number_at(t, "noise");
    if (!samples || samples->type != JSON_ARRAY || samples->count == 0)
        return;
    double *x = malloc(samples->count * sizeof *x);
    rb_stats st;
    if (!x)
        return;
    for (size_t i = 0; i < samples->count; i++)
        x[i] = samples->items[i]->type == JSON_NUMBER ? samples->items[i]->number : NAN;
    if (rb_stats_compute(x, samples->count, &st) == 0) {
        s->median = st.median;
        s->lo = st.ci_lo;
        s->hi = st.ci_hi;
        s->noise = st.noise;
    }
    free(x);
}

/* ---- attribution ---- */

/* Does the time ratio r (interval [lo, hi]) match the ratio e that a cause predicts? The cause
 * must move the same way as the time, and r / e must be within tol of 1 somewhere in the
 * interval. */
static int explains(double lo, double hi, double r, double e, double tol)
{
    if (!(e > 0) || (r > 1) != (e > 1) || fabs(log(e)) < 1e-9)
        return 0;
    return lo / e <= 1.0 + tol && hi / e >= 1.0 / (1.0 + tol);
}

/* A roof's value in a run: the platform quick ceilings when both runs have them, else
 * roofs.<key>.measured. Its measured noise (platform.methods.<key>.noise) goes to *noise. */
static double roof_value(const json_value *doc, const char *key, int use_platform, double *noise)
{
    *noise = NAN;
    if (use_platform) {
        const json_value *p = json_get(doc, "platform");
        *noise = json_number_at(json_get(json_get(p, "methods"), key), "noise");
        return json_number_at(p, key);
    }
    return json_number_at(json_get(json_get(doc, "roofs"), key), "measured");
}

static int has_platform(const json_value *doc, const char *key)
{
    const json_value *p = json_get(doc, "platform");
    const char *source = json_string_at(p, "source", NULL);
    return p && !(source && !strcmp(source, "none")) && isfinite(json_number_at(p, key));
}

/* A platform that moved both its DRAM and its FP32 roof (a co-tenant under MPS took SMs and
 * DRAM; a clock and a memory change together): a kernel that uses both is slowed by a mix of the
 * two, so a time ratio between the two roofs' predictions (within the tolerance) is the
 * platform's, whatever roof the variant sits on. Only when both runs measured the platform
 * reference and the larger of the two moves is itself beyond the tolerance: two runs of one
 * machine move these roofs by 1-2%, and a narrow envelope explains nothing. */
static int attribute_envelope(const json_value *od, const json_value *nd, rb_runcmp_row *row,
                              rb_runcmp_text *t, double tol)
{
    static const char *const keys[2] = {"dram_gbps", "fp32_tflops"};
    double e[2], o[2], n[2];
    for (int i = 0; i < 2; i++) {
        double no;
        if (!has_platform(od, keys[i]) || !has_platform(nd, keys[i]))
            return 0;
        o[i] = roof_value(od, keys[i], 1, &no);
        n[i] = roof_value(nd, keys[i], 1, &no);
        e[i] = o[i] / n[i];
    }
    double lo = fmin(e[0], e[1]), hi = fmax(e[0], e[1]);
    int slower = row->ratio > 1;
    if (slower ? !(hi > 1 + tol) : !(lo < 1 / (1 + tol)))
        return 0;
    if ((lo > 1) != slower || (hi > 1) != slower) /* the two roofs moved opposite ways */
        return 0;
    if (!(row->ratio_lo <= hi * (1 + tol) && row->ratio_hi >= lo / (1 + tol)))
        return 0;
    rb_fmt(t->evidence, sizeof t->evidence,
           "platform reference: dram_gbps %.4g -> %.4g, fp32_tflops %.4g -> %.4g (time x%.3f to "
           "x%.3f expected of a kernel using both); variant time x%.3f",
           o[0], n[0], o[1], n[1], lo, hi, row->ratio);
    return 1;
}

static int attribute_platform(const json_value *od, const json_value *nd, rb_runcmp_row *row,
                              rb_runcmp_text *t)
{
    if (!row->roof[0])
        return attribute_envelope(od, nd, row, t, row->floor);
    int use_platform = has_platform(od, row->roof) && has_platform(nd, row->roof);
    double on, nn;
    double ov = roof_value(od, row->roof, use_platform, &on);
    double nv = roof_value(nd, row->roof, use_platform, &nn);
    if (!(ov > 0 && nv > 0))
        return attribute_envelope(od, nd, row, t, row->floor);
    int latency = strstr(row->roof, "_us") != NULL;
    double e = latency ? nv / ov : ov / nv; /* the time ratio the roof predicts */
    double tol = row->floor;
    if (on > tol)
        tol = on;
    if (nn > tol)
        tol = nn;
    if (!explains(row->ratio_lo, row->ratio_hi, row->ratio, e, tol))
        return attribute_envelope(od, nd, row, t, tol);
    rb_fmt(t->evidence, sizeof t->evidence,
           "%s roof (%s) %.4g -> %.4g (x%.3f: time x%.3f expected); variant time x%.3f", row->roof,
           use_platform ? "platform reference" : "roofs.measured", ov, nv, nv / ov, e, row->ratio);
    return 1;
}

/* What the platform was held against, for the evidence of a change it does not explain: the
 * row's roof, where its two values came from, the time ratio they predict and how far below that
 * roof the variant ran in NEW (vs_ceiling.efficiency): "dram_gbps 4258 -> 4255 (platform
 * reference): time x1.001 expected; the variant at 12% of it". A variant far below its roof is set
 * by something else (latency, a cache, the host), which that roof's move cannot say. */
static void roof_tried(const json_value *od, const json_value *nd, const json_value *nv,
                       const rb_runcmp_row *row, char *out, size_t size)
{
    if (!row->roof[0]) {
        rb_fmt(out, size, "no roof named");
        return;
    }
    int in_old = has_platform(od, row->roof), in_new = has_platform(nd, row->roof);
    double on, nn;
    double ov = roof_value(od, row->roof, in_old && in_new, &on);
    double nv_roof = roof_value(nd, row->roof, in_old && in_new, &nn);
    char from[120];
    if (in_old && in_new)
        rb_fmt(from, sizeof from, "platform reference");
    else
        rb_fmt(from, sizeof from, "roofs.measured: no platform reference of it in %s",
               in_old   ? "NEW"
               : in_new ? "OLD"
                        : "either run");
    if (!(ov > 0 && nv_roof > 0)) {
        rb_fmt(out, size, "%s unknown in %s (%s)", row->roof,
               ov > 0        ? "NEW"
               : nv_roof > 0 ? "OLD"
                             : "either run",
               from);
        return;
    }
    double e = strstr(row->roof, "_us") ? nv_roof / ov : ov / nv_roof;
    rb_fmt(out, size, "%s %.4g -> %.4g (%s): time x%.3f expected", row->roof, ov, nv_roof, from, e);
    double eff = json_number_at(json_get(nv, "vs_ceiling"), "efficiency");
    size_t len = strlen(out);
    if (eff > 0)
        rb_fmt(out + len, size - len, "; the variant at %.0f%% of it", 100 * eff);
}

/* The first difference between two kernels' code, resources or launch geometry into why
 * ("" : none). Launch geometry is code: a grid, block or dynamic shared memory chosen at run
 * time (a tuned tile, blocks per SM from the device) changes what the kernel does. A value
 * either side lacks (an older file, a pair that does not say its grid) or knows as -1 is not
 * compared. */
static void kernel_diff(const json_value *a, const json_value *b, char *why, size_t size)
{
    static const char *const keys[] = {"registers",   "static_smem_bytes", "dyn_smem_bytes",
                                       "local_bytes", "block_threads",     "blocks_per_sm",
                                       "grid"};
    const char *name = json_string_at(a, "name", NULL);
    const char *ha = json_string_at(a, "sass_hash", NULL),
               *hb = json_string_at(b, "sass_hash", NULL);
    why[0] = '\0';
    if (ha && hb && strcmp(ha, hb)) {
        rb_fmt(why, size, "%s: sass_hash %s -> %s", name, ha, hb);
        return;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        double x = json_number_at(a, keys[i]), y = json_number_at(b, keys[i]);
        if (x >= 0 && y >= 0 && isfinite(x) && isfinite(y) && x != y) {
            rb_fmt(why, size, "%s: %s %.0f -> %.0f", name, keys[i], x, y);
            return;
        }
    }
}

/* The kernels of variant in a pair, by name; a kernel with no name is ignored. */
static void code_diff(const json_value *op, const json_value *np, const char *variant, char *why,
                      size_t size)
{
    const json_value *ok = json_get(op, "kernels"), *nk = json_get(np, "kernels");
    why[0] = '\0';
    for (int pass = 0; pass < 2 && !why[0]; pass++) {
        const json_value *from = pass ? nk : ok, *to = pass ? ok : nk;
        for (size_t i = 0; from && from->type == JSON_ARRAY && i < from->count && !why[0]; i++) {
            const json_value *k = from->items[i];
            const char *v = json_string_at(k, "variant", NULL),
                       *name = json_string_at(k, "name", NULL);
            if (!v || !name || strcmp(v, variant))
                continue;
            const json_value *other = NULL;
            for (size_t j = 0; to && to->type == JSON_ARRAY && j < to->count && !other; j++)
                if (!strcmp(json_string_at(to->items[j], "name", ""), name) &&
                    !strcmp(json_string_at(to->items[j], "variant", ""), variant))
                    other = to->items[j];
            if (!other)
                rb_fmt(why, size, "kernel %s %s", name, pass ? "is new" : "is gone");
            else if (!pass)
                kernel_diff(k, other, why, size);
        }
    }
}

static void algo_diff(const json_value *ov, const json_value *nv, char *why, size_t size)
{
    const json_value *a = json_get(ov, "library_algo"), *b = json_get(nv, "library_algo");
    if (!a && !b)
        return;
    char *ta = a ? json_write(a, 0) : NULL, *tb = b ? json_write(b, 0) : NULL;
    if ((a && !ta) || (b && !tb) || !ta || !tb || strcmp(ta, tb))
        rb_fmt(why, size, "library_algo %s -> %s", ta ? ta : "(absent)", tb ? tb : "(absent)");
    free(ta);
    free(tb);
}

/* The clock evidence of one run of a variant: mean SM clock (clocks.sm_mhz_mean, else the
 * sm_clock_mhz read after the loop) and whether it ran throttled. */
static double clock_mhz(const json_value *v)
{
    double m = json_number_at(json_get(v, "clocks"), "sm_mhz_mean");
    return isfinite(m) ? m : json_number_at(v, "sm_clock_mhz");
}

static void reasons_text(const json_value *v, char *out, size_t size)
{
    const json_value *r = json_get(json_get(v, "clocks"), "reasons");
    out[0] = '\0';
    for (size_t i = 0; r && r->type == JSON_ARRAY && i < r->count; i++)
        if (r->items[i]->type == JSON_STRING) {
            size_t len = strlen(out);
            rb_fmt(out + len, size - len, "%s%s", len ? "," : "", r->items[i]->string);
        }
    if (!out[0])
        rb_fmt(out, size, "none");
}

double rb_runcmp_cycle_mhz(const json_value *variant)
{
    const json_value *c = json_get(variant, "clocks");
    double mean = json_number_at(c, "sm_mhz_mean"), n = json_number_at(c, "samples");
    if (!(mean > 0) || (json_get(c, "samples") && !(n >= RB_EXPECT_MIN_CLOCK_READINGS)))
        return NAN;
    return mean;
}

/* Is the change within the floor in cycle space (the time ratio's interval times the ratio of
 * the clocks)? Without an interval, the ratio itself. */
static int same_in_cycles(const rb_runcmp_row *row)
{
    double k = row->cycles_ratio / row->ratio;
    if (!(k > 0))
        return 0;
    if (isfinite(row->ratio_lo) && isfinite(row->ratio_hi))
        return rb_runcmp_verdict(row->ratio_lo * k, row->ratio_hi * k, row->floor) ==
               RB_CHANGE_SAME;
    return row->cycles_ratio >= 1 / (1 + row->floor) && row->cycles_ratio <= 1 + row->floor;
}

/* Throttled: a change in time that cycle space does not see, the clock moved and the kernel did
 * not (rb_runcmp_cycle_mhz: both runs' mean clocks known); where a clock is unknown, the slower
 * run ran under thermal or hardware slowdown. */
static int attribute_throttle(const json_value *ov, const json_value *nv, rb_runcmp_row *row,
                              rb_runcmp_text *t)
{
    /* the run that took longer: new when slower, old when faster */
    const json_value *slow = row->change == RB_CHANGE_SLOWER ? nv : ov;
    int throttled = json_true_at(slow, "throttled");
    int in_cycles = isfinite(row->cycles_ratio);
    if (in_cycles ? !same_in_cycles(row) : !throttled)
        return 0;
    row->slowdown = throttled;
    char ro[160], rn[160], cycles[120] = "";
    reasons_text(ov, ro, sizeof ro);
    reasons_text(nv, rn, sizeof rn);
    double oc = in_cycles ? rb_runcmp_cycle_mhz(ov) : clock_mhz(ov);
    double nc = in_cycles ? rb_runcmp_cycle_mhz(nv) : clock_mhz(nv);
    if (in_cycles)
        rb_fmt(cycles, sizeof cycles, "; cycles x%.3f, within the %.1f%% floor", row->cycles_ratio,
               100 * row->floor);
    else
        rb_fmt(cycles, sizeof cycles, "; cycles unknown (no mean clock in %s)",
               rb_runcmp_cycle_mhz(ov) > 0 ? "NEW" : "OLD");
    rb_fmt(t->evidence, sizeof t->evidence,
           "SM clock %.0f -> %.0f MHz%s; reasons %s -> %s%s; variant time x%.3f", oc, nc, cycles,
           ro, rn, throttled ? " (throttled)" : "", row->ratio);
    return 1;
}

/* Contended: either run timed the variant while a process not its own used the GPU. */
static int attribute_contended(const json_value *ov, const json_value *nv, rb_runcmp_row *row,
                               rb_runcmp_text *t)
{
    int in_old = json_true_at(ov, "contended"), in_new = json_true_at(nv, "contended");
    if (!in_old && !in_new)
        return 0;
    rb_contention c;
    char err[120], who[300];
    if (rb_contention_from_json(in_new ? nv : ov, "contended_by", &c, err, sizeof err) != 0)
        rb_contention_init(&c);
    rb_contention_text(&c, who, sizeof who);
    rb_fmt(t->evidence, sizeof t->evidence,
           "%s timed it while %s used the GPU: a shared GPU, not a code change; variant time "
           "x%.3f",
           in_old && in_new ? "both runs"
           : in_new         ? "NEW"
                            : "OLD",
           who[0] ? who : "another process", row->ratio);
    return 1;
}

void rb_runcmp_attribute(const json_value *od, const json_value *nd, const json_value *op,
                         const json_value *np, const json_value *ov, const json_value *nv,
                         rb_runcmp_row *row, rb_runcmp_text *t)
{
    char code[300];
    code_diff(op, np, row->variant, code, sizeof code);
    if (!code[0])
        algo_diff(ov, nv, code, sizeof code);
    row->evidence = t->evidence;
    if (attribute_contended(ov, nv, row, t)) {
        row->cause = RB_CAUSE_CONTENDED;
    } else if (attribute_platform(od, nd, row, t)) {
        row->cause = RB_CAUSE_PLATFORM;
        if (code[0]) { /* said, so that a code change riding on a platform move is seen */
            size_t len = strlen(t->evidence);
            rb_fmt(t->evidence + len, sizeof t->evidence - len, "; code changed too: %s", code);
        }
    } else if (code[0]) {
        row->cause = RB_CAUSE_CODE;
        rb_fmt(t->evidence, sizeof t->evidence, "%s; variant time x%.3f", code, row->ratio);
    } else if (attribute_throttle(ov, nv, row, t)) {
        row->cause = RB_CAUSE_THROTTLED;
    } else {
        row->cause = RB_CAUSE_UNEXPLAINED;
        char clocks[96], tried[240];
        double oc = clock_mhz(ov), nc = clock_mhz(nv);
        if (oc > 0 && nc > 0 && isfinite(row->cycles_ratio))
            rb_fmt(clocks, sizeof clocks, "SM clock %.0f -> %.0f MHz, cycles x%.3f", oc, nc,
                   row->cycles_ratio);
        else if (oc > 0 && nc > 0)
            rb_fmt(clocks, sizeof clocks, "SM clock %.0f -> %.0f MHz", oc, nc);
        else
            rb_fmt(clocks, sizeof clocks, "SM clock unknown");
        roof_tried(od, nd, nv, row, tried, sizeof tried);
        rb_fmt(t->evidence, sizeof t->evidence,
               "no roof moved to match (%s), recorded code and resources unchanged, %s; variant "
               "time x%.3f",
               tried, clocks, row->ratio);
    }
}

/* The expectation's pair entry stands for the old run (its platform reference, kernels, and
 * each variant's library_algo and clocks), this run's document for the new one. */
void rb_runcmp_attribute_verdicts(const json_value *expect, json_value *doc, rb_pair_result *results,
                                  int n)
{
    const json_value *dp = json_get(doc, "pairs");
    for (int i = 0; expect && dp && i < n && (size_t)i < dp->count; i++) {
        const json_value *ep = json_get(json_get(expect, "pairs"), results[i].name);
        const json_value *np = dp->items[i], *nvs = json_get(np, "variants");
        json_value *od = json_new_object();
        if (!od || (json_get(ep, "platform") &&
                    json_object_set(od, "platform", json_clone(json_get(ep, "platform"))))) {
            json_free(od);
            return;
        }
        for (int k = 0; k < results[i].n_variants && nvs && (size_t)k < nvs->count; k++) {
            rb_variant_result *v = &results[i].v[k];
            json_value *nv = nvs->items[k];
            if (v->verdict != RB_VERDICT_REGRESSED && v->verdict != RB_VERDICT_IMPROVED)
                continue;
            rb_runcmp_row row;
            rb_runcmp_text text;
            memset(&row, 0, sizeof row);
            rb_fmt(text.pair, sizeof text.pair, "%s", results[i].name);
            rb_fmt(text.variant, sizeof text.variant, "%s", v->name);
            rb_fmt(text.roof, sizeof text.roof, "%s", json_string_at(nv, "roof", ""));
            text.evidence[0] = '\0';
            row.pair = text.pair;
            row.variant = text.variant;
            row.roof = text.roof;
            row.evidence = text.evidence;
            /* the judged ratio, with this run's 95% interval of its median around it */
            double m = v->time_ms.median;
            row.ratio = v->judged_ratio;
            row.ratio_lo =
                m > 0 && isfinite(v->time_ms.ci_lo) ? row.ratio * v->time_ms.ci_lo / m : row.ratio;
            row.ratio_hi =
                m > 0 && isfinite(v->time_ms.ci_hi) ? row.ratio * v->time_ms.ci_hi / m : row.ratio;
            row.floor = v->threshold;
            row.change = v->verdict == RB_VERDICT_REGRESSED ? RB_CHANGE_SLOWER : RB_CHANGE_FASTER;
            double oc = rb_runcmp_cycle_mhz(json_get(json_get(ep, "variants"), v->name));
            double nc = rb_runcmp_cycle_mhz(nv);
            row.cycles_ratio = v->per_clock ? row.ratio : row.ratio * nc / oc;
            if (!(oc > 0 && nc > 0))
                row.cycles_ratio = NAN;
            row.energy_ratio = NAN;
            rb_runcmp_attribute(od, doc, ep, np, json_get(json_get(ep, "variants"), v->name), nv,
                                &row, &text);
            rb_fmt(v->cause, sizeof v->cause, "%s", rb_cause_name(row.cause));
            rb_fmt(v->evidence, sizeof v->evidence, "%s", row.evidence);
            /* (out of memory here leaves the file without them: the table still says it) */
            if (!json_set_string(nv, "cause", v->cause))
                json_set_string(nv, "evidence", v->evidence);
        }
        json_free(od);
    }
}

/* ---- the rows ---- */

static const char *skip_reason(const json_value *v)
{
    if (!v)
        return "absent";
    if (!json_true_at(v, "valid"))
        return "invalid";
    if (!json_true_at(v, "timed"))
        return "not timed";
    return NULL;
}

/* A variant whose time the host sets (results: "informational": true with its host_bound_why). */
static int is_informational(const json_value *v)
{
    const char *why = json_string_at(v, "host_bound_why", NULL);
    return json_true_at(v, "informational") || (why && why[0]);
}

/* A row whose floor hides a 10% change cannot say same, nor that it is unclear by how much:
 * blind, with where the floor came from. */
static void judge_blind(rb_runcmp_row *row, rb_runcmp_text *t, const rb_expected *e)
{
    if (!(row->floor > RB_RUNCMP_BLIND_FLOOR) ||
        (row->change != RB_CHANGE_SAME && row->change != RB_CHANGE_UNCLEAR))
        return;
    row->change = RB_CHANGE_BLIND;
    char from[120];
    if (row->floor_from_runs)
        rb_fmt(from, sizeof from, "2 x the %.1f%% spread of its %d recorded runs",
               100 * e->run_spread, e->runs);
    else
        rb_fmt(from, sizeof from, "half the p10-p90 spread of a timed loop");
    size_t len = strlen(t->evidence);
    rb_fmt(t->evidence + len, sizeof t->evidence - len,
           "%sblind: floor %.1f%% (%s) hides a %.0f%% change", len ? "; " : "", 100 * row->floor,
           from, 100 * RB_RUNCMP_BLIND_FLOOR);
}

void rb_runcmp_judge(const json_value *od, const json_value *nd, const json_value *op,
                     const json_value *np, const json_value *ov, const json_value *nv,
                     const json_value *expected, rb_runcmp_row *row, rb_runcmp_text *t)
{
    const json_value *any = ov ? ov : nv;
    memset(row, 0, sizeof *row);
    rb_fmt(t->pair, sizeof t->pair, "%s", json_string_at(op ? op : np, "name", NULL));
    rb_fmt(t->variant, sizeof t->variant, "%s", json_string_at(any, "name", NULL));
    rb_fmt(t->roof, sizeof t->roof, "%s", json_string_at(any, "roof", ""));
    t->evidence[0] = '\0';
    row->pair = t->pair;
    row->variant = t->variant;
    row->roof = t->roof;
    row->evidence = t->evidence;
    row->old_ms = row->new_ms = row->ratio = row->ratio_lo = row->ratio_hi = row->floor = NAN;
    row->cycles_ratio = row->energy_ratio = NAN;
    row->contended = json_true_at(ov, "contended") || json_true_at(nv, "contended");
    row->change = RB_CHANGE_NOT_COMPARED;
    row->cause = RB_CAUSE_NONE;
    row->informational = is_informational(ov) || is_informational(nv);
    const char *why_old = skip_reason(ov), *why_new = skip_reason(nv);
    double so = json_number_at(op, "size"), sn = json_number_at(np, "size");
    if (why_old || why_new) {
        rb_fmt(t->evidence, sizeof t->evidence, "%s in OLD, %s in NEW", why_old ? why_old : "timed",
               why_new ? why_new : "timed");
        return;
    }
    if (so != sn) {
        rb_fmt(t->evidence, sizeof t->evidence, "size %.0f in OLD, %.0f in NEW", so, sn);
        return;
    }
    side a, b;
    read_side(ov, &a);
    read_side(nv, &b);
    row->old_ms = a.median;
    row->new_ms = b.median;
    if (!(a.median > 0 && b.median > 0)) {
        rb_fmt(t->evidence, sizeof t->evidence, "no median in %s", a.median > 0 ? "NEW" : "OLD");
        return;
    }
    row->ratio = b.median / a.median;
    row->ratio_lo = b.lo / a.hi;
    row->ratio_hi = b.hi / a.lo;
    double oc = rb_runcmp_cycle_mhz(ov), nc = rb_runcmp_cycle_mhz(nv);
    if (oc > 0 && nc > 0)
        row->cycles_ratio = row->ratio * nc / oc;
    double oj = json_number_at(json_get(ov, "energy"), "joules_per_launch");
    double nj = json_number_at(json_get(nv, "energy"), "joules_per_launch");
    if (oj > 0 && nj > 0)
        row->energy_ratio = nj / oj;
    row->floor = rb_runcmp_floor(a.noise, b.noise);
    /* What varies between runs, where the expectations recorded it (model/expect.h): the same
     * floor a run's verdict uses, so that compare and run agree on what is noise. */
    rb_expected e;
    rb_expected_read(expected, &e);
    int known_runs = expected && e.runs >= RB_EXPECT_MIN_RUNS && e.run_spread >= 0;
    if (known_runs && RB_EXPECT_SPREAD_FACTOR * e.run_spread > row->floor) {
        row->floor = RB_EXPECT_SPREAD_FACTOR * e.run_spread;
        row->floor_from_runs = 1;
    }
    row->change = rb_runcmp_verdict(row->ratio_lo, row->ratio_hi, row->floor);
    if (!(row->ratio_lo <= row->ratio_hi)) {
        row->ratio_lo = row->ratio_hi = NAN;
        rb_fmt(t->evidence, sizeof t->evidence,
               "no interval of the median in %s (fewer than 6 samples)",
               a.lo > 0   ? "NEW"
               : b.lo > 0 ? "OLD"
                          : "either run");
        /* A variant too slow for 6 samples in its cap (sgemm's naive kernel at 16M: 275 ms),
         * whose recorded runs say how much it moves between runs: a ratio within the floor is
         * no change. Beyond it, without an interval, it stays unclear. */
        if (known_runs && row->ratio >= 1.0 / (1.0 + row->floor) && row->ratio <= 1.0 + row->floor)
            row->change = RB_CHANGE_SAME;
    }
    judge_blind(row, t, &e);
    if (row->change == RB_CHANGE_FASTER || row->change == RB_CHANGE_SLOWER)
        rb_runcmp_attribute(od, nd, op, np, ov, nv, row, t);
}

int rb_runcmp_keep(rb_strpool *pool, rb_runcmp_row *row)
{
    row->pair = rb_strpool_add(pool, row->pair);
    row->variant = rb_strpool_add(pool, row->variant);
    row->roof = rb_strpool_add(pool, row->roof);
    row->evidence = rb_strpool_add(pool, row->evidence);
    return row->pair && row->variant && row->roof && row->evidence ? 0 : -1;
}

static int push_row(rb_runcmp *c, int *cap, rb_runcmp_row *row)
{
    if (rb_runcmp_keep(&c->strings, row) != 0)
        return -1;
    if (c->n_rows == *cap) {
        /* by a quarter (doubling left up to half of the rows unused) */
        if (*cap > INT_MAX / 2)
            return -1;
        int ncap = *cap ? *cap + *cap / 4 + 64 : 64;
        rb_runcmp_row *r = realloc(c->rows, (size_t)ncap * sizeof *r);
        if (!r)
            return -1;
        c->rows = r;
        *cap = ncap;
    }
    c->rows[c->n_rows++] = *row;
    return 0;
}

const json_value *rb_runcmp_expected(const json_value *expect, const json_value *pair,
                                     const char *variant)
{
    const json_value *ep = json_get(json_get(expect, "pairs"), json_string_at(pair, "name", ""));
    if (!ep || json_number_at(ep, "size") != json_number_at(pair, "size"))
        return NULL;
    return json_get(json_get(ep, "variants"), variant);
}

static int add_pair_rows(const json_value *od, const json_value *nd, const json_value *op,
                         const json_value *np, rb_runcmp *c, int *cap)
{
    named ova, nva;
    named_init(&ova, json_get(op, "variants"));
    named_init(&nva, json_get(np, "variants"));
    const json_value *any = op ? op : np;
    rb_runcmp_row row;
    rb_runcmp_text text;
    int rc = ova.oom || nva.oom ? -1 : 0;
    for (size_t i = 0; rc == 0 && ova.arr && i < ova.arr->count; i++) {
        const json_value *ov = ova.arr->items[i];
        const char *name = json_string_at(ov, "name", NULL);
        if (!name)
            continue;
        rb_runcmp_judge(od, nd, op, np, ov, named_find(&nva, name),
                        rb_runcmp_expected(c->expect, any, name), &row, &text);
        rc = push_row(c, cap, &row);
    }
    for (size_t i = 0; rc == 0 && nva.arr && i < nva.arr->count; i++) {
        const json_value *nv = nva.arr->items[i];
        const char *name = json_string_at(nv, "name", NULL);
        if (!name || named_find(&ova, name))
            continue;
        rb_runcmp_judge(od, nd, op, np, NULL, nv, NULL, &row, &text);
        rc = push_row(c, cap, &row);
    }
    rb_name_index_free(&ova.ix);
    rb_name_index_free(&nva.ix);
    return rc;
}

/* Largest slowdown first; rows without a ratio last, in the order they came. */
static int row_order(const void *pa, const void *pb)
{
    const rb_runcmp_row *a = pa, *b = pb;
    int ha = isfinite(a->ratio), hb = isfinite(b->ratio);
    if (ha != hb)
        return hb - ha;
    if (ha && a->ratio != b->ratio)
        return a->ratio < b->ratio ? 1 : -1;
    int k = strcmp(a->pair, b->pair);
    return k ? k : strcmp(a->variant, b->variant);
}

/* Sorts the rows (row_order) through an array of their positions and then moves each row once,
 * along the cycles of the permutation: sorting the rows themselves would take a second copy of
 * them all (qsort's merge buffer). */
static const rb_runcmp_row *sort_base;

static int position_order(const void *pa, const void *pb)
{
    return row_order(&sort_base[*(const size_t *)pa], &sort_base[*(const size_t *)pb]);
}

static int sort_rows(rb_runcmp *c)
{
    size_t n = (size_t)c->n_rows;
    if (n < 2)
        return 0;
    size_t *from = malloc(n * sizeof *from);
    if (!from)
        return -1;
    for (size_t i = 0; i < n; i++)
        from[i] = i;
    sort_base = c->rows;
    qsort(from, n, sizeof *from, position_order);
    for (size_t i = 0; i < n; i++) { /* row i takes row from[i] */
        if (from[i] == i)
            continue;
        rb_runcmp_row held = c->rows[i];
        size_t j = i;
        while (from[j] != i) {
            size_t k = from[j];
            c->rows[j] = c->rows[k];
            from[j] = j;
            j = k;
        }
        c->rows[j] = held;
        from[j] = j;
    }
    free(from);
    return 0;
}

static int build_rows(const json_value *od, const json_value *nd, rb_runcmp *c)
{
    named opa, npa;
    named_init(&opa, json_get(od, "pairs"));
    named_init(&npa, json_get(nd, "pairs"));
    int cap = 0, rc = opa.oom || npa.oom ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < opa.arr->count; i++) {
        const json_value *op = opa.arr->items[i];
        const char *name = json_string_at(op, "name", NULL);
        if (name)
            rc = add_pair_rows(od, nd, op, named_find(&npa, name), c, &cap);
    }
    for (size_t i = 0; rc == 0 && i < npa.arr->count; i++) {
        const json_value *np = npa.arr->items[i];
        const char *name = json_string_at(np, "name", NULL);
        if (name && !named_find(&opa, name))
            rc = add_pair_rows(od, nd, NULL, np, c, &cap);
    }
    rb_name_index_free(&opa.ix);
    rb_name_index_free(&npa.ix);
    if (rc != 0)
        return -1;
    if (c->n_rows && c->n_rows < cap) { /* no room kept past the build */
        rb_runcmp_row *fit = realloc(c->rows, (size_t)c->n_rows * sizeof *fit);
        if (fit)
            c->rows = fit;
    }
    if (sort_rows(c) != 0)
        return -1;
    for (int i = 0; i < c->n_rows; i++)
        c->counts[c->rows[i].change]++;
    return 0;
}

/* ---- the environment ---- */

typedef struct fact {
    char key[160];
    const json_value *value;
} fact;

/* A run's facts, each key once (the first place that names it wins), found by key. */
typedef struct facts {
    fact *f;
    int n, cap, oom;
    rb_name_index ix;
} facts;

static void add_fact(facts *fs, const char *key, const json_value *v)
{
    if (fs->oom)
        return;
    if (fs->n == fs->cap) {
        int ncap = fs->cap ? 2 * fs->cap : 64;
        fact *f = realloc(fs->f, (size_t)ncap * sizeof *f);
        if (!f) {
            fs->oom = 1;
            return;
        }
        fs->f = f;
        fs->cap = ncap;
        /* the index points at the keys: made again over the moved array */
        rb_name_index_free(&fs->ix);
        for (int i = 0; i < fs->n; i++)
            if (rb_name_index_put(&fs->ix, fs->f[i].key, i) < 0)
                fs->oom = 1;
    }
    fact *at = &fs->f[fs->n];
    rb_fmt(at->key, sizeof at->key, "%s", key);
    at->value = v;
    int put = rb_name_index_put(&fs->ix, at->key, fs->n);
    if (put < 0)
        fs->oom = 1;
    else if (put == 0)
        fs->n++;
}

/* Facts that change from one moment to the next (a temperature, the power drawn, the clock at
 * the instant of reading) would fill the diff with noise: the per-variant clocks say what
 * matters of them. */
static int is_momentary(const char *leaf)
{
    static const char *const keys[] = {"temperature_c",       "power_w", "sm_clock_mhz",
                                       "clock_event_reasons", "git",     "methods"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(leaf, keys[i]))
            return 1;
    return 0;
}

static void flatten(facts *fs, const char *prefix, const json_value *o, int depth)
{
    for (size_t i = 0; o && o->type == JSON_OBJECT && i < o->count; i++) {
        char key[160];
        if (is_momentary(o->keys[i]))
            continue;
        rb_fmt(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", o->keys[i]);
        if (o->items[i]->type == JSON_OBJECT && depth < 4)
            flatten(fs, key, o->items[i], depth + 1);
        else
            add_fact(fs, key, o->items[i]);
    }
}

static void collect_facts(const json_value *doc, facts *fs)
{
    /* tool and ranks: an MPI run against a one-process run is a fact worth saying */
    static const char *const top[] = {"tool", "ranks", "git",         "size",
                                      "cold", "seed",  "hardware_key"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        if (json_get(doc, top[i]))
            add_fact(fs, top[i], json_get(doc, top[i]));
    const json_value *env = json_get(doc, "environment");
    flatten(fs, "", json_get(env, "start") ? json_get(env, "start") : env, 0);
    flatten(fs, "platform", json_get(doc, "platform"), 0);
    /* a run that shared its GPU says so (a clean run, or one from before the check, says
     * nothing) */
    const json_value *shared = json_get(doc, "contention");
    if (json_true_at(shared, "contended")) {
        add_fact(fs, "contention.contended", json_get(shared, "contended"));
        add_fact(fs, "contention.processes", json_get(shared, "processes"));
    }
}

static const json_value *fact_value(const facts *fs, const char *key)
{
    int i = rb_name_index_get(&fs->ix, key);
    return i < 0 ? NULL : fs->f[i].value;
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* A value as text: strings bare, a library version as a version (22803: 2.28.3), another
 * number with the 5 digits a measured figure supports (3020.7, not 3020.69948469187), anything
 * else as JSON; "(absent)" for none. */
static char *fact_text(const char *key, const json_value *v)
{
    char num[48];
    size_t klen = strlen(key);
    if (!v)
        return dup("(absent)");
    if (v->type == JSON_STRING)
        return dup(v->string);
    if (v->type == JSON_NUMBER && klen > 8 && !strcmp(key + klen - 8, "_version")) {
        rb_text_version(v->number, num, sizeof num);
        return dup(num);
    }
    if (v->type == JSON_NUMBER) {
        rb_fmt(num, sizeof num, "%.5g", v->number);
        return dup(num);
    }
    return json_write(v, 0);
}

static int add_env_diff(rb_runcmp *c, const char *key, const json_value *a, const json_value *b)
{
    char *ta = fact_text(key, a), *tb = fact_text(key, b);
    /* grown geometrically: at each power of two (a file may hold thousands of facts) */
    int full = c->n_env == 0 || (c->n_env >= 8 && (c->n_env & (c->n_env - 1)) == 0);
    rb_runcmp_env *e =
        full ? realloc(c->env, (size_t)(c->n_env < 8 ? 8 : 2 * c->n_env) * sizeof *e) : c->env;
    if (!ta || !tb || !e) {
        free(ta);
        free(tb);
        if (e)
            c->env = e;
        return -1;
    }
    c->env = e;
    if (!strcmp(ta, tb) && a && b) {
        c->n_env_same++;
        free(ta);
        free(tb);
        return 0;
    }
    e[c->n_env].key = dup(key);
    e[c->n_env].old_value = ta;
    e[c->n_env].new_value = tb;
    if (!e[c->n_env].key) {
        free(ta);
        free(tb);
        return -1;
    }
    c->n_env++;
    return 0;
}

static int build_env(const json_value *od, const json_value *nd, rb_runcmp *c)
{
    facts fo = {0}, fn = {0};
    collect_facts(od, &fo);
    collect_facts(nd, &fn);
    int rc = fo.oom || fn.oom ? -1 : 0;
    for (int i = 0; i < fo.n && rc == 0; i++)
        rc = add_env_diff(c, fo.f[i].key, fo.f[i].value, fact_value(&fn, fo.f[i].key));
    for (int i = 0; i < fn.n && rc == 0; i++)
        if (!fact_value(&fo, fn.f[i].key))
            rc = add_env_diff(c, fn.f[i].key, NULL, fn.f[i].value);
    rb_name_index_free(&fo.ix);
    rb_name_index_free(&fn.ix);
    free(fo.f);
    free(fn.f);
    return rc;
}

/* ---- the whole ---- */

static int is_results(const json_value *doc, const char *which, char *err, size_t err_size)
{
    const json_value *pairs = json_get(doc, "pairs");
    if (!doc || doc->type != JSON_OBJECT || !pairs || pairs->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "%s is not a roofbench results file (no \"pairs\" array)", which);
        return 0;
    }
    return 1;
}

int rb_runcmp_build(const json_value *old_doc, const json_value *new_doc, rb_runcmp *c, char *err,
                    size_t err_size)
{
    return rb_runcmp_build_expect(old_doc, new_doc, NULL, c, err, err_size);
}

int rb_runcmp_build_expect(const json_value *old_doc, const json_value *new_doc,
                           const json_value *expect, rb_runcmp *c, char *err, size_t err_size)
{
    memset(c, 0, sizeof *c);
    c->expect = expect;
    if (!is_results(old_doc, "OLD", err, err_size) || !is_results(new_doc, "NEW", err, err_size))
        return -1;
    rb_fmt(c->old_git, sizeof c->old_git, "%s", json_string_at(old_doc, "git", "?"));
    rb_fmt(c->new_git, sizeof c->new_git, "%s", json_string_at(new_doc, "git", "?"));
    rb_fmt(c->old_date, sizeof c->old_date, "%s", json_string_at(old_doc, "date", "?"));
    rb_fmt(c->new_date, sizeof c->new_date, "%s", json_string_at(new_doc, "date", "?"));
    if (build_rows(old_doc, new_doc, c) != 0 || build_env(old_doc, new_doc, c) != 0) {
        rb_runcmp_free(c);
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    c->expect = NULL; /* the caller's; not kept past the build */
    for (int i = 0; i < c->n_rows; i++)
        c->floors_from_runs += c->rows[i].floor_from_runs;
    c->old_fingerprints = rb_runcmp_fingerprints(old_doc);
    c->new_fingerprints = rb_runcmp_fingerprints(new_doc);
    return 0;
}

int rb_runcmp_fingerprints(const json_value *doc)
{
    const json_value *pairs = json_get(doc, "pairs");
    int n = 0;
    for (size_t i = 0; pairs && pairs->type == JSON_ARRAY && i < pairs->count; i++) {
        const json_value *ks = json_get(pairs->items[i], "kernels");
        for (size_t k = 0; ks && ks->type == JSON_ARRAY && k < ks->count; k++)
            n += json_string_at(ks->items[k], "sass_hash", NULL) != NULL;
    }
    return n;
}

void rb_runcmp_code_note(const rb_runcmp *c, char *buf, size_t size)
{
    buf[0] = '\0';
    if (c->old_fingerprints && c->new_fingerprints)
        return;
    rb_fmt(buf, size, "code attribution unavailable: %s %s",
           c->old_fingerprints   ? "NEW has"
           : c->new_fingerprints ? "OLD has"
                                 : "OLD and NEW have",
           RB_RUNCMP_NO_FINGERPRINT);
}

void rb_runcmp_free(rb_runcmp *c)
{
    for (int i = 0; i < c->n_env; i++) {
        free(c->env[i].key);
        free(c->env[i].old_value);
        free(c->env[i].new_value);
    }
    free(c->env);
    free(c->rows);
    rb_strpool_free(&c->strings);
    memset(c, 0, sizeof *c);
}

int rb_runcmp_contended(const rb_runcmp *c)
{
    int n = 0;
    for (int i = 0; i < c->n_rows; i++)
        n += c->rows[i].change == RB_CHANGE_SLOWER && c->rows[i].cause == RB_CAUSE_CONTENDED &&
             (c->gate_all || !c->rows[i].informational);
    return n;
}

/* The machine's, not the code's: a roof of the platform moved with it, or only the SM clock did
 * (in cycles the change is within the floor) while no throttle reason was raised. A row that ran
 * under a hardware or software slowdown is no pass: that measurement is not the GPU's normal
 * state. */
static int machine_explains(const rb_runcmp_row *r)
{
    return r->cause == RB_CAUSE_PLATFORM || (r->cause == RB_CAUSE_THROTTLED && !r->slowdown);
}

int rb_runcmp_failing(const rb_runcmp *c, int fail_on_platform)
{
    int n = 0;
    for (int i = 0; i < c->n_rows; i++)
        n += c->rows[i].change == RB_CHANGE_SLOWER &&
             (fail_on_platform || !machine_explains(&c->rows[i])) &&
             (c->gate_all || !c->rows[i].informational);
    return n;
}

/* ---- --filter ---- */

int rb_runcmp_selected(const rb_filter *f, const char *pair, const char *variant)
{
    char base[64], full[140];
    rb_fmt(base, sizeof base, "%.*s", (int)strcspn(pair, ".@"), pair);
    rb_fmt(full, sizeof full, "%s/%s", pair, variant);
    return rb_filter_match(f, pair) || rb_filter_match(f, base) || rb_filter_match(f, full);
}

void rb_runcmp_filter(rb_runcmp *c, const rb_filter *f)
{
    int kept = 0;
    memset(c->counts, 0, sizeof c->counts);
    for (int i = 0; i < c->n_rows; i++) {
        if (!rb_runcmp_selected(f, c->rows[i].pair, c->rows[i].variant))
            continue;
        c->rows[kept] = c->rows[i]; /* the order stays */
        c->counts[c->rows[kept].change]++;
        kept++;
    }
    c->n_filtered_out += c->n_rows - kept;
    c->n_rows = kept;
    c->filter = f->text;
}
