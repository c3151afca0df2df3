/* SPDX-License-Identifier: MIT */
/*
 * One rank's own run under roofbench_mpi: what `roofbench run` does on one GPU, done in the
 * rank's own process on its own GPU (the current device). No child processes (forking after
 * MPI_Init is not safe): each pair runs through rb_child_pair and the platform reference through
 * rb_ceilings_child, their records going to a temporary file read back through the collectors
 * a child's pipe feeds. No MPI here either: mpi_main.c orders the work across ranks.
 */
#ifndef RB_RANK_RUN_H
#define RB_RANK_RUN_H

#include "child.h"
#include "model/cli.h"
#include "model/expect.h"
#include "model/json.h"
#include "model/result.h"
#include "jobs.h"

/* Runs job j in this process into r: on this rank's GPU alone (comm NULL) or across the ranks
 * of comm (a collective, in step). With comm, each timed variant's own median of this rank
 * (rank_median_ms) is appended to own (NULL: not wanted) as {"row", "variant", "time_ms"}. 0,
 * or -1 when the pair failed (r says why; with comm the caller cannot go on). */
int rb_rank_pair(const rb_job *j, const rb_options *o, const rb_comm *comm, rb_pair_result *r,
                 json_value *own);

/* The platform reference of this rank's GPU (the quick ceilings and probes, RB_PROBE_ bits of
 * model/ceiling_record.h, as `roofbench run` measures them before the pairs; --no-ceilings: not
 * measured). The one-line summary goes to line. NULL when out of memory. */
json_value *rb_rank_platform(const rb_options *o, unsigned probes, char *line, size_t line_size);

/* This rank's run document, as `roofbench run` writes it for its GPU: the pairs judged against
 * e (NULL: every verdict 'new'), placed on the roofline, with the environment at start and end
 * and the platform reference (env_end and platform are taken). *failing: the failed pairs and
 * gating invalid or regressed variants. NULL when out of memory. */
json_value *rb_rank_document(const rb_options *o, int argc, char **argv, const rb_expect *e,
                             const char *expect_path, const json_value *env_start,
                             json_value *env_end, json_value *platform, rb_pair_result *results,
                             int n, int *failing);

#endif
