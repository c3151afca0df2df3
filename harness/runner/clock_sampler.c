/* SPDX-License-Identifier: MIT */
#include "clock_sampler.h"

#include <string.h>
#include <time.h>

#include "env.h"
#include "gpu_check.h"

/* Reads the process list once and keeps what is not the run's own. */
static void look_at_processes(rb_clock_sampler *s)
{
    rb_contention now;
    if (rb_gpu_check_list(s->nvml, &s->own, &now) != 0)
        return;
    s->procs_read = 1;
    rb_contention_merge(&s->seen, &now);
}

static void sample_once(rb_clock_sampler *s)
{
    if (++s->ticks % (RB_CONTENTION_POLL_MS / RB_CLOCK_SAMPLE_MS) == 0)
        look_at_processes(s);
    double mhz;
    int have_reasons;
    unsigned long long bits;
    int current = atomic_load(&s->current);
    if (current < 0) /* between samples that count (a sustained window's settling) */
        return;
    rb_env_nvml_clock_sample(s->nvml, &mhz, &have_reasons, &bits);
    rb_clocks_add(&s->clocks[current], mhz, have_reasons, bits);
}

static void *sampler_main(void *arg)
{
    rb_clock_sampler *s = arg;
    const struct timespec period = {0, RB_CLOCK_SAMPLE_MS * 1000000L};
    /* One sample at once, so even a loop shorter than a period has one. */
    do {
        sample_once(s);
        nanosleep(&period, NULL);
    } while (!atomic_load(&s->stop));
    return NULL;
}

void rb_clock_sampler_start(rb_clock_sampler *s, int device, int n)
{
    memset(s, 0, sizeof *s);
    s->n = n < 1 ? 1 : n > RB_MAX_VARIANTS ? RB_MAX_VARIANTS : n;
    for (int i = 0; i < s->n; i++)
        rb_clocks_init(&s->clocks[i]);
    atomic_init(&s->stop, 0);
    atomic_init(&s->current, 0);
    rb_contention_init(&s->seen);
    if (rb_env_nvml_device(device, &s->nvml) != 0)
        return;
    rb_gpu_check_own(&s->own, 1);
    look_at_processes(s); /* before the first sample */
    s->running = pthread_create(&s->thread, NULL, sampler_main, s) == 0;
}

void rb_clock_sampler_timing(rb_clock_sampler *s, int i)
{
    if (i >= -1 && i < s->n)
        atomic_store(&s->current, i);
}

void rb_clock_sampler_stop(rb_clock_sampler *s, rb_clocks *out)
{
    if (s->running) {
        atomic_store(&s->stop, 1);
        pthread_join(s->thread, NULL);
        s->running = 0;
        look_at_processes(s); /* after the last sample */
    }
    for (int i = 0; i < s->n; i++)
        out[i] = s->clocks[i];
}

void rb_clock_sampler_contention(const rb_clock_sampler *s, rb_contention *out, int *read)
{
    *out = s->seen;
    *read = s->procs_read;
}
