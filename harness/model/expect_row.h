/* SPDX-License-Identifier: MIT */
/*
 * A row group of an expectation file (model/expect.h), read: what the checker of committed files
 * (expect_check.c), the stale mark's commands (expect_stale.c) and the attribution of a verdict
 * (runcmp.c) read of it. Texts point into the document (valid while it is); NULL where the row
 * holds none.
 */
#ifndef RB_EXPECT_ROW_H
#define RB_EXPECT_ROW_H

#include "json.h"
#include "result_read.h"

typedef struct rb_expect_row_kernel {
    const char *variant, *name, *sass_hash;
    double block_threads, dyn_smem; /* NaN when not recorded */
} rb_expect_row_kernel;

typedef struct rb_expect_row {
    const char *name;
    /* recorded.nvcc, .arch, .cuda, .git, .date; has_nvcc: nvcc held (rows recorded from then on
     * name their skipped variants) */
    const char *nvcc, *arch, *cuda, *git, *date;
    int has_nvcc;
    /* its stale mark (model/expect_stale.h) */
    int stale;
    const char *stale_git, *stale_date, *stale_why;
    int n_variants, n_skipped, n_kernels;
    const char **variants, **skipped; /* the names of its variants, and of those it skipped */
    rb_expect_row_kernel *kernels;
} rb_expect_row;

/* The number of row groups of a validated document, and row i of them into r. 0, or -1 when out
 * of memory (r is then empty). */
int rb_expect_n_rows(const json_value *doc);
int rb_expect_row_read(const json_value *doc, int i, rb_expect_row *r);
/* The row of entry (its object) named name into r. 0, or -1 when out of memory. */
int rb_expect_row_of(const json_value *entry, const char *name, rb_expect_row *r);
/* The row named name into r: 1, 0 when the document has none (r empty), -1 out of memory. */
int rb_expect_row_find(const json_value *doc, const char *name, rb_expect_row *r);
void rb_expect_row_free(rb_expect_row *r);
/* 1 when r holds the variant (rb_expect_row_skips: names it skipped). */
int rb_expect_row_holds(const rb_expect_row *r, const char *variant);
int rb_expect_row_skips(const rb_expect_row *r, const char *variant);
/* The row groups object of a document, for a command that marks rows (expect_stale.c). */
json_value *rb_expect_rows_object(json_value *doc);
/* The hardware.sm of a document ("9.0"; "" when none). */
const char *rb_expect_sm(const json_value *doc);

/* Row `row` of a validated document in the results' shape, for the attribution of a verdict
 * (model/runcmp.h): its platform reference into d (an empty, zeroed document: freed by the
 * caller) and its kernels and variants into p. 0 (nothing read when the file has no such row),
 * or -1 when out of memory. */
int rb_expect_row_as_results(const json_value *doc, const char *row, rb_results_cmp_doc *d,
                             rb_results_cmp_pair *p);

#endif
