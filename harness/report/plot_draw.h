/* SPDX-License-Identifier: MIT */
/*
 * What the roofline chart's drawing files share (plot_svg.c draws the panels and their points,
 * plot_roofs.c the roofs and their labels, plot_legend.c the legend and the keys): one panel's
 * frame, axes and placed shapes, and the drawing primitives (plot_draw.c) that each of them
 * calls and none defines: the marker every point and legend entry is drawn with, lines, halos.
 */
#ifndef RB_PLOT_DRAW_H
#define RB_PLOT_DRAW_H

#include "plot.h"
#include "util.h"

#define RB_PLOT_CHART_W 1200.0
#define RB_PLOT_LABEL_PX 11.0 /* roof labels, ticks, legend: 11 px, readable at 100% zoom */
#define RB_PLOT_POINT_PX 11.0 /* point labels, and the numbers of points whose label did not fit   \
                               */
#define RB_PLOT_POINT_R 4.5
#define RB_PLOT_MEASURED_COLOUR "#222222"
#define RB_PLOT_PEAK_COLOUR "#777777"
#define RB_PLOT_PEAK_DASH "6 4"
/* The charts' monospace font as a browser lays it out, in em: DejaVu Sans Mono advances 0.602
 * and rises 0.928 above its baseline and 0.236 below; a little more of each, so Liberation Mono
 * or Menlo (0.6 em, a deeper descent) fit too. */
#define RB_PLOT_EM_WIDTH 0.61
#define RB_PLOT_EM_ASCENT 0.95
#define RB_PLOT_EM_DESCENT 0.30

/* One panel being drawn. */
typedef struct rb_plot_frame {
    rb_plot_box area;          /* the plotting area, inside the axes */
    rb_plot_axis x, y;         /* x.lo == x.hi: no x axis (the side panels' slots) */
    double margin_x, margin_w; /* right of the area: where its flat roofs' labels stack */
    int zoom;                  /* the zoom panel it is, -1 for the others */
    rb_plot_panel panel;
    rb_plot_labels labels; /* every shape placed so far */
} rb_plot_frame;

/* One chart being drawn: its points' pixels in the frame being drawn, the points whose label
 * found no place (numbered on the chart, listed under the panel that numbered them), and the
 * arrowheads its arrows use (each chart defines its own, named by the chart: the report holds
 * several charts in one page). */
typedef struct rb_plot_canvas {
    const rb_plot_data *d;
    rb_plot_chart chart;
    double *px, *py;
    int *key_point, *key_num; /* key entry k: its point, and the number beside that point */
    int n_keys, keys_drawn, n_numbers;
    unsigned char arrows[RB_PLOT_COLOURS * RB_PLOT_SHADES];
} rb_plot_canvas;

/* ---- points, arrows and their labels (plot_points.c) ---- */

/* 1 when point p is drawn in frame f (the roofline's main frame: zoom -1; a zoom panel: its
 * families'). */
int rb_plot_in_frame(const rb_plot_data *d, const rb_plot_frame *f, const rb_plot_point *p);
/* The points of a frame (their pixels set in c->px, c->py) as hard shapes, their arrows (soft),
 * their markers, then their labels: horizontal beside each point on a roofline frame, upright
 * on a side frame, each clear of every text, point, line and arrow placed before it; a point
 * whose label finds no such place gets a number (listed by rb_plot_draw_key), or, when even
 * that finds none, only its tooltip. */
void rb_plot_block_points(rb_plot_canvas *c, rb_plot_frame *f);
void rb_plot_draw_arrows(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f);
void rb_plot_draw_points(rb_sbuf *b, const rb_plot_canvas *c, const rb_plot_frame *f);
void rb_plot_label_points(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f);
void rb_plot_label_side_points(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f);
/* Each pair's name under its group of points on a side frame; returns the y below the lowest. */
double rb_plot_label_side_pairs(rb_sbuf *b, const rb_plot_canvas *c, rb_plot_frame *f);
/* A note ("roofs unknown") in a corner of the frame clear of what is placed. */
void rb_plot_frame_note(rb_sbuf *b, rb_plot_frame *f, const char *text, double size,
                        const char *colour);
/* The key of the points numbered since the last key, from y; returns the y below it. */
double rb_plot_draw_key(rb_sbuf *b, rb_plot_canvas *c, double y);
/* The arrowheads the chart's arrows used, in a <defs>. */
void rb_plot_draw_arrowheads(rb_sbuf *b, const rb_plot_canvas *c);

/* A point's marker: shape 0 circle, 1 square, 2 triangle, 3 diamond, 4 triangle down, 5
 * pentagon, 6 star, 7 plus; filled, or (hollow) white inside a ring of fill. cls and title as
 * rb_svg_path's. */
void rb_plot_draw_marker(rb_sbuf *b, double x, double y, double r, int shape, const char *fill,
                         int hollow, const char *cls, const char *title);
/* A line in a group of class cls ("roof", "leader", "arrow"), so that a test can tell them
 * apart; dash and marker as rb_svg_line's. */
void rb_plot_line(rb_sbuf *b, const char *cls, double x0, double y0, double x1, double y1,
                  const char *stroke, double width, const char *dash, const char *marker);
/* <g class="cls"> whose texts wear a white halo: a line that must pass behind a label (a roof
 * under a point that sits on it) stops short of its letters. Close with rb_svg_group_end. */
void rb_plot_halo_begin(rb_sbuf *b, const char *cls);
/* The box a marker of radius r covers (a little more than its shape). */
rb_plot_quad rb_plot_marker_quad(double x, double y, double r);

/* The roofs of a roofline frame (main panel: zoom -1; a zoom panel: its points' roofs): memory
 * roofs slanted, compute roofs flat and labelled in the right margin. Lines are soft shapes,
 * labels hard ones. The memory roofs' labels, along their bundles, come after the points'
 * labels: rb_plot_label_memory_roofs. */
void rb_plot_draw_roofline_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f);
void rb_plot_label_memory_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f);
/* The flat roofs of a side panel (bandwidth, link, latency), labelled in the right margin. */
void rb_plot_draw_flat_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f);
/* The y range of a side panel's roofs (widens lo, hi). */
void rb_plot_side_roof_range(const rb_plot_data *d, rb_plot_panel panel, double *lo, double *hi);
/* The largest known value of the roofs of one kind on the main panel (NaN: none). */
double rb_plot_top_roof(const rb_plot_data *d, rb_plot_roof_kind kind, int peak);
/* 1 when the roof is drawn on the main roofline panel (compute, or memory but not a link). */
int rb_plot_roof_on_main(const rb_plot_roof *r);

/* A frame's grid, tick labels (SI prefixes on the y axis when y_si, on the x axis when x_si) and
 * border; the tick labels become hard shapes. */
void rb_plot_draw_axes(rb_sbuf *b, rb_plot_frame *f, int y_si, int x_si);
/* The collectives panel (plot_collectives.c) from y: bus bandwidth against size per GPU, one
 * line per collective and variant, its legend under it; returns the y below it. */
double rb_plot_draw_collectives(rb_sbuf *b, const rb_plot_data *d, double y);

/* The styles (measured roof, datasheet peak, ladder, part) from y; returns the y below them. */
double rb_plot_draw_styles(rb_sbuf *b, double y);
/* The legend of the families with a point in frame f, from y: each family's marker in its
 * colour, its name and its pairs; returns the y below it. */
double rb_plot_draw_legend(rb_sbuf *b, const rb_plot_data *d, const rb_plot_frame *f, double y);
/* A zoom panel's caption (its pairs, each with its marker in its shade) from y in [x, x + w];
 * returns the baseline of its last line. */
double rb_plot_draw_zoom_caption(rb_sbuf *b, const rb_plot_data *d, int zoom, double x, double y,
                                 double w);
/* Text in lines of at most width characters, broken at spaces; returns the y below it. */
double rb_plot_wrapped(rb_sbuf *b, double x, double y, double size, const char *fill,
                       const char *text, int width);

/* Widens [lo, hi] to hold v (positive and finite). */
void rb_plot_widen(double *lo, double *hi, double v);

#endif
