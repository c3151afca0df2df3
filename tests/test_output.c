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

#include "../harness/core/cli.h"
#include "../harness/core/text.h"
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
    {"binary_help_and_version", test_binary_help_and_version},
    {"binary_device_refusals", test_binary_device_refusals},
};

RB_SUITE(output_suite, "output", output_cases);
