/* SPDX-License-Identifier: MIT */
/*
 * The one reader of results documents (the JSON a `roofbench run` writes). Each key of such a
 * file is read here, once, into its record's view (rb_view_*: texts borrowed from the document,
 * NULL where it holds none; numbers NaN where it holds none; nothing refused). The three ways
 * the harness reads a results file are built from those views (beside them, the run's table
 * takes each variant and kernel record as model/result.c reads what a child sends):
 *
 *   - the charts' view (rb_results_view): the views themselves, a row group's variants read one
 *     group at a time, so that a view of a large document holds little beside it
 *     (report/plot.c);
 *   - the run's table (rb_results_doc, rb_results_read): the records a run prints
 *     (rb_pair_result) read back, so that its table can be printed again as `run` printed it
 *     (rb_report_table), the docs' samples and the Markdown twin of a reference run;
 *   - compare and history (rb_results_cmp_doc): a lean typed view for tens of thousands of rows
 *     of several documents (model/runcmp.h, model/history.h).
 */
#ifndef RB_RESULT_READ_H
#define RB_RESULT_READ_H

#include <stddef.h>

#include "arena.h"
#include "json.h"
#include "name_index.h"
#include "result.h"

/* ---- the records' views ---- */

/* The platform reference a run took at its start (the quick roofs), NaN where not taken. */
typedef struct rb_results_platform {
    double dram_gbps, fp32_tflops, launch_us;
} rb_results_platform;

/* The run's facts: its top level and the machine at its start (environment.start); the
 * document's objects that a reader takes whole are borrowed as they are (NULL: none). */
typedef struct rb_view_run {
    const char *command, *git, *date, *size, *expectations, *hardware_key;
    double seed;
    int cold;
    const char *device, *cc, *driver, *cuda_runtime; /* of environment.start */
    double sms, l2_bytes, power_limit_w;
    rb_results_platform platform;
    const json_value *environment, *start, *platform_record, *roofs, *contention, *p2p_matrix;
} rb_view_run;

/* One roof of the file's "roofs", in the file's order: its kind ("compute", "latency",
 * "bandwidth"; NULL: none) and its values. */
typedef struct rb_view_roof {
    const char *key, *kind;
    double measured, peak;
} rb_view_roof;

/* A variant's point against the measured roofs (vs_ceiling) or the datasheet peaks (vs_peak). */
typedef struct rb_view_point {
    int held;          /* the record holds this point */
    const char *bound; /* "memory", "compute" */
    const char *roof;  /* the roof that binds it */
    double ai, gbps, tflops, floor_ms, efficiency;
} rb_view_point;

/* A variant record: what the charts, the run's table and compare read of it. */
typedef struct rb_view_variant {
    const char *name, *role, *verdict, *note, *host_bound_why, *rate_unit;
    const char *roof;          /* the roof it is named by */
    const char *declared_roof; /* the roof it declared, where the file says one */
    int has_declared_roof;     /* the record holds a declared_roof (of any type) */
    const char *roof_note, *cause, *evidence;
    int timed, valid, informational, inconsistent, throttled, contended, per_clock;
    double rate, speedup, expected_ms, threshold, sm_clock_mhz;
    /* time_ms: its median, noise and the median's interval; samples: the sample times (an
     * array) or their count (a number), as the file holds it */
    double median_ms, noise, ci_lo, ci_hi;
    const json_value *samples;
    rb_view_point ceiling, peak; /* vs_ceiling, vs_peak */
    /* clocks: the mean SM clock, the readings taken (has_clock_readings: the record holds a
     * count, of any type) and the clock-event reasons (an array of names) */
    double sm_mhz_mean, clock_readings;
    int has_clock_readings;
    const json_value *clock_reasons;
    double joules_per_launch, gflop_per_j, gb_per_j; /* energy */
    /* its extras: the figure its roof_rate names (else us_per_kernel, as older files did),
     * us_per_kernel, size_bytes, gpus and busbw_gbps (has_busbw: the record holds one) */
    double roof_rate_value, us_per_kernel, size_bytes, gpus, busbw_gbps;
    int has_busbw;
    const json_value *library_algo; /* NULL: none */
} rb_view_variant;

/* A row group (pair record): its work, and its variants and kernels as the arrays the file
 * holds (NULL: not an array). */
typedef struct rb_view_pair {
    const char *name;
    double size, flops, bytes;
    int link_bytes; /* its bytes cross a link, not DRAM */
    int n_variants;
    const json_value *variants, *kernels;
} rb_view_pair;

/* 1 when doc is an object whose row groups are an array (a results file to compare or show). */
int rb_results_has_pairs(const json_value *doc);
/* The text a reader shows for a text the file may lack: s, else fallback. */
const char *rb_results_text(const char *s, const char *fallback);

/* ---- the charts' view (report/plot.c places its points) ----
 * Every variant's figures as the file holds them, with its row group's work, the document's
 * roofs and its machine. Beside rb_results_doc_read, a view reads what a record holds, also one
 * that reader refuses (a variant without its unit, a roof this build does not know): a chart
 * shows what it can. Valid while the document is. */

typedef struct rb_results_view {
    rb_view_run run;
    int have_roofs; /* the document holds "roofs" */
    int n_roofs, n_pairs;
    rb_view_roof *roofs;
    rb_view_pair *pairs;
} rb_results_view;

/* doc into v. 0, or -1 with one line in err: not a results document (no pairs array, a pair
 * record without a name or variants, a variant without a name, roofs not an object of
 * objects), out of memory; v is then empty. */
int rb_results_view_read(const json_value *doc, rb_results_view *v, char *err, size_t err_size);
void rb_results_view_free(rb_results_view *v);
/* The variants of row group i of v into out[0..v->pairs[i].n_variants). */
void rb_results_view_variants(const rb_results_view *v, int i, rb_view_variant *out);

/* ---- the run's table: the records a run prints, read back ----
 * The derived fields are taken as the file recorded them (points, roof named and declared,
 * notes, speedups, verdicts, the kernels' resources), not computed again; a file written before
 * a field existed reads as the table of its day would have shown it (no declared roof: the
 * named one). */

/* The row groups of doc (a results document), with their variants and kernel records, into a
 * new array (*pairs, *n; caller frees). 0, or -1 with one line in err (not a results file, a
 * variant or kernel record it cannot read). */
int rb_results_read(const json_value *doc, rb_pair_result **pairs, int *n, char *err,
                    size_t err_size);

/* One roof of a results file's "roofs", in the file's order: its kind (rb_view_roof's; "" when
 * the file says none) and its values (NaN: unknown). */
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

/* A results document read once: the run's facts, its roofs and its row groups. Texts are NULL
 * where the file holds none, numbers NaN. */
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

/* ---- a results document as compare and history judge it (model/runcmp.h) ----
 * Lean, for tens of thousands of rows of several documents: texts are the document's pool's
 * (valid until rb_results_cmp_free), NULL where the file holds none; numbers NaN where absent. */

/* A kernel's recorded resources and launch geometry, by rb_results_kernel_field(i)'s key. */
#define RB_RESULTS_KERNEL_FIELDS 7
const char *rb_results_kernel_field(int i);

typedef struct rb_results_cmp_kernel {
    const char *name, *variant, *sass_hash;
    double field[RB_RESULTS_KERNEL_FIELDS];
} rb_results_cmp_kernel;

typedef struct rb_results_cmp_variant {
    const char *name;          /* first: rb_results_cmp_pair's too */
    const char *roof;          /* "" when none */
    const char *library_algo;  /* its JSON text (json_write, indent 0); NULL when none */
    const char *reasons;       /* clocks.reasons joined by ","; "" when none */
    const char *contended_by;  /* who (rb_contention_text) of a contended variant, else NULL */
    /* the median and its 95% interval: from the sample times when time_ms holds them, else
     * as recorded; recorded_median is time_ms.median as the file says */
    double median, ci_lo, ci_hi, noise, recorded_median;
    int n_samples; /* of time_ms.samples; -1 when it holds no such array */
    double sm_mhz_mean, clock_readings; /* clocks.sm_mhz_mean and .samples */
    int has_clock_readings;             /* clocks.samples present (a number or not) */
    double sm_clock_mhz, joules_per_launch, efficiency; /* efficiency: vs_ceiling's */
    unsigned valid : 1, timed : 1, throttled : 1, contended : 1;
    unsigned informational : 1; /* "informational", or a host_bound_why said */
} rb_results_cmp_variant;

typedef struct rb_results_cmp_pair {
    const char *name;
    double size;
    int n_variants, n_kernels;
    rb_results_cmp_variant *v;
    rb_results_cmp_kernel *kernels;
} rb_results_cmp_pair;

/* A number of the file found by key ("platform" and "roofs"), with its measured noise. */
typedef struct rb_results_cmp_value {
    const char *key;
    double value, noise;
} rb_results_cmp_value;

/* A fact of the run for the environment diff (its top-level facts, environment.start flattened,
 * platform, contention), each key once, its value as shown (strings bare, a library version as
 * a version, another number to 5 digits, anything else as JSON). */
/* (text NULL: the file holds the key without a value) */
typedef struct rb_results_cmp_fact {
    const char *key, *text;
} rb_results_cmp_fact;

typedef struct rb_results_cmp_doc {
    const char *git, *date;
    int cold;
    int has_platform, platform_none; /* a "platform" object; its source "none" */
    int n_platform, n_roofs, n_facts, facts_cap, n_pairs;
    rb_results_cmp_value *platform, *roofs;
    rb_results_cmp_fact *facts;
    rb_name_index facts_ix;
    rb_results_cmp_pair *pairs;
    rb_strpool pool;
    rb_arena arena;
} rb_results_cmp_doc;

/* doc's facts, platform reference, roofs and row groups into d (zeroed first). 0, or -1 with
 * one line in err (not a results file, out of memory); d is then empty. */
int rb_results_cmp_read(const json_value *doc, rb_results_cmp_doc *d, char *err, size_t err_size);
void rb_results_cmp_free(rb_results_cmp_doc *d);
/* One variant record, one array of kernel records (into *out, *n, from d's arena) and a
 * platform reference object into d: what an expectation file's row keeps in the results' shape
 * (model/expect.c reads its rows with them). 0, or -1 when out of memory. */
int rb_results_cmp_variant_read(const json_value *o, rb_results_cmp_variant *v,
                                rb_results_cmp_doc *d);
int rb_results_cmp_kernels_read(const json_value *ks, rb_results_cmp_kernel **out, int *n,
                                rb_results_cmp_doc *d);
int rb_results_cmp_platform_read(const json_value *platform, rb_results_cmp_doc *d);
/* The entry of key in vals[0..n); NULL when none. */
const rb_results_cmp_value *rb_results_cmp_value_of(const rb_results_cmp_value *vals, int n,
                                                    const char *key);

#endif
