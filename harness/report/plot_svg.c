/* SPDX-License-Identifier: MIT */
/*
 * The roofline chart as SVG: the main log-log panel, the zoom panels of its compute-bound
 * region, then the bandwidth, link and latency panels for the variants that have no place on
 * it. Every text is placed by plot_labels.c so that none overlaps another, a point or a roof's
 * label; a point's label that finds no free place becomes a number beside the point, explained
 * in the key at the chart's foot (and its tooltip names it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

/* the main panel, its roof labels in the margin right of it */
#define MAIN_X 80.0
#define MAIN_Y 64.0
#define MAIN_W 840.0
#define MAIN_H 470.0
/* the zoom panels, one a row, as wide as the main panel */
#define ZOOM_H 380.0
/* the side panels, one a row */
#define SIDE_X 80.0
#define SIDE_W 820.0
#define SIDE_H 170.0

/* ---- what a frame shows ---- */

static int in_frame(const rb_plot_data *d, const rb_plot_frame *f, const rb_plot_point *p)
{
    if (!p->plotted || p->panel != f->panel)
        return 0;
    if (f->panel != RB_PANEL_ROOFLINE || f->zoom < 0)
        return 1;
    return p->zoomed && d->families[d->pair_family[p->pair_index]].zoom == f->zoom;
}

/* Main panel points that a zoom panel shows again: drawn small, not labelled, no arrows. */
static int overview_only(const rb_plot_frame *f, const rb_plot_point *p)
{
    return f->panel == RB_PANEL_ROOFLINE && f->zoom < 0 && p->zoomed;
}

/* A pair's colour in a frame: its family's on the main panel (up to RB_PLOT_COLOURS families
 * meet there), its own shade of it on the others (a few families, pairs told apart). */
static void frame_colour(const rb_plot_data *d, const rb_plot_frame *f, int pair, char *out,
                         size_t size)
{
    if (f->panel == RB_PANEL_ROOFLINE && f->zoom < 0)
        rb_fmt(out, size, "%s", rb_plot_pair_colour(d, pair));
    else
        rb_plot_pair_shade(d, pair, out, size);
}

static void arrow_id(const rb_plot_data *d, const rb_plot_frame *f, int pair, char *out,
                     size_t size)
{
    int main = f->panel == RB_PANEL_ROOFLINE && f->zoom < 0;
    rb_fmt(out, size, "arrow-%d-%d", d->families[d->pair_family[pair]].colour,
           main ? 0 : d->pair_shape[pair] % RB_PLOT_SHADES);
}

/* ---- axes ---- */

/* ---- points ---- */

static void point_title(const rb_plot_point *p, char *out, size_t size)
{
    char rate[64], eff[96], ai[32];
    rb_plot_rate_text(p, rate, sizeof rate);
    rb_plot_efficiency_text(p, eff, sizeof eff);
    rb_plot_num(p->x, ai, sizeof ai);
    if (p->panel == RB_PANEL_ROOFLINE)
        rb_fmt(out, size, "%s / %s (%s): %s at %s FLOP/byte, %s%s", p->pair, p->variant, p->role,
               rate, ai, eff, p->informational ? " (informational)" : "");
    else
        rb_fmt(out, size, "%s / %s (%s): %s, %s%s", p->pair, p->variant, p->role, rate, eff,
               p->informational ? " (informational)" : "");
}

static double point_r(const rb_plot_frame *f, const rb_plot_point *p)
{
    return overview_only(f, p) ? 3.2 : p->is_part ? RB_PLOT_POINT_R - 0.5 : RB_PLOT_POINT_R;
}

/* Arrows from each rung of a pair's ladder to the next one in the frame. */
static void draw_arrows(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f, const double *px,
                        const double *py)
{
    int prev = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!in_frame(d, f, p) || overview_only(f, p) || p->is_part)
            continue;
        if (prev >= 0 && d->points[prev].pair_index == p->pair_index) {
            double dx = px[i] - px[prev], dy = py[i] - py[prev], len = hypot(dx, dy);
            if (len > 2 * RB_PLOT_POINT_R + 8) {
                double ux = dx / len, uy = dy / len, gap = RB_PLOT_POINT_R + 2;
                char marker[32], colour[16];
                arrow_id(d, f, p->pair_index, marker, sizeof marker);
                frame_colour(d, f, p->pair_index, colour, sizeof colour);
                double x0 = px[prev] + ux * gap, y0 = py[prev] + uy * gap;
                double x1 = px[i] - ux * gap, y1 = py[i] - uy * gap;
                rb_plot_line(b, "arrow", x0, y0, x1, y1, colour, 1.2, NULL, marker);
                rb_plot_labels_block(&f->labels, rb_plot_segment(x0, y0, x1, y1), 1);
            }
        }
        prev = i;
    }
}

static void draw_points(rb_sbuf *b, const rb_plot_data *d, const rb_plot_frame *f, const double *px,
                        const double *py)
{
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!in_frame(d, f, p))
            continue;
        char title[400], colour[16];
        point_title(p, title, sizeof title);
        frame_colour(d, f, p->pair_index, colour, sizeof colour);
        rb_plot_draw_marker(b, px[i], py[i], point_r(f, p), d->pair_shape[p->pair_index], colour,
                            p->is_part, overview_only(f, p) ? "pt-overview" : "pt", title);
    }
}

static void block_points(const rb_plot_data *d, rb_plot_frame *f, const double *px,
                         const double *py)
{
    for (int i = 0; i < d->n_points; i++)
        if (in_frame(d, f, &d->points[i]))
            rb_plot_labels_block(&f->labels,
                                 rb_plot_marker_quad(px[i], py[i], point_r(f, &d->points[i])), 0);
}

/* ---- point labels ---- */

/* The labels left out, numbered on the chart: chart-wide, in order. */
typedef struct key_list {
    int *point; /* the point of number k + 1 */
    int n, drawn;
} key_list;

/* Where a horizontal label may go: beside, above or below its point; then a line or more up
 * or down, on either side, with a leader. Returns how many are adjacent (the first ones). */
static int horizontal_places(double x, double y, double r, double size, rb_plot_place *out,
                             int *n_out)
{
    double mid = y + 0.33 * size, gap = r + 3, over = y - r - 2,
           under = y + r + 2 + RB_PLOT_EM_ASCENT * size;
    rb_plot_place adj[8] = {
        {x + gap, mid, "start", 0, 0, 0, 0, 0, 0}, {x - gap, mid, "end", 0, 0, 0, 0, 0, 0},
        {x + r, over, "start", 0, 0, 0, 0, 0, 0},  {x + r, under, "start", 0, 0, 0, 0, 0, 0},
        {x - r, over, "end", 0, 0, 0, 0, 0, 0},    {x - r, under, "end", 0, 0, 0, 0, 0, 0},
        {x, over - 1, "middle", 0, 0, 0, 0, 0, 0}, {x, under + 1, "middle", 0, 0, 0, 0, 0, 0},
    };
    int n = 0;
    for (int k = 0; k < 8; k++)
        out[n++] = adj[k];
    static const double out_px[3] = {12, 40, 75};
    for (int k = 1; k <= 24; k++)
        for (int dir = -1; dir <= 1; dir += 2)
            for (int side = 1; side >= -1; side -= 2) {
                /* up to eight lines up or down, near, then as far again further out, twice */
                double ly = mid + dir * ((k - 1) % 8 + 1) * 1.3 * size;
                double lx = x + side * (gap + out_px[(k - 1) / 8]);
                double tx = lx - side * 2, ty = ly - 0.33 * size;
                double dx = tx - x, dy = ty - y, len = hypot(dx, dy);
                out[n++] = (rb_plot_place){lx,
                                           ly,
                                           side > 0 ? "start" : "end",
                                           0,
                                           1,
                                           x + dx / len * (1.5 * r + 1),
                                           y + dy / len * (1.5 * r + 1),
                                           tx,
                                           ty};
            }
    *n_out = n;
    return 8;
}

/* A label for point i: adjacent places first, then moved ones (a few lines, then further),
 * each pass first clear of roof lines and arrows, then across them. The place taken, or -1. */
static int place_label(rb_plot_frame *f, const char *text, double size, const rb_plot_place *pl,
                       int n_adj, int n)
{
    int near_moved = n_adj + 16 < n ? 16 : n - n_adj;
    int k = rb_plot_labels_place(&f->labels, text, size, pl, n_adj, &f->area, 1);
    if (k < 0 && (k = rb_plot_labels_place(&f->labels, text, size, pl + n_adj, near_moved, &f->area,
                                           1)) >= 0)
        k += n_adj;
    if (k < 0)
        k = rb_plot_labels_place(&f->labels, text, size, pl, n_adj, &f->area, 0);
    if (k < 0 &&
        (k = rb_plot_labels_place(&f->labels, text, size, pl + n_adj, n - n_adj, &f->area, 0)) >= 0)
        k += n_adj;
    return k;
}

static void draw_placed(rb_sbuf *b, const rb_plot_place *p, double size, const char *colour,
                        const char *text)
{
    if (p->leader)
        rb_plot_line(b, "leader", p->lx0, p->ly0, p->lx1, p->ly1, colour, 0.6, NULL, NULL);
    rb_plot_halo_begin(b, "label");
    rb_svg_text(b, p->x, p->y, size, p->anchor, colour, p->rotate_deg, text);
    rb_svg_group_end(b);
}

/* A point whose label found no place: its number beside it (or nothing, when even that does
 * not fit), and an entry in the key. */
static void number_point(rb_sbuf *b, rb_plot_frame *f, key_list *keys, int i, double x, double y,
                         double r, const char *colour)
{
    char num[16];
    keys->point[keys->n++] = i;
    rb_fmt(num, sizeof num, "%d", keys->n);
    rb_plot_place pl[110];
    int n, n_adj = horizontal_places(x, y, r, RB_PLOT_POINT_PX, pl, &n);
    int k = place_label(f, num, RB_PLOT_POINT_PX, pl, n_adj, n);
    if (k >= 0)
        draw_placed(b, &pl[k], RB_PLOT_POINT_PX, colour, num);
}

/* How many points of the frame want a label; over RB_PLOT_MAX_LABELS, a note says that none
 * has one, and 0 comes back. */
static int labels_wanted(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f)
{
    int n = 0;
    for (int i = 0; i < d->n_points; i++)
        n += in_frame(d, f, &d->points[i]) && !overview_only(f, &d->points[i]);
    if (n <= RB_PLOT_MAX_LABELS)
        return n;
    char text[120];
    rb_fmt(text, sizeof text, "%d points: labels left out (hover a point for its name)", n);
    /* in a corner of the panel, else just above its top right corner */
    const rb_plot_box *a = &f->area;
    rb_plot_place pl[5] = {{a->x + 6, a->y + a->h - 6, "start", 0, 0, 0, 0, 0, 0},
                           {a->x + 6, a->y + 14, "start", 0, 0, 0, 0, 0, 0},
                           {a->x + a->w - 6, a->y + 14, "end", 0, 0, 0, 0, 0, 0},
                           {a->x + a->w - 6, a->y + a->h - 6, "end", 0, 0, 0, 0, 0, 0},
                           {a->x + a->w, a->y - 5, "end", 0, 0, 0, 0, 0, 0}};
    int k = rb_plot_labels_place(&f->labels, text, RB_PLOT_LABEL_PX, pl, 4, a, 0);
    if (k < 0 && rb_plot_labels_place(&f->labels, text, RB_PLOT_LABEL_PX, pl + 4, 1, NULL, 0) == 0)
        k = 4;
    if (k >= 0)
        draw_placed(b, &pl[k], RB_PLOT_LABEL_PX, "#555555", text);
    return 0;
}

static void label_points(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f, const double *px,
                         const double *py, key_list *keys)
{
    if (!labels_wanted(b, d, f))
        return;
    int last_pair = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!in_frame(d, f, p) || overview_only(f, p))
            continue;
        char text[160];
        /* the main panel names a pair on its first point; zoom panels in their caption */
        if (p->pair_index != last_pair && f->zoom < 0)
            rb_fmt(text, sizeof text, "%s: %s", p->pair, p->variant);
        else
            rb_fmt(text, sizeof text, "%s", p->variant);
        last_pair = p->pair_index;
        char colour[16];
        frame_colour(d, f, p->pair_index, colour, sizeof colour);
        rb_plot_place pl[110];
        int n, n_adj = horizontal_places(px[i], py[i], point_r(f, p), RB_PLOT_POINT_PX, pl, &n);
        int k = place_label(f, text, RB_PLOT_POINT_PX, pl, n_adj, n);
        if (k >= 0)
            draw_placed(b, &pl[k], RB_PLOT_POINT_PX, colour, text);
        else
            number_point(b, f, keys, i, px[i], py[i], point_r(f, p), colour);
    }
}

/* Cuts UTF-8 text after max characters (never inside one). */
static void cut_chars(char *s, int max)
{
    int chars = 0;
    for (char *p = s; *p; p++)
        if ((*p & 0xc0) != 0x80 && chars++ == max) {
            *p = '\0';
            return;
        }
}

/* The key of the points numbered since the last key (under the panel that numbered them);
 * returns the y below it. */
static double draw_key(rb_sbuf *b, const rb_plot_data *d, key_list *keys, double y)
{
    if (keys->drawn == keys->n)
        return y;
    rb_svg_text(b, 20, y, 11, "start", "#000000", 0,
                "Points whose label did not fit, numbered above:");
    y += 16;
    int first = keys->drawn, rows = (keys->n - first + 1) / 2;
    for (int k = first; k < keys->n; k++) {
        const rb_plot_point *p = &d->points[keys->point[k]];
        char text[400], rate[64], eff[96];
        rb_plot_rate_text(p, rate, sizeof rate);
        rb_plot_efficiency_text(p, eff, sizeof eff);
        rb_fmt(text, sizeof text, "%2d %s / %s: %s, %s", k + 1, p->pair, p->variant, rate, eff);
        int col = (k - first) / rows, row = (k - first) % rows;
        cut_chars(text, 86); /* its column's width at 11 px */
        rb_svg_text(b, 20 + col * 590, y + row * 15, RB_PLOT_LABEL_PX, "start", "#222222", 0, text);
    }
    keys->drawn = keys->n;
    return y + rows * 15 + 10;
}

/* ---- the main panel ---- */

void rb_plot_roofline_axes(const rb_plot_data *d, rb_plot_axis *x, rb_plot_axis *y)
{
    double xlo = NAN, xhi = NAN, ylo = NAN, yhi = NAN;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (p->plotted && p->panel == RB_PANEL_ROOFLINE) {
            rb_plot_widen(&xlo, &xhi, p->x);
            rb_plot_widen(&ylo, &yhi, p->y);
        }
    }
    /* the compute roofs, and each ridge (where a memory roof meets the top compute roof) */
    for (int peak = 0; peak < 2; peak++) {
        double top = rb_plot_top_roof(d, RB_PLOT_ROOF_COMPUTE, peak);
        for (int i = 0; i < d->n_roofs; i++) {
            const rb_plot_roof *r = &d->roofs[i];
            double v = peak ? r->peak : r->measured;
            if (!rb_plot_roof_on_main(r) || !(v > 0))
                continue;
            if (r->kind == RB_PLOT_ROOF_COMPUTE)
                rb_plot_widen(&ylo, &yhi, v * 1e12);
            else if (top > 0)
                rb_plot_widen(&xlo, &xhi, top * 1e12 / (v * 1e9));
        }
    }
    rb_plot_axis_fit(x, xlo, xhi, 4, -2);
    rb_plot_axis_fit(y, ylo, yhi, 3, 9);
    x->px_lo = MAIN_X;
    x->px_hi = MAIN_X + MAIN_W;
    y->px_lo = MAIN_Y + MAIN_H;
    y->px_hi = MAIN_Y;
}

/* "roofs unknown" in a corner of the frame clear of its points. */
static void unknown_note(rb_sbuf *b, rb_plot_frame *f, const char *text)
{
    const rb_plot_box *a = &f->area;
    rb_plot_place pl[4] = {
        {a->x + a->w - 6, a->y + 16, "end", 0, 0, 0, 0, 0, 0},
        {a->x + 6, a->y + 16, "start", 0, 0, 0, 0, 0, 0},
        {a->x + a->w - 6, a->y + a->h - 6, "end", 0, 0, 0, 0, 0, 0},
        {a->x + 6, a->y + a->h - 6, "start", 0, 0, 0, 0, 0, 0},
    };
    int k = rb_plot_labels_place(&f->labels, text, 12, pl, 4, a, 0);
    if (k >= 0)
        draw_placed(b, &pl[k], 12, "#b00020", text);
}

/* The part of the main panel the zoom panels show, framed and said so. */
static void draw_zoom_outline(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f, const double *px,
                              const double *py)
{
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int i = 0; i < d->n_points; i++)
        if (in_frame(d, f, &d->points[i]) && d->points[i].zoomed) {
            x0 = fmin(x0, px[i] - 8);
            x1 = fmax(x1, px[i] + 8);
            y0 = fmin(y0, py[i] - 8);
            y1 = fmax(y1, py[i] + 8);
        }
    if (!(x0 < x1))
        return;
    x0 = fmax(x0, f->area.x + 1);
    x1 = fmin(x1, f->area.x + f->area.w - 1);
    rb_svg_polyline(b, (double[]){x0, y0, x1, y0, x1, y1, x0, y1, x0, y0}, 5, "#888888", 1, "3 3");
    rb_plot_labels_block(&f->labels, rb_plot_segment(x0, y0, x1, y0), 1);
    rb_plot_labels_block(&f->labels, rb_plot_segment(x1, y0, x1, y1), 1);
    rb_plot_labels_block(&f->labels, rb_plot_segment(x1, y1, x0, y1), 1);
    rb_plot_labels_block(&f->labels, rb_plot_segment(x0, y1, x0, y0), 1);
    const char *text = "zoomed below";
    rb_plot_place pl[6] = {
        {x0, y1 + 12, "start", 0, 0, 0, 0, 0, 0},  {x1, y1 + 12, "end", 0, 0, 0, 0, 0, 0},
        {x0 - 4, y1 - 3, "end", 0, 0, 0, 0, 0, 0}, {x0, y0 - 4, "start", 0, 0, 0, 0, 0, 0},
        {x1, y0 - 4, "end", 0, 0, 0, 0, 0, 0},     {x0 + 3, y1 - 4, "start", 0, 0, 0, 0, 0, 0},
    };
    int k = rb_plot_labels_place(&f->labels, text, RB_PLOT_LABEL_PX, pl, 6, &f->area, 0);
    if (k >= 0)
        draw_placed(b, &pl[k], RB_PLOT_LABEL_PX, "#666666", text);
}

/* Points, arrows and labels of a roofline frame (main or zoom) whose axes are set. */
static void draw_roofline_frame(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f, double *px,
                                double *py, key_list *keys)
{
    rb_plot_draw_axes(b, f, 1, 0);
    for (int i = 0; i < d->n_points; i++)
        if (in_frame(d, f, &d->points[i])) {
            px[i] = rb_plot_axis_map(&f->x, d->points[i].x);
            py[i] = rb_plot_axis_map(&f->y, d->points[i].y);
        }
    block_points(d, f, px, py);
    if (d->have_roofs)
        rb_plot_draw_roofline_roofs(b, d, f);
    else
        unknown_note(b, f, "roofs unknown: points only");
    if (f->zoom < 0)
        draw_zoom_outline(b, d, f, px, py);
    draw_arrows(b, d, f, px, py);
    draw_points(b, d, f, px, py);
    label_points(b, d, f, px, py, keys);
    if (d->have_roofs)
        rb_plot_label_memory_roofs(b, d, f);
}

/* A frame whose plotting area is area, its roofs' labels in the margin right of it. */
static void frame_init(rb_plot_frame *f, rb_plot_box area, rb_plot_panel panel, int zoom)
{
    memset(f, 0, sizeof *f);
    f->area = area;
    f->margin_x = area.x + area.w + 8;
    f->margin_w = RB_PLOT_CHART_W - f->margin_x - 6;
    f->zoom = zoom;
    f->panel = panel;
}

/* A roofline frame's axis titles: x_title under its ticks, FLOP/s up its left side. */
static void axis_titles(rb_sbuf *b, const rb_plot_frame *f, const char *x_title)
{
    const rb_plot_box *a = &f->area;
    rb_svg_text(b, a->x + a->w / 2, a->y + a->h + 34, 11, "middle", "#000000", 0, x_title);
    rb_svg_text(b, a->x - 50, a->y + a->h / 2, 11, "middle", "#000000", -90,
                "performance (FLOP/s)");
}

static double draw_main(rb_sbuf *b, const rb_plot_data *d, double *px, double *py, key_list *keys)
{
    rb_plot_frame f;
    frame_init(&f, (rb_plot_box){MAIN_X, MAIN_Y, MAIN_W, MAIN_H}, RB_PANEL_ROOFLINE, -1);
    rb_plot_roofline_axes(d, &f.x, &f.y);
    axis_titles(b, &f, "arithmetic intensity (FLOP/byte of compulsory DRAM traffic)");
    draw_roofline_frame(b, d, &f, px, py, keys);
    rb_plot_labels_free(&f.labels);
    return MAIN_Y + MAIN_H + 50;
}

/* ---- the zoom panels ---- */

static void zoom_axes(const rb_plot_data *d, rb_plot_frame *f)
{
    double xlo = NAN, xhi = NAN, ylo = NAN, yhi = NAN;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!in_frame(d, f, p))
            continue;
        rb_plot_widen(&xlo, &xhi, p->x);
        rb_plot_widen(&ylo, &yhi, p->y);
        const rb_plot_roof *r = rb_plot_find_roof(d, p->roof);
        if (r && r->kind == RB_PLOT_ROOF_COMPUTE) {
            rb_plot_widen(&ylo, &yhi, r->measured * 1e12);
            rb_plot_widen(&ylo, &yhi, r->peak * 1e12);
        }
    }
    rb_plot_axis_fit_tight(&f->x, xlo, xhi, 0.1, 0.6);
    rb_plot_axis_fit_tight(&f->y, ylo, yhi, 0.08, 1.0);
    f->x.px_lo = f->area.x;
    f->x.px_hi = f->area.x + f->area.w;
    f->y.px_lo = f->area.y + f->area.h;
    f->y.px_hi = f->area.y;
}

static double draw_zoom(rb_sbuf *b, const rb_plot_data *d, int z, double y0, double *px, double *py,
                        key_list *keys)
{
    rb_plot_frame f;
    rb_sbuf_add(b, "<g id=\"rb-zoom-%d\">\n", z);
    double top = rb_plot_draw_zoom_caption(b, d, z, 20, y0, RB_PLOT_CHART_W - 40) + 12;
    frame_init(&f, (rb_plot_box){MAIN_X, top, MAIN_W, ZOOM_H}, RB_PANEL_ROOFLINE, z);
    zoom_axes(d, &f);
    axis_titles(b, &f, "arithmetic intensity (FLOP/byte)");
    draw_roofline_frame(b, d, &f, px, py, keys);
    rb_plot_labels_free(&f.labels);
    double y = draw_key(b, d, keys, top + ZOOM_H + 44);
    rb_sbuf_add(b, "</g>\n");
    return y;
}

static double draw_zooms(rb_sbuf *b, const rb_plot_data *d, double y, double *px, double *py,
                         key_list *keys)
{
    if (!d->n_zooms)
        return y;
    rb_sbuf_add(b, "<g id=\"rb-zooms\">\n");
    rb_svg_text(b, 20, y, 13, "start", "#000000", 0,
                "The compute-bound region (arithmetic intensity >= 100 FLOP/byte), zoomed and "
                "labelled, against its compute roofs:");
    y += 10;
    for (int z = 0; z < d->n_zooms; z++)
        y = draw_zoom(b, d, z, y, px, py, keys) + 8;
    rb_sbuf_add(b, "</g>\n");
    return y;
}

/* ---- the side panels: bandwidth, link, latency ---- */

static int panel_used(const rb_plot_data *d, rb_plot_panel panel)
{
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].plotted && d->points[i].panel == panel)
            return 1;
    return 0;
}

/* A variant's name upright above its point, or below it; else its number. */
static void label_side_points(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f, const double *px,
                              const double *py, key_list *keys)
{
    const double size = RB_PLOT_POINT_PX, shift = 0.33 * size;
    if (!labels_wanted(b, d, f))
        return;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!in_frame(d, f, p))
            continue;
        double r = point_r(f, p);
        rb_plot_place pl[2] = {
            {px[i] + shift, py[i] - r - 3, "start", -90, 0, 0, 0, 0, 0},
            {px[i] + shift, py[i] + r + 3, "end", -90, 0, 0, 0, 0, 0},
        };
        char colour[16];
        frame_colour(d, f, p->pair_index, colour, sizeof colour);
        int k = rb_plot_labels_place(&f->labels, p->variant, size, pl, 2, &f->area, 0);
        if (k >= 0)
            draw_placed(b, &pl[k], size, colour, p->variant);
        else
            number_point(b, f, keys, i, px[i], py[i], r, colour);
    }
}

/* Each pair's name under its group of points, on the first of four rows where it fits. */
static void label_side_pairs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f, const double *px)
{
    rb_plot_box below = {f->area.x, f->area.y + f->area.h + 2, f->area.w + 60, 56};
    /* as the points' labels: past RB_PLOT_MAX_LABELS pairs none (each is placed against every
     * box placed before it: thousands of pairs made the chart quadratic) */
    int pairs = 0;
    for (int i = 0; i < d->n_points; i++)
        pairs += in_frame(d, f, &d->points[i]) &&
                 (i == 0 || d->points[i].pair_index != d->points[i - 1].pair_index);
    if (pairs > RB_PLOT_MAX_LABELS)
        return;
    for (int i = 0; i < d->n_points;) {
        int first = i, start = -1, last = -1;
        for (; i < d->n_points && d->points[i].pair_index == d->points[first].pair_index; i++)
            if (in_frame(d, f, &d->points[i])) {
                start = start < 0 ? i : start;
                last = i;
            }
        if (last < 0)
            continue;
        double mid = (px[start] + px[last]) / 2;
        rb_plot_place pl[8];
        for (int k = 0; k < 4; k++) {
            pl[2 * k] = (rb_plot_place){mid, below.y + 12 + 12 * k, "middle", 0, 0, 0, 0, 0, 0};
            pl[2 * k + 1] =
                (rb_plot_place){px[start] - 6, below.y + 12 + 12 * k, "start", 0, 0, 0, 0, 0, 0};
        }
        const char *name = d->points[first].pair;
        int k = rb_plot_labels_place(&f->labels, name, RB_PLOT_POINT_PX, pl, 8, &below, 0);
        char colour[16];
        frame_colour(d, f, d->points[first].pair_index, colour, sizeof colour);
        if (k >= 0)
            draw_placed(b, &pl[k], RB_PLOT_POINT_PX, colour, name);
    }
}

/* The points of a side panel in ladder order, one slot each, a gap between pairs. */
static void side_positions(const rb_plot_data *d, rb_plot_frame *f, double *px, double *py)
{
    int slots = 0, last_pair = -1;
    for (int i = 0; i < d->n_points; i++)
        if (in_frame(d, f, &d->points[i])) {
            slots += 1 + (last_pair >= 0 && d->points[i].pair_index != last_pair);
            last_pair = d->points[i].pair_index;
        }
    double slot_w = fmin(40, f->area.w / (slots + 1));
    int slot = 0;
    last_pair = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!in_frame(d, f, p))
            continue;
        slot += last_pair >= 0 && p->pair_index != last_pair;
        last_pair = p->pair_index;
        px[i] = f->area.x + slot_w * (slot + 1);
        py[i] = rb_plot_axis_map(&f->y, p->y);
        slot++;
    }
}

static double draw_side_panel(rb_sbuf *b, const rb_plot_data *d, rb_plot_panel panel, double top,
                              double *px, double *py, key_list *keys)
{
    static const char *const titles[RB_PANEL_COUNT] = {
        "", "bandwidth: variants with no FLOPs, GB/s (log scale)",
        "links: bytes over PCIe or NVLink, GB/s (log scale)",
        "latency: microseconds per kernel (log scale)"};
    rb_plot_frame f;
    frame_init(&f, (rb_plot_box){SIDE_X, top, SIDE_W, SIDE_H}, panel, -1);
    rb_sbuf_add(b, "<g id=\"rb-side-%d\">\n", (int)panel);
    rb_svg_text(b, SIDE_X, top - 10, 12, "start", "#000000", 0, titles[panel]);
    double lo = NAN, hi = NAN;
    for (int i = 0; i < d->n_points; i++)
        if (in_frame(d, &f, &d->points[i]))
            rb_plot_widen(&lo, &hi, d->points[i].y);
    rb_plot_side_roof_range(d, panel, &lo, &hi);
    rb_plot_axis_fit(&f.y, lo, hi, 2, 0);
    f.y.px_lo = top + SIDE_H;
    f.y.px_hi = top;
    rb_plot_draw_axes(b, &f, 0, 0);
    side_positions(d, &f, px, py);
    block_points(d, &f, px, py);
    if (d->have_roofs)
        rb_plot_draw_flat_roofs(b, d, &f);
    else
        unknown_note(b, &f, "roofs unknown");
    draw_arrows(b, d, &f, px, py);
    draw_points(b, d, &f, px, py);
    label_side_points(b, d, &f, px, py, keys);
    label_side_pairs(b, d, &f, px);
    rb_plot_labels_free(&f.labels);
    rb_sbuf_add(b, "</g>\n");
    return top + SIDE_H + 70;
}

/* ---- the foot: the key of numbered points, what is not plotted ---- */

static const char *unplotted_why(const rb_plot_point *p)
{
    return !strcmp(p->verdict, "skipped") ? "skipped"
           : !strcmp(p->verdict, "invalid") ? "invalid"
           : p->one_gpu                     ? "one GPU, no link traffic"
                                            : "not timed or no rate";
}

/* "Not plotted, skipped: pair (variant, variant); pair (variant). Invalid: ..." under the
 * panels, one sentence a reason, each pair named once; returns the y below it. */
static double draw_unplotted(rb_sbuf *b, const rb_plot_data *d, double y)
{
    static const char *const reasons[] = {"skipped", "invalid", "one GPU, no link traffic",
                                          "not timed or no rate"};
    rb_sbuf list = {0};
    int n = 0;
    for (size_t r = 0; r < sizeof reasons / sizeof reasons[0]; r++) {
        int in_reason = 0, last_pair = -1;
        for (int i = 0; i < d->n_points; i++) {
            const rb_plot_point *p = &d->points[i];
            if (p->plotted || strcmp(unplotted_why(p), reasons[r]))
                continue;
            if (!in_reason++)
                rb_sbuf_add(&list, "%s%s: ", n ? "). " : "Not plotted, ", reasons[r]);
            else
                rb_sbuf_add(&list, "%s", p->pair_index == last_pair ? ", " : "); ");
            if (p->pair_index != last_pair)
                rb_sbuf_add(&list, "%s (", p->pair);
            rb_sbuf_add(&list, "%s", p->variant);
            last_pair = p->pair_index;
            n++;
        }
    }
    if (n)
        rb_sbuf_add(&list, ").");
    char *all = rb_sbuf_take(&list);
    if (all && n)
        y = rb_plot_wrapped(
            b, 20, y, RB_PLOT_LABEL_PX, "#333333", all,
            (int)((RB_PLOT_CHART_W - 40) / rb_plot_text_width("x", RB_PLOT_LABEL_PX)));
    free(all);
    return y;
}

/* ---- the chart ---- */

static void draw_title(rb_sbuf *b, const rb_plot_data *d)
{
    char title[600];
    rb_fmt(title, sizeof title, "roofbench roofline: %s, driver %s, CUDA %s, %s, git %s", d->device,
           d->driver, d->cuda, d->date, d->git);
    rb_svg_text(b, 20, 26, 14, "start", "#000000", 0, title);
}

static void draw_markers(rb_sbuf *b)
{
    rb_svg_defs_begin(b);
    for (int i = 0; i < RB_PLOT_COLOURS * RB_PLOT_SHADES; i++) {
        char id[32], colour[16];
        rb_fmt(id, sizeof id, "arrow-%d-%d", i / RB_PLOT_SHADES, i % RB_PLOT_SHADES);
        rb_plot_shade(rb_plot_colour(i / RB_PLOT_SHADES), i % RB_PLOT_SHADES, colour,
                      sizeof colour);
        rb_svg_arrow_marker(b, id, colour);
    }
    rb_svg_arrow_marker(b, "arrow-legend", "#555555");
    rb_svg_defs_end(b);
}

static double draw_body(rb_sbuf *b, const rb_plot_data *d, double *px, double *py, key_list *keys)
{
    draw_markers(b);
    draw_title(b, d);
    double y = 50;
    /* no empty panel: a run of links alone (a node's collectives) has no roofline */
    if (panel_used(d, RB_PANEL_ROOFLINE) || !d->n_points) {
        rb_sbuf_add(b, "<g id=\"rb-main\">\n");
        y = draw_main(b, d, px, py, keys);
        y = draw_key(b, d, keys, rb_plot_draw_legend(b, d, y) + 6);
        rb_sbuf_add(b, "</g>\n");
        y += 24;
    }
    y = draw_zooms(b, d, y, px, py, keys) + 20;
    for (int p = RB_PANEL_BANDWIDTH; p < RB_PANEL_COLLECTIVE; p++)
        if (panel_used(d, (rb_plot_panel)p))
            y = draw_key(b, d, keys, draw_side_panel(b, d, (rb_plot_panel)p, y, px, py, keys)) + 20;
    if (panel_used(d, RB_PANEL_COLLECTIVE))
        y = rb_plot_draw_collectives(b, d, y + 10) + 20;
    return draw_unplotted(b, d, y) + 10;
}

void rb_plot_roofline_svg_to(rb_sbuf *b, const rb_plot_data *d, FILE *scratch)
{
    size_t n = (size_t)d->n_points + 1;
    double *px = calloc(n, sizeof *px), *py = calloc(n, sizeof *py);
    key_list keys = {calloc(n, sizeof *keys.point), 0, 0};
    rb_sbuf body = {.sink = scratch};
    int drawn = px && py && keys.point;
    /* the body first, for its height, which the chart's first line gives */
    double height = drawn ? draw_body(&body, d, px, py, &keys) : 0;
    free(px);
    free(py);
    free(keys.point);
    if (!drawn) {
        rb_sbuf_free(&body);
        b->oom = 1;
        return;
    }
    if (scratch) {
        if (rb_sbuf_flush(&body) != 0 || fseek(scratch, 0, SEEK_SET) != 0) {
            b->oom = 1;
            return;
        }
        rb_svg_begin(b, RB_PLOT_CHART_W, ceil(height));
        rb_sbuf_copy(b, scratch);
    } else {
        char *inner = rb_sbuf_take(&body);
        if (!inner) {
            b->oom = 1;
            return;
        }
        rb_svg_begin(b, RB_PLOT_CHART_W, ceil(height));
        rb_sbuf_add(b, "%s", inner);
        free(inner);
    }
    rb_svg_end(b);
}

char *rb_plot_roofline_svg(const rb_plot_data *d)
{
    rb_sbuf b = {0};
    rb_plot_roofline_svg_to(&b, d, NULL);
    return rb_sbuf_take(&b);
}
