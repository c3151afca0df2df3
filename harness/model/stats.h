/* SPDX-License-Identifier: MIT */
/* Summary statistics of timing samples. */
#ifndef RB_STATS_H
#define RB_STATS_H

#include <stddef.h>

typedef struct rb_stats {
    size_t n;
    double median, min, max, p10, p90;
    double noise; /* (p90 - p10) / median: the relative spread of the samples */
    /* A distribution-free 95% confidence interval of the median (rb_median_ci_ranks) and its
     * width relative to the median, (ci_hi - ci_lo) / median: how precisely this run knows its
     * median, which the stopping rule looks at. NaN when n is too small for one (n < 6). */
    double ci_lo, ci_hi, ci_width;
} rb_stats;

#define RB_MEDIAN_CONFIDENCE 0.95

/* Percentile p in [0, 100] of sorted[0..n), linear interpolation between closest ranks
 * (numpy's default). n must be >= 1. */
double rb_percentile_sorted(const double *sorted, size_t n, double p);

/* The order statistics that bound the median of any continuous distribution with probability
 * >= conf (e.g. 0.95), from n independent samples: 0-based ranks lo <= hi into the sorted
 * samples, hi = n - 1 - lo, the narrowest such pair. The count of samples below the true median
 * is Binomial(n, 1/2), so P(x_(lo) <= median <= x_(hi)) = 1 - 2 P(B <= lo): lo is the largest
 * rank with P(B <= lo) <= (1 - conf) / 2 (the sign-test interval; e.g. n = 20 at 95%: ranks 5
 * and 14, coverage 95.9%). Returns 0, or -1 when n is too small (2^-n > (1 - conf) / 2: n < 6 at
 * 95%) or conf is not in (0, 1). Timing samples are not quite independent (clocks drift), which
 * is why the sampling loop also keeps a minimum duration. */
int rb_median_ci_ranks(size_t n, double conf, size_t *lo, size_t *hi);

/* Fills *out from x[0..n) (x is not modified). Returns 0, or -1 when n == 0, a sample is not
 * finite or memory runs out (then *out holds NaNs). */
int rb_stats_compute(const double *x, size_t n, rb_stats *out);

#endif
