/* SPDX-License-Identifier: MIT */
/* What every command shares (cmd.c): the exit codes, the usage error, the standard output. */
#ifndef RB_CMD_H
#define RB_CMD_H

#include "model/cli.h"
#include "model/floors.h"
#include "model/json.h"
#include "model/outputs.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_NO_GPU = 3 };

/* One line on stderr, "roofbench: MSG" (shown, not obeyed: msg quotes paths and names); returns
 * EXIT_USAGE. */
int rb_cmd_usage_error(const char *msg);

/* The outputs staged by a command that also prints a report (plot, compare, history) are renamed
 * into place only once the report is out: a standard output that cannot be written (a full
 * disk, a closed descriptor, a pipe closed early) is exit 2 with no file written. 0, or the exit
 * code. */
int rb_cmd_commit_after_stdout(rb_outputs *outs, int have_outputs);

/* After SIGINT, SIGTERM or another caught signal (the runner ended the running child): one line,
 * exit 128 + signal. Said once, however many callers return it. */
int rb_cmd_interrupted_exit(void);

int rb_cmd_file_exists(const char *path);

/* A results file, parsed and checked to be one; a node or fleet document gives the run of its
 * GPU gpu (--gpu N; -1: none named, refused), *node_read set. NULL with the line printed. */
json_value *rb_cmd_load_results_of(const char *path, int gpu, int *node_read);
json_value *rb_cmd_load_results(const char *path);

/* --gpu N given where no input is a node document is refused. 0, or the exit code. */
int rb_cmd_node_gpu_used(const rb_options *o, int node_read);

/* A warning when the expectation file was recorded on another GPU than the run named which. */
void rb_cmd_warn_other_gpu(const json_value *expect, const char *path, const json_value *run,
                           const char *which);

/* The floors of runs whose hardware keys are keys[0..n) (model/floors.h). 0, or the exit code
 * with the line said. */
int rb_cmd_resolve_floors(const rb_options *o, const char *const *keys, int n, rb_floors *f);

/* A standard output that could not be written is an error, exit 2 (not 0 or 1). */
int rb_cmd_stdout_checked(int rc);

/* A descriptor 0, 1 or 2 that is closed at the start is opened on /dev/null (so no file the
 * process opens takes its number); a closed standard output is remembered. */
void rb_cmd_hold_standard_descriptors(void);

/* A command whose one output is the standard output (--json -, --csv -, --html -:
 * rb_cli_writes_stdout): descriptor 1 is kept for that document, and descriptor 1 itself made
 * the standard error's, so that everything printed for a person (tables, progress, the lines of
 * its children, "wrote" lines) goes there and the standard output holds the document alone.
 * Called once, by main, before anything is printed. 0, or EXIT_USAGE with the line said. */
int rb_cmd_stdout_for_document(void);
/* Where the document goes: the standard output kept by rb_cmd_stdout_for_document (stdout when
 * it was not called). A write that fails there is said by rb_cmd_stdout_checked. */
FILE *rb_cmd_document(void);
/* json onto the document stream (rb_cmd_document), written as it is made. */
void rb_cmd_print_json_document(const json_value *json);

/* A command that writes files: body with an output set of its own. */
int rb_cmd_with_outputs(const rb_options *o, int through_links,
                        int (*body)(const rb_options *o, rb_outputs *outs));

#endif
