/* SPDX-License-Identifier: MIT */
/* The drawing primitives the roofline chart's files share (plot_draw.h): a range widened to hold
 * a value, a point's marker and the box it covers, a line in a classed group, a haloed group,
 * a frame's axes. */
#include <math.h>

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

void rb_plot_draw_marker(rb_sbuf *b, double x, double y, double r, int shape, const char *fill,
                         int hollow, const char *cls, const char *title)
{
    char d[200];
    switch (shape % RB_PLOT_SHAPES) {
    case 1: /* square, of about the circle's area */
        r *= 0.9;
        rb_fmt(d, sizeof d, "M%.2f,%.2fm%.2f,%.2fh%.2fv%.2fh%.2fz", x, y, -r, -r, 2 * r, 2 * r,
               -2 * r);
        break;
    case 2:
    case 4: { /* triangle, up or down */
        double s = shape == 2 ? 1 : -1;
        rb_fmt(d, sizeof d, "M%.2f,%.2fm0,%.2fl%.2f,%.2fh%.2fz", x, y, -1.2 * r * s, 1.1 * r,
               1.95 * r * s, -2.2 * r);
        break;
    }
    case 3: /* diamond */
        r *= 1.2;
        rb_fmt(d, sizeof d, "M%.2f,%.2fm0,%.2fl%.2f,%.2fl%.2f,%.2fl%.2f,%.2fz", x, y, -r, r, r, -r,
               r, -r, -r);
        break;
    default: /* circle */
        rb_fmt(d, sizeof d, "M%.2f,%.2fm%.2f,0a%.2f,%.2f 0 1,0 %.2f,0a%.2f,%.2f 0 1,0 %.2f,0z", x,
               y, -r, r, r, 2 * r, r, r, -2 * r);
    }
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
