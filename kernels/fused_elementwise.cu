/* SPDX-License-Identifier: MIT */
/*
 * fused_elementwise: bias + GELU + residual as three framework-style ops vs one fused kernel.
 *
 * What: y = gelu(x + bias) + residual over a rows x cols bf16 matrix (row-major), bias one value
 *   per column (a transformer MLP's bias-GELU followed by its residual add). GELU is the exact
 *   erf form, gelu(v) = 0.5 v (1 + erf(v / sqrt 2)), evaluated in fp32 (erff). Default shape:
 *   cols = min(4096, n) (a hidden size), rows = n / cols; any rows x cols works (999 x 1021 too).
 *
 * Work: compulsory DRAM traffic 2n (x) + 2n (residual) + 2n (y) + 2 cols (bias) = 6n + 2 cols
 *   bytes. Flops: 6 fp32 operations per element as the formula is written (x + b, v / sqrt 2,
 *   1 + erf, 0.5 v, the product, + residual), erf itself not counted (libdevice's erff is a
 *   ~20-instruction polynomial, an implementation detail like exp's): AI = 6n / 6n = 1 flop per
 *   byte, memory-bound by 60x on an H100 (ridge point 60.6 TFLOP/s / 3 TB/s = 20).
 *   Full size n = 2^28 (x, residual and y are 512 MiB each; 1.61 GB compulsory, > 4x L2).
 *
 * Baseline: what an eager framework runs for `gelu(x + bias) + residual`: three kernels, each
 *   one thread per element with scalar bf16 loads and stores, the intermediates in DRAM:
 *     t1 = x + bias (bf16), t2 = gelu(t1) (bf16), y = t2 + residual (bf16).
 *   Each op computes in fp32 and rounds to bf16, as frameworks do. DRAM traffic:
 *   (2n + 2n) + (2n + 2n) + (2n + 2n + 2n) = 14n bytes, 2.33x the compulsory 6n: t1 and t2
 *   (512 MiB each) are each written once and read once, and far too large to stay in L2 between
 *   kernels. A second cost: a thread holds only 2 bytes in flight, so (Little's law, see
 *   copy_vectorized) each kernel runs below even a scalar fp32 copy's 2.4 TB/s.
 *
 * Optimized: one kernel reads x and residual once and writes y once; t1 and t2 live in
 *   registers. Each thread moves 16-byte vectors (8 bf16: uint4, unpacked in pairs), so it keeps
 *   32 bytes of loads in flight, and x, residual and y use ld/st.global.cs (evict-first: read or
 *   written once). Math is fp32 with a single rounding to bf16 at the end (the baseline rounds
 *   three times: it is also less accurate). The matrix is treated as a flat array of n elements;
 *   a vector's first column is one 32-bit remainder (a 64-bit `%` is a ~60-instruction software
 *   routine), and the next 7 columns count up with wrap-around, so any cols works, even odd ones
 *   where a vector straddles two rows. When cols % 8 == 0 (every real hidden size) the 8 bias
 *   values are one aligned 16-byte load (the 2*cols-byte bias stays in L1/L2); otherwise they are
 *   8 scalar loads. The n % 8 tail elements are done one per thread.
 *
 * Library: none. The CUDA Toolkit has no standalone fused bias + GELU + residual routine
 *   (cuBLASLt's GELU_BIAS epilogue fuses bias and GELU only onto the end of a GEMM); frameworks
 *   get this fusion from a compiler (torch.compile / Triton), not from the toolkit.
 *
 * Predicted (H100 SXM, before measuring): optimized ~2.8-2.9 TB/s in declared bytes, like a
 *   float4 triad (GPU.md: 2881 GB/s; two streams in, one out), i.e. 0.93-0.97x the cudaMemcpy
 *   roof (2996 GB/s); ~0.56 ms at full size. The SASS loop is ~290 instructions per 8-element
 *   vector (~36 per element, erff ~22 of them), about half of the ~70 per element that 132 SMs
 *   issue in 0.56 ms: memory-bound still, but the compute is not free (40 registers, 6 blocks of
 *   256 per SM: 48 KB of loads in flight per SM, well over the ~14 KB Little's law asks).
 *   Baseline: 14n bytes at ~1.6-2.2 TB/s (2-byte scalar accesses, below the 2401 GB/s of a
 *   4-byte scalar copy), ~1.7-2.3 ms.
 *   Speedup = (14/6) x (2.85 / 1.6-2.2) = 3.0-4.2x, central ~3.5x: 2.33x from bytes alone,
 *   the rest from 16-byte accesses.
 *
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261122T042738Z-6bfc0b1.json; ncu:
 *   ...-6bfc0b1-ncu-bytes.txt/.csv): baseline 2.533 ms (636 GB/s of the declared 6n; 1.49 TB/s of
 *   the 14n it moves), optimized 3054 GB/s = 1.02x the cudaMemcpy 2999 GB/s of the same run (a
 *   stream with two reads per write runs a little faster than a 1:1 copy), 4.80x. The speedup beat
 *   the predicted 3.0-4.2x because the baseline's scalar 2-byte kernels ran at 35-59% of the DRAM
 *   peak (ncu: 16.8M load requests of 64 bytes per kernel, 815-893 us each), not near the 2.4 TB/s
 *   of a 4-byte scalar copy. The optimized kernel moves its declared bytes within 1% (ncu).
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>

#include "kernel_info.h"
#include "kernels/fused_elementwise.h"

/* Tunables: threads per block, and 8-element vectors per thread per loop trip (their loads are
 * all issued before the first store). */
#define FUSED_ELEMENTWISE_BLOCK 256
#define FUSED_ELEMENTWISE_VECS 1

/* The column of flat element i. A 32-bit remainder while i fits 32 bits (n up to 4 Gi). */
static __device__ __forceinline__ unsigned fused_elementwise_col(size_t i, unsigned cols)
{
    return i <= 0xFFFFFFFFu ? (unsigned)i % cols : (unsigned)(i % cols);
}

static __device__ __forceinline__ float fused_elementwise_gelu(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}

/* ---- Baseline: three unfused ops, one thread per element, scalar bf16. ---- */

static __global__ void
fused_elementwise_baseline_bias_kernel(const __nv_bfloat16 *__restrict__ x,
                                       const __nv_bfloat16 *__restrict__ bias,
                                       __nv_bfloat16 *__restrict__ t1, size_t n, unsigned cols)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        t1[i] = __float2bfloat16_rn(__bfloat162float(x[i]) +
                                    __bfloat162float(bias[fused_elementwise_col(i, cols)]));
}

static __global__ void fused_elementwise_baseline_gelu_kernel(const __nv_bfloat16 *__restrict__ t1,
                                                              __nv_bfloat16 *__restrict__ t2,
                                                              size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        t2[i] = __float2bfloat16_rn(fused_elementwise_gelu(__bfloat162float(t1[i])));
}

static __global__ void
fused_elementwise_baseline_residual_kernel(const __nv_bfloat16 *__restrict__ t2,
                                           const __nv_bfloat16 *__restrict__ residual,
                                           __nv_bfloat16 *__restrict__ y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = __float2bfloat16_rn(__bfloat162float(t2[i]) + __bfloat162float(residual[i]));
}

/* ---- Optimized: one pass, 16-byte vectors, fp32 math, one rounding. ---- */

/* A 32-bit word holds two bf16: element 2k in its low half, 2k+1 in its high half. A bf16 is
 * the top 16 bits of an fp32, so widening is a shift or a mask (exact). */
static __device__ __forceinline__ float fused_elementwise_lo(unsigned w)
{
    return __uint_as_float(w << 16);
}

static __device__ __forceinline__ float fused_elementwise_hi(unsigned w)
{
    return __uint_as_float(w & 0xFFFF0000u);
}

/* Rounds two floats to bf16 (one cvt.rn.bf16x2.f32) and packs them, lo in the low half. */
static __device__ __forceinline__ unsigned fused_elementwise_pack(float lo, float hi)
{
    __nv_bfloat162_raw r = __floats2bfloat162_rn(lo, hi);
    return (unsigned)r.x | ((unsigned)r.y << 16);
}

static __device__ __forceinline__ unsigned fused_elementwise_word(unsigned xw, unsigned rw,
                                                                  float b0, float b1)
{
    float lo = fused_elementwise_gelu(fused_elementwise_lo(xw) + b0) + fused_elementwise_lo(rw);
    float hi = fused_elementwise_gelu(fused_elementwise_hi(xw) + b1) + fused_elementwise_hi(rw);
    return fused_elementwise_pack(lo, hi);
}

/* y for the 8 elements of vector v (elements 8v .. 8v+7). */
static __device__ __forceinline__ uint4 fused_elementwise_vector(uint4 xv, uint4 rv, size_t v,
                                                                 const unsigned short *bias,
                                                                 unsigned cols)
{
    unsigned c = fused_elementwise_col(8 * v, cols);
    float b[8];
    if ((cols & 7u) == 0) {
        /* Every vector lies inside one row and starts at a column that is a multiple of 8. */
        uint4 bv = __ldg((const uint4 *)(bias + c));
        b[0] = fused_elementwise_lo(bv.x), b[1] = fused_elementwise_hi(bv.x);
        b[2] = fused_elementwise_lo(bv.y), b[3] = fused_elementwise_hi(bv.y);
        b[4] = fused_elementwise_lo(bv.z), b[5] = fused_elementwise_hi(bv.z);
        b[6] = fused_elementwise_lo(bv.w), b[7] = fused_elementwise_hi(bv.w);
    } else {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            b[k] = fused_elementwise_lo(__ldg(bias + c));
            c = c + 1 == cols ? 0 : c + 1;
        }
    }
    uint4 out;
    out.x = fused_elementwise_word(xv.x, rv.x, b[0], b[1]);
    out.y = fused_elementwise_word(xv.y, rv.y, b[2], b[3]);
    out.z = fused_elementwise_word(xv.z, rv.z, b[4], b[5]);
    out.w = fused_elementwise_word(xv.w, rv.w, b[6], b[7]);
    return out;
}

static __global__ void fused_elementwise_optimized_kernel(const uint4 *__restrict__ x,
                                                          const uint4 *__restrict__ residual,
                                                          const unsigned short *__restrict__ bias,
                                                          uint4 *__restrict__ y, size_t n8,
                                                          size_t n, unsigned cols)
{
    const int vecs = FUSED_ELEMENTWISE_VECS;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t tail = n - 8 * n8;
    if (t < tail) {
        /* The last n % 8 elements, one per thread. */
        size_t i = 8 * n8 + t;
        float xf = fused_elementwise_lo(((const unsigned short *)x)[i]);
        float rf = fused_elementwise_lo(((const unsigned short *)residual)[i]);
        float bf = fused_elementwise_lo(bias[fused_elementwise_col(i, cols)]);
        ((__nv_bfloat16 *)y)[i] = __float2bfloat16_rn(fused_elementwise_gelu(xf + bf) + rf);
    }
    size_t v = t;
    for (; v + (vecs - 1) * stride < n8; v += vecs * stride) {
        uint4 xv[vecs], rv[vecs];
#pragma unroll
        for (int k = 0; k < vecs; k++) {
            xv[k] = __ldcs(&x[v + k * stride]);
            rv[k] = __ldcs(&residual[v + k * stride]);
        }
#pragma unroll
        for (int k = 0; k < vecs; k++)
            __stcs(&y[v + k * stride],
                   fused_elementwise_vector(xv[k], rv[k], v + k * stride, bias, cols));
    }
    for (; v < n8; v += stride)
        __stcs(&y[v], fused_elementwise_vector(__ldcs(&x[v]), __ldcs(&residual[v]), v, bias, cols));
}

/* ---- Setup helpers: input conversion and the trusted fp64 reference. ---- */

static __global__ void fused_elementwise_to_bf16_kernel(const float *__restrict__ in, float scale,
                                                        __nv_bfloat16 *__restrict__ out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = __float2bfloat16_rn(scale * in[i]);
}

static __device__ double fused_elementwise_bf16_to_double(unsigned short b)
{
    return (double)__uint_as_float((unsigned)b << 16);
}

/* Plain and obviously right: fp64 from the same bf16 inputs, one fp32 rounding at the end. */
static __global__ void fused_elementwise_reference_kernel(const unsigned short *__restrict__ x,
                                                          const unsigned short *__restrict__ bias,
                                                          const unsigned short *__restrict__ res,
                                                          float *__restrict__ ref, size_t n,
                                                          size_t cols)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double v = fused_elementwise_bf16_to_double(x[i]) +
                   fused_elementwise_bf16_to_double(bias[i % cols]);
        double g = 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
        ref[i] = (float)(g + fused_elementwise_bf16_to_double(res[i]));
    }
}

static unsigned fused_elementwise_blocks(size_t threads)
{
    size_t blocks = (threads + FUSED_ELEMENTWISE_BLOCK - 1) / FUSED_ELEMENTWISE_BLOCK;
    return blocks ? (unsigned)blocks : 1u;
}

/* The three baseline kernels, back to back on the stream. cols <= 2^31 (the shape checks it). */
extern "C" cudaError_t fused_elementwise_baseline(const void *x, const void *bias,
                                                  const void *residual, void *t1, void *t2, void *y,
                                                  size_t n, size_t cols, cudaStream_t stream)
{
    unsigned blocks = fused_elementwise_blocks(n);
    fused_elementwise_baseline_bias_kernel<<<blocks, FUSED_ELEMENTWISE_BLOCK, 0, stream>>>(
        (const __nv_bfloat16 *)x, (const __nv_bfloat16 *)bias, (__nv_bfloat16 *)t1, n,
        (unsigned)cols);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    fused_elementwise_baseline_gelu_kernel<<<blocks, FUSED_ELEMENTWISE_BLOCK, 0, stream>>>(
        (const __nv_bfloat16 *)t1, (__nv_bfloat16 *)t2, n);
    e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    fused_elementwise_baseline_residual_kernel<<<blocks, FUSED_ELEMENTWISE_BLOCK, 0, stream>>>(
        (const __nv_bfloat16 *)t2, (const __nv_bfloat16 *)residual, (__nv_bfloat16 *)y, n);
    return cudaGetLastError();
}

/* x, residual, y and bias must be 16-byte aligned (cudaMalloc gives 256). One pass: the grid
 * covers every vector once (the loop keeps any grid correct). */
extern "C" cudaError_t fused_elementwise_optimized(const void *x, const void *bias,
                                                   const void *residual, void *y, size_t n,
                                                   size_t cols, cudaStream_t stream)
{
    size_t n8 = n / 8;
    unsigned blocks =
        fused_elementwise_blocks((n8 + FUSED_ELEMENTWISE_VECS - 1) / FUSED_ELEMENTWISE_VECS);
    fused_elementwise_optimized_kernel<<<blocks, FUSED_ELEMENTWISE_BLOCK, 0, stream>>>(
        (const uint4 *)x, (const uint4 *)residual, (const unsigned short *)bias, (uint4 *)y, n8, n,
        (unsigned)cols);
    return cudaGetLastError();
}

/* out = bf16(scale * in): the seeded fp32 fill turned into bf16 inputs. */
extern "C" cudaError_t fused_elementwise_to_bf16(const float *in, float scale, void *out, size_t n,
                                                 cudaStream_t stream)
{
    fused_elementwise_to_bf16_kernel<<<1024, 256, 0, stream>>>(in, scale, (__nv_bfloat16 *)out, n);
    return cudaGetLastError();
}

extern "C" cudaError_t fused_elementwise_reference(const void *x, const void *bias,
                                                   const void *residual, float *ref, size_t n,
                                                   size_t cols, cudaStream_t stream)
{
    fused_elementwise_reference_kernel<<<2048, 256, 0, stream>>>(
        (const unsigned short *)x, (const unsigned short *)bias, (const unsigned short *)residual,
        ref, n, cols);
    return cudaGetLastError();
}

/* The kernels each variant launches, as launched (harness/kernel_info.h); the conversion and
 * reference kernels run in setup only. */
extern "C" const rb_kernel_info fused_elementwise_kernels[] = {
    {"baseline", "fused_elementwise_baseline_bias_kernel",
     (const void *)fused_elementwise_baseline_bias_kernel, FUSED_ELEMENTWISE_BLOCK, 0},
    {"baseline", "fused_elementwise_baseline_gelu_kernel",
     (const void *)fused_elementwise_baseline_gelu_kernel, FUSED_ELEMENTWISE_BLOCK, 0},
    {"baseline", "fused_elementwise_baseline_residual_kernel",
     (const void *)fused_elementwise_baseline_residual_kernel, FUSED_ELEMENTWISE_BLOCK, 0},
    {"optimized", "fused_elementwise_optimized_kernel",
     (const void *)fused_elementwise_optimized_kernel, FUSED_ELEMENTWISE_BLOCK, 0},
    {}};
