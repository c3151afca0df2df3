/* SPDX-License-Identifier: MIT */
/* roofbench check, and the pairs' children (cmd_check.c). */
#ifndef RB_CMD_CHECK_H
#define RB_CMD_CHECK_H

#include "jobs.h"
#include "model/cli.h"
#include "results.h"

/* The pairs' children, one after the other, with the progress on stderr (progress.h; the
 * estimate from expected_s[i], pair i's recorded wall time, NaN or a NULL array when none). */
void rb_cmd_run_pairs(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *results,
                      const double *expected_s);

/* Validates every variant, no timing: the table, exit 0 or 1. */
int rb_cmd_check(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *results);

#endif
