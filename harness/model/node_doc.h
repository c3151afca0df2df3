/* SPDX-License-Identifier: MIT */
/*
 * The node and fleet documents (model/node.h and model/fleet.h say what they hold) read into
 * typed structs: with model/result_read.h, the one place that knows their keys. Also a GPU's run
 * as the node's outliers read it, a rank's fleet contribution, and the fleet's own records that
 * share the results' keys (a rank's times, the slowest rank), written here for that reason.
 *
 * Texts are borrowed from the document read (valid while it is; NULL where it holds none),
 * numbers are NaN where it holds none.
 */
#ifndef RB_NODE_DOC_H
#define RB_NODE_DOC_H

#include <stddef.h>

#include "json.h"
#include "result_read.h"

/* The version of the node and fleet documents this build reads (a run's "schema"). */
#define RB_NODE_SCHEMA 1

/* A variant of a GPU's run as a node reads it: a node judges what a record holds, also one the
 * results reader would refuse (without a role or unit). Texts "" where none, roof NULL. */
typedef struct rb_node_var {
    const char *name, *roof, *host_bound_why, *verdict;
    int valid, timed, skipped, informational;
    rb_stats time_ms; /* its median, noise, ci_lo and ci_hi */
    double expected_ms, threshold, sm_mhz_mean;
    unsigned reasons; /* the clock-event reasons during its samples (model/clocks.h's bits) */
} rb_node_var;

/* A row group (pair record) of a GPU's run, its variants in order. */
typedef struct rb_node_group {
    const char *name;
    int n_variants;
    rb_node_var *v;
} rb_node_group;

/* One GPU's run as a node reads it: the run's facts, who the GPU is and how it stood. */
typedef struct rb_node_member {
    const char *hardware_key, *date, *git;
    double schema;
    const char *host, *uuid, *pci_bus_id; /* of environment.start */
    double rank, device_index;            /* rank: NaN when not under MPI */
    double ecc, power_limit_w;            /* ecc: 1 on, 0 off */
    double pcie_gen[2], pcie_width[2];    /* at the run's start and end */
    unsigned reasons[2];                  /* NVML's clock-event reasons then (model/clocks.h) */
    double temperature_c[2];
    int platform_measured;              /* its platform reference was taken (source not "none") */
    rb_results_platform platform;       /* as the run holds it, also when not measured */
    rb_results_platform platform_noise; /* the noise of each platform figure */
    int n_groups;
    rb_node_group *groups;
} rb_node_member;

/* A run document into m. 0, or -1 when out of memory (m is then empty). */
int rb_node_member_read(const json_value *run, rb_node_member *m);
void rb_node_member_free(rb_node_member *m);

/* One of a node's outliers (model/node.h). */
typedef struct rb_node_outlier {
    const char *host, *uuid, *row, *variant, *roof, *reference_kind, *attribution, *evidence;
    double device_index, value, reference, ratio, threshold;
    int informational;
} rb_node_outlier;

typedef struct rb_node_gpu {
    const char *host, *uuid, *pci_bus_id;
    double device_index;
    rb_node_member run;
    const json_value *run_doc; /* its run document (rb_results_doc_read reads it whole) */
} rb_node_gpu;

/* A fleet's slowest rank of one collective variant; ranks_ms[0..n_ranks): every rank's own
 * time, NaN where it has none. */
typedef struct rb_fleet_slowest {
    const char *pair, *row, *variant, *host;
    double rank, time_ms;
    int n_ranks;
    double *ranks_ms;
} rb_fleet_slowest;

typedef struct rb_node_doc {
    const char *kind, *hardware_key, *date, *git;
    int gate_all; /* its "gate" is "all" */
    int n_gpus, n_outliers, n_slowest;
    rb_node_gpu *gpus;
    rb_node_outlier *outliers;
    const json_value *p2p_matrix; /* report/p2p_table.h shows it; NULL: none */
    double ranks, hosts;          /* a fleet's */
    rb_fleet_slowest *slowest;    /* a fleet's */
} rb_node_doc;

/* Whether doc is a node or fleet document ("kind" node or fleet, a "gpus" array). */
int rb_node_is_document(const json_value *doc);
/* A node or fleet document into d. 0, or -1 with one line in err (not such a document, another
 * schema, out of memory; d is then empty). */
int rb_node_doc_read(const json_value *doc, rb_node_doc *d, char *err, size_t err_size);
void rb_node_doc_free(rb_node_doc *d);
/* The number of outliers of a node document that count (not informational, or its gate is
 * "all"): what sets the exit code; and the number of its host-bound ones that do not. */
int rb_node_outlier_count(const json_value *node);
int rb_node_host_bound_count(const json_value *node);
/* Whether an outlier counts: not informational, or the node's gate is "all". */
int rb_node_doc_gates(const rb_node_doc *d, const rb_node_outlier *o);
/* The number of d's outliers that count (gating != 0) or that do not. */
int rb_node_doc_count(const rb_node_doc *d, int gating);

/* The run of GPU gpu (gpus[gpu].run) of node document node, as a run document of its own (plot
 * and compare --gpu N read it): a copy, with the node's collectives added to its pairs and the
 * node's p2p_matrix (the HTML report shows its tables). Caller frees; NULL with one line in err:
 * gpu -1 (none named: the line says how to name one), no such GPU, out of memory. */
json_value *rb_node_gpu_run(const json_value *node, int gpu, char *err, size_t err_size);

/* ---- a rank's fleet contribution (model/fleet.h) ---- */

/* A variant of a collective and a rank's own median time of it (NaN: none). */
typedef struct rb_fleet_time {
    const char *row, *variant;
    double time_ms;
} rb_fleet_time;

typedef struct rb_fleet_contrib {
    double rank;
    const char *host; /* its run's environment.start.host */
    int n_cells, n_own;
    rb_fleet_time *cells;    /* its collectives' variants in order (time_ms NaN) */
    rb_fleet_time *own;      /* its own times of them */
    const json_value *run;   /* its run document, passed on whole; NULL: none */
    const json_value *pairs; /* its collectives' pair records, passed on whole; NULL: none */
} rb_fleet_contrib;

/* 0, or -1 when out of memory (c is then empty). */
int rb_fleet_contrib_read(const json_value *contribution, rb_fleet_contrib *c);
void rb_fleet_contrib_free(rb_fleet_contrib *c);
/* A rank's own time of a collective variant, {"row", "variant", "time_ms"}; NULL: out of
 * memory. */
json_value *rb_fleet_time_json(const char *row, const char *variant, double time_ms);
/* A slowest_rank entry (fleet.h); NULL: out of memory. */
json_value *rb_fleet_slowest_json(const rb_fleet_slowest *s);
/* Moves the pair records of run whose pair is_collective() names into collectives (an array),
 * each variant's median into own (rb_fleet_time_json's). 0; -2 when run has no "pairs"; -1 out
 * of memory. */
int rb_fleet_split_run(json_value *run, int (*is_collective)(const char *pair),
                       json_value *collectives, json_value *own);

#endif
