/* SPDX-License-Identifier: MIT */
/*
 * The platform reference and the clocks, without a GPU: NVML's clock-event bits
 * mapped to the results file's names, the throttled rule, the sampler's accumulation fed fake
 * samples, the results JSON with and without NVML (a variant with no sample has neither
 * "clocks" nor "throttled"), the table's mark and the verdict summary that counts throttled
 * variants apart, and the "platform" object of a run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ceiling_record.h"
#include "model/clocks.h"
#include "model/json.h"
#include "model/report.h"
#include "model/result.h"
#include "rbtest.h"

extern const rbtest_suite clocks_suite;

/* NVML's nvmlClocksEventReason* values, typed from nvml.h. */
enum {
    NVML_IDLE = 0x1,
    NVML_APP_CLOCKS = 0x2,
    NVML_SW_POWER_CAP = 0x4,
    NVML_HW_SLOWDOWN = 0x8,
    NVML_SYNC_BOOST = 0x10,
    NVML_SW_THERMAL = 0x20,
    NVML_HW_THERMAL = 0x40,
    NVML_HW_POWER_BRAKE = 0x80,
    NVML_DISPLAY_CLOCKS = 0x100
};

static unsigned bit(rb_clock_reason r)
{
    return 1u << r;
}

static void test_reason_bits_map_to_names(void)
{
    static const struct {
        unsigned long long nvml;
        const char *name;
    } cases[] = {
        {NVML_IDLE, "idle"},
        {NVML_APP_CLOCKS, "app_clocks"},
        {NVML_SW_POWER_CAP, "power_cap"},
        {NVML_HW_SLOWDOWN, "hw_slowdown"},
        {NVML_SYNC_BOOST, "sync_boost"},
        {NVML_SW_THERMAL, "sw_thermal"},
        {NVML_HW_THERMAL, "hw_thermal"},
        {NVML_HW_POWER_BRAKE, "hw_power_brake"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned mask = rb_clock_reasons_from_nvml(cases[i].nvml);
        char text[200];
        rb_clock_reasons_text(mask, text, sizeof text);
        if (strcmp(text, cases[i].name) != 0)
            printf("    0x%llx -> %s, expected %s\n", cases[i].nvml, text, cases[i].name);
        RB_CHECK(strcmp(text, cases[i].name) == 0);
        rb_clock_reason r;
        RB_CHECK(rb_clock_reason_from_name(cases[i].name, &r) == 0 && mask == bit(r));
    }
    /* display clocks and unknown high bits are no slowdown: left out */
    RB_CHECK(rb_clock_reasons_from_nvml(NVML_DISPLAY_CLOCKS) == 0);
    RB_CHECK(rb_clock_reasons_from_nvml(1ull << 40) == 0);
    RB_CHECK(rb_clock_reasons_from_nvml(0) == 0);
    char text[300];
    rb_clock_reasons_text(rb_clock_reasons_from_nvml(0x1FF), text, sizeof text);
    RB_CHECK(strcmp(text, "power_cap, hw_slowdown, sync_boost, sw_thermal, hw_thermal, "
                          "hw_power_brake, app_clocks, idle") == 0);
    rb_clock_reasons_text(0, text, sizeof text);
    RB_CHECK(strcmp(text, "none") == 0);
    /* every name of the contract, and nothing else */
    const char *names[] = {"power_cap",      "thermal",    "hw_slowdown",
                           "sync_boost",     "sw_thermal", "hw_thermal",
                           "hw_power_brake", "app_clocks", "idle"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        rb_clock_reason r;
        RB_CHECK(rb_clock_reason_from_name(names[i], &r) == 0);
        RB_CHECK(strcmp(rb_clock_reason_name(r), names[i]) == 0);
    }
    rb_clock_reason r;
    RB_CHECK(rb_clock_reason_from_name("sw_power_cap", &r) == -1);
    RB_CHECK(strcmp(rb_clock_reason_name(RB_REASON_COUNT), "?") == 0);
}

static void test_throttled_rule(void)
{
    RB_CHECK(!rb_clock_reasons_throttled(0));
    /* a tensor-core GEMM at its power cap is the expected state, not a slowdown */
    RB_CHECK(!rb_clock_reasons_throttled(bit(RB_REASON_POWER_CAP)));
    RB_CHECK(!rb_clock_reasons_throttled(bit(RB_REASON_SYNC_BOOST) | bit(RB_REASON_APP_CLOCKS) |
                                         bit(RB_REASON_IDLE) | bit(RB_REASON_POWER_CAP)));
    const rb_clock_reason slow[] = {RB_REASON_THERMAL, RB_REASON_SW_THERMAL, RB_REASON_HW_THERMAL,
                                    RB_REASON_HW_SLOWDOWN, RB_REASON_HW_POWER_BRAKE};
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++) {
        RB_CHECK(rb_clock_reasons_throttled(bit(slow[i])));
        RB_CHECK(rb_clock_reasons_throttled(bit(slow[i]) | bit(RB_REASON_POWER_CAP)));
    }
    RB_CHECK(rb_clock_reasons_throttled(rb_clock_reasons_from_nvml(NVML_HW_SLOWDOWN)));
    RB_CHECK(!rb_clock_reasons_throttled(rb_clock_reasons_from_nvml(NVML_SW_POWER_CAP)));
}

/* Fake sampler input: what four samples of a loop fold into. */
static void fake_loop(rb_clocks *c)
{
    rb_clocks_init(c);
    rb_clocks_add(c, 1980, 1, NVML_SW_POWER_CAP);
    rb_clocks_add(c, 1500, 1, NVML_SW_POWER_CAP | NVML_HW_THERMAL);
    rb_clocks_add(c, NAN, 0, 0xFFFF); /* both reads failed: counted, nothing else */
    rb_clocks_add(c, 1755, 1, 0);
}

static void test_sampler_accumulates(void)
{
    rb_clocks c;
    fake_loop(&c);
    RB_CHECK(c.samples == 4);
    RB_CHECK_NEAR(rb_clocks_mean_mhz(&c), (1980.0 + 1500 + 1755) / 3, 1e-9);
    RB_CHECK(c.sm_mhz_min == 1500);
    RB_CHECK(c.reasons == (bit(RB_REASON_POWER_CAP) | bit(RB_REASON_HW_THERMAL)));
    rb_clocks none;
    rb_clocks_init(&none);
    RB_CHECK(none.samples == 0 && isnan(rb_clocks_mean_mhz(&none)) && isnan(none.sm_mhz_min));
    /* a sample whose clock read failed leaves the mean and minimum alone */
    rb_clocks_add(&none, NAN, 1, NVML_SW_POWER_CAP);
    RB_CHECK(none.samples == 1 && isnan(rb_clocks_mean_mhz(&none)));
}

static rb_variant_result timed_variant(const char *name, rb_role role, double ms)
{
    rb_variant_result v;
    rb_variant_result_init(&v, name, role, RB_UNIT_NONE, 1e-6);
    v.valid = v.timed = 1;
    v.rel_err_before = v.rel_err_after = 0;
    v.time_ms.n = 20;
    v.time_ms.median = v.time_ms.min = v.time_ms.max = v.time_ms.p10 = v.time_ms.p90 = ms;
    v.time_ms.noise = 0.01;
    v.launches_per_sample = 1;
    return v;
}

static void test_variant_json_with_and_without_nvml(void)
{
    rb_variant_result v = timed_variant("optimized", RB_ROLE_OPTIMIZED, 1.0);
    /* without NVML: no sample, neither field */
    json_value *o = rb_variant_to_json(&v);
    RB_CHECK(o && !json_get(o, "clocks") && !json_get(o, "throttled"));
    json_free(o);
    /* with samples: the contract's shape */
    fake_loop(&v.clocks);
    o = rb_variant_to_json(&v);
    const json_value *k = json_get(o, "clocks"), *t = json_get(o, "throttled");
    RB_CHECK(k && k->type == JSON_OBJECT && k->count == 4);
    RB_CHECK_NEAR(json_get(k, "sm_mhz_mean")->number, 1745.0, 1e-9);
    RB_CHECK(json_get(k, "sm_mhz_min")->number == 1500);
    RB_CHECK(json_get(k, "samples")->number == 4);
    const json_value *reasons = json_get(k, "reasons");
    RB_CHECK(reasons && reasons->type == JSON_ARRAY && reasons->count == 2);
    RB_CHECK(reasons && reasons->count == 2 && !strcmp(reasons->items[0]->string, "power_cap") &&
             !strcmp(reasons->items[1]->string, "hw_thermal"));
    RB_CHECK(t && t->type == JSON_BOOL && t->boolean);
    /* through the pipe and back (child -> parent): the same clocks */
    char *text = json_write(o, 0), err[200];
    json_value *back = text ? json_parse(text, strlen(text), err, sizeof err) : NULL;
    rb_variant_result r;
    RB_CHECK(back && rb_variant_from_json(back, &r, err, sizeof err) == 0);
    RB_CHECK(r.clocks.samples == 4 && r.clocks.sm_mhz_min == 1500);
    RB_CHECK_NEAR(rb_clocks_mean_mhz(&r.clocks), 1745.0, 1e-9);
    RB_CHECK(r.clocks.reasons == v.clocks.reasons);
    free(text);
    json_free(back);
    /* power cap alone: clocks present, throttled false */
    rb_clocks_init(&v.clocks);
    rb_clocks_add(&v.clocks, 1600, 1, NVML_SW_POWER_CAP);
    json_free(o);
    o = rb_variant_to_json(&v);
    t = json_get(o, "throttled");
    RB_CHECK(json_get(o, "clocks") && t && t->type == JSON_BOOL && !t->boolean);
    json_free(o);
}

static void test_clocks_from_json_refusals(void)
{
    char err[200];
    rb_clocks c;
    const char *bad[] = {
        "{\"clocks\": 5}",
        "{\"clocks\": {\"reasons\": []}}",
        "{\"clocks\": {\"samples\": 0, \"reasons\": []}}",
        "{\"clocks\": {\"samples\": 3, \"reasons\": \"power_cap\"}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_value *v = json_parse(bad[i], strlen(bad[i]), err, sizeof err);
        err[0] = '\0';
        RB_CHECK(v && rb_clocks_from_json(v, &c, err, sizeof err) == -1 && err[0]);
        json_free(v);
    }
    /* a newer file's reason is ignored; a null mean (no clock read) stays unknown */
    const char *ok = "{\"clocks\": {\"sm_mhz_mean\": null, \"sm_mhz_min\": null, \"samples\": 3, "
                     "\"reasons\": [\"future_reason\", \"sw_thermal\"]}}";
    json_value *v = json_parse(ok, strlen(ok), err, sizeof err);
    RB_CHECK(v && rb_clocks_from_json(v, &c, err, sizeof err) == 0);
    RB_CHECK(c.samples == 3 && c.reasons == bit(RB_REASON_SW_THERMAL));
    RB_CHECK(isnan(rb_clocks_mean_mhz(&c)) && isnan(c.sm_mhz_min));
    json_free(v);
    v = json_parse("{}", 2, err, sizeof err);
    RB_CHECK(v && rb_clocks_from_json(v, &c, err, sizeof err) == 0 && c.samples == 0);
    json_free(v);
}

/* A pair of four variants: plain, power-capped, throttled (regressed) and one with no NVML. */
static void throttle_pair(rb_pair_result *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "copy");
    p->size = p->full_size = 1 << 20;
    p->bytes = 8.0 * (1 << 20);
    p->status = RB_PAIR_OK;
    p->v[0] = timed_variant("baseline", RB_ROLE_BASELINE, 2.0);
    rb_clocks_add(&p->v[0].clocks, 1980, 1, 0);
    p->v[0].verdict = RB_VERDICT_PASS;
    p->v[1] = timed_variant("library", RB_ROLE_LIBRARY, 1.0);
    rb_clocks_add(&p->v[1].clocks, 1700, 1, NVML_SW_POWER_CAP);
    p->v[1].verdict = RB_VERDICT_PASS;
    p->v[2] = timed_variant("optimized", RB_ROLE_OPTIMIZED, 1.5);
    rb_clocks_add(&p->v[2].clocks, 1400, 1, NVML_HW_SLOWDOWN | NVML_SW_POWER_CAP);
    p->v[2].verdict = RB_VERDICT_REGRESSED;
    p->v[3] = timed_variant("step", RB_ROLE_STEP, 1.8);
    p->v[3].verdict = RB_VERDICT_PASS;
    p->n_variants = 4;
}

static void test_summary_counts_throttled_apart(void)
{
    rb_pair_result p;
    throttle_pair(&p);
    char line[600];
    rb_report_summary_text(&p, 1, line, sizeof line);
    if (!strstr(line, "verdicts: 3 pass; 1 variant timed under thermal or hardware slowdown "
                      "(marked !, counted apart: 1 regressed); 1 power-capped"))
        printf("    %s\n", line);
    RB_CHECK(strstr(line, "verdicts: 3 pass; 1 variant timed under thermal or hardware slowdown "
                          "(marked !, counted apart: 1 regressed); 1 power-capped") != NULL);
    RB_CHECK(strstr(line, "expected for tensor-core GEMMs") != NULL);
    /* nothing throttled: no such clause */
    rb_clocks_init(&p.v[2].clocks);
    rb_report_summary_text(&p, 1, line, sizeof line);
    RB_CHECK(strstr(line, "verdicts: 3 pass, 1 regressed; 1 power-capped") != NULL);
    RB_CHECK(strstr(line, "slowdown") == NULL);
    RB_CHECK(rb_report_throttled(&p.v[1]) == 0 && rb_report_throttled(&p.v[3]) == 0);
}

static void test_table_marks_throttled(void)
{
    rb_pair_result p;
    throttle_pair(&p);
    rb_roofs roofs;
    rb_roofs_unknown(&roofs);
    rb_report_derive(&p, 1, &roofs, &roofs);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    RB_CHECK(f != NULL);
    if (!f)
        return;
    rb_report_table(f, &p, 1, 0);
    fclose(f);
    RB_CHECK(strstr(buf, " 1.50! ") != NULL); /* three digits at 1% noise */
    RB_CHECK(strstr(buf, "1.00!") == NULL && strstr(buf, "2.00!") == NULL);
    /* the note wrapped at 100 columns */
    RB_CHECK(strstr(buf, "note: copy/optimized: ! timed under power_cap, hw_slowdown (SM clock "
                         "mean 1400, min 1400 MHz over 1\n      samples)") != NULL);
    RB_CHECK(strstr(buf, "copy/library: !") == NULL);
    free(buf);
    json_value *meta = json_new_object();
    char *md = rb_report_markdown(&p, 1, NULL);
    RB_CHECK(md && strstr(md, "| 1.50! |") && strstr(md, "- copy/optimized: ! timed under"));
    RB_CHECK(md && strstr(md, "counted apart: 1 regressed"));
    free(md);
    /* the results document: clocks and throttled per variant, absent where no sample */
    json_value *doc = rb_report_json(&p, 1, &roofs, &roofs, meta);
    const json_value *vs = json_get(json_get(doc, "pairs")->items[0], "variants");
    RB_CHECK(vs && vs->count == 4);
    RB_CHECK(json_get(vs->items[2], "throttled")->boolean == 1);
    RB_CHECK(json_get(vs->items[1], "throttled")->boolean == 0);
    RB_CHECK(!json_get(vs->items[3], "clocks") && !json_get(vs->items[3], "throttled"));
    json_free(doc);
}

static void test_platform_object(void)
{
    char err[200], line[400];
    const char *values_text = "{\"dram_gbps\": 3019.25, \"fp32_tflops\": 60.712, "
                              "\"launch_us\": 4.9123, \"smem_gbps\": 30000}";
    const char *methods_text = "{\"dram_gbps\": {\"method\": \"copy\", \"size\": \"1 GiB\", "
                               "\"samples\": 20, \"noise\": 0.01}}";
    json_value *values = json_parse(values_text, strlen(values_text), err, sizeof err);
    json_value *methods = json_parse(methods_text, strlen(methods_text), err, sizeof err);
    json_value *p = rb_platform_json(values, methods, NULL);
    RB_CHECK(p && p->count == 5);
    RB_CHECK(!strcmp(json_get(p, "source")->string, "ceilings --quick at run start"));
    RB_CHECK(json_get(p, "dram_gbps")->number == 3019.25);
    RB_CHECK(json_get(p, "fp32_tflops")->number == 60.712);
    RB_CHECK(json_get(p, "launch_us")->number == 4.9123);
    RB_CHECK(!json_get(p, "smem_gbps")); /* a roof no platform probe measures */
    RB_CHECK(!json_get(p, "l2_read_gbps") && !json_get(p, "pcie_h2d_gbps")); /* not taken */
    const json_value *m = json_get(p, "methods");
    RB_CHECK(m && m->count == 1 &&
             !strcmp(json_get(json_get(m, "dram_gbps"), "size")->string, "1 GiB"));
    rb_platform_text(p, line, sizeof line);
    RB_CHECK(!strcmp(line, "DRAM copy 3019.2 GB/s, FP32 60.71 TFLOP/s, launch 4.912 us"));
    json_free(p);
    /* the probes a run took are kept with their methods, and named before the launch latency
     * (the line's last roof, as before) */
    json_free(values);
    json_free(methods);
    const char *probed_text = "{\"dram_gbps\": 4257.8, \"fp32_tflops\": 60.65, \"launch_us\": "
                              "4.469, \"pcie_h2d_gbps\": 55.12, \"pcie_d2h_gbps\": 55.3, "
                              "\"pcie_duplex_gbps\": 101.5, \"l2_read_gbps\": 10012.4, "
                              "\"bf16_tflops\": 800}";
    const char *probed_methods = "{\"pcie_h2d_gbps\": {\"method\": \"pinned\", \"size\": "
                                 "\"256 MiB\", \"samples\": 30, \"noise\": 0.002}}";
    values = json_parse(probed_text, strlen(probed_text), err, sizeof err);
    methods = json_parse(probed_methods, strlen(probed_methods), err, sizeof err);
    p = rb_platform_json(values, methods, NULL);
    RB_CHECK(p && p->count == 9 && json_get(p, "pcie_duplex_gbps")->number == 101.5 &&
             json_get(p, "l2_read_gbps")->number == 10012.4 && !json_get(p, "bf16_tflops") &&
             !json_get(p, "dram_read_gbps"));
    RB_CHECK(json_get(json_get(p, "methods"), "pcie_h2d_gbps") != NULL);
    rb_platform_text(p, line, sizeof line);
    RB_CHECK(!strcmp(line, "DRAM copy 4257.8 GB/s, L2 read 10012.4 GB/s, FP32 60.65 TFLOP/s, "
                           "PCIe h2d 55.12 GB/s, PCIe d2h 55.30 GB/s, PCIe duplex 101.50 GB/s, "
                           "launch 4.469 us"));
    json_free(p);
    /* a roof the measurement did not report is null, and "-" on the line */
    json_free(values);
    const char *dram_only = "{\"dram_gbps\": 3000}";
    values = json_parse(dram_only, strlen(dram_only), err, sizeof err);
    p = rb_platform_json(values, NULL, NULL);
    char *text = p ? json_write(p, 0) : NULL;
    RB_CHECK(text && strstr(text, "\"launch_us\":null") && strstr(text, "\"fp32_tflops\":null"));
    free(text);
    RB_CHECK(json_get(p, "methods") && json_get(p, "methods")->count == 0);
    rb_platform_text(p, line, sizeof line);
    RB_CHECK(!strcmp(line, "DRAM copy 3000.0 GB/s, FP32 - TFLOP/s, launch - us"));
    json_free(p);
    /* --no-ceilings: exactly {"source": "none"}; a failed measurement says why */
    p = rb_platform_json(NULL, NULL, NULL);
    RB_CHECK(p && p->count == 1 && !strcmp(json_get(p, "source")->string, "none"));
    rb_platform_text(p, line, sizeof line);
    RB_CHECK(!strcmp(line, "not measured"));
    json_free(p);
    p = rb_platform_json(NULL, NULL, "timed out");
    RB_CHECK(p && p->count == 2 && !strcmp(json_get(p, "reason")->string, "timed out"));
    json_free(p);
    json_free(values);
    json_free(methods);
}

static const rbtest_case clocks_cases[] = {
    {"reason_bits_map_to_names", test_reason_bits_map_to_names},
    {"throttled_rule", test_throttled_rule},
    {"sampler_accumulates", test_sampler_accumulates},
    {"variant_json_with_and_without_nvml", test_variant_json_with_and_without_nvml},
    {"clocks_from_json_refusals", test_clocks_from_json_refusals},
    {"summary_counts_throttled_apart", test_summary_counts_throttled_apart},
    {"table_marks_throttled", test_table_marks_throttled},
    {"platform_object", test_platform_object},
};

RB_SUITE(clocks_suite, "clocks", clocks_cases);
