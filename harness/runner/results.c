/* SPDX-License-Identifier: MIT */
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expect.h"
#include "core/plot.h"
#include "core/report.h"
#include "core/text.h"
#include "core/util.h"
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
}

void rb_results_child_opts(const rb_job *j, const rb_options *o, rb_child_opts *out)
{
    memset(out, 0, sizeof *out);
    out->size = j->size;
    out->input = j->input;
    out->seed = o->seed;
    out->check_only = o->command == RB_CMD_CHECK;
    out->nvtx = o->nvtx;
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


json_value *rb_results_meta(const char *tool, const rb_options *o, int argc, char **argv,
                            const json_value *env, const char *expect_path)
{
    char command[2048] = "", date[32];
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(command);
        rb_fmt(command + len, sizeof command - len, "%s%s", i ? " " : "", argv[i]);
    }
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

/* The charts and the HTML report beside the results file at json_path, and their links added to
 * its Markdown twin md (rewritten at md_path). 0, or -1 with the line printed. */
static int write_charts(const char *json_path, const char *md_path, const char *md,
                        const json_value *doc)
{
    char err[RB_PATH_BUF + 200], svg[RB_PATH_BUF + 16], speedup[RB_PATH_BUF + 32],
        html[RB_PATH_BUF + 16];
    if (rb_plot_sibling(json_path, ".json", ".svg", svg, sizeof svg) != 0 ||
        rb_plot_sibling(json_path, ".json", "-speedup.svg", speedup, sizeof speedup) != 0 ||
        rb_plot_sibling(json_path, ".json", ".html", html, sizeof html) != 0) {
        fprintf(stderr, "roofbench: %s: the charts' paths are too long\n", json_path);
        return -1;
    }
    if (rb_plot_write(doc, json_path, NULL, svg, speedup, html, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: %s\n", err);
        return -1;
    }
    /* links relative to the Markdown file, which sits beside them */
    const char *slash = strrchr(svg, '/'), *name_svg = slash ? slash + 1 : svg;
    slash = strrchr(speedup, '/');
    const char *name_speedup = slash ? slash + 1 : speedup;
    slash = strrchr(html, '/');
    const char *name_html = slash ? slash + 1 : html;
    size_t size = strlen(md) + 3 * RB_PATH_BUF + 400;
    char *linked = malloc(size);
    int rc = -1;
    if (linked) {
        rb_fmt(linked, size,
               "%s\n## Charts\n\n![roofline chart](%s)\n\n![speedup chart](%s)\n\n"
               "[HTML report](%s): both charts and the table (sortable) in one file.\n",
               md, name_svg, name_speedup, name_html);
        rc = rb_write_file_atomic(md_path, linked, err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "roofbench: %s\n", err);
    }
    free(linked);
    return rc;
}

/* Writes the results file and its Markdown twin (see rb_results_save). */
static int write_results(const char *json_path, int numbered, const json_value *doc,
                         const rb_pair_result *results, int n)
{
    char err[RB_PATH_BUF + 200], base[RB_PATH_BUF], path[RB_PATH_BUF + 16],
        md_path[RB_PATH_BUF + 16];
    size_t len = strlen(json_path);
    int has_json = len > 5 && !strcmp(json_path + len - 5, ".json");
    rb_fmt(base, sizeof base, "%.*s", (int)(has_json ? len - 5 : len), json_path);
    char *text = json_write(doc, 2), *md = rb_report_markdown(results, n, doc);
    int rc = -1;
    rb_fmt(err, sizeof err, "%s: out of memory", json_path);
    if (text && md && numbered) {
        rc = rb_write_results_new(base, text, md, path, sizeof path, err, sizeof err);
        rb_fmt(md_path, sizeof md_path, "%.*s.md", (int)(strlen(path) - 5), path);
    } else if (text && md) {
        rb_fmt(path, sizeof path, "%s", json_path);
        rb_fmt(md_path, sizeof md_path, "%s.md", base);
        rc = rb_write_file_atomic(path, text, err, sizeof err) == 0 &&
                     rb_write_file_atomic(md_path, md, err, sizeof err) == 0
                 ? 0
                 : -1;
    }
    free(text);
    if (rc != 0) {
        free(md);
        fprintf(stderr, "roofbench: %s\n", err);
        return -1;
    }
    rc = write_charts(path, md_path, md, doc);
    free(md);
    printf("results: %s (+ %s%s)\n", path, md_path,
           rc == 0 ? ", the charts .svg, -speedup.svg and the report .html beside it" : "");
    return rc;
}

int rb_results_save(const rb_options *o, const char *hardware_key, const json_value *doc,
                    const rb_pair_result *results, int n)
{
    char json_path[RB_PATH_BUF], err[RB_PATH_BUF + 200];
    if (o->json_path) {
        rb_fmt(json_path, sizeof json_path, "%s", o->json_path);
    } else {
        char dir[RB_PATH_BUF], stamp[32];
        rb_utc_stamp(stamp, sizeof stamp);
        /* results_dir is at most RB_PATH_MAX, the key and the stamp short: these fit */
        rb_fmt(dir, sizeof dir, "%s/%s", o->results_dir, hardware_key);
        rb_fmt(json_path, sizeof json_path, "%s/%s-%s.json", dir, stamp, rb_git_rev);
        if (rb_mkdirs(dir, err, sizeof err) != 0) {
            fprintf(stderr, "roofbench: %s\n", err);
            return -1;
        }
    }
    return write_results(json_path, !o->json_path, doc, results, n);
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

int rb_results_save_csv(const rb_options *o, const rb_pair_result *results, int n)
{
    if (!o->csv_path)
        return 0;
    char err[RB_PATH_BUF + 200];
    char *csv = rb_report_csv(results, n);
    int rc = csv ? rb_write_file_atomic(o->csv_path, csv, err, sizeof err) : -1;
    if (!csv)
        rb_fmt(err, sizeof err, "%s: out of memory", o->csv_path);
    free(csv);
    if (rc != 0) {
        fprintf(stderr, "roofbench: %s\n", err);
        return -1;
    }
    printf("table: %s\n", o->csv_path);
    return 0;
}
