/* SPDX-License-Identifier: MIT */
/* The seam between kernels/l2_persistence.cu and bench/l2_persistence.c (both include it). */
#ifndef RB_KERNELS_L2_PERSISTENCE_H
#define RB_KERNELS_L2_PERSISTENCE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t l2_persistence_config(size_t *table_len, size_t *group);
cudaError_t l2_persistence_set_aside(size_t table_bytes, size_t *window_bytes, float *hit_ratio);
cudaError_t l2_persistence_reset(void);
cudaError_t l2_persistence_baseline(const float *x, const float *table, float *y, size_t n,
                                    cudaStream_t stream);
cudaError_t l2_persistence_optimized(const float *x, const float *table, float *y, size_t n,
                                     size_t window_bytes, float hit_ratio, cudaStream_t stream);
cudaError_t l2_persistence_reference(const float *x, const float *table, float *ref, size_t n,
                                     cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info l2_persistence_kernels[];

#ifdef __cplusplus
}
#endif

#endif
