/* SPDX-License-Identifier: MIT */
/* compare's output of one comparison (runcmp.h): the terminal text, the JSON and the HTML page. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_table.h"
#include "runcmp.h"
#include "svg.h"
#include "table.h"
#include "text.h"
#include "util.h"

/* ---- output ---- */

/* Text from a results file, for the terminal: control characters shown, not obeyed (a name
 * with an escape sequence or a newline cannot recolour the screen or forge a table line). */
#define TERM(s, buf) (rb_text_for_terminal((s), (buf), sizeof(buf)), (buf))

/* The table's columns; where the width is short cycles, energy, the interval and the floor go
 * under the row, then the name is abbreviated (down to 16), then the medians go under too. */
enum { C_NAME, C_OLD, C_NEW, C_CHANGE, C_CYCLES, C_ENERGY, C_INTERVAL, C_FLOOR, C_GAP, C_VERDICT,
       C_CAUSE, C_COUNT };
static const rb_table_col compare_cols[C_COUNT] = {
    {"pair/variant", 48, 16, 5, RB_COL_LEFT | RB_COL_ABBREV},
    {"old ms", 10, 0, 6, 0},
    {"new ms", 10, 0, 7, 0},
    {"change", 8, 0, 0, 0},
    {"cycles", 7, 0, 1, 0},
    {"energy", 7, 0, 2, 0},
    {"90% interval", 17, 0, 3, RB_COL_LEFT},
    {"floor", 5, 0, 4, 0},
    {"", 0, 0, 1, 0}, /* a second space before the verdict, where there is room */
    {"verdict", 8, 0, 0, RB_COL_LEFT},
    {"cause", 0, 8, 0, RB_COL_LEFT | RB_COL_REST},
};

/* A line of text wrapped to the table's width, continued lines indented by indent. */
static void say(rb_sbuf *b, const rb_table *t, int indent, const char *text)
{
    rb_sbuf_add(b, "%*s", indent, "");
    rb_table_wrap(b, text, t->width, indent, indent + 4);
}

static void print_counts(rb_sbuf *b, const rb_table *t, const rb_runcmp *c)
{
    char line[600];
    rb_fmt(line, sizeof line,
           "verdicts: %d same, %d faster, %d slower, %d unclear, %d blind, %d not compared",
           c->counts[RB_CHANGE_SAME], c->counts[RB_CHANGE_FASTER], c->counts[RB_CHANGE_SLOWER],
           c->counts[RB_CHANGE_UNCLEAR], c->counts[RB_CHANGE_BLIND],
           c->counts[RB_CHANGE_NOT_COMPARED]);
    say(b, t, 0, line);
    int informational = 0, slower = 0;
    for (int i = 0; i < c->n_rows; i++) {
        informational += c->rows[i].informational;
        slower += c->rows[i].informational && c->rows[i].change == RB_CHANGE_SLOWER;
    }
    if (informational) {
        rb_fmt(line, sizeof line, "informational (the host sets their time): %d row(s), %d slower; %s",
               informational, slower,
               c->gate_all ? "gating (--gate all)" : "not gating unless --gate all");
        say(b, t, 0, line);
    }
    say(b, t, 0, "(" RB_RUNCMP_RULE ")");
}

/* "+1.2%" of a ratio, "-" when unknown. */
static void change_text(double ratio, char *buf, size_t size)
{
    if (isfinite(ratio))
        rb_fmt(buf, size, "%+.1f%%", 100 * (ratio - 1));
    else
        rb_fmt(buf, size, "-");
}

static void print_row(rb_sbuf *b, const rb_table *t, const rb_runcmp_row *r)
{
    char name[140], interval[40] = "-", p[260], v[260], ev[1700], cyc[16], en[16];
    char old_ms[24] = "-", new_ms[24] = "-", change[24] = "-", floor[16] = "-", cause[40];
    rb_fmt(name, sizeof name, "%s/%s", TERM(r->pair, p), TERM(r->variant, v));
    int compared = r->change != RB_CHANGE_NOT_COMPARED;
    if (isfinite(r->ratio_lo) && compared)
        rb_fmt(interval, sizeof interval, "[%.3f, %.3f]", r->ratio_lo, r->ratio_hi);
    rb_fmt(cyc, sizeof cyc, "-");
    rb_fmt(en, sizeof en, "-");
    rb_fmt(cause, sizeof cause, "%s%s%s", rb_cause_name(r->cause),
           r->informational && r->cause != RB_CAUSE_NONE ? " " : "",
           r->informational ? "informational" : "");
    if (compared) {
        rb_fmt(old_ms, sizeof old_ms, "%.4f", r->old_ms);
        rb_fmt(new_ms, sizeof new_ms, "%.4f", r->new_ms);
        rb_fmt(change, sizeof change, "%+.1f%%", 100 * (r->ratio - 1));
        rb_fmt(floor, sizeof floor, "%.1f%%", 100 * r->floor);
        change_text(r->cycles_ratio, cyc, sizeof cyc);
        change_text(r->energy_ratio, en, sizeof en);
    }
    /* a row not compared says why where its cause would be */
    const char *cells[C_COUNT] = {name,     old_ms, new_ms, change, cyc,
                                  en,       interval, floor, "",  rb_change_name(r->change),
                                  compared ? cause : TERM(r->evidence, ev)};
    rb_table_row(b, t, cells);
    if (compared && (r->cause != RB_CAUSE_NONE || r->evidence[0]))
        say(b, t, 4, TERM(r->evidence, ev));
}

void rb_runcmp_print(FILE *f, const rb_runcmp *c, const char *old_path, const char *new_path)
{
    rb_runcmp_print_at(f, c, old_path, new_path, rb_table_width());
}

void rb_runcmp_print_at(FILE *f, const rb_runcmp *c, const char *old_path, const char *new_path,
                        int width)
{
    char note[400], a[600], b[600], g1[300], g2[300], d1[300], d2[300], fl[700], line[2400];
    rb_sbuf out = {.sink = f}; /* (written as it is made: a row's memory, not the text's) */
    rb_table t, env;
    /* the name column as wide as the longest name, up to its 48 */
    rb_table_col cols[C_COUNT];
    memcpy(cols, compare_cols, sizeof cols);
    int longest = rb_table_text_cols(cols[C_NAME].head);
    for (int i = 0; i < c->n_rows && longest < cols[C_NAME].width; i++) {
        int len = rb_table_text_cols(c->rows[i].pair) + 1 + rb_table_text_cols(c->rows[i].variant);
        longest = len > longest ? len : longest;
    }
    cols[C_NAME].width = longest < cols[C_NAME].width ? longest : cols[C_NAME].width;
    rb_table_fit(&t, cols, C_COUNT, width, 4);
    if (c->floors_line)
        say(&out, &t, 0, TERM(c->floors_line, fl));
    rb_fmt(line, sizeof line, "compare: OLD %s (git %s, %s)", TERM(old_path, a),
           TERM(c->old_git, g1), TERM(c->old_date, d1));
    say(&out, &t, 0, line);
    rb_fmt(line, sizeof line, "NEW %s (git %s, %s)", TERM(new_path, b), TERM(c->new_git, g2),
           TERM(c->new_date, d2));
    say(&out, &t, 9, line);
    rb_runcmp_code_note(c, note, sizeof note);
    if (note[0])
        say(&out, &t, 0, note);
    if (c->filter) {
        rb_fmt(line, sizeof line, "filter '%s': %d variant(s), %d left out", TERM(c->filter, fl),
               c->n_rows, c->n_filtered_out);
        say(&out, &t, 0, line);
    }
    rb_sbuf_add(&out, "environment: %d fact(s) differ, %d the same\n", c->n_env, c->n_env_same);
    static const rb_table_col env_cols[2] = {{"", 38, 16, 0, RB_COL_LEFT | RB_COL_ABBREV},
                                             {"", 0, 16, 0, RB_COL_LEFT | RB_COL_REST}};
    rb_table_fit(&env, env_cols, 2, width, 6);
    for (int i = 0; i < c->n_env; i++) {
        static char k[700], o[4000], n[4000], key[720], change[8100];
        rb_fmt(key, sizeof key, "  %s", TERM(c->env[i].key, k));
        rb_fmt(change, sizeof change, "%s -> %s", TERM(c->env[i].old_value, o),
               TERM(c->env[i].new_value, n));
        const char *cells[2] = {key, change};
        rb_table_row(&out, &env, cells);
    }
    print_counts(&out, &t, c);
    rb_sbuf_add(&out, "\n");
    rb_table_head(&out, &t);
    for (int i = 0; i < c->n_rows; i++)
        print_row(&out, &t, &c->rows[i]);
    /* (a write that failed is said with the standard output's check) */
    if (rb_sbuf_flush(&out) != 0 && !ferror(f))
        fprintf(stderr, "roofbench: compare: out of memory\n");
}

static json_value *row_json(const rb_runcmp_row *r)
{
    json_value *o = json_new_object();
    if (!o)
        return NULL;
    int bad = json_set_string(o, "pair", r->pair) | json_set_string(o, "variant", r->variant) |
              json_set_string(o, "roof", r->roof[0] ? r->roof : NULL) |
              json_set_number(o, "old_ms", r->old_ms) | json_set_number(o, "new_ms", r->new_ms) |
              json_set_number(o, "ratio", r->ratio) | json_set_number(o, "ratio_lo", r->ratio_lo) |
              json_set_number(o, "ratio_hi", r->ratio_hi) | json_set_number(o, "floor", r->floor) |
              json_set_string(o, "verdict", rb_change_name(r->change)) |
              json_set_string(o, "attribution",
                              r->cause == RB_CAUSE_NONE ? NULL : rb_cause_name(r->cause)) |
              json_set_string(o, "evidence", r->evidence);
    bad |= json_set_string(o, "floor_from", r->floor_from_runs ? "recorded runs" : "timed loops");
    bad |= json_set_number(o, "cycles_ratio", r->cycles_ratio) |
           json_set_number(o, "energy_ratio", r->energy_ratio);
    if (r->contended)
        bad |= json_set_bool(o, "contended", 1);
    if (r->informational)
        bad |= json_set_bool(o, "informational", 1);
    if (bad) {
        json_free(o);
        return NULL;
    }
    return o;
}

static json_value *env_json(const rb_runcmp *c)
{
    json_value *a = json_new_array();
    for (int i = 0; a && i < c->n_env; i++) {
        json_value *o = json_new_object();
        if (!o || json_set_string(o, "key", c->env[i].key) ||
            json_set_string(o, "old", c->env[i].old_value) ||
            json_set_string(o, "new", c->env[i].new_value) || json_array_push(a, o)) {
            json_free(a);
            return NULL;
        }
    }
    return a;
}

/* The comparison as a document, its "variants" an empty array (*rows: it) to be filled. */
static json_value *json_head(const rb_runcmp *c, const char *old_path, const char *new_path,
                             int fail_on_platform, json_value **rows_out)
{
    json_value *doc = json_new_object(), *rows = json_new_array(), *counts = json_new_object();
    int bad = !doc || !rows || !counts;
    for (int i = 0; !bad && i <= RB_CHANGE_NOT_COMPARED; i++)
        bad = json_set_number(counts, rb_change_name((rb_change)i), c->counts[i]);
    if (!bad)
        bad = json_set_number(doc, "schema", 1) ||
              json_set_string(doc, "tool", "roofbench compare") ||
              json_set_string(doc, "old", old_path) || json_set_string(doc, "new", new_path) ||
              json_set_string(doc, "old_git", c->old_git) ||
              json_set_string(doc, "new_git", c->new_git) ||
              json_set_string(doc, "rule", RB_RUNCMP_RULE) ||
              json_set_number(doc, "min_floor", RB_RUNCMP_MIN_FLOOR) ||
              json_set_number(doc, "blind_floor", RB_RUNCMP_BLIND_FLOOR) ||
              json_set_number(doc, "failing", rb_runcmp_failing(c, fail_on_platform)) ||
              json_set_string(doc, "gate", c->gate_all ? "all" : "gating");
    char note[400];
    rb_runcmp_code_note(c, note, sizeof note);
    if (!bad)
        bad = json_set_string(doc, "floors", c->floors_line) ||
              json_set_string(doc, "code_attribution", note[0] ? note : "available") ||
              json_set_string(doc, "filter", c->filter) ||
              json_set_number(doc, "filtered_out", c->n_filtered_out);
    json_value *env = bad ? NULL : env_json(c);
    if (!bad)
        bad = !env || json_object_set(doc, "environment_diff", env); /* takes env, even failing */
    if (bad) {
        json_free(doc);
        json_free(rows);
        json_free(counts);
        return NULL;
    }
    /* json_object_set owns its value also when it fails: nothing to free after these */
    bad = json_object_set(doc, "counts", counts);
    bad = json_object_set(doc, "variants", rows) || bad;
    if (bad) {
        json_free(doc);
        return NULL;
    }
    *rows_out = rows;
    return doc;
}

json_value *rb_runcmp_json(const rb_runcmp *c, const char *old_path, const char *new_path,
                           int fail_on_platform)
{
    json_value *rows = NULL, *doc = json_head(c, old_path, new_path, fail_on_platform, &rows);
    for (int i = 0; doc && i < c->n_rows; i++) {
        json_value *r = row_json(&c->rows[i]);
        if (!r || json_array_push(rows, r)) {
            json_free(doc);
            return NULL;
        }
    }
    return doc;
}

static json_value *nth_row_json(void *c, size_t i)
{
    return row_json(&((const rb_runcmp *)c)->rows[i]);
}

void rb_runcmp_json_to(rb_sbuf *b, const rb_runcmp *c, const char *old_path, const char *new_path,
                       int fail_on_platform)
{
    json_value *rows = NULL, *doc = json_head(c, old_path, new_path, fail_on_platform, &rows);
    if (doc)
        json_write_to(b, doc, 2, rows, nth_row_json, (void *)c, (size_t)c->n_rows);
    else
        b->oom = 1;
    json_free(doc);
}

static void html_row(rb_sbuf *b, const rb_runcmp_row *r)
{
    char name[140];
    rb_fmt(name, sizeof name, "%s/%s", r->pair, r->variant);
    rb_sbuf_add(b, "<tr>");
    rb_html_cell_text(b, name);
    rb_html_cell_text(b, r->roof);
    rb_html_cell_number(b, r->old_ms, "%.4f", 1);
    rb_html_cell_number(b, r->new_ms, "%.4f", 1);
    rb_html_cell_number(b, r->ratio - 1, "%+.1f%%", 100);
    rb_html_cell_number(b, r->cycles_ratio - 1, "%+.1f%%", 100);
    rb_html_cell_number(b, r->energy_ratio - 1, "%+.1f%%", 100);
    rb_html_cell_number(b, r->ratio_lo, "%.3f", 1);
    rb_html_cell_number(b, r->ratio_hi, "%.3f", 1);
    rb_html_cell_number(b, r->floor, "%.1f%%", 100);
    rb_html_cell_verdict(b, rb_change_name(r->change), rb_change_name(r->change));
    char cause[40];
    rb_fmt(cause, sizeof cause, "%s%s%s", rb_cause_name(r->cause),
           r->informational && r->cause != RB_CAUSE_NONE ? " " : "",
           r->informational ? "informational" : "");
    rb_html_cell_text(b, cause);
    rb_html_cell_text(b, r->evidence);
    rb_sbuf_add(b, "</tr>\n");
}

/* "OLD <code>path</code> (git abc1234, date)" */
static void html_run(rb_sbuf *b, const char *which, const char *path, const char *git,
                     const char *date)
{
    rb_sbuf_add(b, "%s <code>", which);
    rb_sbuf_escaped(b, path);
    rb_sbuf_add(b, "</code> (git ");
    rb_sbuf_escaped(b, git);
    rb_sbuf_add(b, ", ");
    rb_sbuf_escaped(b, date);
    rb_sbuf_add(b, ")");
}

void rb_runcmp_html_to(rb_sbuf *b, const rb_runcmp *c, const char *old_path, const char *new_path)
{
    char title[200];
    rb_fmt(title, sizeof title, "roofbench compare: %s -> %s", c->old_git, c->new_git);
    rb_html_page_begin(b, title);
    rb_sbuf_add(b, "<p>");
    html_run(b, "OLD", old_path, c->old_git, c->old_date);
    rb_sbuf_add(b, "<br>");
    html_run(b, "NEW", new_path, c->new_git, c->new_date);
    rb_sbuf_add(b,
                "</p>\n<h2>Environment: %d fact(s) differ, %d the same</h2>\n"
                "<table class=\"rb\">\n<thead><tr><th>fact</th><th>OLD</th><th>NEW</th>"
                "</tr></thead>\n<tbody>\n",
                c->n_env, c->n_env_same);
    for (int i = 0; i < c->n_env; i++) {
        rb_sbuf_add(b, "<tr>");
        rb_html_cell_text(b, c->env[i].key);
        rb_html_cell_text(b, c->env[i].old_value);
        rb_html_cell_text(b, c->env[i].new_value);
        rb_sbuf_add(b, "</tr>\n");
    }
    rb_sbuf_add(b, "</tbody>\n</table>\n<h2>Variants</h2>\n");
    const int n_changes = (int)(sizeof c->counts / sizeof c->counts[0]);
    const char *names[sizeof c->counts / sizeof c->counts[0]];
    for (int i = 0; i < n_changes; i++)
        names[i] = rb_change_name((rb_change)i);
    rb_html_counts(b, "verdicts", names, c->counts, n_changes);
    rb_sbuf_add(b, "<p>");
    rb_sbuf_escaped(b, RB_RUNCMP_RULE);
    rb_sbuf_add(b, ". Click a column's header to sort by it.</p>\n<table class=\"rb\">\n"
                   "<thead><tr><th>pair/variant</th><th>roof</th><th class=\"num\">old ms</th>"
                   "<th class=\"num\">new ms</th><th class=\"num\">change</th>"
                   "<th class=\"num\">cycles</th><th class=\"num\">energy</th>"
                   "<th class=\"num\">ratio lo</th><th class=\"num\">ratio hi</th>"
                   "<th class=\"num\">floor</th><th>verdict</th><th>cause</th>"
                   "<th>evidence</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < c->n_rows; i++)
        html_row(b, &c->rows[i]);
    rb_sbuf_add(b, "</tbody>\n</table>\n");
    rb_html_page_end(b);
}

char *rb_runcmp_html(const rb_runcmp *c, const char *old_path, const char *new_path)
{
    rb_sbuf b = {0};
    rb_runcmp_html_to(&b, c, old_path, new_path);
    return rb_sbuf_take(&b);
}
