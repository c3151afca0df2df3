/* SPDX-License-Identifier: MIT */
/* The plot's data: a results document read into points and roofs, pair families, their colours
 * and zoom panels; names and numbers as the charts print them. */
#include "plot.h"

#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "result_read.h"
#include "util.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static int is_link_key(const char *key)
{
    return !strncmp(key, "pcie_", 5) || !strncmp(key, "nvlink_", 7);
}

static rb_plot_roof_kind kind_of_key(const char *key)
{
    return ends_with(key, "_tflops") ? RB_PLOT_ROOF_COMPUTE
           : ends_with(key, "_us")   ? RB_PLOT_ROOF_LATENCY
                                     : RB_PLOT_ROOF_BANDWIDTH;
}

/* The data's own copy of s (its pool: the document may go once read), NULL for NULL; *oom set
 * when out of memory. */
static const char *own(rb_plot_data *d, const char *s, int *oom)
{
    const char *copy = s ? rb_strpool_add(&d->strings, s) : NULL;
    if (s && !copy)
        *oom = 1;
    return copy ? copy : s ? "" : NULL;
}

/* The document's roofs, each a chart's kind (the file's, else its key's). */
static int load_roofs(const rb_results_view *view, rb_plot_data *d)
{
    d->have_roofs = view->have_roofs;
    if (!view->have_roofs)
        return 0;
    if (!(d->roofs = calloc((size_t)view->n_roofs + 1, sizeof *d->roofs)))
        return -1;
    for (int i = 0; i < view->n_roofs; i++) {
        const rb_view_roof *r = &view->roofs[i];
        rb_plot_roof *out = &d->roofs[d->n_roofs++];
        int oom = 0;
        if (!(out->key = own(d, r->key, &oom)) || oom)
            return -1;
        out->kind = kind_of_key(out->key);
        const char *kind = rb_results_text(r->kind, "");
        if (!strcmp(kind, "compute"))
            out->kind = RB_PLOT_ROOF_COMPUTE;
        else if (!strcmp(kind, "latency"))
            out->kind = RB_PLOT_ROOF_LATENCY;
        else if (!strcmp(kind, "bandwidth"))
            out->kind = RB_PLOT_ROOF_BANDWIDTH;
        out->measured = r->measured;
        out->peak = r->peak;
    }
    return 0;
}

/* Which panel a variant belongs on (see plot.h). */
static rb_plot_panel panel_of(const char *roof, double flops, int link_bytes,
                              const rb_view_variant *v)
{
    if (roof) {
        rb_plot_roof_kind kind = kind_of_key(roof);
        if (kind == RB_PLOT_ROOF_LATENCY)
            return RB_PANEL_LATENCY;
        if (is_link_key(roof))
            return RB_PANEL_LINK;
        if (kind == RB_PLOT_ROOF_COMPUTE)
            return RB_PANEL_ROOFLINE;
        return flops > 0 ? RB_PANEL_ROOFLINE : RB_PANEL_BANDWIDTH;
    }
    if (!isnan(v->us_per_kernel))
        return RB_PANEL_LATENCY;
    if (link_bytes)
        return RB_PANEL_LINK;
    return flops > 0 ? RB_PANEL_ROOFLINE : RB_PANEL_BANDWIDTH;
}

/* A file whose roof is the declared compute roof of a memory-bound variant (no declared roof
 * beside it): the memory roof its efficiency was taken against (rate / efficiency), when one
 * of the file's DRAM, L2 or shared-memory roofs is within 3% of it. */
static const char *binding_roof(const rb_plot_data *d, const char *roof, const rb_view_variant *v)
{
    if (!roof || v->has_declared_roof || kind_of_key(roof) != RB_PLOT_ROOF_COMPUTE ||
        strcmp(rb_results_text(v->ceiling.bound, ""), "memory"))
        return roof;
    double implied = v->ceiling.gbps / v->ceiling.efficiency;
    const char *best = roof;
    double best_err = 0.03;
    for (int i = 0; implied > 0 && isfinite(implied) && i < d->n_roofs; i++) {
        const rb_plot_roof *r = &d->roofs[i];
        double e = fabs(r->measured / implied - 1);
        if (r->kind == RB_PLOT_ROOF_BANDWIDTH && !is_link_key(r->key) && e < best_err) {
            best = r->key;
            best_err = e;
        }
    }
    return best;
}

/* A point's texts, the data's own: 0, or -1 when out of memory. */
static int load_texts(rb_plot_data *d, const rb_view_pair *pair, const rb_view_variant *v,
                      rb_plot_point *p)
{
    int oom = 0;
    p->pair = own(d, rb_results_text(pair->name, "?"), &oom);
    p->variant = own(d, rb_results_text(v->name, "?"), &oom);
    p->role = own(d, rb_results_text(v->role, "?"), &oom);
    p->roof = own(d, binding_roof(d, v->roof, v), &oom);
    p->declared_roof = v->declared_roof;
    if (!p->declared_roof && v->roof && kind_of_key(v->roof) == RB_PLOT_ROOF_COMPUTE)
        p->declared_roof = v->roof;
    p->declared_roof = own(d, p->declared_roof, &oom);
    p->verdict = own(d, rb_results_text(v->verdict, "-"), &oom);
    p->note = own(d, rb_results_text(v->note, ""), &oom);
    p->why = own(d, rb_results_text(v->host_bound_why, ""), &oom);
    p->roof_note = own(d, rb_results_text(v->roof_note, ""), &oom);
    p->rate_unit = own(d, v->rate_unit, &oom);
    return oom ? -1 : 0;
}

static int load_variant(rb_plot_data *d, const rb_view_pair *pair, const rb_view_variant *v,
                        int pair_index, rb_plot_point *p)
{
    memset(p, 0, sizeof *p);
    if (load_texts(d, pair, v, p) != 0)
        return -1;
    p->pair_index = pair_index;
    p->is_part = !strcmp(p->role, "part");
    p->timed = v->timed;
    p->valid = v->valid;
    p->informational = v->informational;
    p->inconsistent = v->inconsistent;
    p->rate = v->rate;
    p->median_ms = v->median_ms;
    p->noise = v->noise;
    p->gbps = v->ceiling.gbps;
    p->tflops = v->ceiling.tflops;
    p->efficiency = v->ceiling.efficiency;
    p->peak_efficiency = v->peak.efficiency;
    p->speedup = v->speedup;
    p->gflop_per_j = v->gflop_per_j;
    p->gb_per_j = v->gb_per_j;
    p->panel = panel_of(p->roof, pair->flops, pair->link_bytes, v);
    p->x = NAN;
    /* a collective's bytes per GPU: its size_bytes, or (written before it had one) the pair's
     * work-model bytes, its message */
    double size = v->size_bytes > 0 ? v->size_bytes : pair->bytes;
    if (p->panel == RB_PANEL_LINK && v->has_busbw && v->gpus > 1 && size > 0)
        p->panel = RB_PANEL_COLLECTIVE;
    if (p->panel == RB_PANEL_COLLECTIVE) {
        p->x = size;
        p->y = v->busbw_gbps;
    } else if (p->panel == RB_PANEL_ROOFLINE) {
        p->x = v->ceiling.ai;
        p->y = p->tflops * 1e12;
    } else if (p->panel == RB_PANEL_LATENCY) {
        /* the figure the results name as its rate (roof_rate), else the older us_per_kernel */
        double us = v->roof_rate_value;
        p->y = isnan(us) ? p->median_ms * 1e3 : us;
    } else {
        p->y = p->rate > 0 && p->rate_unit && !strcmp(p->rate_unit, "GB/s") ? p->rate : p->gbps;
    }
    int positive = p->y > 0 && isfinite(p->y) &&
                   ((p->panel != RB_PANEL_ROOFLINE && p->panel != RB_PANEL_COLLECTIVE) ||
                    (p->x > 0 && isfinite(p->x)));
    p->one_gpu = p->panel == RB_PANEL_LINK && v->gpus == 1 && v->has_busbw;
    p->plotted = p->timed && p->valid && positive && !p->one_gpu;
    if (!p->timed || !p->valid) {
        /* never a rate, an efficiency or a speedup for a variant that was not timed validly */
        p->gbps = p->tflops = p->efficiency = p->peak_efficiency = p->speedup = p->rate = NAN;
        p->gflop_per_j = p->gb_per_j = NAN;
    }
    return 0;
}

static int matches(const regex_t *re, const char *name)
{
    return !re || regexec(re, name, 0, NULL, 0) == 0;
}

static int load_meta(const rb_results_view *view, rb_plot_data *d)
{
    int oom = 0;
    d->device = own(d, rb_results_text(view->run.device, "?"), &oom);
    d->driver = own(d, rb_results_text(view->run.driver, "?"), &oom);
    d->cuda = own(d, rb_results_text(view->run.cuda_runtime, "?"), &oom);
    d->date = own(d, rb_results_text(view->run.date, "?"), &oom);
    d->git = own(d, rb_results_text(view->run.git, "?"), &oom);
    d->path = "";
    return oom ? -1 : 0;
}

/* ---- families, zoom panels, colours ---- */

/* A pair's family: its name up to the first '.' or '@' ("hgemm.square@64M" -> "hgemm"), found
 * or added through an open-addressing table of size slots (more than the pairs); -1 when out
 * of memory. */
static int family_of(rb_plot_data *d, int *table, size_t size, const char *pair)
{
    char name[64];
    size_t n = strcspn(pair, ".@");
    rb_fmt(name, sizeof name, "%.*s", (int)(n ? n : strlen(pair)), pair);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 16777619u;
    for (size_t k = h % size;; k = (k + 1) % size) {
        if (table[k] >= 0 && !strcmp(d->families[table[k]].name, name))
            return table[k];
        if (table[k] < 0) {
            rb_plot_family *f = &d->families[d->n_families];
            memset(f, 0, sizeof *f);
            if (!(f->name = rb_strpool_add(&d->strings, name)))
                return -1;
            f->zoom = -1;
            table[k] = d->n_families;
            return d->n_families++;
        }
    }
}

static int zoom_candidate(const rb_plot_point *p)
{
    return p->plotted && p->panel == RB_PANEL_ROOFLINE && p->x >= RB_PLOT_ZOOM_AI;
}

/* Families with many compute-bound points get a zoom panel each, the others share pooled ones,
 * all in the order the families first appear. */
static void assign_zooms(rb_plot_data *d)
{
    int total = 0, *count = calloc((size_t)d->n_families + 1, sizeof *count);
    if (!count)
        return;
    for (int i = 0; i < d->n_points; i++)
        if (zoom_candidate(&d->points[i])) {
            count[d->pair_family[d->points[i].pair_index]]++;
            total++;
        }
    if (total > RB_PLOT_ZOOM_MIN_POINTS) {
        for (int f = 0; f < d->n_families && d->n_zooms < RB_PLOT_MAX_ZOOMS; f++)
            if (count[f] >= RB_PLOT_ZOOM_OWN)
                d->families[f].zoom = d->n_zooms++;
        int pool = -1, in_pool = 0;
        for (int f = 0; f < d->n_families; f++) {
            if (!count[f] || d->families[f].zoom >= 0)
                continue;
            if (pool < 0 || in_pool + count[f] > RB_PLOT_ZOOM_POOL) {
                if (d->n_zooms < RB_PLOT_MAX_ZOOMS) {
                    pool = d->n_zooms++;
                    in_pool = 0;
                } else if (pool < 0) {
                    pool = d->n_zooms - 1; /* every panel taken: share the last one */
                }
            }
            d->families[f].zoom = pool;
            in_pool += count[f];
        }
    }
    for (int i = 0; i < d->n_points; i++) {
        rb_plot_point *p = &d->points[i];
        p->zoomed = zoom_candidate(p) && d->families[d->pair_family[p->pair_index]].zoom >= 0;
    }
    free(count);
}

/* The panels each family has points on (bit RB_PANEL_* and RB_PANEL_COUNT + its zoom panel),
 * NULL when out of memory. */
static unsigned *family_panels(const rb_plot_data *d)
{
    unsigned *panels = calloc((size_t)d->n_families + 1, sizeof *panels);
    for (int i = 0; panels && i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        int f = d->pair_family[p->pair_index];
        if (p->plotted)
            panels[f] |= 1u << p->panel;
        if (p->zoomed)
            panels[f] |= 1u << (RB_PANEL_COUNT + d->families[f].zoom);
    }
    return panels;
}

enum { PANELS = RB_PANEL_COUNT + RB_PLOT_MAX_ZOOMS };

/* The index of the smallest score (the first of equals). */
static int least(const int *score, int n)
{
    int best = 0;
    for (int k = 1; k < n; k++)
        best = score[k] < score[best] ? k : best;
    return best;
}

/* Greedy colouring: each family takes the palette colour used least (first: not at all) by
 * the families before it on the panels it has points on (RB_PANEL_* and the zoom panels), then
 * the marker shape used least by them, a shape already worn by a family of its colour counting
 * far more: families that meet are told apart by shape as well as colour. */
static void assign_colours(rb_plot_data *d)
{
    unsigned *panels = family_panels(d);
    int used[PANELS][RB_PLOT_COLOURS] = {{0}}, shaped[PANELS][RB_PLOT_SHAPES] = {{0}};
    int both[PANELS][RB_PLOT_COLOURS][RB_PLOT_SHAPES] = {{{0}}};
    if (!panels)
        return;
    for (int f = 0; f < d->n_families; f++) {
        int score[RB_PLOT_COLOURS] = {0}, shape_score[RB_PLOT_SHAPES] = {0};
        for (int b = 0; b < PANELS; b++)
            for (int c = 0; c < RB_PLOT_COLOURS && panels[f] >> b & 1; c++)
                score[c] += used[b][c];
        int colour = least(score, RB_PLOT_COLOURS);
        for (int b = 0; b < PANELS; b++)
            for (int s = 0; s < RB_PLOT_SHAPES && panels[f] >> b & 1; s++)
                shape_score[s] += shaped[b][s] + 16 * both[b][colour][s];
        int shape = least(shape_score, RB_PLOT_SHAPES);
        d->families[f].colour = colour;
        d->families[f].shape = shape;
        for (int b = 0; b < PANELS; b++)
            if (panels[f] >> b & 1) {
                used[b][colour]++;
                shaped[b][shape]++;
                both[b][colour][shape]++;
            }
    }
    free(panels);
}

static int load_families(rb_plot_data *d)
{
    d->families = calloc((size_t)d->n_pairs + 1, sizeof *d->families);
    d->pair_family = calloc((size_t)d->n_pairs + 1, sizeof *d->pair_family);
    d->pair_rank = calloc((size_t)d->n_pairs + 1, sizeof *d->pair_rank);
    size_t slots = 2 * (size_t)d->n_pairs + 1;
    int *table = malloc(slots * sizeof *table);
    if (!d->families || !d->pair_family || !d->pair_rank || !table) {
        free(table);
        return -1;
    }
    for (size_t k = 0; k < slots; k++)
        table[k] = -1;
    for (int k = 0; k < d->n_pairs; k++) {
        int f = family_of(d, table, slots, d->pairs[k]);
        if (f < 0) {
            free(table);
            return -1;
        }
        d->pair_family[k] = f;
        d->pair_rank[k] = d->families[f].n_pairs++;
    }
    free(table);
    assign_zooms(d);
    assign_colours(d);
    return 0;
}

/* ---- loading ---- */

/* 0, or -1 when out of memory. */
static int load_pairs(const rb_results_view *view, const regex_t *re, rb_plot_data *d)
{
    int most = 0;
    for (int i = 0; i < view->n_pairs; i++)
        most = view->pairs[i].n_variants > most ? view->pairs[i].n_variants : most;
    rb_view_variant *vs = calloc((size_t)most + 1, sizeof *vs);
    int oom = !vs;
    for (int i = 0; !oom && i < view->n_pairs; i++) {
        const rb_view_pair *p = &view->pairs[i];
        if (!matches(re, p->name))
            continue;
        rb_results_view_variants(view, i, vs);
        d->pairs[d->n_pairs] = own(d, p->name, &oom);
        for (int k = 0; k < p->n_variants && !oom; k++)
            oom = load_variant(d, p, &vs[k], d->n_pairs, &d->points[d->n_points++]) != 0;
        d->n_pairs += !oom;
    }
    free(vs);
    return oom ? -1 : 0;
}

/* The variants of the pairs the filter selects. */
static size_t count_variants(const rb_results_view *view, const regex_t *re)
{
    size_t n = 0;
    for (int i = 0; i < view->n_pairs; i++)
        if (matches(re, view->pairs[i].name))
            n += (size_t)view->pairs[i].n_variants;
    return n;
}

int rb_plot_load(const json_value *doc, const rb_filter *filter, rb_plot_data *d, char *err,
                 size_t err_size)
{
    rb_results_view view;
    memset(d, 0, sizeof *d);
    if (rb_results_view_read(doc, &view, err, err_size) != 0)
        return -1;
    const regex_t *re = filter ? &filter->re : NULL;
    d->points = calloc(count_variants(&view, re) + 1, sizeof *d->points);
    d->pairs = calloc((size_t)view.n_pairs + 1, sizeof *d->pairs);
    int rc = !d->points || !d->pairs || load_roofs(&view, d) != 0 ? -1 : 0;
    if (rc == 0 && view.run.p2p_matrix && !(d->p2p_matrix = json_clone(view.run.p2p_matrix)))
        rc = -1;
    if (rc == 0 && (load_pairs(&view, re, d) != 0 || load_meta(&view, d) != 0))
        rc = -1;
    if (rc == 0 && load_families(d) != 0)
        rc = -1;
    rb_results_view_free(&view);
    if (rc != 0) {
        rb_fmt(err, err_size, "out of memory");
        rb_plot_free(d);
        return -1;
    }
    return 0;
}

void rb_plot_free(rb_plot_data *d)
{
    free(d->roofs);
    free(d->pairs);
    free(d->points);
    free(d->pair_family);
    free(d->pair_rank);
    free(d->families);
    json_free(d->p2p_matrix);
    rb_strpool_free(&d->strings);
    memset(d, 0, sizeof *d);
}

/* ---- names, numbers, colours ---- */

rb_plot_point *rb_plot_find_point(const rb_plot_data *d, const char *pair, const char *variant)
{
    for (int i = 0; i < d->n_points; i++)
        if (!strcmp(d->points[i].pair, pair) && !strcmp(d->points[i].variant, variant))
            return &d->points[i];
    return NULL;
}

const rb_plot_roof *rb_plot_find_roof(const rb_plot_data *d, const char *key)
{
    for (int i = 0; key && i < d->n_roofs; i++)
        if (!strcmp(d->roofs[i].key, key))
            return &d->roofs[i];
    return NULL;
}

void rb_plot_roof_name(const char *key, char *out, size_t out_size)
{
    static const char *const names[][2] = {
        {"dram_gbps", "DRAM copy"},
        {"dram_read_gbps", "DRAM read"},
        {"dram_write_gbps", "DRAM write"},
        {"l2_read_gbps", "L2 read"},
        {"smem_gbps", "shared memory"},
        {"pcie_h2d_gbps", "PCIe H2D"},
        {"pcie_d2h_gbps", "PCIe D2H"},
        {"pcie_duplex_gbps", "PCIe duplex"},
        {"nvlink_gbps", "NVLink"},
        {"nvlink_bidir_gbps", "NVLink both ways"},
        {"fp32_tflops", "FP32"},
        {"fp64_tflops", "FP64"},
        {"tf32_tflops", "TF32"},
        {"bf16_tflops", "BF16"},
        {"fp16_tflops", "FP16"},
        {"fp8_tflops", "FP8"},
        {"launch_us", "launch"},
        {"graph_node_us", "graph node"},
        {"dram_latency_us", "DRAM latency"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(key, names[i][0])) {
            rb_fmt(out, out_size, "%s", names[i][1]);
            return;
        }
    rb_fmt(out, out_size, "%s", key);
}

void rb_plot_num(double x, char *out, size_t out_size)
{
    double a = fabs(x);
    if (!isfinite(x)) {
        rb_fmt(out, out_size, "-");
        return;
    }
    if (a >= 99.95) {
        rb_fmt(out, out_size, "%.0f", x);
        return;
    }
    if (a < 0.001 && a > 0) {
        rb_fmt(out, out_size, "%s0.001", x < 0 ? "> -" : "< "); /* below what the charts show */
        return;
    }
    /* '#' keeps the trailing zeros (1.30, not 1.3); the point alone ("10.") never shows */
    rb_fmt(out, out_size, "%#.3g", x);
    size_t n = strlen(out);
    if (n && out[n - 1] == '.')
        out[n - 1] = '\0';
}

/* The unit a point's rate is shown in: its binding roof's (a memory-bound roofline point in
 * GB/s, as the terminal shows it). */
static rb_plot_roof_kind rate_kind(const rb_plot_point *p)
{
    if (p->panel == RB_PANEL_LATENCY)
        return RB_PLOT_ROOF_LATENCY;
    if (p->panel != RB_PANEL_ROOFLINE)
        return RB_PLOT_ROOF_BANDWIDTH;
    return p->roof && kind_of_key(p->roof) == RB_PLOT_ROOF_BANDWIDTH ? RB_PLOT_ROOF_BANDWIDTH
                                                                     : RB_PLOT_ROOF_COMPUTE;
}

double rb_plot_rate(const rb_plot_point *p)
{
    if (p->rate_unit && isfinite(p->rate))
        return p->timed && p->valid ? p->rate : NAN;
    rb_plot_roof_kind kind = rate_kind(p);
    double x = kind == RB_PLOT_ROOF_COMPUTE    ? p->tflops
               : kind == RB_PLOT_ROOF_LATENCY  ? p->y
               : p->panel == RB_PANEL_ROOFLINE ? p->gbps
                                               : p->y;
    return p->timed && p->valid && isfinite(x) ? x : NAN;
}

void rb_plot_rate_text(const rb_plot_point *p, char *out, size_t out_size)
{
    char v[32];
    rb_plot_roof_kind kind = rate_kind(p);
    double x = rb_plot_rate(p);
    if (isnan(x)) {
        rb_fmt(out, out_size, "-");
        return;
    }
    rb_plot_num(x, v, sizeof v);
    const char *unit = kind == RB_PLOT_ROOF_COMPUTE   ? "TFLOP/s"
                       : kind == RB_PLOT_ROOF_LATENCY ? "\xc2\xb5s per kernel"
                                                      : "GB/s";
    if (p->rate_unit && isfinite(p->rate))
        unit = !strcmp(p->rate_unit, "us/launch") ? "\xc2\xb5s per launch" : p->rate_unit;
    rb_fmt(out, out_size, "%s %s", v, unit);
}

void rb_plot_efficiency_text(const rb_plot_point *p, char *out, size_t out_size)
{
    char name[64];
    rb_plot_roof_name(p->roof ? p->roof : "", name, sizeof name);
    if (isnan(p->efficiency) && p->roof)
        rb_fmt(out, out_size, "no measured %s roof", name);
    else if (isnan(p->efficiency))
        rb_fmt(out, out_size, "roof unknown");
    else if (p->inconsistent)
        rb_fmt(out, out_size, "inconsistent: %.1f%% of %s", 100 * p->efficiency,
               p->roof ? name : "its roof");
    else
        rb_fmt(out, out_size, "%.1f%% of %s", 100 * p->efficiency, p->roof ? name : "its roof");
}

/* Readable as text on white, told apart by hue first (the first nine) and then by darkness. */
static const char *const palette[RB_PLOT_COLOURS] = {
    "#1f77b4", "#e6550d", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#d6409f", "#17a2b8", "#8c8c00", "#2b2d87", "#00796b", "#c29a00",
};

const char *rb_plot_colour(int i)
{
    return palette[((i % RB_PLOT_COLOURS) + RB_PLOT_COLOURS) % RB_PLOT_COLOURS];
}

const char *rb_plot_pair_colour(const rb_plot_data *d, int pair_index)
{
    return rb_plot_colour(d->families[d->pair_family[pair_index]].colour);
}

void rb_plot_shade(const char *hex, int shade, char *out, size_t out_size)
{
    unsigned rgb = (unsigned)strtoul(hex + (hex[0] == '#'), NULL, 16);
    double c[3] = {(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255};
    /* darker by a third, a third of the way to white, darker by more than half: told apart,
     * still read on white */
    for (int k = 0; k < 3; k++)
        c[k] = shade % RB_PLOT_SHADES == 1   ? c[k] * 0.62
               : shade % RB_PLOT_SHADES == 2 ? c[k] + (255 - c[k]) * 0.3
               : shade % RB_PLOT_SHADES == 3 ? c[k] * 0.4
                                             : c[k];
    rb_fmt(out, out_size, "#%02x%02x%02x", (unsigned)lround(c[0]), (unsigned)lround(c[1]),
           (unsigned)lround(c[2]));
}

int rb_plot_pair_marker(const rb_plot_data *d, int pair_index)
{
    return d->families[d->pair_family[pair_index]].shape;
}

void rb_plot_pair_shade(const rb_plot_data *d, int pair_index, char *out, size_t out_size)
{
    rb_plot_shade(rb_plot_pair_colour(d, pair_index), d->pair_rank[pair_index], out, out_size);
}

int rb_plot_sibling(const char *path, const char *ext, const char *suffix, char *out,
                    size_t out_size)
{
    size_t len = strlen(path);
    if (ends_with(path, ext) && len > strlen(ext))
        len -= strlen(ext);
    return rb_fmt_fits(out, out_size, "%.*s%s", (int)len, path, suffix);
}
