/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

double rb_report_bytes(const rb_pair_result *p, const rb_variant_result *v)
{
    return isnan(v->bytes) ? p->bytes : v->bytes;
}

/* Appends "what" to the comma-separated list in buf (cut where it does not fit). */
static void add_place(char *buf, size_t size, const char *what)
{
    size_t len = strlen(buf);
    if (size > len)
        rb_fmt(buf + len, size - len, "%s%s", len ? ", " : "", what);
}

int rb_report_contention(const rb_gpu_check *start, const rb_pair_result *pairs, int n,
                         rb_contention *all, char *where, size_t where_size)
{
    rb_contention_init(all);
    if (where && where_size)
        where[0] = '\0';
    if (start && rb_contention_any(&start->seen)) {
        rb_contention_merge(all, &start->seen);
        if (where)
            add_place(where, where_size, "before the run");
    }
    for (int i = 0; i < n; i++) {
        char place[200];
        if (rb_contention_any(&pairs[i].contended_at_start)) {
            rb_contention_merge(all, &pairs[i].contended_at_start);
            rb_fmt(place, sizeof place, "%s (at its start)", pairs[i].name);
            if (where)
                add_place(where, where_size, place);
        }
        for (int k = 0; k < pairs[i].n_variants; k++)
            if (rb_variant_contended(&pairs[i].v[k])) {
                rb_contention_merge(all, &pairs[i].v[k].contended_by);
                rb_fmt(place, sizeof place, "%s/%s", pairs[i].name, pairs[i].v[k].name);
                if (where)
                    add_place(where, where_size, place);
            }
    }
    return rb_contention_any(all);
}

json_value *rb_report_contention_json(const rb_gpu_check *start, const rb_pair_result *pairs, int n)
{
    rb_contention all;
    char where[2000];
    int contended = rb_report_contention(start, pairs, n, &all, where, sizeof where);
    json_value *o = json_new_object(), *before = json_new_object();
    int checked = start && start->checked;
    int bad = !o || !before || json_set_bool(o, "checked", checked) ||
              (!checked &&
               json_set_string(o, "why", start && start->why[0] ? start->why : "not looked at")) ||
              json_set_bool(o, "contended", contended) ||
              rb_contention_to_json(&all, o, "processes") ||
              json_set_string(o, "where", contended ? where : "");
    if (!bad && start && !isnan(start->gpu_util))
        bad = json_set_number(before, "utilization_gpu_pct", start->gpu_util) ||
              json_set_number(before, "utilization_memory_pct", start->mem_util);
    if (bad || json_object_set(o, "before_run", before)) {
        if (bad)
            json_free(before);
        json_free(o);
        return NULL;
    }
    return o;
}

double rb_report_extra(const rb_variant_result *v, const char *name)
{
    for (int x = 0; x < v->n_extras; x++)
        if (strcmp(v->extras[x].name, name) == 0)
            return v->extras[x].value;
    return NAN;
}

/* Why a variant can sit above 100% of its measured roof, by the kind of roof: the ceiling was
 * measured with one kernel's access pattern or launch, and the variant's differs. */
static const char *above_roof_why(const rb_variant_result *v)
{
    rb_roof r = v->named_roof;
    if (rb_roof_kind_of(r) == RB_KIND_LATENCY)
        return "the ceiling is an empty kernel launched back to back, measured in another run: "
               "the host's launch cost drifts between runs (see its noise in ceilings.methods), "
               "and programmatic dependent launch overlaps launches";
    if (rb_roof_kind_of(r) == RB_KIND_COMPUTE && !rb_timing_sustained(v->timing))
        return "the roof is a sustained rate (0.5 s warm, 1 s of samples, at the power cap) and "
               "this variant was timed in ~1 ms samples nearer the boost clock: not one regime "
               "(a pair whose figure is what the tensor cores sustain sets sustain_s)";
    if (rb_roof_kind_of(r) == RB_KIND_COMPUTE)
        return "the ceiling is the best sustained rate of the method recorded in the expectation "
               "file; this variant ran at another clock or a friendlier shape";
    if (rb_roof_is_link(r))
        return "the link's speed drifts between runs (the ceiling was measured in another run); "
               "see the method recorded in the expectation file";
    return "the roof was measured with a different access mix (ceilings.methods); part of this "
           "variant's declared traffic hits L2, or its read/write mix streams faster";
}

/* The noise a point may sit above its measured roof by: its own (the spread of its samples)
 * plus the roof's (of the samples that measured it), each 0 when unknown. */
static double noise_allowed(const rb_variant_result *v, const rb_roofs *ceilings)
{
    double own = v->time_ms.noise, roof = ceilings->noise[v->named_roof];
    return (own >= 0 ? own : 0.0) + (roof >= 0 ? roof : 0.0);
}

/* A valid point above its measured roof: within the noise, marked and explained
 * (roof_note); beyond it, a measurement inconsistency, not a result. */
static void above_roof(rb_variant_result *v, const rb_roofs *ceilings)
{
    double e = v->vs_ceiling.efficiency, allowed = noise_allowed(v, ceilings);
    v->inconsistent = e > 1.0 + allowed;
    if (v->inconsistent)
        rb_fmt(v->roof_note, sizeof v->roof_note,
               "measurement inconsistency: %.1f%% of the measured %s, above it by more than the "
               "noise (%.1f%%), which no point can be: %s",
               100.0 * e, rb_roof_key(v->named_roof), 100.0 * allowed, above_roof_why(v));
    else
        rb_fmt(v->roof_note, sizeof v->roof_note, "%.1f%% of the measured %s: %s", 100.0 * e,
               rb_roof_key(v->named_roof), above_roof_why(v));
}

/* Places v on its roof against the ceilings and the peaks, and names the roof that binds. */
static void derive_point(const rb_pair_result *p, rb_variant_result *v, const rb_roofs *ceilings,
                         const rb_roofs *peaks)
{
    double ms = v->time_ms.median, bytes = isnan(v->bytes) ? p->bytes : v->bytes;
    if (v->roof >= RB_ROOF_COUNT) /* a record that names no roof: the derived one */
        v->roof = rb_roof_derived(v->unit, p->flops);
    double rate = v->roof_rate[0] ? rb_report_extra(v, v->roof_rate) : NAN;
    /* A latency roof needs the pair's time per launch: without the extra there is no point. */
    if (v->roof_rate[0] && isnan(rate))
        rate = 0.0; /* rb_roofline_point: no positive rate, no efficiency */
    rb_roofline_point(p->flops, bytes, ms, v->unit, v->roof, rate, ceilings, &v->vs_ceiling);
    rb_roofline_point(p->flops, bytes, ms, v->unit, v->roof, rate, peaks, &v->vs_peak);
    v->named_roof = !isnan(v->vs_ceiling.efficiency) ? v->vs_ceiling.binding
                    : !isnan(v->vs_peak.efficiency)  ? v->vs_peak.binding
                                                     : v->roof;
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
    v->inconsistent = 0;
    /* (a roof raised to a variant's own rate puts it at 1, give or take a rounding) */
    if (v->valid && v->vs_ceiling.efficiency > 1.0 + 1e-9)
        above_roof(v, ceilings);
}

static void derive_all(rb_pair_result *pairs, int n, const rb_roofs *ceilings,
                       const rb_roofs *peaks)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++)
            if (pairs[i].v[k].timed)
                derive_point(&pairs[i], &pairs[i].v[k], ceilings, peaks);
}

/* May v raise the measured value of the compute roof that binds it? Only a valid variant timed
 * the way the compute roofs are measured (sustained: RB_TIMING_SUSTAINED or in turn), at its
 * pair's full size, bound by that roof: a burst nearer the boost clock is another regime, and
 * a point of a smaller shape says nothing of the best rate. */
static int may_raise(const rb_pair_result *p, const rb_variant_result *v)
{
    return v->timed && v->valid && rb_timing_sustained(v->timing) && p->size >= p->full_size &&
           rb_roof_kind_of(v->vs_ceiling.binding) == RB_KIND_COMPUTE &&
           !isnan(v->vs_ceiling.efficiency);
}

/* A measured roof is the best that any code we have reaches in its regime: where a variant that
 * may raise it (may_raise) ran faster than `roofbench ceilings` measured (a hand-written GEMM
 * above cuBLASLt's candidates), the roof becomes that variant's rate for this run, the value
 * measured is kept beside it, and the variant's note says so. A roof never measured is not
 * made up from a variant (it stays a gap). Returns the number of roofs raised. */
static int raise_roofs(rb_pair_result *pairs, int n, rb_roofs *ceilings)
{
    rb_variant_result *best[RB_ROOF_COUNT] = {NULL};
    const rb_pair_result *best_pair[RB_ROOF_COUNT] = {NULL};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < pairs[i].n_variants; k++) {
            rb_variant_result *v = &pairs[i].v[k];
            rb_roof r = v->vs_ceiling.binding;
            if (!may_raise(&pairs[i], v) || !(v->vs_ceiling.efficiency > 1.0 + 1e-9))
                continue;
            if (!best[r] || v->vs_ceiling.tflops > best[r]->vs_ceiling.tflops) {
                best[r] = v;
                best_pair[r] = &pairs[i];
            }
        }
    int raised = 0;
    for (int r = 0; r < RB_ROOF_COUNT; r++) {
        if (!best[r])
            continue;
        rb_variant_result *v = best[r];
        if (isnan(ceilings->measured[r]))
            ceilings->measured[r] = ceilings->value[r];
        ceilings->value[r] = v->vs_ceiling.tflops;
        /* the new roof's noise: the variant's own */
        ceilings->noise[r] = v->time_ms.noise;
        rb_fmt(ceilings->raised_by[r], sizeof ceilings->raised_by[r], "%s/%s", best_pair[r]->name,
               v->name);
        size_t len = strlen(v->note);
        rb_fmt(v->note + len, sizeof v->note - len,
               "%sraised the %s roof of this run from %.1f (measured by roofbench ceilings) to "
               "its own sustained rate, %.1f",
               len ? "; " : "", rb_roof_key((rb_roof)r), ceilings->measured[r], ceilings->value[r]);
        raised++;
    }
    return raised;
}

void rb_report_raised_method(const rb_roofs *ceilings, rb_roof r, char *buf, size_t size)
{
    if ((unsigned)r >= RB_ROOF_COUNT || !ceilings->raised_by[r][0]) {
        rb_fmt(buf, size, "%s", "");
        return;
    }
    rb_fmt(buf, size, "%s: %.1f (%s, sustained, this run; roofbench ceilings measured %.1f)",
           rb_roof_key(r), ceilings->value[r], ceilings->raised_by[r], ceilings->measured[r]);
}

void rb_report_derive(rb_pair_result *pairs, int n, rb_roofs *ceilings, const rb_roofs *peaks)
{
    derive_all(pairs, n, ceilings, peaks);
    if (raise_roofs(pairs, n, ceilings) > 0)
        derive_all(pairs, n, ceilings, peaks); /* every point placed again on the new roof */
    for (int i = 0; i < n; i++) {
        rb_pair_result *p = &pairs[i];
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

/* bound: which term of the floor is the larger ("memory" or "compute"), or the kind of roof that
 * has a single term ("link": pcie or nvlink, "latency"); "unknown" when a roof it needs is
 * unknown (a tensor-core unit with no measured ceiling), where memory_bound alone would say
 * "memory"; "none" for a point never placed (a variant not timed: skipped, invalid, failed). */
static json_value *point_json(const rb_point *pt)
{
    rb_roof roof = pt->binding;
    const char *bound = roof >= RB_ROOF_COUNT                      ? "none"
                        : isnan(pt->floor_ms)                      ? "unknown"
                        : rb_roof_kind_of(roof) == RB_KIND_LATENCY ? "latency"
                        : rb_roof_is_link(roof)                    ? "link"
                        : rb_roof_kind_of(roof) == RB_KIND_COMPUTE ? "compute"
                                                                   : "memory";
    json_value *o = json_new_object();
    if (!o || json_set_number(o, "ai", pt->ai) || json_set_number(o, "gbps", pt->gbps) ||
        json_set_number(o, "tflops", pt->tflops) || json_set_number(o, "floor_ms", pt->floor_ms) ||
        json_set_number(o, "efficiency", pt->efficiency) || json_set_string(o, "bound", bound) ||
        (roof < RB_ROOF_COUNT && json_set_string(o, "roof", rb_roof_key(roof)))) {
        json_free(o);
        return NULL;
    }
    return o;
}

/* The rate a row shows beside its roof, the same in the table, the CSV and the results: us per
 * launch on a latency roof (the pair's own figure), TFLOP/s on a compute roof, else GB/s (the
 * pair's own figure when it gives a positive one, nccl's bus bandwidth; else bytes / time).
 * NaN and "" when not timed. */
void rb_report_rate(const rb_pair_result *p, const rb_variant_result *v, double *value,
                    const char **unit)
{
    (void)p;
    *value = NAN;
    *unit = "";
    if (!v->timed)
        return;
    rb_roof r = v->named_roof < RB_ROOF_COUNT ? v->named_roof : v->roof;
    double own = v->roof_rate[0] ? rb_report_extra(v, v->roof_rate) : NAN;
    if (rb_roof_kind_of(r) == RB_KIND_LATENCY) {
        *value = own;
        *unit = isnan(own) ? "" : "us/launch";
    } else if (rb_roof_kind_of(r) == RB_KIND_COMPUTE) {
        *value = v->vs_ceiling.tflops;
        *unit = "TFLOP/s";
    } else {
        /* (nccl on one GPU moves nothing over a link: busbw 0, and bytes / time shown) */
        *value = own > 0 && r == v->roof ? own : v->vs_ceiling.gbps;
        *unit = "GB/s";
    }
}

/* A variant as the results write it: the record, then where it sits: "roof" is the roof it is
 * named by and judged against (the binding one), "declared_roof" the one its pair declares
 * (or derives), "rate" and "rate_unit" what the table shows beside it. */
static json_value *variant_json(const rb_pair_result *p, const rb_variant_result *v)
{
    json_value *o = rb_variant_to_json(v);
    double rate;
    const char *unit;
    rb_report_rate(p, v, &rate, &unit);
    rb_roof declared = v->roof < RB_ROOF_COUNT ? v->roof : rb_roof_derived(v->unit, p->flops);
    rb_roof named = v->named_roof < RB_ROOF_COUNT ? v->named_roof : declared;
    if (!o || rb_energy_set_rates(o, &v->energy, p->flops, rb_report_bytes(p, v)) ||
        json_set_string(o, "roof", rb_roof_key(named)) ||
        json_set_string(o, "declared_roof", rb_roof_key(declared)) ||
        json_object_set(o, "vs_ceiling", point_json(&v->vs_ceiling)) ||
        json_object_set(o, "vs_peak", point_json(&v->vs_peak)) ||
        (v->timed && (json_set_number(o, "rate", rate) || json_set_string(o, "rate_unit", unit))) ||
        (v->roof_note[0] && json_set_string(o, "roof_note", v->roof_note)) ||
        (v->inconsistent && json_set_bool(o, "inconsistent", 1)) ||
        json_set_number(o, "speedup", v->speedup) ||
        json_set_number(o, "expected_ms", v->expected_ms) ||
        json_set_string(o, "verdict", rb_verdict_name(v->verdict)) ||
        (isfinite(v->threshold) && json_set_number(o, "threshold", v->threshold)) ||
        (v->per_clock && json_set_bool(o, "per_clock", 1)) ||
        (v->cause[0] && json_set_string(o, "cause", v->cause)) ||
        ((v->cause[0] || (v->verdict == RB_VERDICT_STALE && v->evidence[0])) &&
         json_set_string(o, "evidence", v->evidence))) {
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
        char method[300];
        rb_report_raised_method(ceilings, (rb_roof)r, method, sizeof method);
        if (!o || json_set_string(o, "kind", rb_roof_kind_name(rb_roof_kind_of((rb_roof)r))) ||
            json_set_number(o, "measured", ceilings->value[r]) || /* NaN: null, unknown */
            json_set_number(o, "peak", peaks->value[r]) ||
            (method[0] && (json_set_number(o, "ceiling", ceilings->measured[r]) ||
                           json_set_string(o, "raised_by", ceilings->raised_by[r]) ||
                           json_set_string(o, "method", method)))) {
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
        bad |= rb_contention_any(&p->contended_at_start) &&
               rb_contention_to_json(&p->contended_at_start, o, "contended_at_start");
        if (!isnan(p->idle_gpu_util))
            bad |= json_set_number(o, "idle_utilization_gpu_pct", p->idle_gpu_util) ||
                   json_set_number(o, "idle_utilization_memory_pct", p->idle_mem_util);
        for (int k = 0; !bad && k < p->n_variants; k++)
            bad |= json_array_push(vs, variant_json(p, &p->v[k]));
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

void rb_report_json_causes(json_value *doc, const rb_pair_result *pairs, int n)
{
    const json_value *dp = json_get(doc, "pairs");
    for (int i = 0; dp && i < n && (size_t)i < dp->count; i++) {
        const json_value *nvs = json_get(dp->items[i], "variants");
        for (int k = 0; k < pairs[i].n_variants && nvs && (size_t)k < nvs->count; k++) {
            const rb_variant_result *v = &pairs[i].v[k];
            if (v->verdict != RB_VERDICT_REGRESSED && v->verdict != RB_VERDICT_IMPROVED)
                continue;
            /* (out of memory here leaves the file without them: the table still says it) */
            if (!json_set_string(nvs->items[k], "cause", v->cause) &&
                !json_set_string(nvs->items[k], "evidence", v->evidence) && v->machine_explained)
                json_set_bool(nvs->items[k], "machine_explained", 1);
        }
    }
}
