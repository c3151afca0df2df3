/* SPDX-License-Identifier: MIT */
/*
 * NaN-safe comparison of a result with its reference: normwise relative error
 * ||out - ref||_2 / ||ref||_2, accumulated in double, judged as !(err <= tol), so NaN fails.
 */
#ifndef RB_COMPARE_H
#define RB_COMPARE_H

#include <stddef.h>

/* err from the two sums of squares. A zero reference: 0 when the output is zero too, else +Inf.
 * NaN sums give NaN. */
double rb_relerr_from_sums(double sum_sq_diff, double sum_sq_ref);

/* CPU reference comparisons. Any NaN in out or ref makes the error NaN. */
double rb_relerr_f32(const float *out, const float *ref, size_t n);
double rb_relerr_f64(const double *out, const double *ref, size_t n);

/* The largest normwise error of one row, max over rows of rb_relerr_f32(out_r, ref_r, cols):
 * a row whose reference is zero counts 0 or +Inf as rb_relerr_from_sums says; NaN anywhere
 * makes it NaN. A check that judges each row catches a defect in a few rows (a key a mask let
 * through) that the norm over the whole output averages away. */
double rb_row_relerr_max_f32(const float *out, const float *ref, size_t rows, size_t cols);

/* 1 when err is within tol. NaN or Inf err: 0. */
int rb_within_tolerance(double err, double tol);

#endif
