/* SPDX-License-Identifier: MIT */
/*
 * roofbench expectations: the expectation files, without a GPU.
 *
 *   --mark-stale --filter REGEX --why TEXT (--expect FILE | --key KEY)
 *       marks the rows the filter selects stale (model/expect_stale.h), with this build's
 *       revision and the date, under the file's lock, written atomically;
 *   --record RUN.json ... [--expect FILE]
 *       merges the results of several full runs into the file (model/expect_record.h; default
 *       expectations/<the runs' hardware key>.json) and prints the sensitivity table;
 *   --check [FILE ...]
 *       compares every row of the files (default: every .json file in expectations/) with
 *       this build
 *       (model/expect_check.h): its rows, variants, kernel tables and fingerprints.
 *
 * Exit 0; 1 when --check finds a row that differs unmarked; 2 when nothing was written (a usage
 * or input error, one line on stderr).
 */
#ifndef RB_EXPECT_CMD_H
#define RB_EXPECT_CMD_H

#include <stdio.h>

#include "model/cli.h"
#include "model/expect_check.h"

/* The command. Returns its exit code. */
int rb_expect_cmd(const rb_options *o);

/* This build as the checker sees it: every row group a full run on `gpus` GPUs takes, with the
 * variants it times there and its pair's kernel table with the build's fingerprints. b->rows is
 * malloc'd (free it). 0, or -1 (the reason said on stderr, or out of memory). */
int rb_expect_build(int gpus, rb_build *b);

/* The GPUs the expectation file at path is for: N of a name ending in -xN.json, else 1. */
int rb_expect_file_gpus(const char *path);

/* --check of paths[0..n) (n = 0: every .json file in expectations/), lines on out, errors on
 * err_out. 0 when
 * every row matches or is marked stale, 1 when one differs unmarked, 2 when a file cannot be
 * read or the build has no fingerprints to compare with. */
int rb_expect_check_files(const char *const *paths, int n, FILE *out, FILE *err_out);

#endif
