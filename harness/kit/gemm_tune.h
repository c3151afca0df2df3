/* SPDX-License-Identifier: MIT */
/*
 * cuBLASLt autotuning, shared by the pairs that run "the best of cuBLASLt's top candidates"
 * (gemm_autotune, hgemm's library variant): the heuristic's candidates timed in rounds, a
 * selection rule that needs a win in 90% of the rounds, and a cache of the choice, so that a
 * problem is tuned once per device and cuBLASLt version.
 *
 * The cache and the selection rule are plain C (JSON, no CUDA call), so tests/test_gemm_autotune.c
 * covers them on any machine. The cache file: $RB_AUTOTUNE_CACHE, else
 * $XDG_CACHE_HOME/roofbench/gemm_autotune.json, else $HOME/.cache/roofbench/gemm_autotune.json;
 * one entry per problem (device, compute capability, M N K, bf16 TN), with the cuBLASLt version
 * it was recorded with, the algorithm's 8 opaque words, its place in the heuristic's list and
 * every candidate's median time.
 */
#ifndef RB_GEMM_TUNE_H
#define RB_GEMM_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "gemm_ref.h"

#define RB_TUNE_ALGO_WORDS 8 /* cublasLtMatmulAlgo_t: 8 opaque uint64 words */
#define RB_TUNE_MAX_CANDIDATES 64
#define RB_TUNE_MAX_REPS 64

/* Lookup results. */
#define RB_TUNE_CACHE_HIT 1
#define RB_TUNE_CACHE_MISS 0     /* no file, or no entry for this problem */
#define RB_TUNE_CACHE_STALE (-1) /* an entry recorded with another cuBLASLt version */
#define RB_TUNE_CACHE_CORRUPT (-2)

/* The cache file: env_path ($RB_AUTOTUNE_CACHE) if set, else $XDG_CACHE_HOME/roofbench/
 * gemm_autotune.json (an absolute XDG_CACHE_HOME only, as the XDG spec says), else
 * $HOME/.cache/roofbench/gemm_autotune.json. Returns 0, or -1 when none applies or it is too
 * long. */
int rb_tune_cache_path(char *out, size_t out_size, const char *env_path, const char *xdg,
                       const char *home);
/* The key of one problem: device name, compute capability, logical M N K, precision and
 * cuBLASLt's transposes (bf16 in and out, fp32 compute, TN). The cuBLASLt version is stored in
 * the entry, so that an entry of another version is found and reported as stale instead of
 * silently missed. */
void rb_tune_cache_key(char *out, size_t out_size, const char *device, int cc, uint64_t m,
                       uint64_t n, uint64_t k);
/* RB_TUNE_CACHE_HIT: words, *index (the chosen candidate's place in the heuristic's list),
 * *candidates (how many were timed) and *gain (first / chosen median time as recorded, NaN when
 * unknown) are set. Otherwise why says what was found ("PATH: ..."). */
int rb_tune_cache_lookup(const char *path, const char *key, uint64_t lt_version,
                         uint64_t words[RB_TUNE_ALGO_WORDS], int *index, int *candidates,
                         double *gain, char *why, size_t why_size);
/* Adds or replaces the entry of key and writes the file atomically, creating its folder; a
 * missing or corrupt file is rebuilt from scratch. median_ms[candidates]: each candidate's median
 * time (INFINITY: it failed; written as null). Returns 0, or -1 with err. */
int rb_tune_cache_store(const char *path, const char *key, uint64_t lt_version,
                        const uint64_t words[RB_TUNE_ALGO_WORDS], int index, int candidates,
                        const double *median_ms, char *err, size_t err_size);
/* The selection rule. times_ms[i * reps + r]: candidate i's time in round r (not finite: it
 * failed). Candidate i qualifies when, round by round, time_i / time_0 has its 90th percentile
 * below 1 - min_gain (it won by more than min_gain in 90% of the rounds, whatever the clocks
 * did between rounds); the qualifier with the lowest median ratio is chosen, else 0. If the
 * first candidate failed, the fastest one that ran. *gain = 1 / (chosen's median ratio). */
int rb_tune_select(const double *times_ms, int n, int reps, double min_gain, double *gain);

/* One cuBLASLt GEMM as the pair set it up (cuBLASLt's A, B and C = D, beta = 0). */
typedef struct rb_lt_gemm {
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t layout_a, layout_b, layout_c;
    const void *a, *b; /* device, cuBLASLt's A and B */
    void *c;           /* device: C and D */
    void *workspace;
    size_t workspace_bytes;
} rb_lt_gemm;

/* Destroys g's descriptor, layouts and handle (NULL ones too) and sets them NULL. */
void rb_lt_gemm_destroy(rb_lt_gemm *g);

/* D = 1 * op(A) op(B) + 0 * C with algo on stream: the status, unchecked, so that tuning can
 * skip a candidate that refuses to run. Enqueue only. */
cublasStatus_t rb_lt_gemm_run(const rb_lt_gemm *g, const cublasLtMatmulAlgo_t *algo,
                              cudaStream_t stream);

/* What the tuning chose. */
typedef struct rb_lt_tuned {
    cublasLtMatmulAlgo_t first, tuned; /* the heuristic's first candidate, and the choice */
    int candidates;                    /* timed (as recorded when cached) */
    int chosen;                        /* the choice's index in the heuristic's list */
    int cache_hit;                     /* 1: from the cache */
    double setup_gain;                 /* first / chosen time in tuning (NaN: unknown) */
} rb_lt_tuned;

/* The tuned algorithm of g for the logical m x n x k problem (the cache key's): from the cache
 * when a valid entry exists and cuBLASLt still accepts it, else the heuristic's candidates timed
 * now on the default stream (g's output is overwritten) and the choice cached. Cache problems
 * are reported (one line on stderr, starting with label) and never fail. Setup only. */
rb_status rb_lt_gemm_tune(const rb_lt_gemm *g, uint64_t m, uint64_t n, uint64_t k,
                          const char *label, rb_lt_tuned *out);

#endif
