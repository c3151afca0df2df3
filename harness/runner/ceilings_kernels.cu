/* SPDX-License-Identifier: MIT */
/*
 * The kernels of `roofbench ceilings`: each sets one roof every pair is judged against, so each
 * is written to reach its unit's limit and nothing else (harness/runner/ceilings_kernels.h).
 *
 * DRAM: 16-byte accesses with evict-first (.cs) hints over buffers >= 8x L2, so no line is
 *   reused. Copy: one load and one store per thread over a grid that covers the array in one
 *   pass (the fastest form on H100 and H200, see kernels/copy_vectorized.cu). Read and write:
 *   four independent 16-byte accesses per thread, so each SM keeps up to 2048 x 64 B in flight,
 *   several times what Little's law asks at ~3.35 TB/s and ~0.7 us (~18 KB per SM). The read
 *   xors what it loads and stores the result only when it equals a runtime value, so the
 *   compiler must keep every load. The write stores an index-dependent pattern: a memset of
 *   the driver's may take another path (and compressible memory could shrink constant data).
 * L2: a working set that fits is read again and again with .cg loads (cached in L2, not L1),
 *   through inline asm volatile so the compiler cannot hoist a repeated load out of the loop.
 * Shared memory: each thread reads four 16-byte words of its block's 16 KiB with ld.shared.v4
 *   (asm volatile, same reason). A warp's 16-byte loads are served a quarter-warp at a time,
 *   8 lanes x 16 B = 128 B, all 32 banks once: conflict-free, and one instruction moves 512 B,
 *   so the SM's issue slots (the xor and the loop) are never what limits it; 4-byte loads
 *   would need an LDS every clock per SM for the same 128 B/clk.
 * FMA: 8 independent chains per thread hide the FMA latency (4 cycles fp32, ~8 fp64) with 4+
 *   warps per scheduler; the result is stored only if it is impossible.
 */
#include "ceilings_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "model/random.h"

#define CEIL_THREADS 256
#define CEIL_UNROLL 4        /* 16-byte accesses per thread per pass */
#define CEIL_SMEM_WORDS 1024 /* uint4: 16 KiB per block = CEIL_UNROLL x CEIL_THREADS */

static __global__ void __launch_bounds__(CEIL_THREADS)
    ceiling_copy_kernel(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        __stcs(&dst[i], __ldcs(&src[i]));
}

extern "C" cudaError_t rb_ceiling_copy(const void *src, void *dst, size_t n_vec4,
                                       cudaStream_t stream)
{
    size_t blocks = (n_vec4 + CEIL_THREADS - 1) / CEIL_THREADS;
    ceiling_copy_kernel<<<blocks, CEIL_THREADS, 0, stream>>>((const float4 *)src, (float4 *)dst,
                                                             n_vec4);
    return cudaGetLastError();
}

/* Block b covers elements [b x 1024, (b + 1) x 1024): access k of thread t is element
 * b x 1024 + k x 256 + t, so each of the four is one coalesced 4 KiB sweep of the block. */
static __global__ void __launch_bounds__(CEIL_THREADS)
    ceiling_read_kernel(const uint4 *__restrict__ src, size_t n, unsigned rare, unsigned *sink)
{
    size_t base = (size_t)blockIdx.x * CEIL_THREADS * CEIL_UNROLL + threadIdx.x;
    uint4 v[CEIL_UNROLL];
#pragma unroll
    for (int k = 0; k < CEIL_UNROLL; k++) {
        size_t i = base + (size_t)k * CEIL_THREADS;
        v[k] = i < n ? __ldcs(&src[i]) : make_uint4(0, 0, 0, 0);
    }
    unsigned acc = 0;
#pragma unroll
    for (int k = 0; k < CEIL_UNROLL; k++)
        acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    if (acc == rare)
        *sink = acc;
}

static size_t pass_blocks(size_t n_vec4)
{
    return (n_vec4 + CEIL_THREADS * CEIL_UNROLL - 1) / (CEIL_THREADS * CEIL_UNROLL);
}

extern "C" cudaError_t rb_ceiling_read(const void *src, size_t n_vec4, unsigned rare,
                                       unsigned *sink, cudaStream_t stream)
{
    ceiling_read_kernel<<<pass_blocks(n_vec4), CEIL_THREADS, 0, stream>>>((const uint4 *)src,
                                                                          n_vec4, rare, sink);
    return cudaGetLastError();
}

static __global__ void __launch_bounds__(CEIL_THREADS) ceiling_write_kernel(uint4 *dst, size_t n)
{
    size_t base = (size_t)blockIdx.x * CEIL_THREADS * CEIL_UNROLL + threadIdx.x;
#pragma unroll
    for (int k = 0; k < CEIL_UNROLL; k++) {
        size_t i = base + (size_t)k * CEIL_THREADS;
        unsigned lo = (unsigned)i;
        if (i < n)
            __stcs(&dst[i],
                   make_uint4(lo, lo * 2654435761u, ~lo, (unsigned)(i >> 32) ^ 0x9E3779B9u));
    }
}

extern "C" cudaError_t rb_ceiling_write(void *dst, size_t n_vec4, cudaStream_t stream)
{
    ceiling_write_kernel<<<pass_blocks(n_vec4), CEIL_THREADS, 0, stream>>>((uint4 *)dst, n_vec4);
    return cudaGetLastError();
}

/* ld.global.cg.v4: cached in L2 only. volatile: executed every time it is written, never
 * hoisted out of the repetition loop although its address does not change there. */
static __device__ __forceinline__ uint4 ld_l2(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

static __global__ void __launch_bounds__(CEIL_THREADS)
    ceiling_l2_read_kernel(const uint4 *__restrict__ buf, size_t n, int reps, unsigned rare,
                           unsigned *sink)
{
    size_t stride = (size_t)gridDim.x * CEIL_THREADS;
    size_t first = (size_t)blockIdx.x * CEIL_THREADS + threadIdx.x;
    unsigned acc = 0;
    for (int r = 0; r < reps; r++)
        for (size_t i = first; i < n; i += CEIL_UNROLL * stride) {
            uint4 v[CEIL_UNROLL];
#pragma unroll
            for (int k = 0; k < CEIL_UNROLL; k++)
                v[k] = i + k * stride < n ? ld_l2(&buf[i + k * stride]) : make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int k = 0; k < CEIL_UNROLL; k++)
                acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
        }
    if (acc == rare)
        *sink = acc;
}

/* A grid of exactly the blocks that fit on every SM at once: no partial last wave. */
static cudaError_t resident_grid(const void *kernel, int sms, int *blocks)
{
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, CEIL_THREADS, 0);
    *blocks = sms * (per_sm > 0 ? per_sm : 1);
    return e;
}

extern "C" cudaError_t rb_ceiling_l2_read(const void *buf, size_t n_vec4, int reps, unsigned rare,
                                          unsigned *sink, int sms, cudaStream_t stream)
{
    int blocks = 0;
    cudaError_t e = resident_grid((const void *)ceiling_l2_read_kernel, sms, &blocks);
    if (e != cudaSuccess)
        return e;
    ceiling_l2_read_kernel<<<blocks, CEIL_THREADS, 0, stream>>>((const uint4 *)buf, n_vec4, reps,
                                                                rare, sink);
    return cudaGetLastError();
}

static __device__ __forceinline__ uint4 ld_shared(unsigned addr)
{
    uint4 v;
    /* .volatile: the same addresses are read every iteration and nothing writes them, so
     * ptxas may keep a plain ld.shared's value in registers (asm volatile binds only the
     * front end): the first H100 run, with plain loads, reported 127 TB/s, 3.8x the 33.4 TB/s
     * that 132 SMs x 128 B/clock x 1.98 GHz allow. */
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr));
    return v;
}

/* Thread t reads words t, t + 256, t + 512, t + 768: a warp's 32 consecutive 16-byte words per
 * load, conflict-free (header). */
static __global__ void __launch_bounds__(CEIL_THREADS)
    ceiling_smem_kernel(unsigned *sink, int iters, unsigned rare)
{
    __shared__ uint4 words[CEIL_SMEM_WORDS];
    for (int i = threadIdx.x; i < CEIL_SMEM_WORDS; i += CEIL_THREADS)
        words[i] = make_uint4(i, i ^ blockIdx.x, ~i, i * 3u);
    __syncthreads();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&words[threadIdx.x]);
    unsigned acc = 0;
    for (int it = 0; it < iters; it++) {
        uint4 v[CEIL_UNROLL];
#pragma unroll
        for (int k = 0; k < CEIL_UNROLL; k++)
            v[k] = ld_shared(addr + k * CEIL_THREADS * (unsigned)sizeof(uint4));
#pragma unroll
        for (int k = 0; k < CEIL_UNROLL; k++)
            acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    if (acc == rare)
        *sink = acc;
}

extern "C" cudaError_t rb_ceiling_smem(unsigned *sink, int sms, int iters, cudaStream_t stream,
                                       double *bytes_per_launch)
{
    int blocks = 0;
    cudaError_t e = resident_grid((const void *)ceiling_smem_kernel, sms, &blocks);
    if (e != cudaSuccess)
        return e;
    *bytes_per_launch = (double)blocks * CEIL_THREADS * CEIL_UNROLL * sizeof(uint4) * iters;
    ceiling_smem_kernel<<<blocks, CEIL_THREADS, 0, stream>>>(sink, iters, 0xFFFFFFFFu);
    return cudaGetLastError();
}

static __device__ __forceinline__ float fma_of(float a, float b, float c)
{
    return fmaf(a, b, c);
}

static __device__ __forceinline__ double fma_of(double a, double b, double c)
{
    return fma(a, b, c);
}

template <typename T>
static __global__ void __launch_bounds__(CEIL_THREADS)
    ceiling_fma_kernel(T *out, int iters, T b, T c)
{
    T a[8];
#pragma unroll
    for (int k = 0; k < 8; k++)
        a[k] = (T)(threadIdx.x + k);
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 8; k++)
            a[k] = fma_of(a[k], b, c);
    }
    T s = 0;
#pragma unroll
    for (int k = 0; k < 8; k++)
        s += a[k];
    if (s == (T)-1)
        out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" cudaError_t rb_ceiling_fma(float *out, int blocks, int iters, cudaStream_t stream)
{
    ceiling_fma_kernel<float><<<blocks, CEIL_THREADS, 0, stream>>>(out, iters, 0.999999f, 1e-7f);
    return cudaGetLastError();
}

extern "C" cudaError_t rb_ceiling_fma64(double *out, int blocks, int iters, cudaStream_t stream)
{
    ceiling_fma_kernel<double><<<blocks, CEIL_THREADS, 0, stream>>>(out, iters, 0.999999999, 1e-13);
    return cudaGetLastError();
}

static __global__ void ceiling_empty_kernel(void)
{
}

extern "C" cudaError_t rb_ceiling_empty(cudaStream_t stream)
{
    ceiling_empty_kernel<<<1, 32, 0, stream>>>();
    return cudaGetLastError();
}

/* L2-only loads (.cg): L1 would hold nothing of a footprint this size anyway, and a chase that
 * hit L1 would measure it instead of DRAM. Each launch goes on from where the last one stopped
 * (*sink): launches that all started at the same link would walk the same few MB again, from
 * L2 (0.15 us a step on an H200, against 0.32 from DRAM). */
static __global__ void ceiling_chase_kernel(const unsigned *__restrict__ next, int steps,
                                            unsigned *sink)
{
    unsigned p = *sink;
    for (int i = 0; i < steps; i++)
        p = __ldcg(next + p);
    *sink = p;
}

extern "C" cudaError_t rb_ceiling_chase(const unsigned *next, int steps, unsigned *sink,
                                        cudaStream_t stream)
{
    ceiling_chase_kernel<<<1, 1, 0, stream>>>(next, steps, sink);
    return cudaGetLastError();
}

static __device__ void store_elem(float *d, size_t i, float x)
{
    d[i] = x;
}

static __device__ void store_elem(__nv_bfloat16 *d, size_t i, float x)
{
    d[i] = __float2bfloat16_rn(x);
}

static __device__ void store_elem(__half *d, size_t i, float x)
{
    d[i] = __float2half_rn(x);
}

static __device__ void store_elem(__nv_fp8_storage_t *d, size_t i, float x)
{
    d[i] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
}

template <typename T> static __global__ void fill_kernel(T *d, size_t n, uint64_t seed, float scale)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        store_elem(d, i, scale * rb_uniform_f32(seed, i));
}

extern "C" cudaError_t rb_ceiling_fill(void *dst, rb_ceiling_elem type, size_t n, uint64_t seed,
                                       float scale, cudaStream_t stream)
{
    switch (type) {
    case RB_ELEM_F32: fill_kernel<<<2048, 256, 0, stream>>>((float *)dst, n, seed, scale); break;
    case RB_ELEM_BF16:
        fill_kernel<<<2048, 256, 0, stream>>>((__nv_bfloat16 *)dst, n, seed, scale);
        break;
    case RB_ELEM_F16: fill_kernel<<<2048, 256, 0, stream>>>((__half *)dst, n, seed, scale); break;
    case RB_ELEM_E4M3:
        fill_kernel<<<2048, 256, 0, stream>>>((__nv_fp8_storage_t *)dst, n, seed, scale);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
