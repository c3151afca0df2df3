/* SPDX-License-Identifier: MIT */
/*
 * The P2P matrix's kernels (harness/runner/p2p_kernels.h). The latch: the host queues it, a
 * start event, N small peer copies and a stop event, then releases it; the events then span the
 * copies as the copy engine runs them one after the other. The global timer (ns) bounds the
 * wait. The chase: a single thread's loads, each address the value of the load before, so no
 * two are in flight: the time per step is the round trip of one load over the link (the peer's
 * L2 may hold the chain; its DRAM adds ~0.5 us when it does not).
 */
#include "p2p_kernels.h"

static __device__ unsigned long long p2p_global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __global__ void p2p_latch_kernel(const volatile int *flag, unsigned long long timeout_ns,
                                        int *timed_out)
{
    const unsigned long long t0 = p2p_global_ns();
    int late = 0;
    while (*flag == 0) {
        if (p2p_global_ns() - t0 > timeout_ns) {
            late = 1;
            break;
        }
    }
    *timed_out = late;
}

static __global__ void p2p_chase_kernel(const volatile unsigned *chain, int steps, unsigned *sink)
{
    unsigned i = 0;
    for (int s = 0; s < steps; s++)
        i = chain[i];
    *sink = i;
}

extern "C" cudaError_t rb_p2p_chase(const unsigned *chain, int steps, unsigned *sink,
                                    cudaStream_t stream)
{
    p2p_chase_kernel<<<1, 1, 0, stream>>>(chain, steps, sink);
    return cudaGetLastError();
}

extern "C" cudaError_t rb_p2p_latch(const volatile int *flag, unsigned long long timeout_ns,
                                    int *timed_out, cudaStream_t stream)
{
    p2p_latch_kernel<<<1, 1, 0, stream>>>(flag, timeout_ns, timed_out);
    return cudaGetLastError();
}
