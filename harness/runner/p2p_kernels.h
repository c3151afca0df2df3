/* SPDX-License-Identifier: MIT */
/*
 * The one kernel of the P2P matrix (harness/runner/p2p_matrix.c): a latch that holds a stream
 * while the host queues the copies to be timed behind it, so that a run of small copies is
 * timed as the GPU executes them back to back, not as fast as the host can enqueue them (the
 * way p2pBandwidthLatencyTest and nvbandwidth time their latencies).
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

#ifdef __cplusplus
}
#endif

#endif
