/* SPDX-License-Identifier: MIT */
/*
 * A diagnostic for kernels/cuda_graphs.cu, not part of the suite: the per-node cost of a CUDA graph
 * of 1000 dependent copies of one of the pair's kernels, with plain edges and with programmatic
 * dependent launch. It says which kernel of a decode step costs what once launches are cheap,
 * which the step's total cannot. Build and run on the GPU machine from the repository root:
 *   make diagnostics ARCH=sm_90 && build/sm_90/cuda_graphs_chain
 * The pair's tunables (-DCUDA_GRAPHS_BLOCK=512, ...) apply. Recorded output:
 * results/nvidia-h100-80gb-hbm3/20261125T0520Z-cuda-graphs-chains.txt.
 */
#include "../../kernels/cuda_graphs.cu"

#include <stdio.h>
#include <stdlib.h>

#define CHAIN_CHECK(call)                                                                          \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

enum { CHAIN_NODES = 1000, CHAIN_REPLAYS = 3, CHAIN_ROUNDS = 10 };

/* Builds the chain of kernel `kind` (pdl: programmatic edges), replays it and stores the best
 * per-node time in *us. */
static int chain(int kind, int pdl, float *x, const float *g, float *h, float *p, size_t d,
                 double *us)
{
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaEvent_t e0, e1;
    CHAIN_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHAIN_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < CHAIN_NODES; k++) {
        cudaLaunchAttribute a;
        cudaLaunchConfig_t ew = cg_config(cg_blocks(d), CUDA_GRAPHS_BLOCK, s, pdl && k > 0, &a);
        cudaLaunchConfig_t red =
            cg_config(cg_reduce_blocks(d), CUDA_GRAPHS_BLOCK, s, pdl && k > 0, &a);
        cudaLaunchConfig_t rows =
            cg_config(cg_softmax_blocks(d), CUDA_GRAPHS_BLOCK, s, pdl && k > 0, &a);
        switch (kind) {
        case 0:
            CHAIN_CHECK(cudaLaunchKernelEx(&ew, cuda_graphs_embed_kernel, (const float *)x, h, d));
            break;
        case 1:
            CHAIN_CHECK(cudaLaunchKernelEx(&red, cuda_graphs_rmsnorm_kernel, (const float *)x, g,
                                           1.0f, h, d));
            break;
        case 2:
            CHAIN_CHECK(cudaLaunchKernelEx(&ew, cuda_graphs_silu_kernel, h, d));
            break;
        case 3:
            CHAIN_CHECK(
                cudaLaunchKernelEx(&rows, cuda_graphs_softmax_kernel, (const float *)h, p, d));
            break;
        case 4:
            CHAIN_CHECK(cudaLaunchKernelEx(&ew, cuda_graphs_gate_kernel, h, (const float *)p,
                                           (size_t)97, d));
            break;
        default:
            CHAIN_CHECK(cudaLaunchKernelEx(&ew, cuda_graphs_residual_kernel, x, (const float *)h,
                                           0.025f, d));
        }
    }
    CHAIN_CHECK(cudaStreamEndCapture(s, &graph));
    CHAIN_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHAIN_CHECK(cudaGraphUpload(exec, s));
    CHAIN_CHECK(cudaEventCreate(&e0));
    CHAIN_CHECK(cudaEventCreate(&e1));
    for (int w = 0; w < CHAIN_REPLAYS; w++)
        CHAIN_CHECK(cudaGraphLaunch(exec, s));
    float best = INFINITY;
    for (int r = 0; r < CHAIN_ROUNDS; r++) {
        float ms = 0.0f;
        CHAIN_CHECK(cudaEventRecord(e0, s));
        for (int k = 0; k < CHAIN_REPLAYS; k++)
            CHAIN_CHECK(cudaGraphLaunch(exec, s));
        CHAIN_CHECK(cudaEventRecord(e1, s));
        CHAIN_CHECK(cudaEventSynchronize(e1));
        CHAIN_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        best = ms < best ? ms : best;
    }
    *us = best * 1000.0 / CHAIN_REPLAYS / CHAIN_NODES;
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    return 0;
}

int main(void)
{
    const size_t d = 4096;
    float *buf[4], *init = (float *)malloc(d * sizeof(float));
    if (!init)
        return 1;
    for (size_t i = 0; i < d; i++) /* values near 0.5, never zero */
        init[i] = 0.5f + 0.001f * (float)(i % 97);
    for (int b = 0; b < 4; b++) {
        CHAIN_CHECK(cudaMalloc((void **)&buf[b], d * sizeof(float)));
        CHAIN_CHECK(cudaMemcpy(buf[b], init, d * sizeof(float), cudaMemcpyHostToDevice));
    }
    free(init);
    const char *names[] = {"embed", "rmsnorm", "silu", "softmax", "gate", "residual"};
    for (int kind = 0; kind < 6; kind++) {
        double plain, pdl;
        if (chain(kind, 0, buf[0], buf[1], buf[2], buf[3], d, &plain) ||
            chain(kind, 1, buf[0], buf[1], buf[2], buf[3], d, &pdl))
            return 1;
        printf("%-9s plain %.3f us  pdl %.3f us per node (%d nodes, best of %d x %d replays, "
               "d = %zu)\n",
               names[kind], plain, pdl, CHAIN_NODES, CHAIN_ROUNDS, CHAIN_REPLAYS, d);
    }
    return 0;
}
