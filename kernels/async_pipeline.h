/* SPDX-License-Identifier: MIT */
/* The seam between kernels/async_pipeline.cu and bench/async_pipeline.c (both include it). */
#ifndef RB_KERNELS_ASYNC_PIPELINE_H
#define RB_KERNELS_ASYNC_PIPELINE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = in w, fp32 row-major: in m x K, w K x N, out m x N (K, N: async_pipeline_dims), 16-byte
 * aligned; 1 <= m <= 2^22. blocks_per_sm: the persistent grid's blocks per SM, 0 for all the
 * kernel fits (its best). */
cudaError_t async_pipeline_baseline(const float *in, const float *w, float *out, int m,
                                    int blocks_per_sm, cudaStream_t stream);
cudaError_t async_pipeline_optimized(const float *in, const float *w, float *out, int m,
                                     int blocks_per_sm, cudaStream_t stream);
/* fp64 accumulation, one thread per output (setup only). */
cudaError_t async_pipeline_reference(const float *in, const float *w, float *ref, int m,
                                     cudaStream_t stream);
/* The blocks per SM the baseline (variant 0) or optimized (1) kernel fits (occupancy API). */
cudaError_t async_pipeline_max_blocks_per_sm(int variant, int *blocks_per_sm);
/* The dynamic shared memory per block each variant's kernel needs. */
int async_pipeline_smem_bytes(int variant);
/* The shape the kernels are built for: *k = K, *n = N. */
void async_pipeline_dims(int *k, int *n);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info async_pipeline_kernels[];

#ifdef __cplusplus
}
#endif

#endif
