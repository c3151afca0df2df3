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

/* in: rows x pitch floats, out: rows x cols. */
cudaError_t async_pipeline_baseline(const float *in, float *out, int rows, int cols, int pitch,
                                    cudaStream_t stream);
cudaError_t async_pipeline_optimized(const float *in, float *out, int rows, int cols, int pitch,
                                     cudaStream_t stream);
cudaError_t async_pipeline_reference(const float *in, float *ref, int rows, int cols, int pitch,
                                     cudaStream_t stream);
cudaError_t async_pipeline_weights(int *radius, float *w);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info async_pipeline_kernels[];

#ifdef __cplusplus
}
#endif

#endif
