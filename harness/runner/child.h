/* SPDX-License-Identifier: MIT */
/*
 * What runs inside the child process of one pair (or of a probe): all CUDA work happens in
 * children, so a crash, an illegal address or a hang costs one pair, not the run. A child
 * reports as JSON lines on a pipe:
 *   {"type":"pair", ...}     after setup: size and work model
 *   {"type":"variant", ...}  one per variant, as each finishes (rb_variant_to_json)
 *   {"type":"skip","reason"} the GPU cannot run the pair
 *   {"type":"error","reason"} a failure; the child then exits non-zero
 *   {"type":"env", ...}      a probe's environment
 *   {"type":"gpu_check", ...} before the pair's setup (and a run's first probe): the processes
 *                            not the run's own on the GPU and its utilization (model/contention.h)
 */
#ifndef RB_CHILD_H
#define RB_CHILD_H

#include "measure.h"

typedef struct rb_child_opts {
    rb_size size; /* resolved problem size */
    int input;    /* index into the pair's inputs */
    int swept;    /* the size is a row of the pair's sweep in a full run (rb_job.swept) */
    uint64_t seed;
    int check_only; /* validate, do not time */
    /* check --skip-variants: variant k is reported skipped, not run, when bit k is set */
    unsigned skip_variants;
    int nvtx;
    /* check under `roofbench profile` (RB_PROFILE_WINDOWS_ENV set): one run of each variant in a
     * profile window (model/profile.h) */
    int profile_window;
    rb_measure_opts measure;
    /* A multi-process run (roofbench_mpi): the pair is set up by setup_rank() for this rank and
     * timed with the ranks in step (rb_measure_opts.comm); NULL: one process, setup(). */
    const rb_comm *comm;
} rb_child_opts;

/* Runs pair p in this process (a child of roofbench's, or a rank of roofbench_mpi's), reporting
 * on fd. Returns the exit status. */
int rb_child_pair(const rb_pair *p, const rb_child_opts *o, int fd);
/* A probe: reports {"type":"env", ...} (rb_env_collect of the device) or {"type":"error",
 * "no_device": true, ...}. device -1: device 0 of all the visible ones; N >= 0 (--device N): that
 * one alone, and a device that is not there is {"type":"error", "usage": true, ...} (the parent
 * exits 2). look: a "gpu_check" record first (a run's first probe: who else is on the GPU). */
int rb_child_probe(int fd, int device, int look);

/* Writes one JSON line to fd (takes ownership of v). */
int rb_child_send(int fd, json_value *v);
/* Reports {"type":"error","reason":"<what>: <the first error recorded>"} on fd; returns 1, the
 * child's exit status. */
int rb_child_error(int fd, const char *what);

#endif
