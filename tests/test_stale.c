/* SPDX-License-Identifier: MIT */
/*
 * Expectations that cannot go stale unseen (harness/model/expect_stale.h, expect_record.h,
 * expect_check.h, harness/runner/expect_cmd.h): the stale mark and its verdict, recording from
 * several runs on several machines, launch geometry counted as code, and the check that every
 * committed expectation file describes this build. The last is tier 2: it needs the build's
 * codegen fingerprints (cuobjdump at build time), and fails without them where
 * RB_REQUIRE_CODEGEN=1, as in CI.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/model/cli.h"
#include "../harness/model/expect.h"
#include "../harness/model/expect_check.h"
#include "../harness/model/expect_record.h"
#include "../harness/model/expect_stale.h"
#include "../harness/model/fingerprint.h"
#include "../harness/model/json.h"
#include "../harness/model/outputs.h"
#include "../harness/model/report.h"
#include "../harness/model/result_read.h"
#include "../harness/model/runcmp.h"
#include "../harness/model/util.h"
#include "../harness/runner/expect_cmd.h"
#include "../kernels/copy_vectorized.h"
#include "rbtest.h"

extern const rbtest_suite stale_suite;

#define ROW_SIZE 268435456ull

/* ---- helpers ---- */

static json_value *parse(const char *text)
{
    char err[300];
    json_value *v = json_parse(text, strlen(text), err, sizeof err);
    if (!v)
        printf("    (test document does not parse: %s)\n", err);
    return v;
}

/* An expectation file of two rows: copy_x (one kernel, three runs) and hgemm.square@16M. */
static const char file_text[] =
    "{\"schema\": 1, \"hardware\": {\"name\": \"NVIDIA H200\", \"sm\": \"9.0\"},"
    " \"peaks\": {\"dram_gbps\": 4814}, \"ceilings\": {\"dram_gbps\": 4200},"
    " \"pairs\": {"
    "  \"copy_x\": {\"size\": 268435456,"
    "    \"recorded\": {\"git\": \"46a1f36\", \"date\": \"2026-11-26T04:27:56Z\", \"cuda\": "
    "\"13.0\"},"
    "    \"kernels\": [{\"variant\": \"optimized\", \"name\": \"copy_x_optimized_kernel\","
    "                   \"block_threads\": 256, \"dyn_smem_bytes\": 0,"
    "                   \"sass_hash\": \"00000000000000aa\"}],"
    "    \"variants\": {\"optimized\": {\"median_ms\": 1.0, \"noise\": 0.001, \"runs\": 3,"
    "                   \"run_medians\": [1.0, 1.0, 1.0], \"run_spread\": 0}}},"
    "  \"hgemm.square@16M\": {\"size\": 16777216,"
    "    \"recorded\": {\"git\": \"46a1f36\", \"date\": \"2026-11-26T04:27:56Z\", \"cuda\": "
    "\"13.0\"},"
    "    \"variants\": {\"optimized\": {\"median_ms\": 2.0, \"noise\": 0.001}}}}}";

static json_value *file_doc(void)
{
    return parse(file_text);
}

static json_value *row_of(json_value *doc, const char *row)
{
    return json_get(json_get(doc, "pairs"), row);
}

/* Validates doc (then frees it): 1 when refused with a message that holds needle. */
static int refused(json_value *doc, const char *needle)
{
    char err[400] = "";
    if (!doc)
        return 0;
    int rc = rb_expect_validate(doc, err, sizeof err);
    json_free(doc);
    if (rc == 0 || !strstr(err, needle)) {
        printf("    (validate: rc %d, \"%s\", wanted \"%s\")\n", rc, err, needle);
        return 0;
    }
    return 1;
}

static json_value *with_stale(const char *mark)
{
    json_value *d = file_doc();
    if (d)
        json_object_set(row_of(d, "copy_x"), "stale", parse(mark));
    return d;
}

static void init_row(rb_pair_result *p, const char *name, uint64_t size)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->pattern, sizeof p->pattern, "%s", "dst[i] = src[i]");
    p->size = p->full_size = size;
    p->rows = 1;
    p->cols = size;
    p->bytes = 8.0 * (double)size;
    p->status = RB_PAIR_OK;
}

static rb_variant_result *timed(rb_pair_result *p, const char *name, double median_ms)
{
    rb_variant_result *v = &p->v[p->n_variants++];
    rb_variant_result_init(v, name, RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 1e-6);
    v->valid = v->timed = 1;
    v->rel_err_before = v->rel_err_after = 0;
    v->time_ms.n = 20;
    v->time_ms.median = v->time_ms.min = v->time_ms.max = median_ms;
    v->time_ms.p10 = v->time_ms.p90 = median_ms;
    v->time_ms.ci_lo = v->time_ms.ci_hi = median_ms;
    v->time_ms.noise = 0.001;
    v->launches_per_sample = 1;
    return v;
}

static rb_kernel_result *kernel(rb_pair_result *p, const char *variant, const char *hash)
{
    rb_kernel_result *k = &p->kernels[p->n_kernels++];
    memset(k, 0, sizeof *k);
    snprintf(k->variant, sizeof k->variant, "%s", variant);
    snprintf(k->name, sizeof k->name, "copy_x_%s_kernel", variant);
    snprintf(k->sass_hash, sizeof k->sass_hash, "%s", hash);
    k->registers = 16;
    k->block_threads = 256;
    k->blocks_per_sm = 8;
    return k;
}

/* ---- the mark ---- */

static void test_validate_stale_mark(void)
{
    char err[300] = "";
    json_value *d = with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\","
                               " \"why\": \"kernels changed since recorded at 46a1f36\"}");
    RB_CHECK(d && rb_expect_validate(d, err, sizeof err) == 0);
    json_free(d);
    RB_CHECK(refused(with_stale("\"yes\""), "pairs.copy_x.stale: expected {"));
    RB_CHECK(refused(with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\"}"),
                     "pairs.copy_x.stale.why: missing"));
    RB_CHECK(refused(with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\","
                                " \"why\": \"\"}"),
                     "pairs.copy_x.stale.why: the reason is empty"));
    RB_CHECK(refused(with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\","
                                " \"why\": \"two\\nlines\"}"),
                     "stale.why: the reason holds a control character"));
    RB_CHECK(refused(with_stale("{\"git\": \"8626872\", \"date\": \"yesterday\", \"why\": \"x\"}"),
                     "stale.date: expected YYYY-MM-DDTHH:MM:SSZ"));
    RB_CHECK(refused(with_stale("{\"git\": \"../etc\", \"date\": \"2026-12-01T10:00:00Z\","
                                " \"why\": \"x\"}"),
                     "stale.git: is not a revision"));
    RB_CHECK(refused(with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\","
                                " \"why\": \"x\", \"by\": \"hand\"}"),
                     "stale.by: unknown key"));
    /* what rows record from now on: their skipped variants and how they were recorded */
    d = file_doc();
    json_object_set(row_of(d, "copy_x"), "skipped", parse("{\"library\": \"one GPU\"}"));
    json_object_set(row_of(d, "copy_x"), "recorded",
                    parse("{\"git\": \"abc1234\", \"nvcc\": \"13.0\", \"arch\": \"sm_90\","
                          " \"machines\": 2, \"runs\": 6, \"gpus\": [\"GPU-a\", \"GPU-b\"]}"));
    RB_CHECK(d && rb_expect_validate(d, err, sizeof err) == 0);
    json_free(d);
    d = file_doc();
    json_object_set(row_of(d, "copy_x"), "skipped", parse("{\"library\": 1}"));
    RB_CHECK(refused(d, "pairs.copy_x.skipped.library: expected a string"));
    d = file_doc();
    json_object_set(row_of(d, "copy_x"), "recorded", parse("{\"machines\": 1.5}"));
    RB_CHECK(refused(d, "pairs.copy_x.recorded.machines: expected a whole number"));
    d = file_doc();
    json_object_set(row_of(d, "copy_x"), "recorded", parse("{\"nvcc\": 13}"));
    RB_CHECK(refused(d, "pairs.copy_x.recorded.nvcc: expected a string"));
}

static void test_mark_stale_selects_rows(void)
{
    char err[300] = "";
    int marked = 0;
    json_value *d = file_doc();
    rb_filter hgemm, nosuch, copy;
    RB_CHECK(rb_filter_compile(&hgemm, "--filter", "^hgemm$", err, sizeof err) == 0);
    RB_CHECK(rb_filter_compile(&nosuch, "--filter", "^nosuch", err, sizeof err) == 0);
    RB_CHECK(rb_filter_compile(&copy, "--filter", "copy", err, sizeof err) == 0);
    /* run's rule: the row group's name, or its pair's */
    RB_CHECK(rb_expect_mark_stale(d, &hgemm, "the hgemm kernels changed", "abc1234",
                                  "2026-12-01T10:00:00Z", NULL, &marked, err, sizeof err) == 0);
    RB_CHECK(marked == 1 && json_get(row_of(d, "hgemm.square@16M"), "stale"));
    RB_CHECK(!json_get(row_of(d, "copy_x"), "stale"));
    RB_CHECK(rb_expect_validate(d, err, sizeof err) == 0);
    const json_value *mark = json_get(row_of(d, "hgemm.square@16M"), "stale");
    RB_CHECK(!strcmp(json_string_at(mark, "git", ""), "abc1234"));
    RB_CHECK(!strcmp(json_string_at(mark, "why", ""), "the hgemm kernels changed"));
    /* nothing written for a filter that matches nothing, an empty or missing reason */
    char *before = json_write(d, 0);
    RB_CHECK(rb_expect_mark_stale(d, &nosuch, "x", "abc1234", "2026-12-01T10:00:00Z", NULL,
                                  &marked, err, sizeof err) == -1 &&
             strstr(err, "matches no row"));
    RB_CHECK(rb_expect_mark_stale(d, &copy, "   ", "abc1234", "2026-12-01T10:00:00Z", NULL,
                                  &marked, err, sizeof err) == -1 &&
             strstr(err, "--why: the reason is empty"));
    RB_CHECK(rb_expect_mark_stale(d, &copy, NULL, "abc1234", "2026-12-01T10:00:00Z", NULL, &marked,
                                  err, sizeof err) == -1);
    RB_CHECK(rb_expect_mark_stale(d, NULL, "x", "abc1234", "2026-12-01T10:00:00Z", NULL, &marked,
                                  err, sizeof err) == -1);
    rb_filter bad;
    RB_CHECK(rb_filter_compile(&bad, "--filter", "(", err, sizeof err) == -1 &&
             strstr(err, "not a valid regular expression"));
    rb_filter_free(&hgemm);
    rb_filter_free(&nosuch);
    rb_filter_free(&copy);
    char *after = json_write(d, 0);
    RB_CHECK(before && after && !strcmp(before, after));
    free(before);
    free(after);
    json_free(d);
}

/* A run against a marked row: its variants are stale, not gating, and say the mark; an unmarked
 * row whose code changed is still regressed, for the code. */
static void test_stale_verdict(void)
{
    rb_expect e = {0};
    e.doc = with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\","
                       " \"why\": \"kernels changed since recorded at 46a1f36\"}");
    rb_pair_result p[2];
    init_row(&p[0], "copy_x", ROW_SIZE);
    timed(&p[0], "optimized", 1.2); /* 20% slower than the row */
    kernel(&p[0], "optimized", "00000000000000bb");
    init_row(&p[1], "hgemm.square@16M", 16777216);
    timed(&p[1], "optimized", 2.4);
    RB_CHECK(rb_expect_apply(&e, p, 2) == 1); /* hgemm, unmarked, regressed */
    RB_CHECK(p[0].v[0].verdict == RB_VERDICT_STALE && p[1].v[0].verdict == RB_VERDICT_REGRESSED);
    RB_CHECK(rb_expect_failing(p, 2, 1, 0) == 1);
    const char *ev = p[0].v[0].evidence;
    RB_CHECK(strstr(ev, "+20.0% against the row recorded at 46a1f36 (2026-11-26)"));
    RB_CHECK(strstr(ev, "marked stale at 8626872 (2026-12-01): kernels changed since"));
    RB_CHECK(strstr(ev, "roofbench run --update-expectations --filter '^copy_x$'"));
    /* the table says the mark once for the row, and counts the verdict */
    char *table = NULL;
    size_t table_len = 0;
    FILE *tf = open_memstream(&table, &table_len);
    if (tf) {
        rb_report_table(tf, p, 2, 1);
        fclose(tf);
    }
    RB_CHECK(table && strstr(table, "stale: copy_x: recorded at 46a1f36"));
    free(table);
    char summary[600];
    rb_report_summary_text(p, 2, summary, sizeof summary);
    RB_CHECK(strstr(summary, "1 stale") && strstr(summary, "1 regressed"));
    /* the results file carries it, and reads back */
    rb_roofs none;
    rb_roofs_unknown(&none);
    /* (a date as run writes one: history places a run by it) */
    json_value *doc =
        rb_report_json(p, 2, &none, &none, parse("{\"date\": \"2026-12-01T00:00:00Z\"}"));
    rb_pair_result *back = NULL;
    int n = 0;
    char err[300];
    RB_CHECK(doc && rb_results_read(doc, &back, &n, err, sizeof err) == 0 && n == 2);
    RB_CHECK(back && back[0].v[0].verdict == RB_VERDICT_STALE &&
             strstr(back[0].v[0].evidence, "marked stale"));
    RB_CHECK(back && back[0].n_kernels == 1 &&
             !strcmp(back[0].kernels[0].sass_hash, "00000000000000bb"));
    free(back);
    /* plot, compare and history read it: the report counts and colours it */
    const char *dir = rbtest_fresh_dir();
    char path[600];
    rb_fmt(path, sizeof path, "%s/stale.json", dir);
    json_set_string(doc, "hardware_key", "nvidia-h200");
    RB_CHECK(json_write_file(path, doc, err, sizeof err) == 0);
    RB_CHECK(rbtest_run("plot stale.json --html") == 0);
    rb_fmt(path, sizeof path, "%s/stale.html", dir);
    char *html = rbtest_read_file(path);
    RB_CHECK(html && strstr(html, "v-stale") && strstr(html, "1 stale"));
    free(html);
    RB_CHECK(rbtest_run("compare stale.json stale.json --expect none") == 0);
    RB_CHECK(rbtest_run("history stale.json --expect none") == 0);
    rbtest_remove_dir();
    json_free(doc);
    rb_expect_free(&e);
}

/* Recording the row again (run --update-expectations) clears its mark, and says so. */
static void test_update_clears_mark(void)
{
    json_value *d = with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\","
                               " \"why\": \"changed\"}");
    json_value *before = json_clone(d);
    rb_pair_result p;
    init_row(&p, "copy_x", ROW_SIZE);
    timed(&p, "optimized", 1.2);
    char err[300] = "", *said = NULL;
    size_t len = 0;
    RB_CHECK(rb_expect_update(&d, &p, 1, NULL, NULL, parse("{\"git\": \"abc1234\"}"), err,
                              sizeof err) == 0);
    RB_CHECK(!json_get(row_of(d, "copy_x"), "stale") &&
             json_get(row_of(d, "hgemm.square@16M"), "variants"));
    FILE *f = open_memstream(&said, &len);
    RB_CHECK(f && rb_expect_say_cleared(f, before, &p, 1) == 1);
    if (f)
        fclose(f);
    RB_CHECK(said && strstr(said, "copy_x recorded again: its stale mark (8626872"));
    free(said);
    json_free(before);
    json_free(d);
}

/* ---- recording from several runs ---- */

/* The results document of one run of copy_x on GPU uuid, its optimized median ms. */
static json_value *run_doc(const char *key, const char *git, const char *uuid, double ms,
                           const char *hash, int valid)
{
    char meta[1200];
    snprintf(meta, sizeof meta,
             "{\"schema\": 1, \"tool\": \"roofbench\", \"date\": \"2026-12-01T10:00:00Z\","
             " \"git\": \"%s\", \"size\": \"full\", \"hardware_key\": \"%s\","
             " \"environment\": {\"start\": {\"device\": \"NVIDIA H200\", \"cc\": \"9.0\","
             "   \"sms\": 132, \"uuid\": \"%s\", \"driver\": \"580.159.04\","
             "   \"cuda_runtime\": \"13.0\", \"build_arch\": \"sm_90\", \"build_nvcc\": \"13.0\"}},"
             " \"platform\": {\"source\": \"ceilings --quick at run start\", \"dram_gbps\": 4200}}",
             git, key, uuid);
    rb_pair_result p;
    init_row(&p, "copy_x", ROW_SIZE);
    rb_variant_result *v = timed(&p, "optimized", ms);
    v->valid = valid;
    p.wall_s = 1.5;
    kernel(&p, "optimized", hash);
    rb_roofs none;
    rb_roofs_unknown(&none);
    json_value *m = parse(meta);
    if (uuid[0] == '\0' && m) /* no UUID at all */
        json_object_set(json_get(m, "environment"), "start", parse("{\"device\": \"x\"}"));
    return rb_report_json(&p, 1, &none, &none, m);
}

typedef struct run_set {
    json_value *docs[8];
    rb_record_run runs[8];
    char paths[8][32];
    int n;
} run_set;

static void add_run(run_set *s, json_value *doc)
{
    snprintf(s->paths[s->n], sizeof s->paths[s->n], "run%d.json", s->n + 1);
    s->docs[s->n] = doc;
    s->runs[s->n].path = s->paths[s->n];
    s->runs[s->n].doc = doc;
    s->n++;
}

/* 3 runs on each of two machines. */
static void two_machines(run_set *s)
{
    static const double ms[6] = {1.00, 1.01, 1.00, 1.05, 1.04, 1.05};
    memset(s, 0, sizeof *s);
    for (int r = 0; r < 6; r++)
        add_run(s, run_doc("nvidia-h200", "abc1234", r < 3 ? "GPU-aaaa" : "GPU-bbbb", ms[r],
                           "00000000000000aa", 1));
}

/* Run i of s replaced by doc. */
static void replace_run(run_set *s, int i, json_value *doc)
{
    json_free(s->docs[i]);
    s->docs[i] = doc;
    s->runs[i].doc = doc;
}

static void free_runs(run_set *s)
{
    for (int r = 0; r < s->n; r++)
        json_free(s->docs[r]);
}

/* Refused with a message that holds needle; doc (then freed) unchanged. */
static int record_refused(run_set *s, const char *needle)
{
    char err[600] = "";
    json_value *doc = file_doc(), *copy = json_clone(doc);
    rb_pair_result *rows = NULL;
    int n = 0;
    int rc = rb_expect_record_runs(&doc, s->runs, s->n, &rows, &n, err, sizeof err);
    char *a = json_write(doc, 0), *b = json_write(copy, 0);
    int same = a && b && !strcmp(a, b);
    free(a);
    free(b);
    free(rows);
    json_free(doc);
    json_free(copy);
    free_runs(s);
    if (rc == 0 || !strstr(err, needle) || !same) {
        printf("    (record: rc %d, \"%s\", wanted \"%s\"%s)\n", rc, err, needle,
               same ? "" : ", and the document changed");
        return 0;
    }
    return 1;
}

static void test_record_merges_machines(void)
{
    run_set s;
    two_machines(&s);
    char err[600] = "";
    json_value *doc = with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\","
                                 " \"why\": \"changed\"}");
    rb_pair_result *rows = NULL;
    int n = 0;
    RB_CHECK(rb_expect_record_runs(&doc, s.runs, s.n, &rows, &n, err, sizeof err) == 0);
    if (err[0])
        printf("    %s\n", err);
    RB_CHECK(n == 1 && rows && !strcmp(rows[0].name, "copy_x"));
    RB_CHECK(rb_expect_validate(doc, err, sizeof err) == 0);
    const json_value *row = row_of(doc, "copy_x");
    const json_value *v = json_get(json_get(row, "variants"), "optimized");
    /* every run's median: the spread between the machines is in the threshold */
    RB_CHECK(json_number_at(v, "runs") == 6 && json_get(v, "run_medians")->count == 6);
    RB_CHECK_NEAR(json_number_at(v, "median_ms"), 1.025, 1e-12);
    RB_CHECK_NEAR(json_number_at(v, "run_spread"), 0.05 / 1.025, 1e-12);
    RB_CHECK_NEAR(json_number_at(row, "wall_s"), 1.5, 1e-12);
    RB_CHECK(!json_get(row, "stale")); /* recorded again: the mark is gone */
    RB_CHECK(json_get(row, "kernels") && json_get(row, "platform"));
    const json_value *rec = json_get(row, "recorded"), *gpus = json_get(rec, "gpus");
    RB_CHECK(json_number_at(rec, "machines") == 2 && json_number_at(rec, "runs") == 6);
    RB_CHECK(gpus && gpus->count == 2 && !strcmp(gpus->items[0]->string, "GPU-aaaa") &&
             !strcmp(gpus->items[1]->string, "GPU-bbbb"));
    RB_CHECK(!strcmp(json_string_at(rec, "nvcc", ""), "13.0") &&
             !strcmp(json_string_at(rec, "arch", ""), "sm_90") &&
             !strcmp(json_string_at(rec, "git", ""), "abc1234"));
    RB_CHECK(json_number_at(json_get(doc, "provenance"), "machines") == 2);
    /* the other row is kept as it was */
    RB_CHECK(
        json_number_at(json_get(json_get(row_of(doc, "hgemm.square@16M"), "variants"), "optimized"),
                       "median_ms") == 2.0);
    free(rows);
    json_free(doc);
    free_runs(&s);
    /* a new file: the runs' hardware and the datasheet peaks of their key */
    two_machines(&s);
    doc = NULL;
    RB_CHECK(rb_expect_record_runs(&doc, s.runs, s.n, &rows, &n, err, sizeof err) == 0);
    RB_CHECK(doc && !strcmp(json_string_at(json_get(doc, "hardware"), "name", ""), "NVIDIA H200"));
    RB_CHECK(json_number_at(json_get(doc, "peaks"), "dram_gbps") > 0);
    RB_CHECK(rb_expect_validate(doc, err, sizeof err) == 0);
    free(rows);
    json_free(doc);
    free_runs(&s);
}

/* --record --filter: only the selected rows are recorded; a filter that selects none writes
 * nothing (the stale mark stays). */
static void test_record_only_selected_rows(void)
{
    char err[600] = "";
    rb_filter only, none;
    RB_CHECK(rb_filter_compile(&only, "--filter", "^copy_x$", err, sizeof err) == 0);
    RB_CHECK(rb_filter_compile(&none, "--filter", "^hgemm", err, sizeof err) == 0);
    run_set s;
    two_machines(&s);
    json_value *doc = with_stale("{\"git\": \"8626872\", \"date\": \"2026-12-01T10:00:00Z\","
                                 " \"why\": \"changed\"}");
    rb_pair_result *rows = NULL;
    int n = 0;
    RB_CHECK(rb_expect_record_select(&doc, s.runs, s.n, &none, &rows, &n, err, sizeof err) == -1);
    RB_CHECK(strstr(err, "no row of the runs matches --filter") != NULL);
    RB_CHECK(json_get(row_of(doc, "copy_x"), "stale") != NULL); /* nothing written */
    RB_CHECK(rb_expect_record_select(&doc, s.runs, s.n, &only, &rows, &n, err, sizeof err) == 0);
    RB_CHECK(n == 1 && rows && !strcmp(rows[0].name, "copy_x"));
    RB_CHECK(!json_get(row_of(doc, "copy_x"), "stale"));
    free(rows);
    json_free(doc);
    free_runs(&s);
    rb_filter_free(&only);
    rb_filter_free(&none);
}

static void test_record_refusals(void)
{
    run_set s;
    two_machines(&s);
    replace_run(
        &s, 4, run_doc("nvidia-h100-80gb-hbm3", "abc1234", "GPU-bbbb", 1.0, "00000000000000aa", 1));
    RB_CHECK(record_refused(&s, "run5.json: a run of hardware_key nvidia-h100-80gb-hbm3, but "
                                "run1.json is of nvidia-h200"));
    two_machines(&s);
    replace_run(&s, 2, run_doc("nvidia-h200", "fff0000", "GPU-aaaa", 1.0, "00000000000000aa", 1));
    RB_CHECK(record_refused(&s, "run3.json: a run of git fff0000"));
    two_machines(&s);
    json_set_string(s.docs[1], "size", "smoke");
    RB_CHECK(record_refused(&s, "run2.json: a run of size smoke"));
    two_machines(&s);
    replace_run(&s, 5, run_doc("nvidia-h200", "abc1234", "GPU-bbbb", 1.0, "00000000000000cc", 1));
    RB_CHECK(record_refused(&s, "run6.json: copy_x: kernel copy_x_optimized_kernel: sass_hash "
                                "00000000000000aa and 00000000000000cc"));
    two_machines(&s);
    replace_run(&s, 3, run_doc("nvidia-h200", "abc1234", "GPU-bbbb", 1.0, "00000000000000aa", 0));
    RB_CHECK(record_refused(&s, "run4.json: copy_x/optimized is not a valid timed result"));
    two_machines(&s);
    replace_run(&s, 0, run_doc("nvidia-h200", "abc1234", "", 1.0, "00000000000000aa", 1));
    RB_CHECK(record_refused(&s, "run1.json: its environment names no GPU UUID"));
    two_machines(&s);
    for (int r = 2; r < 6; r++)
        json_free(s.docs[r]);
    s.n = 2;
    RB_CHECK(record_refused(&s, "copy_x/optimized: timed in 2 run(s) (run1.json, run2.json): at "
                                "least 3"));
}

/* ---- launch geometry is code ---- */

/* The attribution of a 20% slower copy_x whose kernel differs from the recorded one only by
 * `key` = `value` (both sides know it), or by nothing. */
static const char *cause_with(const char *key, double recorded, double now, char *evidence,
                              size_t size)
{
    static char cause[16];
    rb_pair_result runs[3], p;
    for (int r = 0; r < 3; r++) {
        init_row(&runs[r], "copy_x", ROW_SIZE);
        timed(&runs[r], "optimized", 1.0);
        rb_kernel_result *k = kernel(&runs[r], "optimized", "00000000000000aa");
        if (!strcmp(key, "grid"))
            k->grid = (long long)recorded;
        if (!strcmp(key, "block_threads"))
            k->block_threads = (int)recorded;
        if (!strcmp(key, "blocks_per_sm"))
            k->blocks_per_sm = (int)recorded;
    }
    const rb_pair_result *earlier[2] = {&runs[0], &runs[1]};
    json_value *edoc = NULL;
    char err[300];
    rb_expect_update_runs(&edoc, &runs[2], 1, earlier, 2, NULL, parse("{\"name\": \"x\"}"), NULL,
                          parse("{\"git\": \"abc\"}"), err, sizeof err);
    rb_expect e = {.doc = edoc};
    init_row(&p, "copy_x", ROW_SIZE);
    timed(&p, "optimized", 1.2);
    rb_kernel_result *k = kernel(&p, "optimized", "00000000000000aa");
    if (!strcmp(key, "grid"))
        k->grid = (long long)now;
    if (!strcmp(key, "block_threads"))
        k->block_threads = (int)now;
    if (!strcmp(key, "blocks_per_sm"))
        k->blocks_per_sm = (int)now;
    rb_expect_apply(&e, &p, 1);
    rb_roofs none;
    rb_roofs_unknown(&none);
    json_value *doc = rb_report_json(&p, 1, &none, &none, parse("{\"date\": \"x\"}"));
    rb_runcmp_attribute_verdicts(e.doc, doc, &p, 1);
    rb_fmt(cause, sizeof cause, "%s", p.v[0].cause);
    rb_fmt(evidence, size, "%s", p.v[0].evidence);
    json_free(doc);
    rb_expect_free(&e);
    return cause;
}

static void test_launch_geometry_is_code(void)
{
    char ev[700];
    RB_CHECK(!strcmp(cause_with("grid", 1056, 2112, ev, sizeof ev), "code") &&
             strstr(ev, "grid 1056 -> 2112"));
    RB_CHECK(!strcmp(cause_with("block_threads", 256, 512, ev, sizeof ev), "code") &&
             strstr(ev, "block_threads 256 -> 512"));
    RB_CHECK(!strcmp(cause_with("blocks_per_sm", 8, 4, ev, sizeof ev), "code") &&
             strstr(ev, "blocks_per_sm 8 -> 4"));
    /* a grid one side does not know is not compared; nothing changed: not the code */
    RB_CHECK(!strcmp(cause_with("grid", 0, 2112, ev, sizeof ev), "unexplained"));
    RB_CHECK(!strcmp(cause_with("none", 0, 0, ev, sizeof ev), "unexplained"));
    /* compare: two runs whose kernel launched another grid, 20% slower: the code */
    rb_roofs none;
    rb_roofs_unknown(&none);
    rb_pair_result a, b2;
    init_row(&a, "copy_x", ROW_SIZE);
    timed(&a, "optimized", 1.0);
    kernel(&a, "optimized", "00000000000000aa")->grid = 1056;
    b2 = a;
    b2.v[0].time_ms.median = b2.v[0].time_ms.ci_lo = b2.v[0].time_ms.ci_hi = 1.2;
    b2.kernels[0].grid = 2112;
    json_value *od = rb_report_json(&a, 1, &none, &none, parse("{\"date\": \"1\"}"));
    json_value *nd = rb_report_json(&b2, 1, &none, &none, parse("{\"date\": \"2\"}"));
    rb_runcmp c;
    char cerr[300];
    RB_CHECK(od && nd && rb_runcmp_build(od, nd, &c, cerr, sizeof cerr) == 0);
    if (od && nd) {
        RB_CHECK(c.n_rows == 1 && c.rows[0].change == RB_CHANGE_SLOWER &&
                 c.rows[0].cause == RB_CAUSE_CODE &&
                 strstr(c.rows[0].evidence, "grid 1056 -> 2112"));
        rb_runcmp_free(&c);
    }
    json_free(od);
    json_free(nd);
    /* the kernel record keeps the grid; 0 (unknown) is not written */
    rb_kernel_result k, back;
    char err[200];
    memset(&k, 0, sizeof k);
    snprintf(k.variant, sizeof k.variant, "optimized");
    snprintf(k.name, sizeof k.name, "demo_kernel");
    json_value *o = rb_kernel_to_json(&k);
    RB_CHECK(o && !json_get(o, "grid"));
    json_free(o);
    k.grid = 270336;
    o = rb_kernel_to_json(&k);
    RB_CHECK(o && json_number_at(o, "grid") == 270336);
    RB_CHECK(o && rb_kernel_from_json(o, &back, err, sizeof err) == 0 && back.grid == 270336);
    json_free(o);
    /* copy_vectorized says the grids its launchers launch (tier 2: the pair's host code) */
    const rb_kernel_info *t = copy_vectorized_kernels;
    RB_CHECK(t[0].grid && t[0].grid(1, 1000003) == (1000003 + 255) / 256);
    RB_CHECK(t[1].grid && t[1].grid(1, 268435456) == 268435456 / 4 / 256 && t[1].grid(1, 3) == 1);
}

/* ---- the check, on a build described by hand ---- */

static void test_check_rules(void)
{
    rb_build_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "copy_x");
    row.n_variants = 2;
    snprintf(row.variants[0], RB_NAME_MAX, "optimized");
    snprintf(row.variants[1], RB_NAME_MAX, "library");
    row.n_kernels = 1;
    snprintf(row.kernels[0].variant, RB_NAME_MAX, "optimized");
    snprintf(row.kernels[0].name, sizeof row.kernels[0].name, "copy_x_optimized_kernel");
    snprintf(row.kernels[0].sass_hash, 17, "00000000000000aa");
    row.kernels[0].block_threads = 256;
    static const char *const missing[] = {"hgemm: not built here", NULL};
    rb_build b = {.nvcc = "13.0", .arch = "sm_90", .n_rows = 1, .rows = &row, .missing = missing};
    rb_check_counts c;
    char *text = NULL;
    size_t len = 0;
    /* an older row (no recorded.nvcc): library is a note; hgemm's pair is not built: skipped */
    json_value *d = file_doc();
    FILE *f = open_memstream(&text, &len);
    RB_CHECK(rb_expect_check_doc(d, "e.json", &b, f, &c) == 0 && c.matched == 1 && c.other == 1);
    fclose(f);
    RB_CHECK(text && strstr(text, "note e.json: copy_x: timed by this build, not held by the row"));
    RB_CHECK(text && strstr(text, "skip e.json: hgemm.square@16M: not compared: this build left "
                                  "the pair out (not built here)"));
    free(text);
    /* the code changed: named with both hashes; the geometry; a row of another toolkit */
    json_value *k = json_get(row_of(d, "copy_x"), "kernels")->items[0];
    json_set_string(k, "sass_hash", "00000000000000ab");
    json_set_number(k, "dyn_smem_bytes", 1024);
    f = open_memstream(&text, &len);
    RB_CHECK(rb_expect_check_doc(d, "e.json", &b, f, &c) == 1 && c.differ == 1);
    fclose(f);
    RB_CHECK(text && strstr(text, "FAIL e.json: copy_x: kernel copy_x_optimized_kernel "
                                  "(optimized): sass_hash 00000000000000ab recorded at 46a1f36, "
                                  "00000000000000aa in this build"));
    RB_CHECK(text && strstr(text, "dyn_smem_bytes 1024 recorded, 0 in this build"));
    free(text);
    json_set_string(json_get(row_of(d, "copy_x"), "recorded"), "cuda", "12.8");
    f = open_memstream(&text, &len);
    RB_CHECK(rb_expect_check_doc(d, "e.json", &b, f, &c) == 0 && c.other == 2);
    fclose(f);
    RB_CHECK(text && strstr(text, "skip e.json: copy_x: recorded with nvcc 12.8 for sm_90, this "
                                  "build is nvcc 13.0 for sm_90"));
    free(text);
    /* a row recorded from now on says its skipped variants: one the build times and the row
     * neither holds nor skipped differs; a variant gone differs; marked stale, it passes */
    json_object_set(row_of(d, "copy_x"), "recorded",
                    parse("{\"git\": \"abc1234\", \"nvcc\": \"13.0\", \"arch\": \"sm_90\"}"));
    json_set_string(k, "sass_hash", "00000000000000aa");
    json_set_number(k, "dyn_smem_bytes", 0);
    json_object_set(json_get(row_of(d, "copy_x"), "variants"), "baseline",
                    parse("{\"median_ms\": 3.0, \"noise\": 0.001}"));
    f = open_memstream(&text, &len);
    RB_CHECK(rb_expect_check_doc(d, "e.json", &b, f, &c) == 1);
    fclose(f);
    RB_CHECK(text && strstr(text, "FAIL e.json: copy_x: variant baseline: recorded, but this "
                                  "build does not time it"));
    RB_CHECK(text && strstr(text, "FAIL e.json: copy_x: variant library: this build times it, "
                                  "the row does not hold it"));
    free(text);
    json_object_set(row_of(d, "copy_x"), "stale",
                    parse("{\"git\": \"abc1234\", \"date\": \"2026-12-01T10:00:00Z\","
                          " \"why\": \"baseline renamed\"}"));
    f = open_memstream(&text, &len);
    RB_CHECK(rb_expect_check_doc(d, "e.json", &b, f, &c) == 0 && c.stale == 1);
    fclose(f);
    RB_CHECK(text && strstr(text, "stale e.json: copy_x: marked at abc1234"));
    free(text);
    json_free(d);
    /* the file names the GPUs it is for */
    RB_CHECK(rb_expect_file_gpus("expectations/nvidia-h200-x2.json") == 2);
    RB_CHECK(rb_expect_file_gpus("nvidia-h100-80gb-hbm3.json") == 1);
    RB_CHECK(rb_expect_file_gpus("/tmp/x/nvidia-h100-80gb-hbm3-x4.json") == 4);
}

/* ---- tier 2: the committed files against this build ---- */

/* Without the build's fingerprints there is nothing to compare: a failure where CI requires
 * them, a skip with the reason elsewhere. 1 when the test can go on. */
static int have_fingerprints(void)
{
    if (!rb_fingerprints_missing[0])
        return 1;
    const char *req = getenv("RB_REQUIRE_CODEGEN");
    if (req && !strcmp(req, "1")) {
        printf("    this build has no codegen fingerprints (%s), and RB_REQUIRE_CODEGEN=1\n",
               rb_fingerprints_missing);
        RB_CHECK(!"codegen fingerprints, for the check of the committed expectation files");
    } else {
        rbtest_skip("this build has no codegen fingerprints (cuobjdump was not found at build "
                    "time): the committed expectation files cannot be checked against it");
    }
    return 0;
}

/* The check of paths: its exit code, its output in *text (the caller frees). */
static int check_text(const char *const *paths, int n, char **text)
{
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return -1;
    int rc = rb_expect_check_files(paths, n, f, f);
    fclose(f);
    return rc;
}

/* The lines of text that start with one of the prefixes, indented. */
static void print_lines(const char *text, const char *const *prefixes, int n)
{
    for (const char *s = text; s && *s;) {
        size_t len = strcspn(s, "\n");
        for (int i = 0; i < n; i++)
            if (!strncmp(s, prefixes[i], strlen(prefixes[i]))) {
                printf("    %.*s\n", (int)len, s);
                break;
            }
        s += len + (s[len] == '\n');
    }
}

static void test_committed_files_describe_this_build(void)
{
    if (!have_fingerprints())
        return;
    char *text = NULL;
    int rc = check_text(NULL, 0, &text);
    static const char *const said[] = {"FAIL", "skip", "expectations"};
    print_lines(text, said, 3);
    RB_CHECK(rc == 0);
    free(text);
}

/* The H200 file, which can be measured now, describes this build whole: no row marked stale,
 * none that differs, and every row a full one-GPU run takes held (a run against it judges no
 * variant new). */
static void test_h200_file_current_and_complete(void)
{
    if (!have_fingerprints())
        return;
    const char *path = "expectations/nvidia-h200.json";
    rb_expect e;
    char err[512];
    rb_build b;
    rb_check_counts c;
    memset(&c, 0, sizeof c);
    RB_CHECK(rb_expect_load(path, &e, err, sizeof err) == 0);
    RB_CHECK(rb_expect_build(1, &b) == 0);
    FILE *out = fopen("/dev/null", "w");
    RB_CHECK(out != NULL);
    if (out && e.doc && b.rows)
        rb_expect_check_doc(e.doc, path, &b, out, &c);
    if (out)
        fclose(out);
    if (c.differ || c.stale || c.build_only || c.other)
        printf("    %s: %d differ, %d stale, %d of the build's rows missing, %d not compared\n",
               path, c.differ, c.stale, c.build_only, c.other);
    RB_CHECK(c.rows > 0 && c.differ == 0 && c.stale == 0 && c.build_only == 0 && c.other == 0);
    free((void *)b.rows);
    rb_expect_free(&e);
}

/* The first unmarked row of doc with a kernel record that has a fingerprint, and that record. */
static json_value *plantable(json_value *doc, const char **row)
{
    json_value *pairs = json_get(doc, "pairs");
    for (size_t i = 0; pairs && i < pairs->count; i++) {
        json_value *ks = json_get(pairs->items[i], "kernels");
        if (json_get(pairs->items[i], "stale") || !ks || !ks->count ||
            !json_get(ks->items[0], "sass_hash"))
            continue;
        *row = pairs->keys[i];
        return ks->items[0];
    }
    return NULL;
}

/* The planted defect: a copy of a committed file with one unmarked row's kernel hash altered
 * fails the check, naming the file, the row, the kernel and both hashes; the same row marked
 * stale by the command passes again. */
static void test_planted_hash_fails_until_marked(void)
{
    if (!have_fingerprints())
        return;
    static const char *const committed = "expectations/nvidia-h100-80gb-hbm3.json";
    char err[400], path[600], line[1200], args[1200], *text = NULL;
    json_value *doc = json_parse_file(committed, err, sizeof err);
    const char *row = NULL;
    json_value *k = doc ? plantable(doc, &row) : NULL;
    RB_CHECK(k != NULL);
    if (!k) {
        json_free(doc);
        return;
    }
    const char *paths[1] = {committed};
    int rc_committed = check_text(paths, 1, &text);
    free(text);
    char was[17], planted[17];
    rb_fmt(was, sizeof was, "%s", json_string_at(k, "sass_hash", ""));
    rb_fmt(planted, sizeof planted, "%s", was);
    planted[15] = planted[15] == '0' ? '1' : '0';
    json_set_string(k, "sass_hash", planted);
    const char *dir = rbtest_fresh_dir();
    rb_fmt(path, sizeof path, "%s/nvidia-h100-80gb-hbm3.json", dir);
    RB_CHECK(json_write_file(path, doc, err, sizeof err) == 0);
    paths[0] = path;
    RB_CHECK(check_text(paths, 1, &text) == 1);
    rb_fmt(line, sizeof line,
           "FAIL %s: %s: kernel %s (%s): sass_hash %s recorded at %s, %s in "
           "this build",
           path, row, json_string_at(k, "name", ""), json_string_at(k, "variant", ""), planted,
           json_string_at(json_get(json_get(json_get(doc, "pairs"), row), "recorded"), "git", "?"),
           was);
    RB_CHECK(text && strstr(text, line));
    if (text && !strstr(text, line))
        printf("    (no line \"%s\")\n", line);
    free(text);
    /* the command marks it (the binary, as a developer would) and the check passes again */
    RB_CHECK(rbtest_run("expectations --check nvidia-h100-80gb-hbm3.json") == 1);
    rb_fmt(args, sizeof args,
           "expectations --mark-stale --filter '^%s$' --why 'planted: one kernel hash altered' "
           "--expect nvidia-h100-80gb-hbm3.json",
           row);
    RB_CHECK(rbtest_run(args) == 0 && strstr(rbtest_output(), "stale: "));
    RB_CHECK(check_text(paths, 1, &text) == rc_committed);
    rb_fmt(line, sizeof line, "FAIL %s: %s:", path, row);
    RB_CHECK(text && !strstr(text, line));
    rb_fmt(line, sizeof line, "stale %s: %s: marked at", path, row);
    RB_CHECK(text && strstr(text, line));
    free(text);
    json_free(doc);
    rbtest_remove_dir();
}

/* The command's refusals: one line, exit 2, nothing written. */
static void test_command_refusals(void)
{
    char err[400], path[600];
    const char *dir = rbtest_fresh_dir();
    json_value *doc = file_doc();
    rb_fmt(path, sizeof path, "%s/e.json", dir);
    RB_CHECK(doc && json_write_file(path, doc, err, sizeof err) == 0);
    char *before = rbtest_read_file(path);
    RB_CHECK(rbtest_run("expectations --mark-stale --filter '^nosuch$' --why x --expect e.json") ==
                 2 &&
             strstr(rbtest_output(), "matches no row of the file; nothing written"));
    RB_CHECK(rbtest_run("expectations --mark-stale --filter copy --why '' --expect e.json") == 2);
    RB_CHECK(rbtest_run("expectations --mark-stale --filter copy --expect e.json") == 2 &&
             strstr(rbtest_output(), "--mark-stale needs --filter REGEX"));
    RB_CHECK(rbtest_run("expectations --mark-stale --filter copy --why x --key ../x") == 2 &&
             strstr(rbtest_output(), "is not a hardware key"));
    RB_CHECK(rbtest_run("expectations --mark-stale --filter copy --why x --key nvidia-h200") == 2 &&
             strstr(rbtest_output(), "expectations/nvidia-h200.json: no such expectation file"));
    char *after = rbtest_read_file(path);
    RB_CHECK(before && after && !strcmp(before, after));
    free(after);
    /* an invalid file: refused, not rewritten */
    RB_CHECK(rb_write_file_atomic(path, "{\"schema\": 1,}", err, sizeof err) == 0);
    RB_CHECK(rbtest_run("expectations --mark-stale --filter copy --why x --expect e.json") == 2);
    after = rbtest_read_file(path);
    RB_CHECK(after && !strcmp(after, "{\"schema\": 1,}"));
    free(after);
    RB_CHECK(rbtest_run("expectations --check e.json") == 2);
    /* --record: a results file that is not one, a file of fewer runs than needed */
    RB_CHECK(rbtest_run("expectations --record e.json") == 2);
    free(before);
    json_free(doc);
    rbtest_remove_dir();
}

/* ---- the command line ---- */

/* rb_cli_parse of argv (NULL-terminated, after "roofbench"): its result, err in err. */
static int cli(rb_options *o, char *err, size_t size, const char *const *args)
{
    char *argv[16] = {"roofbench"};
    int argc = 1;
    while (args[argc - 1] && argc < 15) {
        argv[argc] = (char *)args[argc - 1];
        argc++;
    }
    err[0] = '\0';
    return rb_cli_parse(argc, argv, o, err, size);
}

static int cli_refuses(const char *needle, const char *const *args)
{
    rb_options o;
    char err[300];
    if (cli(&o, err, sizeof err, args) == 0 || !strstr(err, needle)) {
        printf("    (cli: \"%s\", wanted \"%s\")\n", err, needle);
        return 0;
    }
    return 1;
}

static void test_cli_expectations(void)
{
    rb_options o;
    char err[300];
    const char *mark[] = {"expectations", "--mark-stale", "--filter",    "^hgemm", "--why",
                          "changed",      "--key",        "nvidia-h200", NULL};
    RB_CHECK(cli(&o, err, sizeof err, mark) == 0 && o.command == RB_CMD_EXPECTATIONS &&
             o.mark_stale && !strcmp(o.filter, "^hgemm") && !strcmp(o.why, "changed") &&
             !strcmp(o.key, "nvidia-h200"));
    const char *record[] = {"expectations", "--record", "a.json", "b.json", "c.json", NULL};
    RB_CHECK(cli(&o, err, sizeof err, record) == 0 && o.record && o.n_inputs == 3);
    const char *check[] = {"expectations", "--check", NULL};
    RB_CHECK(cli(&o, err, sizeof err, check) == 0 && o.check && o.n_inputs == 0);
    const char *two[] = {"expectations", "--check", "--record", "a.json", NULL};
    RB_CHECK(cli_refuses("expectations does one thing", two));
    const char *no_why[] = {"expectations", "--mark-stale", "--filter", "x", "--key", "k", NULL};
    RB_CHECK(cli_refuses("--mark-stale needs --filter REGEX (the rows) and --why TEXT", no_why));
    const char *empty_why[] = {"expectations", "--mark-stale", "--filter", "x", "--why", "", NULL};
    RB_CHECK(cli_refuses("--why needs a value", empty_why));
    const char *no_file[] = {"expectations", "--mark-stale", "--filter", "x", "--why", "y", NULL};
    RB_CHECK(cli_refuses("--mark-stale needs the file: --expect FILE or --key KEY", no_file));
    const char *bad_key[] = {"expectations", "--mark-stale", "--filter", "x", "--why", "y",
                             "--key",        "../etc",       NULL};
    RB_CHECK(cli_refuses("--key '../etc' is not a hardware key", bad_key));
    const char *filter_record[] = {"expectations", "--record", "--filter", "x", "a.json", NULL};
    RB_CHECK(cli(&o, err, sizeof err, filter_record) == 0 && o.record && o.filter_re);
    const char *why_record[] = {"expectations", "--record", "--why", "x", "a.json", NULL};
    RB_CHECK(cli_refuses("--why and --key go with --mark-stale", why_record));
    const char *filter_check[] = {"expectations", "--check", "--filter", "x", NULL};
    RB_CHECK(cli_refuses("--filter goes with --mark-stale or --record", filter_check));
    const char *no_runs[] = {"expectations", "--record", NULL};
    RB_CHECK(cli_refuses("--record needs the results files", no_runs));
    const char *bad_regex[] = {"expectations", "--mark-stale", "--filter", "(", "--why", "y",
                               "--key",        "nvidia-h200",  NULL};
    RB_CHECK(cli_refuses("--filter '('", bad_regex));
    const char *not_run[] = {"run", "--mark-stale", NULL};
    RB_CHECK(cli_refuses("--mark-stale does not go with run", not_run));
    char *help = rb_cli_help(RB_CMD_EXPECTATIONS);
    RB_CHECK(help && strstr(help, "usage: roofbench expectations") && strstr(help, "--record"));
    for (const char *line = help; help && *line;) { /* the help fits 80 columns */
        size_t len = strcspn(line, "\n");
        RB_CHECK(len <= 80);
        line += len + (line[len] == '\n');
    }
    free(help);
}

static const rbtest_case stale_cases[] = {
    {"cli_expectations", test_cli_expectations},
    {"h200_file_current_and_complete", test_h200_file_current_and_complete},
    {"validate_stale_mark", test_validate_stale_mark},
    {"mark_stale_selects_rows", test_mark_stale_selects_rows},
    {"stale_verdict", test_stale_verdict},
    {"update_clears_mark", test_update_clears_mark},
    {"record_merges_machines", test_record_merges_machines},
    {"record_only_selected_rows", test_record_only_selected_rows},
    {"record_refusals", test_record_refusals},
    {"launch_geometry_is_code", test_launch_geometry_is_code},
    {"check_rules", test_check_rules},
    {"committed_files_describe_this_build", test_committed_files_describe_this_build},
    {"planted_hash_fails_until_marked", test_planted_hash_fails_until_marked},
    {"command_refusals", test_command_refusals},
};

RB_SUITE(stale_suite, "stale", stale_cases);
