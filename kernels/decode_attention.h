/* SPDX-License-Identifier: MIT */
/*
 * The seam between kernels/decode_attention.cu and bench/decode_attention.c (both include it),
 * and bench/decode_attention_defects.cu (which reads the optimized variant's partials).
 *
 * Decode attention: one new query token a sequence, grouped-query attention with 64 query heads
 * over 8 KV heads (query head h reads KV head h / 8), head dim 128, bf16 (raw bits), fp32
 * accumulation. Layouts (FlashInfer's HND paged cache, vLLM's block table):
 *   q, o          batch x 64 x 128
 *   k_cache,      pages x 8 x 64 x 128: physical page p of KV head g holds its 64 tokens' rows,
 *   v_cache       16 KB contiguous (one page of one head)
 *   page_table    batch x table_stride int32: entry [b][i] is the physical page of sequence b's
 *                 tokens 64 i .. 64 i + 63; table_stride > the longest sequence's pages
 *   seq_lens      batch int32, each >= 1 (the last page partly filled when len % 64 != 0)
 * O[b][h] = softmax(q[b][h] . K[b][h / 8][t] / sqrt(128))_t V[b][h / 8][t], t < seq_lens[b].
 */
#ifndef RB_KERNELS_DECODE_ATTENTION_H
#define RB_KERNELS_DECODE_ATTENTION_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DECODE_ATTENTION_QO_HEADS 64
#define DECODE_ATTENTION_KV_HEADS 8
#define DECODE_ATTENTION_GROUP (DECODE_ATTENTION_QO_HEADS / DECODE_ATTENTION_KV_HEADS)
#define DECODE_ATTENTION_HEAD_DIM 128
#define DECODE_ATTENTION_PAGE 64 /* tokens a page */
/* bf16 elements of one page of one KV head (16 KB), and of one page of all of them */
#define DECODE_ATTENTION_PAGE_HEAD_ELEMS (DECODE_ATTENTION_PAGE * DECODE_ATTENTION_HEAD_DIM)
#define DECODE_ATTENTION_PAGE_ELEMS (DECODE_ATTENTION_KV_HEADS * DECODE_ATTENTION_PAGE_HEAD_ELEMS)
/* The pages one block of either variant keeps in flight ahead of the one it computes (its
 * cp.async ring holds DECODE_ATTENTION_STAGES pages of K and V, 32 KB each). */
#define DECODE_ATTENTION_STAGES 3
#define DECODE_ATTENTION_SMEM_BYTES                                                                \
    (DECODE_ATTENTION_STAGES * 2 * DECODE_ATTENTION_PAGE_HEAD_ELEMS * 2)

/* The optimized variant's split of the contexts (host only, no CUDA: decode_attention_plan_for).
 * A block takes `chunk_pages` consecutive pages of one (sequence, KV head): sequence b has
 * ceil(pages_b / chunk_pages) splits, at most max_splits. slots: the blocks resident at once on
 * the GPU (SMs x blocks an SM), which the plan fills about once. */
typedef struct decode_attention_plan {
    int batch, chunk_pages, max_splits, table_stride;
    int slots;        /* sms x blocks_per_sm the plan was made for */
    long long blocks; /* blocks with work: sum over b of splits_b x 8 */
} decode_attention_plan;

/* The plan for these (host) sequence lengths on a GPU of `sms` SMs with `blocks_per_sm` of the
 * optimized kernel resident on each: chunk_pages = ceil(pages x 8 / slots), so the blocks with
 * work are at most one slot each. 0, or -1 (a length < 1, batch < 1, sms < 1, blocks_per_sm < 1,
 * a sequence longer than table_stride pages). */
int decode_attention_plan_for(const int *seq_lens, int batch, int table_stride, int sms,
                              int blocks_per_sm, decode_attention_plan *plan);

/* The optimized kernel's blocks resident an SM (the occupancy API, its shared memory set). */
cudaError_t decode_attention_blocks_per_sm(int *blocks);

/* The optimized variant's partials (fp32, in the workspace): for (b, h, split c), index
 * i = (b x 64 + h) x max_splits + c, at workspace + 132 i floats: 128 of O_c (not divided by
 * l_c), m_c (the largest logit, in log2 units: x scale log2 e), l_c (the sum of
 * exp2(x - m_c)) and 2 of padding (16-byte aligned partials). */
#define DECODE_ATTENTION_PART_FLOATS (DECODE_ATTENTION_HEAD_DIM + 4)
size_t decode_attention_workspace_bytes(const decode_attention_plan *plan);

/* Baseline: one block per (sequence, KV head) over the whole context. */
cudaError_t decode_attention_baseline(const uint16_t *q, const uint16_t *k_cache,
                                      const uint16_t *v_cache, const int *page_table,
                                      const int *seq_lens, uint16_t *o, int batch, int table_stride,
                                      cudaStream_t stream);

/* Optimized, the two passes: the split blocks write partials into workspace (at least
 * decode_attention_workspace_bytes(plan)), the merge reads them and writes o. The two
 * launchers are the passes one at a time (bench/decode_attention_defects.cu pairs the first
 * with a merge of its own). */
cudaError_t decode_attention_optimized(const decode_attention_plan *plan, const uint16_t *q,
                                       const uint16_t *k_cache, const uint16_t *v_cache,
                                       const int *page_table, const int *seq_lens, uint16_t *o,
                                       float *workspace, size_t workspace_bytes,
                                       cudaStream_t stream);
cudaError_t decode_attention_split(const decode_attention_plan *plan, const uint16_t *q,
                                   const uint16_t *k_cache, const uint16_t *v_cache,
                                   const int *page_table, const int *seq_lens, float *workspace,
                                   size_t workspace_bytes, cudaStream_t stream);
cudaError_t decode_attention_merge(const decode_attention_plan *plan, const int *seq_lens,
                                   const float *workspace, uint16_t *o, cudaStream_t stream);

/* Setup only: n bf16 values ~N(0, 1) (Box-Muller on model/random.h's stream `seed`). */
cudaError_t decode_attention_fill_normal(uint16_t *x, size_t n, uint64_t seed, cudaStream_t stream);

/* The trusted reference (setup only): out (batch x 64 x 128 fp32) in fp64 arithmetic, one block
 * per (sequence, query head): the logits into scratch (batch x 64 x max_len doubles), their
 * max, the sum of exp, then O. */
cudaError_t decode_attention_reference(const uint16_t *q, const uint16_t *k_cache,
                                       const uint16_t *v_cache, const int *page_table,
                                       const int *seq_lens, float *out, double *scratch, int batch,
                                       int table_stride, int max_len, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info decode_attention_kernels[];

#ifdef __cplusplus
}
#endif

#endif
