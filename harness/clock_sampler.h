/* SPDX-License-Identifier: MIT */
/*
 * The clocks during a timed loop: a thread that reads the SM clock and the clock-event reasons
 * from NVML about every 10 ms, from rb_clock_sampler_start (just before the loop) to
 * rb_clock_sampler_stop (just after it), and folds them into an rb_clocks (core/clocks.h). It
 * calls NVML only, never CUDA, so it adds nothing to the stream being timed; its cost is one
 * CPU core waking 100 times a second. Without NVML it starts no thread and records nothing.
 */
#ifndef RB_CLOCK_SAMPLER_H
#define RB_CLOCK_SAMPLER_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/clocks.h"

#define RB_CLOCK_SAMPLE_MS 10

typedef struct rb_clock_sampler {
    pthread_t thread;
    int running;
    void *nvml; /* the device's NVML handle */
    atomic_int stop;
    rb_clocks clocks; /* written by the thread until it is joined */
} rb_clock_sampler;

/* Starts sampling device (the caller's CUDA device); call on the thread that owns the CUDA
 * context, before the timed loop. */
void rb_clock_sampler_start(rb_clock_sampler *s, int device);
/* Stops and joins the thread; *out gets what it saw (empty when it never ran). */
void rb_clock_sampler_stop(rb_clock_sampler *s, rb_clocks *out);

#endif
