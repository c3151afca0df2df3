/* SPDX-License-Identifier: MIT */
#include "measure.h"

#include <math.h>
#include <stdlib.h>

#include "clock_sampler.h"
#include "energy_read.h"
#include "model/util.h"
#include "env.h"
#include "gpu.h"

#define MIN_SAMPLES 20
#define MIN_SAMPLING_S 0.1 /* the noise rule alone stopped after 14 ms on an H100 copy */
#define MAX_SAMPLES 100000
#define MAX_LAUNCHES_PER_SAMPLE 10000

/* Operations per launch of run() (rb_measure_opts.ops_per_launch), at least one. */
static int ops_of(const rb_measure_opts *o)
{
    return o->ops_per_launch > 1 ? o->ops_per_launch : 1;
}

typedef struct timer {
    cudaEvent_t start, stop;
} timer;

/* A variant as the loop times it: its run(), and whether its samples still start behind the
 * latch (rb_measure_opts.latch). A run() that queues more than the GPU takes in while the latch
 * holds it (the 4-GPU ring: thousands of launches and event waits a run) blocks the host until
 * the latch lets go; that sample is then an unlatched one, and so are the variant's next. */
typedef struct timed_variant {
    rb_status (*run)(void *, cudaStream_t);
    void *ctx;
    int latched;
} timed_variant;

/* Milliseconds per operation of `launches` back-to-back launches (after an optional L2 flush);
 * with several ranks (o->comm), started together and the slowest rank's, this rank's own time
 * into *own (when not NULL). */
static rb_status time_sample(timed_variant *v, cudaStream_t stream, const rb_measure_opts *o,
                             const timer *t, int launches, double *ms, double *own)
{
    if (o->cold) {
        RB_CUDA(rb_flush_l2(o->flush_buf, o->flush_bytes, stream));
        RB_CUDA(cudaCtxResetPersistingL2Cache());
    }
    if (o->comm) {
        RB_CUDA(cudaStreamSynchronize(stream)); /* the flush is done before the barrier */
        o->comm->barrier();
    }
    int latched = o->latch && v->latched;
    if (latched) {
        __atomic_store_n(o->latch, 0, __ATOMIC_SEQ_CST);
        RB_CUDA(rb_latch(o->latch, RB_MEASURE_LATCH_NS, o->latch_late, stream));
    }
    RB_CUDA(cudaEventRecord(t->start, stream));
    for (int k = 0; k < launches; k++) {
        rb_status st = v->run(v->ctx, stream);
        if (k == 0 && latched)
            __atomic_store_n(o->latch, 1, __ATOMIC_SEQ_CST);
        RB_TRY(st);
    }
    RB_CUDA(cudaEventRecord(t->stop, stream));
    RB_CUDA(cudaEventSynchronize(t->stop));
    float elapsed = 0.0f;
    RB_CUDA(cudaEventElapsedTime(&elapsed, t->start, t->stop));
    if (latched) {
        int late = 0;
        RB_CUDA(cudaMemcpy(&late, o->latch_late, sizeof late, cudaMemcpyDeviceToHost));
        if (late)
            v->latched = 0;
    }
    *ms = (double)elapsed / launches / ops_of(o);
    if (own)
        *own = *ms;
    if (o->comm)
        *ms = o->comm->max(*ms);
    return RB_OK;
}

/* Seconds since t0 by the loop's clock: the latest rank's when there are several, so that all
 * of them stop after the same sample. */
static double loop_s(const rb_measure_opts *o, double t0)
{
    double s = rb_now_s() - t0;
    return o->comm ? o->comm->max(s) : s;
}

/* Launches per sample so that a sample lasts sample_ms, given the time of one operation (one
 * launch, or 1 / ops_per_launch of one). */
static int launches_for(const rb_measure_opts *o, double per_op_ms)
{
    double per_launch_ms = per_op_ms * ops_of(o);
    if (o->cold || !(per_launch_ms > 0))
        return 1;
    return (int)fmin(MAX_LAUNCHES_PER_SAMPLE, fmax(1.0, ceil(o->sample_ms / per_launch_ms)));
}

/* Warm-up of one variant: module load, first-touch and clocks settle outside the numbers. The
 * second single launch estimates the time of one, which sets the launches per sample; then one
 * sample of that many launches, unless that is one launch (the second single launch was
 * already one: a slow variant, 20-280 ms a launch, would pay a third for nothing). A launch
 * timed alone measures its latency, not its rate in a batch: for a launch-bound call (NCCL on
 * one GPU: ~10 us alone, ~5 us each in a batch) the count it gives made samples of 0.35-1.9 ms
 * that varied 2x between runs. So the count is set again from that warm sample's per-launch
 * time, and every sample lasts about sample_ms in every run. */
static rb_status warm_up(timed_variant *v, cudaStream_t stream, const rb_measure_opts *o,
                         const timer *t, double warm_s, int *launches)
{
    double one_ms = 0.0, warm_ms = 0.0;
    RB_TRY(time_sample(v, stream, o, t, 1, &one_ms, NULL));
    RB_TRY(time_sample(v, stream, o, t, 1, &one_ms, NULL));
    *launches = launches_for(o, one_ms);
    if (*launches > 1) {
        RB_TRY(time_sample(v, stream, o, t, *launches, &warm_ms, NULL));
        *launches = launches_for(o, warm_ms);
    }
    /* Sustained timing: back to back until the board has settled at its power limit. */
    for (double t0 = rb_now_s(); rb_now_s() - t0 < warm_s;)
        RB_TRY(time_sample(v, stream, o, t, *launches, &warm_ms, NULL));
    return RB_OK;
}

/* Does this run know every variant's median to within `target` of it? The distribution-free 95%
 * confidence interval of each median (rb_stats: order statistics) spans at most target x median.
 * This judges the figure reported, the median: a variant whose samples spread by 10% (launch
 * jitter, a bimodal copy) is still measured to 1% once it has enough samples, and a quiet one
 * stops at the minimum. (The rule before, (p90 - p10) / median <= target, judged the spread of
 * single samples, which more samples never narrow: such variants ran to the time cap.) */
static int medians_precise(const double *samples, int n, size_t stride, size_t rounds,
                           double target)
{
    for (int i = 0; i < n; i++) {
        rb_stats s;
        if (rb_stats_compute(&samples[(size_t)i * stride], rounds, &s) != 0 ||
            !(s.ci_width <= target))
            return 0;
    }
    return 1;
}

/* Whether the energy of this measurement is read on the counter's edges (core/energy.h):
 * with a counter, one variant at a time (loop_energy says why not otherwise), warm, and one
 * process (the untimed samples after the last timed one would be a collective the other ranks
 * do not join). */
static int reads_edges(const rb_measure_opts *o, void *nvml, int n)
{
    return o->energy && nvml && n == 1 && !o->cold && !o->comm;
}

/* After a timed part of elapsed_s: untimed samples of the variant until its energy window ends
 * on an edge (energy_read.h), with the clock sampler told they do not count; then the poller
 * stopped and its edges in *w. */
static rb_status pad_energy(timed_variant *v, cudaStream_t stream, const timer *t, int launches,
                            rb_clock_sampler *sampler, double elapsed_s, rb_energy_poller *p,
                            rb_energy_edges *w)
{
    rb_status st = RB_OK;
    if (elapsed_s >= RB_ENERGY_MIN_WINDOW_S) { /* else SHORT whatever the counter says */
        if (sampler)
            rb_clock_sampler_timing(sampler, -1);
        st = rb_energy_poller_pad(p, v->run, v->ctx, stream, launches, t->stop);
    }
    rb_energy_poller_stop(p, w);
    return st;
}

/* The energy of a loop of ~1 ms samples, read on the counter's edges around it (have: the
 * first reading was taken; w its edges; elapsed the timed part): one variant's own, or
 * nothing that tells several apart (rb_measure_opts.energy). */
static void loop_energy(const rb_measure_opts *o, void *nvml, int n, int have,
                        const rb_energy_edges *w, double elapsed, size_t rounds,
                        const int *launches)
{
    for (int i = 0; o->energy && i < n; i++) {
        rb_energy_init(&o->energy[i]);
        if (!nvml)
            rb_energy_none(&o->energy[i], RB_ENERGY_UNAVAILABLE);
        else if (o->cold)
            rb_energy_none(&o->energy[i], RB_ENERGY_COLD);
        else if (n > 1)
            rb_energy_none(&o->energy[i], RB_ENERGY_INTERLEAVED);
        else if (o->comm)
            rb_energy_none(&o->energy[i], RB_ENERGY_SEVERAL_GPUS);
        else
            rb_energy_add_edges(&o->energy[i], have, w, elapsed,
                                (double)rounds * launches[i] * ops_of(o));
        rb_energy_finish(&o->energy[i]);
    }
}

/* The timed loop: rounds of one sample of every variant, until the stopping rules say so.
 * samples[i * max_rounds + r]: variant i's sample in round r; *rounds_out: the rounds taken. */
static rb_status timed_loop(timed_variant *v, int n, cudaStream_t stream, const rb_measure_opts *o,
                            const timer *t, const int *launches, rb_clock_sampler *sampler,
                            double *samples, double *own, uint64_t max_rounds, size_t *rounds_out)
{
    void *nvml = sampler ? sampler->nvml : NULL;
    rb_energy_edges w;
    rb_energy_edges_init(&w);
    /* the counter is read from its own thread: the samples stay as they were */
    rb_energy_poller poller;
    int have = reads_edges(o, nvml, n) && rb_energy_poller_start(&poller, nvml) == 0;
    double t0 = rb_now_s(), min_s = fmax(MIN_SAMPLING_S, o->min_s);
    size_t rounds = 0;
    while (rounds < max_rounds) {
        for (int i = 0; i < n; i++) {
            if (sampler)
                rb_clock_sampler_timing(sampler, i);
            size_t at = (size_t)i * max_rounds + rounds;
            rb_status st =
                time_sample(&v[i], stream, o, t, launches[i], &samples[at], own ? &own[at] : NULL);
            if (st != RB_OK) {
                if (have) /* the thread reads &poller: joined before it goes */
                    rb_energy_poller_stop(&poller, &w);
                return st;
            }
        }
        *rounds_out = ++rounds;
        if (o->samples)
            continue;
        double s = loop_s(o, t0);
        if (rounds >= MIN_SAMPLES && s >= min_s && (rounds < 100 || rounds % 10 == 0) &&
            medians_precise(samples, n, max_rounds, rounds, o->noise_target))
            break;
        /* The cap ends a noisy loop (not before a sustained loop's minimum); a slow kernel
         * still gets a minimum of 3 samples. */
        if (s > fmax(o->cap_s * n, o->min_s) && rounds >= 3)
            break;
    }
    double elapsed = rb_now_s() - t0;
    if (have)
        RB_TRY(pad_energy(&v[0], stream, t, launches[0], sampler, elapsed, &poller, &w));
    loop_energy(o, nvml, n, have, &w, elapsed, rounds, launches);
    return RB_OK;
}

/* Sustained windows in turn (rb_measure_opts.windows): samples[i * max_per + c] is variant i's
 * c-th sample, counts[i] how many it took. Each window settles first, untimed and unsampled by
 * the clock sampler, so a variant that follows a lighter one (a slow step draws less power and
 * lets the clock rise) is timed once the clock has come down to what its own load allows. */
static rb_status timed_windows(timed_variant *v, int n, cudaStream_t stream,
                               const rb_measure_opts *o, const timer *t, const int *launches,
                               rb_clock_sampler *sampler, double *samples, double *own,
                               uint64_t max_per, size_t *counts)
{
    double scratch = 0.0;
    void *nvml = sampler ? sampler->nvml : NULL;
    for (int i = 0; i < n; i++) {
        counts[i] = 0;
        if (o->energy)
            rb_energy_init(&o->energy[i]);
    }
    for (int r = 0; r < o->windows; r++)
        for (int i = 0; i < n; i++) {
            if (sampler)
                rb_clock_sampler_timing(sampler, -1);
            for (double t0 = rb_now_s(); loop_s(o, t0) < o->settle_s;)
                RB_TRY(time_sample(&v[i], stream, o, t, launches[i], &scratch, NULL));
            if (sampler)
                rb_clock_sampler_timing(sampler, i);
            /* the window's own energy, on the counter's edges: each variant's windows are its
             * alone */
            rb_energy_edges w;
            rb_energy_edges_init(&w);
            rb_energy_poller poller;
            int have = reads_edges(o, nvml, 1) && rb_energy_poller_start(&poller, nvml) == 0;
            double t0 = rb_now_s();
            size_t first = counts[i];
            do {
                size_t at = (size_t)i * max_per + counts[i]++;
                rb_status st = time_sample(&v[i], stream, o, t, launches[i], &samples[at],
                                           own ? &own[at] : NULL);
                if (st != RB_OK) {
                    if (have) /* the thread reads &poller: joined before it goes */
                        rb_energy_poller_stop(&poller, &w);
                    return st;
                }
            } while (counts[i] < max_per && loop_s(o, t0) < o->window_s);
            double elapsed = rb_now_s() - t0;
            if (have)
                RB_TRY(pad_energy(&v[i], stream, t, launches[i], sampler, elapsed, &poller, &w));
            if (o->energy)
                rb_energy_add_edges(&o->energy[i], have, &w, elapsed,
                                    (double)(counts[i] - first) * launches[i] * ops_of(o));
        }
    for (int i = 0; o->energy && i < n; i++) {
        if (o->comm) /* one GPU's counter, and no untimed samples the other ranks do not join */
            rb_energy_none(&o->energy[i], RB_ENERGY_SEVERAL_GPUS);
        rb_energy_finish(&o->energy[i]);
    }
    return RB_OK;
}

/* Warm-up, then the timed loop with the clock sampler (clocks not NULL: n of them) running
 * around it: started after the warm-up, stopped once the last sample's event has completed, so
 * it sees the loop and nothing else. */
static rb_status measure_rounds(timed_variant *v, int n, cudaStream_t stream,
                                const rb_measure_opts *o, const timer *t, double *samples,
                                double *own, uint64_t max_rounds, rb_stats *out,
                                double *launches_per_sample, rb_clocks *clocks)
{
    int launches[RB_MAX_VARIANTS];
    for (int i = 0; i < n; i++) {
        /* In windows every window settles on its own: only the first warms the board up. */
        RB_TRY(
            warm_up(&v[i], stream, o, t, o->windows > 0 && i > 0 ? 0.0 : o->warm_s, &launches[i]));
        launches_per_sample[i] = launches[i];
    }
    rb_clock_sampler sampler;
    int device = 0;
    if (clocks && cudaGetDevice(&device) == cudaSuccess)
        rb_clock_sampler_start(&sampler, device, n);
    else if (clocks)
        clocks = NULL;
    size_t rounds = 0, counts[RB_MAX_VARIANTS];
    rb_status st = o->windows > 0
                       ? timed_windows(v, n, stream, o, t, launches, clocks ? &sampler : NULL,
                                       samples, own, max_rounds, counts)
                       : timed_loop(v, n, stream, o, t, launches, clocks ? &sampler : NULL, samples,
                                    own, max_rounds, &rounds);
    if (clocks) {
        rb_clock_sampler_stop(&sampler, clocks);
        if (o->contended) {
            int read = 0;
            rb_clock_sampler_contention(&sampler, o->contended, &read);
            if (o->contention_read)
                *o->contention_read = read;
        }
    }
    RB_TRY(st);
    for (int i = 0; i < n; i++) {
        size_t taken = o->windows > 0 ? counts[i] : rounds;
        rb_stats mine;
        if (rb_stats_compute(&samples[(size_t)i * max_rounds], taken, &out[i]) != 0 ||
            (own && rb_stats_compute(&own[(size_t)i * max_rounds], taken, &mine) != 0)) {
            rb_error_at(__FILE__, __LINE__, "rb_stats_compute", "a timing sample is not finite");
            return RB_ERR_CUDA;
        }
        if (own)
            o->rank_median_ms[i] = mine.median;
        if (o->latch_dropped)
            o->latch_dropped[i] = o->latch && !v[i].latched;
    }
    return RB_OK;
}

rb_status rb_measure_rounds(const rb_timed *v, int n, cudaStream_t stream,
                            const rb_measure_opts *o, rb_stats *out, double *launches_per_sample,
                            rb_clocks *clocks)
{
    if (n < 1 || n > RB_MAX_VARIANTS) {
        rb_error_at(__FILE__, __LINE__, "rb_measure_rounds", "1 to RB_MAX_VARIANTS variants");
        return RB_ERR_INPUT;
    }
    timer t = {0, 0};
    uint64_t rounds = o->samples ? o->samples : MAX_SAMPLES;
    /* this rank's own samples beside the ranks' slowest, when asked for */
    int want_own = o->comm && o->rank_median_ms;
    double *samples = malloc((size_t)n * rounds * (want_own ? 2 : 1) * sizeof *samples);
    if (!samples)
        return RB_ERR_ALLOC;
    double *own = want_own ? samples + (size_t)n * rounds : NULL;
    timed_variant w[RB_MAX_VARIANTS];
    for (int i = 0; i < n; i++)
        w[i] = (timed_variant){v[i].run, v[i].ctx, 1};
    rb_status st = RB_ERR_CUDA;
    if (cudaEventCreate(&t.start) == cudaSuccess && cudaEventCreate(&t.stop) == cudaSuccess)
        st = measure_rounds(w, n, stream, o, &t, samples, own, rounds, out, launches_per_sample,
                            clocks);
    else
        rb_error_at(__FILE__, __LINE__, "cudaEventCreate", "failed");
    if (t.start)
        cudaEventDestroy(t.start);
    if (t.stop)
        cudaEventDestroy(t.stop);
    free(samples);
    return st;
}

rb_status rb_measure(rb_status (*run)(void *, cudaStream_t), void *ctx, cudaStream_t stream,
                     const rb_measure_opts *o, rb_stats *out, double *launches_per_sample,
                     rb_clocks *clocks)
{
    const rb_timed v = {run, ctx};
    return rb_measure_rounds(&v, 1, stream, o, out, launches_per_sample, clocks);
}
