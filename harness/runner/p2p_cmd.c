/* SPDX-License-Identifier: MIT */
#include "p2p_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/expect.h"
#include "report/html_table.h"
#include "report/p2p_table.h"
#include "report/svg.h"
#include "model/util.h"
#include "cmd.h"
#include "env.h"
#include "p2p_matrix.h"
#include "results.h"
#include "runner.h"

int rb_p2p_files(const rb_options *o, rb_outputs *outs, int index[2], char *err, size_t err_size)
{
    if (o->expect_path && !o->expect_none)
        rb_outputs_input(outs, o->expect_path, "--expect", 0);
    /* --json - or --html -: the standard output's, written after the files (rb_p2p_run) */
    index[0] = o->json_path && !rb_cli_is_stdout(o->json_path)
                   ? rb_outputs_add(outs, o->json_path, "--json", 0)
                   : -1;
    index[1] = o->plot_html && !rb_cli_is_stdout(o->plot_html)
                   ? rb_outputs_add(outs, o->plot_html, "--html", 0)
                   : -1;
    return rb_outputs_check(outs, err, err_size);
}

/* The expectation file's path: --expect, or the hardware key's file when there is one; NULL
 * for none. */
static const char *expect_file(const rb_options *o, const json_value *env, char *buf, size_t size)
{
    struct stat st;
    const char *key = json_string_at(env, "hardware_key", "");
    if (o->expect_none)
        return NULL;
    if (o->expect_path)
        return o->expect_path;
    if (!rb_is_hardware_key(key))
        return NULL;
    rb_fmt(buf, size, "expectations/%s.json", key);
    return stat(buf, &st) == 0 ? buf : NULL;
}

/* The matrix's roofs: the expectation file's ceilings (*file_doc, freed by the caller) and the
 * datasheet's peaks (*peaks; the file's when the datasheet table lacks this GPU). 0, or the
 * exit code (message printed). */
static int load_roofs(const char *path, const json_value *env, json_value **file_doc,
                      json_value **peaks)
{
    char err[RB_PATH_BUF + 200];
    rb_expect e = {0};
    *file_doc = NULL;
    *peaks = rb_datasheet_peaks(json_string_at(env, "hardware_key", ""));
    if (path && rb_expect_load(path, &e, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: %s\n", err);
        return 2;
    }
    *file_doc = e.doc;
    if (!*peaks && e.doc)
        *peaks = json_clone(json_get(e.doc, "peaks"));
    return 0;
}

static json_value *p2p_document(int argc, char **argv, const json_value *env, const char *expect,
                                json_value *matrix)
{
    char command[2048], date[32];
    rb_results_command(argc, argv, command, sizeof command);
    rb_utc_iso(date, sizeof date);
    json_value *d = json_new_object(), *envs = json_new_object();
    if (!d || !envs || json_set_number(d, "schema", 1) || json_set_string(d, "tool", "roofbench") ||
        json_set_string(d, "kind", "p2p") || json_set_string(d, "date", date) ||
        json_set_string(d, "git", rb_git_rev) || json_set_string(d, "command", command) ||
        json_set_string(d, "hardware_key", json_string_at(env, "hardware_key", NULL)) ||
        json_set_string(d, "expectations", expect) ||
        json_object_set(envs, "start", json_clone(env)) ||
        json_object_set(d, "environment", envs)) {
        json_free(d);
        if (!d)
            json_free(envs);
        json_free(matrix);
        return NULL;
    }
    if (json_object_set(d, "p2p_matrix", matrix)) {
        json_free(d);
        return NULL;
    }
    return d;
}

static void make_p2p_html(rb_sbuf *b, const void *x)
{
    const json_value *doc = x;
    char title[400];
    rb_fmt(title, sizeof title, "roofbench p2p: %s, %s, git %s",
           json_string_at(doc, "hardware_key", "?"), json_string_at(doc, "date", "?"),
           json_string_at(doc, "git", "?"));
    rb_html_page_begin(b, title);
    rb_p2p_html(b, json_get(doc, "p2p_matrix"));
    rb_html_page_end(b);
}

static void make_p2p_json(rb_sbuf *b, const void *x)
{
    json_write_to(b, x, 2, NULL, NULL, NULL, 0);
}

/* Writes --json and --html, then the one of them that is the standard output's
 * (rb_cmd_document). 0, or 2 (message printed). */
static int write_files(const rb_options *o, rb_outputs *outs, const int index[2],
                       const json_value *doc)
{
    char err[RB_PATH_BUF + 300] = "";
    int rc = 0;
    if (index[0] >= 0)
        rc = rb_outputs_stage_made(outs, index[0], make_p2p_json, doc, err, sizeof err);
    if (rc == 0 && index[1] >= 0)
        rc = rb_outputs_stage_made(outs, index[1], make_p2p_html, doc, err, sizeof err);
    if (rc == 0 && (index[0] >= 0 || index[1] >= 0))
        rc = rb_outputs_commit(outs, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "roofbench: %s\n", err[0] ? err : "cannot write the files");
        return 2;
    }
    if (!rb_cli_writes_stdout(o))
        return 0;
    rb_sbuf b = {.sink = rb_cmd_document()};
    (rb_cli_is_stdout(o->json_path) ? make_p2p_json : make_p2p_html)(&b, doc);
    /* (a write that failed is said with the standard output's check; else memory ran out) */
    if (rb_sbuf_flush(&b) != 0 && !ferror(rb_cmd_document())) {
        fprintf(stderr, "roofbench: p2p: out of memory\n");
        return 2;
    }
    return 0;
}

int rb_p2p_run(const rb_options *o, int argc, char **argv, const json_value *env, rb_outputs *outs,
               const int index[2])
{
    char path_buf[RB_PATH_BUF], why[400];
    const char *expect = expect_file(o, env, path_buf, sizeof path_buf);
    json_value *file_doc = NULL, *peaks = NULL;
    int rc = load_roofs(expect, env, &file_doc, &peaks);
    if (rc != 0)
        return rc;
    printf("measuring the P2P matrix of %.0f GPU(s), %s (well under a second per ordered pair) ...\n",
           json_number_at(env, "device_count"), json_string_at(env, "device", "?"));
    fflush(stdout);
    json_value *m =
        rb_p2p_matrix_measure(o->timeout_s, json_get(file_doc, "ceilings"), peaks, why, sizeof why);
    json_free(file_doc);
    json_free(peaks);
    if (!m) {
        if (!rb_runner_interrupted())
            fprintf(stderr, "roofbench: p2p: %s; nothing written\n", why);
        return 1;
    }
    rb_sbuf b = {0};
    rb_p2p_text(&b, m, o->compare_md);
    char *text = rb_sbuf_take(&b);
    fputs(text ? text : "out of memory\n", stdout);
    free(text);
    int weak = rb_p2p_weak_count(m);
    json_value *doc = p2p_document(argc, argv, env, expect, m);
    rc = doc ? write_files(o, outs, index, doc) : 2;
    json_free(doc);
    if (rc == 0 && weak)
        printf("exit 1: %d weak link measurement(s)\n", weak);
    return rc ? rc : weak ? 1 : 0;
}
