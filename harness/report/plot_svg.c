/* SPDX-License-Identifier: MIT */
/*
 * The charts of a run as SVG, one a regime (rb_plot_chart): the roofline (a log-log panel of
 * the rows with FLOPs, its legend and its key), the compute-bound region zoomed per family, and
 * the bandwidth, link, latency and collectives charts for the rows that have no place on the
 * roofline. Each chart stands alone: its title, its panel(s), the legend of the families it
 * shows, and the key of its points whose label did not fit. Points and their labels are drawn
 * by plot_points.c, roofs by plot_roofs.c, legends by plot_legend.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

/* the roofline panel, its roof labels in the margin right of it */
#define MAIN_X 80.0
#define MAIN_Y 64.0
#define MAIN_W 840.0
#define MAIN_H 470.0
/* the zoom panels, one a row, as wide as the roofline's */
#define ZOOM_H 380.0
/* the side panels: bandwidth, link, latency */
#define SIDE_X 80.0
#define SIDE_Y 76.0
#define SIDE_W 820.0
#define SIDE_H 280.0

/* ---- the roofline ---- */

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

/* The part of the roofline the compute-bound chart shows, framed and said so. */
static void draw_zoom_outline(rb_sbuf *b, const rb_plot_canvas *c, rb_plot_frame *f)
{
    const rb_plot_data *d = c->d;
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int i = 0; i < d->n_points; i++)
        if (rb_plot_in_frame(d, f, &d->points[i]) && d->points[i].zoomed) {
            x0 = fmin(x0, c->px[i] - 8);
            x1 = fmax(x1, c->px[i] + 8);
            y0 = fmin(y0, c->py[i] - 8);
            y1 = fmax(y1, c->py[i] + 8);
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
    const char *text = "zoomed: the compute-bound chart";
    rb_plot_place pl[6] = {
        {x0, y1 + 12, "start", 0, 0, 0, 0, 0, 0},  {x1, y1 + 12, "end", 0, 0, 0, 0, 0, 0},
        {x0 - 4, y1 - 3, "end", 0, 0, 0, 0, 0, 0}, {x0, y0 - 4, "start", 0, 0, 0, 0, 0, 0},
        {x1, y0 - 4, "end", 0, 0, 0, 0, 0, 0},     {x0 + 3, y1 - 4, "start", 0, 0, 0, 0, 0, 0},
    };
    int k = rb_plot_labels_place(&f->labels, text, RB_PLOT_LABEL_PX, pl, 6, &f->area, 1);
    if (k >= 0) {
        rb_plot_halo_begin(b, "label");
        rb_svg_text(b, pl[k].x, pl[k].y, RB_PLOT_LABEL_PX, pl[k].anchor, "#666666", 0, text);
        rb_svg_group_end(b);
    }
}

/* The pixels of the frame's points. */
static void map_points(rb_plot_canvas *c, const rb_plot_frame *f)
{
    for (int i = 0; i < c->d->n_points; i++)
        if (rb_plot_in_frame(c->d, f, &c->d->points[i])) {
            c->px[i] = rb_plot_axis_map(&f->x, c->d->points[i].x);
            c->py[i] = rb_plot_axis_map(&f->y, c->d->points[i].y);
        }
}

/* Points, arrows and labels of a roofline frame (the roofline or a zoom panel) whose axes are
 * set. */
static void draw_roofline_frame(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f)
{
    const rb_plot_data *d = c->d;
    rb_plot_draw_axes(b, f, 1, 0);
    map_points(c, f);
    rb_plot_block_points(c, f);
    if (d->have_roofs)
        rb_plot_draw_roofline_roofs(b, d, f);
    else
        rb_plot_frame_note(b, f, "roofs unknown: points only", 12, "#b00020");
    if (f->zoom < 0)
        draw_zoom_outline(b, c, f);
    rb_plot_draw_arrows(b, c, f);
    rb_plot_draw_points(b, c, f);
    rb_plot_label_points(b, c, f);
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

/* A frame's axis titles: x_title under its ticks (NULL: none), y_title up its left side. */
static void axis_titles(rb_sbuf *b, const rb_plot_frame *f, const char *x_title,
                        const char *y_title)
{
    const rb_plot_box *a = &f->area;
    if (x_title)
        rb_svg_text(b, a->x + a->w / 2, a->y + a->h + 34, 11, "middle", "#000000", 0, x_title);
    rb_svg_text(b, a->x - 50, a->y + a->h / 2, 11, "middle", "#000000", -90, y_title);
}

static double roofline_body(rb_sbuf *b, rb_plot_canvas *c)
{
    rb_plot_frame f;
    frame_init(&f, (rb_plot_box){MAIN_X, MAIN_Y, MAIN_W, MAIN_H}, RB_PANEL_ROOFLINE, -1);
    rb_plot_roofline_axes(c->d, &f.x, &f.y);
    rb_sbuf_add(b, "<g id=\"rb-main\">\n");
    axis_titles(b, &f, "arithmetic intensity (FLOP/byte of compulsory DRAM traffic)",
                "performance (FLOP/s)");
    draw_roofline_frame(b, c, &f);
    double y = rb_plot_draw_styles(b, MAIN_Y + MAIN_H + 50);
    y = rb_plot_draw_legend(b, c->d, &f, y);
    rb_plot_labels_free(&f.labels);
    y = rb_plot_draw_key(b, c, y + 6);
    rb_sbuf_add(b, "</g>\n");
    return y;
}

/* ---- the compute-bound chart: the zoom panels ---- */

static void zoom_axes(const rb_plot_data *d, rb_plot_frame *f)
{
    double xlo = NAN, xhi = NAN, ylo = NAN, yhi = NAN;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!rb_plot_in_frame(d, f, p))
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

static double draw_zoom(rb_sbuf *b, rb_plot_canvas *c, int z, double y0)
{
    rb_plot_frame f;
    rb_sbuf_add(b, "<g id=\"rb-zoom-%d\">\n", z);
    double top = rb_plot_draw_zoom_caption(b, c->d, z, 20, y0, RB_PLOT_CHART_W - 40) + 12;
    frame_init(&f, (rb_plot_box){MAIN_X, top, MAIN_W, ZOOM_H}, RB_PANEL_ROOFLINE, z);
    zoom_axes(c->d, &f);
    axis_titles(b, &f, "arithmetic intensity (FLOP/byte)", "performance (FLOP/s)");
    draw_roofline_frame(b, c, &f);
    rb_plot_labels_free(&f.labels);
    double y = rb_plot_draw_key(b, c, top + ZOOM_H + 44);
    rb_sbuf_add(b, "</g>\n");
    return y;
}

static double compute_body(rb_sbuf *b, rb_plot_canvas *c)
{
    double y = 50;
    rb_sbuf_add(b, "<g id=\"rb-zooms\">\n");
    rb_svg_text(b, 20, y, 12, "start", "#000000", 0,
                "The compute-bound region (arithmetic intensity >= 100 FLOP/byte), zoomed per "
                "family, against the compute roofs its points are judged against:");
    y += 10;
    for (int z = 0; z < c->d->n_zooms; z++)
        y = draw_zoom(b, c, z, y) + 8;
    rb_sbuf_add(b, "</g>\n");
    return y;
}

/* ---- the side charts: bandwidth, link, latency ---- */

/* The points of a side panel in ladder order, one slot each, a gap between pairs. */
static void side_positions(rb_plot_canvas *c, const rb_plot_frame *f)
{
    const rb_plot_data *d = c->d;
    int slots = 0, last_pair = -1;
    for (int i = 0; i < d->n_points; i++)
        if (rb_plot_in_frame(d, f, &d->points[i])) {
            slots += 1 + (last_pair >= 0 && d->points[i].pair_index != last_pair);
            last_pair = d->points[i].pair_index;
        }
    double slot_w = fmin(64, f->area.w / (slots + 1));
    int slot = 0;
    last_pair = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!rb_plot_in_frame(d, f, p))
            continue;
        slot += last_pair >= 0 && p->pair_index != last_pair;
        last_pair = p->pair_index;
        c->px[i] = f->area.x + slot_w * (slot + 1);
        c->py[i] = rb_plot_axis_map(&f->y, p->y);
        slot++;
    }
}

static double side_body(rb_sbuf *b, rb_plot_canvas *c, rb_plot_panel panel)
{
    static const char *const titles[RB_PANEL_COUNT] = {
        "", "variants with no FLOPs: bytes moved per second against the memory roofs",
        "bytes over PCIe or NVLink per second against the link roofs",
        "microseconds per kernel against the launch and graph-node roofs"};
    static const char *const units[RB_PANEL_COUNT] = {"", "GB/s (log scale)", "GB/s (log scale)",
                                                      "\xc2\xb5s per kernel (log scale)"};
    const rb_plot_data *d = c->d;
    rb_plot_frame f;
    frame_init(&f, (rb_plot_box){SIDE_X, SIDE_Y, SIDE_W, SIDE_H}, panel, -1);
    rb_sbuf_add(b, "<g id=\"rb-side-%d\">\n", (int)panel);
    rb_svg_text(b, 20, SIDE_Y - 26, 12, "start", "#000000", 0, titles[panel]);
    double lo = NAN, hi = NAN;
    for (int i = 0; i < d->n_points; i++)
        if (rb_plot_in_frame(d, &f, &d->points[i]))
            rb_plot_widen(&lo, &hi, d->points[i].y);
    rb_plot_side_roof_range(d, panel, &lo, &hi);
    rb_plot_axis_fit(&f.y, lo, hi, 2, 0);
    f.y.px_lo = SIDE_Y + SIDE_H;
    f.y.px_hi = SIDE_Y;
    rb_plot_draw_axes(b, &f, 0, 0);
    axis_titles(b, &f, NULL, units[panel]);
    side_positions(c, &f);
    rb_plot_block_points(c, &f);
    if (d->have_roofs)
        rb_plot_draw_flat_roofs(b, d, &f);
    else
        rb_plot_frame_note(b, &f, "roofs unknown", 12, "#b00020");
    rb_plot_draw_arrows(b, c, &f);
    rb_plot_draw_points(b, c, &f);
    rb_plot_label_side_points(b, c, &f);
    double y = rb_plot_draw_legend(b, d, &f, rb_plot_label_side_pairs(b, c, &f) + 24);
    rb_plot_labels_free(&f.labels);
    y = rb_plot_draw_key(b, c, y + 6);
    rb_sbuf_add(b, "</g>\n");
    return y;
}

/* ---- a chart ---- */

static void draw_title(rb_sbuf *b, const rb_plot_data *d, rb_plot_chart chart)
{
    static const char *const names[RB_CHART_COUNT] = {
        "roofline", "compute-bound region", "bandwidth", "links", "latency", "collectives"};
    char title[600];
    rb_fmt(title, sizeof title, "roofbench %s: %s, driver %s, CUDA %s, %s, git %s", names[chart],
           d->device, d->driver, d->cuda, d->date, d->git);
    rb_svg_text(b, 20, 26, 14, "start", "#000000", 0, title);
}

static double chart_body(rb_sbuf *b, rb_plot_canvas *c)
{
    draw_title(b, c->d, c->chart);
    double y;
    switch (c->chart) {
    case RB_CHART_ROOFLINE: y = roofline_body(b, c); break;
    case RB_CHART_COMPUTE: y = compute_body(b, c); break;
    case RB_CHART_BANDWIDTH: y = side_body(b, c, RB_PANEL_BANDWIDTH); break;
    case RB_CHART_LINK: y = side_body(b, c, RB_PANEL_LINK); break;
    case RB_CHART_LATENCY: y = side_body(b, c, RB_PANEL_LATENCY); break;
    default: y = rb_plot_draw_collectives(b, c->d, 40);
    }
    rb_plot_draw_arrowheads(b, c);
    return y + 10;
}

/* The chart's first line, then its body (drawn before, into body: in memory, or into scratch). */
static void chart_out(rb_sbuf *b, rb_sbuf *body, FILE *scratch, double height)
{
    if (scratch) {
        if (rb_sbuf_flush(body) != 0 || fseek(scratch, 0, SEEK_SET) != 0) {
            b->oom = 1;
            return;
        }
        rb_svg_begin(b, RB_PLOT_CHART_W, ceil(height));
        rb_sbuf_copy(b, scratch);
    } else {
        char *inner = rb_sbuf_take(body);
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

void rb_plot_chart_svg_to(rb_sbuf *b, const rb_plot_data *d, rb_plot_chart chart, FILE *scratch)
{
    size_t n = (size_t)d->n_points + 1;
    rb_plot_canvas c = {.d = d,
                        .chart = chart,
                        .px = calloc(n, sizeof *c.px),
                        .py = calloc(n, sizeof *c.py),
                        .key_point = calloc(n, sizeof *c.key_point),
                        .key_num = calloc(n, sizeof *c.key_num)};
    rb_sbuf body = {.sink = scratch};
    int drawn = c.px && c.py && c.key_point && c.key_num;
    /* the body first, for its height, which the chart's first line gives */
    double height = drawn ? chart_body(&body, &c) : 0;
    free(c.px);
    free(c.py);
    free(c.key_point);
    free(c.key_num);
    if (!drawn) {
        rb_sbuf_free(&body);
        b->oom = 1;
        return;
    }
    chart_out(b, &body, scratch, height);
}

char *rb_plot_chart_svg(const rb_plot_data *d, rb_plot_chart chart)
{
    rb_sbuf b = {0};
    rb_plot_chart_svg_to(&b, d, chart, NULL);
    return rb_sbuf_take(&b);
}
