/* SPDX-License-Identifier: MIT */
/*
 * decode_gemv's planted defects (see decode_gemv_defects.h). Not a kernel to learn from: warps of
 * 4 rows doing the lesson's fp32 arithmetic element by element, with one realistic bug.
 */
#include "decode_gemv_defects.h"

#include <cuda_bf16.h>

#define DECODE_GEMV_DEFECT_THREADS 128
#define DECODE_GEMV_DEFECT_ROWS 4
#define DECODE_GEMV_DEFECT_TOKENS 16

static __device__ float defect_bf16(uint16_t b)
{
    return __uint_as_float((uint32_t)b << 16);
}

static __global__ void __launch_bounds__(DECODE_GEMV_DEFECT_THREADS)
    decode_gemv_defect_kernel(const uint16_t *__restrict__ w, const uint16_t *__restrict__ x,
                              uint16_t *__restrict__ y, size_t n, size_t k, int m, int defect)
{
    const int lane = threadIdx.x % 32;
    const size_t group =
        (size_t)blockIdx.x * (DECODE_GEMV_DEFECT_THREADS / 32) + threadIdx.x / 32;
    const size_t whole = n / DECODE_GEMV_DEFECT_ROWS * DECODE_GEMV_DEFECT_ROWS;
    for (int r = 0; r < DECODE_GEMV_DEFECT_ROWS; r++) {
        const size_t row = group * DECODE_GEMV_DEFECT_ROWS + r;
        if (row >= n)
            return;
        size_t src = row;
        if (defect == DECODE_GEMV_DEFECT_TAIL_ROWS && row >= whole && whole > 0)
            src = row - DECODE_GEMV_DEFECT_ROWS;
        float acc[DECODE_GEMV_DEFECT_TOKENS];
#pragma unroll
        for (int t = 0; t < DECODE_GEMV_DEFECT_TOKENS; t++)
            acc[t] = 0.0f;
        for (size_t c = lane; c < k; c += 32) {
            const float a = defect_bf16(w[src * k + c]);
#pragma unroll
            for (int t = 0; t < DECODE_GEMV_DEFECT_TOKENS; t++) {
                size_t col = c;
                if (defect == DECODE_GEMV_DEFECT_X_COLUMN && t == m - 1 && c + 8 >= k)
                    col = (c + 1) % k;
                if (t < m)
                    acc[t] = fmaf(a, defect_bf16(x[(size_t)t * k + col]), acc[t]);
            }
        }
#pragma unroll
        for (int t = 0; t < DECODE_GEMV_DEFECT_TOKENS; t++) {
            float s = acc[t];
            for (int o = 16; o > 0; o /= 2)
                s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
            if (t < m && lane == 0)
                y[(size_t)t * n + row] = __bfloat16_as_ushort(__float2bfloat16_rn(s));
        }
    }
}

extern "C" cudaError_t decode_gemv_defect_run(const uint16_t *w, const uint16_t *x, uint16_t *y,
                                              size_t n, size_t k, int m, int defect,
                                              cudaStream_t stream)
{
    const size_t per_block = DECODE_GEMV_DEFECT_THREADS / 32 * DECODE_GEMV_DEFECT_ROWS;
    if (n < 1 || k < 1 || m < 1 || m > DECODE_GEMV_DEFECT_TOKENS || n / per_block >= 0x7fffffffu)
        return cudaErrorInvalidValue;
    decode_gemv_defect_kernel<<<(unsigned)((n + per_block - 1) / per_block),
                                DECODE_GEMV_DEFECT_THREADS, 0, stream>>>(w, x, y, n, k, m, defect);
    return cudaGetLastError();
}
