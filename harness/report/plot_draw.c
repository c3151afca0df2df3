/* SPDX-License-Identifier: MIT */
/* The drawing primitives the roofline chart's files share (plot_draw.h): a range widened to hold
 * a value, a point's marker and the box it covers, a line in a classed group, a haloed group,
 * a frame's axes. */
#include <math.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

void rb_plot_widen(double *lo, double *hi, double v)
{
    if (!(v > 0 && isfinite(v)))
        return;
    if (!(*lo <= v))
        *lo = v;
    if (!(*hi >= v))
        *hi = v;
}

/* A closed path through n vertices (x, y) about (cx, cy), relative moves after the first: a
 * marker's outline, starting "M<cx>,<cy>" (the tests read a point's place from it). */
static void polygon(char *d, size_t size, double cx, double cy, const double *vx, const double *vy,
                    int n)
{
    size_t len = 0;
    rb_fmt(d, size, "M%.2f,%.2fm%.2f,%.2f", cx, cy, vx[0], vy[0]);
    for (int k = 1; k < n; k++) {
        len = strlen(d);
        rb_fmt(d + len, size - len, "l%.2f,%.2f", vx[k] - vx[k - 1], vy[k] - vy[k - 1]);
    }
    len = strlen(d);
    rb_fmt(d + len, size - len, "z");
}

/* The vertices of shape (2 and up) at radius r about the origin; how many. */
static int shape_vertices(int shape, double r, double *vx, double *vy)
{
    static const double plus[12][2] = {{-0.4, -1.15}, {0.4, -1.15}, {0.4, -0.4},   {1.15, -0.4},
                                       {1.15, 0.4},   {0.4, 0.4},   {0.4, 1.15},   {-0.4, 1.15},
                                       {-0.4, 0.4},   {-1.15, 0.4}, {-1.15, -0.4}, {-0.4, -0.4}};
    const double pi = 3.14159265358979323846;
    int n = 0;
    switch (shape) {
    case 2: /* triangle up, down */
    case 4: {
        double s = shape == 2 ? 1 : -1;
        double tx[3] = {0, 1.1 * r, -1.1 * r}, ty[3] = {-1.2 * r * s, 0.75 * r * s, 0.75 * r * s};
        for (; n < 3; n++) {
            vx[n] = tx[n];
            vy[n] = ty[n];
        }
        break;
    }
    case 3: /* diamond */
        for (; n < 4; n++) {
            vx[n] = 1.2 * r * sin(n * pi / 2);
            vy[n] = -1.2 * r * cos(n * pi / 2);
        }
        break;
    case 5: /* pentagon */
        for (; n < 5; n++) {
            vx[n] = 1.1 * r * sin(n * 2 * pi / 5);
            vy[n] = -1.1 * r * cos(n * 2 * pi / 5);
        }
        break;
    case 6: /* star, five points */
        for (; n < 10; n++) {
            double rad = n % 2 ? 0.55 * r : 1.3 * r;
            vx[n] = rad * sin(n * pi / 5);
            vy[n] = -rad * cos(n * pi / 5);
        }
        break;
    default: /* plus */
        for (; n < 12; n++) {
            vx[n] = plus[n][0] * r;
            vy[n] = plus[n][1] * r;
        }
    }
    return n;
}

void rb_plot_draw_marker(rb_sbuf *b, double x, double y, double r, int shape, const char *fill,
                         int hollow, const char *cls, const char *title)
{
    char d[400];
    double vx[12], vy[12];
    shape = ((shape % RB_PLOT_SHAPES) + RB_PLOT_SHAPES) % RB_PLOT_SHAPES;
    if (shape == 0) /* circle */
        rb_fmt(d, sizeof d, "M%.2f,%.2fm%.2f,0a%.2f,%.2f 0 1,0 %.2f,0a%.2f,%.2f 0 1,0 %.2f,0z", x,
               y, -r, r, r, 2 * r, r, r, -2 * r);
    else if (shape == 1) /* square, of about the circle's area */
        rb_fmt(d, sizeof d, "M%.2f,%.2fm%.2f,%.2fh%.2fv%.2fh%.2fz", x, y, -0.9 * r, -0.9 * r,
               1.8 * r, 1.8 * r, -1.8 * r);
    else
        polygon(d, sizeof d, x, y, vx, vy, shape_vertices(shape, r, vx, vy));
    rb_svg_path(b, d, hollow ? "#ffffff" : fill, hollow ? fill : "#000000", hollow ? 1.4 : 0.6, cls,
                title);
}

void rb_plot_line(rb_sbuf *b, const char *cls, double x0, double y0, double x1, double y1,
                  const char *stroke, double width, const char *dash, const char *marker)
{
    rb_svg_group_begin(b, cls);
    rb_svg_line(b, x0, y0, x1, y1, stroke, width, dash, marker);
    rb_svg_group_end(b);
}

void rb_plot_halo_begin(rb_sbuf *b, const char *cls)
{
    rb_sbuf_add(b,
                "<g class=\"%s\" stroke=\"#ffffff\" stroke-width=\"3\" "
                "stroke-linejoin=\"round\" paint-order=\"stroke\">\n",
                cls);
}

rb_plot_quad rb_plot_marker_quad(double x, double y, double r)
{
    return rb_plot_rect(x - 1.3 * r, y - 1.3 * r, 2.6 * r, 2.6 * r);
}

/* A tick label, drawn and kept clear of the labels placed after it. */
static void tick_text(rb_sbuf *b, rb_plot_frame *f, double x, double y, const char *anchor,
                      const char *text)
{
    rb_svg_text(b, x, y, RB_PLOT_LABEL_PX, anchor, "#333333", 0, text);
    rb_plot_labels_block(&f->labels, rb_plot_text_quad(text, x, y, RB_PLOT_LABEL_PX, anchor, 0), 0);
}

void rb_plot_draw_axes(rb_sbuf *b, rb_plot_frame *f, int y_si, int x_si)
{
    double t[40];
    char s[32];
    const rb_plot_box *a = &f->area;
    int n = rb_plot_axis_ticks(&f->y, t, 40);
    for (int i = 0; i < n; i++) {
        double py = rb_plot_axis_map(&f->y, t[i]);
        rb_svg_line(b, a->x, py, a->x + a->w, py, "#e6e6e6", 1, NULL, NULL);
        rb_plot_tick_label(t[i], y_si, s, sizeof s);
        tick_text(b, f, a->x - 6, py + 3.5, "end", s);
    }
    n = f->x.hi > f->x.lo ? rb_plot_axis_ticks(&f->x, t, 40) : 0;
    for (int i = 0; i < n; i++) {
        double px = rb_plot_axis_map(&f->x, t[i]);
        rb_svg_line(b, px, a->y, px, a->y + a->h, "#e6e6e6", 1, NULL, NULL);
        rb_plot_tick_label(t[i], x_si, s, sizeof s);
        tick_text(b, f, px, a->y + a->h + 17, "middle", s);
    }
    rb_sbuf_add(b,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
                "stroke=\"#555555\" stroke-width=\"1\"/>\n",
                a->x, a->y, a->w, a->h);
}
