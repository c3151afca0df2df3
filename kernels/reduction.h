/* SPDX-License-Identifier: MIT */
/* The seam between kernels/reduction.cu and bench/reduction.c (both include it). */
#ifndef RB_KERNELS_REDUCTION_H
#define RB_KERNELS_REDUCTION_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t reduction_baseline_scratch(size_t n, size_t *floats);
cudaError_t reduction_baseline(const float *in, size_t n, float *out, float *scratch,
                               cudaStream_t stream);
cudaError_t reduction_optimized_scratch(size_t n, size_t *floats);
cudaError_t reduction_optimized(const float *in, size_t n, float *out, float *partials,
                                cudaStream_t stream);
cudaError_t reduction_library_temp_bytes(size_t n, size_t *bytes);
cudaError_t reduction_library(const float *in, size_t n, float *out, void *temp, size_t temp_bytes,
                              cudaStream_t stream);
cudaError_t reduction_map_input(float *x, size_t n, cudaStream_t stream);
cudaError_t reduction_reference(const float *x, size_t n, unsigned long long *acc,
                                cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info reduction_kernels[];

#ifdef __cplusplus
}
#endif

#endif
