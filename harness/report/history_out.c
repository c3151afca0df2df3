/* SPDX-License-Identifier: MIT */
/*
 * history's outputs (history.h): the text report, Markdown, JSON and the SVG trend chart.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "svg.h"
#include "table.h"
#include "util.h"

#define RB_HISTORY_RULE                                                                            \
    "each run judged against the first run of its level as compare judges two runs; step: "        \
    "slower or faster, and the next run judged the same way (it stayed); moved: the latest run, "  \
    "not yet confirmed; blip: a run that came back; blind: a floor above 10%"

static double change_pct(const rb_history_series *s)
{
    if (s->n_points < 2)
        return NAN;
    return 100 * (s->points[s->n_points - 1].median_ms / s->points[0].median_ms - 1);
}

/* "slower x1.123 [1.100, 1.140] (cycles x1.004), floor 2.0%, at DATE GIT (level from GIT):
 * cause" */
static void step_text(const rb_history *h, const rb_history_series *s, const rb_history_step *st,
                      char *buf, size_t size)
{
    const rb_runcmp_row *r = &st->row;
    const rb_history_run *a = &h->runs[s->points[st->from].run],
                         *b = &h->runs[s->points[st->to].run];
    char interval[48] = "", cycles[40] = "";
    if (isfinite(r->ratio_lo))
        rb_fmt(interval, sizeof interval, " [%.3f, %.3f]", r->ratio_lo, r->ratio_hi);
    if (isfinite(r->cycles_ratio))
        rb_fmt(cycles, sizeof cycles, " (cycles x%.3f)", r->cycles_ratio);
    rb_fmt(buf, size, "%s%s x%.3f%s%s, floor %.1f%%, at %s %s (level from %s): %s",
           st->confirmed ? "" : "pending: ", rb_change_name(r->change), r->ratio, interval, cycles,
           100 * r->floor, b->date, b->git, a->git, rb_cause_name(r->cause));
}

/* One line of the text report, formatted, then shown on the terminal (model/util.h,
 * rb_text_for_terminal): dates, revisions, names, paths and notes come from files and cannot
 * move the cursor, change colours or forge a line. Wrapped at width (0: whole), continued lines
 * indented by indent + 4. */
static void say(rb_sbuf *b, int width, int indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(rb_sbuf *b, int width, int indent, const char *fmt, ...)
{
    char line[4 * RB_PATH_BUF], shown[4 * RB_PATH_BUF];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    line[rb_utf8_cut(line, sizeof line - 1)] = '\0'; /* (a cut inside a character: a byte off) */
    rb_text_for_terminal(line, shown, sizeof shown);
    rb_sbuf_add(b, "%*s", indent, "");
    rb_table_wrap(b, shown, width, indent, indent + 4);
}

static void header_lines(rb_sbuf *f, int w, const rb_history *h)
{
    const rb_history_run *a = &h->runs[0], *b = &h->runs[h->n_runs - 1];
    if (h->floors_line)
        say(f, w, 0, "%s", h->floors_line);
    say(f, w, 0, "history: %d run(s) of %s, %s (%s) to %s (%s)", h->n_runs,
        a->hardware_key[0] ? a->hardware_key : "?", a->date, a->git, b->date, b->git);
    if (h->runs_without_fingerprints)
        say(f, w, 0, "code attribution unavailable for %d of %d run(s): %s",
            h->runs_without_fingerprints, h->n_runs, RB_RUNCMP_NO_FINGERPRINT);
    for (int i = 0; i < h->n_notes; i++)
        say(f, w, 0, "note: %s", h->notes[i]);
    if (h->filter)
        say(f, w, 0, "filter '%s': %d series, %d left out", h->filter, h->n_series,
            h->n_filtered_out);
}

/* The series' columns; where the width is short the first and the last median go under the
 * row, then the name is abbreviated (down to 16). */
enum { H_NAME, H_RUNS, H_FIRST, H_LAST, H_CHANGE, H_VERDICT, H_COUNT };
static const rb_table_col history_cols[H_COUNT] = {
    {"pair/variant", 52, 16, 3, RB_COL_LEFT | RB_COL_ABBREV},
    {"runs", 4, 0, 0, 0},
    {"first ms", 10, 0, 1, 0},
    {"last ms", 10, 0, 2, 0},
    {"change", 7, 0, 0, 0},
    {"verdict", 0, 6, 0, RB_COL_LEFT | RB_COL_REST},
};

static void series_row(rb_sbuf *b, const rb_table *t, const rb_history_series *s)
{
    char label[4 * RB_PATH_BUF], runs[16], first[32], last[32], change[32];
    rb_text_for_terminal(s->label, label, sizeof label);
    rb_fmt(runs, sizeof runs, "%d", s->n_points);
    rb_fmt(first, sizeof first, "%.4f", s->points[0].median_ms);
    rb_fmt(last, sizeof last, "%.4f", s->points[s->n_points - 1].median_ms);
    double pct = change_pct(s);
    rb_fmt(change, sizeof change, "-"); /* one run: no change to give */
    if (isfinite(pct))
        rb_fmt(change, sizeof change, "%+6.1f%%", pct);
    const char *cells[H_COUNT] = {label,  runs,   first,
                                  last,   change, rb_history_verdict_name(s->verdict)};
    rb_table_row(b, t, cells);
}

void rb_history_print(FILE *f, const rb_history *h)
{
    char line[1200];
    int w = rb_table_width();
    rb_sbuf b = {.sink = f}; /* (written as it is made) */
    header_lines(&b, w, h);
    say(&b, w, 0, "series: %d: %d step, %d moved, %d blind, %d steady, %d single", h->n_series,
        h->counts[RB_HISTORY_STEP], h->counts[RB_HISTORY_MOVED], h->counts[RB_HISTORY_BLIND],
        h->counts[RB_HISTORY_STEADY], h->counts[RB_HISTORY_SINGLE]);
    say(&b, w, 0, "(%s)", RB_HISTORY_RULE);
    rb_sbuf_add(&b, "\n");
    /* the name column as wide as the longest label, up to its 52 */
    rb_table_col cols[H_COUNT];
    memcpy(cols, history_cols, sizeof cols);
    int longest = rb_table_text_cols(cols[H_NAME].head);
    for (int i = 0; i < h->n_series && longest < cols[H_NAME].width; i++) {
        int len = rb_table_text_cols(h->series[i].label);
        longest = len > longest ? len : longest;
    }
    cols[H_NAME].width = longest < cols[H_NAME].width ? longest : cols[H_NAME].width;
    rb_table t;
    rb_table_fit(&t, cols, H_COUNT, w, 4);
    rb_table_head(&b, &t);
    for (int i = 0; i < h->n_series; i++) {
        const rb_history_series *s = &h->series[i];
        series_row(&b, &t, s);
        for (int k = 0; k < s->n_steps; k++) {
            step_text(h, s, &s->steps[k], line, sizeof line);
            say(&b, w, 4, "%s", line);
            say(&b, w, 6, "%s", s->steps[k].row.evidence);
        }
        if (s->verdict == RB_HISTORY_BLIND)
            say(&b, w, 4, "blind: %s", s->blind_why);
    }
    if (rb_sbuf_flush(&b) != 0 && !ferror(f))
        fprintf(stderr, "roofbench: history: out of memory\n");
}

/* ---- Markdown ---- */

/* The medians as a line of block characters over the series' own range, or over 10% of its
 * middle when it spread less (a steady series draws flat, not its noise blown up). */
static void sparkline(rb_sbuf *b, const rb_history_series *s)
{
    static const char *const bars[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < s->n_points; i++) {
        lo = fmin(lo, s->points[i].median_ms);
        hi = fmax(hi, s->points[i].median_ms);
    }
    double mid = (lo + hi) / 2, span = fmax(hi - lo, 0.1 * mid);
    for (int i = 0; i < s->n_points; i++) {
        int k = (int)(8 * ((s->points[i].median_ms - (mid - span / 2)) / span));
        rb_sbuf_add(b, "%s", bars[k < 0 ? 0 : k > 7 ? 7 : k]);
    }
}

static void md_series_row(rb_sbuf *b, const rb_history_series *s)
{
    rb_sbuf_add(b, "| ");
    rb_md_text(b, s->label);
    rb_sbuf_add(b, " | %d | ", s->n_points);
    sparkline(b, s);
    rb_sbuf_add(b, " | %.4f | %.4f | ", s->points[0].median_ms,
                s->points[s->n_points - 1].median_ms);
    if (s->n_points > 1)
        rb_sbuf_add(b, "%+.1f%%", change_pct(s));
    int flagged = s->verdict == RB_HISTORY_STEP || s->verdict == RB_HISTORY_MOVED;
    rb_sbuf_add(b, " | %s%s%s |\n", flagged ? "**" : "", rb_history_verdict_name(s->verdict),
                flagged ? "**" : "");
}

static void md_steps(rb_sbuf *b, const rb_history *h)
{
    char line[1200];
    int any = 0;
    for (int i = 0; i < h->n_series; i++) {
        const rb_history_series *s = &h->series[i];
        for (int k = 0; k < s->n_steps; k++) {
            if (!any++)
                rb_sbuf_add(b, "\n### Steps, and blind series\n\n");
            step_text(h, s, &s->steps[k], line, sizeof line);
            rb_sbuf_add(b, "- **");
            rb_md_text(b, s->label);
            rb_sbuf_add(b, "** ");
            rb_md_text(b, line);
            rb_sbuf_add(b, ": ");
            rb_md_text(b, s->steps[k].row.evidence);
            rb_sbuf_add(b, "\n");
        }
        if (s->verdict == RB_HISTORY_BLIND) {
            if (!any++)
                rb_sbuf_add(b, "\n### Steps, and blind series\n\n");
            rb_sbuf_add(b, "- ");
            rb_md_text(b, s->label);
            rb_sbuf_add(b, " is blind: ");
            rb_md_text(b, s->blind_why);
            rb_sbuf_add(b, "\n");
        }
    }
}

void rb_history_markdown_to(rb_sbuf *out, const rb_history *h)
{
    rb_sbuf *b = out;
    const rb_history_run *a = &h->runs[0], *z = &h->runs[h->n_runs - 1];
    if (h->floors_line) {
        rb_md_text(b, h->floors_line);
        rb_sbuf_add(b, "\n\n");
    }
    rb_sbuf_add(b, "**roofbench history** of ");
    rb_md_text(b, a->hardware_key[0] ? a->hardware_key : "?");
    rb_sbuf_add(b, ": %d run(s), ", h->n_runs);
    rb_md_text(b, a->date);
    rb_sbuf_add(b, " (");
    rb_md_text(b, a->git);
    rb_sbuf_add(b, ") to ");
    rb_md_text(b, z->date);
    rb_sbuf_add(b, " (");
    rb_md_text(b, z->git);
    rb_sbuf_add(b, ")\n\n");
    if (h->runs_without_fingerprints)
        rb_sbuf_add(b, "code attribution unavailable for %d of %d run(s): %s\n\n",
                    h->runs_without_fingerprints, h->n_runs, RB_RUNCMP_NO_FINGERPRINT);
    for (int i = 0; i < h->n_notes; i++) {
        rb_sbuf_add(b, "- note: ");
        rb_md_text(b, h->notes[i]);
        rb_sbuf_add(b, "\n");
    }
    rb_sbuf_add(b, "%s**%d step** · **%d moved** · %d blind · %d steady · %d single\n\n",
                h->n_notes ? "\n" : "", h->counts[RB_HISTORY_STEP], h->counts[RB_HISTORY_MOVED],
                h->counts[RB_HISTORY_BLIND], h->counts[RB_HISTORY_STEADY],
                h->counts[RB_HISTORY_SINGLE]);
    rb_sbuf_add(b, "| pair/variant | runs | trend | first ms | last ms | change | verdict |\n"
                   "|:--|--:|:--|--:|--:|--:|:--|\n");
    for (int i = 0; i < h->n_series; i++)
        md_series_row(b, &h->series[i]);
    md_steps(b, h);
    rb_sbuf_add(b, "\n<sub>%s</sub>\n", RB_HISTORY_RULE);
}

char *rb_history_markdown(const rb_history *h)
{
    rb_sbuf b = {0};
    rb_history_markdown_to(&b, h);
    return rb_sbuf_take(&b);
}

/* ---- JSON ---- */

static json_value *step_json(const rb_history_step *st)
{
    const rb_runcmp_row *r = &st->row;
    json_value *o = json_new_object();
    if (!o || json_set_number(o, "from_point", st->from) ||
        json_set_number(o, "to_point", st->to) || json_set_bool(o, "confirmed", st->confirmed) ||
        json_set_string(o, "verdict", rb_change_name(r->change)) ||
        json_set_number(o, "ratio", r->ratio) || json_set_number(o, "ratio_lo", r->ratio_lo) ||
        json_set_number(o, "ratio_hi", r->ratio_hi) || json_set_number(o, "floor", r->floor) ||
        json_set_number(o, "cycles_ratio", r->cycles_ratio) ||
        json_set_string(o, "floor_from", r->floor_from_runs ? "recorded runs" : "timed loops") ||
        json_set_string(o, "attribution", rb_cause_name(r->cause)) ||
        json_set_string(o, "evidence", r->evidence)) {
        json_free(o);
        return NULL;
    }
    return o;
}

static json_value *series_json(const rb_history_series *s)
{
    json_value *o = json_new_object(), *pts = json_new_array(), *steps = json_new_array();
    int bad = !o || !pts || !steps;
    for (int i = 0; !bad && i < s->n_points; i++) {
        json_value *p = json_new_object();
        if (!p || json_set_number(p, "run", s->points[i].run) ||
            json_set_number(p, "median_ms", s->points[i].median_ms)) {
            json_free(p);
            bad = 1;
        } else {
            bad = json_array_push(pts, p); /* takes p, also when it fails */
        }
    }
    for (int i = 0; !bad && i < s->n_steps; i++) {
        json_value *st = step_json(&s->steps[i]);
        bad = !st || json_array_push(steps, st);
    }
    if (!bad)
        bad = json_set_string(o, "pair", s->pair) || json_set_string(o, "variant", s->variant) ||
              json_set_string(o, "label", s->label) || json_set_number(o, "size", s->size) ||
              json_set_bool(o, "cold", s->cold) ||
              json_set_string(o, "verdict", rb_history_verdict_name(s->verdict)) ||
              json_set_number(o, "max_floor", s->max_floor) ||
              json_set_string(o, "blind", s->verdict == RB_HISTORY_BLIND ? s->blind_why : NULL) ||
              json_set_number(o, "blips", s->n_blips);
    if (bad) {
        json_free(o);
        json_free(pts);
        json_free(steps);
        return NULL;
    }
    /* json_object_set owns its value also when it fails */
    bad = json_object_set(o, "points", pts);
    bad = json_object_set(o, "steps", steps) || bad;
    if (bad) {
        json_free(o);
        return NULL;
    }
    return o;
}

static json_value *runs_json(const rb_history *h)
{
    json_value *a = json_new_array();
    for (int i = 0; a && i < h->n_runs; i++) {
        const rb_history_run *r = &h->runs[i];
        json_value *o = json_new_object();
        if (!o || json_set_string(o, "path", r->path) || json_set_string(o, "date", r->date) ||
            json_set_string(o, "git", r->git) ||
            json_set_number(o, "fingerprints", r->fingerprints) || json_array_push(a, o)) {
            json_free(a);
            return NULL;
        }
    }
    return a;
}

static int counts_json(const rb_history *h, json_value *doc)
{
    json_value *counts = json_new_object(), *notes = json_new_array();
    int bad = !counts || !notes;
    for (int i = 0; !bad && i <= RB_HISTORY_SINGLE; i++)
        bad = json_set_number(counts, rb_history_verdict_name((rb_history_verdict)i), h->counts[i]);
    for (int i = 0; !bad && i < h->n_notes; i++) {
        json_value *n = json_new_string(h->notes[i]);
        bad = !n || json_array_push(notes, n);
    }
    if (bad) {
        json_free(counts);
        json_free(notes);
        return -1;
    }
    bad = json_object_set(doc, "counts", counts);
    return json_object_set(doc, "notes", notes) || bad ? -1 : 0;
}

/* The document, its "series" an empty array (*series_out: it) to be filled. */
static json_value *json_head(const rb_history *h, json_value **series_out)
{
    json_value *doc = json_new_object();
    char note[300] = "available";
    if (h->runs_without_fingerprints)
        rb_fmt(note, sizeof note, "unavailable for %d of %d run(s)", h->runs_without_fingerprints,
               h->n_runs);
    int bad = !doc || json_set_number(doc, "schema", 1) ||
              json_set_string(doc, "tool", "roofbench history") ||
              json_set_string(doc, "hardware_key", h->runs[0].hardware_key) ||
              json_set_string(doc, "floors", h->floors_line) ||
              json_set_string(doc, "code_attribution", note) ||
              json_set_string(doc, "filter", h->filter) ||
              json_set_string(doc, "rule", RB_HISTORY_RULE) ||
              json_set_string(doc, "compare_rule", RB_RUNCMP_RULE) || counts_json(h, doc);
    json_value *runs = bad ? NULL : runs_json(h), *series = bad ? NULL : json_new_array();
    bad = bad || !runs || json_object_set(doc, "runs", runs);
    if (bad || !series || json_object_set(doc, "series", series)) {
        if (bad)
            json_free(series);
        json_free(doc);
        return NULL;
    }
    *series_out = series;
    return doc;
}

json_value *rb_history_json(const rb_history *h)
{
    json_value *series = NULL, *doc = json_head(h, &series);
    for (int i = 0; doc && i < h->n_series; i++) {
        json_value *s = series_json(&h->series[i]);
        if (!s || json_array_push(series, s)) {
            json_free(doc);
            return NULL;
        }
    }
    return doc;
}

static json_value *nth_series_json(void *h, size_t i)
{
    return series_json(&((const rb_history *)h)->series[i]);
}

void rb_history_json_to(rb_sbuf *b, const rb_history *h)
{
    json_value *series = NULL, *doc = json_head(h, &series);
    if (doc)
        json_write_to(b, doc, 2, series, nth_series_json, (void *)h, (size_t)h->n_series);
    else
        b->oom = 1;
    json_free(doc);
}

/* ---- the SVG trend chart ---- */

/* Three columns of rows, a pair's rows kept together: its name, then one row per series with
 * its label, a small line of its medians over the runs (x: the run's place in date order, the
 * same for every row; y: the median over the series' first, log scale, +-RB_HISTORY_SVG_RANGE,
 * slower up), the band of its floor, its steps as dots, and its change and verdict. */
#define RB_HISTORY_SVG_COLUMNS 3
#define RB_HISTORY_SVG_RANGE 0.30
enum {
    SVG_W = 1400,
    SVG_MARGIN = 16,
    SVG_GAP = 20,
    SVG_TOP = 84,
    SVG_ROW = 18,
    SVG_HEAD = 20,
    SVG_LABEL = 186, /* 27 characters of 6.7 px (11 px monospace) */
    SVG_SPARK = 160
};
static const char svg_slower[] = "#c0392b", svg_faster[] = "#1e8449", svg_pending[] = "#d35400";

static double svg_y(double ratio, double mid)
{
    double t = log(ratio) / log(1 + RB_HISTORY_SVG_RANGE);
    return mid - (t > 1 ? 1 : t < -1 ? -1 : t) * (SVG_ROW / 2.0 - 2);
}

static double svg_x(const rb_history *h, int run, double x0)
{
    return x0 + (h->n_runs > 1 ? SVG_SPARK * (double)run / (h->n_runs - 1) : SVG_SPARK / 2.0);
}

static const char *step_colour(const rb_history_step *st)
{
    return !st->confirmed                       ? svg_pending
           : st->row.change == RB_CHANGE_SLOWER ? svg_slower
                                                : svg_faster;
}

static void svg_series(rb_sbuf *b, const rb_history *h, const rb_history_series *s, double x,
                       double y, double *xy)
{
    char text[1200], label[40];
    double mid = y + SVG_ROW / 2.0, x0 = x + SVG_LABEL, first = s->points[0].median_ms;
    /* under its pair's name: the variant, its size and regime */
    const char *name = s->label + strlen(s->pair) + 1;
    rb_fmt(label, sizeof label, strlen(name) > 27 ? "%.25s.." : "%s", name);
    rb_fmt(text, sizeof text, "%s: %d run(s), %.4f -> %.4f ms, %s", s->label, s->n_points, first,
           s->points[s->n_points - 1].median_ms, rb_history_verdict_name(s->verdict));
    rb_svg_rect(b, x, y, SVG_LABEL + SVG_SPARK + 80, SVG_ROW, "transparent", "row", text);
    rb_svg_text(b, x + 4, mid + 3.5, 11, "start", "#222222", 0, label);
    double band = fmin(s->max_floor, RB_HISTORY_SVG_RANGE);
    rb_svg_rect(b, x0, svg_y(1 + band, mid), SVG_SPARK,
                svg_y(1 / (1 + band), mid) - svg_y(1 + band, mid), "#eceff1", NULL, NULL);
    rb_svg_line(b, x0, mid, x0 + SVG_SPARK, mid, "#b0bec5", 0.5, NULL, NULL);
    for (int i = 0; i < s->n_points; i++) {
        xy[2 * i] = svg_x(h, s->points[i].run, x0);
        xy[2 * i + 1] = svg_y(s->points[i].median_ms / first, mid);
    }
    if (s->n_points > 1)
        rb_svg_polyline(b, xy, s->n_points, "#34495e", 1, NULL);
    else
        rb_svg_circle(b, xy[0], xy[1], 1.5, "#34495e", NULL, NULL);
    for (int k = 0; k < s->n_steps; k++) {
        const rb_history_step *st = &s->steps[k];
        step_text(h, s, st, text, sizeof text);
        rb_svg_circle(b, xy[2 * st->to], xy[2 * st->to + 1], 2.8, step_colour(st), "step", text);
    }
    char change[32] = "";
    if (s->n_points > 1)
        rb_fmt(change, sizeof change, "%+.1f%%", change_pct(s));
    rb_svg_text(b, x0 + SVG_SPARK + 6, mid + 3.5, 11, "start", "#222222", 0, change);
    const char *colour = s->verdict == RB_HISTORY_BLIND || s->verdict == RB_HISTORY_SINGLE
                             ? "#7f8c8d"
                         : s->n_steps ? step_colour(&s->steps[s->n_steps - 1])
                                      : "#222222";
    rb_svg_text(b, x0 + SVG_SPARK + 52, mid + 3.5, 11, "start", colour, 0,
                rb_history_verdict_name(s->verdict));
}

/* The column height at which the next pair starts a new column. */
static double svg_column_target(const rb_history *h)
{
    double total = 0;
    for (int i = 0; i < h->n_series; i++)
        total +=
            SVG_ROW + (i == 0 || strcmp(h->series[i].pair, h->series[i - 1].pair) ? SVG_HEAD : 0);
    return total / RB_HISTORY_SVG_COLUMNS;
}

static void svg_header(rb_sbuf *b, const rb_history *h)
{
    char line[400];
    const rb_history_run *a = &h->runs[0], *z = &h->runs[h->n_runs - 1];
    rb_fmt(line, sizeof line, "roofbench history: %s, %d run(s), %s to %s",
           a->hardware_key[0] ? a->hardware_key : "?", h->n_runs, a->date, z->date);
    rb_svg_text(b, SVG_MARGIN, 26, 15, "start", "#111111", 0, line);
    rb_fmt(line, sizeof line, "%d series: %d step, %d moved, %d blind, %d steady, %d single",
           h->n_series, h->counts[RB_HISTORY_STEP], h->counts[RB_HISTORY_MOVED],
           h->counts[RB_HISTORY_BLIND], h->counts[RB_HISTORY_STEADY], h->counts[RB_HISTORY_SINGLE]);
    rb_svg_text(b, SVG_MARGIN, 46, 11, "start", "#333333", 0, line);
    rb_fmt(line, sizeof line,
           "each line: a variant's median per run (x: the runs in date order) over its first, "
           "log scale, +-%.0f%% (clipped), slower up; grey band: its floor",
           100 * RB_HISTORY_SVG_RANGE);
    rb_svg_text(b, SVG_MARGIN, 64, 11, "start", "#555555", 0, line);
    double x = SVG_MARGIN + 10;
    static const char *const what[3] = {"step slower", "step faster", "moved in its latest run"};
    const char *colours[3] = {svg_slower, svg_faster, svg_pending};
    for (int i = 0; i < 3; i++) {
        rb_svg_circle(b, x, 76, 3, colours[i], NULL, NULL);
        rb_svg_text(b, x + 7, 79.5, 11, "start", "#555555", 0, what[i]);
        x += 14 + 6.8 * (double)strlen(what[i]) + 16;
    }
}

void rb_history_svg_to(rb_sbuf *out, const rb_history *h)
{
    rb_sbuf *b = out;
    int max_points = 1;
    for (int i = 0; i < h->n_series; i++)
        max_points = h->series[i].n_points > max_points ? h->series[i].n_points : max_points;
    double *xy = malloc(2 * (size_t)max_points * sizeof *xy);
    if (!xy) {
        b->oom = 1;
        return;
    }
    double target = svg_column_target(h),
           col_w = (SVG_W - 2 * SVG_MARGIN - (RB_HISTORY_SVG_COLUMNS - 1) * SVG_GAP) /
                   (double)RB_HISTORY_SVG_COLUMNS;
    /* first pass: the height; second: the drawing */
    double height = SVG_TOP;
    for (int pass = 0; pass < 2; pass++) {
        int col = 0;
        double y = SVG_TOP;
        if (pass) {
            rb_svg_begin(b, SVG_W, height + SVG_MARGIN);
            svg_header(b, h);
        }
        for (int i = 0; i < h->n_series; i++) {
            const rb_history_series *s = &h->series[i];
            double x = SVG_MARGIN + col * (col_w + SVG_GAP);
            if (i == 0 || strcmp(s->pair, h->series[i - 1].pair)) {
                if (y - SVG_TOP >= target && col + 1 < RB_HISTORY_SVG_COLUMNS) {
                    col++;
                    y = SVG_TOP;
                    x = SVG_MARGIN + col * (col_w + SVG_GAP);
                }
                if (pass)
                    rb_svg_text(b, x, y + 14, 11, "start", "#111111", 0, s->pair);
                y += SVG_HEAD;
            }
            if (pass)
                svg_series(b, h, s, x, y, xy);
            y += SVG_ROW;
            height = fmax(height, y);
        }
    }
    rb_svg_end(b);
    free(xy);
}

char *rb_history_svg(const rb_history *h)
{
    rb_sbuf b = {0};
    rb_history_svg_to(&b, h);
    return rb_sbuf_take(&b);
}
