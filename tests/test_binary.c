/* SPDX-License-Identifier: MIT */
/*
 * Tier 2: the roofbench binary's contract at its edges, run as a user would run it. Every bad
 * input must end with one clear line, exit 2 and nothing written; without a GPU, run exits 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/pair.h"
#include "rbtest.h"

extern const rbtest_suite binary_suite;

static char tmp[256];
static char out[16384];

const char *rbtest_output(void)
{
    return out;
}

/* A fresh temporary folder for one test. */
const char *rbtest_fresh_dir(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/rbtest-XXXXXX");
    if (!mkdtemp(tmp))
        tmp[0] = '\0';
    return tmp;
}

void rbtest_remove_dir(void)
{
    char cmd[300];
    if (tmp[0] && strncmp(tmp, "/tmp/rbtest-", 12) == 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            printf("    could not remove %s\n", tmp);
    }
}

int rbtest_run(const char *args)
{
    char cmd[2048], log[300], bin[1024];
    if (rbtest_binary[0] == '/')
        snprintf(bin, sizeof bin, "%s", rbtest_binary);
    else if (!getcwd(bin, sizeof bin - 300))
        return -1;
    else
        snprintf(bin + strlen(bin), sizeof bin - strlen(bin), "/%s", rbtest_binary);
    snprintf(log, sizeof log, "%s/.log", tmp);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s > '%s' 2>&1 < /dev/null", tmp, bin, args, log);
    int status = system(cmd);
    out[0] = '\0';
    FILE *f = fopen(log, "r");
    if (f) {
        size_t n = fread(out, 1, sizeof out - 1, f);
        out[n] = '\0';
        fclose(f);
        unlink(log);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int exists(const char *name)
{
    char path[400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    return stat(path, &st) == 0;
}

static void write_file(const char *name, const char *text)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The folder holds nothing but the files the test made itself. */
static int nothing_written(void)
{
    return !exists("results") && !exists("expectations") && !exists("out.json");
}

static void expect_usage_error(const char *args, const char *needle)
{
    rbtest_fresh_dir();
    int rc = rbtest_run(args);
    if (rc != 2 || count_lines(out) != 1 || !strstr(out, needle))
        printf("    roofbench %s -> %d: %s", args, rc, out);
    RB_CHECK(rc == 2);
    RB_CHECK(count_lines(out) == 1);
    RB_CHECK(strstr(out, needle) != NULL);
    RB_CHECK(strncmp(out, "roofbench: ", 11) == 0);
    RB_CHECK(nothing_written());
    rbtest_remove_dir();
}

static void test_help(void)
{
    rbtest_fresh_dir();
    RB_CHECK(rbtest_run("--help") == 0);
    RB_CHECK(strstr(out, "exit codes") != NULL);
    RB_CHECK(strstr(out, "--update-expectations") != NULL);
    rbtest_remove_dir();
}

static void test_list_names_every_pair(void)
{
    rbtest_fresh_dir();
    RB_CHECK(rbtest_run("list") == 0);
    for (int i = 0; rb_registry[i]; i++)
        RB_CHECK(strstr(out, rb_registry[i]->name) != NULL);
    RB_CHECK(rbtest_run("list --filter '^copy_vec'") == 0);
    RB_CHECK(strstr(out, "copy_vectorized") && !strstr(out, "copy_coalescing"));
    rbtest_remove_dir();
}

static void test_unknown_flag(void)
{
    expect_usage_error("run --frobnicate", "unknown option '--frobnicate'");
}

static void test_unknown_command(void)
{
    expect_usage_error("sprint", "unknown command 'sprint'");
}

static void test_bad_sizes(void)
{
    expect_usage_error("run --size 12X", "--size");
    expect_usage_error("run --size 0", "--size");
    expect_usage_error("run --size 99999999999999999999", "too large");
    expect_usage_error("run --samples -3", "--samples");
}

static void test_filter_matching_nothing(void)
{
    expect_usage_error("run --filter '^no_such_pair$'", "no pair matches");
    expect_usage_error("run --filter '('", "--filter");
}

static void test_expectation_trailing_comma(void)
{
    rbtest_fresh_dir();
    write_file("e.json", "{\n  \"schema\": 1,\n}\n");
    int rc = rbtest_run("run --expect e.json");
    RB_CHECK(rc == 2 && count_lines(out) == 1);
    RB_CHECK(strstr(out, "e.json: line 3, column 1") != NULL ||
             strstr(out, "e.json: line 2") != NULL);
    RB_CHECK(nothing_written());
    rbtest_remove_dir();
}

static void test_expectation_duplicate_key(void)
{
    rbtest_fresh_dir();
    write_file("e.json", "{\"schema\": 1, \"schema\": 1}");
    RB_CHECK(rbtest_run("run --expect e.json") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "duplicate key \"schema\"") != NULL);
    RB_CHECK(nothing_written());
    rbtest_remove_dir();
}

static void test_expectation_wrong_type(void)
{
    rbtest_fresh_dir();
    write_file("e.json", "{\"schema\": 1, \"hardware\": {\"name\": \"X\"}, \"peaks\": "
                         "{\"dram_gbps\": \"fast\"}, \"ceilings\": {}, \"pairs\": {}}");
    RB_CHECK(rbtest_run("run --expect e.json") == 2);
    RB_CHECK(count_lines(out) == 1);
    RB_CHECK(strstr(out, "peaks.dram_gbps: expected a number, got string") != NULL);
    RB_CHECK(nothing_written());
    rbtest_remove_dir();
}

static void test_expectation_missing_file(void)
{
    expect_usage_error("run --expect nowhere.json", "nowhere.json: No such file or directory");
}

static void test_unwritable_results_folder(void)
{
    rbtest_fresh_dir();
    write_file("afile", "x");
    RB_CHECK(rbtest_run("run --results-dir afile/results") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "cannot write there") != NULL);
    RB_CHECK(rbtest_run("run --json afile/out.json") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "cannot write there") != NULL);
    RB_CHECK(nothing_written());
    rbtest_remove_dir();
}

static void test_no_gpu_run_exits_3_cleanly(void)
{
    if (rbtest_gpu_count() > 0) {
        rbtest_skip("a GPU is present");
        return;
    }
    const char *cmds[] = {"run", "check", "ceilings", "run --size smoke --filter copy"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        rbtest_fresh_dir();
        int rc = rbtest_run(cmds[i]);
        if (rc != 3 || count_lines(out) != 1)
            printf("    roofbench %s -> %d: %s", cmds[i], rc, out);
        RB_CHECK(rc == 3);
        RB_CHECK(count_lines(out) == 1);
        RB_CHECK(strstr(out, "no usable CUDA device") != NULL);
        RB_CHECK(nothing_written());
        rbtest_remove_dir();
    }
}

static const rbtest_case binary_cases[] = {
    {"help", test_help},
    {"list_names_every_pair", test_list_names_every_pair},
    {"unknown_flag", test_unknown_flag},
    {"unknown_command", test_unknown_command},
    {"bad_sizes", test_bad_sizes},
    {"filter_matching_nothing", test_filter_matching_nothing},
    {"expectation_trailing_comma", test_expectation_trailing_comma},
    {"expectation_duplicate_key", test_expectation_duplicate_key},
    {"expectation_wrong_type", test_expectation_wrong_type},
    {"expectation_missing_file", test_expectation_missing_file},
    {"unwritable_results_folder", test_unwritable_results_folder},
    {"no_gpu_run_exits_3_cleanly", test_no_gpu_run_exits_3_cleanly},
};

RB_SUITE(binary_suite, "binary", binary_cases);
