/* SPDX-License-Identifier: MIT */
#include "p2p_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "table.h"

/* The three measurements of a cell. */
typedef struct p2p_kind {
    const char *kind;      /* the cell's member */
    const char *title;     /* as the tables say it */
    const char *value_key; /* "gbps" or "us" */
    const char *unit;
    int lower_is_better;
    const char *peer_roof, *staged_roof; /* NULL: no roof (latency) */
    double floor, cap;
} p2p_kind;

static const p2p_kind p2p_kinds[] = {
    {"oneway", "one way", "gbps", "GB/s", 0, "nvlink_gbps", "pcie_d2h_gbps", RB_P2P_BW_FLOOR,
     RB_P2P_BW_CAP},
    {"bidir", "both ways", "gbps", "GB/s", 0, "nvlink_bidir_gbps", "pcie_duplex_gbps",
     RB_P2P_BW_FLOOR, RB_P2P_BW_CAP},
    {"latency", "copy latency", "us", "us", 1, NULL, NULL, RB_P2P_LAT_FLOOR, RB_P2P_LAT_CAP},
    {"load_latency", "load latency", "us", "us", 1, NULL, NULL, RB_P2P_LAT_FLOOR, RB_P2P_LAT_CAP},
};
#define P2P_KINDS (sizeof p2p_kinds / sizeof p2p_kinds[0])

static const char *const p2p_roof_keys[] = {"nvlink_gbps", "nvlink_bidir_gbps", "pcie_d2h_gbps",
                                            "pcie_duplex_gbps"};

json_value *rb_p2p_new(void)
{
    json_value *m = json_new_object();
    if (!m || json_object_set(m, "gpus", json_new_array()) ||
        json_object_set(m, "cells", json_new_array())) {
        json_free(m);
        return NULL;
    }
    return m;
}

static const p2p_kind *kind_named(const char *name)
{
    for (size_t k = 0; k < P2P_KINDS; k++)
        if (!strcmp(p2p_kinds[k].kind, name))
            return &p2p_kinds[k];
    return NULL;
}

static int gpu_count(const json_value *m)
{
    const json_value *g = json_get(m, "gpus");
    return g && g->type == JSON_ARRAY ? (int)g->count : 0;
}

/* The cell src -> dst, NULL when there is none. */
static json_value *cell_at(const json_value *m, int src, int dst)
{
    const json_value *cells = json_get(m, "cells");
    for (uint32_t i = 0; cells && cells->type == JSON_ARRAY && i < cells->count; i++) {
        json_value *c = cells->items[i];
        if ((int)json_number_at(c, "src") == src && (int)json_number_at(c, "dst") == dst)
            return c;
    }
    return NULL;
}

static int add_gpus(json_value *m, const json_value *line, char *err, size_t err_size)
{
    const json_value *gpus = json_get(line, "gpus");
    if (!gpus || gpus->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "p2p_gpus: no gpus array");
        return -1;
    }
    json_value *cells = json_new_array();
    if (json_object_set(m, "gpus", json_clone(gpus)) || json_object_set(m, "cells", cells))
        return -1;
    const json_value *method = json_get(line, "method");
    if (method && json_object_set(m, "method", json_clone(method)))
        return -1;
    for (int i = 0; i < (int)gpus->count; i++)
        for (int j = 0; j < (int)gpus->count; j++) {
            json_value *c = i == j ? NULL : json_new_object();
            if (i != j && (!c || json_set_number(c, "src", i) || json_set_number(c, "dst", j) ||
                           json_array_push(cells, c)))
                return -1;
        }
    return 0;
}

/* One measurement into the cell src -> dst (and dst -> src for both ways). */
static int put_measure(json_value *m, const json_value *line, const p2p_kind *k, int src, int dst)
{
    for (int pass = 0; pass < (strcmp(k->kind, "bidir") ? 1 : 2); pass++) {
        json_value *c = pass ? cell_at(m, dst, src) : cell_at(m, src, dst);
        json_value *o = json_new_object();
        if (!c || !o || json_set_number(o, k->value_key, json_number_at(line, "value")) ||
            json_set_number(o, "noise", json_number_at(line, "noise")) ||
            json_set_number(o, "samples", json_number_at(line, "samples")) ||
            json_set_bool(c, "peer_access", json_true_at(line, "peer_access")) ||
            (isfinite(json_number_at(line, "perf_rank")) &&
             json_set_number(c, "perf_rank", json_number_at(line, "perf_rank"))) ||
            json_object_set(c, k->kind, o))
            return -1;
    }
    return 0;
}

static int add_cell(json_value *m, const json_value *line, char *err, size_t err_size)
{
    int n = gpu_count(m);
    double src = json_number_at(line, "src"), dst = json_number_at(line, "dst");
    double v = json_number_at(line, "value"), noise = json_number_at(line, "noise");
    double samples = json_number_at(line, "samples");
    const p2p_kind *k = kind_named(json_string_at(line, "kind", ""));
    if (!(src >= 0 && src < n && dst >= 0 && dst < n) || src != floor(src) || dst != floor(dst) ||
        src == dst) {
        rb_fmt(err, err_size, "p2p_cell: no pair %g -> %g among %d GPUs", src, dst, n);
        return -1;
    }
    if (!k) {
        rb_fmt(err, err_size, "p2p_cell: unknown kind '%s'", json_string_at(line, "kind", "?"));
        return -1;
    }
    if (!(v > 0 && isfinite(v)) || !(noise >= 0) || !(samples >= 1)) {
        rb_fmt(err, err_size, "p2p_cell %g -> %g %s: value %g, noise %g, samples %g", src, dst,
               k->kind, v, noise, samples);
        return -1;
    }
    if (put_measure(m, line, k, (int)src, (int)dst) != 0) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    return 0;
}

int rb_p2p_add_line(json_value *matrix, const json_value *line, char *err, size_t err_size)
{
    const char *type = json_string_at(line, "type", "");
    if (!strcmp(type, "p2p_gpus")) {
        if (add_gpus(matrix, line, err, err_size) == 0)
            return 0;
        if (!err[0])
            rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    if (!strcmp(type, "p2p_cell"))
        return add_cell(matrix, line, err, err_size);
    return 1;
}

/* ---- judging ---- */

/* The measurement of kind k in cell c with a finite value, else NULL. */
static json_value *measure_of(const json_value *c, const p2p_kind *k)
{
    json_value *o = json_get(c, k->kind);
    return o && isfinite(json_number_at(o, k->value_key)) ? o : NULL;
}

/* The best measurement of kind k over the cells (NULL: none). */
static const json_value *best_of(const json_value *cells, const p2p_kind *k)
{
    const json_value *best = NULL;
    for (uint32_t i = 0; i < cells->count; i++) {
        const json_value *o = measure_of(cells->items[i], k);
        if (!o)
            continue;
        double v = json_number_at(o, k->value_key);
        double b = best ? json_number_at(best, k->value_key) : NAN;
        if (!best || (k->lower_is_better ? v < b : v > b))
            best = o;
    }
    return best;
}

static double clamp(double x, double lo, double hi)
{
    return !(x >= lo) ? lo : x > hi ? hi : x;
}

/* value / the roof's figure in table (ceilings or peaks); NaN when the table lacks it. */
static double of_roof(double v, const json_value *table, const char *roof)
{
    double r = json_number_at(table, roof);
    return r > 0 ? v / r : NAN;
}

static int judge_kind(const json_value *cells, const p2p_kind *k, const json_value *ceilings,
                      const json_value *peaks)
{
    const json_value *best = best_of(cells, k);
    if (!best)
        return 0;
    double b = json_number_at(best, k->value_key), b_noise = json_number_at(best, "noise");
    for (uint32_t i = 0; i < cells->count; i++) {
        const json_value *c = cells->items[i];
        json_value *o = measure_of(c, k);
        if (!o)
            continue;
        double v = json_number_at(o, k->value_key), noise = json_number_at(o, "noise");
        double t = clamp(RB_P2P_NOISE_FACTOR * fmax(noise, b_noise), k->floor, k->cap);
        int weak = k->lower_is_better ? v > b * (1 + t) : v < b * (1 - t);
        if (json_set_number(o, "best", b) || json_set_number(o, "threshold", t) ||
            json_set_bool(o, "weak", weak))
            return -1;
        if (!k->peer_roof)
            continue;
        const char *roof = json_true_at(c, "peer_access") ? k->peer_roof : k->staged_roof;
        if (json_set_string(o, "roof", roof) ||
            json_set_number(o, "of_ceiling", of_roof(v, ceilings, roof)) ||
            json_set_number(o, "of_peak", of_roof(v, peaks, roof)))
            return -1;
    }
    return 0;
}

int rb_p2p_judge(json_value *matrix, const json_value *ceilings, const json_value *peaks)
{
    json_value *roofs = json_new_object();
    if (json_object_set(matrix, "roofs", roofs))
        return -1;
    for (size_t r = 0; r < sizeof p2p_roof_keys / sizeof p2p_roof_keys[0]; r++) {
        json_value *o = json_new_object();
        if (!o || json_set_number(o, "ceiling", json_number_at(ceilings, p2p_roof_keys[r])) ||
            json_set_number(o, "peak", json_number_at(peaks, p2p_roof_keys[r])) ||
            json_object_set(roofs, p2p_roof_keys[r], o))
            return -1;
    }
    const json_value *cells = json_get(matrix, "cells");
    for (size_t k = 0; cells && k < P2P_KINDS; k++)
        if (judge_kind(cells, &p2p_kinds[k], ceilings, peaks) != 0)
            return -1;
    return 0;
}

/* The cell dst -> src of a both-ways measurement: the same number as src -> dst, said once. */
static int is_mirror(const json_value *c, const p2p_kind *k)
{
    return !strcmp(k->kind, "bidir") && json_number_at(c, "src") > json_number_at(c, "dst");
}

int rb_p2p_weak_count(const json_value *matrix)
{
    const json_value *cells = json_get(matrix, "cells");
    int n = 0;
    for (uint32_t i = 0; cells && cells->type == JSON_ARRAY && i < cells->count; i++)
        for (size_t k = 0; k < P2P_KINDS; k++)
            n += json_true_at(json_get(cells->items[i], p2p_kinds[k].kind), "weak") &&
                 !is_mirror(cells->items[i], &p2p_kinds[k]);
    return n;
}

/* ---- tables ---- */

/* "389.1", with '!' when weak and '*' without peer access; "-" when missing. */
static void cell_text(const json_value *c, const p2p_kind *k, char *buf, size_t size)
{
    const json_value *o = c ? measure_of(c, k) : NULL;
    if (!o) {
        rb_fmt(buf, size, "-");
        return;
    }
    rb_fmt(buf, size, k->lower_is_better ? "%.2f%s%s" : "%.1f%s%s", json_number_at(o, k->value_key),
           json_true_at(c, "peer_access") ? "" : "*", json_true_at(o, "weak") ? "!" : "");
}

/* "ceiling 389.5 GB/s", or that it is not known. */
static void roof_figure(const json_value *roof, const char *what, const char *unit, char *buf,
                        size_t size)
{
    double x = json_number_at(roof, what);
    if (isfinite(x))
        rb_fmt(buf, size, "%s %.1f %s", !strcmp(what, "peak") ? "datasheet" : "ceiling", x, unit);
    else
        rb_fmt(buf, size, "%s not known",
               !strcmp(what, "peak") ? "datasheet figure" : "ceiling (roofbench ceilings)");
}

/* The range of the cells' of_ceiling or of_peak on roof, as "95.1-100.0%" or "99.9%" ("" when
 * none). */
static void roof_range(const json_value *cells, const p2p_kind *k, const char *roof, const char *of,
                       char *buf, size_t size)
{
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t i = 0; i < cells->count; i++) {
        const json_value *o = measure_of(cells->items[i], k);
        double x = json_number_at(o, of);
        if (o && isfinite(x) && !strcmp(json_string_at(o, "roof", ""), roof)) {
            lo = fmin(lo, x);
            hi = fmax(hi, x);
        }
    }
    if (!isfinite(lo))
        rb_fmt(buf, size, "%s", "");
    else if (hi - lo >= 0.0005) /* a tenth of a percent apart */
        rb_fmt(buf, size, "%.1f-%.1f%%", 100 * lo, 100 * hi);
    else
        rb_fmt(buf, size, "%.1f%%", 100 * lo);
}

/* One line per roof the cells of kind k sit on: its figures and the cells against them; as
 * text, fitted to width (0: whole). */
static void roof_lines(rb_sbuf *b, const json_value *m, const p2p_kind *k, int markdown, int width)
{
    const json_value *cells = json_get(m, "cells");
    const char *keys[2] = {k->peer_roof, k->staged_roof};
    for (int r = 0; r < 2 && k->peer_roof; r++) {
        char ceil[80], peak[80], of_ceil[40], of_peak[40];
        roof_range(cells, k, keys[r], "of_ceiling", of_ceil, sizeof of_ceil);
        roof_range(cells, k, keys[r], "of_peak", of_peak, sizeof of_peak);
        int used = 0;
        for (uint32_t i = 0; i < cells->count; i++) {
            const json_value *o = measure_of(cells->items[i], k);
            used |= o && !strcmp(json_string_at(o, "roof", ""), keys[r]);
        }
        if (!used)
            continue;
        const json_value *roof = json_get(json_get(m, "roofs"), keys[r]);
        roof_figure(roof, "ceiling", k->unit, ceil, sizeof ceil);
        roof_figure(roof, "peak", k->unit, peak, sizeof peak);
        rb_sbuf l = {0};
        rb_sbuf_add(&l, "%son %s: %s, %s", markdown ? "" : "  ", keys[r], ceil, peak);
        if (of_ceil[0])
            rb_sbuf_add(&l, "; the cells %s of the ceiling", of_ceil);
        if (of_peak[0])
            rb_sbuf_add(&l, "%s %s of the datasheet", of_ceil[0] ? "," : "; the cells", of_peak);
        rb_sbuf_add(&l, "%s", markdown ? "." : "");
        char *line = rb_sbuf_take(&l);
        if (line)
            rb_table_line(b, line, markdown ? 0 : width, 4);
        else
            b->oom = 1;
        free(line);
    }
}

static void matrix_markdown(rb_sbuf *b, const json_value *m, const p2p_kind *k)
{
    int n = gpu_count(m);
    rb_sbuf_add(b, "| src \\\\ dst |");
    for (int j = 0; j < n; j++)
        rb_sbuf_add(b, " %d |", j);
    rb_sbuf_add(b, "\n|---|");
    for (int j = 0; j < n; j++)
        rb_sbuf_add(b, "---:|");
    rb_sbuf_add(b, "\n");
    for (int i = 0; i < n; i++) {
        rb_sbuf_add(b, "| %d |", i);
        for (int j = 0; j < n; j++) {
            char t[48];
            cell_text(cell_at(m, i, j), k, t, sizeof t);
            rb_sbuf_add(b, " %s |", t);
        }
        rb_sbuf_add(b, "\n");
    }
}

/* The width of the matrix's columns: 9, or where n of them do not fit width, the widest cell
 * of kind k or GPU index. */
static int matrix_col_width(const json_value *m, const p2p_kind *k, int width)
{
    int n = gpu_count(m);
    char t[48];
    if (width <= 0 || 9 + 10 * n <= width)
        return 9;
    rb_fmt(t, sizeof t, "%d", n - 1);
    int w = (int)strlen(t);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            cell_text(cell_at(m, i, j), k, t, sizeof t);
            w = (int)strlen(t) > w ? (int)strlen(t) : w;
        }
    return w;
}

/* The matrix of kind k as text (report/table.h): the source column, then a column per
 * destination; where they do not fit width (0: no limit), narrower, then in blocks of
 * destinations, each a table of its own. */
static void matrix_text(rb_sbuf *b, const json_value *m, const p2p_kind *k, int width)
{
    int n = gpu_count(m), w = matrix_col_width(m, k, width);
    int per = width > 0 ? (width - 9) / (w + 1) : n;
    per = per < 1 ? 1 : per > RB_TABLE_MAX_COLS - 1 ? RB_TABLE_MAX_COLS - 1 : per;
    rb_table_col cols[RB_TABLE_MAX_COLS] = {{"src\\dst", 9, 0, 0, 0}};
    char heads[RB_TABLE_MAX_COLS][16], text[RB_TABLE_MAX_COLS][48];
    const char *cells[RB_TABLE_MAX_COLS];
    for (int j0 = 0; j0 < n; j0 += per) {
        int nb = n - j0 < per ? n - j0 : per;
        for (int c = 0; c < nb; c++) {
            rb_fmt(heads[c], sizeof heads[c], "%d", j0 + c);
            cols[1 + c] = (rb_table_col){heads[c], w, 0, 0, 0};
        }
        rb_table t;
        rb_table_fit(&t, cols, nb + 1, 0, 4); /* (fits: the block was cut to the width) */
        rb_sbuf_add(b, "%s", j0 ? "\n" : "");
        rb_table_head(b, &t);
        for (int i = 0; i < n; i++) {
            rb_fmt(text[0], sizeof text[0], "%d", i);
            cells[0] = text[0];
            for (int c = 0; c < nb; c++) {
                cell_text(cell_at(m, i, j0 + c), k, text[1 + c], sizeof text[1 + c]);
                cells[1 + c] = text[1 + c];
            }
            rb_table_row(b, &t, cells);
        }
    }
}

/* "  1 -> 2  one way    371.2 GB/s  <- weak: 4.6% below the best pair's 389.2 GB/s
 * (threshold 2.0%)" for each weak measurement; as text, fitted to width (0: whole). */
static void weak_lines(rb_sbuf *b, const json_value *m, int markdown, int width)
{
    const json_value *cells = json_get(m, "cells");
    for (size_t k = 0; k < P2P_KINDS; k++) {
        const p2p_kind *kd = &p2p_kinds[k];
        for (uint32_t i = 0; i < cells->count; i++) {
            const json_value *c = cells->items[i], *o = measure_of(c, kd);
            if (!o || !json_true_at(o, "weak") || is_mirror(c, kd))
                continue;
            double v = json_number_at(o, kd->value_key), best = json_number_at(o, "best");
            char line[400];
            rb_fmt(line, sizeof line,
                   "%s%d %s %d  %-12s %8.*f %-4s  <- weak: %.1f%% %s the best pair's %.*f %s "
                   "(threshold %.1f%%)",
                   markdown ? "- " : "  ", (int)json_number_at(c, "src"),
                   strcmp(kd->kind, "bidir") ? "->" : "<->", (int)json_number_at(c, "dst"),
                   kd->title, kd->lower_is_better ? 2 : 1, v, kd->unit, 100 * fabs(v / best - 1),
                   kd->lower_is_better ? "above" : "below", kd->lower_is_better ? 2 : 1, best,
                   kd->unit, 100 * json_number_at(o, "threshold"));
            rb_table_line(b, line, markdown ? 0 : width, 4);
        }
    }
}

static void text_head(rb_sbuf *b, const json_value *m, int markdown, int width)
{
    const json_value *gpus = json_get(m, "gpus"), *method = json_get(m, "method");
    const char *name = gpus && gpus->count ? json_string_at(gpus->items[0], "name", "?") : "?";
    rb_sbuf_add(b, "%sP2P matrix: %d GPUs (", markdown ? "## " : "", gpu_count(m));
    if (markdown)
        rb_md_text(b, name);
    else
        rb_sbuf_add(b, "%s", name);
    rb_sbuf_add(b, ")\n%s", markdown ? "\n" : "");
    for (size_t k = 0; k < P2P_KINDS; k++) {
        const char *line = json_string_at(method, p2p_kinds[k].kind, NULL);
        if (!line)
            continue;
        if (markdown) {
            rb_sbuf_add(b, "- %s: ", p2p_kinds[k].title);
            rb_md_text(b, line);
            rb_sbuf_add(b, "\n");
            continue;
        }
        char text[1200];
        rb_fmt(text, sizeof text, "  %s: %s", p2p_kinds[k].title, line);
        rb_table_line(b, text, width, 4);
    }
}

void rb_p2p_text(rb_sbuf *b, const json_value *matrix, int markdown)
{
    int width = markdown ? 0 : rb_table_width();
    char marks[600];
    text_head(b, matrix, markdown, width);
    if (gpu_count(matrix) < 2) {
        rb_sbuf_add(b, "%sone GPU: no pairs to measure\n", markdown ? "\n" : "  ");
        return;
    }
    for (size_t k = 0; k < P2P_KINDS; k++) {
        const p2p_kind *kd = &p2p_kinds[k];
        rb_sbuf_add(b,
                    markdown ? "\n### %s, %s (row: from, column: to)\n\n"
                             : "\n%s, %s (row: from, column: to)\n",
                    kd->title, kd->unit);
        if (markdown)
            matrix_markdown(b, matrix, kd);
        else
            matrix_text(b, matrix, kd, width);
        if (markdown)
            rb_sbuf_add(b, "\n");
        roof_lines(b, matrix, kd, markdown, width);
    }
    rb_fmt(marks, sizeof marks,
           "%s '!': a weak link (further from the matrix's best than its threshold, from the "
           "samples' spread, %.0f-%.0f%% for bandwidth, %.0f-%.0f%% for latency); '*': no peer "
           "access (the copy is staged through the host); '-': the diagonal (a GPU's copy to "
           "itself is dram_gbps) or not measured",
           markdown ? "Marks:" : "marks:", 100 * RB_P2P_BW_FLOOR, 100 * RB_P2P_BW_CAP,
           100 * RB_P2P_LAT_FLOOR, 100 * RB_P2P_LAT_CAP);
    rb_sbuf_add(b, "\n");
    rb_table_line(b, marks, width, 4);
    int weak = rb_p2p_weak_count(matrix);
    rb_sbuf_add(b, "%s%d weak link measurement%s%s\n", markdown ? "\n" : "", weak,
                weak == 1 ? "" : "s", weak ? ":" : "");
    if (markdown && weak)
        rb_sbuf_add(b, "\n");
    weak_lines(b, matrix, markdown, width);
}

void rb_p2p_html(rb_sbuf *b, const json_value *matrix)
{
    int n = gpu_count(matrix);
    rb_sbuf_add(b, "<h2>P2P matrix</h2>\n");
    if (n < 2) {
        rb_sbuf_add(b, "<p>One GPU: no pairs to measure.</p>\n");
        return;
    }
    for (size_t k = 0; k < P2P_KINDS; k++) {
        const p2p_kind *kd = &p2p_kinds[k];
        rb_sbuf_add(b,
                    "<h3>%s, %s (row: from, column: to)</h3>\n<table class=\"rb p2p\">\n"
                    "<tr><th>src \\ dst</th>",
                    kd->title, kd->unit);
        for (int j = 0; j < n; j++)
            rb_sbuf_add(b, "<th class=\"num\">%d</th>", j);
        rb_sbuf_add(b, "</tr>\n");
        for (int i = 0; i < n; i++) {
            rb_sbuf_add(b, "<tr><th>%d</th>", i);
            for (int j = 0; j < n; j++) {
                const json_value *c = cell_at(matrix, i, j), *o = c ? measure_of(c, kd) : NULL;
                char t[48];
                cell_text(c, kd, t, sizeof t);
                rb_sbuf_add(b, "<td class=\"num%s\" title=\"",
                            o && json_true_at(o, "weak") ? " v-regressed" : "");
                if (o)
                    rb_sbuf_add(b, "%s, noise %.1f%%, threshold %.1f%%",
                                json_true_at(c, "peer_access") ? "peer access" : "no peer access",
                                100 * json_number_at(o, "noise"),
                                100 * json_number_at(o, "threshold"));
                rb_sbuf_add(b, "\">");
                rb_sbuf_escaped(b, t);
                rb_sbuf_add(b, "</td>");
            }
            rb_sbuf_add(b, "</tr>\n");
        }
        rb_sbuf_add(b, "</table>\n<p>");
        rb_sbuf body = {0};
        roof_lines(&body, matrix, kd, 1, 0);
        rb_sbuf_escaped(b, body.s ? body.s : "");
        free(body.s);
        rb_sbuf_add(b, "</p>\n");
    }
    rb_sbuf w = {0};
    weak_lines(&w, matrix, 0, 0);
    rb_sbuf_add(b,
                "<p>%d weak link measurement%s (red: below the matrix's best by more than "
                "its threshold)</p>\n<pre>",
                rb_p2p_weak_count(matrix), rb_p2p_weak_count(matrix) == 1 ? "" : "s");
    rb_sbuf_escaped(b, w.s ? w.s : "");
    rb_sbuf_add(b, "</pre>\n");
    free(w.s);
}
