/* SPDX-License-Identifier: MIT */
/*
 * The kernel of the P2P matrix (harness/runner/p2p_matrix.c): a pointer chase through a peer's
 * memory, one dependent load after the other (the way nvbandwidth times an SM's peer latency).
 * Its copy latency is timed behind the kit's latch (gpu.h: rb_latch), the way
 * p2pBandwidthLatencyTest times its latency.
 */
#ifndef RB_P2P_KERNELS_H
#define RB_P2P_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One thread follows the chain in chain (another GPU's memory, peer access enabled: each
 * element holds the index of the next) for `steps` loads, each waiting for the one before,
 * with volatile loads (not kept in the reading SM's L1); stores where it ended to *sink. */
cudaError_t rb_p2p_chase(const unsigned *chain, int steps, unsigned *sink, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
