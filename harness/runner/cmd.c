/* SPDX-License-Identifier: MIT */
/* What every command shares: the exit codes, the one-line usage error, the standard output
 * checked before outputs are renamed into place, the interrupted exit, results files read. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "env.h"
#include "model/node.h"
#include "model/text.h"
#include "results.h"
#include "runner.h"

int rb_cmd_usage_error(const char *msg)
{
    /* messages quote paths and names from the command line and from files: shown, not obeyed */
    static char shown[4 * 4096];
    rb_text_for_terminal(msg, shown, sizeof shown);
    fprintf(stderr, "roofbench: %s\n", shown);
    return EXIT_USAGE;
}

/* Standard output was closed when the process started (main then holds its descriptor open on
 * /dev/null, so that no file this process opens takes it): what is printed there is lost. */
static int stdout_was_closed;
/* The failure of standard output was said already (by rb_cmd_commit_after_stdout). */
static int stdout_failure_said;

/* The standard output kept for the one document that goes there (rb_cmd_stdout_for_document),
 * descriptor 1 then being the standard error's; NULL: none. */
static FILE *document;

/* Whether standard output took everything printed so far: flushed, no error, not closed; and so
 * did the document's. (With a document, stdout_was_closed is of the document's descriptor.) */
static int stdout_ok(void)
{
    int ok = fflush(stdout) == 0 && !ferror(stdout) && !stdout_was_closed;
    return ok && (!document || (fflush(document) == 0 && !ferror(document)));
}

int rb_cmd_stdout_for_document(void)
{
    fflush(stdout);
    /* (close-on-exec: a part a node run starts, or any program a command runs, never holds it) */
    int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        int saved = errno;
        if (f)
            fclose(f);
        else if (fd >= 0)
            close(fd);
        fprintf(stderr, "roofbench: the standard output cannot be kept for the document: %s\n",
                strerror(saved));
        return EXIT_USAGE;
    }
    document = f;
    return 0;
}

FILE *rb_cmd_document(void)
{
    return document ? document : stdout;
}

void rb_cmd_print_json_document(const json_value *json)
{
    FILE *f = rb_cmd_document();
    rb_sbuf b = {.sink = f};
    json_write_to(&b, json, 2, NULL, NULL, NULL, 0);
    /* (a write that failed is said with the standard output's check; else memory ran out) */
    if (rb_sbuf_flush(&b) != 0 && !ferror(f))
        fprintf(stderr, "roofbench: the document: out of memory\n");
}

/* The outputs staged by a command that also prints a report (plot, compare, history) are renamed
 * into place only once the report is out: a standard output that cannot be written (a full
 * disk, a closed descriptor, a pipe closed early) is exit 2 with no file written. 0, or the exit
 * code. */
int rb_cmd_commit_after_stdout(rb_outputs *outs, int have_outputs)
{
    char err[RB_PATH_BUF + 300];
    if (!stdout_ok()) {
        fprintf(stderr, "roofbench: writing the standard output failed: %s: nothing written\n",
                stdout_was_closed ? "it is closed" : strerror(errno));
        stdout_failure_said = 1;
        return EXIT_USAGE;
    }
    if (have_outputs && rb_outputs_commit(outs, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    return EXIT_OK;
}

/* After SIGINT, SIGTERM or another caught signal (the runner ended the running child): one line,
 * exit 128 + signal,
 * as a shell reports a command a signal ended. Said once, however many callers return it. */
int rb_cmd_interrupted_exit(void)
{
    static int said;
    int sig = rb_runner_interrupted();
    if (!said++)
        fprintf(stderr,
                "roofbench: interrupted by %s: the running child was ended, no file "
                "was written\n",
                rb_runner_signal_name(sig));
    return 128 + sig;
}

int rb_cmd_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A results file, parsed and checked to be one (rb_results_doc_check: pairs and variants named,
 * each name once). A node or fleet document gives the run of its GPU gpu (--gpu N; -1: none
 * named, refused with how to name one), *node_read set. NULL with the line printed. */
json_value *rb_cmd_load_results_of(const char *path, int gpu, int *node_read)
{
    char err[RB_PATH_BUF + 600], why[400];
    json_value *doc = json_parse_file(path, err, sizeof err);
    if (!doc) {
        rb_cmd_usage_error(err);
        return NULL;
    }
    if (rb_node_is_document(doc)) {
        json_value *run = rb_node_gpu_run(doc, gpu, why, sizeof why);
        json_free(doc);
        doc = run;
        if (node_read)
            *node_read = 1;
    } else if (rb_results_doc_check(doc, why, sizeof why) == 0) {
        return doc;
    }
    if (doc && rb_results_doc_check(doc, why, sizeof why) == 0)
        return doc;
    rb_fmt(err, sizeof err, "%s: %s", path, why);
    json_free(doc);
    rb_cmd_usage_error(err);
    return NULL;
}

json_value *rb_cmd_load_results(const char *path)
{
    return rb_cmd_load_results_of(path, -1, NULL);
}

/* --gpu N names a GPU of a node document: one given where no input is one does nothing, and is
 * refused. 0, or the exit code. */
int rb_cmd_node_gpu_used(const rb_options *o, int node_read)
{
    if (o->node_gpu < 0 || node_read)
        return 0;
    return rb_cmd_usage_error(
        "--gpu N picks a GPU of a node or fleet results file (run --device all, "
        "roofbench_mpi); no input is one");
}

/* A warning when the expectation file was recorded on another GPU than the run named which (its
 * spreads are then another GPU's). */
void rb_cmd_warn_other_gpu(const json_value *expect, const char *path, const json_value *run,
                           const char *which)
{
    const char *name = json_string_at(json_get(expect, "hardware"), "name", "");
    const char *key = json_string_at(run, "hardware_key", NULL);
    char ek[256], rk[256], shown_name[300], shown_key[300];
    if (!key)
        return;
    rb_hardware_key(name, ek, sizeof ek);
    rb_hardware_key_single(key, rk, sizeof rk);
    if (!strcmp(ek, rk))
        return;
    rb_text_for_terminal(name, shown_name, sizeof shown_name);
    rb_text_for_terminal(key, shown_key, sizeof shown_key);
    fprintf(stderr,
            "roofbench: warning: %s was recorded on %s, but %s ran on %s: its run spreads are "
            "another GPU's\n",
            path, shown_name, which, shown_key);
}

/* The floors of runs whose hardware keys are keys[0..n) (model/floors.h): the same from any
 * folder. 0, or the exit code with the line said. */
int rb_cmd_resolve_floors(const rb_options *o, const char *const *keys, int n, rb_floors *f)
{
    char root[RB_PATH_BUF], err[RB_PATH_BUF + 300];
    rb_floors_source_root(rb_source_root, root, sizeof root);
    if (rb_floors_resolve(o->expect_none ? NULL : o->expect_path, o->expect_none, keys, n, root, f,
                          err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    return 0;
}

/* A standard output that could not be written (a full disk, a closed descriptor, a pipe closed
 * early) is an error, exit 2 (not 0 or 1: the table or the comparison was lost). */
int rb_cmd_stdout_checked(int rc)
{
    if (stdout_ok())
        return rc;
    if (!stdout_failure_said)
        fprintf(stderr, "roofbench: writing the standard output failed: %s\n",
                stdout_was_closed ? "it is closed" : strerror(errno));
    return rc == EXIT_OK || rc == EXIT_FAIL ? EXIT_USAGE : rc;
}

/* A descriptor 0, 1 or 2 that is closed at the start is opened on /dev/null, so that no file
 * the process opens (a temporary, an output) takes its number and receives what is printed; a
 * closed standard output is remembered (stdout_ok). */
void rb_cmd_hold_standard_descriptors(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        if (fd == STDOUT_FILENO)
            stdout_was_closed = 1;
        int held = open("/dev/null", O_RDWR);
        if (held >= 0 && held != fd) /* (cannot be: the lower ones are open) */
            close(held);
    }
}

/* A command that writes files: body with an output set of its own (model/outputs.h). */
int rb_cmd_with_outputs(const rb_options *o, int through_links,
                        int (*body)(const rb_options *o, rb_outputs *outs))
{
    rb_outputs *outs = rb_outputs_new(through_links);
    if (!outs)
        return rb_cmd_usage_error("out of memory");
    /* a pipe closed early (| head) is a standard output that cannot be written: exit 2 with
     * nothing written, not the end of the process by SIGPIPE with the outputs lost unsaid */
    signal(SIGPIPE, SIG_IGN);
    int rc = body(o, outs);
    rb_outputs_free(outs);
    return rc;
}
