/* SPDX-License-Identifier: MIT */
#include "docs_render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "report.h"
#include "result_read.h"
#include "text.h"
#include "util.h"

/* ---- cells ---- */

static void pct_text(char *buf, size_t size, double x)
{
    if (isnan(x))
        rb_fmt(buf, size, "-");
    else
        rb_fmt(buf, size, "%.1f%%", 100.0 * x);
}

/* The roof a row is named by, as the file names it ("" when it names none). */
static const char *named_key(const rb_variant_result *v)
{
    return v->named_roof < RB_ROOF_COUNT ? rb_roof_key(v->named_roof) : "";
}

/* The rate the table shows: µs per launch on a latency roof (the pair's roof_rate extra),
 * TFLOP/s when either point is compute-bound, else GB/s. "-" when the variant was not timed. */
static void rate_text(const rb_pair_result *pair, const rb_variant_result *v,
                      const rb_results_doc *doc, char *buf, size_t size)
{
    const rb_results_roof *roof = rb_results_roof_find(doc, named_key(v));
    const char *kind = roof ? roof->kind : "";
    if (!v->timed) {
        rb_fmt(buf, size, "-");
    } else if (!strcmp(kind, "latency")) {
        double us = rb_report_extra(v, v->roof_rate);
        if (isnan(us))
            rb_fmt(buf, size, "-");
        else
            rb_fmt(buf, size, "%.2f us/launch", us);
    } else if (pair->flops > 0 &&
               (v->vs_ceiling.compute_bound || v->vs_peak.compute_bound)) {
        rb_fmt(buf, size, "%.1f TFLOP/s", v->vs_ceiling.tflops);
    } else {
        rb_fmt(buf, size, "%.1f GB/s", v->vs_ceiling.gbps);
    }
}

/* The cells of one variant's row, as the run's table prints them. */
typedef struct docs_row {
    char ms[24], noise[16], rate[40], ceil[16], peak[16], speedup[16];
} docs_row;

static void row_cells(const rb_pair_result *pair, const rb_variant_result *v,
                      const rb_results_doc *doc, docs_row *r)
{
    rate_text(pair, v, doc, r->rate, sizeof r->rate);
    if (!v->timed) {
        rb_fmt(r->ms, sizeof r->ms, "-");
        rb_fmt(r->noise, sizeof r->noise, "-");
        rb_fmt(r->ceil, sizeof r->ceil, "-");
        rb_fmt(r->peak, sizeof r->peak, "-");
        rb_fmt(r->speedup, sizeof r->speedup, "-");
        return;
    }
    rb_fmt(r->ms, sizeof r->ms, "%.4f%s", v->time_ms.median,
           rb_report_throttled(v) ? "!" : "");
    pct_text(r->noise, sizeof r->noise, v->time_ms.noise);
    pct_text(r->ceil, sizeof r->ceil, v->vs_ceiling.efficiency);
    if (v->roof_note[0]) {
        size_t len = strlen(r->ceil);
        rb_fmt(r->ceil + len, sizeof r->ceil - len, "*");
    }
    pct_text(r->peak, sizeof r->peak, v->vs_peak.efficiency);
    if (isnan(v->speedup))
        rb_fmt(r->speedup, sizeof r->speedup, "-");
    else
        rb_fmt(r->speedup, sizeof r->speedup, "%.2fx", v->speedup);
}

static const char *roof_cell(const rb_variant_result *v)
{
    return v->timed && v->named_roof < RB_ROOF_COUNT ? rb_roof_key(v->named_roof) : "-";
}

/* ---- row groups ---- */

static void pair_of(const char *group, char *out, size_t size)
{
    size_t n = strcspn(group, ".@");
    rb_fmt(out, size, "%.*s", (int)n, group);
}

int rb_docs_group_matches(const char *group, const char *pair, const regex_t *re)
{
    char name[RB_PATH_BUF];
    pair_of(group, name, sizeof name);
    if (pair)
        return !strcmp(name, pair);
    return re && (regexec(re, group, 0, NULL, 0) == 0 || regexec(re, name, 0, NULL, 0) == 0);
}

static const char *status_name(rb_pair_status s)
{
    return s == RB_PAIR_FAILED ? "failed" : s == RB_PAIR_SKIPPED ? "skipped" : "ok";
}

static void markdown_row(rb_sbuf *b, const rb_pair_result *pair, const rb_variant_result *v,
                         const rb_results_doc *doc, int first)
{
    docs_row r;
    row_cells(pair, v, doc, &r);
    rb_sbuf_add(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", first ? pair->name : "",
                v->name, r.ms, r.rate, r.ceil, r.peak, r.speedup, rb_verdict_name(v->verdict),
                roof_cell(v));
}

/* The notes of the rows shown: why a variant is not timed, and why a point sits above its
 * measured roof (the * of its cell). */
static void row_notes(rb_sbuf *b, const rb_pair_result *pair)
{
    for (int k = 0; k < pair->n_variants; k++) {
        const rb_variant_result *v = &pair->v[k];
        if (v->note[0])
            rb_sbuf_add(b, "- %s/%s: %s\n", pair->name, v->name, v->note);
        if (v->roof_note[0])
            rb_sbuf_add(b, "- %s/%s: \\* %s\n", pair->name, v->name, v->roof_note);
    }
}

/* The rows of the matching groups as `run` prints them (rb_report_table, 100 columns), from
 * the records the file holds. */
static char *sample_rows(const rb_results_doc *doc, const regex_t *re, int max_rows, char *err,
                         size_t err_size)
{
    rb_pair_result *kept = calloc(doc->n_pairs ? (size_t)doc->n_pairs : 1, sizeof *kept);
    int n = 0, rows = 0;
    if (!kept) {
        rb_fmt(err, err_size, "out of memory");
        return NULL;
    }
    for (int i = 0; i < doc->n_pairs; i++)
        if (rb_docs_group_matches(doc->pairs[i].name, NULL, re)) {
            rows += doc->pairs[i].n_variants ? doc->pairs[i].n_variants : 1;
            kept[n++] = doc->pairs[i];
        }
    char *text = NULL;
    size_t len = 0;
    FILE *f = rows && rows <= max_rows ? open_memstream(&text, &len) : NULL;
    if (f) {
        fputs("```\n", f);
        rb_report_table_at(f, kept, n, RB_TEXT_WIDTH);
        fputs("```\n", f);
        fclose(f);
    }
    free(kept);
    if (!rows)
        rb_fmt(err, err_size, "no row group matches");
    else if (rows > max_rows)
        rb_fmt(err, err_size, "%d rows match: at most %d may be shown", rows, max_rows);
    else if (!text)
        rb_fmt(err, err_size, "out of memory");
    return rows && rows <= max_rows ? text : NULL;
}

char *rb_docs_render_rows(const rb_results_doc *doc, const regex_t *re, int terminal,
                          int max_rows, char *err, size_t err_size)
{
    if (terminal)
        return sample_rows(doc, re, max_rows > 0 ? max_rows : 1000000, err, err_size);
    rb_sbuf b = {0}, notes = {0};
    int rows = 0;
    rb_sbuf_add(&b, "| row | variant | median ms | rate | %% of roof | %% of datasheet | speedup | "
                    "verdict | roof |\n|---|---|---:|---:|---:|---:|---:|---|---|\n");
    for (int i = 0; i < doc->n_pairs; i++) {
        const rb_pair_result *p = &doc->pairs[i];
        if (!rb_docs_group_matches(p->name, NULL, re))
            continue;
        if (p->n_variants == 0) {
            rb_sbuf_add(&b, "| %s | - | %s: %s | | | | | | |\n", p->name, status_name(p->status),
                        p->reason);
            rows++;
        }
        for (int k = 0; k < p->n_variants; k++, rows++)
            markdown_row(&b, p, &p->v[k], doc, k == 0);
        row_notes(&notes, p);
    }
    char *tail = rb_sbuf_take(&notes);
    if (tail && tail[0])
        rb_sbuf_add(&b, "\n%s", tail);
    free(tail);
    if (rows == 0 || (max_rows > 0 && rows > max_rows)) {
        if (rows)
            rb_fmt(err, err_size, "%d rows match: at most %d may be shown", rows, max_rows);
        else
            rb_fmt(err, err_size, "no row group matches");
        rb_sbuf_free(&b);
        return NULL;
    }
    char *text = rb_sbuf_take(&b);
    if (!text)
        rb_fmt(err, err_size, "out of memory");
    return text;
}

/* ---- energy ---- */

char *rb_docs_render_energy(const rb_results_doc *doc, const regex_t *re, char *err,
                            size_t err_size)
{
    rb_sbuf b = {0};
    int groups = 0;
    rb_sbuf_add(&b, "| row | variant | median ms | J per launch | mean W | mean SM clock |\n"
                    "|---|---|---:|---:|---:|---:|\n");
    for (int i = 0; i < doc->n_pairs; i++) {
        const rb_pair_result *p = &doc->pairs[i];
        if (!rb_docs_group_matches(p->name, NULL, re))
            continue;
        groups++;
        for (int k = 0, first = 1; k < p->n_variants; k++) {
            const rb_variant_result *v = &p->v[k];
            if (!v->timed)
                continue;
            rb_sbuf_add(&b, "| %s | %s | %.4f | ", first ? p->name : "", v->name,
                        v->time_ms.median);
            if (v->energy.state == RB_ENERGY_OK)
                rb_sbuf_add(&b, "%.3f | %.0f |", rb_energy_j_per_launch(&v->energy),
                            rb_energy_mean_w(&v->energy));
            else
                rb_sbuf_add(&b, "- (%s) | - |", rb_energy_why(v->energy.state));
            double mhz = rb_clocks_mean_mhz(&v->clocks);
            if (v->clocks.clock_samples > 0 && mhz > 0)
                rb_sbuf_add(&b, " %.0f MHz |\n", mhz);
            else
                rb_sbuf_add(&b, " - |\n");
            first = 0;
        }
    }
    if (groups == 0) {
        rb_fmt(err, err_size, "no row group matches");
        rb_sbuf_free(&b);
        return NULL;
    }
    char *text = rb_sbuf_take(&b);
    if (!text)
        rb_fmt(err, err_size, "out of memory");
    return text;
}

/* ---- the roofs ---- */

static const char *roof_unit(const char *key)
{
    size_t n = strlen(key);
    if (n > 5 && !strcmp(key + n - 5, "_gbps"))
        return "GB/s";
    if (n > 7 && !strcmp(key + n - 7, "_tflops"))
        return "TFLOP/s";
    return "us";
}

static void roof_value(char *buf, size_t size, double x, const char *unit)
{
    if (isnan(x))
        rb_fmt(buf, size, "-");
    else
        rb_fmt(buf, size, !strcmp(unit, "us") ? "%.2f %s" : "%.1f %s", x, unit);
}

char *rb_docs_render_roofs(const rb_results_doc *doc)
{
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "| roof | kind | measured | datasheet | measured / datasheet |\n"
                    "|---|---|---:|---:|---:|\n");
    for (int i = 0; i < doc->n_roofs; i++) {
        const rb_results_roof *r = &doc->roofs[i];
        const char *unit = roof_unit(r->key);
        char m[32], p[32], ratio[16];
        roof_value(m, sizeof m, r->measured, unit);
        roof_value(p, sizeof p, r->peak, unit);
        pct_text(ratio, sizeof ratio, r->measured / r->peak);
        rb_sbuf_add(&b, "| `%s` | %s | %s | %s | %s |\n", r->key, r->kind[0] ? r->kind : "?", m,
                    p, ratio);
    }
    return rb_sbuf_take(&b);
}

/* ---- the run, one paragraph ---- */

/* Appends text to b wrapped at width, breaking at spaces (a word longer than width stands
 * alone on its line). */
static void add_wrapped(rb_sbuf *b, const char *text, int width)
{
    int col = 0;
    const char *s = text;
    while (*s) {
        while (*s == ' ')
            s++;
        size_t w = strcspn(s, " ");
        if (w == 0)
            break;
        if (col > 0 && col + 1 + (int)w > width) {
            rb_sbuf_add(b, "\n");
            col = 0;
        }
        rb_sbuf_add(b, "%s%.*s", col ? " " : "", (int)w, s);
        col += (col ? 1 : 0) + (int)w;
        s += w;
    }
    rb_sbuf_add(b, "\n");
}

/* "108 pass, 4 skipped": the verdicts of every variant, in a fixed order. */
static void verdict_counts(const rb_results_doc *doc, char *buf, size_t size)
{
    static const char *const names[] = {"pass",    "improved", "regressed", "new", "missing",
                                        "invalid", "skipped",  "stale",     "contended", "none"};
    int count[sizeof names / sizeof names[0]] = {0};
    for (int i = 0; i < doc->n_pairs; i++)
        for (int k = 0; k < doc->pairs[i].n_variants; k++) {
            const char *v = rb_verdict_name(doc->pairs[i].v[k].verdict);
            for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
                if (!strcmp(v, names[n]) || n + 1 == sizeof names / sizeof names[0]) {
                    count[n]++;
                    break;
                }
        }
    buf[0] = '\0';
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
        if (count[n]) {
            size_t len = strlen(buf);
            rb_fmt(buf + len, size - len, "%s%d %s", len ? ", " : "", count[n], names[n]);
        }
}

/* "; p2p_copy skipped (needs 2 GPUs, this machine has 1)" for each pair not run. */
static void pairs_not_run(const rb_results_doc *doc, rb_sbuf *b)
{
    for (int i = 0; i < doc->n_pairs; i++) {
        const rb_pair_result *p = &doc->pairs[i];
        if (p->status != RB_PAIR_OK)
            rb_sbuf_add(b, "; %s %s (%s)", p->name, status_name(p->status), p->reason);
    }
}

char *rb_docs_render_run(const rb_results_doc *doc, const char *ref_path, const char *copy_of,
                         int width)
{
    const rb_results_env *env = &doc->start;
    const rb_results_platform *platform = &doc->platform;
    rb_sbuf s = {0};
    rb_sbuf_add(&s, "The reference run `%s`", ref_path);
    if (copy_of)
        rb_sbuf_add(&s, " (a copy of `%s`)", copy_of);
    /* a run from before the power limit was recorded says nothing of it, not "nan W" */
    char power[64] = "";
    if (isfinite(env->power_limit_w))
        rb_fmt(power, sizeof power, ", %.0f W power limit", env->power_limit_w);
    rb_sbuf_add(&s,
                ": `%s` at git %s, %s, size %s, seed %.0f, on the %s (compute capability %s, "
                "%.0f SMs, %.0f MiB L2%s), driver %s, CUDA runtime %s",
                rb_results_text(doc->command, "?"), rb_results_text(doc->git, "?"),
                rb_results_text(doc->date, "?"), rb_results_text(doc->size, "?"), doc->seed,
                rb_results_text(env->device, "?"), rb_results_text(env->cc, "?"), env->sms,
                env->l2_bytes / 1048576.0, power, rb_results_text(env->driver, "?"),
                rb_results_text(env->cuda_runtime, "?"));
    if (!isnan(platform->dram_gbps))
        rb_sbuf_add(&s,
                    "; platform at its start: DRAM copy %.0f GB/s, FP32 %.1f TFLOP/s, launch "
                    "%.2f us",
                    platform->dram_gbps, platform->fp32_tflops, platform->launch_us);
    double wall_s = 0;
    for (int i = 0; i < doc->n_pairs; i++) {
        double w = doc->pairs[i].wall_s;
        wall_s += isnan(w) ? 0 : w;
    }
    rb_sbuf_add(&s, "; the pairs' processes ran for %.0f s", wall_s);
    char counts[200];
    verdict_counts(doc, counts, sizeof counts);
    const char *expect = rb_results_text(doc->expectations, "");
    rb_sbuf_add(&s, ". Verdicts%s%s%s: %s", expect[0] ? " against `" : "", expect,
                expect[0] ? "`" : "", counts);
    pairs_not_run(doc, &s);
    rb_sbuf_add(&s, ".");
    char *line = rb_sbuf_take(&s);
    if (!line)
        return NULL;
    rb_sbuf b = {0};
    add_wrapped(&b, line, width);
    free(line);
    return rb_sbuf_take(&b);
}

/* ---- a kernel header's measured lines ---- */

#define DOCS_HEADER_MAX_LINES 8

static int shown_in_header(const rb_variant_result *v)
{
    return v->role == RB_ROLE_BASELINE || v->role == RB_ROLE_OPTIMIZED ||
           v->role == RB_ROLE_LIBRARY;
}

/* "baseline 2408.4 GB/s (79.7%), optimized 3019.6 (99.9%, 1.25x), ...": a unit is said where
 * it changes. */
static void header_entries(const rb_pair_result *pair, const rb_results_doc *doc, rb_sbuf *b)
{
    char unit[24] = "";
    int n = 0;
    for (int k = 0; k < pair->n_variants; k++) {
        const rb_variant_result *v = &pair->v[k];
        if (!shown_in_header(v))
            continue;
        rb_sbuf_add(b, "%s%s", n++ ? ", " : "", v->name);
        if (!v->timed) {
            rb_sbuf_add(b, " %s",
                        v->skipped ? "skipped"
                        : v->valid ? "not timed"
                                   : "invalid");
            continue;
        }
        docs_row r;
        row_cells(pair, v, doc, &r);
        const char *space = strchr(r.rate, ' ');
        size_t digits = space ? (size_t)(space - r.rate) : strlen(r.rate);
        const char *this_unit = space ? space + 1 : "";
        rb_sbuf_add(b, " %.*s%s%s", (int)digits, r.rate, strcmp(this_unit, unit) ? " " : "",
                    strcmp(this_unit, unit) ? this_unit : "");
        rb_fmt(unit, sizeof unit, "%s", this_unit);
        int known = strcmp(r.ceil, "-") != 0,
            optimized = v->role == RB_ROLE_OPTIMIZED;
        if (known && optimized)
            rb_sbuf_add(b, " (%s, %s)", r.ceil, r.speedup);
        else if (known || optimized)
            rb_sbuf_add(b, " (%s)", known ? r.ceil : r.speedup);
    }
}

/* Splits text at ", " into lines of at most width characters; returns how many, each copied
 * into lines[] (up to max) as a pointer into a copy the caller frees (*copy). */
static int split_entries(const char *text, int width, char **lines, int max, char **copy)
{
    *copy = malloc(strlen(text) + 1 + (size_t)max);
    if (!*copy)
        return -1;
    char *out = *copy;
    int n = 0;
    const char *s = text;
    while (*s) {
        size_t take = strlen(s);
        if ((int)take > width) {
            /* the last ", " that keeps the line within width (the comma stays on it) */
            size_t cut = 0;
            for (size_t i = 0; i + 1 < (size_t)width && s[i]; i++)
                if (s[i] == ',' && s[i + 1] == ' ')
                    cut = i + 1;
            take = cut ? cut : (size_t)width;
        }
        if (n < max)
            lines[n] = out;
        memcpy(out, s, take);
        out[take] = '\0';
        out += take + 1;
        n++;
        s += take;
        while (*s == ' ')
            s++;
        if (n >= max)
            break;
    }
    return *s ? max + 1 : n;
}

char *rb_docs_render_header(const rb_results_doc *doc, const char *ref_path, const char *pair,
                            const char *prefix, int width, int max_lines)
{
    int room = width - (int)strlen(prefix), groups = 0, used = 1;
    if (max_lines > DOCS_HEADER_MAX_LINES)
        max_lines = DOCS_HEADER_MAX_LINES;
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "%s%s: median rate (%% of its measured roof, speedup)\n", prefix, ref_path);
    for (int i = 0; i < doc->n_pairs; i++)
        groups += rb_docs_group_matches(doc->pairs[i].name, pair, NULL);
    for (int i = 0; i < doc->n_pairs && used < max_lines; i++) {
        const rb_pair_result *p = &doc->pairs[i];
        const char *group = p->name;
        if (!rb_docs_group_matches(group, pair, NULL))
            continue;
        rb_sbuf e = {0};
        /* the header is the pair's: its input and size say which group ("uniform",
         * "square@64M", "sgemm@1M") */
        size_t plen = strlen(pair);
        if (groups > 1 || strcmp(group, pair))
            rb_sbuf_add(&e, "%s: ", group[plen] == '.' ? group + plen + 1 : group);
        if (p->status != RB_PAIR_OK)
            rb_sbuf_add(&e, "%s: %s", status_name(p->status), p->reason);
        else
            header_entries(p, doc, &e);
        char *text = rb_sbuf_take(&e), *copy = NULL, *lines[DOCS_HEADER_MAX_LINES];
        /* (room for the two spaces that indent a continuation) */
        int n = text ? split_entries(text, room - 2, lines, max_lines - used, &copy) : -1;
        /* a group that does not fit ends the lines, unless it is the first (then cut short) */
        if (n > max_lines - used && used > 1)
            n = 0;
        for (int k = 0; k < n && k < max_lines - used; k++)
            rb_sbuf_add(&b, "%s%s%s\n", prefix, k ? "  " : "", lines[k]);
        used += n > max_lines - used ? max_lines - used : n < 0 ? 0 : n;
        free(text);
        free(copy);
        if (n == 0)
            break;
    }
    if (groups == 0)
        rb_sbuf_add(&b, "%sno row of %s: the reference run is older than the pair\n", prefix, pair);
    return rb_sbuf_take(&b);
}

/* ---- regression thresholds of an expectation file ---- */

/* The table being made, row by row (rb_expected_each). */
typedef struct thresholds_table {
    rb_sbuf b;
    double shown_above;
    int n, seen, shown;
} thresholds_table;

static void threshold_row(const char *pair, const char *variant, const rb_expected *e, void *ctx)
{
    thresholds_table *t = ctx;
    rb_stats none = {.median = NAN, .ci_lo = NAN, .ci_hi = NAN, .noise = NAN};
    double thr = rb_expect_run_threshold(e, &none);
    t->n++;
    t->seen += thr < 0.10;
    if (!(thr > t->shown_above))
        return;
    char spread[32];
    pct_text(spread, sizeof spread, isfinite(e->run_spread) ? e->run_spread : NAN);
    rb_sbuf_add(&t->b, "| %s/%s | %d | %s | %.1f%% | %s | %s |\n", pair, variant, e->runs, spread,
                100 * thr, e->per_clock ? "time x clock" : "time",
                thr < 0.10 ? "regressed" : "not seen");
    t->shown++;
}

char *rb_docs_render_thresholds(const json_value *expect, double shown_above)
{
    thresholds_table t = {.shown_above = shown_above};
    rb_sbuf_add(&t.b, "| row/variant | runs | spread of the runs' medians | threshold | judged on | "
                      "a 10%% slowdown |\n|---|---:|---:|---:|---|---|\n");
    rb_expected_each(expect, threshold_row, &t);
    if (!t.shown)
        rb_sbuf_add(&t.b, "| (none) | | | | | |\n");
    char line[300];
    rb_fmt(line, sizeof line,
           "%d of the file's %d variants would call a 10%% slowdown `regressed`; the table lists "
           "those whose threshold is above %.0f%%.",
           t.seen, t.n, 100 * shown_above);
    rb_sbuf_add(&t.b, "\n");
    add_wrapped(&t.b, line, 100);
    return rb_sbuf_take(&t.b);
}

/* ---- an index of a GPU's results folder ---- */

/* The --filter of a run's command line, or "" (its paths say nothing of what ran). */
static void command_filter(const char *command, char *out, size_t size)
{
    const char *f = strstr(command, "--filter ");
    out[0] = '\0';
    if (!f)
        return;
    /* a '|' would end the Markdown table's cell, even in a code span */
    rb_sbuf b = {0};
    rb_sbuf_add(&b, ", `--filter ");
    for (const char *c = f + 9; *c && *c != ' '; c++)
        rb_sbuf_add(&b, *c == '|' ? "\\|" : "%c", *c);
    rb_sbuf_add(&b, "`");
    char *text = rb_sbuf_take(&b);
    rb_fmt(out, size, "%s", text ? text : "");
    free(text);
}

char *rb_docs_render_run_line(const rb_results_doc *doc)
{
    char counts[200], filter[120];
    verdict_counts(doc, counts, sizeof counts);
    command_filter(rb_results_text(doc->command, ""), filter, sizeof filter);
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "a run at git %s, %s, size %s%s%s: %d row group(s); %s",
                rb_results_text(doc->git, "?"), rb_results_text(doc->date, "?"),
                rb_results_text(doc->size, "?"), doc->cold ? ", `--cold`" : "", filter,
                doc->n_pairs, counts[0] ? counts : "no variants");
    return rb_sbuf_take(&b);
}
