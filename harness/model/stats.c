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

/* log P(B = i) for B ~ Binomial(n, 1/2). */
static double log_binom_half(size_t n, size_t i)
{
    return lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
           (double)n * log(2.0);
}

int rb_median_ci_ranks(size_t n, double conf, size_t *lo, size_t *hi)
{
    if (!(conf > 0.0 && conf < 1.0) || n == 0)
        return -1;
    double tail = (1.0 - conf) / 2.0;
    /* Terms more than 20 standard deviations (sqrt(n) / 2 each) below n / 2 are under e^-200:
     * start the sum there, so that a long run costs ~40 sqrt(n) terms, not n / 2. */
    double skip = (double)n / 2.0 - 10.0 * sqrt((double)n);
    size_t i = skip > 0 ? (size_t)skip : 0;
    double cdf = 0.0;
    for (; i <= n / 2; i++) {
        double next = cdf + exp(log_binom_half(n, i));
        if (next > tail)
            break;
        cdf = next;
    }
    if (i == 0) /* even P(B = 0) exceeds the tail: no interval of order statistics */
        return -1;
    *lo = i - 1;
    *hi = n - 1 - *lo;
    return 0;
}

int rb_stats_compute(const double *x, size_t n, rb_stats *out)
{
    out->n = n;
    out->median = out->min = out->max = out->p10 = out->p90 = out->noise = NAN;
    out->ci_lo = out->ci_hi = out->ci_width = NAN;
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
    size_t lo, hi;
    if (rb_median_ci_ranks(n, RB_MEDIAN_CONFIDENCE, &lo, &hi) == 0) {
        out->ci_lo = s[lo];
        out->ci_hi = s[hi];
        out->ci_width = out->median > 0 ? (out->ci_hi - out->ci_lo) / out->median : NAN;
    }
    free(s);
    return 0;
}
