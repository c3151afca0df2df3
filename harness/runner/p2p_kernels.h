/* SPDX-License-Identifier: MIT */
/*
 * The kernels of the P2P matrix (harness/runner/p2p_matrix.c): a latch that holds a stream
 * while the host queues the copies to be timed behind it, so that a run of small copies is
 * timed as the GPU executes them back to back, not as fast as the host can enqueue them (the
 * way p2pBandwidthLatencyTest times its latency); and a pointer chase through a peer's memory,
 * one dependent load after the other (the way nvbandwidth times an SM's peer latency).
 */
#ifndef RB_P2P_KERNELS_H
#define RB_P2P_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One thread that spins until *flag (mapped, pinned host memory the host sets to nonzero)
 * is nonzero, or timeout_ns of the GPU's global timer have passed (a host that dies or a
 * queue that blocks the host cannot hang the GPU); then it sets *timed_out (device memory, 0
 * or 1). Enqueue only. */
cudaError_t rb_p2p_latch(const volatile int *flag, unsigned long long timeout_ns, int *timed_out,
                         cudaStream_t stream);

/* One thread follows the chain in chain (another GPU's memory, peer access enabled: each
 * element holds the index of the next) for `steps` loads, each waiting for the one before,
 * with volatile loads (not kept in the reading SM's L1); stores where it ended to *sink. */
cudaError_t rb_p2p_chase(const unsigned *chain, int steps, unsigned *sink, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
