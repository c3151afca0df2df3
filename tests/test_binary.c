/* SPDX-License-Identifier: MIT */
/*
 * Tier 2: the roofbench binary's contract at its edges, run as a user would run it. Every bad
 * input must end with one clear line, exit 2 and nothing written; without a GPU, run exits 3.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/kit/pair.h"
#include "rbtest.h"

extern const rbtest_suite binary_suite;

static char tmp[256];
static char *out; /* the last run's whole output (a full check prints more than 16 KB) */

const char *rbtest_output(void)
{
    return out ? out : "";
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
    free(out);
    out = rbtest_read_file(log);
    unlink(log);
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
    RB_CHECK(strstr(out, "Exit codes") != NULL);
    RB_CHECK(rbtest_run("run --help") == 0);
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
    const char *cmds[] = {"run",
                          "check",
                          "ceilings",
                          "ceilings --quick",
                          "ceilings --links",
                          "run --size smoke --filter copy",
                          "run --no-ceilings",
                          "p2p",
                          "p2p --json m.json --html m.html"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        rbtest_fresh_dir();
        int rc = rbtest_run(cmds[i]);
        if (rc != 3 || count_lines(out) != 1)
            printf("    roofbench %s -> %d: %s", cmds[i], rc, out);
        RB_CHECK(rc == 3);
        RB_CHECK(count_lines(out) == 1);
        RB_CHECK(strstr(out, "no usable CUDA device") != NULL);
        /* not CUDA's "driver version is insufficient" (error 35), which misleads */
        RB_CHECK(strstr(out, "no NVIDIA driver or GPU was found") != NULL ||
                 strstr(out, "the NVIDIA driver sees no GPU") != NULL);
        RB_CHECK(nothing_written());
        rbtest_remove_dir();
    }
}


/* ---- hostile use ---- */

/* A pair's exact name selects all its rows (sgemm@1M..., histogram.uniform, ...). */
static void test_filter_pair_name_selects_its_rows(void)
{
    rbtest_fresh_dir();
    RB_CHECK(rbtest_run("list --filter '^histogram$'") == 0);
    RB_CHECK(strstr(out, "histogram") != NULL && strstr(out, "inputs: uniform, skewed") != NULL);
    RB_CHECK(rbtest_run("list --filter '^sgemm$'") == 0);
    RB_CHECK(strstr(out, "\nsgemm ") != NULL);
    if (rbtest_gpu_count() == 0) {
        /* past selection (exit 2: "no pair matches") to the GPU probe (exit 3) */
        RB_CHECK(rbtest_run("run --filter '^sgemm$'") == 3);
        RB_CHECK(rbtest_run("check --filter '^histogram$'") == 3);
    }
    RB_CHECK(rbtest_run("list --filter '^histogram[.]skewed$'") == 0);
    RB_CHECK(strstr(out, "histogram") != NULL);
    RB_CHECK(rbtest_run("list --filter '^sgem$'") == 2);
    rbtest_remove_dir();
}

/* list shows what a run at the selected size does: every point of a sweep, not the first one
 * under a header that says full size; bytes in a unit that shows them. */
static void test_list_work_of_a_sweep(void)
{
    rbtest_fresh_dir();
    RB_CHECK(rbtest_run("list --filter '^sgemm$'") == 0);
    RB_CHECK(strstr(out, "sweep") != NULL);
    RB_CHECK(strstr(out, "from 1024x1024") != NULL && strstr(out, "to 4096x4096") != NULL);
    RB_CHECK(rbtest_run("list --filter '^sgemm$' --size smoke") == 0);
    RB_CHECK(strstr(out, "work: 512x512") != NULL && strstr(out, "sweep of") == NULL);
    RB_CHECK(strstr(out, "below the full size") == NULL); /* sgemm times every variant */
    for (int i = 0; rb_registry[i]; i++)
        if (!strcmp(rb_registry[i]->name, "hgemm")) {
            RB_CHECK(rbtest_run("list --filter '^hgemm$'") == 0);
            RB_CHECK(strstr(out, "hgemm.square@36M times optimized, library\n") != NULL);
            RB_CHECK(strstr(out, "hgemm.awkward@16M times optimized, library, fp8, fp8_library") !=
                     NULL);
        }
    for (int i = 0; rb_registry[i]; i++)
        if (!strcmp(rb_registry[i]->name, "nccl_allreduce")) {
            RB_CHECK(rbtest_run("list --filter '^nccl_allreduce$'") == 0);
            RB_CHECK(strstr(out, "8 B over the link") != NULL);
            RB_CHECK(strstr(out, "to 1073741824 bytes (S)") != NULL);
            RB_CHECK(strstr(out, "e-09 GB") == NULL);
        }
    rbtest_remove_dir();
}

static void test_options_a_command_does_not_use(void)
{
    /* (list --json is the pairs as JSON: a file option is still refused) */
    expect_usage_error("list --csv x.csv --cold", "--csv does not go with list");
    expect_usage_error("check --expect e.json", "--expect does not go with check");
    expect_usage_error("ceilings --filter copy", "--filter does not go with ceilings");
    expect_usage_error("ceilings --expect none", "not --expect none");
    expect_usage_error("run --quick", "--quick does not go with run");
    expect_usage_error("ceilings --quick --expect none", "not --expect none");
    /* the platform reference is run's: nowhere else */
    expect_usage_error("ceilings --no-ceilings", "--no-ceilings does not go with ceilings");
    expect_usage_error("check --no-ceilings", "--no-ceilings does not go with check");
    expect_usage_error("list --no-ceilings", "--no-ceilings does not go with list");
    expect_usage_error("plot r.json --no-ceilings", "--no-ceilings does not go with plot");
    /* the P2P matrix: its own options, its files checked before the GPU */
    expect_usage_error("p2p --cold", "--cold does not go with p2p");
    expect_usage_error("p2p --device 1", "--device does not go with p2p");
    expect_usage_error("p2p --json /proc/m.json", "cannot write there");
    expect_usage_error("p2p --json m.json --html m.json", "m.json");
    expect_usage_error("ceilings --quick --links", "--quick or --links, not both");
    expect_usage_error("run --links", "--links does not go with run");
}

static void test_timeout_and_cap_bounds(void)
{
    expect_usage_error("run --timeout 1e300", "out of range (5 to 86400 seconds)");
    expect_usage_error("run --timeout 0.000001", "--timeout: '0.000001' is out of range");
    expect_usage_error("run --cap 1e300", "out of range (0.01 to 3600 seconds)");
    expect_usage_error("check --timeout 0.5", "--timeout");
}

/* A path longer than the longest accepted is refused before anything else, so no file is ever
 * written to a truncated name. */
static void test_long_paths_refused(void)
{
    char args[2400], name[1200];
    memset(name, 'a', 1100);
    name[1100] = '\0';
    snprintf(args, sizeof args, "run --json %s.json", name);
    expect_usage_error(args, "--json: the path is 1105 bytes long; at most 1024");
    snprintf(args, sizeof args, "run --update-expectations --expect %s", name);
    expect_usage_error(args, "--expect: the path is 1100 bytes long");
    snprintf(args, sizeof args, "ceilings --expect %s", name);
    expect_usage_error(args, "--expect: the path is 1100 bytes long");
    snprintf(args, sizeof args, "run --results-dir %s", name);
    expect_usage_error(args, "--results-dir: the path is 1100 bytes long");
}

/* --json and --update-expectations files that cannot be written are refused before the GPU
 * is touched (exit 2, not a whole run ending with the file lost). Root can write almost
 * anywhere, so "cannot write" is /proc (no file can be made there) or a path under a file. */
static void test_output_prechecks(void)
{
    expect_usage_error("run --json nodir/out.json", "the folder nodir does not exist");
    expect_usage_error("run --json /proc/x.json", "cannot write there");
    expect_usage_error("run --json .", "is a folder");
    expect_usage_error("run --json /tmp/", "is a folder");
    expect_usage_error("run --update-expectations --expect /proc/e.json", "cannot write there");
    expect_usage_error("run --update-expectations --expect /tmp", "/tmp: Is a directory");
    expect_usage_error("ceilings --expect /proc/e.json", "cannot write there");
    rbtest_fresh_dir();
    write_file("afile", "x");
    RB_CHECK(rbtest_run("run --update-expectations --expect afile/e.json") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "cannot write there") != NULL);
    write_file("expectations", "not a folder");
    RB_CHECK(rbtest_run("run --update-expectations") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "expectations") != NULL);
    RB_CHECK(rbtest_run("ceilings") == 2);
    RB_CHECK(!exists("results") && !exists("out.json"));
    rbtest_remove_dir();
}

/* --csv FILE: the same checks as --json, before any GPU work; only run takes it. */
static void test_csv_prechecks(void)
{
    expect_usage_error("run --csv nodir/t.csv", "the folder nodir does not exist");
    expect_usage_error("run --csv /proc/t.csv", "cannot write there");
    expect_usage_error("run --csv .", "is a folder");
    expect_usage_error("run --csv", "--csv needs a value");
    expect_usage_error("check --csv t.csv", "--csv does not go with check");
    expect_usage_error("list --csv t.csv", "--csv does not go with list");
    rbtest_fresh_dir();
    write_file("afile", "x");
    /* a sound --json does not let a bad --csv through */
    RB_CHECK(rbtest_run("run --json out.json --csv afile/t.csv") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "afile/t.csv: cannot write there") != NULL);
    RB_CHECK(!exists("out.json") && !exists("results"));
    rbtest_remove_dir();
}

static void test_implausible_ceiling_refused(void)
{
    rbtest_fresh_dir();
    write_file("e.json", "{\"schema\": 1, \"hardware\": {\"name\": \"X\"}, \"peaks\": "
                         "{\"dram_gbps\": 3352}, \"ceilings\": {\"dram_gbps\": 33520}, "
                         "\"pairs\": {}}");
    RB_CHECK(rbtest_run("run --expect e.json") == 2);
    RB_CHECK(count_lines(out) == 1);
    RB_CHECK(strstr(out, "e.json: ceilings.dram_gbps: 33520 is above the datasheet peak") != NULL);
    write_file("e.json", "{\"schema\": 1, \"hardware\": {\"name\": \"X\"}, \"peaks\": "
                         "{\"dram_gbps\": 0}, \"ceilings\": {}, \"pairs\": {}}");
    RB_CHECK(rbtest_run("run --expect e.json") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "peaks.dram_gbps: must be positive") != NULL);
    RB_CHECK(nothing_written());
    rbtest_remove_dir();
}

/* A byte-order mark and /dev/zero as expectation files: one clear line, exit 2. */
static void test_bom_and_endless_expectation_file(void)
{
    rbtest_fresh_dir();
    write_file("e.json", "\xEF\xBB\xBF{\"schema\": 1}");
    RB_CHECK(rbtest_run("run --expect e.json") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "byte-order mark") != NULL);
    RB_CHECK(rbtest_run("run --expect /dev/zero") == 2);
    RB_CHECK(count_lines(out) == 1 && strstr(out, "larger than 64 MiB") != NULL);
    RB_CHECK(nothing_written());
    rbtest_remove_dir();
}

/* Starts roofbench in a process group of its own (as a shell job is), its probe child hanging
 * (RB_TEST_FAULT=probe:hang, before any CUDA call), and sends sig after 0.5 s: to the whole
 * group (a terminal's Ctrl-C) or to roofbench alone (kill PID). Returns the exit status
 * (-1: killed by a signal, -2: still running after 5 s) and the seconds it took to exit. */
static int interrupted_run(int sig, int to_group, double *exit_s)
{
    char bin[1024], log[300];
    if (rbtest_binary[0] == '/')
        snprintf(bin, sizeof bin, "%s", rbtest_binary);
    else if (!getcwd(bin, sizeof bin - 300))
        return -3;
    else
        snprintf(bin + strlen(bin), sizeof bin - strlen(bin), "/%s", rbtest_binary);
    snprintf(log, sizeof log, "%s/.log", tmp);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        if (chdir(tmp) != 0 || !freopen(log, "w", stdout) || dup2(1, 2) < 0)
            _exit(99);
        setenv("RB_TEST_FAULT", "probe:hang", 1);
        execl(bin, bin, "run", (char *)NULL);
        _exit(98);
    }
    setpgid(pid, pid);
    struct timespec half = {0, 500000000};
    nanosleep(&half, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kill(to_group ? -pid : pid, sig);
    int status = 0, rc = -2;
    for (int i = 0; i < 500; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            break;
        }
        struct timespec tick = {0, 10000000};
        nanosleep(&tick, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *exit_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    /* Whatever is left of the group (a child roofbench failed to end) is a failure: end it. */
    if (kill(-pid, 0) == 0) {
        printf("    processes of the run are still alive after it exited\n");
        rc = -4;
        kill(-pid, SIGKILL);
    }
    if (rc == -2)
        waitpid(pid, &status, 0);
    free(out);
    out = rbtest_read_file(log);
    unlink(log);
    return rc;
}

static void interrupt_case(int sig, int to_group, int want_rc, const char *name)
{
    rbtest_fresh_dir();
    double exit_s = 0;
    int rc = interrupted_run(sig, to_group, &exit_s);
    if (rc != want_rc || exit_s > 2.0 || count_lines(out) != 1)
        printf("    %s to the %s -> %d after %.2f s: %s", name, to_group ? "group" : "parent", rc,
               exit_s, out);
    RB_CHECK(rc == want_rc);
    RB_CHECK(exit_s < 2.0);
    RB_CHECK(count_lines(out) == 1);
    char want[64];
    snprintf(want, sizeof want, "interrupted by %s", name);
    RB_CHECK(strstr(out, want) != NULL);
    RB_CHECK(nothing_written());
    /* no temporary or partial file either: the folder holds nothing at all */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", tmp);
    RB_CHECK(system(cmd) == 0);
    rbtest_remove_dir();
}

static void test_ctrl_c_ends_child_and_run(void)
{
    interrupt_case(SIGINT, 1, 130, "SIGINT");
    interrupt_case(SIGINT, 0, 130, "SIGINT");
}

static void test_sigterm_ends_child_and_run(void)
{
    interrupt_case(SIGTERM, 1, 143, "SIGTERM");
    interrupt_case(SIGTERM, 0, 143, "SIGTERM");
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
    {"filter_pair_name_selects_its_rows", test_filter_pair_name_selects_its_rows},
    {"list_work_of_a_sweep", test_list_work_of_a_sweep},
    {"options_a_command_does_not_use", test_options_a_command_does_not_use},
    {"timeout_and_cap_bounds", test_timeout_and_cap_bounds},
    {"long_paths_refused", test_long_paths_refused},
    {"output_prechecks", test_output_prechecks},
    {"csv_prechecks", test_csv_prechecks},
    {"implausible_ceiling_refused", test_implausible_ceiling_refused},
    {"bom_and_endless_expectation_file", test_bom_and_endless_expectation_file},
    {"ctrl_c_ends_child_and_run", test_ctrl_c_ends_child_and_run},
    {"sigterm_ends_child_and_run", test_sigterm_ends_child_and_run},
};

RB_SUITE(binary_suite, "binary", binary_cases);
