/* SPDX-License-Identifier: MIT */
/*
 * The node document (harness/model/node.c): outliers on synthetic nodes of run documents, each
 * GPU with its own jitter within the runs' spread: a clean node flags nothing; a slow GPU is
 * flagged, alone, with the attribution its own evidence gives (platform, thermal, pcie,
 * unexplained); two GPUs are judged against the expectation; missing and NaN rows flag nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/model/cli.h"
#include "../harness/model/node.h"
#include "../harness/model/util.h"
#include "../harness/runner/jobs.h"
#include "rbtest.h"

/* One GPU of a synthetic node: its rows' times are the table's times x scale x jitter. */
typedef struct gpu_spec {
    double mem_scale, compute_scale, host_scale; /* 0: 1 */
    double dram_gbps, fp32_tflops;               /* its platform reference; 0: the usual */
    const char *compute_reasons;                 /* the compute rows' clock reasons (JSON) */
    int pcie_gen;                                /* 0: 5 */
    int drop_softmax, nan_copy, untimed_sgemm;   /* missing or unusable rows */
    int invalid_slow_sgemm;                      /* sgemm timed 50% slower, and invalid */
    double mem_noise_scale;                      /* the memory rows' noise x this; 0: 1 */
    double host_bound_scale; /* the informational (host-bound) row's time x this; 0: 1 */
    const char *key;                             /* NULL: nvidia-h100-80gb-hbm3 */
} gpu_spec;

static const struct {
    const char *row, *variant, *role, *unit, *roof;
    double ms, noise;
    int host;
} node_rows[] = {
    {"copy_vectorized", "baseline", "baseline", "none", "dram_gbps", 0.95, 0.005, 0},
    {"copy_vectorized", "optimized", "optimized", "none", "dram_gbps", 0.74, 0.004, 0},
    {"softmax", "baseline", "baseline", "none", "dram_gbps", 1.2, 0.006, 0},
    {"softmax", "optimized", "optimized", "none", "dram_gbps", 0.8, 0.004, 0},
    {"sgemm@4M", "baseline", "baseline", "fp32", "fp32_tflops", 3.1, 0.004, 0},
    {"sgemm@4M", "optimized", "optimized", "fp32", "fp32_tflops", 0.6, 0.006, 0},
    {"host_transfer.h2d", "baseline", "baseline", "none", "pcie_h2d_gbps", 20.0, 0.02, 1},
    {"host_transfer.h2d", "optimized", "optimized", "none", "pcie_h2d_gbps", 4.9, 0.005, 0},
    {"cuda_graphs", "graph", "step", "none", "graph_node_us", 0.5, 0.01, 0},
};
#define NODE_ROWS (sizeof node_rows / sizeof node_rows[0])

/* Deterministic jitter in [-1%, +1%] per GPU, row and salt: what GPUs of one model differ by. */
static double jitter(int gpu, int row, int salt)
{
    unsigned h = (unsigned)(gpu * 7919 + row * 104729 + salt * 15485863) * 2654435761u;
    return 1.0 + ((int)(h >> 16) % 201 - 100) / 10000.0;
}

static double scale_of(double s)
{
    return s > 0 ? s : 1.0;
}

static void add_variant(rb_sbuf *b, int gpu, size_t r, const gpu_spec *s)
{
    int compute = !strcmp(node_rows[r].roof, "fp32_tflops");
    int mem = !strcmp(node_rows[r].roof, "dram_gbps");
    int pcie = !strncmp(node_rows[r].roof, "pcie", 4);
    double ms = node_rows[r].ms * jitter(gpu, (int)r, 0) * (mem ? scale_of(s->mem_scale) : 1) *
                (compute ? scale_of(s->compute_scale) : 1) * (pcie ? scale_of(s->host_scale) : 1) *
                (node_rows[r].host ? scale_of(s->host_bound_scale) : 1);
    int nan = s->nan_copy && !strcmp(node_rows[r].row, "copy_vectorized") &&
              !strcmp(node_rows[r].variant, "optimized");
    int untimed = s->untimed_sgemm && compute;
    int invalid = s->invalid_slow_sgemm && compute;
    double noise = node_rows[r].noise * (mem ? scale_of(s->mem_noise_scale) : 1);
    if (invalid)
        ms *= 1.5;
    char median[32];
    rb_fmt(median, sizeof median, nan ? "null" : "%.17g", ms);
    rb_sbuf_add(
        b,
        "{\"name\": \"%s\", \"role\": \"%s\", \"unit\": \"%s\", \"valid\": %s, \"timed\": "
        "%s, \"roof\": \"%s\", \"time_ms\": {\"median\": %s, \"median_ci_lo\": %.17g, "
        "\"median_ci_hi\": %.17g, \"noise\": %.17g, \"samples\": 50}, %s"
        "\"host_bound_why\": \"%s\", \"verdict\": \"pass\", \"clocks\": {\"sm_mhz_mean\": "
        "%d, \"sm_mhz_min\": %d, \"samples\": 20, \"reasons\": %s}}",
        node_rows[r].variant, node_rows[r].role, node_rows[r].unit,
        nan || invalid ? "false" : "true", untimed ? "false" : "true", node_rows[r].roof, median,
        ms * 0.998, ms * 1.002, noise, node_rows[r].host ? "\"informational\": true, " : "",
        node_rows[r].host ? "pageable memory" : "", compute && s->compute_reasons ? 1590 : 1980,
        compute && s->compute_reasons ? 1500 : 1980,
        compute && s->compute_reasons ? s->compute_reasons : "[]");
}

static json_value *make_run(int gpu, const gpu_spec *s)
{
    rb_sbuf b = {0};
    const char *key = s->key ? s->key : "nvidia-h100-80gb-hbm3";
    rb_sbuf_add(&b,
                "{\"schema\": 1, \"tool\": \"roofbench\", \"date\": \"2026-11-26T16:00:00Z\", "
                "\"git\": \"abc1234\", \"hardware_key\": \"%s\", \"environment\": {\"start\": "
                "{\"host\": \"node7\", \"device_index\": %d, \"uuid\": \"GPU-0000000%d-aaaa\", "
                "\"pci_bus_id\": \"0000:%02x:00.0\", \"device\": \"NVIDIA H100 80GB HBM3\", "
                "\"hardware_key\": \"%s\", \"ecc\": true, \"power_limit_w\": 700, \"pcie_gen\": "
                "%d, \"pcie_width\": 16, \"nvml\": {\"temperature_c\": 40, "
                "\"clock_event_reasons\": []}}, \"end\": {\"pcie_gen\": %d, \"pcie_width\": 16}}, "
                "\"platform\": {\"source\": \"ceilings --quick at run start\", \"dram_gbps\": "
                "%.17g, \"fp32_tflops\": %.17g, \"launch_us\": 3.4, \"methods\": {\"dram_gbps\": "
                "{\"noise\": 0.003}, \"fp32_tflops\": {\"noise\": 0.005}}}, \"pairs\": [",
                key, gpu, gpu, 0x18 + gpu * 0x10, key, s->pcie_gen ? s->pcie_gen : 5,
                s->pcie_gen ? s->pcie_gen : 5,
                (s->dram_gbps > 0 ? s->dram_gbps : 3000) * jitter(gpu, 99, 1),
                (s->fp32_tflops > 0 ? s->fp32_tflops : 60.6) * jitter(gpu, 98, 2));
    const char *open = NULL;
    for (size_t r = 0; r < NODE_ROWS; r++) {
        if (s->drop_softmax && !strcmp(node_rows[r].row, "softmax"))
            continue;
        if (!open || strcmp(open, node_rows[r].row)) {
            rb_sbuf_add(&b, "%s{\"name\": \"%s\", \"status\": \"ok\", \"variants\": [",
                        open ? "]}, " : "", node_rows[r].row);
            open = node_rows[r].row;
        } else {
            rb_sbuf_add(&b, ", ");
        }
        add_variant(&b, gpu, r, s);
    }
    rb_sbuf_add(&b, "]}]}");
    char *text = rb_sbuf_take(&b), err[300];
    json_value *doc = text ? json_parse(text, strlen(text), err, sizeof err) : NULL;
    if (!doc)
        fprintf(stderr, "synthetic run: %s\n", text ? err : "out of memory");
    free(text);
    return doc;
}

/* The outliers of a node of n GPUs of specs (NULL: all clean). */
static json_value *outliers_of(const gpu_spec *specs, int n, const json_value *expect)
{
    json_value *runs[8];
    gpu_spec clean = {0};
    for (int i = 0; i < n; i++)
        runs[i] = make_run(i, specs ? &specs[i] : &clean);
    json_value *o = rb_node_outliers((const json_value *const *)runs, n, expect);
    for (int i = 0; i < n; i++)
        json_free(runs[i]);
    return o;
}

/* How many outliers name GPU gpu with attribution (NULL: any). */
static int count(const json_value *o, int gpu, const char *attribution)
{
    int k = 0;
    for (uint32_t i = 0; o && i < o->count; i++)
        k += (gpu < 0 || json_number_at(o->items[i], "device_index") == gpu) &&
             (!attribution || !strcmp(json_string_at(o->items[i], "attribution", ""), attribution));
    return k;
}

static void test_clean_node_flags_nothing(void)
{
    json_value *o = outliers_of(NULL, 4, NULL);
    RB_CHECK(o && o->type == JSON_ARRAY && o->count == 0);
    json_free(o);
    o = outliers_of(NULL, 8, NULL);
    RB_CHECK(o && o->count == 0);
    json_free(o);
}

static void test_slow_platform_gpu_flagged_alone(void)
{
    gpu_spec s[4] = {{0}};
    s[2].mem_scale = 1.10;
    s[2].dram_gbps = 3000 / 1.10;
    json_value *o = outliers_of(s, 4, NULL);
    RB_CHECK(o && count(o, 2, "platform") == 4); /* copy and softmax, both variants */
    RB_CHECK(count(o, -1, NULL) == 4);
    RB_CHECK(o && o->count &&
             !strcmp(json_string_at(o->items[0], "reference_kind", ""), "node_median"));
    RB_CHECK(o && o->count && json_number_at(o->items[0], "threshold") <= 0.05);
    RB_CHECK(o && o->count && strstr(json_string_at(o->items[0], "evidence", ""), "dram_gbps"));
    json_free(o);
    /* The same rows slow with the platform as fast as the others': the platform explains
     * nothing. */
    s[2].dram_gbps = 0;
    o = outliers_of(s, 4, NULL);
    RB_CHECK(o && count(o, 2, "unexplained") == 4 && count(o, -1, NULL) == 4);
    json_free(o);
    /* 6% slower: beyond the 3% threshold whatever the jitter, still flagged and attributed. */
    s[2].mem_scale = 1.06;
    s[2].dram_gbps = 3000 / 1.06;
    o = outliers_of(s, 4, NULL);
    RB_CHECK(o && count(o, 2, "platform") == 4 && count(o, -1, NULL) == 4);
    json_free(o);
}

/* Noisy memory rows: their own threshold (3 x noise = 9%) would hide an 8% slow GPU; the cap
 * (5%) does not. */
static void test_threshold_cap(void)
{
    gpu_spec s[4] = {{0}};
    for (int i = 0; i < 4; i++)
        s[i].mem_noise_scale = 6;
    s[2].mem_scale = 1.08;
    s[2].dram_gbps = 3000 / 1.08;
    json_value *o = outliers_of(s, 4, NULL);
    RB_CHECK(o && count(o, 2, "platform") == 4 && count(o, -1, NULL) == 4);
    RB_CHECK(o && o->count && json_number_at(o->items[0], "threshold") == RB_NODE_MAX_THRESHOLD);
    json_free(o);
}

static void test_thermal_gpu(void)
{
    gpu_spec s[4] = {{0}};
    s[1].compute_scale = 1.08;
    s[1].compute_reasons = "[\"hw_thermal\", \"power_cap\"]";
    json_value *o = outliers_of(s, 4, NULL);
    RB_CHECK(o && count(o, 1, "thermal") == 2 && count(o, -1, NULL) == 2);
    RB_CHECK(o && o->count && strstr(json_string_at(o->items[0], "evidence", ""), "hw_thermal"));
    json_free(o);
    /* Power capped at a lower clock than the others: power. */
    s[1].compute_reasons = "[\"power_cap\"]";
    o = outliers_of(s, 4, NULL);
    RB_CHECK(o && count(o, 1, "power") == 2 && count(o, -1, NULL) == 2);
    json_free(o);
}

static void test_pcie_downtrained(void)
{
    gpu_spec s[4] = {{0}};
    s[3].host_scale = 1.6;
    s[3].pcie_gen = 4;
    json_value *o = outliers_of(s, 4, NULL);
    RB_CHECK(o && count(o, 3, "pcie") == 2 && count(o, -1, NULL) == 2);
    json_free(o);
}

/* {"pairs": {row: {"variants": {variant: {"median_ms", "noise"}}}}} at the table's times x
 * scale. */
static json_value *make_expect(double scale)
{
    json_value *doc = json_new_object(), *pairs = json_new_object();
    json_object_set(doc, "pairs", pairs);
    for (size_t r = 0; r < NODE_ROWS; r++) {
        json_value *row = json_get(pairs, node_rows[r].row), *vs;
        if (!row) {
            row = json_new_object();
            json_object_set(pairs, node_rows[r].row, row);
            json_object_set(row, "variants", json_new_object());
        }
        vs = json_get(row, "variants");
        json_value *e = json_new_object();
        json_set_number(e, "median_ms", node_rows[r].ms * scale);
        json_set_number(e, "noise", node_rows[r].noise);
        json_object_set(vs, node_rows[r].variant, e);
    }
    return doc;
}

static void test_two_gpus_use_the_expectation(void)
{
    json_value *expect = make_expect(1.0);
    gpu_spec s[2] = {{0}};
    json_value *o = outliers_of(s, 2, expect);
    RB_CHECK(o && o->count == 0);
    json_free(o);
    s[1].mem_scale = 1.10;
    s[1].dram_gbps = 3000 / 1.10;
    o = outliers_of(s, 2, expect);
    RB_CHECK(o && count(o, 1, "platform") == 4 && count(o, -1, NULL) == 4);
    RB_CHECK(o && o->count &&
             !strcmp(json_string_at(o->items[0], "reference_kind", ""), "expectation"));
    RB_CHECK(o && o->count && json_number_at(o->items[0], "reference") == 0.95);
    json_free(o);
    /* Both GPUs 10% slower than the file: a regression of the node, not an outlier. */
    s[0].mem_scale = 1.10;
    o = outliers_of(s, 2, expect);
    RB_CHECK(o && o->count == 0);
    json_free(o);
    json_free(expect);
    /* The file recorded on a slower day: GPU 1 is within its threshold of it but 10% behind
     * GPU 0; still not flagged against the file. Without a file: against the other GPU. */
    expect = make_expect(1.10);
    s[0].mem_scale = 0;
    o = outliers_of(s, 2, expect);
    RB_CHECK(o && o->count == 0);
    json_free(o);
    json_free(expect);
    o = outliers_of(s, 2, NULL);
    RB_CHECK(o && count(o, 1, NULL) == 4 && count(o, -1, NULL) == 4);
    RB_CHECK(o && o->count &&
             !strcmp(json_string_at(o->items[0], "reference_kind", ""), "other_gpu"));
    json_free(o);
}

static void test_missing_and_nan_rows(void)
{
    gpu_spec s[4] = {{0}};
    s[3].drop_softmax = 1;
    s[0].nan_copy = 1;
    s[1].untimed_sgemm = 1;
    s[2].invalid_slow_sgemm = 1; /* a wrong result is not a time to compare */
    json_value *o = outliers_of(s, 4, NULL);
    RB_CHECK(o && o->count == 0);
    json_free(o);
    /* With holes, the slow GPU is still found, and only it. */
    s[2].mem_scale = 1.10;
    s[2].dram_gbps = 3000 / 1.10;
    o = outliers_of(s, 4, NULL);
    RB_CHECK(o && count(o, 2, "platform") == 4 && count(o, -1, NULL) == 4);
    json_free(o);
    /* A single GPU, and GPUs of another model, are not compared with each other. */
    gpu_spec m[2] = {{0}};
    m[1].key = "nvidia-h200";
    m[1].mem_scale = 1.5;
    o = outliers_of(m, 2, NULL);
    RB_CHECK(o && o->count == 0);
    json_free(o);
    o = outliers_of(NULL, 1, NULL);
    RB_CHECK(o && o->count == 0);
    json_free(o);
}

/* The terminal report of node into text (at most max outliers). */
static void print_node(const json_value *node, int max, char *text, size_t size)
{
    FILE *f = tmpfile();
    size_t len = 0;
    if (f) {
        rb_node_print(f, node, max);
        rewind(f);
        len = fread(text, 1, size - 1, f);
        fclose(f);
    }
    text[len] = '\0';
}

static void test_build_and_write(void)
{
    json_value *runs[4];
    gpu_spec s[4] = {{0}};
    s[2].mem_scale = 1.10;
    s[2].dram_gbps = 3000 / 1.10;
    for (int i = 0; i < 4; i++)
        runs[i] = make_run(i, &s[i]);
    char err[300] = "";
    json_value *node = rb_node_build("roofbench", "node", runs, 4, NULL, err, sizeof err);
    RB_CHECK(node != NULL);
    RB_CHECK(!runs[0] && !runs[3]);
    RB_CHECK(!strcmp(json_string_at(node, "hardware_key", ""), "nvidia-h100-80gb-hbm3-x4"));
    RB_CHECK(!strcmp(json_string_at(node, "kind", ""), "node"));
    const json_value *gpus = json_get(node, "gpus");
    RB_CHECK(gpus && gpus->count == 4);
    RB_CHECK(gpus && gpus->count == 4 &&
             !strcmp(json_string_at(gpus->items[2], "uuid", ""), "GPU-00000002-aaaa") &&
             !strcmp(json_string_at(gpus->items[2], "host", ""), "node7") &&
             json_get(gpus->items[2], "rank")->type == JSON_NULL &&
             json_get(json_get(gpus->items[2], "run"), "pairs"));
    RB_CHECK(json_get(node, "collectives") && json_get(node, "collectives")->count == 0);
    RB_CHECK(rb_node_outlier_count(node) == 4);
    const char *dir = rbtest_fresh_dir();
    char jp[600], mp[600];
    rb_fmt(jp, sizeof jp, "%s/r/node.json", dir);
    rb_fmt(mp, sizeof mp, "%s/r/node.md", dir);
    RB_CHECK(rb_node_write(node, jp, mp, 0, err, sizeof err) == 0);
    char *md = rbtest_read_file(mp);
    json_value *back = json_parse_file(jp, err, sizeof err);
    RB_CHECK(md && strstr(md, "## Outliers") && strstr(md, "| platform |") &&
             strstr(md, "## GPU node7:3") && strstr(md, "### roofbench results"));
    RB_CHECK(back && rb_node_outlier_count(back) == 4);
    char text[4096];
    print_node(node, 2, text, sizeof text);
    RB_CHECK(strstr(text, "4 outliers") && strstr(text, "and 2 more outliers"));
    free(md);
    json_free(back);
    json_free(node);
    rbtest_remove_dir();
    /* A run that is not a run document: refused, every run freed. */
    runs[0] = make_run(0, &s[0]);
    runs[1] = json_new_object();
    node = rb_node_build("roofbench", "node", runs, 2, NULL, err, sizeof err);
    RB_CHECK(!node && !runs[0] && !runs[1] && strstr(err, "GPU 1"));
}

/* The "flagged" column of GPU `who`'s line ("node7:1") in a report, -1 when there is none. */
static int flagged_column(const char *text, const char *who)
{
    char at[32];
    rb_fmt(at, sizeof at, "\n%s ", who);
    const char *line = strstr(text, at);
    int flagged = -1;
    /* (after the GPU, its PCI bus and UUID: DRAM GB/s, TFLOP/s, rows, regressed, flagged) */
    if (line && sscanf(line + 1, "%*s %*s %*s %*f %*f %*d %*d %d", &flagged) != 1)
        flagged = -1;
    return flagged;
}

static json_value *node_of(const gpu_spec *s, int n)
{
    json_value *runs[8];
    char err[300] = "";
    for (int i = 0; i < n; i++)
        runs[i] = make_run(i, &s[i]);
    return rb_node_build("roofbench", "node", runs, n, NULL, err, sizeof err);
}

/* GPU 1's pageable copy (informational: the host sets its time) 10% slower, nothing else: the
 * outlier is recorded as informational and reported host-bound, and it does not count. */
static void test_host_bound_row_not_flagged(void)
{
    gpu_spec s[4] = {{0}};
    s[1].host_bound_scale = 1.10;
    json_value *node = node_of(s, 4);
    const json_value *o = json_get(node, "outliers");
    RB_CHECK(o && o->count == 1 && json_true_at(o->items[0], "informational") &&
             !strcmp(json_string_at(o->items[0], "row", ""), "host_transfer.h2d") &&
             !strcmp(json_string_at(o->items[0], "variant", ""), "baseline"));
    RB_CHECK(!strcmp(json_string_at(node, "gate", ""), "gating"));
    RB_CHECK(rb_node_outlier_count(node) == 0 && rb_node_host_bound_count(node) == 1);
    char text[8192];
    print_node(node, 20, text, sizeof text);
    RB_CHECK(strstr(text, "4 GPUs, 0 outliers (1 host-bound, not flagged)\n") &&
             strstr(text, "\nhost-bound node7:1 host_transfer.h2d/baseline x1.") &&
             strstr(text, ": not flagged (the host sets this row's time; --gate all flags it)\n"));
    RB_CHECK(!strstr(text, "\noutlier ") && flagged_column(text, "node7:1") == 0);
    char *md = rb_node_markdown(node);
    RB_CHECK(md && strstr(md, "0 outliers (1 host-bound, not flagged)") &&
             strstr(md, "None: no GPU fell behind") &&
             strstr(md, "### Host-bound rows, not flagged") &&
             strstr(md, "| node7 | 1 | host_transfer.h2d | baseline |"));
    /* a GPU with no outlier has no worst ratio: "-", as in the terminal, never "nan" */
    RB_CHECK(md && !strstr(md, "nan") && strstr(md, " | 0 | - | - |\n"));
    free(md);
    /* --gate all: it counts, as a flagged outlier. */
    RB_CHECK(rb_node_set_gate_all(node, 1) == 0);
    RB_CHECK(rb_node_outlier_count(node) == 1 && rb_node_host_bound_count(node) == 0);
    print_node(node, 20, text, sizeof text);
    RB_CHECK(strstr(text, "4 GPUs, 1 outliers\n") &&
             strstr(text, "\noutlier node7:1 host_transfer.h2d/baseline x1.") &&
             !strstr(text, "host-bound") && flagged_column(text, "node7:1") == 1);
    json_free(node);
    /* The same slowdown on the pinned copy, a gating row on the same link: flagged. */
    s[1].host_bound_scale = 0;
    s[1].host_scale = 1.10;
    node = node_of(s, 4);
    RB_CHECK(rb_node_outlier_count(node) == 1 && rb_node_host_bound_count(node) == 1);
    print_node(node, 20, text, sizeof text);
    RB_CHECK(strstr(text, "4 GPUs, 1 outliers (1 host-bound, not flagged)\n") &&
             strstr(text, "\noutlier node7:1 host_transfer.h2d/optimized x1.") &&
             strstr(text, "\nhost-bound node7:1 host_transfer.h2d/baseline x1.") &&
             flagged_column(text, "node7:1") == 1);
    json_free(node);
}

static void test_host_name(void)
{
    char name[256];
    setenv("RB_HOST_NAME", "posing-node-b", 1);
    rb_host_name(name, sizeof name);
    RB_CHECK(!strcmp(name, "posing-node-b"));
    unsetenv("RB_HOST_NAME");
    rb_host_name(name, sizeof name);
    RB_CHECK(name[0] && strcmp(name, "posing-node-b"));
}

/* run --device all on posed GPUs (RB_TEST_FAULT=node:gpus=N), each part a stand-in that writes
 * its run document (tests/node_fake_part.sh): the phases, the merge, the node's files, the
 * outliers and the exit code, end to end without a GPU. */
static json_value *node_run(const char *gpus, const char *args, int *rc)
{
    char fault[64], exe[1100], cwd[1024], cmd[600], err[300];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    rb_fmt(exe, sizeof exe, "%s/tests/node_fake_part.sh", cwd);
    rb_fmt(fault, sizeof fault, "node:gpus=%s", gpus);
    setenv("RB_TEST_FAULT", fault, 1);
    setenv("RB_TEST_NODE_EXE", exe, 1);
    setenv("RB_HOST_NAME", "fakehost", 1);
    const char *dir = rbtest_fresh_dir();
    rb_fmt(cmd, sizeof cmd, "run %s --json node.json", args);
    *rc = rbtest_run(cmd);
    unsetenv("RB_TEST_FAULT");
    unsetenv("RB_TEST_NODE_EXE");
    unsetenv("RB_HOST_NAME");
    char path[600];
    rb_fmt(path, sizeof path, "%s/node.json", dir);
    return json_parse_file(path, err, sizeof err);
}

static const json_value *gpu_run(const json_value *node, int i)
{
    const json_value *g = json_get(node, "gpus");
    return g && (int)g->count > i ? json_get(g->items[i], "run") : NULL;
}

static void test_device_all_end_to_end(void)
{
    int rc;
    json_value *node = node_run("4", "--device all", &rc);
    const char *out = rbtest_output();
    RB_CHECK(rc == 0 && node);
    RB_CHECK(out && strstr(out, "node: 4 GPUs; ") &&
             strstr(out, "GPU-local row groups on all at once") && strstr(out, "0 outliers") &&
             strstr(out, "node results: node.json, node.md"));
    RB_CHECK(!strcmp(json_string_at(node, "hardware_key", ""), "nvidia-h100-80gb-hbm3-x4"));
    const json_value *gpus = json_get(node, "gpus"), *c = json_get(node, "collectives");
    RB_CHECK(gpus && gpus->count == 4);
    for (int i = 0; gpus && i < 4; i++) {
        const json_value *pairs = json_get(gpu_run(node, i), "pairs");
        RB_CHECK(json_number_at(gpus->items[i], "device_index") == i);
        /* both parts merged, in the registry's order; the last part's environment.end */
        RB_CHECK(pairs && pairs->count == 2 &&
                 !strcmp(json_string_at(pairs->items[0], "name", ""), "copy_vectorized") &&
                 !strcmp(json_string_at(pairs->items[1], "name", ""), "host_transfer.h2d"));
        RB_CHECK(!strcmp(
            json_string_at(json_get(json_get(gpu_run(node, i), "environment"), "end"), "scope", ""),
            "host"));
        RB_CHECK(strstr(json_string_at(gpu_run(node, i), "command", ""), "--device all"));
    }
    RB_CHECK(c && c->count == 1 &&
             !strcmp(json_string_at(c->items[0], "reason", ""), "visible 0,1,2,3"));
    json_free(node);
    rbtest_remove_dir();
    /* GPUs at a PCI address this machine has: the host-shared parts run on its local CPUs */
    char cpus[256] = "";
    FILE *f = fopen("/sys/bus/pci/devices/0000:00:00.0/local_cpulist", "r");
    if (f && fgets(cpus, sizeof cpus, f))
        cpus[strcspn(cpus, "\n")] = '\0';
    if (f)
        fclose(f);
    if (!cpus[0])
        return;
    setenv("FAKE_BUS", "0000:00:00.0", 1);
    node = node_run("2", "--device all", &rc);
    unsetenv("FAKE_BUS");
    char want[300];
    rb_fmt(want, sizeof want, "host pairs on GPU 1 (CPUs %s: its own)", cpus);
    RB_CHECK(rc == 0 && node && strstr(rbtest_output(), want));
    json_free(node);
    rbtest_remove_dir();
}

static void test_device_list_planted_slow_gpu(void)
{
    int rc;
    setenv("FAKE_SLOW_GPU", "2", 1);
    json_value *node = node_run("4", "--device 3,2,0", &rc);
    unsetenv("FAKE_SLOW_GPU");
    const char *out = rbtest_output();
    RB_CHECK(rc == 1 && node);
    RB_CHECK(!strcmp(json_string_at(node, "hardware_key", ""), "nvidia-h100-80gb-hbm3-x3"));
    const json_value *o = json_get(node, "outliers");
    RB_CHECK(o && o->count == 1 && json_number_at(o->items[0], "device_index") == 2 &&
             !strcmp(json_string_at(o->items[0], "attribution", ""), "platform"));
    const json_value *gpus = json_get(node, "gpus");
    RB_CHECK(gpus && gpus->count == 3 && json_number_at(gpus->items[0], "device_index") == 3);
    RB_CHECK(out && strstr(out, "outlier fakehost:2 copy_vectorized/baseline") &&
             strstr(out, "exit 1"));
    json_free(node);
    rbtest_remove_dir();
    /* a GPU that is not there: exit 2 before any part runs */
    node = node_run("2", "--device 0,3", &rc);
    RB_CHECK(rc == 2 && !node && strstr(rbtest_output(), "GPU 3 is not there"));
    rbtest_remove_dir();
    /* a part that fails (a regression on GPU 1): exit 1, the node still written */
    setenv("FAKE_FAIL_GPU", "1", 1);
    node = node_run("2", "--device all", &rc);
    unsetenv("FAKE_FAIL_GPU");
    RB_CHECK(rc == 1 && node && rb_node_outlier_count(node) == 0);
    json_free(node);
    rbtest_remove_dir();
}

/* GPU 1's pageable copy 10% slower, nothing else: exit 0, said host-bound; --gate all: exit 1. */
static void test_device_all_host_bound_slow_gpu(void)
{
    int rc;
    setenv("FAKE_HOST_BOUND_SLOW_GPU", "1", 1);
    json_value *node = node_run("4", "--device all", &rc);
    const char *out = rbtest_output();
    RB_CHECK(rc == 0 && node && rb_node_outlier_count(node) == 0 &&
             rb_node_host_bound_count(node) == 1);
    RB_CHECK(out && strstr(out, "0 outliers (1 host-bound, not flagged)") &&
             strstr(out, "\nhost-bound fakehost:1 host_transfer.h2d/baseline x1.") &&
             !strstr(out, "\noutlier ") && !strstr(out, "exit 1"));
    json_free(node);
    rbtest_remove_dir();
    node = node_run("4", "--device all --gate all", &rc);
    unsetenv("FAKE_HOST_BOUND_SLOW_GPU");
    out = rbtest_output();
    RB_CHECK(rc == 1 && node && rb_node_outlier_count(node) == 1 &&
             !strcmp(json_string_at(node, "gate", ""), "all"));
    RB_CHECK(out && strstr(out, "\noutlier fakehost:1 host_transfer.h2d/baseline x1.") &&
             strstr(out, "exit 1"));
    json_free(node);
    rbtest_remove_dir();
}

static int parse(rb_options *o, char *err, size_t size, const char *a, const char *b, const char *c)
{
    char *argv[6] = {"roofbench", "run", (char *)a, (char *)b, (char *)c, NULL};
    int argc = c ? 5 : b ? 4 : 3;
    return rb_cli_parse(argc, argv, o, err, size);
}

static void test_device_option(void)
{
    rb_options o;
    char err[300];
    RB_CHECK(parse(&o, err, sizeof err, "--device", "all", NULL) == 0 && o.device_all &&
             o.device == -1 && o.n_devices == 0);
    RB_CHECK(parse(&o, err, sizeof err, "--device", "0,2,3", NULL) == 0 && o.n_devices == 3 &&
             o.devices[0] == 0 && o.devices[1] == 2 && o.devices[2] == 3 && !o.device_all);
    RB_CHECK(parse(&o, err, sizeof err, "--device", "2", NULL) == 0 && o.device == 2 &&
             o.n_devices == 0 && !o.device_all); /* the plain path, as before */
    RB_CHECK(parse(&o, err, sizeof err, "--device", "0,2,0", NULL) != 0 && strstr(err, "twice"));
    RB_CHECK(parse(&o, err, sizeof err, "--device", "0,,2", NULL) != 0);
    RB_CHECK(parse(&o, err, sizeof err, "--device", "1,64", NULL) != 0 &&
             strstr(err, "out of range"));
    RB_CHECK(parse(&o, err, sizeof err, "--device", "all", "--update-expectations") != 0);
    RB_CHECK(parse(&o, err, sizeof err, "--scope", "host", NULL) == 0 && o.scope == RB_SCOPE_HOST);
    RB_CHECK(parse(&o, err, sizeof err, "--scope", "gpu", NULL) != 0);
    /* the pairs' scopes: the host transfers, streams and launches share the host; NCCL and the
     * peer copy span GPUs; the rest is GPU-local */
    int counts[4] = {0};
    for (int i = 0; rb_registry[i]; i++) {
        rb_scope s = rb_pair_scope(rb_registry[i]);
        counts[s]++;
        if (!strcmp(rb_registry[i]->name, "host_transfer") ||
            !strcmp(rb_registry[i]->name, "streams_overlap") ||
            !strcmp(rb_registry[i]->name, "cuda_graphs"))
            RB_CHECK(s == RB_SCOPE_HOST);
        else if (!strcmp(rb_registry[i]->name, "nccl_allreduce") ||
                 !strcmp(rb_registry[i]->name, "p2p_copy"))
            RB_CHECK(s == RB_SCOPE_SPAN);
        else
            RB_CHECK(s == RB_SCOPE_LOCAL);
    }
    RB_CHECK(counts[RB_SCOPE_HOST] == 3 && counts[RB_SCOPE_SPAN] == 2 && counts[RB_SCOPE_ALL] == 0);
}

static const rbtest_case node_cases[] = {
    {"device_option", test_device_option},
    {"host_name", test_host_name},
    {"clean_node_flags_nothing", test_clean_node_flags_nothing},
    {"slow_platform_gpu_flagged_alone", test_slow_platform_gpu_flagged_alone},
    {"threshold_cap", test_threshold_cap},
    {"thermal_gpu", test_thermal_gpu},
    {"pcie_downtrained", test_pcie_downtrained},
    {"two_gpus_use_the_expectation", test_two_gpus_use_the_expectation},
    {"missing_and_nan_rows", test_missing_and_nan_rows},
    {"build_and_write", test_build_and_write},
    {"host_bound_row_not_flagged", test_host_bound_row_not_flagged},
    {"device_all_end_to_end", test_device_all_end_to_end},
    {"device_list_planted_slow_gpu", test_device_list_planted_slow_gpu},
    {"device_all_host_bound_slow_gpu", test_device_all_host_bound_slow_gpu},
};
RB_SUITE(node_suite, "node", node_cases);
