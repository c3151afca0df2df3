/* SPDX-License-Identifier: MIT */
/*
 * Timing with CUDA events. A sample is K back-to-back launches between two events, K chosen so
 * that a sample lasts ~1 ms (launch latency would swamp a short kernel timed alone; K comes from
 * a warm batch of launches, not from one launch alone); samples
 * are taken until the 95% confidence interval of the median spans at most the target (1%) of
 * the median (with at least 20 samples over at least 0.1 s), or the time cap. --cold:
 * each sample is one launch after an L2 flush and a reset of the persisting-L2 lines.
 */
#ifndef RB_MEASURE_H
#define RB_MEASURE_H

#include "model/clocks.h"
#include "model/contention.h"
#include "model/energy.h"
#include "pair.h"

/* The timing policy of a pair that sets ext->timing.sustain_s (kit/pair.h), measured the way
 * `roofbench ceilings` measures the tensor roofs (runner/ceilings_gemm.c: 0.5 s warm, 1 s
 * timed), so that a variant meets the clock its roof met: a burst of a few dozen milliseconds
 * meets the clock wherever the power controller happens to be. Sustained: after the warm-up,
 * RB_SUSTAIN_WARM_S of untimed back-to-back launches, then samples over at least sustain_s
 * (rb_measure_opts.warm_s, min_s). Sustained and interleaved (with timing.interleave):
 * RB_SUSTAIN_WINDOWS rounds of windows, each variant in turn (A B A B), each window
 * RB_SUSTAIN_SETTLE_S untimed then sustain_s / RB_SUSTAIN_WINDOWS timed in samples of
 * RB_SUSTAIN_SAMPLE_MS (the tensor roofs' 10 ms): rb_measure_opts.windows. */
#define RB_SUSTAIN_WARM_S 0.5
#define RB_SUSTAIN_WINDOWS 2
#define RB_SUSTAIN_SETTLE_S 0.3
#define RB_SUSTAIN_SAMPLE_MS 10.0

/* The latch lets go after this long whatever happens (rb_measure_opts.latch): 100x what queuing
 * 20 NCCL groups on 4 GPUs takes the host. */
#define RB_MEASURE_LATCH_NS 50000000ull

typedef struct rb_measure_opts {
    uint64_t samples;    /* exactly this many; 0: adaptive */
    double cap_s;        /* wall-clock cap of the sampling loop (adaptive) */
    double noise_target; /* 0.01: the widest confidence interval of the median, relative */
    double sample_ms;    /* target duration of a sample, 1 ms */
    int cold;
    /* Sustained timing (ext->timing.sustain_s): warm_s seconds of untimed back-to-back launches
     * after the warm-up, then samples over at least min_s seconds, whatever the noise rule
     * says. 0, 0: neither (the loop's own minimum, MIN_SAMPLING_S, holds). */
    double warm_s, min_s;
    /* Sustained windows in turn (ext->timing.sustain_s with interleave): `windows` rounds in which
     * each variant in turn runs settle_s of untimed back-to-back launches (the board's clock
     * follows the new load) and then window_s of timed samples; its statistics are over all its
     * windows' samples. Every variant then meets the power-capped clock the way `roofbench
     * ceilings` measures the tensor roofs, and the others' drift alike (A B A B). No noise
     * target and no cap: the windows have their length. 0: the ordinary loop. */
    int windows;
    double settle_s, window_s;
    void *flush_buf; /* cold: >= 2x L2 */
    size_t flush_bytes;
    /* Several processes timing one collective together (roofbench_mpi), NULL: one. Every rank
     * starts each sample at a barrier and records the slowest rank's time, and the loop's clock
     * is the latest rank's: so every rank takes the same decisions (launches per sample, when
     * to stop) and calls the collective equally often, as it must. */
    const rb_comm *comm;
    /* Operations per launch of run() (rb_pair_ext.ops_per_run): times are per operation.
     * 0 or 1: one. */
    int ops_per_launch;
    /* A latch (gpu.h: rb_latch) on a flag in mapped, pinned host memory, NULL: none. Each
     * sample's first launch is queued behind it and the start event, and released once queued:
     * the clock starts as the GPU runs it, not while the host is still queuing it. For a run()
     * of many calls on several GPUs (a fork, 20 groups of NCCL launches, a join) that queuing
     * is tens of microseconds at the head of every sample, and was ~1% of a 128 MiB
     * collective's time on 4 GPUs. latch_late: a device int, the latch's report. A run() that
     * queues more than the GPU takes in while held (the 4-GPU ring) blocks the host until the
     * latch lets go (RB_MEASURE_LATCH_NS): that sample and the variant's next are timed without
     * it, and latch_dropped[i] (one per variant timed; NULL: not wanted) says so. */
    volatile int *latch;
    int *latch_late;
    int *latch_dropped;
    /* With comm: each variant's median of this rank's own sample times (before the slowest
     * rank's is taken), one per variant timed; NULL: not wanted. A fleet names the rank that
     * is slowest at a collective from these. */
    double *rank_median_ms;
    /* Each variant's energy over its timed samples (model/energy.h), one per variant timed;
     * NULL: not read. NVML's total-energy counter is read just before the first timed sample
     * and just after the last (in windows: around each window's timed part), with the elapsed
     * time between; a loop of ~1 ms samples in turn gives every variant RB_ENERGY_INTERLEAVED,
     * a cold one RB_ENERGY_COLD. Read with clocks only (the sampler's NVML handle). */
    rb_energy *energy;
    /* The processes not the run's own that the clock sampler saw from before the first timed
     * sample to after the last (model/contention.h), one for the whole loop; NULL: not wanted.
     * *contention_read: whether the list could be read. */
    rb_contention *contended;
    int *contention_read;
} rb_measure_opts;

/* Times run(ctx, stream). On success, *out holds milliseconds per launch (per operation with
 * ops_per_launch). clocks not NULL: a
 * background thread samples the SM clock and the clock-event reasons during the timed loop
 * (after the warm-up; harness/runner/clock_sampler.h) into *clocks, empty without NVML. */
rb_status rb_measure(rb_status (*run)(void *, cudaStream_t), void *ctx, cudaStream_t stream,
                     const rb_measure_opts *o, rb_stats *out, double *launches_per_sample,
                     rb_clocks *clocks);

/* One of the variants rb_measure_rounds times together. */
typedef struct rb_timed {
    rb_status (*run)(void *ctx, cudaStream_t stream);
    void *ctx;
} rb_timed;

/* Times n variants in rounds: each round takes one sample of every variant in turn (with
 * o->windows, one sustained window of every variant in turn), so that
 * all of them see the same clocks and temperature. A power-capped GPU slows down as it warms
 * (seen on an H100: the SM clock fell from 1590 to 1500 MHz between two identical cuBLASLt GEMMs
 * timed one after the other), which would make the later of two equal variants look slower.
 * The stopping rules are rb_measure's, applied to every variant (the cap grows with n);
 * out[i] and launches_per_sample[i] are variant i's; clocks (when not NULL) is an array of n:
 * clocks[i] holds the readings the sampler took while variant i's samples ran (the loop tells
 * the sampler which variant it is timing before each sample), so each variant has its own
 * clock even when they alternate every millisecond. rb_measure is the case n = 1. */
rb_status rb_measure_rounds(const rb_timed *v, int n, cudaStream_t stream,
                            const rb_measure_opts *o, rb_stats *out, double *launches_per_sample,
                            rb_clocks *clocks);

#endif
