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
 *                                 "variants": {"baseline": {"median_ms": 0.95, "noise": 0.004}}}}
 * }
 *
 * peaks and ceilings hold the roof keys of harness/core/roofline.h (a positive number, or null
 * when unknown) and "source" (a string); ceilings also "methods" (sm_clock_mhz and power_w
 * optional, positive or null). Any other key is refused with its path. Verdicts: regressed = slower than expected by more than
 * max(3%, 3 x the larger of the recorded and the measured noise); improved = faster by as much.
 */
#ifndef RB_EXPECT_H
#define RB_EXPECT_H

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
/* 0 when the validated document was recorded on a GPU of this model (hardware.name and
 * device_name give the same hardware key: case and punctuation aside), else -1 with "recorded
 * on X, but this GPU is Y ..." in err. A file of another GPU is used only when the user asks. */
int rb_expect_same_device(const json_value *doc, const char *device_name, char *err,
                          size_t err_size);
/* Roofs from a validated document's "peaks" or "ceilings" object (unknown: NaN). */
void rb_expect_roofs(const json_value *roofs_obj, rb_roofs *out);

/* The regression / improvement threshold, as a fraction of the expected time. */
double rb_expect_threshold(double expected_noise, double measured_noise);
/* pass, improved or regressed for a valid timed variant. */
rb_verdict rb_expect_judge(double expected_ms, double expected_noise, double ms, double noise);

/* Sets verdict and expected_ms on every variant of pairs[0..n). e may be NULL (every verdict new).
 * Expected variants that the run of a pair lacks are appended to it as "missing". Returns the
 * number of variants that make the run fail (regressed or invalid). */
int rb_expect_apply(const rb_expect *e, rb_pair_result *pairs, int n);

/* A variant that recording leaves out instead of refusing: one the run no longer produces
 * (verdict missing: removed or renamed) or one skipped on this machine. */
int rb_expect_dropped(const rb_variant_result *v);

/* Rewrites *doc (NULL: a new document with hardware and peaks) from the run: provenance is
 * replaced, each pair of the run replaced by its valid variants (rb_expect_dropped ones left
 * out); other pairs are kept. Refuses (returns -1, err) when a variant of the run is invalid or
 * a pair failed. */
int rb_expect_update(json_value **doc, const rb_pair_result *pairs, int n, json_value *hardware,
                     json_value *peaks, json_value *provenance, char *err, size_t err_size);

/* Datasheet peaks for the GPUs we know, as a "peaks" object; NULL when the GPU is unknown. */
json_value *rb_datasheet_peaks(const char *hardware_key);

#endif
