/* SPDX-License-Identifier: MIT */
/*
 * attention's planted defects that need a kernel of their own (bench/attention_defects.cu; the
 * lesson in kernels/attention.cu holds none): for tests/test_gpu.c through bench/attention.c's
 * rb_defect table, never timed.
 */
#ifndef RB_BENCH_ATTENTION_DEFECTS_H
#define RB_BENCH_ATTENTION_DEFECTS_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The baseline's softmax over the score matrices (attention_softmax_rows: bh x s rows of s bf16,
 * ld apart, replaced by P row by row) with its causal mask one key late: query row i keeps keys
 * 0 .. i + 1, the key just past the diagonal that it must not see (the comparison `key <= i + 1`
 * for `key <= i`, or a diagonal measured from 1). Masked entries are written 0. */
cudaError_t attention_defect_causal_slip_softmax(uint16_t *s_mat, int bh, int s, int ld,
                                                 float scale, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
