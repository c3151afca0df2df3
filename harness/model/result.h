/* SPDX-License-Identifier: MIT */
/*
 * What one run of a pair produced. A child process fills the measured fields and sends them to
 * the parent as JSON lines (rb_variant_to_json / rb_variant_from_json, rb_extras_* and
 * rb_kernel_* for its extras and kernels); the parent adds the derived fields (roofline points,
 * speedup, verdict) and writes the results file.
 */
#ifndef RB_RESULT_H
#define RB_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "clocks.h"
#include "contention.h"
#include "energy.h"
#include "json.h"
#include "roofline.h"
#include "stats.h"

#define RB_MAX_VARIANTS 12
#define RB_NAME_MAX 48
#define RB_MAX_EXTRAS 8
#define RB_MAX_KERNELS 32

/* A figure a pair reports beside the time (µs per kernel, bus bandwidth, wrong elements). */
typedef struct rb_extra {
    char name[32]; /* snake_case, e.g. "us_per_kernel" */
    double value;  /* NaN when it could not be computed */
} rb_extra;

/* What the runtime says of one of a pair's kernels (see harness/kit/kernel_info.h). */
typedef struct rb_kernel_result {
    char variant[RB_NAME_MAX];
    char name[96];
    int registers;          /* per thread */
    double static_smem;     /* bytes per block */
    double dyn_smem;        /* bytes per block, as launched */
    double local_bytes;     /* per thread: spills and local arrays */
    int block_threads;      /* as launched */
    int blocks_per_sm;      /* theoretical, from the occupancy calculator */
    double occupancy;       /* resident threads / the SM's maximum */
    /* The codegen fingerprint taken at build time (harness/model/fingerprint.h); "" when the
     * build had no cuobjdump or the kernel is not in its table: then no sass_counts either. */
    char sass_hash[17];
    /* How often each opcode the pair's codegen rules name occurs in the kernel, then the total
     * as "instructions" (at most RB_MAX_CODEGEN + 1 entries). */
    int n_sass_counts;
    rb_extra sass_counts[RB_MAX_EXTRAS];
    /* Blocks launched at the run's size, where the pair says (rb_kernel_info.grid); 0: unknown. */
    long long grid;
} rb_kernel_result;

/* The library algorithm a variant ran, where the pair can tell (its library_algo hook): for
 * cuBLASLt, the cublasLtMatmulAlgo_t's configuration and the candidate's place in the heuristic's
 * list. A compare of two runs counts a change here as a code change (a new cuBLASLt whose
 * heuristic picks another kernel). */
typedef struct rb_library_algo {
    int present;   /* 0: the variant ran no such algorithm, or the pair cannot tell */
    char kind[16]; /* "cublasLt" */
    long long algo_id, tile, stages, splitk, reduction_scheme, swizzle, custom_option;
    long long candidate_index; /* 0: the heuristic's first; -1: unknown */
} rb_library_algo;

typedef enum rb_role {
    RB_ROLE_BASELINE,  /* the naive but realistic first attempt */
    RB_ROLE_STEP,      /* an intermediate step, in order */
    RB_ROLE_OPTIMIZED, /* the pair's best hand-written kernel */
    RB_ROLE_LIBRARY,   /* what a user would call instead */
    RB_ROLE_PART       /* one stage of a variant timed alone (streams_overlap's bound) */
} rb_role;

typedef enum rb_verdict {
    RB_VERDICT_NONE, /* not judged (no expectation comparison made) */
    RB_VERDICT_PASS,
    RB_VERDICT_IMPROVED,
    RB_VERDICT_REGRESSED,
    RB_VERDICT_NEW,
    RB_VERDICT_MISSING,
    RB_VERDICT_INVALID,
    RB_VERDICT_SKIPPED,
    /* the expectation row is marked stale (its code changed since it was recorded: a command
     * marked it, model/expect_stale.h): measured and printed with the mark, never gating */
    RB_VERDICT_STALE,
    /* timed while a process not the run's own used the GPU (model/contention.h): not a time of
     * this code, never pass, improved, regressed or stale; it fails the run (expect.h) */
    RB_VERDICT_CONTENDED
} rb_verdict;
#define RB_VERDICT_COUNT (RB_VERDICT_CONTENDED + 1)

typedef enum rb_pair_status { RB_PAIR_OK, RB_PAIR_FAILED, RB_PAIR_SKIPPED } rb_pair_status;

/* How a variant's samples were taken (the table marks it; a roof is raised only by a variant
 * timed the way the roofs are measured, sustained). */
typedef enum rb_timing {
    RB_TIMING_SAMPLES,               /* ~1 ms samples, one variant after the other */
    RB_TIMING_INTERLEAVED,           /* ~1 ms samples, the pair's variants in turn */
    RB_TIMING_SUSTAINED,             /* alone, after 0.5 s warm, >= sustain_s of samples */
    RB_TIMING_SUSTAINED_INTERLEAVED, /* rounds of sustained windows, the variants in turn */
    RB_TIMING_COLD,                  /* --cold: single launches after an L2 flush */
    RB_TIMING_COUNT
} rb_timing;

/* "samples", "interleaved", "sustained", "sustained_interleaved", "cold"; and back (0, or -1). */
const char *rb_timing_name(rb_timing t);
int rb_timing_from_name(const char *s, rb_timing *out);
/* Timed the way `roofbench ceilings` measures the tensor roofs (sustained, alone or in turn). */
int rb_timing_sustained(rb_timing t);

const char *rb_role_name(rb_role r);
const char *rb_verdict_name(rb_verdict v);
int rb_role_from_name(const char *s, rb_role *out);
int rb_unit_from_name(const char *s, rb_unit *out);

/* The note that starts a variant's record where a full run does not time it at this size of its
 * sweep, by design (rb_pair_swept_skips): skipped, and shown and counted apart from the variants
 * that could not be measured. */
#define RB_NOT_AT_SIZE_NOTE "not timed at this size of the sweep"

typedef struct rb_variant_result {
    char name[RB_NAME_MAX];
    rb_role role;
    rb_unit unit;
    int valid; /* passed the check before and after timing */
    int timed; /* time_ms holds samples */
    int skipped; /* cannot be measured meaningfully on this machine (note says why): never
                    timed, not invalid, verdict skipped; the pair's other variants still run */
    double tolerance;
    double rel_err_before; /* NaN when not checked */
    double rel_err_after;
    rb_stats time_ms; /* per launch */
    double launches_per_sample;
    double sm_clock_mhz; /* read right after the timed loop; NaN when unknown */
    rb_clocks clocks;    /* sampled during the timed loop (model/clocks.h); none without NVML */
    rb_energy energy;    /* over the timed samples (model/energy.h); NONE when not timed */
    /* The processes not the run's own seen on the GPU while its samples were timed
     * (model/contention.h): any makes the row contended. */
    rb_contention contended_by;
    char note[240];      /* why invalid, or anything the reader must know */
    double bytes;        /* this variant's work-model bytes; NaN: the pair's */
    rb_roof roof;        /* the roof it is placed on; RB_ROOF_COUNT: derived by the parent from
                            the unit and the pair's flops (a record that names none) */
    char roof_rate[32];  /* the extra whose value is judged against the roof ("" : bytes / time) */
    rb_timing timing;    /* how its samples were taken */
    /* Why the host, not the GPU, sets this variant's time (rb_variant_def.host_bound_why): an
     * informational row, judged and printed but not gating the exit code unless --gate all.
     * "": a gating row. */
    char host_bound_why[200];
    int n_extras;        /* the pair's figures beside the time */
    rb_extra extras[RB_MAX_EXTRAS];
    rb_library_algo library_algo;
    /* Derived by the parent. */
    rb_point vs_ceiling, vs_peak;
    /* The roof the row is named by and judged against: the binding roof at its arithmetic
     * intensity (vs_ceiling.binding, else vs_peak.binding, else roof); the results write it as
     * "roof" and the declared one as "declared_roof". RB_ROOF_COUNT: not timed. */
    rb_roof named_roof;
    /* Above its measured roof by more than its noise: not a result but a measurement
     * inconsistency (roof_note says by how much and why it cannot be); the table prints no
     * %ceil for it and the results carry "inconsistent": true. */
    int inconsistent;
    char roof_note[480]; /* why a point above 100% of its measured roof is there ("" : none) */
    double speedup;     /* baseline median / this median; NaN without a timed baseline */
    double expected_ms; /* NaN when no expectation */
    rb_verdict verdict;
    double threshold;    /* the fraction of expected_ms the verdict allowed (NaN: not judged) */
    int per_clock;       /* judged at equal SM clock: time x mean SM clock (model/expect.h) */
    double judged_ratio; /* what the verdict judged: time (x clock) / expected; NaN: none */
    char cause[16];      /* of a regressed or improved verdict: platform, code, throttled,
                            unexplained (model/runcmp.h), and contended for a contended one;
                            "" : none */
    char evidence[640];  /* the cause's evidence, or what a stale verdict says (its mark) */
    /* Regressed, and the machine explains it: cause platform (a roof of this run's platform
     * reference moved with it) with the row's code unchanged. Gating only with
     * --fail-on-platform, as compare's rule (model/runcmp.h). */
    int machine_explained;
} rb_variant_result;

typedef struct rb_pair_result {
    char name[RB_NAME_MAX];
    char pattern[160];
    uint64_t size;       /* elements */
    uint64_t rows, cols; /* the shape of two-dimensional pairs; rows = 1 for 1D pairs */
    uint64_t full_size;  /* the pair's full size: DRAM figures are judged only there */
    double flops, bytes; /* the work model at this size */
    int link_bytes;      /* bytes cross a link (PCIe, NVLink), not DRAM: no DRAM roof */
    rb_pair_status status;
    char reason[240]; /* why failed or skipped */
    double wall_s;    /* the pair's child, start to end */
    double setup_s;   /* of which its setup() (inputs, references, tuning); NaN: not reported */
    /* What its child saw on the GPU at its start, while nothing of the run was on it: the
     * processes not the run's own (they make the run contended) and NVML's utilization (%, NaN:
     * not read; recorded, not judged: its sample period reaches back into the pair before). */
    rb_contention contended_at_start;
    double idle_gpu_util, idle_mem_util;
    int n_kernels;
    rb_kernel_result kernels[RB_MAX_KERNELS];
    int n_variants;
    rb_variant_result v[RB_MAX_VARIANTS];
} rb_pair_result;

/* 1 when the variant was timed while another process used the GPU. */
int rb_variant_contended(const rb_variant_result *v);

/* A variant with every number NaN, not valid, not timed. */
void rb_variant_result_init(rb_variant_result *v, const char *name, rb_role role, rb_unit unit,
                            double tolerance);

/* The measured part of a variant, as one JSON object (child -> parent). NULL if out of memory. */
json_value *rb_variant_to_json(const rb_variant_result *v);
/* Reads a variant back; 0 or -1 with a message. Unknown fields are ignored. */
int rb_variant_from_json(const json_value *o, rb_variant_result *v, char *err, size_t err_size);

/* library_algo as the results write it ({"kind": "cublasLt", "algo_id": n, ...}), and back
 * (0, or -1 with a message when o is not such an object). */
json_value *rb_library_algo_to_json(const rb_library_algo *a);
int rb_library_algo_from_json(const json_value *o, rb_library_algo *a, char *err, size_t err_size);

/* Extras as {name: value} (NaN -> null), and back; from_json: 0 or -1 with a message. */
json_value *rb_extras_to_json(const rb_extra *x, int n);
int rb_extras_from_json(const json_value *o, rb_extra *x, int *n, char *err, size_t err_size);
/* A kernel's resources as one JSON object, and back (0 or -1 with a message). */
json_value *rb_kernel_to_json(const rb_kernel_result *k);
int rb_kernel_from_json(const json_value *o, rb_kernel_result *k, char *err, size_t err_size);

/* A results document as compare and plot read it: an object whose "pairs" is an array of pair
 * records, each an object with a string "name" and a "variants" array of objects, each with a
 * string "name"; no pair named twice, no variant named twice in one pair (compare pairs rows by
 * name: a second row of a name would be judged by nobody). 0, or -1 with one line in err
 * naming the place. */
int rb_results_doc_check(const json_value *doc, char *err, size_t err_size);

/* The number of row groups (pair records) of a results document; 0 when it holds none. */
size_t rb_results_pair_count(const json_value *doc);
/* A copy of the row groups of a results document, as an array (what a node or fleet document
 * holds of a run's collectives); NULL when it has none or out of memory. */
json_value *rb_results_pairs_copy(const json_value *doc);
/* b's row groups appended to a's, ordered by the pair names in order[0..n) (a row group
 * "<pair>[.<input>][@<size>]" goes with its pair; within a pair, a's before b's; a group of no
 * pair named is dropped), and b's environment at its end made a's. 0, or -1 (out of memory, or
 * a document without row groups). */
int rb_results_merge(json_value *a, const json_value *b, const char *const *order, int n);

/* The default path of a results file, made here alone: <dir>/<key>/<stamp>-<git><suffix>.json
 * (key: the hardware key; stamp: the UTC time, rb_utc_stamp; suffix: "" , "-2" for a second
 * file of the same second, "-node" for a node's document). 0, or -1 when it does not fit in
 * size (path is then ""). */
int rb_results_default_path(char *path, size_t size, const char *dir, const char *key,
                            const char *stamp, const char *git, const char *suffix);

#endif
