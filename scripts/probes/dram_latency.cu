// SPDX-License-Identifier: MIT
// usage: nvcc -O3 -arch=sm_90 -o dram_latency scripts/probes/dram_latency.cu && ./dram_latency
// One thread chases a random cyclic permutation (Sattolo) of 128-byte nodes over a footprint:
// each load's address is the previous load's value, so the time per step is the unloaded load
// latency of wherever the footprint lives (L2 when it fits, DRAM when it is several times L2).
// Prints "footprint_MiB ns_per_load" per footprint. A probe for Little's law (bytes in flight =
// bandwidth x latency); `roofbench ceilings` measures dram_latency_us the same way.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void chase(const unsigned *next, unsigned start, int steps, unsigned *sink)
{
    unsigned p = start;
    for (int i = 0; i < steps; i++)
        p = __ldcg(next + p);
    *sink = p;
}

int main()
{
    const size_t node = 32; // unsigned words per node: 128 bytes, one line per step
    const size_t mibs[] = {8, 32, 256, 1024, 4096};
    unsigned *sink;
    cudaMalloc(&sink, 4);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (size_t f : mibs) {
        size_t words = f << 18, nodes = words / node;
        std::vector<unsigned> perm(nodes), h(words, 0);
        for (size_t i = 0; i < nodes; i++)
            perm[i] = (unsigned)i;
        srand(7);
        for (size_t i = nodes - 1; i > 0; i--) { // Sattolo: one cycle through every node
            size_t j = ((size_t)rand() * RAND_MAX + rand()) % i;
            unsigned t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (size_t i = 0; i < nodes; i++)
            h[i * node] = perm[i] * (unsigned)node;
        unsigned *d;
        if (cudaMalloc(&d, words * 4) != cudaSuccess)
            return 1;
        cudaMemcpy(d, h.data(), words * 4, cudaMemcpyHostToDevice);
        const int steps = 200000;
        chase<<<1, 1>>>(d, 0, steps / 10, sink); // warm the TLBs and, for small sets, L2
        cudaEventRecord(a);
        chase<<<1, 1>>>(d, 0, steps, sink);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        printf("%zu MiB %.1f ns per load\n", f, ms * 1e6 / steps);
        cudaFree(d);
    }
    return cudaGetLastError() != cudaSuccess;
}
