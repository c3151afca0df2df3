/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The value of the extra named `name` of v; NaN when v has none of that name. */
static double extra_value(const rb_variant_result *v, const char *name)
{
    for (int x = 0; x < v->n_extras; x++)
        if (strcmp(v->extras[x].name, name) == 0)
            return v->extras[x].value;
    return NAN;
}

/* Why a variant can sit above 100% of its measured roof, by the kind of roof: the ceiling was
 * measured with one kernel's access pattern or launch, and the variant's differs. Printed
 * beside the number (rb_report_table's notes) instead of capping or hiding it. */
static void above_roof_note(rb_variant_result *v, double efficiency)
{
    const char *why;
    rb_roof r = v->roof;
    if (rb_roof_kind_of(r) == RB_KIND_LATENCY)
        why = "the ceiling is an empty kernel launched back to back, measured in another run: "
              "the host's launch cost drifts between runs (see its noise in ceilings.methods), "
              "and programmatic dependent launch overlaps launches";
    else if (rb_roof_kind_of(r) == RB_KIND_COMPUTE)
        why = "the ceiling is the best sustained rate of the method recorded in the expectation "
              "file; this variant ran at another clock or a friendlier shape";
    else if (rb_roof_is_link(r))
        why = "the link's speed drifts between runs (the ceiling was measured in another run); "
              "see the method recorded in the expectation file";
    else
        why = "the roof was measured with a different access mix (ceilings.methods); part of "
              "this variant's declared traffic hits L2, or its read/write mix streams faster";
    rb_fmt(v->roof_note, sizeof v->roof_note, "%.1f%% of the measured %s: %s", 100.0 * efficiency,
           rb_roof_key(r), why);
}

/* Places v on its roof against the ceilings and the peaks. */
static void derive_point(const rb_pair_result *p, rb_variant_result *v, const rb_roofs *ceilings,
                         const rb_roofs *peaks)
{
    double ms = v->time_ms.median, bytes = isnan(v->bytes) ? p->bytes : v->bytes;
    if (v->roof >= RB_ROOF_COUNT) /* a record that names no roof: the derived one */
        v->roof = rb_roof_derived(v->unit, p->flops);
    double rate = v->roof_rate[0] ? extra_value(v, v->roof_rate) : NAN;
    /* A latency roof needs the pair's time per launch: without the extra there is no point. */
    if (v->roof_rate[0] && isnan(rate))
        rate = 0.0; /* rb_roofline_point: no positive rate, no efficiency */
    rb_roofline_point(p->flops, bytes, ms, v->unit, v->roof, rate, ceilings, &v->vs_ceiling);
    rb_roofline_point(p->flops, bytes, ms, v->unit, v->roof, rate, peaks, &v->vs_peak);
    /* Bytes that the variant says came from DRAM (its roof is a DRAM or a compute roof, whose
     * memory term is DRAM) faster than the DRAM peak came from a cache: not a valid result. */
    int dram_bytes = rb_roof_is_dram(v->roof) || rb_roof_kind_of(v->roof) == RB_KIND_COMPUTE;
    double dram_peak = peaks->value[RB_ROOF_DRAM];
    if (v->valid && dram_bytes && !p->link_bytes && p->size >= p->full_size && bytes > 0 &&
        v->vs_peak.gbps > dram_peak) {
        v->valid = 0;
        rb_fmt(v->note, sizeof v->note,
               "%.0f GB/s exceeds the DRAM peak %.0f GB/s: the data came from cache, or the work "
               "model undercounts",
               v->vs_peak.gbps, dram_peak);
    }
    /* An invalid result has its note already; a valid one above its roof says why. */
    v->roof_note[0] = '\0';
    if (v->valid && v->vs_ceiling.efficiency > 1.0)
        above_roof_note(v, v->vs_ceiling.efficiency);
}

void rb_report_derive(rb_pair_result *pairs, int n, const rb_roofs *ceilings, const rb_roofs *peaks)
{
    for (int i = 0; i < n; i++) {
        rb_pair_result *p = &pairs[i];
        for (int k = 0; k < p->n_variants; k++)
            if (p->v[k].timed)
                derive_point(p, &p->v[k], ceilings, peaks);
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

int rb_report_throttled(const rb_variant_result *v)
{
    return v->timed && v->clocks.samples > 0 && rb_clock_reasons_throttled(v->clocks.reasons);
}

/* "timed under hw_thermal, power_cap (SM clock mean 1520, min 1410 MHz over 85 samples)" */
static void throttle_note(const rb_variant_result *v, char *buf, size_t size)
{
    char reasons[200];
    rb_clock_reasons_text(v->clocks.reasons, reasons, sizeof reasons);
    rb_fmt(buf, size, "timed under %s (SM clock mean %.0f, min %.0f MHz over %.0f samples)",
           reasons, rb_clocks_mean_mhz(&v->clocks), v->clocks.sm_mhz_min, v->clocks.samples);
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
    int plain[RB_VERDICT_SKIPPED + 1] = {0}, hot[RB_VERDICT_SKIPPED + 1] = {0};
    int throttled = 0, capped = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            int t = rb_report_throttled(v);
            unsigned vi = (unsigned)v->verdict <= RB_VERDICT_SKIPPED ? v->verdict : 0;
            (t ? hot : plain)[vi]++;
            throttled += t;
            capped += !t && v->timed && (v->clocks.reasons & 1u << RB_REASON_POWER_CAP);
        }
    char counts[300] = "", apart[300] = "";
    for (int x = RB_VERDICT_PASS; x <= RB_VERDICT_SKIPPED; x++) {
        count_item(counts, sizeof counts, plain[x], rb_verdict_name((rb_verdict)x));
        count_item(apart, sizeof apart, hot[x], rb_verdict_name((rb_verdict)x));
    }
    count_item(counts, sizeof counts, plain[RB_VERDICT_NONE], "not judged");
    count_item(apart, sizeof apart, hot[RB_VERDICT_NONE], "not judged");
    rb_fmt(buf, size, "verdicts: %s", counts[0] ? counts : "none");
    size_t len = strlen(buf);
    if (throttled)
        rb_fmt(buf + len, size - len,
               "; %d variant%s timed under thermal or hardware slowdown (marked %s, counted "
               "apart: %s)",
               throttled, throttled == 1 ? "" : "s", RB_THROTTLED_MARK, apart);
    len = strlen(buf);
    if (capped)
        rb_fmt(buf + len, size - len,
               "; %d power-capped (expected for tensor-core GEMMs, not marked)", capped);
}

void rb_report_summary(FILE *f, const rb_pair_result *pairs, int n)
{
    char line[600];
    rb_report_summary_text(pairs, n, line, sizeof line);
    fprintf(f, "%s\n", line);
}

static void pct(char *buf, size_t size, double x)
{
    if (isnan(x))
        rb_fmt(buf, size, "-");
    else
        rb_fmt(buf, size, "%.1f%%", 100.0 * x);
}

/* The cells of one table row, shared by the text table, the Markdown page and the CSV. */
typedef struct row {
    char ms[24], noise[16], rate[32], ceil[16], peak[16], speedup[16];
    double rate_value;     /* the number in rate, unrounded (NaN: none) */
    const char *rate_unit; /* "GB/s", "TFLOP/s", "us/launch"; "" when none */
} row;

/* The rate worth reading: microseconds per launch on a latency roof; TFLOP/s when compute-bound
 * by either set of roofs (a GPU may have no measured ceiling for a unit); else GB/s. */
static void format_rate(const rb_pair_result *p, const rb_variant_result *v, row *r)
{
    if (rb_roof_kind_of(v->roof) == RB_KIND_LATENCY) {
        r->rate_value = v->roof_rate[0] ? extra_value(v, v->roof_rate) : NAN;
        r->rate_unit = "us/launch";
        if (isnan(r->rate_value)) {
            rb_fmt(r->rate, sizeof r->rate, "-");
            r->rate_unit = "";
        } else {
            rb_fmt(r->rate, sizeof r->rate, "%.2f us/launch", r->rate_value);
        }
    } else if (p->flops > 0 && !(v->vs_ceiling.memory_bound && v->vs_peak.memory_bound)) {
        r->rate_value = v->vs_ceiling.tflops;
        r->rate_unit = "TFLOP/s";
        rb_fmt(r->rate, sizeof r->rate, "%.1f TFLOP/s", r->rate_value);
    } else {
        r->rate_value = v->vs_ceiling.gbps;
        r->rate_unit = "GB/s";
        rb_fmt(r->rate, sizeof r->rate, "%.1f GB/s", r->rate_value);
    }
}

static void format_row(const rb_pair_result *p, const rb_variant_result *v, row *r)
{
    r->rate_value = NAN;
    r->rate_unit = "";
    if (!v->timed) {
        rb_fmt(r->ms, sizeof r->ms, "-");
        rb_fmt(r->noise, sizeof r->noise, "-");
        rb_fmt(r->rate, sizeof r->rate, "-");
        rb_fmt(r->ceil, sizeof r->ceil, "-");
        rb_fmt(r->peak, sizeof r->peak, "-");
        rb_fmt(r->speedup, sizeof r->speedup, "-");
        return;
    }
    /* Timed under thermal or hardware slowdown: marked, the reasons in the notes. */
    rb_fmt(r->ms, sizeof r->ms, "%.4f%s", v->time_ms.median,
           rb_report_throttled(v) ? RB_THROTTLED_MARK : "");
    pct(r->noise, sizeof r->noise, v->time_ms.noise);
    format_rate(p, v, r);
    pct(r->ceil, sizeof r->ceil, v->vs_ceiling.efficiency);
    /* Above its measured roof: marked here, the reason printed in the notes below the table. */
    if (v->roof_note[0]) {
        size_t len = strlen(r->ceil);
        rb_fmt(r->ceil + len, sizeof r->ceil - len, "*");
    }
    pct(r->peak, sizeof r->peak, v->vs_peak.efficiency);
    if (isnan(v->speedup))
        rb_fmt(r->speedup, sizeof r->speedup, "-");
    else
        rb_fmt(r->speedup, sizeof r->speedup, "%.2fx", v->speedup);
}

/* The roof a row is placed on ("-" for a variant never timed: it has no point). */
static const char *roof_cell(const rb_variant_result *v)
{
    return v->timed && v->roof < RB_ROOF_COUNT ? rb_roof_key(v->roof) : "-";
}

void rb_report_table(FILE *f, const rb_pair_result *pairs, int n)
{
    fprintf(f, "%-18s %-12s %10s %6s %17s %8s %7s %8s  %-9s  %s\n", "pair", "variant",
            "median ms", "noise", "rate", "%ceil", "%peak", "speedup", "verdict", "roof");
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
            fprintf(f, "%-18s %-12s %10s %6s %17s %8s %7s %8s  %-9s  %s\n",
                    k == 0 ? p->name : "", v->name, r.ms, r.noise, r.rate, r.ceil, r.peak,
                    r.speedup, rb_verdict_name(v->verdict), roof_cell(v));
        }
        if (p->status == RB_PAIR_FAILED)
            fprintf(f, "%-18s FAILED: %s\n", "", p->reason);
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            if (v->note[0])
                fprintf(f, "note: %s/%s: %s\n", pairs[i].name, v->name, v->note);
            if (v->roof_note[0])
                fprintf(f, "note: %s/%s: * %s\n", pairs[i].name, v->name, v->roof_note);
            if (v->cause[0])
                fprintf(f,
                        "%s: %s/%s %+.1f%% against the expectation (threshold %.1f%%%s): %s: %s\n",
                        rb_verdict_name(v->verdict), pairs[i].name, v->name,
                        100 * (v->judged_ratio - 1), 100 * v->threshold,
                        v->per_clock ? ", at equal SM clock" : "", v->cause, v->evidence);
            if (rb_report_throttled(v)) {
                char why[300];
                throttle_note(v, why, sizeof why);
                fprintf(f, "note: %s/%s: %s %s\n", pairs[i].name, v->name, RB_THROTTLED_MARK, why);
            }
        }
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

static const char *meta_str(const json_value *meta, const char *a, const char *b)
{
    const json_value *x = json_get(meta, a);
    if (b)
        x = json_get(x, b);
    return x && x->type == JSON_STRING ? x->string : "?";
}

char *rb_report_markdown(const rb_pair_result *pairs, int n, const json_value *meta)
{
    rb_sbuf b = {0};
    const json_value *env = json_get(json_get(meta, "environment"), "start");
    rb_sbuf_add(&b, "# roofbench results: %s\n\n", meta_str(env, "device", NULL));
    rb_sbuf_add(&b, "- date: %s, git: %s, command: `%s`\n", meta_str(meta, "date", NULL),
           meta_str(meta, "git", NULL), meta_str(meta, "command", NULL));
    rb_sbuf_add(&b, "- driver %s, CUDA runtime %s, compute capability %s\n",
           meta_str(env, "driver", NULL), meta_str(env, "cuda_runtime", NULL),
           meta_str(env, "cc", NULL));
    rb_sbuf_add(&b, "- expectations: %s\n\n", meta_str(meta, "expectations", NULL));
    rb_sbuf_add(&b, "| pair | variant | median ms | noise | rate | %% ceiling | %% peak | speedup | "
               "verdict | roof |\n|---|---|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        if (p->status != RB_PAIR_OK && p->n_variants == 0)
            rb_sbuf_add(&b, "| %s | - | %s: %s | | | | | | | |\n", p->name,
                   p->status == RB_PAIR_SKIPPED ? "skipped" : "FAILED", p->reason);
        for (int k = 0; k < p->n_variants; k++) {
            row r;
            format_row(p, &p->v[k], &r);
            rb_sbuf_add(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                   k == 0 ? p->name : "", p->v[k].name, r.ms, r.noise, r.rate, r.ceil, r.peak,
                   r.speedup, rb_verdict_name(p->v[k].verdict), roof_cell(&p->v[k]));
        }
    }
    rb_sbuf_add(&b, "\n");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            if (v->note[0])
                rb_sbuf_add(&b, "- %s/%s: %s\n", pairs[i].name, v->name, v->note);
            if (v->roof_note[0])
                rb_sbuf_add(&b, "- %s/%s: \\* %s\n", pairs[i].name, v->name, v->roof_note);
            if (rb_report_throttled(v)) {
                char why[300];
                throttle_note(v, why, sizeof why);
                rb_sbuf_add(&b, "- %s/%s: %s %s\n", pairs[i].name, v->name, RB_THROTTLED_MARK, why);
            }
        }
    char summary[600];
    rb_report_summary_text(pairs, n, summary, sizeof summary);
    rb_sbuf_add(&b, "\n%s\n", summary);
    int header = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            if (v->n_extras == 0)
                continue;
            if (!header++)
                rb_sbuf_add(&b, "\n## Figures beside the time\n\n");
            rb_sbuf_add(&b, "- %s/%s:", pairs[i].name, v->name);
            for (int x = 0; x < v->n_extras; x++)
                rb_sbuf_add(&b, " %s %.4g%s", v->extras[x].name, v->extras[x].value,
                       x + 1 < v->n_extras ? "," : "");
            rb_sbuf_add(&b, "\n");
        }
    header = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_kernels; k++) {
            const rb_kernel_result *q = &pairs[i].kernels[k];
            if (!header++)
                rb_sbuf_add(&b, "\n## Kernels\n\n| pair | variant | kernel | registers | static smem | "
                           "dynamic smem | local bytes | block | blocks/SM | occupancy |\n"
                           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
            rb_sbuf_add(&b, "| %s | %s | `%s` | %d | %.0f | %.0f | %.0f | %d | %d | %.0f%% |\n",
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

/* bound: which term of the floor is the larger ("memory" or "compute"), or the kind of roof that
 * has a single term ("link": pcie or nvlink, "latency"); "unknown" when a roof it needs is
 * unknown (a tensor-core unit with no measured ceiling), where memory_bound alone would say
 * "memory". */
static json_value *point_json(const rb_point *pt, rb_roof roof)
{
    const char *bound = isnan(pt->floor_ms)                              ? "unknown"
                        : rb_roof_kind_of(roof) == RB_KIND_LATENCY       ? "latency"
                        : rb_roof_is_link(roof)                          ? "link"
                        : pt->memory_bound                               ? "memory"
                                                                         : "compute";
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
    if (!o || json_object_set(o, "vs_ceiling", point_json(&v->vs_ceiling, v->roof)) ||
        json_object_set(o, "vs_peak", point_json(&v->vs_peak, v->roof)) ||
        (v->roof_note[0] && json_set_string(o, "roof_note", v->roof_note)) ||
        json_set_number(o, "speedup", v->speedup) ||
        json_set_number(o, "expected_ms", v->expected_ms) ||
        json_set_string(o, "verdict", rb_verdict_name(v->verdict)) ||
        (isfinite(v->threshold) && json_set_number(o, "threshold", v->threshold)) ||
        (v->per_clock && json_set_bool(o, "per_clock", 1)) ||
        (v->cause[0] &&
         (json_set_string(o, "cause", v->cause) || json_set_string(o, "evidence", v->evidence)))) {
        json_free(o);
        return NULL;
    }
    return o;
}

json_value *rb_report_roofs_json(const rb_roofs *ceilings, const rb_roofs *peaks)
{
    json_value *all = json_new_object();
    for (int r = 0; all && r < RB_ROOF_COUNT; r++) {
        json_value *o = json_new_object();
        if (!o || json_set_string(o, "kind", rb_roof_kind_name(rb_roof_kind_of((rb_roof)r))) ||
            json_set_number(o, "measured", ceilings->value[r]) || /* NaN: null, unknown */
            json_set_number(o, "peak", peaks->value[r])) {
            json_free(o);
            json_free(all);
            return NULL;
        }
        if (json_object_set(all, rb_roof_key((rb_roof)r), o)) { /* frees o when it fails */
            json_free(all);
            return NULL;
        }
    }
    return all;
}

json_value *rb_report_json(const rb_pair_result *pairs, int n, const rb_roofs *ceilings,
                           const rb_roofs *peaks, json_value *meta)
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
               json_set_string(o, "reason", p->reason) || json_set_number(o, "wall_s", p->wall_s) ||
               (isfinite(p->setup_s) && json_set_number(o, "setup_s", p->setup_s));
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
    if (json_object_set(meta, "roofs", rb_report_roofs_json(ceilings, peaks))) {
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

/* ---- CSV ---- */

static void csv_field(rb_sbuf *b, const char *s, int last)
{
    rb_csv_field(b, s, last);
}

/* A number field: empty when NaN (a spreadsheet's blank, where the table prints '-'). */
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
        csv_field(b, "", 0);
        for (int i = 0; i < 7; i++) /* median_ms .. speedup */
            csv_field(b, "", 0);
        csv_field(b, p->status == RB_PAIR_SKIPPED ? "skipped" : "failed", 0);
        csv_field(b, "", 0);
        csv_field(b, p->reason, 1);
        return;
    }
    row r;
    format_row(p, v, &r);
    csv_field(b, v->name, 0);
    csv_number(b, v->timed ? v->time_ms.median : NAN, 1);
    csv_number(b, v->timed ? v->time_ms.noise : NAN, 1);
    csv_number(b, r.rate_value, 1);
    csv_field(b, r.rate_unit, 0);
    csv_number(b, v->timed ? v->vs_ceiling.efficiency : NAN, 100);
    csv_number(b, v->timed ? v->vs_peak.efficiency : NAN, 100);
    csv_number(b, v->speedup, 1);
    csv_field(b, rb_verdict_name(v->verdict), 0);
    csv_field(b, roof_cell(v), 0);
    char note[sizeof v->note + sizeof v->roof_note + 4];
    rb_fmt(note, sizeof note, "%s%s%s", v->note, v->note[0] && v->roof_note[0] ? "; " : "",
           v->roof_note);
    csv_field(b, note, 1);
}

char *rb_report_csv(const rb_pair_result *pairs, int n)
{
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "pair,input,size,variant,median_ms,noise,rate,rate_unit,pct_ceil,pct_peak,speedup,"
               "verdict,roof,note\r\n");
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        if (p->status != RB_PAIR_OK && p->n_variants == 0)
            csv_row(&b, p, NULL);
        for (int k = 0; k < p->n_variants; k++)
            csv_row(&b, p, &p->v[k]);
    }
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
