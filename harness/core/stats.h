/* SPDX-License-Identifier: MIT */
/* Summary statistics of timing samples. */
#ifndef RB_STATS_H
#define RB_STATS_H

#include <stddef.h>

typedef struct rb_stats {
    size_t n;
    double median, min, max, p10, p90;
    double noise; /* (p90 - p10) / median: the relative spread the stopping rule looks at */
} rb_stats;

/* Percentile p in [0, 100] of sorted[0..n), linear interpolation between closest ranks
 * (numpy's default). n must be >= 1. */
double rb_percentile_sorted(const double *sorted, size_t n, double p);

/* Fills *out from x[0..n) (x is not modified). Returns 0, or -1 when n == 0, a sample is not
 * finite or memory runs out (then *out holds NaNs). */
int rb_stats_compute(const double *x, size_t n, rb_stats *out);

#endif
