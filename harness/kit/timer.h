/* SPDX-License-Identifier: MIT */
/*
 * A plain window of back-to-back launches timed with CUDA events, for a pair's own choices in
 * setup (which of two library candidates sustains more, say). The harness's measurement of a
 * variant, with its noise rule, clocks and regimes, is the runner's (runner/measure.h), which a
 * pair never calls.
 */
#ifndef RB_TIMER_H
#define RB_TIMER_H

#include "rb_cuda.h"

/* The median milliseconds per launch of run(ctx, stream): warm_s seconds of untimed launches,
 * then samples of ~sample_ms of back-to-back launches (between two events) until window_s
 * seconds have passed. */
rb_status rb_time_window(rb_status (*run)(void *, cudaStream_t), void *ctx, cudaStream_t stream,
                         double warm_s, double window_s, double sample_ms, double *median_ms);

#endif
