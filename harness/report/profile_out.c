/* SPDX-License-Identifier: MIT */
/* The profile's tables, findings and HTML report (report/profile_out.h). */
#include "profile_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_table.h"
#include "svg.h"
#include "table.h"

/* A table of text cells, as text laid out by report/table.h (fitted to a width; 0: whole) or
 * as Markdown. */
#define TABLE_COLS 12
typedef struct table_out {
    rb_sbuf *b;
    int markdown, n;
    rb_table_col cols[TABLE_COLS];
    rb_table t; /* the text's layout */
} table_out;

static void cell_fmt(char *out, size_t size, double x, const char *fmt, double scale)
{
    if (isfinite(x))
        rb_fmt(out, size, fmt, x * scale);
    else
        rb_fmt(out, size, "-");
}

static void variant_label(const rb_profile_variant *v, char *out, size_t size);

/* The table's columns laid out in width, its first (row/variant) as wide as the longest
 * profiled variant's label (at most its natural width). */
static void table_begin(table_out *t, rb_sbuf *b, int markdown, const rb_table_col *cols, int n,
                        const rb_profile *p, int width)
{
    memset(t, 0, sizeof *t);
    t->b = b;
    t->markdown = markdown;
    t->n = n;
    memcpy(t->cols, cols, (size_t)n * sizeof *cols);
    int longest = rb_table_text_cols(cols[0].head);
    for (int i = 0; i < p->n; i++) {
        char label[300];
        variant_label(&p->variants[i], label, sizeof label);
        int len = rb_table_text_cols(label);
        longest = p->variants[i].profiled && len > longest ? len : longest;
    }
    t->cols[0].width = longest < cols[0].width ? longest : cols[0].width;
    rb_table_fit(&t->t, t->cols, n, width, 4);
}

static void row_out(table_out *t, const char *const *cells)
{
    char shown[TABLE_COLS][256];
    const char *c[TABLE_COLS];
    for (int k = 0; k < t->n; k++) {
        rb_text_for_terminal(cells[k], shown[k], sizeof shown[k]);
        c[k] = shown[k];
    }
    if (!t->markdown) {
        rb_table_row(t->b, &t->t, c);
        return;
    }
    rb_sbuf_add(t->b, "|");
    for (int k = 0; k < t->n; k++)
        rb_sbuf_add(t->b, " %s |", c[k]);
    rb_sbuf_add(t->b, "\n");
}

static void header_out(table_out *t)
{
    if (!t->markdown) {
        rb_table_head(t->b, &t->t);
        return;
    }
    const char *heads[TABLE_COLS];
    for (int c = 0; c < t->n; c++)
        heads[c] = t->cols[c].head;
    row_out(t, heads);
    rb_sbuf_add(t->b, "|");
    for (int c = 0; c < t->n; c++)
        rb_sbuf_add(t->b, "%s|", c == 0 || c == t->n - 1 ? "---" : "---:");
    rb_sbuf_add(t->b, "\n");
}

static void variant_label(const rb_profile_variant *v, char *out, size_t size)
{
    rb_fmt(out, size, "%s/%s", v->row, v->variant);
}

/* "long_scoreboard 62%, barrier 11%": the top three stall reasons. */
static void top_stalls(const rb_profile_variant *v, char *out, size_t size)
{
    out[0] = '\0';
    for (int k = 0; k < v->n_stalls && k < 3; k++) {
        size_t len = strlen(out);
        rb_fmt(out + len, size - len, "%s%s %.0f%%", k ? ", " : "", v->stalls[k].reason,
               100 * rb_profile_stall_share(v, k));
    }
    if (!out[0])
        rb_fmt(out, size, "-");
}

/* The variant's FLOPs by pipe, the largest named: "12.3 fp32", "275 tensor fp16". */
static void flops_cell(const rb_profile_variant *v, char *out, size_t size)
{
    static const struct {
        rb_profile_metric m;
        const char *name;
    } pipes[] = {{RB_PM_FP32_FLOPS, "fp32"},        {RB_PM_FP64_FLOPS, "fp64"},
                 {RB_PM_FP16_FLOPS, "fp16"},        {RB_PM_TENSOR_FP16_OPS, "tc fp16"},
                 {RB_PM_TENSOR_BF16_OPS, "tc bf16"}, {RB_PM_TENSOR_TF32_OPS, "tc tf32"},
                 {RB_PM_TENSOR_FP8_OPS, "tc fp8"},  {RB_PM_TENSOR_FP64_OPS, "tc fp64"}};
    int best = -1;
    for (int k = 0; k < (int)(sizeof pipes / sizeof pipes[0]); k++)
        if (v->v[pipes[k].m] > 0 && (best < 0 || v->v[pipes[k].m] > v->v[pipes[best].m]))
            best = k;
    if (best < 0)
        rb_fmt(out, size, "-");
    else
        rb_fmt(out, size, "%.3g %s", v->v[pipes[best].m] * 1e-9, pipes[best].name);
}

/* Where the width is short the registers, the shared-memory wavefronts, the conflicts, the L1
 * bytes, the declared bytes, the occupancy and the L2 bytes go under the row, in that order,
 * then the name is abbreviated (down to 16). */
static const rb_table_col counters_cols[12] = {
    {"row/variant", 44, 16, 8, RB_COL_LEFT | RB_COL_ABBREV},
    {"DRAM GB", 8, 0, 0, 0},
    {"declared", 8, 0, 5, 0},
    {"x decl", 6, 0, 0, 0},
    {"L2 GB", 8, 0, 7, 0},
    {"L1 GB", 8, 0, 4, 0},
    {"smem wf M", 9, 0, 2, 0},
    {"confl %", 7, 0, 3, 0},
    {"GFLOP", 14, 0, 0, 0},
    {"occ %", 5, 0, 6, 0},
    {"regs", 4, 0, 1, 0},
    {"top stalls", 0, 12, 0, RB_COL_LEFT | RB_COL_REST},
};

static void counters_table(rb_sbuf *b, const rb_profile *p, int markdown, int width)
{
    table_out t;
    table_begin(&t, b, markdown, counters_cols, 12, p, width);
    header_out(&t);
    for (int i = 0; i < p->n; i++) {
        const rb_profile_variant *v = &p->variants[i];
        if (!v->profiled)
            continue;
        char c[12][160];
        double dram = rb_profile_dram_bytes(v), wf = v->v[RB_PM_SMEM_WAVEFRONTS];
        variant_label(v, c[0], sizeof c[0]);
        cell_fmt(c[1], sizeof c[1], dram, "%.4g", 1e-9);
        cell_fmt(c[2], sizeof c[2], v->declared_bytes, "%.4g", 1e-9);
        cell_fmt(c[3], sizeof c[3], v->declared_bytes > 0 ? dram / v->declared_bytes : NAN,
                 "%.2f", 1);
        cell_fmt(c[4], sizeof c[4], v->v[RB_PM_L2_BYTES], "%.4g", 1e-9);
        cell_fmt(c[5], sizeof c[5], v->v[RB_PM_L1_BYTES], "%.4g", 1e-9);
        cell_fmt(c[6], sizeof c[6], wf, "%.4g", 1e-6);
        cell_fmt(c[7], sizeof c[7], wf > 0 ? v->v[RB_PM_SMEM_CONFLICTS] / wf : NAN, "%.1f", 100);
        flops_cell(v, c[8], sizeof c[8]);
        cell_fmt(c[9], sizeof c[9], v->v[RB_PM_OCCUPANCY_PCT], "%.0f", 1);
        cell_fmt(c[10], sizeof c[10], v->v[RB_PM_REGISTERS], "%.0f", 1);
        top_stalls(v, c[11], sizeof c[11]);
        const char *cells[12];
        for (int k = 0; k < 12; k++)
            cells[k] = c[k];
        row_out(&t, cells);
    }
}

/* "3312 (77%)": a level's GB/s and its share of the roof. */
static void rate_cell(double gbps, double roof, char *out, size_t size)
{
    if (!isfinite(gbps))
        rb_fmt(out, size, "-");
    else if (roof > 0)
        rb_fmt(out, size, "%.0f (%.0f%%)", gbps, 100 * gbps / roof);
    else
        rb_fmt(out, size, "%.0f", gbps);
}

/* Where the width is short the intensities, the L1 rate, the L2 rate and the time go under the
 * row, in that order, then the name is abbreviated (down to 16). */
static const rb_table_col levels_cols[7] = {
    {"row/variant", 44, 16, 5, RB_COL_LEFT | RB_COL_ABBREV},
    {"time us", 8, 0, 4, 0},
    {"DRAM GB/s (roof)", 16, 0, 0, 0},
    {"L2 GB/s (roof)", 14, 0, 3, 0},
    {"L1 GB/s (roof)", 15, 0, 2, 0},
    {"FLOP/B dram/l2/l1", 18, 0, 1, 0},
    {"TFLOP/s (roof)", 0, 14, 0, RB_COL_LEFT | RB_COL_REST},
};

static void levels_table(rb_sbuf *b, const rb_profile *p, const rb_profile_roofs *r, int markdown,
                         int width)
{
    table_out t;
    table_begin(&t, b, markdown, levels_cols, 7, p, width);
    header_out(&t);
    for (int i = 0; i < p->n; i++) {
        const rb_profile_variant *v = &p->variants[i];
        if (!v->profiled)
            continue;
        char c[7][160];
        double s = v->v[RB_PM_TIME_S];
        double flops = rb_profile_point_flops(v);
        variant_label(v, c[0], sizeof c[0]);
        cell_fmt(c[1], sizeof c[1], s, "%.1f", 1e6);
        for (int l = 0; l < RB_LEVEL_COUNT; l++) {
            double bytes = rb_profile_level_bytes(v, (rb_profile_level)l);
            rate_cell(s > 0 ? bytes / s * 1e-9 : NAN, r->level_gbps[l], c[2 + l], sizeof c[2 + l]);
        }
        if (flops > 0) {
            double ai[RB_LEVEL_COUNT];
            for (int l = 0; l < RB_LEVEL_COUNT; l++) {
                double bytes = rb_profile_level_bytes(v, (rb_profile_level)l);
                ai[l] = bytes > 0 ? flops / bytes : NAN;
            }
            char a[RB_LEVEL_COUNT][32];
            for (int l = 0; l < RB_LEVEL_COUNT; l++)
                cell_fmt(a[l], sizeof a[l], ai[l], "%.3g", 1);
            rb_fmt(c[5], sizeof c[5], "%s/%s/%s", a[0], a[1], a[2]);
            const char *key;
            double roof = rb_profile_compute_roof(v, r, &key);
            double tflops = s > 0 ? flops / s * 1e-12 : NAN;
            if (roof > 0 && isfinite(tflops))
                rb_fmt(c[6], sizeof c[6], "%.3g (%.0f%% %s)", tflops, 100 * tflops / roof, key);
            else
                cell_fmt(c[6], sizeof c[6], tflops, "%.3g", 1);
        } else {
            rb_fmt(c[5], sizeof c[5], "-");
            rb_fmt(c[6], sizeof c[6], "-");
        }
        const char *cells[7];
        for (int k = 0; k < 7; k++)
            cells[k] = c[k];
        row_out(&t, cells);
    }
}

int rb_profile_findings(rb_sbuf *b, const rb_profile *p, const char *indent)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) {
        const rb_profile_variant *v = &p->variants[i];
        if (v->bytes_verdict != RB_PB_MORE && v->bytes_verdict != RB_PB_LESS)
            continue;
        char label[300], shown[300];
        double dram = rb_profile_dram_bytes(v);
        variant_label(v, label, sizeof label);
        rb_text_for_terminal(label, shown, sizeof shown);
        rb_sbuf_add(b, "%s%s: %.4g GB from DRAM, declared %.4g GB (%.2fx): %s\n", indent, shown,
                    dram * 1e-9, v->declared_bytes * 1e-9, dram / v->declared_bytes,
                    v->bytes_verdict == RB_PB_MORE
                        ? "moves more than its work model (sector waste, re-reads, spills)"
                        : "moves less than its work model (part of its input was in L2, or "
                          "the model counts too much)");
        n++;
    }
    return n;
}

/* The variants not profiled and the launches left out, each a line fitted to width (0: whole). */
static void not_profiled(rb_sbuf *b, const rb_profile *p, int width)
{
    int n = 0;
    rb_sbuf line = {0};
    for (int i = 0; i < p->n; i++) {
        const rb_profile_variant *v = &p->variants[i];
        if (v->profiled)
            continue;
        char label[300], shown[300];
        variant_label(v, label, sizeof label);
        rb_text_for_terminal(label, shown, sizeof shown);
        rb_sbuf_add(&line, "%s%s",
                    n++ ? ", "
                        : "not profiled (no launch of it in the capture: not run, or a capture "
                          "without profile windows and a kernel its table does not name): ",
                    shown);
    }
    char *text = rb_sbuf_take(&line);
    if (n && text)
        rb_table_line(b, text, width, 4);
    free(text);
    if (p->unmatched)
        rb_sbuf_add(b, "%d launches of the capture name no variant's kernel (left out)\n",
                    p->unmatched);
    if (p->windows)
        rb_sbuf_add(b, "%d profile windows (one run of each variant)\n", p->windows);
    if (p->repeats)
        rb_sbuf_add(b, "%d later launches of a kernel already profiled in its process (left out)\n",
                    p->repeats);
}

/* The work-model findings (rb_profile_findings), each line fitted to width (0: whole); how
 * many. */
static int findings_fitted(rb_sbuf *b, const rb_profile *p, const char *indent, int width)
{
    rb_sbuf all = {0};
    int n = rb_profile_findings(&all, p, indent);
    char *text = rb_sbuf_take(&all);
    for (char *s = text, *end; s && *s; s = *end ? end + 1 : end) {
        end = s + strcspn(s, "\n");
        char keep = *end;
        *end = '\0';
        rb_table_line(b, s, width, 4);
        *end = keep;
    }
    free(text);
    return n;
}

/* The tables and the lines between them at width (0: whole; markdown: no width). */
static void profile_tables_at(rb_sbuf *b, const rb_profile *p, const rb_profile_roofs *r,
                              int markdown, int width)
{
    char device[RB_PROFILE_NAME_MAX + 8], line[RB_PATH_BUF + 200];
    rb_text_for_terminal(p->device, device, sizeof device);
    rb_fmt(line, sizeof line, "%sprofile of %s: %d variants, one launch of each kernel under ncu",
           markdown ? "# " : "", device[0] ? device : "?", p->n);
    rb_table_line(b, line, width, 4);
    rb_sbuf_add(b, "\n");
    counters_table(b, p, markdown, width);
    rb_fmt(line, sizeof line, "roofs: %s (DRAM dram_gbps, L2 l2_read_gbps, L1 smem_gbps)",
           r->source[0] ? r->source : "none");
    rb_sbuf_add(b, "\n");
    rb_table_line(b, line, width, 4);
    rb_sbuf_add(b, "\n");
    levels_table(b, p, r, markdown, width);
    rb_fmt(line, sizeof line,
           "work model (DRAM bytes against the declared compulsory bytes, %.0f%%):",
           100 * RB_PROFILE_BYTES_TOLERANCE);
    rb_sbuf_add(b, "\n");
    rb_table_line(b, line, width, 4);
    if (findings_fitted(b, p, markdown ? "- " : "  ", width) == 0)
        rb_sbuf_add(b, "%severy profiled variant within %.0f%% of its declared bytes\n",
                    markdown ? "- " : "  ", 100 * RB_PROFILE_BYTES_TOLERANCE);
    not_profiled(b, p, width);
}

void rb_profile_tables(rb_sbuf *b, const rb_profile *p, const rb_profile_roofs *r, int markdown)
{
    profile_tables_at(b, p, r, markdown, markdown ? 0 : rb_table_width());
}

static void stalls_html(rb_sbuf *b, const rb_profile *p)
{
    rb_sbuf_add(b, "<h2>Warp stall reasons</h2>\n<table class=\"rb\"><thead><tr><th>row/variant"
                   "</th><th>reason</th><th class=\"num\">per issue</th><th class=\"num\">share"
                   "</th></tr></thead><tbody>\n");
    for (int i = 0; i < p->n; i++) {
        const rb_profile_variant *v = &p->variants[i];
        char label[300];
        variant_label(v, label, sizeof label);
        for (int k = 0; k < v->n_stalls && k < 5; k++) {
            rb_sbuf_add(b, "<tr>");
            rb_html_cell_text(b, label);
            rb_html_cell_text(b, v->stalls[k].reason);
            rb_html_cell_number(b, v->stalls[k].value, "%.3g", 1);
            rb_html_cell_number(b, rb_profile_stall_share(v, k), "%.0f%%", 100);
            rb_sbuf_add(b, "</tr>\n");
        }
    }
    rb_sbuf_add(b, "</tbody></table>\n");
}

void rb_profile_html(rb_sbuf *b, const rb_profile *p, const rb_profile_roofs *r, const char *title)
{
    rb_html_page_begin(b, title);
    rb_sbuf_add(b, "<h2>Hierarchical roofline</h2>\n");
    rb_plot_hier_svg(b, p, r);
    rb_sbuf_add(b, "<h2>Counters</h2>\n<pre>");
    rb_sbuf text = {0};
    profile_tables_at(&text, p, r, 0, 0); /* (a page: whole, whatever the terminal) */
    char *t = rb_sbuf_take(&text);
    if (t)
        rb_sbuf_escaped(b, t);
    else
        b->oom = 1;
    rb_sbuf_add(b, "</pre>\n");
    free(t);
    stalls_html(b, p);
    rb_html_page_end(b);
}
