/* SPDX-License-Identifier: MIT */
/* compare's output of one comparison (runcmp.h): the terminal text, the JSON and the HTML page. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_table.h"
#include "runcmp.h"
#include "svg.h"
#include "text.h"
#include "util.h"

/* ---- output ---- */

static void print_counts(FILE *f, const rb_runcmp *c)
{
    fprintf(f, "verdicts: %d same, %d faster, %d slower, %d unclear, %d blind, %d not compared\n",
            c->counts[RB_CHANGE_SAME], c->counts[RB_CHANGE_FASTER], c->counts[RB_CHANGE_SLOWER],
            c->counts[RB_CHANGE_UNCLEAR], c->counts[RB_CHANGE_BLIND],
            c->counts[RB_CHANGE_NOT_COMPARED]);
    int informational = 0, slower = 0;
    for (int i = 0; i < c->n_rows; i++) {
        informational += c->rows[i].informational;
        slower += c->rows[i].informational && c->rows[i].change == RB_CHANGE_SLOWER;
    }
    if (informational)
        fprintf(f, "informational (the host sets their time): %d row(s), %d slower; %s\n",
                informational, slower,
                c->gate_all ? "gating (--gate all)" : "not gating unless --gate all");
    fprintf(f, "(%s)\n", RB_RUNCMP_RULE);
}

/* Text from a results file, for the terminal: control characters shown, not obeyed (a name
 * with an escape sequence or a newline cannot recolour the screen or forge a table line). */
#define TERM(s, buf) (rb_text_for_terminal((s), (buf), sizeof(buf)), (buf))

/* "+1.2%" of a ratio, "-" when unknown. */
static void change_text(double ratio, char *buf, size_t size)
{
    if (isfinite(ratio))
        rb_fmt(buf, size, "%+.1f%%", 100 * (ratio - 1));
    else
        rb_fmt(buf, size, "-");
}

static void print_row(FILE *f, const rb_runcmp_row *r)
{
    char name[140], interval[40] = "-", p[260], v[260], ev[1700], cyc[16], en[16];
    rb_fmt(name, sizeof name, "%s/%s", TERM(r->pair, p), TERM(r->variant, v));
    if (isfinite(r->ratio_lo))
        rb_fmt(interval, sizeof interval, "[%.3f, %.3f]", r->ratio_lo, r->ratio_hi);
    if (r->change == RB_CHANGE_NOT_COMPARED) {
        fprintf(f, "%-48s %10s %10s %8s %7s %7s %-17s %5s  %-12s %s\n", name, "-", "-", "-", "-",
                "-", "-", "-", rb_change_name(r->change), TERM(r->evidence, ev));
        return;
    }
    char cause[40];
    rb_fmt(cause, sizeof cause, "%s%s%s", rb_cause_name(r->cause),
           r->informational && r->cause != RB_CAUSE_NONE ? " " : "",
           r->informational ? "informational" : "");
    change_text(r->cycles_ratio, cyc, sizeof cyc);
    change_text(r->energy_ratio, en, sizeof en);
    fprintf(f, "%-48s %10.4f %10.4f %+7.1f%% %7s %7s %-17s %4.1f%%  %-8s %s\n", name, r->old_ms,
            r->new_ms, 100 * (r->ratio - 1), cyc, en, interval, 100 * r->floor,
            rb_change_name(r->change), cause);
    if (r->cause != RB_CAUSE_NONE || r->evidence[0])
        fprintf(f, "    %s\n", TERM(r->evidence, ev));
}

void rb_runcmp_print(FILE *f, const rb_runcmp *c, const char *old_path, const char *new_path)
{
    char note[400], a[600], b[600], g1[300], g2[300], d1[300], d2[300], fl[700];
    if (c->floors_line)
        fprintf(f, "%s\n", TERM(c->floors_line, fl));
    fprintf(f, "compare: OLD %s (git %s, %s)\n         NEW %s (git %s, %s)\n", TERM(old_path, a),
            TERM(c->old_git, g1), TERM(c->old_date, d1), TERM(new_path, b), TERM(c->new_git, g2),
            TERM(c->new_date, d2));
    rb_runcmp_code_note(c, note, sizeof note);
    if (note[0])
        fprintf(f, "%s\n", note);
    if (c->filter)
        fprintf(f, "filter '%s': %d variant(s), %d left out\n", TERM(c->filter, fl), c->n_rows,
                c->n_filtered_out);
    fprintf(f, "environment: %d fact(s) differ, %d the same\n", c->n_env, c->n_env_same);
    for (int i = 0; i < c->n_env; i++) {
        static char k[700], o[4000], n[4000];
        fprintf(f, "  %-36s %s -> %s\n", TERM(c->env[i].key, k), TERM(c->env[i].old_value, o),
                TERM(c->env[i].new_value, n));
    }
    print_counts(f, c);
    fprintf(f, "\n%-48s %10s %10s %8s %7s %7s %-17s %5s  %-8s %s\n", "pair/variant", "old ms",
            "new ms", "change", "cycles", "energy", "90% interval", "floor", "verdict", "cause");
    for (int i = 0; i < c->n_rows; i++)
        print_row(f, &c->rows[i]);
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
