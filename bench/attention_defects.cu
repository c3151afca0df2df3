/* SPDX-License-Identifier: MIT */
/*
 * attention's planted defects that need a kernel of their own (see attention_defects.h). Not a
 * kernel to learn from: each is the lesson's arithmetic with one realistic bug.
 */
#include "attention_defects.h"

#include <cuda_bf16.h>

#define ATTENTION_DEFECT_THREADS 256

static __device__ float defect_bf16(uint16_t b)
{
    return __uint_as_float((uint32_t)b << 16);
}

/* A block's largest x (op 0) or sum (op 1), every thread given the answer. */
static __device__ float defect_block_reduce(float x, int op, float *part)
{
    for (int o = 16; o > 0; o /= 2) {
        const float y = __shfl_xor_sync(0xffffffffu, x, o);
        x = op ? x + y : fmaxf(x, y);
    }
    if (threadIdx.x % 32 == 0)
        part[threadIdx.x / 32] = x;
    __syncthreads();
    x = part[0];
    for (int w = 1; w < ATTENTION_DEFECT_THREADS / 32; w++)
        x = op ? x + part[w] : fmaxf(x, part[w]);
    __syncthreads();
    return x;
}

/* One block a row of S, in the baseline's fp32 steps (scale folded into exp2, P rounded once to
 * bf16): max, sum, then P; the bug is `valid`, one key past the diagonal. */
static __global__ void __launch_bounds__(ATTENTION_DEFECT_THREADS)
    attention_defect_causal_slip_kernel(uint16_t *s_mat, int s, int ld, float scale_log2)
{
    __shared__ float part[ATTENTION_DEFECT_THREADS / 32];
    uint16_t *row = s_mat + (size_t)blockIdx.x * (size_t)ld;
    const int i = (int)(blockIdx.x % (unsigned)s);
    const int valid = i + 2 < s ? i + 2 : s; /* the defect: i + 1 is right */
    float m = -INFINITY, sum = 0.0f;
    for (int j = (int)threadIdx.x; j < valid; j += ATTENTION_DEFECT_THREADS)
        m = fmaxf(m, defect_bf16(row[j]) * scale_log2);
    m = defect_block_reduce(m, 0, part);
    for (int j = (int)threadIdx.x; j < valid; j += ATTENTION_DEFECT_THREADS)
        sum += exp2f(defect_bf16(row[j]) * scale_log2 - m);
    const float inv = 1.0f / defect_block_reduce(sum, 1, part);
    for (int j = (int)threadIdx.x; j < s; j += ATTENTION_DEFECT_THREADS)
        row[j] = j < valid ? __bfloat16_as_ushort(__float2bfloat16_rn(
                                 exp2f(defect_bf16(row[j]) * scale_log2 - m) * inv))
                           : (uint16_t)0;
}

extern "C" cudaError_t attention_defect_causal_slip_softmax(uint16_t *s_mat, int bh, int s, int ld,
                                                            float scale, cudaStream_t stream)
{
    const size_t rows = (size_t)bh * (size_t)s;
    if (bh < 1 || s < 1 || ld < s || rows > 0x7fffffffu)
        return cudaErrorInvalidValue;
    attention_defect_causal_slip_kernel<<<(unsigned)rows, ATTENTION_DEFECT_THREADS, 0, stream>>>(
        s_mat, s, ld, scale * 1.4426950408889634f);
    return cudaGetLastError();
}
