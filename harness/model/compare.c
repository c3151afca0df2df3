/* SPDX-License-Identifier: MIT */
#include "compare.h"

#include <math.h>

double rb_relerr_from_sums(double sum_sq_diff, double sum_sq_ref)
{
    if (isnan(sum_sq_diff) || isnan(sum_sq_ref))
        return NAN;
    if (sum_sq_ref == 0.0)
        return sum_sq_diff == 0.0 ? 0.0 : INFINITY;
    return sqrt(sum_sq_diff) / sqrt(sum_sq_ref);
}

double rb_relerr_f32(const float *out, const float *ref, size_t n)
{
    double diff2 = 0.0, ref2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)out[i] - (double)ref[i];
        diff2 += d * d;
        ref2 += (double)ref[i] * (double)ref[i];
    }
    return rb_relerr_from_sums(diff2, ref2);
}

double rb_relerr_f64(const double *out, const double *ref, size_t n)
{
    double diff2 = 0.0, ref2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = out[i] - ref[i];
        diff2 += d * d;
        ref2 += ref[i] * ref[i];
    }
    return rb_relerr_from_sums(diff2, ref2);
}

double rb_row_relerr_max_f32(const float *out, const float *ref, size_t rows, size_t cols)
{
    double worst = 0.0;
    for (size_t r = 0; r < rows; r++) {
        double e = rb_relerr_f32(out + r * cols, ref + r * cols, cols);
        if (!(e <= worst)) /* (NaN stays) */
            worst = isnan(worst) ? worst : e;
    }
    return worst;
}

int rb_within_tolerance(double err, double tol)
{
    return err <= tol;
}
