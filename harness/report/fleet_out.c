/* SPDX-License-Identifier: MIT */
/* The fleet file of roofbench_mpi, its Markdown twin and its terminal summary (fleet.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleet.h"
#include "node.h"
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
static void markdown_slowest(rb_sbuf *b, const json_value *slowest)
{
    rb_sbuf_add(b, "\n## Collectives: the slowest rank\n\nEach rank's own median time of each "
                   "collective variant (every sample starts at a barrier; inside a collective the "
                   "ranks wait for each other, so the times differ by how late each rank came: "
                   "one rank slowest at every collective and size is the one to look at).\n\n");
    if (!slowest || slowest->type != JSON_ARRAY || slowest->count == 0) {
        rb_sbuf_add(b, "No collective was timed.\n");
        return;
    }
    rb_sbuf_add(b, "| row | variant | slowest rank | host | its ms | every rank's ms |\n"
                   "|---|---|---|---|---|---|\n");
    for (uint32_t i = 0; i < slowest->count; i++) {
        const json_value *s = slowest->items[i], *all = json_get(s, "ranks_ms");
        rb_sbuf_add(b, "| ");
        rb_md_text(b, json_string_at(s, "row", "?"));
        rb_sbuf_add(b, " | ");
        rb_md_text(b, json_string_at(s, "variant", "?"));
        rb_sbuf_add(b, " | %.0f | ", json_number_at(s, "rank"));
        rb_md_text(b, json_string_at(s, "host", "?"));
        rb_sbuf_add(b, " | %.4g |", json_number_at(s, "time_ms"));
        for (uint32_t r = 0; all && all->type == JSON_ARRAY && r < all->count; r++)
            rb_sbuf_add(b, " %.4g",
                        all->items[r]->type == JSON_NUMBER ? all->items[r]->number : NAN);
        rb_sbuf_add(b, " |\n");
    }
}

char *rb_fleet_markdown(const json_value *fleet)
{
    char *node = rb_node_markdown(fleet);
    rb_sbuf b = {0};
    if (!node)
        return NULL;
    rb_sbuf_add(&b, "%s", node);
    free(node);
    rb_sbuf_add(&b, "\n## Fleet\n\n%.0f ranks on %.0f host(s), one GPU per rank.\n",
                json_number_at(fleet, "ranks"), json_number_at(fleet, "hosts"));
    markdown_slowest(&b, json_get(fleet, "slowest_rank"));
    return rb_sbuf_take(&b);
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

void rb_fleet_summary(FILE *f, const json_value *fleet)
{
    const json_value *slow = json_get(fleet, "slowest_rank");
    char host[RB_FLEET_HOST_MAX], line[200];
    rb_fmt(line, sizeof line, "fleet: %.0f GPUs (one per rank) on %.0f host(s)",
           json_number_at(fleet, "ranks"), json_number_at(fleet, "hosts"));
    fprintf(f, "%s\n", line);
    rb_node_print(f, fleet, 20);
    if (!slow || slow->type != JSON_ARRAY || slow->count == 0)
        return;
    int width = rb_table_width();
    rb_sbuf b = {.sink = f}; /* (written as it is made) */
    rb_table t;
    rb_table_fit(&t, slowest_cols, S_COUNT, width, 4);
    rb_table_head(&b, &t);
    for (uint32_t i = 0; i < slow->count; i++) {
        const json_value *s = slow->items[i];
        char name[600], shown[600], rank[16], ms[32];
        rb_fmt(name, sizeof name, "%s/%s", json_string_at(s, "row", "?"),
               json_string_at(s, "variant", "?"));
        rb_text_for_terminal(name, shown, sizeof shown);
        rb_text_for_terminal(json_string_at(s, "host", "?"), host, sizeof host);
        rb_fmt(rank, sizeof rank, "%.0f", json_number_at(s, "rank"));
        rb_fmt(ms, sizeof ms, "%.4g", json_number_at(s, "time_ms"));
        const char *cells[S_COUNT] = {shown, rank, ms, host};
        rb_table_row(&b, &t, cells);
    }
    if (rb_sbuf_flush(&b) != 0 && !ferror(f))
        fprintf(stderr, "roofbench: the fleet's report: out of memory\n");
}
