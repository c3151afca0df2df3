/* SPDX-License-Identifier: MIT */
/* The seam between kernels/softmax.cu and bench/softmax.c (both include it). */
#ifndef RB_KERNELS_SOFTMAX_H
#define RB_KERNELS_SOFTMAX_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t softmax_baseline(const float *x, float *y, float *row_max, float *row_sum, size_t rows,
                             size_t cols, cudaStream_t stream);
cudaError_t softmax_optimized(const float *x, float *y, size_t rows, size_t cols,
                              cudaStream_t stream);
cudaError_t softmax_reference(const float *x, float *ref, size_t rows, size_t cols,
                              cudaStream_t stream);
cudaError_t softmax_scale(float *x, size_t n, float factor, cudaStream_t stream);
/* A planted defect for the tests (see the .cu): the baseline summing cols rounded down to 4. */
cudaError_t softmax_defect_truncated_sum(const float *x, float *y, float *row_max, float *row_sum,
                                         size_t rows, size_t cols, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info softmax_kernels[];

#ifdef __cplusplus
}
#endif

#endif
