/* SPDX-License-Identifier: MIT */
/*
 * l2_persistence: a hot lookup table kept in L2 with an access-policy window while a large
 * stream flows past it, vs the same kernel with normal caching.
 *
 * What: y[i] = x[i] + table[h(i / G) & (T - 1)] over n fp32 elements: one gather from a table of
 *   T floats per G consecutive streamed elements (think of a per-token embedding or bias lookup
 *   beside an elementwise pass). h is a cheap integer hash (lowbias32); indices are computed in
 *   the kernel, so no index array is read. T = 2^L2_PERSISTENCE_TABLE_LOG2 = 2^22 floats (16 MiB
 *   = 16.8 MB) and G = L2_PERSISTENCE_GROUP = 16, both compile-time.
 *
 * Work: compulsory DRAM traffic 4n (x) + 4n (y) + 4T (the table once) = 8n + 4T bytes at full size
 *   (bench/l2_persistence.c counts only the table sectors that n / G random gathers are expected
 *   to touch, 4T (1 - e^(-8 n / (G T))), so small sizes are not charged the whole table); 1 flop
 *   (the add) per element. Full size n = 2^28: 2 GiB streamed + 16 MiB of table.
 *
 * Reuse distance, the napkin math that sets T and G: the n / G gathers land uniformly on the
 *   T / 8 32-byte sectors of the table, so a given sector is touched once every T / 8 gathers,
 *   i.e. every T / 8 * G streamed elements, i.e. every T / 8 * G * 8 = T * G bytes of stream
 *   (each element reads 4 bytes and writes 4, and both pass through L2). Here T * G = 2^22 * 16
 *   bytes = 64 MiB, more than what L2 can hold besides the table, 50 MiB - 16 MiB = 34 MiB: with
 *   normal caching the stream flushes a table sector between most of its uses. (G = 4 would give
 *   16 MiB and the table would mostly survive on its own; a larger G makes each miss matter less,
 *   since one 32-byte miss is spread over 8 G streamed bytes.) The caveat: L2 evicts 128-byte
 *   lines, and a line stays warm while any of its 4 sectors is touched, every T / 32 gathers
 *   = 16 MiB of stream, which is under 34 MiB; how much of the table survives then depends on the
 *   replacement policy, which NVIDIA does not document. A simulation of 2^27 elements (50 MiB
 *   fully associative, 128-byte lines, sector fills) gives: true LRU, 33% of gathers miss
 *   (+8% DRAM bytes over the 8n stream); random replacement, 62% (+16%); LRU with 25 MiB (if
 *   each of the H100's two L2 partitions effectively caches for its own SMs), 72% (+18%).
 *
 * Baseline: the kernel launched plainly. Each thread moves one float4 of x to y, adds one
 *   gathered table value (the 4 lanes of a group of 16 elements load the same address, which a
 *   warp coalesces into one request, so it is one sector read per G elements), and table
 *   sectors that missed are re-read from DRAM as scattered 32-byte reads.
 *
 * Optimized: the same kernel body (a second name, so profilers tell the two apart), launched
 *   with cudaLaunchKernelEx and a per-launch cudaLaunchAttributeAccessPolicyWindow over the
 *   table: hitProp = persisting, missProp = streaming, hitRatio = 1 when the set-aside holds the
 *   whole window, else set-aside / window. Setup sets aside L2 for persisting lines with
 *   cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize) (clamped to persistingL2CacheMaxSize:
 *   32768000 bytes = 31.25 MiB on an H100, 62.5% of its 50 MiB L2), so the 16 MiB table fits.
 *   Normal accesses may use the set-aside while no persisting lines occupy it (CUDA Programming
 *   Guide, "L2 cache set-aside"), so the baseline, which the harness runs first, has all of L2.
 *   Persisting lines are not evicted by normal accesses; after the first launch the whole table
 *   stays in L2 and the kernel moves only the 8n stream. A per-launch attribute rather than a
 *   stream attribute keeps the baseline, on the same stream, plain. Persisting lines outlive the
 *   kernel: teardown must reset them (cudaCtxResetPersistingL2Cache) and give the set-aside back
 *   (limit 0), or the next pair would run with 16 MiB of L2 pinned. The harness runs the
 *   baseline first, so it is never timed after the optimized variant pinned the table.
 *   (A different tool for the same problem: mark the stream evict-first, __ldcs / __stcs, so it
 *   does not push the table out; here the stream uses plain loads and stores in both variants,
 *   as code written without either tool would.)
 *
 * Library: none (the access-policy window is a launch attribute, not a routine).
 *
 * Predicted (H100 SXM, before measuring): optimized ~2.85-2.95 TB/s in declared bytes, a float4
 *   stream (GPU.md: float4 copy 2807-3009 GB/s) whose gathers all hit L2: ~0.74 ms at full size
 *   (in the timed loop the table is already resident, so DRAM moves 8n, 0.8% under the declared
 *   8n + 4T). Baseline: 8-18% more DRAM bytes than the optimized (the simulation above), and the
 *   extra bytes are scattered sector reads, which HBM serves less efficiently than a stream:
 *   1.08-1.3x slower, central ~1.15x. ncu should show the optimized kernel's DRAM bytes within
 *   1% of 8n + 4T (its first launch after a flush reads the table once) and the baseline's reads
 *   0.17-0.4 GB above 4n + 4T. T = 2^21 or G = 4 should show almost no difference; T = 2^23
 *   (32 MiB, over the 31.25 MiB set-aside: hitRatio 0.98) a larger one.
 *
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261125T081152Z-317bbe9.json, the latest full
 *   run; the same figures as 20261122T042738Z-6bfc0b1.json): baseline 0.982 ms (2204 GB/s of
 *   declared bytes), optimized 0.745 ms (2905 GB/s): 1.32x, at the top of the predicted
 *   1.08-1.3x. Why: the baseline's time
 *   matches a kernel in which every gather misses: ncu (cold, first launch) counts 2.657 GB of DRAM
 *   traffic against 2.164 declared, the excess 0.49 GB being about one 32-byte sector per gather
 *   (16.8M x 32 B = 0.54 GB), and 2.657 GB in 0.982 ms is 2.7 TB/s, a streaming rate. The optimized
 *   time is the declared 2.164 GB at 2.9 TB/s, the copy roof: the table is served from L2. ncu
 *   cannot show this directly: with kernel replay and with application replay alike
 *   (...-l2-persistence-ncu-application- replay.csv) both variants read the same bytes at the same
 *   speed, so the profiler does not preserve the persisting state. A control run settles it
 *   (...-l2-persistence-experiments.txt beside the results): the same window and launch path with
 *   nothing marked persisting runs at the baseline's speed (0.984 vs 0.981 ms). The gain grows with
 *   the pressure on L2: an 8 MiB table 1.10x, 16 MiB 1.32x, 32 MiB (over the 31.25 MiB set-aside)
 *   2.31x, where the plain kernel collapses to 818 GB/s; a gather every 4 elements 1.16x, every 64
 *   1.23x. (The control run and the sweeps are in the 20261122T0440Z experiments file.)
 *
 * Audit (issue 9: is the baseline what a competent engineer writes before knowing the pattern?):
 *   yes for the kernel: the baseline is the optimized kernel itself, float4 stream, full
 *   occupancy (8 blocks of 256 per SM), launched without the window, so the 1.32x is the window
 *   alone. But an engineer who knows caches has a cheaper tool for the same problem, named
 *   above: evict-first loads and stores on the stream (__ldcs / __stcs), which keep the stream
 *   from flushing the table without pinning any L2. That variant is not measured here; if it
 *   comes close to the window, the pair should show it as a step (or say why the window is the
 *   better lesson: it also protects the table from other kernels' traffic). The lead's call; no
 *   framework does this operation as such, so there is no library row.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#include "kernel_info.h"
#include "kernels/l2_persistence.h"

/* Tunables: table size (log2 of floats), streamed elements per gather (a power of two), threads
 * per block. */
#ifndef L2_PERSISTENCE_TABLE_LOG2
#define L2_PERSISTENCE_TABLE_LOG2 22
#endif
#ifndef L2_PERSISTENCE_GROUP
#define L2_PERSISTENCE_GROUP 16
#endif
#define L2_PERSISTENCE_BLOCK 256
#ifndef L2_PERSISTENCE_CONTROL
#define L2_PERSISTENCE_CONTROL 0 /* 1: the window marks nothing persisting (control run) */
#endif

#define L2_PERSISTENCE_TABLE_LEN ((size_t)1 << L2_PERSISTENCE_TABLE_LOG2)

#if L2_PERSISTENCE_GROUP < 1 || (L2_PERSISTENCE_GROUP & (L2_PERSISTENCE_GROUP - 1)) != 0
#error "L2_PERSISTENCE_GROUP must be a power of two"
#endif

/* lowbias32 (Chris Wellons' hash prospector): a cheap bijective 32-bit mix, so consecutive
 * groups land on unrelated table entries. bench/l2_persistence.c has its CPU twin, and the
 * small-size cross-check of the reference pins the two together. */
static __device__ __forceinline__ unsigned l2_persistence_hash(unsigned j)
{
    j ^= j >> 16;
    j *= 0x7feb352du;
    j ^= j >> 15;
    j *= 0x846ca68bu;
    j ^= j >> 16;
    return j;
}

/* The table entry that element i adds. */
static __device__ __forceinline__ size_t l2_persistence_slot(size_t i)
{
    return l2_persistence_hash((unsigned)(i / L2_PERSISTENCE_GROUP)) &
           (unsigned)(L2_PERSISTENCE_TABLE_LEN - 1);
}

/* One float4 of the stream per thread (one pass over the data; the loop keeps any grid right),
 * the n % 4 tail elements one per thread. Plain loads and stores: what the cache does with them
 * is the whole point. */
static __device__ __forceinline__ void l2_persistence_body(const float *__restrict__ x,
                                                           const float *__restrict__ table,
                                                           float *__restrict__ y, size_t n)
{
    size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n - 4 * n4) {
        size_t i = 4 * n4 + t;
        y[i] = x[i] + table[l2_persistence_slot(i)];
    }
    for (size_t v = t; v < n4; v += stride) {
        float4 a = ((const float4 *)x)[v];
        size_t i = 4 * v;
        if (L2_PERSISTENCE_GROUP >= 4) {
            /* The 4 elements share a group: one gather (and the 4 lanes of a 16-element group
             * ask for the same address, which the warp's load coalesces). */
            float g = table[l2_persistence_slot(i)];
            a.x += g, a.y += g, a.z += g, a.w += g;
        } else {
            a.x += table[l2_persistence_slot(i)];
            a.y += table[l2_persistence_slot(i + 1)];
            a.z += table[l2_persistence_slot(i + 2)];
            a.w += table[l2_persistence_slot(i + 3)];
        }
        ((float4 *)y)[v] = a;
    }
}

static __global__ void l2_persistence_baseline_kernel(const float *__restrict__ x,
                                                      const float *__restrict__ table,
                                                      float *__restrict__ y, size_t n)
{
    l2_persistence_body(x, table, y, n);
}

/* Identical to the baseline: only the launch differs. */
static __global__ void l2_persistence_optimized_kernel(const float *__restrict__ x,
                                                       const float *__restrict__ table,
                                                       float *__restrict__ y, size_t n)
{
    l2_persistence_body(x, table, y, n);
}

/* Plain and obviously right: one element per loop trip, the sum in fp64. The inputs are
 * multiples of 2^-24 below 1 in magnitude, so their sum is exact in a double, and rounding it to
 * float gives the correctly rounded fp32 add: bit for bit what the kernels compute. */
static __global__ void l2_persistence_reference_kernel(const float *__restrict__ x,
                                                       const float *__restrict__ table,
                                                       float *__restrict__ ref, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        ref[i] = (float)((double)x[i] + (double)table[l2_persistence_slot(i)]);
}

static unsigned l2_persistence_blocks(size_t n)
{
    size_t threads = n / 4 > n % 4 ? n / 4 : n % 4;
    size_t blocks = (threads + L2_PERSISTENCE_BLOCK - 1) / L2_PERSISTENCE_BLOCK;
    return blocks ? (unsigned)blocks : 1u;
}

/* The compile-time shape of the problem, for the work model and the CPU reference. */
extern "C" cudaError_t l2_persistence_config(size_t *table_len, size_t *group)
{
    *table_len = L2_PERSISTENCE_TABLE_LEN;
    *group = L2_PERSISTENCE_GROUP;
    return cudaSuccess;
}

/* Sets aside L2 for persisting lines (up to the device's maximum) and returns the window to use
 * over the table: its size (clamped to the device's maximum window) and the hit ratio that the
 * set-aside can honour. cudaErrorNotSupported when the device has no persisting L2. */
extern "C" cudaError_t l2_persistence_set_aside(size_t table_bytes, size_t *window_bytes,
                                                float *hit_ratio)
{
    int dev = 0, max_persisting = 0, max_window = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev);
    if (e != cudaSuccess)
        return e;
    if (max_persisting <= 0 || max_window <= 0)
        return cudaErrorNotSupported;
    size_t want = table_bytes < (size_t)max_persisting ? table_bytes : (size_t)max_persisting;
    e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want);
    size_t got = 0;
    if (e == cudaSuccess)
        e = cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize);
    if (e != cudaSuccess)
        return e;
    *window_bytes = table_bytes < (size_t)max_window ? table_bytes : (size_t)max_window;
    *hit_ratio = got >= *window_bytes ? 1.0f : (float)((double)got / (double)*window_bytes);
    return cudaSuccess;
}

/* Demotes every persisting line to normal and gives the set-aside back. Both are attempted. */
extern "C" cudaError_t l2_persistence_reset(void)
{
    cudaError_t e = cudaCtxResetPersistingL2Cache();
    cudaError_t e2 = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    return e != cudaSuccess ? e : e2;
}

/* x and y must be 16-byte aligned (cudaMalloc gives 256). */
extern "C" cudaError_t l2_persistence_baseline(const float *x, const float *table, float *y,
                                               size_t n, cudaStream_t stream)
{
    l2_persistence_baseline_kernel<<<l2_persistence_blocks(n), L2_PERSISTENCE_BLOCK, 0, stream>>>(
        x, table, y, n);
    return cudaGetLastError();
}

/* The same launch with an access-policy window over the table, for this launch only. */
extern "C" cudaError_t l2_persistence_optimized(const float *x, const float *table, float *y,
                                                size_t n, size_t window_bytes, float hit_ratio,
                                                cudaStream_t stream)
{
    cudaLaunchAttribute attr = {}; /* zeroed (C++ value-initialization: the types have ctors) */
    attr.id = cudaLaunchAttributeAccessPolicyWindow;
    attr.val.accessPolicyWindow.base_ptr = (void *)table;
    attr.val.accessPolicyWindow.num_bytes = window_bytes;
    attr.val.accessPolicyWindow.hitRatio = hit_ratio;
#if L2_PERSISTENCE_CONTROL
    /* The control experiment: the same window and launch path, nothing marked persisting. */
    attr.val.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
    attr.val.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
#else
    attr.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
#endif
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(l2_persistence_blocks(n));
    config.blockDim = dim3(L2_PERSISTENCE_BLOCK);
    config.stream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    cudaError_t e = cudaLaunchKernelEx(&config, l2_persistence_optimized_kernel, x, table, y, n);
    if (e != cudaSuccess)
        return e;
    return cudaGetLastError();
}

extern "C" cudaError_t l2_persistence_reference(const float *x, const float *table, float *ref,
                                                size_t n, cudaStream_t stream)
{
    l2_persistence_reference_kernel<<<2048, 256, 0, stream>>>(x, table, ref, n);
    return cudaGetLastError();
}

/* The kernels each variant launches, as launched (harness/kit/kernel_info.h); the reference kernel
 * runs in setup only. */
extern "C" const rb_kernel_info l2_persistence_kernels[] = {
    {"baseline", "l2_persistence_baseline_kernel", (const void *)l2_persistence_baseline_kernel,
     L2_PERSISTENCE_BLOCK, 0},
    {"optimized", "l2_persistence_optimized_kernel", (const void *)l2_persistence_optimized_kernel,
     L2_PERSISTENCE_BLOCK, 0},
    {}};
