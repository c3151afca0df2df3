/* SPDX-License-Identifier: MIT */
/*
 * The clocks during a timed loop: a thread that reads the SM clock and the clock-event reasons
 * from NVML about every 10 ms, from rb_clock_sampler_start (just before the loop) to
 * rb_clock_sampler_stop (just after it), and folds them into an rb_clocks (model/clocks.h). It
 * calls NVML only, never CUDA, so it adds nothing to the stream being timed; its cost is one
 * CPU core waking 100 times a second. Without NVML it starts no thread and records nothing.
 *
 * A loop that alternates variants (rb_measure_rounds) says which one it is timing before each
 * sample (rb_clock_sampler_timing), and a reading is folded into that variant's rb_clocks: a
 * short tensor-core step that follows a long FP32 one runs at another clock than the loop's
 * average, and a verdict at equal clock needs the step's own. A sample waits for its stop
 * event before the next one is queued, so the variant the loop names is the one on the GPU.
 *
 * It also reads NVML's compute processes (model/contention.h): on the calling thread when it
 * starts and when it stops, and from its thread every RB_CONTENTION_POLL_MS in between,
 * settling windows included; a process not the run's own seen at any of these makes the loop,
 * and every variant timed in it, contended (rb_clock_sampler_contention).
 */
#ifndef RB_CLOCK_SAMPLER_H
#define RB_CLOCK_SAMPLER_H

#include <pthread.h>
#include <stdatomic.h>

#include "model/clocks.h"
#include "model/contention.h"
#include "model/result.h"

#define RB_CLOCK_SAMPLE_MS 10

typedef struct rb_clock_sampler {
    pthread_t thread;
    int running;
    void *nvml; /* the device's NVML handle */
    atomic_int stop;
    atomic_int current;                /* the variant being timed */
    int n;                             /* variants */
    rb_clocks clocks[RB_MAX_VARIANTS]; /* written by the thread until it is joined */
    rb_own own;                        /* who is the run's own (model/contention.h) */
    int procs_read;                    /* the process list could be read at least once */
    int ticks;
    rb_contention seen; /* written by the thread until it is joined */
} rb_clock_sampler;

/* Starts sampling device (the caller's CUDA device) for a loop of n variants (1 to
 * RB_MAX_VARIANTS; variant 0 is being timed until said otherwise); call on the thread that
 * owns the CUDA context, before the timed loop. */
void rb_clock_sampler_start(rb_clock_sampler *s, int device, int n);
/* The loop is about to time a sample of variant i (0 <= i < n); -1: none, until said otherwise
 * (what runs meanwhile is untimed: the readings are not kept). */
void rb_clock_sampler_timing(rb_clock_sampler *s, int i);
/* Stops and joins the thread; out[0..n) get what it saw of each variant (empty when it never
 * ran). */
void rb_clock_sampler_stop(rb_clock_sampler *s, rb_clocks *out);
/* After stop: the processes not the run's own seen from start to stop (empty when none, or
 * when the list could not be read: *read then 0). */
void rb_clock_sampler_contention(const rb_clock_sampler *s, rb_contention *out, int *read);

#endif
