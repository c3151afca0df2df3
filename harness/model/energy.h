/* SPDX-License-Identifier: MIT */
/*
 * Energy per operation from NVML's total-energy counter (nvmlDeviceGetTotalEnergyConsumption:
 * millijoules since the driver was loaded), read on the counter's edges (below): the child
 * feeds its readings (harness/runner/measure.c, harness/runner/energy_read.c), one window per
 * row or per sustained window, and folds each window in here with the timed samples' elapsed
 * time and the launches timed in it. No CUDA and no NVML here, so the arithmetic and the JSON
 * are tested on any machine.
 *
 * A row is measured when its samples add up to at least RB_ENERGY_MIN_WINDOW_S. The counter
 * advances in steps, at an update period U of the driver's choosing (the edges, below), so
 * two readings at arbitrary times are each off by up to a step: a 100 ms window read that way
 * is wrong by up to 2 U / 100 ms, 200% where U is 100 ms. So the child reads the counter on its
 * edges: between the timed samples, and while untimed samples of the same variant run after
 * the last timed one (rb_energy_add_edges); the window then holds whole steps, its joules are
 * the counter's own, and its uncertainty is the dating of its two edges over its length plus
 * 1 mJ of rounding at each end. The window gives the variant's mean power as it runs timed
 * (the same samples, the same gaps between them); joules per launch are that power times the
 * timed loop's seconds per launch. A row whose uncertainty exceeds RB_ENERGY_MAX_UNCERTAINTY,
 * whose counter gave no usable edge, or whose mean power lies above the board's power limit
 * or below its idle power (rb_energy_bound: impossible, so a reading fault, not a figure) gets
 * no figure: null with the reason, never 0 J.
 *
 * In the results file, per timed variant:
 *   "energy": {"joules": J, "window_s": W, "launches": n, "windows": k,
 *              "joules_per_launch": J / n, "mean_power_w": J / W, "uncertainty": u,
 *              "gflop_per_j": ..., "gb_per_j": ...}      (the last two where the work is known)
 * or "energy": null with "energy_why": one of rb_energy_why's words (and, for a row the power
 * bound rejected, "energy_rejected_w": the mean power it would have printed).
 */
#ifndef RB_ENERGY_H
#define RB_ENERGY_H

#include <stddef.h>

#include "json.h"

/* ---- The counter's edges ----
 *
 * The counter does not advance continuously: the driver adds a step at a cadence of its own
 * (NVML's documentation names none; PETSc's notes say 20-100 ms on recent GPUs; on an H200 a
 * ~100 ms loop read at its two ends came out above the board's power limit: two steps in one
 * window).
 * Two readings taken at arbitrary times are off by up to one step each, so a window of W
 * seconds read that way is wrong by up to 2 U / W.
 *
 * The fix is the one a power meter's user makes: start and end each window on a step. The
 * caller polls the counter (between timed samples, and while untimed samples of the same
 * variant run after the last timed one) and feeds every reading here; an edge is a reading
 * whose value differs from the previous one, dated at the midpoint of the two polls, with
 * half their gap as its uncertainty. The window runs from the first usable edge to the first
 * usable edge at or after the time the caller names as its end (the last timed sample's end),
 * so it holds whole steps: the counter's own energy between two of its updates. The tests feed
 * synthetic traces.
 */

/* An edge is usable when the two polls around it are at most this far apart: its date is then
 * known to half of it, and a window of 100 ms to 5% from both ends at worst (the uncertainty
 * check decides). One NVML read takes ~3.5 ms on an H200 (the probe's poll_us), so its edges
 * are dated to 1.75 ms and a 100 ms window to 3.5%; a tighter bound would use none of them. */
#define RB_ENERGY_EDGE_MAX_GAP_S 0.005
/* The shortest window an edge-aligned reading ends (where the timed samples ended before its
 * start edge: a slow variant, whose window is all untimed samples). */
#define RB_ENERGY_EDGE_MIN_WINDOW_S 0.1
/* The fewest steps a window holds. A step is the counter's energy over one of its update
 * periods, and one step alone cannot say how much it varies (docs/methodology.md#energy has
 * the H200's case). With two or more, the spread of the
 * steps' powers (their standard error) is part of the window's uncertainty. */
#define RB_ENERGY_EDGE_MIN_STEPS 2

typedef struct rb_energy_edges {
    double end_after_s; /* the window may end at an edge dated at or after this (+inf: not yet) */
    double last_t_s;    /* the previous reading */
    unsigned long long last_mj;
    int readings, edges;
    int went_back; /* the counter decreased (a driver reload): nothing it says holds */
    int started, done;
    double start_s, start_res_s, end_s, end_res_s;
    unsigned long long start_mj, end_mj;
    /* the steps between the window's usable edges: how many, and their powers' sum and sum of
     * squares (watts) */
    int steps;
    double step_w, step_w2, prev_at_s;
    unsigned long long prev_mj;
} rb_energy_edges;

void rb_energy_edges_init(rb_energy_edges *w);
/* One reading of the counter at t_s (seconds, the caller's clock, increasing). Returns 1 once
 * the window is complete (and for every later reading, which changes nothing). */
int rb_energy_edges_feed(rb_energy_edges *w, double t_s, unsigned long long mj);
/* The window may end at an edge dated at or after t_s (the end of the last timed sample). */
void rb_energy_edges_end_after(rb_energy_edges *w, double t_s);
/* The window's joules, seconds and relative uncertainty (both edges' dating over its length,
 * plus 1 mJ of rounding at each end over its joules); 0, or -1 when it is not complete. */
int rb_energy_edges_window(const rb_energy_edges *w, double *joules, double *window_s,
                           double *uncertainty);

/* The counter's update behaviour, from readings polled back to back (t_s increasing). */
typedef struct rb_energy_counter {
    int readings, edges;
    double poll_s;       /* mean interval between readings */
    double update_s;     /* median interval between consecutive usable edges; NaN under two */
    double update_max_s; /* the longest such interval */
    double power_w;      /* joules between the first and last usable edges over their time */
} rb_energy_counter;

/* Fills c from n readings. 0, or -1 when n < 2. */
int rb_energy_counter_from(const double *t_s, const unsigned long long *mj, int n,
                           rb_energy_counter *c);

/* ---- A row's energy ---- */

/* The shortest timed time a row's joules are recorded for (see above). */
#define RB_ENERGY_MIN_WINDOW_S 0.1
/* The largest relative uncertainty of a row's joules that is still printed as a figure. */
#define RB_ENERGY_MAX_UNCERTAINTY 0.05

typedef enum rb_energy_state {
    RB_ENERGY_NONE,         /* not measured (not timed): nothing in the results */
    RB_ENERGY_OK,           /* joules over window_s */
    RB_ENERGY_SHORT,        /* its samples add up to less than RB_ENERGY_MIN_WINDOW_S */
    RB_ENERGY_STALLED,      /* the counter did not advance over a window (or went back) */
    RB_ENERGY_INTERLEAVED,  /* ~1 ms samples in turn with other variants: one counter for all */
    RB_ENERGY_SEVERAL_GPUS, /* the pair spans GPUs: the counter is one GPU's */
    RB_ENERGY_COLD,         /* --cold: an L2 flush, with energy of its own, precedes each sample */
    RB_ENERGY_UNAVAILABLE,  /* no NVML, or no total-energy counter on this GPU or driver */
    RB_ENERGY_UNCERTAIN,    /* its edges bound its joules to no better than the maximum */
    RB_ENERGY_ABOVE_LIMIT,  /* mean power above the board's power limit: a reading fault */
    RB_ENERGY_BELOW_IDLE,   /* mean power below the board's idle power: a reading fault */
    RB_ENERGY_STATE_COUNT
} rb_energy_state;

typedef struct rb_energy {
    rb_energy_state state;
    double joules;   /* over the windows, from the counter's readings */
    double window_s; /* elapsed time of the windows (edge to edge; rb_energy_add_window: first
                      * sample's start to last one's end) */
    double launches; /* operations in them (launches x ops per launch; edge-aligned: at the
                      * timed loop's rate) */
    double timed_s;  /* the timed samples' elapsed time (decides RB_ENERGY_SHORT) */
    double error_j;  /* the joules' uncertainty, summed over the windows */
    double rejected_w; /* the mean power rb_energy_bound rejected (NaN: none) */
    int windows;
} rb_energy;

/* NONE, nothing summed. */
void rb_energy_init(rb_energy *e);
/* One window between two readings (rb_energy_add_edges passes an edge-aligned one): have is 1
 * when both readings were taken (else the row is UNAVAILABLE), mj_before
 * and mj_after the counter before the first sample and after the last, window_s their elapsed
 * time and launches the operations timed between them. A counter that did not advance makes
 * the row STALLED. */
void rb_energy_add_window(rb_energy *e, int have, unsigned long long mj_before,
                          unsigned long long mj_after, double window_s, double launches);
/* One edge-aligned window (core/energy.h): have is 1 when the counter could be read, w
 * the edges fed from the readings, timed_s and launches the timed samples' elapsed time and
 * the operations timed in them. A window that did not complete (no usable edge, a counter that
 * went back) makes the row STALLED. */
void rb_energy_add_edges(rb_energy *e, int have, const rb_energy_edges *w, double timed_s,
                         double launches);
/* The joules' relative uncertainty (edges' dating and rounding); NaN unless OK. */
double rb_energy_uncertainty(const rb_energy *e);
/* After the last window: a row whose timed samples add up to less than RB_ENERGY_MIN_WINDOW_S
 * is SHORT, one whose uncertainty exceeds RB_ENERGY_MAX_UNCERTAINTY is UNCERTAIN. Any state but
 * OK keeps only its reason. */
void rb_energy_finish(rb_energy *e);
/* The sanity bound: an OK row whose mean power lies above limit_w (less its uncertainty) or
 * below idle_w (plus it) becomes ABOVE_LIMIT or BELOW_IDLE, its mean power kept in rejected_w.
 * A bound that is not a positive number is not applied. */
void rb_energy_bound(rb_energy *e, double idle_w, double limit_w);
/* A row that is not measured, for a reason (state), with nothing summed. */
void rb_energy_none(rb_energy *e, rb_energy_state why);

/* Joules per launch (per operation: as time_ms), the mean power in W, and work per joule in
 * units of 10^9 (GFLOP/J for flops, GB/J for bytes); NaN unless OK (and work > 0). */
double rb_energy_j_per_launch(const rb_energy *e);
double rb_energy_mean_w(const rb_energy *e);
double rb_energy_giga_per_j(const rb_energy *e, double work);

/* The word the results write as energy_why ("short", "stalled", "interleaved", "several_gpus",
 * "cold", "unavailable", "uncertain", "above_limit", "below_idle"; "" for NONE and OK), and back (-1 for another word). */
const char *rb_energy_why(rb_energy_state s);
int rb_energy_why_from_name(const char *s, rb_energy_state *out);
/* What the word means, for the line a run says once per reason. */
const char *rb_energy_why_text(rb_energy_state s);

/* Sets "energy" (and "energy_why") on the variant object o; nothing for NONE. 0, or -1 when out
 * of memory. */
int rb_energy_to_json(const rb_energy *e, json_value *o);
/* Adds gflop_per_j (flops > 0) and gb_per_j (bytes > 0) to o's energy object when it has one:
 * the work is the pair's, which the child's record does not carry. 0, or -1 (out of memory). */
int rb_energy_set_rates(json_value *o, const rb_energy *e, double flops, double bytes);
/* Reads "energy" of a variant object back (NONE when absent). 0, or -1 with the reason in err
 * for a malformed one. */
int rb_energy_from_json(const json_value *variant, rb_energy *e, char *err, size_t err_size);

#endif
