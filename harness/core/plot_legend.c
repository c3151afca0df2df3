/* SPDX-License-Identifier: MIT */
/* The roofline chart's legend (under the main panel) and the zoom panels' captions: each pair
 * with its marker, in its family's colour. */
#include <math.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

#define LEGEND_X 20.0
#define LEGEND_COLUMNS 4
#define LEGEND_COLUMN_W 290.0
#define LINE_H 14.0

double rb_plot_wrapped(rb_sbuf *b, double x, double y, double size, const char *fill,
                       const char *text, int width)
{
    char line[512];
    width = width > 500 ? 500 : width < 1 ? 1 : width;
    const char *p = text;
    while (*p) {
        /* width characters of UTF-8, broken at the last space within them */
        int n = 0, chars = 0, space = 0;
        while (p[n] && chars < width) {
            n++;
            while ((p[n] & 0xc0) == 0x80)
                n++;
            chars++;
        }
        if (p[n]) {
            for (int k = n; k > 0; k--)
                if (p[k] == ' ') {
                    space = k;
                    break;
                }
            if (space)
                n = space;
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

/* A legend entry: the pair's marker (in its family's colour, or shaded) and its name. */
static void pair_entry(rb_sbuf *b, const rb_plot_data *d, int k, double x, double y, int shaded)
{
    char colour[16];
    if (shaded)
        rb_plot_pair_shade(d, k, colour, sizeof colour);
    else
        rb_fmt(colour, sizeof colour, "%s", rb_plot_pair_colour(d, k));
    rb_plot_draw_marker(b, x + 5, y - 3.5, 4, d->pair_shape[k], colour, 0, NULL, NULL);
    rb_svg_text(b, x + 14, y, RB_PLOT_LABEL_PX, "start", "#111111", 0, d->pairs[k]);
}

static int on_main(const rb_plot_data *d, int pair)
{
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].pair_index == pair && d->points[i].plotted &&
            d->points[i].panel == RB_PANEL_ROOFLINE)
            return 1;
    return 0;
}

/* The line styles: measured roof, datasheet peak, ladder arrow, part. */
static double draw_styles(rb_sbuf *b, double y)
{
    double x = LEGEND_X;
    rb_svg_line(b, x, y - 4, x + 24, y - 4, RB_PLOT_MEASURED_COLOUR, 1.8, NULL, NULL);
    rb_svg_text(b, x + 30, y, RB_PLOT_LABEL_PX, "start", "#111111", 0,
                "measured roof (roofbench ceilings)");
    x += 30 + rb_plot_text_width("measured roof (roofbench ceilings)", RB_PLOT_LABEL_PX) + 24;
    rb_svg_line(b, x, y - 4, x + 24, y - 4, RB_PLOT_PEAK_COLOUR, 1.2, RB_PLOT_PEAK_DASH, NULL);
    rb_svg_text(b, x + 30, y, RB_PLOT_LABEL_PX, "start", "#111111", 0, "datasheet peak");
    x += 30 + rb_plot_text_width("datasheet peak", RB_PLOT_LABEL_PX) + 24;
    rb_svg_line(b, x, y - 4, x + 22, y - 4, "#555555", 1.3, NULL, "arrow-legend");
    const char *ladder = "ladder: baseline -> steps -> optimized -> library";
    rb_svg_text(b, x + 30, y, RB_PLOT_LABEL_PX, "start", "#111111", 0, ladder);
    x += 30 + rb_plot_text_width(ladder, RB_PLOT_LABEL_PX) + 24;
    rb_plot_draw_marker(b, x + 5, y - 3.5, 3.5, 0, "#555555", 1, NULL, NULL);
    rb_svg_text(b, x + 14, y, RB_PLOT_LABEL_PX, "start", "#111111", 0,
                "part: one stage timed alone");
    return y + LINE_H + 4;
}

double rb_plot_draw_legend(rb_sbuf *b, const rb_plot_data *d, double y)
{
    y = draw_styles(b, y);
    int n = 0;
    for (int k = 0; k < d->n_pairs; k++)
        n += on_main(d, k);
    int rows = (n + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS, at = 0;
    /* families together, in the order they first appear */
    for (int f = 0; f < d->n_families; f++)
        for (int k = 0; k < d->n_pairs; k++)
            if (d->pair_family[k] == f && on_main(d, k)) {
                pair_entry(b, d, k, LEGEND_X + (at / rows) * LEGEND_COLUMN_W,
                           y + (at % rows) * LINE_H, 0);
                at++;
            }
    y += rows * LINE_H + 4;
    const char *note =
        "Each pair has a marker; pairs of one family (the name before '.' or '@') share a colour. "
        "Hover a point for its rate and its % of the roof that binds it.";
    return rb_plot_wrapped(
        b, LEGEND_X, y, RB_PLOT_LABEL_PX, "#333333", note,
        (int)((RB_PLOT_CHART_W - 2 * LEGEND_X) / rb_plot_text_width("x", RB_PLOT_LABEL_PX)));
}

double rb_plot_draw_zoom_caption(rb_sbuf *b, const rb_plot_data *d, int zoom, double x, double y,
                                 double w)
{
    char title[300] = "";
    size_t len = 0;
    for (int f = 0; f < d->n_families; f++)
        if (d->families[f].zoom == zoom) {
            rb_fmt(title + len, sizeof title - len, "%s%s", len ? ", " : "", d->families[f].name);
            len = strlen(title);
        }
    y += 12;
    rb_svg_text(b, x, y, 12, "start", "#000000", 0, title);
    double at = x;
    y += LINE_H + 2;
    for (int k = 0; k < d->n_pairs; k++) {
        if (!rb_plot_zoom_has_pair(d, zoom, k))
            continue;
        double item = 14 + rb_plot_text_width(d->pairs[k], RB_PLOT_LABEL_PX) + 14;
        if (at > x && at + item > x + w) {
            at = x;
            y += LINE_H;
        }
        pair_entry(b, d, k, at, y, 1);
        at += item;
    }
    return y;
}
