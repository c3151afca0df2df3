/* SPDX-License-Identifier: MIT */
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/expect.h"
#include "model/outputs.h"
#include "model/profile.h"
#include "report/plot.h"
#include "model/report.h"
#include "model/text.h"
#include "model/util.h"
#include "env.h"
#include "progress.h"

static const char *env_text(const json_value *env, const char *key)
{
    const json_value *x = json_get(env, key);
    return x && x->type == JSON_STRING ? x->string : "?";
}

void rb_results_begin(rb_pair_result *r, const rb_job *j)
{
    const rb_pair *p = j->pair;
    memset(r, 0, sizeof *r);
    rb_fmt(r->name, sizeof r->name, "%s", j->name);
    rb_fmt(r->pattern, sizeof r->pattern, "%s", p->pattern);
    r->size = j->size.n;
    r->rows = j->size.rows;
    r->cols = j->size.cols;
    r->full_size = p->full_size;
    r->setup_s = NAN; /* until the child reports it */
    rb_contention_init(&r->contended_at_start);
    r->idle_gpu_util = r->idle_mem_util = NAN;
}

unsigned rb_results_skip_mask(const rb_job *j, const rb_options *o)
{
    unsigned mask = 0;
    if (!o->skip_re)
        return 0;
    for (int k = 0; k < j->pair->n_variants && k < 32; k++) {
        char row[RB_NAME_MAX + 80], pair[RB_NAME_MAX + 80];
        rb_fmt(row, sizeof row, "%s/%s", j->name, j->pair->variants[k].name);
        rb_fmt(pair, sizeof pair, "%s/%s", j->pair->name, j->pair->variants[k].name);
        if (rb_filter_match(o->skip_re, row) || rb_filter_match(o->skip_re, pair))
            mask |= 1u << k;
    }
    return mask;
}

void rb_results_child_opts(const rb_job *j, const rb_options *o, rb_child_opts *out)
{
    memset(out, 0, sizeof *out);
    out->size = j->size;
    out->input = j->input;
    out->swept = j->swept;
    out->seed = o->seed;
    out->check_only = o->command == RB_CMD_CHECK;
    out->skip_variants = rb_results_skip_mask(j, o);
    out->nvtx = o->nvtx;
    out->profile_window = out->check_only && getenv(RB_PROFILE_WINDOWS_ENV) != NULL;
    out->measure.samples = o->samples;
    out->measure.cap_s = o->cap_s;
    out->measure.noise_target = 0.01;
    out->measure.sample_ms = 1.0;
    out->measure.cold = o->cold;
}

void rb_results_line(rb_pair_result *r, const json_value *line)
{
    const json_value *type = json_get(line, "type"), *reason = json_get(line, "reason");
    const char *why = reason && reason->type == JSON_STRING ? reason->string : "";
    if (!type || type->type != JSON_STRING)
        return;
    if (!strcmp(type->string, "pair")) {
        const json_value *f = json_get(line, "flops"), *b = json_get(line, "bytes");
        r->flops = f && f->type == JSON_NUMBER ? f->number : NAN;
        r->bytes = b && b->type == JSON_NUMBER ? b->number : NAN;
        const json_value *link = json_get(line, "link_bytes");
        r->link_bytes = link && link->type == JSON_BOOL && link->boolean;
    } else if (!strcmp(type->string, "gpu_check")) {
        rb_gpu_check g;
        char err[200];
        if (rb_gpu_check_from_json(line, &g, err, sizeof err) != 0) {
            fprintf(stderr, "roofbench: %s: %s\n", r->name, err);
            return;
        }
        r->contended_at_start = g.seen;
        r->idle_gpu_util = g.gpu_util;
        r->idle_mem_util = g.mem_util;
    } else if (!strcmp(type->string, "setup")) {
        const json_value *t = json_get(line, "setup_s");
        r->setup_s = t && t->type == JSON_NUMBER ? t->number : NAN;
    } else if (!strcmp(type->string, "variant") && r->n_variants < RB_MAX_VARIANTS) {
        rb_variant_result *v = &r->v[r->n_variants];
        char err[200];
        if (rb_variant_from_json(json_get(line, "variant"), v, err, sizeof err) != 0) {
            fprintf(stderr, "roofbench: %s: %s\n", r->name, err);
            return;
        }
        r->n_variants++;
        rb_progress_hide();
        char median[32];
        rb_text_number(v->time_ms.median, v->time_ms.noise, median, sizeof median);
        if (v->timed && v->valid)
            printf("      %-17s %9s ms  noise %5.2f%%  %5.0f samples  valid (rel_err %.2g)\n",
                   v->name, median, 100 * v->time_ms.noise, (double)v->time_ms.n, v->rel_err_after);
        else
            printf("      %-17s %s\n", v->name,
                   v->valid     ? "valid"
                   : v->note[0] ? v->note
                                : "INVALID");
        fflush(stdout);
        rb_progress_show();
    } else if (!strcmp(type->string, "kernels")) {
        const json_value *list = json_get(line, "kernels");
        char err[200];
        for (size_t i = 0;
             list && list->type == JSON_ARRAY && i < list->count && r->n_kernels < RB_MAX_KERNELS;
             i++)
            if (rb_kernel_from_json(list->items[i], &r->kernels[r->n_kernels], err, sizeof err) ==
                0)
                r->n_kernels++;
            else
                fprintf(stderr, "roofbench: %s: %s\n", r->name, err);
    } else if (!strcmp(type->string, "extras")) {
        const json_value *index = json_get(line, "index"), *x = json_get(line, "extras");
        char err[200];
        int k = index && index->type == JSON_NUMBER ? (int)index->number : -1;
        /* index is the variant's place in the pair, which is its place in r->v as well */
        if (k < 0 || k >= r->n_variants || !x ||
            rb_extras_from_json(x, r->v[k].extras, &r->v[k].n_extras, err, sizeof err) != 0)
            fprintf(stderr, "roofbench: %s: a bad extras record\n", r->name);
    } else if (!strcmp(type->string, "skip")) {
        r->status = RB_PAIR_SKIPPED;
        rb_fmt(r->reason, sizeof r->reason, "%s", why);
    } else if (!strcmp(type->string, "error")) {
        r->status = RB_PAIR_FAILED;
        rb_fmt(r->reason, sizeof r->reason, "%s", why);
    }
}


void rb_results_command(int argc, char **argv, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(buf);
        rb_fmt(buf + len, size - len, "%s%s", i ? " " : "", argv[i]);
    }
}

json_value *rb_results_meta(const char *tool, const rb_options *o, int argc, char **argv,
                            const json_value *env, const char *expect_path)
{
    char command[2048], date[32];
    rb_results_command(argc, argv, command, sizeof command);
    rb_utc_iso(date, sizeof date);
    json_value *m = json_new_object(), *envs = json_new_object();
    const char *size = o->size_kind == RB_SIZE_SMOKE  ? "smoke"
                       : o->size_kind == RB_SIZE_FULL ? "full"
                                                      : "N";
    if (!m || !envs || json_set_number(m, "schema", 1) || json_set_string(m, "tool", tool) ||
        json_set_string(m, "date", date) || json_set_string(m, "git", rb_git_rev) ||
        json_set_string(m, "command", command) || json_set_number(m, "seed", (double)o->seed) ||
        json_set_string(m, "size", size) || json_set_bool(m, "cold", o->cold) ||
        json_set_string(m, "hardware_key", env_text(env, "hardware_key")) ||
        json_set_string(m, "expectations", expect_path) ||
        json_object_set(envs, "start", json_clone(env)) ||
        json_object_set(m, "environment", envs)) {
        json_free(m);
        if (!m)
            json_free(envs);
        return NULL;
    }
    return m;
}

/* ---- the files of a run ---- */

/* The siblings of a results file: [0] .md, [1] .html, then plot's files (report/plot.h). */
#define N_SIBLINGS (2 + RB_PLOT_FILES)
static int sibling_paths(const char *json_path, char sib[N_SIBLINGS][RB_PATH_BUF + 32])
{
    for (int i = 0; i < N_SIBLINGS; i++)
        if (rb_plot_sibling(json_path, ".json",
                            i == 0   ? ".md"
                            : i == 1 ? ".html"
                                     : rb_plot_file_suffix(i - 2),
                            sib[i], sizeof sib[i]) != 0)
            return -1;
    return 0;
}

/* Where plot's files are in outs, the results at first (add_results). */
static rb_plot_outs plot_outs_at(int first)
{
    rb_plot_outs at;
    for (int k = 0; k < RB_PLOT_FILES; k++)
        at.file[k] = first + 3 + k;
    at.html = first + 2;
    at.written = 0;
    return at;
}

/* Registers the results file at json_path and its siblings in outs (RB_OUT_NEW: the results
 * file never replaces one; make_dirs: its folder may be made); the index of the first. */
static int add_results(rb_outputs *outs, const char *json_path, int numbered, char *err,
                       size_t err_size)
{
    char sib[N_SIBLINGS][RB_PATH_BUF + 32];
    if (sibling_paths(json_path, sib) != 0) {
        rb_fmt(err, err_size, "%.60s...: the results' file names are too long", json_path);
        return -1;
    }
    unsigned flags = numbered ? RB_OUT_MAKE_DIRS : 0;
    int first = rb_outputs_add(outs, json_path, "the results", flags | (numbered ? RB_OUT_NEW : 0));
    if (first >= 0 && (rb_outputs_add(outs, sib[0], "the results' Markdown", flags) < 0 ||
                       rb_outputs_add(outs, sib[1], "the report", flags) < 0))
        first = -1;
    for (int k = 0; first >= 0 && k < RB_PLOT_FILES; k++)
        if (rb_outputs_add(outs, sib[2 + k], rb_plot_file_what(k),
                           flags | (k < RB_CHART_COUNT ? RB_OUT_OPTIONAL : 0)) < 0)
            first = -1;
    if (first < 0)
        rb_fmt(err, err_size, "too many output files");
    return first;
}

/* The Markdown twin, with the links to the charts written beside it (relative: same folder). */
static char *markdown_with_charts(const char *json_path, const rb_pair_result *results, int n,
                                  const json_value *doc, unsigned charts)
{
    char stem[RB_PATH_BUF + 32];
    rb_results_doc run;
    if (rb_results_meta_read(doc, &run) != 0)
        return NULL;
    char *md = rb_report_markdown(results, n, &run);
    rb_results_doc_free(&run);
    if (!md || rb_plot_sibling(json_path, ".json", "", stem, sizeof stem) != 0) {
        free(md);
        return NULL;
    }
    const char *slash = strrchr(stem, '/');
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "%s\n", md);
    rb_plot_charts_markdown(&b, charts, slash ? slash + 1 : stem);
    free(md);
    return rb_sbuf_take(&b);
}

/* Stages the files of the results at outs[first ..] (add_results): the charts first, so the
 * Markdown links the ones written. 0, or -1 with err. */
static int stage_results(rb_outputs *outs, int first, const char *json_path, const json_value *doc,
                         const rb_pair_result *results, int n, char *err, size_t err_size)
{
    char *text = json_write(doc, 2);
    int rc = text ? rb_outputs_stage_text(outs, first, text, err, err_size) : -1;
    free(text);
    rb_plot_outs at = plot_outs_at(first);
    if (rc == 0)
        rc = rb_plot_stage(doc, json_path, NULL, outs, &at, err, err_size);
    char *md = rc == 0 ? markdown_with_charts(json_path, results, n, doc, at.written) : NULL;
    if (rc == 0)
        rc = md ? rb_outputs_stage_text(outs, first + 1, md, err, err_size) : -1;
    free(md);
    if (rc != 0 && !err[0])
        rb_fmt(err, err_size, "%s: out of memory", json_path);
    return rc;
}

/* The default results file: <results-dir>/<key>/<stamp>-<git><suffix>.json. */
static int default_path(const rb_options *o, const char *key, const char *stamp, const char *suffix,
                        char *path, size_t size)
{
    return rb_results_default_path(path, size, o->results_dir, key, stamp, rb_git_rev, suffix);
}

/* The results file and the CSV named on the command line: NULL for none, and for the standard
 * output (--json -: the results file then has its default name; rb_results_print). */
static const char *json_file(const rb_options *o)
{
    return rb_cli_is_stdout(o->json_path) ? NULL : o->json_path;
}

static const char *csv_file(const rb_options *o)
{
    return rb_cli_is_stdout(o->csv_path) ? NULL : o->csv_path;
}

/* The CSV (--csv FILE), registered and staged. 0, or -1 with err. */
static int stage_csv(const rb_options *o, rb_outputs *outs, const rb_pair_result *results, int n,
                     char *err, size_t err_size)
{
    if (!csv_file(o))
        return 0;
    int k = rb_outputs_add(outs, o->csv_path, "--csv", 0);
    char *csv = k >= 0 ? rb_report_csv(results, n) : NULL;
    int rc = csv ? rb_outputs_stage_text(outs, k, csv, err, err_size) : -1;
    if (!csv)
        rb_fmt(err, err_size, "%s: out of memory", o->csv_path);
    free(csv);
    return rc;
}

int rb_results_check_outputs(const rb_options *o, const char *hardware_key, const char *expect_path,
                             rb_outputs *outs, char *err, size_t err_size)
{
    char path[RB_PATH_BUF];
    int keep = rb_outputs_count(outs), rc = 0;
    if (json_file(o)) {
        rc = add_results(outs, json_file(o), 0, err, err_size) < 0;
    } else if (!hardware_key) {
        rc = rb_dir_writable(o->results_dir, err, err_size) != 0;
    } else if (default_path(o, hardware_key, "20261122T031502Z", "-1000", path, sizeof path)) {
        rb_fmt(err, err_size, "%.60s...: the results' path is too long", o->results_dir);
        rc = -1;
    } else {
        rc = add_results(outs, path, 1, err, err_size) < 0; /* the longest name a run takes */
    }
    if (rc == 0 && csv_file(o) && rb_outputs_add(outs, csv_file(o), "--csv", 0) < 0)
        rc = -1;
    if (rc == 0 && expect_path &&
        rb_outputs_add(outs, expect_path, "the expectation file",
                       RB_OUT_MAKE_DIRS | RB_OUT_REPLACES_INPUT) < 0)
        rc = -1;
    if (rc == 0)
        rc = rb_outputs_check(outs, err, err_size);
    rb_outputs_drop_from(outs, keep);
    return rc ? -1 : 0;
}

/* Commits outs with the results at json_path: 0, 1 (numbered and the name is taken), -1. */
static int save_at(rb_outputs *outs, const char *json_path, int numbered, const json_value *doc,
                   const rb_pair_result *results, int n, char *err, size_t err_size)
{
    int first = add_results(outs, json_path, numbered, err, err_size);
    if (first < 0 || rb_outputs_check(outs, err, err_size) != 0 ||
        stage_results(outs, first, json_path, doc, results, n, err, err_size) != 0)
        return -1;
    int rc = rb_outputs_commit(outs, err, err_size);
    if (rc == 1)
        rb_outputs_drop_from(outs, first);
    return rc;
}

int rb_results_save(const rb_options *o, const char *hardware_key, const json_value *doc,
                    const rb_pair_result *results, int n, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 200] = "", path[RB_PATH_BUF], stamp[32];
    int rc = stage_csv(o, outs, results, n, err, sizeof err);
    if (rc == 0 && json_file(o)) {
        rb_fmt(path, sizeof path, "%s", json_file(o));
        rc = save_at(outs, path, 0, doc, results, n, err, sizeof err);
    } else if (rc == 0) {
        rb_utc_stamp(stamp, sizeof stamp);
        rc = 1;
        /* two runs in the same second: <stamp>-<git>-2.json, never the first one's file */
        for (int k = 1; k <= 1000 && rc == 1; k++) {
            char suffix[16] = "";
            if (k > 1)
                rb_fmt(suffix, sizeof suffix, "-%d", k);
            if (default_path(o, hardware_key, stamp, suffix, path, sizeof path) != 0) {
                rb_fmt(err, sizeof err, "%.60s...: the results' path is too long", o->results_dir);
                rc = -1;
                break;
            }
            char sib[N_SIBLINGS][RB_PATH_BUF + 32];
            struct stat st;
            int taken = stat(path, &st) == 0 || sibling_paths(path, sib) != 0;
            for (int i = 0; i < N_SIBLINGS && !taken; i++)
                taken = stat(sib[i], &st) == 0;
            if (!taken)
                rc = save_at(outs, path, 1, doc, results, n, err, sizeof err);
        }
        if (rc == 1)
            rb_fmt(err, sizeof err, "%s: 1000 results files of that name exist", path);
    }
    if (rc != 0) {
        fprintf(stderr, "roofbench: %s; no file written\n", err);
        return -1;
    }
    printf("results: %s (+ the Markdown .md, the charts .svg, -<regime>.svg and -speedup.svg, "
           "and the report .html beside it)\n",
           path);
    if (o->csv_path)
        printf("table: %s\n", csv_file(o) ? csv_file(o) : "on the standard output");
    return 0;
}

int rb_results_print(const rb_options *o, const json_value *doc, const rb_pair_result *results,
                     int n, FILE *f)
{
    rb_sbuf b = {.sink = f};
    if (rb_cli_is_stdout(o->json_path))
        json_write_to(&b, doc, 2, NULL, NULL, NULL, 0);
    char *csv = rb_cli_is_stdout(o->csv_path) ? rb_report_csv(results, n) : NULL;
    if (csv)
        rb_sbuf_add(&b, "%s", csv);
    int oom = rb_sbuf_flush(&b) != 0 && !ferror(f);
    oom |= rb_cli_is_stdout(o->csv_path) && !csv;
    free(csv);
    if (oom)
        fprintf(stderr, "roofbench: the document on the standard output: out of memory\n");
    return oom ? -1 : 0;
}

void rb_results_derive(const rb_expect *e, const char *hardware_key, rb_pair_result *results,
                       int n, rb_roofs *ceilings, rb_roofs *peaks)
{
    rb_roofs_unknown(ceilings);
    rb_roofs_unknown(peaks);
    /* Peaks: the expectation file's, completed by the datasheet table for keys the file lacks
     * (a file recorded before the table knew them). */
    json_value *sheet = rb_datasheet_peaks(hardware_key);
    if (sheet)
        rb_expect_roofs(sheet, peaks);
    json_free(sheet);
    if (e) {
        *ceilings = e->ceilings;
        for (int r = 0; r < RB_ROOF_COUNT; r++)
            if (!isnan(e->peaks.value[r]))
                peaks->value[r] = e->peaks.value[r];
    }
    rb_report_derive(results, n, ceilings, peaks);
}
