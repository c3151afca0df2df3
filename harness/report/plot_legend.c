/* SPDX-License-Identifier: MIT */
/* The roofline chart's legend (under the main panel) and the zoom panels' captions: each pair
 * with its marker, in its family's colour. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

#define LEGEND_X 20.0
#define LEGEND_COLUMNS 4
#define LEGEND_COLUMN_W 290.0
#define LINE_H 14.0
/* a legend or a caption lists this many pairs at most (tooltips name the others) */
#define LEGEND_MAX 100

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

/* Per pair, 1 when it has a point on the main panel (zoom < 0) or in zoom panel zoom. NULL when
 * out of memory. */
static unsigned char *pairs_shown(const rb_plot_data *d, int zoom)
{
    unsigned char *shown = calloc((size_t)d->n_pairs + 1, 1);
    for (int i = 0; shown && i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (zoom < 0 ? p->plotted && p->panel == RB_PANEL_ROOFLINE
                     : p->zoomed && d->families[d->pair_family[p->pair_index]].zoom == zoom)
            shown[p->pair_index] = 1;
    }
    return shown;
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

/* The main panel's pairs, a family's together, in the order the families first appear. */
static int legend_order(const rb_plot_data *d, const unsigned char *shown, int *order)
{
    int *start = calloc((size_t)d->n_families + 1, sizeof *start), n = 0;
    if (!start)
        return 0;
    for (int k = 0; k < d->n_pairs; k++)
        start[d->pair_family[k] + 1] += shown[k];
    for (int f = 0; f < d->n_families; f++)
        start[f + 1] += start[f];
    for (int k = 0; k < d->n_pairs; k++)
        if (shown[k]) {
            order[start[d->pair_family[k]]++] = k;
            n++;
        }
    free(start);
    return n;
}

double rb_plot_draw_legend(rb_sbuf *b, const rb_plot_data *d, double y)
{
    y = draw_styles(b, y);
    unsigned char *shown = pairs_shown(d, -1);
    int *order = calloc((size_t)d->n_pairs + 1, sizeof *order);
    int n = shown && order ? legend_order(d, shown, order) : 0;
    int listed = n > LEGEND_MAX ? LEGEND_MAX : n;
    int rows = (listed + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS;
    for (int at = 0; at < listed; at++)
        pair_entry(b, d, order[at], LEGEND_X + (at / rows) * LEGEND_COLUMN_W,
                   y + (at % rows) * LINE_H, 0);
    y += rows * LINE_H + 4;
    free(shown);
    free(order);
    char note[300];
    rb_fmt(note, sizeof note,
           "%s%sEach pair has a marker; pairs of one family (the name before '.' or '@') share "
           "a colour. Hover a point for its rate and its %% of the roof that binds it.",
           n > listed ? "... and more pairs, not listed" : "", n > listed ? ". " : "");
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
    unsigned char *shown = pairs_shown(d, zoom);
    for (int k = 0, listed = 0; shown && k < d->n_pairs && listed < LEGEND_MAX; k++) {
        if (!shown[k])
            continue;
        listed++;
        double item = 14 + rb_plot_text_width(d->pairs[k], RB_PLOT_LABEL_PX) + 14;
        if (at > x && at + item > x + w) {
            at = x;
            y += LINE_H;
        }
        pair_entry(b, d, k, at, y, 1);
        at += item;
    }
    free(shown);
    return y;
}
