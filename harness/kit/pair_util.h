/* SPDX-License-Identifier: MIT */
/*
 * Helpers for bench/<pair>.c files, so that a pair file holds only what is particular to it.
 * The fp32 copy helpers serve every pair whose function is out = in over n floats.
 */
#ifndef RB_PAIR_UTIL_H
#define RB_PAIR_UTIL_H

#include "pair.h"

/* Large references may come from a trusted GPU kernel (fp64 arithmetic); at sizes up to
 * RB_CPU_REFERENCE_MAX elements, setup also computes the CPU reference and cross-checks the GPU
 * one with this (so the smoke and odd-size GPU tests pin the GPU reference to the CPU one).
 * d_ref: n floats on the device; h_ref: the CPU reference. RB_ERR_INPUT when they disagree
 * beyond tol (the message names the pair and the error). */
#define RB_CPU_REFERENCE_MAX (1u << 22)
rb_status rb_crosscheck_reference(const char *pair, const float *d_ref, const float *h_ref,
                                  size_t n, double tol);

/* Device buffers of a copy-shaped pair: in (seeded random), out (what variants write). */
typedef struct rb_copy_ctx {
    float *in, *out;
    size_t n;
} rb_copy_ctx;

/* n elements of elem_bytes each, in bytes: 0, or -1 (bytes set to SIZE_MAX) when the product
 * overflows. Allocations of a size the user gave go through it (rb_pair_resolve_size bounds
 * every size by RB_MAX_ELEMENTS as well). */
int rb_checked_bytes(uint64_t n, size_t elem_bytes, size_t *bytes);

rb_status rb_copy_setup(void **ctx, const rb_size *size, uint64_t seed, int input);
void rb_copy_output(void *ctx, int variant, void **dev_ptr, size_t *bytes);
/* The reference of a copy is its input: compares out with in on the device. */
rb_status rb_copy_check(void *ctx, int variant, cudaStream_t stream, double *rel_err);
void rb_copy_teardown(void *ctx);
/* The library variant: cudaMemcpyAsync device to device. */
rb_status rb_copy_memcpy(void *ctx, cudaStream_t stream);
/* Work model of a copy: 0 flops, 4n read + 4n written. */
double rb_copy_flops(const rb_size *size);
double rb_copy_bytes(const rb_size *size);
/* The CPU reference (out = in) against a hand-computed case. */
int rb_copy_selftest(char *why, size_t why_size);

/* A diagnostic timing for a pair's extras() (an occupancy sweep, say), not the harness's
 * measurement of a variant: one warm-up call of launch(arg, stream), then `samples` samples of
 * `reps` back-to-back calls between two events; *median_ms is the median per call. The launch
 * only enqueues, as a variant's run() does. */
rb_status rb_time_launches_ms(rb_status (*launch)(void *arg, cudaStream_t stream), void *arg,
                              cudaStream_t stream, int reps, int samples, double *median_ms);

/* An occupancy sweep for a pair's extras(): "max_blocks_per_sm" = max_bps (what the occupancy
 * API says the variant's kernel fits), then "ms_bps_<k>" for k = 1 .. max_bps (as many as out[]
 * holds): run(ctx, stream 0) timed by rb_time_launches_ms while *sweep_bps = k (the pair's
 * launcher sizes its persistent grid from it), in samples of >= ~1 ms judged from median_ms,
 * the variant's median. *sweep_bps is 0 again afterwards. Returns the number of extras written
 * (a time that fails is NaN). */
int rb_occupancy_sweep(rb_status (*run)(void *ctx, cudaStream_t stream), void *ctx, int *sweep_bps,
                       int max_bps, double median_ms, rb_extra out[RB_MAX_EXTRAS]);

/* Fills bytes at out with 0xFF (NaN in fp32, bf16 and fp8). Host memory (the transfer pairs'
 * outputs) is filled by the host once the stream has drained; device memory, also another
 * device's (p2p), by the stream. */
rb_status rb_poison(void *out, size_t bytes, cudaStream_t stream);

#endif
