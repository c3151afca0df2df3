/* SPDX-License-Identifier: MIT */
/* Why a GPU's row fell behind the other GPUs' (the rules are in node.h). */
#include "node_attr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "roofline.h"
#include "util.h"

/* The GPUs' values of one fact; NAN where unknown. At most this many GPUs in one node. */
#define NODE_MAX_GPUS 1024

typedef struct node_view {
    const json_value *const *runs;
    int n, g;
    const json_value *row, *v;
    double ratio, threshold;
} node_view;

/* The pair record of row `name` in a run document, NULL when absent. */
const json_value *rb_node_row(const json_value *run, const char *name)
{
    const json_value *pairs = json_get(run, "pairs");
    if (!pairs || pairs->type != JSON_ARRAY)
        return NULL;
    for (uint32_t i = 0; i < pairs->count; i++)
        if (!strcmp(json_string_at(pairs->items[i], "name", ""), name))
            return pairs->items[i];
    return NULL;
}

const json_value *rb_node_variant(const json_value *row, const char *name)
{
    const json_value *vs = json_get(row, "variants");
    if (!vs || vs->type != JSON_ARRAY)
        return NULL;
    for (uint32_t i = 0; i < vs->count; i++)
        if (!strcmp(json_string_at(vs->items[i], "name", ""), name))
            return vs->items[i];
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

static const json_value *node_start(const json_value *run)
{
    return json_get(json_get(run, "environment"), "start");
}

/* A platform reference's value (NaN when the run measured none). */
static double node_platform(const json_value *run, const char *key, double *noise)
{
    const json_value *p = json_get(run, "platform");
    const char *source = json_string_at(p, "source", "");
    if (noise)
        *noise = json_number_at(json_get(json_get(p, "methods"), key), "noise");
    return strcmp(source, "none") ? json_number_at(p, key) : NAN;
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
    const char *key = node_platform_key(json_string_at(w->v, "roof", ""));
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

/* The first of names[] in the array of reason names arr, NULL when none. */
static const char *node_reason_in(const json_value *arr, const char *const *names, int n_names)
{
    for (uint32_t i = 0; arr && arr->type == JSON_ARRAY && i < arr->count; i++)
        for (int k = 0; k < n_names; k++)
            if (arr->items[i]->type == JSON_STRING && !strcmp(arr->items[i]->string, names[k]))
                return names[k];
    return NULL;
}

/* The row's mean SM clock on GPU g and for the node (the GPUs' median, or the other GPU). */
static void node_row_clocks(const node_view *w, double *mine, double *ref)
{
    double x[NODE_MAX_GPUS];
    const char *row = json_string_at(w->row, "name", ""), *name = json_string_at(w->v, "name", "");
    for (int i = 0; i < w->n; i++) {
        const json_value *v =
            i == w->g ? w->v : rb_node_variant(rb_node_row(w->runs[i], row), name);
        x[i] = json_number_at(json_get(v, "clocks"), "sm_mhz_mean");
    }
    *mine = x[w->g];
    *ref = rb_node_peer_reference(x, w->n, w->g, NULL);
}

static int node_is_thermal(const node_view *w, char *ev, size_t size)
{
    static const char *const names[] = {"thermal", "sw_thermal", "hw_thermal", "hw_slowdown"};
    const json_value *env = json_get(w->runs[w->g], "environment");
    double mine, ref;
    node_row_clocks(w, &mine, &ref);
    const char *r = node_reason_in(json_get(json_get(w->v, "clocks"), "reasons"), names, 4);
    if (r) {
        rb_fmt(ev, size,
               "clock-event reason %s during this row; SM clock %.0f MHz vs %.0f for the "
               "node; this row x%.3f",
               r, mine, ref, w->ratio);
        return 1;
    }
    static const char *const when[2] = {"start", "end"};
    for (int k = 0; k < 2; k++) {
        const json_value *nvml = json_get(json_get(env, when[k]), "nvml");
        if ((r = node_reason_in(json_get(nvml, "clock_event_reasons"), names, 4))) {
            rb_fmt(ev, size, "clock-event reason %s at run %s (temperature %.0f C); this row x%.3f",
                   r, when[k], json_number_at(nvml, "temperature_c"), w->ratio);
            return 1;
        }
    }
    return 0;
}

/* A fact of environment.start on each GPU into x. */
static void node_start_fact(const node_view *w, const char *key, double *x)
{
    for (int i = 0; i < w->n; i++) {
        const json_value *s = node_start(w->runs[i]), *f = json_get(s, key);
        x[i] = f && f->type == JSON_BOOL ? f->boolean : json_number_at(s, key);
    }
}

static int node_is_power(const node_view *w, char *ev, size_t size)
{
    static const char *const names[] = {"power_cap", "hw_power_brake"};
    double mine, ref, x[NODE_MAX_GPUS];
    node_row_clocks(w, &mine, &ref);
    const char *r = node_reason_in(json_get(json_get(w->v, "clocks"), "reasons"), names, 2);
    if (r && mine < ref * 0.99) {
        rb_fmt(ev, size,
               "clock-event reason %s during this row at SM clock %.0f MHz vs %.0f for "
               "the node (x%.3f); this row x%.3f",
               r, mine, ref, ref / mine, w->ratio);
        return 1;
    }
    node_start_fact(w, "power_limit_w", x);
    double lim = rb_node_peer_reference(x, w->n, w->g, NULL);
    if (x[w->g] < lim * 0.99) {
        rb_fmt(ev, size, "power limit %.0f W vs %.0f W for the node; this row x%.3f", x[w->g], lim,
               w->ratio);
        return 1;
    }
    return 0;
}

/* A PCIe fact at its best over the run (a link may train down while idle). */
static void node_pcie_fact(const node_view *w, const char *key, double *x)
{
    for (int i = 0; i < w->n; i++) {
        const json_value *env = json_get(w->runs[i], "environment");
        x[i] = fmax(json_number_at(json_get(env, "start"), key),
                    json_number_at(json_get(env, "end"), key));
    }
}

static int node_is_pcie(const node_view *w, char *ev, size_t size)
{
    rb_roof r;
    int host = json_string_at(w->v, "host_bound_why", "")[0] != '\0';
    if (!host && !(rb_roof_from_key(json_string_at(w->v, "roof", ""), &r) == 0 &&
                   rb_roof_is_link(r) && strncmp(rb_roof_key(r), "pcie", 4) == 0))
        return 0;
    double gen[NODE_MAX_GPUS], width[NODE_MAX_GPUS];
    node_pcie_fact(w, "pcie_gen", gen);
    node_pcie_fact(w, "pcie_width", width);
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
    node_start_fact(w, "ecc", x);
    double ref = rb_node_peer_reference(x, w->n, w->g, NULL);
    if (!isfinite(x[w->g]) || !isfinite(ref) || x[w->g] == ref)
        return 0;
    rb_fmt(ev, size, "ECC %s, %s for the node; this row x%.3f", x[w->g] ? "on" : "off",
           ref > 0.5 ? "on" : "off", w->ratio);
    return 1;
}

void rb_node_attribute(const json_value *const *runs, int n, int g, const json_value *row,
                       const json_value *v, double ratio, double threshold, rb_node_attr *a)
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
