/* SPDX-License-Identifier: MIT */
/* The hierarchical roofline (report/profile_out.h): FLOP/s against FLOP/byte on log axes; each
 * memory level's roof a diagonal (its measured GB/s times the intensity), each compute roof a
 * flat line; a variant is three points at one height, its FLOPs over the DRAM, the L2 and the
 * L1 bytes it moved, joined by a line (the gap between two of them is the reuse that level
 * gave). Variants with no FLOPs (copies) are in the tables, not here. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "profile_out.h"
#include "svg.h"

#define HIER_W 900.0
#define HIER_H 560.0
#define HIER_LEFT 80.0
#define HIER_RIGHT 160.0
#define HIER_TOP 30.0
#define HIER_BOTTOM 60.0

typedef struct hier_axes {
    double x_lo, x_hi, y_lo, y_hi; /* decades: log10 of FLOP/B and of TFLOP/s */
} hier_axes;

static double px_x(const hier_axes *a, double ai)
{
    return HIER_LEFT + (log10(ai) - a->x_lo) / (a->x_hi - a->x_lo) * (HIER_W - HIER_LEFT - HIER_RIGHT);
}

static double px_y(const hier_axes *a, double tflops)
{
    return HIER_H - HIER_BOTTOM -
           (log10(tflops) - a->y_lo) / (a->y_hi - a->y_lo) * (HIER_H - HIER_TOP - HIER_BOTTOM);
}

static const char *const level_color[RB_LEVEL_COUNT] = {"#1f5fa8", "#2a9d5b", "#c4682a"};

/* The labels placed so far, so that the next one moves down past them instead of over them
 * (a ladder of GEMM steps at one intensity, two compute roofs 3% apart). */
#define HIER_MAX_LABELS 512
typedef struct hier_labels {
    int n;
    double x[HIER_MAX_LABELS], y[HIER_MAX_LABELS], w[HIER_MAX_LABELS];
} hier_labels;

/* The baseline y for a label of width w wanted at (x, y): the nearest of y, 12 px above, 12 px
 * below, 24 above, ... (40 tries) that overlaps no label placed; the label is recorded. */
static double place_label(hier_labels *l, double x, double y, double w)
{
    double want = y;
    for (int tries = 0; tries < 40; tries++) {
        y = want + 12.0 * ((tries + 1) / 2) * (tries % 2 ? -1 : 1);
        int clash = 0;
        for (int i = 0; i < l->n && !clash; i++)
            clash = fabs(l->y[i] - y) < 11 && x < l->x[i] + l->w[i] && l->x[i] < x + w;
        if (!clash)
            break;
    }
    if (l->n < HIER_MAX_LABELS) {
        l->x[l->n] = x;
        l->y[l->n] = y;
        l->w[l->n++] = w;
    }
    return y;
}

/* A label's width at font size px: about 0.6 em a character. */
static double label_width(const char *text, double px)
{
    return 0.6 * px * (double)strlen(text);
}

/* A variant's point: its TFLOP/s and its intensity at each level; 0 when it has none. */
static int variant_point(const rb_profile_variant *v, double *tflops, double ai[RB_LEVEL_COUNT])
{
    double flops = rb_profile_point_flops(v), s = v->v[RB_PM_TIME_S];
    if (!v->profiled || !(flops > 0) || !(s > 0))
        return 0;
    *tflops = flops / s * 1e-12;
    for (int l = 0; l < RB_LEVEL_COUNT; l++) {
        double bytes = rb_profile_level_bytes(v, (rb_profile_level)l);
        ai[l] = bytes > 0 ? flops / bytes : NAN;
    }
    return 1;
}

static void fit_axes(const rb_profile *p, const rb_profile_roofs *r, hier_axes *a)
{
    double x_lo = 1e-2, x_hi = 1e3, y_lo = 1e-2, y_hi = 1e2;
    const double roofs[] = {r->fp32_tflops, r->fp64_tflops, r->tf32_tflops,
                            r->fp16_tflops, r->bf16_tflops, r->fp8_tflops};
    for (size_t k = 0; k < sizeof roofs / sizeof roofs[0]; k++)
        if (roofs[k] > y_hi / 2)
            y_hi = roofs[k] * 2;
    for (int i = 0; i < p->n; i++) {
        double t, ai[RB_LEVEL_COUNT];
        if (!variant_point(&p->variants[i], &t, ai))
            continue;
        y_lo = t / 3 < y_lo ? t / 3 : y_lo;
        y_hi = t * 3 > y_hi ? t * 3 : y_hi;
        for (int l = 0; l < RB_LEVEL_COUNT; l++)
            if (ai[l] > 0) {
                x_lo = ai[l] / 3 < x_lo ? ai[l] / 3 : x_lo;
                x_hi = ai[l] * 3 > x_hi ? ai[l] * 3 : x_hi;
            }
    }
    a->x_lo = floor(log10(x_lo));
    a->x_hi = ceil(log10(x_hi));
    a->y_lo = floor(log10(y_lo));
    a->y_hi = ceil(log10(y_hi));
}

static void draw_axes(rb_sbuf *b, const hier_axes *a)
{
    double x0 = HIER_LEFT, x1 = HIER_W - HIER_RIGHT, y0 = HIER_H - HIER_BOTTOM, y1 = HIER_TOP;
    for (double d = a->x_lo; d <= a->x_hi; d++) {
        double x = px_x(a, pow(10, d));
        char t[32];
        rb_svg_line(b, x, y0, x, y1, "#e4e4e4", 1, NULL, NULL);
        rb_fmt(t, sizeof t, "%g", pow(10, d));
        rb_svg_text(b, x, y0 + 18, 12, "middle", "#333", 0, t);
    }
    for (double d = a->y_lo; d <= a->y_hi; d++) {
        double y = px_y(a, pow(10, d));
        char t[32];
        rb_svg_line(b, x0, y, x1, y, "#e4e4e4", 1, NULL, NULL);
        rb_fmt(t, sizeof t, "%g", pow(10, d));
        rb_svg_text(b, x0 - 6, y + 4, 12, "end", "#333", 0, t);
    }
    rb_svg_line(b, x0, y0, x1, y0, "#333", 1, NULL, NULL);
    rb_svg_line(b, x0, y0, x0, y1, "#333", 1, NULL, NULL);
    rb_svg_text(b, (x0 + x1) / 2, HIER_H - 18, 13, "middle", "#333", 0,
                "arithmetic intensity (FLOP per byte moved at the level)");
    rb_svg_text(b, 22, (y0 + y1) / 2, 13, "middle", "#333", -90, "TFLOP/s");
}

/* The memory roofs (diagonals up to the highest compute roof) and the compute roofs (flat). */
static void draw_roofs(rb_sbuf *b, const hier_axes *a, const rb_profile_roofs *r, hier_labels *placed)
{
    static const char *const names[RB_LEVEL_COUNT] = {"DRAM", "L2", "L1/shared"};
    double top = pow(10, a->y_hi), x_max = pow(10, a->x_hi), x_min = pow(10, a->x_lo);
    double flat[] = {r->fp32_tflops, r->fp64_tflops, r->tf32_tflops, r->bf16_tflops,
                     r->fp16_tflops, r->fp8_tflops};
    static const char *const flat_names[] = {"FP32", "FP64", "TF32", "BF16", "FP16", "FP8"};
    for (int l = 0; l < RB_LEVEL_COUNT; l++) {
        double gbps = r->level_gbps[l];
        if (!(gbps > 0))
            continue;
        /* TFLOP/s = FLOP/B x GB/s / 1000 */
        double ai_lo = x_min, ai_hi = fmin(x_max, top * 1e3 / gbps);
        if (ai_lo * gbps * 1e-3 < pow(10, a->y_lo))
            ai_lo = pow(10, a->y_lo) * 1e3 / gbps;
        if (!(ai_hi > ai_lo))
            continue;
        char label[64];
        rb_svg_line(b, px_x(a, ai_lo), px_y(a, ai_lo * gbps * 1e-3), px_x(a, ai_hi),
                    px_y(a, ai_hi * gbps * 1e-3), level_color[l], 2, NULL, NULL);
        rb_fmt(label, sizeof label, "%s %.0f GB/s", names[l], gbps);
        rb_svg_text(b, px_x(a, ai_lo) + 4, px_y(a, ai_lo * gbps * 1e-3) - 6, 11, "start",
                    level_color[l], 0, label);
    }
    for (size_t k = 0; k < sizeof flat / sizeof flat[0]; k++) {
        if (!(flat[k] > 0))
            continue;
        char label[64];
        double y = px_y(a, flat[k]);
        rb_svg_line(b, HIER_LEFT, y, HIER_W - HIER_RIGHT, y, "#555", 1.5, NULL, NULL);
        rb_fmt(label, sizeof label, "%s %.3g TFLOP/s", flat_names[k], flat[k]);
        double ly = place_label(placed, HIER_W - HIER_RIGHT + 4, y + 4, label_width(label, 11));
        rb_svg_text(b, HIER_W - HIER_RIGHT + 4, ly, 11, "start", "#555", 0, label);
    }
}

/* One level's marker: a circle (DRAM), a square (L2), a diamond (L1). */
static void marker(rb_sbuf *b, double x, double y, int level, const char *title)
{
    if (level == RB_LEVEL_DRAM) {
        rb_svg_circle(b, x, y, 5, level_color[level], "hier-point", title);
        return;
    }
    char d[160];
    if (level == RB_LEVEL_L2)
        rb_fmt(d, sizeof d, "M%.1f %.1fh9v9h-9z", x - 4.5, y - 4.5);
    else
        rb_fmt(d, sizeof d, "M%.1f %.1fl6 6l-6 6l-6 -6z", x, y - 6);
    rb_svg_path(b, d, level_color[level], NULL, 0, "hier-point", title);
}

static void draw_variant(rb_sbuf *b, const hier_axes *a, const rb_profile_variant *v,
                         hier_labels *placed)
{
    double t, ai[RB_LEVEL_COUNT], xy[2 * RB_LEVEL_COUNT];
    int n = 0;
    if (!variant_point(v, &t, ai))
        return;
    for (int l = 0; l < RB_LEVEL_COUNT; l++)
        if (ai[l] > 0) {
            xy[2 * n] = px_x(a, ai[l]);
            xy[2 * n + 1] = px_y(a, t);
            n++;
        }
    if (n > 1)
        rb_svg_polyline(b, xy, n, "#888", 1, "3,3");
    char label[300];
    rb_fmt(label, sizeof label, "%s/%s", v->row, v->variant);
    for (int l = 0; l < RB_LEVEL_COUNT; l++)
        if (ai[l] > 0) {
            char title[400];
            rb_fmt(title, sizeof title, "%s: %s %.3g FLOP/B, %.3g TFLOP/s", label,
                   rb_profile_level_name((rb_profile_level)l), ai[l], t);
            marker(b, px_x(a, ai[l]), px_y(a, t), l, title);
        }
    if (ai[RB_LEVEL_DRAM] > 0) {
        double x = px_x(a, ai[RB_LEVEL_DRAM]) + 7, want = px_y(a, t) - 7;
        double y = place_label(placed, x, want, label_width(label, 10));
        if (fabs(y - want) > 1) /* moved off its point: a leader back to it */
            rb_svg_line(b, x - 7, want + 7, x - 1, y - 3, "#bbb", 0.8, NULL, NULL);
        rb_svg_text(b, x, y, 10, "start", "#222", 0, label);
    }
}

static void legend(rb_sbuf *b, int without_flops)
{
    static const char *const names[RB_LEVEL_COUNT] = {"DRAM bytes", "L2 bytes", "L1 bytes"};
    double x = HIER_W - HIER_RIGHT + 10, y = HIER_H - HIER_BOTTOM - 70;
    for (int l = 0; l < RB_LEVEL_COUNT; l++) {
        marker(b, x + 5, y + 18 * l, l, NULL);
        rb_svg_text(b, x + 16, y + 18 * l + 4, 11, "start", "#333", 0, names[l]);
    }
    if (without_flops) {
        char t[96];
        rb_fmt(t, sizeof t, "%d without FLOPs: tables", without_flops);
        rb_svg_text(b, x, y + 18 * RB_LEVEL_COUNT + 4, 11, "start", "#777", 0, t);
    }
}

void rb_plot_hier_svg(rb_sbuf *b, const rb_profile *p, const rb_profile_roofs *r)
{
    hier_axes a;
    static hier_labels placed; /* large: not on the stack */
    int without = 0;
    placed.n = 0;
    fit_axes(p, r, &a);
    rb_svg_begin(b, HIER_W, HIER_H);
    rb_svg_group_begin(b, "axes");
    draw_axes(b, &a);
    rb_svg_group_end(b);
    rb_svg_group_begin(b, "roofs");
    draw_roofs(b, &a, r, &placed);
    rb_svg_group_end(b);
    rb_svg_group_begin(b, "points");
    for (int i = 0; i < p->n; i++) {
        double t, ai[RB_LEVEL_COUNT];
        if (p->variants[i].profiled && !variant_point(&p->variants[i], &t, ai))
            without++;
        draw_variant(b, &a, &p->variants[i], &placed);
    }
    rb_svg_group_end(b);
    legend(b, without);
    rb_svg_end(b);
}
