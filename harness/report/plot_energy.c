/* SPDX-License-Identifier: MIT */
/*
 * The energy roofline (Choi et al., 2013) of a run whose rows measured their joules
 * (model/energy.h): the rows with FLOPs at their arithmetic intensity against GFLOP/J (log-log),
 * the memory rows (no FLOPs) as bars of GB/J. The bound drawn is the run's own, from its best
 * rows: with e_b joules per byte (the best GB/J of a memory row) and e_f joules per FLOP (from
 * the best GFLOP/J of a row with FLOPs, once its bytes' e_b is taken out), no row can exceed
 * 1 / (e_f + e_b / AI) GFLOP/J at intensity AI unless it moves its bytes more cheaply than the
 * best memory row does. Energies include the board's constant draw over the timed time, as
 * the counter does.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

#define TOP 70.0
#define PANEL_H 380.0
#define LEFT 90.0
#define RIGHT 40.0
#define BAR_ROW 14.0
#define BAR_NAME_RIGHT 330.0
#define BAR_X0 338.0
#define BAR_X1 980.0

static int on_roofline(const rb_plot_point *p)
{
    return p->timed && p->valid && p->gflop_per_j > 0 && p->x > 0 && isfinite(p->x);
}

static int on_bars(const rb_plot_point *p)
{
    return p->timed && p->valid && !(p->gflop_per_j > 0) && p->gb_per_j > 0;
}

int rb_plot_has_energy(const rb_plot_data *d)
{
    for (int i = 0; i < d->n_points; i++)
        if (on_roofline(&d->points[i]) || on_bars(&d->points[i]))
            return 1;
    return 0;
}

/* A memory row whose bytes are DRAM's (not a link's: PCIe and NVLink bytes cost otherwise). */
static int moves_dram(const rb_plot_point *p)
{
    return p->roof && !strncmp(p->roof, "dram", 4);
}

/* The run's bound: joules per byte from the best DRAM memory row, per FLOP from the best row
 * with FLOPs; NaN each when unknown (no such row; a best row that moves its bytes for less). */
static void best_costs(const rb_plot_data *d, double *j_per_byte, double *j_per_flop)
{
    double gb = 0, gflop_best = 0, ai_best = NAN;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (on_bars(p) && moves_dram(p) && p->gb_per_j > gb)
            gb = p->gb_per_j;
        if (on_roofline(p) && p->gflop_per_j > gflop_best) {
            gflop_best = p->gflop_per_j;
            ai_best = p->x;
        }
    }
    *j_per_byte = gb > 0 ? 1e-9 / gb : NAN;
    double per_flop = gflop_best > 0 ? 1e-9 / gflop_best : NAN;
    if (gb > 0)
        per_flop -= *j_per_byte / ai_best;
    *j_per_flop = per_flop > 0 ? per_flop : NAN;
}

static void draw_axes(rb_sbuf *b, const rb_plot_axis *x, const rb_plot_axis *y)
{
    double t[40];
    char s[32];
    int n = rb_plot_axis_ticks(y, t, 40);
    for (int i = 0; i < n; i++) {
        double py = rb_plot_axis_map(y, t[i]);
        rb_svg_line(b, x->px_lo, py, x->px_hi, py, "#e6e6e6", 1, NULL, NULL);
        rb_plot_tick_label(t[i], 0, s, sizeof s);
        rb_svg_text(b, x->px_lo - 6, py + 3, RB_PLOT_LABEL_PX, "end", "#333333", 0, s);
    }
    n = rb_plot_axis_ticks(x, t, 40);
    for (int i = 0; i < n; i++) {
        double px = rb_plot_axis_map(x, t[i]);
        rb_svg_line(b, px, y->px_hi, px, y->px_lo, "#e6e6e6", 1, NULL, NULL);
        rb_plot_tick_label(t[i], 0, s, sizeof s);
        rb_svg_text(b, px, y->px_lo + 18, RB_PLOT_LABEL_PX, "middle", "#333333", 0, s);
    }
    rb_svg_rect(b, x->px_lo, y->px_hi, x->px_hi - x->px_lo, y->px_lo - y->px_hi, "none", "frame",
                NULL);
    rb_svg_text(b, (x->px_lo + x->px_hi) / 2, y->px_lo + 36, 11, "middle", "#000000", 0,
                "arithmetic intensity (FLOP/byte)");
    rb_svg_text(b, 24, (y->px_lo + y->px_hi) / 2, 11, "middle", "#000000", -90, "GFLOP/J");
}

/* The bound 1 / (e_f + e_b / AI), dashed, over the panel's x range. */
static void draw_bound(rb_sbuf *b, const rb_plot_axis *x, const rb_plot_axis *y, double e_b,
                       double e_f)
{
    if (!(e_b > 0 && e_f > 0))
        return;
    double xy[2 * 64];
    int n = 0;
    for (int k = 0; k < 64; k++) {
        double ai = pow(10, x->lo + (x->hi - x->lo) * k / 63.0);
        double g = 1e-9 / (e_f + e_b / ai);
        if (!(g >= pow(10, y->lo) && g <= pow(10, y->hi)))
            continue;
        xy[2 * n] = rb_plot_axis_map(x, ai);
        xy[2 * n + 1] = rb_plot_axis_map(y, g);
        n++;
    }
    rb_svg_group_begin(b, "roof");
    rb_svg_polyline(b, xy, n, RB_PLOT_MEASURED_COLOUR, 1.5, RB_PLOT_PEAK_DASH);
    rb_svg_group_end(b);
    char label[160], gb[32], gf[32];
    rb_plot_num(1e-9 / e_b, gb, sizeof gb);
    rb_plot_num(1e-9 / e_f, gf, sizeof gf);
    rb_fmt(label, sizeof label, "this run's best: %s GB/J moved, %s GFLOP/J computed", gb, gf);
    rb_svg_text(b, x->px_lo, y->px_hi - 8, RB_PLOT_LABEL_PX, "start", "#333333", 0, label);
}

static void point_title(const rb_plot_point *p, int bar, char *out, size_t size)
{
    char v[32], ai[32];
    rb_plot_num(bar ? p->gb_per_j : p->gflop_per_j, v, sizeof v);
    rb_plot_num(p->x, ai, sizeof ai);
    if (bar)
        rb_fmt(out, size, "%s/%s: %s GB/J", p->pair, p->variant, v);
    else
        rb_fmt(out, size, "%s/%s: %s GFLOP/J at %s FLOP/byte", p->pair, p->variant, v, ai);
}

/* The pairs drawn on the roofline panel, a marker and a name each, in LEGEND_COLUMNS columns
 * from y (draw 0: only measured); returns the y below them. */
#define LEGEND_COLUMNS 4
#define LEGEND_ROW 14.0
static double legend(rb_sbuf *b, const rb_plot_data *d, double y, int draw)
{
    int n = 0;
    for (int k = 0; k < d->n_pairs; k++) {
        int shown = 0;
        for (int i = 0; i < d->n_points && !shown; i++)
            shown = d->points[i].pair_index == k && on_roofline(&d->points[i]);
        if (!shown)
            continue;
        int rows_before = n / LEGEND_COLUMNS;
        double x = 30 + (n % LEGEND_COLUMNS) * (RB_PLOT_CHART_W - 60) / LEGEND_COLUMNS;
        double at = y + rows_before * LEGEND_ROW;
        if (draw) {
            rb_plot_draw_marker(b, x, at - 3, RB_PLOT_POINT_R, rb_plot_pair_marker(d, k),
                                rb_plot_pair_colour(d, k), 0, "key", NULL);
            rb_svg_text(b, x + 10, at, RB_PLOT_LABEL_PX, "start", "#111111", 0, d->pairs[k]);
        }
        n++;
    }
    return y + (n + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS * LEGEND_ROW + (n ? 10 : 0);
}

/* The roofline panel from TOP; returns its bottom. */
static double draw_roofline(rb_sbuf *b, const rb_plot_data *d)
{
    double xlo = NAN, xhi = NAN, ylo = NAN, yhi = NAN;
    for (int i = 0; i < d->n_points; i++)
        if (on_roofline(&d->points[i])) {
            rb_plot_widen(&xlo, &xhi, d->points[i].x);
            rb_plot_widen(&ylo, &yhi, d->points[i].gflop_per_j);
        }
    rb_plot_axis x, y;
    rb_plot_axis_fit(&x, xlo, xhi, 3, -1);
    rb_plot_axis_fit(&y, ylo, yhi, 2, 0);
    x.px_lo = LEFT;
    x.px_hi = RB_PLOT_CHART_W - RIGHT;
    y.px_lo = TOP + PANEL_H;
    y.px_hi = TOP;
    draw_axes(b, &x, &y);
    double e_b, e_f;
    best_costs(d, &e_b, &e_f);
    draw_bound(b, &x, &y, e_b, e_f);
    rb_svg_group_begin(b, "points");
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!on_roofline(p))
            continue;
        char title[300];
        point_title(p, 0, title, sizeof title);
        rb_plot_draw_marker(b, rb_plot_axis_map(&x, p->x), rb_plot_axis_map(&y, p->gflop_per_j),
                            RB_PLOT_POINT_R, rb_plot_pair_marker(d, p->pair_index),
                            rb_plot_pair_colour(d, p->pair_index), strcmp(p->role, "baseline") == 0,
                            "point", title);
    }
    rb_svg_group_end(b);
    return legend(b, d, TOP + PANEL_H + 56, 1);
}

/* Cuts UTF-8 text to at most max characters, its last two "..", when it is longer. */
static void cut_to_room(char *s, int max)
{
    int chars = 0;
    for (char *p = s; *p; p++)
        if ((*p & 0xc0) != 0x80 && chars++ == max - 2) {
            char *q = p;
            int rest = 0;
            for (; *q; q++)
                rest += (*q & 0xc0) != 0x80;
            if (rest > 2)
                rb_fmt(p, 3, "..");
            return;
        }
}

/* The memory rows' bars of GB/J (linear, against the largest) from y; returns the bottom. */
static double draw_bars(rb_sbuf *b, const rb_plot_data *d, double y)
{
    double most = 0;
    int n = 0;
    for (int i = 0; i < d->n_points; i++)
        if (on_bars(&d->points[i])) {
            most = fmax(most, d->points[i].gb_per_j);
            n++;
        }
    if (!n)
        return y;
    rb_svg_text(b, 20, y + 14, 12, "start", "#000000", 0,
                "Memory rows (no FLOPs): GB/J, the bytes the work model counts per joule");
    y += 28;
    rb_svg_group_begin(b, "bars");
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!on_bars(p))
            continue;
        char name[160], v[32], title[300];
        rb_fmt(name, sizeof name, "%s/%s", p->pair, p->variant);
        cut_to_room(name, (int)((BAR_NAME_RIGHT - 12) / rb_plot_text_width("x", RB_PLOT_LABEL_PX)));
        rb_svg_text(b, BAR_NAME_RIGHT, y + 9, RB_PLOT_LABEL_PX, "end", "#111111", 0, name);
        point_title(p, 1, title, sizeof title);
        double w = (BAR_X1 - BAR_X0) * p->gb_per_j / most;
        rb_svg_rect(b, BAR_X0, y, w, 10, rb_plot_pair_colour(d, p->pair_index), "bar", title);
        rb_plot_num(p->gb_per_j, v, sizeof v);
        rb_svg_text(b, BAR_X0 + w + 6, y + 9, RB_PLOT_LABEL_PX, "start", "#333333", 0, v);
        y += BAR_ROW;
    }
    rb_svg_group_end(b);
    return y + 10;
}

/* The bars' height, for the chart's size before it is drawn. */
static double bars_height(const rb_plot_data *d)
{
    int n = 0;
    for (int i = 0; i < d->n_points; i++)
        n += on_bars(&d->points[i]);
    return n ? 28 + n * BAR_ROW + 10 : 0;
}

void rb_plot_energy_svg_to(rb_sbuf *b, const rb_plot_data *d)
{
    double height = legend(b, d, TOP + PANEL_H + 56, 0) + bars_height(d) + 20;
    rb_svg_begin(b, RB_PLOT_CHART_W, height);
    char title[600];
    rb_fmt(title, sizeof title, "roofbench energy roofline: %s, driver %s, CUDA %s, %s, git %s",
           d->device, d->driver, d->cuda, d->date, d->git);
    rb_svg_text(b, 20, 26, 14, "start", "#000000", 0, title);
    rb_svg_text(b, 20, 45, 11, "start", "#333333", 0,
                "Work per joule from NVML's total-energy counter over each row's timed samples "
                "(the board's whole draw); hollow: baselines; dashed: the bound this run's best "
                "rows set.");
    double y = draw_roofline(b, d);
    draw_bars(b, d, y);
    rb_svg_end(b);
}

char *rb_plot_energy_svg(const rb_plot_data *d)
{
    rb_sbuf b = {0};
    rb_plot_energy_svg_to(&b, d);
    return rb_sbuf_take(&b);
}
