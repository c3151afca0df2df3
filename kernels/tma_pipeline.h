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

cudaError_t tma_pipeline_upload_weights(void);
int tma_pipeline_halo(void);
cudaError_t tma_pipeline_encode_map(CUtensorMap *map, const float *in, int rows, int cols,
                                    int pitch);
cudaError_t tma_pipeline_optimized(const CUtensorMap *map, float *out, int rows, int cols,
                                   cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info tma_pipeline_kernels[];

#ifdef __cplusplus
}
#endif

#endif
