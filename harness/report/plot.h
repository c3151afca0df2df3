/* SPDX-License-Identifier: MIT */
/*
 * The roofline chart, the speedup chart and the HTML report of a results file, drawn with our
 * own SVG writer (svg.h) from the results document alone, so `roofbench plot` redraws any
 * committed run, old ones included.
 *
 * Where a variant goes: its roof key (the results file's per-variant "roof": the roof that binds
 * it at its arithmetic intensity) decides the panel: a compute roof, or a memory roof with FLOPs
 * to place, on the roofline itself (arithmetic intensity x FLOP/s, log-log); a memory roof with
 * no FLOPs (copies, transposes) on the bandwidth panel (GB/s against the DRAM, L2 and
 * shared-memory roofs); pcie_* and nvlink_* on the link panel; launch_us and graph_node_us on
 * the latency panel (µs per kernel). Files whose "roof" named the declared compute roof of a
 * memory-bound variant (no "declared_roof" beside it) get their binding roof back from
 * vs_ceiling (bound, rate and efficiency). Files written before variants named a roof: no FLOPs
 * -> bandwidth, the pair's link_bytes -> link, a us_per_kernel figure -> latency. A collective
 * run on one GPU (extras gpus 1 beside a busbw_gbps) moves nothing over a link: its algbw is a
 * local copy's and its busbw 0, so it is on no chart (the report's "Not plotted" says why).
 * Roofs come from the document's top-level "roofs"; a file without it is drawn with its points
 * and the words "roofs unknown". A collective over several GPUs (extras busbw_gbps and gpus > 1)
 * goes on the collectives panel: bus bandwidth against its size (extras size_bytes, or in a file
 * from before them the pair's work-model bytes), one line per collective and variant, as
 * nccl-tests shows them (plot_collectives.c).
 *
 * Colours and markers: pairs of one family (the name up to its first '.' or '@': sgemm@1M and
 * sgemm@4M, hgemm.square@64M and hgemm.awkward@16M) share a colour and a marker shape; families
 * that meet on a panel get different colours from a palette of RB_PLOT_COLOURS and, as far as
 * RB_PLOT_SHAPES go, different shapes, so that no two of them look alike in grey either. Where a
 * few families meet (the zoom panels) the pairs of one family are told apart by shade.
 *
 * Zoom: when the compute-bound region (arithmetic intensity >= RB_PLOT_ZOOM_AI) holds more than
 * RB_PLOT_ZOOM_MIN_POINTS points, its points get zoomed panels on a chart of their own (the
 * compute-bound chart): a family with many of them its own, the rest pooled; the roofline shows
 * them unlabelled inside a frame.
 *
 * Charts: one a regime that has points (rb_plot_chart), each its own SVG file beside the results
 * file and its own figure in the report; a regime with no point has no chart.
 */
#ifndef RB_PLOT_H
#define RB_PLOT_H

#include <stddef.h>

#include "cli.h"
#include "json.h"
#include "outputs.h"
#include "arena.h"
#include "util.h"

typedef enum rb_plot_panel {
    RB_PANEL_ROOFLINE,
    RB_PANEL_BANDWIDTH,
    RB_PANEL_LINK,
    RB_PANEL_LATENCY,
    RB_PANEL_COLLECTIVE, /* collectives over several GPUs: bus bandwidth against size */
    RB_PANEL_COUNT
} rb_plot_panel;

typedef enum rb_plot_roof_kind {
    RB_PLOT_ROOF_BANDWIDTH,
    RB_PLOT_ROOF_COMPUTE,
    RB_PLOT_ROOF_LATENCY
} rb_plot_roof_kind;

typedef struct rb_plot_roof {
    const char *key; /* "dram_gbps", "bf16_tflops", "launch_us" */
    rb_plot_roof_kind kind;
    double measured, peak; /* GB/s, TFLOP/s or µs; NaN when unknown */
} rb_plot_roof;

/* One variant. Its texts are the data's own (rb_plot_data.strings), not the document's: the
 * document may go once read. (Its flags are bytes: a file of 50,000 pairs holds as many
 * points.) */
typedef struct rb_plot_point {
    const char *pair, *variant, *role, *verdict, *note;
    const char *roof;          /* the roof that binds it (NULL: not named) */
    const char *declared_roof; /* the compute roof its unit declares (NULL: none named) */
    const char *why;           /* informational: why the host sets its time ("" when not said) */
    const char *roof_note;     /* how its roof was set, when the results say ("" when not) */
    const char *rate_unit;     /* the unit of rate, as the results give it (NULL: derived) */
    double rate;               /* the rate the results show beside it (NaN: derived here) */
    /* roofline: x = FLOP/byte, y = FLOP/s; bandwidth and link: y = GB/s; latency: y = µs;
     * collective: x = bytes per GPU, y = bus bandwidth GB/s */
    double x, y;
    double median_ms, noise, gbps, tflops, efficiency, peak_efficiency, speedup; /* NaN: none */
    double gflop_per_j, gb_per_j; /* its energy's rates (model/energy.h); NaN: none */
    int pair_index;        /* its pair's place in rb_plot_data.pairs */
    unsigned char panel;   /* an rb_plot_panel */
    unsigned char is_part; /* one stage timed alone: a point, not a rung of the ladder */
    unsigned char plotted; /* timed, valid, and its value positive and finite */
    unsigned char timed, valid;
    unsigned char informational; /* measured and compared, but not gating the exit code */
    unsigned char inconsistent;  /* above its roof by more than its noise: an inconsistency */
    unsigned char zoomed;        /* drawn (and labelled) in its family's zoom panel */
    unsigned char one_gpu; /* a collective run on one GPU: no byte crosses a link, not plotted */
} rb_plot_point;

#define RB_PLOT_COLOURS 12
#define RB_PLOT_SHAPES 8
#define RB_PLOT_MAX_ZOOMS 6
#define RB_PLOT_ZOOM_AI 100.0
#define RB_PLOT_ZOOM_MIN_POINTS 12
/* a family with at least this many zoomed points gets a panel of its own */
#define RB_PLOT_ZOOM_OWN 10
/* pooled families fill a shared panel up to this many points */
#define RB_PLOT_ZOOM_POOL 24
/* a panel with more points than this labels none (their tooltips name them): a placement that
 * grows with the square of the points would not finish */
#define RB_PLOT_MAX_LABELS 250

typedef struct rb_plot_family {
    const char *name; /* cut to 63 bytes, in rb_plot_data.strings */
    int colour;       /* index into the palette (rb_plot_colour) */
    int shape;        /* its marker, 0 .. RB_PLOT_SHAPES - 1 (rb_plot_draw_marker) */
    int zoom;         /* its zoom panel, -1 for none */
    int n_pairs;
} rb_plot_family;

typedef struct rb_plot_data {
    const char *device, *driver, *cuda, *date, *git, *path; /* "?" when the file lacks one */
    int have_roofs;
    int n_roofs;
    rb_plot_roof *roofs;
    int n_pairs;
    const char **pairs;
    int *pair_family; /* per pair: its family */
    int *pair_rank;   /* per pair: its place in its family, from 0 (its shade: rb_plot_pair_shade) */
    int n_families;
    rb_plot_family *families;
    int n_zooms;
    int n_points;
    rb_plot_point *points;
    rb_strpool strings; /* every text of the data: names, roofs, notes, the run's facts */
    json_value *p2p_matrix; /* the document's P2P matrix (report/p2p_table.h), NULL: none */
} rb_plot_data;

/* Reads a results document (the pairs whose name matches filter, compiled by model/cli.h; NULL:
 * all). 0, or -1 with one line in err (a document that is not a results file). */
int rb_plot_load(const json_value *doc, const rb_filter *filter, rb_plot_data *d, char *err,
                 size_t err_size);
void rb_plot_free(rb_plot_data *d);

/* The point of a pair's variant, or NULL. */
rb_plot_point *rb_plot_find_point(const rb_plot_data *d, const char *pair, const char *variant);
/* The roof named key, or NULL. */
const rb_plot_roof *rb_plot_find_roof(const rb_plot_data *d, const char *key);
/* "DRAM copy", "BF16", "PCIe H2D", "launch" for a roof key; the key itself when unknown. */
void rb_plot_roof_name(const char *key, char *out, size_t out_size);
/* Three significant digits without an exponent ("0.104", "1.30", "13.3", "416", "3021"): every
 * number the charts and the report print goes through it. */
void rb_plot_num(double x, char *out, size_t out_size);
/* A point's rate in the unit of the roof that binds it (TFLOP/s, GB/s or µs per kernel); NaN
 * when it was not timed validly. */
double rb_plot_rate(const rb_plot_point *p);
/* "1.23 TFLOP/s", "2996 GB/s" or "2.10 µs per kernel": a point's rate in the unit of the roof
 * that binds it. */
void rb_plot_rate_text(const rb_plot_point *p, char *out, size_t out_size);
/* "84.2% of DRAM copy" / "no measured NVLink roof": its efficiency against its measured roof;
 * "inconsistent: 108.5% of BF16" when it sits above its roof by more than its noise. */
void rb_plot_efficiency_text(const rb_plot_point *p, char *out, size_t out_size);
/* The palette's colour i ("#1f77b4"), i taken modulo RB_PLOT_COLOURS. */
const char *rb_plot_colour(int i);
/* The colour of a pair: its family's. */
const char *rb_plot_pair_colour(const rb_plot_data *d, int pair_index);
/* The marker shape of a pair: its family's. */
int rb_plot_pair_marker(const rb_plot_data *d, int pair_index);
/* The pair's shade of its family's colour ("#rrggbb" in out): the family's colour for its first
 * pair, darker for the second, lighter for the third, darker still for the fourth, and so on;
 * for panels that show a few families, where pairs of one family must be told apart. */
#define RB_PLOT_SHADES 4
void rb_plot_pair_shade(const rb_plot_data *d, int pair_index, char *out, size_t out_size);
/* The colour hex (#rrggbb) mixed towards black (shades 1 and 3) or white (shade 2). */
void rb_plot_shade(const char *hex, int shade, char *out, size_t out_size);

/* A logarithmic axis over [10^lo, 10^hi], drawn from px_lo to px_hi (px_hi may be smaller: a y
 * axis grows upwards). */
typedef struct rb_plot_axis {
    double lo, hi;
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
/* A zoomed axis: [vmin, vmax] with margin_decades of room each side, at least min_decades wide
 * (grown about its middle); bounds need not be whole decades. */
void rb_plot_axis_fit_tight(rb_plot_axis *a, double vmin, double vmax, double margin_decades,
                            double min_decades);
/* The tick values of an axis, ascending, at most max: whole decades on a wide axis, else 1-2-5
 * steps (1-2-3-5 on a narrow one). Returns how many. */
int rb_plot_axis_ticks(const rb_plot_axis *a, double *ticks, int max);
/* A tick's label: SI prefixes for FLOP/s ("500T", "1P"), plain numbers otherwise ("0.01",
 * "2000"), and 1e<k> beyond. */
void rb_plot_tick_label(double v, int si, char *out, size_t out_size);

/* The roofline panel's axes as the chart draws them (for tests: where a point must land). */
void rb_plot_roofline_axes(const rb_plot_data *d, rb_plot_axis *x, rb_plot_axis *y);

/* ---- label placement (plot_labels.c) ----
 * Every text, point, leader and roof line of a panel is a convex shape: a rectangle (rotated or
 * not) or a segment. A label takes the first of its candidate places whose text box overlaps
 * no hard shape (texts, points, leaders) and, in a strict pass, no soft one either (roof lines,
 * arrows, frames), and lies inside the bounds; its leader crosses no hard shape (it may cross
 * a line or another leader). A label with no free place is left out. The charts use the strict
 * pass alone: no label crosses a line. */
typedef struct rb_plot_box {
    double x, y, w, h;
} rb_plot_box;
typedef struct rb_plot_quad {
    double x[4], y[4];
    int n; /* 4: a rectangle, 2: a segment */
} rb_plot_quad;
typedef struct rb_plot_labels {
    rb_plot_quad *shapes;
    rb_plot_box *bounds; /* each shape's bounding box: most shapes are rejected on it */
    unsigned char *soft; /* each shape's kind: 0 hard, 1 soft, RB_PLOT_LEADER */
    int n, cap;
} rb_plot_labels;

rb_plot_quad rb_plot_rect(double x, double y, double w, double h);
rb_plot_quad rb_plot_segment(double x0, double y0, double x1, double y1);
/* The box a browser gives an SVG <text> at (x, y) (its baseline) with this font size, anchor
 * ("start", "middle", "end") and rotation about (x, y), in the charts' monospace font, a little
 * generous so a slightly wider font still fits. */
rb_plot_quad rb_plot_text_quad(const char *text, double x, double y, double size,
                               const char *anchor, double rotate_deg);
/* Width of text in the charts' monospace font at size px (0.61 em per character: DejaVu Sans
 * Mono is 0.602). */
double rb_plot_text_width(const char *text, double size);
/* 1 when the two shapes share more than a hair (0.25 px) of area or length. */
int rb_plot_quads_overlap(const rb_plot_quad *a, const rb_plot_quad *b);

/* Adds a shape that labels must avoid; soft ones only in the strict pass; a leader
 * (RB_PLOT_LEADER) in both, though another leader may cross it. -1: out of memory. */
#define RB_PLOT_LEADER 2
int rb_plot_labels_block(rb_plot_labels *l, rb_plot_quad q, int soft);
/* 1 when q lies inside bounds (NULL: anywhere) and overlaps no hard shape or leader (strict:
 * and no soft one). */
int rb_plot_labels_free_at(const rb_plot_labels *l, const rb_plot_quad *q, int strict,
                           const rb_plot_box *bounds);

/* How many hard shapes come within pad px of q (q grown by pad on every side meets them), up to
 * RB_PLOT_CROWD: how crowded a place is. */
#define RB_PLOT_CROWD 64
int rb_plot_labels_crowding(const rb_plot_labels *l, const rb_plot_quad *q, double pad);

/* One place a label may take: its text's anchor point and rotation, and a leader line from
 * (lx0, ly0) (by its point) to (lx1, ly1) (by the text) when leader is set. */
typedef struct rb_plot_place {
    double x, y;
    const char *anchor;
    double rotate_deg;
    int leader;
    double lx0, ly0, lx1, ly1;
} rb_plot_place;
/* The first of the n places free for text (its leader too, when it has one) in the strict
 * pass, else (strict_only 0) in the loose pass; takes it (its text box and leader become hard
 * shapes) and returns its index, or -1 when none is free. */
int rb_plot_labels_place(rb_plot_labels *l, const char *text, double size,
                         const rb_plot_place *places, int n, const rb_plot_box *bounds,
                         int strict_only);
void rb_plot_labels_free(rb_plot_labels *l);

/* Labels stacked in a margin: label i, height[i] tall, would like its middle at wanted[i]; each
 * gets a middle got[i] so that no two overlap, in the same order as wanted, inside [lo, hi]
 * where they fit, as close to their wishes as that allows. */
void rb_plot_stack(const double *wanted, const double *height, double *got, int n, double lo,
                   double hi);

/* ---- the charts and the report: malloc'd text (caller frees), NULL when out of memory ---- */

/* The charts of a run, one a regime (the panels of plot.h's first lines), each its own SVG file
 * BASE<suffix> and its own figure in the report. */
typedef enum rb_plot_chart {
    RB_CHART_ROOFLINE,   /* BASE.svg: FLOP/s against arithmetic intensity, the rows with FLOPs */
    RB_CHART_COMPUTE,    /* BASE-compute.svg: the compute-bound region zoomed, per family */
    RB_CHART_BANDWIDTH,  /* BASE-bandwidth.svg: GB/s of the rows with no FLOPs */
    RB_CHART_LINK,       /* BASE-links.svg: bytes over PCIe or NVLink */
    RB_CHART_LATENCY,    /* BASE-latency.svg: microseconds per kernel */
    RB_CHART_COLLECTIVE, /* BASE-collectives.svg: bus bandwidth against bytes per GPU */
    RB_CHART_COUNT
} rb_plot_chart;
/* The files plot writes beside a results file: the charts (rb_plot_chart), then the speedup
 * chart (RB_PLOT_SPEEDUP: BASE-speedup.svg, always written). */
#define RB_PLOT_SPEEDUP RB_CHART_COUNT
#define RB_PLOT_FILES (RB_CHART_COUNT + 1)
/* ".svg", "-compute.svg", ..., "-speedup.svg" for file k < RB_PLOT_FILES. */
const char *rb_plot_file_suffix(int k);
/* "the roofline chart", "the compute-bound chart", ... (for messages). */
const char *rb_plot_file_what(int k);
/* The chart's heading in the report and its Markdown link: "Roofline", "Compute-bound region". */
const char *rb_plot_chart_heading(rb_plot_chart c);
/* 1 when the chart has points: the roofline when any row has FLOPs (or when no chart has a
 * point, for its roofs), the compute-bound chart when its region is zoomed, the others when
 * their panel has a point. */
int rb_plot_chart_used(const rb_plot_data *d, rb_plot_chart c);
/* The charts a results document has (bit c: chart c), as rb_plot_chart_used; 0 when it is not
 * a results document. */
unsigned rb_plot_charts_of(const json_value *doc);
/* The "## Charts" block of a run's Markdown twin: each chart of mask (bit c: chart c) and the
 * speedup chart linked as stem<suffix>, then the report, stem.html. */
void rb_plot_charts_markdown(rb_sbuf *b, unsigned mask, const char *stem);

/* A chart, drawn whether or not it has points (rb_plot_chart_used says whether to write it).
 * The body is drawn before the first line (which gives its height): into scratch, a file open
 * for reading and writing, when given (NULL: in memory). */
char *rb_plot_chart_svg(const rb_plot_data *d, rb_plot_chart c);
void rb_plot_chart_svg_to(rb_sbuf *b, const rb_plot_data *d, rb_plot_chart c, FILE *scratch);
char *rb_plot_speedup_svg(const rb_plot_data *d);
void rb_plot_speedup_svg_to(rb_sbuf *b, const rb_plot_data *d);
/* The energy roofline (plot_energy.c): the rows with FLOPs at their arithmetic intensity
 * against GFLOP/J, with the bound this run's best rows set, and the memory rows' GB/J as bars.
 * The report draws it when a row measured its energy (rb_plot_has_energy). */
int rb_plot_has_energy(const rb_plot_data *d);
char *rb_plot_energy_svg(const rb_plot_data *d);
void rb_plot_energy_svg_to(rb_sbuf *b, const rb_plot_data *d);
/* The self-contained HTML report: title, verdict counts, each chart that has points as a
 * figure of its own (and the energy roofline, when the run measured energy), the variants not
 * plotted, the table (sortable by clicking a header, rows coloured by verdict), no external
 * resource. rb_plot_html draws the charts itself; rb_plot_html_to reads them from the files
 * given (files[k]: file k of RB_PLOT_FILES, NULL: a chart not written), from where they stand. */
char *rb_plot_html(const rb_plot_data *d);
void rb_plot_html_to(rb_sbuf *b, const rb_plot_data *d, FILE *const files[RB_PLOT_FILES]);

/* Where plot's files go in an output set (model/outputs.h): file[k] the index of file k, html
 * the report's (-1: none); written: the charts staged (bit c: chart c), set by rb_plot_stage. */
typedef struct rb_plot_outs {
    int file[RB_PLOT_FILES];
    int html;
    unsigned written;
} rb_plot_outs;
/* Registers BASE + each file's suffix in outs, the charts RB_OUT_OPTIONAL (a regime with no
 * point has no file), with flags; at->html is left as it is. 0, or -1 when the set is full or a
 * name is too long. */
int rb_plot_add_outputs(rb_outputs *outs, const char *base, unsigned flags, rb_plot_outs *at);

/* Stages the charts of doc that have points, the speedup chart (and the report) into the output
 * set outs at the indices at gives; they are written when the set is committed. A filter that
 * matches no pair is refused. 0, or -1 with "PATH: reason" in err. */
int rb_plot_stage(const json_value *doc, const char *source_path, const rb_filter *filter,
                  rb_outputs *outs, rb_plot_outs *at, char *err, size_t err_size);
/* The same, taking doc: freed once read, before anything is drawn (the charts need the data
 * alone), so that a large file's tree and its charts are never in memory together. */
int rb_plot_stage_taking(json_value *doc, const char *source_path, const rb_filter *filter,
                         rb_outputs *outs, rb_plot_outs *at, char *err, size_t err_size);

/* path with its ending ext (".json", ".svg") replaced by suffix (".svg", "-speedup.svg",
 * ".html"); suffix appended when path does not end with ext. 0, or -1 when it would not fit
 * in out (a truncated path names another file). */
int rb_plot_sibling(const char *path, const char *ext, const char *suffix, char *out,
                    size_t out_size);

#endif
