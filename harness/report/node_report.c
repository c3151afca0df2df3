/* SPDX-License-Identifier: MIT */
/* The report of a node document: the terminal summary, the Markdown twin and the files. */
#include "node.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outputs.h"
#include "p2p_table.h"
#include "report.h"
#include "result_read.h"
#include "table.h"
#include "util.h"

/* What one GPU's line says: its rows' verdicts and outliers, and the attribution of most. */
typedef struct node_gpu_line {
    int rows, regressed, invalid, flagged;
    const char *attribution;
    double worst_ratio;
} node_gpu_line;

#define NODE_TEXT(s) rb_results_text((s), "?")

static int node_same_gpu(const rb_node_outlier *o, const rb_node_gpu *g)
{
    return o->device_index == g->device_index &&
           !strcmp(rb_results_text(o->host, ""), rb_results_text(g->host, "")) &&
           !strcmp(rb_results_text(o->uuid, ""), rb_results_text(g->uuid, ""));
}

static void node_line_of(const rb_node_doc *d, const rb_node_gpu *g, node_gpu_line *l)
{
    static const char *const names[] = {"platform", "thermal", "power",
                                        "pcie",     "ecc",     "unexplained"};
    int count[6] = {0};
    memset(l, 0, sizeof *l);
    l->worst_ratio = NAN;
    for (int i = 0; i < g->run.n_groups; i++)
        for (int k = 0; k < g->run.groups[i].n_variants; k++) {
            const char *verdict = g->run.groups[i].v[k].verdict;
            l->rows++;
            l->regressed += !strcmp(verdict, rb_verdict_name(RB_VERDICT_REGRESSED));
            l->invalid += !strcmp(verdict, rb_verdict_name(RB_VERDICT_INVALID));
        }
    for (int i = 0; i < d->n_outliers; i++) {
        const rb_node_outlier *o = &d->outliers[i];
        if (!node_same_gpu(o, g) || !rb_node_doc_gates(d, o))
            continue;
        l->flagged++;
        if (!(l->worst_ratio >= o->ratio))
            l->worst_ratio = o->ratio;
        for (int k = 0; k < 6; k++)
            count[k] += !strcmp(rb_results_text(o->attribution, ""), names[k]);
    }
    int best = -1;
    for (int k = 0; k < 6; k++)
        if (count[k] > 0 && (best < 0 || count[k] > count[best]))
            best = k;
    l->attribution = best >= 0 ? names[best] : "-";
}

/* "gpu 2 host a 0000:41:00.0 GPU-1234abcd": who a GPU is, short. */
static void node_who(const rb_node_gpu *g, char *buf, size_t size)
{
    char host[64], uuid[24];
    rb_text_for_terminal(NODE_TEXT(g->host), host, sizeof host);
    rb_text_for_terminal(NODE_TEXT(g->uuid), uuid, 13);
    rb_fmt(buf, size, "%s:%.0f %s %s", host, g->device_index, NODE_TEXT(g->pci_bus_id), uuid);
}

/* " (2 host-bound, not flagged)" after the outlier count, or nothing. */
static void node_host_bound_note(char *buf, size_t size, const rb_node_doc *d)
{
    int n = rb_node_doc_count(d, 0);
    buf[0] = '\0';
    if (n > 0)
        rb_fmt(buf, size, " (%d host-bound, not flagged)", n);
}

/* One outlier's line: "outlier" for one that counts, "host-bound" for one that does not;
 * wrapped at width (0: whole). */
static void node_print_outlier(rb_sbuf *b, int width, const rb_node_outlier *x, int gates)
{
    char ev[400], row[96], line[1200];
    rb_text_for_terminal(rb_results_text(x->evidence, ""), ev, sizeof ev);
    rb_text_for_terminal(rb_results_text(x->row, ""), row, sizeof row);
    rb_fmt(line, sizeof line, "%s %s:%.0f %s/%s x%.3f > 1+%.3f vs %s: %s: %s%s",
           gates ? "outlier" : "host-bound", NODE_TEXT(x->host), x->device_index, row,
           NODE_TEXT(x->variant), x->ratio, x->threshold, NODE_TEXT(x->reference_kind),
           NODE_TEXT(x->attribution), ev,
           gates ? "" : ": not flagged (the host sets this row's time; --gate all flags it)");
    rb_table_line(b, line, width, 4);
}

/* The outliers that count, then the host-bound ones, at most max lines in all. */
static void node_print_outliers(rb_sbuf *b, int width, const rb_node_doc *d, int max)
{
    int shown = 0, total = d->n_outliers;
    for (int gating = 1; gating >= 0; gating--)
        for (int i = 0; i < d->n_outliers; i++) {
            int gates = rb_node_doc_gates(d, &d->outliers[i]) != 0;
            if (gates != gating)
                continue;
            if (shown >= max) {
                rb_sbuf_add(b, "... and %d more outliers (the Markdown lists them all)\n",
                            total - shown);
                return;
            }
            node_print_outlier(b, width, &d->outliers[i], gates);
            shown++;
        }
}

/* The GPUs' table: where the width is short the rows, the attribution, the PCI bus id and the
 * UUID go under the row, then the GPU's host:index is abbreviated (down to 12: the index stays,
 * at the tail), then the FP32 figure goes under. */
enum { N_WHO, N_BUS, N_UUID, N_DRAM, N_FP32, N_ROWS, N_REGR, N_FLAGGED, N_ATTR, N_WORST, N_COUNT };
static const rb_table_col node_cols[N_COUNT] = {
    {"GPU (host:index)", 40, 12, 5, RB_COL_LEFT | RB_COL_ABBREV},
    {"PCI bus", 12, 0, 3, RB_COL_LEFT},
    {"UUID", 12, 0, 4, RB_COL_LEFT},
    {"DRAM GB/s", 9, 0, 0, 0},
    {"TFLOP/s", 7, 0, 6, 0},
    {"rows", 5, 0, 1, 0},
    {"regr", 6, 0, 0, 0},
    {"flagged", 7, 0, 0, 0},
    {"attribution", 11, 0, 2, RB_COL_LEFT},
    {"worst", 0, 6, 0, RB_COL_LEFT | RB_COL_REST},
};

/* "gpu-node-017:2": a GPU's host and index, shown for the terminal. */
static void node_host_index(const rb_node_gpu *g, char *buf, size_t size)
{
    char host[64];
    rb_text_for_terminal(NODE_TEXT(g->host), host, sizeof host);
    rb_fmt(buf, size, "%s:%.0f", host, g->device_index);
}

/* A platform figure, "-" when the run has none. */
static void node_figure(char *buf, size_t size, const char *fmt, double x)
{
    if (isfinite(x))
        rb_fmt(buf, size, fmt, x);
    else
        rb_fmt(buf, size, "-");
}

static void node_gpu_row(rb_sbuf *b, const rb_table *t, const rb_node_doc *d, const rb_node_gpu *g)
{
    node_gpu_line l;
    char who[96], bus[32], uuid[24], dram[32], fp32[32], rows[16], regr[16], flagged[16];
    char worst[16] = "-";
    node_line_of(d, g, &l);
    node_host_index(g, who, sizeof who);
    rb_text_for_terminal(NODE_TEXT(g->pci_bus_id), bus, sizeof bus);
    rb_text_for_terminal(NODE_TEXT(g->uuid), uuid, 13);
    if (isfinite(l.worst_ratio))
        rb_fmt(worst, sizeof worst, "x%.3f", l.worst_ratio);
    node_figure(dram, sizeof dram, "%.0f", g->run.platform.dram_gbps);
    node_figure(fp32, sizeof fp32, "%.1f", g->run.platform.fp32_tflops);
    rb_fmt(rows, sizeof rows, "%d", l.rows);
    rb_fmt(regr, sizeof regr, "%d", l.regressed + l.invalid);
    rb_fmt(flagged, sizeof flagged, "%d", l.flagged);
    const char *cells[N_COUNT] = {who,  bus,  uuid,    dram,          fp32,
                                  rows, regr, flagged, l.attribution, worst};
    rb_table_row(b, t, cells);
}

void rb_node_doc_print(FILE *f, const rb_node_doc *d, int max_outliers)
{
    char note[64], head[300];
    int width = rb_table_width();
    rb_sbuf b = {.sink = f}; /* (written as it is made) */
    node_host_bound_note(note, sizeof note, d);
    rb_fmt(head, sizeof head, "node %s: %d GPUs, %d outliers%s", NODE_TEXT(d->hardware_key),
           d->n_gpus, rb_node_doc_count(d, 1), note);
    rb_table_line(&b, head, width, 4);
    /* the GPU column as wide as the longest host:index, up to its 40 */
    rb_table_col cols[N_COUNT];
    memcpy(cols, node_cols, sizeof cols);
    int longest = rb_table_text_cols(cols[N_WHO].head);
    for (int i = 0; i < d->n_gpus; i++) {
        char who[96];
        node_host_index(&d->gpus[i], who, sizeof who);
        longest = rb_table_text_cols(who) > longest ? rb_table_text_cols(who) : longest;
    }
    cols[N_WHO].width = longest < cols[N_WHO].width ? longest : cols[N_WHO].width;
    rb_table t;
    rb_table_fit(&t, cols, N_COUNT, width, 4);
    rb_table_head(&b, &t);
    for (int i = 0; i < d->n_gpus; i++)
        node_gpu_row(&b, &t, d, &d->gpus[i]);
    node_print_outliers(&b, width, d, max_outliers);
    if (d->p2p_matrix)
        rb_p2p_text(&b, d->p2p_matrix, 0);
    if (rb_sbuf_flush(&b) != 0 && !ferror(f))
        fprintf(stderr, "roofbench: the node's report: out of memory\n");
}

void rb_node_print(FILE *f, const json_value *node, int max_outliers)
{
    rb_node_doc d;
    char err[400];
    if (rb_node_doc_read(node, &d, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: the node's report: %s\n", err);
        return;
    }
    rb_node_doc_print(f, &d, max_outliers);
    rb_node_doc_free(&d);
}

static void node_md_summary(rb_sbuf *b, const rb_node_doc *d)
{
    char note[64];
    node_host_bound_note(note, sizeof note, d);
    rb_sbuf_add(b, "# roofbench %s: ", rb_results_text(d->kind, "node"));
    rb_md_text(b, NODE_TEXT(d->hardware_key));
    rb_sbuf_add(b, "\n\n- date: %s, git: %s, %d GPUs, %d outliers%s\n\n", NODE_TEXT(d->date),
                NODE_TEXT(d->git), d->n_gpus, rb_node_doc_count(d, 1), note);
    rb_sbuf_add(b, "| host | index | PCI bus | UUID | DRAM GB/s | FP32 TFLOP/s | rows | regressed "
                   "or invalid | outliers | attribution | worst |\n"
                   "|---|---:|---|---|---:|---:|---:|---:|---:|---|---:|\n");
    for (int i = 0; i < d->n_gpus; i++) {
        const rb_node_gpu *g = &d->gpus[i];
        node_gpu_line l;
        node_line_of(d, g, &l);
        rb_sbuf_add(b, "| ");
        rb_md_text(b, NODE_TEXT(g->host));
        rb_sbuf_add(b, " | %.0f | ", g->device_index);
        rb_md_text(b, NODE_TEXT(g->pci_bus_id));
        rb_sbuf_add(b, " | ");
        rb_md_text(b, NODE_TEXT(g->uuid));
        char worst[16] = "-";
        if (isfinite(l.worst_ratio))
            rb_fmt(worst, sizeof worst, "x%.3f", l.worst_ratio);
        rb_sbuf_add(b, " | %.0f | %.1f | %d | %d | %d | %s | %s |\n", g->run.platform.dram_gbps,
                    g->run.platform.fp32_tflops, l.rows, l.regressed + l.invalid, l.flagged,
                    l.attribution, worst);
    }
}

/* The table of the node's outliers that count (gating) or of the host-bound ones that do not. */
static void node_md_outlier_table(rb_sbuf *b, const rb_node_doc *d, int gating)
{
    rb_sbuf_add(b, "| host | index | row | variant | roof | ms | reference ms | against | ratio "
                   "| threshold | attribution | evidence |\n"
                   "|---|---:|---|---|---|---:|---:|---|---:|---:|---|---|\n");
    for (int i = 0; i < d->n_outliers; i++) {
        const rb_node_outlier *x = &d->outliers[i];
        if ((rb_node_doc_gates(d, x) != 0) != gating)
            continue;
        const char *text[] = {x->host, x->row, x->variant, x->roof};
        rb_sbuf_add(b, "| ");
        for (int k = 0; k < 4; k++) {
            rb_md_text(b, NODE_TEXT(text[k]));
            if (k == 0)
                rb_sbuf_add(b, " | %.0f", x->device_index);
            rb_sbuf_add(b, " | ");
        }
        rb_sbuf_add(b, "%.4g | %.4g | %s | %.3f | %.3f | %s | ", x->value, x->reference,
                    NODE_TEXT(x->reference_kind), x->ratio, x->threshold,
                    NODE_TEXT(x->attribution));
        rb_md_text(b, rb_results_text(x->evidence, ""));
        rb_sbuf_add(b, " |\n");
    }
}

static void node_md_outliers(rb_sbuf *b, const rb_node_doc *d)
{
    rb_sbuf_add(b, "\n## Outliers\n\n");
    if (rb_node_doc_count(d, 1) == 0)
        rb_sbuf_add(b, "None: no GPU fell behind the others by more than its threshold.\n");
    else
        node_md_outlier_table(b, d, 1);
    if (rb_node_doc_count(d, 0) == 0)
        return;
    rb_sbuf_add(b, "\n### Host-bound rows, not flagged\n\nThe host sets these rows' time (an "
                   "informational variant): not flagged unless `--gate all`.\n\n");
    node_md_outlier_table(b, d, 0);
}

/* A run's Markdown page under a GPU's heading, its headings two levels down. */
static int node_md_gpu(rb_sbuf *b, const rb_node_gpu *g)
{
    rb_results_doc run;
    char err[300], who[128];
    if (rb_results_doc_read(g->run_doc, &run, err, sizeof err) != 0)
        return -1;
    char *md = rb_report_markdown(run.pairs, run.n_pairs, &run);
    rb_results_doc_free(&run);
    if (!md)
        return -1;
    node_who(g, who, sizeof who);
    rb_sbuf_add(b, "\n## GPU ");
    rb_md_text(b, who);
    rb_sbuf_add(b, "\n\n");
    for (const char *line = md; *line;) {
        size_t len = strcspn(line, "\n");
        if (line[0] == '#')
            rb_sbuf_add(b, "##");
        rb_sbuf_put(b, line, len);
        rb_sbuf_add(b, "\n");
        line += len + (line[len] == '\n');
    }
    free(md);
    return 0;
}

char *rb_node_doc_markdown(const rb_node_doc *d)
{
    rb_sbuf b = {0};
    node_md_summary(&b, d);
    node_md_outliers(&b, d);
    if (d->p2p_matrix) {
        rb_sbuf_add(&b, "\n");
        rb_p2p_text(&b, d->p2p_matrix, 1);
    }
    for (int i = 0; i < d->n_gpus; i++)
        if (node_md_gpu(&b, &d->gpus[i]) != 0) {
            rb_sbuf_free(&b);
            return NULL;
        }
    return rb_sbuf_take(&b);
}

char *rb_node_markdown(const json_value *node)
{
    rb_node_doc d;
    char err[400];
    if (rb_node_doc_read(node, &d, err, sizeof err) != 0)
        return NULL;
    char *md = rb_node_doc_markdown(&d);
    rb_node_doc_free(&d);
    return md;
}

int rb_node_stage(rb_outputs *o, int json_i, int md_i, const json_value *node, char *err,
                  size_t err_size)
{
    char *text = json_write(node, 2);
    int rc = text ? rb_outputs_stage_text(o, json_i, text, err, err_size) : -1;
    free(text);
    if (rc == 0 && md_i >= 0) {
        char *md = rb_node_markdown(node);
        rc = md ? rb_outputs_stage_text(o, md_i, md, err, err_size) : -1;
        free(md);
    }
    if (rc != 0 && !err[0])
        rb_fmt(err, err_size, "the node document: out of memory or a run it cannot read");
    return rc;
}

int rb_node_write(const json_value *node, const char *json_path, const char *md_path,
                  int through_links, char *err, size_t err_size)
{
    rb_outputs *o = rb_outputs_new(through_links);
    err[0] = '\0';
    if (!o) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    int json_i = rb_outputs_add(o, json_path, "the node results", RB_OUT_MAKE_DIRS);
    int md_i =
        md_path ? rb_outputs_add(o, md_path, "the node results' Markdown", RB_OUT_MAKE_DIRS) : -1;
    int rc = json_i < 0 || (md_path && md_i < 0) ? -1 : rb_outputs_check(o, err, err_size);
    if (rc == 0)
        rc = rb_node_stage(o, json_i, md_i, node, err, err_size);
    if (rc == 0)
        rc = rb_outputs_commit(o, err, err_size) == 0 ? 0 : -1;
    if (rc != 0 && !err[0])
        rb_fmt(err, err_size, "%s: cannot be written", json_path);
    rb_outputs_free(o);
    return rc;
}
