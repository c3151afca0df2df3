/* SPDX-License-Identifier: MIT */
#include "timer.h"

#include <math.h>
#include <stdlib.h>

#include "model/stats.h"
#include "model/util.h"

#define TIMER_MAX_SAMPLES 100000
#define TIMER_MAX_LAUNCHES 10000

/* Milliseconds per launch of `launches` back-to-back launches between the two events. */
static rb_status timer_sample(rb_status (*run)(void *, cudaStream_t), void *ctx,
                              cudaStream_t stream, const cudaEvent_t ev[2], int launches,
                              double *ms)
{
    RB_CUDA(cudaEventRecord(ev[0], stream));
    for (int k = 0; k < launches; k++)
        RB_TRY(run(ctx, stream));
    RB_CUDA(cudaEventRecord(ev[1], stream));
    RB_CUDA(cudaEventSynchronize(ev[1]));
    float elapsed = 0.0f;
    RB_CUDA(cudaEventElapsedTime(&elapsed, ev[0], ev[1]));
    *ms = (double)elapsed / launches;
    return RB_OK;
}

static rb_status timer_loop(rb_status (*run)(void *, cudaStream_t), void *ctx,
                            cudaStream_t stream, const cudaEvent_t ev[2], double warm_s,
                            double window_s, double sample_ms, double *samples, double *median_ms)
{
    double one_ms = 0.0;
    RB_TRY(timer_sample(run, ctx, stream, ev, 1, &one_ms)); /* also loads the kernel */
    int launches = one_ms > 0 ? (int)fmin(TIMER_MAX_LAUNCHES, fmax(1.0, ceil(sample_ms / one_ms)))
                              : 1;
    double ms = 0.0;
    for (double t0 = rb_now_s(); rb_now_s() - t0 < warm_s;)
        RB_TRY(timer_sample(run, ctx, stream, ev, launches, &ms));
    size_t n = 0;
    for (double t0 = rb_now_s(); n < TIMER_MAX_SAMPLES && (n == 0 || rb_now_s() - t0 < window_s);)
        RB_TRY(timer_sample(run, ctx, stream, ev, launches, &samples[n++]));
    rb_stats st;
    if (rb_stats_compute(samples, n, &st) != 0) {
        rb_error_at(__FILE__, __LINE__, "rb_stats_compute", "a timed sample is not finite");
        return RB_ERR_CUDA;
    }
    *median_ms = st.median;
    return RB_OK;
}

rb_status rb_time_window(rb_status (*run)(void *, cudaStream_t), void *ctx, cudaStream_t stream,
                         double warm_s, double window_s, double sample_ms, double *median_ms)
{
    cudaEvent_t ev[2] = {NULL, NULL};
    double *samples = malloc(TIMER_MAX_SAMPLES * sizeof *samples);
    rb_status st = samples ? RB_OK : RB_ERR_ALLOC;
    for (int k = 0; k < 2 && st == RB_OK; k++)
        if (cudaEventCreate(&ev[k]) != cudaSuccess) {
            rb_error_at(__FILE__, __LINE__, "cudaEventCreate", "failed");
            st = RB_ERR_CUDA;
        }
    if (st == RB_OK)
        st = timer_loop(run, ctx, stream, ev, warm_s, window_s, sample_ms, samples, median_ms);
    for (int k = 0; k < 2; k++)
        if (ev[k])
            cudaEventDestroy(ev[k]);
    free(samples);
    return st;
}
