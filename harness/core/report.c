/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void rb_report_derive(rb_pair_result *pairs, int n, const rb_roofs *ceilings, const rb_roofs *peaks)
{
    for (int i = 0; i < n; i++) {
        rb_pair_result *p = &pairs[i];
        for (int k = 0; k < p->n_variants; k++) {
            rb_variant_result *v = &p->v[k];
            if (!v->timed)
                continue;
            double ms = v->time_ms.median, bytes = isnan(v->bytes) ? p->bytes : v->bytes;
            /* Bytes over a link have no DRAM roof: only the compute roofs apply. */
            rb_roofs c = *ceilings, pk = *peaks;
            if (p->link_bytes)
                c.dram_gbps = pk.dram_gbps = NAN;
            rb_roofline_point(p->flops, bytes, ms, v->unit, &c, &v->vs_ceiling);
            rb_roofline_point(p->flops, bytes, ms, v->unit, &pk, &v->vs_peak);
            if (v->valid && !p->link_bytes && p->size >= p->full_size && bytes > 0 &&
                v->vs_peak.gbps > peaks->dram_gbps) {
                v->valid = 0;
                rb_fmt(v->note, sizeof v->note,
                       "%.0f GB/s exceeds the DRAM peak %.0f GB/s: the data came from cache, or "
                       "the work model undercounts",
                       v->vs_peak.gbps, peaks->dram_gbps);
            }
        }
        /* Speedups only between valid results, once validity is settled. */
        double base_ms = NAN;
        for (int k = 0; k < p->n_variants; k++)
            if (p->v[k].role == RB_ROLE_BASELINE && p->v[k].valid && p->v[k].timed)
                base_ms = p->v[k].time_ms.median;
        /* A part (one stage timed alone) is not an alternative to the baseline: no speedup. */
        for (int k = 0; k < p->n_variants; k++)
            p->v[k].speedup = p->v[k].valid && p->v[k].timed && p->v[k].role != RB_ROLE_PART
                                  ? base_ms / p->v[k].time_ms.median
                                  : NAN;
    }
}

static void pct(char *buf, size_t size, double x)
{
    if (isnan(x))
        rb_fmt(buf, size, "-");
    else
        rb_fmt(buf, size, "%.1f%%", 100.0 * x);
}

/* The cells of one table row, shared by the text table and the Markdown page. */
typedef struct row {
    char ms[24], noise[16], rate[32], ceil[16], peak[16], speedup[16];
} row;

static void format_row(const rb_pair_result *p, const rb_variant_result *v, row *r)
{
    if (!v->timed) {
        rb_fmt(r->ms, sizeof r->ms, "-");
        rb_fmt(r->noise, sizeof r->noise, "-");
        rb_fmt(r->rate, sizeof r->rate, "-");
        rb_fmt(r->ceil, sizeof r->ceil, "-");
        rb_fmt(r->peak, sizeof r->peak, "-");
        rb_fmt(r->speedup, sizeof r->speedup, "-");
        return;
    }
    rb_fmt(r->ms, sizeof r->ms, "%.4f", v->time_ms.median);
    pct(r->noise, sizeof r->noise, v->time_ms.noise);
    /* Compute-bound by either set of roofs (a GPU may have no measured ceiling for a unit):
     * the rate worth reading is TFLOP/s. */
    if (p->flops > 0 && !(v->vs_ceiling.memory_bound && v->vs_peak.memory_bound))
        rb_fmt(r->rate, sizeof r->rate, "%.1f TFLOP/s", v->vs_ceiling.tflops);
    else
        rb_fmt(r->rate, sizeof r->rate, "%.1f GB/s", v->vs_ceiling.gbps);
    pct(r->ceil, sizeof r->ceil, v->vs_ceiling.efficiency);
    pct(r->peak, sizeof r->peak, v->vs_peak.efficiency);
    if (isnan(v->speedup))
        rb_fmt(r->speedup, sizeof r->speedup, "-");
    else
        rb_fmt(r->speedup, sizeof r->speedup, "%.2fx", v->speedup);
}

void rb_report_table(FILE *f, const rb_pair_result *pairs, int n)
{
    fprintf(f, "%-18s %-12s %10s %6s %15s %7s %7s %8s  %s\n", "pair", "variant", "median ms",
            "noise", "rate", "%ceil", "%peak", "speedup", "verdict");
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        if (p->status != RB_PAIR_OK && p->n_variants == 0) {
            fprintf(f, "%-18s %-12s %s: %s\n", p->name, "-",
                    p->status == RB_PAIR_SKIPPED ? "skipped" : "FAILED", p->reason);
            continue;
        }
        for (int k = 0; k < p->n_variants; k++) {
            const rb_variant_result *v = &p->v[k];
            row r;
            format_row(p, v, &r);
            fprintf(f, "%-18s %-12s %10s %6s %15s %7s %7s %8s  %s\n", k == 0 ? p->name : "",
                    v->name, r.ms, r.noise, r.rate, r.ceil, r.peak, r.speedup,
                    rb_verdict_name(v->verdict));
        }
        if (p->status == RB_PAIR_FAILED)
            fprintf(f, "%-18s FAILED: %s\n", "", p->reason);
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++)
            if (pairs[i].v[k].note[0])
                fprintf(f, "note: %s/%s: %s\n", pairs[i].name, pairs[i].v[k].name,
                        pairs[i].v[k].note);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            if (v->n_extras == 0)
                continue;
            fprintf(f, "extra: %s/%s:", pairs[i].name, v->name);
            for (int x = 0; x < v->n_extras; x++)
                fprintf(f, " %s %.4g", v->extras[x].name, v->extras[x].value);
            fprintf(f, "\n");
        }
}

/* A growing string. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->len + (size_t)k)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static const char *meta_str(const json_value *meta, const char *a, const char *b)
{
    const json_value *x = json_get(meta, a);
    if (b)
        x = json_get(x, b);
    return x && x->type == JSON_STRING ? x->string : "?";
}

char *rb_report_markdown(const rb_pair_result *pairs, int n, const json_value *meta)
{
    sbuf b = {0};
    const json_value *env = json_get(json_get(meta, "environment"), "start");
    sb_add(&b, "# roofbench results: %s\n\n", meta_str(env, "device", NULL));
    sb_add(&b, "- date: %s, git: %s, command: `%s`\n", meta_str(meta, "date", NULL),
           meta_str(meta, "git", NULL), meta_str(meta, "command", NULL));
    sb_add(&b, "- driver %s, CUDA runtime %s, compute capability %s\n",
           meta_str(env, "driver", NULL), meta_str(env, "cuda_runtime", NULL),
           meta_str(env, "cc", NULL));
    sb_add(&b, "- expectations: %s\n\n", meta_str(meta, "expectations", NULL));
    sb_add(&b, "| pair | variant | median ms | noise | rate | %% ceiling | %% peak | speedup | "
               "verdict |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        if (p->status != RB_PAIR_OK && p->n_variants == 0)
            sb_add(&b, "| %s | - | %s: %s | | | | | | |\n", p->name,
                   p->status == RB_PAIR_SKIPPED ? "skipped" : "FAILED", p->reason);
        for (int k = 0; k < p->n_variants; k++) {
            row r;
            format_row(p, &p->v[k], &r);
            sb_add(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k == 0 ? p->name : "",
                   p->v[k].name, r.ms, r.noise, r.rate, r.ceil, r.peak, r.speedup,
                   rb_verdict_name(p->v[k].verdict));
        }
    }
    sb_add(&b, "\n");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++)
            if (pairs[i].v[k].note[0])
                sb_add(&b, "- %s/%s: %s\n", pairs[i].name, pairs[i].v[k].name, pairs[i].v[k].note);
    int header = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            if (v->n_extras == 0)
                continue;
            if (!header++)
                sb_add(&b, "\n## Figures beside the time\n\n");
            sb_add(&b, "- %s/%s:", pairs[i].name, v->name);
            for (int x = 0; x < v->n_extras; x++)
                sb_add(&b, " %s %.4g%s", v->extras[x].name, v->extras[x].value,
                       x + 1 < v->n_extras ? "," : "");
            sb_add(&b, "\n");
        }
    header = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_kernels; k++) {
            const rb_kernel_result *q = &pairs[i].kernels[k];
            if (!header++)
                sb_add(&b, "\n## Kernels\n\n| pair | variant | kernel | registers | static smem | "
                           "dynamic smem | local bytes | block | blocks/SM | occupancy |\n"
                           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
            sb_add(&b, "| %s | %s | `%s` | %d | %.0f | %.0f | %.0f | %d | %d | %.0f%% |\n",
                   k == 0 ? pairs[i].name : "", q->variant, q->name, q->registers, q->static_smem,
                   q->dyn_smem, q->local_bytes, q->block_threads, q->blocks_per_sm,
                   100.0 * q->occupancy);
        }
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* bound: which term of the floor is the larger; "unknown" when a roof it needs is unknown (a
 * tensor-core unit with no measured ceiling), where memory_bound alone would say "memory". */
static json_value *point_json(const rb_point *pt)
{
    const char *bound = isnan(pt->floor_ms) ? "unknown" : pt->memory_bound ? "memory" : "compute";
    json_value *o = json_new_object();
    if (!o || json_set_number(o, "ai", pt->ai) || json_set_number(o, "gbps", pt->gbps) ||
        json_set_number(o, "tflops", pt->tflops) || json_set_number(o, "floor_ms", pt->floor_ms) ||
        json_set_number(o, "efficiency", pt->efficiency) ||
        json_set_string(o, "bound", bound)) {
        json_free(o);
        return NULL;
    }
    return o;
}

static json_value *variant_json(const rb_variant_result *v)
{
    json_value *o = rb_variant_to_json(v);
    if (!o || json_object_set(o, "vs_ceiling", point_json(&v->vs_ceiling)) ||
        json_object_set(o, "vs_peak", point_json(&v->vs_peak)) ||
        json_set_number(o, "speedup", v->speedup) ||
        json_set_number(o, "expected_ms", v->expected_ms) ||
        json_set_string(o, "verdict", rb_verdict_name(v->verdict))) {
        json_free(o);
        return NULL;
    }
    return o;
}

json_value *rb_report_json(const rb_pair_result *pairs, int n, json_value *meta)
{
    static const char *const status_names[] = {"ok", "failed", "skipped"};
    json_value *list = json_new_array();
    int bad = !meta || !list;
    for (int i = 0; !bad && i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        json_value *o = json_new_object(), *vs = json_new_array();
        if (!o || !vs || json_array_push(list, o)) { /* push frees o when it fails */
            if (!vs || !o)
                json_free(o);
            json_free(vs);
            bad = 1;
            break;
        }
        bad |= json_set_bool(o, "link_bytes", p->link_bytes);
        bad |= json_set_string(o, "name", p->name) || json_set_string(o, "pattern", p->pattern) ||
               json_set_number(o, "size", (double)p->size) ||
               json_set_number(o, "rows", (double)p->rows) ||
               json_set_number(o, "cols", (double)p->cols) ||
               json_set_number(o, "flops", p->flops) || json_set_number(o, "bytes", p->bytes) ||
               json_set_string(o, "status", status_names[p->status]) ||
               json_set_string(o, "reason", p->reason) || json_set_number(o, "wall_s", p->wall_s);
        for (int k = 0; !bad && k < p->n_variants; k++)
            bad |= json_array_push(vs, variant_json(&p->v[k]));
        bad |= json_object_set(o, "variants", vs);
        json_value *ks = json_new_array();
        bad |= !ks;
        for (int k = 0; !bad && k < p->n_kernels; k++)
            bad |= json_array_push(ks, rb_kernel_to_json(&p->kernels[k]));
        bad |= json_object_set(o, "kernels", ks);
    }
    if (bad) {
        json_free(list);
        json_free(meta);
        return NULL;
    }
    if (json_object_set(meta, "pairs", list)) { /* frees list when it fails */
        json_free(meta);
        return NULL;
    }
    return meta;
}
