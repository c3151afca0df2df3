/* SPDX-License-Identifier: MIT */
/* The probe child, the GPU a command uses, and what the files record of it (cmd_probe.c). */
#ifndef RB_CMD_PROBE_H
#define RB_CMD_PROBE_H

#include "gpu_check.h"
#include "jobs.h"
#include "model/cli.h"
#include "model/expect.h"
#include "model/json.h"

/* What the probe child reports. */
typedef struct rb_probe_state {
    json_value *env;
    char error[400];
    int no_device;
    int usage;          /* --device names a GPU that is not there */
    rb_gpu_check check; /* who else was on the GPU (when the probe looked: rb_cmd_probe_looks) */
} rb_probe_state;

/* --device N (-1: none): the GPU the commands' children use. */
void rb_cmd_use_device(int device);

/* Whether the next probes look at who else is on the GPU (a run's first probe does). */
void rb_cmd_probe_looks(int looks);

/* Runs the probe: 0 with s->env set, or the exit code to end with (message printed). */
int rb_cmd_probe(rb_probe_state *s, double timeout_s);

/* --device N, after the first probe named the GPU: every later child sees that GPU alone, as its
 * device 0 (CUDA_VISIBLE_DEVICES). 0, or the exit code (message printed). */
int rb_cmd_select_device(void);

/* On a machine with one GPU, a pair's sweep shrinks to its sweep_one_gpu sizes. Returns the jobs
 * kept; 0 when none is left. */
int rb_cmd_keep_one_gpu_sizes(rb_job *jobs, int n, const json_value *env);

/* The environment's string at key, "?" when none. */
const char *rb_cmd_env_str(const json_value *env, const char *key);

/* The provenance and the hardware the results and expectation files record. NULL when out of
 * memory. */
json_value *rb_cmd_provenance(const rb_options *o, const json_value *env);
json_value *rb_cmd_hardware(const json_value *env);

/* An expectation file of another GPU model is refused unless --expect-any-device: 0, or the exit
 * code with the line printed. */
int rb_cmd_check_expect_device(const rb_options *o, const rb_expect *e, const char *path,
                               const json_value *env);

#endif
