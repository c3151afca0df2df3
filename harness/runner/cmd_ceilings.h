/* SPDX-License-Identifier: MIT */
/* roofbench ceilings, and a run's platform reference (cmd_ceilings.c). */
#ifndef RB_CMD_CEILINGS_H
#define RB_CMD_CEILINGS_H

#include "jobs.h"
#include "model/cli.h"
#include "model/json.h"

/* A run's platform reference: the quick ceilings and the probes of the roofs the jobs' rows are
 * placed on, measured before the pairs. One line printed. NULL when interrupted (*rc set) or out
 * of memory. */
json_value *rb_cmd_platform_reference(const rb_options *o, const rb_job *jobs, int n, int *rc);

/* Measures the ceilings into the expectation file. The exit code. */
int rb_cmd_ceilings(const rb_options *o);

#endif
