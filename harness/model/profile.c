/* SPDX-License-Identifier: MIT */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A metric as a weighted sum of ncu's counters (a FLOP count is adds + multiplies + 2 FMAs), in
 * one of two forms: the counts themselves (what `roofbench profile` asks ncu for) or, where a
 * capture holds only ncu's sections, their rates: a counter per second times the launch's
 * duration, or per elapsed cycle times the cycles elapsed (smsp__cycles_elapsed.avg.per_second
 * times the duration), as ncu's own roofline charts compute achieved work. The first form with
 * any of its counters in the capture is used; NaN when neither is there. */
#define RB_PROFILE_TERMS 3
enum { TERM_COUNT, TERM_PER_SECOND, TERM_PER_CYCLE };
typedef struct metric_term {
    const char *counter;
    double weight;
    int kind;
} metric_term;

typedef struct metric_spec {
    rb_profile_metric metric;
    const char *key;
    metric_term forms[2][RB_PROFILE_TERMS];
} metric_spec;

#define SASS(op) "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum"
#define SASS_RATE(op) "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum.per_cycle_elapsed"
#define TENSOR(path) "sm__ops_path_tensor_src_" path ".sum"
#define FLOPS(a, m, f)                                                                             \
    {{{SASS(a), 1, TERM_COUNT}, {SASS(m), 1, TERM_COUNT}, {SASS(f), 2, TERM_COUNT}},               \
     {{SASS_RATE(a), 1, TERM_PER_CYCLE},                                                           \
      {SASS_RATE(m), 1, TERM_PER_CYCLE},                                                           \
      {SASS_RATE(f), 2, TERM_PER_CYCLE}}}
static const metric_spec metric_specs[RB_PM_COUNT] = {
    {RB_PM_DRAM_BYTES,
     "dram_bytes",
     {{{"dram__bytes_read.sum", 1, TERM_COUNT}, {"dram__bytes_write.sum", 1, TERM_COUNT}},
      {{"dram__bytes.sum.per_second", 1, TERM_PER_SECOND}}}},
    {RB_PM_DRAM_READ_BYTES, "dram_read_bytes", {{{"dram__bytes_read.sum", 1, TERM_COUNT}}}},
    {RB_PM_DRAM_WRITE_BYTES, "dram_write_bytes", {{{"dram__bytes_write.sum", 1, TERM_COUNT}}}},
    {RB_PM_L2_BYTES,
     "l2_bytes",
     {{{"lts__t_bytes.sum", 1, TERM_COUNT}}, {{"lts__t_bytes.sum.per_second", 1, TERM_PER_SECOND}}}},
    {RB_PM_L1_BYTES,
     "l1_bytes",
     {{{"l1tex__t_bytes.sum", 1, TERM_COUNT}},
      {{"l1tex__t_bytes.sum.per_second", 1, TERM_PER_SECOND}}}},
    {RB_PM_SMEM_WAVEFRONTS,
     "smem_wavefronts",
     {{{"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 1, TERM_COUNT}}}},
    {RB_PM_SMEM_CONFLICTS,
     "smem_bank_conflicts",
     {{{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 1, TERM_COUNT}}}},
    {RB_PM_FP32_FLOPS, "fp32_flops", FLOPS("fadd", "fmul", "ffma")},
    {RB_PM_FP64_FLOPS, "fp64_flops", FLOPS("dadd", "dmul", "dfma")},
    {RB_PM_FP16_FLOPS, "fp16_flops", FLOPS("hadd", "hmul", "hfma")},
    /* ncu counts a tensor op as a FLOP: an 8192^3 GEMM's counter reads 2 x 8192^3 */
    {RB_PM_TENSOR_FP16_OPS,
     "tensor_fp16_ops",
     {{{TENSOR("fp16"), 1, TERM_COUNT}},
      {{TENSOR("fp16_dst_fp16"), 1, TERM_COUNT}, {TENSOR("fp16_dst_fp32"), 1, TERM_COUNT}}}},
    {RB_PM_TENSOR_BF16_OPS, "tensor_bf16_ops", {{{TENSOR("bf16_dst_fp32"), 1, TERM_COUNT}}}},
    {RB_PM_TENSOR_TF32_OPS, "tensor_tf32_ops", {{{TENSOR("tf32_dst_fp32"), 1, TERM_COUNT}}}},
    {RB_PM_TENSOR_FP8_OPS,
     "tensor_fp8_ops",
     {{{TENSOR("fp8_sparsity_off"), 1, TERM_COUNT}, {TENSOR("fp8_sparsity_on"), 1, TERM_COUNT}},
      {{TENSOR("fp8"), 1, TERM_COUNT}}}},
    {RB_PM_TENSOR_FP64_OPS, "tensor_fp64_ops", {{{TENSOR("fp64"), 1, TERM_COUNT}}}},
    {RB_PM_TENSOR_ACTIVE_PCT,
     "tensor_active_pct",
     {{{"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 1,
        TERM_COUNT}}}},
    {RB_PM_OCCUPANCY_PCT,
     "achieved_occupancy_pct",
     {{{"sm__warps_active.avg.pct_of_peak_sustained_active", 1, TERM_COUNT}}}},
    {RB_PM_REGISTERS, "registers_per_thread", {{{"launch__registers_per_thread", 1, TERM_COUNT}}}},
    {RB_PM_TIME_S, "time_s", {{{"gpu__time_duration.sum", 1, TERM_COUNT}}}},
};
static const char cycles_per_second[] = "smsp__cycles_elapsed.avg.per_second";

/* Stall reasons: smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio (the warp
 * state section's, warps stalled per issued instruction). */
static const char stall_prefix[] = "smsp__average_warps_issue_stalled_";
static const char stall_suffix[] = "_per_issue_active.ratio";

const char *rb_profile_metric_key(rb_profile_metric m)
{
    return (unsigned)m < RB_PM_COUNT ? metric_specs[m].key : "?";
}

/* ---- CSV ---- */

typedef struct csv_row {
    int n, cap;
    char **f;
} csv_row;

static void row_clear(csv_row *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->f[i]);
    r->n = 0;
}

static int row_push(csv_row *r, const char *s, size_t len)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        char **f = realloc(r->f, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        r->f = f;
        r->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    r->f[r->n++] = copy;
    return 0;
}

/* One CSV record from text[*pos..len): fields quoted ("" an escaped quote) or bare; the record
 * ends at a newline outside quotes. A line that does not start with '"' is not ncu's table (its
 * own messages, the application's output): *is_table 0. -1 when out of memory. */
static int read_record(const char *text, size_t len, size_t *pos, csv_row *r, int *is_table)
{
    size_t i = *pos;
    row_clear(r);
    *is_table = i < len && text[i] == '"';
    if (!*is_table) {
        while (i < len && text[i] != '\n')
            i++;
        *pos = i < len ? i + 1 : i;
        return 0;
    }
    rb_sbuf field = {0};
    for (;;) {
        field.len = 0;
        if (field.s)
            field.s[0] = '\0';
        if (i < len && text[i] == '"') {
            for (i++; i < len; i++) {
                if (text[i] == '"' && i + 1 < len && text[i + 1] == '"') {
                    rb_sbuf_add(&field, "\"");
                    i++;
                } else if (text[i] == '"') {
                    i++;
                    break;
                } else {
                    rb_sbuf_add(&field, "%c", text[i]);
                }
            }
        } else {
            size_t start = i;
            while (i < len && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
                i++;
            rb_sbuf_add(&field, "%.*s", (int)(i - start), text + start);
        }
        if (field.oom || row_push(r, field.s ? field.s : "", field.len) != 0) {
            free(field.s);
            return -1;
        }
        if (i < len && text[i] == ',') {
            i++;
            continue;
        }
        while (i < len && text[i] != '\n')
            i++;
        break;
    }
    free(field.s);
    *pos = i < len ? i + 1 : i;
    return 0;
}

/* The factor from a unit of ncu's to its base unit ("Mbyte" -> 1e6, "usecond" -> 1e-6); 0 for a
 * unit this parser does not know. SI prefixes, as ncu prints them. */
static double unit_scale(const char *u)
{
    static const char *const plain[] = {"",      "byte",   "second", "%",      "inst",
                                        "cycle", "warp",   "ratio",  "sector", "request",
                                        "thread", "block", "register/thread", "wavefront", "s", "hz"};
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++)
        if (!strcmp(u, plain[k]))
            return 1;
    static const char prefixes[] = "KMGTmun";
    static const double scales[] = {1e3, 1e6, 1e9, 1e12, 1e-3, 1e-6, 1e-9};
    const char *p = u[0] ? strchr(prefixes, u[0]) : NULL;
    if (!p)
        return 0;
    double s = scales[p - prefixes];
    const char *rest = u + 1;
    if (s < 1 && strcmp(rest, "second") != 0 && strcmp(rest, "s") != 0)
        return 0; /* "msecond", "ns": never a milli-byte */
    for (size_t k = 1; k < sizeof plain / sizeof plain[0]; k++)
        if (!strcmp(rest, plain[k]))
            return s;
    return 0;
}

/* The factor of a rate's unit: "byte/s", "Gbyte/s" (times the duration in seconds), or
 * "inst/cycle" (times the cycles); 0 for another unit. */
static double rate_scale(const char *u)
{
    char base[48];
    const char *slash = strrchr(u, '/');
    if (!slash || (strcmp(slash, "/s") && strcmp(slash, "/second") && strcmp(slash, "/cycle")))
        return 0;
    rb_fmt(base, sizeof base, "%.*s", (int)(slash - u), u);
    return unit_scale(base);
}

/* A number as ncu prints it: thousands separators dropped; "n/a" and "" are NaN. 0, or -1 when
 * it is not a number at all. */
static int parse_value(const char *s, double *out)
{
    char buf[64];
    size_t n = 0;
    if (!*s || !strcmp(s, "n/a")) {
        *out = NAN;
        return 0;
    }
    for (; *s && n + 1 < sizeof buf; s++)
        if (*s != ',')
            buf[n++] = *s;
    buf[n] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return end != buf && *end == '\0' ? 0 : -1;
}

/* The kernel's bare name: "void hgemm_optimized_kernel<128>(const __half *, ...)" ->
 * "hgemm_optimized_kernel". */
static void bare_kernel_name(const char *s, char *out, size_t size)
{
    if (!strncmp(s, "void ", 5))
        s += 5;
    size_t len = strcspn(s, "(<");
    const char *colon = NULL;
    for (const char *c = s; c + 1 < s + len; c++)
        if (c[0] == ':' && c[1] == ':')
            colon = c;
    if (colon) {
        len -= (size_t)(colon + 2 - s);
        s = colon + 2;
    }
    rb_fmt(out, size, "%.*s", (int)len, s);
}

/* The columns of one table: where each term of each metric, the stall reasons, the kernel's
 * name, the process and the device are. */
typedef struct table_cols {
    int n;
    int kernel, process, device, grid;
    int terms[RB_PM_COUNT][2][RB_PROFILE_TERMS];
    double term_scale[RB_PM_COUNT][2][RB_PROFILE_TERMS];
    int index;  /* the table's place in the capture, from 0 */
    int cycles; /* smsp__cycles_elapsed.avg.per_second */
    double cycles_scale;
    int n_stalls;
    int stall_col[RB_PROFILE_MAX_STALLS];
    char stall_name[RB_PROFILE_MAX_STALLS][48];
} table_cols;

static int find_col(const csv_row *h, const char *name)
{
    for (int i = 0; i < h->n; i++)
        if (!strcmp(h->f[i], name))
            return i;
    return -1;
}

/* The counter, or its twin under ncu's other prefix (sm__ and smsp__ sum the same thread
 * instructions). */
static int find_counter(const csv_row *h, const char *counter)
{
    int c = find_col(h, counter);
    if (c >= 0 || strncmp(counter, "smsp__sass", 10) != 0)
        return c;
    char name[160];
    rb_fmt(name, sizeof name, "sm__%s", counter + 6);
    return find_col(h, name);
}

static int map_stalls(const csv_row *h, const csv_row *units, table_cols *t)
{
    size_t pl = strlen(stall_prefix), sl = strlen(stall_suffix);
    for (int i = 0; i < h->n && t->n_stalls < RB_PROFILE_MAX_STALLS; i++) {
        const char *f = h->f[i];
        size_t len = strlen(f);
        if (len <= pl + sl || strncmp(f, stall_prefix, pl) || strcmp(f + len - sl, stall_suffix))
            continue;
        if (unit_scale(units->f[i]) == 0)
            return -1;
        t->stall_col[t->n_stalls] = i;
        rb_fmt(t->stall_name[t->n_stalls], sizeof t->stall_name[0], "%.*s", (int)(len - pl - sl),
               f + pl);
        t->n_stalls++;
    }
    return 0;
}

static int map_columns(const csv_row *h, const csv_row *units, table_cols *t, char *err,
                       size_t err_size)
{
    memset(t, 0, sizeof *t);
    t->n = h->n;
    t->kernel = find_col(h, "Kernel Name");
    t->process = find_col(h, "Process ID");
    t->device = find_col(h, "device__attribute_display_name");
    t->grid = find_col(h, "Grid Size");
    if (t->kernel < 0) {
        rb_fmt(err, err_size, "ncu's table has no \"Kernel Name\" column");
        return -1;
    }
    t->cycles = find_col(h, cycles_per_second);
    t->cycles_scale = t->cycles >= 0 ? unit_scale(units->f[t->cycles]) : 0;
    if (t->cycles >= 0 && t->cycles_scale == 0)
        t->cycles = -1; /* a rate per cycle is then left out, not misread */
    for (int m = 0; m < RB_PM_COUNT; m++)
        for (int k = 0; k < 2 * RB_PROFILE_TERMS; k++) {
            const metric_term *term = &metric_specs[m].forms[k / RB_PROFILE_TERMS][k % RB_PROFILE_TERMS];
            int c = term->counter ? find_counter(h, term->counter) : -1;
            t->terms[m][k / RB_PROFILE_TERMS][k % RB_PROFILE_TERMS] = c;
            if (c < 0)
                continue;
            double *scale = &t->term_scale[m][k / RB_PROFILE_TERMS][k % RB_PROFILE_TERMS];
            *scale = term->kind == TERM_COUNT ? unit_scale(units->f[c]) : rate_scale(units->f[c]);
            if (*scale == 0) {
                rb_fmt(err, err_size,
                       "ncu's column %s has the unit '%s', which is not one of ncu's (byte, "
                       "Kbyte, ..., nsecond, ..., %%, inst; byte/s, inst/cycle for a rate)",
                       h->f[c], units->f[c]);
                return -1;
            }
        }
    if (map_stalls(h, units, t) != 0) {
        rb_fmt(err, err_size, "a stall reason's column has a unit that is not a ratio");
        return -1;
    }
    return 0;
}

static int add_launch(rb_profile_capture *c, const rb_profile_launch *l)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        rb_profile_launch *p = realloc(c->launches, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        c->launches = p;
        c->cap = cap;
    }
    c->launches[c->n++] = *l;
    return 0;
}

/* One form of metric m for row r: 0 with *out (NaN when none of its counters is in the
 * capture), or -1 with err when a value is not a number. */
static int metric_form(const csv_row *r, const table_cols *t, int m, int form, double time_s,
                       double *out, char *err, size_t err_size)
{
    *out = NAN;
    for (int k = 0; k < RB_PROFILE_TERMS; k++) {
        const metric_term *term = &metric_specs[m].forms[form][k];
        int c = t->terms[m][form][k];
        double x, cps = NAN;
        if (c < 0)
            continue;
        if (parse_value(r->f[c], &x) != 0 ||
            (term->kind == TERM_PER_CYCLE && t->cycles >= 0 &&
             parse_value(r->f[t->cycles], &cps) != 0)) {
            rb_fmt(err, err_size, "%s: '%s' is not a number", term->counter, r->f[c]);
            return -1;
        }
        x *= term->weight * t->term_scale[m][form][k];
        if (term->kind == TERM_PER_SECOND)
            x *= time_s;
        else if (term->kind == TERM_PER_CYCLE)
            x *= cps * t->cycles_scale * time_s;
        if (!isnan(x))
            *out = (isnan(*out) ? 0 : *out) + x;
    }
    return 0;
}

/* One data row into a launch. -1 with err when a metric's value is not a number. */
static int read_launch(const csv_row *r, const table_cols *t, rb_profile_launch *l, char *err,
                       size_t err_size)
{
    memset(l, 0, sizeof *l);
    l->table = t->index;
    bare_kernel_name(r->f[t->kernel], l->kernel, sizeof l->kernel);
    l->process = t->process >= 0 ? atoll(r->f[t->process]) : 0;
    if (t->grid < 0 || sscanf(r->f[t->grid], " (%d , %d , %d )", &l->grid[0], &l->grid[1],
                              &l->grid[2]) != 3)
        l->grid[0] = l->grid[1] = l->grid[2] = 0;
    /* the duration first: the rate forms need it */
    if (metric_form(r, t, RB_PM_TIME_S, 0, NAN, &l->v[RB_PM_TIME_S], err, err_size) != 0)
        return -1;
    for (int m = 0; m < RB_PM_COUNT; m++) {
        if (m == RB_PM_TIME_S)
            continue;
        if (metric_form(r, t, m, 0, l->v[RB_PM_TIME_S], &l->v[m], err, err_size) != 0 ||
            (isnan(l->v[m]) &&
             metric_form(r, t, m, 1, l->v[RB_PM_TIME_S], &l->v[m], err, err_size) != 0))
            return -1;
    }
    for (int s = 0; s < t->n_stalls; s++) {
        double x;
        if (parse_value(r->f[t->stall_col[s]], &x) != 0 || isnan(x))
            continue;
        rb_fmt(l->stalls[l->n_stalls].reason, sizeof l->stalls[0].reason, "%s", t->stall_name[s]);
        l->stalls[l->n_stalls++].value = x;
    }
    return 0;
}

static int is_header(const csv_row *r)
{
    return r->n >= 2 && !strcmp(r->f[0], "ID") && !strcmp(r->f[1], "Process ID");
}

int rb_profile_parse(const char *text, size_t len, rb_profile_capture *out, char *err,
                     size_t err_size)
{
    csv_row row = {0}, header = {0}, units = {0};
    table_cols cols;
    int have_table = 0, rc = -1, line = 0, tables = 0;
    size_t pos = 0;
    memset(out, 0, sizeof *out);
    while (pos < len) {
        int is_table;
        line++;
        if (read_record(text, len, &pos, &row, &is_table) != 0)
            goto oom;
        if (!is_table)
            continue;
        if (is_header(&row)) {
            csv_row tmp = header;
            header = row;
            row = tmp;
            line++;
            if (read_record(text, len, &pos, &units, &is_table) != 0)
                goto oom;
            if (!is_table || units.n != header.n) {
                rb_fmt(err, err_size, "line %d: ncu's header row is not followed by its units",
                       line);
                goto done;
            }
            if (map_columns(&header, &units, &cols, err, err_size) != 0)
                goto done;
            cols.index = tables++;
            have_table = 1;
            continue;
        }
        if (!have_table)
            continue; /* quoted output before any table */
        if (row.n != header.n) {
            rb_fmt(err, err_size, "line %d: %d fields where ncu's header has %d", line, row.n,
                   header.n);
            goto done;
        }
        rb_profile_launch l;
        if (read_launch(&row, &cols, &l, err, err_size) != 0)
            goto done;
        if (cols.device >= 0 && !out->device[0])
            rb_fmt(out->device, sizeof out->device, "%s", row.f[cols.device]);
        if (add_launch(out, &l) != 0)
            goto oom;
    }
    if (!have_table)
        rb_fmt(err, err_size, "no ncu table: no row starts \"ID\",\"Process ID\" (was it "
                              "`ncu --page raw --csv`?)");
    else if (out->n == 0)
        rb_fmt(err, err_size, "ncu's table has no kernel rows: no kernel was profiled");
    else
        rc = 0;
    goto done;
oom:
    rb_fmt(err, err_size, "out of memory");
done:
    row_clear(&row);
    row_clear(&header);
    row_clear(&units);
    free(row.f);
    free(header.f);
    free(units.f);
    if (rc != 0)
        rb_profile_capture_free(out);
    return rc;
}

void rb_profile_capture_free(rb_profile_capture *c)
{
    free(c->launches);
    memset(c, 0, sizeof *c);
}
