/* SPDX-License-Identifier: MIT */
/*
 * The text of the generated blocks (report/docs.h), rendered from a results document read once
 * (rb_results_doc, model/result_read.h): what a reader of the README, docs/ and the kernel
 * headers sees of a reference run. Each returns a string the caller frees, NULL when out of
 * memory (or, where an err is taken, with one line in it). Rates are the table's: µs per launch on a latency roof, TFLOP/s where either point is
 * compute-bound, else GB/s.
 */
#ifndef RB_DOCS_RENDER_H
#define RB_DOCS_RENDER_H

#include <regex.h>
#include <stddef.h>

#include "json.h"
#include "result_read.h"

/* One paragraph, wrapped at width: the reference file, the machine, the run, its verdicts;
 * copy_of names the committed file it is a copy of (NULL: none). */
char *rb_docs_render_run(const rb_results_doc *doc, const char *ref_path, const char *copy_of,
                         int width);

/* A Markdown table of the document's roofs: measured, datasheet, and their ratio. */
char *rb_docs_render_roofs(const rb_results_doc *doc);

/* The rows of the row groups that match re (a group's name or its pair's name). terminal 0: a
 * Markdown table; 1: the terminal table's columns, fenced as code. More than max_rows rows (0:
 * no limit), or none, is an error. */
char *rb_docs_render_rows(const rb_results_doc *doc, const regex_t *re, int terminal,
                          int max_rows, char *err, size_t err_size);

/* A kernel header's measured lines for pair (see report/docs.h), each prefix + text + newline. */
char *rb_docs_render_header(const rb_results_doc *doc, const char *ref_path, const char *pair,
                            const char *prefix, int width, int max_lines);

/* A Markdown table of the variants of an expectation document whose regression threshold
 * (max(3%, 2 x the spread of their recorded runs' medians), before a run's own interval) is above
 * shown_above, and a line counting those that would call a 10% slowdown regressed. */
char *rb_docs_render_thresholds(const json_value *expect, double shown_above);
/* The energy of the rows whose group re matches: per variant with a figure its median time,
 * joules per launch, mean power and mean SM clock over its timed samples; a variant without
 * one says why (energy_why). NULL with the reason in err when no row group matches. */
char *rb_docs_render_energy(const rb_results_doc *doc, const regex_t *re, char *err,
                            size_t err_size);

/* One line on a results file for an index: git, date, size, filter, row groups, verdicts. */
char *rb_docs_render_run_line(const rb_results_doc *doc);

/* 1 when the row group name (as results files name them: "<pair>[.<input>][@<size>]") belongs
 * to pair or matches re (re NULL: the pair alone decides). */
int rb_docs_group_matches(const char *group, const char *pair, const regex_t *re);

#endif
