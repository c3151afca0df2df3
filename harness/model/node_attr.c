/* SPDX-License-Identifier: MIT */
/* Why a GPU's row fell behind the other GPUs' (the rules are in node.h). */
#include "node_attr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "roofline.h"
#include "util.h"

/* The GPUs' values of one fact; NAN where unknown. At most this many GPUs in one node. */
#define NODE_MAX_GPUS 1024

typedef struct node_view {
    const rb_node_member *const *runs;
    int n, g;
    const rb_node_group *row;
    const rb_node_var *v;
    double ratio, threshold;
} node_view;

const rb_node_group *rb_node_row(const rb_node_member *run, const char *name)
{
    for (int i = 0; i < run->n_groups; i++)
        if (!strcmp(run->groups[i].name, name))
            return &run->groups[i];
    return NULL;
}

const rb_node_var *rb_node_variant(const rb_node_group *row, const char *name)
{
    for (int i = 0; row && i < row->n_variants; i++)
        if (!strcmp(row->v[i].name, name))
            return &row->v[i];
    return NULL;
}

static int node_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rb_node_median(const double *x, int n)
{
    double *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    int m = 0;
    for (int i = 0; s && i < n; i++)
        if (isfinite(x[i]))
            s[m++] = x[i];
    double med = NAN;
    if (m > 0) {
        qsort(s, (size_t)m, sizeof *s, node_cmp_double);
        med = m % 2 ? s[m / 2] : 0.5 * (s[m / 2 - 1] + s[m / 2]);
    }
    free(s);
    return med;
}

double rb_node_peer_reference(const double *x, int n, int g, int *finite)
{
    int m = 0, other = -1;
    for (int i = 0; i < n; i++)
        if (isfinite(x[i])) {
            m++;
            if (i != g)
                other = i;
        }
    if (finite)
        *finite = m;
    if (m >= 3)
        return rb_node_median(x, n);
    return m == 2 && other >= 0 ? x[other] : NAN;
}

/* The figure of p that key names (dram_gbps, fp32_tflops, launch_us). */
static double node_platform_figure(const rb_results_platform *p, const char *key)
{
    return !strcmp(key, "dram_gbps")     ? p->dram_gbps
           : !strcmp(key, "fp32_tflops") ? p->fp32_tflops
                                         : p->launch_us;
}

/* A platform reference's value (NaN when the run measured none). */
static double node_platform(const rb_node_member *run, const char *key, double *noise)
{
    if (noise)
        *noise = node_platform_figure(&run->platform_noise, key);
    return run->platform_measured ? node_platform_figure(&run->platform, key) : NAN;
}

/* The time ratio GPU g's platform reference `key` predicts against the node's (the GPUs'
 * median, its own included, or with two GPUs the other one; NaN: unknown),
 * and the values into *mine / *ref. */
static double node_platform_ratio(const node_view *w, const char *key, double *mine, double *ref,
                                  double *noise)
{
    double x[NODE_MAX_GPUS];
    for (int i = 0; i < w->n; i++)
        x[i] = node_platform(w->runs[i], key, i == w->g ? noise : NULL);
    *mine = x[w->g];
    *ref = rb_node_peer_reference(x, w->n, w->g, NULL);
    if (!(*mine > 0 && *ref > 0))
        return NAN;
    return strstr(key, "_us") ? *mine / *ref : *ref / *mine;
}

/* The platform's slowdown e explains the row's ratio: e itself beyond what the reference
 * repeats to, and the ratio within the threshold of e or between half and twice its excess. */
static int node_similar(double e, double noise, double ratio, double threshold)
{
    double floor = fmax(RB_NODE_PLATFORM_MIN, 2 * (isfinite(noise) ? noise : 0));
    if (!(e - 1 > floor))
        return 0;
    if (fabs(ratio / e - 1) <= threshold)
        return 1;
    return e - 1 >= 0.5 * (ratio - 1) && e - 1 <= 2 * (ratio - 1);
}

static const char *node_platform_key(const char *roof)
{
    rb_roof r;
    if (rb_roof_from_key(roof, &r) != 0 || rb_roof_is_link(r))
        return NULL;
    switch (rb_roof_kind_of(r)) {
    case RB_KIND_BANDWIDTH: return "dram_gbps";
    case RB_KIND_COMPUTE: return "fp32_tflops";
    default: return "launch_us";
    }
}

static int node_is_platform(const node_view *w, char *ev, size_t size)
{
    const char *key = node_platform_key(rb_results_text(w->v->roof, ""));
    double mine, ref, noise = NAN;
    double e = key ? node_platform_ratio(w, key, &mine, &ref, &noise) : NAN;
    if (key && node_similar(e, noise, w->ratio, w->threshold)) {
        rb_fmt(ev, size,
               "platform reference %s %.4g vs %.4g for the node (time x%.3f expected); "
               "this row x%.3f",
               key, mine, ref, e, w->ratio);
        return 1;
    }
    /* A co-tenant takes SMs and DRAM: a kernel using both slows between the two predictions. */
    double md, rd, mf, rf, nd = NAN, nf = NAN;
    double ed = node_platform_ratio(w, "dram_gbps", &md, &rd, &nd);
    double ef = node_platform_ratio(w, "fp32_tflops", &mf, &rf, &nf);
    double lo = fmin(ed, ef), hi = fmax(ed, ef);
    if (!(lo > 1) || !(hi - 1 > fmax(RB_NODE_PLATFORM_MIN, 2 * fmax(nd, nf))) ||
        !(w->ratio >= lo / (1 + w->threshold) && w->ratio <= hi * (1 + w->threshold)))
        return 0;
    rb_fmt(ev, size,
           "platform reference dram_gbps %.4g vs %.4g, fp32_tflops %.4g vs %.4g for the node "
           "GPUs (time x%.3f to x%.3f expected); this row x%.3f",
           md, rd, mf, rf, lo, hi, w->ratio);
    return 1;
}

/* The name of the first reason of names[] among reasons (in model/clocks.h's order, the order
 * the files list them in), NULL when none. */
static const char *node_reason_in(unsigned reasons, const rb_clock_reason *names, int n_names)
{
    for (int r = 0; r < RB_REASON_COUNT; r++)
        for (int k = 0; k < n_names; k++)
            if ((int)names[k] == r && (reasons >> r & 1u))
                return rb_clock_reason_name((rb_clock_reason)r);
    return NULL;
}

/* The row's mean SM clock on GPU g and for the node (the GPUs' median, or the other GPU). */
static void node_row_clocks(const node_view *w, double *mine, double *ref)
{
    double x[NODE_MAX_GPUS];
    for (int i = 0; i < w->n; i++) {
        const rb_node_var *v =
            i == w->g ? w->v : rb_node_variant(rb_node_row(w->runs[i], w->row->name), w->v->name);
        x[i] = v ? v->sm_mhz_mean : NAN;
    }
    *mine = x[w->g];
    *ref = rb_node_peer_reference(x, w->n, w->g, NULL);
}

static int node_is_thermal(const node_view *w, char *ev, size_t size)
{
    static const rb_clock_reason names[] = {RB_REASON_THERMAL, RB_REASON_SW_THERMAL,
                                            RB_REASON_HW_THERMAL, RB_REASON_HW_SLOWDOWN};
    const rb_node_member *run = w->runs[w->g];
    double mine, ref;
    node_row_clocks(w, &mine, &ref);
    const char *r = node_reason_in(w->v->reasons, names, 4);
    if (r) {
        rb_fmt(ev, size,
               "clock-event reason %s during this row; SM clock %.0f MHz vs %.0f for the "
               "node; this row x%.3f",
               r, mine, ref, w->ratio);
        return 1;
    }
    static const char *const when[2] = {"start", "end"};
    for (int k = 0; k < 2; k++) {
        if ((r = node_reason_in(run->reasons[k], names, 4))) {
            rb_fmt(ev, size, "clock-event reason %s at run %s (temperature %.0f C); this row x%.3f",
                   r, when[k], run->temperature_c[k], w->ratio);
            return 1;
        }
    }
    return 0;
}

static int node_is_power(const node_view *w, char *ev, size_t size)
{
    static const rb_clock_reason names[] = {RB_REASON_POWER_CAP, RB_REASON_HW_POWER_BRAKE};
    double mine, ref, x[NODE_MAX_GPUS];
    node_row_clocks(w, &mine, &ref);
    const char *r = node_reason_in(w->v->reasons, names, 2);
    if (r && mine < ref * 0.99) {
        rb_fmt(ev, size,
               "clock-event reason %s during this row at SM clock %.0f MHz vs %.0f for "
               "the node (x%.3f); this row x%.3f",
               r, mine, ref, ref / mine, w->ratio);
        return 1;
    }
    for (int i = 0; i < w->n; i++)
        x[i] = w->runs[i]->power_limit_w;
    double lim = rb_node_peer_reference(x, w->n, w->g, NULL);
    if (x[w->g] < lim * 0.99) {
        rb_fmt(ev, size, "power limit %.0f W vs %.0f W for the node; this row x%.3f", x[w->g], lim,
               w->ratio);
        return 1;
    }
    return 0;
}

/* The PCIe generation and width of each GPU at their best over the run (a link may train
 * down while idle). */
static void node_pcie_facts(const node_view *w, double *gen, double *width)
{
    for (int i = 0; i < w->n; i++) {
        gen[i] = fmax(w->runs[i]->pcie_gen[0], w->runs[i]->pcie_gen[1]);
        width[i] = fmax(w->runs[i]->pcie_width[0], w->runs[i]->pcie_width[1]);
    }
}

static int node_is_pcie(const node_view *w, char *ev, size_t size)
{
    rb_roof r;
    int host = w->v->host_bound_why[0] != '\0';
    if (!host && !(rb_roof_from_key(rb_results_text(w->v->roof, ""), &r) == 0 &&
                   rb_roof_is_link(r) && strncmp(rb_roof_key(r), "pcie", 4) == 0))
        return 0;
    double gen[NODE_MAX_GPUS], width[NODE_MAX_GPUS];
    node_pcie_facts(w, gen, width);
    double rg = rb_node_peer_reference(gen, w->n, w->g, NULL);
    double rw = rb_node_peer_reference(width, w->n, w->g, NULL);
    if (!(gen[w->g] < rg) && !(width[w->g] < rw))
        return 0;
    rb_fmt(ev, size, "PCIe gen %.0f x%.0f vs gen %.0f x%.0f for the node; this row x%.3f",
           gen[w->g], width[w->g], rg, rw, w->ratio);
    return 1;
}

static int node_is_ecc(const node_view *w, char *ev, size_t size)
{
    double x[NODE_MAX_GPUS];
    for (int i = 0; i < w->n; i++)
        x[i] = w->runs[i]->ecc;
    double ref = rb_node_peer_reference(x, w->n, w->g, NULL);
    if (!isfinite(x[w->g]) || !isfinite(ref) || x[w->g] == ref)
        return 0;
    rb_fmt(ev, size, "ECC %s, %s for the node; this row x%.3f", x[w->g] ? "on" : "off",
           ref > 0.5 ? "on" : "off", w->ratio);
    return 1;
}

void rb_node_attribute(const rb_node_member *const *runs, int n, int g, const rb_node_group *row,
                       const rb_node_var *v, double ratio, double threshold, rb_node_attr *a)
{
    node_view w = {runs, n > NODE_MAX_GPUS ? NODE_MAX_GPUS : n, g, row, v, ratio, threshold};
    static const struct {
        const char *name;
        int (*holds)(const node_view *, char *, size_t);
    } rules[] = {{"platform", node_is_platform},
                 {"thermal", node_is_thermal},
                 {"power", node_is_power},
                 {"pcie", node_is_pcie},
                 {"ecc", node_is_ecc}};
    for (size_t i = 0; g < w.n && i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].holds(&w, a->evidence, sizeof a->evidence)) {
            a->attribution = rules[i].name;
            return;
        }
    a->attribution = "unexplained";
    rb_fmt(a->evidence, sizeof a->evidence,
           "platform reference, clocks, clock-event reasons, power limit, PCIe link and ECC "
           "like the other GPUs'; this row x%.3f",
           ratio);
}
