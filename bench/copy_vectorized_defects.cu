/* SPDX-License-Identifier: MIT */
/* copy_vectorized's planted code changes (bench/copy_vectorized_defects.h says what and why). */
#include <cuda_runtime.h>
#include <stddef.h>

#include "copy_vectorized_defects.h"
#include "kernels/copy_vectorized.h"

#define COPY_VECTORIZED_PLANT_BLOCK 256

/* One float4 of the stream per thread (a grid-stride loop for any grid), the n % 4 tail one
 * element per thread: the lesson's optimized kernel, with the float4 moved by four 4-byte
 * accesses when SCALAR, and with the extra tenth when SLOW10. */
template <bool SCALAR, bool SLOW10>
static __global__ void copy_vectorized_plant_kernel(const float4 *__restrict__ in,
                                                    float4 *__restrict__ out, size_t n4,
                                                    const float *__restrict__ tail_in,
                                                    float *__restrict__ tail_out, size_t tail)
{
    size_t stride = (size_t)gridDim.x * blockDim.x,
           first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (first < tail)
        tail_out[first] = tail_in[first];
    for (size_t i = first; i < n4; i += stride) {
        if (SCALAR) {
            const float *f = (const float *)&in[i];
            float *g = (float *)&out[i];
            float a = __ldcs(f), b = __ldcs(f + 1), c = __ldcs(f + 2), d = __ldcs(f + 3);
            __stcs(g, a);
            __stcs(g + 1, b);
            __stcs(g + 2, c);
            __stcs(g + 3, d);
        } else {
            __stcs(&out[i], __ldcs(&in[i]));
        }
    }
    if (SLOW10 && first < n4 / 10)
        __stcs(&out[first + n4 / 2], __ldcs(&in[first + n4 / 2]));
}

template <bool SCALAR, bool SLOW10>
static cudaError_t copy_vectorized_plant(const float *in, float *out, size_t n, cudaStream_t stream)
{
    size_t n4 = n / 4,
           blocks = (n4 + COPY_VECTORIZED_PLANT_BLOCK - 1) / COPY_VECTORIZED_PLANT_BLOCK;
    copy_vectorized_plant_kernel<SCALAR, SLOW10>
        <<<blocks ? blocks : 1, COPY_VECTORIZED_PLANT_BLOCK, 0, stream>>>(
            (const float4 *)in, (float4 *)out, n4, in + 4 * n4, out + 4 * n4, n % 4);
    return cudaGetLastError();
}

extern "C" cudaError_t copy_vectorized_scalar_copy(const float *in, float *out, size_t n,
                                                   cudaStream_t stream)
{
    return copy_vectorized_plant<true, false>(in, out, n, stream);
}

extern "C" cudaError_t copy_vectorized_slow10(const float *in, float *out, size_t n,
                                              cudaStream_t stream)
{
    return copy_vectorized_plant<false, true>(in, out, n, stream);
}

/* The lesson's baseline entry (constant-initialized there, so it is set before these tables'
 * dynamic initialization), then the planted kernel as the optimized one. */
extern "C" const rb_kernel_info copy_vectorized_scalar_copy_kernels[] = {
    copy_vectorized_kernels[0],
    {"optimized", "copy_vectorized_plant_kernel<true, false>",
     (const void *)copy_vectorized_plant_kernel<true, false>, COPY_VECTORIZED_PLANT_BLOCK, 0},
    {}};
extern "C" const rb_kernel_info copy_vectorized_slow10_kernels[] = {
    copy_vectorized_kernels[0],
    {"optimized", "copy_vectorized_plant_kernel<false, true>",
     (const void *)copy_vectorized_plant_kernel<false, true>, COPY_VECTORIZED_PLANT_BLOCK, 0},
    {}};
