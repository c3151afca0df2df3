/* SPDX-License-Identifier: MIT */
/*
 * Reading NVML's total-energy counter on its edges (core/energy.h): one reading fed to a
 * row's edges, the untimed samples after a row's last timed one that let its window end on an
 * edge, and the probe a run starts with, which polls the idle counter to measure its update
 * period (recorded as the environment's energy_counter). NVML and the CUDA runtime only; never
 * a timed sample: the timing of every row is measure.c's alone.
 */
#ifndef RB_ENERGY_READ_H
#define RB_ENERGY_READ_H

#include "model/energy.h"
#include "model/json.h"
#include "rb_cuda.h"

/* The longest run of untimed samples rb_energy_read_pad takes to find a window's last edge:
 * ten update periods of the H200's counter. */
#define RB_ENERGY_PAD_MAX_S 1.0
/* How long the probe polls the idle counter at most, and the edges it stops after. */
#define RB_ENERGY_PROBE_S 0.6
#define RB_ENERGY_PROBE_EDGES 6

/* Reads the counter of the handle's GPU (rb_env_nvml_device) now into w: 0, or -1 when it
 * cannot be read (nothing fed). */
int rb_energy_read_poll(void *nvml, rb_energy_edges *w);

/* After a row's last timed sample: w may end from now on; untimed samples of `launches`
 * launches of run, each followed by ev and the counter polled while it runs, until w's window
 * is complete, the counter went back, or RB_ENERGY_PAD_MAX_S passed. Nothing is timed. A
 * counter that showed no edge at all in RB_ENERGY_PAD_MAX_S is taken to be stuck for the rest
 * of the process: later calls return at once. */
rb_status rb_energy_read_pad(rb_status (*run)(void *, cudaStream_t), void *ctx,
                             cudaStream_t stream, int launches, cudaEvent_t ev, void *nvml,
                             rb_energy_edges *w);

/* The probe: polls the counter of CUDA device `device` for up to RB_ENERGY_PROBE_S (the GPU
 * idle) and returns {"update_ms", "update_max_ms", "edges", "readings", "poll_us", "idle_w"}
 * (null members for what it did not see), or NULL with the reason in why (no NVML, no
 * counter, out of memory). */
json_value *rb_energy_read_probe(int device, char *why, size_t why_size);

#endif
