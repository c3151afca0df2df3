/* SPDX-License-Identifier: MIT */
/*
 * roofbench history: every variant's median over the runs of one GPU, in date order, with the
 * step changes that stayed and their cause. Each judgement is compare's (runcmp.h,
 * rb_runcmp_judge): the ratio's interval against the floor, the same floors (the expectation
 * file's recorded run spreads, model/floors.h), the same blind rule and the same attribution
 * (platform, code, throttled, unexplained).
 *
 * A series is one variant of one pair record (its row name, "<pair>.<input>@<size>") at one
 * size in one regime (warm, or --cold): a run at another size or cold is another measurement,
 * not a step. Its points are the runs in which the variant was valid and timed.
 *
 * Steps, in one pass over each series (each point judged at most twice: linear in the input).
 * The reference is the first point of the current level (or, when that point has no interval of
 * its median, the first later one at the level that has); each later point is judged against it
 * as compare judges two runs. Where one of the two has no interval (fewer than 6 samples),
 * compare can only say unclear: history then judges the medians' ratio against the floor, and
 * lets the next run confirm it. A point judged slower or faster is
 *   a step     when the next point is judged the same way against the reference: it moved
 *              beyond its floor and stayed; the level starts again at it;
 *   a blip     when the next point is not: it came back, and the level stays;
 *   pending    when it is the latest run: moved, not yet confirmed by a later one.
 * A series' verdict: moved (its latest run is pending) before step (one or more steps) before
 * blind (most of its judgements had a floor above RB_RUNCMP_BLIND_FLOOR: a 10% step could hide
 * in them) before steady; single when it has one point (nothing to judge).
 */
#ifndef RB_HISTORY_H
#define RB_HISTORY_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "runcmp.h"
#include "util.h"

typedef struct rb_history_run {
    char *path;
    char date[40], git[64], hardware_key[136];
    json_value *doc;  /* until rb_history_build */
    rb_results_cmp_doc *read; /* the document read, during rb_history_build */
    uint64_t hash;    /* of the document's values: a run named twice, or copied, is one run */
    int fingerprints; /* kernels with a sass_hash (rb_runcmp_fingerprints; by the build) */
} rb_history_run;

typedef struct rb_history_point {
    /* into the run's document read; NULL after the build */
    const rb_results_cmp_pair *pair;
    const rb_results_cmp_variant *variant;
    double median_ms;
    int run;          /* index into runs */
    int has_interval; /* its run recorded an interval of the median (6 or more samples) */
} rb_history_point;

typedef struct rb_history_step {
    int from, to;      /* points: the level's reference and the run that moved */
    int confirmed;     /* 0: pending (the latest run) */
    rb_runcmp_row row; /* the judgement of to against from, and its attribution (its texts in
                          the history's pool) */
} rb_history_step;

typedef enum rb_history_verdict {
    RB_HISTORY_STEADY,
    RB_HISTORY_STEP,
    RB_HISTORY_MOVED,
    RB_HISTORY_BLIND,
    RB_HISTORY_SINGLE
} rb_history_verdict;

const char *rb_history_verdict_name(rb_history_verdict v);

/* A series' texts are in the history's pool (rb_history.strings): one for each of tens of
 * thousands of series takes little more than its text. */
typedef struct rb_history_series {
    const char *pair, *variant; /* cut to 63 bytes */
    const char *label; /* pair/variant, with size or [cold] when another series shares its pair
                          and variant (199 bytes at most) */
    double size;
    int cold;
    int first; /* order of first appearance */
    rb_history_point *points;
    int n_points, cap;
    rb_history_step *steps;
    int n_steps, steps_cap;
    int n_blips;
    int n_judged, n_blind; /* judgements, and those with a floor above 10% */
    double max_floor;      /* the largest floor it was judged with */
    const char *blind_why; /* where that floor came from ("" when it said none) */
    rb_history_verdict verdict;
} rb_history_series;

typedef struct rb_history {
    rb_history_run *runs; /* date order */
    int n_runs, runs_cap;
    rb_history_series *series; /* grouped by pair */
    int n_series;
    char **notes; /* files not read, and why */
    int n_notes;
    char **skipped; /* the files read or looked at and not taken as runs: inputs all the same,
                       which no output may replace */
    int n_skipped, skipped_cap;
    int counts[RB_HISTORY_SINGLE + 1];
    int runs_without_fingerprints;
    int floors_from_runs;    /* judgements whose floor came from the expectation file */
    const char *floors_line; /* the caller's (rb_floors_line); NULL: not printed */
    const char *filter;
    int n_filtered_out; /* series the filter left out */
    rb_strpool strings; /* the texts of the series and their steps */
} rb_history;

/* Reads the runs: a folder gives its *.json files (not its sub-folders: a note says how many
 * there were), a file is read as given. Skipped with a note (and kept in h->skipped): a file
 * that is not a regular file (a FIFO, a device: never opened), cannot be looked at (a link to
 * nothing, a loop), is not JSON, or is not one GPU's results file (a node document, a
 * comparison); a run that repeats one already taken (the same file named twice, a copy: the
 * same values), whose date is not a UTC time as run writes one (YYYY-MM-DDTHH:MM:SSZ) or is
 * after this machine's clock (a day's grace), or that names no GPU. The runs are then put in
 * date order (ties: by path). 0, or -1 with one line in err: an input that does not exist, a
 * folder that cannot be read, a results file that names a pair or variant twice (as compare
 * and plot refuse it), runs of more than one GPU (hardware key), no run at all, out of
 * memory. */
int rb_history_load(const char *const *inputs, int n_inputs, rb_history *h, char *err,
                    size_t err_size);
/* rb_history_load in pieces, for documents already parsed: rb_history_take takes doc (owned;
 * path names it) as a run or skips it with a note, as rb_history_load does each file (-1 with
 * err: refused, or out of memory); rb_history_finish then checks the runs (one GPU, at least
 * one run; what: the inputs, for the message) and sorts them. h starts zeroed; on -1 the
 * caller frees it. */
int rb_history_take(rb_history *h, const char *path, json_value *doc, char *err, size_t err_size);
int rb_history_finish(rb_history *h, const char *what, char *err, size_t err_size);
/* The series and their steps, judged with the expectation document expect (validated; NULL:
 * none), keeping only pair/variant rows that filter selects (rb_runcmp_selected; NULL: all).
 * Frees the run documents. 0, or -1 with err (nothing selected, out of memory). */
int rb_history_build(rb_history *h, const json_value *expect, const rb_filter *filter, char *err,
                     size_t err_size);
void rb_history_free(rb_history *h);

/* The text report (history_out.c): the floors line, the runs, the notes, the counts, a line per
 * series and one per step. */
void rb_history_print(FILE *f, const rb_history *h);
/* Markdown (with a sparkline per series), JSON (every point of every series) and the SVG trend
 * chart (a small line per variant, grouped by pair). Caller frees; NULL when out of memory. */
char *rb_history_markdown(const rb_history *h);
json_value *rb_history_json(const rb_history *h);
char *rb_history_svg(const rb_history *h);
/* The same texts added to b a piece at a time (a sink's: written out as they are made; the
 * JSON document's text, json_write's with indent 2, a series at a time). */
void rb_history_markdown_to(rb_sbuf *b, const rb_history *h);
void rb_history_svg_to(rb_sbuf *b, const rb_history *h);
void rb_history_json_to(rb_sbuf *b, const rb_history *h);

#endif
