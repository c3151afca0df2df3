/* SPDX-License-Identifier: MIT */
/*
 * The speedup chart: each pair a heading (its baseline's time and % of roof) and one bar per
 * rung of its ladder, the speedup over the baseline on a log scale, in two columns so that the
 * full suite fits a slide. Bars are coloured by role (step, optimized, library), faded when the
 * row is informational. A pair whose baseline was not timed (a sweep's sizes, where only the
 * optimized kernel and the library run) shows each rung against its library instead: "fp8 vs
 * fp8_library", else "optimized vs library". Rungs that were not timed (skipped, invalid) have
 * no row: the chart's foot counts them and the report's table lists them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

#define TOP 100.0
#define ROW 14.0
#define PAIR_GAP 5.0 /* between pairs, narrowed down to 0 when the chart would pass SLIDE_H */
#define SLIDE_H 1199.0
#define COL_W 590.0
#define NAME_RIGHT 150.0 /* from the column's left edge */
#define BAR_X0 158.0
#define BAR_X1 336.0
#define SPEEDUP_RIGHT 384.0
#define EFF_X 390.0
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

/* Per pair: its first point, its baseline, how many rows its rungs take, how many rungs were not
 * timed, and whether its rungs are shown against its library (its baseline was not timed). Points
 * of a pair are contiguous, in pair order (rb_plot_load). */
typedef struct pair_rows {
    int first, baseline, rungs, untimed, vs_library;
} pair_rows;

static int timed_ok(const rb_plot_point *p)
{
    return p->timed && p->valid && p->median_ms > 0;
}

/* The point of pair k named name, timed validly, or -1. */
static int timed_variant(const rb_plot_data *d, const pair_rows *r, int k, const char *name)
{
    for (int i = r->first; i >= 0 && i < d->n_points && d->points[i].pair_index == k; i++)
        if (!strcmp(d->points[i].variant, name) && timed_ok(&d->points[i]))
            return i;
    return -1;
}

/* What rung i of pair k is measured against when the baseline was not timed: the library of its
 * own kind ("fp8" -> "fp8_library"), else the library; -1 when neither was timed, or i is a
 * library row itself (the reference, not a rung). */
static int library_of(const rb_plot_data *d, const pair_rows *r, int k, int i)
{
    const rb_plot_point *p = &d->points[i];
    if (!strcmp(p->role, "library"))
        return -1;
    char own[96];
    rb_fmt(own, sizeof own, "%s_library", p->variant);
    int ref = timed_variant(d, r, k, own);
    return ref >= 0 ? ref : timed_variant(d, r, k, "library");
}

/* Rung i's speedup as the chart shows it, and its reference (the baseline, or its library):
 * NaN when it has no row. */
static double rung_speedup(const rb_plot_data *d, const pair_rows *r, int k, int i, int *ref)
{
    const rb_plot_point *p = &d->points[i];
    *ref = r->baseline;
    if (!p->is_part && !strcmp(p->role, "baseline"))
        return NAN;
    if (!r->vs_library)
        return timed_ok(p) && p->speedup > 0 ? p->speedup : NAN;
    *ref = library_of(d, r, k, i);
    if (*ref < 0 || !timed_ok(p))
        return NAN;
    return d->points[*ref].median_ms / p->median_ms;
}

static pair_rows *index_pairs(const rb_plot_data *d)
{
    pair_rows *r = calloc((size_t)d->n_pairs + 1, sizeof *r);
    for (int k = 0; r && k < d->n_pairs; k++)
        r[k] = (pair_rows){-1, -1, 0, 0, 0};
    for (int i = 0; r && i < d->n_points; i++) {
        pair_rows *p = &r[d->points[i].pair_index];
        p->first = p->first < 0 ? i : p->first;
        if (p->baseline < 0 && !strcmp(d->points[i].role, "baseline"))
            p->baseline = i;
    }
    for (int k = 0; r && k < d->n_pairs; k++) {
        int base = r[k].baseline;
        r[k].vs_library = base >= 0 && !timed_ok(&d->points[base]) &&
                          timed_variant(d, &r[k], k, "library") >= 0;
    }
    for (int i = 0; r && i < d->n_points; i++) {
        int k = d->points[i].pair_index, ref;
        if (!is_rung(&d->points[i]) || (r[k].vs_library && !strcmp(d->points[i].role, "library")))
            continue;
        if (rung_speedup(d, &r[k], k, i, &ref) > 0)
            r[k].rungs++;
        else
            r[k].untimed++;
    }
    return r;
}

/* A pair's height with a gap of gap below it: its heading and its rungs (at least one row: "no
 * rungs"). */
static double pair_height(const pair_rows *r, double gap)
{
    return (1 + (r->rungs ? r->rungs : 1)) * ROW + gap;
}

/* The first pair of the second column: the split that makes the taller column shortest. */
static int split_pairs(const rb_plot_data *d, const pair_rows *rows, double gap, double *height)
{
    double total = 0, left = 0, best = INFINITY;
    int split = d->n_pairs;
    for (int k = 0; k < d->n_pairs; k++)
        total += pair_height(&rows[k], gap);
    for (int k = 0; k <= d->n_pairs; k++) {
        double tall = fmax(left, total - left);
        if (tall < best) {
            best = tall;
            split = k;
        }
        if (k < d->n_pairs)
            left += pair_height(&rows[k], gap);
    }
    *height = best;
    return split;
}

static void axis_range(const rb_plot_data *d, const pair_rows *rows, rb_plot_axis *x)
{
    double lo = 1, hi = 1;
    for (int i = 0; i < d->n_points; i++) {
        int k = d->points[i].pair_index, ref;
        double v = is_rung(&d->points[i]) ? rung_speedup(d, &rows[k], k, i, &ref) : NAN;
        if (v > 0)
            rb_plot_widen(&lo, &hi, v);
    }
    rb_plot_axis_fit(x, lo, hi, 1, 0);
    if (lo >= 1) /* no rung slower than its reference: start at 1x */
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
        /* "1kx", "10kx": "10000x" would crowd its neighbour */
        rb_plot_tick_label(pow(10, e), e >= 3, t, sizeof t);
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
    else if (r->vs_library)
        rb_fmt(info, sizeof info, "baseline not timed at this size: against the library");
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

static void rung_row(rb_sbuf *b, const rb_plot_data *d, int i, int ref, double speedup,
                     rb_plot_axis x, double x0, double y)
{
    const rb_plot_point *p = &d->points[i];
    char name[160], v[32], text[160], title[400], eff[96];
    if (ref >= 0 && strcmp(d->points[ref].role, "baseline"))
        rb_fmt(name, sizeof name, "%s vs %s%s", p->variant, d->points[ref].variant,
               p->informational ? " *" : "");
    else
        rb_fmt(name, sizeof name, "%s%s", p->variant, p->informational ? " *" : "");
    rb_svg_text(b, x0 + NAME_RIGHT, y, RB_PLOT_LABEL_PX, "end", "#111111", 0, name);
    x.px_lo = x0 + BAR_X0;
    x.px_hi = x0 + BAR_X1;
    double one = rb_plot_axis_map(&x, 1), at = rb_plot_axis_map(&x, speedup);
    rb_plot_num(speedup, v, sizeof v);
    rb_plot_efficiency_text(p, eff, sizeof eff);
    rb_fmt(title, sizeof title, "%s / %s (%s): %sx over %s, %s%s", p->pair, p->variant, p->role, v,
           ref >= 0 ? d->points[ref].variant : "the baseline", eff,
           p->informational ? " (informational)" : "");
    rb_sbuf_add(b, "<g fill-opacity=\"%s\">", p->informational ? "0.45" : "1");
    rb_svg_rect(b, fmin(one, at), y - BAR_H + 1, fmax(1.5, fabs(at - one)), BAR_H,
                role_colour(p->role), "bar", title);
    rb_sbuf_add(b, "</g>\n");
    rb_fmt(text, sizeof text, "%sx", v);
    rb_svg_text(b, x0 + SPEEDUP_RIGHT, y, RB_PLOT_LABEL_PX, "end",
                speedup < 1 ? "#c0392b" : "#111111", 0, text);
    /* too long for the column ("inconsistent: 100.3% of NVLink"): without its roof's name,
     * which the tooltip keeps */
    char *of = strstr(eff, " of ");
    if (of && rb_plot_text_width(eff, RB_PLOT_LABEL_PX) > COL_W - EFF_X - 4)
        *of = '\0';
    rb_svg_text(b, x0 + EFF_X, y, RB_PLOT_LABEL_PX, "start", "#444444", 0, eff);
}

static double draw_pair(rb_sbuf *b, const rb_plot_data *d, int k, const pair_rows *r,
                        const rb_plot_axis *x, double x0, double y, double gap)
{
    pair_heading(b, d, k, r, x0, y);
    y += ROW;
    for (int i = r->first; i >= 0 && i < d->n_points && d->points[i].pair_index == k; i++) {
        int ref;
        double v = is_rung(&d->points[i]) ? rung_speedup(d, r, k, i, &ref) : NAN;
        if (v > 0) {
            rung_row(b, d, i, ref, v, *x, x0, y);
            y += ROW;
        }
    }
    if (!r->rungs) {
        rb_svg_text(b, x0 + NAME_RIGHT, y, RB_PLOT_LABEL_PX, "end", "#888888", 0,
                    r->untimed ? "no rung timed" : "no rungs");
        y += ROW;
    }
    return y + gap;
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
    axis_range(d, rows, &x);
    int untimed = 0;
    for (int k = 0; k < d->n_pairs; k++)
        untimed += rows[k].untimed;
    /* two columns on one slide: the pairs closer together when the run has many rows */
    double height, gap = PAIR_GAP + 1;
    int split;
    do {
        gap -= 1;
        split = split_pairs(d, rows, gap, &height);
    } while (TOP + height + (untimed ? 44 : 28) > SLIDE_H && gap > 0);
    double bottom = TOP + height;
    rb_svg_begin(b, RB_PLOT_CHART_W, bottom + (untimed ? 44 : 28));
    draw_head(b, d);
    for (int col = 0; col < 2; col++) {
        double x0 = 12 + col * (COL_W + 4), y = TOP;
        if (col == 1 && split == d->n_pairs)
            break;
        draw_grid(b, x, x0, bottom);
        for (int k = col ? split : 0; k < (col ? d->n_pairs : split); k++)
            y = draw_pair(b, d, k, &rows[k], &x, x0, y, gap);
        rb_svg_text(b, x0 + (BAR_X0 + BAR_X1) / 2, bottom + 16, RB_PLOT_LABEL_PX, "middle",
                    "#000000", 0, "speedup over the pair's baseline");
    }
    if (untimed) {
        char foot[200];
        rb_fmt(foot, sizeof foot,
               "%d rung%s no row: not timed (skipped, invalid) or nothing timed to compare "
               "with; the report's table lists %s.",
               untimed, untimed == 1 ? " has" : "s have", untimed == 1 ? "it" : "them");
        rb_svg_text(b, 20, bottom + 34, RB_PLOT_LABEL_PX, "start", "#555555", 0, foot);
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
