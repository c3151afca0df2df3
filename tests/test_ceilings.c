/* SPDX-License-Identifier: MIT */
/* Tests of what `roofbench ceilings` records (harness/model/ceiling_record.h), CPU only: the roof
 * keys, the refusal of a value above its peak, the method's JSON and the merge into a file's
 * ceilings. (The loader's acceptance of "ceilings.methods" is harness/model/expect.c's, tested
 * in test_expect.c: these tests do not load files.) */
#include "../harness/model/ceiling_record.h"
#include "../harness/model/json.h"
#include "rbtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const rbtest_suite ceilings_suite;

static json_value *parse(const char *text)
{
    char err[200];
    json_value *v = json_parse(text, strlen(text), err, sizeof err);
    RB_CHECK(v != NULL);
    return v;
}

/* 1 when v serializes (one line) to exactly text. */
static int writes_as(const json_value *v, const char *text)
{
    char *s = json_write(v, 0);
    int same = s && !strcmp(s, text);
    if (!same)
        printf("    got: %s\n", s ? s : "(null)");
    free(s);
    return same;
}

/* Every key of the roof contract, and nothing else, is a roof key. */
static void test_keys_are_the_contract(void)
{
    static const char *const contract[] = {
        "dram_gbps",     "dram_read_gbps", "dram_write_gbps",  "l2_read_gbps", "smem_gbps",
        "pcie_h2d_gbps", "pcie_d2h_gbps",  "pcie_duplex_gbps", "nvlink_gbps",  "nvlink_bidir_gbps", "fp32_tflops",
        "fp64_tflops",   "tf32_tflops",    "bf16_tflops",      "fp16_tflops",  "fp8_tflops",
        "launch_us",     "graph_node_us",  "dram_latency_us"};
    int n = 0;
    while (rb_ceiling_keys[n])
        n++;
    RB_CHECK(n == (int)(sizeof contract / sizeof contract[0]));
    for (size_t i = 0; i < sizeof contract / sizeof contract[0]; i++)
        RB_CHECK(rb_ceiling_key_known(contract[i]));
    RB_CHECK(!rb_ceiling_key_known("dram_memcpy_gbps")); /* today's detail, now in the method */
    RB_CHECK(!rb_ceiling_key_known("source") && !rb_ceiling_key_known("methods"));
    RB_CHECK(!rb_ceiling_key_known("fp4_tflops") && !rb_ceiling_key_known(""));
    RB_CHECK(!strcmp(rb_ceiling_unit("l2_read_gbps"), "GB/s"));
    RB_CHECK(!strcmp(rb_ceiling_unit("fp8_tflops"), "TFLOP/s"));
    RB_CHECK(!strcmp(rb_ceiling_unit("graph_node_us"), "us"));
    RB_CHECK(!strcmp(rb_ceiling_unit("source"), ""));
}

/* A value more than 2% above its peak is refused, naming the key, the value and the peak; 2%
 * exactly is recorded; keys without a peak and latencies are never refused. */
static void test_over_peak_refused(void)
{
    json_value *peaks = parse("{\"dram_gbps\": 3352, \"fp64_tflops\": 33.5, \"fp32_tflops\": "
                              "66.9, \"launch_us\": 1, \"source\": \"datasheet\"}");
    json_value *v = parse("{\"dram_gbps\": 3422.392, \"fp64_tflops\": 34.17, \"fp32_tflops\": "
                          "60.4, \"l2_read_gbps\": 99999, \"launch_us\": 4.2}");
    char err[1000];
    RB_CHECK(rb_ceilings_over_peak(v, peaks, err, sizeof err) == 1);
    RB_CHECK(strstr(err, "dram_gbps: measured 3422.39 GB/s is 2.1% above the datasheet peak "
                         "peaks.dram_gbps = 3352") != NULL);
    RB_CHECK(strstr(err, "fp64") == NULL); /* 34.17 = 33.5 x 1.02: at the margin, recorded */
    RB_CHECK(strchr(err, '\n') == NULL);
    json_set_number(v, "fp32_tflops", 70.0);
    RB_CHECK(rb_ceilings_over_peak(v, peaks, err, sizeof err) == 2);
    RB_CHECK(strstr(err, "\nfp32_tflops: measured 70 TFLOP/s is 4.6% above") != NULL);
    json_set_number(v, "dram_gbps", 3000);
    json_set_number(v, "fp32_tflops", 60.4);
    RB_CHECK(rb_ceilings_over_peak(v, peaks, err, sizeof err) == 0 && err[0] == '\0');
    RB_CHECK(rb_ceilings_over_peak(v, NULL, err, sizeof err) == 0); /* no peaks at all */
    json_free(v);
    json_free(peaks);
}

static rb_ceiling_method sample_method(void)
{
    rb_ceiling_method m;
    memset(&m, 0, sizeof m);
    snprintf(m.method, sizeof m.method, "copy kernel");
    snprintf(m.size, sizeof m.size, "1024 MiB");
    m.samples = 20;
    m.noise = 0.0125;
    m.sm_clock_mhz = 1980;
    m.power_w = NAN;
    return m;
}

/* The method's object has the contract's fields; a reading not taken is left out. */
/* The shared-memory ceiling has no datasheet peak: its bound is SMs x 128 B x clock. */
static void test_smem_bound(void)
{
    char err[300] = "";
    /* H100: 132 SMs at 1980 MHz allow 33454 GB/s. The first measurement's miscount is refused
     * with the numbers; the fixed one (33107) and one at the 2% margin pass. */
    RB_CHECK(rb_smem_over_bound(127456.7, 132, 1980.0, err, sizeof err) == 1);
    RB_CHECK(strstr(err, "smem_gbps: measured 127456.7 GB/s is above the 33454.1 GB/s") != NULL);
    RB_CHECK(strstr(err, "132 SMs x 128 B/clock x 1980 MHz") != NULL);
    err[0] = '\0';
    RB_CHECK(rb_smem_over_bound(33107.0, 132, 1980.0, err, sizeof err) == 0 && err[0] == '\0');
    RB_CHECK(rb_smem_over_bound(33454.1 * 1.019, 132, 1980.0, err, sizeof err) == 0);
    RB_CHECK(rb_smem_over_bound(33454.1 * 1.021, 132, 1980.0, err, sizeof err) == 1);
    /* an unknown clock (no NVML) or SM count checks nothing */
    RB_CHECK(rb_smem_over_bound(127456.7, 132, NAN, err, sizeof err) == 0);
    RB_CHECK(rb_smem_over_bound(127456.7, 0, 1980.0, err, sizeof err) == 0);
}

static void test_method_json(void)
{
    rb_ceiling_method m = sample_method();
    json_value *o = rb_ceiling_method_json(&m);
    RB_CHECK(o && writes_as(o, "{\"method\":\"copy kernel\",\"size\":\"1024 MiB\",\"samples\":20,"
                               "\"noise\":0.0125,\"sm_clock_mhz\":1980}"));
    json_free(o);
    m.power_w = 690.5;
    m.sm_clock_mhz = NAN;
    o = rb_ceiling_method_json(&m);
    RB_CHECK(o && writes_as(o, "{\"method\":\"copy kernel\",\"size\":\"1024 MiB\",\"samples\":20,"
                               "\"noise\":0.0125,\"power_w\":690.5}"));
    json_free(o);
}

/* 1 when the record line (JSON text) is refused with a message containing needle. */
static int record_refused(const char *line, const char *needle)
{
    json_value *v = parse(line);
    char err[300] = "";
    int refused = v && rb_ceiling_record_check(v, err, sizeof err) == -1 && strstr(err, needle);
    if (!refused)
        printf("    %s -> \"%s\"\n", line, err);
    json_free(v);
    return refused;
}

/* What the child sends is checked before the parent keeps it. */
static void test_record_check(void)
{
    const char *good = "{\"type\":\"ceiling\",\"key\":\"dram_gbps\",\"value\":3006.3,\"method\":"
                       "{\"method\":\"m\",\"size\":\"s\",\"samples\":20,\"noise\":0.01,"
                       "\"sm_clock_mhz\":1980,\"power_w\":400}}";
    json_value *v = parse(good);
    char err[300];
    RB_CHECK(v && rb_ceiling_record_check(v, err, sizeof err) == 0);
    json_free(v);
    RB_CHECK(record_refused("{\"key\":\"dram_memcpy_gbps\",\"value\":1,\"method\":{}}",
                            "dram_memcpy_gbps: not a roof key"));
    RB_CHECK(record_refused("{\"value\":1}", "no key"));
    RB_CHECK(record_refused("{\"key\":\"fp32_tflops\",\"value\":0,\"method\":{}}",
                            "fp32_tflops: the value must be a positive finite number"));
    RB_CHECK(record_refused("{\"key\":\"fp32_tflops\",\"value\":null,\"method\":{}}",
                            "positive finite"));
    RB_CHECK(record_refused("{\"key\":\"launch_us\",\"value\":4,\"method\":\"x\"}",
                            "method: expected an object"));
    RB_CHECK(record_refused("{\"key\":\"launch_us\",\"value\":4,\"method\":{\"method\":\"m\","
                            "\"size\":\"s\",\"samples\":0,\"noise\":0}}",
                            "samples must be >= 1"));
    RB_CHECK(record_refused("{\"key\":\"launch_us\",\"value\":4,\"method\":{\"method\":\"m\","
                            "\"samples\":3,\"noise\":0}}",
                            "method and size must be strings"));
    RB_CHECK(record_refused("{\"key\":\"launch_us\",\"value\":4,\"method\":{\"method\":\"m\","
                            "\"size\":\"s\",\"samples\":3,\"noise\":0,\"sweep\":[]}}",
                            "method: unknown key"));
    RB_CHECK(record_refused("{\"key\":\"bf16_tflops\",\"value\":660,\"method\":{\"method\":\"m\","
                            "\"size\":\"s\",\"samples\":3,\"noise\":0,\"power_w\":0}}",
                            "must be positive"));
}

/* A measurement replaces the values and methods it has and keeps the others (a --quick run
 * measures three roofs); the source is the last run's. */
static void test_store_merges(void)
{
    json_value *c = parse("{\"dram_gbps\": 1, \"fp32_tflops\": 2, \"source\": \"old\", "
                          "\"methods\": {\"fp32_tflops\": {\"method\": \"old\"}, "
                          "\"dram_gbps\": {\"method\": \"old\"}}}");
    json_value *values = parse("{\"dram_gbps\": 3000, \"launch_us\": 4.5}");
    json_value *methods = parse("{\"dram_gbps\": {\"method\": \"new\"}, "
                                "\"launch_us\": {\"method\": \"new\"}}");
    RB_CHECK(rb_ceilings_store(c, values, methods, "roofbench ceilings --quick") == 0);
    RB_CHECK(writes_as(c, "{\"dram_gbps\":3000,\"fp32_tflops\":2,"
                          "\"source\":\"roofbench ceilings --quick\","
                          "\"methods\":{\"fp32_tflops\":{\"method\":\"old\"},"
                          "\"dram_gbps\":{\"method\":\"new\"},\"launch_us\":{\"method\":\"new\"}},"
                          "\"launch_us\":4.5}"));
    json_free(c);
    c = parse("{\"dram_gbps\": 1}"); /* today's files have no methods */
    RB_CHECK(rb_ceilings_store(c, values, methods, "s") == 0);
    RB_CHECK(writes_as(c, "{\"dram_gbps\":3000,\"launch_us\":4.5,\"methods\":{\"dram_gbps\":"
                          "{\"method\":\"new\"},\"launch_us\":{\"method\":\"new\"}},"
                          "\"source\":\"s\"}"));
    RB_CHECK(rb_ceilings_store(NULL, values, methods, "s") == -1);
    json_free(c);
    json_free(values);
    json_free(methods);
}

static const rbtest_case ceilings_cases[] = {
    {"keys are the contract's", test_keys_are_the_contract},
    {"a value > 2% above its peak is refused", test_over_peak_refused},
    {"the shared-memory ceiling is bounded by SMs x 128 B x clock", test_smem_bound},
    {"method JSON", test_method_json},
    {"child records are checked", test_record_check},
    {"store merges values and methods", test_store_merges},
};

RB_SUITE(ceilings_suite, "ceilings", ceilings_cases);
