/* SPDX-License-Identifier: MIT */
/*
 * Reading NVML's total-energy counter on its edges (model/energy.h): a thread that polls the
 * counter while a row is timed and feeds its edges, the untimed samples after a row's last
 * timed one that let its window end on an edge, and the probe a run starts with, which polls
 * the idle counter to measure its update period (recorded as the environment's
 * energy_counter). NVML and the CUDA runtime only; never a timed sample: the timing of every
 * row is measure.c's alone.
 *
 * Why a thread: on an H200 one nvmlDeviceGetTotalEnergyConsumption call takes ~3.5 ms (the
 * probe's poll_us; docs/methodology.md#energy). Read between ~1 ms
 * samples on the timing thread, it quadrupled a row's time and put 3.5 ms of idle GPU between
 * its samples; polled from its own thread, it leaves the samples back to back as they are
 * without energy, and dates each edge to half of one call.
 */
#ifndef RB_ENERGY_READ_H
#define RB_ENERGY_READ_H

#include <pthread.h>
#include <stdatomic.h>

#include "model/energy.h"
#include "model/json.h"
#include "rb_cuda.h"

/* The longest run of untimed samples rb_energy_read_pad takes to find a window's last edge:
 * ten update periods of the H200's counter. */
#define RB_ENERGY_PAD_MAX_S 1.0
/* How long the probe polls the idle counter at most, and the edges it stops after. */
#define RB_ENERGY_PROBE_S 0.6
#define RB_ENERGY_PROBE_EDGES 6

typedef struct rb_energy_poller {
    pthread_t thread;
    pthread_mutex_t lock; /* guards w */
    atomic_int stop;
    void *nvml;
    rb_energy_edges w; /* fed by the thread */
} rb_energy_poller;

/* Starts polling the counter of the handle's GPU (rb_env_nvml_device) into p->w from its own
 * thread, just before a row's first timed sample: 0, or -1 (no handle, the counter stuck
 * earlier in this process, no thread: nothing started). */
int rb_energy_poller_start(rb_energy_poller *p, void *nvml);

/* After a row's last timed sample: the window may end from now on; untimed samples of
 * `launches` launches of run, each followed by ev, until the window is complete, the counter
 * went back, or RB_ENERGY_PAD_MAX_S passed. Nothing is timed. A counter that showed no edge in
 * RB_ENERGY_PAD_MAX_S is taken to be stuck for the rest of the process: later starts fail. */
rb_status rb_energy_poller_pad(rb_energy_poller *p, rb_status (*run)(void *, cudaStream_t),
                               void *ctx, cudaStream_t stream, int launches, cudaEvent_t ev);

/* Stops and joins the thread; *out gets the edges it fed. */
void rb_energy_poller_stop(rb_energy_poller *p, rb_energy_edges *out);

/* The probe: polls the counter of CUDA device `device` for up to RB_ENERGY_PROBE_S (the GPU
 * idle) and returns {"update_ms", "update_max_ms", "edges", "readings", "poll_us", "idle_w"}
 * (null members for what it did not see), or NULL with the reason in why (no NVML, no
 * counter, out of memory). */
json_value *rb_energy_read_probe(int device, char *why, size_t why_size);

#endif
