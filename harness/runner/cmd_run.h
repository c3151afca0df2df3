/* SPDX-License-Identifier: MIT */
/* roofbench run (cmd_run.c). */
#ifndef RB_CMD_RUN_H
#define RB_CMD_RUN_H

#include "jobs.h"
#include "model/cli.h"
#include "model/json.h"
#include "results.h"

/* The run of jobs[0..n): every file it writes checked before any GPU work, results judged and
 * written; baseline (NULL: none) the results file of --baseline. The exit code. */
int rb_cmd_run(rb_job *jobs, int n, const rb_options *o, int argc, char **argv,
               rb_pair_result *results, const json_value *baseline);

#endif
