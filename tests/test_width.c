/* SPDX-License-Identifier: MIT */
/*
 * Output that fits the terminal (harness/report/table.c): the run's table, compare, history and
 * list at COLUMNS=80 and COLUMNS=60, and with COLUMNS unset and the output piped (80), have no
 * line longer than the width; --wide prints every name whole; the collectives get a table in
 * nccl-tests' columns; the variants a sweep does not time at a row's size by design are told
 * apart from the skipped in the table, the counts and the HTML report. The inputs are the
 * committed reference runs (results/), so no GPU is needed. Each check is shown failing on a
 * planted defect (a table that ignores the width, a row that is not a collective, a skip that is
 * not by design).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/model/json.h"
#include "../harness/model/report.h"
#include "../harness/model/result_read.h"
#include "../harness/report/plot.h"
#include "../harness/report/table.h"
#include "rbtest.h"

#define H100 "results/nvidia-h100-80gb-hbm3/"
#define JUDGE H100 "20261126T0415Z-4053b1d-judge/"
#define PLANTED H100 "20261126T0435Z-aa9a9ac-planted-and-streamer/"
#define H200_X2 "results/nvidia-h200-x2/reference.json"

static const int widths[] = {80, 60};

/* The characters of the longest line of text, and where it starts. */
static int longest_line(const char *text, const char **where)
{
    int best = 0, cols = 0;
    const char *start = text;
    *where = text;
    for (const char *s = text; *s; s++) {
        if (*s == '\n') {
            cols = 0;
            start = s + 1;
            continue;
        }
        cols += ((unsigned char)*s & 0xC0) != 0x80;
        if (cols > best) {
            best = cols;
            *where = start;
        }
    }
    return best;
}

/* 1 when no line of text is longer than width; else 0, the first such line printed. */
static int fits(const char *text, int width, const char *what)
{
    const char *line;
    int longest = text ? longest_line(text, &line) : width + 1;
    if (longest <= width)
        return 1;
    if (text)
        printf("    %s at %d columns: a line of %d: %.*s\n", what, width, longest,
               (int)strcspn(line, "\n"), line);
    return 0;
}

/* The standard output (and error) of `roofbench ARGS` into a file (not a terminal), with
 * COLUMNS=columns (NULL: unset). The caller frees. */
static char *output_of(const char *columns, const char *args)
{
    char cmd[2048], path[600], bin[1024];
    if (rbtest_binary[0] == '/' || !getcwd(bin, sizeof bin - 300))
        snprintf(bin, sizeof bin, "%s", rbtest_binary);
    else
        snprintf(bin + strlen(bin), sizeof bin - strlen(bin), "/%s", rbtest_binary);
    snprintf(path, sizeof path, "%s/width.out", rbtest_fresh_dir());
    snprintf(cmd, sizeof cmd, "%s%s '%s' %s > '%s' 2>&1 < /dev/null",
             columns ? "COLUMNS=" : "env -u COLUMNS", columns ? columns : "", bin, args, path);
    char *text = system(cmd) != -1 ? rbtest_read_file(path) : NULL;
    rbtest_remove_dir();
    return text;
}

/* A command's output fits 80 and 60 columns and, with COLUMNS unset and piped, 80; --wide
 * holds each of names whole (NULL-ended) and does not fit 80 (the planted defect: a table
 * that ignores the width fails the check). */
static void command_fits(const char *args, const char *const *names)
{
    char width[16], what[300];
    snprintf(what, sizeof what, "roofbench %.200s", args);
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        snprintf(width, sizeof width, "%d", widths[i]);
        char *text = output_of(width, args);
        RB_CHECK(text && strlen(text) > 200);
        RB_CHECK(fits(text, widths[i], what));
        free(text);
    }
    char *text = output_of(NULL, args);
    RB_CHECK(fits(text, 80, what));
    free(text);
    char wide[1200];
    snprintf(wide, sizeof wide, "%s --wide", args);
    text = output_of("60", wide);
    for (int i = 0; text && names[i]; i++)
        RB_CHECK(strstr(text, names[i]) != NULL);
    RB_CHECK(text && !fits(text, 80, "(planted: --wide, expected not to fit)"));
    free(text);
}

static void test_compare_fits(void)
{
    const char *names[] = {"gemm_autotune.awkward/optimized", NULL};
    command_fits("compare " JUDGE "same2.json " PLANTED "planted.json", names);
    const char *nccl[] = {"nccl_allreduce.reduce_scatter@256K/nccl_out_of_place", NULL};
    char args[400];
    snprintf(args, sizeof args, "compare %s %s", H200_X2, H200_X2);
    command_fits(args, nccl);
}

static void test_history_fits(void)
{
    const char *names[] = {"async_pipeline/baseline (size 268435456)", NULL};
    command_fits("history " H100, names);
}

static void test_list_fits(void)
{
    const char *names[] = {"query rows (batch x heads x seq; RxC = (batch x heads) x seq)", NULL};
    command_fits("list", names);
}

/* The run's table of a results file (as run prints it), with its summary: text the caller
 * frees. */
static char *table_of(const rb_pair_result *p, int n, int wide)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    rb_report_table(f, p, n, wide);
    rb_report_summary(f, p, n);
    fclose(f);
    return buf;
}

static int read_run(const char *path, rb_pair_result **p, int *n)
{
    char err[300];
    json_value *doc = json_parse_file(path, err, sizeof err);
    int rc = doc ? rb_results_read(doc, p, n, err, sizeof err) : -1;
    if (rc != 0)
        printf("    %s: %s\n", path, err);
    json_free(doc);
    return rc;
}

static void test_run_table_fits(void)
{
    const char *runs[] = {H100 "reference.json", H200_X2};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        rb_pair_result *p = NULL;
        int n = 0;
        RB_CHECK(read_run(runs[r], &p, &n) == 0 && n > 5);
        for (size_t i = 0; p && i < sizeof widths / sizeof widths[0]; i++) {
            char width[16];
            snprintf(width, sizeof width, "%d", widths[i]);
            setenv("COLUMNS", width, 1);
            char *text = table_of(p, n, 0);
            RB_CHECK(fits(text, widths[i], runs[r]));
            free(text);
        }
        setenv("COLUMNS", "80", 1);
        char *text = table_of(p, n, 1);
        for (int i = 0; text && i < n; i++)
            for (int k = 0; k < p[i].n_variants; k++)
                RB_CHECK(strstr(text, p[i].v[k].name) != NULL);
        /* the planted defect: the table laid out whole does not fit */
        RB_CHECK(text && !fits(text, 80, "(planted: the whole table, expected not to fit)"));
        free(text);
        free(p);
    }
    setenv("COLUMNS", "1000", 1);
}

/* The collectives' rows again under the run's table in nccl-tests' columns (size, count, type,
 * redop, time, algbw, busbw, #wrong), their extra lines without the figures the table shows. */
static void test_collectives_table(void)
{
    rb_pair_result *p = NULL;
    int n = 0;
    RB_CHECK(read_run(H200_X2, &p, &n) == 0);
    setenv("COLUMNS", "100", 1);
    char *text = table_of(p, n, 0);
    const char *heads[] = {"size (B)", "count", "type", "redop", "time (us)", "algbw", "busbw",
                           "#wrong"};
    const char *table = text ? strstr(text, "\ncollectives (nccl-tests' columns") : NULL;
    RB_CHECK(table != NULL);
    for (size_t i = 0; table && i < sizeof heads / sizeof heads[0]; i++)
        RB_CHECK(strstr(table, heads[i]) != NULL);
    RB_CHECK(table && strstr(table, "\nallreduce@8 (float, sum)\n  host_staged ") &&
             strstr(table, "\n  nccl_out_of_place ") && strstr(table, " float ") &&
             strstr(table, " sum "));
    RB_CHECK(table && strstr(table, "\nallgather@1G (float, none)\n") && strstr(table, " none "));
    const char *extra = text ? strstr(text, "\nextra: nccl_allreduce") : NULL;
    RB_CHECK(extra && strstr(extra, "nccl_version 2.28.3"));
    RB_CHECK(extra && strncmp(extra, "\nextra", 6) == 0 && !strstr(extra, "busbw_gbps"));
    free(text);
    /* the planted defect: rows whose bus bandwidth is not among their extras get no table */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p[i].n_variants; k++)
            for (int x = 0; x < p[i].v[k].n_extras; x++)
                if (!strcmp(p[i].v[k].extras[x].name, "busbw_gbps"))
                    snprintf(p[i].v[k].extras[x].name, sizeof p[i].v[k].extras[x].name, "bus");
    text = table_of(p, n, 0);
    RB_CHECK(text && !strstr(text, "collectives (nccl-tests' columns"));
    free(text);
    free(p);
    setenv("COLUMNS", "1000", 1);
}

/* The variants a sweep does not time at a row's size (RB_NOT_AT_SIZE_NOTE) are "not at size" in
 * the run's table, share one note a row group, and are counted apart from the skipped in the
 * summary and the HTML report; the planted defect, the same rows with another note (a skip that
 * is not by design), are skipped and counted so. */
static void test_not_at_size_apart(void)
{
    rb_pair_result *p = NULL;
    int n = 0;
    RB_CHECK(read_run(H100 "reference.json", &p, &n) == 0);
    int by_design = 0, skipped = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p[i].n_variants; k++)
            if (p[i].v[k].skipped)
                *(strncmp(p[i].v[k].note, RB_NOT_AT_SIZE_NOTE, strlen(RB_NOT_AT_SIZE_NOTE))
                      ? &skipped
                      : &by_design) += 1;
    RB_CHECK(by_design >= 10 && skipped >= 1);
    setenv("COLUMNS", "100", 1);
    char *text = table_of(p, n, 0), want[200];
    snprintf(want, sizeof want, "verdicts: %d pass, %d regressed, %d skipped; %d rows not timed at "
             "this size", 123, 2, skipped, by_design);
    RB_CHECK(text && strstr(text, "not at size") && strstr(text, "not timed "));
    RB_CHECK(text && strstr(text, "note: hgemm.square@36M: " RB_NOT_AT_SIZE_NOTE " (mma_sync, "));
    RB_CHECK(text && !strstr(text, "hgemm.square@36M/mma_sync: " RB_NOT_AT_SIZE_NOTE));
    if (text && !strstr(text, want))
        printf("    wanted: %s\n", want);
    RB_CHECK(text && strstr(text, want));
    free(text);
    char err[300];
    json_value *doc = json_parse_file(H100 "reference.json", err, sizeof err);
    rb_plot_data d;
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    char *html = doc ? rb_plot_html(&d) : NULL;
    snprintf(want, sizeof want, ">%d not timed at this size</span>", by_design);
    RB_CHECK(html && strstr(html, want));
    snprintf(want, sizeof want, ">%d skipped</span>", skipped);
    RB_CHECK(html && strstr(html, want));
    free(html);
    if (doc)
        rb_plot_free(&d);
    json_free(doc);
    /* the planted defect: another note, so the same rows are skipped like any other */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p[i].n_variants; k++)
            if (p[i].v[k].skipped)
                snprintf(p[i].v[k].note, sizeof p[i].v[k].note, "could not be measured");
    text = table_of(p, n, 0);
    snprintf(want, sizeof want, "%d skipped", skipped + by_design);
    RB_CHECK(text && !strstr(text, "not at size") && !strstr(text, "not timed at this size"));
    RB_CHECK(text && strstr(text, want));
    free(text);
    free(p);
    setenv("COLUMNS", "1000", 1);
}

/* The layout itself: the width read, names abbreviated between characters, columns gone under
 * the row in the order of their rank, words longer than a line cut. */
static void test_table_layout(void)
{
    setenv("COLUMNS", "120", 1);
    RB_CHECK(rb_table_width() == 120);
    setenv("COLUMNS", "20", 1);
    RB_CHECK(rb_table_width() == RB_TABLE_MIN_WIDTH);
    setenv("COLUMNS", "wide", 1);
    RB_CHECK(isatty(STDOUT_FILENO) || rb_table_width() == 80);
    rb_table_set_wide(1);
    RB_CHECK(rb_table_width() == 0);
    rb_table_set_wide(0);
    setenv("COLUMNS", "1000", 1);

    char name[1000] = "", out[1000];
    for (int i = 0; i < 300; i++)
        strcat(name, "\xc3\xbc"); /* 300 "ü" */
    rb_table_abbrev(name, 11, out, sizeof out);
    RB_CHECK(rb_table_text_cols(out) == 11 && strlen(out) == 21 && strchr(out, '~'));

    static const rb_table_col cols[] = {{"name", 30, 8, 3, RB_COL_LEFT | RB_COL_ABBREV},
                                        {"a", 10, 0, 1, 0},
                                        {"b", 10, 0, 2, 0},
                                        {"c", 10, 0, 0, 0},
                                        {"rest", 0, 6, 0, RB_COL_LEFT | RB_COL_REST}};
    const char *cells[] = {"a_name_of_thirty_characters_xy", "1.0", "2.0", "3.0",
                           "a rest that is long enough to wrap under the row at sixty columns"};
    rb_table t;
    rb_table_fit(&t, cols, 5, 60, 4);
    RB_CHECK(t.out[1] && !t.out[2] && t.w[0] == 30); /* a went under; the name stayed whole */
    rb_sbuf b = {0};
    rb_table_row(&b, &t, cells);
    char *text = rb_sbuf_take(&b);
    RB_CHECK(fits(text, 60, "a row at 60") && strstr(text, "\n    a 1.0\n"));
    RB_CHECK(text && strstr(text, "a_name_of_thirty_characters_xy"));
    free(text);
    rb_table_fit(&t, cols, 5, 40, 4);
    RB_CHECK(t.out[1] && t.out[2] && t.w[0] < 30);
    rb_table_row(&b, &t, cells);
    text = rb_sbuf_take(&b);
    RB_CHECK(fits(text, 40, "a row at 40") && strstr(text, "a 1.0, b 2.0"));
    free(text);
    /* the planted defect: columns that never give way */
    static const rb_table_col stiff[] = {{"name", 30, 30, 0, RB_COL_LEFT},
                                         {"a", 10, 0, 0, 0},
                                         {"b", 10, 0, 0, 0},
                                         {"c", 10, 0, 0, 0}};
    rb_table_fit(&t, stiff, 4, 40, 4);
    rb_table_row(&b, &t, cells);
    text = rb_sbuf_take(&b);
    RB_CHECK(text && !fits(text, 40, "(planted: stiff columns, expected not to fit)"));
    free(text);

    char word[200];
    memset(word, 'x', 150);
    word[150] = '\0';
    rb_table_wrap(&b, word, 60, 10, 4);
    text = rb_sbuf_take(&b);
    RB_CHECK(fits(text, 60, "a word of 150") && text && strlen(text) > 150);
    free(text);
}

static const rbtest_case width_cases[] = {
    {"table_layout", test_table_layout},
    {"run_table_fits", test_run_table_fits},
    {"collectives_table", test_collectives_table},
    {"not_at_size_apart", test_not_at_size_apart},
    {"compare_fits", test_compare_fits},
    {"history_fits", test_history_fits},
    {"list_fits", test_list_fits},
};
RB_SUITE(width_suite, "width", width_cases);
