/* SPDX-License-Identifier: MIT */
/* The seam between kernels/gemm_autotune.cu and bench/gemm_autotune.c (both include it). */
#ifndef RB_KERNELS_GEMM_AUTOTUNE_H
#define RB_KERNELS_GEMM_AUTOTUNE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t gemm_autotune_to_bf16(const float *in, void *out, size_t rows, size_t ld,
                                  size_t valid_cols, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info gemm_autotune_kernels[];

#ifdef __cplusplus
}
#endif

#endif
