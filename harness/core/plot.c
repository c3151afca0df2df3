/* SPDX-License-Identifier: MIT */
/* The plot's data: a results document read into points and roofs; axes; label placement. */
#include "plot.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

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

/* The top-level "roofs": {"<key>": {"kind", "measured", "peak"}}. */
static int load_roofs(const json_value *doc, rb_plot_data *d, char *err, size_t err_size)
{
    const json_value *roofs = json_get(doc, "roofs");
    if (!roofs)
        return 0;
    if (roofs->type != JSON_OBJECT) {
        rb_fmt(err, err_size, "\"roofs\" is not an object");
        return -1;
    }
    d->have_roofs = 1;
    d->roofs = calloc(roofs->count + 1, sizeof *d->roofs);
    if (!d->roofs) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < roofs->count; i++) {
        const json_value *r = roofs->items[i];
        if (r->type != JSON_OBJECT) {
            rb_fmt(err, err_size, "roofs.%s is not an object", roofs->keys[i]);
            return -1;
        }
        rb_plot_roof *out = &d->roofs[d->n_roofs++];
        out->key = roofs->keys[i];
        out->kind = kind_of_key(out->key);
        const char *kind = json_string_at(r, "kind", "");
        if (!strcmp(kind, "compute"))
            out->kind = RB_PLOT_ROOF_COMPUTE;
        else if (!strcmp(kind, "latency"))
            out->kind = RB_PLOT_ROOF_LATENCY;
        else if (!strcmp(kind, "bandwidth"))
            out->kind = RB_PLOT_ROOF_BANDWIDTH;
        out->measured = json_number_at(r, "measured");
        out->peak = json_number_at(r, "peak");
    }
    return 0;
}

static double extra(const json_value *v, const char *name)
{
    return json_number_at(json_get(v, "extras"), name);
}

/* Which panel a variant belongs on (see plot.h). */
static rb_plot_panel panel_of(const char *roof, double flops, int link_bytes,
                              const json_value *v)
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
    if (!isnan(extra(v, "us_per_kernel")))
        return RB_PANEL_LATENCY;
    if (link_bytes)
        return RB_PANEL_LINK;
    return flops > 0 ? RB_PANEL_ROOFLINE : RB_PANEL_BANDWIDTH;
}

static void load_variant(const json_value *pair, const json_value *v, int pair_index,
                         rb_plot_point *p)
{
    const json_value *ceil = json_get(v, "vs_ceiling"), *peak = json_get(v, "vs_peak");
    const json_value *t = json_get(v, "time_ms");
    double flops = json_number_at(pair, "flops");
    memset(p, 0, sizeof *p);
    p->pair = json_string_at(pair, "name", "?");
    p->variant = json_string_at(v, "name", "?");
    p->role = json_string_at(v, "role", "?");
    p->roof = json_string_at(v, "roof", NULL);
    p->verdict = json_string_at(v, "verdict", "-");
    p->note = json_string_at(v, "note", "");
    p->pair_index = pair_index;
    p->is_part = !strcmp(p->role, "part");
    p->median_ms = json_number_at(t, "median");
    p->noise = json_number_at(t, "noise");
    p->gbps = json_number_at(ceil, "gbps");
    p->tflops = json_number_at(ceil, "tflops");
    p->efficiency = json_number_at(ceil, "efficiency");
    p->peak_efficiency = json_number_at(peak, "efficiency");
    p->speedup = json_number_at(v, "speedup");
    p->panel = panel_of(p->roof, flops, json_true_at(pair, "link_bytes"), v);
    p->x = NAN;
    if (p->panel == RB_PANEL_ROOFLINE) {
        p->x = json_number_at(ceil, "ai");
        p->y = p->tflops * 1e12;
    } else if (p->panel == RB_PANEL_LATENCY) {
        double us = extra(v, "us_per_kernel");
        p->y = isnan(us) ? p->median_ms * 1e3 : us;
    } else {
        p->y = p->gbps;
    }
    int positive = p->y > 0 && isfinite(p->y) &&
                   (p->panel != RB_PANEL_ROOFLINE || (p->x > 0 && isfinite(p->x)));
    p->plotted = json_true_at(v, "timed") && json_true_at(v, "valid") && positive;
}

static int matches(const regex_t *re, const char *name)
{
    return !re || regexec(re, name, 0, NULL, 0) == 0;
}

/* Counts the variants of the selected pairs, checking the document's shape on the way. */
static int count_variants(const json_value *pairs, const regex_t *re, size_t *n, char *err,
                          size_t err_size)
{
    *n = 0;
    for (size_t i = 0; i < pairs->count; i++) {
        const json_value *p = pairs->items[i], *vs = json_get(p, "variants");
        const json_value *name = json_get(p, "name");
        if (p->type != JSON_OBJECT || !name || name->type != JSON_STRING) {
            rb_fmt(err, err_size, "pairs[%zu] is not a pair record (no name)", i);
            return -1;
        }
        if (!vs || vs->type != JSON_ARRAY) {
            rb_fmt(err, err_size, "pair %s has no \"variants\" array", name->string);
            return -1;
        }
        for (size_t k = 0; k < vs->count; k++) {
            const json_value *vn = json_get(vs->items[k], "name");
            if (!vn || vn->type != JSON_STRING) {
                rb_fmt(err, err_size, "pair %s: variants[%zu] has no name", name->string, k);
                return -1;
            }
        }
        if (matches(re, name->string))
            *n += vs->count;
    }
    return 0;
}

static void load_meta(const json_value *doc, rb_plot_data *d)
{
    const json_value *env = json_get(json_get(doc, "environment"), "start");
    d->device = json_string_at(env, "device", "?");
    d->driver = json_string_at(env, "driver", "?");
    d->cuda = json_string_at(env, "cuda_runtime", "?");
    d->date = json_string_at(doc, "date", "?");
    d->git = json_string_at(doc, "git", "?");
    d->path = "";
}

int rb_plot_load(const json_value *doc, const char *filter, rb_plot_data *d, char *err,
                 size_t err_size)
{
    memset(d, 0, sizeof *d);
    const json_value *pairs = json_get(doc, "pairs");
    if (!doc || doc->type != JSON_OBJECT || !pairs || pairs->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "not a roofbench results file (no \"pairs\" array)");
        return -1;
    }
    regex_t re;
    int have_re = filter != NULL;
    if (have_re && regcomp(&re, filter, REG_EXTENDED | REG_NOSUB) != 0) {
        rb_fmt(err, err_size, "--filter '%s': not a valid regular expression", filter);
        return -1;
    }
    size_t n = 0;
    int rc = count_variants(pairs, have_re ? &re : NULL, &n, err, err_size);
    if (rc == 0) {
        d->points = calloc(n + 1, sizeof *d->points);
        d->pairs = calloc(pairs->count + 1, sizeof *d->pairs);
        if (!d->points || !d->pairs) {
            rb_fmt(err, err_size, "out of memory");
            rc = -1;
        }
    }
    for (size_t i = 0; rc == 0 && i < pairs->count; i++) {
        const json_value *p = pairs->items[i], *vs = json_get(p, "variants");
        if (!matches(have_re ? &re : NULL, json_get(p, "name")->string))
            continue;
        d->pairs[d->n_pairs] = json_get(p, "name")->string;
        for (size_t k = 0; k < vs->count; k++)
            load_variant(p, vs->items[k], d->n_pairs, &d->points[d->n_points++]);
        d->n_pairs++;
    }
    if (have_re)
        regfree(&re);
    if (rc == 0)
        rc = load_roofs(doc, d, err, err_size);
    if (rc != 0) {
        rb_plot_free(d);
        return -1;
    }
    load_meta(doc, d);
    return 0;
}

void rb_plot_free(rb_plot_data *d)
{
    free(d->roofs);
    free(d->pairs);
    free(d->points);
    memset(d, 0, sizeof *d);
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
        {"dram_gbps", "DRAM copy"},       {"dram_read_gbps", "DRAM read"},
        {"dram_write_gbps", "DRAM write"}, {"l2_read_gbps", "L2 read"},
        {"smem_gbps", "shared memory"},   {"pcie_h2d_gbps", "PCIe H2D"},
        {"pcie_d2h_gbps", "PCIe D2H"},     {"pcie_duplex_gbps", "PCIe duplex"},
        {"nvlink_gbps", "NVLink"},        {"fp32_tflops", "FP32"},
        {"fp64_tflops", "FP64"},          {"tf32_tflops", "TF32"},
        {"bf16_tflops", "BF16"},          {"fp16_tflops", "FP16"},
        {"fp8_tflops", "FP8"},            {"launch_us", "launch"},
        {"graph_node_us", "graph node"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(key, names[i][0])) {
            rb_fmt(out, out_size, "%s", names[i][1]);
            return;
        }
    rb_fmt(out, out_size, "%s", key);
}

/* Three significant digits, without an exponent for the values charts show. */
static void value_text(double x, char *out, size_t out_size)
{
    if (x >= 100)
        rb_fmt(out, out_size, "%.0f", x);
    else if (x >= 10)
        rb_fmt(out, out_size, "%.1f", x);
    else
        rb_fmt(out, out_size, "%.3g", x);
}

void rb_plot_rate_text(const rb_plot_point *p, char *out, size_t out_size)
{
    char v[32];
    double x = p->panel == RB_PANEL_ROOFLINE ? p->tflops : p->y;
    value_text(x, v, sizeof v);
    rb_fmt(out, out_size, "%s %s", v,
           p->panel == RB_PANEL_ROOFLINE  ? "TFLOP/s"
           : p->panel == RB_PANEL_LATENCY ? "\xc2\xb5s per kernel"
                                          : "GB/s");
}

void rb_plot_efficiency_text(const rb_plot_point *p, char *out, size_t out_size)
{
    char name[64];
    rb_plot_roof_name(p->roof ? p->roof : "", name, sizeof name);
    if (isnan(p->efficiency))
        rb_fmt(out, out_size, "%% of %s unknown", p->roof ? name : "roof");
    else
        rb_fmt(out, out_size, "%.1f%% of %s", 100 * p->efficiency, p->roof ? name : "its roof");
}

void rb_plot_colour(int i, char *out, size_t out_size)
{
    double hue = fmod(i * 137.508, 360.0);
    /* darker in the yellow-green band, where a light colour on white is hard to read */
    int light = hue > 40 && hue < 200 ? 34 : 44;
    rb_fmt(out, out_size, "hsl(%.0f,70%%,%d%%)", hue, light);
}

double rb_plot_axis_map(const rb_plot_axis *a, double v)
{
    return a->px_lo + (log10(v) - a->lo) / (a->hi - a->lo) * (a->px_hi - a->px_lo);
}

void rb_plot_axis_fit(rb_plot_axis *a, double vmin, double vmax, int min_decades,
                      int fallback_lo)
{
    if (!(vmin > 0 && isfinite(vmin)) || !(vmax > 0 && isfinite(vmax))) {
        a->lo = fallback_lo;
        a->hi = fallback_lo + min_decades;
        return;
    }
    /* a tenth of a decade of room, so a point or a roof is never drawn on the frame */
    int lo = (int)floor(log10(vmin) - 0.1), hi = (int)ceil(log10(vmax) + 0.1);
    if (hi <= lo)
        hi = lo + 1;
    while (hi - lo < min_decades) {
        /* widen on both sides, the top first */
        hi++;
        if (hi - lo < min_decades)
            lo--;
    }
    if (hi - lo > RB_PLOT_MAX_DECADES)
        lo = hi - RB_PLOT_MAX_DECADES;
    a->lo = lo;
    a->hi = hi;
}

int rb_plot_labels_block(rb_plot_labels *l, rb_plot_box box)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        rb_plot_box *b = realloc(l->boxes, (size_t)cap * sizeof *b);
        if (!b)
            return -1;
        l->boxes = b;
        l->cap = cap;
    }
    l->boxes[l->n++] = box;
    return 0;
}

static int overlaps(const rb_plot_box *a, const rb_plot_box *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

int rb_plot_labels_place(rb_plot_labels *l, const double *cx, const double *cy, int n, double w,
                         double h, const rb_plot_box *bounds)
{
    for (int i = 0; i < n; i++) {
        rb_plot_box box = {cx[i], cy[i], w, h};
        if (bounds && (box.x < bounds->x || box.y < bounds->y ||
                       box.x + w > bounds->x + bounds->w || box.y + h > bounds->y + bounds->h))
            continue;
        int k = 0;
        while (k < l->n && !overlaps(&box, &l->boxes[k]))
            k++;
        if (k < l->n)
            continue;
        return rb_plot_labels_block(l, box) == 0 ? i : -1;
    }
    return -1;
}

void rb_plot_labels_free(rb_plot_labels *l)
{
    free(l->boxes);
    memset(l, 0, sizeof *l);
}

double rb_plot_text_width(const char *text, double size)
{
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        chars += (*p & 0xc0) != 0x80; /* UTF-8: count the first byte of each character */
    return 0.6 * size * (double)chars;
}

int rb_plot_sibling(const char *path, const char *ext, const char *suffix, char *out,
                    size_t out_size)
{
    size_t len = strlen(path);
    if (ends_with(path, ext) && len > strlen(ext))
        len -= strlen(ext);
    return rb_fmt_fits(out, out_size, "%.*s%s", (int)len, path, suffix);
}
