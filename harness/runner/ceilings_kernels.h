/* SPDX-License-Identifier: MIT */
/*
 * The kernels of `roofbench ceilings` (harness/runner/ceilings_kernels.cu), the seam between them and
 * the measurement (harness/runner/ceilings.c, harness/runner/ceilings_gemm.c). Each sets one roof; the header
 * of the .cu says how each one reaches it. Launchers only enqueue: no sync, no allocation.
 */
#ifndef RB_CEILINGS_KERNELS_H
#define RB_CEILINGS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DRAM, n_vec4 16-byte elements, evict-first (.cs) loads and stores. A copy of src into dst. */
cudaError_t rb_ceiling_copy(const void *src, void *dst, size_t n_vec4, cudaStream_t stream);
/* Reads src and keeps the xor of what it read alive: stored to *sink only when it equals
 * `rare` (any value; the store is 4 bytes, harmless when it happens). */
cudaError_t rb_ceiling_read(const void *src, size_t n_vec4, unsigned rare, unsigned *sink,
                            cudaStream_t stream);
/* Writes n_vec4 16-byte elements of a pattern that depends on the index (not a memset). */
cudaError_t rb_ceiling_write(void *dst, size_t n_vec4, cudaStream_t stream);

/* L2: reads buf (n_vec4 elements, sized to the working set) `reps` times over with L2-only
 * (.cg) loads, over a grid that fills every SM once. */
cudaError_t rb_ceiling_l2_read(const void *buf, size_t n_vec4, int reps, unsigned rare,
                               unsigned *sink, int sms, cudaStream_t stream);

/* Shared memory: every thread reads 4 x 16 bytes of its block's 16 KiB, `iters` times, over a
 * grid that fills every SM once. *bytes_per_launch: what one launch reads. */
cudaError_t rb_ceiling_smem(unsigned *sink, int sms, int iters, cudaStream_t stream,
                            double *bytes_per_launch);

/* FMA: `iters` rounds of 8 independent FMA chains per thread over blocks x 256 threads
 * (16 x iters flops per thread). */
cudaError_t rb_ceiling_fma(float *out, int blocks, int iters, cudaStream_t stream);
cudaError_t rb_ceiling_fma64(double *out, int blocks, int iters, cudaStream_t stream);

/* One empty kernel, one block of 32 threads: the launch-latency roofs. */
cudaError_t rb_ceiling_empty(cudaStream_t stream);

/* DRAM latency: one thread follows `steps` links of a chain, each load's address the value of
 * the one before (next[i] is the word index of the next link), from word *sink, and leaves the
 * word it reached in *sink, so that launch after launch walks on along the chain. One link per
 * 128-byte line: every step a line of its own. */
cudaError_t rb_ceiling_chase(const unsigned *next, int steps, unsigned *sink, cudaStream_t stream);

/* GEMM operands for the tensor-core roofs: n seeded uniform values in (-scale, scale), stored
 * as fp32, bf16, fp16 or fp8 e4m3 (saturating). Random operands, not zeros: a tensor core
 * multiplying zeros draws less power and would run at a clock no real GEMM sees. */
typedef enum rb_ceiling_elem {
    RB_ELEM_F32,
    RB_ELEM_BF16,
    RB_ELEM_F16,
    RB_ELEM_E4M3
} rb_ceiling_elem;
cudaError_t rb_ceiling_fill(void *dst, rb_ceiling_elem type, size_t n, uint64_t seed, float scale,
                            cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
