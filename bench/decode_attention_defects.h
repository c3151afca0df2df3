/* SPDX-License-Identifier: MIT */
/*
 * decode_attention's planted defect that needs a kernel of its own (bench/
 * decode_attention_defects.cu; the lesson in kernels/decode_attention.cu holds none): for
 * tests/test_gpu.c through bench/decode_attention.c's rb_defect table, never timed.
 */
#ifndef RB_BENCH_DECODE_ATTENTION_DEFECTS_H
#define RB_BENCH_DECODE_ATTENTION_DEFECTS_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "kernels/decode_attention.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The optimized variant's merge (decode_attention_merge's arithmetic, over the partials
 * decode_attention_split wrote) with one bug: a sequence's last split is left out of the merge
 * when it has more than one (the loop bound `splits - 1`, as from a split count taken as the
 * index of the last split). Every output is written. */
cudaError_t decode_attention_defect_merge_drop_last(const decode_attention_plan *plan,
                                                    const int *seq_lens, const float *workspace,
                                                    uint16_t *o, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
