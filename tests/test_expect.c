/* SPDX-License-Identifier: MIT */
/* Tests of expectation files, verdicts and reports (harness/model/expect.c, report.c). */
#include "../harness/model/expect.h"
#include "../harness/model/json.h"
#include "../harness/model/outputs.h"
#include "../harness/model/report.h"
#include "../harness/model/runcmp.h"
#include "../harness/model/result.h"
#include "../harness/model/roofline.h"
#include "../harness/model/util.h"
#include "../harness/runner/results.h"
#include "rbtest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const rbtest_suite expect_suite;

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                    */
/* ------------------------------------------------------------------------------------------ */

#define FULL_SIZE 268435456ull

/* A complete, valid expectation document. */
static const char valid_text[] =
    "{\n"
    "  \"schema\": 1,\n"
    "  \"hardware\": {\"name\": \"NVIDIA H100 80GB HBM3\", \"sm\": \"9.0\"},\n"
    "  \"peaks\": {\"dram_gbps\": 3352, \"fp32_tflops\": 66.9, \"tf32_tflops\": null,\n"
    "            \"source\": \"datasheet\"},\n"
    "  \"ceilings\": {\"dram_gbps\": 3000, \"fp32_tflops\": 60.6, \"source\": \"measured\"},\n"
    "  \"provenance\": {\"git\": \"abc1234\", \"date\": \"2026-11-22T03:15:02Z\",\n"
    "                 \"size\": \"full\"},\n"
    "  \"pairs\": {\"copy_vectorized\": {\"size\": 268435456,\n"
    "                                 \"variants\": {\"baseline\": {\"median_ms\": 0.95,\n"
    "                                                            \"noise\": 0.004}}}}\n"
    "}\n";

/* Expectations used by the apply tests: three variants of copy_vectorized, one of gemm_tiled. */
static const char apply_text[] =
    "{\"schema\": 1, \"hardware\": {\"name\": \"NVIDIA H100 80GB HBM3\"},"
    " \"peaks\": {\"dram_gbps\": 3352}, \"ceilings\": {\"dram_gbps\": 3000},"
    " \"pairs\": {"
    "  \"copy_vectorized\": {\"size\": 268435456, \"variants\": {"
    "     \"baseline\": {\"median_ms\": 1.0, \"noise\": 0.001},"
    "     \"optimized\": {\"median_ms\": 0.5, \"noise\": 0.001},"
    "     \"library\": {\"median_ms\": 0.4, \"noise\": 0.002}}},"
    "  \"gemm_tiled\": {\"size\": 4096, \"variants\": {"
    "     \"baseline\": {\"median_ms\": 10.0, \"noise\": 0.01}}}}}";

static json_value *parse_text(const char *text)
{
    char err[300];
    json_value *v = json_parse(text, strlen(text), err, sizeof err);
    if (!v)
        printf("    (test document does not parse: %s)\n", err);
    return v;
}

static json_value *valid_doc(void)
{
    return parse_text(valid_text);
}

/* The copy of obj without key (obj is freed). */
static json_value *without(json_value *obj, const char *key)
{
    json_value *c = json_new_object();
    for (size_t i = 0; obj && c && i < obj->count; i++)
        if (strcmp(obj->keys[i], key) != 0)
            json_object_set(c, obj->keys[i], json_clone(obj->items[i]));
    json_free(obj);
    return c;
}

static json_value *pair_in(json_value *doc)
{
    return json_get(json_get(doc, "pairs"), "copy_vectorized");
}

static json_value *variant_in(json_value *doc)
{
    return json_get(json_get(pair_in(doc), "variants"), "baseline");
}

/* Validates doc (then frees it); 1 when refused with a message that contains needle. */
static int refused(json_value *doc, const char *needle)
{
    char err[400] = "";
    if (!doc)
        return 0;
    int rc = rb_expect_validate(doc, err, sizeof err);
    json_free(doc);
    if (rc == 0)
        return 0;
    if (!strstr(err, needle)) {
        printf("    (message \"%s\" lacks \"%s\")\n", err, needle);
        return 0;
    }
    return rc == -1;
}

/* An rb_expect from a document text (validated). Returns 0 or -1. */
static int expect_from_text(const char *text, rb_expect *e)
{
    char err[300];
    memset(e, 0, sizeof *e);
    e->doc = parse_text(text);
    if (!e->doc || rb_expect_validate(e->doc, err, sizeof err) != 0) {
        json_free(e->doc);
        e->doc = NULL;
        return -1;
    }
    rb_expect_roofs(json_get(e->doc, "peaks"), &e->peaks);
    rb_expect_roofs(json_get(e->doc, "ceilings"), &e->ceilings);
    return 0;
}

static void init_pair(rb_pair_result *p, const char *name, uint64_t size)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->pattern, sizeof p->pattern, "%s", "dst[i] = src[i]");
    p->size = size;
    p->full_size = size;
    p->bytes = 8.0 * (double)size; /* read and write 4 bytes each */
    p->flops = 0.0;
    p->status = RB_PAIR_OK;
}

static rb_variant_result *add_variant(rb_pair_result *p, const char *name, rb_role role, int valid,
                                      double median_ms, double noise)
{
    rb_variant_result *v = &p->v[p->n_variants++];
    rb_variant_result_init(v, name, role, RB_UNIT_NONE, 0.0);
    v->valid = valid;
    v->timed = 1;
    v->rel_err_before = v->rel_err_after = 0.0;
    v->time_ms.n = 10;
    v->time_ms.median = v->time_ms.min = v->time_ms.max = median_ms;
    v->time_ms.p10 = v->time_ms.p90 = median_ms;
    v->time_ms.noise = noise;
    v->launches_per_sample = 1;
    if (!valid)
        snprintf(v->note, sizeof v->note, "%s", "wrong result: rel_err 1 > tol 0");
    return v;
}

static const json_value *path_get(const json_value *doc, const char *a, const char *b,
                                  const char *c)
{
    const json_value *x = json_get(doc, a);
    if (b)
        x = json_get(x, b);
    if (c)
        x = json_get(x, c);
    return x;
}

static double number_at(const json_value *doc, const char *a, const char *b, const char *c)
{
    const json_value *x = path_get(doc, a, b, c);
    return x && x->type == JSON_NUMBER ? x->number : NAN;
}

static const char *string_at(const json_value *doc, const char *a, const char *b, const char *c)
{
    const json_value *x = path_get(doc, a, b, c);
    return x && x->type == JSON_STRING ? x->string : "";
}

static int make_tmpdir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/rbexpect.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

/* Writes text to dir/name and puts the path into path. */
static int write_in(const char *dir, const char *name, const char *text, char *path, size_t size)
{
    char err[300];
    snprintf(path, size, "%s/%s", dir, name);
    return rb_write_file_atomic(path, text, err, sizeof err);
}

/* ------------------------------------------------------------------------------------------ */
/* validation                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static void test_validate_accepts_full_document(void)
{
    char err[300] = "";
    json_value *d = valid_doc();
    RB_CHECK(d != NULL);
    RB_CHECK(rb_expect_validate(d, err, sizeof err) == 0);
    /* Optional parts: provenance may be absent; variants may carry gbps/tflops or null;
     * pairs and variants may be empty. */
    d = without(d, "provenance");
    json_value *v = variant_in(d);
    json_set_number(v, "gbps", 2900.5);
    json_object_set(v, "tflops", json_new_null());
    json_object_set(json_get(d, "pairs"), "empty_pair",
                    parse_text("{\"size\": 1, \"variants\": {}}"));
    json_set_number(json_get(d, "ceilings"), "launch_us", 2.5);
    RB_CHECK(rb_expect_validate(d, err, sizeof err) == 0);
    json_free(d);
    d = parse_text("{\"schema\": 1, \"hardware\": {\"name\": \"x\"}, \"peaks\": {},"
                   " \"ceilings\": {}, \"pairs\": {}}");
    RB_CHECK(d && rb_expect_validate(d, err, sizeof err) == 0);
    json_free(d);
}

static void test_validate_refuses_top_level(void)
{
    json_value *d = valid_doc();
    json_set_number(d, "schema", 2);
    RB_CHECK(refused(d, "schema: unsupported version"));

    d = valid_doc();
    json_set_string(d, "schema", "1");
    RB_CHECK(refused(d, "schema: expected a number, got string"));

    RB_CHECK(refused(without(valid_doc(), "schema"), "schema: missing"));
    RB_CHECK(refused(without(valid_doc(), "pairs"), "pairs: missing"));
    RB_CHECK(refused(without(valid_doc(), "ceilings"), "ceilings: missing"));

    d = valid_doc();
    json_set_number(d, "extra", 1);
    RB_CHECK(refused(d, "extra: unknown key"));

    d = valid_doc();
    json_object_set(d, "pairs", json_new_array());
    RB_CHECK(refused(d, "pairs: expected an object, got array"));

    d = valid_doc();
    json_object_set(d, "hardware", parse_text("{\"sm\": \"9.0\"}"));
    RB_CHECK(refused(d, "hardware.name: missing"));

    d = valid_doc();
    json_set_number(json_get(d, "hardware"), "name", 100);
    RB_CHECK(refused(d, "hardware.name: expected string, got number"));

    d = valid_doc();
    json_set_string(d, "provenance", "git abc");
    RB_CHECK(refused(d, "provenance: expected an object, got string"));

    RB_CHECK(refused(parse_text("[1, 2]"), "top level: expected an object, got array"));
}

static void test_validate_refuses_roofs(void)
{
    json_value *d = valid_doc();
    json_set_string(json_get(d, "peaks"), "dram_gbps", "3352");
    RB_CHECK(refused(d, "peaks.dram_gbps: expected a number, got string"));

    d = valid_doc();
    json_set_number(json_get(d, "peaks"), "dram_gbps", -3352);
    RB_CHECK(refused(d, "peaks.dram_gbps: must be positive"));

    d = valid_doc();
    json_set_number(json_get(d, "ceilings"), "fp32_tflops", 0);
    RB_CHECK(refused(d, "ceilings.fp32_tflops: must be positive"));

    d = valid_doc();
    json_set_number(json_get(d, "ceilings"), "launch_us", -1);
    RB_CHECK(refused(d, "ceilings.launch_us: must be positive"));

    /* A key that is neither a roof, source nor methods is refused, whatever it holds. */
    d = valid_doc();
    json_set_number(json_get(d, "ceilings"), "measured_on", 20261122);
    RB_CHECK(refused(d, "ceilings.measured_on: unknown key (expected a roof key, source or "
                        "methods)"));

    d = valid_doc();
    json_object_set(json_get(d, "peaks"), "source", json_new_null());
    RB_CHECK(refused(d, "peaks.source: expected string, got null"));

    d = valid_doc();
    json_object_set(d, "ceilings", json_new_array());
    RB_CHECK(refused(d, "ceilings: expected an object, got array"));
}

static void test_validate_refuses_pairs(void)
{
    json_value *d = valid_doc();
    json_object_set(json_get(d, "pairs"), "copy_vectorized",
                    without(json_clone(pair_in(d)), "size"));
    RB_CHECK(refused(d, "pairs.copy_vectorized.size: missing"));

    d = valid_doc();
    json_set_number(pair_in(d), "size", 0);
    RB_CHECK(refused(d, "pairs.copy_vectorized.size: must be positive"));

    d = valid_doc();
    json_set_string(pair_in(d), "size", "256M");
    RB_CHECK(refused(d, "pairs.copy_vectorized.size: expected a number, got string"));

    d = valid_doc();
    json_set_number(pair_in(d), "sizes", 1);
    RB_CHECK(refused(d, "pairs.copy_vectorized.sizes: unknown key"));

    d = valid_doc();
    json_object_set(json_get(d, "pairs"), "copy_vectorized", json_new_number(3));
    RB_CHECK(refused(d, "pairs.copy_vectorized: expected an object, got number"));

    d = valid_doc();
    json_object_set(json_get(d, "pairs"), "copy_vectorized",
                    without(json_clone(pair_in(d)), "variants"));
    RB_CHECK(refused(d, "pairs.copy_vectorized.variants: missing"));

    d = valid_doc();
    json_object_set(pair_in(d), "variants", parse_text("[{\"median_ms\": 1, \"noise\": 0}]"));
    RB_CHECK(refused(d, "pairs.copy_vectorized.variants: expected an object, got array"));
}

static void test_validate_refuses_variants(void)
{
    const char *where = "pairs.copy_vectorized.variants.baseline";
    char needle[200];

    json_value *d = valid_doc();
    json_set_number(variant_in(d), "median_ms", 0);
    snprintf(needle, sizeof needle, "%s.median_ms: must be positive", where);
    RB_CHECK(refused(d, needle));

    d = valid_doc();
    json_object_set(json_get(pair_in(d), "variants"), "baseline",
                    without(json_clone(variant_in(d)), "noise"));
    snprintf(needle, sizeof needle, "%s.noise: missing", where);
    RB_CHECK(refused(d, needle));

    d = valid_doc();
    json_set_number(variant_in(d), "noise", -0.001);
    snprintf(needle, sizeof needle, "%s.noise: must be >= 0", where);
    RB_CHECK(refused(d, needle));

    /* A noise of exactly 0 is fine (a single sample). */
    d = valid_doc();
    json_set_number(variant_in(d), "noise", 0);
    char err[300];
    RB_CHECK(rb_expect_validate(d, err, sizeof err) == 0);
    json_free(d);

    d = valid_doc();
    json_set_number(variant_in(d), "p90", 1.0);
    snprintf(needle, sizeof needle, "%s.p90: unknown key", where);
    RB_CHECK(refused(d, needle));

    d = valid_doc();
    json_set_string(variant_in(d), "gbps", "fast");
    snprintf(needle, sizeof needle, "%s.gbps: expected a number, got string", where);
    RB_CHECK(refused(d, needle));

    d = valid_doc();
    json_object_set(json_get(pair_in(d), "variants"), "baseline", json_new_number(0.95));
    snprintf(needle, sizeof needle, "%s: expected an object, got number", where);
    RB_CHECK(refused(d, needle));
}

/* ------------------------------------------------------------------------------------------ */
/* loading                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static void test_load_errors(void)
{
    char dir[64], path[128], expected[300], err[500];
    rb_expect e;
    if (make_tmpdir(dir, sizeof dir) != 0) {
        rbtest_skip("mkdtemp failed");
        return;
    }
    RB_CHECK(write_in(dir, "comma.json", "{\n  \"schema\": 1,\n  \"pairs\": {},\n}\n", path,
                      sizeof path) == 0);
    memset(&e, 0x5A, sizeof e);
    RB_CHECK(rb_expect_load(path, &e, err, sizeof err) == -1);
    RB_CHECK(e.doc == NULL);
    snprintf(expected, sizeof expected, "%s: line 3, column 14: ", path);
    RB_CHECK(strncmp(err, expected, strlen(expected)) == 0);
    RB_CHECK(strstr(err, "trailing comma") != NULL);
    unlink(path);

    RB_CHECK(write_in(dir, "dup.json",
                      "{\"schema\": 1, \"pairs\": {\"p\": {\"size\": 1, \"variants\": "
                      "{\"v\": {\"median_ms\": 1, \"noise\": 0, \"noise\": 0}}}}}",
                      path, sizeof path) == 0);
    RB_CHECK(rb_expect_load(path, &e, err, sizeof err) == -1);
    RB_CHECK(strncmp(err, path, strlen(path)) == 0);
    RB_CHECK(strstr(err, "duplicate key \"noise\"") != NULL);
    RB_CHECK(strstr(err, "line 1, column ") != NULL);
    unlink(path);

    /* Valid JSON, invalid document: "PATH: where: what". */
    RB_CHECK(write_in(dir, "schema.json",
                      "{\"schema\": 2, \"hardware\": {\"name\": \"x\"}, \"peaks\": {},"
                      " \"ceilings\": {}, \"pairs\": {}}",
                      path, sizeof path) == 0);
    RB_CHECK(rb_expect_load(path, &e, err, sizeof err) == -1);
    snprintf(expected, sizeof expected, "%s: schema: unsupported version", path);
    RB_CHECK(strncmp(err, expected, strlen(expected)) == 0);
    RB_CHECK(e.doc == NULL);
    unlink(path);

    snprintf(path, sizeof path, "%s/absent.json", dir);
    RB_CHECK(rb_expect_load(path, &e, err, sizeof err) == -1);
    snprintf(expected, sizeof expected, "%s: No such file", path);
    RB_CHECK(strncmp(err, expected, strlen(expected)) == 0);
    RB_CHECK(rmdir(dir) == 0);
}

static void test_load_fills_roofs(void)
{
    char dir[64], path[128], err[500] = "";
    rb_expect e;
    if (make_tmpdir(dir, sizeof dir) != 0) {
        rbtest_skip("mkdtemp failed");
        return;
    }
    RB_CHECK(write_in(dir, "ok.json", valid_text, path, sizeof path) == 0);
    RB_CHECK(rb_expect_load(path, &e, err, sizeof err) == 0);
    RB_CHECK(e.doc != NULL);
    RB_CHECK(e.peaks.value[RB_ROOF_DRAM] == 3352.0);
    RB_CHECK(e.peaks.value[RB_ROOF_FP32] == 66.9);
    RB_CHECK(isnan(e.peaks.value[RB_ROOF_TF32])); /* null: unknown */
    RB_CHECK(isnan(e.peaks.value[RB_ROOF_FP64])); /* absent: unknown */
    RB_CHECK(e.ceilings.value[RB_ROOF_DRAM] == 3000.0);
    RB_CHECK(e.ceilings.value[RB_ROOF_FP32] == 60.6);
    RB_CHECK(number_at(e.doc, "pairs", "copy_vectorized", "size") == 268435456.0);
    rb_expect_free(&e);
    RB_CHECK(e.doc == NULL);
    unlink(path);
    RB_CHECK(rmdir(dir) == 0);
}

/* ------------------------------------------------------------------------------------------ */
/* verdicts                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static void test_threshold(void)
{
    RB_CHECK(rb_expect_threshold(0.001, 0.002) == 0.03);
    RB_CHECK_NEAR(rb_expect_threshold(0.02, 0.001), 0.06, 1e-15);
    RB_CHECK_NEAR(rb_expect_threshold(0.001, 0.02), 0.06, 1e-15);
    RB_CHECK(rb_expect_threshold(NAN, 0.002) == 0.03);
    RB_CHECK_NEAR(rb_expect_threshold(NAN, 0.05), 0.15, 1e-15);
    RB_CHECK_NEAR(rb_expect_threshold(0.05, NAN), 0.15, 1e-15);
    RB_CHECK(rb_expect_threshold(NAN, NAN) == 0.03);
    RB_CHECK(rb_expect_threshold(0.0, 0.0) == 0.03);
}

static void test_judge(void)
{
    RB_CHECK(rb_expect_judge(1.0, 0.001, 1.02, 0.001) == RB_VERDICT_PASS);
    RB_CHECK(rb_expect_judge(1.0, 0.001, 1.031, 0.001) == RB_VERDICT_REGRESSED);
    RB_CHECK(rb_expect_judge(1.0, 0.001, 0.96, 0.001) == RB_VERDICT_IMPROVED);
    RB_CHECK(rb_expect_judge(1.0, 0.001, 0.98, 0.001) == RB_VERDICT_PASS);
    RB_CHECK(rb_expect_judge(1.0, 0.001, 1.0, 0.0) == RB_VERDICT_PASS);
    /* A noisy measurement widens the band: 3 x 0.02 = 6%. */
    RB_CHECK(rb_expect_judge(1.0, 0.001, 1.05, 0.02) == RB_VERDICT_PASS);
    RB_CHECK(rb_expect_judge(1.0, 0.001, 1.061, 0.02) == RB_VERDICT_REGRESSED);
    RB_CHECK(rb_expect_judge(1.0, 0.02, 0.95, 0.001) == RB_VERDICT_PASS);
    RB_CHECK(rb_expect_judge(1.0, 0.02, 0.939, 0.001) == RB_VERDICT_IMPROVED);
    /* NaN never passes. */
    RB_CHECK(rb_expect_judge(1.0, 0.001, NAN, 0.001) == RB_VERDICT_REGRESSED);
    RB_CHECK(rb_expect_judge(1.0, 0.001, NAN, NAN) == RB_VERDICT_REGRESSED);
    RB_CHECK(rb_expect_judge(1.0, 0.001, INFINITY, 0.0) == RB_VERDICT_REGRESSED);
}

static void test_apply_pass_and_invalid(void)
{
    rb_expect e;
    RB_CHECK(expect_from_text(apply_text, &e) == 0);
    rb_pair_result p;
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001);
    add_variant(&p, "optimized", RB_ROLE_OPTIMIZED, 0, 0.5, 0.001);
    add_variant(&p, "library", RB_ROLE_LIBRARY, 1, 0.4, 0.002);
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 1);
    RB_CHECK(p.n_variants == 3);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_PASS);
    RB_CHECK(p.v[0].expected_ms == 1.0);
    RB_CHECK(p.v[1].verdict == RB_VERDICT_INVALID);
    RB_CHECK(p.v[2].verdict == RB_VERDICT_PASS);
    RB_CHECK(p.v[2].expected_ms == 0.4);

    /* The same run with a slow library: two variants make it fail. */
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 0.9, 0.001);
    add_variant(&p, "optimized", RB_ROLE_OPTIMIZED, 0, 0.5, 0.001);
    add_variant(&p, "library", RB_ROLE_LIBRARY, 1, 0.45, 0.002);
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 2);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_IMPROVED);
    RB_CHECK(p.v[2].verdict == RB_VERDICT_REGRESSED);
    rb_expect_free(&e);
}

static void test_apply_new(void)
{
    rb_expect e;
    RB_CHECK(expect_from_text(apply_text, &e) == 0);
    rb_pair_result p[2];
    init_pair(&p[0], "brand_new", 1024);
    add_variant(&p[0], "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001);
    add_variant(&p[0], "optimized", RB_ROLE_OPTIMIZED, 1, 0.5, 0.001);
    /* Recorded at size 4096, run at 2048: says nothing about this run. */
    init_pair(&p[1], "gemm_tiled", 2048);
    add_variant(&p[1], "baseline", RB_ROLE_BASELINE, 1, 99.0, 0.001);
    RB_CHECK(rb_expect_apply(&e, p, 2) == 0);
    RB_CHECK(p[0].n_variants == 2);
    RB_CHECK(p[0].v[0].verdict == RB_VERDICT_NEW && p[0].v[1].verdict == RB_VERDICT_NEW);
    RB_CHECK(isnan(p[0].v[0].expected_ms));
    RB_CHECK(p[1].n_variants == 1);
    RB_CHECK(p[1].v[0].verdict == RB_VERDICT_NEW);
    RB_CHECK(isnan(p[1].v[0].expected_ms));
    rb_expect_free(&e);

    /* No expectation file at all: everything is new, an invalid variant still fails. */
    init_pair(&p[0], "copy_vectorized", FULL_SIZE);
    add_variant(&p[0], "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001);
    RB_CHECK(rb_expect_apply(NULL, p, 1) == 0);
    RB_CHECK(p[0].v[0].verdict == RB_VERDICT_NEW && p[0].n_variants == 1);
    add_variant(&p[0], "optimized", RB_ROLE_OPTIMIZED, 0, 0.5, 0.001);
    RB_CHECK(rb_expect_apply(NULL, p, 1) == 1);
    RB_CHECK(p[0].v[1].verdict == RB_VERDICT_INVALID);
}

static void test_apply_missing_appended(void)
{
    rb_expect e;
    RB_CHECK(expect_from_text(apply_text, &e) == 0);
    rb_pair_result p;
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001);
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 0);
    RB_CHECK(p.n_variants == 3);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_PASS);
    RB_CHECK(strcmp(p.v[1].name, "optimized") == 0);
    RB_CHECK(p.v[1].verdict == RB_VERDICT_MISSING);
    RB_CHECK(p.v[1].expected_ms == 0.5);
    RB_CHECK(p.v[1].valid == 0 && p.v[1].timed == 0);
    RB_CHECK(strstr(p.v[1].note, "expected but not produced") != NULL);
    RB_CHECK(strcmp(p.v[2].name, "library") == 0);
    RB_CHECK(p.v[2].verdict == RB_VERDICT_MISSING);
    RB_CHECK(p.v[2].expected_ms == 0.4);
    rb_expect_free(&e);
}

static void test_apply_skipped_and_failed(void)
{
    rb_expect e;
    RB_CHECK(expect_from_text(apply_text, &e) == 0);
    rb_pair_result p;
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    p.status = RB_PAIR_SKIPPED;
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 0, NAN, NAN);
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 0);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_SKIPPED);
    RB_CHECK(p.n_variants == 1); /* a skipped pair misses nothing */

    init_pair(&p, "gemm_tiled", 4096);
    p.status = RB_PAIR_FAILED;
    snprintf(p.reason, sizeof p.reason, "%s", "watchdog: timed out after 300 s");
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 1);

    init_pair(&p, "brand_new", 4096);
    p.status = RB_PAIR_FAILED;
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001);
    RB_CHECK(rb_expect_apply(&e, &p, 1) >= 1);
    RB_CHECK(rb_expect_apply(NULL, &p, 1) >= 1);
    rb_expect_free(&e);
}

/* ------------------------------------------------------------------------------------------ */
/* recording                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static void test_update_creates_document(void)
{
    rb_pair_result p;
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 4.0, 0.002);
    rb_variant_result *o = add_variant(&p, "optimized", RB_ROLE_OPTIMIZED, 1, 1.0, 0.004);
    o->vs_ceiling.gbps = 2147.483648;
    json_value *doc = NULL;
    char err[300] = "";
    RB_CHECK(rb_expect_update(&doc, &p, 1, parse_text("{\"name\": \"NVIDIA H100 80GB HBM3\"}"),
                              rb_datasheet_peaks("nvidia-h100-80gb-hbm3"),
                              parse_text("{\"git\": \"abc1234\"}"), err, sizeof err) == 0);
    RB_CHECK(doc != NULL);
    if (!doc)
        return;
    RB_CHECK(rb_expect_validate(doc, err, sizeof err) == 0);
    RB_CHECK(number_at(doc, "schema", NULL, NULL) == 1.0);
    RB_CHECK(strcmp(string_at(doc, "hardware", "name", NULL), "NVIDIA H100 80GB HBM3") == 0);
    RB_CHECK(number_at(doc, "peaks", "dram_gbps", NULL) == 3352.0);
    const json_value *ceilings = json_get(doc, "ceilings");
    RB_CHECK(ceilings && ceilings->type == JSON_OBJECT && ceilings->count == 0);
    RB_CHECK(strcmp(string_at(doc, "provenance", "git", NULL), "abc1234") == 0);
    const json_value *pair = path_get(doc, "pairs", "copy_vectorized", NULL);
    RB_CHECK(number_at(pair, "size", NULL, NULL) == 268435456.0);
    RB_CHECK(number_at(pair, "variants", "baseline", "median_ms") == 4.0);
    RB_CHECK(number_at(pair, "variants", "baseline", "noise") == 0.002);
    RB_CHECK(number_at(pair, "variants", "optimized", "median_ms") == 1.0);
    RB_CHECK(number_at(pair, "variants", "optimized", "gbps") == 2147.483648);
    RB_CHECK(path_get(pair, "variants", "optimized", "tflops") == NULL); /* no flops */
    json_free(doc);

    /* Without datasheet peaks the document still validates (peaks is an empty object). */
    doc = NULL;
    RB_CHECK(rb_expect_update(&doc, &p, 1, parse_text("{\"name\": \"Mystery GPU\"}"), NULL,
                              parse_text("{}"), err, sizeof err) == 0);
    RB_CHECK(doc && rb_expect_validate(doc, err, sizeof err) == 0);
    const json_value *peaks = json_get(doc, "peaks");
    RB_CHECK(peaks && peaks->type == JSON_OBJECT && peaks->count == 0);
    json_free(doc);
}

static void test_update_keeps_other_pairs(void)
{
    json_value *doc = parse_text(apply_text);
    RB_CHECK(doc != NULL);
    if (!doc)
        return;
    json_value *before = doc;
    rb_pair_result p[2];
    init_pair(&p[0], "copy_vectorized", FULL_SIZE);
    add_variant(&p[0], "baseline", RB_ROLE_BASELINE, 1, 1.1, 0.003);
    add_variant(&p[0], "optimized", RB_ROLE_OPTIMIZED, 1, 0.55, 0.005);
    /* A skipped pair records nothing, even with an invalid variant. */
    init_pair(&p[1], "gemm_tiled", 4096);
    p[1].status = RB_PAIR_SKIPPED;
    add_variant(&p[1], "baseline", RB_ROLE_BASELINE, 0, NAN, NAN);
    char err[300] = "";
    RB_CHECK(rb_expect_update(&doc, p, 2, parse_text("{\"name\": \"other\"}"),
                              rb_datasheet_peaks("nvidia-h200"),
                              parse_text("{\"git\": \"def5678\"}"), err, sizeof err) == 0);
    RB_CHECK(doc == before);
    RB_CHECK(rb_expect_validate(doc, err, sizeof err) == 0);
    /* hardware and peaks of an existing file are kept; a datasheet key the file lacks is added
     * (the H200 table here, so the added value tells where it came from). */
    RB_CHECK(strcmp(string_at(doc, "hardware", "name", NULL), "NVIDIA H100 80GB HBM3") == 0);
    RB_CHECK(number_at(doc, "peaks", "dram_gbps", NULL) == 3352.0);
    RB_CHECK(number_at(doc, "peaks", "dram_read_gbps", NULL) == 4814.0);
    RB_CHECK(number_at(doc, "peaks", "pcie_h2d_gbps", NULL) == 63.0);
    RB_CHECK(strcmp(string_at(doc, "provenance", "git", NULL), "def5678") == 0);
    /* The run's pair is replaced whole: "library" is gone. */
    const json_value *vs = path_get(doc, "pairs", "copy_vectorized", "variants");
    RB_CHECK(vs && vs->count == 2);
    RB_CHECK(number_at(vs, "baseline", "median_ms", NULL) == 1.1);
    RB_CHECK(number_at(vs, "optimized", "noise", NULL) == 0.005);
    RB_CHECK(json_get(vs, "library") == NULL);
    /* The other pair is kept as it was. */
    RB_CHECK(number_at(doc, "pairs", "gemm_tiled", "size") == 4096.0);
    RB_CHECK(number_at(path_get(doc, "pairs", "gemm_tiled", "variants"), "baseline", "median_ms",
                       NULL) == 10.0);
    json_free(doc);
}

static void test_update_refuses_invalid(void)
{
    rb_pair_result p;
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001);
    add_variant(&p, "optimized", RB_ROLE_OPTIMIZED, 0, 0.5, 0.001);
    json_value *doc = NULL;
    char err[300] = "";
    /* The hardware, peaks and provenance passed in are freed also here (valgrind). */
    RB_CHECK(rb_expect_update(&doc, &p, 1, parse_text("{\"name\": \"x\"}"),
                              rb_datasheet_peaks("nvidia-h100-80gb-hbm3"),
                              parse_text("{\"git\": \"abc\"}"), err, sizeof err) == -1);
    RB_CHECK(doc == NULL);
    RB_CHECK(strstr(err, "copy_vectorized/optimized") != NULL);

    /* Valid but not timed is refused too. */
    p.v[1].valid = 1;
    p.v[1].timed = 0;
    RB_CHECK(rb_expect_update(&doc, &p, 1, NULL, NULL, NULL, err, sizeof err) == -1);
    RB_CHECK(strstr(err, "copy_vectorized/optimized") != NULL);

    /* A failed pair, against an existing document that stays as it was. */
    json_value *existing = parse_text(apply_text);
    doc = existing;
    init_pair(&p, "gemm_tiled", 4096);
    p.status = RB_PAIR_FAILED;
    RB_CHECK(rb_expect_update(&doc, &p, 1, parse_text("{\"name\": \"x\"}"), NULL,
                              parse_text("{\"git\": \"abc\"}"), err, sizeof err) == -1);
    RB_CHECK(strstr(err, "gemm_tiled/failed") != NULL);
    RB_CHECK(doc == existing);
    RB_CHECK(strcmp(string_at(doc, "hardware", "name", NULL), "NVIDIA H100 80GB HBM3") == 0);
    RB_CHECK(json_get(doc, "provenance") == NULL);
    json_free(doc);
}

static void test_update_then_load_and_apply(void)
{
    char dir[64], path[128], err[500] = "";
    if (make_tmpdir(dir, sizeof dir) != 0) {
        rbtest_skip("mkdtemp failed");
        return;
    }
    rb_pair_result p;
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 4.0, 0.002);
    add_variant(&p, "optimized", RB_ROLE_OPTIMIZED, 1, 1.0, 0.004);
    json_value *doc = NULL;
    RB_CHECK(rb_expect_update(&doc, &p, 1, parse_text("{\"name\": \"NVIDIA H200\"}"),
                              rb_datasheet_peaks("nvidia-h200"), parse_text("{}"), err,
                              sizeof err) == 0);
    snprintf(path, sizeof path, "%s/nvidia-h200.json", dir);
    RB_CHECK(doc && json_write_file(path, doc, err, sizeof err) == 0);
    json_free(doc);
    rb_expect e;
    RB_CHECK(rb_expect_load(path, &e, err, sizeof err) == 0);
    RB_CHECK(e.peaks.value[RB_ROOF_DRAM] == 4814.0);
    RB_CHECK(isnan(e.ceilings.value[RB_ROOF_DRAM]));
    /* The recorded run judged against itself passes. */
    p.v[0].verdict = p.v[1].verdict = RB_VERDICT_NONE;
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 0);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_PASS && p.v[1].verdict == RB_VERDICT_PASS);
    RB_CHECK(p.v[1].expected_ms == 1.0);
    rb_expect_free(&e);
    unlink(path);
    RB_CHECK(rmdir(dir) == 0);
}

static void test_datasheet_peaks(void)
{
    json_value *h100 = rb_datasheet_peaks("nvidia-h100-80gb-hbm3");
    RB_CHECK(h100 != NULL);
    RB_CHECK(number_at(h100, "dram_gbps", NULL, NULL) == 3352.0);
    RB_CHECK(number_at(h100, "fp32_tflops", NULL, NULL) == 66.9);
    RB_CHECK(strstr(string_at(h100, "source", NULL, NULL), "H100") != NULL);
    rb_roofs r;
    rb_expect_roofs(h100, &r);
    RB_CHECK(r.value[RB_ROOF_DRAM] == 3352.0);
    RB_CHECK(r.value[RB_ROOF_FP64] == 33.5);
    RB_CHECK(r.value[RB_ROOF_BF16] == 989.4);
    RB_CHECK(isnan(r.value[RB_ROOF_LAUNCH])); /* no datasheet latency */
    json_free(h100);

    json_value *h200 = rb_datasheet_peaks("nvidia-h200");
    RB_CHECK(h200 && number_at(h200, "dram_gbps", NULL, NULL) == 4814.0);
    RB_CHECK(h200 && string_at(h200, "source", NULL, NULL)[0] != '\0');
    json_free(h200);

    RB_CHECK(rb_datasheet_peaks("nvidia-a100-sxm4-80gb") == NULL);
    RB_CHECK(rb_datasheet_peaks("NVIDIA H100 80GB HBM3") == NULL); /* a key, not a name */
    RB_CHECK(rb_datasheet_peaks("") == NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* reports                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* A derived copy pair: baseline 4 ms, optimized 1 ms, "cached" 0.5 ms (4295 GB/s). */
static void derived_copy_pair(rb_pair_result *p, uint64_t size)
{
    init_pair(p, "copy_vectorized", size);
    p->full_size = FULL_SIZE;
    p->bytes = 8.0 * (double)FULL_SIZE; /* 2147483648 */
    add_variant(p, "baseline", RB_ROLE_BASELINE, 1, 4.0, 0.004);
    add_variant(p, "optimized", RB_ROLE_OPTIMIZED, 1, 1.0, 0.002);
    add_variant(p, "cached", RB_ROLE_STEP, 1, 0.5, 0.002);
    rb_roofs ceilings, peaks;
    rb_roofs_unknown(&ceilings);
    ceilings.value[RB_ROOF_DRAM] = 3000;
    json_value *sheet = rb_datasheet_peaks("nvidia-h100-80gb-hbm3");
    rb_expect_roofs(sheet, &peaks);
    json_free(sheet);
    rb_report_derive(p, 1, &ceilings, &peaks);
}

static void test_report_derive(void)
{
    rb_pair_result p;
    derived_copy_pair(&p, FULL_SIZE);
    RB_CHECK_NEAR(p.v[0].speedup, 1.0, 1e-12);
    RB_CHECK_NEAR(p.v[1].speedup, 4.0, 1e-12);
    RB_CHECK_NEAR(p.v[1].vs_ceiling.gbps, 2147.483648, 1e-9);
    RB_CHECK_NEAR(p.v[1].vs_ceiling.efficiency, 2147483648.0 / 3e12 / 1e-3, 1e-12);
    RB_CHECK_NEAR(p.v[1].vs_peak.efficiency, 2147483648.0 / 3352e9 / 1e-3, 1e-12);
    RB_CHECK(p.v[1].vs_peak.memory_bound == 1);
    RB_CHECK(p.v[1].valid == 1 && p.v[1].note[0] == '\0');
    /* 4294.967296 GB/s > 3352 GB/s at full size: not from DRAM. */
    RB_CHECK(p.v[2].valid == 0);
    RB_CHECK(strstr(p.v[2].note, "4295 GB/s exceeds the DRAM peak 3352 GB/s") != NULL);

    /* The same rates at a smaller size are plausible (the data fits in L2). */
    derived_copy_pair(&p, 1048576);
    RB_CHECK(p.v[2].valid == 1 && p.v[2].note[0] == '\0');
    RB_CHECK_NEAR(p.v[2].speedup, 8.0, 1e-12);

    /* No valid timed baseline: no speedups; an untimed variant is left alone. */
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 0, 4.0, 0.004);
    add_variant(&p, "optimized", RB_ROLE_OPTIMIZED, 1, 1.0, 0.002);
    rb_variant_result *u = add_variant(&p, "library", RB_ROLE_LIBRARY, 1, NAN, NAN);
    u->timed = 0;
    rb_roofs unknown;
    rb_roofs_unknown(&unknown);
    rb_report_derive(&p, 1, &unknown, &unknown);
    RB_CHECK(isnan(p.v[0].speedup) && isnan(p.v[1].speedup));
    RB_CHECK(isnan(p.v[1].vs_ceiling.efficiency));
    RB_CHECK_NEAR(p.v[1].vs_ceiling.gbps, 2147.483648, 1e-9);
    RB_CHECK(p.v[1].valid == 1); /* unknown peak: nothing to exceed */
    /* an untimed variant has no rate at all: NaN (null in the results), never 0 GB/s */
    RB_CHECK(isnan(p.v[2].speedup) && isnan(p.v[2].vs_ceiling.gbps));
    RB_CHECK(isnan(p.v[2].vs_ceiling.efficiency) && p.v[2].named_roof == RB_ROOF_COUNT);
}

static void test_report_table(void)
{
    rb_pair_result p[2];
    derived_copy_pair(&p[0], FULL_SIZE);
    p[0].v[0].verdict = RB_VERDICT_PASS;
    p[0].v[1].verdict = RB_VERDICT_IMPROVED;
    p[0].v[2].verdict = RB_VERDICT_INVALID;
    init_pair(&p[1], "gemm_tiled", 4096);
    p[1].status = RB_PAIR_FAILED;
    snprintf(p[1].reason, sizeof p[1].reason, "%s", "watchdog: timed out");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    RB_CHECK(f != NULL);
    if (!f)
        return;
    rb_report_table(f, p, 2, 0);
    fclose(f);
    RB_CHECK(strncmp(buf, "pair / variant ", 15) == 0);
    RB_CHECK(strstr(buf, "verdict   t  roof\n") != NULL);
    RB_CHECK(strstr(buf, "\ncopy_vectorized\n  baseline ") != NULL);
    RB_CHECK(strstr(buf, "4.00x") != NULL);
    RB_CHECK(strstr(buf, "1.00x") != NULL);
    RB_CHECK(strstr(buf, "improved     dram\n") != NULL);
    RB_CHECK(strstr(buf, "pass         dram\n") != NULL);
    RB_CHECK(strstr(buf, "invalid      dram\n") != NULL);
    /* the digits the noise supports: 0.2% and 0.4%, four */
    RB_CHECK(strstr(buf, " 1.000 ") != NULL && strstr(buf, " 4.000 ") != NULL);
    RB_CHECK(strstr(buf, " 2147 GB/s") != NULL);
    RB_CHECK(strstr(buf, "71.6%") != NULL); /* of the 3000 GB/s ceiling */
    RB_CHECK(strstr(buf, "64.1%") != NULL); /* of the 3352 GB/s peak */
    RB_CHECK(strstr(buf, "0.4%") != NULL);  /* baseline noise */
    RB_CHECK(strstr(buf, "gemm_tiled") != NULL && strstr(buf, "FAILED: watchdog: timed out"));
    RB_CHECK(strstr(buf, "note: copy_vectorized/cached: 4295 GB/s exceeds the DRAM peak") != NULL);
    free(buf);
}

static void test_report_markdown(void)
{
    rb_pair_result p;
    derived_copy_pair(&p, FULL_SIZE);
    p.v[0].verdict = RB_VERDICT_PASS;
    json_value *meta = parse_text("{\"date\": \"2026-11-22T03:15:02Z\", \"git\": \"abc1234\","
                                  " \"environment\": {\"start\": {\"device\": \"NVIDIA H100 80GB "
                                  "HBM3\", \"driver\": \"560.35\"}}}");
    rb_results_doc run;
    RB_CHECK(rb_results_meta_read(meta, &run) == 0);
    json_free(meta);
    char *md = rb_report_markdown(&p, 1, &run);
    rb_results_doc_free(&run);
    RB_CHECK(md != NULL);
    if (!md)
        return;
    RB_CHECK(strncmp(md, "# roofbench results: NVIDIA H100 80GB HBM3\n", 43) == 0);
    RB_CHECK(strstr(md, "git: abc1234") != NULL);
    RB_CHECK(strstr(md, "- driver 560.35, CUDA runtime ?,") != NULL);
    RB_CHECK(strstr(md, "\n| pair | variant | median ms | noise | rate | % ceiling | % peak | "
                        "speedup | verdict | timing | roof |\n"
                        "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|\n") != NULL);
    RB_CHECK(strstr(md, "| copy_vectorized | baseline | 4.000 | 0.4% | 536.9 GB/s |") != NULL);
    RB_CHECK(strstr(md, "|  | optimized | 1.000 |") != NULL);
    RB_CHECK(strstr(md, "| 4.00x | - | samples | dram_gbps |\n") != NULL);
    RB_CHECK(strstr(md, "| 1.00x | pass | samples | dram_gbps |\n") != NULL);
    RB_CHECK(strstr(md, "- copy_vectorized/cached: 4295 GB/s exceeds") != NULL);
    free(md);
}

static void test_report_json(void)
{
    rb_pair_result p[2];
    derived_copy_pair(&p[0], FULL_SIZE);
    p[0].v[0].verdict = RB_VERDICT_PASS;
    p[0].v[1].verdict = RB_VERDICT_IMPROVED;
    p[0].v[1].expected_ms = 1.1;
    p[0].v[2].verdict = RB_VERDICT_INVALID;
    p[0].v[0].vs_ceiling.floor_ms = NAN; /* as when the unit's ceiling is unknown */
    init_pair(&p[1], "gemm_tiled", 4096);
    p[1].status = RB_PAIR_SKIPPED;
    snprintf(p[1].reason, sizeof p[1].reason, "%s", "needs sm_90");

    rb_roofs ceilings, peaks;
    rb_roofs_unknown(&ceilings);
    ceilings.value[RB_ROOF_DRAM] = 3000;
    json_value *sheet = rb_datasheet_peaks("nvidia-h100-80gb-hbm3");
    rb_expect_roofs(sheet, &peaks);
    json_free(sheet);
    json_value *doc =
        rb_report_json(p, 2, &ceilings, &peaks, parse_text("{\"date\": \"2026-11-22\"}"));
    RB_CHECK(doc != NULL);
    if (!doc)
        return;
    RB_CHECK(strcmp(string_at(doc, "date", NULL, NULL), "2026-11-22") == 0);
    /* "roofs": every key, its kind, the measured value and the peak (null: unknown). */
    const json_value *roofs = json_get(doc, "roofs");
    RB_CHECK(roofs && roofs->type == JSON_OBJECT && roofs->count == RB_ROOF_COUNT);
    RB_CHECK(strcmp(string_at(doc, "roofs", "dram_gbps", "kind"), "bandwidth") == 0);
    RB_CHECK(number_at(doc, "roofs", "dram_gbps", "measured") == 3000.0);
    RB_CHECK(number_at(doc, "roofs", "dram_gbps", "peak") == 3352.0);
    RB_CHECK(strcmp(string_at(doc, "roofs", "bf16_tflops", "kind"), "compute") == 0);
    RB_CHECK(number_at(doc, "roofs", "bf16_tflops", "peak") == 989.4);
    RB_CHECK(strcmp(string_at(doc, "roofs", "launch_us", "kind"), "latency") == 0);
    const json_value *launch = json_get(json_get(doc, "roofs"), "launch_us");
    RB_CHECK(launch && json_get(launch, "measured") && json_get(launch, "peak") &&
             isnan(json_get(launch, "measured")->number)); /* written as null */
    const json_value *pairs = json_get(doc, "pairs");
    RB_CHECK(pairs && pairs->type == JSON_ARRAY && pairs->count == 2);
    if (pairs && pairs->type == JSON_ARRAY && pairs->count == 2) {
        const json_value *p0 = pairs->items[0];
        RB_CHECK(strcmp(string_at(p0, "name", NULL, NULL), "copy_vectorized") == 0);
        RB_CHECK(strcmp(string_at(p0, "status", NULL, NULL), "ok") == 0);
        RB_CHECK(number_at(p0, "size", NULL, NULL) == 268435456.0);
        RB_CHECK(number_at(p0, "bytes", NULL, NULL) == 2147483648.0);
        const json_value *vs = json_get(p0, "variants");
        RB_CHECK(vs && vs->type == JSON_ARRAY && vs->count == 3);
        if (vs && vs->type == JSON_ARRAY && vs->count == 3) {
            const json_value *v0 = vs->items[0], *v1 = vs->items[1], *v2 = vs->items[2];
            RB_CHECK(strcmp(string_at(v0, "verdict", NULL, NULL), "pass") == 0);
            RB_CHECK(strcmp(string_at(v1, "verdict", NULL, NULL), "improved") == 0);
            RB_CHECK(strcmp(string_at(v2, "verdict", NULL, NULL), "invalid") == 0);
            RB_CHECK(number_at(v1, "speedup", NULL, NULL) == 4.0);
            RB_CHECK(number_at(v1, "expected_ms", NULL, NULL) == 1.1);
            RB_CHECK(strcmp(string_at(v1, "roof", NULL, NULL), "dram_gbps") == 0);
            const json_value *clock = json_get(v0, "sm_clock_mhz");
            RB_CHECK(clock && clock->type == JSON_NUMBER && isnan(clock->number));
            RB_CHECK(strcmp(string_at(v1, "vs_ceiling", "bound", NULL), "memory") == 0);
            RB_CHECK(strcmp(string_at(v0, "vs_ceiling", "bound", NULL), "unknown") == 0);
            RB_CHECK_NEAR(number_at(v1, "vs_peak", "gbps", NULL), 2147.483648, 1e-9);
            RB_CHECK(number_at(v1, "vs_ceiling", "ai", NULL) == 0.0);
            RB_CHECK(v2->type == JSON_OBJECT &&
                     strstr(string_at(v2, "note", NULL, NULL), "exceeds the DRAM peak") != NULL);
        }
        const json_value *p1 = pairs->items[1];
        RB_CHECK(strcmp(string_at(p1, "status", NULL, NULL), "skipped") == 0);
        RB_CHECK(strcmp(string_at(p1, "reason", NULL, NULL), "needs sm_90") == 0);
        const json_value *vs1 = json_get(p1, "variants");
        RB_CHECK(vs1 && vs1->type == JSON_ARRAY && vs1->count == 0);
    }
    char *text = json_write(doc, 2);
    json_free(doc);
    RB_CHECK(text != NULL);
    if (!text)
        return;
    RB_CHECK(strstr(text, "null") != NULL);
    RB_CHECK(strstr(text, "nan") == NULL && strstr(text, "NaN") == NULL);
    RB_CHECK(strstr(text, "inf") == NULL && strstr(text, "Infinity") == NULL);
    /* What we write, we can read; the NaNs come back as null. */
    json_value *back = json_parse(text, strlen(text), NULL, 0);
    RB_CHECK(back != NULL);
    const json_value *bp = json_get(back, "pairs");
    const json_value *bv =
        bp && bp->type == JSON_ARRAY && bp->count == 2 ? json_get(bp->items[0], "variants") : NULL;
    RB_CHECK(bv && bv->type == JSON_ARRAY && bv->count == 3);
    if (bv && bv->type == JSON_ARRAY && bv->count == 3) {
        const json_value *clock = json_get(bv->items[0], "sm_clock_mhz");
        const json_value *exp0 = json_get(bv->items[0], "expected_ms");
        const json_value *exp1 = json_get(bv->items[1], "expected_ms");
        RB_CHECK(clock && clock->type == JSON_NULL);
        RB_CHECK(exp0 && exp0->type == JSON_NULL);
        RB_CHECK(exp1 && exp1->type == JSON_NUMBER && exp1->number == 1.1);
        RB_CHECK(strcmp(string_at(bv->items[0], "verdict", NULL, NULL), "pass") == 0);
    }
    const json_value *bl = json_get(json_get(back, "roofs"), "launch_us");
    RB_CHECK(bl && json_get(bl, "measured") && json_get(bl, "measured")->type == JSON_NULL);
    json_free(back);
    free(text);
}

/* ------------------------------------------------------------------------------------------ */
/* roofs: every key, methods, and each variant on its own roof                                */
/* ------------------------------------------------------------------------------------------ */

/* Every roof key of the contract is accepted in peaks and ceilings, with source and methods. */
static void test_validate_accepts_every_roof_key(void)
{
    json_value *d = valid_doc();
    json_value *c = json_get(d, "ceilings"), *pk = json_get(d, "peaks");
    for (int r = 0; r < RB_ROOF_COUNT; r++) {
        json_set_number(c, rb_roof_key((rb_roof)r), 1.0);
        json_set_number(pk, rb_roof_key((rb_roof)r), 1.0);
    }
    json_object_set(c, "methods",
                    parse_text("{\"dram_gbps\": {\"method\": \"copy kernel, float4\", \"size\": "
                               "\"2 GiB\", \"samples\": 20, \"noise\": 0.004},"
                               " \"bf16_tflops\": {\"method\": \"cuBLASLt, best of 8\", \"size\": "
                               "\"8192^3\", \"samples\": 30, \"noise\": 0, \"sm_clock_mhz\": 1755,"
                               " \"power_w\": null}}"));
    char err[400] = "";
    RB_CHECK(rb_expect_validate(d, err, sizeof err) == 0);
    if (err[0])
        printf("    (%s)\n", err);
    rb_roofs roofs;
    rb_expect_roofs(c, &roofs);
    for (int r = 0; r < RB_ROOF_COUNT; r++)
        RB_CHECK(roofs.value[r] == 1.0);
    json_free(d);

    /* A file of today's shape (dram_gbps and fp32_tflops only) loads as before. */
    d = parse_text("{\"schema\": 1, \"hardware\": {\"name\": \"X\"}, \"peaks\": {\"dram_gbps\": "
                   "3352, \"fp32_tflops\": 66.9, \"source\": \"s\"}, \"ceilings\": "
                   "{\"dram_gbps\": 3006.3, \"fp32_tflops\": 60.4, \"source\": \"m\"}, "
                   "\"pairs\": {}}");
    RB_CHECK(d && rb_expect_validate(d, err, sizeof err) == 0);
    rb_expect_roofs(json_get(d, "ceilings"), &roofs);
    RB_CHECK(roofs.value[RB_ROOF_DRAM] == 3006.3 && roofs.value[RB_ROOF_FP32] == 60.4);
    RB_CHECK(isnan(roofs.value[RB_ROOF_DRAM_READ]) && isnan(roofs.value[RB_ROOF_LAUNCH]));
    json_free(d);
}

static void test_validate_refuses_unknown_roof_keys(void)
{
    json_value *d = valid_doc();
    json_set_number(json_get(d, "ceilings"), "dram_read_gpbs", 3100); /* misspelt */
    RB_CHECK(refused(d, "ceilings.dram_read_gpbs: unknown key"));

    d = valid_doc();
    json_set_string(json_get(d, "peaks"), "note", "from a slide");
    RB_CHECK(refused(d, "peaks.note: unknown key (expected a roof key or source)"));

    d = valid_doc(); /* methods belong to the measured ceilings only */
    json_object_set(json_get(d, "peaks"), "methods", json_new_object());
    RB_CHECK(refused(d, "peaks.methods: unknown key"));

    d = valid_doc();
    json_set_number(json_get(d, "ceilings"), "source", 1);
    RB_CHECK(refused(d, "ceilings.source: expected string, got number"));

    /* The 5% rule holds for every key, not only the old two. */
    d = valid_doc();
    json_set_number(json_get(d, "peaks"), "pcie_h2d_gbps", 63.0);
    json_set_number(json_get(d, "ceilings"), "pcie_h2d_gbps", 66.2);
    RB_CHECK(refused(d, "ceilings.pcie_h2d_gbps: 66.2 is above the datasheet peak"));
    d = valid_doc();
    json_set_number(json_get(d, "ceilings"), "launch_us", -2.0);
    RB_CHECK(refused(d, "ceilings.launch_us: must be positive"));
}

/* ceilings.methods: an object of objects, method and size strings, samples and noise numbers,
 * sm_clock_mhz and power_w optional; each refusal names the path. */
static void test_validate_refuses_bad_methods(void)
{
    static const struct {
        const char *methods, *needle;
    } cases[] = {
        {"[]", "ceilings.methods: expected an object, got array"},
        {"{\"dram_gbps\": 3}", "ceilings.methods.dram_gbps: expected an object, got number"},
        {"{\"dram\": {}}", "ceilings.methods.dram: unknown roof key"},
        {"{\"dram_gbps\": {\"size\": \"1 GiB\", \"samples\": 3, \"noise\": 0}}",
         "ceilings.methods.dram_gbps.method: missing"},
        {"{\"dram_gbps\": {\"method\": 1, \"size\": \"1 GiB\", \"samples\": 3, \"noise\": 0}}",
         "ceilings.methods.dram_gbps.method: expected string, got number"},
        {"{\"dram_gbps\": {\"method\": \"m\", \"samples\": 3, \"noise\": 0}}",
         "ceilings.methods.dram_gbps.size: missing"},
        {"{\"dram_gbps\": {\"method\": \"m\", \"size\": \"s\", \"samples\": \"3\", \"noise\": 0}}",
         "ceilings.methods.dram_gbps.samples: expected a number, got string"},
        {"{\"dram_gbps\": {\"method\": \"m\", \"size\": \"s\", \"samples\": 0, \"noise\": 0}}",
         "ceilings.methods.dram_gbps.samples: must be >= 1"},
        {"{\"dram_gbps\": {\"method\": \"m\", \"size\": \"s\", \"samples\": 3}}",
         "ceilings.methods.dram_gbps.noise: missing"},
        {"{\"dram_gbps\": {\"method\": \"m\", \"size\": \"s\", \"samples\": 3, \"noise\": -0.1}}",
         "ceilings.methods.dram_gbps.noise: must be >= 0"},
        {"{\"fp8_tflops\": {\"method\": \"m\", \"size\": \"s\", \"samples\": 3, \"noise\": 0,"
         " \"power_w\": 0}}",
         "ceilings.methods.fp8_tflops.power_w: must be positive"},
        {"{\"fp8_tflops\": {\"method\": \"m\", \"size\": \"s\", \"samples\": 3, \"noise\": 0,"
         " \"sm_clock_mhz\": \"1980\"}}",
         "ceilings.methods.fp8_tflops.sm_clock_mhz: expected a number, got string"},
        {"{\"fp8_tflops\": {\"method\": \"m\", \"size\": \"s\", \"samples\": 3, \"noise\": 0,"
         " \"clock\": 1980}}",
         "ceilings.methods.fp8_tflops.clock: unknown key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_value *d = valid_doc();
        json_object_set(json_get(d, "ceilings"), "methods", parse_text(cases[i].methods));
        RB_CHECK(refused(d, cases[i].needle));
    }
}

/* One variant of its own pair on `roof`, derived against ceilings 3000 copy / 3200 read, launch
 * 2 us, graph node 1 us, and the H100's datasheet peaks. */
static void derive_on_roof(rb_pair_result *p, const char *name, double bytes, double ms,
                           rb_roof roof, const char *rate, double rate_value)
{
    init_pair(p, name, FULL_SIZE);
    p->bytes = bytes;
    rb_variant_result *v = add_variant(p, "baseline", RB_ROLE_BASELINE, 1, ms, 0.001);
    v->roof = roof;
    if (rate) {
        snprintf(v->roof_rate, sizeof v->roof_rate, "%s", rate);
        snprintf(v->extras[0].name, sizeof v->extras[0].name, "%s", rate);
        v->extras[0].value = rate_value;
        v->n_extras = 1;
    }
    rb_roofs ceilings, peaks;
    rb_roofs_unknown(&ceilings);
    ceilings.value[RB_ROOF_DRAM] = 3000;
    ceilings.value[RB_ROOF_DRAM_READ] = 3200;
    ceilings.value[RB_ROOF_LAUNCH] = 2.0;
    ceilings.value[RB_ROOF_GRAPH_NODE] = 1.0;
    json_value *sheet = rb_datasheet_peaks("nvidia-h100-80gb-hbm3");
    rb_expect_roofs(sheet, &peaks);
    json_free(sheet);
    rb_report_derive(p, 1, &ceilings, &peaks);
}

static void test_report_each_variant_on_its_roof(void)
{
    rb_pair_result p;
    /* Peaks missing from an expectation file come from the datasheet table; the file's win. */
    {
        rb_expect e;
        memset(&e, 0, sizeof e);
        rb_roofs_unknown(&e.ceilings);
        rb_roofs_unknown(&e.peaks);
        e.peaks.value[RB_ROOF_DRAM] = 3000; /* as if corrected by hand */
        rb_pair_result q;
        init_pair(&q, "reduction", FULL_SIZE);
        q.bytes = 3.1e9;
        add_variant(&q, "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001)->roof = RB_ROOF_DRAM_READ;
        rb_roofs c, pk;
        rb_results_derive(&e, "nvidia-h100-80gb-hbm3", &q, 1, &c, &pk);
        RB_CHECK(pk.value[RB_ROOF_DRAM] == 3000.0);
        RB_CHECK(pk.value[RB_ROOF_DRAM_READ] == 3352.0);
        RB_CHECK_NEAR(q.v[0].vs_peak.efficiency, 3100.0 / 3352.0, 1e-12);
    }
    /* A read stream of 3.1 GB/ms: 103% of the copy ceiling, 96.9% of the read one. */
    derive_on_roof(&p, "reduction", 3.1e9, 1.0, RB_ROOF_DRAM_READ, NULL, 0);
    RB_CHECK_NEAR(p.v[0].vs_ceiling.efficiency, 3100.0 / 3200.0, 1e-12);
    /* the datasheet's DRAM figure bounds a read-only stream too */
    RB_CHECK_NEAR(p.v[0].vs_peak.efficiency, 3100.0 / 3352.0, 1e-12);
    RB_CHECK(p.v[0].roof_note[0] == '\0' && p.v[0].valid);

    /* The same on the copy roof is above it by more than its noise (0.1%): a measurement
     * inconsistency, kept with the reason printed beside it, and no %ceil in the table. */
    derive_on_roof(&p, "reduction", 3.1e9, 1.0, RB_ROOF_DRAM, NULL, 0);
    RB_CHECK_NEAR(p.v[0].vs_ceiling.efficiency, 3100.0 / 3000.0, 1e-12);
    RB_CHECK(p.v[0].inconsistent == 1);
    RB_CHECK(strstr(p.v[0].roof_note, "measurement inconsistency: 103.3% of the measured "
                                      "dram_gbps") != NULL);
    RB_CHECK(strstr(p.v[0].roof_note, "different access mix") != NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        rb_report_table(f, &p, 1, 0);
        fclose(f);
        const char *legend = strstr(buf, "\nt: ");
        RB_CHECK(strstr(buf, " incons ") != NULL && legend);
        RB_CHECK(strstr(buf, "103.3%") > legend); /* in the notes, not as the table's %ceil */
        RB_CHECK(strstr(buf, "note: reduction/baseline: incons: measurement inconsistency: "
                             "103.3% of the measured") != NULL);
        free(buf);
    }

    /* A record that names no roof (an older child, an older results file): derived. */
    derive_on_roof(&p, "copy", 2e9, 1.0, RB_ROOF_COUNT, NULL, 0);
    RB_CHECK(p.v[0].roof == RB_ROOF_DRAM);
    RB_CHECK_NEAR(p.v[0].vs_ceiling.efficiency, 2000.0 / 3000.0, 1e-12);

    /* Latency: 4 us per launch against a 2 us launch: 50%; the rate column in us/launch. */
    derive_on_roof(&p, "cuda_graphs", 8.6e6, 0.808, RB_ROOF_LAUNCH, "us_per_kernel", 4.0);
    RB_CHECK_NEAR(p.v[0].vs_ceiling.efficiency, 0.5, 1e-12);
    RB_CHECK(isnan(p.v[0].vs_peak.efficiency)); /* no datasheet latency */
    RB_CHECK(p.v[0].valid); /* its GB/s (L2 traffic) is never judged against DRAM */
    buf = NULL;
    f = open_memstream(&buf, &len);
    if (f) {
        rb_report_table(f, &p, 1, 0);
        fclose(f);
        RB_CHECK(strstr(buf, " 4.000 us ") != NULL && strstr(buf, "50.0%") != NULL);
        RB_CHECK(strstr(buf, " launch\n") != NULL);
        free(buf);
    }
    /* A graph node under its empty-kernel roof (programmatic launch): above 100%, with why. */
    derive_on_roof(&p, "cuda_graphs", 8.6e6, 0.808, RB_ROOF_GRAPH_NODE, "us_per_kernel", 0.8);
    RB_CHECK_NEAR(p.v[0].vs_ceiling.efficiency, 1.25, 1e-12);
    RB_CHECK(strstr(p.v[0].roof_note, "125.0% of the measured graph_node_us, above it") != NULL);
    RB_CHECK(strstr(p.v[0].roof_note, "programmatic dependent launch") != NULL);
    /* The rate extra missing: no efficiency rather than one from bytes / time. */
    derive_on_roof(&p, "cuda_graphs", 8.6e6, 0.808, RB_ROOF_LAUNCH, "us_per_kernel", NAN);
    RB_CHECK(isnan(p.v[0].vs_ceiling.efficiency));

    /* nccl on one GPU: busbw 0 and no nvlink ceiling: '-', never 0%. */
    derive_on_roof(&p, "nccl_allreduce", 1.3e8, 0.09, RB_ROOF_NVLINK, "busbw_gbps", 0.0);
    p.link_bytes = 1;
    RB_CHECK(isnan(p.v[0].vs_ceiling.efficiency) && isnan(p.v[0].vs_peak.efficiency));

    /* A link roof's bytes are not DRAM bytes: 4 TB/s over NVLink is not "from cache". */
    init_pair(&p, "p2p_copy", FULL_SIZE);
    p.link_bytes = 1;
    rb_variant_result *v = add_variant(&p, "optimized", RB_ROLE_OPTIMIZED, 1, 0.5, 0.001);
    v->roof = RB_ROOF_NVLINK;
    rb_roofs none;
    rb_roofs_unknown(&none);
    none.value[RB_ROOF_DRAM] = 3352;
    rb_report_derive(&p, 1, &none, &none);
    RB_CHECK(p.v[0].valid);
}

/* The variant record carries its roof and rate name; a record without them reads back with the
 * roof unset (derived later), and a roof this build does not know is refused. */
static void test_variant_record_roof(void)
{
    rb_variant_result v, back;
    char err[200];
    rb_variant_result_init(&v, "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.0);
    v.roof = RB_ROOF_NVLINK;
    snprintf(v.roof_rate, sizeof v.roof_rate, "%s", "busbw_gbps");
    json_value *o = rb_variant_to_json(&v);
    RB_CHECK(o && strcmp(string_at(o, "roof", NULL, NULL), "nvlink_gbps") == 0);
    RB_CHECK(o && rb_variant_from_json(o, &back, err, sizeof err) == 0);
    RB_CHECK(back.roof == RB_ROOF_NVLINK && strcmp(back.roof_rate, "busbw_gbps") == 0);
    json_set_string(o, "roof", "nvlink");
    RB_CHECK(rb_variant_from_json(o, &back, err, sizeof err) == -1);
    json_value *old = without(o, "roof");
    old = without(old, "roof_rate");
    RB_CHECK(old && rb_variant_from_json(old, &back, err, sizeof err) == 0);
    RB_CHECK(back.roof == RB_ROOF_COUNT && back.roof_rate[0] == '\0');
    json_free(old);
}

/* The CSV: a header, one row per variant with the table's columns and the roof, RFC 4180
 * quoting, CRLF line ends; a pair with no variant is one row saying why. */
static void test_report_csv(void)
{
    rb_pair_result p[3];
    derived_copy_pair(&p[0], FULL_SIZE);
    p[0].v[0].verdict = RB_VERDICT_PASS;
    init_pair(&p[1], "histogram.skewed@64M", 67108864);
    p[1].bytes = 67108864.0;
    rb_variant_result *v = add_variant(&p[1], "optimized", RB_ROLE_OPTIMIZED, 1, 0.025, 0.01);
    v->roof = RB_ROOF_DRAM_READ;
    snprintf(v->note, sizeof v->note, "%s", "a \"quoted\", comma'd note\nover two lines");
    rb_roofs ceilings, peaks;
    rb_roofs_unknown(&ceilings);
    rb_roofs_unknown(&peaks);
    ceilings.value[RB_ROOF_DRAM_READ] = 3200;
    rb_report_derive(&p[1], 1, &ceilings, &peaks);
    init_pair(&p[2], "gemm_tiled", 4096);
    p[2].rows = 64;
    p[2].cols = 64;
    p[2].status = RB_PAIR_SKIPPED;
    snprintf(p[2].reason, sizeof p[2].reason, "%s", "needs sm_90, this GPU is 8.0");
    char *csv = rb_report_csv(p, 3);
    RB_CHECK(csv != NULL);
    if (!csv)
        return;
    if (getenv("RB_TEST_SHOW_CSV"))
        fputs(csv, stdout);
    static const char header[] = "pair,input,size,variant,median_ms,noise,rate,rate_unit,pct_ceil,"
                                 "pct_peak,speedup,verdict,roof,declared_roof,timing,"
                                 "informational,inconsistent,joules_per_launch,mean_power_w,"
                                 "gflop_per_j,gb_per_j,contended,note\r\n";
    RB_CHECK(strncmp(csv, header, strlen(header)) == 0);
    RB_CHECK(strstr(csv, "\r\ncopy_vectorized,,268435456,baseline,4,0.004,536.870912,GB/s,"
                         "17.89569707,16.01643532,1,pass,dram_gbps,dram_gbps,samples,false,false,"
                         ",,,,false,\r\n") != NULL);
    /* the invalid one keeps its own note, not an above-the-roof reason */
    RB_CHECK(strstr(csv,
                    "143.1655765,128.1314826,,-,dram_gbps,dram_gbps,samples,false,false,"
                    ",,,,false,\"4295 GB/s exceeds the DRAM peak 3352 GB/s: the data came from "
                    "cache") != NULL);
    RB_CHECK(strstr(csv, "of the measured") == NULL);
    RB_CHECK(strstr(csv,
                    "\r\nhistogram,skewed,67108864,optimized,0.025,0.01,2684.35456,GB/s,"
                    "83.88608,,,-,dram_read_gbps,dram_read_gbps,samples,false,false,"
                    ",,,,false,\"a \"\"quoted\"\", comma'd note\nover two lines\"\r\n") != NULL);
    RB_CHECK(strstr(csv, "\r\ngemm_tiled,,64x64,,,,,,,,,skipped,,,,,,,,,,,\"needs sm_90, this "
                         "GPU is "
                         "8.0\"\r\n") != NULL);
    /* every record has the header's 23 fields (quoted commas and line breaks aside) */
    int fields = 1, quoted = 0, rows = 0, bad = 0;
    for (const char *c = csv; *c; c++) {
        if (*c == '"')
            quoted = !quoted;
        else if (!quoted && *c == ',')
            fields++;
        else if (!quoted && *c == '\r' && c[1] == '\n') {
            bad |= fields != 23;
            rows++;
            fields = 1;
            c++;
        }
    }
    RB_CHECK(rows == 1 + 3 + 1 + 1 && !bad && !quoted);
    free(csv);
}

static json_value *provenance_with_git(const char *git)
{
    json_value *o = json_new_object();
    json_set_string(o, "git", git);
    return o;
}

/* Each pair keeps the provenance of the run that recorded it; a later update of another pair
 * (a filtered run) changes the file's provenance but not the earlier pair's. */
static void test_update_records_provenance_per_pair(void)
{
    rb_pair_result a, b;
    char err[300] = "";
    json_value *doc = NULL, *hw = json_new_object();
    json_set_string(hw, "name", "Test GPU");
    init_pair(&a, "pair_a", 1024);
    add_variant(&a, "baseline", RB_ROLE_BASELINE, 1, 2.0, 0.01);
    init_pair(&b, "pair_b", 1024);
    add_variant(&b, "baseline", RB_ROLE_BASELINE, 1, 3.0, 0.01);
    RB_CHECK(rb_expect_update(&doc, &a, 1, hw, NULL, provenance_with_git("aaa1111"), err,
                              sizeof err) == 0);
    RB_CHECK(rb_expect_update(&doc, &b, 1, NULL, NULL, provenance_with_git("bbb2222"), err,
                              sizeof err) == 0);
    RB_CHECK(doc && rb_expect_validate(doc, err, sizeof err) == 0);
    const json_value *pairs = json_get(doc, "pairs");
    const json_value *ga = json_get(json_get(json_get(pairs, "pair_a"), "recorded"), "git");
    const json_value *gb = json_get(json_get(json_get(pairs, "pair_b"), "recorded"), "git");
    const json_value *top = json_get(json_get(doc, "provenance"), "git");
    RB_CHECK(ga && ga->type == JSON_STRING && strcmp(ga->string, "aaa1111") == 0);
    RB_CHECK(gb && gb->type == JSON_STRING && strcmp(gb->string, "bbb2222") == 0);
    RB_CHECK(top && top->type == JSON_STRING && strcmp(top->string, "bbb2222") == 0);
    json_free(doc);
}

/* ------------------------------------------------------------------------------------------ */
/* hostile use                                                                                */
/* ------------------------------------------------------------------------------------------ */

/* A measured ceiling more than 5% above its datasheet peak is refused with the key's path;
 * within 5% it is accepted (a boost clock); zero and negative roofs are refused too. */
static void test_validate_refuses_implausible_ceilings(void)
{
    json_value *d = valid_doc(); /* peaks.dram_gbps 3352 */
    json_set_number(json_get(d, "ceilings"), "dram_gbps", 3352 * 1.06);
    RB_CHECK(refused(d, "ceilings.dram_gbps: 3553.12 is above the datasheet peak"));

    d = valid_doc(); /* peaks.fp32_tflops 66.9 */
    json_set_number(json_get(d, "ceilings"), "fp32_tflops", 606);
    RB_CHECK(refused(d, "ceilings.fp32_tflops"));

    d = valid_doc();
    json_set_number(json_get(d, "ceilings"), "dram_gbps", 3352 * 1.04);
    char err[300];
    RB_CHECK(rb_expect_validate(d, err, sizeof err) == 0);
    /* a ceiling whose peak is unknown (null or absent) has nothing to be compared with */
    json_set_number(json_get(d, "ceilings"), "tf32_tflops", 9999);
    json_set_number(json_get(d, "ceilings"), "fp8_tflops", 9999);
    RB_CHECK(rb_expect_validate(d, err, sizeof err) == 0);
    json_free(d);

    d = valid_doc();
    json_set_number(json_get(d, "peaks"), "dram_gbps", 0);
    RB_CHECK(refused(d, "peaks.dram_gbps: must be positive"));
    d = valid_doc();
    json_set_number(json_get(d, "ceilings"), "dram_gbps", -1);
    RB_CHECK(refused(d, "ceilings.dram_gbps: must be positive"));
}

/* The device comparison the run makes after its probe: a file of another GPU model is
 * refused, naming both; case and punctuation of the name do not matter. */
static void test_same_device(void)
{
    json_value *d = valid_doc(); /* hardware.name "NVIDIA H100 80GB HBM3" */
    char err[400] = "";
    RB_CHECK(rb_expect_same_device(d, "NVIDIA H100 80GB HBM3", err, sizeof err) == 0);
    RB_CHECK(rb_expect_same_device(d, "nvidia h100-80gb hbm3", err, sizeof err) == 0);
    RB_CHECK(rb_expect_same_device(d, "NVIDIA H200", err, sizeof err) == -1);
    RB_CHECK(strstr(err, "recorded on NVIDIA H100 80GB HBM3, but this GPU is NVIDIA H200") != NULL);
    RB_CHECK(strstr(err, "--expect-any-device") != NULL);
    RB_CHECK(rb_expect_same_device(d, "NVIDIA H100 PCIe", err, sizeof err) == -1);
    json_free(d);
}

/* A variant removed or renamed since the file was recorded comes back from apply as missing;
 * recording drops it (rb_expect_dropped) instead of refusing for good. */
static void test_update_drops_removed_variant(void)
{
    rb_expect e;
    RB_CHECK(expect_from_text(apply_text, &e) == 0);
    rb_pair_result p;
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001);
    add_variant(&p, "optimized_v2", RB_ROLE_OPTIMIZED, 1, 0.5, 0.001); /* renamed */
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 0);
    RB_CHECK(p.n_variants == 4); /* optimized and library appended as missing */
    RB_CHECK(rb_expect_dropped(&p.v[2]) && rb_expect_dropped(&p.v[3]));
    RB_CHECK(!rb_expect_dropped(&p.v[0]) && !rb_expect_dropped(&p.v[1]));
    char err[300] = "";
    json_value *doc = e.doc;
    RB_CHECK(rb_expect_update(&doc, &p, 1, NULL, NULL, parse_text("{\"git\": \"abc\"}"), err,
                              sizeof err) == 0);
    const json_value *vs = path_get(doc, "pairs", "copy_vectorized", "variants");
    RB_CHECK(vs && vs->count == 2);
    RB_CHECK(json_get(vs, "baseline") && json_get(vs, "optimized_v2"));
    RB_CHECK(!json_get(vs, "optimized") && !json_get(vs, "library"));
    RB_CHECK(rb_expect_validate(doc, err, sizeof err) == 0);
    e.doc = doc;
    rb_expect_free(&e);
}

/* A variant the child skipped (its run() said RB_ERR_UNSUPPORTED) is judged skipped, does not
 * fail the run, is not recorded, and survives the trip from child to parent. */
static void test_skipped_variant(void)
{
    rb_expect e;
    RB_CHECK(expect_from_text(apply_text, &e) == 0);
    rb_pair_result p;
    init_pair(&p, "copy_vectorized", FULL_SIZE);
    add_variant(&p, "baseline", RB_ROLE_BASELINE, 1, 1.0, 0.001);
    rb_variant_result *s = &p.v[p.n_variants++];
    rb_variant_result_init(s, "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.0);
    s->skipped = 1;
    snprintf(s->note, sizeof s->note, "%s", "skipped on this machine: one GPU");
    add_variant(&p, "library", RB_ROLE_LIBRARY, 1, 0.4, 0.002);

    json_value *j = rb_variant_to_json(s);
    rb_variant_result back;
    char err[300] = "";
    RB_CHECK(j && rb_variant_from_json(j, &back, err, sizeof err) == 0);
    RB_CHECK(back.skipped == 1 && back.valid == 0 && back.timed == 0);
    RB_CHECK(strcmp(back.note, s->note) == 0);
    json_free(j);

    RB_CHECK(rb_expect_apply(&e, &p, 1) == 0);
    RB_CHECK(p.n_variants == 3); /* not missing: it is there, skipped */
    RB_CHECK(p.v[1].verdict == RB_VERDICT_SKIPPED);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_PASS && p.v[2].verdict == RB_VERDICT_PASS);

    char table[4096] = "";
    FILE *f = fmemopen(table, sizeof table - 1, "w");
    rb_report_table(f, &p, 1, 0);
    fclose(f);
    RB_CHECK(strstr(table, "skipped") != NULL);
    RB_CHECK(strstr(table, "copy_vectorized/optimized: skipped on this machine: one GPU") != NULL);
    char *md = rb_report_markdown(&p, 1, NULL);
    RB_CHECK(md && strstr(md, "skipped on this machine: one GPU") != NULL);
    free(md);

    json_value *doc = e.doc;
    RB_CHECK(rb_expect_update(&doc, &p, 1, NULL, NULL, parse_text("{\"git\": \"abc\"}"), err,
                              sizeof err) == 0);
    const json_value *vs = path_get(doc, "pairs", "copy_vectorized", "variants");
    RB_CHECK(vs && vs->count == 2 && !json_get(vs, "optimized"));
    e.doc = doc;
    rb_expect_free(&e);
}

/* ------------------------------------------------------------------------------------------ */
/* thresholds from repeated runs                                                              */
/* ------------------------------------------------------------------------------------------ */

/* A variant of a repeat run: its median, and (mhz > 0) a clock sampled under the power cap. */
static rb_variant_result *add_timed(rb_pair_result *p, const char *name, rb_unit unit,
                                    double median_ms, double mhz)
{
    rb_variant_result *v = add_variant(p, name, RB_ROLE_STEP, 1, median_ms, 0.2);
    v->unit = unit;
    /* a tight interval of the median: this run knows it to 0.2% */
    v->time_ms.ci_lo = 0.999 * median_ms;
    v->time_ms.ci_hi = 1.001 * median_ms;
    if (mhz > 0) { /* as many readings as a clock needs to judge by */
        v->clocks.clock_samples = v->clocks.samples = RB_EXPECT_MIN_CLOCK_READINGS;
        v->clocks.sm_mhz_sum = mhz * RB_EXPECT_MIN_CLOCK_READINGS;
        v->clocks.sm_mhz_min = mhz;
        v->clocks.reasons = 1u << RB_REASON_POWER_CAP;
    }
    return v;
}

/* Three runs: steady (medians spread 1%), drifty (6%), and a power-capped tensor-core GEMM whose
 * time moves with its clock (its cycles, time x clock, do not move at all). */
static void three_runs(rb_pair_result runs[3])
{
    static const double steady[3] = {1.0, 1.01, 1.005}, drifty[3] = {1.0, 1.06, 1.03};
    static const double capped_ms[3] = {1.0, 0.9375, 1500.0 / 1400.0};
    static const double capped_mhz[3] = {1500, 1600, 1400};
    for (int r = 0; r < 3; r++) {
        init_pair(&runs[r], "gemm_x", FULL_SIZE);
        runs[r].flops = 1e12;
        add_timed(&runs[r], "steady", RB_UNIT_NONE, steady[r], 0);
        add_timed(&runs[r], "drifty", RB_UNIT_NONE, drifty[r], 0);
        add_timed(&runs[r], "capped", RB_UNIT_BF16, capped_ms[r], capped_mhz[r]);
        /* capped too, but its time repeats and the sampled clock does not: judged on time */
        add_timed(&runs[r], "steady_capped", RB_UNIT_BF16, r == 1 ? 1.005 : 1.0, capped_mhz[r]);
    }
}

static json_value *record_three(void)
{
    rb_pair_result runs[3];
    three_runs(runs);
    const rb_pair_result *earlier[2] = {&runs[0], &runs[1]};
    json_value *doc = NULL, *platform = parse_text("{\"dram_gbps\": 3000, \"source\": \"quick\"}");
    char err[300] = "";
    RB_CHECK(rb_expect_update_runs(&doc, &runs[2], 1, earlier, 2, platform,
                                   parse_text("{\"name\": \"NVIDIA H100 80GB HBM3\"}"), NULL,
                                   parse_text("{\"git\": \"abc\"}"), err, sizeof err) == 0);
    json_free(platform);
    RB_CHECK(doc && rb_expect_validate(doc, err, sizeof err) == 0);
    return doc;
}

static void test_update_records_run_spread(void)
{
    json_value *doc = record_three();
    if (!doc)
        return;
    const json_value *vs = json_get(json_get(json_get(doc, "pairs"), "gemm_x"), "variants");
    const json_value *steady = json_get(vs, "steady"), *capped = json_get(vs, "capped");
    RB_CHECK(json_number_at(steady, "runs") == 3);
    RB_CHECK(json_number_at(steady, "median_ms") == 1.005); /* the median of the medians */
    RB_CHECK_NEAR(json_number_at(steady, "run_spread"), 0.01 / 1.005, 1e-12);
    RB_CHECK_NEAR(json_number_at(json_get(vs, "drifty"), "run_spread"), 0.06 / 1.03, 1e-12);
    const json_value *med = json_get(steady, "run_medians");
    RB_CHECK(med && med->type == JSON_ARRAY && med->count == 3);
    RB_CHECK(!json_true_at(steady, "per_clock") && json_get(steady, "clocks") == NULL);
    /* capped: judged on cycles, which did not move; its recorded clock the median one */
    RB_CHECK(json_true_at(capped, "per_clock"));
    RB_CHECK_NEAR(json_number_at(capped, "run_spread"), 0.0, 1e-12);
    RB_CHECK(json_number_at(json_get(capped, "clocks"), "sm_mhz_mean") == 1500);
    const json_value *sc = json_get(vs, "steady_capped");
    RB_CHECK(!json_true_at(sc, "per_clock"));
    RB_CHECK_NEAR(json_number_at(sc, "run_spread"), 0.005, 1e-12);
    /* the pair keeps the platform reference it was recorded with */
    RB_CHECK(json_number_at(json_get(json_get(json_get(doc, "pairs"), "gemm_x"), "platform"),
                            "dram_gbps") == 3000);
    json_free(doc);
}

/* A new run of gemm_x judged against the three-run expectations. */
static void judge_new(const json_value *doc, double steady, double drifty, double capped_ms,
                      double capped_mhz, rb_pair_result *p)
{
    rb_expect e = {0};
    e.doc = json_clone(doc);
    init_pair(p, "gemm_x", FULL_SIZE);
    p->flops = 1e12;
    add_timed(p, "steady", RB_UNIT_NONE, steady, 0);
    add_timed(p, "drifty", RB_UNIT_NONE, drifty, 0);
    add_timed(p, "capped", RB_UNIT_BF16, capped_ms, capped_mhz);
    add_timed(p, "steady_capped", RB_UNIT_BF16, 1.0, capped_mhz);
    rb_expect_apply(&e, p, 1);
    rb_expect_free(&e);
}

static void test_judge_with_run_spread(void)
{
    json_value *doc = record_three();
    if (!doc)
        return;
    rb_pair_result p;
    /* Within each one's threshold: steady 3% (the floor, 2 x 1% under it), drifty 2 x 5.8%, the
     * capped GEMM 20% slower in time at a 20% lower clock: the same cycles. The noise within a
     * loop (0.2, i.e. 20%) no longer sets any threshold: it would have made all three blind. */
    judge_new(doc, 1.005 * 1.029, 1.03 * 1.11, 1.2, 1250, &p);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_PASS && p.v[0].threshold == 0.03);
    RB_CHECK(p.v[1].verdict == RB_VERDICT_PASS);
    RB_CHECK_NEAR(p.v[1].threshold, 2 * 0.06 / 1.03, 1e-12);
    RB_CHECK(p.v[2].verdict == RB_VERDICT_PASS && p.v[2].per_clock);
    RB_CHECK_NEAR(p.v[2].judged_ratio, 1.0, 1e-12);
    /* A 10% slowdown: steady regressed, drifty not seen (its threshold is 11.7%), the capped GEMM
     * regressed at the same clock; 5% faster: steady improved. */
    judge_new(doc, 1.005 * 1.10, 1.03 * 1.10, 1.1, 1500, &p);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_REGRESSED);
    RB_CHECK(p.v[1].verdict == RB_VERDICT_PASS);
    RB_CHECK(p.v[2].verdict == RB_VERDICT_REGRESSED);
    RB_CHECK_NEAR(p.v[2].judged_ratio, 1.1, 1e-12);
    judge_new(doc, 1.005 * 0.95, 1.03 * 1.13, 1.0, 1500, &p);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_IMPROVED);
    RB_CHECK(p.v[1].verdict == RB_VERDICT_REGRESSED);
    /* NaN fails, as before */
    judge_new(doc, NAN, 1.03, 1.0, 1500, &p);
    RB_CHECK(p.v[0].verdict == RB_VERDICT_REGRESSED);
    /* A run that knows its median worse than the runs spread widens its own threshold. */
    rb_expected x;
    rb_expected_read(
        json_get(json_get(json_get(json_get(doc, "pairs"), "gemm_x"), "variants"), "steady"), &x);
    rb_stats wide = {.median = 1.0, .ci_lo = 0.9, .ci_hi = 1.1, .noise = 0.3};
    RB_CHECK_NEAR(rb_expect_run_threshold(&x, &wide), 0.1, 1e-12);
    /* Fewer than 3 runs: the old rule, max(3%, 3 x the larger noise). */
    x.runs = 2;
    RB_CHECK_NEAR(rb_expect_run_threshold(&x, &wide), 0.9, 1e-12);
    json_free(doc);
}

/* Under the power cap a verdict needs the time and the time at equal clock to agree, and a clock
 * read fewer than RB_EXPECT_MIN_CLOCK_READINGS times does not judge (the H100 cases of the
 * 4053b1d judge call, in miniature). */
static void test_power_cap_needs_time_and_clock(void)
{
    json_value *doc = record_three();
    if (!doc)
        return;
    rb_pair_result p;
    /* steady_capped is judged on time (its recorded cycles spread more than its time): 5.5%
     * slower at a 12% lower clock, so fewer cycles: the board moved, not the kernel: pass. */
    judge_new(doc, 1.005, 1.03, 1.0, 1500, &p);
    rb_variant_result *sc = &p.v[3];
    RB_CHECK(sc->verdict == RB_VERDICT_PASS);
    double mhz = rb_clocks_mean_mhz(&sc->clocks);
    sc->time_ms.median = 1.055;
    sc->clocks.sm_mhz_sum = 0.88 * mhz * sc->clocks.clock_samples;
    rb_expected e;
    rb_expected_read(
        json_get(json_get(json_get(json_get(doc, "pairs"), "gemm_x"), "variants"), "steady_capped"),
        &e);
    RB_CHECK(!e.per_clock);
    double thr, ratio;
    int per_clock;
    RB_CHECK(rb_expect_judge_run(&e, sc, &thr, &ratio, &per_clock) == RB_VERDICT_PASS);
    /* ... but 10% slower at the same clock is a regression, in both. */
    sc->time_ms.median = 1.10;
    sc->clocks.sm_mhz_sum = mhz * sc->clocks.clock_samples;
    RB_CHECK(rb_expect_judge_run(&e, sc, &thr, &ratio, &per_clock) == RB_VERDICT_REGRESSED);
    /* Without the power cap the clock is no witness: 5.5% slower is regressed. */
    sc->time_ms.median = 1.055;
    sc->clocks.sm_mhz_sum = 0.88 * mhz * sc->clocks.clock_samples;
    sc->clocks.reasons = 0;
    RB_CHECK(rb_expect_judge_run(&e, sc, &thr, &ratio, &per_clock) == RB_VERDICT_REGRESSED);
    /* capped is judged at equal clock: the same time at a 4% higher clock read 20 times is 4%
     * more cycles, which the time does not show: pass. */
    judge_new(doc, 1.005, 1.03, 1.0, 1560, &p);
    RB_CHECK(p.v[2].per_clock && p.v[2].verdict == RB_VERDICT_PASS);
    /* The same with a clock read 5 times: not a clock to judge by; on time, which passes. */
    rb_variant_result *c = &p.v[2];
    rb_expected_read(
        json_get(json_get(json_get(json_get(doc, "pairs"), "gemm_x"), "variants"), "capped"), &e);
    c->clocks.clock_samples = 5;
    c->clocks.sm_mhz_sum = 1560.0 * 5;
    c->time_ms.median = 1.0;
    RB_CHECK(rb_expect_judge_run(&e, c, &thr, &ratio, &per_clock) == RB_VERDICT_PASS && !per_clock);
    RB_CHECK_NEAR(ratio, 1.0, 1e-12);
    /* and a 10% slowdown with it: regressed on time. */
    c->time_ms.median = 1.10;
    RB_CHECK(rb_expect_judge_run(&e, c, &thr, &ratio, &per_clock) == RB_VERDICT_REGRESSED);
    json_free(doc);
}

/* A sustained row is judged on its time alone. The H100 case: gemm_precision's bf16 step with a
 * planted 10% slowdown ran +7.6% in time at a 6% lower clock; the agreement rule called it pass.
 * And a row the file recorded per_clock is judged against the spread of its recorded times. */
static void test_sustained_judged_on_time(void)
{
    json_value *doc = record_three();
    if (!doc)
        return;
    rb_pair_result p;
    judge_new(doc, 1.005, 1.03, 1.0, 1500, &p);
    rb_variant_result *sc = &p.v[3];
    double mhz = rb_clocks_mean_mhz(&sc->clocks);
    rb_expected e;
    const json_value *vs = json_get(json_get(json_get(doc, "pairs"), "gemm_x"), "variants");
    rb_expected_read(json_get(vs, "steady_capped"), &e);
    double thr, ratio;
    int per_clock;
    sc->time_ms.median = 1.076 * e.median_ms; /* the planted slowdown, at a 6% lower clock */
    sc->clocks.sm_mhz_sum = 0.94 * mhz * sc->clocks.clock_samples;
    sc->timing = RB_TIMING_INTERLEAVED; /* ~1 ms samples: the clock may excuse it */
    RB_CHECK(rb_expect_judge_run(&e, sc, &thr, &ratio, &per_clock) == RB_VERDICT_PASS);
    sc->timing = RB_TIMING_SUSTAINED; /* sustained: the time decides */
    RB_CHECK(rb_expect_judge_run(&e, sc, &thr, &ratio, &per_clock) == RB_VERDICT_REGRESSED);
    RB_CHECK(!per_clock && fabs(ratio - 1.076) < 1e-9);
    sc->timing = RB_TIMING_SUSTAINED_INTERLEAVED;
    RB_CHECK(rb_expect_judge_run(&e, sc, &thr, &ratio, &per_clock) == RB_VERDICT_REGRESSED);
    /* ... and the same time at another clock is a pass, whatever its cycles did. */
    sc->time_ms.median = e.median_ms;
    RB_CHECK(rb_expect_judge_run(&e, sc, &thr, &ratio, &per_clock) == RB_VERDICT_PASS);
    /* capped was recorded per_clock: sustained, its threshold comes from its recorded times. */
    judge_new(doc, 1.005, 1.03, 1.0, 1560, &p);
    rb_variant_result *c = &p.v[2];
    rb_expected_read(json_get(vs, "capped"), &e);
    RB_CHECK(e.per_clock && e.time_spread > e.run_spread);
    c->timing = RB_TIMING_SUSTAINED;
    c->time_ms.median = e.median_ms * (1.0 + 1.5 * e.time_spread);
    RB_CHECK(rb_expect_judge_run(&e, c, &thr, &ratio, &per_clock) == RB_VERDICT_PASS);
    RB_CHECK_NEAR(thr, RB_EXPECT_SPREAD_FACTOR * e.time_spread, 1e-12);
    c->time_ms.median = e.median_ms * (1.0 + 2.5 * e.time_spread);
    RB_CHECK(rb_expect_judge_run(&e, c, &thr, &ratio, &per_clock) == RB_VERDICT_REGRESSED);
    json_free(doc);
    /* Recorded from sustained runs, capped is not per_clock: its spread is its times'. */
    rb_pair_result runs[3];
    three_runs(runs);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < runs[r].n_variants; k++)
            runs[r].v[k].timing = RB_TIMING_SUSTAINED;
    const rb_pair_result *earlier[2] = {&runs[0], &runs[1]};
    json_value *rec = NULL, *platform = parse_text("{\"dram_gbps\": 3000, \"source\": \"q\"}");
    char err[300] = "";
    RB_CHECK(rb_expect_update_runs(&rec, &runs[2], 1, earlier, 2, platform,
                                   parse_text("{\"name\": \"NVIDIA H100 80GB HBM3\"}"), NULL,
                                   parse_text("{\"git\": \"abc\"}"), err, sizeof err) == 0);
    json_free(platform);
    rb_expected_read(
        json_get(json_get(json_get(json_get(rec, "pairs"), "gemm_x"), "variants"), "capped"), &e);
    RB_CHECK(rec && !e.per_clock && e.run_spread > 0.1);
    json_free(rec);
}

static void test_print_thresholds(void)
{
    json_value *doc = record_three();
    if (!doc)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    RB_CHECK(f != NULL);
    if (!f) {
        json_free(doc);
        return;
    }
    rb_expect_print_thresholds(f, doc, NULL, 0);
    fclose(f);
    RB_CHECK(strstr(buf, "gemm_x/drifty") && strstr(buf, "NOT SEEN"));
    RB_CHECK(strstr(buf, "time x clk"));
    RB_CHECK(strstr(buf, "4 variant(s): a 10% slowdown is regressed in 3, not seen in 1") != NULL);
    RB_CHECK(strstr(buf, "other variant(s)") == NULL);
    free(buf);
    /* Scoped to a run: its row groups only; the file's others are counted, not listed. */
    rb_pair_result run[1];
    memset(run, 0, sizeof run);
    snprintf(run[0].name, sizeof run[0].name, "copy_y");
    buf = NULL;
    f = open_memstream(&buf, &len);
    RB_CHECK(f != NULL);
    if (f) {
        rb_expect_print_thresholds(f, doc, run, 1);
        fclose(f);
        RB_CHECK(strstr(buf, "gemm_x/") == NULL);
        RB_CHECK(strstr(buf, "0 variant(s): a 10% slowdown is regressed in 0, not seen in 0"));
        RB_CHECK(strstr(buf, "4 other variant(s) of the file"));
    }
    free(buf);
    json_free(doc);
}

static void test_validate_refuses_bad_run_fields(void)
{
    static const char *const bad[][2] = {
        {"\"run_medians\": [1, -2]", "run_medians: expected positive numbers"},
        {"\"run_medians\": 3", "run_medians: expected array"},
        {"\"runs\": 0", "runs: expected a whole number >= 1"},
        {"\"runs\": 2.5", "runs: expected a whole number >= 1"},
        {"\"run_spread\": -0.1", "run_spread: must be >= 0"},
        {"\"clocks\": {\"sm_mhz_mean\": 1500, \"x\": 1}", "clocks: expected {"},
        {"\"clocks\": {\"sm_mhz_mean\": \"fast\"}", "clocks: expected {"},
        {"\"per_clock\": 1", "per_clock: expected true or false"},
        {"\"library_algo\": 7", "library_algo: expected an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[600], err[300] = "";
        snprintf(
            text, sizeof text,
            "{\"schema\": 1, \"hardware\": {\"name\": \"x\"}, \"peaks\": {}, \"ceilings\": {}, "
            "\"pairs\": {\"p\": {\"size\": 1, \"variants\": {\"v\": {\"median_ms\": 1, "
            "\"noise\": 0, %s}}}}}",
            bad[i][0]);
        json_value *doc = parse_text(text);
        RB_CHECK(doc && rb_expect_validate(doc, err, sizeof err) == -1);
        if (!strstr(err, bad[i][1]))
            printf("    %s: got '%s'\n", bad[i][0], err);
        RB_CHECK(strstr(err, bad[i][1]) != NULL);
        json_free(doc);
    }
    static const char *const bad_pair[][2] = {
        {"\"platform\": 1", "pairs.p.platform: expected an object"},
        {"\"kernels\": {}", "pairs.p.kernels: expected array"},
    };
    for (size_t i = 0; i < sizeof bad_pair / sizeof bad_pair[0]; i++) {
        char text[600], err[300] = "";
        snprintf(
            text, sizeof text,
            "{\"schema\": 1, \"hardware\": {\"name\": \"x\"}, \"peaks\": {}, \"ceilings\": {}, "
            "\"pairs\": {\"p\": {\"size\": 1, %s, \"variants\": {}}}}",
            bad_pair[i][0]);
        json_value *doc = parse_text(text);
        RB_CHECK(doc && rb_expect_validate(doc, err, sizeof err) == -1);
        RB_CHECK(strstr(err, bad_pair[i][1]) != NULL);
        json_free(doc);
    }
}

/* run's verdicts get compare's attribution against what the expectations were recorded with:
 * a kernel whose SASS changed (code), the platform reference's DRAM roof moving with a DRAM-bound
 * variant (platform), and nothing recorded changed (unexplained). */
static rb_variant_result *add_on_dram(rb_pair_result *p, const char *name, double ms)
{
    rb_variant_result *v = add_timed(p, name, RB_UNIT_NONE, ms, 0);
    v->roof = RB_ROOF_DRAM;
    return v;
}

static void kernel_of(rb_pair_result *p, const char *variant, const char *hash)
{
    rb_kernel_result *k = &p->kernels[p->n_kernels++];
    memset(k, 0, sizeof *k);
    snprintf(k->variant, sizeof k->variant, "%s", variant);
    snprintf(k->name, sizeof k->name, "%s_kernel", variant);
    snprintf(k->sass_hash, sizeof k->sass_hash, "%s", hash);
    k->registers = 32;
}

static void test_verdicts_attributed(void)
{
    rb_pair_result runs[3];
    for (int r = 0; r < 3; r++) {
        init_pair(&runs[r], "copy_x", FULL_SIZE);
        add_on_dram(&runs[r], "coded", 1.0);
        add_on_dram(&runs[r], "dram", 1.0);
        add_on_dram(&runs[r], "other", 1.0);
        add_on_dram(&runs[r], "both", 1.0);
        kernel_of(&runs[r], "coded", "00000000000000aa");
        kernel_of(&runs[r], "both", "00000000000000cc");
    }
    const rb_pair_result *earlier[2] = {&runs[0], &runs[1]};
    json_value *edoc = NULL, *platform = parse_text("{\"dram_gbps\": 3000, \"fp32_tflops\": 60, "
                                                    "\"source\": \"ceilings --quick\"}");
    char err[300] = "";
    RB_CHECK(rb_expect_update_runs(&edoc, &runs[2], 1, earlier, 2, platform,
                                   parse_text("{\"name\": \"x\"}"), NULL,
                                   parse_text("{\"git\": \"abc\"}"), err, sizeof err) == 0);
    json_free(platform);
    rb_expect e = {0};
    e.doc = edoc;
    /* the new run: coded's SASS changed and it is 20% slower; DRAM fell 10% and dram is 11%
     * slower; other is 20% slower with nothing to show for it; both is 11% slower as DRAM
     * fell, but its SASS changed too */
    rb_pair_result p;
    init_pair(&p, "copy_x", FULL_SIZE);
    add_on_dram(&p, "coded", 1.2);
    add_on_dram(&p, "dram", 1.11);
    add_on_dram(&p, "other", 1.2);
    add_on_dram(&p, "both", 1.11);
    kernel_of(&p, "coded", "00000000000000bb");
    kernel_of(&p, "both", "00000000000000dd");
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 4);
    rb_roofs ceilings, peaks;
    rb_roofs_unknown(&ceilings);
    rb_roofs_unknown(&peaks);
    json_value *doc = rb_report_json(
        &p, 1, &ceilings, &peaks,
        parse_text("{\"platform\": {\"dram_gbps\": 2700, \"fp32_tflops\": 60, \"source\": "
                   "\"ceilings --quick\"}}"));
    RB_CHECK(doc != NULL);
    if (doc) {
        rb_runcmp_attribute_verdicts(e.doc, doc, &p, 1);
        RB_CHECK(!strcmp(p.v[0].cause, "code") && strstr(p.v[0].evidence, "sass_hash"));
        RB_CHECK(!strcmp(p.v[1].cause, "platform") && strstr(p.v[1].evidence, "dram_gbps"));
        RB_CHECK(!strcmp(p.v[2].cause, "unexplained"));
        RB_CHECK(!strcmp(p.v[3].cause, "platform") && strstr(p.v[3].evidence, "code changed too"));
        /* the machine explains dram alone: coded, other and both (a code change riding on the
         * platform's move) fail the run, dram only with --fail-on-platform */
        RB_CHECK(!p.v[0].machine_explained && p.v[1].machine_explained &&
                 !p.v[2].machine_explained && !p.v[3].machine_explained);
        RB_CHECK(rb_expect_failing(&p, 1, 0, 0) == 3 && rb_expect_failing(&p, 1, 0, 1) == 4);
        const json_value *vs = json_get(json_get(doc, "pairs")->items[0], "variants");
        RB_CHECK(vs && !strcmp(json_string_at(vs->items[0], "cause", ""), "code"));
        /* without expectations nothing is attributed */
        rb_pair_result q = p;
        q.v[2].cause[0] = '\0';
        rb_runcmp_attribute_verdicts(NULL, doc, &q, 1);
        RB_CHECK(q.v[2].cause[0] == '\0');
    }
    json_free(doc);
    rb_expect_free(&e);
}

static const rbtest_case expect_cases[] = {
    {"validate_refuses_implausible_ceilings", test_validate_refuses_implausible_ceilings},
    {"same_device", test_same_device},
    {"update_drops_removed_variant", test_update_drops_removed_variant},
    {"skipped_variant", test_skipped_variant},
    {"update_records_provenance_per_pair", test_update_records_provenance_per_pair},
    {"validate_accepts_full_document", test_validate_accepts_full_document},
    {"validate_refuses_top_level", test_validate_refuses_top_level},
    {"validate_refuses_roofs", test_validate_refuses_roofs},
    {"validate_refuses_pairs", test_validate_refuses_pairs},
    {"validate_refuses_variants", test_validate_refuses_variants},
    {"load_errors", test_load_errors},
    {"load_fills_roofs", test_load_fills_roofs},
    {"threshold", test_threshold},
    {"update_records_run_spread", test_update_records_run_spread},
    {"judge_with_run_spread", test_judge_with_run_spread},
    {"power_cap_needs_time_and_clock", test_power_cap_needs_time_and_clock},
    {"sustained_judged_on_time", test_sustained_judged_on_time},
    {"print_thresholds", test_print_thresholds},
    {"validate_refuses_bad_run_fields", test_validate_refuses_bad_run_fields},
    {"verdicts_attributed", test_verdicts_attributed},
    {"judge", test_judge},
    {"apply_pass_and_invalid", test_apply_pass_and_invalid},
    {"apply_new", test_apply_new},
    {"apply_missing_appended", test_apply_missing_appended},
    {"apply_skipped_and_failed", test_apply_skipped_and_failed},
    {"update_creates_document", test_update_creates_document},
    {"update_keeps_other_pairs", test_update_keeps_other_pairs},
    {"update_refuses_invalid", test_update_refuses_invalid},
    {"update_then_load_and_apply", test_update_then_load_and_apply},
    {"datasheet_peaks", test_datasheet_peaks},
    {"report_derive", test_report_derive},
    {"report_table", test_report_table},
    {"report_markdown", test_report_markdown},
    {"report_json", test_report_json},
    {"validate_accepts_every_roof_key", test_validate_accepts_every_roof_key},
    {"validate_refuses_unknown_roof_keys", test_validate_refuses_unknown_roof_keys},
    {"validate_refuses_bad_methods", test_validate_refuses_bad_methods},
    {"report_each_variant_on_its_roof", test_report_each_variant_on_its_roof},
    {"variant_record_roof", test_variant_record_roof},
    {"report_csv", test_report_csv},
};

RB_SUITE(expect_suite, "expect", expect_cases);
