/* SPDX-License-Identifier: MIT */
/* roofbench history: every variant over a GPU's runs, its steps and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_history.h"
#include "cmd.h"
#include "model/floors.h"
#include "model/history.h"
#include "model/text.h"

/* history -o BASE: BASE.svg, BASE.md and BASE.json, checked as files against every file it read
 * (the runs and the files it skipped) and each other before any is written. 0, or the exit
 * code. */
static int history_outputs(const rb_options *o, const rb_history *h, rb_outputs *outs)
{
    static const char *const ext[3] = {".svg", ".md", ".json"};
    char err[RB_PATH_BUF + 200], path[RB_PATH_BUF];
    for (int r = 0; r < h->n_runs; r++)
        if (rb_outputs_input(outs, h->runs[r].path, "a run it reads,", 0) != 0)
            return rb_cmd_usage_error("history: out of memory");
    for (int i = 0; i < h->n_skipped; i++)
        if (rb_outputs_input(outs, h->skipped[i], "a file it read,", 0) != 0)
            return rb_cmd_usage_error("history: out of memory");
    for (int i = 0; i < 3; i++) {
        if (rb_fmt_fits(path, sizeof path, "%s%s", o->out_base, ext[i]) != 0 ||
            strlen(path) > RB_PATH_MAX)
            return rb_cmd_usage_error("history: -o BASE: the path is too long");
        if (rb_outputs_add(outs, path, "history -o", 0) < 0)
            return rb_cmd_usage_error("history: out of memory");
    }
    if (rb_outputs_check(outs, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    return 0;
}

static void make_history_svg(rb_sbuf *b, const void *h)
{
    rb_history_svg_to(b, h);
}

static void make_history_md(rb_sbuf *b, const void *h)
{
    rb_history_markdown_to(b, h);
}

static void make_history_json(rb_sbuf *b, const void *h)
{
    rb_history_json_to(b, h);
}

/* The three files of -o BASE staged, each made a series at a time. 0, or the exit code. */
static int stage_history(const rb_history *h, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300] = "";
    int rc = rb_outputs_stage_made(outs, 0, make_history_svg, h, err, sizeof err);
    if (rc == 0)
        rc = rb_outputs_stage_made(outs, 1, make_history_md, h, err, sizeof err);
    if (rc == 0)
        rc = rb_outputs_stage_made(outs, 2, make_history_json, h, err, sizeof err);
    return rc == 0 ? 0 : rb_cmd_usage_error(err);
}

/* The expectation file found is an input too: no output may replace it; and one of another GPU
 * is said, as compare says it. 0, or the exit code. */
static int history_floors_file(const rb_options *o, const rb_history *h, const rb_floors *f,
                               rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300];
    if (!f->have)
        return 0;
    rb_cmd_warn_other_gpu(f->expect.doc, f->path, h->runs[0].doc, "the history");
    if (!o->out_base)
        return 0;
    if (rb_outputs_input(outs, f->path, "the expectation file", 0) != 0)
        return rb_cmd_usage_error("history: out of memory");
    return rb_outputs_check(outs, err, sizeof err) == 0 ? 0 : rb_cmd_usage_error(err);
}

/* Everything is read, built and staged, and the report printed, before anything is renamed
 * into place: a standard output that cannot be written leaves no file. */
int rb_cmd_history(const rb_options *o, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300], floors_line[RB_PATH_BUF + 600];
    rb_history h;
    if (rb_history_load(o->inputs, o->n_inputs, &h, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    const char **keys = malloc((size_t)h.n_runs * sizeof *keys);
    rb_floors f = {0};
    int rc = keys ? 0 : rb_cmd_usage_error("history: out of memory");
    for (int i = 0; rc == 0 && i < h.n_runs; i++)
        keys[i] = h.runs[i].hardware_key[0] ? h.runs[i].hardware_key : NULL;
    if (rc == 0 && o->out_base)
        rc = history_outputs(o, &h, outs);
    if (rc == 0)
        rc = rb_cmd_resolve_floors(o, keys, h.n_runs, &f);
    free(keys);
    if (rc == 0)
        rc = history_floors_file(o, &h, &f, outs);
    if (rc == 0 &&
        rb_history_build(&h, f.have ? f.expect.doc : NULL, o->filter_re, err, sizeof err) != 0)
        rc = rb_cmd_usage_error(err);
    if (rc == 0 && o->out_base)
        rc = stage_history(&h, outs);
    if (rc == 0) {
        rb_floors_line(&f, h.floors_from_runs, floors_line, sizeof floors_line);
        h.floors_line = floors_line;
        rb_history_print(stdout, &h);
        if (o->out_base) {
            char line[4 * RB_PATH_BUF], shown[4 * RB_PATH_BUF];
            rb_fmt(line, sizeof line, "history: %s, %s, %s", rb_outputs_path(outs, 0),
                   rb_outputs_path(outs, 1), rb_outputs_path(outs, 2));
            rb_text_for_terminal(line, shown, sizeof shown);
            printf("%s\n", shown);
        }
        rc = rb_cmd_commit_after_stdout(outs, o->out_base != NULL);
    }
    rb_floors_free(&f);
    rb_history_free(&h);
    return rc;
}
