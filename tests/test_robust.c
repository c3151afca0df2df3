/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 and 2: roofbench against a hostile user. Outputs never destroy an input or replace
 * what is not a regular file of theirs; a command writes all its outputs or none; sizes cannot
 * hang it nor overflow an allocation; a signal ends any phase; compare and plot stay linear;
 * any name makes files the tool reads back; results and expectation files cannot switch off
 * regression detection; names reach a terminal shown, not obeyed.
 */
#define _XOPEN_SOURCE 700 /* mknod */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/report/docs.h"
#include "../harness/model/expect.h"
#include "../harness/model/json.h"
#include "../harness/model/outputs.h"
#include "../harness/model/report.h"
#include "../harness/model/runcmp.h"
#include "../harness/model/util.h"
#include "../harness/runner/results.h"
#include "rbtest.h"
#include "xml_check.h"

#define NOT_XML_TEXT(s) rb_test_text_problem((s), 1)

/* ---- files in the test's folder ---- */

static char dir[256];

static void fresh(void)
{
    rb_fmt(dir, sizeof dir, "%s", rbtest_fresh_dir());
}

static void path_in(char *out, size_t size, const char *name)
{
    rb_fmt(out, size, "%s/%s", dir, name);
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

/* The whole file (caller frees), NULL when it cannot be read. */
static char *get_text(const char *name)
{
    char p[600];
    path_in(p, sizeof p, name);
    return rb_docs_read_text(p);
}

/* Nothing but the named entries (NULL-terminated) is in the folder: no temporary, no output. */
static int only(const char *const *names)
{
    char cmd[700];
    int n = 0;
    for (; names[n]; n++)
        ;
    rb_fmt(cmd, sizeof cmd, "test \"$(ls -A '%s' | grep -v '^\\.log$' | wc -l)\" -eq %d", dir, n);
    return system(cmd) == 0;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The binary's path, absolute. */
static void binary_path(char *bin, size_t size)
{
    if (rbtest_binary[0] == '/')
        rb_fmt(bin, size, "%s", rbtest_binary);
    else if (getcwd(bin, size > 300 ? size - 300 : size))
        rb_fmt(bin + strlen(bin), size - strlen(bin), "/%s", rbtest_binary);
}

/* ---- results documents ---- */

/* One variant record as run writes it (the fields compare and plot read). */
static json_value *variant_rec(const char *name, double median_ms)
{
    json_value *v = json_new_object(), *t = json_new_object(), *c = json_new_object();
    json_set_string(v, "name", name);
    json_set_string(v, "role", "baseline");
    json_set_bool(v, "valid", 1);
    json_set_bool(v, "timed", 1);
    json_set_string(v, "roof", "dram_gbps");
    json_set_string(v, "verdict", "new");
    json_set_number(t, "median", median_ms);
    json_set_number(t, "median_ci_lo", median_ms * 0.995);
    json_set_number(t, "median_ci_hi", median_ms * 1.005);
    json_set_number(t, "noise", 0.01);
    json_object_set(v, "time_ms", t);
    json_set_number(c, "gbps", 1000 / median_ms);
    json_set_number(c, "efficiency", 0.5);
    json_object_set(v, "vs_ceiling", c);
    json_set_number(v, "speedup", 1.0);
    return v;
}

static json_value *pair_rec(const char *name, json_value *variants)
{
    json_value *p = json_new_object();
    json_set_string(p, "name", name);
    json_set_number(p, "size", 1024);
    json_set_number(p, "flops", 0);
    json_object_set(p, "variants", variants);
    return p;
}

static json_value *results_doc(json_value *pairs, const char *hardware_key)
{
    json_value *d = json_new_object(), *env = json_new_object(), *start = json_new_object();
    json_set_number(d, "schema", 1);
    json_set_string(d, "tool", "roofbench");
    json_set_string(d, "git", "abc1234");
    json_set_string(d, "date", "2026-11-26T00:00:00Z");
    if (hardware_key)
        json_set_string(d, "hardware_key", hardware_key);
    json_set_string(start, "device", "NVIDIA H100 80GB HBM3");
    json_object_set(env, "start", start);
    json_object_set(d, "environment", env);
    json_object_set(d, "pairs", pairs);
    return d;
}

/* n pairs "p<i>", one variant each, at median_ms. */
static json_value *many_pairs(int n, double median_ms)
{
    json_value *pairs = json_new_array();
    char name[32];
    for (int i = 0; i < n; i++) {
        json_value *vs = json_new_array();
        json_array_push(vs, variant_rec("baseline", median_ms));
        rb_fmt(name, sizeof name, "p%d", i);
        json_array_push(pairs, pair_rec(name, vs));
    }
    return results_doc(pairs, "nvidia-h100-80gb-hbm3");
}

static void put_doc(const char *name, json_value *doc)
{
    char p[600], err[800];
    path_in(p, sizeof p, name);
    if (json_write_file(p, doc, err, sizeof err) != 0)
        printf("    cannot write %s: %s\n", p, err);
    json_free(doc);
}

/* A.json and B.json: two small results files, B a little slower. */
static void two_runs(void)
{
    put_doc("A.json", many_pairs(3, 1.0));
    put_doc("B.json", many_pairs(3, 1.01));
}

/* Runs roofbench with args; checks exit code want and that the output holds needle. */
static int run_expect(const char *args, int want, const char *needle)
{
    int rc = rbtest_run(args);
    int ok = rc == want && (!needle || strstr(rbtest_output(), needle));
    if (!ok)
        printf("    roofbench %s -> %d (want %d, '%s'): %s", args, rc, want, needle ? needle : "",
               rbtest_output());
    return ok;
}

/* ---- 1. an output never replaces an input ---- */

static void refused_keeps_inputs(const char *args, const char *needle)
{
    char *a0 = get_text("A.json"), *b0 = get_text("B.json");
    RB_CHECK(run_expect(args, 2, needle));
    RB_CHECK(lines(rbtest_output()) == 1);
    char *a1 = get_text("A.json"), *b1 = get_text("B.json");
    RB_CHECK(a0 && a1 && !strcmp(a0, a1) && b0 && b1 && !strcmp(b0, b1));
    free(a0);
    free(a1);
    free(b0);
    free(b1);
}

static void test_output_never_an_input(void)
{
    char cmd[800];
    fresh();
    two_runs();
    refused_keeps_inputs("compare A.json B.json --json ./A.json", "would replace an input");
    rb_fmt(cmd, sizeof cmd, "compare A.json B.json --html '%s/A.json'", dir);
    refused_keeps_inputs(cmd, "would replace an input");
    char link[600];
    path_in(link, sizeof link, "L.json");
    RB_CHECK(symlink("A.json", link) == 0);
    refused_keeps_inputs("compare L.json B.json --json A.json", "would replace an input");
    /* a results file whose name is an output's: A.svg, A.html (plot -o BASE writes BASE.svg) */
    char cmd2[1400];
    rb_fmt(cmd2, sizeof cmd2, "cd '%s' && cp A.json A.svg && cp A.json A.html", dir);
    RB_CHECK(system(cmd2) == 0);
    refused_keeps_inputs("plot A.svg -o ./A", "would replace an input");
    refused_keeps_inputs("plot A.html --html ./A.html", "would replace an input");
    refused_keeps_inputs("plot A.json --html ./A.json", NULL); /* (not .html: not an output) */
    refused_keeps_inputs("compare A.json B.json --json c.json --html ./c.json", "twice");
    static const char *const left[] = {"A.json", "B.json", "L.json", "A.svg", "A.html", NULL};
    RB_CHECK(only(left));
    rbtest_remove_dir();
}

/* run's files clash before the GPU is asked (exit 2, not 3): the results and the CSV, the CSV
 * and the results' twins, an output and the expectation or baseline file. */
static void test_run_outputs_never_clash(void)
{
    char cmd[900], cwd[600];
    fresh();
    two_runs();
    if (!getcwd(cwd, sizeof cwd))
        return;
    rb_fmt(cmd, sizeof cmd, "cp '%s/expectations/nvidia-h100-80gb-hbm3.json' '%s/e.json'", cwd,
           dir);
    RB_CHECK(system(cmd) == 0);
    RB_CHECK(run_expect("run --json r.json --csv r.json", 2, "twice"));
    RB_CHECK(run_expect("run --json r.json --csv r.md", 2, "twice"));
    RB_CHECK(run_expect("run --json r.json --csv r.svg", 2, "twice"));
    RB_CHECK(run_expect("run --json r.json --csv r-speedup.svg", 2, "twice"));
    RB_CHECK(run_expect("run --json r.json --csv r.html", 2, "twice"));
    RB_CHECK(run_expect("run --json e.json --expect e.json", 2, "would replace an input"));
    RB_CHECK(run_expect("run --csv e.json --expect e.json", 2, "would replace an input"));
    RB_CHECK(run_expect("run --csv A.json --baseline A.json", 2, "would replace an input"));
    RB_CHECK(run_expect("run --json B.json --baseline B.json", 2, "would replace an input"));
    RB_CHECK(run_expect("run --update-expectations --expect e.json --csv e.json", 2, "same file"));
    static const char *const left[] = {"A.json", "B.json", "e.json", NULL};
    RB_CHECK(only(left));
    rbtest_remove_dir();
}

/* ---- 2 and 3. outputs are regular files of ours, temporaries cannot be redirected ---- */

static void test_only_regular_files_replaced(void)
{
    char p[600];
    struct stat st;
    fresh();
    two_runs();
    path_in(p, sizeof p, "fifo.svg");
    RB_CHECK(mkfifo(p, 0644) == 0);
    RB_CHECK(run_expect("plot A.json -o fifo.svg", 2, "a FIFO"));
    RB_CHECK(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode));
    path_in(p, sizeof p, "dev.json");
    if (mknod(p, S_IFCHR | 0644, makedev(1, 3)) == 0) { /* root: a device like /dev/null */
        RB_CHECK(run_expect("compare A.json B.json --json dev.json", 2, "character device"));
        RB_CHECK(lstat(p, &st) == 0 && S_ISCHR(st.st_mode));
    }
    put_text("victim.txt", "victim");
    path_in(p, sizeof p, "link.json");
    RB_CHECK(symlink("victim.txt", p) == 0);
    RB_CHECK(run_expect("compare A.json B.json --json link.json", 2, "symbolic link"));
    char *v = get_text("victim.txt");
    RB_CHECK(v && !strcmp(v, "victim") && lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
    free(v);
    /* asked for: written through the link, which stays a link */
    RB_CHECK(run_expect("compare A.json B.json --json link.json --write-through-links", 0, NULL));
    v = get_text("victim.txt");
    RB_CHECK(v && strstr(v, "\"tool\": \"roofbench compare\"") && lstat(p, &st) == 0 &&
             S_ISLNK(st.st_mode));
    free(v);
    /* a read-only output is replaced and keeps its mode */
    put_text("ro.json", "old");
    path_in(p, sizeof p, "ro.json");
    RB_CHECK(chmod(p, 0444) == 0);
    RB_CHECK(run_expect("compare A.json B.json --json ro.json", 0, NULL));
    RB_CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0444);
    rbtest_remove_dir();
}

/* The temporary's name cannot be guessed and is made with O_EXCL: a link planted where the old
 * writer put its <out>.tmp.<pid> redirects nothing. */
static void test_planted_link_redirects_nothing(void)
{
    char cmd[1400], bin[1024];
    fresh();
    two_runs();
    put_text("victim.txt", "victim");
    binary_path(bin, sizeof bin);
    rb_fmt(cmd, sizeof cmd,
           "cd '%s' && sh -c 'ln -s victim.txt out-bandwidth.svg.tmp.$$; ln -s victim.txt "
           "out-speedup.svg.tmp.$$; exec \"%s\" plot A.json -o out.svg' > /dev/null 2>&1",
           dir, bin);
    RB_CHECK(system(cmd) == 0);
    /* (these runs' rows have no FLOPs: their chart is the bandwidth chart) */
    char *v = get_text("victim.txt"), *svg = get_text("out-bandwidth.svg");
    RB_CHECK(v && !strcmp(v, "victim"));
    RB_CHECK(svg && !strncmp(svg, "<svg", 4));
    free(v);
    free(svg);
    rbtest_remove_dir();
}

/* ---- 4 and 5. sizes that cannot hang nor overflow; signals that end any phase ---- */

static char timed_out[16384];

/* roofbench args in the test's folder under `timeout limit_s` (a hang fails the test instead of
 * stopping the suite): its exit code (137: killed), its output in timed_out and, when peak_kb
 * is not NULL, its peak resident set in KiB before exit (RB_TEST_FAULT=report:memory; -1 when
 * it did not say). */
static int run_timed_peak(const char *args, int limit_s, double *seconds, long *peak_kb)
{
    char cmd[2400], bin[1024], log[600];
    struct timespec t0, t1;
    binary_path(bin, sizeof bin);
    path_in(log, sizeof log, ".log");
    rb_fmt(cmd, sizeof cmd, "cd '%s' && %s timeout -s KILL %d '%s' %s > '%s' 2>&1 < /dev/null", dir,
           peak_kb ? "RB_TEST_FAULT=report:memory" : "", limit_s, bin, args, log);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = system(cmd);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    char *out = get_text(".log");
    rb_fmt(timed_out, sizeof timed_out, "%s", out ? out : "");
    const char *said = out ? strstr(out, "\nmemory: peak ") : NULL;
    if (peak_kb && (!said || sscanf(said, "\nmemory: peak %ld kB", peak_kb) != 1))
        *peak_kb = -1;
    free(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_timed(const char *args, int limit_s, double *seconds)
{
    return run_timed_peak(args, limit_s, seconds, NULL);
}

/* A size refused at once: exit 2 within 5 s, the message naming --size. */
static void size_refused(const char *args)
{
    double s = 0;
    int rc = run_timed(args, 10, &s);
    if (rc != 2 || s > 5 || !strstr(timed_out, "--size"))
        printf("    roofbench %s -> %d after %.1f s: %s", args, rc, s, timed_out);
    RB_CHECK(rc == 2 && s < 5 && strstr(timed_out, "--size"));
}

static void test_huge_sizes_refused_at_once(void)
{
    fresh();
    size_refused("list --size 18446744073709551615");
    size_refused("list --size 18446744073709551000");
    size_refused("run --size 18446744073709551615");
    size_refused("check --size 18446744073709551615");
    size_refused("list --filter '^copy_vectorized$' --size 4611686018427387904");
    RB_CHECK(strstr(timed_out, "more than 2^40") != NULL);
    size_refused("list --filter '^sgemm$' --size 4294967295x4294967295");
    size_refused("list --filter '^transpose$' --size 18446744073709551615");
    rbtest_remove_dir();
}

/* Starts roofbench (args split at spaces) with RB_TEST_FAULT=fault in the test's folder, waits
 * until it has run for 0.3 s (still there: the phase it stalls in was reached), sends sig and
 * returns how it ended (the signal that killed it, or 256 + its exit code; -1: still alive
 * after 1 s, then killed) with the seconds it took. */
static int signal_during(const char *fault, char *const argv_in[], int sig, double *gone_s)
{
    char bin[1024];
    binary_path(bin, sizeof bin);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0 || !freopen("/dev/null", "w", stdout) ||
            !freopen("/dev/null", "w", stderr))
            _exit(99);
        setenv("RB_TEST_FAULT", fault, 1);
        execv(bin, argv_in);
        _exit(98);
    }
    struct timespec wait = {0, 300000000}, tick = {0, 5000000}, t0, t1;
    nanosleep(&wait, NULL);
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid)
        return 256 + (WIFEXITED(status) ? WEXITSTATUS(status) : 255); /* gone before the signal */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kill(pid, sig);
    for (int i = 0; i < 200; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            *gone_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            return WIFSIGNALED(status) ? WTERMSIG(status) : 256 + WEXITSTATUS(status);
        }
        nanosleep(&tick, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

static void test_signals_end_the_parents_own_work(void)
{
    char bin[] = "roofbench";
    char *run[] = {bin, "run", NULL};
    char *cmp[] = {bin,      "compare", "A.json", "B.json", "--json",
                   "c.json", "--html",  "c.html", NULL};
    char *plot[] = {bin, "plot", "A.json", "-o", "p.svg", NULL};
    int sigs[2] = {SIGTERM, SIGINT};
    for (int k = 0; k < 2; k++) {
        double s = 9;
        fresh();
        two_runs();
        /* run's parent, its handler in place, busy with its own work before any child */
        int how = signal_during("stall:start", run, sigs[k], &s);
        if (how != sigs[k] || !(s < 1))
            printf("    run: ended as %d after %.2f s\n", how, s);
        RB_CHECK(how == sigs[k] && s < 1);
        /* compare and plot at the rename: every output written to its temporary, none renamed */
        how = signal_during("stall:rename", cmp, sigs[k], &s);
        RB_CHECK(how == sigs[k] && s < 1);
        how = signal_during("stall:rename", plot, sigs[k], &s);
        RB_CHECK(how == sigs[k] && s < 1);
        static const char *const left[] = {"A.json", "B.json", NULL};
        RB_CHECK(only(left)); /* no temporary, no output */
        rbtest_remove_dir();
    }
}

/* ---- 6. linear in the input ---- */

/* n pairs "p<i>" of one variant each, at scale x (1000 + i) us: every median its own, short
 * number. thin: only what compare, plot and history read (a results file pared down and
 * minified is the most values per byte, the hardest case for memory per byte of input); else
 * as run writes them. */
static json_value *varied_pairs(int n, int scale, int thin)
{
    json_value *pairs = json_new_array();
    char name[32];
    for (int i = 0; i < n; i++) {
        int k = scale * (1000 + i);
        json_value *vs = json_new_array(), *v;
        if (thin) {
            json_value *t = json_new_object();
            v = json_new_object();
            json_set_string(v, "name", "baseline");
            json_set_bool(v, "valid", 1);
            json_set_bool(v, "timed", 1);
            json_set_string(v, "roof", "dram_gbps");
            json_set_number(t, "median", k / 1000.0);
            json_set_number(t, "median_ci_lo", (k - 5) / 1000.0);
            json_set_number(t, "median_ci_hi", (k + 5) / 1000.0);
            json_set_number(t, "noise", 0.01);
            json_object_set(v, "time_ms", t);
        } else {
            v = variant_rec("baseline", k / 1000.0);
        }
        json_array_push(vs, v);
        rb_fmt(name, sizeof name, "p%d", i);
        json_value *p = thin ? json_new_object() : pair_rec(name, vs);
        if (thin) {
            json_set_string(p, "name", name);
            json_set_number(p, "size", 1024);
            json_object_set(p, "variants", vs);
        }
        json_array_push(pairs, p);
    }
    return results_doc(pairs, "nvidia-h100-80gb-hbm3");
}

/* doc written on one line, as a tool that minifies JSON leaves it. */
static void put_minified(const char *name, json_value *doc)
{
    char p[600], err[800], *text = json_write(doc, 0);
    path_in(p, sizeof p, name);
    if (!text || rb_write_file_atomic(p, text, err, sizeof err) != 0)
        printf("    cannot write %s\n", p);
    free(text);
    json_free(doc);
}

static long file_bytes(const char *name)
{
    char p[600];
    struct stat st;
    path_in(p, sizeof p, name);
    return stat(p, &st) == 0 ? (long)st.st_size : 0;
}

/* 50,000 pairs compared, plotted and followed in history, and one pair of 50,000 variants
 * compared, each well inside a minute on a slow sanitized build (quadratic code took more than
 * 300 s and 120 s), from pretty-printed files and from thin minified ones; and in memory within
 * 4x their input: the peak resident set before exit less that of the same command on two files
 * of three pairs (the CUDA libraries mapped at start, ~160 MB, are in both; their exit handlers
 * touch 60 MB more of their own pages, which is why the peak is taken before them). A
 * sanitized build's memory is the sanitizer's (shadow, redzones, quarantine): not checked
 * there. */
static void test_fifty_thousand_pairs_in_seconds(void)
{
    fresh();
    put_doc("F.json", varied_pairs(50000, 1, 0));
    put_doc("G.json", varied_pairs(50000, 2, 0));
    put_minified("Ft.json", varied_pairs(50000, 1, 1));
    put_minified("Gt.json", varied_pairs(50000, 2, 1));
    json_value *vs = json_new_array();
    char name[32];
    for (int i = 0; i < 50000; i++) {
        rb_fmt(name, sizeof name, "v%d", i);
        json_array_push(vs, variant_rec(name, 1.0));
    }
    json_value *pairs = json_new_array();
    json_array_push(pairs, pair_rec("wide", vs));
    put_doc("W.json", results_doc(pairs, NULL));
    static const struct {
        const char *args, *in[2];
        int want;
    } cmds[] = {
        {"compare F.json G.json --expect none --json c.json", {"F.json", "G.json"}, 1},
        {"compare Ft.json Gt.json --expect none --json c.json", {"Ft.json", "Gt.json"}, 1},
        {"plot F.json -o f.svg --html f.html", {"F.json", NULL}, 0},
        {"plot Ft.json -o f.svg --html f.html", {"Ft.json", NULL}, 0},
        {"history F.json G.json --expect none -o h", {"F.json", "G.json"}, 0},
        {"history Ft.json Gt.json --expect none -o h", {"Ft.json", "Gt.json"}, 0},
        {"compare W.json W.json --expect none", {"W.json", "W.json"}, 0},
    };
#ifdef __SANITIZE_ADDRESS__
    const int memory_checked = 0;
#else
    const int memory_checked = 1;
#endif
    double s = 0;
    long base_kb = 0, kb = 0;
    two_runs();
    RB_CHECK(run_timed_peak("compare A.json B.json --expect none", 60, &s, &base_kb) == 0 &&
             base_kb > 0);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int rc = run_timed_peak(cmds[i].args, 120, &s, &kb);
        long in = file_bytes(cmds[i].in[0]) + (cmds[i].in[1] ? file_bytes(cmds[i].in[1]) : 0);
        double ratio = in > 0 && kb > 0 ? (double)(kb - base_kb) * 1024 / (double)in : NAN;
        printf("    %s: exit %d in %.2f s, peak %.1f MB over a small run's for %.1f MB of input "
               "(%.2fx%s)\n",
               cmds[i].args, rc, s, (double)(kb - base_kb) / 1024, (double)in / 1048576, ratio,
               memory_checked ? "" : ", not checked: the sanitizer's");
        RB_CHECK(rc == cmds[i].want && s < 60 && in > 1000000);
        RB_CHECK(!memory_checked || ratio <= 4);
    }
    char err[300], p[600];
    path_in(p, sizeof p, "c.json");
    json_value *c = json_parse_file(p, err, sizeof err); /* and it reads back */
    RB_CHECK(c && json_get(c, "variants") && json_get(c, "variants")->count == 50000);
    json_free(c);
    rbtest_remove_dir();
}

/* ---- 7. any name makes files the tool reads back ---- */

/* xmllint, where it is installed, reads the file (a second opinion on well-formedness). */
static int xmllint_reads(const char *name, int html)
{
    char cmd[800];
    if (system("command -v xmllint > /dev/null 2>&1") != 0)
        return 1;
    rb_fmt(cmd, sizeof cmd, "xmllint --noout %s '%s/%s' > /dev/null 2>&1", html ? "--html" : "",
           dir, name);
    return system(cmd) == 0;
}

/* Names no one should use, all of which a results file can hold. */
static const char *hostile_name(int i, char *buf, size_t size)
{
    static const char *const fixed[] = {
        "\xef\xbf\xbe-fffe",     "\xef\xbf\xbf-ffff", "ctl\x01\x02\x1b[31mred\x1b[0m",
        "line\nforged line\r\n", "<svg>&amp;\"'",     "tab\there"};
    if (i < 6) {
        rb_fmt(buf, size, "%s", fixed[i]);
    } else if (i == 6) { /* 300 x "ü": every fixed buffer cuts it */
        size_t at = 0;
        for (int k = 0; k < 300 && at + 3 < size; k++, at += 2)
            memcpy(buf + at, "\xc3\xbc", 2);
        buf[at] = '\0';
    } else { /* a very long one */
        memset(buf, 'x', size - 1);
        buf[size - 1] = '\0';
    }
    return buf;
}

static json_value *hostile_doc(double median_ms, const char *key)
{
    json_value *pairs = json_new_array();
    char name[4100], vname[3100];
    for (int i = 0; i < 8; i++) {
        json_value *vs = json_new_array();
        json_array_push(
            vs, variant_rec(hostile_name(i, vname, i == 7 ? 3000 : sizeof vname), median_ms));
        json_array_push(vs, variant_rec("baseline", median_ms));
        json_array_push(pairs, pair_rec(hostile_name(i, name, i == 7 ? 4000 : 700), vs));
    }
    return results_doc(pairs, key);
}

static void check_readable(const char *name, int json, int html)
{
    char p[600], err[300];
    char *text = get_text(name);
    /* (JSON may hold U+FFFE; XML may not) */
    const char *why = !text ? "missing" : rb_test_text_problem(text, !json);
    if (!why && !json && !html)
        why = rb_test_xml_problem(text);
    if (why)
        printf("    %s: %s\n", name, why);
    RB_CHECK(why == NULL);
    if (json) {
        path_in(p, sizeof p, name);
        json_value *v = json_parse_file(p, err, sizeof err);
        if (!v)
            printf("    %s does not read back: %s\n", name, err);
        RB_CHECK(v != NULL);
        json_free(v);
    } else {
        RB_CHECK(xmllint_reads(name, html));
    }
    free(text);
}

static void test_hostile_names_round_trip(void)
{
    char p[600];
    fresh();
    put_doc("H.json", hostile_doc(1.0, "nvidia-h100-80gb-hbm3"));
    put_doc("I.json", hostile_doc(1.3, "nvidia-h100-80gb-hbm3"));
    /* an input whose own file name is not UTF-8 */
    char *text = get_text("I.json");
    path_in(p, sizeof p, "\xff\xfe-not-utf8.json");
    FILE *f = text ? fopen(p, "wb") : NULL;
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(text);
    RB_CHECK(run_expect("compare H.json \"$(printf '\\377\\376')-not-utf8.json\" --expect none "
                        "--json c.json --html c.html",
                        1, NULL));
    check_readable("c.json", 1, 0);
    check_readable("c.html", 0, 1);
    /* the terminal saw no escape sequence and no forged line */
    RB_CHECK(!strchr(rbtest_output(), '\x1b') && !strstr(rbtest_output(), "\nforged line"));
    RB_CHECK(run_expect("plot H.json -o h.svg --html h.html", 0, NULL));
    check_readable("h-bandwidth.svg", 0, 0); /* (rows with no FLOPs: no roofline chart) */
    check_readable("h-speedup.svg", 0, 0);
    check_readable("h.html", 0, 1);
    rbtest_remove_dir();
}

/* Text cut to fit a buffer is cut between characters, never inside one. */
static void test_cuts_on_character_boundaries(void)
{
    char buf[10], big[700], name[700];
    rb_fmt(buf, sizeof buf, "%s", "\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc"); /* 10 bytes */
    RB_CHECK(strlen(buf) == 8 && NOT_XML_TEXT(buf) == NULL);
    rb_fmt(buf, sizeof buf, "ab%s", "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"); /* euros */
    RB_CHECK(!strcmp(buf, "ab\xe2\x82\xac\xe2\x82\xac"));
    hostile_name(6, name, sizeof name);
    for (size_t n = 1; n < 40; n++) {
        rb_fmt(big, n, "%s", name);
        RB_CHECK(NOT_XML_TEXT(big) == NULL);
    }
    RB_CHECK(rb_utf8_cut("\xc3\xbc\xc3\xbc", 3) == 2 && rb_utf8_cut("a\xff"
                                                                    "b",
                                                                    2) == 2);
    /* JSON written from a name that is not UTF-8 is JSON */
    json_value *o = json_new_object();
    json_set_string(o, "command", "roofbench run --json \xff\xfe.json \xc3");
    char *t = json_write(o, 0), err[200];
    json_value *back = t ? json_parse(t, strlen(t), err, sizeof err) : NULL;
    RB_CHECK(back && strstr(json_get(back, "command")->string, "\xef\xbf\xbd"));
    json_free(back);
    json_free(o);
    free(t);
}

/* ---- 8. all outputs or none ---- */

static void test_all_outputs_or_none(void)
{
    fresh();
    two_runs();
    static const char *const left[] = {"A.json", "B.json", NULL};
    /* the disk fills up on the second output: the first is not left behind */
    setenv("RB_TEST_FAULT", "outputs:enospc@2", 1);
    RB_CHECK(run_expect("compare A.json B.json --json c.json --html c.html", 2,
                        "No space left on device"));
    RB_CHECK(only(left));
    RB_CHECK(run_expect("plot A.json -o p.svg --html p.html", 2, "No space left on device"));
    RB_CHECK(only(left));
    setenv("RB_TEST_FAULT", "outputs:enospc@3", 1);
    RB_CHECK(run_expect("plot A.json -o p.svg --html p.html", 2, "No space left on device"));
    RB_CHECK(only(left));
    unsetenv("RB_TEST_FAULT");
    /* a name of 250 bytes: the chart fits NAME_MAX, its -speedup.svg twin does not */
    char args[700], name[300];
    memset(name, 'a', 246);
    rb_fmt(name + 246, sizeof name - 246, ".svg");
    rb_fmt(args, sizeof args, "plot A.json -o %s", name);
    RB_CHECK(run_expect(args, 2, "at most 255"));
    RB_CHECK(only(left));
    /* run's files are checked with their longest names before the GPU is asked (exit 2, not 3) */
    memset(name, 'r', 290);
    rb_fmt(name + 290, sizeof name - 290, ".json");
    rb_fmt(args, sizeof args, "run --json %s", name);
    RB_CHECK(run_expect(args, 2, "at most 255"));
    rb_fmt(args, sizeof args, "run --csv %s", name);
    RB_CHECK(run_expect(args, 2, "at most 255"));
    rb_fmt(args, sizeof args, "run --update-expectations --expect %s", name);
    RB_CHECK(run_expect(args, 2, "at most 255"));
    memset(name, 'r', 250);
    rb_fmt(name + 250, sizeof name - 250, ".json");
    rb_fmt(args, sizeof args, "run --json %s", name); /* fits; its .html twin does */
    RB_CHECK(run_expect(args, 2, "at most 255"));
    RB_CHECK(only(left));
    rbtest_remove_dir();
}

/* The default results folder of the GPU's key is checked as soon as the key is known: a file
 * where the folder goes, or a key that is not one, refuses the run before any pair runs. */
static void test_results_folder_checked_with_the_key(void)
{
    rb_options o;
    char err[600], cwd[600] = "";
    const char *argv[] = {"roofbench", "run", NULL};
    fresh();
    RB_CHECK(rb_cli_parse(2, (char **)argv, &o, err, sizeof err) == 0);
    RB_CHECK(getcwd(cwd, sizeof cwd) != NULL && chdir(dir) == 0);
    RB_CHECK(mkdir("results", 0755) == 0);
    put_text("results/nvidia-h100-80gb-hbm3", "a file, not a folder");
    rb_outputs *outs = rb_outputs_new(0);
    RB_CHECK(outs && rb_results_check_outputs(&o, NULL, NULL, outs, err, sizeof err) == 0);
    RB_CHECK(outs && rb_results_check_outputs(&o, "nvidia-h100-80gb-hbm3", NULL, outs, err,
                                              sizeof err) == -1);
    RB_CHECK(strstr(err, "is not a folder") != NULL);
    RB_CHECK(outs && rb_results_check_outputs(&o, "nvidia-h200", NULL, outs, err, sizeof err) == 0);
    RB_CHECK(!rb_is_hardware_key("../../../../x/evil") && !rb_is_hardware_key("a--b") &&
             !rb_is_hardware_key("-a") && !rb_is_hardware_key("A100") &&
             rb_is_hardware_key("nvidia-h200-x2"));
    rb_outputs_free(outs);
    RB_CHECK(chdir(cwd) == 0);
    rbtest_remove_dir();
}

/* ---- 9. inputs that would switch off regression detection ---- */

static void test_repeated_names_refused(void)
{
    fresh();
    two_runs();
    /* NEW repeats three pairs at 5x the time: compared once each, the repeats would be unseen */
    json_value *d = many_pairs(3, 1.0), *pairs = json_get(d, "pairs");
    char name[16];
    for (int i = 0; i < 3; i++) {
        json_value *vs = json_new_array();
        json_array_push(vs, variant_rec("baseline", 5.0));
        rb_fmt(name, sizeof name, "p%d", i);
        json_array_push(pairs, pair_rec(name, vs));
    }
    put_doc("N.json", d);
    RB_CHECK(run_expect("compare A.json N.json --expect none", 2, "pair p0 appears twice"));
    RB_CHECK(run_expect("plot N.json", 2, "appears twice"));
    d = many_pairs(1, 1.0);
    json_array_push(json_get(json_get(d, "pairs")->items[0], "variants"),
                    variant_rec("baseline", 5.0));
    put_doc("V.json", d);
    RB_CHECK(
        run_expect("compare A.json V.json --expect none", 2, "variant baseline appears twice"));
    /* what compare took before and plot refused; and a run of no pairs */
    put_text("Z.json", "{\"pairs\": [null, 1, {}]}");
    RB_CHECK(run_expect("compare A.json Z.json", 2, "pairs[0] is not a pair record"));
    put_doc("E.json", results_doc(json_new_array(), "nvidia-h100-80gb-hbm3"));
    RB_CHECK(run_expect("compare A.json E.json --expect none", 2, "NEW holds no pairs"));
    rbtest_remove_dir();
}

/* An expectation variant of pair p, with the given extra fields. */
static int expect_refused(const char *variant_fields, const char *pair_fields, const char *top,
                          const char *needle)
{
    char text[2000], err[400] = "";
    rb_fmt(text, sizeof text,
           "{\"schema\": 1, \"hardware\": {\"name\": \"NVIDIA H100 80GB HBM3\"}, \"peaks\": {%s}, "
           "\"ceilings\": {}, \"pairs\": {\"p\": {\"size\": 1024%s, \"variants\": {\"v\": "
           "{\"median_ms\": 1, \"noise\": 0.01%s}}}}}",
           top, pair_fields, variant_fields);
    json_value *doc = json_parse(text, strlen(text), err, sizeof err);
    int refused = doc && rb_expect_validate(doc, err, sizeof err) == -1 && strstr(err, needle);
    if (!refused)
        printf("    accepted or not for '%s': %s\n", needle, err);
    json_free(doc);
    return refused;
}

static void test_expectation_file_consistent(void)
{
    RB_CHECK(expect_refused(", \"runs\": 3, \"run_medians\": [1, 1, 1], \"run_spread\": 1e300", "",
                            "", "does not agree with run_medians"));
    RB_CHECK(expect_refused(", \"runs\": 3, \"run_medians\": [1, 2, 3], \"run_spread\": 0", "", "",
                            "is not the median of run_medians"));
    char many[600] = ", \"runs\": 3, \"run_medians\": [1";
    for (int i = 0; i < 49; i++)
        rb_fmt(many + strlen(many), sizeof many - strlen(many), ", 1");
    rb_fmt(many + strlen(many), sizeof many - strlen(many), "]");
    RB_CHECK(expect_refused(many, "", "", "run_medians"));
    RB_CHECK(
        expect_refused(", \"runs\": 3, \"run_medians\": [1, 1]", "", "", "one median for each"));
    RB_CHECK(expect_refused(", \"runs\": 1e300", "", "", "runs"));
    RB_CHECK(expect_refused(", \"clocks\": {\"sm_mhz_mean\": -1}", "", "", "clocks"));
    RB_CHECK(expect_refused("", ", \"kernels\": [5, null]", "", "kernel records"));
    RB_CHECK(expect_refused("", ", \"shape\": \"3x3\"", "", "whose product is the size"));
    RB_CHECK(expect_refused("", "", "\"dram_gbps\": 1e300", "not a plausible roof"));
    /* sizes that are not whole numbers of elements */
    char text[600], err[300];
    static const char *const sizes[] = {"0.5", "1e300", "-3"};
    for (int i = 0; i < 3; i++) {
        rb_fmt(text, sizeof text,
               "{\"schema\": 1, \"hardware\": {\"name\": \"x\"}, \"peaks\": {}, \"ceilings\": {}, "
               "\"pairs\": {\"p\": {\"size\": %s, \"variants\": {}}}}",
               sizes[i]);
        json_value *doc = json_parse(text, strlen(text), err, sizeof err);
        RB_CHECK(doc && rb_expect_validate(doc, err, sizeof err) == -1);
        json_free(doc);
    }
}

/* compare says so when the expectation file is another GPU's, and never opens a path made of a
 * field of its input. */
static void test_compare_expectations_of_its_gpu(void)
{
    char cwd[600], cmd[1500];
    fresh();
    two_runs();
    if (!getcwd(cwd, sizeof cwd))
        return;
    rb_fmt(cmd, sizeof cmd, "cp '%s/expectations/nvidia-h200.json' '%s/e.json'", cwd, dir);
    RB_CHECK(system(cmd) == 0);
    RB_CHECK(run_expect("compare A.json B.json --expect e.json", 0,
                        "e.json was recorded on NVIDIA H200, but OLD ran on"));
    /* a hardware_key that climbs out of expectations/ names no file, even one that is there */
    put_text("evil.json", "not an expectation file");
    RB_CHECK(mkdir(strcat(strcpy(cmd, dir), "/expectations"), 0755) == 0);
    json_value *d = many_pairs(3, 1.0);
    json_set_string(d, "hardware_key", "../evil");
    put_doc("K.json", d);
    RB_CHECK(run_expect("compare K.json B.json", 0, "is not a valid key"));
    rbtest_remove_dir();
}

/* ---- 10. names reach a terminal shown, not obeyed ---- */

static void test_terminal_sees_no_control_characters(void)
{
    fresh();
    put_doc("H.json", hostile_doc(1.0, NULL));
    put_doc("I.json", hostile_doc(1.3, NULL));
    RB_CHECK(run_expect("compare H.json I.json", 1, NULL));
    const char *out = rbtest_output();
    RB_CHECK(strchr(out, '\x1b') == NULL && strchr(out, '\x01') == NULL);
    RB_CHECK(strstr(out, "\\x1B[31m") != NULL);     /* shown */
    RB_CHECK(strstr(out, "\nforged line") == NULL); /* no line of its own */
    RB_CHECK(strstr(out, "line\\x0Aforged") != NULL);
    rbtest_remove_dir();
}

/* ---- 11. failure reasons reach every table ---- */

static void test_failure_reasons_in_csv_and_markdown(void)
{
    rb_pair_result r;
    memset(&r, 0, sizeof r);
    rb_fmt(r.name, sizeof r.name, "copy_vectorized");
    r.size = r.cols = 1024;
    r.rows = 1;
    r.status = RB_PAIR_FAILED;
    rb_fmt(r.reason, sizeof r.reason, "crashed: Segmentation fault");
    r.n_variants = 1; /* it reported one variant, then crashed */
    rb_variant_result_init(&r.v[0], "baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 1e-6);
    r.v[0].valid = 1;
    char *csv = rb_report_csv(&r, 1), *md = rb_report_markdown(&r, 1, NULL);
    RB_CHECK(csv && strstr(csv, ",failed,") && strstr(csv, "crashed: Segmentation fault"));
    RB_CHECK(md && strstr(md, "FAILED: crashed: Segmentation fault"));
    free(csv);
    free(md);
}

/* ---- 12. the smaller ones ---- */

/* Values near the largest double draw finite coordinates. */
static void test_huge_values_draw_finite_svg(void)
{
    fresh();
    json_value *d = many_pairs(2, 1e-300), *pairs = json_get(d, "pairs");
    for (size_t i = 0; i < pairs->count; i++) {
        json_value *v = json_get(pairs->items[i], "variants")->items[0];
        json_set_number(v, "speedup", 1.7e308);
        json_set_number(json_get(v, "vs_ceiling"), "gbps", 1.7e308);
        json_set_number(pairs->items[i], "flops", 1e300);
        json_set_number(json_get(v, "vs_ceiling"), "ai", 1.7e308);
        json_set_number(json_get(v, "vs_ceiling"), "tflops", 1.7e296);
    }
    json_value *roofs = json_new_object(), *r = json_new_object();
    json_set_string(r, "kind", "bandwidth");
    json_set_number(r, "measured", 1.7e308);
    json_set_number(r, "peak", 1e-300);
    json_object_set(roofs, "dram_gbps", r);
    json_object_set(d, "roofs", roofs);
    put_doc("big.json", d);
    RB_CHECK(run_expect("plot big.json -o big.svg --html big.html", 0, NULL));
    char *svg = get_text("big.svg"), *sp = get_text("big-speedup.svg");
    RB_CHECK(svg && sp && !strstr(svg, "inf\"") && !strstr(svg, "nan\"") && !strstr(sp, "inf\"") &&
             !strstr(sp, "nan\""));
    free(svg);
    free(sp);
    rbtest_remove_dir();
}

/* The environment diff names each fact once, and says which tool and how many ranks ran. */
static void test_environment_diff_whole(void)
{
    json_value *a = many_pairs(1, 1.0), *b = many_pairs(1, 1.0);
    json_set_string(json_get(json_get(a, "environment"), "start"), "hardware_key",
                    "nvidia-h100-80gb-hbm3");
    json_set_string(json_get(json_get(b, "environment"), "start"), "hardware_key",
                    "nvidia-h100-80gb-hbm3-x2");
    json_set_string(b, "hardware_key", "nvidia-h100-80gb-hbm3-x2");
    json_set_string(b, "tool", "roofbench_mpi");
    json_set_number(b, "ranks", 2);
    rb_runcmp c;
    char err[200];
    RB_CHECK(rb_runcmp_build(a, b, &c, err, sizeof err) == 0);
    int key = 0, tool = 0, ranks = 0;
    for (int i = 0; i < c.n_env; i++) {
        key += !strcmp(c.env[i].key, "hardware_key");
        tool += !strcmp(c.env[i].key, "tool");
        ranks += !strcmp(c.env[i].key, "ranks");
    }
    RB_CHECK(key == 1 && tool == 1 && ranks == 1);
    rb_runcmp_free(&c);
    json_free(a);
    json_free(b);
}

/* roofbench args with its standard output sent to where (a shell redirection): its exit code. */
static int stdout_to(const char *args, const char *where)
{
    char cmd[2400], bin[1024];
    binary_path(bin, sizeof bin);
    rb_fmt(cmd, sizeof cmd, "cd '%s' && '%s' %s %s 2> /dev/null < /dev/null", dir, bin, args,
           where);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_smaller_ones(void)
{
    fresh();
    two_runs();
    /* standard output that cannot be written: not exit 0 */
    RB_CHECK(stdout_to("list", "> /dev/full") == 2);
    RB_CHECK(stdout_to("list", ">&-") == 2);
    RB_CHECK(stdout_to("compare A.json B.json", "> /dev/full") == 2);
    /* an option twice: refused, not last-one-wins */
    RB_CHECK(run_expect("list --size smoke --size full", 2, "--size is given twice"));
    RB_CHECK(run_expect("compare A.json B.json --json a.json --json b.json", 2, "twice"));
    /* plot --filter matching nothing, like list */
    RB_CHECK(run_expect("plot A.json --filter '^nothing$'", 2, "no pair matches"));
    /* a folder no file can be made in says so */
    RB_CHECK(run_expect("run --results-dir /proc", 2, "cannot write there"));
    RB_CHECK(!strstr(rbtest_output(), "No such file"));
    static const char *const left[] = {"A.json", "B.json", NULL};
    RB_CHECK(only(left));
    rbtest_remove_dir();
}

/* Every folder an output was renamed into is synced (strace, where installed, sees the fsync of
 * a folder's descriptor after the renames). */
static void test_folders_synced_after_rename(void)
{
    char cmd[2400], bin[1024];
    if (system("command -v strace > /dev/null 2>&1") != 0) {
        rbtest_skip("strace is not installed");
        return;
    }
    fresh();
    two_runs();
    binary_path(bin, sizeof bin);
    rb_fmt(cmd, sizeof cmd,
           /* (LeakSanitizer cannot run under ptrace: off for this one run) */
           "cd '%s' && ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" strace -f -e "
           "trace=rename,openat,fsync -o trace.txt '%s' plot A.json "
           "-o p.svg --html p.html > /dev/null 2>&1",
           dir, bin);
    RB_CHECK(system(cmd) == 0);
    char *t = get_text("trace.txt");
    /* the last rename, then the folder opened O_DIRECTORY and fsync'd */
    const char *last = NULL;
    for (const char *at = t; at && (at = strstr(at, "rename(")); at++)
        last = at;
    const char *dir_open = last ? strstr(last, "O_DIRECTORY") : NULL;
    RB_CHECK(last && dir_open && strstr(dir_open, "fsync("));
    free(t);
    rbtest_remove_dir();
}

/* Two runs recording expectations at once: each reads the file under the lock, so neither
 * loses the other's pairs (a run read the file at its start and wrote it at its end). */
static void test_expectation_updates_do_not_lose_each_other(void)
{
    char p[600], err[400];
    fresh();
    path_in(p, sizeof p, "e.json");
    RB_CHECK(rb_write_file_atomic(p,
                                  "{\"schema\": 1, \"hardware\": {\"name\": \"x\"}, \"peaks\": {}, "
                                  "\"ceilings\": {}, \"pairs\": {}}\n",
                                  err, sizeof err) == 0);
    pid_t child = fork();
    for (int who = 0; who < 2; who++) {
        if ((who == 0) != (child == 0))
            continue;
        int fd = -1;
        json_value *doc = NULL;
        if (who == 1) { /* the parent starts second, while the child holds the lock */
            struct timespec t = {0, 100000000};
            nanosleep(&t, NULL);
        }
        RB_CHECK(rb_expect_lock_and_load(p, &fd, &doc, err, sizeof err) == 0 && doc);
        if (who == 0) {
            struct timespec t = {0, 400000000};
            nanosleep(&t, NULL);
        }
        json_value *pair = json_new_object(), *vs = json_new_object();
        json_set_number(pair, "size", 1);
        json_object_set(pair, "variants", vs);
        json_object_set(json_get(doc, "pairs"), who == 0 ? "first" : "second", pair);
        RB_CHECK(json_write_file(p, doc, err, sizeof err) == 0);
        rb_unlock(fd);
        json_free(doc);
        if (who == 0)
            _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    json_value *d = json_parse_file(p, err, sizeof err);
    RB_CHECK(d && json_get(json_get(d, "pairs"), "first") &&
             json_get(json_get(d, "pairs"), "second"));
    json_free(d);
    rbtest_remove_dir();
}

static const rbtest_case robust_cases[] = {
    {"output_never_an_input", test_output_never_an_input},
    {"run_outputs_never_clash", test_run_outputs_never_clash},
    {"only_regular_files_replaced", test_only_regular_files_replaced},
    {"planted_link_redirects_nothing", test_planted_link_redirects_nothing},
    {"huge_sizes_refused_at_once", test_huge_sizes_refused_at_once},
    {"signals_end_the_parents_own_work", test_signals_end_the_parents_own_work},
    {"fifty_thousand_pairs_in_seconds", test_fifty_thousand_pairs_in_seconds},
    {"hostile_names_round_trip", test_hostile_names_round_trip},
    {"cuts_on_character_boundaries", test_cuts_on_character_boundaries},
    {"all_outputs_or_none", test_all_outputs_or_none},
    {"results_folder_checked_with_the_key", test_results_folder_checked_with_the_key},
    {"repeated_names_refused", test_repeated_names_refused},
    {"expectation_file_consistent", test_expectation_file_consistent},
    {"compare_expectations_of_its_gpu", test_compare_expectations_of_its_gpu},
    {"terminal_sees_no_control_characters", test_terminal_sees_no_control_characters},
    {"failure_reasons_in_csv_and_markdown", test_failure_reasons_in_csv_and_markdown},
    {"huge_values_draw_finite_svg", test_huge_values_draw_finite_svg},
    {"environment_diff_whole", test_environment_diff_whole},
    {"smaller_ones", test_smaller_ones},
    {"folders_synced_after_rename", test_folders_synced_after_rename},
    {"expectation_updates_do_not_lose_each_other", test_expectation_updates_do_not_lose_each_other},
};

RB_SUITE(robust_suite, "robust", robust_cases);
