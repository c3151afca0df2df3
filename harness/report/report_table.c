/* SPDX-License-Identifier: MIT */
/*
 * The run's table as a person reads it (the terminal's width, report/table.h, unless --wide), as
 * a Markdown page and as CSV. One row per variant, placed under its row group's own line, so
 * that the longest group names ("nccl_allreduce.reduce_scatter@1G") cost no column; the
 * numbers carry the digits their noise supports; the notes follow the table, wrapped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "table.h"
#include "text.h"
#include "util.h"

/* The narrow table's first column: the variant, indented under its group ("nccl_out_of_place"
 * fits whole). */
#define NAME_W 19

/* The cells of one row, shared by the text table, the Markdown page and the CSV. */
typedef struct row {
    char ms[32], noise[16], rate[40], ceil[16], peak[16], speedup[16], verdict[24];
    char timing[4], roof[32];
    double rate_value;     /* the number in rate, unrounded (NaN: none) */
    const char *rate_unit; /* "GB/s", "TFLOP/s", "us/launch"; "" when none */
} row;

static void pct(char *buf, size_t size, double x)
{
    if (isnan(x))
        rb_fmt(buf, size, "-");
    else
        rb_fmt(buf, size, "%.1f%%", 100.0 * x);
}

/* 1 when a full run does not time v at its row's size, by design (RB_NOT_AT_SIZE_NOTE): not
 * one that could not be measured. */
static int not_at_size(const rb_variant_result *v)
{
    return v->skipped && !strncmp(v->note, RB_NOT_AT_SIZE_NOTE, strlen(RB_NOT_AT_SIZE_NOTE));
}

/* What a variant that was not timed is, where its rate would be: skipped, missing (expected,
 * not produced), failed (an error before its result could be checked: no rel_err), invalid
 * (checked and wrong). */
static const char *untimed_state(const rb_variant_result *v)
{
    if (not_at_size(v))
        return "not at size";
    if (v->skipped)
        return "skipped";
    if (v->verdict == RB_VERDICT_MISSING)
        return "missing";
    if (!v->valid)
        return isnan(v->rel_err_before) ? "failed" : "invalid";
    return "not timed";
}

static const char *timing_mark(const rb_variant_result *v)
{
    static const char *const marks[RB_TIMING_COUNT] = {"", "i", "S", "Si", "c"};
    return v->timed && (unsigned)v->timing < RB_TIMING_COUNT ? marks[v->timing] : "";
}

/* A roof key without its unit's suffix ("dram_read_gbps" -> "dram_read"): the rate column
 * carries the unit. */
static void short_roof(rb_roof r, char *out, size_t size)
{
    const char *key = rb_roof_key(r), *cut = strrchr(key, '_');
    rb_fmt(out, size, "%.*s", (int)(cut ? (size_t)(cut - key) : strlen(key)), key);
}

/* 1.00x, 13.3x, 1492x: three digits at most, which the noise of two medians supports. */
static void speedup_text(double x, char *buf, size_t size)
{
    if (isnan(x))
        rb_fmt(buf, size, "-");
    else
        rb_fmt(buf, size, x >= 99.95 ? "%.0fx" : x >= 9.995 ? "%.1fx" : "%.2fx", x);
}

static void format_row(const rb_pair_result *p, const rb_variant_result *v, int wide, row *r)
{
    rb_report_rate(p, v, &r->rate_value, &r->rate_unit);
    int info = v->host_bound_why[0] != '\0';
    rb_fmt(r->verdict, sizeof r->verdict, info ? "(%s)" : "%s",
           not_at_size(v) ? "not timed" : rb_verdict_name(v->verdict));
    rb_fmt(r->timing, sizeof r->timing, "%s", timing_mark(v));
    if (!v->timed) {
        rb_fmt(r->ms, sizeof r->ms, "-");
        rb_fmt(r->noise, sizeof r->noise, "-");
        rb_fmt(r->rate, sizeof r->rate, "%s", untimed_state(v));
        rb_fmt(r->ceil, sizeof r->ceil, "-");
        rb_fmt(r->peak, sizeof r->peak, "-");
        rb_fmt(r->speedup, sizeof r->speedup, "-");
        rb_fmt(r->roof, sizeof r->roof, "-");
        return;
    }
    double noise = v->time_ms.noise;
    char num[32];
    /* Timed under thermal or hardware slowdown: marked, the reasons in the notes. */
    rb_text_number(v->time_ms.median, noise, num, sizeof num);
    rb_fmt(r->ms, sizeof r->ms, "%s%s", num, rb_report_throttled(v) ? RB_THROTTLED_MARK : "");
    pct(r->noise, sizeof r->noise, noise);
    if (isnan(r->rate_value)) {
        rb_fmt(r->rate, sizeof r->rate, "-");
    } else {
        rb_text_number_max(r->rate_value, noise, 4, num, sizeof num);
        int latency = !strcmp(r->rate_unit, "us/launch");
        rb_fmt(r->rate, sizeof r->rate, "%s %s", num, latency && !wide ? "us" : r->rate_unit);
    }
    /* Above its measured roof: marked here, the reason printed in the notes below the table;
     * beyond its noise, no number at all (a measurement inconsistency). */
    if (v->inconsistent)
        rb_fmt(r->ceil, sizeof r->ceil, "incons");
    else
        pct(r->ceil, sizeof r->ceil, v->vs_ceiling.efficiency);
    if (v->roof_note[0] && !v->inconsistent) {
        size_t len = strlen(r->ceil);
        rb_fmt(r->ceil + len, sizeof r->ceil - len, "*");
    }
    pct(r->peak, sizeof r->peak, v->vs_peak.efficiency);
    speedup_text(v->speedup, r->speedup, sizeof r->speedup);
    rb_roof named = v->named_roof < RB_ROOF_COUNT ? v->named_roof : v->roof;
    if (named >= RB_ROOF_COUNT)
        rb_fmt(r->roof, sizeof r->roof, "-");
    else if (wide)
        rb_fmt(r->roof, sizeof r->roof, "%s", rb_roof_key(named));
    else
        short_roof(named, r->roof, sizeof r->roof);
}

/* ---- the text table ---- */

/* Appends "<tag>: <group>/<variant>: <text>" (variant NULL: "<tag>: <group>: <text>") to b,
 * wrapped at width (0: not wrapped). */
static void note_line(rb_sbuf *b, int width, const char *tag, const char *group,
                      const char *variant, const char *text)
{
    rb_sbuf line = {0};
    rb_sbuf_add(&line, "%s: %s%s%s: %s", tag, group, variant ? "/" : "", variant ? variant : "",
                text);
    char *whole = rb_sbuf_take(&line);
    rb_table_wrap(b, whole ? whole : text, width, 0, 6);
    free(whole);
}

/* "0.187 J/launch, 598 W mean, 1640 GFLOP/J" on a compute roof, "..., 5.74 GB/J" on another
 * (with GFLOP/J too where the pair has FLOPs); "" without energy. */
static void energy_text(const rb_pair_result *p, const rb_variant_result *v, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!v->timed || v->energy.state != RB_ENERGY_OK)
        return;
    rb_fmt(buf, size, "%.4g J/launch, %.0f W mean", rb_energy_j_per_launch(&v->energy),
           rb_energy_mean_w(&v->energy));
    double gflop = rb_energy_giga_per_j(&v->energy, p->flops);
    double gb = rb_energy_giga_per_j(&v->energy, rb_report_bytes(p, v));
    size_t len = strlen(buf);
    if (gflop > 0)
        rb_fmt(buf + len, size - len, ", %.4g GFLOP/J", gflop);
    len = strlen(buf);
    rb_roof r = v->named_roof < RB_ROOF_COUNT ? v->named_roof : v->roof;
    if (gb > 0 && !(gflop > 0 && r < RB_ROOF_COUNT && rb_roof_kind_of(r) == RB_KIND_COMPUTE))
        rb_fmt(buf + len, size - len, ", %.4g GB/J", gb);
}

/* The width the text under the table wraps at: the table's, at most RB_TEXT_WIDTH (a line a
 * person reads at once); 0 (--wide): none. */
static int rb_report_text_width(int width)
{
    return width > 0 && width < RB_TEXT_WIDTH ? width : width > 0 ? RB_TEXT_WIDTH : 0;
}

/* The value of a row's extra figure, NaN when it has none. */
static double extra_value(const rb_variant_result *v, const char *name)
{
    for (int x = 0; x < v->n_extras; x++)
        if (!strcmp(v->extras[x].name, name))
            return v->extras[x].value;
    return NAN;
}

/* A collective's row (nccl_allreduce's): its extras are nccl-tests' columns, shown in a table of
 * their own instead of an extra line. */
static int is_collective(const rb_variant_result *v)
{
    return !isnan(extra_value(v, "algbw_gbps")) && !isnan(extra_value(v, "busbw_gbps"));
}

/* 1 when the extra `name` of v is a cell of the collectives' table (not repeated in its extra
 * line, which keeps the GPUs and NCCL's version). */
static int in_collectives_table(const rb_variant_result *v, const char *name)
{
    static const char *const shown[] = {"size_bytes", "count",          "time_us",
                                        "algbw_gbps", "busbw_gbps",     "wrong_elements"};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
        if (!strcmp(name, shown[i]))
            return is_collective(v);
    return 0;
}

/* nccl-tests' columns, each row group's rows under a line of its own (its collective and size,
 * type and reduction); where the width is short the type and the reduction are left to that line, then
 * count and algbw go under the row, then the variant's name is abbreviated (down to 12). */
enum { N_NAME, N_SIZE, N_COUNT, N_TYPE, N_REDOP, N_TIME, N_ALGBW, N_BUSBW, N_WRONG, N_COUNT_COLS };
static const rb_table_col nccl_cols[N_COUNT_COLS] = {
    {"collective", 20, 12, 5, RB_COL_LEFT | RB_COL_ABBREV},
    {"size (B)", 10, 0, 0, 0},
    {"count", 9, 0, 3, 0},
    {"type", 5, 0, 1, 0},
    {"redop", 5, 0, 2, 0},
    {"time (us)", 9, 0, 0, 0},
    {"algbw", 7, 0, 4, 0},
    {"busbw", 7, 0, 0, 0},
    {"#wrong", 6, 0, 0, 0},
};

/* x with the digits given, "-" for NaN. */
static void fixed_text(double x, int digits, char *buf, size_t size)
{
    if (isnan(x))
        rb_fmt(buf, size, "-");
    else
        rb_fmt(buf, size, "%.*f", digits, x);
}

/* "nccl_allreduce.allreduce@1G": the collective is the input between '.' and '@'; every
 * collective of the pair moves float, and the all-gather reduces nothing. */
static void collective_of(const rb_pair_result *p, char *name, size_t size, const char **redop)
{
    const char *dot = strchr(p->name, '.');
    const char *coll = dot ? dot + 1 : p->name;
    rb_fmt(name, size, "%.*s", (int)strcspn(coll, "@"), coll);
    *redop = strstr(name, "gather") ? "none" : "sum";
}

static void collective_row(rb_sbuf *b, const rb_table *t, const rb_pair_result *p,
                           const rb_variant_result *v)
{
    char coll[300], name[400], size[32], count[32], time_us[32], algbw[32], busbw[32], wrong[32];
    const char *redop;
    collective_of(p, coll, sizeof coll, &redop);
    rb_fmt(name, sizeof name, "  %s", v->name);
    double us = extra_value(v, "time_us");
    fixed_text(extra_value(v, "size_bytes"), 0, size, sizeof size);
    fixed_text(extra_value(v, "count"), 0, count, sizeof count);
    fixed_text(isnan(us) && v->timed ? v->time_ms.median * 1e3 : us, 2, time_us, sizeof time_us);
    fixed_text(extra_value(v, "algbw_gbps"), 2, algbw, sizeof algbw);
    fixed_text(extra_value(v, "busbw_gbps"), 2, busbw, sizeof busbw);
    fixed_text(extra_value(v, "wrong_elements"), 0, wrong, sizeof wrong);
    /* the type and the reduction, when not in the row, are on the collective's own line */
    const char *cells[N_COUNT_COLS] = {name,   size, count, t->out[N_TYPE] ? "" : "float",
                                       t->out[N_REDOP] ? "" : redop, time_us, algbw, busbw, wrong};
    rb_table_row(b, t, cells);
}

/* The collectives' rows in nccl-tests' columns (size, count, type, redop, time, algbw, busbw,
 * #wrong) under the run's table, each row group's under its collective and size, its type and
 * reduction. */
static void collectives_table(rb_sbuf *b, const rb_pair_result *pairs, int n, int width)
{
    const rb_variant_result *first = NULL;
    for (int i = 0; i < n && !first; i++)
        for (int k = 0; k < pairs[i].n_variants && !first; k++)
            if (is_collective(&pairs[i].v[k]))
                first = &pairs[i].v[k];
    if (!first)
        return;
    char line[400], gpus[32] = "", shown[300] = "";
    if (extra_value(first, "gpus") > 0)
        rb_fmt(gpus, sizeof gpus, ", on %.0f GPUs", extra_value(first, "gpus"));
    rb_fmt(line, sizeof line,
           "collectives (nccl-tests' columns%s; time of one collective, algbw = size / time, "
           "busbw = algbw x the bus factor, GB/s):",
           gpus);
    rb_table_wrap(b, line, rb_report_text_width(width), 0, 4);
    rb_table t;
    rb_table_fit(&t, nccl_cols, N_COUNT_COLS, width, 4);
    rb_table_head(b, &t);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            if (!is_collective(&pairs[i].v[k]))
                continue;
            char coll[300];
            const char *redop, *dot = strchr(pairs[i].name, '.');
            collective_of(&pairs[i], coll, sizeof coll, &redop);
            if (strcmp(pairs[i].name, shown)) {
                rb_fmt(line, sizeof line, "%s (float, %s)", dot ? dot + 1 : pairs[i].name, redop);
                rb_table_wrap(b, line, width, 0, 4);
                rb_fmt(shown, sizeof shown, "%s", pairs[i].name);
            }
            collective_row(b, &t, &pairs[i], &pairs[i].v[k]);
        }
}

/* "name value, name value": a version as a version (nccl_version 2.28.3), a number with four
 * digits; on the terminal without the figures the collectives' table shows. */
static void extras_text(const rb_variant_result *v, int terminal, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int x = 0, said = 0; x < v->n_extras; x++) {
        const rb_extra *e = &v->extras[x];
        if (terminal && in_collectives_table(v, e->name))
            continue;
        char value[40];
        size_t nlen = strlen(e->name);
        if (nlen > 8 && !strcmp(e->name + nlen - 8, "_version"))
            rb_text_version(e->value, value, sizeof value);
        else
            rb_fmt(value, sizeof value, "%.4g", e->value);
        size_t len = strlen(buf);
        rb_fmt(buf + len, size - len, "%s%s %s", said++ ? ", " : "", e->name, value);
    }
}

/* A row group whose expectation is marked stale: once, what its first stale variant says (the
 * mark, and the ratio of each variant in the table). */
static void stale_note(rb_sbuf *b, const rb_pair_result *p, int width)
{
    for (int k = 0; k < p->n_variants; k++)
        if (p->v[k].verdict == RB_VERDICT_STALE && p->v[k].evidence[0]) {
            const char *text = strstr(p->v[k].evidence, "recorded at ");
            note_line(b, width, "stale", p->name, NULL, text ? text : p->v[k].evidence);
            return;
        }
}

/* The variants of a row group a full run does not time at its size, on one line: "not timed
 * at this size of the sweep (a, b, c): why". */
static void not_at_size_note(rb_sbuf *b, const rb_pair_result *p, int width)
{
    rb_sbuf names = {0};
    const char *note = NULL;
    for (int k = 0; k < p->n_variants; k++)
        if (not_at_size(&p->v[k])) {
            rb_sbuf_add(&names, "%s%s", note ? ", " : "", p->v[k].name);
            note = p->v[k].note;
        }
    char *list = rb_sbuf_take(&names);
    if (note && list) {
        const char *why = note + strlen(RB_NOT_AT_SIZE_NOTE);
        rb_sbuf line = {0};
        rb_sbuf_add(&line, RB_NOT_AT_SIZE_NOTE " (%s)%s", list, why);
        char *text = rb_sbuf_take(&line);
        if (text)
            note_line(b, width, "note", p->name, NULL, text);
        free(text);
    }
    free(list);
}

static void table_notes(rb_sbuf *b, const rb_pair_result *pairs, int n, int width)
{
    for (int i = 0; i < n; i++)
        stale_note(b, &pairs[i], width);
    for (int i = 0; i < n; i++)
        not_at_size_note(b, &pairs[i], width);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            char text[1200];
            if (v->note[0] && !not_at_size(v))
                note_line(b, width, "note", pairs[i].name, v->name, v->note);
            if (v->roof_note[0]) {
                rb_fmt(text, sizeof text, "%s %s", v->inconsistent ? "incons:" : "*", v->roof_note);
                note_line(b, width, "note", pairs[i].name, v->name, text);
            }
            if (v->host_bound_why[0] &&
                (v->verdict == RB_VERDICT_REGRESSED || v->verdict == RB_VERDICT_IMPROVED)) {
                rb_fmt(text, sizeof text, "informational, not gating: %s", v->host_bound_why);
                note_line(b, width, "note", pairs[i].name, v->name, text);
            }
            if (v->verdict == RB_VERDICT_CONTENDED) {
                note_line(b, width, "contended", pairs[i].name, v->name, v->evidence);
            } else if (v->cause[0]) {
                rb_fmt(text, sizeof text,
                       "%+.1f%% against the expectation (threshold %.1f%%%s): "
                       "%s: %s%s",
                       100 * (v->judged_ratio - 1), 100 * v->threshold,
                       v->per_clock ? ", at equal SM clock" : "", v->cause, v->evidence,
                       v->machine_explained ? "; the machine's, not the code's: not gating "
                                              "(--fail-on-platform gates it)"
                                            : "");
                note_line(b, width, rb_verdict_name(v->verdict), pairs[i].name, v->name, text);
            }
            if (rb_report_throttled(v)) {
                char why[300];
                rb_report_throttle_note(v, why, sizeof why);
                rb_fmt(text, sizeof text, "%s %s", RB_THROTTLED_MARK, why);
                note_line(b, width, "note", pairs[i].name, v->name, text);
            }
        }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            char text[800];
            if (v->n_extras == 0)
                continue;
            extras_text(v, 1, text, sizeof text);
            if (!text[0])
                continue;
            note_line(b, width, "extra", pairs[i].name, v->name, text);
        }
    /* the energy of each row that has it, a line each (the rows' columns are full) */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            char text[200];
            energy_text(&pairs[i], &pairs[i].v[k], text, sizeof text);
            if (text[0])
                note_line(b, width, "energy", pairs[i].name, pairs[i].v[k].name, text);
        }
}

/* The legend of the marks, once, under the table. */
static const char table_legend[] =
    "t: how it was timed: S sustained (0.5 s warm, >= 1 s of samples, as the tensor roofs are "
    "measured), Si sustained windows in turn, i ~1 ms samples in turn with the pair's other "
    "variants, c cold, blank ~1 ms samples. (verdict): an informational row, whose time the host "
    "sets: not gating unless --gate all. * above its roof within the noise; incons: above it by "
    "more than the noise, a measurement inconsistency (see its note); ! timed under slowdown.";

/* The text table's columns. The first holds the variant indented under its group's line
 * ("nccl_out_of_place" fits whole); where the width is short t, %peak and noise go under the
 * row, then the name is abbreviated (down to 12), then speedup and %ceil go under too. At its
 * natural widths, with the longest roof without its unit's suffix ("pcie_duplex", 11), a row is
 * 95 columns (a wider cell, "(regressed)", pushes the rest of its row right). */
enum { T_NAME, T_MS, T_NOISE, T_RATE, T_CEIL, T_PEAK, T_SPEEDUP, T_VERDICT, T_T, T_ROOF,
       T_COUNT };
static const rb_table_col run_cols[T_COUNT] = {
    {"pair / variant", NAME_W, 12, 4, RB_COL_LEFT | RB_COL_ABBREV},
    {"median ms", 9, 0, 0, 0},
    {"noise", 5, 0, 3, 0},
    {"rate", 12, 0, 0, 0},
    {"%ceil", 6, 0, 6, 0},
    {"%peak", 6, 0, 2, 0},
    {"speedup", 7, 0, 5, 0},
    {"verdict", 9, 0, 0, RB_COL_LEFT},
    {"t", 2, 0, 1, RB_COL_LEFT},
    {"roof", 0, 6, 0, RB_COL_LEFT | RB_COL_REST},
};

static void table_rows(rb_sbuf *b, const rb_pair_result *p, const rb_table *t, int note_w)
{
    char group[1024];
    int width = t->width;
    if (width > 0)
        rb_table_abbrev(p->name, width, group, sizeof group);
    else
        rb_fmt(group, sizeof group, "%s", p->name);
    if (p->status != RB_PAIR_OK && p->n_variants == 0) {
        char head[1100];
        rb_fmt(head, sizeof head, "%s  %s: ", group,
               p->status == RB_PAIR_SKIPPED ? "skipped" : "FAILED");
        rb_sbuf_add(b, "%s", head);
        rb_table_wrap(b, p->reason, note_w, rb_table_text_cols(head), 4);
        return;
    }
    rb_sbuf_add(b, "%s\n", group);
    for (int k = 0; k < p->n_variants; k++) {
        const rb_variant_result *v = &p->v[k];
        row r;
        char name[300];
        format_row(p, v, width == 0, &r);
        rb_fmt(name, sizeof name, "  %s", v->name);
        const char *cells[T_COUNT] = {name,      r.ms,       r.noise,   r.rate, r.ceil,
                                      r.peak,    r.speedup,  r.verdict, r.timing, r.roof};
        rb_table_row(b, t, cells);
    }
    if (p->status == RB_PAIR_FAILED) {
        rb_sbuf_add(b, "  FAILED: ");
        rb_table_wrap(b, p->reason, note_w, 10, 4);
    }
}

void rb_report_table(FILE *f, const rb_pair_result *pairs, int n, int wide)
{
    rb_report_table_at(f, pairs, n, wide ? 0 : rb_report_text_width(rb_table_width()));
}

void rb_report_table_at(FILE *f, const rb_pair_result *pairs, int n, int width)
{
    rb_sbuf b = {0};
    rb_table_col cols[T_COUNT];
    memcpy(cols, run_cols, sizeof cols);
    for (int i = 0; width == 0 && i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            int w = rb_table_text_cols(pairs[i].v[k].name) + 2;
            cols[T_NAME].width = w > cols[T_NAME].width ? w : cols[T_NAME].width;
        }
    rb_table t;
    rb_table_fit(&t, cols, T_COUNT, width, 4);
    int note_w = rb_report_text_width(width);
    rb_table_head(&b, &t);
    for (int i = 0; i < n; i++)
        table_rows(&b, &pairs[i], &t, note_w);
    collectives_table(&b, pairs, n, width);
    rb_table_wrap(&b, table_legend, note_w, 0, 0);
    table_notes(&b, pairs, n, note_w);
    char *text = rb_sbuf_take(&b);
    if (text)
        fputs(text, f);
    else
        fputs("roofbench: out of memory for the table\n", f);
    free(text);
}

/* ---- Markdown ---- */

static void markdown_table(rb_sbuf *b, const rb_pair_result *pairs, int n)
{
    rb_sbuf_add(b, "| pair | variant | median ms | noise | rate | %% ceiling | %% peak | speedup | "
                   "verdict | timing | roof |\n"
                   "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        if (p->status != RB_PAIR_OK && p->n_variants == 0)
            rb_sbuf_add(b, "| %s | - | %s: %s | | | | | | | | |\n", p->name,
                        p->status == RB_PAIR_SKIPPED ? "skipped" : "FAILED", p->reason);
        for (int k = 0; k < p->n_variants; k++) {
            row r;
            format_row(p, &p->v[k], 1, &r);
            rb_sbuf_add(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                        k == 0 ? p->name : "", p->v[k].name, r.ms, r.noise, r.rate, r.ceil, r.peak,
                        r.speedup, r.verdict, p->v[k].timed ? rb_timing_name(p->v[k].timing) : "-",
                        r.roof);
        }
        if (p->status == RB_PAIR_FAILED && p->n_variants > 0) /* the table says it too */
            rb_sbuf_add(b, "| | - | FAILED: %s | | | | | | | | |\n", p->reason);
    }
    rb_sbuf_add(b, "\n");
}

static void markdown_notes(rb_sbuf *b, const rb_pair_result *pairs, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            if (v->note[0])
                rb_sbuf_add(b, "- %s/%s: %s\n", pairs[i].name, v->name, v->note);
            if (v->roof_note[0])
                rb_sbuf_add(b, "- %s/%s: %s %s\n", pairs[i].name, v->name,
                            v->inconsistent ? "incons:" : "\\*", v->roof_note);
            if (v->host_bound_why[0])
                rb_sbuf_add(b, "- %s/%s: informational, not gating: %s\n", pairs[i].name, v->name,
                            v->host_bound_why);
            if (rb_report_throttled(v)) {
                char why[300];
                rb_report_throttle_note(v, why, sizeof why);
                rb_sbuf_add(b, "- %s/%s: %s %s\n", pairs[i].name, v->name, RB_THROTTLED_MARK, why);
            }
            if (v->verdict == RB_VERDICT_CONTENDED)
                rb_sbuf_add(b, "- %s/%s: contended: %s\n", pairs[i].name, v->name, v->evidence);
        }
}

static void markdown_energy(rb_sbuf *b, const rb_pair_result *pairs, int n)
{
    int header = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            char text[200];
            energy_text(&pairs[i], &pairs[i].v[k], text, sizeof text);
            if (!text[0])
                continue;
            if (!header++)
                rb_sbuf_add(b, "\n## Energy\n\nFrom NVML's total-energy counter over each row's "
                               "timed samples.\n\n");
            rb_sbuf_add(b, "- %s/%s: %s\n", pairs[i].name, pairs[i].v[k].name, text);
        }
}

static void markdown_extras_and_kernels(rb_sbuf *b, const rb_pair_result *pairs, int n)
{
    markdown_energy(b, pairs, n);
    int header = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            char text[800];
            if (v->n_extras == 0)
                continue;
            if (!header++)
                rb_sbuf_add(b, "\n## Figures beside the time\n\n");
            extras_text(v, 0, text, sizeof text);
            rb_sbuf_add(b, "- %s/%s: %s\n", pairs[i].name, v->name, text);
        }
    header = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_kernels; k++) {
            const rb_kernel_result *q = &pairs[i].kernels[k];
            if (!header++)
                rb_sbuf_add(b, "\n## Kernels\n\n| pair | variant | kernel | registers | static "
                               "smem | dynamic smem | local bytes | block | blocks/SM | "
                               "occupancy |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
            rb_sbuf_add(b, "| %s | %s | `%s` | %d | %.0f | %.0f | %.0f | %d | %d | %.0f%% |\n",
                        k == 0 ? pairs[i].name : "", q->variant, q->name, q->registers,
                        q->static_smem, q->dyn_smem, q->local_bytes, q->block_threads,
                        q->blocks_per_sm, 100.0 * q->occupancy);
        }
}

char *rb_report_markdown(const rb_pair_result *pairs, int n, const rb_results_doc *run)
{
    rb_sbuf b = {0};
    rb_results_doc none = {0};
    const rb_results_doc *r = run ? run : &none;
    rb_sbuf_add(&b, "# roofbench results: %s\n\n", rb_results_text(r->start.device, "?"));
    rb_sbuf_add(&b, "- date: %s, git: %s, command: `%s`\n", rb_results_text(r->date, "?"),
                rb_results_text(r->git, "?"), rb_results_text(r->command, "?"));
    rb_sbuf_add(&b, "- driver %s, CUDA runtime %s, compute capability %s\n",
                rb_results_text(r->start.driver, "?"), rb_results_text(r->start.cuda_runtime, "?"),
                rb_results_text(r->start.cc, "?"));
    rb_sbuf_add(&b, "- expectations: %s\n\n", rb_results_text(r->expectations, "?"));
    markdown_table(&b, pairs, n);
    markdown_notes(&b, pairs, n);
    char summary[800];
    rb_report_summary_text(pairs, n, summary, sizeof summary);
    rb_sbuf_add(&b, "\n%s\n", summary);
    markdown_extras_and_kernels(&b, pairs, n);
    return rb_sbuf_take(&b);
}

/* ---- CSV ---- */

static void csv_field(rb_sbuf *b, const char *s, int last)
{
    rb_csv_field(b, s, last);
}

static void csv_number(rb_sbuf *b, double x, double scale)
{
    rb_csv_number(b, x, scale);
}

/* The pair and the input of a row group named "<pair>[.<input>][@<size>]" (jobs.h). */
static void split_group(const char *group, char *pair, size_t pair_size, char *input,
                        size_t input_size)
{
    size_t end = strcspn(group, ".@");
    rb_fmt(pair, pair_size, "%.*s", (int)end, group);
    input[0] = '\0';
    if (group[end] == '.')
        rb_fmt(input, input_size, "%.*s", (int)strcspn(group + end + 1, "@"), group + end + 1);
}

/* The CSV's columns after the size (its header, rb_report_csv). */
#define CSV_COLUMNS                                                                                \
    "variant,median_ms,noise,rate,rate_unit,pct_ceil,pct_peak,speedup,verdict,roof,"               \
    "declared_roof,timing,informational,inconsistent,joules_per_launch,mean_power_w,gflop_per_j,"  \
    "gb_per_j,contended,note"
#define CSV_AFTER_SIZE 20

static void csv_row(rb_sbuf *b, const rb_pair_result *p, const rb_variant_result *v)
{
    char pair[RB_NAME_MAX], input[RB_NAME_MAX], size[48];
    split_group(p->name, pair, sizeof pair, input, sizeof input);
    if (p->rows > 1)
        rb_fmt(size, sizeof size, "%llux%llu", (unsigned long long)p->rows,
               (unsigned long long)p->cols);
    else
        rb_fmt(size, sizeof size, "%llu", (unsigned long long)p->size);
    csv_field(b, pair, 0);
    csv_field(b, input, 0);
    csv_field(b, size, 0);
    if (!v) { /* a pair that produced no variant: skipped or failed, the reason as its note */
        for (int i = 0; i < CSV_AFTER_SIZE - 1; i++)
            csv_field(b, i == 8 ? (p->status == RB_PAIR_SKIPPED ? "skipped" : "failed") : "", 0);
        csv_field(b, p->reason, 1);
        return;
    }
    row r;
    format_row(p, v, 1, &r);
    rb_roof declared = v->roof < RB_ROOF_COUNT ? v->roof : rb_roof_derived(v->unit, p->flops);
    csv_field(b, v->name, 0);
    csv_number(b, v->timed ? v->time_ms.median : NAN, 1);
    csv_number(b, v->timed ? v->time_ms.noise : NAN, 1);
    csv_number(b, r.rate_value, 1);
    csv_field(b, r.rate_unit, 0);
    csv_number(b, v->timed && !v->inconsistent ? v->vs_ceiling.efficiency : NAN, 100);
    csv_number(b, v->timed ? v->vs_peak.efficiency : NAN, 100);
    csv_number(b, v->speedup, 1);
    csv_field(b, rb_verdict_name(v->verdict), 0);
    csv_field(b, r.roof, 0);
    csv_field(b, rb_roof_key(declared), 0);
    csv_field(b, v->timed ? rb_timing_name(v->timing) : "", 0);
    csv_field(b, v->host_bound_why[0] ? "true" : "false", 0);
    csv_field(b, v->inconsistent ? "true" : "false", 0);
    csv_number(b, rb_energy_j_per_launch(&v->energy), 1);
    csv_number(b, rb_energy_mean_w(&v->energy), 1);
    csv_number(b, rb_energy_giga_per_j(&v->energy, p->flops), 1);
    csv_number(b, rb_energy_giga_per_j(&v->energy, rb_report_bytes(p, v)), 1);
    csv_field(b, rb_variant_contended(v) ? "true" : "false", 0);
    char note[sizeof v->note + sizeof v->roof_note + 4];
    rb_fmt(note, sizeof note, "%s%s%s", v->note, v->note[0] && v->roof_note[0] ? "; " : "",
           v->roof_note);
    csv_field(b, note, 1);
}

char *rb_report_csv(const rb_pair_result *pairs, int n)
{
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "pair,input,size," CSV_COLUMNS "\r\n");
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        for (int k = 0; k < p->n_variants; k++)
            csv_row(&b, p, &p->v[k]);
        /* skipped or failed with no variant, or failed after some: the reason has a row */
        if ((p->status != RB_PAIR_OK && p->n_variants == 0) || p->status == RB_PAIR_FAILED)
            csv_row(&b, p, NULL);
    }
    return rb_sbuf_take(&b);
}

/* ---- under the table: the summary, energy and contention ---- */

void rb_report_throttle_note(const rb_variant_result *v, char *buf, size_t size)
{
    char reasons[200];
    rb_clock_reasons_text(v->clocks.reasons, reasons, sizeof reasons);
    rb_fmt(buf, size, "timed under %s (SM clock mean %.0f, min %.0f MHz over %.0f samples)",
           reasons, rb_clocks_mean_mhz(&v->clocks), v->clocks.sm_mhz_min, v->clocks.samples);
}

/* line on f, wrapped at the terminal's width (at most RB_TEXT_WIDTH), continued lines
 * indented by 4. */
static void put_wrapped(FILE *f, const char *line)
{
    rb_sbuf b = {0};
    rb_table_wrap(&b, line, rb_report_text_width(rb_table_width()), 0, 4);
    char *text = rb_sbuf_take(&b);
    fputs(text ? text : line, f);
    if (!text)
        fputs("\n", f);
    free(text);
}

/* Appends "<n> <what>" to a comma-separated list in buf. */
static void count_item(char *buf, size_t size, int count, const char *what)
{
    size_t len = strlen(buf);
    if (count > 0)
        rb_fmt(buf + len, size - len, "%s%d %s", len ? ", " : "", count, what);
}

void rb_report_summary_text(const rb_pair_result *pairs, int n, char *buf, size_t size)
{
    int plain[RB_VERDICT_COUNT] = {0}, hot[RB_VERDICT_COUNT] = {0};
    int info[RB_VERDICT_COUNT] = {0};
    int throttled = 0, capped = 0, informational = 0, not_at = 0, machine = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            int t = rb_report_throttled(v), in = v->host_bound_why[0] != '\0';
            /* not timed at this size by design: no verdict, counted apart from skipped */
            if (not_at_size(v)) {
                not_at++;
                continue;
            }
            unsigned vi = (unsigned)v->verdict < RB_VERDICT_COUNT ? v->verdict : 0;
            (in ? info : t ? hot : plain)[vi]++;
            informational += in;
            throttled += t && !in;
            capped += !t && v->timed && (v->clocks.reasons & 1u << RB_REASON_POWER_CAP);
            machine += v->machine_explained && !in;
        }
    char counts[300] = "", apart[300] = "", info_counts[300] = "";
    for (int x = RB_VERDICT_PASS; x < RB_VERDICT_COUNT; x++) {
        count_item(counts, sizeof counts, plain[x], rb_verdict_name((rb_verdict)x));
        count_item(apart, sizeof apart, hot[x], rb_verdict_name((rb_verdict)x));
        count_item(info_counts, sizeof info_counts, info[x], rb_verdict_name((rb_verdict)x));
    }
    count_item(counts, sizeof counts, plain[RB_VERDICT_NONE], "not judged");
    count_item(apart, sizeof apart, hot[RB_VERDICT_NONE], "not judged");
    count_item(info_counts, sizeof info_counts, info[RB_VERDICT_NONE], "not judged");
    rb_fmt(buf, size, "verdicts: %s", counts[0] ? counts : "none");
    size_t len = strlen(buf);
    if (not_at)
        rb_fmt(buf + len, size - len, "; %d row%s not timed at this size (by design: a sweep's "
               "smaller sizes time fewer variants)", not_at, not_at == 1 ? "" : "s");
    len = strlen(buf);
    if (throttled)
        rb_fmt(buf + len, size - len,
               "; %d variant%s timed under thermal or hardware slowdown (marked %s, counted "
               "apart: %s)",
               throttled, throttled == 1 ? "" : "s", RB_THROTTLED_MARK, apart);
    len = strlen(buf);
    if (informational)
        rb_fmt(buf + len, size - len,
               "; informational (host-bound, not gating unless --gate all): %s", info_counts);
    len = strlen(buf);
    if (machine)
        rb_fmt(buf + len, size - len,
               "; %d regressed as the platform reference did (cause platform, code unchanged: "
               "not gating unless --fail-on-platform)",
               machine);
    len = strlen(buf);
    if (capped)
        rb_fmt(buf + len, size - len,
               "; %d power-capped (expected for tensor-core GEMMs, not marked)", capped);
}

void rb_report_summary(FILE *f, const rb_pair_result *pairs, int n)
{
    char line[800];
    rb_report_summary_text(pairs, n, line, sizeof line);
    put_wrapped(f, line);
}

/* "3 rows not measured: its timed samples add up to ...", one line per reason. */
static void energy_lines(FILE *f, const rb_pair_result *pairs, int n)
{
    int by[RB_ENERGY_STATE_COUNT] = {0};
    char line[1200];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++)
            if (pairs[i].v[k].timed)
                by[pairs[i].v[k].energy.state]++;
    if (by[RB_ENERGY_UNAVAILABLE] && !by[RB_ENERGY_OK]) {
        rb_fmt(line, sizeof line, "energy: not measured (%s)",
               rb_energy_why_text(RB_ENERGY_UNAVAILABLE));
        put_wrapped(f, line);
        return;
    }
    for (int s = RB_ENERGY_SHORT; s < RB_ENERGY_STATE_COUNT; s++)
        if (by[s]) {
            rb_fmt(line, sizeof line, "energy: %d row%s not measured: %s", by[s],
                   by[s] == 1 ? "" : "s", rb_energy_why_text((rb_energy_state)s));
            put_wrapped(f, line);
        }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++)
            if (isfinite(pairs[i].v[k].energy.rejected_w)) {
                rb_fmt(line, sizeof line, "energy: %s/%s read %.0f W mean: not printed (%s)",
                       pairs[i].name, pairs[i].v[k].name, pairs[i].v[k].energy.rejected_w,
                       rb_energy_why(pairs[i].v[k].energy.state));
                put_wrapped(f, line);
            }
}

void rb_report_energy_and_contention(FILE *f, const rb_gpu_check *start,
                                     const rb_pair_result *pairs, int n)
{
    energy_lines(f, pairs, n);
    rb_contention all;
    char where[600], who[400];
    if (start && !start->checked) {
        char line[600];
        rb_fmt(line, sizeof line,
               "contention: not checked (%s): a process sharing the GPU would not be seen",
               start->why[0] ? start->why : "the GPU's processes were not read");
        put_wrapped(f, line);
        return;
    }
    if (!rb_report_contention(start, pairs, n, &all, where, sizeof where))
        return;
    rb_contention_text(&all, who, sizeof who);
    char line[1200];
    rb_fmt(line, sizeof line,
           "contended: %s used the GPU during the run (%s): those rows' verdicts say "
           "contended, not a time of this code; measure again on an idle GPU",
           who, where);
    put_wrapped(f, line);
}
