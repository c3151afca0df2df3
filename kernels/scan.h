/* SPDX-License-Identifier: MIT */
/*
 * The seam between kernels/scan.cu and bench/scan.c (both include it).
 *
 * Every launcher computes the inclusive prefix sum out[i] = in[0] + ... + in[i] of n int32 or
 * fp32 values (1 <= n < 2^31), in and out cudaMalloc'd (16-byte aligned). Scratch buffers are
 * sized by the *_scratch functions and owned by the caller.
 */
#ifndef RB_KERNELS_SCAN_H
#define RB_KERNELS_SCAN_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "model/random.h"
#include "kernel_info.h"

/* The seeded inputs, element i of n, the same on the host and the device (model/random.h): int32
 * values uniform in 0 .. floor((2^31 - 1) / n), so that no prefix exceeds 2^31 - 1; fp32 values
 * u / 2 + 1/2 in (0, 1) for u uniform in (-1, 1) (u / 2 is exact: one rounding, the same on both
 * sides, fused or not). */
RB_HOST_DEVICE static inline int32_t scan_input_i32(uint64_t seed, uint64_t i, uint64_t n)
{
    return (int32_t)(rb_mix64(seed ^ rb_mix64(i)) % (2147483647u / n + 1));
}

RB_HOST_DEVICE static inline float scan_input_f32(uint64_t seed, uint64_t i)
{
    return 0.5f * rb_uniform_f32(seed, i) + 0.5f;
}

#ifdef __cplusplus
extern "C" {
#endif

/* The largest n the launchers take. */
#define SCAN_MAX_N 2147483647u

/* Baseline (reduce, scan of the block sums, scan again with the carry): `bytes` of scratch for n
 * elements on the current device (the grid is one wave of blocks, so it depends on the GPU). */
cudaError_t scan_baseline_scratch(size_t n, size_t *bytes);
cudaError_t scan_baseline_i32(const int32_t *in, int32_t *out, size_t n, void *scratch,
                              cudaStream_t stream);
cudaError_t scan_baseline_f32(const float *in, float *out, size_t n, void *scratch,
                              cudaStream_t stream);

/* Optimized (one pass, decoupled look-back): the tile status words and the tile counter, which
 * the launcher clears on the stream before the kernel. */
size_t scan_optimized_scratch(size_t n);
cudaError_t scan_optimized_i32(const int32_t *in, int32_t *out, size_t n, void *scratch,
                               cudaStream_t stream);
cudaError_t scan_optimized_f32(const float *in, float *out, size_t n, void *scratch,
                               cudaStream_t stream);

/* Library: cub::DeviceScan::InclusiveSum, temp storage sized by *_temp (temp == NULL). */
cudaError_t scan_library_temp(size_t n, int is_float, size_t *bytes);
cudaError_t scan_library_i32(const int32_t *in, int32_t *out, size_t n, void *temp,
                             size_t temp_bytes, cudaStream_t stream);
cudaError_t scan_library_f32(const float *in, float *out, size_t n, void *temp, size_t temp_bytes,
                             cudaStream_t stream);

/* Setup only: the inputs above; the references, by CUB in int64 and fp64, rounded once to int32
 * (exact) and fp32, with their temp storage (scan_reference_temp). */
cudaError_t scan_fill_i32(int32_t *in, size_t n, uint64_t seed, cudaStream_t stream);
cudaError_t scan_fill_f32(float *in, size_t n, uint64_t seed, cudaStream_t stream);
cudaError_t scan_reference_temp(size_t n, int is_float, size_t *bytes);
cudaError_t scan_reference_i32(const int32_t *in, int32_t *ref, size_t n, void *temp,
                               size_t temp_bytes, cudaStream_t stream);
cudaError_t scan_reference_f32(const float *in, float *ref, size_t n, void *temp, size_t temp_bytes,
                               cudaStream_t stream);

/* The integer check: the absolute error norm ||out - ref||_2, accumulated in fp64 (0 exactly when
 * every element is right, >= 1 when any is wrong), into *abs_err; `sums` is one double of device
 * scratch. Synchronizes the stream. */
cudaError_t scan_abs_err_i32(const int32_t *out, const int32_t *ref, size_t n, double *sums,
                             cudaStream_t stream, double *abs_err);

/* Planted defects for the tests (see the .cu): the optimized kernel whose loads stop one element
 * short of every tile, or whose tiles publish an inclusive prefix without their own aggregate;
 * the baseline whose add-back kernel takes the block sums scanned inclusive. */
enum {
    SCAN_DEFECT_NONE,
    SCAN_DEFECT_TILE_TAIL,
    SCAN_DEFECT_LOST_CARRY,
    SCAN_DEFECT_INCLUSIVE_SUMS
};
cudaError_t scan_defect_i32(const int32_t *in, int32_t *out, size_t n, void *scratch, int defect,
                            cudaStream_t stream);
cudaError_t scan_defect_f32(const float *in, float *out, size_t n, void *scratch, int defect,
                            cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info scan_kernels[];

#ifdef __cplusplus
}
#endif

#endif
