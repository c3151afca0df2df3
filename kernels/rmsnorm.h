/* SPDX-License-Identifier: MIT */
/*
 * The seam between kernels/rmsnorm.cu and bench/rmsnorm.c (both include it).
 *
 * Every launcher computes y = x * rsqrt(mean(x^2) + eps) * w row by row: x and y are rows x
 * hidden bf16 (raw bits, row-major, compact), w is hidden bf16, statistics in fp32. Buffers are
 * cudaMalloc'd (256-byte aligned); rows with hidden % 8 == 0 are then 16-byte aligned and move
 * as 16-byte vectors, other rows element by element.
 */
#ifndef RB_KERNELS_RMSNORM_H
#define RB_KERNELS_RMSNORM_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest row the optimized kernels hold in registers: 8 blocks of a cluster, each 512
 * threads x 64 elements. */
#define RMSNORM_MAX_HIDDEN 262144

/* How the optimized launcher covers a row of `hidden` elements: `cluster` blocks (1: a single
 * block, no cluster) of `threads` threads, each thread holding `items` 16-byte vectors (8
 * elements each), block b of the cluster taking elements [b chunk, min((b + 1) chunk, hidden)).
 * resident: how many of its clusters fit on the device at once (rmsnorm_clusters_fit; 0: not
 * read), the persistent clusters the launcher starts for aligned rows (hidden % 8 == 0). */
typedef struct rmsnorm_plan {
    int cluster, threads, items, resident;
    size_t chunk;
} rmsnorm_plan;

/* The plan for a row of `hidden` elements (host arithmetic, no CUDA call). 0, or -1 when hidden
 * is 0 or above RMSNORM_MAX_HIDDEN. */
int rmsnorm_plan_for(size_t hidden, rmsnorm_plan *out);

/* Whether this device runs the cluster kernel: *supported = 1 when it can launch clusters and the
 * kernel was compiled for compute capability 9.0 or later (a build for sm_80 running on an H100
 * has no cluster code); *device_cc and *kernel_cc say what was found (x 10). */
cudaError_t rmsnorm_cluster_support(int *supported, int *device_cc, int *kernel_cc);

/* Reads p->resident, for p = rmsnorm_plan_for(hidden)'s plan: how many of the optimized
 * launcher's clusters can be resident at once on this device (cudaOccupancyMaxActiveClusters: a
 * cluster's blocks must share a GPC), 0 when the plan has no cluster. The pair reports it beside
 * its rate; the launcher starts that many persistent clusters for aligned rows, and this also
 * raises their kernel's shared-memory limit, so it is read once per plan, not per launch. */
cudaError_t rmsnorm_clusters_fit(size_t hidden, rmsnorm_plan *p);

/* Baseline: two kernels; rstd is `rows` floats of scratch (1 / rms of each row). */
cudaError_t rmsnorm_baseline(const uint16_t *x, const uint16_t *w, uint16_t *y, float *rstd,
                             size_t rows, size_t hidden, float eps, cudaStream_t stream);
/* Optimized: one pass, the row in registers; clusters when hidden > 16384 (needs
 * rmsnorm_cluster_support; cudaErrorNotSupported otherwise): p->resident persistent clusters that
 * loop over the rows when hidden % 8 == 0 (one a row when resident is 0), else one a row. p:
 * rmsnorm_plan_for(hidden)'s plan (cudaErrorInvalidValue for another), its resident read or 0. */
cudaError_t rmsnorm_optimized(const rmsnorm_plan *p, const uint16_t *x, const uint16_t *w,
                              uint16_t *y, size_t rows, size_t hidden, float eps,
                              cudaStream_t stream);

/* Setup only: the seeded inputs, x[r][c] = bf16(u(seed, r hidden + c) 2^k), k = r % 5 - 2 (a
 * row scale from 1/4 to 4, so rows differ) but -10 on every eighth row (r % 8 == 7: a mean square
 * of ~eps / 3, where whether eps is added inside the square root decides the row's scale), and
 * k + 5 on the last channel (c = hidden - 1: an outlier feature 32 times the others, as
 * transformers' activations have; a row's tail then carries weight in its mean square); w[c] =
 * bf16(1 + u(seed + 1, c) / 2), u uniform in (-1, 1) (model/random.h); the fp64 reference, rounded
 * once to fp32 (ref: rows x hidden floats); and its rounding, in place, to the nearest bf16 (the
 * correctly rounded output). */
cudaError_t rmsnorm_fill_inputs(uint16_t *x, uint16_t *w, size_t rows, size_t hidden, uint64_t seed,
                                cudaStream_t stream);
cudaError_t rmsnorm_reference(const uint16_t *x, const uint16_t *w, float *ref, size_t rows,
                              size_t hidden, float eps, cudaStream_t stream);
cudaError_t rmsnorm_round_to_bf16(float *ref, size_t n, cudaStream_t stream);

/* Planted defects for the tests (see the .cu): the baseline whose normalize kernel takes the next
 * row's rstd; the cluster kernel that rmsnorm_optimized runs for these rows (persistent when
 * aligned), forced to at least 2 blocks a row, whose sum leaves out the last block's partial. */
cudaError_t rmsnorm_defect_wrong_row_scale(const uint16_t *x, const uint16_t *w, uint16_t *y,
                                           float *rstd, size_t rows, size_t hidden, float eps,
                                           cudaStream_t stream);
cudaError_t rmsnorm_defect_cluster_rank_left_out(const uint16_t *x, const uint16_t *w, uint16_t *y,
                                                 size_t rows, size_t hidden, float eps,
                                                 cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info rmsnorm_kernels[];

#ifdef __cplusplus
}
#endif

#endif
