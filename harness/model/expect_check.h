/* SPDX-License-Identifier: MIT */
/*
 * Does a committed expectation file describe this build? Every row (row group) of the file is
 * compared with what this build would time at that row in a full run:
 *
 *   - its kernel records, by variant and name, with the build's kernel tables and codegen
 *     fingerprints: sass_hash, block_threads and dyn_smem_bytes (a grid is known only on a GPU:
 *     run and compare count it, model/runcmp.c);
 *   - its variants with the variants the pair times there (rb_pair_swept_skips: one a full run
 *     skips at that size is not expected). A variant the build times that the row lacks is a
 *     difference for a row recorded with its skipped variants (recorded.nvcc present: rows
 *     recorded from then on say which were skipped and why, "skipped"); an older row did not
 *     say, and then it is a note, not a difference (a run judges that variant `new`).
 *
 * Only rows recorded with this build's nvcc release and architecture are compared: another
 * toolkit recompiles every kernel. A row's are recorded.nvcc and recorded.arch; for a row
 * recorded before they were kept, recorded.cuda (the CUDA of the recording machine, which was
 * also its nvcc release there) and the file's hardware.sm ("9.0": "sm_90").
 *
 * A row that differs fails the check unless it is marked stale (model/expect_stale.h); a stale
 * row's differences are printed as such. No CUDA: the build is described by plain data, which
 * the runner fills from the registry and the fingerprint table (runner/expect_cmd.c).
 */
#ifndef RB_EXPECT_CHECK_H
#define RB_EXPECT_CHECK_H

#include <stdio.h>

#include "expect_row.h"
#include "json.h"
#include "result.h"

/* A kernel of the build: its table entry and fingerprint. */
typedef struct rb_build_kernel {
    char variant[RB_NAME_MAX];
    char name[96];
    char sass_hash[17]; /* "": no fingerprint in the build's table */
    int block_threads;
    double dyn_smem;
} rb_build_kernel;

/* A row group a full run of this build takes, with what it times there. */
typedef struct rb_build_row {
    char name[RB_NAME_MAX];
    int n_variants;
    char variants[RB_MAX_VARIANTS][RB_NAME_MAX];
    int n_kernels;
    rb_build_kernel kernels[RB_MAX_KERNELS];
} rb_build_row;

typedef struct rb_build {
    const char *nvcc; /* the release that compiled the kernels, "13.0" */
    const char *arch; /* "sm_90" */
    int n_rows;
    const rb_build_row *rows;
    /* pairs this build left out, "<pair>: why" (NULL-terminated; NULL: none): their rows are
     * not compared, and said so */
    const char *const *missing;
} rb_build;

/* What the check found in one file. */
typedef struct rb_check_counts {
    int rows;       /* of the file */
    int matched;    /* compared, no difference */
    int differ;     /* compared, differ, not marked: the failures */
    int stale;      /* marked stale (whether they differ or not) */
    int other;      /* not compared: recorded with another nvcc release or architecture, or
                       of a pair this build left out */
    int build_only; /* rows of the build the file does not hold (a run judges them new) */
} rb_check_counts;

/* The nvcc release and architecture row r of doc was recorded with (see above), into
 * nvcc and arch ("" when the file does not say). */
void rb_expect_row_build(const json_value *doc, const rb_expect_row *r, char *nvcc,
                         size_t nvcc_size, char *arch, size_t arch_size);

/* Checks every row of doc (a validated expectation file; path names it in each line) against
 * b, a line on out per difference, note and row not compared, then one summary line. Returns
 * c->differ: the rows that fail. */
int rb_expect_check_doc(const json_value *doc, const char *path, const rb_build *b, FILE *out,
                        rb_check_counts *c);

#endif
