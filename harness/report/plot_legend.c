/* SPDX-License-Identifier: MIT */
/* The charts' legends: the line styles, the families a panel shows (each with its marker in its
 * colour, and its pairs), and the zoom panels' captions (each pair with its marker in its
 * shade). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

#define LEGEND_X 20.0
#define LEGEND_COLUMNS 3
#define LEGEND_COLUMN_W 387.0
#define LINE_H 14.0
/* a legend or a caption lists this many entries at most (tooltips name the others) */
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

/* A zoom caption's entry: the pair's marker in its shade of its family's colour, its name. */
static void pair_entry(rb_sbuf *b, const rb_plot_data *d, int k, double x, double y)
{
    char colour[16];
    rb_plot_pair_shade(d, k, colour, sizeof colour);
    rb_plot_draw_marker(b, x + 5, y - 3.5, 4, rb_plot_pair_marker(d, k), colour, 0, NULL, NULL);
    rb_svg_text(b, x + 14, y, RB_PLOT_LABEL_PX, "start", "#111111", 0, d->pairs[k]);
}

double rb_plot_draw_styles(rb_sbuf *b, double y)
{
    double x = LEGEND_X;
    rb_svg_defs_begin(b);
    rb_svg_arrow_marker(b, "arrow-legend", "#555555");
    rb_svg_defs_end(b);
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

/* Per family, 1 when it has a point in frame f. NULL when out of memory. */
static unsigned char *families_shown(const rb_plot_data *d, const rb_plot_frame *f)
{
    unsigned char *shown = calloc((size_t)d->n_families + 1, 1);
    for (int i = 0; shown && i < d->n_points; i++)
        if (rb_plot_in_frame(d, f, &d->points[i]))
            shown[d->pair_family[d->points[i].pair_index]] = 1;
    return shown;
}

/* "rmsnorm: h4k, h16k, h64k, h256k": a family and its pairs, each without the family's name
 * and the '.' after it ("sgemm: @1M, @4M"); the name alone for a family of one pair of its
 * name. Cut to max characters, ", ..." at its end when cut. */
static void family_text(const rb_plot_data *d, int f, char *out, size_t size, int max)
{
    const char *name = d->families[f].name;
    size_t len = strlen(name), at = 0;
    rb_fmt(out, size, "%s", name);
    at = strlen(out);
    int n = 0;
    for (int k = 0; k < d->n_pairs; k++) {
        if (d->pair_family[k] != f || !strcmp(d->pairs[k], name))
            continue;
        const char *rest = d->pairs[k] + len;
        rest += *rest == '.';
        rb_fmt(out + at, size - at, "%s%s", n++ ? ", " : ": ", rest);
        at = strlen(out);
    }
    if ((int)at > max && max > 5) {
        size_t cut = (size_t)(max - 5);
        while (cut > 0 && (out[cut] & 0xc0) == 0x80) /* never inside a UTF-8 character */
            cut--;
        rb_fmt(out + cut, size - cut, ", ...");
    }
}

double rb_plot_draw_legend(rb_sbuf *b, const rb_plot_data *d, const rb_plot_frame *f, double y)
{
    unsigned char *shown = families_shown(d, f);
    int n = 0;
    for (int k = 0; shown && k < d->n_families; k++)
        n += shown[k];
    int listed = n > LEGEND_MAX ? LEGEND_MAX : n;
    int rows = (listed + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS;
    int max_chars = (int)((LEGEND_COLUMN_W - 22) / rb_plot_text_width("x", RB_PLOT_LABEL_PX));
    for (int k = 0, at = 0; shown && k < d->n_families && at < listed; k++) {
        if (!shown[k])
            continue;
        char text[512];
        double x = LEGEND_X + (at / rows) * LEGEND_COLUMN_W, ly = y + (at % rows) * LINE_H;
        family_text(d, k, text, sizeof text, max_chars);
        rb_plot_draw_marker(b, x + 5, ly - 3.5, 4, d->families[k].shape,
                            rb_plot_colour(d->families[k].colour), 0, NULL, NULL);
        rb_svg_text(b, x + 14, ly, RB_PLOT_LABEL_PX, "start", "#111111", 0, text);
        at++;
    }
    y += rows * LINE_H + 4;
    free(shown);
    char note[300];
    rb_fmt(note, sizeof note,
           "%s%sEach family (the name before '.' or '@') has a colour and a marker; its pairs "
           "are named on the chart. Hover a point for its rate and its %% of the roof that binds "
           "it.",
           n > listed ? "... and more families, not listed" : "", n > listed ? ". " : "");
    return rb_plot_wrapped(
        b, LEGEND_X, y, RB_PLOT_LABEL_PX, "#333333", note,
        (int)((RB_PLOT_CHART_W - 2 * LEGEND_X) / rb_plot_text_width("x", RB_PLOT_LABEL_PX)));
}

/* Per pair, 1 when it has a point in zoom panel zoom. NULL when out of memory. */
static unsigned char *pairs_zoomed(const rb_plot_data *d, int zoom)
{
    unsigned char *shown = calloc((size_t)d->n_pairs + 1, 1);
    for (int i = 0; shown && i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (p->zoomed && d->families[d->pair_family[p->pair_index]].zoom == zoom)
            shown[p->pair_index] = 1;
    }
    return shown;
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
    unsigned char *shown = pairs_zoomed(d, zoom);
    for (int k = 0, listed = 0; shown && k < d->n_pairs && listed < LEGEND_MAX; k++) {
        if (!shown[k])
            continue;
        listed++;
        double item = 14 + rb_plot_text_width(d->pairs[k], RB_PLOT_LABEL_PX) + 14;
        if (at > x && at + item > x + w) {
            at = x;
            y += LINE_H;
        }
        pair_entry(b, d, k, at, y);
        at += item;
    }
    free(shown);
    return y;
}
