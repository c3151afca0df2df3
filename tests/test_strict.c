/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 and 2: history, plot and compare as strict as run, each case as a hostile or careless
 * user met it. An output never replaces a file history read (a file it skipped, the expectation
 * file); a run is counted once, is one GPU's, names each pair once and is placed by a date that
 * is one; a comparison or history of nothing fails; names and paths reach a terminal shown, not
 * obeyed; a standard output that cannot be written is exit 2 with nothing written; every signal
 * that ends the process leaves no temporary; node documents are read by --gpu N; the build takes
 * any checkout path and one architecture; a --filter cannot take minutes; and the smaller ones.
 */
#define _XOPEN_SOURCE 700 /* symlink, mkfifo */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/model/json.h"
#include "../harness/report/p2p_table.h"
#include "../harness/model/util.h"
#include "rbtest.h"
#include "xml_check.h"

/* ---- the folder and the binary ---- */

static char dir[256];

static void fresh(void)
{
    rb_fmt(dir, sizeof dir, "%s", rbtest_fresh_dir());
}

static void path_in(char *out, size_t size, const char *name)
{
    rb_fmt(out, size, "%s/%s", dir, name);
}

static char *get_text(const char *name)
{
    char p[600];
    path_in(p, sizeof p, name);
    return rbtest_read_file(p);
}

static int exists(const char *name)
{
    char p[600];
    struct stat st;
    path_in(p, sizeof p, name);
    return lstat(p, &st) == 0;
}

/* The folder holds exactly n entries besides the runner's log: no temporary, no output. */
static int entries(int n)
{
    char cmd[700];
    rb_fmt(cmd, sizeof cmd, "test \"$(ls -A '%s' | grep -v '^\\.log$' | wc -l)\" -eq %d", dir, n);
    return system(cmd) == 0;
}

static void binary_path(char *bin, size_t size)
{
    if (rbtest_binary[0] == '/')
        rb_fmt(bin, size, "%s", rbtest_binary);
    else if (getcwd(bin, size > 300 ? size - 300 : size))
        rb_fmt(bin + strlen(bin), size - strlen(bin), "/%s", rbtest_binary);
}

/* roofbench args: exit code want, and the output holding needle (NULL: anything). */
static int run_expect(const char *args, int want, const char *needle)
{
    int rc = rbtest_run(args);
    int ok = rc == want && (!needle || strstr(rbtest_output(), needle));
    if (!ok)
        printf("    roofbench %s -> %d (want %d, '%s'): %.2000s", args, rc, want,
               needle ? needle : "", rbtest_output());
    return ok;
}

/* A shell line run in the folder, `B` standing for the binary: its exit status. */
static int shell(const char *line)
{
    char cmd[3000], bin[1024];
    binary_path(bin, sizeof bin);
    rb_fmt(cmd, sizeof cmd, "cd '%s' && B='%s' bash -c '%s' > /dev/null 2>&1 < /dev/null", dir, bin,
           line);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- results documents ---- */

static json_value *variant_rec(const char *name, double median_ms, int valid)
{
    json_value *v = json_new_object(), *t = json_new_object();
    json_set_string(v, "name", name);
    json_set_string(v, "role", "baseline");
    json_set_bool(v, "valid", valid);
    json_set_bool(v, "timed", 1);
    json_set_string(v, "roof", "dram_gbps");
    json_set_number(t, "median", median_ms);
    json_set_number(t, "median_ci_lo", median_ms * 0.999);
    json_set_number(t, "median_ci_hi", median_ms * 1.001);
    json_set_number(t, "noise", 0.01);
    json_set_number(t, "samples", 100);
    json_object_set(v, "time_ms", t);
    return v;
}

static json_value *pair_rec(const char *name, double size, json_value *variants)
{
    json_value *p = json_new_object();
    json_set_string(p, "name", name);
    json_set_number(p, "size", size);
    json_set_number(p, "flops", 0);
    json_object_set(p, "variants", variants);
    return p;
}

/* A run of n pairs p<i> of one variant each at median_ms, on the GPU of key, at date. */
static json_value *run_doc(int n, double median_ms, const char *key, const char *date)
{
    json_value *d = json_new_object(), *env = json_new_object(), *start = json_new_object();
    json_value *pairs = json_new_array();
    char name[32];
    json_set_number(d, "schema", 1);
    json_set_string(d, "tool", "roofbench");
    json_set_string(d, "git", "abc1234");
    if (date)
        json_set_string(d, "date", date);
    json_set_string(d, "hardware_key", key);
    json_set_string(start, "device", "NVIDIA H100 80GB HBM3");
    json_object_set(env, "start", start);
    json_object_set(d, "environment", env);
    for (int i = 0; i < n; i++) {
        json_value *vs = json_new_array();
        json_array_push(vs, variant_rec("baseline", median_ms, 1));
        rb_fmt(name, sizeof name, "p%d", i);
        json_array_push(pairs, pair_rec(name, 1024, vs));
    }
    json_object_set(d, "pairs", pairs);
    return d;
}

#define H100 "nvidia-h100-80gb-hbm3"

static json_value *run_at(double median_ms, const char *date)
{
    return run_doc(3, median_ms, H100, date);
}

static void put_doc(const char *name, json_value *doc)
{
    char p[600], err[800];
    path_in(p, sizeof p, name);
    if (json_write_file(p, doc, err, sizeof err) != 0)
        printf("    cannot write %s: %s\n", p, err);
    json_free(doc);
}

static void put_text(const char *name, const char *text)
{
    char p[600];
    path_in(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A.json, B.json, C.json: three runs of one GPU in date order, C 20% slower. */
static void three_runs(void)
{
    put_doc("A.json", run_at(1.0, "2026-11-20T00:00:00Z"));
    put_doc("B.json", run_at(1.0, "2026-11-21T00:00:00Z"));
    put_doc("C.json", run_at(1.2, "2026-11-22T00:00:00Z"));
}

/* The text of name equals what it was (before, owned and freed). */
static int unchanged(const char *name, char *before)
{
    char *now = get_text(name);
    int same = before && now && !strcmp(before, now);
    free(before);
    free(now);
    return same;
}

/* The repository's own file at rel (tests run from its root), copied into the folder as name. */
static int copy_in(const char *rel, const char *name)
{
    char cmd[1400], cwd[600];
    if (!getcwd(cwd, sizeof cwd))
        return 0;
    rb_fmt(cmd, sizeof cmd, "cp '%s/%s' '%s/%s'", cwd, rel, dir, name);
    return system(cmd) == 0;
}

/* ---- 1. history never replaces what it reads ---- */

static void refused_and_kept(const char *args, const char *kept)
{
    char *before = get_text(kept);
    RB_CHECK(run_expect(args, 2, "would replace an input"));
    RB_CHECK(unchanged(kept, before));
}

static void test_history_never_replaces_what_it_read(void)
{
    fresh();
    three_runs();
    /* a node document history skips, the output's name */
    put_text("clean.json", "{\"schema\": 1, \"kind\": \"node\", \"gpus\": []}");
    refused_and_kept("history clean.json A.json B.json -o clean", "clean.json");
    /* a p2p document in the folder read */
    put_text("p2p.json", "{\"schema\": 1, \"kind\": \"p2p\", \"p2p_matrix\": {}}");
    refused_and_kept("history . -o p2p", "p2p.json");
    /* a file that is not JSON at all */
    put_text("notes.json", "not JSON");
    refused_and_kept("history . -o notes", "notes.json");
    /* the expectation file, given or found */
    RB_CHECK(copy_in("expectations/" H100 ".json", "E.json"));
    refused_and_kept("history A.json B.json --expect E.json -o E", "E.json");
    refused_and_kept("history A.json B.json --expect ./E.json -o ../$(basename $PWD)/E", "E.json");
    RB_CHECK(!exists("E.svg") && !exists("E.md") && !exists("clean.svg") && !exists("p2p.svg"));
    RB_CHECK(run_expect("history A.json B.json --expect E.json -o trend", 0, "history: trend.svg"));
    rbtest_remove_dir();
}

/* ---- 2. a run counted once ---- */

static void test_history_counts_a_run_once(void)
{
    fresh();
    three_runs();
    /* C named twice: its second copy would confirm C's move as a step */
    RB_CHECK(
        run_expect("history A.json B.json C.json C.json --expect none", 0, "history: 3 run(s)"));
    RB_CHECK(strstr(rbtest_output(), "skipped C.json: the same run as C.json (counted once)"));
    RB_CHECK(strstr(rbtest_output(), "0 step, 3 moved"));
    /* a copy beside it, reformatted: the same values */
    char *c = get_text("C.json");
    char err[300];
    json_value *doc = c ? json_parse(c, strlen(c), err, sizeof err) : NULL;
    char *minified = doc ? json_write(doc, 0) : NULL;
    if (minified)
        put_text("C-copy.json", minified);
    free(c);
    free(minified);
    json_free(doc);
    RB_CHECK(run_expect("history . --expect none", 0, "history: 3 run(s)"));
    RB_CHECK(strstr(rbtest_output(), "the same run as") && strstr(rbtest_output(), "3 moved"));
    /* the folder and a file in it */
    RB_CHECK(run_expect("history . C.json --expect none", 0, "history: 3 run(s)"));
    rbtest_remove_dir();
}

/* ---- 3. a pair twice in one run ---- */

static void test_history_refuses_a_pair_twice(void)
{
    fresh();
    three_runs();
    json_value *d = run_at(1.0, "2026-11-23T00:00:00Z"), *vs = json_new_array();
    json_array_push(vs, variant_rec("baseline", 1.15, 1)); /* a second p0, 15% slower */
    json_array_push(json_get(d, "pairs"), pair_rec("p0", 1024, vs));
    put_doc("D.json", d);
    RB_CHECK(run_expect("history A.json B.json D.json --expect none", 2,
                        "D.json: pair p0 appears twice"));
    RB_CHECK(run_expect("history . --expect none", 2, "appears twice"));
    rbtest_remove_dir();
}

/* ---- 4. one GPU ---- */

static void test_history_follows_one_gpu(void)
{
    fresh();
    three_runs();
    put_doc("H200.json", run_doc(3, 0.7, "nvidia-h200", "2026-11-23T00:00:00Z"));
    RB_CHECK(run_expect("history A.json B.json H200.json --expect none", 2,
                        "the runs are of more than one GPU"));
    RB_CHECK(strstr(rbtest_output(), "nvidia-h200") && strstr(rbtest_output(), H100));
    /* another GPU's expectation file: said, as compare says it */
    RB_CHECK(copy_in("expectations/nvidia-h200.json", "e200.json"));
    RB_CHECK(run_expect("history A.json B.json C.json --expect e200.json", 0,
                        "e200.json was recorded on NVIDIA H200, but the history ran on " H100));
    rbtest_remove_dir();
}

/* ---- 5. a gate that compared nothing fails ---- */

static void test_nothing_compared_fails(void)
{
    fresh();
    three_runs();
    json_value *d = run_at(1.0, "2026-11-23T00:00:00Z"), *pairs = json_get(d, "pairs");
    for (size_t i = 0; i < pairs->count; i++) /* every variant invalid */
        json_set_bool(json_get(pairs->items[i], "variants")->items[0], "valid", 0);
    put_doc("invalid.json", d);
    d = run_at(1.0, "2026-11-23T00:00:00Z");
    pairs = json_get(d, "pairs");
    for (size_t i = 0; i < pairs->count; i++) { /* every pair skipped */
        json_object_set(pairs->items[i], "variants", json_new_array());
        json_set_string(pairs->items[i], "skipped", "needs 2 GPUs");
    }
    put_doc("skipped.json", d);
    d = run_at(1.0, "2026-11-23T00:00:00Z");
    pairs = json_get(d, "pairs");
    for (size_t i = 0; i < pairs->count; i++) /* no name in common */
        json_set_string(pairs->items[i], "name", i == 0 ? "q0" : i == 1 ? "q1" : "q2");
    put_doc("other.json", d);
    d = run_at(1.0, "2026-11-23T00:00:00Z");
    pairs = json_get(d, "pairs");
    for (size_t i = 0; i < pairs->count; i++) /* another size */
        json_set_number(pairs->items[i], "size", 2048);
    put_doc("size.json", d);
    static const char *const x[] = {"invalid.json", "skipped.json", "other.json", "size.json"};
    char args[300];
    for (int i = 0; i < 4; i++) {
        rb_fmt(args, sizeof args, "compare A.json %s --expect none --json c.json", x[i]);
        RB_CHECK(run_expect(args, 2, "no variant was compared"));
        RB_CHECK(!exists("c.json"));
    }
    RB_CHECK(run_expect("compare A.json C.json --expect none --filter nomatch", 2,
                        "--filter 'nomatch' matches no variant"));
    RB_CHECK(run_expect("history A.json B.json C.json --expect none --filter nomatch -o h", 2,
                        "--filter 'nomatch' matches no series"));
    RB_CHECK(run_expect("history invalid.json --expect none", 2, "nothing to follow"));
    RB_CHECK(!exists("h.svg") && !exists("h.md") && !exists("h.json"));
    RB_CHECK(run_expect("compare A.json C.json --expect none", 1, NULL)); /* (still a gate) */
    rbtest_remove_dir();
}

/* ---- 6. a terminal sees no control character ---- */

/* No ESC, BEL or other control character but newline and tab, and no line a name forged. */
static int shown_not_obeyed(const char *out)
{
    for (const char *c = out; *c; c++)
        if ((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t')
            return 0;
    return !strstr(out, "\nforged") && rb_test_text_problem(out, 0) == NULL;
}

static void test_no_control_character_reaches_the_terminal(void)
{
    fresh();
    static const char *const evil = "\x1b[31mred\x07\nforged \xff";
    json_value *a = run_at(1.0, "2026-11-20T00:00:00Z"), *b = run_at(1.3, "2026-11-21T00:00:00Z");
    json_value *docs[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        json_value *p0 = json_get(docs[k], "pairs")->items[0];
        json_set_string(docs[k], "git", evil);
        json_set_string(p0, "name", evil);
        json_set_string(json_get(p0, "variants")->items[0], "name", evil);
    }
    put_doc("a.json", a);
    put_doc("b.json", b);
    json_value *bad_date = run_at(1.0, NULL);
    json_set_string(bad_date, "date", evil);
    put_doc("d\x1b[2Jate.json", bad_date);
    put_text("not\x1b]0;title\x07.json", "{\"pairs\": [");
    RB_CHECK(run_expect("history . --expect none -o h", 0, "history: 2 run(s)"));
    RB_CHECK(shown_not_obeyed(rbtest_output()));
    RB_CHECK(strstr(rbtest_output(), "\\x1B[31mred\\x07\\x0Aforged "));
    /* plot's and history's status lines name files whose names hold controls */
    RB_CHECK(run_expect("plot a.json -o \"$(printf 'p\\033[31m')\"", 0, "plot: p\\x1B[31m.svg"));
    RB_CHECK(shown_not_obeyed(rbtest_output()));
    RB_CHECK(run_expect("history a.json b.json --expect none -o \"$(printf 'h\\033[31m')\"", 0,
                        "history: h\\x1B[31m.svg"));
    RB_CHECK(shown_not_obeyed(rbtest_output()));
    /* compare --md with a path that is not UTF-8; --csv with ESC in the file's names */
    RB_CHECK(shell("cp b.json \"$(printf \"\\377\\376\")-x.json\"") == 0);
    RB_CHECK(run_expect("compare a.json \"$(printf '\\377\\376')-x.json\" --expect none --md", 1,
                        "-x.json"));
    RB_CHECK(rb_test_text_problem(rbtest_output(), 0) == NULL);
    RB_CHECK(run_expect("compare a.json b.json --expect none --csv", 1, "\r\n"));
    RB_CHECK(!strchr(rbtest_output(), '\x1b') && !strchr(rbtest_output(), '\x07'));
    rbtest_remove_dir();
}

/* ---- 7. dates checked ---- */

static void test_history_checks_dates(void)
{
    fresh();
    put_doc("A.json", run_at(1.0, "2026-11-20T00:00:00Z"));
    put_doc("B.json", run_at(1.0, "2026-11-21T00:00:00Z"));
    /* 50% slower, each: the latest run if taken */
    put_doc("missing.json", run_at(1.5, NULL));
    put_doc("yesterday.json", run_at(1.5, "yesterday"));
    json_value *d = run_at(1.5, NULL);
    json_set_number(d, "date", 20261122);
    put_doc("number.json", d);
    put_doc("future.json", run_at(1.5, "2099-01-01T00:00:00Z"));
    put_doc("feb30.json", run_at(1.5, "2026-02-30T00:00:00Z"));
    RB_CHECK(run_expect("history . --expect none", 0, "history: 2 run(s)"));
    const char *out = rbtest_output();
    RB_CHECK(strstr(out, "skipped ./missing.json: it has no date") &&
             strstr(out, "skipped ./number.json: it has no date string"));
    RB_CHECK(strstr(out, "skipped ./yesterday.json: its date \"yesterday\" is not a UTC time"));
    RB_CHECK(strstr(out, "skipped ./feb30.json: its date \"2026-02-30T00:00:00Z\" is not"));
    RB_CHECK(strstr(out, "skipped ./future.json: its date 2099-01-01T00:00:00Z is after"));
    RB_CHECK(strstr(out, "0 moved") && strstr(out, "3 steady"));
    rbtest_remove_dir();
}

/* ---- 8. a standard output that cannot be written leaves no file ---- */

static void test_stdout_failure_writes_nothing(void)
{
    fresh();
    three_runs();
    RB_CHECK(shell("\"$B\" plot A.json -o p > /dev/full") == 2 && entries(3));
    RB_CHECK(shell("\"$B\" history A.json B.json --expect none -o h > /dev/full") == 2 &&
             entries(3));
    RB_CHECK(shell("\"$B\" compare A.json B.json --expect none --json c.json >&-") == 2 &&
             entries(3));
    /* a failing comparison whose report is lost: 2, not 1 */
    RB_CHECK(shell("\"$B\" compare A.json C.json --expect none > /dev/full") == 2);
    /* a pipe closed early: 2 and nothing written, not SIGPIPE's 141 */
    put_doc("F.json", run_doc(3000, 1.0, H100, "2026-11-20T00:00:00Z"));
    put_doc("G.json", run_doc(3000, 1.0, H100, "2026-11-21T00:00:00Z"));
    RB_CHECK(shell("\"$B\" history F.json G.json --expect none -o h | head -n 1; "
                   "exit ${PIPESTATUS[0]}") == 2);
    RB_CHECK(entries(5));
    rbtest_remove_dir();
}

/* ---- 9. no temporary left by any signal that ends the process ---- */

/* Starts roofbench argv with RB_TEST_FAULT=stall:rename in the folder, sends sig after 0.4 s:
 * the signal it died of (or 256 + its exit code; -1: still alive after 2 s, then killed). */
static int signal_at_rename(char *const argv_in[], int sig)
{
    char bin[1024];
    binary_path(bin, sizeof bin);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0 || !freopen("/dev/null", "w", stdout) ||
            !freopen("/dev/null", "w", stderr))
            _exit(99);
        setenv("RB_TEST_FAULT", "stall:rename", 1);
        /* a signal this test was started ignoring (nohup: SIGHUP; a background job of a
         * non-interactive shell: SIGQUIT) stays ignored in roofbench, as it should: the child
         * starts from the default, so that the test judges the handler, not how it was run */
        signal(sig, SIG_DFL);
        execv(bin, argv_in);
        _exit(98);
    }
    struct timespec wait = {0, 400000000}, tick = {0, 10000000};
    nanosleep(&wait, NULL);
    kill(pid, sig);
    int status = 0;
    for (int i = 0; i < 200; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFSIGNALED(status) ? WTERMSIG(status) : 256 + WEXITSTATUS(status);
        nanosleep(&tick, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

static void test_every_fatal_signal_cleans_up(void)
{
    char bin[] = "roofbench";
    char *cmp[] = {bin,      "compare", "A.json", "B.json", "--expect", "none",
                   "--json", "c.json",  "--html", "c.html", NULL};
    char *plot[] = {bin, "plot", "A.json", "-o", "p.svg", "--html", NULL};
    char *hist[] = {bin, "history", "A.json", "B.json", "--expect", "none", "-o", "h", NULL};
    int sigs[] = {SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT};
    fresh();
    put_doc("A.json", run_at(1.0, "2026-11-20T00:00:00Z"));
    put_doc("B.json", run_at(1.0, "2026-11-21T00:00:00Z"));
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        int a = signal_at_rename(cmp, sigs[k]), b = signal_at_rename(plot, sigs[k]),
            c = signal_at_rename(hist, sigs[k]);
        if (a != sigs[k] || b != sigs[k] || c != sigs[k])
            printf("    signal %d: compare %d, plot %d, history %d\n", sigs[k], a, b, c);
        RB_CHECK(a == sigs[k] && b == sigs[k] && c == sigs[k]);
        RB_CHECK(entries(2)); /* no temporary, no output */
    }
    rbtest_remove_dir();
}

/* ---- 10. node and fleet documents: one GPU's run by --gpu N ---- */

/* One line of a P2P measurement (report/p2p_table.h) into matrix m: 0, or -1. */
static int add_p2p_line(json_value *m, const char *text)
{
    char err[200];
    json_value *line = json_parse(text, strlen(text), err, sizeof err);
    int rc = line ? rb_p2p_add_line(m, line, err, sizeof err) : -1;
    if (rc != 0)
        printf("    p2p line refused: %s\n", err);
    json_free(line);
    return rc;
}

static void test_node_documents_by_gpu(void)
{
    fresh();
    json_value *node = json_new_object(), *gpus = json_new_array();
    json_set_number(node, "schema", 1);
    json_set_string(node, "tool", "roofbench");
    json_set_string(node, "kind", "node");
    json_set_string(node, "hardware_key", H100 "-x2");
    for (int g = 0; g < 2; g++) {
        json_value *gpu = json_new_object();
        json_set_number(gpu, "device_index", g);
        json_object_set(gpu, "run", run_at(1.0 + g, "2026-11-20T00:00:00Z"));
        json_array_push(gpus, gpu);
    }
    json_object_set(node, "gpus", gpus);
    json_value *vs = json_new_array();
    json_array_push(vs, variant_rec("nccl", 3.0, 1));
    json_value *coll = json_new_array();
    json_array_push(coll, pair_rec("nccl_allreduce@1G", 1 << 30, vs));
    json_object_set(node, "collectives", coll);
    json_value *p2p = rb_p2p_new();
    RB_CHECK(p2p && add_p2p_line(p2p, "{\"type\": \"p2p_gpus\", \"method\": {\"oneway\": \"o\"},"
                                      " \"gpus\": [{\"index\": 0}, {\"index\": 1}]}") == 0);
    for (int g = 0; g < 2; g++) {
        char line[300];
        rb_fmt(line, sizeof line,
               "{\"type\": \"p2p_cell\", \"src\": %d, \"dst\": %d, \"peer_access\": true, "
               "\"perf_rank\": 0, \"kind\": \"oneway\", \"value\": 389, \"noise\": 0.01, "
               "\"samples\": 20}",
               g, 1 - g);
        RB_CHECK(add_p2p_line(p2p, line) == 0);
    }
    RB_CHECK(rb_p2p_judge(p2p, NULL, NULL) == 0);
    json_object_set(node, "p2p_matrix", p2p);
    put_doc("node.json", node);
    put_doc("A.json", run_at(1.0, "2026-11-20T00:00:00Z"));
    RB_CHECK(run_expect("plot node.json --html", 2,
                        "a node document of 2 GPU(s), not one GPU's "
                        "run: name one with --gpu N (0 to 1)"));
    RB_CHECK(run_expect("plot node.json --gpu 1 -o n --html", 0, "plot: n.svg"));
    char *html = get_text("n.html");
    RB_CHECK(html && strstr(html, "<h2>P2P matrix</h2>") && strstr(html, "nccl_allreduce@1G"));
    free(html);
    RB_CHECK(run_expect("compare node.json node.json --gpu 0 --expect none", 0, "4 same"));
    RB_CHECK(run_expect("compare A.json node.json --gpu 1 --expect none", 1, "slower"));
    RB_CHECK(
        run_expect("compare node.json node.json --gpu 2 --expect none", 2, "has no run of GPU 2"));
    RB_CHECK(run_expect("compare A.json A.json --gpu 0 --expect none", 2, "no input is one"));
    /* history skips it, saying why */
    put_doc("B.json", run_at(1.0, "2026-11-21T00:00:00Z"));
    RB_CHECK(run_expect("history . --expect none", 0, "a node document of 2 GPU(s)"));
    rbtest_remove_dir();
}

/* ---- 11. the build ---- */

static void test_build_takes_any_path_and_one_arch(void)
{
    char cmd[3000], cwd[600], odd[700];
    if (!getcwd(cwd, sizeof cwd) || system("command -v make > /dev/null 2>&1") != 0) {
        rbtest_skip("make is not installed");
        return;
    }
    fresh();
    /* a checkout path holding a double quote, a backslash and a single quote */
    rb_fmt(odd, sizeof odd, "%s/q\"x\\y'z", dir);
    RB_CHECK(mkdir(odd, 0755) == 0);
    /* (reached through a link of a plain name, the shell's quoting left out of it) */
    char link[700];
    path_in(link, sizeof link, "plain");
    RB_CHECK(symlink(odd, link) == 0);
    rb_fmt(cmd, sizeof cmd,
           /* (a make of its own: not the flags of a make test that runs this one) */
           "cd '%s/plain' && cd \"$(pwd -P)\" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "
           "make -s -f '%s/Makefile' ARCH=sm_90 SANITIZE= "
           "GIT_REV='r\"e\\v' build/sm_90/version.c > /dev/null 2>&1 && "
           "printf '#include <stdio.h>\\nextern const char rb_source_root[], rb_git_rev[];\\n"
           "int main(void) { printf(\"%%%%s|%%%%s\", rb_source_root, rb_git_rev); return 0; }\\n' "
           "> m.c && gcc -I'%s/harness/runner' -I'%s/harness' -I'%s/harness/kit' "
           "-I/usr/local/cuda/include build/sm_90/version.c m.c -o m 2> /dev/null && ./m > out.txt",
           dir, cwd, cwd, cwd, cwd);
    RB_CHECK(system(cmd) == 0);
    char out_path[800], want[900];
    rb_fmt(out_path, sizeof out_path, "%s/out.txt", odd);
    char *got = rbtest_read_file(out_path);
    rb_fmt(want, sizeof want, "%s|r\"e\\v", odd);
    if (!got || strcmp(got, want))
        printf("    version.c gave '%s', want '%s'\n", got ? got : "(nothing)", want);
    RB_CHECK(got && !strcmp(got, want));
    free(got);
    /* a list of architectures is refused at once, by name */
    rb_fmt(cmd, sizeof cmd,
           "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n 'ARCH=sm_90 sm_80' > "
           "'%s/arch.txt' 2>&1",
           cwd, dir);
    RB_CHECK(system(cmd) != 0);
    char *arch = get_text("arch.txt");
    RB_CHECK(arch && strstr(arch, "ARCH=sm_90 sm_80 is not one architecture"));
    free(arch);
    rbtest_remove_dir();
}

/* ---- 12. a --filter that would take minutes ---- */

static void test_filters_cannot_take_minutes(void)
{
    static const char *const backref =
        "'(.*)(.*)(.*)(.*)(.*)(.*)(.*)(.*)\\8\\7\\6\\5\\4\\3\\2\\1X'";
    char args[600];
    struct timespec t0, t1;
    fresh();
    three_runs();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rb_fmt(args, sizeof args, "list --filter %s", backref);
    RB_CHECK(run_expect(args, 2, "is a back-reference"));
    rb_fmt(args, sizeof args, "compare A.json C.json --filter %s", backref);
    RB_CHECK(run_expect(args, 2, "is a back-reference"));
    rb_fmt(args, sizeof args, "history . --filter %s", backref);
    RB_CHECK(run_expect(args, 2, "is a back-reference"));
    RB_CHECK(run_expect("list --filter '((a{1,100}){1,100}){1,100}'", 2, "multiply to more"));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    RB_CHECK(s < 10);
    /* what the docs promise still works: brackets, classes, bounded repetition, \. */
    RB_CHECK(run_expect("list --filter '^s[[:alpha:]]emm$'", 0, "sgemm"));
    RB_CHECK(run_expect("list --filter '^sg{1,2}emm$'", 0, "sgemm"));
    RB_CHECK(run_expect("list --filter '^[\\1]?sgemm\\.?$'", 0, "sgemm"));
    rbtest_remove_dir();
}

/* ---- 13. the smaller ones ---- */

static void test_full_disk_is_not_out_of_memory(void)
{
    fresh();
    three_runs();
    static const char *const cmds[] = {"compare A.json C.json --expect none --csv",
                                       "compare A.json C.json --expect none --md",
                                       "compare A.json C.json --expect none", "plot A.json -o p"};
    char line[300], bin[1024], cmd[1600];
    binary_path(bin, sizeof bin);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        rb_fmt(cmd, sizeof cmd, "cd '%s' && '%s' %s > /dev/full 2> err.txt; echo $? > rc.txt", dir,
               bin, cmds[i]);
        RB_CHECK(system(cmd) == 0);
        char *err = get_text("err.txt"), *rc = get_text("rc.txt");
        rb_fmt(line, sizeof line, "%s", err ? err : "");
        if (!err || strstr(err, "out of memory") || !strstr(err, "No space left on device") ||
            !rc || atoi(rc) != 2)
            printf("    %s > /dev/full: exit %s, %s", cmds[i], rc ? rc : "?", line);
        RB_CHECK(err && !strstr(err, "out of memory") && strstr(err, "No space left on device"));
        RB_CHECK(rc && atoi(rc) == 2);
        free(err);
        free(rc);
    }
    RB_CHECK(!exists("p.svg"));
    rbtest_remove_dir();
}

static void test_history_names_what_it_cannot_read(void)
{
    fresh();
    put_doc("A.json", run_at(1.0, "2026-11-20T00:00:00Z"));
    put_doc("B.json", run_at(1.0, "2026-11-21T00:00:00Z"));
    char p[600];
    path_in(p, sizeof p, "loop.json");
    RB_CHECK(symlink("loop.json", p) == 0);
    path_in(p, sizeof p, "fifo.json");
    RB_CHECK(mkfifo(p, 0644) == 0);
    path_in(p, sizeof p, "zero.json");
    RB_CHECK(symlink("/dev/zero", p) == 0);
    path_in(p, sizeof p, "gone.json");
    RB_CHECK(symlink("nothing-there", p) == 0);
    RB_CHECK(run_expect("history . --expect none", 0, "history: 2 run(s)"));
    const char *out = rbtest_output();
    RB_CHECK(strstr(out, "skipped ./loop.json: Too many levels of symbolic links"));
    RB_CHECK(strstr(out, "skipped ./fifo.json: a FIFO, not a regular file"));
    RB_CHECK(strstr(out, "skipped ./zero.json: a character device, not a regular file"));
    RB_CHECK(strstr(out, "skipped ./gone.json: No such file or directory"));
    /* named: a loop is not "no such file"; a FIFO is not opened (it would block) */
    RB_CHECK(run_expect("history loop.json", 2, "loop.json: Too many levels of symbolic links"));
    RB_CHECK(shell("timeout 10 \"$B\" history fifo.json A.json B.json --expect none | grep -q "
                   "\"skipped fifo.json: a FIFO\"") == 0);
    rbtest_remove_dir();
}

/* Two comparisons writing the same --json and --html at once leave one comparison's pair: the
 * first is slowed between its two renames (RB_TEST_FAULT=slow:commit), the second commits in
 * that gap unless the folder locks keep it out. */
static void test_concurrent_commits_leave_one_pair(void)
{
    char cmd[2400], bin[1024];
    fresh();
    three_runs();
    binary_path(bin, sizeof bin);
    rb_fmt(cmd, sizeof cmd,
           "cd '%s' && { RB_TEST_FAULT=slow:commit '%s' compare A.json B.json --expect none "
           "--json x.json --html x.html > /dev/null 2>&1 & sleep 0.25; '%s' compare A.json "
           "C.json --expect none --json x.json --html x.html > /dev/null 2>&1; wait; }",
           dir, bin, bin);
    (void)!system(cmd);
    char *json = get_text("x.json"), *html = get_text("x.html");
    /* each names its NEW file */
    int json_c = json && strstr(json, "\"new\": \"C.json\""),
        html_c = html && strstr(html, "C.json") && !strstr(html, "B.json");
    if (json_c != html_c)
        printf("    x.json from %s, x.html from %s\n", json_c ? "A-C" : "A-B",
               html_c ? "A-C" : "A-B");
    RB_CHECK(json && html && json_c == html_c);
    free(json);
    free(html);
    rbtest_remove_dir();
}

/* Timing no run records: refused by compare, plot and history alike. */
static void test_impossible_timing_refused(void)
{
    fresh();
    three_runs();
    static const char *const fields[][2] = {
        {"median_ci_lo", "1.2"}, /* above median_ci_hi */
        {"samples", "-5"},
        {"samples", "1e300"},
        {"samples", "2.5"},
    };
    static const char *const why[] = {"is inverted", "is not a count", "is not a count",
                                      "is not a count"};
    char args[300];
    for (int i = 0; i < 4; i++) {
        json_value *d = run_at(1.0, "2026-11-23T00:00:00Z");
        json_value *t =
            json_get(json_get(json_get(d, "pairs")->items[1], "variants")->items[0], "time_ms");
        json_set_number(t, fields[i][0], atof(fields[i][1]));
        put_doc("X.json", d);
        rb_fmt(args, sizeof args, "compare A.json X.json --expect none");
        RB_CHECK(run_expect(args, 2, why[i]));
        RB_CHECK(run_expect("plot X.json", 2, why[i]));
        RB_CHECK(run_expect("history A.json X.json --expect none", 2, why[i]));
    }
    rbtest_remove_dir();
}

static const rbtest_case strict_cases[] = {
    {"history_never_replaces_what_it_read", test_history_never_replaces_what_it_read},
    {"history_counts_a_run_once", test_history_counts_a_run_once},
    {"history_refuses_a_pair_twice", test_history_refuses_a_pair_twice},
    {"history_follows_one_gpu", test_history_follows_one_gpu},
    {"nothing_compared_fails", test_nothing_compared_fails},
    {"no_control_character_reaches_the_terminal", test_no_control_character_reaches_the_terminal},
    {"history_checks_dates", test_history_checks_dates},
    {"stdout_failure_writes_nothing", test_stdout_failure_writes_nothing},
    {"every_fatal_signal_cleans_up", test_every_fatal_signal_cleans_up},
    {"node_documents_by_gpu", test_node_documents_by_gpu},
    {"build_takes_any_path_and_one_arch", test_build_takes_any_path_and_one_arch},
    {"filters_cannot_take_minutes", test_filters_cannot_take_minutes},
    {"full_disk_is_not_out_of_memory", test_full_disk_is_not_out_of_memory},
    {"history_names_what_it_cannot_read", test_history_names_what_it_cannot_read},
    {"concurrent_commits_leave_one_pair", test_concurrent_commits_leave_one_pair},
    {"impossible_timing_refused", test_impossible_timing_refused},
};

RB_SUITE(strict_suite, "strict", strict_cases);
