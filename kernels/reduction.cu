/* SPDX-License-Identifier: MIT */
/*
 * reduction: the sum of n fp32 values, from the textbook first kernel to a bandwidth-bound one.
 *
 * What: out = x[0] + x[1] + ... + x[n-1], n fp32 values, one fp32 result. The inputs lie in
 *   (0.25, 1.25] (0.5 u + 0.75 for u uniform in (-1, 1)), strictly positive, so the relative
 *   error of the sum is meaningful and no cancellation can hide a wrong answer.
 *
 * Work: n - 1 adds, counted as n flops; 4n bytes read + 4 bytes written = 4n + 4 bytes of
 *   compulsory DRAM traffic. AI = 1/4 flop per byte: memory-bound on every GPU (the H100's fp32
 *   roof is reached only at AI ~ 60.6e12 / 3.35e12 = 18). Full size n = 2^28: 1 GiB read,
 *   > 4x the 50 MB L2, so every timed pass comes from DRAM. At the datasheet 3352 GB/s one pass
 *   takes 320 us; the adds (2^28 in 320 us = 0.84 TFLOP/s) cost ~1% of the FP32 roof.
 *
 * Baseline: the classic first version (Harris, "Optimizing parallel reduction in CUDA", kernel
 *   1). Each block loads one element per thread into shared memory and folds it in log2(256) = 8
 *   steps with interleaved addressing: at step s, thread t with t % (2s) == 0 adds sdata[t + s].
 *   Its costs are on the SM side:
 *   - divergence: at step s only 1 thread in 2s works, but every warp runs the step's test and
 *     every warp holding a working thread issues its loads, add and store: all 8 warps for
 *     s = 1..16 (16, 8, 4, 2, then 1 working lane per warp), then 4, 2, 1 warps;
 *   - the remainder t % (2s) by a value unknown at compile time: an integer division sequence
 *     (I2F, MUFU.RCP, F2I and ~10 integer instructions in the sm_90a SASS) per thread per step;
 *   - 8 __syncthreads per 1 KB of input, and 4 bytes in flight per thread when loading.
 *   Each block writes one partial; the launcher calls the same kernel on the partials until one
 *   value remains (2^28 -> 2^20 -> 4096 -> 16 -> 1: four launches).
 *
 * Optimized: what makes a reduction run at the DRAM read roof.
 *   - 16-byte loads (float4, ld.global.cs: read once, evict first; REDUCTION_STREAMING_LOADS 0
 *     switches to the read-only path, __ldg): a quarter of the load instructions of the scalar
 *     version, each moving 512 bytes per warp.
 *   - Bytes in flight: Little's law asks ~3.3 TB/s x ~0.7 us ~ 2.3 MB in flight, ~18 KB per SM.
 *     Each thread's REDUCTION_ITEMS float4 loads are independent and written before any add
 *     (ptxas, sm_90a, 32 registers: the first 4 of 8 issue back to back, the rest between the
 *     first adds): 64-128 B per thread, 128-256 KB per SM at full occupancy, many times what
 *     is needed, so warps busy in their block reduction cannot starve the memory system.
 *   - Tiles: block b takes tile b (REDUCTION_BLOCK x REDUCTION_ITEMS float4 = 32 KB, contiguous;
 *     thread t loads elements t, t + 256, ...), then tile b + gridDim.x (a grid-stride loop over
 *     tiles). The default grid has one block per tile, so the loop body runs once: on the H100
 *     the copy pairs found a grid covering the array in one pass faster than a persistent grid
 *     (3010 vs 2830 GB/s), and a contiguous tile keeps each block's requests on a few DRAM pages.
 *     REDUCTION_MAX_BLOCKS caps the grid (persistent grid) so the two can be swept.
 *   - Accumulation in a float4: four independent fp32 add chains per thread, so no add waits on
 *     the previous one (an add's ~4-cycle latency never gates the next load batch).
 *   - One block partial: __shfl_down_sync within each warp (no shared memory, no barrier), one
 *     value per warp to a 32-float shared array, one barrier, the first warp shuffles again.
 *   - A second, single-block kernel sums the partials (one per tile: 32768 at full size, 128 KB,
 *     read from L2). It is deterministic: the same input gives the same bits every run, which a
 *     float atomicAdd per block would not (the order of the atomics changes from run to run, and
 *     fp32 addition is not associative). It costs one dependent launch (~2-3 us against ~330 us,
 *     ~1%), the same structure CUB uses (a reduce kernel, then a single-tile kernel).
 *   - The n % 4 floats after the last whole float4, and the float4s after the last whole tile,
 *     are added by the block whose turn that tile would be, with bounds checks; whole tiles run
 *     without any.
 *
 * Library: cub::DeviceReduce::Sum (a vectorized, tiled reduce kernel over an "even share" grid,
 *   then a single-tile kernel), temp storage sized and allocated in setup.
 *
 * Accuracy: every variant adds in fp32 in a different order. For positive values the rounding
 *   error of a sum is at most (depth of its adding tree) x 2^-24 relative. Baseline and CUB are
 *   trees of depth ~log2(n) = 28 (plus a few sequential steps in CUB): 1.7e-6. The optimized
 *   kernel at full size: chains of REDUCTION_ITEMS = 8 adds in each of 4 accumulators, 2 + 5 +
 *   3 levels within the block, then in the finish kernel chains of 8, 2 + 10 levels: depth ~38,
 *   2.3e-6. But rounding errors are random and each acts on a partial sum, so the small partials
 *   of the lower levels contribute little: what remains is the top few adds and the final
 *   rounding of the result to fp32 (at most 2^-24 = 6e-8). Measured 4.89e-8 at full size, and a
 *   host replay of the exact fp32 order gives 2.1e-8 at n = 1000003. The tolerance, 2e-7, and
 *   its derivation are beside it in bench/reduction.c. (A persistent grid of 8 blocks per SM
 *   makes each accumulator's chain ~250 adds: worst case ~1.6e-5; re-measure before using it.)
 *   A scalar result cannot show a defect smaller than its own rounding: at full size a dropped
 *   tail of 3 floats is 1.1e-8 relative, invisible, which is why the planted defects run at
 *   n = 1000003, where the same bug is 2.9e-6. The inputs stay positive: a zero-mean input would
 *   make the relative error of the sum large and input-dependent (cancellation), hiding more.

 * Reference: exact. Every input x >= 0.25 is a multiple of 2^-25 (a float in [2^e, 2^(e+1)) is
 *   a multiple of 2^(e-23)), and x < 2, so x * 2^25 is an integer below 2^26 and a sum of up to
 *   2^28 of them is below 2^54: an unsigned 64-bit integer holds it exactly. The reference
 *   kernel adds x * 2^25 as integers (associative, so exact and order-free), and the host turns
 *   the sum into a double with a single rounding: better than any fp64 accumulation. Up to
 *   RB_CPU_REFERENCE_MAX elements the host recomputes the same sum from rb_uniform_f32.
 *
 * Predicted (H100 SXM, before measuring):
 *   - baseline ~300-600 GB/s: an SM-bound kernel. Per 1 KB block: 8 steps x 8 warps x ~27
 *     instructions (the loop body in SASS: modulo, test, two shared loads, add, store,
 *     barrier) ~ 1700 warp instructions; at the ideal 4 per clock per SM, 132 SMs at
 *     ~1.75 GHz: ~550 GB/s, and the barriers and the quarter-rate I2F/MUFU/F2I keep it below.
 *   - optimized ~3.1 TB/s: a read-only stream has no read/write turnaround, so it can beat the
 *     copy roof (cudaMemcpy 2996 GB/s counts reads + writes); ~92-95% of the datasheet 3352 GB/s
 *     (the acceptance asks >= 3084 GB/s), i.e. ~345 us at full size, ~7x the baseline.
 *   - CUB within ~2% of the optimized kernel (same structure).
 *
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261125T081152Z-317bbe9.json, the latest full
 *   run): baseline 415 GB/s (predicted 300-600), optimized 3113 GB/s of reads = 0.929x the 3352
 *   GB/s datasheet peak, 7.49x the baseline, CUB 3068 GB/s. ncu (20261122T042800Z-6bfc0b1-ncu-
 *   bytes.txt/.csv): 94.8% of the DRAM peak, the declared bytes within 0.2%. A sweep of float4
 *   loads per thread (20261122T042738Z-6bfc0b1: 4: 3114, 8: 3104, 16: 3085 GB/s; __ldg instead of
 *   __ldcs: 3076) chose 4. The margin over the 0.92x target is small (about 1%), and it is the
 *   figure to watch after a driver upgrade.
 *
 * Audit (issue 9: is the baseline what a competent engineer writes before knowing the pattern?):
 *   the baseline is the textbook first reduction (Harris's kernel 1): full occupancy (8 blocks
 *   of 256 per SM), coalesced 4-byte loads, but SM-bound by divergent interleaved steps, a
 *   modulo and 8 barriers per 1 KB. A competent engineer who had not studied reductions writes
 *   this or the sequential-addressing tree (Harris's kernel 2; ~2x on his G80); one who has would
 *   call a library: PyTorch's sum runs 2936 GB/s (GPU.md), CUB 3068 GB/s here, the optimized
 *   kernel 3113. So the 7.5x is "what the pattern is worth over the first version", not over
 *   what production code runs; the library row is there to show that the optimized kernel is
 *   the pattern a library already applies (within 1.5% of CUB, 6% above PyTorch). The pair keeps
 *   the textbook baseline because it teaches the costs (divergence, barriers, 4 bytes in flight)
 *   one at a time; the lead decides whether the README should also quote the speedup over the
 *   sequential-addressing tree, the more honest "first attempt" figure (not measured yet).
 */
#include "device_limits.h"
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"
#include "kernels/reduction.h"

/* Tunables (sweep these). */
#define REDUCTION_BASELINE_BLOCK 256 /* a power of two: the interleaved steps halve it */
#ifndef REDUCTION_BLOCK
#define REDUCTION_BLOCK 256 /* optimized: threads per block, a multiple of 32 */
#endif
#ifndef REDUCTION_ITEMS
/* optimized: float4 loads in flight per thread per tile. H100 sweep (GB/s read): 4: 3114,
 * 8: 3104, 16: 3085; __ldg instead of __ldcs at 8: 3076. */
#define REDUCTION_ITEMS 4
#endif
#ifndef REDUCTION_MAX_BLOCKS
#define REDUCTION_MAX_BLOCKS 0 /* optimized: 0 = one block per tile (one pass); else cap */
#endif
#ifndef REDUCTION_STREAMING_LOADS
#define REDUCTION_STREAMING_LOADS 1 /* optimized: 1 = __ldcs (evict first), 0 = __ldg */
#endif
#define REDUCTION_FINISH_BLOCK 1024 /* the partials' kernel: threads of its single block */
#define REDUCTION_REF_BLOCKS 1024   /* the reference kernel's grid, x 256 threads */
/* optimized: resident blocks per SM asked of ptxas (__launch_bounds__). 8 x 256 threads is full
 * occupancy and caps registers at 32 (no spills; ptxas then issues 4 of the 8 loads before the
 * first add, the rest interleaved); 1 leaves ptxas free: 34 registers, 6 blocks per SM. */
#define REDUCTION_MIN_BLOCKS_PER_SM (RB_MAX_THREADS_PER_SM / REDUCTION_BLOCK)

#define REDUCTION_TILE ((size_t)REDUCTION_BLOCK * REDUCTION_ITEMS) /* float4 per tile */

/* ------------------------------------------------------------------------------------------ */
/* Baseline                                                                                    */

static __global__ void reduction_baseline_kernel(const float *in, size_t n, float *out)
{
    __shared__ float sdata[REDUCTION_BASELINE_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) /* interleaved: working threads are 2s apart, warps diverge */
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* Floats of scratch the baseline needs: one partial per block at every level but the last,
 * which writes the output. */
extern "C" cudaError_t reduction_baseline_scratch(size_t n, size_t *floats)
{
    size_t total = 0;
    for (size_t count = n; count > 1;) {
        count = (count + REDUCTION_BASELINE_BLOCK - 1) / REDUCTION_BASELINE_BLOCK;
        if (count > 1)
            total += count;
    }
    *floats = total;
    return cudaSuccess;
}

/* scratch: reduction_baseline_scratch(n) floats. Enqueues ceil(log_256 n) launches. */
extern "C" cudaError_t reduction_baseline(const float *in, size_t n, float *out, float *scratch,
                                          cudaStream_t stream)
{
    const float *src = in;
    size_t count = n;
    do {
        size_t blocks = (count + REDUCTION_BASELINE_BLOCK - 1) / REDUCTION_BASELINE_BLOCK;
        float *dst = blocks == 1 ? out : scratch;
        reduction_baseline_kernel<<<blocks, REDUCTION_BASELINE_BLOCK, 0, stream>>>(src, count, dst);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
        scratch += blocks;
        src = dst;
        count = blocks;
    } while (count > 1);
    return cudaSuccess;
}

/* ------------------------------------------------------------------------------------------ */
/* Optimized                                                                                   */

static __device__ __forceinline__ float reduction_warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* The sum of v over the block, valid in thread 0; blockDim.x a multiple of 32. Call once per
 * kernel (its shared array is not guarded for reuse). */
static __device__ float reduction_block_sum(float v)
{
    __shared__ float warp_sums[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = reduction_warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        v = reduction_warp_sum(v);
    }
    return v;
}

static __device__ __forceinline__ float4 reduction_load(const float4 *p)
{
#if REDUCTION_STREAMING_LOADS
    return __ldcs(p);
#else
    return __ldg(p);
#endif
}

static __device__ __forceinline__ void reduction_add4(float4 *acc, float4 v)
{
    acc->x += v.x;
    acc->y += v.y;
    acc->z += v.z;
    acc->w += v.w;
}

/* One partial per block into partials[blockIdx.x]. in4: the n4 whole float4s; tail: the
 * n % 4 floats after them. */
static __global__ void __launch_bounds__(REDUCTION_BLOCK, REDUCTION_MIN_BLOCKS_PER_SM)
    reduction_optimized_kernel(const float4 *__restrict__ in4, size_t n4,
                               const float *__restrict__ tail, unsigned n_tail,
                               float *__restrict__ partials)
{
    size_t full_tiles = n4 / REDUCTION_TILE;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (size_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
        const float4 *p = in4 + t * REDUCTION_TILE + threadIdx.x;
        float4 v[REDUCTION_ITEMS];
        /* all loads first: REDUCTION_ITEMS independent 16-byte requests in flight */
#pragma unroll
        for (int k = 0; k < REDUCTION_ITEMS; k++)
            v[k] = reduction_load(p + k * REDUCTION_BLOCK);
#pragma unroll
        for (int k = 0; k < REDUCTION_ITEMS; k++)
            reduction_add4(&acc, v[k]);
    }
    /* The partial last tile and the n % 4 floats: the block whose turn that tile would be. */
    if (blockIdx.x == full_tiles % gridDim.x) {
        for (size_t i = full_tiles * REDUCTION_TILE + threadIdx.x; i < n4; i += REDUCTION_BLOCK)
            reduction_add4(&acc, reduction_load(in4 + i));
        if (threadIdx.x < n_tail)
            acc.x += tail[threadIdx.x];
    }
    float s = reduction_block_sum((acc.x + acc.y) + (acc.z + acc.w));
    if (threadIdx.x == 0)
        partials[blockIdx.x] = s;
}

/* The partials, summed in a fixed order by one block: deterministic. */
static __global__ void __launch_bounds__(REDUCTION_FINISH_BLOCK)
    reduction_optimized_finish_kernel(const float *__restrict__ partials, unsigned count,
                                      float *__restrict__ out)
{
    const unsigned b = REDUCTION_FINISH_BLOCK;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    unsigned i = threadIdx.x;
    for (; i + 3 * b < count; i += 4 * b) { /* four independent L2 loads per round */
        s0 += partials[i];
        s1 += partials[i + b];
        s2 += partials[i + 2 * b];
        s3 += partials[i + 3 * b];
    }
    for (; i < count; i += b)
        s0 += partials[i];
    float s = reduction_block_sum((s0 + s1) + (s2 + s3));
    if (threadIdx.x == 0)
        *out = s;
}

static size_t reduction_optimized_blocks(size_t n)
{
    size_t blocks = (n / 4 + REDUCTION_TILE - 1) / REDUCTION_TILE;
    if (REDUCTION_MAX_BLOCKS > 0 && blocks > (size_t)REDUCTION_MAX_BLOCKS)
        blocks = REDUCTION_MAX_BLOCKS;
    return blocks == 0 ? 1 : blocks;
}

/* Floats of scratch the optimized variant needs: one partial per block. */
extern "C" cudaError_t reduction_optimized_scratch(size_t n, size_t *floats)
{
    *floats = reduction_optimized_blocks(n);
    return cudaSuccess;
}

/* in: 16-byte aligned (cudaMalloc gives 256); partials: reduction_optimized_scratch(n) floats. */
extern "C" cudaError_t reduction_optimized(const float *in, size_t n, float *out, float *partials,
                                           cudaStream_t stream)
{
    size_t n4 = n / 4, blocks = reduction_optimized_blocks(n);
    if (blocks > 0xFFFFFFFFu)
        return cudaErrorInvalidValue;
    reduction_optimized_kernel<<<blocks, REDUCTION_BLOCK, 0, stream>>>(
        (const float4 *)in, n4, in + 4 * n4, (unsigned)(n % 4), partials);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    reduction_optimized_finish_kernel<<<1, REDUCTION_FINISH_BLOCK, 0, stream>>>(
        partials, (unsigned)blocks, out);
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------------------------ */
/* Library: CUB. 32-bit item counts where they fit (what most callers pass), 64-bit beyond.     */

extern "C" cudaError_t reduction_library_temp_bytes(size_t n, size_t *bytes)
{
    *bytes = 0;
    if (n <= 0xFFFFFFFFu)
        return cub::DeviceReduce::Sum(NULL, *bytes, (const float *)NULL, (float *)NULL,
                                      (uint32_t)n);
    return cub::DeviceReduce::Sum(NULL, *bytes, (const float *)NULL, (float *)NULL, (uint64_t)n);
}

extern "C" cudaError_t reduction_library(const float *in, size_t n, float *out, void *temp,
                                         size_t temp_bytes, cudaStream_t stream)
{
    cudaError_t e;
    if (n <= 0xFFFFFFFFu)
        e = cub::DeviceReduce::Sum(temp, temp_bytes, in, out, (uint32_t)n, stream);
    else
        e = cub::DeviceReduce::Sum(temp, temp_bytes, in, out, (uint64_t)n, stream);
    if (e != cudaSuccess)
        return e;
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------------------------ */
/* Inputs and the reference                                                                    */

/* x = 0.5 u + 0.75 in place, u = rb_uniform_f32 from rb_fill_uniform_f32. 0.5 u is exact, so a
 * fused multiply-add and a multiply then add round the same: bit-exact with the host twin
 * (bench/reduction.c). */
static __global__ void reduction_map_input_kernel(float *x, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = __fadd_rn(__fmul_rn(0.5f, x[i]), 0.75f);
}

extern "C" cudaError_t reduction_map_input(float *x, size_t n, cudaStream_t stream)
{
    reduction_map_input_kernel<<<1024, 256, 0, stream>>>(x, n);
    return cudaGetLastError();
}

/* acc[0] += sum of x[i] * 2^25 as integers (exact: see the header); acc[1] += the number of
 * values outside [0.25, 2), where that scaling is not an exact integer (NaN counts too). */
static __global__ void reduction_reference_kernel(const float *x, size_t n, unsigned long long *acc)
{
    unsigned long long sum = 0, outside = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        if (v >= 0.25f && v < 2.0f)
            sum += (unsigned long long)(v * 33554432.0f); /* 2^25: exact scaling */
        else
            outside++;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
        outside += __shfl_down_sync(0xffffffffu, outside, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&acc[0], sum);
        atomicAdd(&acc[1], outside);
    }
}

/* acc: two unsigned 64-bit integers on the device, zeroed here. */
extern "C" cudaError_t reduction_reference(const float *x, size_t n, unsigned long long *acc,
                                           cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(acc, 0, 2 * sizeof *acc, stream);
    if (e != cudaSuccess)
        return e;
    reduction_reference_kernel<<<REDUCTION_REF_BLOCKS, 256, 0, stream>>>(x, n, acc);
    return cudaGetLastError();
}

/* The kernels each variant launches, as launched (harness/kit/kernel_info.h): the baseline launches
 * its kernel once per level; the library variant is CUB's; the input and reference kernels run
 * in setup only. */
extern "C" const rb_kernel_info reduction_kernels[] = {
    {"baseline", "reduction_baseline_kernel", (const void *)reduction_baseline_kernel,
     REDUCTION_BASELINE_BLOCK, 0},
    {"optimized", "reduction_optimized_kernel", (const void *)reduction_optimized_kernel,
     REDUCTION_BLOCK, 0},
    {"optimized", "reduction_optimized_finish_kernel",
     (const void *)reduction_optimized_finish_kernel, REDUCTION_FINISH_BLOCK, 0},
    {}};
