/* SPDX-License-Identifier: MIT */
/*
 * The P2P matrix's kernel (harness/runner/p2p_kernels.h; its latch is the kit's rb_latch). The
 * chase: a single thread's loads, each address the value of the load before, so no
 * two are in flight: the time per step is the round trip of one load over the link (the peer's
 * L2 may hold the chain; its DRAM adds ~0.5 us when it does not).
 */
#include "p2p_kernels.h"

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
