/* SPDX-License-Identifier: MIT */
/*
 * p2p_copy: a large buffer copied from GPU 0 to GPU 1, staged through host memory vs directly
 * between the GPUs (peer to peer).
 *
 * What: out = in, n fp32 elements, with in in GPU 0's memory and out in GPU 1's. The pair needs
 *   two GPUs (rb_pair.min_gpus = 2) that can access each other's memory
 *   (cudaDeviceCanAccessPeer both ways); setup reports which answer was no otherwise.
 *
 * Work: 0 flops; bytes = 4n, the bytes that cross from GPU 0 to GPU 1, so the GB/s column is
 *   the one-way throughput of the path between the GPUs (each byte is also read once from GPU
 *   0's DRAM and written once to GPU 1's, but a few hundred GB/s of link is the bottleneck, not
 *   3-5 TB/s of DRAM). Full size n = 2^28: 1 GiB.
 *
 * Baseline (host-staged): what a first multi-GPU program does when it does not know about peer
 *   access: cudaMemcpyAsync device-to-host into one pinned buffer, then host-to-device from it
 *   to GPU 1, one whole-buffer copy after the other (the second waits for the first through an
 *   event). Every byte crosses PCIe twice, and the two crossings do not overlap:
 *   t = S / B_d2h + S / B_h2d.
 *
 * Step `peer_read`: p2p_copy_peer_read_kernel runs on GPU 1 and loads GPU 0's buffer through
 *   its unified address (peer access enabled): each load crosses NVLink, each store stays in
 *   GPU 1's memory. One 16-byte load per thread; a full grid keeps ~2048 threads x 16 bytes =
 *   32 KB in flight per SM, far more than Little's law asks of a ~450 GB/s link with ~1-2 us of
 *   remote latency (~0.5-1 MB for the whole GPU).
 *
 * Optimized: cudaMemcpyPeerAsync with peer access enabled both ways: the copy engines move the
 *   buffer over NVLink directly, no SM involved, no host memory touched.
 *
 * Predicted (H100 SXM or H200 SXM pair, NVLink 4: 18 links x 25 GB/s = 450 GB/s each way;
 *   PCIe gen 5 x16 to the host, 63 GB/s each way in theory, ~50-55 GB/s with pinned memory):
 *   baseline ~25 GB/s (two serial PCIe crossings at ~53 GB/s: 1 / (1/53 + 1/53));
 *   peer_read ~360-400 GB/s (remote loads carry request and response packets; ~80-90% of the
 *   link); optimized ~390 GB/s (GPU.md measured 394 GB/s one way on 2 x H200: 88% of 450), so
 *   ~15x over the baseline. Acceptance on 2 x H200: optimized >= 370 GB/s.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#include "kernel_info.h"
#include "kernels/p2p_copy.h"

/* Tunable: threads per block of the peer_read kernel (one 16-byte element each). */
#ifndef P2P_COPY_BLOCK
#define P2P_COPY_BLOCK 256
#endif

/* One float4 per thread, loaded across the link from the other GPU's memory; the n % 4 last
 * floats are copied one by one by the first threads of the grid. The buffers come from
 * cudaMalloc (256-byte aligned), so the float4 view is aligned. */
static __global__ void __launch_bounds__(P2P_COPY_BLOCK)
    p2p_copy_peer_read_kernel(const float *__restrict__ peer_in, float *__restrict__ out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    if (i < n4)
        ((float4 *)out)[i] = ((const float4 *)peer_in)[i];
    if (i < n - 4 * n4)
        out[4 * n4 + i] = peer_in[4 * n4 + i];
}

/* Launched on a stream of the GPU that owns out; peer_in lives on the other GPU. */
extern "C" cudaError_t p2p_copy_peer_read(const float *peer_in, float *out, size_t n,
                                          cudaStream_t stream)
{
    size_t threads = n / 4 > 3 ? n / 4 : 3; /* at least the 3 tail threads */
    size_t blocks = (threads + P2P_COPY_BLOCK - 1) / P2P_COPY_BLOCK;
    if (blocks > 0x7FFFFFFFu)
        return cudaErrorInvalidConfiguration;
    p2p_copy_peer_read_kernel<<<(unsigned)blocks, P2P_COPY_BLOCK, 0, stream>>>(peer_in, out, n);
    return cudaGetLastError();
}

extern "C" const rb_kernel_info p2p_copy_kernels[] = {
    {"peer_read", "p2p_copy_peer_read_kernel", (const void *)p2p_copy_peer_read_kernel,
     P2P_COPY_BLOCK, 0},
    {NULL, NULL, NULL, 0, 0}}; /* {0} would warn in C++ (-Wmissing-field-initializers) */
