/* SPDX-License-Identifier: MIT */
/* The seam between kernels/sgemm.cu and bench/sgemm.c (both include it). */
#ifndef RB_KERNELS_SGEMM_H
#define RB_KERNELS_SGEMM_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C = A B, row-major, 1 <= m, n, k <= SGEMM_MAX_DIM (bench/sgemm.c), pointers 16-byte aligned. */
cudaError_t sgemm_baseline(const float *a, const float *b, float *c, int m, int n, int k,
                           cudaStream_t stream);
cudaError_t sgemm_coalesced(const float *a, const float *b, float *c, int m, int n, int k,
                            cudaStream_t stream);
cudaError_t sgemm_smem_tiled(const float *a, const float *b, float *c, int m, int n, int k,
                             cudaStream_t stream);
cudaError_t sgemm_reg_1d(const float *a, const float *b, float *c, int m, int n, int k,
                         cudaStream_t stream);
cudaError_t sgemm_reg_2d_vec4(const float *a, const float *b, float *c, int m, int n, int k,
                              cudaStream_t stream);
cudaError_t sgemm_optimized(const float *a, const float *b, float *c, int m, int n, int k,
                            cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info sgemm_kernels[];

#ifdef __cplusplus
}
#endif

#endif
