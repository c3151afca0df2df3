/* SPDX-License-Identifier: MIT */
/*
 * The roofline chart, the speedup chart and the HTML report of a results file (issue 11), drawn
 * with our own SVG writer (svg.h) from the results document alone, so `roofbench plot` redraws
 * any committed run, old ones included.
 *
 * Where a variant goes: its roof key (the results file's per-variant "roof") decides the panel:
 * a compute roof (*_tflops), or a memory roof with FLOPs to place, on the roofline itself
 * (arithmetic intensity x FLOP/s, log-log); a memory roof with no FLOPs (copies, transposes) on
 * the bandwidth panel (GB/s against the DRAM, L2 and shared-memory roofs); pcie_* and nvlink_*
 * on the link panel (GB/s against the link roofs); launch_us and graph_node_us on the latency
 * panel (µs per kernel against the launch roofs). Files written before variants named their
 * roof: no FLOPs -> bandwidth, the pair's link_bytes -> link, a us_per_kernel figure -> latency.
 * Roofs come from the document's top-level "roofs"; a file without it is drawn with its points
 * and the words "roofs unknown".
 */
#ifndef RB_PLOT_H
#define RB_PLOT_H

#include <stddef.h>

#include "json.h"

typedef enum rb_plot_panel {
    RB_PANEL_ROOFLINE,
    RB_PANEL_BANDWIDTH,
    RB_PANEL_LINK,
    RB_PANEL_LATENCY,
    RB_PANEL_COUNT
} rb_plot_panel;

typedef enum rb_plot_roof_kind { RB_PLOT_ROOF_BANDWIDTH, RB_PLOT_ROOF_COMPUTE, RB_PLOT_ROOF_LATENCY } rb_plot_roof_kind;

typedef struct rb_plot_roof {
    const char *key; /* "dram_gbps", "bf16_tflops", "launch_us" (points into the document) */
    rb_plot_roof_kind kind;
    double measured, peak; /* GB/s, TFLOP/s or µs; NaN when unknown */
} rb_plot_roof;

/* One variant. Strings point into the document, which must outlive the data. */
typedef struct rb_plot_point {
    const char *pair, *variant, *role, *roof, *verdict, *note; /* roof NULL: not named */
    int pair_index; /* its pair's place in rb_plot_data.pairs: its colour */
    int is_part;    /* one stage timed alone: a point, not a rung of the ladder */
    int plotted;    /* timed, valid, and its value positive and finite */
    rb_plot_panel panel;
    /* roofline: x = FLOP/byte, y = FLOP/s; bandwidth and link: y = GB/s; latency: y = µs */
    double x, y;
    double median_ms, noise, gbps, tflops, efficiency, peak_efficiency, speedup; /* NaN: none */
} rb_plot_point;

typedef struct rb_plot_data {
    const char *device, *driver, *cuda, *date, *git, *path; /* "?" when the file lacks one */
    int have_roofs;
    int n_roofs;
    rb_plot_roof *roofs;
    int n_pairs;
    const char **pairs;
    int n_points;
    rb_plot_point *points;
} rb_plot_data;

/* Reads a results document (the pairs whose name matches filter, a POSIX extended regex; NULL:
 * all). 0, or -1 with one line in err (a document that is not a results file, a bad regex). */
int rb_plot_load(const json_value *doc, const char *filter, rb_plot_data *d, char *err,
                 size_t err_size);
void rb_plot_free(rb_plot_data *d);

/* The roof named key, or NULL. */
const rb_plot_roof *rb_plot_find_roof(const rb_plot_data *d, const char *key);
/* "DRAM copy", "BF16", "PCIe H2D", "launch" for a roof key; the key itself when unknown. */
void rb_plot_roof_name(const char *key, char *out, size_t out_size);
/* "1.23 TFLOP/s", "2996 GB/s" or "2.10 µs": a point's rate in its panel's unit. */
void rb_plot_rate_text(const rb_plot_point *p, char *out, size_t out_size);
/* "84.2% of DRAM copy" / "% of roof unknown": its efficiency against its measured roof. */
void rb_plot_efficiency_text(const rb_plot_point *p, char *out, size_t out_size);
/* "hsl(...)": the colour of the i-th pair (hues a golden angle apart: distinct for any count). */
void rb_plot_colour(int i, char *out, size_t out_size);

/* A logarithmic axis over whole decades [10^lo, 10^hi], drawn from px_lo to px_hi (px_hi may be
 * smaller: a y axis grows upwards). */
typedef struct rb_plot_axis {
    int lo, hi;
    double px_lo, px_hi;
} rb_plot_axis;

/* The pixel of value v (> 0). */
double rb_plot_axis_map(const rb_plot_axis *a, double v);
/* Decades that hold [vmin, vmax] (positive; NaN or non-positive values are ignored), at least
 * min_decades wide, at most RB_PLOT_MAX_DECADES (then the top ones). Pixels are left as they
 * are. With no value at all: [10^fallback_lo, 10^(fallback_lo + min_decades)]. */
#define RB_PLOT_MAX_DECADES 14
void rb_plot_axis_fit(rb_plot_axis *a, double vmin, double vmax, int min_decades,
                      int fallback_lo);

/* The roofline panel's axes as the chart draws them (for tests: where a point must land). */
void rb_plot_roofline_axes(const rb_plot_data *d, rb_plot_axis *x, rb_plot_axis *y);

/* Greedy label placement: each label takes the first of its candidate positions (top-left
 * corners) whose box overlaps no box placed before and lies inside the bounds. */
typedef struct rb_plot_box {
    double x, y, w, h;
} rb_plot_box;
typedef struct rb_plot_labels {
    rb_plot_box *boxes;
    int n, cap;
} rb_plot_labels;

/* Adds a box that labels must avoid (a point, a placed label). -1 when out of memory. */
int rb_plot_labels_block(rb_plot_labels *l, rb_plot_box box);
/* The first free candidate (cx[i], cy[i]) for a w x h label inside bounds, taken: its index, or
 * -1 when none is free (the label is then left out; the point's tooltip still names it). */
int rb_plot_labels_place(rb_plot_labels *l, const double *cx, const double *cy, int n, double w,
                         double h, const rb_plot_box *bounds);
void rb_plot_labels_free(rb_plot_labels *l);
/* Width of text in the charts' monospace font at size px (0.6 em per character). */
double rb_plot_text_width(const char *text, double size);

/* The charts and the report: malloc'd text (caller frees), NULL when out of memory. */
char *rb_plot_roofline_svg(const rb_plot_data *d);
char *rb_plot_speedup_svg(const rb_plot_data *d);
/* The self-contained HTML report: title, both charts inline, the table (sortable by clicking a
 * header), no external resource. */
char *rb_plot_html(const rb_plot_data *d, const char *roofline_svg, const char *speedup_svg);

/* Writes the charts (and the report, html_path non-NULL) of doc: the roofline chart to svg_path,
 * the speedup chart to speedup_path, each atomically. 0, or -1 with "PATH: reason" in err. */
int rb_plot_write(const json_value *doc, const char *source_path, const char *filter,
                  const char *svg_path, const char *speedup_path, const char *html_path, char *err,
                  size_t err_size);

/* path with its ending ext (".json", ".svg") replaced by suffix (".svg", "-speedup.svg",
 * ".html"); suffix appended when path does not end with ext. 0, or -1 when it would not fit
 * in out (a truncated path names another file). */
int rb_plot_sibling(const char *path, const char *ext, const char *suffix, char *out,
                    size_t out_size);

#endif
