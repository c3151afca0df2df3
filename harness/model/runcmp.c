/* SPDX-License-Identifier: MIT */
#include "runcmp.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "expect_row.h"
#include "name_index.h"
#include "report.h"
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

/* The named items of an array (pairs, variants: each struct's first member is its name), found
 * by name in constant expected time: a results file of 50,000 pairs, or a pair of 50,000
 * variants, is compared in linear time. An array of a few items is searched as it is. */
typedef struct named {
    const char *base;
    size_t stride;
    int count;
    rb_name_index ix;
    int oom;
} named;

#define RB_NAMED_SCAN 8

static const char *named_name(const named *n, int i)
{
    return *(const char *const *)(const void *)(n->base + (size_t)i * n->stride);
}

static void named_init(named *n, const void *items, int count, size_t stride)
{
    memset(n, 0, sizeof *n);
    n->base = items;
    n->count = items ? count : 0;
    n->stride = stride;
    for (int i = 0; n->count > RB_NAMED_SCAN && i < n->count; i++) {
        const char *name = named_name(n, i);
        if (name && rb_name_index_put(&n->ix, name, i) < 0)
            n->oom = 1;
    }
}

/* The first item named name, or -1. */
static int named_find(const named *n, const char *name)
{
    if (!name)
        return -1;
    if (n->count > RB_NAMED_SCAN)
        return rb_name_index_get(&n->ix, name);
    for (int i = 0; i < n->count; i++)
        if (named_name(n, i) && !strcmp(named_name(n, i), name))
            return i;
    return -1;
}

/* What a variant that a run does not hold reads as: every number unknown, no text, no flag. */
static const rb_results_cmp_variant *or_absent(const rb_results_cmp_variant *v)
{
    static const rb_results_cmp_variant absent = {
        .roof = "", .reasons = "", .median = NAN, .ci_lo = NAN, .ci_hi = NAN, .noise = NAN,
        .recorded_median = NAN, .n_samples = -1, .sm_mhz_mean = NAN, .clock_readings = NAN,
        .sm_clock_mhz = NAN, .joules_per_launch = NAN, .efficiency = NAN};
    return v ? v : &absent;
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
static double roof_value(const rb_results_cmp_doc *doc, const char *key, int use_platform,
                         double *noise)
{
    const rb_results_cmp_value *x =
        use_platform ? rb_results_cmp_value_of(doc->platform, doc->n_platform, key)
                     : rb_results_cmp_value_of(doc->roofs, doc->n_roofs, key);
    *noise = use_platform && x ? x->noise : NAN;
    return x ? x->value : NAN;
}

static int has_platform(const rb_results_cmp_doc *doc, const char *key)
{
    const rb_results_cmp_value *x = rb_results_cmp_value_of(doc->platform, doc->n_platform, key);
    return doc->has_platform && !doc->platform_none && x && isfinite(x->value);
}

/* A platform that moved both its DRAM and its FP32 roof (a co-tenant under MPS took SMs and
 * DRAM; a clock and a memory change together): a kernel that uses both is slowed by a mix of the
 * two, so a time ratio between the two roofs' predictions (within the tolerance) is the
 * platform's, whatever roof the variant sits on. Only when both runs measured the platform
 * reference and the larger of the two moves is itself beyond the tolerance: two runs of one
 * machine move these roofs by 1-2%, and a narrow envelope explains nothing. */
static int attribute_envelope(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                              rb_runcmp_row *row,
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

static int attribute_platform(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                              rb_runcmp_row *row,
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
static void roof_tried(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                       const rb_results_cmp_variant *nv, const rb_runcmp_row *row, char *out,
                       size_t size)
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
    double eff = nv->efficiency;
    size_t len = strlen(out);
    if (eff > 0)
        rb_fmt(out + len, size - len, "; the variant at %.0f%% of it", 100 * eff);
}

/* The first difference between two kernels' code, resources or launch geometry into why
 * ("" : none). Launch geometry is code: a grid, block or dynamic shared memory chosen at run
 * time (a tuned tile, blocks per SM from the device) changes what the kernel does. A value
 * either side lacks (an older file, a pair that does not say its grid) or knows as -1 is not
 * compared. */
static void kernel_diff(const rb_results_cmp_kernel *a, const rb_results_cmp_kernel *b, char *why,
                        size_t size)
{
    const char *ha = a->sass_hash, *hb = b->sass_hash;
    why[0] = '\0';
    if (ha && hb && strcmp(ha, hb)) {
        rb_fmt(why, size, "%s: sass_hash %s -> %s", a->name, ha, hb);
        return;
    }
    for (int i = 0; i < RB_RESULTS_KERNEL_FIELDS; i++) {
        double x = a->field[i], y = b->field[i];
        if (x >= 0 && y >= 0 && isfinite(x) && isfinite(y) && x != y) {
            rb_fmt(why, size, "%s: %s %.0f -> %.0f", a->name, rb_results_kernel_field(i), x, y);
            return;
        }
    }
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* The kernels of variant in a pair, by name; a kernel with no name is ignored. */
static void code_diff(const rb_results_cmp_pair *op, const rb_results_cmp_pair *np,
                      const char *variant, char *why, size_t size)
{
    why[0] = '\0';
    for (int pass = 0; pass < 2 && !why[0]; pass++) {
        const rb_results_cmp_pair *from = pass ? np : op, *to = pass ? op : np;
        for (int i = 0; from && i < from->n_kernels && !why[0]; i++) {
            const rb_results_cmp_kernel *k = &from->kernels[i];
            const char *v = k->variant, *name = k->name;
            if (!v || !name || strcmp(v, variant))
                continue;
            const rb_results_cmp_kernel *other = NULL;
            for (int j = 0; to && j < to->n_kernels && !other; j++)
                if (!strcmp(or_empty(to->kernels[j].name), name) &&
                    !strcmp(or_empty(to->kernels[j].variant), variant))
                    other = &to->kernels[j];
            if (!other)
                rb_fmt(why, size, "kernel %s %s", name, pass ? "is new" : "is gone");
            else if (!pass)
                kernel_diff(k, other, why, size);
        }
    }
}

static void algo_diff(const rb_results_cmp_variant *ov, const rb_results_cmp_variant *nv,
                      char *why, size_t size)
{
    const char *ta = ov->library_algo, *tb = nv->library_algo;
    if (!ta && !tb)
        return;
    if (!ta || !tb || strcmp(ta, tb))
        rb_fmt(why, size, "library_algo %s -> %s", ta ? ta : "(absent)", tb ? tb : "(absent)");
}

/* The clock evidence of one run of a variant: mean SM clock (clocks.sm_mhz_mean, else the
 * sm_clock_mhz read after the loop) and whether it ran throttled. */
static double clock_mhz(const rb_results_cmp_variant *v)
{
    return isfinite(v->sm_mhz_mean) ? v->sm_mhz_mean : v->sm_clock_mhz;
}

static void reasons_text(const rb_results_cmp_variant *v, char *out, size_t size)
{
    rb_fmt(out, size, "%s", v->reasons[0] ? v->reasons : "none");
}

double rb_runcmp_cycle_mhz(const rb_results_cmp_variant *v)
{
    v = or_absent(v);
    if (!(v->sm_mhz_mean > 0) ||
        (v->has_clock_readings && !(v->clock_readings >= RB_EXPECT_MIN_CLOCK_READINGS)))
        return NAN;
    return v->sm_mhz_mean;
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
static int attribute_throttle(const rb_results_cmp_variant *ov, const rb_results_cmp_variant *nv,
                              rb_runcmp_row *row, rb_runcmp_text *t)
{
    /* the run that took longer: new when slower, old when faster */
    const rb_results_cmp_variant *slow = row->change == RB_CHANGE_SLOWER ? nv : ov;
    int throttled = slow->throttled;
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
static int attribute_contended(const rb_results_cmp_variant *ov,
                               const rb_results_cmp_variant *nv, rb_runcmp_row *row,
                               rb_runcmp_text *t)
{
    int in_old = ov->contended, in_new = nv->contended;
    if (!in_old && !in_new)
        return 0;
    const char *who = or_empty((in_new ? nv : ov)->contended_by);
    rb_fmt(t->evidence, sizeof t->evidence,
           "%s timed it while %s used the GPU: a shared GPU, not a code change; variant time "
           "x%.3f",
           in_old && in_new ? "both runs"
           : in_new         ? "NEW"
                            : "OLD",
           who[0] ? who : "another process", row->ratio);
    return 1;
}

void rb_runcmp_attribute(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                         const rb_results_cmp_pair *op, const rb_results_cmp_pair *np,
                         const rb_results_cmp_variant *ov, const rb_results_cmp_variant *nv,
                         rb_runcmp_row *row, rb_runcmp_text *t)
{
    char code[300];
    ov = or_absent(ov);
    nv = or_absent(nv);
    code_diff(op, np, row->variant, code, sizeof code);
    if (!code[0])
        algo_diff(ov, nv, code, sizeof code);
    row->code_changed = code[0] != '\0';
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

/* The verdicts of one pair of the run (results p, read back as np), attributed against the
 * expectation's row (ep, its platform reference in od) standing for the old run. */
static void attribute_pair_verdicts(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                                    const rb_results_cmp_pair *ep, const rb_results_cmp_pair *np,
                                    rb_pair_result *p)
{
    named evs;
    named_init(&evs, ep->v, ep->n_variants, sizeof *ep->v);
    for (int k = 0; k < p->n_variants && k < np->n_variants; k++) {
        rb_variant_result *v = &p->v[k];
        const rb_results_cmp_variant *nv = &np->v[k];
        if (v->verdict != RB_VERDICT_REGRESSED && v->verdict != RB_VERDICT_IMPROVED)
            continue;
        int at = named_find(&evs, v->name);
        const rb_results_cmp_variant *ov = at < 0 ? NULL : &ep->v[at];
        rb_runcmp_row row;
        rb_runcmp_text text;
        memset(&row, 0, sizeof row);
        rb_fmt(text.pair, sizeof text.pair, "%s", p->name);
        rb_fmt(text.variant, sizeof text.variant, "%s", v->name);
        rb_fmt(text.roof, sizeof text.roof, "%s", nv->roof);
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
        double oc = rb_runcmp_cycle_mhz(ov), nc = rb_runcmp_cycle_mhz(nv);
        row.cycles_ratio = v->per_clock ? row.ratio : row.ratio * nc / oc;
        if (!(oc > 0 && nc > 0))
            row.cycles_ratio = NAN;
        row.energy_ratio = NAN;
        rb_runcmp_attribute(od, nd, ep, np, ov, nv, &row, &text);
        rb_fmt(v->cause, sizeof v->cause, "%s", rb_cause_name(row.cause));
        rb_fmt(v->evidence, sizeof v->evidence, "%s", row.evidence);
        v->machine_explained = v->verdict == RB_VERDICT_REGRESSED &&
                               row.cause == RB_CAUSE_PLATFORM && !row.code_changed;
    }
    rb_name_index_free(&evs.ix);
}

/* The expectation's row stands for the old run (its platform reference, kernels, and each
 * variant's library_algo and clocks), this run's document for the new one. */
void rb_runcmp_attribute_verdicts(const json_value *expect, json_value *doc, rb_pair_result *results,
                                  int n)
{
    rb_results_cmp_doc nd, od;
    char err[200];
    if (!expect || rb_results_cmp_read(doc, &nd, err, sizeof err) != 0)
        return;
    for (int i = 0; i < n && i < nd.n_pairs; i++) {
        rb_results_cmp_pair ep;
        memset(&od, 0, sizeof od);
        if (rb_expect_row_as_results(expect, results[i].name, &od, &ep) == 0)
            attribute_pair_verdicts(&od, &nd, &ep, &nd.pairs[i], &results[i]);
        rb_results_cmp_free(&od);
    }
    rb_results_cmp_free(&nd);
    rb_report_json_causes(doc, results, n);
}

/* ---- the rows ---- */

static const char *skip_reason(const rb_results_cmp_variant *v)
{
    if (!v)
        return "absent";
    if (!v->valid)
        return "invalid";
    if (!v->timed)
        return "not timed";
    return NULL;
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

void rb_runcmp_judge(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                     const rb_results_cmp_pair *op, const rb_results_cmp_pair *np,
                     const rb_results_cmp_variant *ov, const rb_results_cmp_variant *nv,
                     const rb_expected *expected, rb_runcmp_row *row, rb_runcmp_text *t)
{
    const rb_results_cmp_variant *any = ov ? ov : nv;
    memset(row, 0, sizeof *row);
    rb_fmt(t->pair, sizeof t->pair, "%s", (op ? op : np)->name);
    rb_fmt(t->variant, sizeof t->variant, "%s", any->name);
    rb_fmt(t->roof, sizeof t->roof, "%s", any->roof);
    t->evidence[0] = '\0';
    row->pair = t->pair;
    row->variant = t->variant;
    row->roof = t->roof;
    row->evidence = t->evidence;
    row->old_ms = row->new_ms = row->ratio = row->ratio_lo = row->ratio_hi = row->floor = NAN;
    row->cycles_ratio = row->energy_ratio = NAN;
    row->contended = or_absent(ov)->contended || or_absent(nv)->contended;
    row->change = RB_CHANGE_NOT_COMPARED;
    row->cause = RB_CAUSE_NONE;
    row->informational = or_absent(ov)->informational || or_absent(nv)->informational;
    const char *why_old = skip_reason(ov), *why_new = skip_reason(nv);
    double so = op ? op->size : NAN, sn = np ? np->size : NAN;
    if (why_old || why_new) {
        rb_fmt(t->evidence, sizeof t->evidence, "%s in OLD, %s in NEW", why_old ? why_old : "timed",
               why_new ? why_new : "timed");
        return;
    }
    if (so != sn) {
        rb_fmt(t->evidence, sizeof t->evidence, "size %.0f in OLD, %.0f in NEW", so, sn);
        return;
    }
    const rb_results_cmp_variant *a = ov, *b = nv;
    row->old_ms = a->median;
    row->new_ms = b->median;
    if (!(a->median > 0 && b->median > 0)) {
        rb_fmt(t->evidence, sizeof t->evidence, "no median in %s", a->median > 0 ? "NEW" : "OLD");
        return;
    }
    row->ratio = b->median / a->median;
    row->ratio_lo = b->ci_lo / a->ci_hi;
    row->ratio_hi = b->ci_hi / a->ci_lo;
    double oc = rb_runcmp_cycle_mhz(ov), nc = rb_runcmp_cycle_mhz(nv);
    if (oc > 0 && nc > 0)
        row->cycles_ratio = row->ratio * nc / oc;
    double oj = ov->joules_per_launch, nj = nv->joules_per_launch;
    if (oj > 0 && nj > 0)
        row->energy_ratio = nj / oj;
    row->floor = rb_runcmp_floor(a->noise, b->noise);
    /* What varies between runs, where the expectations recorded it (model/expect.h): the same
     * floor a run's verdict uses, so that compare and run agree on what is noise. */
    rb_expected e;
    if (expected)
        e = *expected;
    else
        rb_expected_read(NULL, &e);
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
               a->ci_lo > 0   ? "NEW"
               : b->ci_lo > 0 ? "OLD"
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

static int add_pair_rows(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                         const rb_results_cmp_pair *op, const rb_results_cmp_pair *np,
                         rb_runcmp *c, int *cap)
{
    named ova, nva;
    named_init(&ova, op ? op->v : NULL, op ? op->n_variants : 0, sizeof *op->v);
    named_init(&nva, np ? np->v : NULL, np ? np->n_variants : 0, sizeof *np->v);
    const rb_results_cmp_pair *any = op ? op : np;
    rb_runcmp_row row;
    rb_runcmp_text text;
    int rc = ova.oom || nva.oom ? -1 : 0;
    for (int i = 0; rc == 0 && i < ova.count; i++) {
        const rb_results_cmp_variant *ov = &op->v[i];
        int at = named_find(&nva, ov->name);
        rb_expected e;
        if (!ov->name)
            continue;
        int expected = rb_expect_variant_at(c->expect, or_empty(any->name), any->size, ov->name,
                                            &e);
        rb_runcmp_judge(od, nd, op, np, ov, at < 0 ? NULL : &np->v[at], expected ? &e : NULL,
                        &row, &text);
        rc = push_row(c, cap, &row);
    }
    for (int i = 0; rc == 0 && i < nva.count; i++) {
        const rb_results_cmp_variant *nv = &np->v[i];
        if (!nv->name || named_find(&ova, nv->name) >= 0)
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

static int build_rows(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd, rb_runcmp *c)
{
    named opa, npa;
    named_init(&opa, od->pairs, od->n_pairs, sizeof *od->pairs);
    named_init(&npa, nd->pairs, nd->n_pairs, sizeof *nd->pairs);
    int cap = 0, rc = opa.oom || npa.oom ? -1 : 0;
    for (int i = 0; rc == 0 && i < od->n_pairs; i++) {
        int at = named_find(&npa, od->pairs[i].name);
        if (od->pairs[i].name)
            rc = add_pair_rows(od, nd, &od->pairs[i], at < 0 ? NULL : &nd->pairs[at], c, &cap);
    }
    for (int i = 0; rc == 0 && i < nd->n_pairs; i++)
        if (nd->pairs[i].name && named_find(&opa, nd->pairs[i].name) < 0)
            rc = add_pair_rows(od, nd, NULL, &nd->pairs[i], c, &cap);
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

/* The text of a run's fact (NULL: absent, or held without a value). */
static const char *fact_value(const rb_results_cmp_doc *d, const char *key)
{
    int i = rb_name_index_get(&d->facts_ix, key);
    return i < 0 ? NULL : d->facts[i].text;
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static int add_env_diff(rb_runcmp *c, const char *key, const char *a, const char *b)
{
    char *ta = dup(a ? a : "(absent)"), *tb = dup(b ? b : "(absent)");
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

static int build_env(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd, rb_runcmp *c)
{
    int rc = 0;
    for (int i = 0; i < od->n_facts && rc == 0; i++)
        rc = add_env_diff(c, od->facts[i].key, od->facts[i].text,
                          fact_value(nd, od->facts[i].key));
    for (int i = 0; i < nd->n_facts && rc == 0; i++)
        if (!fact_value(od, nd->facts[i].key))
            rc = add_env_diff(c, nd->facts[i].key, NULL, nd->facts[i].text);
    return rc;
}

/* ---- the whole ---- */

static int is_results(const json_value *doc, const char *which, char *err, size_t err_size)
{
    if (!rb_results_has_pairs(doc)) {
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
    rb_results_cmp_doc od, nd;
    memset(c, 0, sizeof *c);
    if (!is_results(old_doc, "OLD", err, err_size) || !is_results(new_doc, "NEW", err, err_size))
        return -1;
    if (rb_results_cmp_read(old_doc, &od, err, err_size) != 0)
        return -1;
    if (rb_results_cmp_read(new_doc, &nd, err, err_size) != 0) {
        rb_results_cmp_free(&od);
        return -1;
    }
    c->expect = expect;
    rb_fmt(c->old_git, sizeof c->old_git, "%s", rb_results_text(od.git, "?"));
    rb_fmt(c->new_git, sizeof c->new_git, "%s", rb_results_text(nd.git, "?"));
    rb_fmt(c->old_date, sizeof c->old_date, "%s", rb_results_text(od.date, "?"));
    rb_fmt(c->new_date, sizeof c->new_date, "%s", rb_results_text(nd.date, "?"));
    int rc = build_rows(&od, &nd, c) != 0 || build_env(&od, &nd, c) != 0 ? -1 : 0;
    c->expect = NULL; /* the caller's; not kept past the build */
    c->old_fingerprints = rb_runcmp_fingerprints(&od);
    c->new_fingerprints = rb_runcmp_fingerprints(&nd);
    rb_results_cmp_free(&od);
    rb_results_cmp_free(&nd);
    if (rc != 0) {
        rb_runcmp_free(c);
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    for (int i = 0; i < c->n_rows; i++)
        c->floors_from_runs += c->rows[i].floor_from_runs;
    return 0;
}

int rb_runcmp_fingerprints(const rb_results_cmp_doc *d)
{
    int n = 0;
    for (int i = 0; i < d->n_pairs; i++)
        for (int k = 0; k < d->pairs[i].n_kernels; k++)
            n += d->pairs[i].kernels[k].sass_hash != NULL;
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
