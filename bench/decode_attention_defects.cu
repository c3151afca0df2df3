/* SPDX-License-Identifier: MIT */
/*
 * decode_attention's planted defect (see decode_attention_defects.h). Not a kernel to learn
 * from: the lesson's merge with one realistic bug.
 */
#include "decode_attention_defects.h"

#include <cuda_bf16.h>
#include <math.h>

static __global__ void decode_attention_defect_merge_kernel(const float *__restrict__ parts,
                                                            const int *__restrict__ seq_lens,
                                                            uint16_t *__restrict__ o,
                                                            int chunk_pages, int max_splits)
{
    const int bh = (int)blockIdx.x, b = bh / DECODE_ATTENTION_QO_HEADS, col = (int)threadIdx.x;
    const int pages = (seq_lens[b] + DECODE_ATTENTION_PAGE - 1) / DECODE_ATTENTION_PAGE;
    const int splits = (pages + chunk_pages - 1) / chunk_pages;
    const int merged = splits > 1 ? splits - 1 : splits; /* the defect: splits is right */
    const float *p = parts + (size_t)bh * max_splits * DECODE_ATTENTION_PART_FLOATS;
    float mx = -INFINITY, acc = 0.0f, l = 0.0f;
    for (int c = 0; c < merged; c++)
        mx = fmaxf(mx, p[(size_t)c * DECODE_ATTENTION_PART_FLOATS + DECODE_ATTENTION_HEAD_DIM]);
    for (int c = 0; c < merged; c++) {
        const float *pc = p + (size_t)c * DECODE_ATTENTION_PART_FLOATS;
        const float w = exp2f(pc[DECODE_ATTENTION_HEAD_DIM] - mx);
        acc += w * pc[col];
        l += w * pc[DECODE_ATTENTION_HEAD_DIM + 1];
    }
    o[(size_t)bh * DECODE_ATTENTION_HEAD_DIM + col] =
        __bfloat16_as_ushort(__float2bfloat16_rn(acc / l));
}

extern "C" cudaError_t decode_attention_defect_merge_drop_last(const decode_attention_plan *plan,
                                                               const int *seq_lens,
                                                               const float *workspace, uint16_t *o,
                                                               cudaStream_t stream)
{
    if (!plan || plan->batch < 1 || plan->chunk_pages < 1 || plan->max_splits < 1)
        return cudaErrorInvalidValue;
    decode_attention_defect_merge_kernel<<<(unsigned)(plan->batch * DECODE_ATTENTION_QO_HEADS),
                                           DECODE_ATTENTION_HEAD_DIM, 0, stream>>>(
        workspace, seq_lens, o, plan->chunk_pages, plan->max_splits);
    return cudaGetLastError();
}
