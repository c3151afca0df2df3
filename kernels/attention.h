/* SPDX-License-Identifier: MIT */
/*
 * The seam between kernels/attention.cu and bench/attention.c (both include it).
 *
 * Attention forward, O = softmax(scale Q K^T + mask) V per head: Q, K, V and O are bh x s x d
 * bf16 (raw bits), row-major and compact, one s x d matrix per head (bh = batch x heads), d = 64
 * or 128; causal masks key j > query i. The kernels accumulate in fp32 and write bf16.
 */
#ifndef RB_KERNELS_ATTENTION_H
#define RB_KERNELS_ATTENTION_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The keys of one K/V tile of the flash kernels. */
#define ATTENTION_KV_TILE 64

/* Setup only: q[i] = bf16(2 u(seed, i)), k[i] = bf16(2 u(seed + 1, i)), v[i] = bf16(u(seed + 2,
 * i)), u uniform in (-1, 1) (model/random.h; 2u is exact, so each is one rounding). */
cudaError_t attention_fill(uint16_t *q, uint16_t *k, uint16_t *v, size_t n, uint64_t seed,
                           cudaStream_t stream);

/* The baseline's softmax over the score matrices in DRAM: s_mat is bh x s rows of s bf16 (S =
 * Q K^T), stored ld apart (ld >= s, a multiple of 8: every row 16-byte aligned), replaced in
 * place by P = softmax(scale S + mask) row by row (masked entries 0). */
cudaError_t attention_softmax_rows(uint16_t *s_mat, int bh, int s, int ld, float scale, int causal,
                                   cudaStream_t stream);

/* Step 1, the tiled online-softmax kernel on mma.sync (FlashAttention-2's form). kv_len: the
 * keys the loop covers, s (the planted defect passes s rounded down to a tile). */
cudaError_t attention_flash_mma(const uint16_t *q, const uint16_t *k, const uint16_t *v,
                                uint16_t *o, int bh, int s, int d, float scale, int causal,
                                int kv_len, cudaStream_t stream);

/* Step 2 (optimized), TMA + wgmma with warp specialization: sm_90a code, run only where
 * attention_optimized_supported says so (a Hopper GPU and a build for it). kv_len as step 1's
 * (the planted defect passes s rounded down to ATTENTION_OPTIMIZED_KV_TILE). */
#define ATTENTION_OPTIMIZED_KV_TILE 128
cudaError_t attention_optimized_supported(int *supported);
cudaError_t attention_optimized(const uint16_t *q, const uint16_t *k, const uint16_t *v,
                                uint16_t *o, int bh, int s, int d, float scale, int causal,
                                int kv_len, void *workspace, size_t workspace_bytes,
                                cudaStream_t stream);

/* The split of step 2's last wave (one block an SM): when the blocks leave a last wave at most
 * half full, its `tiles` query tiles (the last ones) are each split along the keys into `chunks`
 * parts, every part a block of its own (tiles x chunks <= sms), and merged by a second kernel
 * from fp32 partials in the workspace. {0, 0}: no split (causal inputs, whose last blocks are
 * already the lightest; a full last wave; fewer key tiles than 2). Host only, no device. */
typedef struct attention_split {
    int tiles, chunks;
} attention_split;
attention_split attention_split_plan(int blocks, int sms, int kv_tiles, int causal);
/* The workspace bytes step 2 needs on a GPU of `sms` SMs: its unit counter (zeroed on the stream
 * before each launch; so one workspace serves one launch at a time) and the partials of at most
 * sms parts. */
size_t attention_optimized_workspace(int sms);

/* The trusted reference's pieces (setup only): one row-block of heads at a time, S in fp32 by a
 * bf16 GEMM with fp32 output, then this kernel: P = softmax(scale S + mask) in fp64 arithmetic,
 * split into p_hi = bf16(P) and p_lo = bf16(P - p_hi), so that P V = p_hi V + p_lo V by two bf16
 * GEMMs with fp32 accumulation to ~2^-16 relative. s32, p_hi and p_lo: heads x s rows of s,
 * stored ld apart. */
cudaError_t attention_reference_softmax(const float *s32, uint16_t *p_hi, uint16_t *p_lo, int heads,
                                        int s, int ld, float scale, int causal,
                                        cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info attention_kernels[];

#ifdef __cplusplus
}
#endif

#endif
