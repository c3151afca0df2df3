/* SPDX-License-Identifier: MIT */
/* roofbench list (cmd_list.c). */
#ifndef RB_CMD_LIST_H
#define RB_CMD_LIST_H

#include "jobs.h"

/* The pairs of jobs[0..n) with their sizes, work and variants, on stdout. Returns EXIT_OK. */
int rb_cmd_list(const rb_job *jobs, int n);

/* list --json: the same as one JSON document on stdout (docs/list.schema.json): the pairs, each
 * with its variants, sizes and inputs, and its rows at the selected size with their work and each
 * variant's roof; the pairs this build left out. Returns EXIT_OK, or EXIT_USAGE out of memory. */
int rb_cmd_list_json(const rb_job *jobs, int n);

#endif
