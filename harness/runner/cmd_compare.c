/* SPDX-License-Identifier: MIT */
/* roofbench compare OLD NEW: what changed between two runs, and why. */
#include <stdio.h>
#include <string.h>

#include "cmd_compare.h"
#include "cmd.h"
#include "report/table.h"
#include "env.h"
#include "model/runcmp.h"
#include "model/floors.h"

/* compare's files: OLD, NEW and --expect are read, --json and --html written; no output is an
 * input or another output (as files, checked before anything is read). 0, or the exit code. */
static int compare_files(const rb_options *o, rb_outputs *outs, int *json_i, int *html_i)
{
    char err[RB_PATH_BUF + 300];
    rb_outputs_input(outs, o->compare_old, "OLD", 0);
    rb_outputs_input(outs, o->compare_new, "NEW", 0);
    if (o->expect_path && !o->expect_none)
        rb_outputs_input(outs, o->expect_path, "--expect", 0);
    /* --json - or --html -: the standard output, written after the report (rb_cmd_compare) */
    *json_i = o->json_path && !rb_cli_is_stdout(o->json_path)
                  ? rb_outputs_add(outs, o->json_path, "--json", 0)
                  : -1;
    *html_i = o->plot_html && !rb_cli_is_stdout(o->plot_html)
                  ? rb_outputs_add(outs, o->plot_html, "--html", 0)
                  : -1;
    if (rb_outputs_check(outs, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    return 0;
}

/* compare's files, made a row at a time into their outputs (the memory of a row, not of the
 * text). */
typedef struct compare_made {
    const rb_options *o;
    const rb_runcmp *c;
} compare_made;

static void make_compare_json(rb_sbuf *b, const void *x)
{
    const compare_made *m = x;
    rb_runcmp_json_to(b, m->c, m->o->compare_old, m->o->compare_new, m->o->fail_on_platform);
}

static void make_compare_html(rb_sbuf *b, const void *x)
{
    const compare_made *m = x;
    rb_runcmp_html_to(b, m->c, m->o->compare_old, m->o->compare_new);
}

/* Stages compare's --json and --html (renamed into place, both or neither, once the report is
 * out). 0, or the exit code. */
static int stage_comparison(const rb_options *o, const rb_runcmp *c, rb_outputs *outs, int json_i,
                            int html_i)
{
    char err[RB_PATH_BUF + 300] = "";
    compare_made m = {o, c};
    int rc = json_i >= 0
                 ? rb_outputs_stage_made(outs, json_i, make_compare_json, &m, err, sizeof err)
                 : 0;
    if (rc == 0 && html_i >= 0)
        rc = rb_outputs_stage_made(outs, html_i, make_compare_html, &m, err, sizeof err);
    return rc == 0 ? 0 : rb_cmd_usage_error(err);
}

/* A comparison in which no variant was compared checks nothing: a gate must not pass on it. 0,
 * or the exit code with the line said. */
static int compared_something(const rb_options *o, const rb_runcmp *c)
{
    char err[600];
    int compared = c->n_rows - c->counts[RB_CHANGE_NOT_COMPARED];
    if (compared > 0)
        return 0;
    if (o->filter && c->n_rows == 0)
        rb_fmt(err, sizeof err,
               "compare: --filter '%s' matches no variant (%d left out): nothing compared",
               o->filter, c->n_filtered_out);
    else
        rb_fmt(err, sizeof err,
               "compare: no variant was compared (%d not compared: in one run only, invalid or "
               "untimed in one, or of another size): a comparison of nothing checks nothing",
               c->counts[RB_CHANGE_NOT_COMPARED]);
    return rb_cmd_usage_error(err);
}

/* Each run holds pairs: a run of none compares nothing and would pass. */
static int has_pairs(const json_value *doc, const char *which)
{
    char err[80];
    if (rb_results_pair_count(doc) > 0)
        return 1;
    rb_fmt(err, sizeof err, "compare: %s holds no pairs: nothing to compare", which);
    rb_cmd_usage_error(err);
    return 0;
}

/* compare's report: text, --md or --csv on stdout (the floors line then goes to stderr: CSV is
 * data). (With --json - or --html -, stdout is the standard error's: rb_cmd_document.) */
static void print_compare(const rb_options *o, const rb_runcmp *c)
{
    rb_sbuf b = {.sink = stdout}; /* (written as it is made: a row's memory, not the text's) */
    if (o->compare_csv && c->floors_line)
        fprintf(stderr, "%s\n", c->floors_line);
    if (o->compare_md)
        rb_runcmp_markdown_to(&b, c, o->compare_old, o->compare_new);
    else if (o->compare_csv)
        rb_runcmp_csv_to(&b, c);
    else
        rb_runcmp_print(stdout, c, o->compare_old, o->compare_new);
    /* (a write that failed is said with the standard output's check; else memory ran out) */
    if (rb_sbuf_flush(&b) != 0 && !ferror(stdout))
        fprintf(stderr, "roofbench: compare: out of memory\n");
}

/* compare --md is pasted into a pull request: the expectation file found under the checkout is
 * named from its root (expectations/<key>.json), not by this machine's absolute path. */
static void floors_path_from_root(rb_floors *f)
{
    char root[RB_PATH_BUF];
    size_t len;
    if (!f->have || rb_floors_source_root(rb_source_root, root, sizeof root) != 0)
        return;
    len = strlen(root);
    if (len > 0 && !strncmp(f->path, root, len) && f->path[len] == '/')
        memmove(f->path, f->path + len + 1, strlen(f->path + len + 1) + 1);
}

/* The comparison of compare's two files, with its floors and filter. The expectation file found
 * is an input too: no output may replace it. 0, or the exit code. */
static int build_compare(const rb_options *o, rb_runcmp *c, char *floors_line, size_t size,
                         rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300];
    int node_read = 0;
    json_value *old_doc = rb_cmd_load_results_of(o->compare_old, o->node_gpu, &node_read);
    json_value *new_doc =
        old_doc ? rb_cmd_load_results_of(o->compare_new, o->node_gpu, &node_read) : NULL;
    if (!new_doc || rb_cmd_node_gpu_used(o, node_read) != 0 || !has_pairs(old_doc, "OLD") ||
        !has_pairs(new_doc, "NEW")) {
        json_free(old_doc);
        json_free(new_doc);
        return EXIT_USAGE;
    }
    const char *keys[2] = {json_string_at(old_doc, "hardware_key", NULL),
                           json_string_at(new_doc, "hardware_key", NULL)};
    rb_floors f;
    int rc = rb_cmd_resolve_floors(o, keys, 2, &f);
    if (rc == 0 && f.have) {
        rb_outputs_input(outs, f.path, "the expectation file", 0);
        if (rb_outputs_check(outs, err, sizeof err) != 0)
            rc = rb_cmd_usage_error(err);
        rb_cmd_warn_other_gpu(f.expect.doc, f.path, old_doc, "OLD");
        rb_cmd_warn_other_gpu(f.expect.doc, f.path, new_doc, "NEW");
    }
    if (rc == 0 && rb_runcmp_build_expect(old_doc, new_doc, f.have ? f.expect.doc : NULL, c, err,
                                          sizeof err) != 0)
        rc = rb_cmd_usage_error(err);
    if (rc == 0 && o->filter_re)
        rb_runcmp_filter(c, o->filter_re);
    if (rc == 0) {
        if (o->compare_md)
            floors_path_from_root(&f);
        rb_floors_line(&f, c->floors_from_runs, floors_line, size);
        c->floors_line = floors_line;
        c->gate_all = o->gate_all;
    }
    rb_floors_free(&f);
    json_free(old_doc);
    json_free(new_doc);
    return rc;
}

/* compare --json - or --html -: the comparison as JSON or as its page on the standard output
 * (rb_cmd_document), written as it is made. */
static void print_document(const rb_options *o, const rb_runcmp *c)
{
    FILE *f = rb_cmd_document();
    rb_sbuf b = {.sink = f};
    compare_made m = {o, c};
    if (rb_cli_is_stdout(o->json_path))
        make_compare_json(&b, &m);
    else
        make_compare_html(&b, &m);
    if (rb_sbuf_flush(&b) != 0 && !ferror(f))
        fprintf(stderr, "roofbench: compare: out of memory\n");
}

/* Everything is read and built before anything is written. */
int rb_cmd_compare(const rb_options *o, rb_outputs *outs)
{
    char floors_line[RB_PATH_BUF + 600];
    int json_i, html_i, rc = compare_files(o, outs, &json_i, &html_i);
    rb_runcmp c;
    if (rc != 0 || (rc = build_compare(o, &c, floors_line, sizeof floors_line, outs)) != 0)
        return rc;
    rc = compared_something(o, &c);
    if (rc == 0)
        rc = stage_comparison(o, &c, outs, json_i, html_i);
    if (rc == 0) {
        print_compare(o, &c);
        int failing = rb_runcmp_failing(&c, o->fail_on_platform);
        int contended = rb_runcmp_contended(&c);
        if (failing && !o->compare_md && !o->compare_csv)
            rb_table_say(stdout,
                         "exit 1: %d variant(s) slower for a cause other than the machine "
                         "(platform, clock)%s",
                         failing, o->fail_on_platform ? " (or for any cause)" : "");
        if (contended && !o->compare_md && !o->compare_csv)
            rb_table_say(stdout,
                         "of which %d contended: a run timed them while another process used "
                         "the GPU, not a code regression; measure again on an idle GPU",
                         contended);
        if (rb_cli_writes_stdout(o))
            print_document(o, &c);
        rc = rb_cmd_commit_after_stdout(outs, json_i >= 0 || html_i >= 0);
        if (rc == 0)
            rc = failing ? EXIT_FAIL : EXIT_OK;
    }
    rb_runcmp_free(&c);
    return rc;
}
