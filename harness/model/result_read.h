/* SPDX-License-Identifier: MIT */
/*
 * A results file read back into the records a run prints (rb_pair_result), so that its table
 * can be printed again as `run` printed it (rb_report_table): what the docs' sample shows, and
 * the Markdown twin make docs writes beside a reference run. The derived fields are taken as the
 * file recorded them (points, roof named and declared, notes, speedups, verdicts, the kernels'
 * resources), not computed again; a file written before a field existed reads as the table of
 * its day would have shown it (no declared roof: the named one).
 */
#ifndef RB_RESULT_READ_H
#define RB_RESULT_READ_H

#include <stddef.h>

#include "json.h"
#include "result.h"

/* The row groups of doc (a results document), with their variants and kernel records, into a
 * new array (*pairs, *n; caller frees). 0, or -1 with one line in err (not a results file, a
 * variant or kernel record it cannot read). */
int rb_results_read(const json_value *doc, rb_pair_result **pairs, int *n, char *err,
                    size_t err_size);

/* One roof of a results file's "roofs", in the file's order: its kind ("memory", "compute",
 * "link", "latency"; "" when the file says none) and its values (NaN: unknown). */
typedef struct rb_results_roof {
    char key[32];
    char kind[16];
    double measured, peak;
} rb_results_roof;

/* The facts of the machine at the run's start (its "environment"), as read; a text the file
 * does not hold is NULL, a number NaN. */
typedef struct rb_results_env {
    char *device, *cc, *driver, *cuda_runtime;
    double sms, l2_bytes, power_limit_w;
} rb_results_env;

/* The platform reference a run took at its start (the quick roofs), NaN where not taken. */
typedef struct rb_results_platform {
    double dram_gbps, fp32_tflops, launch_us;
} rb_results_platform;

/* A results document read once: the run's facts, its roofs and its row groups. Texts are NULL
 * where the file holds none, numbers NaN. Everything that shows a results file reads this. */
typedef struct rb_results_doc {
    char *command, *git, *date, *size, *expectations, *hardware_key;
    double seed;
    int cold;
    rb_results_env start;
    rb_results_platform platform;
    int n_roofs;
    rb_results_roof *roofs;
    int n_pairs;
    rb_pair_result *pairs;
} rb_results_doc;

/* The run's facts of doc (any object: a run's own document before it is written, too) into d,
 * without its row groups (n_pairs 0). 0, or -1 when out of memory. */
int rb_results_meta_read(const json_value *doc, rb_results_doc *d);
/* The whole document: its facts, roofs and row groups (rb_results_read). 0, or -1 with one line
 * in err; d is then empty (freeing it is harmless). */
int rb_results_doc_read(const json_value *doc, rb_results_doc *d, char *err, size_t err_size);
void rb_results_doc_free(rb_results_doc *d);
/* The roof of that key in d; NULL when the file has none. */
const rb_results_roof *rb_results_roof_find(const rb_results_doc *d, const char *key);
/* The text a reader shows for a text the file may lack: s, else fallback. */
const char *rb_results_text(const char *s, const char *fallback);

#endif
