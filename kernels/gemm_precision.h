/* SPDX-License-Identifier: MIT */
/* The seam between kernels/gemm_precision.cu and bench/gemm_precision.c (both include it). */
#ifndef RB_KERNELS_GEMM_PRECISION_H
#define RB_KERNELS_GEMM_PRECISION_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t gemm_precision_quantize(const float *in, void *out, int format, size_t rows, size_t ld,
                                    size_t valid_rows, size_t valid_cols, float inv_scale,
                                    cudaStream_t stream);
cudaError_t gemm_precision_amax(const float *in, size_t rows, size_t ld, size_t valid_cols,
                                float *amax, cudaStream_t stream);
cudaError_t gemm_precision_to_f64(const void *in, int format, size_t n, float scale, double *out,
                                  cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info gemm_precision_kernels[];

#ifdef __cplusplus
}
#endif

#endif
