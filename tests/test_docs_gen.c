/* SPDX-License-Identifier: MIT */
/*
 * The generated blocks (harness/core/docs.h): every block of the README, docs/ and the kernel
 * headers is what the committed reference runs give, and a planted stale number is caught; the
 * renderers on a small results document; `roofbench docs [--check]` as a user runs it.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/core/docs.h"
#include "../harness/core/docs_render.h"
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

static json_value *fixture_doc(void)
{
    char err[200];
    json_value *doc = json_parse(fixture, strlen(fixture), err, sizeof err);
    if (!doc)
        printf("    fixture: %s\n", err);
    return doc;
}

static char *rows(const json_value *doc, const char *regex, int terminal, int max_rows, char *err)
{
    regex_t re;
    if (regcomp(&re, regex, REG_EXTENDED | REG_NOSUB) != 0)
        return NULL;
    char *s = rb_docs_render_rows(doc, &re, terminal, max_rows, err, 200);
    regfree(&re);
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
    json_value *doc = fixture_doc();
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
    json_free(doc);
}

static void test_render_header_and_run(void)
{
    json_value *doc = fixture_doc();
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
    free(run);
    json_free(doc);
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
    int bad = 0, pages = 0;
    for (int i = 0; files && files[i]; i++) {
        if (!strstr(files[i], ".md"))
            continue;
        char *text = rb_docs_read_text(files[i]);
        bad += text ? links_ok(files[i], text) : 1;
        pages++;
        free(text);
    }
    rb_docs_files_free(files);
    RB_CHECK(pages > 5 && bad == 0);
    /* the checker on planted text: one dead link of three */
    RB_CHECK(links_ok("README.md",
                      "[a](docs/cli.md#options) [b](https://x.org) [c](docs/nope.md)") == 1);
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
    {"links_resolve", test_links_resolve},
    {"generated_blocks_are_current", test_generated_blocks_are_current},
    {"planted_stale_number_fails", test_planted_stale_number_fails},
    {"docs_command", test_docs_command},
};

RB_SUITE(docs_gen_suite, "docs_gen", docs_gen_cases);
