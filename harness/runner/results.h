/* SPDX-License-Identifier: MIT */
/*
 * A run's results, the same whichever driver ran the pairs (roofbench forks a child per pair;
 * roofbench_mpi runs each pair in every rank's own process): the JSON records that child.c
 * reports are collected into rb_pair_result here, and the results file (rb_report_json) and its
 * Markdown twin are written from them, with the run's facts in the document's meta.
 */
#ifndef RB_RESULTS_H
#define RB_RESULTS_H

#include <stdio.h>

#include "child.h"
#include "model/cli.h"
#include "model/expect.h"
#include "model/json.h"
#include "model/outputs.h"
#include "model/result.h"
#include "jobs.h"

/* Clears r and names it after job j (name, pattern, size, shape, the pair's full size). */
void rb_results_begin(rb_pair_result *r, const rb_job *j);

/* The variants of job j that check --skip-variants leaves out: bit k for variant k, whose
 * "<row>/<variant>" or "<pair>/<variant>" matches the regex (0: none, or no option). */
unsigned rb_results_skip_mask(const rb_job *j, const rb_options *o);

/* What child.c runs for job j under the options o (sizes, seed, timing). */
void rb_results_child_opts(const rb_job *j, const rb_options *o, rb_child_opts *out);

/* Adds one record of child.c's (see child.h) to r, printing progress as variants finish. */
void rb_results_line(rb_pair_result *r, const json_value *line);

/* The command line, its arguments joined by spaces (cut to size). */
void rb_results_command(int argc, char **argv, char *buf, size_t size);

/* The document's facts: schema, tool, date, git, command line, seed, size, cold, hardware key,
 * expectation file (NULL: none) and the environment at the start (env, copied). NULL when out
 * of memory. */
json_value *rb_results_meta(const char *tool, const rb_options *o, int argc, char **argv,
                            const json_value *env, const char *expect_path);

/* Registers in outs every file the run will write and checks them all, against each other and
 * the inputs outs holds (before any GPU work): the results file and its four siblings (.md,
 * .svg, -speedup.svg, .html) at --json FILE, or under the default name of hardware_key, the
 * longest one a run may take (NULL, before the GPU is known: only the results folder is
 * checked; --json - names the default file); the CSV (--csv FILE); the expectation file at expect_path (NULL: not written). outs is
 * left holding what it held. 0, or -1 with one line in err. */
int rb_results_check_outputs(const rb_options *o, const char *hardware_key, const char *expect_path,
                             rb_outputs *outs, char *err, size_t err_size);

/* Writes doc (rb_report_json), its Markdown twin, its charts and report, and the CSV (--csv
 * FILE), together with what outs holds staged already (the expectation file): all or none. The
 * results go to --json FILE, which is replaced, or (no --json, or --json -) to
 * <results-dir>/<hardware key>/<UTC>-<git>.json, which never is (a second run in the same
 * second writes <UTC>-<git>-2.json), making the folders. 0, or -1 with the line printed. */
int rb_results_save(const rb_options *o, const char *hardware_key, const json_value *doc,
                    const rb_pair_result *results, int n, rb_outputs *outs);

/* run --json - and --csv -: the results document (doc, as rb_results_save wrote it) or the CSV
 * onto f, the standard output kept for it (cmd.h, rb_cmd_document), once the files are written;
 * nothing for a run that names no such output. 0, or -1 when out of memory (said). A write that
 * fails on f is f's error, for its caller to say. */
int rb_results_print(const rb_options *o, const json_value *doc, const rb_pair_result *results,
                     int n, FILE *f);

/* Places every variant on the roofline (rb_report_derive): against the expectation file's
 * ceilings and peaks, or without one (e NULL) against the datasheet peaks of the hardware key.
 * The roofs used go to *ceilings and *peaks (for the results file's "roofs"). */
void rb_results_derive(const rb_expect *e, const char *hardware_key, rb_pair_result *results,
                       int n, rb_roofs *ceilings, rb_roofs *peaks);

#endif
