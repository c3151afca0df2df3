/* SPDX-License-Identifier: MIT */
/*
 * A results document as the charts view it (report/plot.c places its points): every variant's
 * figures as the file holds them, with its row group's work, the document's roofs and its
 * machine. Beside model/result_read.h's rb_results_doc_read, a view reads what a record holds,
 * also one that reader refuses (a variant without its unit, a roof this build does not know):
 * a chart shows what it can. Texts are borrowed from the document (valid while it is; NULL
 * where it holds none), numbers NaN where it holds none.
 */
#ifndef RB_RESULT_VIEW_H
#define RB_RESULT_VIEW_H

#include <stddef.h>

#include "json.h"

typedef struct rb_view_variant {
    const char *name, *role, *verdict, *note, *host_bound_why, *rate_unit;
    const char *roof;          /* the roof it is named by */
    const char *declared_roof; /* the roof it declared, where the file says one */
    int has_declared_roof;     /* the record holds a declared_roof (of any type) */
    const char *roof_note;
    const char *bound; /* of its point against the measured roofs: "memory", "compute" */
    int timed, valid, informational, inconsistent;
    double rate, median_ms, noise, speedup;
    double ai, gbps, tflops, efficiency; /* its point against the measured roofs */
    double peak_efficiency;              /* against the datasheet peaks */
    double gflop_per_j, gb_per_j;
    /* its extras: the figure its roof_rate names (else us_per_kernel, as older files did),
     * us_per_kernel, size_bytes, gpus and busbw_gbps (has_busbw: the record holds one) */
    double roof_rate_value, us_per_kernel, size_bytes, gpus, busbw_gbps;
    int has_busbw;
} rb_view_variant;

/* A row group; its variants are read one group at a time (rb_results_view_variants), so that a
 * view of a large document holds little beside it. */
typedef struct rb_view_pair {
    const char *name;
    double flops, bytes;
    int link_bytes; /* its bytes cross a link, not DRAM */
    int n_variants;
} rb_view_pair;

typedef struct rb_view_roof {
    const char *key, *kind; /* kind: "compute", "latency", "bandwidth", ...; NULL: none */
    double measured, peak;
} rb_view_roof;

typedef struct rb_results_view {
    const char *device, *driver, *cuda_runtime, *date, *git;
    int have_roofs; /* the document holds "roofs" */
    int n_roofs, n_pairs;
    rb_view_roof *roofs;
    rb_view_pair *pairs;
    const json_value *p2p_matrix; /* report/p2p_table.h shows it; NULL: none */
    const json_value *records;    /* (the reader's: the document's row groups) */
} rb_results_view;

/* doc into v. 0, or -1 with one line in err: not a results document (no pairs array, a pair
 * record without a name or variants, a variant without a name, roofs not an object of
 * objects), out of memory; v is then empty. */
int rb_results_view_read(const json_value *doc, rb_results_view *v, char *err, size_t err_size);
void rb_results_view_free(rb_results_view *v);
/* The variants of row group i of v into out[0..v->pairs[i].n_variants). */
void rb_results_view_variants(const rb_results_view *v, int i, rb_view_variant *out);

#endif
