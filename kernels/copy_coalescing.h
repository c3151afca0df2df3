/* SPDX-License-Identifier: MIT */
/* The seam between kernels/copy_coalescing.cu and bench/copy_coalescing.c (both include it). */
#ifndef RB_KERNELS_COPY_COALESCING_H
#define RB_KERNELS_COPY_COALESCING_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

/* The image width the kernels see the array as (elements per row); the last row may be
 * partial. bench/copy_coalescing.c uses it for its planted defects. */
#define COPY_COALESCING_WIDTH 8192

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t copy_coalescing_baseline(const float *in, float *out, size_t n, cudaStream_t stream);
cudaError_t copy_coalescing_optimized(const float *in, float *out, size_t n, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info copy_coalescing_kernels[];

#ifdef __cplusplus
}
#endif

#endif
