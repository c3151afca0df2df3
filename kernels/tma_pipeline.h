/* SPDX-License-Identifier: MIT */
/* The seam between kernels/tma_pipeline.cu and bench/tma_pipeline.c (both include it). */
#ifndef RB_KERNELS_TMA_PIPELINE_H
#define RB_KERNELS_TMA_PIPELINE_H

#include <cuda.h> /* CUtensorMap */
#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* in: rows x pitch floats (pitch % 4 == 0, pad zero), out: rows x cols. blocks_per_sm: the
 * persistent grid's blocks per SM, 0 for the default (TMA_PIPELINE_BLOCKS_PER_SM). */
cudaError_t tma_pipeline_baseline(const float *in, float *out, int rows, int cols, int pitch,
                                  int blocks_per_sm, cudaStream_t stream);
/* map: from tma_pipeline_encode_map. */
cudaError_t tma_pipeline_optimized(const CUtensorMap *map, float *out, int rows, int cols,
                                   int blocks_per_sm, cudaStream_t stream);
cudaError_t tma_pipeline_reference(const float *in, float *ref, int rows, int cols, int pitch,
                                   cudaStream_t stream);
/* *radius = R, w[(2R+1)^2] row-major; w must hold 81 floats. Host only. */
cudaError_t tma_pipeline_weights(int *radius, float *w);
/* R: the border the zero-bordered image needs on each side. */
int tma_pipeline_halo(void);
/* The tensor map of the (bordered) pitched image `in`, rows x cols of pitch floats. */
cudaError_t tma_pipeline_encode_map(CUtensorMap *map, const float *in, int rows, int cols,
                                    int pitch);
/* The blocks per SM the baseline (variant 0) or optimized (1) kernel fits (occupancy API). */
cudaError_t tma_pipeline_max_blocks_per_sm(int variant, int *blocks_per_sm);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info tma_pipeline_kernels[];

#ifdef __cplusplus
}
#endif

#endif
