/* SPDX-License-Identifier: MIT */
/* The seam between kernels/fused_elementwise.cu and bench/fused_elementwise.c (both include it). */
#ifndef RB_KERNELS_FUSED_ELEMENTWISE_H
#define RB_KERNELS_FUSED_ELEMENTWISE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t fused_elementwise_baseline(const void *x, const void *bias, const void *residual,
                                       void *t1, void *t2, void *y, size_t n, size_t cols,
                                       cudaStream_t stream);
cudaError_t fused_elementwise_optimized(const void *x, const void *bias, const void *residual,
                                        void *y, size_t n, size_t cols, cudaStream_t stream);
cudaError_t fused_elementwise_to_bf16(const float *in, float scale, void *out, size_t n,
                                      cudaStream_t stream);
cudaError_t fused_elementwise_reference(const void *x, const void *bias, const void *residual,
                                        float *ref, size_t n, size_t cols, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info fused_elementwise_kernels[];

#ifdef __cplusplus
}
#endif

#endif
