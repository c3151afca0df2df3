/* SPDX-License-Identifier: MIT */
/*
 * What `roofbench ceilings` records, without CUDA (so it is tested on any machine): the roof
 * keys it measures (the roof keys of model/roofline.h), the shape of each roof's method, the refusal of
 * a measurement above its datasheet peak, and the merge into an expectation file's "ceilings":
 *
 *   "ceilings": {"dram_gbps": 3006.3, ..., "source": "roofbench ceilings, git ..., <UTC>",
 *                "methods": {"dram_gbps": {"method": "<one line>", "size": "<what it ran at>",
 *                                          "samples": N, "noise": x,
 *                                          "sm_clock_mhz": M, "power_w": W}}}
 *
 * (sm_clock_mhz and power_w only where they were read.) The measuring child sends one line per
 * roof, {"type": "ceiling", "key": K, "value": V, "method": {...}}, or {"type": "ceiling_skip",
 * "key": K, "reason": R} for a roof this machine does not have (fp8 before sm_89, a peer link
 * with one GPU).
 */
#ifndef RB_CEILING_RECORD_H
#define RB_CEILING_RECORD_H

#include <stddef.h>

#include "json.h"

/* `roofbench ceilings` refuses to record a value more than this fraction above its datasheet
 * peak (the loader, harness/model/expect.c, allows 5% in a file: a file edited by hand). A
 * clock a little above the datasheet's and rounding make a sound measurement within ~1%;
 * more is a cache hit, a wrong byte count or a wrong peak, and every efficiency against it
 * would be wrong. */
#define RB_CEILING_RECORD_MARGIN 0.02

/* The roof keys, in the order they are measured, NULL-terminated. */
extern const char *const rb_ceiling_keys[];
/* 1 when key is one of rb_ceiling_keys. */
int rb_ceiling_key_known(const char *key);
/* "GB/s", "TFLOP/s" or "us" by the key's suffix; "" for another key. */
const char *rb_ceiling_unit(const char *key);

/* One roof's method. Doubles that are NaN (sm_clock_mhz, power_w) are left out of the JSON. */
typedef struct rb_ceiling_method {
    char method[600]; /* one line: how it was measured */
    char size[200];   /* what it ran at */
    double samples;   /* timed samples behind the median */
    double noise;     /* (p90 - p10) / median of the samples */
    double sm_clock_mhz;
    double power_w;
} rb_ceiling_method;

/* The method's JSON object; NULL when out of memory. */
json_value *rb_ceiling_method_json(const rb_ceiling_method *m);

/* The child's two lines to the parent: a measured roof ({"type": "ceiling", key, value,
 * method}) and a roof that could not be measured ({"type": "ceiling_skip", key, reason}).
 * NULL when out of memory. */
json_value *rb_ceiling_roof_line(const char *key, double value, const rb_ceiling_method *m);
json_value *rb_ceiling_skip_line(const char *key, const char *reason);

/* Checks one {"type": "ceiling"} line: a known key, a positive finite value, and a method with
 * method and size (strings), samples (>= 1), noise (>= 0) and, when present, sm_clock_mhz and
 * power_w (positive numbers), nothing else. 0, or -1 with the reason in err. */
int rb_ceiling_record_check(const json_value *line, char *err, size_t err_size);

/* The measured values (an object of roof keys to numbers) that lie more than
 * RB_CEILING_RECORD_MARGIN above the peak of the same key (only keys with a numeric peak, and
 * only _gbps and _tflops keys: a latency has no datasheet floor). Writes one line per offender
 * into err ("fp64_tflops: measured 35.2 TFLOP/s is 5.1% above the datasheet peak 33.5 ..."),
 * newline-separated; returns how many there are (0: every value may be recorded). */
int rb_ceilings_over_peak(const json_value *values, const json_value *peaks, char *err,
                          size_t err_size);

/* Shared memory moves at most 128 bytes per clock per SM (32 banks of 4 bytes) on every
 * architecture roofbench builds for, so a shared-memory ceiling above sms x 128 B x the SM's
 * maximum clock by more than RB_CEILING_RECORD_MARGIN is a miscount (the first H100
 * measurement read 127 TB/s against a bound of 33.4: ptxas had kept loop-invariant loads in
 * registers). No datasheet gives this roof, so this is its peak check. 1 with one line in err
 * when gbps is over the bound, 0 otherwise (also when the clock is unknown: NaN). */
int rb_smem_over_bound(double gbps, int sms, double sm_clock_mhz, char *err, size_t err_size);

/* Merges a measurement into an expectation file's "ceilings" object: each value of `values`
 * replaces the one there, each method of `methods` replaces that key's method in
 * "ceilings.methods" (created when absent), and source is set. Roofs this run did not measure
 * keep their value and method (a --quick run measures three). 0, or -1 when out of memory. */
int rb_ceilings_store(json_value *ceilings, const json_value *values, const json_value *methods,
                      const char *source);

/* The probes a run's platform reference may add to the quick three (DRAM copy, FP32 FMA,
 * launch latency) when the selected rows are bound by their roofs: each measured as
 * `roofbench ceilings` measures it, with fewer samples (a fraction of a second each). */
enum {
    RB_PROBE_DRAM_READ = 1u << 0,  /* dram_read_gbps */
    RB_PROBE_DRAM_WRITE = 1u << 1, /* dram_write_gbps */
    RB_PROBE_L2 = 1u << 2,         /* l2_read_gbps */
    RB_PROBE_PCIE = 1u << 3        /* pcie_h2d_gbps, pcie_d2h_gbps, pcie_duplex_gbps */
};
/* The probe that measures roof key (one of the RB_PROBE_ bits), or 0: a roof the quick three
 * hold (dram_gbps, fp32_tflops, launch_us), or one the platform reference has no quick probe
 * for (shared memory, the tensor cores, NVLink, graph nodes). */
unsigned rb_platform_probe_of(const char *key);
/* "DRAM read, PCIe" for probes ("" for none). */
void rb_platform_probes_text(unsigned probes, char *buf, size_t size);

/* A run's platform reference, the results file's top-level "platform":
 *   {"source": "ceilings --quick at run start", "dram_gbps": x, "fp32_tflops": y,
 *    "launch_us": z, ["dram_read_gbps", ..., "pcie_duplex_gbps": the probes measured,]
 *    "methods": {"dram_gbps": {...}, ...}}
 * from a quick measurement's values and methods (as rb_ceilings_store takes them): the quick
 * three always (null when missing from values), a probe's roof when values holds it, any other
 * key left out. values NULL: not measured, {"source": "none"}, with "reason" when reason is not
 * NULL (a measurement that failed). NULL when out of memory. */
#define RB_PLATFORM_SOURCE "ceilings --quick at run start"
json_value *rb_platform_json(const json_value *values, const json_value *methods,
                             const char *reason);

/* One line of a platform object: "DRAM copy 3019.2 GB/s, FP32 60.71 TFLOP/s, launch 4.912 us"
 * ("-" for a value that is null), the probes measured before the launch latency ("DRAM copy
 * 4257.8 GB/s, FP32 60.65 TFLOP/s, PCIe h2d 55.1 GB/s, ..., launch 4.469 us"), or "not
 * measured" for {"source": "none"}. */
void rb_platform_text(const json_value *platform, char *buf, size_t size);

#endif
