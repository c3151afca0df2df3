/* SPDX-License-Identifier: MIT */
/*
 * decode_gemv's planted defects, kernels of their own (bench/decode_gemv_defects.cu; the lesson in
 * kernels/decode_gemv.cu holds none): for tests/test_gpu.c through bench/decode_gemv.c's rb_defect
 * table, never timed.
 */
#ifndef RB_BENCH_DECODE_GEMV_DEFECTS_H
#define RB_BENCH_DECODE_GEMV_DEFECTS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y = x W^T (kernels/decode_gemv.h's layout, any n and k, 1 <= m <= 16) by warps of 4 rows in
 * fp32, element by element, with one bug; every element of y is written:
 *   DECODE_GEMV_DEFECT_TAIL_ROWS  the rows of the last partial group of 4 (n % 4 of them) are
 *                                 computed from the weights of the rows 4 before them: a tail
 *                                 row skipped, its output a neighbour's;
 *   DECODE_GEMV_DEFECT_X_COLUMN   the last token's x read one column late, (c + 1) % k, over
 *                                 each row's last 8 columns: a tail loop's x index off by one. */
enum { DECODE_GEMV_DEFECT_TAIL_ROWS = 1, DECODE_GEMV_DEFECT_X_COLUMN = 2 };
cudaError_t decode_gemv_defect_run(const uint16_t *w, const uint16_t *x, uint16_t *y, size_t n,
                                   size_t k, int m, int defect, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
