/* SPDX-License-Identifier: MIT */
/*
 * roofbench history (harness/model/history.c): synthetic runs with a planted step (and a code
 * change under it), a blip, a move in the latest run, a blind variant and a step seen without
 * an interval; the committed H100 runs; and the binary's outputs and refusals.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/model/expect.h"
#include "../harness/model/history.h"
#include "rbtest.h"

#define RUNS 8

static void add(char *text, size_t size, const char *fmt, ...)
{
    size_t len = strlen(text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + len, size - len, fmt, ap);
    va_end(ap);
}

/* A timed variant with a 95% interval of +-0.1% around its median (none when bare). */
static void variant(char *text, size_t size, const char *name, double median, double noise,
                    int bare)
{
    add(text, size,
        "%s{\"name\": \"%s\", \"valid\": true, \"timed\": true, \"roof\": \"dram_gbps\","
        " \"time_ms\": {\"median\": %.6f, ",
        strstr(text, "\"variants\": [{") ? ", " : "", name, median);
    if (bare)
        add(text, size, "\"median_ci_lo\": null, \"median_ci_hi\": null, ");
    else
        add(text, size, "\"median_ci_lo\": %.6f, \"median_ci_hi\": %.6f, ", median * 0.999,
            median * 1.001);
    add(text, size, "\"noise\": %g}}", noise);
}

/* Run i of a synthetic GPU, pair "copy", one variant per behaviour:
 *   steady   +-0.2% around 1 ms;            step     1.0 ms, then 1.2 ms from run 4 on, its
 *   blip     1.3 ms in run 2 alone;                  kernel's registers 32 -> 40 there;
 *   pending  0.8 ms in the latest run only; noisy    +-5%, loops spreading 40% (floor 20%);
 *   bare     2.0 ms, then 1.0 ms from run 3, no interval of its median (fewer than 6 samples).
 * cold: a --cold run (its own series). */
static void synth_run(int i, int cold, char *text, size_t size)
{
    text[0] = '\0';
    add(text, size,
        "{\"date\": \"2026-11-2%dT0%d:00:00Z\", \"git\": \"g%d\", \"cold\": %s,"
        " \"hardware_key\": \"synth-gpu\", \"environment\": {\"start\": {\"driver\": \"1\"}},"
        " \"pairs\": [{\"name\": \"copy\", \"size\": 1024, \"kernels\": [{\"variant\": \"step\","
        " \"name\": \"step_k\", \"registers\": %d}], \"variants\": [",
        1 + i / 5, i % 5, i, cold ? "true" : "false", i >= 4 ? 40 : 32);
    variant(text, size, "steady", 1.0 + (i % 2 ? 0.002 : -0.002), 0.01, 0);
    variant(text, size, "step", i >= 4 ? 1.2 : 1.0, 0.01, 0);
    variant(text, size, "blip", i == 2 ? 1.3 : 1.0, 0.01, 0);
    variant(text, size, "pending", i == RUNS - 1 ? 0.8 : 1.0, 0.01, 0);
    variant(text, size, "noisy", i % 2 ? 1.05 : 0.95, 0.4, 0);
    variant(text, size, "bare", i >= 3 ? 1.0 : 2.0, 0.01, 1);
    add(text, size, "]}]}");
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The synthetic runs, named against their date order (z0.json is the latest), a cold run, a
 * JSON file that is no results file, a broken one, a text file and a sub-folder. */
static const char *synth_dir(void)
{
    const char *dir = rbtest_fresh_dir();
    char text[8192], name[32], sub[400];
    for (int i = 0; i < RUNS; i++) {
        synth_run(i, 0, text, sizeof text);
        snprintf(name, sizeof name, "z%d.json", RUNS - 1 - i);
        put(dir, name, text);
    }
    synth_run(5, 1, text, sizeof text);
    put(dir, "cold.json", text);
    put(dir, "compare-output.json", "{\"tool\": \"roofbench compare\", \"variants\": []}");
    put(dir, "broken.json", "{\"pairs\": [");
    put(dir, "notes.txt", "not read");
    snprintf(sub, sizeof sub, "%s/older", dir);
    mkdir(sub, 0755);
    return dir;
}

static const rb_history_series *find(const rb_history *h, const char *label)
{
    for (int i = 0; i < h->n_series; i++)
        if (!strcmp(h->series[i].label, label))
            return &h->series[i];
    printf("    no series %s\n", label);
    return NULL;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Every series judged at most twice per point after its first: linear in the input. */
static void check_linear(const rb_history *h)
{
    for (int i = 0; i < h->n_series; i++) {
        const rb_history_series *s = &h->series[i];
        RB_CHECK(s->n_points >= 1 && s->n_judged <= 2 * (s->n_points - 1));
    }
}

static void test_planted_step(void)
{
    const char *dir = synth_dir();
    rb_history h;
    char err[600];
    const char *inputs[1] = {dir};
    RB_CHECK(rb_history_load(inputs, 1, &h, err, sizeof err) == 0);
    RB_CHECK(h.n_runs == RUNS + 1);
    for (int i = 1; i < h.n_runs; i++)
        RB_CHECK(strcmp(h.runs[i - 1].date, h.runs[i].date) <= 0);
    RB_CHECK(h.n_notes == 3); /* compare-output.json, broken.json, the sub-folder */
    int not_results = 0, broken = 0, sub = 0;
    for (int i = 0; i < h.n_notes; i++) {
        not_results += strstr(h.notes[i], "compare-output.json: not a results file") != NULL;
        broken += strstr(h.notes[i], "broken.json") != NULL;
        sub += strstr(h.notes[i], "1 sub-folder(s) not read") != NULL;
    }
    RB_CHECK(not_results == 1 && broken == 1 && sub == 1);
    RB_CHECK(rb_history_build(&h, NULL, NULL, err, sizeof err) == 0);
    check_linear(&h);
    RB_CHECK(h.n_series == 12 && h.runs_without_fingerprints == RUNS + 1);
    const rb_history_series *s = find(&h, "copy/step");
    RB_CHECK(s && s->verdict == RB_HISTORY_STEP && s->n_steps == 1 && s->n_points == RUNS);
    if (s && s->n_steps == 1) {
        const rb_history_step *st = &s->steps[0];
        RB_CHECK(st->confirmed && st->to == 4 && st->row.change == RB_CHANGE_SLOWER);
        RB_CHECK(fabs(st->row.ratio - 1.2) < 1e-9 && st->row.cause == RB_CAUSE_CODE);
        RB_CHECK(strstr(st->row.evidence, "step_k: registers 32 -> 40") != NULL);
        RB_CHECK(!strcmp(h.runs[s->points[st->to].run].git, "g4"));
    }
    s = find(&h, "copy/steady");
    RB_CHECK(s && s->verdict == RB_HISTORY_STEADY && s->n_steps == 0 && s->n_blips == 0);
    s = find(&h, "copy/blip");
    RB_CHECK(s && s->verdict == RB_HISTORY_STEADY && s->n_steps == 0 && s->n_blips == 1);
    s = find(&h, "copy/pending");
    RB_CHECK(s && s->verdict == RB_HISTORY_MOVED && s->n_steps == 1);
    RB_CHECK(s && s->n_steps && !s->steps[0].confirmed &&
             s->steps[0].row.change == RB_CHANGE_FASTER && s->steps[0].to == RUNS - 1);
    s = find(&h, "copy/noisy");
    RB_CHECK(s && s->verdict == RB_HISTORY_BLIND && s->n_steps == 0 &&
             strstr(s->blind_why, "half the p10-p90 spread of a timed loop"));
    s = find(&h, "copy/bare");
    RB_CHECK(s && s->verdict == RB_HISTORY_STEP && s->n_steps == 1);
    RB_CHECK(s && s->n_steps && s->steps[0].to == 3 && s->steps[0].row.change == RB_CHANGE_FASTER &&
             strstr(s->steps[0].row.evidence, "judged on the medians"));
    s = find(&h, "copy/step [cold]");
    RB_CHECK(s && s->verdict == RB_HISTORY_SINGLE && s->n_points == 1);
    RB_CHECK(h.counts[RB_HISTORY_STEP] == 2 && h.counts[RB_HISTORY_MOVED] == 1 &&
             h.counts[RB_HISTORY_BLIND] == 1 && h.counts[RB_HISTORY_STEADY] == 2 &&
             h.counts[RB_HISTORY_SINGLE] == 6);
    rb_history_free(&h);
    /* --filter: the series of the variants it names */
    RB_CHECK(rb_history_load(inputs, 1, &h, err, sizeof err) == 0);
    rb_filter f;
    RB_CHECK(rb_filter_compile(&f, "--filter", "/(step|blip)$", err, sizeof err) == 0);
    RB_CHECK(rb_history_build(&h, NULL, &f, err, sizeof err) == 0);
    RB_CHECK(h.n_series == 4 && h.n_filtered_out == 8);
    rb_history_free(&h);
    rb_filter_free(&f);
    /* a filter that is no regex is refused where it is compiled, once (model/cli.h) */
    RB_CHECK(rb_filter_compile(&f, "--filter", "(", err, sizeof err) == -1 &&
             strstr(err, "--filter"));
    rbtest_remove_dir();
}

static void test_outputs(void)
{
    const char *dir = synth_dir();
    rb_history h;
    char err[600];
    const char *inputs[1] = {dir};
    RB_CHECK(rb_history_load(inputs, 1, &h, err, sizeof err) == 0 &&
             rb_history_build(&h, NULL, NULL, err, sizeof err) == 0);
    h.floors_line = "floors: none (--expect none): timed-loop spreads only, at least 2%";
    char *md = rb_history_markdown(&h), *svg = rb_history_svg(&h);
    json_value *j = rb_history_json(&h);
    RB_CHECK(md && !strncmp(md, "floors: none (--expect none)", 28));
    RB_CHECK(md &&
             strstr(md, "| copy/step | 8 | ▁▁▁▁████ | 1.0000 | 1.2000 | +20.0% | **step** |"));
    /* (brackets escaped: Markdown would read them as a link) */
    RB_CHECK(md && strstr(md, "- **copy/step** slower x1.200 \\[1.198, 1.202\\], floor 2.0%, at "
                              "2026-11-21T04:00:00Z g4 (level from g0): code: step_k: registers "
                              "32 -&gt; 40"));
    RB_CHECK(md && strstr(md, "code attribution unavailable for 9 of 9 run(s)"));

    /* one line per series of two points or more, one dot per step, a label per series */
    RB_CHECK(svg && !strncmp(svg, "<svg ", 5) && strstr(svg, "</svg>\n"));
    RB_CHECK(count(svg, "<polyline") == 6 && count(svg, "class=\"step\"") == 3);
    RB_CHECK(svg && strstr(svg, ">step [cold]</text>") && strstr(svg, ">copy</text>"));
    const json_value *series = json_get(j, "series");
    RB_CHECK(series && series->count == 12 && json_get(j, "runs")->count == RUNS + 1);
    free(md);
    free(svg);
    json_free(j);
    rb_history_free(&h);
    rbtest_remove_dir();
}

/* The results files among a folder's own *.json, counted apart from history's reader. */
static int count_results(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        char path[600], err[300];
        if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        json_value *doc = json_parse_file(path, err, sizeof err);
        n += json_get(doc, "pairs") && json_get(doc, "pairs")->type == JSON_ARRAY;
        json_free(doc);
    }
    if (d)
        closedir(d);
    return n;
}

#define H100 "results/nvidia-h100-80gb-hbm3"

/* The committed H100 runs, judged with the committed expectation file's floors. What they hold
 * (results/nvidia-h100-80gb-hbm3/): fused_elementwise's baseline halved when its bias kernel came
 * in, cuda_graphs' stream-launch baseline spreads 53% between recorded runs, and the memory-bound
 * copies do not move. */
static void test_committed_h100(void)
{
    rb_history h;
    rb_expect e;
    char err[600];
    const char *inputs[1] = {H100};
    RB_CHECK(rb_expect_load("expectations/nvidia-h100-80gb-hbm3.json", &e, err, sizeof err) == 0);
    RB_CHECK(rb_history_load(inputs, 1, &h, err, sizeof err) == 0);
    RB_CHECK(h.n_runs == count_results(H100) && h.n_runs >= 30);
    for (int i = 1; i < h.n_runs; i++)
        RB_CHECK(strcmp(h.runs[i - 1].date, h.runs[i].date) <= 0);
    RB_CHECK(h.n_notes >= 1 && strstr(h.notes[h.n_notes - 1], "sub-folder(s) not read"));
    RB_CHECK(rb_history_build(&h, e.doc, NULL, err, sizeof err) == 0);
    check_linear(&h);
    int sum = 0;
    for (int v = 0; v <= RB_HISTORY_SINGLE; v++)
        sum += h.counts[v];
    RB_CHECK(h.n_series >= 150 && sum == h.n_series && h.floors_from_runs > 0);
    printf("    %d runs, %d series: %d step, %d moved, %d blind, %d steady, %d single\n", h.n_runs,
           h.n_series, h.counts[RB_HISTORY_STEP], h.counts[RB_HISTORY_MOVED],
           h.counts[RB_HISTORY_BLIND], h.counts[RB_HISTORY_STEADY], h.counts[RB_HISTORY_SINGLE]);
    const rb_history_series *s = find(&h, "fused_elementwise/baseline");
    int bias = 0;
    for (int k = 0; s && k < s->n_steps; k++)
        bias += s->steps[k].confirmed && s->steps[k].row.change == RB_CHANGE_FASTER &&
                s->steps[k].row.cause == RB_CAUSE_CODE &&
                strstr(s->steps[k].row.evidence, "fused_elementwise_baseline_bias_kernel is new");
    RB_CHECK(s && s->verdict == RB_HISTORY_STEP && bias == 1);
    /* cuda_graphs' stream-launch baseline (host-bound): judged with floors from its recorded
     * runs above 10%, so blind in those judgements; whether the series ends blind or moved
     * depends on the runs committed since. */
    s = find(&h, "cuda_graphs/baseline");
    RB_CHECK(s && s->n_blind > 0 && s->max_floor > 0.10 && strstr(s->blind_why, "recorded runs"));
    RB_CHECK(s && (s->verdict == RB_HISTORY_BLIND || s->verdict == RB_HISTORY_MOVED));
    static const char *const steady[] = {"copy_vectorized/baseline", "copy_vectorized/optimized",
                                         "copy_coalescing/optimized", "transpose/optimized"};
    for (size_t i = 0; i < sizeof steady / sizeof steady[0]; i++) {
        s = find(&h, steady[i]);
        RB_CHECK(s && s->verdict == RB_HISTORY_STEADY && s->n_points >= 10);
    }
    rb_history_free(&h);
    rb_expect_free(&e);
    /* a list of files: one that is not a results file is skipped with a note */
    const char *files[2] = {H100 "/20261125T124752Z-8429b07.json",
                            H100 "/20261126T0443Z-b092044-record-and-same/cmp-same-build.json"};
    RB_CHECK(rb_history_load(files, 2, &h, err, sizeof err) == 0);
    RB_CHECK(h.n_runs == 1 && h.n_notes == 1 &&
             strstr(h.notes[0], "cmp-same-build.json: not a "
                                "results file"));
    rb_history_free(&h);
}

static int exists_in(const char *dir, const char *name)
{
    char path[400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static void test_binary(void)
{
    char *root = realpath(".", NULL), args[1400];
    const char *dir = rbtest_fresh_dir();
    snprintf(args, sizeof args, "history %s/" H100 "/ -o trend --filter '^copy_'",
             root ? root : ".");
    RB_CHECK(rbtest_run(args) == 0);
    const char *out = rbtest_output();
    char first[1200];
    snprintf(first, sizeof first,
             "floors: %s/expectations/nvidia-h100-80gb-hbm3.json (its "
             "recorded run spreads set ",
             root ? root : ".");
    RB_CHECK(!strncmp(out, first, strlen(first)));
    RB_CHECK(strstr(out, "\nhistory: ") && strstr(out, " run(s) of nvidia-h100-80gb-hbm3, "));
    RB_CHECK(strstr(out, "\ncode attribution unavailable for "));
    RB_CHECK(strstr(out, "\nhistory: trend.svg, trend.md, trend.json\n"));
    RB_CHECK(exists_in(dir, "trend.svg") && exists_in(dir, "trend.md") &&
             exists_in(dir, "trend.json"));
    rbtest_remove_dir();
    free(root);
    /* refusals: nothing to read, nothing there, no results file, an output onto an input */
    dir = synth_dir();
    RB_CHECK(rbtest_run("history") == 2 && strstr(rbtest_output(), "history needs runs"));
    RB_CHECK(rbtest_run("history missing/") == 2 && strstr(rbtest_output(), "missing/: no such"));
    RB_CHECK(rbtest_run("history older") == 2 && strstr(rbtest_output(), "no results file"));
    RB_CHECK(rbtest_run("history . -o z0") == 2 &&
             strstr(rbtest_output(), "would replace an input, a run it reads"));
    RB_CHECK(!exists_in(dir, "z0.svg") && !exists_in(dir, "z0.md"));
    RB_CHECK(rbtest_run("history . --md") == 2 && strstr(rbtest_output(), "goes with compare"));
    /* the synthetic runs: steps said, exit 0, the floors none (no expectation file of synth-gpu
     * in the tree) */
    RB_CHECK(rbtest_run("history z0.json z1.json z2.json z3.json z4.json z5.json z6.json z7.json "
                        "--filter '/step$'") == 0);
    out = rbtest_output();
    RB_CHECK(!strncmp(out, "floors: none (", 14) && strstr(out, "synth-gpu.json does not exist"));
    RB_CHECK(strstr(out, "\ncopy/step ") && strstr(out, "  slower x1.200 [1.198, 1.202], floor "
                                                        "2.0%, at 2026-11-21T04:00:00Z g4"));
    rbtest_remove_dir();
}

static const rbtest_case history_cases[] = {
    {"planted_step", test_planted_step},
    {"outputs", test_outputs},
    {"committed_h100", test_committed_h100},
    {"binary", test_binary},
};

RB_SUITE(history_suite, "history", history_cases);
