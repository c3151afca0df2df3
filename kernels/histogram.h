/* SPDX-License-Identifier: MIT */
/* The seam between kernels/histogram.cu and bench/histogram.c (both include it). */
#ifndef RB_KERNELS_HISTOGRAM_H
#define RB_KERNELS_HISTOGRAM_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t histogram_baseline(const unsigned char *in, size_t n, unsigned *hist,
                               cudaStream_t stream);
cudaError_t histogram_optimized_grid(size_t n, int *blocks);
cudaError_t histogram_optimized(const unsigned char *in, size_t n, unsigned *hist, int blocks,
                                cudaStream_t stream);
cudaError_t histogram_library_temp_bytes(size_t n, size_t *bytes);
cudaError_t histogram_library(const unsigned char *in, size_t n, unsigned *hist, void *temp,
                              size_t temp_bytes, cudaStream_t stream);
cudaError_t histogram_make_input(unsigned char *x, size_t n, uint64_t seed, int skewed,
                                 cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info histogram_kernels[];

#ifdef __cplusplus
}
#endif

#endif
