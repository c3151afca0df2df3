/* SPDX-License-Identifier: MIT */
/* roofbench list (cmd_list.c). */
#ifndef RB_CMD_LIST_H
#define RB_CMD_LIST_H

#include "jobs.h"

/* The pairs of jobs[0..n) with their sizes, work and variants, on stdout. Returns EXIT_OK. */
int rb_cmd_list(const rb_job *jobs, int n);

#endif
