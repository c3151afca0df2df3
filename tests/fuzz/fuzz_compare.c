/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: compare (harness/model/runcmp.c) on two results documents, OLD and NEW, and
 * optionally an expectation document: the fuzzer's bytes split at NUL bytes (JSON holds none)
 * into OLD, NEW (OLD again when there is no NUL) and an expectation file. Properties:
 * - a document refused says why (rb_results_doc_check, rb_runcmp_build);
 * - the verdict counts add up to the rows, and no more rows fail than there are;
 * - every output is read back: the JSON by the JSON reader (its text a fixed point of the
 *   writer, one variant per row), the HTML and Markdown as UTF-8 (the HTML one table row per
 * variant: no name opens a row of its own), the CSV as RFC 4180 records (one per variant and its
 * header), the terminal report as UTF-8 without a control character but newlines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "fuzz_common.h"
#include "result.h"
#include "runcmp.h"
#include "xml_check.h"

/* The next NUL-separated part of data[*at..size), or NULL when none is left. */
static const char *next_part(const uint8_t *data, size_t size, size_t *at, size_t *len)
{
    if (*at > size)
        return NULL;
    const char *start = (const char *)data + *at;
    const char *nul = memchr(start, 0, size - *at);
    *len = nul ? (size_t)(nul - start) : size - *at;
    *at += *len + 1;
    return start;
}

/* Records of an RFC 4180 text (CRLF-ended, quotes doubled inside quoted fields). */
static int csv_records(const char *s)
{
    int n = 0, quoted = 0;
    for (; *s; s++) {
        if (*s == '"')
            quoted = !quoted; /* a doubled quote toggles twice */
        else if (!quoted && s[0] == '\r' && s[1] == '\n')
            n++;
    }
    FUZZ_REQUIRE(!quoted);
    return n;
}

static void check_json(const rb_runcmp *c)
{
    char err[512];
    json_value *j = rb_runcmp_json(c, "OLD.json", "NEW.json", 0);
    FUZZ_REQUIRE(j != NULL);
    char *text = json_write(j, 2);
    FUZZ_REQUIRE(text != NULL);
    json_value *back = json_parse(text, strlen(text), err, sizeof err);
    if (!back)
        fprintf(stderr, "compare's JSON does not read back: %s\n", err);
    FUZZ_REQUIRE(back != NULL);
    /* (NaN is written as null: the text, not the tree, is the fixed point) */
    char *again = json_write(back, 2);
    FUZZ_REQUIRE(again && !strcmp(text, again));
    FUZZ_REQUIRE(json_get(back, "variants")->count == (size_t)c->n_rows);
    free(again);
    free(text);
    json_free(back);
    json_free(j);
}

static void check_texts(const rb_runcmp *c)
{
    char *html = rb_runcmp_html(c, "OLD.json", "NEW.json");
    char *md = rb_runcmp_markdown(c, "OLD.json", "NEW.json"), *csv = rb_runcmp_csv(c);
    FUZZ_REQUIRE(html && md && csv);
    FUZZ_REQUIRE(rb_test_text_problem(html, 1) == NULL);
    /* a row per variant and per fact of the environment, and the two tables' headers */
    FUZZ_REQUIRE(fuzz_count(html, "<tr>") == c->n_rows + c->n_env + 2);
    FUZZ_REQUIRE(rb_test_text_problem(md, 0) == NULL);
    FUZZ_REQUIRE(rb_test_text_problem(csv, 0) == NULL);
    FUZZ_REQUIRE(csv_records(csv) == c->n_rows + 1);
    free(html);
    free(md);
    free(csv);
    char *printed = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&printed, &len);
    FUZZ_REQUIRE(f != NULL);
    rb_runcmp_print(f, c, "OLD.json", "NEW.json");
    fclose(f);
    FUZZ_REQUIRE(rb_test_text_problem(printed, 0) == NULL);
    for (size_t i = 0; i < len; i++) /* shown, not obeyed */
        FUZZ_REQUIRE(printed[i] == '\n' ||
                     ((unsigned char)printed[i] >= 0x20 && printed[i] != 0x7f));
    free(printed);
}

/* The document in part, when it reads and is a results file (else NULL, the refusal said). */
static json_value *results(const char *text, size_t len)
{
    char err[512] = "";
    json_value *d = json_parse(text, len, err, sizeof err);
    if (d && rb_results_doc_check(d, err, sizeof err) != 0) {
        FUZZ_REQUIRE(err[0] != '\0');
        json_free(d);
        d = NULL;
    }
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t at = 0, n_old = 0, n_new = 0, n_exp = 0;
    const char *old_text = next_part(data, size, &at, &n_old);
    const char *new_text = next_part(data, size, &at, &n_new);
    const char *exp_text = next_part(data, size, &at, &n_exp);
    json_value *od = results(old_text, n_old);
    json_value *nd = od ? (new_text ? results(new_text, n_new) : json_clone(od)) : NULL;
    char err[512] = "";
    json_value *ed = exp_text ? json_parse(exp_text, n_exp, err, sizeof err) : NULL;
    if (ed && rb_expect_validate(ed, err, sizeof err) != 0) {
        json_free(ed);
        ed = NULL;
    }
    rb_runcmp c;
    if (nd && rb_runcmp_build_expect(od, nd, ed, &c, err, sizeof err) == 0) {
        int sum = 0;
        for (int k = 0; k <= RB_CHANGE_NOT_COMPARED; k++)
            sum += c.counts[k];
        FUZZ_REQUIRE(sum == c.n_rows);
        FUZZ_REQUIRE(rb_runcmp_failing(&c, 1) <= c.n_rows);
        check_json(&c);
        check_texts(&c);
        rb_runcmp_free(&c);
    } else if (nd) {
        FUZZ_REQUIRE(err[0] != '\0');
    }
    json_free(od);
    json_free(nd);
    json_free(ed);
    return 0;
}
