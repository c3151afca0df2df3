/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: history (harness/model/history.c, history_out.c) over the runs of one input:
 * the fuzzer's bytes split at NUL bytes (JSON holds none) into documents, each taken as a run
 * (rb_history_take, named run<i>.json), except one that validates as an expectation file, which
 * sets the floors. Properties:
 * - a document or a history refused says why;
 * - the runs taken are in date order, no two of them the same run (a copy is counted once), and
 *   all of one GPU;
 * - every series' points are in the runs' order, each judged at most twice (linear), its steps
 *   inside its points, and the verdict counts add up to the series;
 * - every output is read back: the JSON by the reader (its text a fixed point of the writer, one
 *   entry per series), the SVG as well-formed XML with finite coordinates, the Markdown as
 *   UTF-8, the terminal report as UTF-8 without a control character but newlines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "fuzz_common.h"
#include "history.h"
#include "xml_check.h"

#define FUZZ_MAX_RUNS 8

static void check_runs(const rb_history *h)
{
    for (int i = 0; i < h->n_runs; i++) {
        FUZZ_REQUIRE(!strcmp(h->runs[i].hardware_key, h->runs[0].hardware_key));
        FUZZ_REQUIRE(i == 0 || strcmp(h->runs[i - 1].date, h->runs[i].date) <= 0);
        for (int k = 0; k < i; k++)
            FUZZ_REQUIRE(h->runs[k].hash != h->runs[i].hash ||
                         !fuzz_json_equal(h->runs[k].doc, h->runs[i].doc));
    }
}

static void check_series(const rb_history *h)
{
    int sum = 0;
    for (int v = 0; v <= RB_HISTORY_SINGLE; v++)
        sum += h->counts[v];
    FUZZ_REQUIRE(sum == h->n_series);
    for (int i = 0; i < h->n_series; i++) {
        const rb_history_series *s = &h->series[i];
        FUZZ_REQUIRE(s->n_points >= 1 && s->n_judged <= 2 * (s->n_points - 1));
        for (int k = 0; k < s->n_points; k++) {
            FUZZ_REQUIRE(s->points[k].run >= 0 && s->points[k].run < h->n_runs);
            FUZZ_REQUIRE(k == 0 || s->points[k - 1].run < s->points[k].run);
        }
        for (int k = 0; k < s->n_steps; k++)
            FUZZ_REQUIRE(s->steps[k].from < s->steps[k].to && s->steps[k].to < s->n_points);
    }
}

static void check_outputs(const rb_history *h)
{
    char err[512];
    json_value *j = rb_history_json(h);
    char *text = j ? json_write(j, 2) : NULL;
    FUZZ_REQUIRE(text != NULL);
    json_value *back = json_parse(text, strlen(text), err, sizeof err);
    if (!back)
        fprintf(stderr, "history's JSON does not read back: %s\n", err);
    FUZZ_REQUIRE(back != NULL);
    char *again = json_write(back, 2);
    FUZZ_REQUIRE(again && !strcmp(text, again));
    FUZZ_REQUIRE(json_get(back, "series") &&
                 json_get(back, "series")->count == (size_t)h->n_series);
    free(again);
    free(text);
    json_free(back);
    json_free(j);
    char *svg = rb_history_svg(h), *md = rb_history_markdown(h);
    FUZZ_REQUIRE(svg && md);
    const char *why = rb_test_text_problem(svg, 1);
    if (!why)
        why = rb_test_xml_problem(svg);
    if (why)
        fuzz_fail(__FILE__, __LINE__, why);
    FUZZ_REQUIRE(!strstr(svg, "inf\"") && !strstr(svg, "nan\""));
    FUZZ_REQUIRE(rb_test_text_problem(md, 0) == NULL);
    free(svg);
    free(md);
    char *printed = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&printed, &len);
    FUZZ_REQUIRE(f != NULL);
    rb_history_print(f, h);
    fclose(f);
    FUZZ_REQUIRE(rb_test_text_problem(printed, 0) == NULL);
    for (size_t i = 0; i < len; i++) /* shown, not obeyed */
        FUZZ_REQUIRE(printed[i] == '\n' ||
                     ((unsigned char)printed[i] >= 0x20 && printed[i] != 0x7f));
    free(printed);
}

/* The parts of data, parsed: an expectation document into *expect (the first that validates),
 * the others taken as runs. 0, or -1 when the history refused one (the reason said). */
static int take_parts(const uint8_t *data, size_t size, rb_history *h, json_value **expect)
{
    char err[1024] = "", path[32];
    size_t at = 0;
    for (int i = 0; i < FUZZ_MAX_RUNS && at <= size; i++) {
        const char *start = (const char *)data + at;
        const char *nul = memchr(start, 0, size - at);
        size_t len = nul ? (size_t)(nul - start) : size - at;
        at += len + 1;
        json_value *doc = json_parse(start, len, err, sizeof err);
        if (!doc)
            continue;
        if (!*expect && json_get(doc, "peaks") && rb_expect_validate(doc, err, sizeof err) == 0) {
            *expect = doc;
            continue;
        }
        snprintf(path, sizeof path, "run%d.json", i);
        err[0] = '\0';
        if (rb_history_take(h, path, doc, err, sizeof err) != 0) {
            FUZZ_REQUIRE(err[0] != '\0');
            return -1;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024] = "";
    rb_history h;
    json_value *expect = NULL;
    memset(&h, 0, sizeof h);
    if (take_parts(data, size, &h, &expect) == 0) {
        if (rb_history_finish(&h, "the input", err, sizeof err) != 0) {
            FUZZ_REQUIRE(err[0] != '\0');
        } else {
            check_runs(&h);
            err[0] = '\0';
            if (rb_history_build(&h, expect, NULL, err, sizeof err) != 0) {
                FUZZ_REQUIRE(err[0] != '\0');
            } else {
                h.floors_line = "floors: the fuzzer's";
                check_series(&h);
                check_outputs(&h);
            }
        }
    }
    rb_history_free(&h);
    json_free(expect);
    return 0;
}
