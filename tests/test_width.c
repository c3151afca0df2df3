/* SPDX-License-Identifier: MIT */
/*
 * Output that fits the terminal (harness/report/table.c): the run's table, compare, history and
 * list at COLUMNS=80 and COLUMNS=60, and with COLUMNS unset and the output piped (80), have no
 * line longer than the width, and so have the tables of ceilings, of a node and a fleet, of the
 * P2P matrix (8 and 16 GPUs) and of a profile, from synthetic inputs; --wide prints every name
 * whole; the collectives get a table in nccl-tests' columns; the variants a sweep does not time at
 * a row's size by design are told apart from the skipped in the table, the counts and the HTML
 * report. The inputs are the committed reference runs (results/) or synthetic, so no GPU is
 * needed. Each check is shown failing on a planted defect (a table that ignores the width, a row
 * that is not a collective, a skip that is not by design).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/model/fleet.h"
#include "../harness/model/json.h"
#include "../harness/model/node.h"
#include "../harness/model/profile.h"
#include "../harness/model/report.h"
#include "../harness/model/result_read.h"
#include "../harness/report/ceilings_out.h"
#include "../harness/report/p2p_table.h"
#include "../harness/report/plot.h"
#include "../harness/report/profile_out.h"
#include "../harness/report/table.h"
#include "rbtest.h"

#define H100 "results/nvidia-h100-80gb-hbm3/"
#define JUDGE H100 "20261126T0415Z-4053b1d-judge/"
#define PLANTED H100 "20261126T0435Z-aa9a9ac-planted-and-streamer/"
#define H200_X2 "results/nvidia-h200-x2/reference.json"
#define NODE_RUN H100 "20261122T032108Z-8d68b70.json"

static const int widths[] = {80, 60};

/* The characters of the longest line of text, and where it starts. */
static int longest_line(const char *text, const char **where)
{
    int best = 0, cols = 0;
    const char *start = text;
    *where = text;
    for (const char *s = text; *s; s++) {
        if (*s == '\n') {
            cols = 0;
            start = s + 1;
            continue;
        }
        cols += ((unsigned char)*s & 0xC0) != 0x80;
        if (cols > best) {
            best = cols;
            *where = start;
        }
    }
    return best;
}

/* 1 when no line of text is longer than width; else 0, the first such line printed. */
static int fits(const char *text, int width, const char *what)
{
    const char *line;
    int longest = text ? longest_line(text, &line) : width + 1;
    if (longest <= width)
        return 1;
    if (text)
        printf("    %s at %d columns: a line of %d: %.*s\n", what, width, longest,
               (int)strcspn(line, "\n"), line);
    return 0;
}

/* The standard output (and error) of `roofbench ARGS` into a file (not a terminal), with
 * COLUMNS=columns (NULL: unset). The caller frees. */
static char *output_of(const char *columns, const char *args)
{
    char cmd[2048], path[600], bin[1024];
    if (rbtest_binary[0] == '/' || !getcwd(bin, sizeof bin - 300))
        snprintf(bin, sizeof bin, "%s", rbtest_binary);
    else
        snprintf(bin + strlen(bin), sizeof bin - strlen(bin), "/%s", rbtest_binary);
    snprintf(path, sizeof path, "%s/width.out", rbtest_fresh_dir());
    snprintf(cmd, sizeof cmd, "%s%s '%s' %s > '%s' 2>&1 < /dev/null",
             columns ? "COLUMNS=" : "env -u COLUMNS", columns ? columns : "", bin, args, path);
    char *text = system(cmd) != -1 ? rbtest_read_file(path) : NULL;
    rbtest_remove_dir();
    return text;
}

/* A command's output fits 80 and 60 columns and, with COLUMNS unset and piped, 80; --wide
 * holds each of names whole (NULL-ended) and does not fit 80 (the planted defect: a table
 * that ignores the width fails the check). */
static void command_fits(const char *args, const char *const *names)
{
    char width[16], what[300];
    snprintf(what, sizeof what, "roofbench %.200s", args);
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        snprintf(width, sizeof width, "%d", widths[i]);
        char *text = output_of(width, args);
        RB_CHECK(text && strlen(text) > 200);
        RB_CHECK(fits(text, widths[i], what));
        free(text);
    }
    char *text = output_of(NULL, args);
    RB_CHECK(fits(text, 80, what));
    free(text);
    char wide[1200];
    snprintf(wide, sizeof wide, "%s --wide", args);
    text = output_of("60", wide);
    for (int i = 0; text && names[i]; i++)
        RB_CHECK(strstr(text, names[i]) != NULL);
    RB_CHECK(text && !fits(text, 80, "(planted: --wide, expected not to fit)"));
    free(text);
}

static void test_compare_fits(void)
{
    const char *names[] = {"gemm_autotune.awkward/optimized", NULL};
    command_fits("compare " JUDGE "same2.json " PLANTED "planted.json", names);
    const char *nccl[] = {"nccl_allreduce.reduce_scatter@256K/nccl_out_of_place", NULL};
    char args[400];
    snprintf(args, sizeof args, "compare %s %s", H200_X2, H200_X2);
    command_fits(args, nccl);
}

static void test_history_fits(void)
{
    const char *names[] = {"async_pipeline/baseline (size 268435456)", NULL};
    command_fits("history " H100, names);
}

static void test_list_fits(void)
{
    const char *names[] = {"query rows (batch x heads x seq; RxC = (batch x heads) x seq)", NULL};
    command_fits("list", names);
}

/* The run's table of a results file (as run prints it), with its summary: text the caller
 * frees. */
static char *table_of(const rb_pair_result *p, int n, int wide)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    rb_report_table(f, p, n, wide);
    rb_report_summary(f, p, n);
    fclose(f);
    return buf;
}

static int read_run(const char *path, rb_pair_result **p, int *n)
{
    char err[300];
    json_value *doc = json_parse_file(path, err, sizeof err);
    int rc = doc ? rb_results_read(doc, p, n, err, sizeof err) : -1;
    if (rc != 0)
        printf("    %s: %s\n", path, err);
    json_free(doc);
    return rc;
}

static void test_run_table_fits(void)
{
    const char *runs[] = {H100 "reference.json", H200_X2};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        rb_pair_result *p = NULL;
        int n = 0;
        RB_CHECK(read_run(runs[r], &p, &n) == 0 && n > 5);
        for (size_t i = 0; p && i < sizeof widths / sizeof widths[0]; i++) {
            char width[16];
            snprintf(width, sizeof width, "%d", widths[i]);
            setenv("COLUMNS", width, 1);
            char *text = table_of(p, n, 0);
            RB_CHECK(fits(text, widths[i], runs[r]));
            free(text);
        }
        setenv("COLUMNS", "80", 1);
        char *text = table_of(p, n, 1);
        for (int i = 0; text && i < n; i++)
            for (int k = 0; k < p[i].n_variants; k++)
                RB_CHECK(strstr(text, p[i].v[k].name) != NULL);
        /* the planted defect: the table laid out whole does not fit */
        RB_CHECK(text && !fits(text, 80, "(planted: the whole table, expected not to fit)"));
        free(text);
        free(p);
    }
    setenv("COLUMNS", "1000", 1);
}

/* The collectives' rows again under the run's table in nccl-tests' columns (size, count, type,
 * redop, time, algbw, busbw, #wrong), their extra lines without the figures the table shows. */
static void test_collectives_table(void)
{
    rb_pair_result *p = NULL;
    int n = 0;
    RB_CHECK(read_run(H200_X2, &p, &n) == 0);
    setenv("COLUMNS", "100", 1);
    char *text = table_of(p, n, 0);
    const char *heads[] = {"size (B)", "count", "type", "redop", "time (us)", "algbw", "busbw",
                           "#wrong"};
    const char *table = text ? strstr(text, "\ncollectives (nccl-tests' columns") : NULL;
    RB_CHECK(table != NULL);
    for (size_t i = 0; table && i < sizeof heads / sizeof heads[0]; i++)
        RB_CHECK(strstr(table, heads[i]) != NULL);
    RB_CHECK(table && strstr(table, "\nallreduce@8 (float, sum)\n  host_staged ") &&
             strstr(table, "\n  nccl_out_of_place ") && strstr(table, " float ") &&
             strstr(table, " sum "));
    RB_CHECK(table && strstr(table, "\nallgather@1G (float, none)\n") && strstr(table, " none "));
    const char *extra = text ? strstr(text, "\nextra: nccl_allreduce") : NULL;
    RB_CHECK(extra && strstr(extra, "nccl_version 2.28.3"));
    RB_CHECK(extra && strncmp(extra, "\nextra", 6) == 0 && !strstr(extra, "busbw_gbps"));
    free(text);
    /* the planted defect: rows whose bus bandwidth is not among their extras get no table */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p[i].n_variants; k++)
            for (int x = 0; x < p[i].v[k].n_extras; x++)
                if (!strcmp(p[i].v[k].extras[x].name, "busbw_gbps"))
                    snprintf(p[i].v[k].extras[x].name, sizeof p[i].v[k].extras[x].name, "bus");
    text = table_of(p, n, 0);
    RB_CHECK(text && !strstr(text, "collectives (nccl-tests' columns"));
    free(text);
    free(p);
    setenv("COLUMNS", "1000", 1);
}

/* The variants a sweep does not time at a row's size (RB_NOT_AT_SIZE_NOTE) are "not at size" in
 * the run's table, share one note a row group, and are counted apart from the skipped in the
 * summary and the HTML report; the planted defect, the same rows with another note (a skip that
 * is not by design), are skipped and counted so. */
static void test_not_at_size_apart(void)
{
    rb_pair_result *p = NULL;
    int n = 0;
    RB_CHECK(read_run(H100 "reference.json", &p, &n) == 0);
    int by_design = 0, skipped = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p[i].n_variants; k++)
            if (p[i].v[k].skipped)
                *(strncmp(p[i].v[k].note, RB_NOT_AT_SIZE_NOTE, strlen(RB_NOT_AT_SIZE_NOTE))
                      ? &skipped
                      : &by_design) += 1;
    RB_CHECK(by_design >= 10 && skipped >= 1);
    setenv("COLUMNS", "100", 1);
    char *text = table_of(p, n, 0), want[200];
    snprintf(want, sizeof want, "verdicts: %d pass, %d regressed, %d skipped; %d rows not timed at "
             "this size", 123, 2, skipped, by_design);
    RB_CHECK(text && strstr(text, "not at size") && strstr(text, "not timed "));
    RB_CHECK(text && strstr(text, "note: hgemm.square@36M: " RB_NOT_AT_SIZE_NOTE " (mma_sync, "));
    RB_CHECK(text && !strstr(text, "hgemm.square@36M/mma_sync: " RB_NOT_AT_SIZE_NOTE));
    if (text && !strstr(text, want))
        printf("    wanted: %s\n", want);
    RB_CHECK(text && strstr(text, want));
    free(text);
    char err[300];
    json_value *doc = json_parse_file(H100 "reference.json", err, sizeof err);
    rb_plot_data d;
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    char *html = doc ? rb_plot_html(&d) : NULL;
    snprintf(want, sizeof want, ">%d not timed at this size</span>", by_design);
    RB_CHECK(html && strstr(html, want));
    snprintf(want, sizeof want, ">%d skipped</span>", skipped);
    RB_CHECK(html && strstr(html, want));
    free(html);
    if (doc)
        rb_plot_free(&d);
    json_free(doc);
    /* the planted defect: another note, so the same rows are skipped like any other */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p[i].n_variants; k++)
            if (p[i].v[k].skipped)
                snprintf(p[i].v[k].note, sizeof p[i].v[k].note, "could not be measured");
    text = table_of(p, n, 0);
    snprintf(want, sizeof want, "%d skipped", skipped + by_design);
    RB_CHECK(text && !strstr(text, "not at size") && !strstr(text, "not timed at this size"));
    RB_CHECK(text && strstr(text, want));
    free(text);
    free(p);
    setenv("COLUMNS", "1000", 1);
}

/* ---- the tables of ceilings, node, fleet, p2p and profile, from synthetic inputs ---- */

typedef char *(*render_fn)(const void *ctx);

/* A report fits 80 and 60 columns (COLUMNS) and, under --wide, holds each of names whole
 * (NULL-ended) and does not fit 80: the planted defect, a layout that ignores the width, fails
 * the check. */
static void report_fits(const char *what, render_fn render, const void *ctx,
                        const char *const *names)
{
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        char width[16];
        snprintf(width, sizeof width, "%d", widths[i]);
        setenv("COLUMNS", width, 1);
        char *text = render(ctx);
        if (getenv("RB_TEST_SHOW_WIDTH")) /* to look at it */
            printf("---- %s at %d columns\n%s", what, widths[i], text ? text : "");
        RB_CHECK(text && strlen(text) > 200);
        RB_CHECK(fits(text, widths[i], what));
        free(text);
    }
    setenv("COLUMNS", "60", 1);
    rb_table_set_wide(1);
    char *text = render(ctx);
    for (int i = 0; text && names[i]; i++) {
        if (!strstr(text, names[i]))
            printf("    %s --wide: no '%s' whole\n", what, names[i]);
        RB_CHECK(strstr(text, names[i]) != NULL);
    }
    RB_CHECK(text && !fits(text, 80, "(planted: --wide, expected not to fit)"));
    free(text);
    rb_table_set_wide(0);
    setenv("COLUMNS", "1000", 1);
}

/* The ceilings of the committed H200 expectation file, as `roofbench ceilings` prints them while
 * it measures, and a roof skipped with a long reason. */
static char *ceilings_text(const void *ctx)
{
    const json_value *c = json_get(ctx, "ceilings"), *methods = json_get(c, "methods");
    rb_sbuf b = {0};
    int width = rb_table_width();
    rb_ceilings_head(&b, width);
    for (uint32_t i = 0; methods && i < methods->count; i++) {
        const json_value *m = methods->items[i];
        const json_value *clock = json_get(m, "sm_clock_mhz"), *power = json_get(m, "power_w");
        rb_ceiling_method cm = {.samples = json_number_at(m, "samples"),
                                .noise = json_number_at(m, "noise"),
                                .sm_clock_mhz = clock ? clock->number : NAN,
                                .power_w = power ? power->number : NAN};
        rb_fmt(cm.size, sizeof cm.size, "%s", json_string_at(m, "size", ""));
        rb_ceilings_row(&b, width, methods->keys[i], json_number_at(c, methods->keys[i]), &cm);
    }
    rb_ceilings_skip_row(&b, width, "nvlink_bidir_gbps",
                         "one GPU: a peer link needs two, and CUDA_VISIBLE_DEVICES shows one");
    return rb_sbuf_take(&b);
}

static void test_ceilings_table_fits(void)
{
    char err[300];
    json_value *e = json_parse_file("expectations/nvidia-h200.json", err, sizeof err);
    RB_CHECK(e && json_get(json_get(json_get(e, "ceilings"), "methods"), "dram_gbps"));
    const char *names[] = {"dram_latency_us", "1024 MiB copied into another 1024 MiB buffer",
                           "skipped: one GPU: a peer link needs two", NULL};
    if (e)
        report_fits("the ceilings' table", ceilings_text, e, names);
    json_free(e);
}

/* A P2P matrix of n GPUs, every measurement of every ordered pair, 1 -> 2 a weak link. */
static json_value *synthetic_p2p(int n)
{
    char line[800], err[200];
    json_value *m = rb_p2p_new();
    rb_sbuf g = {0};
    rb_sbuf_add(&g, "{\"type\":\"p2p_gpus\",\"method\":{\"oneway\":\"256 MiB cudaMemcpyPeerAsync "
                    "on the source's stream, timed until its median is known to 1%%\",\"latency"
                    "\":\"a 4-byte copy, 100 queued behind a spinning kernel, per copy\"},"
                    "\"gpus\":[");
    for (int i = 0; i < n; i++)
        rb_sbuf_add(&g,
                    "%s{\"index\":%d,\"name\":\"NVIDIA H200\",\"pci_bus_id\":\"0000:%02x:00.0\"}",
                    i ? "," : "", i, 0x19 + i);
    rb_sbuf_add(&g, "]}");
    char *text = rb_sbuf_take(&g);
    json_value *l = text ? json_parse(text, strlen(text), err, sizeof err) : NULL;
    free(text);
    int bad = !m || !l || rb_p2p_add_line(m, l, err, sizeof err) != 0;
    json_free(l);
    static const char *const kinds[] = {"oneway", "bidir", "latency", "load_latency"};
    static const double value[] = {389.0, 770.0, 2.4, 1.1};
    for (int i = 0; !bad && i < n; i++)
        for (int j = 0; !bad && j < n; j++)
            for (int k = 0; i != j && k < 4; k++) {
                if (k == 1 && i > j)
                    continue;
                double wiggle = 1 - 0.001 * ((i + j) % 5); /* within the noise */
                double v = value[k] * (i == 1 && j == 2 && k == 0 ? 0.9 : wiggle);
                rb_fmt(line, sizeof line,
                       "{\"type\":\"p2p_cell\",\"src\":%d,\"dst\":%d,\"peer_access\":true,"
                       "\"perf_rank\":0,\"kind\":\"%s\",\"value\":%.6g,\"noise\":0.01,"
                       "\"samples\":20}",
                       i, j, kinds[k], v);
                l = json_parse(line, strlen(line), err, sizeof err);
                bad |= !l || rb_p2p_add_line(m, l, err, sizeof err) != 0;
                json_free(l);
            }
    const char *roofs = "{\"nvlink_gbps\":389.5,\"nvlink_bidir_gbps\":771}";
    json_value *ceil = json_parse(roofs, strlen(roofs), err, sizeof err);
    bad |= !ceil || rb_p2p_judge(m, ceil, NULL) != 0;
    json_free(ceil);
    if (bad) {
        printf("    the synthetic P2P matrix: %s\n", err);
        json_free(m);
        return NULL;
    }
    return m;
}

static char *p2p_text(const void *m)
{
    rb_sbuf b = {0};
    rb_p2p_text(&b, m, 0);
    return rb_sbuf_take(&b);
}

static void test_p2p_table_fits(void)
{
    for (int n = 8; n <= 16; n += 8) {
        json_value *m = synthetic_p2p(n);
        RB_CHECK(m && rb_p2p_weak_count(m) == 1);
        const char *names[] = {"on the source's stream, timed until its median is known to 1%",
                               "  1 -> 2  one way         350.1 GB/s  <- weak:", NULL};
        if (m)
            report_fits(n == 8 ? "the P2P matrix of 8" : "the P2P matrix of 16", p2p_text, m,
                        names);
        /* the columns as they are (9 wide) where they fit, every cell of a row on its line */
        setenv("COLUMNS", "1000", 1);
        char *text = m ? p2p_text(m) : NULL;
        RB_CHECK(text && strstr(text, "\n  src\\dst         0         1         2"));
        free(text);
        json_free(m);
    }
}

/* A node of four GPUs from a committed run (two pairs), each GPU named as a cluster names
 * them, GPU 2's rows 12% slower (outliers with their evidence), and an 8-GPU P2P matrix. */
static json_value *synthetic_node(void)
{
    json_value *runs[4];
    char err[300];
    for (int g = 0; g < 4; g++) {
        runs[g] = json_parse_file(NODE_RUN, err, sizeof err);
        json_value *start = json_get(json_get(runs[g], "environment"), "start");
        char uuid[64], bus[32];
        rb_fmt(uuid, sizeof uuid, "GPU-5be8485%d-7c1e-4b1f-9d2a-31f0a8c2e11%d", g, g);
        rb_fmt(bus, sizeof bus, "0000:%02X:00.0", 0x18 + 0x10 * g);
        json_value *platform = json_new_object();
        if (!start || json_set_string(start, "host", "gpu-node-017.cluster.example.org") ||
            json_set_number(start, "device_index", g) || json_set_string(start, "uuid", uuid) ||
            json_set_string(start, "pci_bus_id", bus) || !platform ||
            json_set_number(platform, "dram_gbps", 3000 - g) ||
            json_set_number(platform, "fp32_tflops", 60.6) ||
            json_object_set(runs[g], "platform", platform))
            return NULL;
        const json_value *pairs = json_get(runs[g], "pairs");
        for (uint32_t p = 0; g == 2 && pairs && p < pairs->count; p++) {
            const json_value *vs = json_get(pairs->items[p], "variants");
            for (uint32_t k = 0; vs && k < vs->count; k++) {
                json_value *t = json_get(vs->items[k], "time_ms");
                if (t && json_set_number(t, "median", 1.12 * json_number_at(t, "median")))
                    return NULL;
            }
        }
    }
    json_value *node = rb_node_build("roofbench", "node", runs, 4, NULL, err, sizeof err);
    json_value *m = node ? synthetic_p2p(8) : NULL;
    if (!m || rb_node_set_p2p(node, m) != 0 || rb_node_outlier_count(node) == 0) {
        printf("    the synthetic node: %s\n", node ? "no matrix or no outlier" : err);
        json_free(node);
        return NULL;
    }
    return node;
}

static char *node_text(const void *node)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    rb_node_print(f, node, 20);
    fclose(f);
    return buf;
}

/* The fleet's report: the node's, then the slowest rank of each collective. */
static char *fleet_text(const void *fleet)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    rb_fleet_summary(f, fleet);
    fclose(f);
    return buf;
}

static void test_node_and_fleet_tables_fit(void)
{
    json_value *node = synthetic_node();
    RB_CHECK(node != NULL);
    const char *names[] = {"gpu-node-017.cluster.example.org:2 0000:38:00.0 GPU-5be84852", NULL};
    if (node)
        report_fits("the node's report", node_text, node, names);
    /* a fleet of that node: its ranks and the slowest rank of each collective */
    char err[300];
    const char *slow = "[{\"row\": \"nccl_allreduce.reduce_scatter@256K\", \"variant\": "
                       "\"nccl_out_of_place\", \"rank\": 3, \"host\": "
                       "\"gpu-node-017.cluster.example.org\", \"time_ms\": 0.0412, \"ranks_ms\": "
                       "[0.04, 0.041, 0.0405, 0.0412]}]";
    json_value *s = json_parse(slow, strlen(slow), err, sizeof err);
    RB_CHECK(s && node && !json_set_number(node, "ranks", 4) &&
             !json_set_number(node, "hosts", 1) && !json_object_set(node, "slowest_rank", s));
    const char *fleet_names[] = {"nccl_allreduce.reduce_scatter@256K/nccl_out_of_place", NULL};
    if (node && s)
        report_fits("the fleet's report", fleet_text, node, fleet_names);
    json_free(node);
}

/* A profile of three variants (one with a long name and FLOPs on the tensor pipe, one whose DRAM
 * bytes differ from its work model) and one not profiled, with H200 roofs. */
static void synthetic_profile(rb_profile *p, rb_profile_roofs *r)
{
    static const char *const rows[][2] = {{"copy_coalescing", "baseline"},
                                          {"decode_attention.paged@131072x8", "flash_split_kv"},
                                          {"hgemm.awkward@16M", "warp_specialized"},
                                          {"copy_coalescing", "library"}};
    memset(p, 0, sizeof *p);
    p->variants = calloc(4, sizeof *p->variants);
    p->n = p->variants ? 4 : 0;
    rb_fmt(p->device, sizeof p->device, "NVIDIA H200");
    for (int i = 0; i < p->n; i++) {
        rb_profile_variant *v = &p->variants[i];
        rb_fmt(v->pair, sizeof v->pair, "%.*s", (int)strcspn(rows[i][0], ".@"), rows[i][0]);
        rb_fmt(v->row, sizeof v->row, "%s", rows[i][0]);
        rb_fmt(v->variant, sizeof v->variant, "%s", rows[i][1]);
        v->profiled = i < 3;
        v->declared_bytes = 2.147e9;
        v->declared_flops = 2.75e11;
        v->v[RB_PM_DRAM_BYTES] = i == 0 ? 2.715e9 : 2.15e9;
        v->v[RB_PM_L2_BYTES] = 3.1e9;
        v->v[RB_PM_L1_BYTES] = 4.2e9;
        v->v[RB_PM_SMEM_WAVEFRONTS] = 1.2e7;
        v->v[RB_PM_SMEM_CONFLICTS] = 3e5;
        v->v[i == 2 ? RB_PM_TENSOR_FP16_OPS : RB_PM_FP32_FLOPS] = 2.75e11;
        v->v[RB_PM_OCCUPANCY_PCT] = 87;
        v->v[RB_PM_REGISTERS] = 168;
        v->v[RB_PM_TIME_S] = 7.1e-4;
        v->bytes_verdict = i == 0 ? RB_PB_MORE : RB_PB_MATCHES;
        static const char *const stalls[] = {"long_scoreboard", "barrier", "math_pipe_throttle"};
        for (int k = 0; k < 3; k++) {
            rb_fmt(v->stalls[k].reason, sizeof v->stalls[k].reason, "%s", stalls[k]);
            v->stalls[k].value = 3.0 - k;
        }
        v->n_stalls = 3;
    }
    rb_profile_roofs_none(r);
    r->level_gbps[RB_LEVEL_DRAM] = 4274.7;
    r->level_gbps[RB_LEVEL_L2] = 8332.9;
    r->level_gbps[RB_LEVEL_L1] = 33115.9;
    r->fp32_tflops = 60.7;
    r->fp16_tflops = 665.3;
    rb_fmt(r->source, sizeof r->source, "expectations/nvidia-h200.json");
}

typedef struct profile_in {
    const rb_profile *p;
    const rb_profile_roofs *r;
} profile_in;

static char *profile_text(const void *x)
{
    const profile_in *in = x;
    rb_sbuf b = {0};
    rb_profile_tables(&b, in->p, in->r, 0);
    return rb_sbuf_take(&b);
}

static void test_profile_tables_fit(void)
{
    rb_profile p;
    rb_profile_roofs r;
    synthetic_profile(&p, &r);
    RB_CHECK(p.n == 4);
    profile_in in = {&p, &r};
    const char *names[] = {"decode_attention.paged@131072x8/flash_split_kv",
                           "long_scoreboard 50%, barrier 33%, math_pipe_throttle 17%",
                           "copy_coalescing/baseline: 2.715 GB from DRAM", NULL};
    if (p.n == 4)
        report_fits("the profile's tables", profile_text, &in, names);
    /* the page is whole, whatever the terminal: its tables at their natural widths */
    setenv("COLUMNS", "60", 1);
    rb_sbuf h = {0};
    rb_profile_html(&h, &p, &r, "profile");
    char *html = rb_sbuf_take(&h);
    RB_CHECK(html && strstr(html, "decode_attention.paged@131072x8/flash_split_kv"));
    free(html);
    setenv("COLUMNS", "1000", 1);
    rb_profile_free(&p);
}

/* The layout itself: the width read, names abbreviated between characters, columns gone under
 * the row in the order of their rank, words longer than a line cut. */
static void test_table_layout(void)
{
    setenv("COLUMNS", "120", 1);
    RB_CHECK(rb_table_width() == 120);
    setenv("COLUMNS", "20", 1);
    RB_CHECK(rb_table_width() == RB_TABLE_MIN_WIDTH);
    setenv("COLUMNS", "wide", 1);
    RB_CHECK(isatty(STDOUT_FILENO) || rb_table_width() == 80);
    rb_table_set_wide(1);
    RB_CHECK(rb_table_width() == 0);
    rb_table_set_wide(0);
    setenv("COLUMNS", "1000", 1);

    char name[1000] = "", out[1000];
    for (int i = 0; i < 300; i++)
        strcat(name, "\xc3\xbc"); /* 300 "ü" */
    rb_table_abbrev(name, 11, out, sizeof out);
    RB_CHECK(rb_table_text_cols(out) == 11 && strlen(out) == 21 && strchr(out, '~'));

    static const rb_table_col cols[] = {{"name", 30, 8, 3, RB_COL_LEFT | RB_COL_ABBREV},
                                        {"a", 10, 0, 1, 0},
                                        {"b", 10, 0, 2, 0},
                                        {"c", 10, 0, 0, 0},
                                        {"rest", 0, 6, 0, RB_COL_LEFT | RB_COL_REST}};
    const char *cells[] = {"a_name_of_thirty_characters_xy", "1.0", "2.0", "3.0",
                           "a rest that is long enough to wrap under the row at sixty columns"};
    rb_table t;
    rb_table_fit(&t, cols, 5, 60, 4);
    RB_CHECK(t.out[1] && !t.out[2] && t.w[0] == 30); /* a went under; the name stayed whole */
    rb_sbuf b = {0};
    rb_table_row(&b, &t, cells);
    char *text = rb_sbuf_take(&b);
    RB_CHECK(fits(text, 60, "a row at 60") && strstr(text, "\n    a 1.0\n"));
    RB_CHECK(text && strstr(text, "a_name_of_thirty_characters_xy"));
    free(text);
    rb_table_fit(&t, cols, 5, 40, 4);
    RB_CHECK(t.out[1] && t.out[2] && t.w[0] < 30);
    rb_table_row(&b, &t, cells);
    text = rb_sbuf_take(&b);
    RB_CHECK(fits(text, 40, "a row at 40") && strstr(text, "a 1.0, b 2.0"));
    free(text);
    /* the planted defect: columns that never give way */
    static const rb_table_col stiff[] = {{"name", 30, 30, 0, RB_COL_LEFT},
                                         {"a", 10, 0, 0, 0},
                                         {"b", 10, 0, 0, 0},
                                         {"c", 10, 0, 0, 0}};
    rb_table_fit(&t, stiff, 4, 40, 4);
    rb_table_row(&b, &t, cells);
    text = rb_sbuf_take(&b);
    RB_CHECK(text && !fits(text, 40, "(planted: stiff columns, expected not to fit)"));
    free(text);

    char word[200];
    memset(word, 'x', 150);
    word[150] = '\0';
    rb_table_wrap(&b, word, 60, 10, 4);
    text = rb_sbuf_take(&b);
    RB_CHECK(fits(text, 60, "a word of 150") && text && strlen(text) > 150);
    free(text);
}

static const rbtest_case width_cases[] = {
    {"table_layout", test_table_layout},
    {"run_table_fits", test_run_table_fits},
    {"collectives_table", test_collectives_table},
    {"not_at_size_apart", test_not_at_size_apart},
    {"compare_fits", test_compare_fits},
    {"history_fits", test_history_fits},
    {"list_fits", test_list_fits},
    {"ceilings_table_fits", test_ceilings_table_fits},
    {"p2p_table_fits", test_p2p_table_fits},
    {"node_and_fleet_tables_fit", test_node_and_fleet_tables_fit},
    {"profile_tables_fit", test_profile_tables_fit},
};
RB_SUITE(width_suite, "width", width_cases);
