/* SPDX-License-Identifier: MIT */
/*
 * The two charts of a run, as SVG: the roofline (main log-log panel, then the bandwidth, link
 * and latency panels for the variants that have no place on it) and the speedup ladders.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "svg.h"
#include "util.h"

#define CHART_W 1200.0
/* the roofline panel */
#define MAIN_X 90.0
#define MAIN_Y 70.0
#define MAIN_W 700.0
#define MAIN_H 460.0
/* the legend, right of it */
#define LEGEND_X 825.0
#define LEGEND_W 360.0
/* the small panels, one under the other */
#define SIDE_X 90.0
#define SIDE_W 1080.0
#define SIDE_H 180.0
#define POINT_R 4.5
#define LABEL_PX 10.0
#define MEASURED_COLOUR "#222222"
#define PEAK_COLOUR "#888888"
#define PEAK_DASH "6 4"

/* ---- the roofline panel's ranges ---- */

static int on_main(const rb_plot_roof *r)
{
    return r->kind == RB_PLOT_ROOF_COMPUTE ||
           (r->kind == RB_PLOT_ROOF_BANDWIDTH && strncmp(r->key, "pcie_", 5) &&
            strncmp(r->key, "nvlink_", 7));
}

static double roof_value(const rb_plot_roof *r, int peak)
{
    return peak ? r->peak : r->measured;
}

/* The largest known value of the roofs of one kind on the main panel (NaN: none). */
static double top_roof(const rb_plot_data *d, rb_plot_roof_kind kind, int peak)
{
    double top = NAN;
    for (int i = 0; i < d->n_roofs; i++) {
        double v = roof_value(&d->roofs[i], peak);
        if (d->roofs[i].kind == kind && on_main(&d->roofs[i]) && v > 0 && !(v <= top))
            top = v;
    }
    return top;
}

static void widen(double *lo, double *hi, double v)
{
    if (!(v > 0 && isfinite(v)))
        return;
    if (!(*lo <= v))
        *lo = v;
    if (!(*hi >= v))
        *hi = v;
}

void rb_plot_roofline_axes(const rb_plot_data *d, rb_plot_axis *x, rb_plot_axis *y)
{
    double xlo = NAN, xhi = NAN, ylo = NAN, yhi = NAN;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (p->plotted && p->panel == RB_PANEL_ROOFLINE) {
            widen(&xlo, &xhi, p->x);
            widen(&ylo, &yhi, p->y);
        }
    }
    /* the compute roofs, and each ridge (where a memory roof meets the top compute roof) */
    for (int peak = 0; peak < 2; peak++) {
        double top = top_roof(d, RB_PLOT_ROOF_COMPUTE, peak);
        for (int i = 0; i < d->n_roofs; i++) {
            const rb_plot_roof *r = &d->roofs[i];
            double v = roof_value(r, peak);
            if (!on_main(r) || !(v > 0))
                continue;
            if (r->kind == RB_PLOT_ROOF_COMPUTE)
                widen(&ylo, &yhi, v * 1e12);
            else if (top > 0)
                widen(&xlo, &xhi, top * 1e12 / (v * 1e9));
        }
    }
    rb_plot_axis_fit(x, xlo, xhi, 4, -2);
    rb_plot_axis_fit(y, ylo, yhi, 3, 9);
    x->px_lo = MAIN_X;
    x->px_hi = MAIN_X + MAIN_W;
    y->px_lo = MAIN_Y + MAIN_H;
    y->px_hi = MAIN_Y;
}

/* ---- axes ---- */

/* A decade's tick label: SI prefixes (1k, 10G) for FLOP/s, plain numbers otherwise. */
static void decade_label(int e, int si, char *out, size_t size)
{
    static const char prefixes[] = " kMGTPE";
    if (si && e >= 0 && e < 21)
        rb_fmt(out, size, "%.0f%c", pow(10, e % 3), prefixes[e / 3]);
    else if (e >= -3 && e <= 4)
        rb_fmt(out, size, "%.*f", e < 0 ? -e : 0, pow(10, e));
    else
        rb_fmt(out, size, "1e%d", e);
    size_t n = strlen(out);
    if (n && out[n - 1] == ' ')
        out[n - 1] = '\0';
}

/* The frame, decade grid and tick labels of a log-log panel (x NULL: a y axis only). */
static void draw_axes(rb_sbuf *b, const rb_plot_axis *x, const rb_plot_axis *y, double left,
                      double top, double w, double h, int y_si)
{
    char t[32];
    for (int e = y->lo; e <= y->hi; e++) {
        double py = rb_plot_axis_map(y, pow(10, e));
        rb_svg_line(b, left, py, left + w, py, "#e4e4e4", 1, NULL, NULL);
        decade_label(e, y_si, t, sizeof t);
        rb_svg_text(b, left - 6, py + 3.5, LABEL_PX, "end", "#333333", 0, t);
    }
    for (int e = x ? x->lo : 1; x && e <= x->hi; e++) {
        double px = rb_plot_axis_map(x, pow(10, e));
        rb_svg_line(b, px, top, px, top + h, "#e4e4e4", 1, NULL, NULL);
        decade_label(e, 0, t, sizeof t);
        rb_svg_text(b, px, top + h + 15, LABEL_PX, "middle", "#333333", 0, t);
    }
    rb_sbuf_add(b,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
                "stroke=\"#555555\" stroke-width=\"1\"/>\n",
                left, top, w, h);
}

/* ---- labels ---- */

/* A horizontal label placed at the first free candidate baseline-left (x[i], y[i]); 1 drawn. */
static int place_text(rb_sbuf *b, rb_plot_labels *l, const double *x, const double *y, int n,
                      double size, const char *fill, const char *text, const rb_plot_box *bounds,
                      double *at_x, double *at_y)
{
    double w = rb_plot_text_width(text, size), h = size * 1.1;
    double cx[64], cy[64];
    n = n > 64 ? 64 : n;
    for (int i = 0; i < n; i++) {
        cx[i] = x[i];
        cy[i] = y[i] - size * 0.85;
    }
    int k = rb_plot_labels_place(l, cx, cy, n, w, h, bounds);
    if (k < 0)
        return 0;
    rb_svg_text(b, x[k], y[k], size, "start", fill, 0, text);
    if (at_x) {
        *at_x = x[k];
        *at_y = y[k];
    }
    return 1;
}

/* ---- the roofs ---- */

static void roof_label(const rb_plot_roof *r, int peak, char *out, size_t size)
{
    char name[64], v[32];
    rb_plot_roof_name(r->key, name, sizeof name);
    double x = roof_value(r, peak);
    if (x >= 100)
        rb_fmt(v, sizeof v, "%.0f", x);
    else
        rb_fmt(v, sizeof v, "%.3g", x);
    rb_fmt(out, size, "%s%s %s %s", name, peak ? " peak" : "", v,
           r->kind == RB_PLOT_ROOF_COMPUTE   ? "TFLOP/s"
           : r->kind == RB_PLOT_ROOF_LATENCY ? "\xc2\xb5s"
                                        : "GB/s");
}

/* A slanted memory roof from the left edge up to the top compute roof, labelled along it. */
static void draw_memory_roof(rb_sbuf *b, const rb_plot_roof *r, int peak, double top_c,
                             const rb_plot_axis *x, const rb_plot_axis *y, rb_plot_labels *l,
                             const rb_plot_box *bounds)
{
    double lbw = log10(roof_value(r, peak) * 1e9);
    double lx0 = x->lo, lx1 = top_c > 0 ? log10(top_c * 1e12) - lbw : x->hi;
    lx1 = fmin(fmin(lx1, x->hi), y->hi - lbw);
    lx0 = fmax(lx0, y->lo - lbw);
    if (!(lx0 < lx1))
        return;
    double px0 = rb_plot_axis_map(x, pow(10, lx0)), py0 = rb_plot_axis_map(y, pow(10, lbw + lx0));
    double px1 = rb_plot_axis_map(x, pow(10, lx1)), py1 = rb_plot_axis_map(y, pow(10, lbw + lx1));
    rb_svg_line(b, px0, py0, px1, py1, peak ? PEAK_COLOUR : MEASURED_COLOUR, peak ? 1.2 : 1.8,
                peak ? PEAK_DASH : NULL, NULL);
    char text[96];
    roof_label(r, peak, text, sizeof text);
    /* along the line, a few pixels above it: the box placed is the rotated text's bounding box */
    double angle = atan2(py1 - py0, px1 - px0), w = rb_plot_text_width(text, LABEL_PX);
    double h = LABEL_PX, c = cos(angle), s = sin(angle);
    double bw = fabs(w * c) + fabs(h * s), bh = fabs(w * s) + fabs(h * c);
    double ax[12], ay[12], cx[12], cy[12];
    int n = 0;
    for (double f = 0.04; f < 0.9 && n < 12; f += 0.08, n++) {
        ax[n] = px0 + f * (px1 - px0) + 4 * s;
        ay[n] = py0 + f * (py1 - py0) - 4 * c;
        /* text from (ax, ay) along the angle, glyphs above the baseline (-y rotated) */
        double xs[4] = {0, w * c, w * c + h * s, h * s}, ys[4] = {0, w * s, w * s - h * c, -h * c};
        double minx = xs[0], miny = ys[0];
        for (int k = 1; k < 4; k++) {
            minx = fmin(minx, xs[k]);
            miny = fmin(miny, ys[k]);
        }
        cx[n] = ax[n] + minx;
        cy[n] = ay[n] + miny;
    }
    int k = rb_plot_labels_place(l, cx, cy, n, bw, bh, bounds);
    if (k >= 0)
        rb_svg_text(b, ax[k], ay[k], LABEL_PX, "start", peak ? "#666666" : "#111111",
                    angle * 57.29577951308232, text);
}

/* A flat compute roof from its ridge with the top memory roof to the right edge. */
static void draw_compute_roof(rb_sbuf *b, const rb_plot_roof *r, int peak, double top_m,
                              const rb_plot_axis *x, const rb_plot_axis *y, rb_plot_labels *l,
                              const rb_plot_box *bounds)
{
    double ly = log10(roof_value(r, peak) * 1e12);
    double lx0 = top_m > 0 ? fmax(x->lo, ly - log10(top_m * 1e9)) : x->lo;
    if (!(ly >= y->lo && ly <= y->hi && lx0 < x->hi))
        return;
    double px0 = rb_plot_axis_map(x, pow(10, lx0)), px1 = x->px_hi;
    double py = rb_plot_axis_map(y, pow(10, ly));
    rb_svg_line(b, px0, py, px1, py, peak ? PEAK_COLOUR : MEASURED_COLOUR, peak ? 1.2 : 1.8,
                peak ? PEAK_DASH : NULL, NULL);
    char text[96];
    roof_label(r, peak, text, sizeof text);
    double w = rb_plot_text_width(text, LABEL_PX), cx[12], cy[12];
    int n = 0;
    for (double right = px1 - 4; right - w > px0 && n < 12; right -= w / 2 + 20) {
        cx[n] = right - w;
        cy[n++] = py - 3;
        cx[n] = right - w;
        cy[n++] = py + LABEL_PX + 2;
    }
    place_text(b, l, cx, cy, n, LABEL_PX, peak ? "#666666" : "#111111", text, bounds, NULL,
               NULL);
}

static void draw_main_roofs(rb_sbuf *b, const rb_plot_data *d, const rb_plot_axis *x,
                            const rb_plot_axis *y, rb_plot_labels *l, const rb_plot_box *bounds)
{
    for (int peak = 0; peak < 2; peak++) {
        double top_c = top_roof(d, RB_PLOT_ROOF_COMPUTE, peak);
        double top_m = top_roof(d, RB_PLOT_ROOF_BANDWIDTH, peak);
        for (int i = 0; i < d->n_roofs; i++) {
            const rb_plot_roof *r = &d->roofs[i];
            if (!on_main(r) || !(roof_value(r, peak) > 0))
                continue;
            if (r->kind == RB_PLOT_ROOF_COMPUTE)
                draw_compute_roof(b, r, peak, top_m, x, y, l, bounds);
            else
                draw_memory_roof(b, r, peak, top_c, x, y, l, bounds);
        }
    }
}

/* ---- points ---- */

static void point_title(const rb_plot_point *p, char *out, size_t size)
{
    char rate[64], eff[96];
    rb_plot_rate_text(p, rate, sizeof rate);
    rb_plot_efficiency_text(p, eff, sizeof eff);
    if (p->panel == RB_PANEL_ROOFLINE)
        rb_fmt(out, size, "%s / %s (%s): %s at %.3g FLOP/byte, %s", p->pair, p->variant, p->role,
               rate, p->x, eff);
    else
        rb_fmt(out, size, "%s / %s (%s): %s, %s", p->pair, p->variant, p->role, rate, eff);
}

/* Arrows from each rung of a pair's ladder to the next one on the same panel. */
static void draw_arrows(rb_sbuf *b, const rb_plot_data *d, rb_plot_panel panel, const double *px,
                        const double *py)
{
    int prev = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!p->plotted || p->panel != panel || p->is_part)
            continue;
        if (prev >= 0 && d->points[prev].pair_index == p->pair_index) {
            double dx = px[i] - px[prev], dy = py[i] - py[prev], len = hypot(dx, dy);
            if (len > 2 * POINT_R + 6) {
                double ux = dx / len, uy = dy / len, gap = POINT_R + 1.5;
                char colour[40], marker[32];
                rb_plot_colour(p->pair_index, colour, sizeof colour);
                rb_fmt(marker, sizeof marker, "arrow-%d", p->pair_index);
                rb_svg_line(b, px[prev] + ux * gap, py[prev] + uy * gap, px[i] - ux * gap,
                            py[i] - uy * gap, colour, 1.3, NULL, marker);
            }
        }
        prev = i;
    }
}

static void draw_points(rb_sbuf *b, const rb_plot_data *d, rb_plot_panel panel, const double *px,
                        const double *py)
{
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!p->plotted || p->panel != panel)
            continue;
        char colour[40], title[400];
        rb_plot_colour(p->pair_index, colour, sizeof colour);
        point_title(p, title, sizeof title);
        rb_svg_circle(b, px[i], py[i], p->is_part ? POINT_R - 1.5 : POINT_R,
                      p->is_part ? "#ffffff" : colour, "pt", title);
    }
}

static void block_points(rb_plot_labels *l, const rb_plot_data *d, rb_plot_panel panel,
                         const double *px, const double *py)
{
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].plotted && d->points[i].panel == panel)
            rb_plot_labels_block(l, (rb_plot_box){px[i] - POINT_R, py[i] - POINT_R, 2 * POINT_R,
                                                  2 * POINT_R});
}

/* Main panel labels: "pair: variant" on a pair's first point, the variant's name after it, right
 * or left of the point, moved down or up a line at a time until the box is free; a thin leader
 * line when it moved. */
static void label_main_points(rb_sbuf *b, const rb_plot_data *d, const double *px,
                              const double *py, rb_plot_labels *l, const rb_plot_box *bounds)
{
    int last_pair = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!p->plotted || p->panel != RB_PANEL_ROOFLINE)
            continue;
        char text[160], colour[40];
        if (p->pair_index != last_pair)
            rb_fmt(text, sizeof text, "%s: %s", p->pair, p->variant);
        else
            rb_fmt(text, sizeof text, "%s", p->variant);
        last_pair = p->pair_index;
        rb_plot_colour(p->pair_index, colour, sizeof colour);
        double w = rb_plot_text_width(text, 9), cx[50], cy[50];
        int n = 0;
        for (int k = 0; k <= 12; k++)
            for (int sign = 1; sign >= -1 && n < 50; sign -= 2) {
                if (k == 0 && sign < 0)
                    continue;
                double base = py[i] + 3 + sign * k * 10.5;
                cx[n] = px[i] + POINT_R + 3;
                cy[n++] = base;
                cx[n] = px[i] - POINT_R - 3 - w;
                cy[n++] = base;
            }
        double at_x, at_y;
        if (place_text(b, l, cx, cy, n, 9, colour, text, bounds, &at_x, &at_y) &&
            fabs(at_y - (py[i] + 3)) > 10)
            rb_svg_line(b, px[i], py[i], at_x < px[i] ? at_x + w : at_x, at_y - 3, colour, 0.5,
                        NULL, NULL);
    }
}

/* ---- the legend ---- */

/* Writes text in lines of at most width characters, broken at spaces (a longer word is cut). */
static double wrapped(rb_sbuf *b, double x, double y, double size, const char *fill,
                      const char *text, int width)
{
    char line[256];
    width = width > 255 ? 255 : width;
    const char *p = text;
    while (*p) {
        int n = (int)strlen(p);
        if (n > width) {
            n = width;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = width;
        }
        rb_fmt(line, sizeof line, "%.*s", n, p);
        rb_svg_text(b, x, y, size, "start", fill, 0, line);
        y += size * 1.3;
        p += n;
        while (*p == ' ')
            p++;
    }
    return y;
}

static int panel_used(const rb_plot_data *d, rb_plot_panel panel)
{
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].plotted && d->points[i].panel == panel)
            return 1;
    return 0;
}

/* The legend; returns the y below it. */
static double draw_legend(rb_sbuf *b, const rb_plot_data *d, double y)
{
    const double x = LEGEND_X;
    const int chars = (int)(LEGEND_W / (0.6 * LABEL_PX));
    rb_svg_text(b, x, y, 11, "start", "#000000", 0, "pairs (one colour each)");
    y += 16;
    for (int i = 0; i < d->n_pairs; i++) {
        char colour[40];
        rb_plot_colour(i, colour, sizeof colour);
        rb_svg_circle(b, x + 5, y - 3.5, 4, colour, NULL, NULL);
        y = wrapped(b, x + 14, y, LABEL_PX, "#111111", d->pairs[i], chars - 2);
    }
    y += 6;
    rb_svg_line(b, x, y - 4, x + 24, y - 4, MEASURED_COLOUR, 1.8, NULL, NULL);
    y = wrapped(b, x + 30, y, LABEL_PX, "#111111", "measured roof (roofbench ceilings)", chars - 5);
    rb_svg_line(b, x, y - 4, x + 24, y - 4, PEAK_COLOUR, 1.2, PEAK_DASH, NULL);
    y = wrapped(b, x + 30, y, LABEL_PX, "#111111", "datasheet peak", chars - 5);
    rb_svg_line(b, x, y - 4, x + 22, y - 4, "#555555", 1.3, NULL, "arrow-legend");
    y = wrapped(b, x + 30, y, LABEL_PX, "#111111",
                "ladder order: baseline -> steps -> optimized -> library", chars - 5);
    rb_svg_circle(b, x + 5, y - 3.5, POINT_R - 1.5, "#ffffff", NULL, NULL);
    y = wrapped(b, x + 14, y, LABEL_PX, "#111111",
                "a part: one stage of a variant timed alone", chars - 2);
    y += 4;
    static const char *const notes[RB_PANEL_COUNT] = {
        "roofline: FLOP/s against arithmetic intensity (FLOP per byte of compulsory DRAM "
        "traffic), log-log.",
        "bandwidth panel: variants with no FLOPs (copies, transposes, histograms), GB/s against "
        "the DRAM, L2 and shared-memory roofs.",
        "link panel: bytes over PCIe or NVLink, GB/s against the link roofs.",
        "latency panel: launch-bound variants, microseconds per kernel against the launch and "
        "graph-node roofs.",
    };
    for (int p = 0; p < RB_PANEL_COUNT; p++)
        if (p == RB_PANEL_ROOFLINE || panel_used(d, (rb_plot_panel)p))
            y = wrapped(b, x, y, LABEL_PX, "#333333", notes[p], chars);
    y = wrapped(b, x, y, LABEL_PX, "#333333",
                "Hover a point: pair, variant, rate and % of its measured roof.", chars);
    if (!d->have_roofs)
        y = wrapped(b, x, y + 4, LABEL_PX, "#b00020",
                    "roofs unknown: this results file has no \"roofs\" (written before runs "
                    "recorded them): points only.",
                    chars);
    return y;
}

/* ---- the small panels ---- */

static int roof_on_panel(const rb_plot_roof *r, rb_plot_panel panel)
{
    int link = !strncmp(r->key, "pcie_", 5) || !strncmp(r->key, "nvlink_", 7);
    return panel == RB_PANEL_LATENCY     ? r->kind == RB_PLOT_ROOF_LATENCY
           : panel == RB_PANEL_LINK      ? r->kind == RB_PLOT_ROOF_BANDWIDTH && link
           : panel == RB_PANEL_BANDWIDTH ? r->kind == RB_PLOT_ROOF_BANDWIDTH && !link
                                         : 0;
}

static void draw_flat_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_panel panel,
                            const rb_plot_axis *y, rb_plot_labels *l, const rb_plot_box *bounds)
{
    for (int peak = 0; peak < 2; peak++)
        for (int i = 0; i < d->n_roofs; i++) {
            const rb_plot_roof *r = &d->roofs[i];
            double v = roof_value(r, peak);
            if (!roof_on_panel(r, panel) || !(v > 0) || log10(v) < y->lo || log10(v) > y->hi)
                continue;
            double py = rb_plot_axis_map(y, v);
            rb_svg_line(b, SIDE_X, py, SIDE_X + SIDE_W, py, peak ? PEAK_COLOUR : MEASURED_COLOUR,
                        peak ? 1.2 : 1.8, peak ? PEAK_DASH : NULL, NULL);
            char text[96];
            roof_label(r, peak, text, sizeof text);
            double w = rb_plot_text_width(text, LABEL_PX), cx[16], cy[16];
            int n = 0;
            for (double right = SIDE_X + SIDE_W - 4; n < 16; right -= w + 12) {
                cx[n] = right - w;
                cy[n++] = py - 3;
                cx[n] = right - w;
                cy[n++] = py + LABEL_PX + 2;
            }
            place_text(b, l, cx, cy, n, LABEL_PX, peak ? "#666666" : "#111111", text, bounds,
                       NULL, NULL);
        }
}

/* The y range of a small panel: its points and its roofs. */
static void side_axis(const rb_plot_data *d, rb_plot_panel panel, double top, rb_plot_axis *y)
{
    double lo = NAN, hi = NAN;
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].plotted && d->points[i].panel == panel)
            widen(&lo, &hi, d->points[i].y);
    for (int i = 0; i < d->n_roofs; i++)
        if (roof_on_panel(&d->roofs[i], panel)) {
            widen(&lo, &hi, d->roofs[i].measured);
            widen(&lo, &hi, d->roofs[i].peak);
        }
    rb_plot_axis_fit(y, lo, hi, 2, 0);
    y->px_lo = top + SIDE_H;
    y->px_hi = top;
}

/* Point and pair labels of a small panel: a variant's name upright above its point (or below
 * it), each pair's name under its group of points. */
static void label_side(rb_sbuf *b, const rb_plot_data *d, rb_plot_panel panel, const double *px,
                       const double *py, double top, rb_plot_labels *l)
{
    rb_plot_box inside = {SIDE_X, top, SIDE_W, SIDE_H};
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!p->plotted || p->panel != panel)
            continue;
        double w = rb_plot_text_width(p->variant, 9), cx[2], cy[2];
        /* rotated -90 degrees about its anchor: glyphs left of x, text running upwards */
        cx[0] = cx[1] = px[i] - 3.7;
        cy[0] = py[i] - POINT_R - 3 - w;
        cy[1] = py[i] + POINT_R + 3;
        char colour[40];
        rb_plot_colour(p->pair_index, colour, sizeof colour);
        int k = rb_plot_labels_place(l, cx, cy, 2, 9, w, &inside);
        if (k >= 0)
            rb_svg_text(b, px[i] + 3.5, cy[k] + w, 9, "start", colour, -90, p->variant);
    }
    rb_plot_box below = {SIDE_X - 60, top + SIDE_H + 2, SIDE_W + 120, 60};
    for (int i = 0; i < d->n_points;) {
        int first = i, last = -1;
        for (; i < d->n_points && d->points[i].pair_index == d->points[first].pair_index; i++)
            if (d->points[i].plotted && d->points[i].panel == panel)
                last = i;
        if (last < 0)
            continue;
        int start = first;
        while (!(d->points[start].plotted && d->points[start].panel == panel))
            start++;
        const char *name = d->points[first].pair;
        double w = rb_plot_text_width(name, 9), mid = (px[start] + px[last]) / 2, cx[4], cy[4];
        for (int k = 0; k < 4; k++) {
            cx[k] = mid - w / 2;
            cy[k] = top + SIDE_H + 16 + 12 * k;
        }
        char colour[40];
        rb_plot_colour(d->points[first].pair_index, colour, sizeof colour);
        place_text(b, l, cx, cy, 4, 9, colour, name, &below, NULL, NULL);
    }
}

/* "roofs unknown", right-aligned at (right, y), kept clear of the labels placed after it. */
static void unknown_note(rb_sbuf *b, rb_plot_labels *l, double right, double y, const char *text)
{
    double w = rb_plot_text_width(text, 12);
    rb_plot_labels_block(l, (rb_plot_box){right - w, y - 12, w, 15});
    rb_svg_text(b, right, y, 12, "end", "#b00020", 0, text);
}

/* One small panel: the points of panel in ladder order, one slot each, a gap between pairs. */
static double draw_side_panel(rb_sbuf *b, const rb_plot_data *d, rb_plot_panel panel,
                              double top, double *px, double *py)
{
    static const char *const titles[RB_PANEL_COUNT] = {
        "", "bandwidth: variants with no FLOPs, GB/s (log scale)",
        "links: bytes over PCIe or NVLink, GB/s (log scale)",
        "latency: microseconds per kernel (log scale)"};
    int slots = 0, last_pair = -1;
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].plotted && d->points[i].panel == panel) {
            slots += 1 + (last_pair >= 0 && d->points[i].pair_index != last_pair);
            last_pair = d->points[i].pair_index;
        }
    rb_svg_text(b, SIDE_X, top - 10, 12, "start", "#000000", 0, titles[panel]);
    rb_plot_axis y;
    side_axis(d, panel, top, &y);
    draw_axes(b, NULL, &y, SIDE_X, top, SIDE_W, SIDE_H, 0);
    double slot_w = fmin(40, SIDE_W / (slots + 1));
    int slot = 0;
    last_pair = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!p->plotted || p->panel != panel)
            continue;
        slot += last_pair >= 0 && p->pair_index != last_pair;
        last_pair = p->pair_index;
        px[i] = SIDE_X + slot_w * (slot + 1);
        py[i] = rb_plot_axis_map(&y, p->y);
        slot++;
    }
    rb_plot_labels l = {0};
    rb_plot_box inside = {SIDE_X, top, SIDE_W, SIDE_H};
    block_points(&l, d, panel, px, py);
    if (d->have_roofs)
        draw_flat_roofs(b, d, panel, &y, &l, &inside);
    else
        unknown_note(b, &l, SIDE_X + SIDE_W - 6, top + 14, "roofs unknown");
    draw_arrows(b, d, panel, px, py);
    draw_points(b, d, panel, px, py);
    label_side(b, d, panel, px, py, top, &l);
    rb_plot_labels_free(&l);
    return top + SIDE_H + 70;
}

/* ---- the chart ---- */

static void draw_title(rb_sbuf *b, const rb_plot_data *d, const char *what)
{
    char title[600];
    rb_fmt(title, sizeof title, "roofbench %s: %s, driver %s, CUDA %s, %s, git %s", what,
           d->device, d->driver, d->cuda, d->date, d->git);
    rb_svg_text(b, 20, 26, 14, "start", "#000000", 0, title);
}

static void draw_markers(rb_sbuf *b, const rb_plot_data *d)
{
    rb_svg_defs_begin(b);
    for (int i = 0; i < d->n_pairs; i++) {
        char colour[40], id[32];
        rb_plot_colour(i, colour, sizeof colour);
        rb_fmt(id, sizeof id, "arrow-%d", i);
        rb_svg_arrow_marker(b, id, colour);
    }
    rb_svg_arrow_marker(b, "arrow-legend", "#555555");
    rb_svg_defs_end(b);
}

static void draw_main_panel(rb_sbuf *b, const rb_plot_data *d, double *px, double *py)
{
    rb_plot_axis x, y;
    rb_plot_roofline_axes(d, &x, &y);
    draw_axes(b, &x, &y, MAIN_X, MAIN_Y, MAIN_W, MAIN_H, 1);
    rb_svg_text(b, MAIN_X + MAIN_W / 2, MAIN_Y + MAIN_H + 34, 11, "middle", "#000000", 0,
                "arithmetic intensity (FLOP/byte of compulsory DRAM traffic)");
    rb_svg_text(b, MAIN_X - 52, MAIN_Y + MAIN_H / 2, 11, "middle", "#000000", -90,
                "performance (FLOP/s)");
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].plotted && d->points[i].panel == RB_PANEL_ROOFLINE) {
            px[i] = rb_plot_axis_map(&x, d->points[i].x);
            py[i] = rb_plot_axis_map(&y, d->points[i].y);
        }
    rb_plot_labels l = {0};
    rb_plot_box inside = {MAIN_X, MAIN_Y, MAIN_W, MAIN_H};
    block_points(&l, d, RB_PANEL_ROOFLINE, px, py);
    if (d->have_roofs)
        draw_main_roofs(b, d, &x, &y, &l, &inside);
    else
        unknown_note(b, &l, MAIN_X + MAIN_W - 6, MAIN_Y + 16, "roofs unknown: points only");
    draw_arrows(b, d, RB_PANEL_ROOFLINE, px, py);
    draw_points(b, d, RB_PANEL_ROOFLINE, px, py);
    label_main_points(b, d, px, py, &l, &inside);
    rb_plot_labels_free(&l);
}

/* "not plotted: pair/variant (why), ..." under the panels; returns the y below it. */
static double draw_unplotted(rb_sbuf *b, const rb_plot_data *d, double y)
{
    rb_sbuf list = {0};
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (p->plotted)
            continue;
        rb_sbuf_add(&list, "%s%s/%s (%s)", list.len ? ", " : "", p->pair, p->variant,
                    !strcmp(p->verdict, "skipped") ? "skipped"
                    : !strcmp(p->verdict, "invalid") ? "invalid"
                                                     : "not timed or no rate");
    }
    char *text = rb_sbuf_take(&list);
    if (text && text[0]) {
        rb_sbuf head = {0};
        rb_sbuf_add(&head, "not plotted: %s", text);
        char *all = rb_sbuf_take(&head);
        if (all)
            y = wrapped(b, 20, y, LABEL_PX, "#333333", all, (int)((CHART_W - 40) / 6));
        free(all);
    }
    free(text);
    return y;
}

char *rb_plot_roofline_svg(const rb_plot_data *d)
{
    double *px = calloc((size_t)d->n_points + 1, sizeof *px);
    double *py = calloc((size_t)d->n_points + 1, sizeof *py);
    rb_sbuf body = {0};
    if (!px || !py) {
        free(px);
        free(py);
        return NULL;
    }
    draw_markers(&body, d);
    draw_title(&body, d, "roofline");
    draw_main_panel(&body, d, px, py);
    double y = fmax(MAIN_Y + MAIN_H + 60, draw_legend(&body, d, MAIN_Y) + 20) + 20;
    for (int p = RB_PANEL_BANDWIDTH; p < RB_PANEL_COUNT; p++)
        if (panel_used(d, (rb_plot_panel)p))
            y = draw_side_panel(&body, d, (rb_plot_panel)p, y, px, py) + 20;
    y = draw_unplotted(&body, d, y) + 10;
    free(px);
    free(py);
    char *inner = rb_sbuf_take(&body);
    if (!inner)
        return NULL;
    rb_sbuf out = {0};
    rb_svg_begin(&out, CHART_W, ceil(y));
    rb_sbuf_add(&out, "%s", inner);
    rb_svg_end(&out);
    free(inner);
    return rb_sbuf_take(&out);
}

/* ---- the speedup chart ---- */

#define SPEEDUP_TOP 70.0
#define SPEEDUP_ROW 15.0
#define SPEEDUP_NAME_RIGHT 300.0
#define SPEEDUP_BAR_X0 320.0
#define SPEEDUP_BAR_X1 820.0

static int has_speedup(const rb_plot_point *p)
{
    return !p->is_part && p->speedup > 0 && isfinite(p->speedup);
}

/* Rows: a heading per pair, then one per rung with a speedup (or one that says there is none). */
static int speedup_rows(const rb_plot_data *d)
{
    int rows = 0;
    for (int k = 0; k < d->n_pairs; k++) {
        int n = 0;
        for (int i = 0; i < d->n_points; i++)
            n += d->points[i].pair_index == k && has_speedup(&d->points[i]);
        rows += 1 + (n ? n : 1);
    }
    return rows;
}

static void speedup_bar(rb_sbuf *b, const rb_plot_point *p, const rb_plot_axis *x, double y)
{
    char colour[40], eff[96], title[400], text[160];
    rb_plot_colour(p->pair_index, colour, sizeof colour);
    rb_plot_efficiency_text(p, eff, sizeof eff);
    double one = rb_plot_axis_map(x, 1), at = rb_plot_axis_map(x, p->speedup);
    rb_svg_text(b, SPEEDUP_NAME_RIGHT, y, LABEL_PX, "end", "#111111", 0, p->variant);
    rb_fmt(title, sizeof title, "%s / %s (%s): %.3gx over the baseline, %s", p->pair, p->variant,
           p->role, p->speedup, eff);
    rb_svg_rect(b, fmin(one, at), y - 9, fmax(1.5, fabs(at - one)), 11, colour, "bar", title);
    rb_fmt(text, sizeof text, "%.3gx, %s", p->speedup, eff);
    rb_svg_text(b, fmax(one, at) + 5, y, LABEL_PX, "start", "#111111", 0, text);
}

char *rb_plot_speedup_svg(const rb_plot_data *d)
{
    double lo = 1, hi = 1;
    for (int i = 0; i < d->n_points; i++)
        if (has_speedup(&d->points[i]))
            widen(&lo, &hi, d->points[i].speedup);
    rb_plot_axis x;
    rb_plot_axis_fit(&x, lo, hi, 1, 0);
    if (lo >= 1 && x.lo < 0) /* no rung slower than its baseline: start at 1x */
        x.lo = 0;
    x.px_lo = SPEEDUP_BAR_X0;
    x.px_hi = SPEEDUP_BAR_X1;
    double bottom = SPEEDUP_TOP + speedup_rows(d) * SPEEDUP_ROW + 10;
    rb_sbuf b = {0};
    rb_svg_begin(&b, CHART_W, bottom + 60);
    draw_title(&b, d, "speedups");
    rb_svg_text(&b, 20, 46, 11, "start", "#333333", 0,
                "each pair's ladder: speedup over its baseline (log scale), and each rung's % of "
                "its measured roof");
    char t[32];
    for (int e = x.lo; e <= x.hi; e++) {
        double px = rb_plot_axis_map(&x, pow(10, e));
        rb_svg_line(&b, px, SPEEDUP_TOP - 4, px, bottom, "#e4e4e4", 1, NULL, NULL);
        decade_label(e, 0, t, sizeof t);
        rb_fmt(t + strlen(t), sizeof t - strlen(t), "x");
        rb_svg_text(&b, px, SPEEDUP_TOP - 8, LABEL_PX, "middle", "#333333", 0, t);
        rb_svg_text(&b, px, bottom + 14, LABEL_PX, "middle", "#333333", 0, t);
    }
    double one = rb_plot_axis_map(&x, 1);
    rb_svg_line(&b, one, SPEEDUP_TOP - 4, one, bottom, "#555555", 1, NULL, NULL);
    rb_svg_text(&b, (SPEEDUP_BAR_X0 + SPEEDUP_BAR_X1) / 2, bottom + 32, 11, "middle", "#000000", 0,
                "speedup over the pair's baseline");
    double y = SPEEDUP_TOP + 10;
    for (int k = 0; k < d->n_pairs; k++) {
        char colour[40];
        rb_plot_colour(k, colour, sizeof colour);
        rb_svg_text(&b, 20, y, 11, "start", colour, 0, d->pairs[k]);
        y += SPEEDUP_ROW;
        int n = 0;
        for (int i = 0; i < d->n_points; i++)
            if (d->points[i].pair_index == k && has_speedup(&d->points[i])) {
                speedup_bar(&b, &d->points[i], &x, y);
                y += SPEEDUP_ROW;
                n++;
            }
        if (!n) {
            rb_svg_text(&b, SPEEDUP_NAME_RIGHT, y, LABEL_PX, "end", "#666666", 0,
                        "no speedup: no valid timed baseline");
            y += SPEEDUP_ROW;
        }
    }
    rb_svg_end(&b);
    return rb_sbuf_take(&b);
}
