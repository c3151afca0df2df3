/* SPDX-License-Identifier: MIT */
/*
 * rmsnorm's planted defects (see rmsnorm_defects.h). Not a kernel to learn from: one block a row
 * doing the lesson's fp32 arithmetic, with one realistic bug.
 */
#include "rmsnorm_defects.h"

#include <cuda_bf16.h>

#define RMSNORM_DEFECT_THREADS 256

static __device__ float defect_bf16(uint16_t b)
{
    return __uint_as_float((uint32_t)b << 16);
}

static __global__ void __launch_bounds__(RMSNORM_DEFECT_THREADS)
    rmsnorm_defect_kernel(const uint16_t *__restrict__ x, const uint16_t *__restrict__ w,
                          uint16_t *__restrict__ y, size_t hidden, float eps, int defect)
{
    __shared__ float part[RMSNORM_DEFECT_THREADS / 32];
    const uint16_t *xr = x + (size_t)blockIdx.x * hidden;
    uint16_t *yr = y + (size_t)blockIdx.x * hidden;
    const size_t summed = defect == RMSNORM_DEFECT_DROPPED_TAIL ? hidden / 8 * 8 : hidden;
    float s = 0.0f;
    for (size_t c = threadIdx.x; c < summed; c += RMSNORM_DEFECT_THREADS) {
        const float a = defect_bf16(xr[c]);
        s += a * a;
    }
    for (int o = 16; o > 0; o /= 2)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0)
        part[threadIdx.x / 32] = s;
    __syncthreads();
    s = 0.0f;
    for (int k = 0; k < RMSNORM_DEFECT_THREADS / 32; k++)
        s += part[k];
    const float ms = s / (float)hidden;
    const float rstd =
        defect == RMSNORM_DEFECT_EPS_OUTSIDE_SQRT ? 1.0f / (sqrtf(ms) + eps) : rsqrtf(ms + eps);
    for (size_t c = threadIdx.x; c < hidden; c += RMSNORM_DEFECT_THREADS)
        yr[c] = __bfloat16_as_ushort(
            __float2bfloat16_rn(defect_bf16(xr[c]) * rstd * defect_bf16(w[c])));
}

extern "C" cudaError_t rmsnorm_defect_run(const uint16_t *x, const uint16_t *w, uint16_t *y,
                                          size_t rows, size_t hidden, float eps, int defect,
                                          cudaStream_t stream)
{
    if (rows < 1 || rows > 0x7fffffffu || hidden < 1)
        return cudaErrorInvalidValue;
    rmsnorm_defect_kernel<<<(unsigned)rows, RMSNORM_DEFECT_THREADS, 0, stream>>>(x, w, y, hidden,
                                                                                 eps, defect);
    return cudaGetLastError();
}
