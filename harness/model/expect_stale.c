/* SPDX-License-Identifier: MIT */
#include "expect_stale.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "util.h"

void rb_expect_row_pair(const char *row, char *out, size_t size)
{
    rb_fmt(out, size, "%.*s", (int)strcspn(row, ".@"), row);
}

int rb_expect_row_selected(const rb_filter *f, const char *row)
{
    char pair[RB_NAME_MAX];
    rb_expect_row_pair(row, pair, sizeof pair);
    return rb_filter_match(f, row) || rb_filter_match(f, pair);
}

int rb_expect_why_ok(const char *why, char *err, size_t err_size)
{
    size_t len = why ? strlen(why) : 0, blank = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)why[i];
        if (c < 0x20 || c == 0x7f) {
            rb_fmt(err, err_size, "the reason holds a control character (one line of text)");
            return -1;
        }
        blank += c == ' ';
    }
    if (len == blank) {
        rb_fmt(err, err_size,
               "the reason is empty: say what changed and when it is recorded "
               "again");
        return -1;
    }
    if (len > RB_STALE_WHY_MAX) {
        rb_fmt(err, err_size, "the reason is %zu bytes long; at most %d", len, RB_STALE_WHY_MAX);
        return -1;
    }
    return 0;
}

static int is_revision(const char *s)
{
    size_t n = strlen(s);
    if (n < 4 || n > 40)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'z') || s[i] == '-'))
            return 0;
    return 1;
}

/* "YYYY-MM-DDTHH:MM:SSZ", as rb_utc_iso writes it. */
static int is_utc_date(const char *s)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof shape - 1)
        return 0;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
            return 0;
    return 1;
}

static int stale_fail(char *err, size_t err_size, const char *where, const char *key,
                      const char *what)
{
    rb_fmt(err, err_size, "%s%s%s: %s", where, key ? "." : "", key ? key : "", what);
    return -1;
}

int rb_expect_stale_validate(const json_value *stale, const char *where, char *err, size_t err_size)
{
    char why[200];
    if (stale->type != JSON_OBJECT)
        return stale_fail(err, err_size, where, NULL,
                          "expected {\"git\": ..., \"date\": ..., \"why\": ...} (written by "
                          "roofbench expectations --mark-stale)");
    for (size_t i = 0; i < stale->count; i++)
        if (strcmp(stale->keys[i], "git") && strcmp(stale->keys[i], "date") &&
            strcmp(stale->keys[i], "why"))
            return stale_fail(err, err_size, where, stale->keys[i],
                              "unknown key (expected git, date, why)");
    const char *keys[3] = {"git", "date", "why"};
    for (int k = 0; k < 3; k++) {
        const json_value *x = json_get(stale, keys[k]);
        if (!x)
            return stale_fail(err, err_size, where, keys[k], "missing");
        if (x->type != JSON_STRING)
            return stale_fail(err, err_size, where, keys[k], "expected a string");
    }
    if (!is_revision(json_get(stale, "git")->string))
        return stale_fail(err, err_size, where, "git", "is not a revision (4 to 40 of [0-9a-z-])");
    if (!is_utc_date(json_get(stale, "date")->string))
        return stale_fail(err, err_size, where, "date", "expected YYYY-MM-DDTHH:MM:SSZ");
    if (rb_expect_why_ok(json_get(stale, "why")->string, why, sizeof why) != 0)
        return stale_fail(err, err_size, where, "why", why);
    return 0;
}

static json_value *stale_mark(const char *git, const char *date, const char *why)
{
    json_value *m = json_new_object();
    if (m && (json_set_string(m, "git", git) || json_set_string(m, "date", date) ||
              json_set_string(m, "why", why))) {
        json_free(m);
        return NULL;
    }
    return m;
}

/* The rows filter selects, counted (and, with out, said: each marked, the mark it replaces). */
static const char *text_or(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

static int mark_rows(json_value *doc, const rb_filter *re, const json_value *mark, FILE *out)
{
    json_value *pairs = rb_expect_rows_object(doc);
    int n = 0;
    for (size_t i = 0; i < pairs->count; i++) {
        if (!rb_expect_row_selected(re, pairs->keys[i]))
            continue;
        json_value *row = pairs->items[i];
        rb_expect_row had;
        if (out && rb_expect_row_find(doc, pairs->keys[i], &had) < 0)
            return -1;
        if (out && had.stale)
            fprintf(out, "stale: %s (its mark of %s, \"%s\", replaced)\n", pairs->keys[i],
                    text_or(had.stale_git, "?"), text_or(had.stale_why, ""));
        else if (out)
            fprintf(out, "stale: %s\n", pairs->keys[i]);
        if (out)
            rb_expect_row_free(&had);
        if (mark && json_object_set(row, "stale", json_clone(mark)) != 0)
            return -1;
        n++;
    }
    return n;
}

int rb_expect_mark_stale(json_value *doc, const rb_filter *filter, const char *why, const char *git,
                         const char *date, FILE *out, int *marked, char *err, size_t err_size)
{
    char msg[200];
    *marked = 0;
    if (rb_expect_why_ok(why, msg, sizeof msg) != 0) {
        rb_fmt(err, err_size, "--why: %s", msg);
        return -1;
    }
    if (!filter) {
        rb_fmt(err, err_size, "--mark-stale needs --filter REGEX (the rows)");
        return -1;
    }
    /* counted first, so that a filter matching nothing leaves the document as it was */
    int n = rb_expect_rows_object(doc) ? mark_rows(doc, filter, NULL, NULL) : 0;
    json_value *mark = n > 0 ? stale_mark(git, date, why) : NULL;
    if (n > 0 && mark)
        n = mark_rows(doc, filter, mark, out);
    json_free(mark);
    if (n == 0) {
        rb_fmt(err, err_size, "--filter '%s' matches no row of the file", filter->text);
        return -1;
    }
    if (n < 0 || !mark) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    *marked = n;
    return 0;
}

void rb_expect_stale_text(const rb_expect_row *r, double ratio, char *out, size_t size)
{
    const char *row = r->name;
    char against[64] = "", esc[2 * RB_NAME_MAX] = "";
    if (isfinite(ratio))
        rb_fmt(against, sizeof against, "%+.1f%% against the row ", 100 * (ratio - 1));
    for (size_t i = 0, k = 0; row[i] && k + 3 < sizeof esc; i++) {
        if (row[i] == '.')
            esc[k++] = '\\';
        esc[k++] = row[i];
        esc[k] = '\0';
    }
    rb_fmt(out, size,
           "%s%srecorded at %s (%.10s); the row is marked stale at %s (%.10s): %s; record it "
           "again: roofbench run --update-expectations --filter '^%s$'",
           against, against[0] ? "" : "the row was ", text_or(r->git, "?"),
           text_or(r->date, "?"), text_or(r->stale_git, "?"), text_or(r->stale_date, "?"),
           text_or(r->stale_why, ""), esc);
}

int rb_expect_say_cleared(FILE *f, const json_value *doc, const rb_pair_result *pairs, int n)
{
    int cleared = 0;
    for (int i = 0; i < n; i++) {
        rb_expect_row r;
        if (rb_expect_row_find(doc, pairs[i].name, &r) > 0 && r.stale &&
            pairs[i].status == RB_PAIR_OK) {
            fprintf(f,
                    "expectations: %s recorded again: its stale mark (%s, \"%s\") is cleared\n",
                    pairs[i].name, text_or(r.stale_git, "?"), text_or(r.stale_why, ""));
            cleared++;
        }
        rb_expect_row_free(&r);
    }
    return cleared;
}
