/* SPDX-License-Identifier: MIT */
/*
 * The HTML report of a run (one self-contained file: the verdicts counted, each chart inline as
 * a figure of its own, the variants on no chart, the table coloured by verdict and sortable with
 * a few lines of inline script, no network needed), and the staging of the files plot writes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_table.h"
#include "outputs.h"
#include "p2p_table.h"
#include "plot.h"
#include "result.h"
#include "svg.h"
#include "util.h"

static const char *const verdict_names[] = {
    "pass", "improved", "regressed", "new", "missing", "invalid", "skipped", "stale", "contended"};
#define N_VERDICTS ((int)(sizeof verdict_names / sizeof verdict_names[0]))

/* A numeric cell shown as the charts show numbers (rb_plot_num), with a unit after it. */
static void cell_num(rb_sbuf *b, double x, const char *unit)
{
    char v[32];
    if (!isfinite(x)) {
        rb_sbuf_add(b, "<td class=\"num\" data-v=\"\">-</td>");
        return;
    }
    rb_plot_num(x, v, sizeof v);
    rb_sbuf_add(b, "<td class=\"num\" data-v=\"%.17g\">%s%s</td>", x, v, unit);
}

/* 1 when a full run does not time the point's variant at its row's size, by design
 * (RB_NOT_AT_SIZE_NOTE): shown and counted apart from the skipped, which could not be measured. */
static int not_at_size(const rb_plot_point *p)
{
    return !strcmp(p->verdict, "skipped") && p->note &&
           !strncmp(p->note, RB_NOT_AT_SIZE_NOTE, strlen(RB_NOT_AT_SIZE_NOTE));
}

static void table_row(rb_sbuf *b, const rb_plot_point *p)
{
    char rate[64], roof[64], shown[80];
    rb_plot_rate_text(p, rate, sizeof rate);
    rb_plot_roof_name(p->roof ? p->roof : "-", roof, sizeof roof);
    /* data-unplotted: a rate the roofline chart has no place for (a collective on one GPU) */
    rb_sbuf_add(b, "<tr%s%s>", p->informational ? " class=\"info\"" : "",
                p->one_gpu ? " data-unplotted=\"one GPU\"" : "");
    rb_html_cell_text(b, p->pair);
    rb_html_cell_text(b, p->variant);
    rb_html_cell_text(b, p->role);
    rb_html_cell_text(b, roof);
    cell_num(b, p->median_ms, "");
    rb_html_cell_number(b, p->noise, "%.1f%%", 100);
    double rate_value = rb_plot_rate(p);
    rb_sbuf_add(b, "<td class=\"num\" data-v=\"");
    if (isfinite(rate_value))
        rb_sbuf_add(b, "%.17g", rate_value);
    rb_sbuf_add(b, "\">");
    rb_sbuf_escaped(b, rate);
    rb_sbuf_add(b, "</td>");
    if (p->inconsistent && isfinite(p->efficiency))
        rb_sbuf_add(b,
                    "<td class=\"num v-invalid\" data-v=\"%.17g\" title=\"above its roof by more "
                    "than its noise: a measurement inconsistency, not a result\">%.1f%% "
                    "inconsistent</td>",
                    p->efficiency, 100 * p->efficiency);
    else
        rb_html_cell_number(b, p->efficiency, "%.1f%%", 100);
    rb_html_cell_number(b, p->peak_efficiency, "%.1f%%", 100);
    cell_num(b, p->speedup, "x");
    rb_fmt(shown, sizeof shown, "%s%s", not_at_size(p) ? "not timed at this size" : p->verdict,
           p->informational ? " (informational)" : "");
    rb_html_cell_verdict(b, p->verdict, shown);
    rb_sbuf_add(b, "</tr>\n");
}

/* "verdicts: 100 pass 1 regressed 4 skipped", the informational rows counted apart when the
 * results have any. */
static void verdict_counts(rb_sbuf *b, const rb_plot_data *d)
{
    int gating[N_VERDICTS + 2] = {0}, info[N_VERDICTS + 2] = {0}, any_info = 0;
    const char *names[N_VERDICTS + 2];
    for (int k = 0; k < N_VERDICTS; k++)
        names[k] = verdict_names[k];
    names[N_VERDICTS] = "no verdict";
    /* the rows a sweep does not time at their size by design, apart from the skipped */
    names[N_VERDICTS + 1] = "not timed at this size";
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        int k = 0;
        while (k < N_VERDICTS && strcmp(p->verdict, verdict_names[k]))
            k++;
        if (not_at_size(p))
            k = N_VERDICTS + 1;
        (p->informational ? info : gating)[k]++;
        any_info |= p->informational;
    }
    rb_html_counts(b, any_info ? "gating verdicts" : "verdicts", names, gating, N_VERDICTS + 2);
    if (any_info)
        rb_html_counts(b, "informational verdicts (host-bound rows: measured, not gating)", names,
                       info, N_VERDICTS + 2);
}

/* One note of a variant: "pair/variant: [what: ]text". */
static void note_item(rb_sbuf *b, int *n, const rb_plot_point *p, const char *what,
                      const char *text)
{
    if (!text[0])
        return;
    rb_sbuf_add(b, "%s<li>", (*n)++ ? "" : "<h2>Notes</h2>\n<ul>\n");
    rb_sbuf_escaped(b, p->pair);
    rb_sbuf_add(b, "/");
    rb_sbuf_escaped(b, p->variant);
    rb_sbuf_add(b, ": %s", what);
    rb_sbuf_escaped(b, text);
    rb_sbuf_add(b, "</li>\n");
}

static void notes(rb_sbuf *b, const rb_plot_data *d)
{
    int n = 0;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        note_item(b, &n, p, "", p->note);
        note_item(b, &n, p, "informational, host-bound: ", p->why);
        note_item(b, &n, p, "roof: ", p->roof_note);
    }
    if (n)
        rb_sbuf_add(b, "</ul>\n");
}

/* A chart inline, with its heading: drawn here (f NULL), or read from f. */
static void chart_div(rb_sbuf *b, const rb_plot_data *d, int k, FILE *f)
{
    rb_sbuf_add(b, "<h2>%s</h2>\n<div class=\"chart\">\n",
                k == RB_PLOT_SPEEDUP ? "Speedups" : rb_plot_chart_heading((rb_plot_chart)k));
    if (f)
        rb_sbuf_copy(b, f);
    else if (k == RB_PLOT_SPEEDUP)
        rb_plot_speedup_svg_to(b, d);
    else
        rb_plot_chart_svg_to(b, d, (rb_plot_chart)k, NULL);
    rb_sbuf_add(b, "</div>\n");
}

static const char *unplotted_why(const rb_plot_point *p)
{
    return not_at_size(p)                   ? "not timed at this size"
           : !strcmp(p->verdict, "skipped") ? "skipped"
           : !strcmp(p->verdict, "invalid") ? "invalid"
           : p->one_gpu                     ? "one GPU, no link traffic"
                                            : "not timed or no rate";
}

/* The variants on no chart, one line a reason, each pair named once: "skipped: pair (variant,
 * variant); pair (variant)". */
static void unplotted(rb_sbuf *b, const rb_plot_data *d)
{
    static const char *const reasons[] = {"not timed at this size", "skipped", "invalid",
                                          "one GPU, no link traffic", "not timed or no rate"};
    int any = 0;
    for (size_t r = 0; r < sizeof reasons / sizeof reasons[0]; r++) {
        int in_reason = 0, last_pair = -1;
        for (int i = 0; i < d->n_points; i++) {
            const rb_plot_point *p = &d->points[i];
            if (p->plotted || strcmp(unplotted_why(p), reasons[r]))
                continue;
            if (!any++)
                rb_sbuf_add(b, "<h2>Not plotted</h2>\n<ul class=\"unplotted\">\n");
            if (!in_reason++)
                rb_sbuf_add(b, "<li>%s: ", reasons[r]);
            else
                rb_sbuf_add(b, "%s", p->pair_index == last_pair ? ", " : "); ");
            if (p->pair_index != last_pair) {
                rb_sbuf_escaped(b, p->pair);
                rb_sbuf_add(b, " (");
            }
            rb_sbuf_escaped(b, p->variant);
            last_pair = p->pair_index;
        }
        if (in_reason)
            rb_sbuf_add(b, ")</li>\n");
    }
    if (any)
        rb_sbuf_add(b, "</ul>\n");
}

/* The report, its charts drawn here (files NULL) or read from the files given. */
static void html_page(rb_sbuf *b, const rb_plot_data *d, FILE *const *files)
{
    char title[600];
    rb_fmt(title, sizeof title, "roofbench: %s, driver %s, CUDA %s, %s, git %s", d->device,
           d->driver, d->cuda, d->date, d->git);
    rb_html_page_begin(b, title);
    if (d->path[0]) {
        rb_sbuf_add(b, "<p>results file: <code>");
        rb_sbuf_escaped(b, d->path);
        rb_sbuf_add(b, "</code></p>\n");
    }
    verdict_counts(b, d);
    for (int k = 0; k < RB_PLOT_FILES; k++)
        if (files ? files[k] != NULL
                  : k == RB_PLOT_SPEEDUP || rb_plot_chart_used(d, (rb_plot_chart)k))
            chart_div(b, d, k, files ? files[k] : NULL);
    if (rb_plot_has_energy(d)) {
        rb_sbuf_add(b, "<h2>Energy roofline</h2>\n<div class=\"chart\">\n");
        rb_plot_energy_svg_to(b, d);
        rb_sbuf_add(b, "</div>\n");
    }
    unplotted(b, d);
    rb_sbuf_add(b, "<h2 id=\"rb-table\">Table</h2>\n");
    verdict_counts(b, d);
    rb_sbuf_add(b, "<p>Click a column's header to sort by it (again: the other "
                   "way).</p>\n<table class=\"rb\">\n<thead><tr><th>pair</th><th>variant</th>"
                   "<th>role</th><th>roof</th><th class=\"num\">median ms</th>"
                   "<th class=\"num\">noise</th><th class=\"num\">rate</th>"
                   "<th class=\"num\">%% of roof</th><th class=\"num\">%% of peak</th>"
                   "<th class=\"num\">speedup</th><th>verdict</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < d->n_points; i++)
        table_row(b, &d->points[i]);
    rb_sbuf_add(b, "</tbody>\n</table>\n");
    if (d->p2p_matrix)
        rb_p2p_html(b, d->p2p_matrix);
    notes(b, d);
    rb_html_page_end(b);
}

char *rb_plot_html(const rb_plot_data *d)
{
    rb_sbuf b = {0};
    html_page(&b, d, NULL);
    return rb_sbuf_take(&b);
}

void rb_plot_html_to(rb_sbuf *b, const rb_plot_data *d, FILE *const files[RB_PLOT_FILES])
{
    html_page(b, d, files);
}

/* What a chart or the report is made from: the data, which chart, the files it reads. */
typedef struct plot_made {
    const rb_plot_data *d;
    int k;
    FILE *scratch;
    FILE *files[RB_PLOT_FILES];
} plot_made;

static void make_chart(rb_sbuf *b, const void *x)
{
    const plot_made *m = x;
    if (m->k == RB_PLOT_SPEEDUP)
        rb_plot_speedup_svg_to(b, m->d);
    else
        rb_plot_chart_svg_to(b, m->d, (rb_plot_chart)m->k, m->scratch);
}

static void make_report(rb_sbuf *b, const void *x)
{
    const plot_made *m = x;
    rb_plot_html_to(b, m->d, m->files);
}

/* The report, reading the charts back from their outputs. 0, or -1 with err. */
static int stage_report(const rb_plot_data *d, rb_outputs *outs, const rb_plot_outs *at, char *err,
                        size_t err_size)
{
    plot_made m = {d, 0, NULL, {NULL}};
    int rc = 0;
    for (int k = 0; k < RB_PLOT_FILES && rc == 0; k++)
        if (rb_outputs_staged(outs, at->file[k]) &&
            !(m.files[k] = rb_outputs_read(outs, at->file[k])))
            rc = -1;
    if (rc == 0)
        rc = rb_outputs_stage_made(outs, at->html, make_report, &m, err, err_size);
    for (int k = 0; k < RB_PLOT_FILES; k++)
        if (m.files[k])
            fclose(m.files[k]);
    return rc;
}

/* The charts that have points, the speedup chart and the report, each written to its output as
 * it is drawn: the report reads the charts back from theirs. 0, or -1 with err. */
static int stage_all(const rb_plot_data *d, rb_outputs *outs, rb_plot_outs *at, char *err,
                     size_t err_size)
{
    int rc = 0;
    at->written = 0;
    for (int k = 0; k < RB_PLOT_FILES && rc == 0; k++) {
        if (k < RB_CHART_COUNT && !rb_plot_chart_used(d, (rb_plot_chart)k))
            continue;
        plot_made m = {d, k, NULL, {NULL}};
        if (k < RB_CHART_COUNT &&
            !(m.scratch = rb_outputs_scratch(outs, at->file[k], err, err_size)))
            return -1;
        rc = rb_outputs_stage_made(outs, at->file[k], make_chart, &m, err, err_size);
        if (m.scratch)
            fclose(m.scratch);
        if (rc == 0 && k < RB_CHART_COUNT)
            at->written |= 1u << k;
    }
    if (rc == 0 && at->html >= 0)
        rc = stage_report(d, outs, at, err, err_size);
    return rc;
}

/* rb_plot_stage of doc; owned (doc itself, or NULL) is freed once read. */
static int stage_doc(const json_value *doc, json_value *owned, const char *source_path,
                     const rb_filter *filter, rb_outputs *outs, rb_plot_outs *at, char *err,
                     size_t err_size)
{
    rb_plot_data d;
    char why[300];
    rb_fmt(err, err_size, "%s", "");
    int loaded = rb_plot_load(doc, filter, &d, why, sizeof why);
    json_free(owned);
    if (loaded != 0) {
        rb_fmt(err, err_size, "%s: %s", source_path, why);
        return -1;
    }
    if (filter && d.n_pairs == 0) {
        rb_fmt(err, err_size, "%s: no pair matches --filter '%s'", source_path, filter->text);
        rb_plot_free(&d);
        return -1;
    }
    d.path = source_path;
    int rc = stage_all(&d, outs, at, err, err_size);
    if (rc != 0 && !err[0])
        rb_fmt(err, err_size, "%s: out of memory", source_path);
    rb_plot_free(&d);
    return rc;
}

int rb_plot_stage(const json_value *doc, const char *source_path, const rb_filter *filter,
                  rb_outputs *outs, rb_plot_outs *at, char *err, size_t err_size)
{
    return stage_doc(doc, NULL, source_path, filter, outs, at, err, err_size);
}

int rb_plot_stage_taking(json_value *doc, const char *source_path, const rb_filter *filter,
                         rb_outputs *outs, rb_plot_outs *at, char *err, size_t err_size)
{
    return stage_doc(doc, doc, source_path, filter, outs, at, err, err_size);
}
