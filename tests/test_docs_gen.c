/* SPDX-License-Identifier: MIT */
/*
 * The generated blocks (harness/report/docs.h): every block of the README, docs/ and the kernel
 * headers is what the committed reference runs give, and a planted stale number is caught; the
 * renderers on a small results document; `roofbench docs [--check]` as a user runs it.
 */
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/model/cli.h"
#include "../harness/report/docs.h"
#include "../harness/report/docs_render.h"
#include "rbtest.h"

/* A results document with a memory, a latency and a compute row group, a skipped variant and a
 * skipped pair. */
static const char fixture[] =
    "{\"schema\": 1, \"tool\": \"roofbench\", \"date\": \"2026-01-01T00:00:00Z\", \"git\": "
    "\"abc1234\", \"command\": \"roofbench run\", \"seed\": 1, \"size\": \"full\", "
    "\"expectations\": \"expectations/test-gpu.json\", \"environment\": {\"start\": {\"device\": "
    "\"Test GPU\", \"cc\": \"9.0\", \"sms\": 132, \"l2_bytes\": 52428800, \"power_limit_w\": 700, "
    "\"driver\": \"1.0\", \"cuda_runtime\": \"13.0\"}}, \"platform\": {\"dram_gbps\": 3000, "
    "\"fp32_tflops\": 60, \"launch_us\": 2.5}, \"roofs\": {\"dram_gbps\": {\"kind\": "
    "\"bandwidth\", \"measured\": 3000, \"peak\": 3352}, \"fp32_tflops\": {\"kind\": \"compute\", "
    "\"measured\": 60, \"peak\": 66.9}, \"launch_us\": {\"kind\": \"latency\", \"measured\": 2.5, "
    "\"peak\": null}}, \"pairs\": ["
    "{\"name\": \"copy\", \"flops\": 0, \"status\": \"ok\", \"reason\": \"\", \"variants\": ["
    "{\"name\": \"baseline\", \"role\": \"baseline\", \"unit\": \"none\", \"timed\": true, "
    "\"valid\": true, \"time_ms\": {\"median\": 1.0, \"noise\": 0.01}, \"roof\": \"dram_gbps\", "
    "\"vs_ceiling\": "
    "{\"gbps\": 2000, \"tflops\": 0, \"efficiency\": 0.6667, \"bound\": \"memory\"}, \"vs_peak\": "
    "{\"efficiency\": 0.5967, \"bound\": \"memory\"}, \"speedup\": 1, \"verdict\": \"pass\"},"
    "{\"name\": \"optimized\", \"role\": \"optimized\", \"unit\": \"none\", \"timed\": true, "
    "\"valid\": true, "
    "\"time_ms\": {\"median\": 0.6667, \"noise\": 0.01}, \"roof\": \"dram_gbps\", \"vs_ceiling\": "
    "{\"gbps\": 3000, \"tflops\": 0, \"efficiency\": 1.0, \"bound\": \"memory\"}, \"vs_peak\": "
    "{\"efficiency\": 0.895, \"bound\": \"memory\"}, \"speedup\": 1.5, \"verdict\": \"pass\"}]},"
    "{\"name\": \"launch\", \"flops\": 1, \"status\": \"ok\", \"variants\": [{\"name\": "
    "\"baseline\", \"role\": \"baseline\", \"unit\": \"none\", \"timed\": true, \"valid\": true, "
    "\"time_ms\": {\"median\": 0.5, \"noise\": 0.1}, \"roof\": \"launch_us\", \"roof_rate\": "
    "\"us_per_kernel\", \"extras\": {\"us_per_kernel\": 3.25}, \"vs_ceiling\": {\"efficiency\": "
    "0.77, \"bound\": \"latency\"}, \"vs_peak\": {\"efficiency\": null, \"bound\": \"unknown\"}, "
    "\"speedup\": 1, \"verdict\": \"pass\"}]},"
    "{\"name\": \"gemm@1M\", \"flops\": 2e9, \"status\": \"ok\", \"variants\": [{\"name\": "
    "\"baseline\", \"role\": \"baseline\", \"unit\": \"fp32\", \"timed\": true, \"valid\": true, "
    "\"time_ms\": {\"median\": 0.1, \"noise\": 0.02}, \"roof\": \"fp32_tflops\", \"vs_ceiling\": "
    "{\"gbps\": 10, "
    "\"tflops\": 20.5, \"efficiency\": 0.34, \"bound\": \"compute\"}, \"vs_peak\": "
    "{\"efficiency\": 0.3, \"bound\": \"compute\"}, \"speedup\": 1, \"verdict\": \"pass\"}, "
    "{\"name\": \"library\", \"role\": \"library\", \"unit\": \"fp32\", \"time_ms\": {}, "
    "\"timed\": false, \"valid\": true, "
    "\"skipped\": "
    "true, \"note\": \"no algorithm\", \"verdict\": \"skipped\"}]},"
    "{\"name\": \"p2p\", \"status\": \"skipped\", \"reason\": \"needs 2 GPUs\", \"variants\": []}"
    "]}";

/* The results document of text, read (rb_results_doc_read); NULL with a line said. */
static rb_results_doc *doc_of(const char *text)
{
    char err[200];
    json_value *json = json_parse(text, strlen(text), err, sizeof err);
    rb_results_doc *doc = calloc(1, sizeof *doc);
    if (!json || !doc || rb_results_doc_read(json, doc, err, sizeof err) != 0) {
        printf("    fixture: %s\n", err);
        free(doc);
        doc = NULL;
    }
    json_free(json);
    return doc;
}

static void doc_free(rb_results_doc *doc)
{
    if (doc)
        rb_results_doc_free(doc);
    free(doc);
}

static rb_results_doc *fixture_doc(void)
{
    return doc_of(fixture);
}

static char *rows(const rb_results_doc *doc, const char *regex, int terminal, int max_rows, char *err)
{
    rb_filter re;
    if (rb_filter_compile(&re, "--filter", regex, err, 200) != 0)
        return NULL;
    char *s = rb_docs_render_rows(doc, &re.re, terminal, max_rows, err, 200);
    rb_filter_free(&re);
    return s;
}

static int lines_within(const char *s, int width)
{
    while (*s) {
        size_t n = strcspn(s, "\n");
        if ((int)n > width)
            return 0;
        s += n + (s[n] == '\n');
    }
    return 1;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_render_rows(void)
{
    rb_results_doc *doc = fixture_doc();
    RB_CHECK(doc != NULL);
    if (!doc)
        return;
    char err[200] = "";
    char *md = rows(doc, "^copy$", 0, 0, err);
    RB_CHECK(md &&
             strstr(md, "| copy | baseline | 1.0000 | 2000.0 GB/s | 66.7% | 59.7% | 1.00x | "
                        "pass | dram_gbps |\n|  | optimized | 0.6667 | 3000.0 GB/s | 100.0%"));
    free(md);
    /* the rate each roof is read by: us per launch, TFLOP/s, GB/s; an untimed row and its note */
    char *term = rows(doc, "launch|gemm", 1, 30, err);
    RB_CHECK(term && strstr(term, " 3.2 us ") && strstr(term, "20.5 TFLOP/s") &&
             strstr(term, "  library ") && strstr(term, " skipped ") &&
             strstr(term, "note: gemm@1M/library: no algorithm") && !strstr(term, "copy"));
    RB_CHECK(term && !strncmp(term, "```\npair / variant", 18) && strstr(term, "\n```\n"));
    free(term);
    /* a pair not run is one row, with its reason */
    md = rows(doc, "^p2p$", 0, 0, err);
    RB_CHECK(md && strstr(md, "| p2p | - | skipped: needs 2 GPUs |"));
    free(md);
    RB_CHECK(!rows(doc, ".", 1, 4, err) && strstr(err, "6 rows match: at most 4"));
    RB_CHECK(!rows(doc, "^nothing$", 0, 0, err) && strstr(err, "no row group matches"));
    doc_free(doc);
}

/* The energy block: joules per launch and mean power from the counter's window, the mean SM
 * clock, and a row without a figure says why. */
static void test_render_energy(void)
{
    static const char text[] =
        "{\"schema\": 1, \"tool\": \"roofbench\", \"date\": \"2026-01-01T00:00:00Z\", "
        "\"git\": \"abc1234\", \"command\": \"roofbench run\", \"seed\": 1, \"size\": "
        "\"full\", \"environment\": {\"start\": {\"device\": \"Test GPU\"}}, \"pairs\": ["
        "{\"name\": \"gemm\", \"flops\": 2e12, \"status\": \"ok\", \"variants\": ["
        "{\"name\": \"optimized\", \"role\": \"optimized\", \"unit\": \"bf16\", \"timed\": "
        "true, \"valid\": true, \"time_ms\": {\"median\": 2.5, \"noise\": 0.01}, \"clocks\": "
        "{\"sm_mhz_mean\": 1420, \"sm_mhz_min\": 1400, \"samples\": 50, \"reasons\": "
        "[\"power_cap\"]}, \"energy\": {\"joules\": 340, \"window_s\": 0.5, \"launches\": 200, "
        "\"windows\": 2, \"uncertainty\": 0.01}},"
        "{\"name\": \"library\", \"role\": \"library\", \"unit\": \"bf16\", \"timed\": true, "
        "\"valid\": true, \"time_ms\": {\"median\": 2.4, \"noise\": 0.01}, \"energy\": null, "
        "\"energy_why\": \"above_limit\", \"energy_rejected_w\": 760}]},"
        "{\"name\": \"copy\", \"flops\": 0, \"status\": \"ok\", \"variants\": []}]}";
    rb_results_doc *doc = doc_of(text);
    RB_CHECK(doc != NULL);
    if (!doc)
        return;
    rb_filter re;
    char err[200] = "";
    RB_CHECK(rb_filter_compile(&re, "--filter", "^gemm$", err, sizeof err) == 0);
    char *md = rb_docs_render_energy(doc, &re.re, err, sizeof err);
    rb_filter_free(&re);
    /* 340 J over 200 launches and 0.5 s: 1.7 J a launch at 680 W */
    RB_CHECK(md && strstr(md, "| gemm | optimized | 2.5000 | 1.700 | 680 | 1420 MHz |\n"));
    RB_CHECK(md && strstr(md, "|  | library | 2.4000 | - (above_limit) | - | - |\n"));
    free(md);
    RB_CHECK(rb_filter_compile(&re, "--filter", "^nothing$", err, sizeof err) == 0);
    RB_CHECK(!rb_docs_render_energy(doc, &re.re, err, sizeof err) &&
             strstr(err, "no row group matches"));
    rb_filter_free(&re);
    doc_free(doc);
}

static void test_render_header_and_run(void)
{
    rb_results_doc *doc = fixture_doc();
    if (!doc) {
        RB_CHECK(doc != NULL);
        return;
    }
    char *h = rb_docs_render_header(doc, "results/x/reference.json", "gemm", " *   ", 100, 4);
    RB_CHECK(h && strstr(h, " *   results/x/reference.json: ") &&
             strstr(h, " *   gemm@1M: baseline 20.5 TFLOP/s (34.0%), library skipped\n"));
    free(h);
    h = rb_docs_render_header(doc, "r.json", "copy", " *   ", 100, 4);
    RB_CHECK(h &&
             strstr(h, " *   baseline 2000.0 GB/s (66.7%), optimized 3000.0 (100.0%, 1.50x)\n"));
    free(h);
    h = rb_docs_render_header(doc, "r.json", "p2p", " *   ", 100, 4);
    RB_CHECK(h && strstr(h, " *   skipped: needs 2 GPUs\n"));
    free(h);
    h = rb_docs_render_header(doc, "r.json", "newer", " *   ", 100, 4);
    RB_CHECK(h && strstr(h, "no row of newer"));
    free(h);
    /* a narrow header wraps, within its width and its line budget */
    h = rb_docs_render_header(doc, "r.json", "copy", " *   ", 60, 3);
    RB_CHECK(h && lines_within(h, 60) && count_lines(h) == 3 && strstr(h, "\n *     optimized"));
    free(h);
    char *run = rb_docs_render_run(doc, "results/x/reference.json", "results/x/a.json", 100);
    RB_CHECK(run && lines_within(run, 100));
    for (char *c = run; c && *c; c++)
        *c = *c == '\n' ? ' ' : *c;
    RB_CHECK(run && strstr(run, "`results/x/a.json`") && strstr(run, "Test GPU") &&
             strstr(run, "4 pass, 1 skipped") && strstr(run, "p2p skipped (needs 2 GPUs)"));
    RB_CHECK(run && strstr(run, "MiB L2, 700 W power limit), driver"));
    free(run);
    doc_free(doc);
    /* a run that recorded no power limit: the paragraph leaves it out, no "nan W" */
    static const char power[] = "\"power_limit_w\": 700, ";
    char *text = malloc(sizeof fixture), *at = text ? strstr(strcpy(text, fixture), power) : NULL;
    if (at)
        memmove(at, at + strlen(power), strlen(at + strlen(power)) + 1);
    doc = at ? doc_of(text) : NULL;
    run = doc ? rb_docs_render_run(doc, "results/x/reference.json", NULL, 100) : NULL;
    RB_CHECK(run && !strstr(run, "nan") && strstr(run, "MiB L2), driver"));
    free(run);
    doc_free(doc);
    free(text);
}

/* ---- refreshing a file, in a folder of its own ---- */

static int write_text(const char *dir, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* A fresh folder holding the fixture as the H100's reference run; NULL when it cannot. */
static char fixture_dir[256];

static const char *fixture_root(void)
{
    const char *dir = rbtest_fresh_dir();
    snprintf(fixture_dir, sizeof fixture_dir, "%s", dir);
    char sub[400];
    snprintf(sub, sizeof sub, "%s/results", dir);
    int bad = !dir[0] || mkdir(sub, 0755) != 0;
    snprintf(sub, sizeof sub, "%s/results/%s", dir, RB_DOCS_HEADER_KEY);
    bad = bad || mkdir(sub, 0755) != 0;
    snprintf(sub, sizeof sub, "results/%s/reference.json", RB_DOCS_HEADER_KEY);
    bad = bad || write_text(dir, sub, fixture) != 0;
    return bad ? NULL : dir;
}

/* path (relative) under the fixture folder, in a static buffer. */
static const char *fixture_path(const char *path)
{
    static char full[700];
    snprintf(full, sizeof full, "%s/%s", fixture_dir, path);
    return full;
}

/* The generator over a fresh fixture folder; NULL (the folder removed) when it cannot be made. */
static rb_docs *fixture_docs(void)
{
    const char *root = fixture_root();
    rb_docs *d = root ? rb_docs_new(root) : NULL;
    RB_CHECK(d != NULL);
    if (!d)
        rbtest_remove_dir();
    return d;
}

/* Refreshes text as path; returns the new text (caller frees), counting into *stale. */
static char *refresh(rb_docs *d, const char *path, const char *text, int *stale, char *report,
                     char *err)
{
    rb_sbuf r = {0};
    int blocks = 0;
    *stale = 0;
    char *s = rb_docs_refresh(d, path, text, &blocks, stale, &r, err, 300);
    char *said = rb_sbuf_take(&r);
    snprintf(report, 2000, "%s", said ? said : "");
    free(said);
    return s;
}

static void test_refresh_markdown(void)
{
    rb_docs *d = fixture_docs();
    if (!d)
        return;
    char err[300], report[2000];
    int stale;
    const char *page = "# page\n<!-- generated by make docs: table " RB_DOCS_HEADER_KEY
                       " ^copy$ -->\n<!-- end generated -->\ntext after\n";
    char *once = refresh(d, "docs/a.md", page, &stale, report, err);
    RB_CHECK(once && stale == 1 && strstr(once, "|  | optimized | 0.6667 | 3000.0 GB/s |") &&
             strstr(once, "-->\ntext after\n"));
    char *twice = once ? refresh(d, "docs/a.md", once, &stale, report, err) : NULL;
    RB_CHECK(twice && stale == 0 && !strcmp(twice, once));
    /* a planted stale number: 2000.0 GB/s committed as 2001.0 */
    char *planted = twice ? strstr(twice, "2000.0 GB/s") : NULL;
    if (planted)
        planted[3] = '1';
    char *fixed = planted ? refresh(d, "docs/a.md", twice, &stale, report, err) : NULL;
    RB_CHECK(fixed && stale == 1 && strstr(report, "docs/a.md:2: block 'table ") &&
             strstr(report, "committed: | copy | baseline | 1.0000 | 2001.0 GB/s") &&
             strstr(report, "generated: | copy | baseline | 1.0000 | 2000.0 GB/s") &&
             !strcmp(fixed, once));
    free(once);
    free(twice);
    free(fixed);
    /* markers inside a fence are text; a block left open, an unknown one, a missing run fail */
    char *fenced = refresh(d, "a.md", "```\n<!-- generated by make docs: bogus -->\n```\n", &stale,
                           report, err);
    RB_CHECK(fenced && stale == 0);
    free(fenced);
    RB_CHECK(!refresh(d, "a.md",
                      "x\n<!-- generated by make docs: roofs " RB_DOCS_HEADER_KEY " -->\nold\n",
                      &stale, report, err) &&
             strstr(err, "a.md:2: no '<!-- end generated -->' line closes this block"));
    RB_CHECK(!refresh(d, "a.md",
                      "<!-- generated by make docs: bogus 1 -->\n<!-- end generated -->\n", &stale,
                      report, err) &&
             strstr(err, "a.md:1: unknown block 'bogus 1'"));
    RB_CHECK(!refresh(d, "a.md",
                      "<!-- generated by make docs: run nvidia-h200 -->\n"
                      "<!-- end generated -->\n",
                      &stale, report, err) &&
             strstr(err, "results/nvidia-h200/reference.json"));
    RB_CHECK(!refresh(d, "a.md",
                      "<!-- generated by make docs: run ../x -->\n"
                      "<!-- end generated -->\n",
                      &stale, report, err) &&
             strstr(err, "not a hardware key"));
    rb_docs_free(d);
    rbtest_remove_dir();
}

static void test_refresh_header(void)
{
    rb_docs *d = fixture_docs();
    if (!d)
        return;
    char err[300], report[2000];
    int stale;
    const char *head =
        "/* copy: x\n * Measured:  " RB_DOCS_CU_BEGIN " from the H100 reference "
        "run; do not edit)\n *   old line\n *   " RB_DOCS_CU_END "\n *   why.\n */\n";
    char *once = refresh(d, "kernels/copy.cu", head, &stale, report, err);
    RB_CHECK(once && stale == 1 && !strstr(once, "old line") &&
             strstr(once, " *   baseline 2000.0 GB/s (66.7%), optimized 3000.0 (100.0%, 1.50x)\n"
                          " *   " RB_DOCS_CU_END "\n *   why.\n */\n"));
    char *planted = once ? strstr(once, "3000.0 (") : NULL;
    if (planted)
        planted[0] = '4';
    char *fixed = planted ? refresh(d, "kernels/copy.cu", once, &stale, report, err) : NULL;
    RB_CHECK(fixed && stale == 1 && strstr(report, "kernels/copy.cu:2: block 'Measured'") &&
             strstr(report, "optimized 4000.0"));
    free(once);
    free(fixed);
    RB_CHECK(!refresh(d, "kernels/copy.cu", "/*\n * " RB_DOCS_CU_BEGIN ")\n */\n", &stale, report,
                      err) &&
             strstr(err, "kernels/copy.cu:2: no '(end of generated lines)'"));
    rb_docs_free(d);
    rbtest_remove_dir();
}

/* compare of the fixture with itself, as the command prints it; the thresholds of a small
 * expectation file. */
static void test_compare_and_thresholds_blocks(void)
{
    rb_docs *d = fixture_docs();
    if (!d)
        return;
    char err[300], report[2000], path[600];
    int stale;
    const char *ref = "results/" RB_DOCS_HEADER_KEY "/reference.json";
    const char *page = "<!-- generated by make docs: compare results/" RB_DOCS_HEADER_KEY
                       "/reference.json results/" RB_DOCS_HEADER_KEY
                       "/reference.json ^copy$ -->\n<!-- end generated -->\n";
    char *text = refresh(d, "a.md", page, &stale, report, err);
    RB_CHECK(text && strstr(text, "```\nfloors: none (--expect none)") &&
             strstr(text, "\nverdicts: ") && strstr(text, ref) &&
             strstr(text, "filter '^copy$': 2 variant(s)") &&
             strstr(text, "\n```\n<!-- end generated -->"));
    free(text);
    snprintf(path, sizeof path, "%s/expectations", fixture_dir);
    RB_CHECK(mkdir(path, 0755) == 0);
    RB_CHECK(write_text(
                 fixture_dir, "expectations/test-gpu.json",
                 "{\"pairs\": {\"copy\": {\"variants\": {"
                 "\"baseline\": {\"median_ms\": 1, \"runs\": 3, \"run_spread\": 0.2},"
                 "\"optimized\": {\"median_ms\": 1, \"runs\": 3, \"run_spread\": 0.01}}}}}") == 0);
    text = refresh(d, "a.md",
                   "<!-- generated by make docs: thresholds test-gpu -->\n<!-- end generated -->\n",
                   &stale, report, err);
    RB_CHECK(text && strstr(text, "| copy/baseline | 3 | 20.0% | 40.0% | time | not seen |") &&
             !strstr(text, "copy/optimized") && strstr(text, "1 of the file's 2 variants"));
    free(text);
    /* the index of a folder outside any git checkout: what the folder holds */
    text = refresh(d, "a.md",
                   "<!-- generated by make docs: index " RB_DOCS_HEADER_KEY " -->\n"
                   "<!-- end generated -->\n",
                   &stale, report, err);
    RB_CHECK(text &&
             strstr(text, "| `reference.json` | a run at git abc1234, 2026-01-01T00:00:00Z, "
                          "size full: 4 row group(s); 4 pass, 1 skipped |"));
    free(text);
    RB_CHECK(!refresh(d, "a.md",
                      "<!-- generated by make docs: thresholds nvidia-h200 -->\n"
                      "<!-- end generated -->\n",
                      &stale, report, err) &&
             strstr(err, "expectations/nvidia-h200.json"));
    rb_docs_free(d);
    rbtest_remove_dir();
}

/* ---- the repository's own blocks ---- */

static int in_repository(void)
{
    struct stat st;
    if (stat("README.md", &st) == 0 &&
        stat("results/" RB_DOCS_HEADER_KEY "/reference.json", &st) == 0)
        return 1;
    rbtest_skip("not run from the repository root (README.md, the H100's reference run)");
    return 0;
}

/* What make docs would write is what is committed: README.md, results/README.md, docs/, and the
 * kernel headers' Measured lines, from results/<hardware-key>/reference.json. */
static void test_generated_blocks_are_current(void)
{
    if (!in_repository())
        return;
    char **files = NULL, err[1200];
    rb_docs *d = rb_docs_new(".");
    RB_CHECK(d && rb_docs_files(".", &files, err, sizeof err) == 0);
    int blocks = 0, stale = 0, readme_blocks = 0;
    rb_sbuf report = {0};
    for (int i = 0; d && files && files[i]; i++) {
        char *text = rb_docs_read_text(files[i]);
        int before = blocks;
        char *fresh =
            text ? rb_docs_refresh(d, files[i], text, &blocks, &stale, &report, err, sizeof err)
                 : NULL;
        if (!fresh)
            printf("    %s\n", text ? err : files[i]);
        RB_CHECK(fresh != NULL);
        if (!strcmp(files[i], "README.md"))
            readme_blocks = blocks - before;
        free(text);
        free(fresh);
    }
    char *said = rb_sbuf_take(&report);
    if (stale)
        printf("%s    %d stale block(s): run make docs\n", said ? said : "", stale);
    free(said);
    RB_CHECK(stale == 0);
    RB_CHECK(readme_blocks > 0);
    rb_docs_files_free(files);
    rb_docs_free(d);
}

/* The last digit of the first measured figure ("2408.4") inside the first generated block of
 * text, or NULL. */
static char *digit_in_block(char *text, const char *begin, const char *end)
{
    char *b = strstr(text, begin);
    char *line = b ? strchr(b, '\n') : NULL;
    char *e = line ? strstr(line, end) : NULL;
    for (char *s = line; s && s + 2 < e; s++)
        if (s[0] >= '0' && s[0] <= '9' && s[1] == '.' && s[2] >= '0' && s[2] <= '9')
            return s + 2;
    return NULL;
}

/* A number of the committed README, and of a kernel header, made stale: the check says where. */
static void test_planted_stale_number_fails(void)
{
    if (!in_repository())
        return;
    char **files = NULL, err[1200];
    rb_docs *d = rb_docs_new(".");
    RB_CHECK(d && rb_docs_files(".", &files, err, sizeof err) == 0);
    int planted_files = 0;
    for (int i = 0; d && files && files[i]; i++) {
        int cu = strstr(files[i], ".cu") != NULL;
        if (strcmp(files[i], "README.md") && !(cu && planted_files == 1))
            continue;
        char *text = rb_docs_read_text(files[i]);
        char *digit = text ? digit_in_block(text, cu ? RB_DOCS_CU_BEGIN : RB_DOCS_MD_BEGIN,
                                            cu ? RB_DOCS_CU_END : RB_DOCS_MD_END)
                           : NULL;
        if (digit) {
            *digit = *digit == '9' ? '1' : (char)(*digit + 1);
            rb_sbuf report = {0};
            int blocks = 0, stale = 0;
            char *fresh =
                rb_docs_refresh(d, files[i], text, &blocks, &stale, &report, err, sizeof err);
            char *said = rb_sbuf_take(&report);
            RB_CHECK(fresh && stale == 1 && said && strstr(said, files[i]) &&
                     strstr(said, "is not what the reference run gives"));
            planted_files++;
            free(fresh);
            free(said);
        }
        free(text);
    }
    RB_CHECK(planted_files >= 1); /* the README's; a header's too, once headers have blocks */
    rb_docs_files_free(files);
    rb_docs_free(d);
}

/* Every relative link of the committed Markdown ([text](path), anchors aside) names a file or
 * folder of the repository: a page moved or renamed leaves no dead link behind. */
static int links_ok(const char *file, const char *text)
{
    int bad = 0;
    char dir[512];
    const char *slash = strrchr(file, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
    for (const char *s = strstr(text, "]("); s; s = strstr(s + 2, "](")) {
        const char *t = s + 2;
        size_t n = strcspn(t, ")# \n");
        if (n == 0 || !strncmp(t, "http", 4) || !strncmp(t, "mailto:", 7))
            continue;
        char path[1100];
        struct stat st;
        snprintf(path, sizeof path, "%s/%.*s", dir, (int)n, t);
        if (stat(path, &st) != 0) {
            printf("    %s: a link to %.*s, which does not exist\n", file, (int)n, t);
            bad++;
        }
    }
    return bad;
}

static void test_links_resolve(void)
{
    if (!in_repository())
        return;
    char **files = NULL, err[300];
    RB_CHECK(rb_docs_files(".", &files, err, sizeof err) == 0);
    int bad = 0, pages = 0, twins = 0;
    for (int i = 0; files && files[i]; i++) {
        if (!strstr(files[i], ".md"))
            continue;
        char *text = rb_docs_read_text(files[i]);
        bad += text ? links_ok(files[i], text) : 1;
        pages++;
        free(text);
    }
    rb_docs_files_free(files);
    /* and the reference runs' twins, which link their charts and report */
    DIR *dp = opendir("results");
    for (struct dirent *e; dp && (e = readdir(dp)) != NULL;) {
        char path[400];
        snprintf(path, sizeof path, "results/%s/reference.md", e->d_name);
        char *text = e->d_name[0] != '.' ? rb_docs_read_text(path) : NULL;
        if (text) {
            bad += links_ok(path, text);
            twins++;
        }
        free(text);
    }
    if (dp)
        closedir(dp);
    RB_CHECK(pages > 5 && twins >= 2 && bad == 0);
    /* the checker on planted text: one dead link of three */
    RB_CHECK(links_ok("README.md",
                      "[a](docs/cli.md#options) [b](https://x.org) [c](docs/nope.md)") == 1);
}

/* ---- the reference runs' Markdown twins ---- */

/* Each results/<key>/reference.md is what make docs writes from its reference.json. */
static void test_reference_markdown_is_current(void)
{
    if (!in_repository())
        return;
    rb_docs *d = rb_docs_new(".");
    DIR *dp = opendir("results");
    int refs = 0, stale = 0;
    for (struct dirent *e; d && dp && (e = readdir(dp)) != NULL;) {
        char path[400], err[300];
        struct stat st;
        snprintf(path, sizeof path, "results/%s/reference.json", e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0)
            continue;
        refs++;
        char *fresh = rb_docs_reference_md(d, e->d_name, err, sizeof err);
        snprintf(path, sizeof path, "results/%s/reference.md", e->d_name);
        char *committed = rb_docs_read_text(path);
        if (!fresh || !committed || strcmp(fresh, committed)) {
            printf("    %s: %s\n", path, fresh ? "not what make docs writes (run make docs)" : err);
            stale++;
        }
        free(fresh);
        free(committed);
    }
    if (dp)
        closedir(dp);
    rb_docs_free(d);
    RB_CHECK(refs >= 2 && stale == 0);
}

/* The twin of a run with a kernel: the run's table, its kernels, the charts beside it; a twin
 * edited by hand is stale and make docs writes it again. */
static void test_reference_markdown_planted(void)
{
    const char *root = fixture_root();
    RB_CHECK(root != NULL);
    if (!root) {
        rbtest_remove_dir();
        return;
    }
    static const char at[] = "{\"name\": \"copy\", \"flops\": 0,";
    static const char kernel[] =
        "{\"name\": \"copy\", \"kernels\": [{\"variant\": \"optimized\", \"name\": "
        "\"copy_optimized_kernel\", \"registers\": 16, \"static_smem_bytes\": 0, "
        "\"dyn_smem_bytes\": 0, \"local_bytes\": 0, \"block_threads\": 256, \"blocks_per_sm\": "
        "8, \"occupancy\": 1}], \"flops\": 0,";
    const char *cut = strstr(fixture, at);
    char *doc = malloc(sizeof fixture + sizeof kernel);
    RB_CHECK(cut && doc);
    if (cut && doc) {
        snprintf(doc, sizeof fixture + sizeof kernel, "%.*s%s%s", (int)(cut - fixture), fixture,
                 kernel, cut + strlen(at));
        RB_CHECK(write_text(root, "results/" RB_DOCS_HEADER_KEY "/reference.json", doc) == 0);
    }
    free(doc);
    rb_docs *d = rb_docs_new(root);
    char err[300];
    char *md = d ? rb_docs_reference_md(d, RB_DOCS_HEADER_KEY, err, sizeof err) : NULL;
    RB_CHECK(md && strstr(md, "# roofbench results: Test GPU\n") &&
             strstr(md, "| copy | baseline |"));
    RB_CHECK(md && strstr(md, "\n## Kernels\n") && strstr(md, "`copy_optimized_kernel` | 16 |"));
    /* the charts the run has (a copy, no FLOPs: the bandwidth chart, no roofline) */
    RB_CHECK(md && strstr(md, "![bandwidth chart](reference-bandwidth.svg)") &&
             !strstr(md, "](reference.svg)") &&
             strstr(md, "![speedup chart](reference-speedup.svg)") &&
             strstr(md, "[HTML report](reference.html)"));
    RB_CHECK(!rb_docs_reference_md(d, "Not/A/Key", err, sizeof err) && strstr(err, "hardware key"));
    rb_docs_free(d);
    RB_CHECK(write_text(root, "README.md", "# t\n") == 0);
    RB_CHECK(rbtest_run("docs") == 0 && strstr(rbtest_output(), "1 of 1 reference .md rewritten"));
    char *written =
        rbtest_read_file(md ? fixture_path("results/" RB_DOCS_HEADER_KEY "/reference.md") : "");
    RB_CHECK(written && md && !strcmp(written, md));
    free(written);
    RB_CHECK(write_text(root, "results/" RB_DOCS_HEADER_KEY "/reference.md", "# by hand\n") == 0);
    RB_CHECK(rbtest_run("docs --check") == 1 &&
             strstr(rbtest_output(), "results/" RB_DOCS_HEADER_KEY "/reference.md: not what") &&
             strstr(rbtest_output(), "1 of 1 reference .md stale"));
    free(md);
    rbtest_remove_dir();
}

/* ---- results/README.md's index: every file under results/, none that is not there ---- */

#define INDEX_MAX_NAMES 2048
#define INDEX_NAME_LEN 300

typedef struct index_names {
    char (*name)[INDEX_NAME_LEN];
    int n;
} index_names;

static void index_names_add(index_names *l, const char *prefix, const char *s, size_t n)
{
    /* a name too long for the list is left out, and then reported as missing */
    if (l->n < INDEX_MAX_NAMES &&
        snprintf(l->name[l->n], INDEX_NAME_LEN, "%s%.*s", prefix, (int)n, s) < INDEX_NAME_LEN)
        l->n++;
}

static int index_has(const index_names *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->name[i], name))
            return 1;
    return 0;
}

/* The files one row of an index names, as paths below its results/<key>/: a run and its
 * companions ("| `a.json`, `.md`, `-speedup.svg` | ..." is a.json, a.md, a-speedup.svg),
 * another file ("| `x.txt` | ..."), or a folder and every file under it ("| `d/` | `a.log`,
 * `b/c.txt` |" is d/a.log, d/b/c.txt). */
static void index_row(const char *row, index_names *l)
{
    const char *cell = row + 1, *bar = strstr(cell, " | ");
    const char *tick = strchr(cell, '`'), *end = tick ? strchr(tick + 1, '`') : NULL;
    if (!bar || !tick || !end || tick > bar)
        return;
    char first[INDEX_NAME_LEN], stem[INDEX_NAME_LEN];
    snprintf(first, sizeof first, "%.*s", (int)(end - tick - 1), tick + 1);
    size_t len = strlen(first);
    int folder = len > 1 && first[len - 1] == '/';
    snprintf(stem, sizeof stem, "%.*s", (int)(len > 5 ? len - 5 : len), first);
    if (!folder)
        index_names_add(l, "", first, len);
    const char *from = folder ? bar + 3 : end + 1, *stop = folder ? strchr(from, '\n') : bar;
    for (const char *t = strchr(from, '`'); t && stop && t < stop; t = strchr(t + 1, '`')) {
        const char *e = strchr(t + 1, '`');
        if (!e || e > stop)
            break;
        if (folder)
            index_names_add(l, first, t + 1, (size_t)(e - t - 1));
        else if (t[1] == '.' || t[1] == '-')
            index_names_add(l, stem, t + 1, (size_t)(e - t - 1));
        t = e;
    }
}

/* Every file the index block of key names, from text (results/README.md); -1 when it has none. */
static int index_block_names(const char *text, const char *key, index_names *l)
{
    char begin[300];
    snprintf(begin, sizeof begin, RB_DOCS_MD_BEGIN "index %s -->\n", key);
    const char *b = strstr(text, begin), *e = b ? strstr(b, RB_DOCS_MD_END) : NULL;
    if (!e)
        return -1;
    for (const char *row = strchr(b, '\n'); row && row < e; row = strchr(row + 1, '\n'))
        if (row[1] == '|' && strncmp(row + 1, "| file or folder", 16) &&
            strncmp(row + 1, "|---", 4))
            index_row(row + 1, l);
    return 0;
}

/* The files under dir, as prefix + their path below it. */
static void index_walk(const char *dir, const char *prefix, index_names *l)
{
    DIR *dp = opendir(dir);
    for (struct dirent *e; dp && (e = readdir(dp)) != NULL;) {
        char path[INDEX_NAME_LEN + 400], name[INDEX_NAME_LEN];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(name, sizeof name, "%s%s", prefix, e->d_name);
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            char deeper[INDEX_NAME_LEN + 2];
            snprintf(deeper, sizeof deeper, "%s/", name);
            index_walk(path, deeper, l);
        } else {
            index_names_add(l, "", name, strlen(name));
        }
    }
    if (dp)
        closedir(dp);
}

/* The files under results/<key>/ that a clone carries: git's tracked files in a checkout, else
 * the folder as it is. Returns 1 when git listed them, 0 for the folder. */
static int index_tracked(const char *key, index_names *l)
{
    char cmd[400], line[INDEX_NAME_LEN + 64];
    snprintf(cmd, sizeof cmd, "git ls-files -- 'results/%s' 2>/dev/null", key);
    FILE *p = popen(cmd, "r");
    size_t skip = strlen("results/") + strlen(key) + 1;
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (strlen(line) > skip)
            index_names_add(l, "", line + skip, strlen(line + skip));
    }
    int listed = p && pclose(p) == 0 && l->n > 0;
    if (!listed) {
        l->n = 0;
        char dir[400];
        snprintf(dir, sizeof dir, "results/%s", key);
        index_walk(dir, "", l);
    }
    return listed;
}

/* The files an index of key misses (files on the left, not named) and names without a file
 * (extra), each as "key/path" on its own line; the count of both. */
static int index_check(const index_names *files, const index_names *named, const char *key,
                       const char *root, char *said, size_t size)
{
    int bad = 0;
    for (int i = 0; i < files->n; i++)
        if (!index_has(named, files->name[i])) {
            size_t used = strlen(said);
            snprintf(said + used, size - used, "    not in the index: results/%s/%s\n", key,
                     files->name[i]);
            bad++;
        }
    for (int i = 0; i < named->n; i++) {
        char path[INDEX_NAME_LEN + 300];
        struct stat st;
        snprintf(path, sizeof path, "%s/results/%s/%s", root, key, named->name[i]);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            size_t used = strlen(said);
            snprintf(said + used, size - used, "    in the index, not a file: results/%s/%s\n", key,
                     named->name[i]);
            bad++;
        }
    }
    return bad;
}

static int index_alloc(index_names *l)
{
    l->name = calloc(INDEX_MAX_NAMES, INDEX_NAME_LEN);
    l->n = 0;
    return l->name ? 0 : -1;
}

/* Every folder under results/ has its index block in results/README.md, and each block names
 * exactly the files a clone carries there. */
static void test_results_index_is_complete(void)
{
    if (!in_repository())
        return;
    char *text = rb_docs_read_text("results/README.md");
    index_names files = {0}, named = {0};
    char *said = calloc(1, 16384);
    RB_CHECK(text && said && index_alloc(&files) == 0 && index_alloc(&named) == 0);
    DIR *dp = opendir("results");
    int folders = 0, bad = 0;
    for (struct dirent *e;
         text && said && files.name && named.name && dp && (e = readdir(dp)) != NULL;) {
        char dir[400];
        struct stat st;
        snprintf(dir, sizeof dir, "results/%s", e->d_name);
        if (e->d_name[0] == '.' || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        folders++;
        files.n = named.n = 0;
        index_tracked(e->d_name, &files);
        if (index_block_names(text, e->d_name, &named) != 0) {
            printf("    results/README.md: no 'index %s' block\n", e->d_name);
            bad++;
            continue;
        }
        bad += index_check(&files, &named, e->d_name, ".", said, 16384);
    }
    if (dp)
        closedir(dp);
    if (said && said[0])
        printf("%s", said);
    RB_CHECK(folders >= 3 && bad == 0);
    free(text);
    free(said);
    free(files.name);
    free(named.name);
}

/* The check on planted text: a folder's file left out, a file named that is not there, and an
 * index that matches its folder (a run with companions, a file, a session's nested files). */
static void test_results_index_planted(void)
{
    const char *root = fixture_root();
    index_names files = {0}, named = {0};
    char said[2000] = "";
    RB_CHECK(root && index_alloc(&files) == 0 && index_alloc(&named) == 0);
    if (!root || !files.name || !named.name) {
        free(files.name);
        free(named.name);
        rbtest_remove_dir();
        return;
    }
    char sub[400];
    snprintf(sub, sizeof sub, "%s/results/%s/s", root, RB_DOCS_HEADER_KEY);
    RB_CHECK(mkdir(sub, 0755) == 0);
    snprintf(sub, sizeof sub, "%s/results/%s/s/d", root, RB_DOCS_HEADER_KEY);
    RB_CHECK(mkdir(sub, 0755) == 0);
    static const char *const have[] = {"a.json", "a.md", "a-speedup.svg", "x.txt", "s/d/y.log"};
    for (size_t i = 0; i < sizeof have / sizeof have[0]; i++) {
        char rel[300];
        snprintf(rel, sizeof rel, "results/%s/%s", RB_DOCS_HEADER_KEY, have[i]);
        RB_CHECK(write_text(root, rel, "x\n") == 0);
        index_names_add(&files, "", have[i], strlen(have[i]));
    }
    char text[1200];
    snprintf(text, sizeof text,
             RB_DOCS_MD_BEGIN "index %s -->\n| file or folder | what |\n|---|---|\n"
                              "| `a.json`, `-speedup.svg`, `.md` | a run |\n"
                              "| `s/` | `d/y.log` |\n| `x.txt` | a log |\n" RB_DOCS_MD_END "\n",
             RB_DOCS_HEADER_KEY);
    RB_CHECK(index_block_names(text, RB_DOCS_HEADER_KEY, &named) == 0 && named.n == 5);
    RB_CHECK(index_check(&files, &named, RB_DOCS_HEADER_KEY, root, said, sizeof said) == 0);
    /* x.txt left out of the index, and a file it names that is not there */
    char *x = strstr(text, "| `x.txt` | a log |\n");
    if (x)
        memcpy(x, "| `z.txt` | a log |\n", 20);
    named.n = 0;
    RB_CHECK(x && index_block_names(text, RB_DOCS_HEADER_KEY, &named) == 0);
    RB_CHECK(index_check(&files, &named, RB_DOCS_HEADER_KEY, root, said, sizeof said) == 2);
    RB_CHECK(strstr(said, "not in the index: results/" RB_DOCS_HEADER_KEY "/x.txt") &&
             strstr(said, "in the index, not a file: results/" RB_DOCS_HEADER_KEY "/z.txt"));
    RB_CHECK(index_block_names(text, "nvidia-h200", &named) == -1);
    free(files.name);
    free(named.name);
    rbtest_remove_dir();
}

/* ---- the command ---- */

static void test_docs_command(void)
{
    const char *root = fixture_root();
    RB_CHECK(root != NULL);
    if (!root) {
        rbtest_remove_dir();
        return;
    }
    const char *stale = "# t\n<!-- generated by make docs: table " RB_DOCS_HEADER_KEY
                        " ^copy$ -->\n| copy | baseline | 9.9 |\n<!-- end generated -->\n";
    RB_CHECK(write_text(root, "README.md", stale) == 0);
    RB_CHECK(rbtest_run("docs --check") == 1 && strstr(rbtest_output(), "README.md:2: block") &&
             strstr(rbtest_output(), "1 stale"));
    RB_CHECK(rbtest_run("docs") == 0 && strstr(rbtest_output(), "1 rewritten"));
    RB_CHECK(rbtest_run("docs --check") == 0 && strstr(rbtest_output(), "0 stale"));
    RB_CHECK(rbtest_run("docs --cold") == 2 && strstr(rbtest_output(), "does not go with docs"));
    RB_CHECK(rbtest_run("list --check") == 2);
    RB_CHECK(write_text(root, "README.md", "<!-- generated by make docs: nope -->\n") == 0);
    RB_CHECK(rbtest_run("docs") == 2 && strstr(rbtest_output(), "README.md:1:"));
    char path[400];
    snprintf(path, sizeof path, "%s/README.md", root);
    RB_CHECK(remove(path) == 0);
    RB_CHECK(rbtest_run("docs --check") == 2 && strstr(rbtest_output(), "no README.md"));
    rbtest_remove_dir();
}

static const rbtest_case docs_gen_cases[] = {
    {"render_rows", test_render_rows},
    {"render_header_and_run", test_render_header_and_run},
    {"refresh_markdown", test_refresh_markdown},
    {"refresh_header", test_refresh_header},
    {"compare_and_thresholds_blocks", test_compare_and_thresholds_blocks},
    {"render_energy", test_render_energy},
    {"links_resolve", test_links_resolve},
    {"generated_blocks_are_current", test_generated_blocks_are_current},
    {"planted_stale_number_fails", test_planted_stale_number_fails},
    {"docs_command", test_docs_command},
    {"reference_markdown_is_current", test_reference_markdown_is_current},
    {"reference_markdown_planted", test_reference_markdown_planted},
    {"results_index_is_complete", test_results_index_is_complete},
    {"results_index_planted", test_results_index_planted},
};

RB_SUITE(docs_gen_suite, "docs_gen", docs_gen_cases);
