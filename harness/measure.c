/* SPDX-License-Identifier: MIT */
#include "measure.h"

#include <math.h>
#include <stdlib.h>

#include "core/util.h"
#include "gpu.h"

#define MIN_SAMPLES 20
#define MIN_SAMPLING_S 0.1 /* the noise rule alone stopped after 14 ms on an H100 copy */
#define MAX_SAMPLES 100000
#define MAX_LAUNCHES_PER_SAMPLE 10000

typedef struct timer {
    cudaEvent_t start, stop;
} timer;

/* Milliseconds per launch of `launches` back-to-back launches (after an optional L2 flush). */
static rb_status time_sample(rb_status (*run)(void *, cudaStream_t), void *ctx, cudaStream_t stream,
                             const rb_measure_opts *o, const timer *t, int launches, double *ms)
{
    if (o->cold) {
        RB_CUDA(rb_flush_l2(o->flush_buf, o->flush_bytes, stream));
        RB_CUDA(cudaCtxResetPersistingL2Cache());
    }
    RB_CUDA(cudaEventRecord(t->start, stream));
    for (int k = 0; k < launches; k++)
        RB_TRY(run(ctx, stream));
    RB_CUDA(cudaEventRecord(t->stop, stream));
    RB_CUDA(cudaEventSynchronize(t->stop));
    float elapsed = 0.0f;
    RB_CUDA(cudaEventElapsedTime(&elapsed, t->start, t->stop));
    *ms = (double)elapsed / launches;
    return RB_OK;
}

static rb_status measure_with(rb_status (*run)(void *, cudaStream_t), void *ctx,
                              cudaStream_t stream, const rb_measure_opts *o, const timer *t,
                              double *samples, rb_stats *out, double *launches_per_sample)
{
    /* Warm-up: module load, first-touch and clocks settle outside the numbers; the last
     * warm-up launch also estimates the time of one launch. */
    double one_ms = 0.0;
    RB_TRY(time_sample(run, ctx, stream, o, t, 1, &one_ms));
    RB_TRY(time_sample(run, ctx, stream, o, t, 1, &one_ms));
    int launches = 1;
    if (!o->cold && one_ms > 0)
        launches = (int)fmin(MAX_LAUNCHES_PER_SAMPLE, fmax(1.0, ceil(o->sample_ms / one_ms)));
    double warm_ms;
    RB_TRY(time_sample(run, ctx, stream, o, t, launches, &warm_ms));
    *launches_per_sample = launches;

    uint64_t want = o->samples ? o->samples : MAX_SAMPLES;
    double t0 = rb_now_s();
    size_t n = 0;
    while (n < want) {
        RB_TRY(time_sample(run, ctx, stream, o, t, launches, &samples[n]));
        n++;
        if (o->samples)
            continue;
        int enough = n >= MIN_SAMPLES && rb_now_s() - t0 >= MIN_SAMPLING_S;
        if (enough && n % 5 == 0) {
            rb_stats s;
            if (rb_stats_compute(samples, n, &s) == 0 && s.noise <= o->noise_target)
                break;
        }
        /* The cap ends a noisy loop; a slow kernel still gets a minimum of 3 samples. */
        if (rb_now_s() - t0 > o->cap_s && n >= 3)
            break;
    }
    if (rb_stats_compute(samples, n, out) != 0) {
        rb_error_at(__FILE__, __LINE__, "rb_stats_compute", "a timing sample is not finite");
        return RB_ERR_CUDA;
    }
    return RB_OK;
}

rb_status rb_measure(rb_status (*run)(void *, cudaStream_t), void *ctx, cudaStream_t stream,
                     const rb_measure_opts *o, rb_stats *out, double *launches_per_sample)
{
    timer t = {0, 0};
    uint64_t cap = o->samples ? o->samples : MAX_SAMPLES;
    double *samples = malloc(cap * sizeof *samples);
    if (!samples)
        return RB_ERR_ALLOC;
    rb_status st = RB_ERR_CUDA;
    if (cudaEventCreate(&t.start) == cudaSuccess && cudaEventCreate(&t.stop) == cudaSuccess)
        st = measure_with(run, ctx, stream, o, &t, samples, out, launches_per_sample);
    else
        rb_error_at(__FILE__, __LINE__, "cudaEventCreate", "failed");
    if (t.start)
        cudaEventDestroy(t.start);
    if (t.stop)
        cudaEventDestroy(t.stop);
    free(samples);
    return st;
}
