/* SPDX-License-Identifier: MIT */
/*
 * The collectives panel: a collective over several GPUs as nccl-tests shows it, its bus
 * bandwidth (busbw, the bytes each link carries per second) against the bytes per GPU, log-log,
 * one line per collective and variant (allreduce's ring, NCCL out of place, in place), against
 * the link roofs. Collectives are told apart by colour and marker shape, variants by dash, so
 * the panel reads in grey too; the legend under it names each line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

#define AREA_X 80.0
#define AREA_W 820.0
#define AREA_H 300.0
#define MAX_SERIES 48
#define MAX_VARIANTS 8

typedef struct series {
    char collective[64]; /* the pair's name up to its size: "nccl_allreduce.allreduce" */
    const char *variant;
    int colour, variant_index, n;
    int *points; /* its points, by size */
} series;

typedef struct collectives {
    series s[MAX_SERIES];
    int n;
    const char *variants[MAX_VARIANTS];
    int n_variants;
    int collectives; /* distinct collectives seen */
} collectives;

static void collective_of(const char *pair, char *out, size_t size)
{
    rb_fmt(out, size, "%.*s", (int)strcspn(pair, "@"), pair);
}

/* The series of point p (added when new), or NULL when MAX_SERIES are taken. */
static series *series_of(collectives *c, const rb_plot_point *p)
{
    char name[64];
    collective_of(p->pair, name, sizeof name);
    int colour = c->collectives, vi = c->n_variants;
    for (int k = 0; k < c->n; k++) {
        if (!strcmp(c->s[k].collective, name)) {
            colour = c->s[k].colour;
            if (!strcmp(c->s[k].variant, p->variant))
                return &c->s[k];
        }
    }
    for (int k = 0; k < c->n_variants; k++)
        if (!strcmp(c->variants[k], p->variant))
            vi = k;
    if (c->n == MAX_SERIES || (vi == c->n_variants && vi == MAX_VARIANTS))
        return NULL;
    if (vi == c->n_variants)
        c->variants[c->n_variants++] = p->variant;
    c->collectives += colour == c->collectives;
    series *s = &c->s[c->n++];
    rb_fmt(s->collective, sizeof s->collective, "%s", name);
    s->variant = p->variant;
    s->colour = colour;
    s->variant_index = vi;
    return s;
}

/* Groups the panel's points into series, each sorted by size. -1: out of memory. */
static int gather(const rb_plot_data *d, collectives *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        series *s = p->plotted && p->panel == RB_PANEL_COLLECTIVE ? series_of(c, p) : NULL;
        if (!s)
            continue;
        int *more = realloc(s->points, (size_t)(s->n + 1) * sizeof *more);
        if (!more)
            return -1;
        s->points = more;
        int k = s->n++;
        for (; k > 0 && d->points[s->points[k - 1]].x > p->x; k--)
            s->points[k] = s->points[k - 1];
        s->points[k] = i;
    }
    return 0;
}

static const char *variant_dash(int vi)
{
    static const char *const dashes[] = {NULL, "6 3", "2 2", "8 2 2 2"};
    return dashes[vi % 4];
}

/* A series' line and markers; both kept clear of the labels placed after them (a note). */
static void draw_series(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f, const series *s,
                        double *xy)
{
    const char *colour = rb_plot_colour(s->colour);
    for (int k = 0; k < s->n; k++) {
        xy[2 * k] = rb_plot_axis_map(&f->x, d->points[s->points[k]].x);
        xy[2 * k + 1] = rb_plot_axis_map(&f->y, d->points[s->points[k]].y);
    }
    if (s->n > 1)
        rb_svg_polyline(b, xy, s->n, colour, 1.4, variant_dash(s->variant_index));
    for (int k = 0; k < s->n; k++) {
        const rb_plot_point *p = &d->points[s->points[k]];
        char title[400], size[32], bw[32];
        rb_plot_tick_label(p->x, 1, size, sizeof size);
        rb_plot_num(p->y, bw, sizeof bw);
        rb_fmt(title, sizeof title, "%s / %s (%s): busbw %s GB/s at %s bytes per GPU", p->pair,
               p->variant, p->role, bw, size);
        rb_plot_draw_marker(b, xy[2 * k], xy[2 * k + 1], RB_PLOT_POINT_R - 0.5, s->colour, colour,
                            0, "pt", title);
        rb_plot_labels_block(&f->labels,
                             rb_plot_marker_quad(xy[2 * k], xy[2 * k + 1], RB_PLOT_POINT_R), 0);
        if (k > 0)
            rb_plot_labels_block(
                &f->labels, rb_plot_segment(xy[2 * k - 2], xy[2 * k - 1], xy[2 * k], xy[2 * k + 1]),
                1);
    }
}

/* One entry a line: its marker on a stroke of its dash, then "allreduce: nccl_out_of_place", in
 * three columns; returns the y below it. */
static double draw_legend(rb_sbuf *b, const collectives *c, double y)
{
    const double col_w = (RB_PLOT_CHART_W - 40) / 3, row = 17;
    for (int k = 0; k < c->n; k++) {
        const series *s = &c->s[k];
        double x = 20 + (k % 3) * col_w, at = y + (k / 3) * row;
        const char *colour = rb_plot_colour(s->colour);
        const char *name =
            strchr(s->collective, '.') ? strchr(s->collective, '.') + 1 : s->collective;
        char text[160];
        rb_fmt(text, sizeof text, "%s: %s", name, s->variant);
        rb_svg_line(b, x, at - 4, x + 28, at - 4, colour, 1.4, variant_dash(s->variant_index),
                    NULL);
        rb_plot_draw_marker(b, x + 14, at - 4, RB_PLOT_POINT_R - 0.5, s->colour, colour, 0, NULL,
                            NULL);
        rb_svg_text(b, x + 36, at, RB_PLOT_LABEL_PX, "start", "#222222", 0, text);
    }
    return y + (c->n + 2) / 3 * row;
}

static void fit_axes(const rb_plot_data *d, rb_plot_frame *f)
{
    double xlo = NAN, xhi = NAN, ylo = NAN, yhi = NAN;
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].plotted && d->points[i].panel == RB_PANEL_COLLECTIVE) {
            rb_plot_widen(&xlo, &xhi, d->points[i].x);
            rb_plot_widen(&ylo, &yhi, d->points[i].y);
        }
    rb_plot_side_roof_range(d, RB_PANEL_COLLECTIVE, &ylo, &yhi);
    rb_plot_axis_fit(&f->x, xlo, xhi, 2, 0);
    rb_plot_axis_fit(&f->y, ylo, yhi, 2, 0);
    f->x.px_lo = f->area.x;
    f->x.px_hi = f->area.x + f->area.w;
    f->y.px_lo = f->area.y + f->area.h;
    f->y.px_hi = f->area.y;
}

double rb_plot_draw_collectives(rb_sbuf *b, const rb_plot_data *d, double y)
{
    collectives *c = malloc(sizeof *c);
    double *xy = calloc((size_t)d->n_points + 1, 2 * sizeof *xy);
    if (!c || !xy || gather(d, c) != 0) {
        b->oom = 1;
    } else {
        rb_plot_frame f;
        memset(&f, 0, sizeof f);
        f.area = (rb_plot_box){AREA_X, y + 24, AREA_W, AREA_H};
        f.margin_x = AREA_X + AREA_W + 8;
        f.margin_w = RB_PLOT_CHART_W - f.margin_x - 6;
        f.zoom = -1;
        f.panel = RB_PANEL_COLLECTIVE;
        rb_sbuf_add(b, "<g id=\"rb-collectives\">\n");
        rb_svg_text(b, 20, y + 10, 12, "start", "#000000", 0,
                    "bus bandwidth against bytes per GPU, one line per collective and variant "
                    "(log-log), against the NVLink roofs");
        fit_axes(d, &f);
        rb_plot_draw_axes(b, &f, 0, 1);
        if (d->have_roofs)
            rb_plot_draw_flat_roofs(b, d, &f);
        for (int k = 0; k < c->n; k++)
            draw_series(b, d, &f, &c->s[k], xy);
        if (!d->have_roofs)
            rb_plot_frame_note(b, &f, "roofs unknown", 12, "#b00020");
        const rb_plot_box *a = &f.area;
        rb_svg_text(b, a->x + a->w / 2, a->y + a->h + 34, 11, "middle", "#000000", 0,
                    "bytes per GPU");
        rb_svg_text(b, a->x - 50, a->y + a->h / 2, 11, "middle", "#000000", -90, "busbw (GB/s)");
        rb_plot_labels_free(&f.labels);
        y = draw_legend(b, c, a->y + a->h + 60);
        rb_sbuf_add(b, "</g>\n");
    }
    for (int k = 0; c && k < c->n; k++)
        free(c->s[k].points);
    free(c);
    free(xy);
    return y;
}
