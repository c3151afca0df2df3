/* SPDX-License-Identifier: MIT */
/*
 * A fleet: roofbench_mpi's ranks, one GPU each, on one node or many. Each rank runs the suite
 * on its own GPU and times the collectives with the others; rank 0 gathers every rank's
 * contribution over MPI and makes one node document of kind "fleet" (model/node.h). What here
 * needs neither MPI nor CUDA, so that the unit tests reach it: the host name a rank goes by,
 * the ranks of one host, a rank's contribution as JSON, the fleet document made of them and
 * the slowest rank of each collective.
 *
 * A contribution (one JSON object per rank, sent as text):
 *   {"rank": r, "run": <the rank's run document>,
 *    "collectives": [<pair records of the collectives, as in a run document>],
 *    "collective_ms": [{"row", "variant", "time_ms"}]}   this rank's own median of each
 *                                                          collective variant
 */
#ifndef RB_FLEET_H
#define RB_FLEET_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "json.h"
#include "util.h"

/* The longest host name a rank may go by, with its terminator (a DNS name's 253 + 1, rounded). */
#define RB_FLEET_HOST_MAX 256

/* The host name rank goes by: entry `rank` of RB_HOST_NAME_BY_RANK (comma-separated names, one
 * per rank, so one machine can pose as several nodes), else rb_host_name's (RB_HOST_NAME, else
 * gethostname()).
 * The chosen name is also put in RB_HOST_NAME, which the run's environment record reads. 0, or
 * -1 with one line in err (a list with fewer than `ranks` names, an empty or unprintable name,
 * one of RB_FLEET_HOST_MAX bytes or more). */
int rb_fleet_host_name(int rank, int ranks, char *out, size_t size, char *err, size_t err_size);

/* names: `ranks` names of RB_FLEET_HOST_MAX bytes each, in rank order (as MPI_Allgather leaves
 * them). The place of `rank` among the ranks of the same name (0 for the first of each host),
 * and the number of distinct names in *hosts (NULL: not wanted). */
int rb_fleet_local_rank(const char *names, int ranks, int rank, int *hosts);

/* One collective's pair record name ("nccl_allreduce.allreduce@1G") to its pair's name
 * ("nccl_allreduce"): up to the first '.' or '@'. */
void rb_fleet_pair_of_row(const char *row, char *out, size_t size);

/* A rank's contribution (see above) from its parts, which it takes (run: not NULL; collectives
 * and collective_ms: NULL for none). NULL when out of memory. */
json_value *rb_fleet_contribution(int rank, json_value *run, json_value *collectives,
                                  json_value *collective_ms);

/* Test only (RB_TEST_SYNTHETIC_RUN): a rank's contribution made from the run document at
 * path_template ("%r" in it: the rank number, so each rank can read its own file) instead of a
 * GPU. Its environment.start gets the place a rank has (host, rank, device_index = local, a
 * UUID and PCI bus id of the rank's); its pair records that is_collective() names move into the
 * contribution's collectives, their variants' medians into collective_ms as this rank's own
 * times. NULL with one line in err. */
json_value *rb_fleet_synthetic(const char *path_template, int rank, const char *host, int local,
                               int (*is_collective)(const char *pair), char *err, size_t err_size);

/* "slowest_rank": for each collective row and variant the contributions timed, the rank whose
 * own time is the longest: {"pair", "row", "variant", "rank", "host", "time_ms", "ranks_ms"
 * (every rank's own time, in rank order; null where a rank has none)}. contrib: n contributions
 * in rank order. NULL when out of memory. */
json_value *rb_fleet_slowest_rank(json_value *const *contrib, int n);

/* The fleet document of n contributions in rank order (their runs copied into it; each run's
 * environment.start names its host and rank): rb_node_build's node document of kind "fleet"
 * with rank 0's collectives, the slowest rank of each and "ranks" and "hosts" added.
 * expect: the expectation file a GPU is judged against when the fleet has fewer than 3 (NULL:
 * none). NULL with one line in err. */
json_value *rb_fleet_build(json_value **contrib, int n, const json_value *expect, char *err,
                           size_t err_size);

/* ---- the fleet file (fleet_out.c) ---- */

/* Before any GPU work: the fleet file and its Markdown twin can be written (--json FILE and
 * FILE's .md, else the results folder: no --json, or --json -). 0, or -1 with one line in err. */
int rb_fleet_check_outputs(const rb_options *o, char *err, size_t err_size);

/* Writes the fleet document and its Markdown twin, both or neither: --json FILE, else (no
 * --json, or --json -, whose document roofbench_mpi then prints once it is written)
 * <results-dir>/<hardware key>/<UTC>-<git_rev>.json, never replaced (a second fleet in the same
 * second: -2, ...). The paths said on stdout. 0, or -1 with one line in err. */
int rb_fleet_save(const rb_options *o, const json_value *fleet, const char *git_rev, char *err,
                  size_t err_size);

/* The fleet's Markdown: the node's (rb_node_markdown: its GPUs, the outliers with their
 * evidence, each GPU's table), then the fleet's ranks and hosts and the slowest rank of each
 * collective. Caller frees; NULL when out of memory. */
char *rb_fleet_markdown(const json_value *fleet);

/* The same for the terminal: the node's report (rb_node_print), then the slowest ranks. */
void rb_fleet_summary(FILE *f, const json_value *fleet);

#endif
