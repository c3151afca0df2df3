/* SPDX-License-Identifier: MIT */
/*
 * roofbench compare (harness/model/runcmp.c): every verdict and every attribution on synthetic
 * results documents, each cause planted alone; the two committed runs of one build; and the
 * binary's exit codes and refusals (compare, run --baseline).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/model/runcmp.h"
#include "rbtest.h"

/* One pair "copy" with one variant "optimized" on the DRAM roof and one kernel. top: members
 * added at the top level ("" or "\"platform\": {...},"); kernel, variant: members added to the
 * kernel and the variant (each starting with a comma, or ""). */
typedef struct synth {
    const char *driver, *top, *kernel, *variant;
    double median, half_ci, noise;
} synth;

static json_value *make_doc(const synth *s)
{
    char text[4096], err[200];
    snprintf(text, sizeof text,
             "{\"git\": \"g\", \"date\": \"d\", \"size\": \"full\","
             " \"environment\": {\"start\": {\"driver\": \"%s\", \"nvml\": {\"power_limit_w\": 700,"
             " \"temperature_c\": 40}}}, %s"
             " \"roofs\": {\"dram_gbps\": {\"kind\": \"bandwidth\", \"measured\": 3000}},"
             " \"pairs\": [{\"name\": \"copy\", \"size\": 1024, \"kernels\": [{\"variant\":"
             " \"optimized\", \"name\": \"copy_k\", \"registers\": 16, \"static_smem_bytes\": 0,"
             " \"dyn_smem_bytes\": 0, \"local_bytes\": 0%s}], \"variants\": [{\"name\":"
             " \"optimized\", \"valid\": true, \"timed\": true, \"roof\": \"dram_gbps\","
             " \"time_ms\": {\"median\": %.17g, \"median_ci_lo\": %.17g, \"median_ci_hi\": %.17g,"
             " \"noise\": %.17g, \"samples\": 50}, \"sm_clock_mhz\": 1980%s}]}]}",
             s->driver ? s->driver : "580", s->top ? s->top : "", s->kernel ? s->kernel : "",
             s->median, s->median - s->half_ci, s->median + s->half_ci, s->noise,
             s->variant ? s->variant : "");
    json_value *d = json_parse(text, strlen(text), err, sizeof err);
    if (!d)
        printf("    synthetic document: %s\n", err);
    return d;
}

static const synth base = {NULL, NULL, NULL, NULL, 1.0, 0.002, 0.01};

/* Compares old with new; the one row, or NULL. c must be freed. */
static const rb_runcmp_row *compare(const synth *old, const synth *new_, rb_runcmp *c)
{
    json_value *a = make_doc(old), *b = make_doc(new_);
    char err[200];
    int rc = a && b ? rb_runcmp_build(a, b, c, err, sizeof err) : -1;
    json_free(a);
    json_free(b);
    if (rc != 0) {
        memset(c, 0, sizeof *c);
        return NULL;
    }
    return c->n_rows == 1 ? &c->rows[0] : NULL;
}

static void test_verdict_rule(void)
{
    RB_CHECK(rb_runcmp_verdict(0.99, 1.01, 0.02) == RB_CHANGE_SAME);   /* holds 1 */
    RB_CHECK(rb_runcmp_verdict(0.90, 1.10, 0.02) == RB_CHANGE_SAME);   /* holds 1, wide */
    RB_CHECK(rb_runcmp_verdict(1.005, 1.015, 0.02) == RB_CHANGE_SAME); /* within the floor */
    RB_CHECK(rb_runcmp_verdict(1.03, 1.05, 0.02) == RB_CHANGE_SLOWER);
    RB_CHECK(rb_runcmp_verdict(0.90, 0.95, 0.02) == RB_CHANGE_FASTER);
    RB_CHECK(rb_runcmp_verdict(1.01, 1.05, 0.02) == RB_CHANGE_UNCLEAR); /* crosses 1.02 */
    RB_CHECK(rb_runcmp_verdict(0.95, 0.99, 0.02) == RB_CHANGE_UNCLEAR);
    RB_CHECK(rb_runcmp_verdict(NAN, 1.05, 0.02) == RB_CHANGE_UNCLEAR);
    RB_CHECK(rb_runcmp_verdict(1.03, 1.05, 0.10) == RB_CHANGE_SAME); /* a noisy variant's floor */
    RB_CHECK_NEAR(rb_runcmp_floor(0.01, 0.004), 0.02, 1e-12);
    RB_CHECK_NEAR(rb_runcmp_floor(0.01, 0.30), 0.15, 1e-12);
    RB_CHECK_NEAR(rb_runcmp_floor(NAN, NAN), 0.02, 1e-12);
}

static void test_identical_runs_same(void)
{
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&base, &base, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SAME && r->cause == RB_CAUSE_NONE);
    RB_CHECK(r && fabs(r->ratio - 1) < 1e-12);
    RB_CHECK(c.n_env == 0 && c.n_env_same > 0);
    RB_CHECK(rb_runcmp_failing(&c, 1) == 0);
    rb_runcmp_free(&c);
}

static void test_unexplained_slowdown_fails(void)
{
    synth n = base;
    n.median = 1.2;
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&base, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER && r->cause == RB_CAUSE_UNEXPLAINED);
    RB_CHECK(r && strstr(r->evidence, "x1.200"));
    RB_CHECK(rb_runcmp_failing(&c, 0) == 1);
    rb_runcmp_free(&c);
    /* faster: judged and attributed, never failing */
    n.median = 0.8;
    r = compare(&base, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_FASTER && r->cause == RB_CAUSE_UNEXPLAINED);
    RB_CHECK(rb_runcmp_failing(&c, 1) == 0);
    rb_runcmp_free(&c);
}

static void test_unclear_and_noisy(void)
{
    synth n = base;
    n.median = 1.02; /* interval [1.016, 1.024]-ish: excludes 1, crosses the 2% floor */
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&base, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_UNCLEAR && r->cause == RB_CAUSE_NONE);
    RB_CHECK(rb_runcmp_failing(&c, 1) == 0);
    rb_runcmp_free(&c);
    /* 5% slower, the loops spread 16%: the floor is 8%, and the row same */
    synth o = base;
    o.noise = n.noise = 0.16;
    n.median = 1.05;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SAME && fabs(r->floor - 0.08) < 1e-12);
    rb_runcmp_free(&c);
}

/* A floor above 10% hides a 10% change: such a row is blind, never same nor unclear, counted
 * apart and with the reason; a change seen beyond it stands. */
static void test_blind_rows(void)
{
    synth o = base, n = base;
    o.noise = n.noise = 0.4; /* loops spread 40%: the floor is 20% */
    n.median = 1.1;          /* a real 10% slowdown the floor hides */
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_BLIND && fabs(r->floor - 0.2) < 1e-12);
    RB_CHECK(r && strstr(r->evidence, "blind: floor 20.0% (half the p10-p90 spread of a timed "
                                      "loop) hides a 10% change"));
    RB_CHECK(c.counts[RB_CHANGE_BLIND] == 1 && c.counts[RB_CHANGE_SAME] == 0);
    RB_CHECK(rb_runcmp_failing(&c, 1) == 0);
    rb_runcmp_free(&c);
    /* within 1 whatever the floor: still blind, the floor could hide anything under 20% */
    n.median = 1.0;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_BLIND);
    rb_runcmp_free(&c);
    /* 50% slower: seen beyond the floor, slower and failing */
    n.median = 1.5;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER && rb_runcmp_failing(&c, 0) == 1);
    rb_runcmp_free(&c);
    /* at the edge: a floor of exactly 10% still sees a 10% change's worth */
    o.noise = n.noise = 0.2;
    n.median = 1.0;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SAME && fabs(r->floor - 0.1) < 1e-12);
    rb_runcmp_free(&c);
}

#define PLATFORM(dram, noise)                                                                      \
    "\"platform\": {\"source\": \"ceilings --quick at run start\", \"dram_gbps\": " #dram         \
    ", \"fp32_tflops\": 60, \"launch_us\": 4.9, \"methods\": {\"dram_gbps\": {\"noise\": " #noise \
    "}}},"

static void test_platform_attribution(void)
{
    synth o = base, n = base;
    o.top = PLATFORM(3000, 0.01);
    n.top = PLATFORM(2700, 0.01);
    n.median = 3000.0 / 2700.0 * 1.005; /* the roof's factor, within noise */
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER && r->cause == RB_CAUSE_PLATFORM);
    RB_CHECK(r && strstr(r->evidence, "dram_gbps roof (platform reference) 3000 -> 2700"));
    RB_CHECK(rb_runcmp_failing(&c, 0) == 0);
    RB_CHECK(rb_runcmp_failing(&c, 1) == 1); /* --fail-on-platform */
    int driver_seen = 0;
    for (int i = 0; i < c.n_env; i++)
        driver_seen += !strcmp(c.env[i].key, "platform.dram_gbps");
    RB_CHECK(driver_seen == 1);
    rb_runcmp_free(&c);
    /* the roof moved 10% but the variant 30%: not the platform */
    n.median = 1.3;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_UNEXPLAINED);
    rb_runcmp_free(&c);
    /* the roof moved the other way: not the platform */
    n.top = PLATFORM(3300, 0.01);
    n.median = 1.1;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_UNEXPLAINED);
    rb_runcmp_free(&c);
}

#define PLATFORM2(dram, fp32)                                                                      \
    "\"platform\": {\"source\": \"ceilings --quick at run start\", \"dram_gbps\": " #dram          \
    ", \"fp32_tflops\": " #fp32 ", \"launch_us\": 4.9},"

/* A co-tenant that took SMs and DRAM (the H100 under MPS, 20261125T1452Z-7880ce1-regress):
 * DRAM 3018 -> 2754 GB/s (time x1.096), FP32 60.5 -> 46.2 TFLOP/s (x1.31). A variant on the DRAM
 * roof slowed x1.25 is between the two: the platform's. Beyond the envelope, or with only DRAM
 * moving, it is not; nor when the roofs moved 1% (two runs of one machine). */
static void test_platform_envelope(void)
{
    synth o = base, n = base;
    o.top = PLATFORM2(3018, 60.5);
    n.top = PLATFORM2(2754, 46.2);
    n.median = 1.25;
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER && r->cause == RB_CAUSE_PLATFORM);
    RB_CHECK(r && strstr(r->evidence, "fp32_tflops 60.5 -> 46.2") != NULL);
    rb_runcmp_free(&c);
    n.median = 1.45; /* beyond x1.31 and the floor */
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_UNEXPLAINED);
    rb_runcmp_free(&c);
    n.top = PLATFORM2(2754, 60.5); /* DRAM alone moved: x1.25 is not the platform's */
    n.median = 1.25;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_UNEXPLAINED);
    rb_runcmp_free(&c);
    o.top = PLATFORM2(3018, 60.5); /* both moved 1%: explains nothing beyond its own roof */
    n.top = PLATFORM2(2990, 59.9);
    n.median = 1.05;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_UNEXPLAINED);
    rb_runcmp_free(&c);
}

/* Expectations recorded from 3 runs whose medians spread 4.5%: compare's floor for the variant
 * becomes 9%, as run's threshold is; fewer runs, another size or no entry leave it alone. A
 * spread of 10% makes the floor 20%: blind, said with the recorded runs as its source. */
static void test_floor_from_expectations(void)
{
    static const char *const expect_fmt =
        "{\"schema\": 1, \"hardware\": {\"name\": \"x\"}, \"peaks\": {}, \"ceilings\": {},"
        " \"pairs\": {\"copy\": {\"size\": %d, \"variants\": {\"optimized\": {\"median_ms\": 1,"
        " \"noise\": 0.01, \"runs\": %d, \"run_spread\": %g}}}}}";
    synth o = base, n = base;
    n.median = 1.07; /* +7%, tight intervals: slower against the 2% floor */
    json_value *a = make_doc(&o), *b = make_doc(&n);
    char text[600], err[200];
    int sizes[3] = {1024, 1024, 2048}, runs[3] = {3, 2, 3};
    rb_change want[3] = {RB_CHANGE_SAME, RB_CHANGE_SLOWER, RB_CHANGE_SLOWER};
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, expect_fmt, sizes[i], runs[i], 0.045);
        json_value *e = json_parse(text, strlen(text), err, sizeof err);
        rb_runcmp c;
        RB_CHECK(a && b && e && rb_runcmp_build_expect(a, b, e, &c, err, sizeof err) == 0);
        RB_CHECK(c.n_rows == 1 && c.rows[0].change == want[i]);
        RB_CHECK(c.floors_from_runs == (i == 0) && c.expect == NULL);
        if (i == 0)
            RB_CHECK(fabs(c.rows[0].floor - 0.09) < 1e-12);
        rb_runcmp_free(&c);
        json_free(e);
    }
    {
        snprintf(text, sizeof text, expect_fmt, 1024, 3, 0.1);
        json_value *e = json_parse(text, strlen(text), err, sizeof err);
        rb_runcmp c;
        RB_CHECK(a && b && e && rb_runcmp_build_expect(a, b, e, &c, err, sizeof err) == 0);
        RB_CHECK(c.n_rows == 1 && c.rows[0].change == RB_CHANGE_BLIND &&
                 strstr(c.rows[0].evidence, "2 x the 10.0% spread of its 3 recorded runs"));
        rb_runcmp_free(&c);
        json_free(e);
    }
    /* no interval (fewer than 6 samples): same within the recorded floor, unclear beyond it */
    json_free(b);
    n.half_ci = -0.01; /* an inverted interval: the row has none, as with fewer than 6 samples */
    n.median = 1.07;
    b = make_doc(&n);
    snprintf(text, sizeof text, expect_fmt, 1024, 3, 0.045);
    json_value *e = json_parse(text, strlen(text), err, sizeof err);
    rb_runcmp c;
    RB_CHECK(b && e && rb_runcmp_build_expect(a, b, e, &c, err, sizeof err) == 0);
    RB_CHECK(c.n_rows == 1 && c.rows[0].change == RB_CHANGE_SAME);
    rb_runcmp_free(&c);
    RB_CHECK(rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    RB_CHECK(c.n_rows == 1 && c.rows[0].change == RB_CHANGE_UNCLEAR);
    rb_runcmp_free(&c);
    json_free(e);
    json_free(a);
    json_free(b);
}

static void test_code_attribution(void)
{
    synth o = base, n = base;
    o.kernel = ", \"sass_hash\": \"00112233aabbccdd\"";
    n.kernel = ", \"sass_hash\": \"99112233aabbccdd\"";
    n.median = 1.15;
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER && r->cause == RB_CAUSE_CODE);
    RB_CHECK(r && strstr(r->evidence, "copy_k: sass_hash 00112233aabbccdd -> 99112233aabbccdd"));
    RB_CHECK(rb_runcmp_failing(&c, 0) == 1);
    rb_runcmp_free(&c);
    /* the library's algorithm alone */
    n.kernel = NULL;
    o.kernel = NULL;
    n.variant = ", \"library_algo\": {\"kind\": \"cublasLt\", \"algo_id\": 21, \"tile\": 18}";
    o.variant = ", \"library_algo\": {\"kind\": \"cublasLt\", \"algo_id\": 21, \"tile\": 20}";
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_CODE && strstr(r->evidence, "library_algo"));
    rb_runcmp_free(&c);
}

static void test_code_resources_attribution(void)
{
    /* the kernel's registers: a duplicate key would be refused, so the whole kernel is swapped
     * through a second kernel entry of another name (gone in NEW, new in NEW) */
    synth o = base, n = base;
    n.median = 1.15;
    n.kernel = "}, {\"variant\": \"optimized\", \"name\": \"copy_k2\", \"registers\": 40";
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_CODE && strstr(r->evidence, "copy_k2 is new"));
    rb_runcmp_free(&c);
    /* the same kernel, more local memory */
    json_value *a = make_doc(&o), *b = make_doc(&n);
    json_value *k = json_get(json_get(b, "pairs")->items[0], "kernels")->items[0];
    RB_CHECK(json_set_number(k, "local_bytes", 64) == 0);
    json_get(json_get(b, "pairs")->items[0], "kernels")->count = 1; /* drop copy_k2 */
    char err[200];
    RB_CHECK(rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    RB_CHECK(c.n_rows == 1 && c.rows[0].cause == RB_CAUSE_CODE &&
             strstr(c.rows[0].evidence, "local_bytes 0 -> 64"));
    rb_runcmp_free(&c);
    json_get(json_get(b, "pairs")->items[0], "kernels")->count = 2; /* freed whole */
    json_free(a);
    json_free(b);
}

static void test_throttled_attribution(void)
{
    synth o = base, n = base;
    o.variant = ", \"clocks\": {\"sm_mhz_mean\": 1980, \"sm_mhz_min\": 1980, \"samples\": 100,"
                " \"reasons\": []}, \"throttled\": false";
    n.variant = ", \"clocks\": {\"sm_mhz_mean\": 1700, \"sm_mhz_min\": 1500, \"samples\": 100,"
                " \"reasons\": [\"hw_slowdown\", \"power_cap\"]}, \"throttled\": true";
    n.median = 1980.0 / 1700.0;
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER && r->cause == RB_CAUSE_THROTTLED);
    RB_CHECK(r && strstr(r->evidence, "SM clock 1980 -> 1700 MHz") &&
             strstr(r->evidence, "hw_slowdown,power_cap"));
    RB_CHECK(rb_runcmp_failing(&c, 0) == 1); /* a throttled run is no pass */
    rb_runcmp_free(&c);
    /* the same lower clock with no throttle reason: the clock explains it, the machine's, not the
     * code's (two cards of one model a few MHz apart): no failure, unless --fail-on-platform */
    n.variant = ", \"clocks\": {\"sm_mhz_mean\": 1700, \"sm_mhz_min\": 1650, \"samples\": 100,"
                " \"reasons\": []}, \"throttled\": false";
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER && r->cause == RB_CAUSE_THROTTLED && !r->slowdown);
    RB_CHECK(rb_runcmp_failing(&c, 0) == 0 && rb_runcmp_failing(&c, 1) == 1);
    rb_runcmp_free(&c);
    /* a lower clock that does not match the time, and no throttle reason: unexplained */
    n.variant = ", \"clocks\": {\"sm_mhz_mean\": 1900, \"sm_mhz_min\": 1900, \"samples\": 100,"
                " \"reasons\": [\"power_cap\"]}, \"throttled\": false";
    n.median = 1.3;
    r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_UNEXPLAINED);
    rb_runcmp_free(&c);
}

static void test_platform_before_code(void)
{
    /* a CUDA upgrade recompiles every kernel: when the roof explains the time, it is the
     * platform, and the code change is said too */
    synth o = base, n = base;
    o.top = PLATFORM(3000, 0.01);
    n.top = PLATFORM(2700, 0.01);
    o.kernel = ", \"sass_hash\": \"aa\"";
    n.kernel = ", \"sass_hash\": \"bb\"";
    n.median = 3000.0 / 2700.0;
    rb_runcmp c;
    const rb_runcmp_row *r = compare(&o, &n, &c);
    RB_CHECK(r && r->cause == RB_CAUSE_PLATFORM && strstr(r->evidence, "code changed too"));
    rb_runcmp_free(&c);
}

static void test_samples_array_and_env(void)
{
    /* time_ms.samples as sample times: the interval comes from them, not from the recorded
     * median_ci_* (planted wrong here) */
    const char *doc_text =
        "{\"environment\": {\"start\": {\"driver\": \"%s\"}}, \"pairs\": [{\"name\": \"p\","
        " \"size\": 8, \"variants\": [{\"name\": \"v\", \"valid\": true, \"timed\": true,"
        " \"time_ms\": {\"median\": 1, \"median_ci_lo\": 0.1, \"median_ci_hi\": 9, \"noise\": 0,"
        " \"samples\": [%s]}}]}]}";
    char a_text[2048], b_text[2048], xs[1024] = "", ys[1024] = "", err[200];
    for (int i = 0; i < 30; i++) {
        size_t lx = strlen(xs), ly = strlen(ys);
        snprintf(xs + lx, sizeof xs - lx, "%s%.4f", i ? ", " : "", 1.0 + 0.001 * (i % 5));
        snprintf(ys + ly, sizeof ys - ly, "%s%.4f", i ? ", " : "", 1.1 + 0.001 * (i % 5));
    }
    snprintf(a_text, sizeof a_text, doc_text, "580.1", xs);
    snprintf(b_text, sizeof b_text, doc_text, "590.2", ys);
    json_value *a = json_parse(a_text, strlen(a_text), err, sizeof err);
    json_value *b = json_parse(b_text, strlen(b_text), err, sizeof err);
    rb_runcmp c;
    RB_CHECK(a && b && rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    if (a && b) {
        RB_CHECK(c.n_rows == 1 && c.rows[0].change == RB_CHANGE_SLOWER);
        RB_CHECK(c.rows[0].ratio_lo > 1.09 && c.rows[0].ratio_hi < 1.11);
        RB_CHECK(c.n_env == 1 && !strcmp(c.env[0].key, "driver") &&
                 !strcmp(c.env[0].old_value, "580.1") && !strcmp(c.env[0].new_value, "590.2"));
        rb_runcmp_free(&c);
    }
    json_free(a);
    json_free(b);
}

static void test_not_compared_and_order(void)
{
    const char *t1 =
        "{\"pairs\": [{\"name\": \"p\", \"size\": 8, \"variants\": ["
        "{\"name\": \"a\", \"valid\": true, \"timed\": true, \"time_ms\": {\"median\": 1,"
        " \"median_ci_lo\": 0.999, \"median_ci_hi\": 1.001, \"noise\": 0.01}},"
        "{\"name\": \"b\", \"valid\": true, \"timed\": true, \"time_ms\": {\"median\": 1,"
        " \"median_ci_lo\": 0.999, \"median_ci_hi\": 1.001, \"noise\": 0.01}},"
        "{\"name\": \"gone\", \"valid\": true, \"timed\": true, \"time_ms\": {\"median\": 1}}]},"
        " {\"name\": \"q\", \"size\": 8, \"variants\": [{\"name\": \"a\", \"valid\": true,"
        " \"timed\": true, \"time_ms\": {\"median\": 1}}]}]}";
    const char *t2 =
        "{\"pairs\": [{\"name\": \"p\", \"size\": 8, \"variants\": ["
        "{\"name\": \"a\", \"valid\": true, \"timed\": true, \"time_ms\": {\"median\": 1.5,"
        " \"median_ci_lo\": 1.499, \"median_ci_hi\": 1.501, \"noise\": 0.01}},"
        "{\"name\": \"b\", \"valid\": false, \"timed\": true, \"time_ms\": {\"median\": 1}},"
        "{\"name\": \"c\", \"valid\": true, \"timed\": true, \"time_ms\": {\"median\": 1}}]},"
        " {\"name\": \"q\", \"size\": 16, \"variants\": [{\"name\": \"a\", \"valid\": true,"
        " \"timed\": true, \"time_ms\": {\"median\": 1}}]}]}";
    char err[200];
    json_value *a = json_parse(t1, strlen(t1), err, sizeof err);
    json_value *b = json_parse(t2, strlen(t2), err, sizeof err);
    rb_runcmp c;
    RB_CHECK(a && b && rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    if (a && b) {
        RB_CHECK(c.n_rows == 5);
        RB_CHECK(!strcmp(c.rows[0].variant, "a") && c.rows[0].change == RB_CHANGE_SLOWER);
        RB_CHECK(c.counts[RB_CHANGE_NOT_COMPARED] == 4);
        int invalid = 0, gone = 0, added = 0, size = 0;
        for (int i = 1; i < c.n_rows; i++) {
            RB_CHECK(c.rows[i].change == RB_CHANGE_NOT_COMPARED);
            invalid += strstr(c.rows[i].evidence, "invalid in NEW") != NULL;
            gone += strstr(c.rows[i].evidence, "absent in NEW") != NULL;
            added += strstr(c.rows[i].evidence, "absent in OLD") != NULL;
            size += strstr(c.rows[i].evidence, "size 8 in OLD, 16 in NEW") != NULL;
        }
        RB_CHECK(invalid == 1 && gone == 1 && added == 1 && size == 1);
        rb_runcmp_free(&c);
    }
    json_free(a);
    json_free(b);
    /* not a results document */
    json_value *x = json_new_object();
    RB_CHECK(rb_runcmp_build(x, x, &c, err, sizeof err) == -1 && strstr(err, "OLD"));
    json_free(x);
}

static void test_outputs(void)
{
    synth o = base, n = base;
    n.median = 1.2;
    n.driver = "<b>590</b>";
    rb_runcmp c;
    RB_CHECK(compare(&o, &n, &c) != NULL);
    json_value *j = rb_runcmp_json(&c, "old.json", "new.json", 0);
    RB_CHECK(j && json_get(j, "variants") && json_get(j, "variants")->count == 1);
    RB_CHECK(j && json_get(j, "failing") && json_get(j, "failing")->number == 1);
    const json_value *v = j ? json_get(j, "variants")->items[0] : NULL;
    RB_CHECK(v && !strcmp(json_get(v, "verdict")->string, "slower") &&
             !strcmp(json_get(v, "attribution")->string, "unexplained"));
    json_free(j);
    char *html = rb_runcmp_html(&c, "old.json", "new.json");
    RB_CHECK(html && strstr(html, "<table class=\"rb\">") &&
             strstr(html, "addEventListener('click'"));
    RB_CHECK(html && strstr(html, "&lt;b&gt;590") && !strstr(html, "<b>590"));
    RB_CHECK(html && strstr(html, "<td class=\"verdict v-slower\" data-v=\"slower\">slower</td>"));
    RB_CHECK(html && strstr(html, "<span class=\"badge v-slower\">1 slower</span>"));
    free(html);
    rb_runcmp_free(&c);
}

/* The two committed runs of one build (8429b07): no code change, no per-run platform reference
 * or clocks in those files. What they show is printed; the test asserts what must hold whatever
 * the noise did. */
static void test_committed_same_build(void)
{
    const char *dir = "results/nvidia-h100-80gb-hbm3/";
    char pa[200], pb[200], err[300];
    snprintf(pa, sizeof pa, "%s20261125T124752Z-8429b07.json", dir);
    snprintf(pb, sizeof pb, "%s20261125T124911Z-8429b07.json", dir);
    json_value *a = json_parse_file(pa, err, sizeof err), *b = json_parse_file(pb, err, sizeof err);
    rb_runcmp c;
    RB_CHECK(a && b && rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    if (a && b) {
        int compared = c.n_rows - c.counts[RB_CHANGE_NOT_COMPARED];
        printf("    8429b07 twice: %d same, %d faster, %d slower, %d unclear, %d blind, %d not "
               "compared; environment: %d differ\n",
               c.counts[RB_CHANGE_SAME], c.counts[RB_CHANGE_FASTER], c.counts[RB_CHANGE_SLOWER],
               c.counts[RB_CHANGE_UNCLEAR], c.counts[RB_CHANGE_BLIND],
               c.counts[RB_CHANGE_NOT_COMPARED], c.n_env);
        RB_CHECK(compared >= 80);
        /* at least 80% same, or blind: no row whose floor hides 10% may say same */
        RB_CHECK((c.counts[RB_CHANGE_SAME] + c.counts[RB_CHANGE_BLIND]) * 10 >= compared * 8);
        RB_CHECK(c.n_env == 0); /* same machine, driver, build */
        for (int i = 0; i < c.n_rows; i++) {
            const rb_runcmp_row *r = &c.rows[i];
            /* same build: nothing may be blamed on code; same roofs: nor on the platform */
            RB_CHECK(r->cause != RB_CAUSE_CODE && r->cause != RB_CAUSE_PLATFORM);
            if (r->change == RB_CHANGE_FASTER || r->change == RB_CHANGE_SLOWER)
                RB_CHECK(r->cause != RB_CAUSE_NONE && r->evidence[0]);
            if (r->change == RB_CHANGE_SAME || r->change == RB_CHANGE_UNCLEAR)
                RB_CHECK(r->floor <= RB_RUNCMP_BLIND_FLOOR);
            if (r->change == RB_CHANGE_BLIND)
                RB_CHECK(r->floor > RB_RUNCMP_BLIND_FLOOR && strstr(r->evidence, "blind: "));
            if (i > 0 && isfinite(r->ratio))
                RB_CHECK(r->ratio <= c.rows[i - 1].ratio);
            /* the memory-bound copies are as steady as anything the GPU does */
            if (!strncmp(r->pair, "copy_", 5))
                RB_CHECK(r->change == RB_CHANGE_SAME);
        }
        rb_runcmp_free(&c);
        /* a run against itself: every timed variant same, nothing failing */
        RB_CHECK(rb_runcmp_build(a, a, &c, err, sizeof err) == 0);
        RB_CHECK(c.counts[RB_CHANGE_FASTER] + c.counts[RB_CHANGE_SLOWER] == 0);
        RB_CHECK(rb_runcmp_failing(&c, 1) == 0);
        rb_runcmp_free(&c);
    }
    json_free(a);
    json_free(b);
}

/* ---- the binary ---- */

static void put(const char *dir, const char *name, const json_value *doc)
{
    char path[400], err[300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (json_write_file(path, doc, err, sizeof err) != 0)
        printf("    %s\n", err);
}

static int file_in(const char *dir, const char *name)
{
    char path[400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* old.json, slow.json (an unexplained slowdown), plat.json (a platform slowdown). */
static const char *fixture_dir(void)
{
    const char *dir = rbtest_fresh_dir();
    synth o = base, s = base, p = base;
    o.top = PLATFORM(3000, 0.01);
    s.top = PLATFORM(3000, 0.01);
    s.median = 1.3;
    p.top = PLATFORM(2700, 0.01);
    p.median = 3000.0 / 2700.0;
    json_value *a = make_doc(&o), *b = make_doc(&s), *c = make_doc(&p);
    put(dir, "old.json", a);
    put(dir, "slow.json", b);
    put(dir, "plat.json", c);
    json_free(a);
    json_free(b);
    json_free(c);
    return dir;
}

static void test_binary_exit_codes(void)
{
    const char *dir = fixture_dir();
    RB_CHECK(rbtest_run("compare old.json old.json") == 0);
    RB_CHECK(strstr(rbtest_output(), "1 same") != NULL);
    RB_CHECK(rbtest_run("compare old.json slow.json") == 1);
    RB_CHECK(strstr(rbtest_output(), "unexplained") && strstr(rbtest_output(), "exit 1"));
    RB_CHECK(rbtest_run("compare old.json plat.json") == 0);
    RB_CHECK(strstr(rbtest_output(), "platform") != NULL);
    RB_CHECK(rbtest_run("compare old.json plat.json --fail-on-platform") == 1);
    RB_CHECK(rbtest_run("compare slow.json old.json") == 0); /* faster */
    RB_CHECK(rbtest_run("compare old.json slow.json --json c.json --html c.html") == 1);
    RB_CHECK(file_in(dir, "c.json") && file_in(dir, "c.html"));
    rbtest_remove_dir();
}

static void expect_refusal(const char *args, const char *needle)
{
    const char *dir = fixture_dir();
    int rc = rbtest_run(args);
    const char *out = rbtest_output();
    if (rc != 2 || lines(out) != 1 || !strstr(out, needle))
        printf("    roofbench %s -> %d: %s", args, rc, out);
    RB_CHECK(rc == 2 && lines(out) == 1 && strstr(out, needle));
    RB_CHECK(!file_in(dir, "c.json") && !file_in(dir, "c.html") && !file_in(dir, "results"));
    rbtest_remove_dir();
}

static void test_binary_refusals(void)
{
    expect_refusal("compare old.json", "needs two results files");
    expect_refusal("compare old.json slow.json plat.json", "a third");
    expect_refusal("compare old.json missing.json --json c.json", "missing.json");
    expect_refusal("compare old.json slow.json --json old.json", "replace an input");
    expect_refusal("compare old.json slow.json --json c.json --html c.json", "twice");
    expect_refusal("compare old.json slow.json --samples 3", "does not go with compare");
    expect_refusal("compare old.json slow.json --baseline old.json", "does not go with compare");
    expect_refusal("check --baseline old.json", "does not go with check");
    expect_refusal("plot old.json --baseline old.json", "does not go with plot");
    /* a baseline that is not there, or not a results file, is refused before any GPU work:
     * without a GPU run would otherwise exit 3 */
    expect_refusal("run --baseline missing.json --json out.json", "missing.json");
    /* a file that is JSON but no results file */
    const char *dir = rbtest_fresh_dir();
    json_value *e = json_new_object();
    put(dir, "e.json", e);
    put(dir, "old.json", e);
    json_free(e);
    RB_CHECK(rbtest_run("compare e.json e.json --json c.json") == 2);
    RB_CHECK(strstr(rbtest_output(), "not a roofbench results file") && !file_in(dir, "c.json"));
    RB_CHECK(rbtest_run("run --baseline e.json --json out.json") == 2);
    RB_CHECK(strstr(rbtest_output(), "not a roofbench results file"));
    char path[400];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("{\"pairs\": [", f);
        fclose(f);
    }
    RB_CHECK(rbtest_run("run --baseline bad.json --json out.json") == 2);
    RB_CHECK(strstr(rbtest_output(), "bad.json: line 1") && !file_in(dir, "out.json"));
    rbtest_remove_dir();
}

/* Two synthetic runs of two pairs, "copy" (a 20% slowdown) and "scale" (the same), the first
 * pair renamed to name: a and b must be freed. */
static void two_pairs(const char *name, json_value **a, json_value **b)
{
    synth n = base;
    n.median = 1.2;
    *a = make_doc(&base);
    *b = make_doc(&n);
    for (int k = 0; k < 2; k++) {
        json_value *d = k ? *b : *a, *pairs = json_get(d, "pairs");
        if (!pairs)
            continue;
        json_value *second = json_clone(pairs->items[0]);
        if (!second || json_set_string(second, "name", "scale") || json_array_push(pairs, second) ||
            json_set_string(pairs->items[0], "name", name))
            printf("    out of memory\n");
        /* "scale" runs the same in both */
        json_value *t = json_get(json_get(second, "variants")->items[0], "time_ms");
        json_set_number(t, "median", 1.0);
        json_set_number(t, "median_ci_lo", 0.998);
        json_set_number(t, "median_ci_hi", 1.002);
    }
}

static void test_filter(void)
{
    json_value *a, *b;
    two_pairs("copy@4M", &a, &b);
    rb_runcmp c;
    char err[200];
    RB_CHECK(a && b && rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    RB_CHECK(c.n_rows == 2 && c.counts[RB_CHANGE_SLOWER] == 1 && c.counts[RB_CHANGE_SAME] == 1);
    /* the pair's own name selects every size of it */
    rb_filter f;
    RB_CHECK(rb_filter_compile(&f, "--filter", "^copy$", err, sizeof err) == 0);
    rb_runcmp_filter(&c, &f);
    rb_filter_free(&f);
    RB_CHECK(c.n_rows == 1 && !strcmp(c.rows[0].pair, "copy@4M") && c.n_filtered_out == 1);
    RB_CHECK(c.counts[RB_CHANGE_SLOWER] == 1 && c.counts[RB_CHANGE_SAME] == 0);
    RB_CHECK(rb_runcmp_failing(&c, 0) == 1);
    rb_runcmp_free(&c);
    /* pair/variant, and a filter that leaves the slowdown out passes */
    RB_CHECK(rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    RB_CHECK(rb_filter_compile(&f, "--filter", "^scale/optimized$", err, sizeof err) == 0);
    rb_runcmp_filter(&c, &f);
    rb_filter_free(&f);
    RB_CHECK(c.n_rows == 1 && !strcmp(c.rows[0].pair, "scale") && rb_runcmp_failing(&c, 1) == 0);
    RB_CHECK(rb_filter_compile(&f, "--filter", "(", err, sizeof err) == -1 &&
             strstr(err, "--filter"));
    rb_runcmp_free(&c);
    json_free(a);
    json_free(b);
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void test_markdown_and_csv(void)
{
    json_value *a, *b;
    two_pairs("co|py,<b>", &a, &b); /* a name that would break a table cell and a CSV row */
    rb_runcmp c;
    char err[200];
    RB_CHECK(a && b && rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    c.floors_line = "floors: none (--expect none): timed-loop spreads only, at least 2%";
    char *md = rb_runcmp_markdown(&c, "old.json", "new.json");
    RB_CHECK(md && !strncmp(md, "floors: none (--expect none)", 28));
    RB_CHECK(md && strstr(md, "| pair/variant | old ms | new ms | change |"));
    RB_CHECK(md && strstr(md, "| co\\|py,&lt;b&gt;/optimized | 1.0000 | 1.2000 | +20.0% |"));
    RB_CHECK(md && !strstr(md, "co|py") && !strstr(md, "<b>"));
    RB_CHECK(md && strstr(md, "**slower** | unexplained |"));
    /* the unchanged row is folded away, under the changed one */
    const char *details = md ? strstr(md, "<details><summary>1 same, 0 not compared") : NULL;
    RB_CHECK(details && strstr(details, "| scale/optimized |") && !strstr(details, "co\\|py"));
    RB_CHECK(md && strstr(md, "**1 slower** · 0 faster · 0 unclear · 0 blind · 1 same"));
    free(md);
    char *csv = rb_runcmp_csv(&c);
    RB_CHECK(csv && !strncmp(csv,
                             "pair,variant,roof,old_ms,new_ms,change_pct,cycles_change_pct,"
                             "energy_change_pct,ratio_lo,ratio_hi,floor_pct,floor_from,verdict,"
                             "cause,evidence\r\n",
                             142));
    RB_CHECK(csv && count(csv, "\r\n") == 3); /* the header and two rows */
    RB_CHECK(csv && strstr(csv, "\"co|py,<b>\",optimized,dram_gbps,1,1.2,20,"));
    RB_CHECK(csv && strstr(csv, ",2,timed loops,slower,unexplained,\"no roof moved to match "
                                "(dram_gbps 3000 -> 3000 (roofs.measured"));
    free(csv);
    rb_runcmp_free(&c);
    json_free(a);
    json_free(b);
}

static void test_code_attribution_note(void)
{
    synth o = base, n = base;
    char note[400];
    rb_runcmp c;
    RB_CHECK(compare(&o, &n, &c) != NULL); /* neither run has a sass_hash */
    rb_runcmp_code_note(&c, note, sizeof note);
    RB_CHECK(!strcmp(note, "code attribution unavailable: OLD and NEW have no SASS fingerprint "
                           "(built without cuobjdump)"));
    rb_runcmp_free(&c);
    n.kernel = ", \"sass_hash\": \"00112233aabbccdd\"";
    RB_CHECK(compare(&o, &n, &c) != NULL);
    rb_runcmp_code_note(&c, note, sizeof note);
    RB_CHECK(c.new_fingerprints == 1 && strstr(note, "unavailable: OLD has no SASS fingerprint"));
    rb_runcmp_free(&c);
    o.kernel = n.kernel;
    RB_CHECK(compare(&o, &n, &c) != NULL);
    rb_runcmp_code_note(&c, note, sizeof note);
    RB_CHECK(note[0] == '\0');
    rb_runcmp_free(&c);
    /* the binary says it, in its report and in its JSON */
    const char *dir = fixture_dir();
    RB_CHECK(rbtest_run("compare old.json slow.json --json c.json") == 1);
    RB_CHECK(strstr(rbtest_output(), "\ncode attribution unavailable: OLD and NEW have no SASS "
                                     "fingerprint (built without cuobjdump)\n"));
    char path[400], err[300];
    snprintf(path, sizeof path, "%s/c.json", dir);
    json_value *j = json_parse_file(path, err, sizeof err);
    RB_CHECK(j && strstr(json_string_at(j, "code_attribution", ""), "unavailable"));
    json_free(j);
    rbtest_remove_dir();
}

static void test_binary_formats(void)
{
    fixture_dir();
    RB_CHECK(rbtest_run("compare old.json slow.json --md --expect none") == 1);
    const char *out = rbtest_output();
    RB_CHECK(!strncmp(out, "floors: none (--expect none)", 28));
    RB_CHECK(strstr(out, "| copy/optimized | 1.0000 | 1.3000 | +30.0% |") &&
             strstr(out, "**slower**") && !strstr(out, "exit 1:"));
    RB_CHECK(rbtest_run("compare old.json slow.json --csv") == 1);
    /* the floors line goes to stderr, then the CSV alone */
    out = rbtest_output();
    RB_CHECK(strstr(out, "floors: none (") && strstr(out, "\npair,variant,roof,old_ms") &&
             strstr(out, "\r\ncopy,optimized,dram_gbps,1,1.3,30,"));
    /* a filter that keeps nothing compares nothing: a gate must not pass on it */
    RB_CHECK(rbtest_run("compare old.json slow.json --filter '^nothing$'") == 2);
    RB_CHECK(strstr(rbtest_output(), "--filter '^nothing$' matches no variant (1 left out)"));
    RB_CHECK(rbtest_run("compare old.json slow.json --filter '^copy$'") == 1);
    RB_CHECK(rbtest_run("compare old.json slow.json --md --csv") == 2);
    RB_CHECK(strstr(rbtest_output(), "--md or --csv, not both"));
    RB_CHECK(rbtest_run("compare old.json slow.json --filter '('") == 2);
    RB_CHECK(rbtest_run("run --md") == 2 && strstr(rbtest_output(), "goes with compare"));
    /* run's --csv takes a file; compare's is a switch */
    RB_CHECK(rbtest_run("list --csv x.csv") == 2 &&
             strstr(rbtest_output(), "it goes with run, compare"));
    rbtest_remove_dir();
}

static void test_run_accepts_baseline(void)
{
    if (rbtest_gpu_count() > 0) {
        rbtest_skip("a GPU is present: run --baseline would run the suite (GPU tests cover it)");
        return;
    }
    fixture_dir();
    /* accepted: the run goes on to look for a GPU and finds none */
    RB_CHECK(rbtest_run("run --baseline old.json --fail-on-platform --json out.json") == 3);
    rbtest_remove_dir();
}

static const rbtest_case runcmp_cases[] = {
    {"verdict_rule", test_verdict_rule},
    {"identical_runs_same", test_identical_runs_same},
    {"unexplained_slowdown_fails", test_unexplained_slowdown_fails},
    {"unclear_and_noisy", test_unclear_and_noisy},
    {"blind_rows", test_blind_rows},
    {"platform_attribution", test_platform_attribution},
    {"platform_envelope", test_platform_envelope},
    {"floor_from_expectations", test_floor_from_expectations},
    {"code_attribution", test_code_attribution},
    {"code_resources_attribution", test_code_resources_attribution},
    {"throttled_attribution", test_throttled_attribution},
    {"platform_before_code", test_platform_before_code},
    {"samples_array_and_env", test_samples_array_and_env},
    {"not_compared_and_order", test_not_compared_and_order},
    {"outputs", test_outputs},
    {"committed_same_build", test_committed_same_build},
    {"binary_exit_codes", test_binary_exit_codes},
    {"binary_refusals", test_binary_refusals},
    {"run_accepts_baseline", test_run_accepts_baseline},
    {"filter", test_filter},
    {"markdown_and_csv", test_markdown_and_csv},
    {"code_attribution_note", test_code_attribution_note},
    {"binary_formats", test_binary_formats},
};

RB_SUITE(runcmp_suite, "runcmp", runcmp_cases);
