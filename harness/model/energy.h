/* SPDX-License-Identifier: MIT */
/*
 * Energy per operation from NVML's total-energy counter (nvmlDeviceGetTotalEnergyConsumption:
 * millijoules since the driver was loaded). The child reads it just before a row's first timed
 * sample and just after its last (harness/runner/measure.c), once per sustained window where a
 * row is timed in windows, and folds each pair of readings in here with the window's elapsed
 * time and the launches timed in it. No CUDA and no NVML here, so the arithmetic and the JSON
 * are tested on any machine.
 *
 * A row is measured when its samples add up to at least RB_ENERGY_MIN_WINDOW_S: the counter
 * counts whole millijoules and the driver updates it at a rate of its own choosing, so a reading
 * lags the energy drawn by up to that update period U. Over a window of W seconds at a mean
 * power P the two readings then miss at most 1 mJ each to rounding and shift the window by at
 * most U at each end, so the joules are off by at most 2 mJ + P x U, relatively
 * 2 mJ / (P x W) + U / W: a 100 ms window holds the error to U / 100 ms plus a few parts in 10^4
 * (docs/methodology.md, "Energy"). A counter that did not advance over a window (a driver that
 * never updates it, a window shorter than U) gives no figure: null, never 0 J.
 *
 * In the results file, per timed variant:
 *   "energy": {"joules": J, "window_s": W, "launches": n, "windows": k,
 *              "joules_per_launch": J / n, "mean_power_w": J / W,
 *              "gflop_per_j": ..., "gb_per_j": ...}      (the last two where the work is known)
 * or "energy": null with "energy_why": one of rb_energy_why's words.
 */
#ifndef RB_ENERGY_H
#define RB_ENERGY_H

#include <stddef.h>

#include "json.h"

/* The shortest timed time a row's joules are recorded for (see above). */
#define RB_ENERGY_MIN_WINDOW_S 0.1

typedef enum rb_energy_state {
    RB_ENERGY_NONE,         /* not measured (not timed): nothing in the results */
    RB_ENERGY_OK,           /* joules over window_s */
    RB_ENERGY_SHORT,        /* its samples add up to less than RB_ENERGY_MIN_WINDOW_S */
    RB_ENERGY_STALLED,      /* the counter did not advance over a window (or went back) */
    RB_ENERGY_INTERLEAVED,  /* ~1 ms samples in turn with other variants: one counter for all */
    RB_ENERGY_SEVERAL_GPUS, /* the pair spans GPUs: the counter is one GPU's */
    RB_ENERGY_COLD,         /* --cold: an L2 flush, with energy of its own, precedes each sample */
    RB_ENERGY_UNAVAILABLE,  /* no NVML, or no total-energy counter on this GPU or driver */
    RB_ENERGY_STATE_COUNT
} rb_energy_state;

typedef struct rb_energy {
    rb_energy_state state;
    double joules;   /* over the windows, from the counter's readings */
    double window_s; /* elapsed time of the windows (first sample's start to last one's end) */
    double launches; /* operations timed in them (launches x ops per launch) */
    int windows;
} rb_energy;

/* NONE, nothing summed. */
void rb_energy_init(rb_energy *e);
/* One window: have is 1 when both readings were taken (else the row is UNAVAILABLE), mj_before
 * and mj_after the counter before the first sample and after the last, window_s their elapsed
 * time and launches the operations timed between them. A counter that did not advance makes
 * the row STALLED. */
void rb_energy_add_window(rb_energy *e, int have, unsigned long long mj_before,
                          unsigned long long mj_after, double window_s, double launches);
/* After the last window: a row whose windows add up to less than RB_ENERGY_MIN_WINDOW_S is
 * SHORT. Any state but OK keeps only its reason. */
void rb_energy_finish(rb_energy *e);
/* A row that is not measured, for a reason (state), with nothing summed. */
void rb_energy_none(rb_energy *e, rb_energy_state why);

/* Joules per launch (per operation: as time_ms), the mean power in W, and work per joule in
 * units of 10^9 (GFLOP/J for flops, GB/J for bytes); NaN unless OK (and work > 0). */
double rb_energy_j_per_launch(const rb_energy *e);
double rb_energy_mean_w(const rb_energy *e);
double rb_energy_giga_per_j(const rb_energy *e, double work);

/* The word the results write as energy_why ("short", "stalled", "interleaved", "several_gpus",
 * "cold", "unavailable"; "" for NONE and OK), and back (-1 for another word). */
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
