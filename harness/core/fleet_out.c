/* SPDX-License-Identifier: MIT */
/* The fleet file of roofbench_mpi, its Markdown twin and its terminal summary (fleet.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleet.h"
#include "outputs.h"
#include "plot.h"

int rb_fleet_check_outputs(const rb_options *o, char *err, size_t err_size)
{
    char md[RB_PATH_BUF + 32];
    if (!o->json_path)
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

static void make_markdown(rb_sbuf *b, const void *fleet)
{
    rb_fleet_markdown(b, fleet);
}

/* Stages both files at path (its .md beside it) and commits them. 0; 1 when fresh names are
 * taken (retry under another); -1 with err. */
static int save_at(const char *path, int fresh, const json_value *fleet, char *err,
                   size_t err_size)
{
    char md[RB_PATH_BUF + 32];
    char *text = json_write(fleet, 2);
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
        if (rb_outputs_stage_text(outs, j, text, err, err_size) == 0 &&
            rb_outputs_stage_made(outs, m, make_markdown, fleet, err, err_size) == 0)
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
    if (o->json_path) {
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
            if (!rb_fmt_fits(path, sizeof path, "%s/%s/%s-%s%s.json", o->results_dir, key, stamp,
                             git_rev, suffix)) {
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

static const char *start_text(const json_value *gpu, const char *key)
{
    return json_string_at(json_get(json_get(json_get(gpu, "run"), "environment"), "start"), key,
                          "?");
}

/* Pairs of a GPU's run that failed. */
static int failed_pairs(const json_value *gpu)
{
    const json_value *pairs = json_get(json_get(gpu, "run"), "pairs");
    int failed = 0;
    for (uint32_t i = 0; pairs && pairs->type == JSON_ARRAY && i < pairs->count; i++)
        failed += !strcmp(json_string_at(pairs->items[i], "status", ""), "failed");
    return failed;
}

static void markdown_gpus(rb_sbuf *b, const json_value *gpus)
{
    rb_sbuf_add(b, "## GPUs\n\n| host | rank | GPU | device | UUID | PCI bus id | platform: DRAM "
                   "GB/s | FP32 TFLOP/s | launch us | pairs | failed |\n"
                   "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (uint32_t i = 0; gpus && gpus->type == JSON_ARRAY && i < gpus->count; i++) {
        const json_value *g = gpus->items[i], *run = json_get(g, "run");
        const json_value *pf = json_get(run, "platform"), *pairs = json_get(run, "pairs");
        rb_sbuf_add(b, "| ");
        rb_md_text(b, json_string_at(g, "host", "?"));
        rb_sbuf_add(b, " | %.0f | %.0f | ", json_number_at(g, "rank"),
                    json_number_at(g, "device_index"));
        rb_md_text(b, start_text(g, "device"));
        rb_sbuf_add(b, " | ");
        rb_md_text(b, json_string_at(g, "uuid", "?"));
        rb_sbuf_add(b, " | ");
        rb_md_text(b, json_string_at(g, "pci_bus_id", "?"));
        rb_sbuf_add(b, " | %.1f | %.2f | %.2f | %u | %d |\n", json_number_at(pf, "dram_gbps"),
                    json_number_at(pf, "fp32_tflops"), json_number_at(pf, "launch_us"),
                    pairs ? pairs->count : 0, failed_pairs(g));
    }
}

static void markdown_outliers(rb_sbuf *b, const json_value *outliers)
{
    rb_sbuf_add(b, "\n## Outliers\n\n");
    if (!outliers || outliers->type != JSON_ARRAY || outliers->count == 0) {
        rb_sbuf_add(b, "None: no GPU is slower than the fleet by more than its threshold.\n");
        return;
    }
    rb_sbuf_add(b, "| host | GPU | row | variant | roof | value | reference | ratio | threshold "
                   "| attribution | evidence |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (uint32_t i = 0; i < outliers->count; i++) {
        const json_value *x = outliers->items[i];
        rb_sbuf_add(b, "| ");
        rb_md_text(b, json_string_at(x, "host", "?"));
        rb_sbuf_add(b, " | %.0f | ", json_number_at(x, "device_index"));
        rb_md_text(b, json_string_at(x, "row", json_string_at(x, "pair", "?")));
        rb_sbuf_add(b, " | ");
        rb_md_text(b, json_string_at(x, "variant", "?"));
        rb_sbuf_add(b, " | ");
        rb_md_text(b, json_string_at(x, "roof", "-"));
        rb_sbuf_add(b, " | %.4g | %.4g (%s) | %.3f | %.1f%% | ", json_number_at(x, "value"),
                    json_number_at(x, "reference"), json_string_at(x, "reference_kind", "?"),
                    json_number_at(x, "ratio"), 100 * json_number_at(x, "threshold"));
        rb_md_text(b, json_string_at(x, "attribution", "?"));
        rb_sbuf_add(b, " | ");
        rb_md_text(b, json_string_at(x, "evidence", ""));
        rb_sbuf_add(b, " |\n");
    }
}

static void markdown_slowest(rb_sbuf *b, const json_value *slowest)
{
    rb_sbuf_add(b, "\n## Collectives: the slowest rank\n\nEach rank's own median time of each "
                   "collective (every sample starts at a barrier; the ranks wait for each other "
                   "inside it, so the spread is small unless one rank is late).\n\n");
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
            rb_sbuf_add(b, " %.4g", all->items[r]->type == JSON_NUMBER ? all->items[r]->number
                                                                         : NAN);
        rb_sbuf_add(b, " |\n");
    }
}

void rb_fleet_markdown(rb_sbuf *b, const json_value *fleet)
{
    rb_sbuf_add(b, "# roofbench fleet: %.0f ranks on %.0f host(s), ", json_number_at(fleet, "ranks"),
                json_number_at(fleet, "hosts"));
    rb_md_text(b, json_string_at(fleet, "hardware_key", "?"));
    rb_sbuf_add(b, "\n\n");
    markdown_gpus(b, json_get(fleet, "gpus"));
    markdown_outliers(b, json_get(fleet, "outliers"));
    markdown_slowest(b, json_get(fleet, "slowest_rank"));
}

void rb_fleet_summary(FILE *f, const json_value *fleet)
{
    const json_value *outliers = json_get(fleet, "outliers"), *slow = json_get(fleet, "slowest_rank");
    char shown[RB_FLEET_HOST_MAX];
    fprintf(f, "fleet: %.0f GPUs (ranks) on %.0f host(s)\n", json_number_at(fleet, "ranks"),
            json_number_at(fleet, "hosts"));
    for (uint32_t i = 0; outliers && outliers->type == JSON_ARRAY && i < outliers->count; i++) {
        const json_value *x = outliers->items[i];
        rb_text_for_terminal(json_string_at(x, "host", "?"), shown, sizeof shown);
        fprintf(f, "  OUTLIER %s GPU %.0f: %s/%s %s at %.3f of its reference (threshold %.1f%%): "
                   "%s, %s\n",
                shown, json_number_at(x, "device_index"),
                json_string_at(x, "row", json_string_at(x, "pair", "?")),
                json_string_at(x, "variant", "?"), json_string_at(x, "roof", "-"),
                json_number_at(x, "ratio"), 100 * json_number_at(x, "threshold"),
                json_string_at(x, "attribution", "?"), json_string_at(x, "evidence", ""));
    }
    if (!outliers || !outliers->count)
        fprintf(f, "  no outlier: no GPU is slower than the fleet by more than its threshold\n");
    for (uint32_t i = 0; slow && slow->type == JSON_ARRAY && i < slow->count; i++) {
        const json_value *s = slow->items[i];
        rb_text_for_terminal(json_string_at(s, "host", "?"), shown, sizeof shown);
        fprintf(f, "  slowest rank of %s/%s: %.0f (%s), %.4g ms\n", json_string_at(s, "row", "?"),
                json_string_at(s, "variant", "?"), json_number_at(s, "rank"), shown,
                json_number_at(s, "time_ms"));
    }
}
