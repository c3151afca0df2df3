/* SPDX-License-Identifier: MIT */
/* The seam between kernels/streams_overlap.cu and bench/streams_overlap.c (both include it). */
#ifndef RB_KERNELS_STREAMS_OVERLAP_H
#define RB_KERNELS_STREAMS_OVERLAP_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t streams_overlap_process(const float *in_dev, float *out_dev, size_t n,
                                    cudaStream_t stream);
void streams_overlap_chunk(size_t n, int c, size_t *start, size_t *count);
cudaError_t streams_overlap_serial(const float *in_host, float *in_dev, float *out_dev,
                                   float *out_host, size_t n, cudaStream_t stream);
cudaError_t streams_overlap_pipelined(const float *in_host, float *in_dev, float *out_dev,
                                      float *out_host, size_t n, cudaStream_t stream,
                                      const cudaStream_t *lanes, const cudaEvent_t *events);
cudaError_t streams_overlap_duplex(const float *in_host, float *in_dev, const float *result_dev,
                                   float *out_host, size_t n, cudaStream_t stream,
                                   const cudaStream_t *lanes, const cudaEvent_t *events);

/* Compile-time constants of the .cu (-D), read by the harness. */
extern const int streams_overlap_iters, streams_overlap_lanes, streams_overlap_chunk_count;
extern const float streams_overlap_a, streams_overlap_b;

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info streams_overlap_kernels[];

#ifdef __cplusplus
}
#endif

#endif
