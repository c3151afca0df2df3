/* SPDX-License-Identifier: MIT */
/*
 * An expectation file recorded as a model, not as one card: the results files of several full
 * runs, on one machine or several of the same GPU model (roofbench expectations --record
 * RUN.json ...), merged as run --update-expectations merges its repeats (rb_expect_update_runs,
 * the same code): per variant every run's median (run_medians), their median and their spread
 * over all the runs, so that a row's threshold includes the spread between machines as well as
 * within one; per row its kernels, library algorithms, the platform reference and wall time.
 * The file's provenance, and each row's recorded (a copy of it), say how many machines and runs
 * and name the GPUs' UUIDs.
 *
 * Refused, with one line naming the file: a run of another hardware key, runs of different
 * revisions, sizes or builds (architecture, nvcc release), a run whose environment names no GPU
 * UUID, a row that failed or has an invalid variant in a run, a row whose kernels differ between
 * the runs (code fingerprint or launch geometry), a run that shared its GPU (contended: a
 * process not its own on the GPU while it measured, model/contention.h), and a variant timed in
 * fewer than RB_EXPECT_MIN_RUNS of the runs. Documents only: no files, no CUDA.
 */
#ifndef RB_EXPECT_RECORD_H
#define RB_EXPECT_RECORD_H

#include <stddef.h>

#include "cli.h"
#include "json.h"
#include "result.h"

/* One results file to record from: its path (named in every refusal) and its document
 * (rb_results_doc_check passed). */
typedef struct rb_record_run {
    const char *path;
    const json_value *doc;
} rb_record_run;

/* What a recording says of itself, added to a provenance object (and so to each row's recorded,
 * a copy of it): nvcc and arch, the build that compiled the kernels ("13.0", "sm_90"; NULL or
 * "": left out), machines (distinct GPUs), runs, and gpus (their UUIDs, n_gpus of them). 0, or
 * -1 when out of memory. */
int rb_expect_provenance_add(json_value *prov, const char *nvcc, const char *arch, int machines,
                             int runs, const char *const *gpus, int n_gpus);

/* Merges runs[0..n) (1 to RB_EXPECT_MAX_REPEAT) into *doc (the expectation file as it is now,
 * validated; NULL: a new one, with the runs' hardware and the datasheet peaks of their key).
 * Rows the runs do not hold keep what they had. 0 with the rows recorded in *rows (*n_rows of
 * them, the last run's record of each; the caller frees it), or -1 with one line in err and
 * *doc unchanged. */
int rb_expect_record_runs(json_value **doc, const rb_record_run *runs, int n, rb_pair_result **rows,
                          int *n_rows, char *err, size_t err_size);
/* rb_expect_record_runs of the rows only selects (the row or its pair's name matches, as
 * --mark-stale's --filter; NULL: every row): a recording of one pair leaves the others as they
 * were recorded. -1 too when no row of the runs matches. */
int rb_expect_record_select(json_value **doc, const rb_record_run *runs, int n,
                            const rb_filter *only, rb_pair_result **rows, int *n_rows, char *err,
                            size_t err_size);

#endif
