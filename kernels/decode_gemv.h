/* SPDX-License-Identifier: MIT */
/*
 * The seam between kernels/decode_gemv.cu and bench/decode_gemv.c (both include it).
 *
 * Every launcher computes y = x W^T for a decode step: W is n x k bf16 (raw bits, row-major, an
 * nn.Linear's weight: out_features x in_features), x is m x k bf16 (m tokens, row-major), y is
 * m x n bf16 (token t's outputs at y + t n), accumulated in fp32 and rounded once to bf16.
 * 1 <= m <= DECODE_GEMV_MAX_TOKENS. Buffers are cudaMalloc'd (256-byte aligned); with k % 8 == 0
 * every row of W and x is then 16-byte aligned. Any n and k >= 1 (rows and columns that are no
 * multiple of anything run their tails). Launchers only enqueue on `stream`; arguments out of
 * range give cudaErrorInvalidValue before any launch.
 */
#ifndef RB_KERNELS_DECODE_GEMV_H
#define RB_KERNELS_DECODE_GEMV_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DECODE_GEMV_MAX_TOKENS 16
/* From this many tokens on, the optimized launcher runs the tensor-core (mma.sync) kernel
 * (overridable with -D, as the kernel's tunables are, for scripts/probes/gpu_variants.sh). */
#ifndef DECODE_GEMV_MMA_MIN_TOKENS
#define DECODE_GEMV_MMA_MIN_TOKENS 8
#endif

/* Baseline: one warp per row of W, 4-byte loads (2 bf16; element by element when k is odd). */
cudaError_t decode_gemv_baseline(const uint16_t *w, const uint16_t *x, uint16_t *y, size_t n,
                                 size_t k, int m, cudaStream_t stream);
/* Optimized: 16-byte loads, several rows a warp, each W vector applied to every token from
 * registers; tensor cores from DECODE_GEMV_MMA_MIN_TOKENS tokens on. k % 8 != 0 (rows that are
 * not 16-byte aligned) runs the baseline's kernel. */
cudaError_t decode_gemv_optimized(const uint16_t *w, const uint16_t *x, uint16_t *y, size_t n,
                                  size_t k, int m, cudaStream_t stream);

/* Setup only: the seeded inputs (bench/decode_gemv.c says what they look like), and the
 * reference in fp64 rounded once to fp32 (ref: m x n floats, token t's at ref + t n). */
cudaError_t decode_gemv_fill_inputs(uint16_t *w, uint16_t *x, size_t n, size_t k, int m,
                                    uint64_t seed, cudaStream_t stream);
cudaError_t decode_gemv_reference(const uint16_t *w, const uint16_t *x, float *ref, size_t n,
                                  size_t k, int m, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info decode_gemv_kernels[];

#ifdef __cplusplus
}
#endif

#endif
