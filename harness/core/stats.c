/* SPDX-License-Identifier: MIT */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rb_percentile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 1)
        return sorted[0];
    double rank = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(rank);
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = rank - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

int rb_stats_compute(const double *x, size_t n, rb_stats *out)
{
    out->n = n;
    out->median = out->min = out->max = out->p10 = out->p90 = out->noise = NAN;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return -1;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = rb_percentile_sorted(s, n, 50.0);
    out->p10 = rb_percentile_sorted(s, n, 10.0);
    out->p90 = rb_percentile_sorted(s, n, 90.0);
    out->noise = out->median > 0 ? (out->p90 - out->p10) / out->median : NAN;
    free(s);
    return 0;
}
