/* SPDX-License-Identifier: MIT */
/*
 * rmsnorm's planted defects that need a kernel of their own (bench/rmsnorm_defects.cu; the
 * lesson in kernels/rmsnorm.cu holds none): for tests/test_gpu.c through bench/rmsnorm.c's
 * rb_defect table, never timed.
 */
#ifndef RB_BENCH_RMSNORM_DEFECTS_H
#define RB_BENCH_RMSNORM_DEFECTS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y = x rstd w row by row, in fp32 (kernels/rmsnorm.h's layout, any hidden), with one bug:
 *   RMSNORM_DEFECT_EPS_OUTSIDE_SQRT  rstd = 1 / (sqrt(ms) + eps), not 1 / sqrt(ms + eps): the
 *                                    same wherever ms >> eps, a row of ms ~ eps scaled ~2x;
 *   RMSNORM_DEFECT_DROPPED_TAIL      ms summed over the row's 8-element vectors only (hidden
 *                                    rounded down to 8: the scalar tail loop forgotten) but
 *                                    divided by hidden, and every element written. */
enum { RMSNORM_DEFECT_EPS_OUTSIDE_SQRT = 1, RMSNORM_DEFECT_DROPPED_TAIL = 2 };
cudaError_t rmsnorm_defect_run(const uint16_t *x, const uint16_t *w, uint16_t *y, size_t rows,
                               size_t hidden, float eps, int defect, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
