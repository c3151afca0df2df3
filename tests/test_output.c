/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 and 2: what a run shows a person and what it lets a CI gate on: the text helpers
 * (wrapping, abbreviation, the digits a noise supports, versions), the help of each command,
 * --version and --device without a GPU, plot's base names.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/model/cli.h"
#include "../harness/model/expect.h"
#include "../harness/model/report.h"
#include "../harness/model/text.h"
#include "../harness/runner/progress.h"
#include "rbtest.h"

/* The longest line of s, in bytes (the outputs checked are ASCII). */
static int longest_line(const char *s)
{
    int longest = 0;
    while (*s) {
        int len = (int)strcspn(s, "\n");
        if (len > longest)
            longest = len;
        s += len + (s[len] == '\n');
    }
    return longest;
}

static int parse(rb_options *o, char *err, size_t err_size, ...)
{
    char *argv[32] = {"roofbench"};
    int argc = 1;
    va_list ap;
    va_start(ap, err_size);
    for (char *a; argc < 31 && (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    return rb_cli_parse(argc, argv, o, err, err_size);
}

/* ---- text helpers ---- */

static void test_wrap(void)
{
    rb_sbuf b = {0};
    rb_text_wrap(&b, "aaa bbb ccc ddd", 9, 0, 2);
    char *s = rb_sbuf_take(&b);
    RB_CHECK(s && !strcmp(s, "aaa bbb\n  ccc ddd\n"));
    free(s);
    /* a word longer than the line gets a line of its own, whole */
    rb_text_wrap(&b, "a verylongword b", 6, 0, 0);
    s = rb_sbuf_take(&b);
    RB_CHECK(s && !strcmp(s, "a\nverylongword\nb\n"));
    free(s);
    /* a prefix already on the line counts; a prefix too long for the first word moves it */
    rb_text_wrap(&b, "xx yy", 10, 7, 4);
    s = rb_sbuf_take(&b);
    RB_CHECK(s && !strcmp(s, "xx\n    yy\n"));
    free(s);
    rb_text_wrap(&b, "word", 10, 8, 2);
    s = rb_sbuf_take(&b);
    RB_CHECK(s && !strcmp(s, "\n  word\n"));
    free(s);
    /* a long note wraps under 100 columns */
    char note[600] = "";
    for (int i = 0; i < 60; i++)
        strcat(note, "word1234 ");
    rb_sbuf_add(&b, "note: x/y: ");
    rb_text_wrap(&b, note, RB_TEXT_WIDTH, 11, 6);
    s = rb_sbuf_take(&b);
    RB_CHECK(s && longest_line(s) <= RB_TEXT_WIDTH && longest_line(s) > 80);
    free(s);
}

static void test_abbrev(void)
{
    char out[64];
    rb_text_abbrev("softmax", 20, out, sizeof out);
    RB_CHECK(!strcmp(out, "softmax"));
    rb_text_abbrev("nccl_allreduce.reduce_scatter@1G", 20, out, sizeof out);
    RB_CHECK(strlen(out) == 20 && strchr(out, '~'));
    RB_CHECK(!strncmp(out, "nccl_allre", 10) && strstr(out, "@1G"));
    /* consistent: the same name, the same abbreviation; different rows stay different */
    char again[64], other[64];
    rb_text_abbrev("nccl_allreduce.reduce_scatter@1G", 20, again, sizeof again);
    rb_text_abbrev("nccl_allreduce.reduce_scatter@2G", 20, other, sizeof other);
    RB_CHECK(!strcmp(out, again) && strcmp(out, other));
}

static void test_numbers_by_noise(void)
{
    char out[64];
    RB_CHECK(rb_text_sig_digits(0.003) == 4 && rb_text_sig_digits(0.16) == 2);
    RB_CHECK(rb_text_sig_digits(NAN) == 4 && rb_text_sig_digits(0.5) == 2);
    RB_CHECK(rb_text_sig_digits(1e-7) == 6);
    /* the number the issue saw: 3020.69948469187 at 0.26% noise */
    rb_text_number(3020.69948469187, 0.0026, out, sizeof out);
    RB_CHECK(!strcmp(out, "3021"));
    rb_text_number(0.70403, 0.0035, out, sizeof out);
    RB_CHECK(!strcmp(out, "0.7040"));
    rb_text_number(0.5663, 0.163, out, sizeof out);
    RB_CHECK(!strcmp(out, "0.57"));
    rb_text_number(1492.34, 0.007, out, sizeof out);
    RB_CHECK(!strcmp(out, "1492"));
    rb_text_number(275864.8, 0.2, out, sizeof out);
    RB_CHECK(!strcmp(out, "280000"));
    rb_text_number(NAN, 0.01, out, sizeof out);
    RB_CHECK(!strcmp(out, "-"));
    rb_text_number_max(0.486523, 0.0002, 4, out, sizeof out); /* a rate: 4 digits at most */
    RB_CHECK(!strcmp(out, "0.4865"));
    rb_text_number_max(0.486523, 0.2, 4, out, sizeof out);
    RB_CHECK(!strcmp(out, "0.49"));
}

static void test_versions_and_durations(void)
{
    char out[64];
    rb_text_version(22803, out, sizeof out);
    RB_CHECK(!strcmp(out, "2.28.3"));
    rb_text_version(130100, out, sizeof out);
    RB_CHECK(!strcmp(out, "13.1.0"));
    rb_text_version(NAN, out, sizeof out);
    RB_CHECK(!strcmp(out, "-"));
    rb_text_version(2.5, out, sizeof out);
    RB_CHECK(!strcmp(out, "-"));
    rb_text_duration(83.4, out, sizeof out);
    RB_CHECK(!strcmp(out, "1:23"));
    rb_text_duration(3725, out, sizeof out);
    RB_CHECK(!strcmp(out, "1:02:05"));
    rb_text_duration(-1, out, sizeof out);
    RB_CHECK(!strcmp(out, "?"));
}

static void test_uuid_and_visible_pick(void)
{
    const unsigned char b[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
    char out[64];
    rb_text_uuid(b, out, sizeof out);
    RB_CHECK(!strcmp(out, "GPU-01234567-89ab-cdef-0011-223344556677"));
    RB_CHECK(rb_text_visible_pick(NULL, 1, out, sizeof out) == 0 && !strcmp(out, "1"));
    RB_CHECK(rb_text_visible_pick("2,3", 1, out, sizeof out) == 0 && !strcmp(out, "3"));
    RB_CHECK(rb_text_visible_pick("GPU-aa,GPU-bb", 0, out, sizeof out) == 0 &&
             !strcmp(out, "GPU-aa"));
    RB_CHECK(rb_text_visible_pick("2,3", 2, out, sizeof out) == -1);
    RB_CHECK(rb_text_visible_pick("", 0, out, sizeof out) == -1);
}

/* ---- the command line ---- */

static void test_cli_help_topics(void)
{
    rb_options o;
    char err[300];
    RB_CHECK(parse(&o, err, sizeof err, "help", "run", (char *)NULL) == 0);
    RB_CHECK(o.command == RB_CMD_HELP && o.help_topic == RB_CMD_RUN);
    RB_CHECK(parse(&o, err, sizeof err, "plot", "--help", (char *)NULL) == 0);
    RB_CHECK(o.command == RB_CMD_HELP && o.help_topic == RB_CMD_PLOT);
    RB_CHECK(parse(&o, err, sizeof err, "help", (char *)NULL) == 0);
    RB_CHECK(o.command == RB_CMD_HELP && o.help_topic == RB_CMD_HELP);
    RB_CHECK(parse(&o, err, sizeof err, "help", "sprint", (char *)NULL) == -1);
    RB_CHECK(strstr(err, "unknown command 'sprint'") != NULL);
    RB_CHECK(parse(&o, err, sizeof err, "--version", (char *)NULL) == 0);
    RB_CHECK(o.command == RB_CMD_VERSION);
    RB_CHECK(parse(&o, err, sizeof err, "--version", "run", (char *)NULL) == -1);
    /* each command's help names its own options and no other command's */
    static const struct {
        rb_command c;
        const char *has, *lacks;
    } want[] = {
        {RB_CMD_LIST, "\n  --size", "\n  --samples"},
        {RB_CMD_RUN, "\n  --gate", "\n  --quick"},
        {RB_CMD_RUN, "\n  --device", "\n  -o BASE"},
        {RB_CMD_CHECK, "\n  --device", "\n  --samples"},
        {RB_CMD_CEILINGS, "\n  --quick", "\n  --filter"},
        {RB_CMD_PLOT, "\n  -o BASE", "\n  --device"},
        {RB_CMD_COMPARE, "\n  --fail-on-platform", "\n  --cold"},
        {RB_CMD_HELP, "\n  compare", "\n  --samples"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *h = rb_cli_help(want[i].c);
        RB_CHECK(h && strstr(h, want[i].has) && !strstr(h, want[i].lacks));
        RB_CHECK(h && longest_line(h) <= 80);
        if (h && (!strstr(h, want[i].has) || strstr(h, want[i].lacks)))
            printf("    help %s: has %s? lacks %s?\n", rb_cli_command_name(want[i].c), want[i].has,
                   want[i].lacks);
        free(h);
    }
    char *h = rb_cli_help(RB_CMD_RUN);
    RB_CHECK(h && strstr(h, "CUDA_VISIBLE_DEVICES") && strstr(h, "usage: roofbench run"));
    free(h);
    h = rb_cli_help(RB_CMD_PLOT);
    RB_CHECK(h && !strstr(h, "CUDA_VISIBLE_DEVICES"));
    free(h);
}

static void test_cli_device_gate_wide(void)
{
    rb_options o;
    char err[300];
    RB_CHECK(parse(&o, err, sizeof err, "run", (char *)NULL) == 0 && o.device == -1);
    RB_CHECK(o.gate_all == 0 && o.wide == 0);
    RB_CHECK(parse(&o, err, sizeof err, "run", "--device", "0", (char *)NULL) == 0 &&
             o.device == 0);
    RB_CHECK(parse(&o, err, sizeof err, "ceilings", "--device", "3", (char *)NULL) == 0 &&
             o.device == 3);
    RB_CHECK(parse(&o, err, sizeof err, "check", "--device", "1", (char *)NULL) == 0 &&
             o.device == 1);
    static const char *const bad[] = {"-1", "x", "1.5", "1K", "64", " 1", "01x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        RB_CHECK(parse(&o, err, sizeof err, "run", "--device", bad[i], (char *)NULL) == -1);
        RB_CHECK(strstr(err, "--device") != NULL);
    }
    RB_CHECK(parse(&o, err, sizeof err, "list", "--device", "0", (char *)NULL) == -1);
    RB_CHECK(strstr(err, "--device does not go with list") != NULL);
    RB_CHECK(parse(&o, err, sizeof err, "run", "--gate", "all", "--wide", (char *)NULL) == 0);
    RB_CHECK(o.gate_all == 1 && o.wide == 1);
    RB_CHECK(parse(&o, err, sizeof err, "run", "--gate", "gating", (char *)NULL) == 0 &&
             o.gate_all == 0);
    RB_CHECK(parse(&o, err, sizeof err, "run", "--gate", "some", (char *)NULL) == -1);
    RB_CHECK(parse(&o, err, sizeof err, "check", "--gate", "all", (char *)NULL) == -1);
}

static void test_cli_plot_base(void)
{
    rb_options o;
    char err[400];
    RB_CHECK(parse(&o, err, sizeof err, "plot", "r.json", "-o", "out", (char *)NULL) == 0);
    RB_CHECK(!strcmp(o.plot_svg, "out") && !o.plot_html && !o.plot_html_beside);
    RB_CHECK(parse(&o, err, sizeof err, "plot", "r.json", "-o", "d/out", "--html", (char *)NULL) ==
             0);
    RB_CHECK(o.plot_html_beside && !o.plot_html);
    RB_CHECK(parse(&o, err, sizeof err, "plot", "r.json", "--html", "rep.html", (char *)NULL) == 0);
    RB_CHECK(o.plot_html && !strcmp(o.plot_html, "rep.html") && !o.plot_html_beside);
    /* --html before the operand: the operand is not taken as the page */
    RB_CHECK(parse(&o, err, sizeof err, "plot", "--html", "r.json", (char *)NULL) == 0);
    RB_CHECK(o.plot_html_beside && !strcmp(o.plot_input, "r.json"));
    static const char *const refused[] = {"x.png", "d/x.PDF", "x.jpg", "x.html", ".svg"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        RB_CHECK(parse(&o, err, sizeof err, "plot", "r.json", "-o", refused[i], (char *)NULL) ==
                 -1);
        RB_CHECK(strstr(err, "base name") != NULL);
    }
    RB_CHECK(parse(&o, err, sizeof err, "plot", "r.json", "-o", "x.png", (char *)NULL) == -1);
    RB_CHECK(strstr(err, "-o x writes x.svg and x-speedup.svg") != NULL);
    /* compare keeps --html FILE */
    RB_CHECK(parse(&o, err, sizeof err, "compare", "a.json", "b.json", "--html", "c.html",
                   (char *)NULL) == 0 &&
             !strcmp(o.plot_html, "c.html"));
}

/* ---- the roof a row is named by, the regime, the noise ---- */

static void pair_init(rb_pair_result *p, const char *name, double flops, double bytes)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->size = p->full_size = 1u << 26;
    p->flops = flops;
    p->bytes = bytes;
    p->status = RB_PAIR_OK;
    p->setup_s = NAN;
}

static rb_variant_result *variant_add(rb_pair_result *p, const char *name, rb_role role,
                                      rb_unit unit, double ms, double noise)
{
    rb_variant_result *v = &p->v[p->n_variants++];
    rb_variant_result_init(v, name, role, unit, 1e-5);
    v->valid = v->timed = 1;
    v->rel_err_before = v->rel_err_after = 0;
    v->time_ms.n = 50;
    v->time_ms.median = v->time_ms.min = v->time_ms.max = v->time_ms.p10 = v->time_ms.p90 = ms;
    v->time_ms.noise = noise;
    v->time_ms.ci_lo = v->time_ms.ci_hi = ms;
    v->launches_per_sample = 1;
    return v;
}

static void h100_roofs(rb_roofs *ceilings, rb_roofs *peaks)
{
    rb_roofs_unknown(ceilings);
    rb_roofs_unknown(peaks);
    ceilings->value[RB_ROOF_DRAM] = 3022.6;
    ceilings->value[RB_ROOF_FP32] = 60.88;
    ceilings->value[RB_ROOF_BF16] = 714.2;
    ceilings->noise[RB_ROOF_BF16] = 0.01;
    peaks->value[RB_ROOF_DRAM] = 3352;
    peaks->value[RB_ROOF_FP32] = 66.9;
    peaks->value[RB_ROOF_BF16] = 989.4;
}

static char *table_text(const rb_pair_result *p, int n, int wide)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    rb_report_table(f, p, n, wide);
    fclose(f);
    return buf;
}

/* softmax: fp32 work, no declared roof (fp32_tflops derived), 2990 GB/s at AI 0.6: named by DRAM
 * everywhere (the table, the CSV, the results), with fp32_tflops kept as the declared roof. */
static void test_binding_roof_named(void)
{
    rb_pair_result p[2];
    double bytes = 2.0 * 4 * 32768.0 * 4096; /* read and write 32768 x 4096 fp32 */
    pair_init(&p[0], "softmax", 5.0 * 32768 * 4096, bytes);
    variant_add(&p[0], "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, bytes / 2989.6e6, 0.003);
    pair_init(&p[1], "sgemm@16M", 2.0 * 4096.0 * 4096 * 4096, 3.0 * 4 * 4096 * 4096);
    variant_add(&p[1], "library", RB_ROLE_LIBRARY, RB_UNIT_FP32, 2.669, 0.002);
    rb_roofs c, pk;
    h100_roofs(&c, &pk);
    rb_report_derive(p, 2, &c, &pk);
    const rb_variant_result *soft = &p[0].v[0], *gemm = &p[1].v[0];
    RB_CHECK(soft->roof == RB_ROOF_FP32 && soft->named_roof == RB_ROOF_DRAM);
    RB_CHECK(soft->vs_ceiling.binding == RB_ROOF_DRAM);
    RB_CHECK_NEAR(soft->vs_ceiling.efficiency, 2989.6 / 3022.6, 1e-9);
    RB_CHECK(gemm->named_roof == RB_ROOF_FP32);
    double rate;
    const char *unit;
    rb_report_rate(&p[0], soft, &rate, &unit);
    RB_CHECK(!strcmp(unit, "GB/s") && fabs(rate - 2989.6) < 1e-6);
    char *t = table_text(p, 2, 0);
    RB_CHECK(t && strstr(t, "2990 GB/s") && strstr(t, " 98.9% "));
    RB_CHECK(t && strstr(t, "S  dram\n") == NULL && strstr(t, "   dram\n") &&
             !strstr(t, "fp32\nsgemm"));
    free(t);
    char *csv = rb_report_csv(p, 2);
    RB_CHECK(csv && strstr(csv, ",dram_gbps,fp32_tflops,samples,"));
    RB_CHECK(csv && strstr(csv, ",fp32_tflops,fp32_tflops,samples,"));
    free(csv);
    json_value *doc = rb_report_json(p, 2, &c, &pk, json_new_object());
    const json_value *v = json_get(json_get(doc, "pairs")->items[0], "variants")->items[0];
    RB_CHECK(!strcmp(json_string_at(v, "roof", ""), "dram_gbps"));
    RB_CHECK(!strcmp(json_string_at(v, "declared_roof", ""), "fp32_tflops"));
    RB_CHECK(!strcmp(json_string_at(v, "rate_unit", ""), "GB/s"));
    RB_CHECK(!strcmp(json_string_at(json_get(v, "vs_ceiling"), "bound", ""), "memory"));
    RB_CHECK(!strcmp(json_string_at(json_get(v, "vs_ceiling"), "roof", ""), "dram_gbps"));
    /* read back (compare, plot), the point is placed on the declared roof again */
    rb_variant_result back;
    char err[200];
    RB_CHECK(rb_variant_from_json(v, &back, err, sizeof err) == 0 && back.roof == RB_ROOF_FP32);
    json_free(doc);
}

/* A skipped, an invalid and a failed variant: no rate, no 0 GB/s or 0.0% anywhere. */
static void test_untimed_rows_never_zero(void)
{
    rb_pair_result p;
    pair_init(&p, "hgemm.awkward@16M", 2.0 * 4095 * 4093 * 4112, 1e8);
    variant_add(&p, "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_BF16, 0.25, 0.008);
    rb_variant_result *s = &p.v[p.n_variants++];
    rb_variant_result_init(s, "fp8_library", RB_ROLE_LIBRARY, RB_UNIT_FP8, 5e-3);
    s->skipped = 1;
    snprintf(s->note, sizeof s->note, "skipped on this machine: cuBLASLt has no FP8 algorithm");
    rb_variant_result *bad = &p.v[p.n_variants++];
    rb_variant_result_init(bad, "fp8", RB_ROLE_STEP, RB_UNIT_FP8, 5e-3);
    bad->rel_err_before = 0.5;
    snprintf(bad->note, sizeof bad->note, "wrong result before timing: rel_err 0.5 > tol 0.005");
    rb_variant_result *failed = &p.v[p.n_variants++];
    rb_variant_result_init(failed, "tma", RB_ROLE_STEP, RB_UNIT_BF16, 5e-3);
    snprintf(failed->note, sizeof failed->note, "kernels/hgemm.cu:1: an illegal memory access");
    rb_roofs c, pk;
    h100_roofs(&c, &pk);
    rb_report_derive(&p, 1, &c, &pk);
    s->verdict = RB_VERDICT_SKIPPED;
    bad->verdict = RB_VERDICT_INVALID;
    char *t = table_text(&p, 1, 0);
    RB_CHECK(t && strstr(t, "  fp8_library ") && strstr(t, " skipped ") && strstr(t, " invalid "));
    RB_CHECK(t && strstr(t, "  tma ") && strstr(t, " failed "));
    RB_CHECK(t && !strstr(t, " 0 GB/s") && !strstr(t, " 0.0%") && !strstr(t, " 0 TFLOP/s"));
    free(t);
    json_value *doc = rb_report_json(&p, 1, &c, &pk, json_new_object());
    const json_value *vs = json_get(json_get(doc, "pairs")->items[0], "variants");
    for (size_t k = 1; vs && k < vs->count; k++) {
        const json_value *pt = json_get(vs->items[k], "vs_ceiling");
        RB_CHECK(isnan(json_number_at(pt, "gbps")) && isnan(json_number_at(pt, "efficiency")));
        RB_CHECK(!strcmp(json_string_at(pt, "bound", ""), "none"));
        RB_CHECK(!json_get(vs->items[k], "rate"));
    }
    char *text = json_write(doc, 0);
    RB_CHECK(text && !strstr(text, "\"gbps\":0,") && strstr(text, "\"gbps\":null"));
    free(text);
    json_free(doc);
    char *csv = rb_report_csv(&p, 1);
    RB_CHECK(csv && strstr(csv, "fp8_library,,,,,,,,skipped,-,fp8_tflops,,false,false,"));
    free(csv);
}

/* The regime: a GEMM timed sustained above cuBLASLt's measured ceiling raises the roof to its
 * own rate and says so; one timed in ~1 ms samples above the roof by more than its noise is a
 * measurement inconsistency (no %ceil); within its noise, a mark and the reason. */
static void test_roof_raised_and_inconsistency(void)
{
    rb_pair_result p[2];
    double flops = 2.0 * 8192.0 * 8192 * 8192, bytes = 3.0 * 2 * 8192 * 8192;
    pair_init(&p[0], "hgemm.square@64M", flops, bytes);
    rb_variant_result *opt =
        variant_add(&p[0], "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_BF16, flops / 812e9, 0.02);
    rb_variant_result *lib =
        variant_add(&p[0], "library", RB_ROLE_LIBRARY, RB_UNIT_BF16, flops / 790e9, 0.02);
    opt->timing = lib->timing = RB_TIMING_SUSTAINED_INTERLEAVED;
    pair_init(&p[1], "gemm_epilogue", flops, bytes);
    rb_variant_result *burst =
        variant_add(&p[1], "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_BF16, flops / 860e9, 0.01);
    burst->timing = RB_TIMING_INTERLEAVED;
    rb_roofs c, pk;
    h100_roofs(&c, &pk);
    rb_report_derive(p, 2, &c, &pk);
    RB_CHECK_NEAR(c.value[RB_ROOF_BF16], 812.0, 1e-6);
    RB_CHECK_NEAR(c.measured[RB_ROOF_BF16], 714.2, 1e-9);
    RB_CHECK(!strcmp(c.raised_by[RB_ROOF_BF16], "hgemm.square@64M/optimized"));
    RB_CHECK(isnan(c.measured[RB_ROOF_DRAM]) && !c.raised_by[RB_ROOF_DRAM][0]);
    RB_CHECK_NEAR(opt->vs_ceiling.efficiency, 1.0, 1e-9);
    RB_CHECK(!opt->inconsistent && !opt->roof_note[0]);
    RB_CHECK(strstr(opt->note, "raised the bf16_tflops roof of this run from 714.2") != NULL);
    RB_CHECK_NEAR(lib->vs_ceiling.efficiency, 790.0 / 812.0, 1e-9);
    /* 860 in ~1 ms samples: 105.9% of the raised roof, beyond 1% + 2%: not a result */
    RB_CHECK(burst->inconsistent && strstr(burst->roof_note, "measurement inconsistency"));
    RB_CHECK(strstr(burst->roof_note, "not one regime") != NULL);
    char method[300];
    rb_report_raised_method(&c, RB_ROOF_BF16, method, sizeof method);
    static const char want[] =
        "bf16_tflops: 812.0 (hgemm.square@64M/optimized, sustained, this run";
    RB_CHECK(!strncmp(method, want, strlen(want)));
    json_value *doc = rb_report_json(p, 2, &c, &pk, json_new_object());
    const json_value *bf16 = json_get(json_get(doc, "roofs"), "bf16_tflops");
    RB_CHECK(fabs(json_number_at(bf16, "measured") - 812.0) < 1e-6);
    RB_CHECK(fabs(json_number_at(bf16, "ceiling") - 714.2) < 1e-9);
    RB_CHECK(!strcmp(json_string_at(bf16, "raised_by", ""), "hgemm.square@64M/optimized"));
    const json_value *v = json_get(json_get(doc, "pairs")->items[1], "variants")->items[0];
    RB_CHECK(json_true_at(v, "inconsistent") &&
             !strcmp(json_string_at(v, "timing", ""), "interleaved"));
    json_free(doc);
    char *t = table_text(p, 2, 0);
    RB_CHECK(t && strstr(t, " incons ") && strstr(t, "100.0% ") && strstr(t, " Si "));
    free(t);

    /* Not raised: a variant in ~1 ms samples, one below the full size, a roof never measured. */
    pair_init(&p[0], "hgemm.square@16M", flops / 8, bytes / 4);
    p[0].size = 1u << 24;
    p[0].full_size = 1u << 26;
    variant_add(&p[0], "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_BF16, flops / 8 / 800e9, 0.15)
        ->timing = RB_TIMING_SUSTAINED_INTERLEAVED;
    pair_init(&p[1], "gemm_precision", flops, bytes);
    variant_add(&p[1], "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP8, flops / 1300e9, 0.02)->timing =
        RB_TIMING_SUSTAINED;
    h100_roofs(&c, &pk);
    rb_report_derive(p, 2, &c, &pk);
    RB_CHECK(c.value[RB_ROOF_BF16] == 714.2 && !c.raised_by[RB_ROOF_BF16][0]);
    RB_CHECK(isnan(c.value[RB_ROOF_FP8]) && !c.raised_by[RB_ROOF_FP8][0]);
    /* 112% of the roof with 15% noise (plus the roof's 1%): within it, marked and explained */
    RB_CHECK(!p[0].v[0].inconsistent && strstr(p[0].v[0].roof_note, "112.0% of the measured"));
    t = table_text(p, 2, 0);
    RB_CHECK(t && strstr(t, "112.0%*") != NULL);
    free(t);
}

/* The default table fits 100 columns whatever the names and numbers; --wide keeps every name. */
static void test_table_fits_100_columns(void)
{
    static rb_pair_result p[3];
    pair_init(&p[0], "nccl_allreduce.reduce_scatter_long_input@1G", 0, 2.0 * (1u << 30));
    rb_variant_result *v = variant_add(&p[0], "host_staged_through_pinned_memory_x",
                                       RB_ROLE_BASELINE, RB_UNIT_NONE, 275864.82, 0.523);
    snprintf(v->host_bound_why, sizeof v->host_bound_why, "%s",
             "the sum runs on the CPU, in a host function between the two copies");
    v->verdict = RB_VERDICT_REGRESSED;
    v->roof = RB_ROOF_PCIE_DUPLEX;
    snprintf(v->note, sizeof v->note, "%s",
             "a note of a couple of hundred characters, as the roof notes are: the roof was "
             "measured with a different access mix (ceilings.methods); part of this variant's "
             "declared traffic hits L2, so it wraps");
    v = variant_add(&p[0], "nccl_out_of_place", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.7147, 0.0026);
    v->roof = RB_ROOF_NVLINK;
    snprintf(v->roof_rate, sizeof v->roof_rate, "busbw_gbps");
    v->n_extras = 3;
    snprintf(v->extras[0].name, sizeof v->extras[0].name, "nccl_version");
    v->extras[0].value = 22803;
    snprintf(v->extras[1].name, sizeof v->extras[1].name, "busbw_gbps");
    v->extras[1].value = 0;
    snprintf(v->extras[2].name, sizeof v->extras[2].name, "algbw_gbps");
    v->extras[2].value = 1502.3;
    v->verdict = RB_VERDICT_IMPROVED;
    pair_init(&p[1], "graphs", 0, 1e6);
    v = variant_add(&p[1], "graph_update", RB_ROLE_STEP, RB_UNIT_NONE, 0.1994, 0.00001);
    v->roof = RB_ROOF_GRAPH_NODE;
    snprintf(v->roof_rate, sizeof v->roof_rate, "us_per_kernel");
    v->n_extras = 1;
    snprintf(v->extras[0].name, sizeof v->extras[0].name, "us_per_kernel");
    v->extras[0].value = 0.98765432;
    pair_init(&p[2], "a_pair_that_was_skipped_with_a_long_reason", 1, 1);
    p[2].status = RB_PAIR_SKIPPED;
    snprintf(p[2].reason, sizeof p[2].reason, "%s",
             "needs 2 GPUs, this machine has 1; and a reason long enough to wrap at one hundred "
             "columns, as some of them are when they name the library call that refused");
    rb_roofs c, pk;
    h100_roofs(&c, &pk);
    c.value[RB_ROOF_GRAPH_NODE] = 0.8;
    c.value[RB_ROOF_PCIE_DUPLEX] = 90;
    rb_report_derive(p, 3, &c, &pk);
    char *t = table_text(p, 3, 0);
    RB_CHECK(t && longest_line(t) <= RB_TEXT_WIDTH);
    if (t && longest_line(t) > RB_TEXT_WIDTH)
        printf("%s", t);
    RB_CHECK(t && strstr(t, "\nnccl_allreduce.reduce_scatter_long_input@1G\n"));
    RB_CHECK(t && strstr(t, "host_sta~memory_x") && strstr(t, "(regressed)"));
    RB_CHECK(t && strstr(t, "nccl_version 2.28.3") && !strstr(t, "2.28e+04"));
    RB_CHECK(t && strstr(t, "280000 ") && !strstr(t, "275864.8")); /* 52% noise: 2 digits */
    RB_CHECK(t && strstr(t, "informational, not gating: the sum runs on the CPU"));
    free(t);
    t = table_text(p, 3, 1);
    RB_CHECK(t && strstr(t, "  host_staged_through_pinned_memory_x ") &&
             strstr(t, "pcie_duplex_gbps"));
    free(t);
}

/* Informational rows: judged and printed, counted apart, and they set the exit code only with
 * --gate all; a wrong result is never informational. */
static void test_informational_gating(void)
{
    const char *text =
        "{\"schema\": 1, \"hardware\": {\"name\": \"NVIDIA H100 80GB HBM3\"}, \"peaks\": {}, "
        "\"ceilings\": {}, \"pairs\": {\"host_transfer.d2h\": {\"size\": 67108864, \"variants\": "
        "{\"baseline\": {\"median_ms\": 60, \"noise\": 0.01}, \"optimized\": {\"median_ms\": "
        "19.4, \"noise\": 0.003}}}}}";
    char err[300];
    rb_expect e = {0};
    e.doc = json_parse(text, strlen(text), err, sizeof err);
    RB_CHECK(e.doc && rb_expect_validate(e.doc, err, sizeof err) == 0);
    rb_pair_result p;
    pair_init(&p, "host_transfer.d2h", 0, 2.0 * 67108864);
    p.size = p.full_size = 67108864;
    rb_variant_result *base =
        variant_add(&p, "baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 100.0, 0.2); /* +67% */
    snprintf(base->host_bound_why, sizeof base->host_bound_why, "%s", "pageable memory");
    variant_add(&p, "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 19.45, 0.003);
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 0);
    RB_CHECK(base->verdict == RB_VERDICT_REGRESSED && p.v[1].verdict == RB_VERDICT_PASS);
    RB_CHECK(rb_expect_failing(&p, 1, 0, 0) == 0 && rb_expect_failing(&p, 1, 1, 0) == 1);
    char line[800];
    rb_report_summary_text(&p, 1, line, sizeof line);
    RB_CHECK(strstr(line, "verdicts: 1 pass; informational (host-bound, not gating unless --gate "
                          "all): 1 regressed") != NULL);
    /* planted: the gating row slows down 10%: it fails the run */
    p.v[1].time_ms.median = 19.4 * 1.10;
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 1 && p.v[1].verdict == RB_VERDICT_REGRESSED);
    /* an informational row with a wrong result fails whatever the gate */
    p.v[1].time_ms.median = 19.4;
    base->valid = 0;
    RB_CHECK(rb_expect_apply(&e, &p, 1) == 1 && base->verdict == RB_VERDICT_INVALID);
    /* the record carries it to the parent and the results */
    json_value *o = rb_variant_to_json(base);
    RB_CHECK(o && json_true_at(o, "informational") &&
             !strcmp(json_string_at(o, "host_bound_why", ""), "pageable memory"));
    rb_variant_result back;
    RB_CHECK(o && rb_variant_from_json(o, &back, err, sizeof err) == 0 &&
             !strcmp(back.host_bound_why, "pageable memory"));
    json_free(o);
    json_free(e.doc);
}

/* ---- the progress line's estimate ---- */

static void test_progress_eta(void)
{
    const double expected[4] = {10, 20, NAN, 30};
    const double actual[4] = {20, 0, 0, 0};
    /* the first pair took twice its record: the rest (20, the mean 20 for the unrecorded
     * one, 30) twice as long too */
    RB_CHECK_NEAR(rb_progress_eta_s(expected, actual, 4, 1), 2 * (20 + 20 + 30), 1e-9);
    RB_CHECK_NEAR(rb_progress_eta_s(expected, actual, 4, 0), 10 + 20 + 20 + 30, 1e-9);
    /* a run 10x slower than the record is believed at most 2x */
    const double slow[4] = {100, 0, 0, 0};
    RB_CHECK_NEAR(rb_progress_eta_s(expected, slow, 4, 1), 2 * 70, 1e-9);
    /* nothing recorded: the mean so far; nothing at all yet: unknown */
    const double so_far[4] = {3, 5, 0, 0};
    RB_CHECK_NEAR(rb_progress_eta_s(NULL, so_far, 4, 2), 8, 1e-9);
    RB_CHECK(isnan(rb_progress_eta_s(NULL, so_far, 4, 0)));
    RB_CHECK_NEAR(rb_progress_eta_s(expected, actual, 4, 4), 0, 1e-12);
}

/* --update-expectations records each pair's wall time (the median over the runs), which the
 * next run's estimate reads; a wall time that is not positive is refused. */
static void test_wall_time_recorded(void)
{
    static rb_pair_result runs[3];
    for (int r = 0; r < 3; r++) {
        pair_init(&runs[r], "copy_vectorized", 0, 2e9);
        variant_add(&runs[r], "baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 1.0, 0.01);
        runs[r].wall_s = 1.0 + r; /* 1, 2, 3 s */
    }
    const rb_pair_result *earlier[2] = {&runs[0], &runs[1]};
    json_value *doc = NULL;
    char err[300];
    json_value *hw = json_new_object();
    json_set_string(hw, "name", "NVIDIA H100 80GB HBM3");
    RB_CHECK(rb_expect_update_runs(&doc, &runs[2], 1, earlier, 2, NULL, hw, NULL, json_new_object(),
                                   err, sizeof err) == 0);
    RB_CHECK(doc && rb_expect_validate(doc, err, sizeof err) == 0);
    rb_expect e;
    memset(&e, 0, sizeof e);
    e.doc = doc;
    RB_CHECK_NEAR(rb_expect_wall_s(&e, "copy_vectorized"), 2.0, 1e-12);
    RB_CHECK(isnan(rb_expect_wall_s(&e, "softmax")));
    json_set_number((json_value *)json_get(json_get(doc, "pairs"), "copy_vectorized"), "wall_s",
                    -1);
    RB_CHECK(rb_expect_validate(doc, err, sizeof err) == -1 && strstr(err, "wall_s"));
    json_free(doc);
}

/* ---- the binary, without a GPU ---- */

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_binary_help_and_version(void)
{
    rbtest_fresh_dir();
    RB_CHECK(rbtest_run("help run") == 0);
    RB_CHECK(strstr(rbtest_output(), "usage: roofbench run") && strstr(rbtest_output(), "--gate"));
    RB_CHECK(!strstr(rbtest_output(), "\n  --quick"));
    RB_CHECK(rbtest_run("ceilings --help") == 0);
    RB_CHECK(strstr(rbtest_output(), "\n  --quick") && !strstr(rbtest_output(), "\n  --samples"));
    RB_CHECK(rbtest_run("--help") == 0);
    RB_CHECK(strstr(rbtest_output(), "help COMMAND") && strstr(rbtest_output(), "Exit codes"));
    RB_CHECK(rbtest_run("help sprint") == 2);
    /* --version needs no GPU: three lines, the build and what it runs on */
    RB_CHECK(rbtest_run("--version") == 0);
    const char *v = rbtest_output();
    RB_CHECK(count_lines(v) == 3 && !strncmp(v, "roofbench ", 10));
    RB_CHECK(strstr(v, "build: sm_") && strstr(v, "built with CUDA") && strstr(v, "CUDA runtime"));
    RB_CHECK(strstr(v, "codegen fingerprints: ") != NULL);
    rbtest_remove_dir();
}

static void test_binary_device_refusals(void)
{
    rbtest_fresh_dir();
    RB_CHECK(rbtest_run("run --device x") == 2);
    RB_CHECK(strstr(rbtest_output(), "--device") && count_lines(rbtest_output()) == 1);
    RB_CHECK(rbtest_run("list --device 1") == 2);
    RB_CHECK(rbtest_run("plot r.json --device 1") == 2);
    /* a well-formed index on a machine without a GPU: no usable device, exit 3 (on a GPU
     * machine with fewer GPUs: exit 2, the index named) */
    int rc = rbtest_run("check --device 63 --filter '^copy_vectorized$' --size smoke");
    RB_CHECK(rc == 3 || (rc == 2 && strstr(rbtest_output(), "--device 63")));
    rbtest_remove_dir();
}

static const rbtest_case output_cases[] = {
    {"text_wrap", test_wrap},
    {"text_abbrev", test_abbrev},
    {"text_numbers_by_noise", test_numbers_by_noise},
    {"text_versions_and_durations", test_versions_and_durations},
    {"text_uuid_and_visible_pick", test_uuid_and_visible_pick},
    {"cli_help_topics", test_cli_help_topics},
    {"cli_device_gate_wide", test_cli_device_gate_wide},
    {"cli_plot_base", test_cli_plot_base},
    {"binding_roof_named", test_binding_roof_named},
    {"untimed_rows_never_zero", test_untimed_rows_never_zero},
    {"roof_raised_and_inconsistency", test_roof_raised_and_inconsistency},
    {"table_fits_100_columns", test_table_fits_100_columns},
    {"informational_gating", test_informational_gating},
    {"progress_eta", test_progress_eta},
    {"wall_time_recorded", test_wall_time_recorded},
    {"binary_help_and_version", test_binary_help_and_version},
    {"binary_device_refusals", test_binary_device_refusals},
};

RB_SUITE(output_suite, "output", output_cases);
