/* SPDX-License-Identifier: MIT */
/*
 * Expectation files: expectations/<hardware-key>.json holds, for one GPU, its datasheet peaks,
 * its measured ceilings and the expected median time of every variant of every pair.
 *
 * {
 *   "schema": 1,
 *   "hardware":   {"name": "NVIDIA H100 80GB HBM3", "sm": "9.0", "sms": 132},
 *   "peaks":      {"dram_gbps": 3352, "fp32_tflops": 66.9, ..., "source": "..."},
 *   "ceilings":   {"dram_gbps": 2996, "fp32_tflops": 60.6, "source": "...",
 *                  "methods": {"dram_gbps": {"method": "...", "size": "...", "samples": 20,
 *                                            "noise": 0.004, "sm_clock_mhz": 1980,
 *                                            "power_w": 690}}},
 *   "provenance": {"git": "...", "driver": "...", "cuda": "...", "date": "...", "size": "full"},
 *   "pairs": {"copy_vectorized": {"size": 268435456,        (+ "shape": "RxC" for 2D pairs)
 *                                 "recorded": {the provenance of the run that recorded it},
 *                                 "wall_s": 0.6,  (its child's time, for the progress line)
 *                                 "variants": {"baseline": {"median_ms": 0.95, "noise": 0.004}},
 *                                 "skipped": {"library": "why it was not timed there"},
 *                                 "stale": {"git": ..., "date": ..., "why": ...}}}
 * }
 *
 * provenance and recorded also say nvcc and arch (the build's), machines, runs and gpus (the
 * GPUs' UUIDs); stale is the mark of model/expect_stale.h, written by a command only.
 *
 * peaks and ceilings hold the roof keys of harness/model/roofline.h (a positive number, or null
 * when unknown) and "source" (a string); ceilings also "methods" (sm_clock_mhz and power_w
 * optional, positive or null). Any other key is refused with its path. Verdicts: regressed =
 * slower than expected by more than max(3%, 3 x the larger of the recorded and the measured
 * noise); improved = faster by as much.
 */
#ifndef RB_EXPECT_H
#define RB_EXPECT_H

#include <stdio.h>

#include "json.h"
#include "result.h"

typedef struct rb_expect {
    json_value *doc; /* the validated file, kept whole for --update-expectations */
    rb_roofs peaks, ceilings;
} rb_expect;

/* Reads and validates path. 0, or -1 with "PATH: where: what" in err (nothing allocated). */
int rb_expect_load(const char *path, rb_expect *e, char *err, size_t err_size);
/* Validates a parsed document (used by load; exposed for tests). */
int rb_expect_validate(const json_value *doc, char *err, size_t err_size);
void rb_expect_free(rb_expect *e);
/* For an update that must not lose another process's (two runs recording at once): takes the
 * lock beside path (rb_lock_beside) and reads the file as it is now, validated, into *doc (NULL
 * when there is none yet). The caller writes the updated file and then rb_unlock(*lock_fd).
 * 0, or -1 with one line in err (no lock held). */
int rb_expect_lock_and_load(const char *path, int *lock_fd, json_value **doc, char *err,
                            size_t err_size);
/* 0 when the validated document was recorded on a GPU of this model (hardware.name and
 * device_name give the same hardware key: case and punctuation aside), else -1 with "recorded
 * on X, but this GPU is Y ..." in err. A file of another GPU is used only when the user asks. */
int rb_expect_same_device(const json_value *doc, const char *device_name, char *err,
                          size_t err_size);
/* Roofs from a validated document's "peaks" or "ceilings" object (unknown: NaN), with the noise
 * of each measured one from ceilings.methods. */
void rb_expect_roofs(const json_value *roofs_obj, rb_roofs *out);

/* The regression / improvement threshold, as a fraction of the expected time. */
double rb_expect_threshold(double expected_noise, double measured_noise);
/* pass, improved or regressed for a valid timed variant. */
rb_verdict rb_expect_judge(double expected_ms, double expected_noise, double ms, double noise);

/* Thresholds from repeated runs. The spread of a variant's medians over the runs that
 * recorded it (run_spread = (max - min) / median of them; --repeat, at least RB_EXPECT_MIN_RUNS)
 * is what varies between runs; the spread of samples within one timed loop is not (a
 * power-capped GEMM's clock drifts within a loop and its median still repeats to 1%). Then:
 *   threshold = max(3%, 2 x run_spread, half the width of this run's 95% interval of the median)
 * For 3 runs of a normal variable the range is ~1.7 standard deviations on average, so 2 x range
 * is ~3.4 of them. A variant recorded under the power cap on a compute roof whose cycles (time x
 * mean SM clock during its loop) spread less over the runs than its time (per_clock) is judged
 * at equal SM clock: its cycles against the recorded median x the recorded clock, with its
 * run_spread taken on the same product.
 * A variant timed under the power cap whose clock is known (this run's and the recorded one) is
 * regressed or improved only when its time and its time at equal clock both say so: under the
 * cap the board sets the clock from its power and temperature, which move between runs, so one
 * of the two alone can move while the kernel did not. On the H100 (results/nvidia-h100-80gb-
 * hbm3/20261126T0415Z-4053b1d-judge/): gemm_autotune.awkward's baseline +5.5% in time at a 12%
 * lower clock (judged on time: a false regression), hgemm's 16M steps +3-5% in cycles while
 * their times moved under 1% (judged on cycles, at clocks read 3-12 times: false regressions).
 * A clock is known from RB_EXPECT_MIN_CLOCK_READINGS readings of the sampler (10 ms apart)
 * during the variant's own samples; with fewer, its mean says little and the time alone judges.
 * Why 10: under the cap single readings spread ~5% around the mean, so the mean of 10 is good to
 * ~1.5%; and since a verdict needs the time and the cycles to agree, a noisy clock can only keep
 * a change from being called (one within ~1.5% of the threshold), never call one. 20 was tried
 * first: hgemm's 16M steps, 9 to a loop, got 15-19 readings and were judged on time alone, +3.1
 * to +3.5% at a 2-3% lower clock (results/nvidia-h100-80gb-hbm3/20261126T0439Z-46f6999-judge/).
 * A variant timed sustained (alone or in sustained windows in turn: model/result.h's timing) is
 * judged on its time alone, against the spread of the recorded times (run_medians, also where the
 * file recorded per_clock), and never recorded per_clock. In that regime the time repeats and
 * the clock readings do not: over ten full H100 runs on two machines every sustained row's time
 * stayed within 2.3% of the file while its time x clock moved up to 8%, and the agreement rule
 * above hid a planted 10% slowdown of gemm_precision's bf16 step: +7.6% in time at a 6% lower
 * clock, so "pass" (results/nvidia-h100-80gb-hbm3/20261126T1407Z-05f065a-planted/, with the
 * two folders before it). A change of code that
 * costs power shows as a lower clock at the cap: judging such a row at equal clock would excuse
 * exactly that.
 * Expectations recorded from fewer runs fall back to rb_expect_threshold. */
#define RB_EXPECT_MIN_RUNS 3
#define RB_EXPECT_MIN_CLOCK_READINGS 10
#define RB_EXPECT_MIN_THRESHOLD 0.03
#define RB_EXPECT_SPREAD_FACTOR 2.0

typedef struct rb_expected {
    double median_ms, noise, run_spread, sm_mhz; /* NaN when absent */
    double time_spread; /* of the recorded times: run_spread, or from run_medians when per_clock */
    int runs;           /* 1 when absent */
    int per_clock;
} rb_expected;

/* An expected variant's entry (validated) into e. */
void rb_expected_read(const json_value *entry, rb_expected *e);
/* Calls each(pair, variant, e, ctx) for every variant entry of an expectation document, in the
 * file's order (its entry read by rb_expected_read). */
typedef void (*rb_expected_each_fn)(const char *pair, const char *variant, const rb_expected *e,
                                    void *ctx);
void rb_expected_each(const json_value *doc, rb_expected_each_fn each, void *ctx);
/* The threshold for a run whose variant's stats are now. */
double rb_expect_run_threshold(const rb_expected *e, const rb_stats *now);
/* The verdict of v against e, with the threshold used, the judged ratio (time, or time x clock,
 * over the expected) and whether it was judged at equal clock (see above for the power cap). */
rb_verdict rb_expect_judge_run(const rb_expected *e, const rb_variant_result *v, double *threshold,
                               double *ratio, int *per_clock);

/* Sets verdict and expected_ms on every variant of pairs[0..n). e may be NULL (every verdict new).
 * Expected variants that the run of a pair lacks are appended to it as "missing". A variant of a
 * row marked stale gets the verdict stale (its ratio and the mark in evidence: not gating).
 * Returns rb_expect_failing(pairs, n, 0, 0). */
int rb_expect_apply(const rb_expect *e, rb_pair_result *pairs, int n);

/* What makes the run fail: failed pairs, invalid variants, contended ones and regressed gating
 * variants; an informational variant's regressed verdict (host_bound_why: a time the host sets)
 * counts only with gate_all (run --gate all). An invalid one always counts: a wrong result is
 * not a time; and a contended one (timed while a process not the run's own used the GPU:
 * model/contention.h, verdict contended whatever its time) is a time no gate may pass. A
 * regressed variant the machine explains (machine_explained: cause platform, its code unchanged)
 * counts only with fail_on_platform (--fail-on-platform), as in compare: a slower machine is not
 * slower code. */
int rb_expect_failing(const rb_pair_result *pairs, int n, int gate_all, int fail_on_platform);

/* The wall time the file recorded for row group `group` (pairs.<group>.wall_s: the median over
 * the runs that recorded it of the pair's child, start to end), for the progress line's
 * estimate; NaN when none. */
double rb_expect_wall_s(const rb_expect *e, const char *group);

/* A variant that recording leaves out instead of refusing: one the run no longer produces
 * (verdict missing: removed or renamed) or one skipped on this machine. */
int rb_expect_dropped(const rb_variant_result *v);

/* 1 when a process not the run's own was on the GPU during pairs[0..n) or an earlier run of
 * them (at a pair's start or while a row was timed), with who says who ("" when nobody). */
int rb_expect_contended(const rb_pair_result *pairs, int n, const rb_pair_result *const *earlier,
                        int n_earlier, char *who, size_t who_size);

/* Rewrites *doc (NULL: a new document with hardware and peaks) from the run: provenance is
 * replaced, each pair of the run replaced by its valid variants (rb_expect_dropped ones left
 * out, a skipped one named in the row's "skipped"), which clears a stale mark; other pairs are
 * kept. Refuses (returns -1, err) when a variant of the run is invalid or a pair failed, and a
 * contended run (rb_expect_contended) whole, with nothing changed. */
int rb_expect_update(json_value **doc, const rb_pair_result *pairs, int n, json_value *hardware,
                     json_value *peaks, json_value *provenance, char *err, size_t err_size);

/* rb_expect_update from several runs of the same pairs (run --update-expectations --repeat N):
 * earlier[r] (r < n_earlier) are the first runs, pairs the last, all of the same jobs in the same
 * order. Each variant records the median of its runs' medians and their spread (see
 * RB_EXPECT_MIN_RUNS); each pair the kernels it timed and platform (the last run's platform
 * reference, may be NULL), for the attribution of a later verdict. n_earlier + 1 <=
 * RB_EXPECT_MAX_REPEAT. */
#define RB_EXPECT_MAX_REPEAT 20
int rb_expect_update_runs(json_value **doc, const rb_pair_result *pairs, int n,
                          const rb_pair_result *const *earlier, int n_earlier,
                          const json_value *platform, json_value *hardware, json_value *peaks,
                          json_value *provenance, char *err, size_t err_size);

/* The sensitivity table: each expected variant's threshold (before a run adds its own interval)
 * and whether a 10% slowdown would be regressed; of the row groups of run[0..n_run) (what was just
 * recorded), or of every row group of the file when run is NULL. The rows of the file that run
 * leaves out are counted on the last line. */
void rb_expect_print_thresholds(FILE *f, const json_value *doc, const rb_pair_result *run,
                                int n_run);

/* Datasheet peaks for the GPUs we know, as a "peaks" object; NULL when the GPU is unknown. */
json_value *rb_datasheet_peaks(const char *hardware_key);

/* The entry for variant of row pair, when the file recorded that row at size, into e: 1, or 0
 * (e then as for no entry). What compare's and history's floors read. */
int rb_expect_variant_at(const json_value *doc, const char *pair, double size,
                         const char *variant, rb_expected *e);

#endif
