/* SPDX-License-Identifier: MIT */
/*
 * The stale mark of an expectation row: a row group of expectations/<hardware-key>.json whose
 * kernels changed since it was recorded, and which cannot be recorded again now (no such GPU to
 * measure on), carries
 *
 *     "stale": {"git": "<the revision that marked it>", "date": "<UTC>", "why": "<one line>"}
 *
 * Only a command writes it (roofbench expectations --mark-stale, never a hand edit), and
 * recording the row again (run --update-expectations, expectations --record) replaces the row,
 * the mark with it. A run judged against a marked row gives each of its timed variants the
 * verdict `stale`: measured, printed with the mark, never gating. The checker of committed files
 * (model/expect_check.h) accepts a mismatch of a marked row and fails an unmarked one. These
 * functions read and write documents only (no CUDA, no files).
 */
#ifndef RB_EXPECT_STALE_H
#define RB_EXPECT_STALE_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "expect_row.h"
#include "json.h"
#include "result.h"

/* The longest reason a mark keeps, in bytes: one line the table's note can hold whole. */
#define RB_STALE_WHY_MAX 240

/* The pair a row group belongs to: "hgemm.square@16M" -> "hgemm" (the name up to its first '.'
 * or '@'). */
void rb_expect_row_pair(const char *row, char *out, size_t size);

/* Is row selected by --filter f (run's rule: the row group's name or its pair's name
 * matches)? 1 or 0. */
int rb_expect_row_selected(const rb_filter *f, const char *row);

/* A reason a mark may keep: not empty, one line of printable text (no control characters), at
 * most RB_STALE_WHY_MAX bytes. 0, or -1 with why not in err. */
int rb_expect_why_ok(const char *why, char *err, size_t err_size);

/* Validates a row's "stale" (where: "pairs.<row>.stale"): an object of exactly git (a revision:
 * 4 to 40 characters of [0-9a-z-]), date ("YYYY-MM-DDTHH:MM:SSZ") and why (rb_expect_why_ok).
 * 0, or -1 with "where: what" in err. */
int rb_expect_stale_validate(const json_value *stale, const char *where, char *err,
                             size_t err_size);

/* Marks every row group of doc (a validated expectation document) that filter selects with
 * {git, date, why}, replacing a mark it had; each row marked is said on out (NULL: silent).
 * 0 with *marked (at least 1), or -1 with one line in err and doc unchanged: no filter (NULL),
 * no row matches it, why is not a reason (rb_expect_why_ok), or out of
 * memory. */
int rb_expect_mark_stale(json_value *doc, const rb_filter *filter, const char *why, const char *git,
                         const char *date, FILE *out, int *marked, char *err, size_t err_size);

/* What a stale verdict says of a variant of row group r (read from the file: its stale mark
 * and recorded), with ratio (this run's time over the recorded one, NaN: unknown): when and
 * at which revision the row was recorded, the mark, and the command that records it again. */
void rb_expect_stale_text(const rb_expect_row *r, double ratio, char *out, size_t size);

/* Says on f which marked rows of doc (the file before an update) the run pairs[0..n) records
 * again, clearing their marks. Returns how many. */
int rb_expect_say_cleared(FILE *f, const json_value *doc, const rb_pair_result *pairs, int n);

#endif
