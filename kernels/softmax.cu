/* SPDX-License-Identifier: MIT */
/*
 * softmax: row-wise softmax of an fp32 matrix in one pass over DRAM instead of three, with the
 * online (running max, running sum) rule.
 *
 * What: x is rows x cols, row-major; y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] -
 *   max_r). Subtracting the row max keeps exp from overflowing; it does not change the result.
 *   With --size N the shape is cols = min(4096, N), rows = N / cols: full size 2^27 gives
 *   32768 x 4096. Any rows and cols work (cols need not be a multiple of 4).
 *
 * Work: bytes = 4n read + 4n written = 8n bytes compulsory DRAM traffic (x read once, y written
 *   once); full size n = 2^27 moves 1 GiB. flops ~5 per element, counted honestly: a max, a
 *   subtraction, an exp (counted as one, although expf is ~8 instructions), an addition into
 *   the sum and a multiplication by the scale; the per-row reductions add O(rows x threads).
 *   Arithmetic intensity 5 / 8 = 0.6 flop/byte against an H100 ridge point of 60.6e12 / 3e12 =
 *   20: memory-bound by a factor of ~30, so the goal is to touch DRAM as few times as possible.
 *
 * Baseline: the three kernels an unfused implementation runs, each one block (256 threads) per
 *   row with a shared-memory tree reduction: (1) row max -> max[rows]; (2) sum of exp(x - max)
 *   -> sum[rows], reading x again; (3) y = exp(x - max) / sum, reading x a third time. DRAM
 *   traffic 16n bytes (3 reads + 1 write) for the 8n that are compulsory, plus two extra
 *   launches; rows of 16 KB are long gone from the 50 MB L2 by the time the next kernel reads
 *   them. Each kernel's accesses are framework quality: 16-byte loads and stores when cols % 4
 *   == 0 (scalar otherwise), full occupancy (8 blocks of 256 per SM, 1 KB of shared memory
 *   each), so the speedup is only the passes saved. Until 2026-11-25 the baseline used 4-byte
 *   loads (1125 GB/s, 2.65x), which mixed copy_vectorized's lesson into this one.
 *
 * Optimized: one kernel, one block of SOFTMAX_BLOCK (256) threads per row, the row read from
 *   DRAM once and kept in registers:
 *   - Each thread loads its ITEMS x VEC elements up front (VEC = 4: 16-byte ld.global.cs loads
 *     when cols % 4 == 0, so every row starts 16-byte aligned; VEC = 1: scalar loads otherwise).
 *     All loads are independent, so a thread has ITEMS requests in flight: at 4096 columns,
 *     ITEMS = 4 float4 = 64 bytes per thread; 40 registers allow 6 blocks per SM, ~96 KB in
 *     flight per SM, well over the ~14 KB Little's law asks for (~3 TB/s x ~0.6 us / 132).
 *   - The thread reduces its registers to a pair (m, s): m = its max, s = sum of exp(x - m),
 *     keeping e = exp(x - m) in place of x.
 *   - Pairs are combined with the online merge rule: (m1, s1) + (m2, s2) = (M, s1 exp(m1 - M) +
 *     s2 exp(m2 - M)) with M = max(m1, m2), i.e. when the running max grows, the running sum is
 *     rescaled by exp(m_old - m_new). A warp merges by xor shuffles (every lane ends with the
 *     warp's pair, up to the last bit); each warp's pair goes to shared memory; after one
 *     __syncthreads every thread merges the 8 warp pairs in the same order and so holds the
 *     same row (M, S).
 *     Carrying (m, s) together is what makes one reduction (one barrier) enough: the textbook
 *     two-step form needs a block-wide max, then a block-wide sum.
 *   - y = e * (exp(m - M) / S): one expf per element (the e already computed), one expf and one
 *     division per thread, a multiplication per element. Stores are 16-byte st.global.cs.
 *   Why a block and not a warp per row: at 4096 columns a warp per row holds 128 floats per lane
 *   (~160 registers, ~12 warps per SM), while a block holds 16 per thread (~40 registers, ~48
 *   warps per SM); the cost is one __syncthreads per row. A warp per row would win for short
 *   rows (cols <~ 1024), which the full size does not use.
 *   Where the row does not fit in registers (cols > SOFTMAX_BLOCK x 32 = 8192 floats) the same
 *   kernel takes its general path: a first pass keeps a running (m, s) per thread element by
 *   element (the online rule proper: when x > m, s = s exp(m - x) + 1, m = x), the block merges,
 *   and a second pass reads the row again to write y. That path reads x twice (12n bytes of
 *   DRAM traffic unless the rows in flight fit in L2); the full size does not use it.
 *   expf, not __expf: __expf is ex2.approx(x log2 e), whose error grows with |x| (~2 + 1.2|x|
 *   ulp; the arguments here reach -16) for an instruction saving that a memory-bound kernel at
 *   0.6 flop/byte never sees. The merges also use expf.
 *
 * Library: none. The CUDA Toolkit has no softmax (cuDNN has one, but it is not part of the
 *   toolkit and roofbench depends on the toolkit alone).
 *
 * Accuracy: errors are a few ulp per element (expf <= 2 ulp, one multiplication, the scale's
 *   expf and division) plus float sums of <= 4096 terms (16 per thread, then a tree; ~1e-7):
 *   measured 6.6e-8 (baseline) and 7.8e-8 (optimized) normwise against the fp64 reference;
 *   the tolerance, 4e-7, and its derivation are beside it in bench/softmax.c.
 *
 * Predicted (H100 SXM, before measuring), against cudaMemcpy D2D 2996 GB/s (GPU.md):
 *   optimized ~2.7-2.85 TB/s counted as 8n (0.90-0.95x cudaMemcpy), ~0.38-0.40 ms at full size:
 *   a copy with 16-byte accesses whose per-row barrier and merges hide behind other blocks'
 *   loads.
 *   baseline (16-byte accesses, 2026-11-25): 16n bytes in three streaming kernels at ~2.8-2.95
 *   TB/s (copy_vectorized's optimized rate, less a little for each kernel's tail and the two
 *   extra launches) = ~0.73-0.77 ms, ~1.4-1.47 TB/s counted as 8n; speedup ~1.9-2.0x, the 2x
 *   of reading x once instead of three times, less the write that both pay. (The 4-byte
 *   baseline was predicted at ~1.1-1.3 TB/s counted as 8n.)
 *
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261125T120458Z-7100242.json and 120618Z, two
 *   back-to-back runs): baseline 0.7208 / 0.7176 ms (1490 / 1496 GB/s of the declared 8n; its
 *   16n moved at 2.98 TB/s, the cudaMemcpy rate), optimized 0.3612 / 0.3598 ms (2973 / 2985
 *   GB/s), 2.00x / 1.99x; predicted 0.73-0.77 ms, 1.9-2.0x. ncu (20261125T1213Z-7d58124-ncu-
 *   bytes-softmax.txt): the baseline's warm launches move 2.001x the declared bytes (max and sum
 *   kernels 0.50 each, normalize 0.98: three reads of x and one write, as modelled), the
 *   optimized kernel 0.999x.
 * Before, with the 4-byte baseline (H100, 20261125T081152Z-317bbe9.json; ncu:
 *   20261122T042800Z-6bfc0b1-ncu-bytes.txt/.csv): baseline 1125 GB/s (of the declared 8 bytes
 *   per element; it moves 16), optimized 2984 GB/s = 1.00x the cudaMemcpy 2986-2993 GB/s of
 *   the same run (the copy pairs' library rows), 2.65x. Better than predicted (2.7-2.85 TB/s): ncu
 *   puts the optimized kernel at 89% of the DRAM peak with the declared bytes within 2%; a
 *   read-once row in registers leaves the kernel a plain stream, and with 4 loads per thread in
 *   flight it streams like the best copy.
 *
 * Audit (issue 9: is the baseline what a competent engineer writes before knowing the pattern?):
 *   yes, now: the three-kernel form that follows the formula (max, sum, normalize), at full
 *   occupancy, one block per row, with the 16-byte accesses a framework's unfused kernels use.
 *   Before 2026-11-25 it used 4-byte loads: 16n bytes at 2.25 TB/s, the rate of a scalar copy,
 *   so about 1.3x of its 2.65x was access width (copy_vectorized's lesson). PyTorch's softmax
 *   on the same 32768 x 4096 fp32 input runs 2340 GB/s on the H100 (GPU.md): it is a single
 *   fused pass already (a library implementation of this pair's pattern, not an unfused
 *   baseline), so it sits between the two variants, not below the baseline. The division per
 *   element stays: at 0.6 flop/byte it hides behind the memory traffic.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>

#include "kernel_info.h"
#include "kernels/softmax.h"

/* Tunables: threads per row block of the optimized kernel (a multiple of 32) and of the
 * baseline and reference kernels (a power of two, for their tree reductions). The optimized
 * kernel keeps up to 8 float4 or 32 floats per thread in registers (see softmax_optimized). */
#define SOFTMAX_BLOCK 256
#define SOFTMAX_BASELINE_BLOCK 256
#define SOFTMAX_REFERENCE_BLOCK 256

static_assert(SOFTMAX_BLOCK % 32 == 0 && SOFTMAX_BLOCK <= 1024, "whole warps, one block");
static_assert((SOFTMAX_BASELINE_BLOCK & (SOFTMAX_BASELINE_BLOCK - 1)) == 0, "power of two");
static_assert((SOFTMAX_REFERENCE_BLOCK & (SOFTMAX_REFERENCE_BLOCK - 1)) == 0, "power of two");

/* Every kernel here runs one block per row; a grid holds at most 2^31 - 1 blocks, so launchers
 * go over the rows in slices of at most this many (one slice at every practical size). */
#define SOFTMAX_MAX_GRID ((size_t)INT_MAX)

/* ---------------------------------------------------------------------------------------------
 * Baseline: three kernels, three reads of x. */

/* Tree reduction over a power-of-two block; every thread returns the block's result. */
static __device__ float softmax_baseline_block_reduce(float *red, float v, int is_max)
{
    unsigned t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half)
            red[t] = is_max ? fmaxf(red[t], red[t + half]) : red[t] + red[t + half];
        __syncthreads();
    }
    float r = red[0];
    __syncthreads(); /* red is reused by the caller's next reduction */
    return r;
}

/* Group g of VEC elements of a row into v: one 16-byte load for VEC = 4 (the row 16-byte
 * aligned, cols % 4 == 0), one 4-byte load for VEC = 1. */
template <int VEC>
static __device__ __forceinline__ void softmax_baseline_load(const float *__restrict__ row,
                                                             size_t g, float v[VEC])
{
    if constexpr (VEC == 4) {
        float4 q = ((const float4 *)row)[g];
        v[0] = q.x;
        v[1] = q.y;
        v[2] = q.z;
        v[3] = q.w;
    } else {
        v[0] = row[g];
    }
}

template <int VEC>
static __global__ void __launch_bounds__(SOFTMAX_BASELINE_BLOCK)
    softmax_baseline_max_kernel(const float *__restrict__ x, float *__restrict__ row_max,
                                size_t cols)
{
    __shared__ float red[SOFTMAX_BASELINE_BLOCK];
    const float *row = x + blockIdx.x * cols;
    float m = -INFINITY;
    for (size_t g = threadIdx.x; g < cols / VEC; g += blockDim.x) {
        float v[VEC];
        softmax_baseline_load<VEC>(row, g, v);
#pragma unroll
        for (int j = 0; j < VEC; j++)
            m = fmaxf(m, v[j]);
    }
    m = softmax_baseline_block_reduce(red, m, 1);
    if (threadIdx.x == 0)
        row_max[blockIdx.x] = m;
}

template <int VEC>
static __global__ void __launch_bounds__(SOFTMAX_BASELINE_BLOCK)
    softmax_baseline_sum_kernel(const float *__restrict__ x, const float *__restrict__ row_max,
                                float *__restrict__ row_sum, size_t cols)
{
    __shared__ float red[SOFTMAX_BASELINE_BLOCK];
    const float *row = x + blockIdx.x * cols;
    float m = row_max[blockIdx.x], s = 0.0f;
    for (size_t g = threadIdx.x; g < cols / VEC; g += blockDim.x) {
        float v[VEC];
        softmax_baseline_load<VEC>(row, g, v);
#pragma unroll
        for (int j = 0; j < VEC; j++)
            s += expf(v[j] - m);
    }
    s = softmax_baseline_block_reduce(red, s, 0);
    if (threadIdx.x == 0)
        row_sum[blockIdx.x] = s;
}

template <int VEC>
static __global__ void __launch_bounds__(SOFTMAX_BASELINE_BLOCK)
    softmax_baseline_normalize_kernel(const float *__restrict__ x,
                                      const float *__restrict__ row_max,
                                      const float *__restrict__ row_sum, float *__restrict__ y,
                                      size_t cols)
{
    const float *row = x + blockIdx.x * cols;
    float *out = y + blockIdx.x * cols;
    float m = row_max[blockIdx.x], s = row_sum[blockIdx.x];
    for (size_t g = threadIdx.x; g < cols / VEC; g += blockDim.x) {
        float v[VEC];
        softmax_baseline_load<VEC>(row, g, v);
#pragma unroll
        for (int j = 0; j < VEC; j++)
            v[j] = expf(v[j] - m) / s;
        if constexpr (VEC == 4)
            ((float4 *)out)[g] = make_float4(v[0], v[1], v[2], v[3]);
        else
            out[g] = v[0];
    }
}

/* ---------------------------------------------------------------------------------------------
 * Optimized: one read of x, the row in registers, (max, sum) pairs merged online. */

typedef struct softmax_ms {
    float m; /* max of the elements seen */
    float s; /* sum of exp(x - m) over them; 0 for no elements (then m = -inf) */
} softmax_ms;

/* The online merge rule. Two empty pairs give an empty pair rather than exp(-inf - -inf) =
 * NaN; an empty pair merged into a full one contributes 0 * exp(-inf) = 0. */
static __device__ __forceinline__ softmax_ms softmax_merge(softmax_ms a, softmax_ms b)
{
    float m = fmaxf(a.m, b.m);
    if (m == -INFINITY)
        return a;
    softmax_ms r = {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
    return r;
}

/* Every thread returns the row's (M, S), bit-identical across the block: the final merge reads
 * the same warp pairs from shared memory in the same order in every thread (within a warp, the
 * two lanes of a shuffle pair may differ in the last bit, as the compiler may fuse one product
 * of the merge into an FMA). One __syncthreads: partials is written once per block (one row per
 * block), so nothing is overwritten after the barrier. */
static __device__ __forceinline__ softmax_ms softmax_block_merge(softmax_ms t, softmax_ms *partials)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
        softmax_ms o;
        o.m = __shfl_xor_sync(0xffffffffu, t.m, offset);
        o.s = __shfl_xor_sync(0xffffffffu, t.s, offset);
        t = softmax_merge(t, o);
    }
    if (threadIdx.x % 32 == 0)
        partials[threadIdx.x / 32] = t;
    __syncthreads();
    t = partials[0];
#pragma unroll
    for (int w = 1; w < SOFTMAX_BLOCK / 32; w++)
        t = softmax_merge(t, partials[w]);
    return t;
}

/* The row held in registers: element (k * SOFTMAX_BLOCK + threadIdx.x) * VEC + j of the row is
 * v[k * VEC + j], so each of the ITEMS loads is coalesced across the block. VEC = 4 needs
 * cols % 4 == 0 (16-byte aligned rows); cols <= ITEMS * VEC * SOFTMAX_BLOCK. */
template <int VEC, int ITEMS>
static __device__ __forceinline__ void softmax_row_registers(const float *__restrict__ x,
                                                             float *__restrict__ y, int cols,
                                                             softmax_ms *partials)
{
    float v[ITEMS * VEC];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        int c = (k * SOFTMAX_BLOCK + (int)threadIdx.x) * VEC;
        if (c < cols) {
            if constexpr (VEC == 4) {
                float4 q = __ldcs((const float4 *)(x + c));
                v[k * VEC + 0] = q.x;
                v[k * VEC + 1] = q.y;
                v[k * VEC + 2] = q.z;
                v[k * VEC + 3] = q.w;
            } else {
                v[k] = __ldcs(x + c);
            }
        } else {
#pragma unroll
            for (int j = 0; j < VEC; j++)
                v[k * VEC + j] = -INFINITY;
        }
    }

    /* The thread's pair: max over registers, then e = exp(x - m) in place and their sum. */
    softmax_ms t = {-INFINITY, 0.0f};
#pragma unroll
    for (int i = 0; i < ITEMS * VEC; i++)
        t.m = fmaxf(t.m, v[i]);
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        if ((k * SOFTMAX_BLOCK + (int)threadIdx.x) * VEC < cols) {
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                v[k * VEC + j] = expf(v[k * VEC + j] - t.m);
                t.s += v[k * VEC + j];
            }
        }
    }
    float my_m = t.m;
    t = softmax_block_merge(t, partials);

    /* y = exp(x - M) / S = e * exp(m - M) / S: a thread with no elements gets scale 0 and
     * stores nothing. */
    float scale = expf(my_m - t.m) / t.s;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        int c = (k * SOFTMAX_BLOCK + (int)threadIdx.x) * VEC;
        if (c < cols) {
            if constexpr (VEC == 4) {
                float4 q = make_float4(v[k * VEC + 0] * scale, v[k * VEC + 1] * scale,
                                       v[k * VEC + 2] * scale, v[k * VEC + 3] * scale);
                __stcs((float4 *)(y + c), q);
            } else {
                __stcs(y + c, v[k] * scale);
            }
        }
    }
}

/* Rows too long for registers: a running (m, s) per thread over a first read, then a second
 * read of the row to write y. */
static __device__ __forceinline__ void softmax_row_streamed(const float *__restrict__ x,
                                                            float *__restrict__ y, size_t cols,
                                                            softmax_ms *partials)
{
    softmax_ms t = {-INFINITY, 0.0f};
    for (size_t c = threadIdx.x; c < cols; c += SOFTMAX_BLOCK) {
        float xv = x[c]; /* a plain load: the line may still be in L2 for the second read */
        if (xv > t.m) {  /* the max grows: rescale the sum to the new max */
            t.s = t.s * expf(t.m - xv) + 1.0f;
            t.m = xv;
        } else {
            t.s += expf(xv - t.m); /* also propagates a NaN input */
        }
    }
    t = softmax_block_merge(t, partials);
    float inv_s = 1.0f / t.s;
    for (size_t c = threadIdx.x; c < cols; c += SOFTMAX_BLOCK)
        __stcs(y + c, expf(__ldcs(x + c) - t.m) * inv_s);
}

/* One block per row. ITEMS > 0: the row in registers (VEC = 4 or 1); ITEMS = 0: streamed. */
template <int VEC, int ITEMS>
static __global__ void __launch_bounds__(SOFTMAX_BLOCK)
    softmax_optimized_kernel(const float *__restrict__ x, float *__restrict__ y, size_t cols)
{
    __shared__ softmax_ms partials[SOFTMAX_BLOCK / 32];
    size_t offset = (size_t)blockIdx.x * cols;
    if constexpr (ITEMS > 0)
        softmax_row_registers<VEC, ITEMS>(x + offset, y + offset, (int)cols, partials);
    else
        softmax_row_streamed(x + offset, y + offset, cols, partials);
}

/* ---------------------------------------------------------------------------------------------
 * Trusted reference and input preparation (setup only, never timed). */

/* Tree reduction in double over a power-of-two block; every thread returns the result. */
static __device__ double softmax_reference_block_reduce(double *red, double v, int is_max)
{
    unsigned t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half)
            red[t] = is_max ? fmax(red[t], red[t + half]) : red[t] + red[t + half];
        __syncthreads();
    }
    double r = red[0];
    __syncthreads();
    return r;
}

/* The definition, in fp64: max, sum of exp(x - max), exp(x - max) / sum rounded to float. */
static __global__ void __launch_bounds__(SOFTMAX_REFERENCE_BLOCK)
    softmax_reference_kernel(const float *__restrict__ x, float *__restrict__ ref, size_t cols)
{
    __shared__ double red[SOFTMAX_REFERENCE_BLOCK];
    const float *row = x + blockIdx.x * cols;
    float *out = ref + blockIdx.x * cols;
    double m = -INFINITY, s = 0.0;
    for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmax(m, (double)row[c]);
    m = softmax_reference_block_reduce(red, m, 1);
    for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
        s += exp((double)row[c] - m);
    s = softmax_reference_block_reduce(red, s, 0);
    for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = (float)(exp((double)row[c] - m) / s);
}

static __global__ void softmax_scale_kernel(float *x, size_t n, float factor)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] *= factor;
}

/* ---------------------------------------------------------------------------------------------
 * Launchers. */

/* The three baseline kernels for one row length. */
template <int VEC>
static void softmax_baseline_launch(const float *x, float *y, float *row_max, float *row_sum,
                                    unsigned rows, size_t cols, cudaStream_t stream)
{
    softmax_baseline_max_kernel<VEC><<<rows, SOFTMAX_BASELINE_BLOCK, 0, stream>>>(x, row_max, cols);
    softmax_baseline_sum_kernel<VEC><<<rows, SOFTMAX_BASELINE_BLOCK, 0, stream>>>(x, row_max,
                                                                                  row_sum, cols);
    softmax_baseline_normalize_kernel<VEC><<<rows, SOFTMAX_BASELINE_BLOCK, 0, stream>>>(
        x, row_max, row_sum, y, cols);
}

/* 16-byte accesses when cols % 4 == 0 (x and y 16-byte aligned, as cudaMalloc gives), scalar
 * otherwise: what a framework's unfused kernels do. */
extern "C" cudaError_t softmax_baseline(const float *x, float *y, float *row_max, float *row_sum,
                                        size_t rows, size_t cols, cudaStream_t stream)
{
    for (size_t r0 = 0; r0 < rows; r0 += SOFTMAX_MAX_GRID) {
        unsigned grid = (unsigned)(rows - r0 < SOFTMAX_MAX_GRID ? rows - r0 : SOFTMAX_MAX_GRID);
        if (cols % 4 == 0)
            softmax_baseline_launch<4>(x + r0 * cols, y + r0 * cols, row_max + r0, row_sum + r0,
                                       grid, cols, stream);
        else
            softmax_baseline_launch<1>(x + r0 * cols, y + r0 * cols, row_max + r0, row_sum + r0,
                                       grid, cols, stream);
    }
    return cudaGetLastError();
}

typedef void (*softmax_kernel_fn)(const float *, float *, size_t);

/* The instantiation for a row length: the fewest items per thread that hold the row, 16-byte
 * accesses when cols % 4 == 0 (up to 8 float4 per thread), scalar otherwise (up to 32 floats),
 * streamed beyond (cols > 8192 with SOFTMAX_BLOCK = 256). */
static softmax_kernel_fn softmax_pick(size_t cols)
{
    const size_t vec = (size_t)SOFTMAX_BLOCK * 4, one = SOFTMAX_BLOCK;
    if (cols % 4 == 0 && cols <= 8 * vec) {
        if (cols <= vec)
            return softmax_optimized_kernel<4, 1>;
        if (cols <= 2 * vec)
            return softmax_optimized_kernel<4, 2>;
        if (cols <= 4 * vec)
            return softmax_optimized_kernel<4, 4>;
        return softmax_optimized_kernel<4, 8>;
    }
    if (cols <= one)
        return softmax_optimized_kernel<1, 1>;
    if (cols <= 2 * one)
        return softmax_optimized_kernel<1, 2>;
    if (cols <= 4 * one)
        return softmax_optimized_kernel<1, 4>;
    if (cols <= 8 * one)
        return softmax_optimized_kernel<1, 8>;
    if (cols <= 16 * one)
        return softmax_optimized_kernel<1, 16>;
    if (cols <= 32 * one)
        return softmax_optimized_kernel<1, 32>;
    return softmax_optimized_kernel<1, 0>;
}

/* x and y must be 16-byte aligned (cudaMalloc gives 256); rows then stay aligned when
 * cols % 4 == 0. */
extern "C" cudaError_t softmax_optimized(const float *x, float *y, size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    softmax_kernel_fn kernel = softmax_pick(cols);
    for (size_t r0 = 0; r0 < rows; r0 += SOFTMAX_MAX_GRID) {
        unsigned grid = (unsigned)(rows - r0 < SOFTMAX_MAX_GRID ? rows - r0 : SOFTMAX_MAX_GRID);
        kernel<<<grid, SOFTMAX_BLOCK, 0, stream>>>(x + r0 * cols, y + r0 * cols, cols);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t softmax_reference(const float *x, float *ref, size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    for (size_t r0 = 0; r0 < rows; r0 += SOFTMAX_MAX_GRID) {
        unsigned grid = (unsigned)(rows - r0 < SOFTMAX_MAX_GRID ? rows - r0 : SOFTMAX_MAX_GRID);
        softmax_reference_kernel<<<grid, SOFTMAX_REFERENCE_BLOCK, 0, stream>>>(
            x + r0 * cols, ref + r0 * cols, cols);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t softmax_scale(float *x, size_t n, float factor, cudaStream_t stream)
{
    softmax_scale_kernel<<<2048, 256, 0, stream>>>(x, n, factor);
    return cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------
 * A planted defect for tests/test_gpu.c (bench/softmax.c, rb_defect), not a kernel to learn
 * from: the baseline with its sum kernel looping over cols rounded down to a multiple of 4, the
 * bug of a vectorized sum that forgets the tail. The max and the normalization are right, so
 * every element is written and each row is scaled by 1 / (S - e_tail) instead of 1 / S. */

static __global__ void __launch_bounds__(SOFTMAX_BASELINE_BLOCK)
    softmax_defect_truncated_sum_kernel(const float *__restrict__ x,
                                        const float *__restrict__ row_max,
                                        float *__restrict__ row_sum, size_t cols)
{
    __shared__ float red[SOFTMAX_BASELINE_BLOCK];
    const float *row = x + blockIdx.x * cols;
    float m = row_max[blockIdx.x], s = 0.0f;
    for (size_t c = threadIdx.x; c < (cols & ~(size_t)3); c += blockDim.x) /* the defect */
        s += expf(row[c] - m);
    s = softmax_baseline_block_reduce(red, s, 0);
    if (threadIdx.x == 0)
        row_sum[blockIdx.x] = s;
}

/* rows < 2^31 (the defect runs at the odd shape only). */
extern "C" cudaError_t softmax_defect_truncated_sum(const float *x, float *y, float *row_max,
                                                    float *row_sum, size_t rows, size_t cols,
                                                    cudaStream_t stream)
{
    if (rows > SOFTMAX_MAX_GRID)
        return cudaErrorInvalidValue;
    unsigned grid = (unsigned)rows;
    softmax_baseline_max_kernel<1><<<grid, SOFTMAX_BASELINE_BLOCK, 0, stream>>>(x, row_max, cols);
    softmax_defect_truncated_sum_kernel<<<grid, SOFTMAX_BASELINE_BLOCK, 0, stream>>>(x, row_max,
                                                                                     row_sum, cols);
    softmax_baseline_normalize_kernel<1><<<grid, SOFTMAX_BASELINE_BLOCK, 0, stream>>>(
        x, row_max, row_sum, y, cols);
    return cudaGetLastError();
}

/* The kernels each variant launches, as launched (harness/kit/kernel_info.h); the reference and
 * scale kernels run in setup only. softmax_pick chooses one optimized instantiation by the row
 * length, so each is listed: the full and smoke sizes (4096 columns) run <4, 4>, the odd shape
 * 999 x 1021 of the GPU tests <1, 4>; the baseline's kernels run <4> and <1> there. */
/* clang-format off */
#define SOFTMAX_OPTIMIZED_INFO(vec, items)                                  \
    {"optimized", "softmax_optimized_kernel<" #vec ", " #items ">",         \
     (const void *)softmax_optimized_kernel<vec, items>, SOFTMAX_BLOCK, 0}
#define SOFTMAX_BASELINE_INFO(step, vec)                                    \
    {"baseline", "softmax_baseline_" #step "_kernel<" #vec ">",             \
     (const void *)softmax_baseline_##step##_kernel<vec>, SOFTMAX_BASELINE_BLOCK, 0}
/* clang-format on */
extern "C" const rb_kernel_info softmax_kernels[] = {
    SOFTMAX_BASELINE_INFO(max, 4),
    SOFTMAX_BASELINE_INFO(sum, 4),
    SOFTMAX_BASELINE_INFO(normalize, 4),
    SOFTMAX_BASELINE_INFO(max, 1),
    SOFTMAX_BASELINE_INFO(sum, 1),
    SOFTMAX_BASELINE_INFO(normalize, 1),
    SOFTMAX_OPTIMIZED_INFO(4, 1),
    SOFTMAX_OPTIMIZED_INFO(4, 2),
    SOFTMAX_OPTIMIZED_INFO(4, 4),
    SOFTMAX_OPTIMIZED_INFO(4, 8),
    SOFTMAX_OPTIMIZED_INFO(1, 1),
    SOFTMAX_OPTIMIZED_INFO(1, 2),
    SOFTMAX_OPTIMIZED_INFO(1, 4),
    SOFTMAX_OPTIMIZED_INFO(1, 8),
    SOFTMAX_OPTIMIZED_INFO(1, 16),
    SOFTMAX_OPTIMIZED_INFO(1, 32),
    SOFTMAX_OPTIMIZED_INFO(1, 0),
    {}};
