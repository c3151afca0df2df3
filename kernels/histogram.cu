/* SPDX-License-Identifier: MIT */
/*
 * histogram: 256-bin byte histogram, from one global atomic per byte to conflict-free
 * shared-memory sub-histograms.
 *
 * What: hist[b] = #{i : x[i] == b} for n bytes x and b in 0..255 (uint32 counts). Two inputs:
 *   "uniform" (random bytes) and "skewed" (half of the bytes are 0x2A, the rest random): the
 *   same work, but a contended bin on the second.
 *
 * Work: 0 flops; n bytes read + 256 x 4 bytes written = n + 1024 bytes of compulsory DRAM
 *   traffic. Full size n = 2^28 (256 MiB, > 4x the 50 MB L2). The harness holds two copies of
 *   the input and each launch reads the other one than the launch before (bench/histogram.c),
 *   so every timed launch reads its input from DRAM: on one copy, back-to-back launches found
 *   up to 4% of it still in L2 (ncu: 256.8 MB read against 268.4 MB declared). At the datasheet 3352 GB/s one
 *   pass takes 80 us; the kernel must count 2^28 bytes in that time: 3.4e12 counts/s, ~14.5
 *   per clock per SM (132 SMs at ~1.75 GHz). The counting, not DRAM, is the hard part.
 *
 * Baseline: the realistic first attempt: a grid-stride loop, one byte per thread per step,
 *   atomicAdd(&hist[b], 1) on global memory (run() zeroes hist first). Every byte is one
 *   read-modify-write in L2, and all 256 counters live in 1 KB = 8 lines of 128 bytes, so every
 *   update in the GPU funnels into the few L2 slices that own those 8 lines, and two updates of
 *   one word are serialized there. On the skewed input half of all updates hit the same word.
 *
 * Optimized:
 *   - Privatization: each block counts into shared-memory sub-histograms and adds them to the
 *     global histogram once, with one atomicAdd per bin per block: ~256 x (a few blocks per SM)
 *     global atomics in all instead of n.
 *   - HISTOGRAM_COPIES sub-histograms per block, interleaved: lane l of every warp counts into
 *     copy l % COPIES, at word bin * COPIES + copy. With the default 32, no two lanes of a warp
 *     ever touch the same word (so same-bin collisions inside a warp cannot happen, on any
 *     input), and word bin * 32 + lane lies in bank `lane`, so every shared atomic of a warp is
 *     bank-conflict-free whatever the data: the skewed input costs what the uniform one does.
 *     With a single copy, the 32 lanes of a warp hit 32 random bins spread over 32 banks
 *     (~3.5-way conflicts on uniform data, the maximum occupancy of 32 balls in 32 bins), and
 *     on the skewed input ~16 lanes name the same word (serialized, unless the hardware merges
 *     them: see Predicted).
 *     Cost: 256 x 32 x 4 B = 32 KB of shared memory per block (4 blocks of 512 threads: 132 KB
 *     of the 228 KB per SM, full occupancy), zeroed at the start and summed at the end.
 *   - Warp aggregation, HISTOGRAM_MATCH (default 0, off): __match_any_sync groups the lanes
 *     that would update the same word, and the lowest of them adds the group's size. It helps a
 *     layout where lanes share a copy (COPIES < 32) on contended data; with 32 copies there is
 *     nothing to aggregate, and MATCH.ANY (a multi-cycle instruction) plus the leader test
 *     would only add cost to every byte. Sweep COPIES x MATCH to see the trade.
 *   - 16-byte loads (uint4, ld.global.cs): 16 bytes per thread per load, HISTOGRAM_ITEMS loads
 *     issued before the first byte is counted, so a thread has 32 bytes in flight while others
 *     count (Little's law asks ~18 KB in flight per SM; 2048 threads x 32 B = 64 KB).
 *   - Persistent grid: as many blocks as fit at once (occupancy query in setup), each looping
 *     over 16 KB tiles (block b takes tiles b, b + grid, ...). The copy pairs found a one-pass
 *     grid faster for a stream, but here a block pays a fixed 32 KB zeroing and merge: at one
 *     16 KB tile per block that overhead would match the work; over ~500 KB per block it is ~3%.
 *   - The tail (bytes after the last whole tile, and the n % 16 after the last whole uint4) is
 *     counted by one block with bounds checks; whole tiles run without any.
 *
 * Library: cub::DeviceHistogram::HistogramEven (257 levels over [0, 256)): also privatized in
 *   shared memory, with one sub-histogram per block and an init kernel that zeroes the output.
 *
 * Predicted (H100 SXM, before measuring):
 *   - baseline: L2 atomic throughput on 8 lines, ~50-150 GB/s on uniform bytes; ~20-80 GB/s on
 *     the skewed input, where half the updates serialize on one word.
 *   - optimized: ~2.0-3.0 TB/s on both inputs. Per byte, ptxas (sm_90a) emits a byte extract
 *     (PRMT), the word index (IMAD), its address (LEA) and the shared atomic (ATOMS.POPC.INC):
 *     4 instructions, so a warp instruction slot counts 8 bytes: issue-bound at 4 x 8 B/clk
 *     per SM x 132 SMs x ~1.75 GHz ~ 7.4 TB/s. The shared atomics (one conflict-free warp
 *     instruction counts 32 bytes) bound it at 7.4 TB/s if the atomic unit takes one per clock
 *     per SM, 1.9-3.7 TB/s if it takes one per 2-4 clocks (the number to measure). The DRAM
 *     read roof is ~3.1 TB/s. Expect ~2.5 TB/s, a speedup of >= 15x uniform and >= 30x skewed.
 *     (ATOMS.POPC.INC, the form ptxas picks for "+1", adds the number of lanes naming the same
 *     word: if the hardware merges such lanes in one pass, a single copy suffers bank
 *     conflicts but no same-word serialization; COPIES = 1 on both inputs will tell.)
 *   - CUB: near the optimized kernel on uniform bytes; slower on the skewed input, where its
 *     single sub-histogram per block serializes the lanes that hit 0x2A.
 *
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261125T081152Z-317bbe9.json, the latest full
 *   run; ncu: 20261122T042800Z-6bfc0b1-ncu-bytes.txt/.csv): baseline 3.89 GB/s (uniform) and
 *   1.93 GB/s (skewed); optimized 2865 and 2866 GB/s (737x and 1488x); CUB 2060 and 2536 GB/s.
 *   The baseline is 10-40x under the predicted 50-150 GB/s. ncu: the L2 at 2.8% of its peak
 *   throughput and DRAM at 0.1%, so neither bandwidth limits it: 268M atomics on 256 addresses
 *   (1 KiB: eight 128-byte lines, so a handful of L2 slices) are serialized per address at the
 *   L2's atomic units, about 3.9 G atomics/s in all; skewed input puts half of them on one
 *   address and halves the rate again. (The per-slice atomic rate is inferred from these
 *   figures, not measured directly.) The optimized kernel reads the input at 86% of the DRAM
 *   peak, its declared bytes within 1%, and is as fast on skewed as on uniform data: every lane
 *   has its own copy of the bins, so skew costs no conflicts.
 *
 * Audit (issue 9: is the baseline what a competent engineer writes before knowing the pattern?):
 *   the baseline is the first histogram of the textbooks (one global atomicAdd per byte, full
 *   occupancy, 1-byte loads), and the code many people write first; but an engineer who knows
 *   that global atomics contend writes the next step, one shared-memory sub-histogram per block,
 *   which is what CUB does (2060 / 2536 GB/s here). Against that, the pattern this pair adds
 *   (32 interleaved copies so no lanes collide, 16-byte loads, a persistent grid) is worth 1.39x
 *   uniform and 1.13x skewed, not the 737x / 1488x the baseline row shows: the big figure
 *   teaches "never funnel every update through a few global words", the CUB row the rest. The
 *   checks are exact (tolerance 0: integer counts), so a count short by one fails. For the lead:
 *   a "shared" step (one sub-histogram per block, 4-byte loads) between the two would show the
 *   split within the pair; not added here (bench/histogram.c is being edited by h-suite).
 */
#include "device_limits.h"
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/random.h"
#include "kernel_info.h"
#include "kernels/histogram.h"

#define HISTOGRAM_BINS 256
#define HISTOGRAM_SKEW_VALUE 0x2A

/* Tunables (sweep these). */
#define HISTOGRAM_BASELINE_BLOCK 256
#define HISTOGRAM_BLOCK 512       /* optimized: threads per block */
#define HISTOGRAM_ITEMS 2         /* optimized: uint4 loads per thread per tile */
#define HISTOGRAM_COPIES 32       /* sub-histograms per block: 1, 2, 4, 8, 16 or 32 */
#define HISTOGRAM_MATCH 0         /* 1: __match_any_sync warp aggregation */
#define HISTOGRAM_BLOCKS_PER_SM 0 /* 0: as many as fit; else at most this many */

#define HISTOGRAM_TILE ((size_t)HISTOGRAM_BLOCK * HISTOGRAM_ITEMS) /* uint4 per tile */

/* ------------------------------------------------------------------------------------------ */
/* Baseline                                                                                    */

static __global__ void histogram_baseline_kernel(const unsigned char *in, size_t n, unsigned *hist)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&hist[in[i]], 1u);
}

/* hist: 256 counts, zeroed here (an enqueued memset) before the kernel adds to them. */
extern "C" cudaError_t histogram_baseline(const unsigned char *in, size_t n, unsigned *hist,
                                          cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(hist, 0, HISTOGRAM_BINS * sizeof *hist, stream);
    if (e != cudaSuccess)
        return e;
    size_t blocks = (n + HISTOGRAM_BASELINE_BLOCK - 1) / HISTOGRAM_BASELINE_BLOCK;
    if (blocks == 0)
        blocks = 1;
    if (blocks > 0x7FFFFFFF)
        blocks = 0x7FFFFFFF; /* the grid-stride loop covers the rest */
    histogram_baseline_kernel<<<blocks, HISTOGRAM_BASELINE_BLOCK, 0, stream>>>(in, n, hist);
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------------------------ */
/* Optimized                                                                                   */

#if HISTOGRAM_COPIES < 1 || HISTOGRAM_COPIES > 32 || (HISTOGRAM_COPIES & (HISTOGRAM_COPIES - 1))
#error "HISTOGRAM_COPIES must be a power of two from 1 to 32"
#endif

/* Counts byte k of word into the thread's copy. No aggregation: any subset of lanes may call. */
static __device__ __forceinline__ void histogram_count(unsigned *sub, unsigned word, int k,
                                                       unsigned copy)
{
    unsigned bin = __byte_perm(word, 0, 0x4440 + k); /* byte k, zero-extended: one PRMT */
    atomicAdd(&sub[bin * HISTOGRAM_COPIES + copy], 1u);
}

/* The same for a whole warp (all 32 lanes must call it together): with HISTOGRAM_MATCH, lanes
 * that would update the same word elect the lowest of them to add the group's size. */
static __device__ __forceinline__ void histogram_count_warp(unsigned *sub, unsigned word, int k,
                                                            unsigned copy)
{
#if HISTOGRAM_MATCH
    unsigned bin = __byte_perm(word, 0, 0x4440 + k);
    unsigned slot = bin * HISTOGRAM_COPIES + copy;
    unsigned peers = __match_any_sync(0xffffffffu, slot);
    unsigned lane = threadIdx.x % 32;
    if ((peers & ((1u << lane) - 1)) == 0) /* no lower lane in the group: the leader */
        atomicAdd(&sub[slot], (unsigned)__popc(peers));
#else
    histogram_count(sub, word, k, copy);
#endif
}

static __device__ __forceinline__ void histogram_count_uint4(unsigned *sub, uint4 v, unsigned copy,
                                                             bool whole_warp)
{
#pragma unroll
    for (int k = 0; k < 4; k++) {
        if (whole_warp) {
            histogram_count_warp(sub, v.x, k, copy);
            histogram_count_warp(sub, v.y, k, copy);
            histogram_count_warp(sub, v.z, k, copy);
            histogram_count_warp(sub, v.w, k, copy);
        } else {
            histogram_count(sub, v.x, k, copy);
            histogram_count(sub, v.y, k, copy);
            histogram_count(sub, v.z, k, copy);
            histogram_count(sub, v.w, k, copy);
        }
    }
}

/* in16: the n16 whole uint4s; tail: the n % 16 bytes after them. hist: zeroed by the launcher;
 * each block adds its counts with one atomicAdd per bin. */
static __global__ void __launch_bounds__(HISTOGRAM_BLOCK, RB_MAX_THREADS_PER_SM / HISTOGRAM_BLOCK)
    histogram_optimized_kernel(const uint4 *__restrict__ in16, size_t n16,
                               const unsigned char *__restrict__ tail, unsigned n_tail,
                               unsigned *__restrict__ hist)
{
    __shared__ unsigned sub[HISTOGRAM_BINS * HISTOGRAM_COPIES];
    for (unsigned i = threadIdx.x; i < HISTOGRAM_BINS * HISTOGRAM_COPIES; i += HISTOGRAM_BLOCK)
        sub[i] = 0;
    __syncthreads();

    unsigned copy = threadIdx.x % HISTOGRAM_COPIES; /* = lane % COPIES: blocks are whole warps */
    size_t full_tiles = n16 / HISTOGRAM_TILE;
    for (size_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
        const uint4 *p = in16 + t * HISTOGRAM_TILE + threadIdx.x;
        uint4 v[HISTOGRAM_ITEMS];
#pragma unroll
        for (int k = 0; k < HISTOGRAM_ITEMS; k++)
            v[k] = __ldcs(p + k * HISTOGRAM_BLOCK);
#pragma unroll
        for (int k = 0; k < HISTOGRAM_ITEMS; k++)
            histogram_count_uint4(sub, v[k], copy, true);
    }
    /* The partial last tile and the n % 16 bytes: the block whose turn that tile would be. */
    if (blockIdx.x == full_tiles % gridDim.x) {
        for (size_t i = full_tiles * HISTOGRAM_TILE + threadIdx.x; i < n16; i += HISTOGRAM_BLOCK)
            histogram_count_uint4(sub, __ldcs(in16 + i), copy, false);
        if (threadIdx.x < n_tail)
            atomicAdd(&sub[tail[threadIdx.x] * HISTOGRAM_COPIES + copy], 1u);
    }
    __syncthreads();

    /* Merge: thread b sums bin b over the copies, starting at copy b so that the 32 lanes of a
     * warp read 32 different banks; then one global atomic per non-empty bin. */
    for (unsigned b = threadIdx.x; b < HISTOGRAM_BINS; b += HISTOGRAM_BLOCK) {
        unsigned s = 0;
#pragma unroll 8 /* fully unrolled, its 32 loads in flight spill at 32 registers */
        for (unsigned c = 0; c < HISTOGRAM_COPIES; c++)
            s += sub[b * HISTOGRAM_COPIES + (c + b) % HISTOGRAM_COPIES];
        if (s)
            atomicAdd(&hist[b], s);
    }
}

/* The optimized grid for n bytes: as many blocks as fit on the device at once (capped by
 * HISTOGRAM_BLOCKS_PER_SM when set), no more than there are tiles. Host queries only. */
extern "C" cudaError_t histogram_optimized_grid(size_t n, int *blocks)
{
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    /* 32 KB of shared memory per block: ask for the shared-memory-heavy split of L1 (the
     * stream is read once and needs no L1). A hint; the occupancy query sees the result. */
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(histogram_optimized_kernel,
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histogram_optimized_kernel,
                                                          HISTOGRAM_BLOCK, 0);
    if (e != cudaSuccess)
        return e;
    if (HISTOGRAM_BLOCKS_PER_SM > 0 && per_sm > HISTOGRAM_BLOCKS_PER_SM)
        per_sm = HISTOGRAM_BLOCKS_PER_SM;
    size_t tiles = (n / 16 + HISTOGRAM_TILE - 1) / HISTOGRAM_TILE;
    size_t grid = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1);
    if (grid > tiles)
        grid = tiles;
    *blocks = grid > 0 ? (int)grid : 1;
    return cudaSuccess;
}

/* in: 16-byte aligned (cudaMalloc gives 256); hist: 256 counts, zeroed here (an enqueued
 * memset); blocks: from histogram_optimized_grid. */
extern "C" cudaError_t histogram_optimized(const unsigned char *in, size_t n, unsigned *hist,
                                           int blocks, cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(hist, 0, HISTOGRAM_BINS * sizeof *hist, stream);
    if (e != cudaSuccess)
        return e;
    size_t n16 = n / 16;
    histogram_optimized_kernel<<<blocks, HISTOGRAM_BLOCK, 0, stream>>>(
        (const uint4 *)in, n16, in + 16 * n16, (unsigned)(n % 16), hist);
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------------------------ */
/* Library: CUB. int sample counts where they fit (what most callers pass), 64-bit beyond.      */

extern "C" cudaError_t histogram_library_temp_bytes(size_t n, size_t *bytes)
{
    *bytes = 0;
    if (n <= 0x7FFFFFFF)
        return cub::DeviceHistogram::HistogramEven(NULL, *bytes, (const unsigned char *)NULL,
                                                   (unsigned *)NULL, HISTOGRAM_BINS + 1, 0,
                                                   HISTOGRAM_BINS, (int)n);
    return cub::DeviceHistogram::HistogramEven(NULL, *bytes, (const unsigned char *)NULL,
                                               (unsigned *)NULL, HISTOGRAM_BINS + 1, 0,
                                               HISTOGRAM_BINS, (long long)n);
}

/* hist: 256 counts, which CUB's init kernel zeroes. */
extern "C" cudaError_t histogram_library(const unsigned char *in, size_t n, unsigned *hist,
                                         void *temp, size_t temp_bytes, cudaStream_t stream)
{
    cudaError_t e;
    if (n <= 0x7FFFFFFF)
        e = cub::DeviceHistogram::HistogramEven(temp, temp_bytes, in, hist, HISTOGRAM_BINS + 1, 0,
                                                HISTOGRAM_BINS, (int)n, stream);
    else
        e = cub::DeviceHistogram::HistogramEven(temp, temp_bytes, in, hist, HISTOGRAM_BINS + 1, 0,
                                                HISTOGRAM_BINS, (long long)n, stream);
    if (e != cudaSuccess)
        return e;
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------------------------ */
/* Inputs                                                                                      */

/* Byte i: the top 8 of the 24 random bits behind rb_uniform_f32(seed, i); on the skewed input,
 * HISTOGRAM_SKEW_VALUE instead wherever the hash's lowest bit is set (half the bytes). The host
 * twin is histogram_byte in bench/histogram.c. */
static __global__ void histogram_make_input_kernel(unsigned char *x, size_t n, uint64_t seed,
                                                   int skewed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint64_t h = rb_mix64(seed ^ rb_mix64(i));
        x[i] = skewed && (h & 1) ? HISTOGRAM_SKEW_VALUE : (unsigned char)(h >> 56);
    }
}

extern "C" cudaError_t histogram_make_input(unsigned char *x, size_t n, uint64_t seed, int skewed,
                                            cudaStream_t stream)
{
    histogram_make_input_kernel<<<1024, 256, 0, stream>>>(x, n, seed, skewed);
    return cudaGetLastError();
}

/* The kernels each variant launches, as launched (harness/kit/kernel_info.h); the library variant is
 * CUB's, and the input kernel runs in setup only. */
extern "C" const rb_kernel_info histogram_kernels[] = {
    {"baseline", "histogram_baseline_kernel", (const void *)histogram_baseline_kernel,
     HISTOGRAM_BASELINE_BLOCK, 0},
    {"optimized", "histogram_optimized_kernel", (const void *)histogram_optimized_kernel,
     HISTOGRAM_BLOCK, 0},
    {}};
