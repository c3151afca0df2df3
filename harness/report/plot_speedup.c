/* SPDX-License-Identifier: MIT */
/*
 * The speedup chart: each pair a heading (its baseline's time and % of roof) and one bar per
 * rung of its ladder, the speedup over the baseline on a log scale, in two columns so that the
 * full suite fits a slide. Bars are coloured by role (step, optimized, library), faded when the
 * row is informational; a rung that was not timed says why instead of drawing a bar.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

#define TOP 100.0
#define ROW 14.0
#define PAIR_GAP 5.0
#define COL_W 590.0
#define NAME_RIGHT 150.0 /* from the column's left edge */
#define BAR_X0 158.0
#define BAR_X1 392.0
#define SPEEDUP_RIGHT 444.0
#define EFF_X 452.0
#define BAR_H 10.0

static const char *role_colour(const char *role)
{
    return !strcmp(role, "optimized") ? "#1f6fb4"
           : !strcmp(role, "library") ? "#6aa56e"
                                      : "#9cc3e4";
}

static int is_rung(const rb_plot_point *p)
{
    return !p->is_part && strcmp(p->role, "baseline");
}

/* Per pair: its first point, its baseline, how many rungs (points of a pair are contiguous, in
 * pair order: rb_plot_load). */
typedef struct pair_rows {
    int first, baseline, rungs;
} pair_rows;

static pair_rows *index_pairs(const rb_plot_data *d)
{
    pair_rows *r = calloc((size_t)d->n_pairs + 1, sizeof *r);
    for (int k = 0; r && k < d->n_pairs; k++)
        r[k] = (pair_rows){-1, -1, 0};
    for (int i = 0; r && i < d->n_points; i++) {
        pair_rows *p = &r[d->points[i].pair_index];
        p->first = p->first < 0 ? i : p->first;
        if (p->baseline < 0 && !strcmp(d->points[i].role, "baseline"))
            p->baseline = i;
        p->rungs += is_rung(&d->points[i]);
    }
    return r;
}

/* A pair's height: its heading and its rungs (at least one row: "no rungs"). */
static double pair_height(const pair_rows *r)
{
    return (1 + (r->rungs ? r->rungs : 1)) * ROW + PAIR_GAP;
}

/* The first pair of the second column: the split that makes the taller column shortest. */
static int split_pairs(const rb_plot_data *d, const pair_rows *rows, double *height)
{
    double total = 0, left = 0, best = INFINITY;
    int split = d->n_pairs;
    for (int k = 0; k < d->n_pairs; k++)
        total += pair_height(&rows[k]);
    for (int k = 0; k <= d->n_pairs; k++) {
        double tall = fmax(left, total - left);
        if (tall < best) {
            best = tall;
            split = k;
        }
        if (k < d->n_pairs)
            left += pair_height(&rows[k]);
    }
    *height = best;
    return split;
}

static void axis_range(const rb_plot_data *d, rb_plot_axis *x)
{
    double lo = 1, hi = 1;
    for (int i = 0; i < d->n_points; i++)
        if (is_rung(&d->points[i]) && d->points[i].speedup > 0)
            rb_plot_widen(&lo, &hi, d->points[i].speedup);
    rb_plot_axis_fit(x, lo, hi, 1, 0);
    if (lo >= 1) /* no rung slower than its baseline: start at 1x */
        x->lo = 0;
}

static void draw_grid(rb_sbuf *b, rb_plot_axis x, double x0, double bottom)
{
    x.px_lo = x0 + BAR_X0;
    x.px_hi = x0 + BAR_X1;
    char t[32];
    for (int e = (int)x.lo; e <= (int)x.hi; e++) {
        double px = rb_plot_axis_map(&x, pow(10, e));
        rb_svg_line(b, px, TOP - 12, px, bottom, e == 0 ? "#777777" : "#e2e2e2", 1, NULL, NULL);
        rb_plot_tick_label(pow(10, e), 0, t, sizeof t);
        rb_fmt(t + strlen(t), sizeof t - strlen(t), "x");
        rb_svg_text(b, px, TOP - 16, RB_PLOT_LABEL_PX, "middle", "#333333", 0, t);
    }
}

/* "baseline 0.704 ms, 53.6% of FP32": right-aligned at the column's end, shortened to fit
 * beside the pair's name. */
static void pair_heading(rb_sbuf *b, const rb_plot_data *d, int k, const pair_rows *r, double x0,
                         double y)
{
    const rb_plot_point *base = r->baseline >= 0 ? &d->points[r->baseline] : NULL;
    char info[200], ms[32], eff[96];
    rb_svg_text(b, x0, y, RB_PLOT_LABEL_PX, "start", "#000000", 0, d->pairs[k]);
    if (!base)
        rb_fmt(info, sizeof info, "no baseline");
    else if (!base->timed || !base->valid)
        rb_fmt(info, sizeof info, "baseline %s", base->verdict);
    else {
        rb_plot_num(base->median_ms, ms, sizeof ms);
        rb_plot_efficiency_text(base, eff, sizeof eff);
        rb_fmt(info, sizeof info, "baseline %s ms, %s", ms, eff);
    }
    double room = COL_W - 8 - rb_plot_text_width(d->pairs[k], RB_PLOT_LABEL_PX) - 12;
    if (rb_plot_text_width(info, RB_PLOT_LABEL_PX) > room && base && base->timed && base->valid)
        rb_fmt(info, sizeof info, "baseline %s ms", ms);
    if (rb_plot_text_width(info, RB_PLOT_LABEL_PX) <= room)
        rb_svg_text(b, x0 + COL_W - 8, y, RB_PLOT_LABEL_PX, "end", "#666666", 0, info);
}

static void rung_row(rb_sbuf *b, const rb_plot_point *p, rb_plot_axis x, double x0, double y)
{
    char name[80], v[32], text[160], title[400], eff[96];
    rb_fmt(name, sizeof name, "%s%s", p->variant, p->informational ? " *" : "");
    rb_svg_text(b, x0 + NAME_RIGHT, y, RB_PLOT_LABEL_PX, "end", "#111111", 0, name);
    if (!(p->timed && p->valid) || !(p->speedup > 0)) {
        const char *why = !p->timed ? p->verdict : !p->valid ? "invalid" : "no speedup";
        rb_svg_text(b, x0 + BAR_X0 + 4, y, RB_PLOT_LABEL_PX, "start", "#888888", 0,
                    !strcmp(why, "-") ? "not timed" : why);
        return;
    }
    x.px_lo = x0 + BAR_X0;
    x.px_hi = x0 + BAR_X1;
    double one = rb_plot_axis_map(&x, 1), at = rb_plot_axis_map(&x, p->speedup);
    rb_plot_num(p->speedup, v, sizeof v);
    rb_plot_efficiency_text(p, eff, sizeof eff);
    rb_fmt(title, sizeof title, "%s / %s (%s): %sx over the baseline, %s%s", p->pair, p->variant,
           p->role, v, eff, p->informational ? " (informational)" : "");
    rb_sbuf_add(b, "<g fill-opacity=\"%s\">", p->informational ? "0.45" : "1");
    rb_svg_rect(b, fmin(one, at), y - BAR_H + 1, fmax(1.5, fabs(at - one)), BAR_H,
                role_colour(p->role), "bar", title);
    rb_sbuf_add(b, "</g>\n");
    rb_fmt(text, sizeof text, "%sx", v);
    rb_svg_text(b, x0 + SPEEDUP_RIGHT, y, RB_PLOT_LABEL_PX, "end",
                p->speedup < 1 ? "#c0392b" : "#111111", 0, text);
    rb_svg_text(b, x0 + EFF_X, y, RB_PLOT_LABEL_PX, "start", "#444444", 0, eff);
}

static double draw_pair(rb_sbuf *b, const rb_plot_data *d, int k, const pair_rows *r,
                        const rb_plot_axis *x, double x0, double y)
{
    pair_heading(b, d, k, r, x0, y);
    y += ROW;
    for (int i = r->first; i >= 0 && i < d->n_points && d->points[i].pair_index == k; i++)
        if (is_rung(&d->points[i])) {
            rung_row(b, &d->points[i], *x, x0, y);
            y += ROW;
        }
    if (!r->rungs) {
        rb_svg_text(b, x0 + NAME_RIGHT, y, RB_PLOT_LABEL_PX, "end", "#888888", 0, "no rungs");
        y += ROW;
    }
    return y + PAIR_GAP;
}

static void draw_head(rb_sbuf *b, const rb_plot_data *d)
{
    char title[600];
    rb_fmt(title, sizeof title, "roofbench speedups: %s, driver %s, CUDA %s, %s, git %s", d->device,
           d->driver, d->cuda, d->date, d->git);
    rb_svg_text(b, 20, 26, 14, "start", "#000000", 0, title);
    rb_svg_text(b, 20, 45, 11, "start", "#333333", 0,
                "Each rung's speedup over its pair's baseline (log scale) and its % of the roof "
                "that binds it; each pair's line gives its baseline.");
    static const char *const roles[] = {"step", "optimized", "library"};
    double x = 20;
    for (int i = 0; i < 3; i++) {
        rb_svg_rect(b, x, 55, 18, BAR_H, role_colour(roles[i]), NULL, NULL);
        rb_svg_text(b, x + 24, 64, RB_PLOT_LABEL_PX, "start", "#111111", 0, roles[i]);
        x += 24 + rb_plot_text_width(roles[i], RB_PLOT_LABEL_PX) + 20;
    }
    rb_svg_text(b, x, 64, RB_PLOT_LABEL_PX, "start", "#111111", 0,
                "* informational (host-bound, not gating): faded");
}

void rb_plot_speedup_svg_to(rb_sbuf *b, const rb_plot_data *d)
{
    pair_rows *rows = index_pairs(d);
    if (!rows) {
        b->oom = 1;
        return;
    }
    rb_plot_axis x;
    axis_range(d, &x);
    double height;
    int split = split_pairs(d, rows, &height);
    double bottom = TOP + height;
    rb_svg_begin(b, RB_PLOT_CHART_W, bottom + 40);
    draw_head(b, d);
    for (int col = 0; col < 2; col++) {
        double x0 = 12 + col * (COL_W + 4), y = TOP;
        if (col == 1 && split == d->n_pairs)
            break;
        draw_grid(b, x, x0, bottom);
        for (int k = col ? split : 0; k < (col ? d->n_pairs : split); k++)
            y = draw_pair(b, d, k, &rows[k], &x, x0, y);
        rb_svg_text(b, x0 + (BAR_X0 + BAR_X1) / 2, bottom + 16, RB_PLOT_LABEL_PX, "middle",
                    "#000000", 0, "speedup over the pair's baseline");
    }
    rb_svg_end(b);
    free(rows);
}

char *rb_plot_speedup_svg(const rb_plot_data *d)
{
    rb_sbuf b = {0};
    rb_plot_speedup_svg_to(&b, d);
    return rb_sbuf_take(&b);
}
