/* SPDX-License-Identifier: MIT */
/* The fleet file of roofbench_mpi, its Markdown twin and its terminal summary (fleet.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleet.h"
#include "node.h"
#include "node_doc.h"
#include "outputs.h"
#include "plot.h"
#include "result.h"
#include "table.h"

int rb_fleet_check_outputs(const rb_options *o, char *err, size_t err_size)
{
    char md[RB_PATH_BUF + 32];
    if (!o->json_path || rb_cli_is_stdout(o->json_path))
        return rb_dir_writable(o->results_dir, err, err_size);
    if (rb_plot_sibling(o->json_path, ".json", ".md", md, sizeof md) != 0) {
        rb_fmt(err, err_size, "%.60s...: the path is too long", o->json_path);
        return -1;
    }
    return rb_output_file_ok(o->json_path, 0, err, err_size) != 0 ||
                   rb_output_file_ok(md, 0, err, err_size) != 0
               ? -1
               : 0;
}

/* Stages both files at path (its .md beside it) and commits them. 0; 1 when fresh names are
 * taken (retry under another); -1 with err. */
static int save_at(const char *path, int fresh, const json_value *fleet, char *err, size_t err_size)
{
    char md[RB_PATH_BUF + 32];
    char *text = rb_fleet_markdown(fleet);
    rb_outputs *outs = rb_outputs_new(0);
    unsigned flags = RB_OUT_MAKE_DIRS | (fresh ? RB_OUT_NEW : 0);
    int rc = -1;
    if (!text || !outs)
        rb_fmt(err, err_size, "out of memory");
    else if (rb_plot_sibling(path, ".json", ".md", md, sizeof md) != 0)
        rb_fmt(err, err_size, "%.60s...: the path is too long", path);
    else {
        int j = rb_outputs_add(outs, path, "the fleet file", flags);
        int m = rb_outputs_add(outs, md, "the fleet report", flags);
        if (rb_node_stage(outs, j, -1, fleet, err, err_size) == 0 &&
            rb_outputs_stage_text(outs, m, text, err, err_size) == 0)
            rc = rb_outputs_commit(outs, err, err_size);
    }
    rb_outputs_free(outs);
    free(text);
    return rc;
}

int rb_fleet_save(const rb_options *o, const json_value *fleet, const char *git_rev, char *err,
                  size_t err_size)
{
    char path[RB_PATH_BUF], stamp[32];
    const char *key = json_string_at(fleet, "hardware_key", "");
    int rc = 1;
    if (o->json_path && !rb_cli_is_stdout(o->json_path)) {
        rb_fmt(path, sizeof path, "%s", o->json_path);
        rc = save_at(path, 0, fleet, err, err_size);
    } else if (!rb_is_hardware_key(key)) {
        rb_fmt(err, err_size, "the fleet's hardware key '%.60s' is not a hardware key", key);
        rc = -1;
    } else {
        rb_utc_stamp(stamp, sizeof stamp);
        for (int k = 1; k <= 1000 && rc == 1; k++) {
            char suffix[16] = "";
            if (k > 1)
                rb_fmt(suffix, sizeof suffix, "-%d", k);
            if (rb_results_default_path(path, sizeof path, o->results_dir, key, stamp, git_rev,
                                        suffix) != 0) {
                rb_fmt(err, err_size, "%.60s...: the path is too long", o->results_dir);
                return -1;
            }
            rc = save_at(path, 1, fleet, err, err_size);
        }
        if (rc == 1)
            rb_fmt(err, err_size, "%s: 1000 fleet files of that name exist", path);
    }
    if (rc == 0)
        printf("fleet results: %s (+ the Markdown .md beside it)\n", path);
    return rc == 0 ? 0 : -1;
}

/* ---- the report ---- */

/* The slowest rank of each collective, in Markdown. */
static void markdown_slowest(rb_sbuf *b, const rb_node_doc *d)
{
    rb_sbuf_add(b, "\n## Collectives: the slowest rank\n\nEach rank's own median time of each "
                   "collective variant (every sample starts at a barrier; inside a collective the "
                   "ranks wait for each other, so the times differ by how late each rank came: "
                   "one rank slowest at every collective and size is the one to look at).\n\n");
    if (d->n_slowest == 0) {
        rb_sbuf_add(b, "No collective was timed.\n");
        return;
    }
    rb_sbuf_add(b, "| row | variant | slowest rank | host | its ms | every rank's ms |\n"
                   "|---|---|---|---|---|---|\n");
    for (int i = 0; i < d->n_slowest; i++) {
        const rb_fleet_slowest *s = &d->slowest[i];
        rb_sbuf_add(b, "| ");
        rb_md_text(b, rb_results_text(s->row, "?"));
        rb_sbuf_add(b, " | ");
        rb_md_text(b, rb_results_text(s->variant, "?"));
        rb_sbuf_add(b, " | %.0f | ", s->rank);
        rb_md_text(b, rb_results_text(s->host, "?"));
        rb_sbuf_add(b, " | %.4g |", s->time_ms);
        for (int r = 0; r < s->n_ranks; r++)
            rb_sbuf_add(b, " %.4g", s->ranks_ms[r]);
        rb_sbuf_add(b, " |\n");
    }
}

char *rb_fleet_markdown(const json_value *fleet)
{
    rb_node_doc d;
    char err[400];
    if (rb_node_doc_read(fleet, &d, err, sizeof err) != 0)
        return NULL;
    char *node = rb_node_doc_markdown(&d);
    rb_sbuf b = {0};
    if (node) {
        rb_sbuf_add(&b, "%s", node);
        rb_sbuf_add(&b, "\n## Fleet\n\n%.0f ranks on %.0f host(s), one GPU per rank.\n", d.ranks,
                    d.hosts);
        markdown_slowest(&b, &d);
    }
    free(node);
    rb_node_doc_free(&d);
    return node ? rb_sbuf_take(&b) : NULL;
}

/* The slowest rank of each collective: where the width is short the host goes under the row,
 * then the collective's name is abbreviated (down to 16). */
enum { S_ROW, S_RANK, S_MS, S_HOST, S_COUNT };
static const rb_table_col slowest_cols[S_COUNT] = {
    {"collective/variant (the slowest rank)", 52, 16, 2, RB_COL_LEFT | RB_COL_ABBREV},
    {"rank", 5, 0, 0, 0},
    {"its ms", 10, 0, 0, 0},
    {"host", 0, 8, 1, RB_COL_LEFT | RB_COL_REST},
};

static void summary_slowest(FILE *f, const rb_node_doc *d)
{
    int width = rb_table_width();
    rb_sbuf b = {.sink = f}; /* (written as it is made) */
    rb_table t;
    rb_table_fit(&t, slowest_cols, S_COUNT, width, 4);
    rb_table_head(&b, &t);
    for (int i = 0; i < d->n_slowest; i++) {
        const rb_fleet_slowest *s = &d->slowest[i];
        char name[600], shown[600], rank[16], ms[32], host[RB_FLEET_HOST_MAX];
        rb_fmt(name, sizeof name, "%s/%s", rb_results_text(s->row, "?"),
               rb_results_text(s->variant, "?"));
        rb_text_for_terminal(name, shown, sizeof shown);
        rb_text_for_terminal(rb_results_text(s->host, "?"), host, sizeof host);
        rb_fmt(rank, sizeof rank, "%.0f", s->rank);
        rb_fmt(ms, sizeof ms, "%.4g", s->time_ms);
        const char *cells[S_COUNT] = {shown, rank, ms, host};
        rb_table_row(&b, &t, cells);
    }
    if (rb_sbuf_flush(&b) != 0 && !ferror(f))
        fprintf(stderr, "roofbench: the fleet's report: out of memory\n");
}

void rb_fleet_summary(FILE *f, const json_value *fleet)
{
    rb_node_doc d;
    char err[400], line[200];
    if (rb_node_doc_read(fleet, &d, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: the fleet's report: %s\n", err);
        return;
    }
    rb_fmt(line, sizeof line, "fleet: %.0f GPUs (one per rank) on %.0f host(s)", d.ranks, d.hosts);
    fprintf(f, "%s\n", line);
    rb_node_doc_print(f, &d, 20);
    if (d.n_slowest > 0)
        summary_slowest(f, &d);
    rb_node_doc_free(&d);
}
