/* SPDX-License-Identifier: MIT */
/* The seam between kernels/cuda_graphs.cu and bench/cuda_graphs.c (both include it). */
#ifndef RB_KERNELS_CUDA_GRAPHS_H
#define RB_KERNELS_CUDA_GRAPHS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t cuda_graphs_stream_step(const float *in, float *x, float *h, float *p,
                                    const float *gains, float *out, float scale, size_t d,
                                    cudaStream_t stream);
cudaError_t cuda_graphs_capture(const float *in, float *x, float *h, float *p, const float *gains,
                                float *out, size_t d, int pdl, cudaGraph_t *graph,
                                cudaGraphNode_t *embed_node, cudaGraphNode_t *final_node);
int cuda_graphs_pdl_supported(void);
cudaError_t cuda_graphs_instantiate(cudaGraph_t graph, cudaGraphExec_t *exec);
cudaError_t cuda_graphs_replay(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cuda_graphs_replay_updated(cudaGraphExec_t exec, cudaGraphNode_t embed_node,
                                       cudaGraphNode_t final_node, const float *in, float *x,
                                       const float *g_final, float scale, float *out, size_t d,
                                       cudaStream_t stream);

/* Compile-time constants of the .cu (-D), read by the harness. */
extern const int cuda_graphs_layers, cuda_graphs_kernels_per_step;
extern const float cuda_graphs_eps, cuda_graphs_inv_temp;
extern const int cuda_graphs_rotate, cuda_graphs_row;

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info cuda_graphs_kernels[];

#ifdef __cplusplus
}
#endif

#endif
