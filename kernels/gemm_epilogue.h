/* SPDX-License-Identifier: MIT */
/* The seam between kernels/gemm_epilogue.cu and bench/gemm_epilogue.c (both include it). */
#ifndef RB_KERNELS_GEMM_EPILOGUE_H
#define RB_KERNELS_GEMM_EPILOGUE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t gemm_epilogue_baseline_bias_gelu(void *d, const void *bias, size_t rows, size_t ldn,
                                             cudaStream_t stream);
cudaError_t gemm_epilogue_to_bf16(const float *in, float scale, void *out, size_t n,
                                  cudaStream_t stream);
cudaError_t gemm_epilogue_reference(const double *c, const void *bias, float *ref, size_t n,
                                    size_t cols, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info gemm_epilogue_kernels[];

#ifdef __cplusplus
}
#endif

#endif
