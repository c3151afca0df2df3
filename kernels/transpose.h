/* SPDX-License-Identifier: MIT */
/* The seam between kernels/transpose.cu and bench/transpose.c (both include it). */
#ifndef RB_KERNELS_TRANSPOSE_H
#define RB_KERNELS_TRANSPOSE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t transpose_baseline(const float *in, float *out, size_t rows, size_t cols,
                               cudaStream_t stream);
cudaError_t transpose_tiled(const float *in, float *out, size_t rows, size_t cols,
                            cudaStream_t stream);
cudaError_t transpose_padded(const float *in, float *out, size_t rows, size_t cols,
                             cudaStream_t stream);
/* 16-byte accesses where rows and cols are multiples of 4 (and the pointers 16-byte aligned);
 * any other shape runs transpose_padded. */
cudaError_t transpose_optimized(const float *in, float *out, size_t rows, size_t cols,
                                cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info transpose_kernels[];

#ifdef __cplusplus
}
#endif

#endif
