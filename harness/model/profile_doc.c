/* SPDX-License-Identifier: MIT */
/* The hierarchical roofline's levels and roofs, and the profile document (model/profile.h;
 * docs/profile.md gives its schema). */
#include <math.h>
#include <string.h>

#include "profile.h"

void rb_profile_ncu_metrics(rb_sbuf *b)
{
    static const char *const extra[] = {"gpu__time_duration.sum", "launch__registers_per_thread",
                                        "device__attribute_display_name"};
    static const char *const ops[] = {"fadd", "fmul", "ffma", "dadd", "dmul",
                                      "dfma", "hadd", "hmul", "hfma"};
    /* the names ncu 2025.3.1 has on an H200 (tests/data/ncu_raw_h200.csv): a metric ncu does
     * not know fails the whole profile */
    static const char *const tensor[] = {"fp16",          "bf16_dst_fp32",    "tf32_dst_fp32",
                                         "fp8_sparsity_off", "fp8_sparsity_on", "fp64"};
    rb_sbuf_add(b, "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,"
                   "l1tex__t_bytes.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,"
                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,"
                   "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,"
                   "sm__warps_active.avg.pct_of_peak_sustained_active");
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        rb_sbuf_add(b, ",smsp__sass_thread_inst_executed_op_%s_pred_on.sum", ops[k]);
    for (size_t k = 0; k < sizeof tensor / sizeof tensor[0]; k++)
        rb_sbuf_add(b, ",sm__ops_path_tensor_src_%s.sum", tensor[k]);
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++)
        rb_sbuf_add(b, ",%s", extra[k]);
}

const char *rb_profile_level_name(rb_profile_level l)
{
    return l == RB_LEVEL_DRAM ? "dram" : l == RB_LEVEL_L2 ? "l2" : l == RB_LEVEL_L1 ? "l1" : "?";
}

double rb_profile_level_bytes(const rb_profile_variant *v, rb_profile_level l)
{
    if (!v->profiled)
        return NAN;
    return l == RB_LEVEL_DRAM ? rb_profile_dram_bytes(v)
           : l == RB_LEVEL_L2 ? v->v[RB_PM_L2_BYTES]
                              : v->v[RB_PM_L1_BYTES];
}

double rb_profile_point_flops(const rb_profile_variant *v)
{
    return v->declared_flops > 0 ? v->declared_flops : NAN;
}

void rb_profile_roofs_none(rb_profile_roofs *r)
{
    memset(r, 0, sizeof *r);
    for (int l = 0; l < RB_LEVEL_COUNT; l++)
        r->level_gbps[l] = NAN;
    r->fp32_tflops = r->fp64_tflops = r->tf32_tflops = NAN;
    r->fp16_tflops = r->bf16_tflops = r->fp8_tflops = NAN;
}

/* A roof: a positive finite number, else NaN. */
static double roof_at(const json_value *c, const char *key)
{
    double x = json_number_at(c, key);
    return x > 0 && isfinite(x) ? x : NAN;
}

void rb_profile_roofs_from(const json_value *expectation, const char *source, rb_profile_roofs *r)
{
    rb_profile_roofs_none(r);
    const json_value *c = json_get(expectation, "ceilings");
    if (!c || c->type != JSON_OBJECT)
        return;
    rb_fmt(r->source, sizeof r->source, "%s", source);
    r->level_gbps[RB_LEVEL_DRAM] = roof_at(c, "dram_gbps");
    r->level_gbps[RB_LEVEL_L2] = roof_at(c, "l2_read_gbps");
    r->level_gbps[RB_LEVEL_L1] = roof_at(c, "smem_gbps");
    r->fp32_tflops = roof_at(c, "fp32_tflops");
    r->fp64_tflops = roof_at(c, "fp64_tflops");
    r->tf32_tflops = roof_at(c, "tf32_tflops");
    r->fp16_tflops = roof_at(c, "fp16_tflops");
    r->bf16_tflops = roof_at(c, "bf16_tflops");
    r->fp8_tflops = roof_at(c, "fp8_tflops");
}

double rb_profile_compute_roof(const rb_profile_variant *v, const rb_profile_roofs *r,
                               const char **key)
{
    static const struct {
        rb_profile_metric m;
        const char *key;
        size_t offset;
    } pipes[] = {
        {RB_PM_TENSOR_FP8_OPS, "fp8_tflops", offsetof(rb_profile_roofs, fp8_tflops)},
        {RB_PM_TENSOR_FP16_OPS, "fp16_tflops", offsetof(rb_profile_roofs, fp16_tflops)},
        {RB_PM_TENSOR_BF16_OPS, "bf16_tflops", offsetof(rb_profile_roofs, bf16_tflops)},
        {RB_PM_TENSOR_TF32_OPS, "tf32_tflops", offsetof(rb_profile_roofs, tf32_tflops)},
        {RB_PM_TENSOR_FP64_OPS, "fp64_tflops", offsetof(rb_profile_roofs, fp64_tflops)},
        {RB_PM_FP64_FLOPS, "fp64_tflops", offsetof(rb_profile_roofs, fp64_tflops)},
        {RB_PM_FP16_FLOPS, "fp16_tflops", offsetof(rb_profile_roofs, fp16_tflops)},
        {RB_PM_FP32_FLOPS, "fp32_tflops", offsetof(rb_profile_roofs, fp32_tflops)},
    };
    int best = -1;
    for (int k = 0; k < (int)(sizeof pipes / sizeof pipes[0]); k++)
        if (v->v[pipes[k].m] > 0 && (best < 0 || v->v[pipes[k].m] > v->v[pipes[best].m]))
            best = k;
    if (best < 0)
        best = (int)(sizeof pipes / sizeof pipes[0]) - 1; /* no FLOPs counted: FP32's */
    *key = pipes[best].key;
    return *(const double *)((const char *)r + pipes[best].offset);
}

static const char *verdict_name(rb_profile_bytes_verdict b)
{
    return b == RB_PB_MATCHES ? "matches" : b == RB_PB_MORE ? "more" : b == RB_PB_LESS ? "less"
                                                                                        : "unchecked";
}

static json_value *roofs_json(const rb_profile_roofs *r)
{
    json_value *o = json_new_object();
    int bad = !o;
    for (int l = 0; l < RB_LEVEL_COUNT && !bad; l++) {
        char key[32];
        rb_fmt(key, sizeof key, "%s_gbps", rb_profile_level_name((rb_profile_level)l));
        bad = json_set_number(o, key, r->level_gbps[l]);
    }
    if (bad || json_set_number(o, "fp32_tflops", r->fp32_tflops) ||
        json_set_number(o, "fp64_tflops", r->fp64_tflops) ||
        json_set_number(o, "tf32_tflops", r->tf32_tflops) ||
        json_set_number(o, "fp16_tflops", r->fp16_tflops) ||
        json_set_number(o, "bf16_tflops", r->bf16_tflops) ||
        json_set_number(o, "fp8_tflops", r->fp8_tflops) ||
        json_set_string(o, "source", r->source[0] ? r->source : "none")) {
        json_free(o);
        return NULL;
    }
    return o;
}

static json_value *points_json(const rb_profile_variant *v)
{
    json_value *a = json_new_array();
    double flops = rb_profile_point_flops(v), t = v->v[RB_PM_TIME_S];
    for (int l = 0; a && l < RB_LEVEL_COUNT; l++) {
        double bytes = rb_profile_level_bytes(v, (rb_profile_level)l);
        json_value *p = json_new_object();
        if (!p || json_array_push(a, p) ||
            json_set_string(p, "level", rb_profile_level_name((rb_profile_level)l)) ||
            json_set_number(p, "bytes", bytes) ||
            json_set_number(p, "intensity", bytes > 0 ? flops / bytes : NAN) ||
            json_set_number(p, "gbps", t > 0 ? bytes / t * 1e-9 : NAN)) {
            json_free(a);
            return NULL;
        }
    }
    return a;
}

/* A new container set at key in o (which owns it), or NULL. */
static json_value *child(json_value *o, const char *key, json_value *c)
{
    return json_object_set(o, key, c) == 0 ? c : NULL;
}

static int variant_fill(json_value *o, const rb_profile_variant *v)
{
    json_value *kernels = child(o, "kernels", json_new_array());
    int bad = !kernels;
    double dram = rb_profile_dram_bytes(v);
    for (int k = 0; k < v->n_names && k < 4 && !bad; k++)
        bad = json_array_push(kernels, json_new_string(v->kernels[k]));
    json_value *metrics = bad ? NULL : child(o, "metrics", json_new_object());
    bad = !metrics;
    for (int m = 0; m < RB_PM_COUNT && !bad; m++)
        bad = json_set_number(metrics, rb_profile_metric_key((rb_profile_metric)m), v->v[m]);
    json_value *stalls = bad ? NULL : child(o, "stalls", json_new_array());
    bad = !stalls;
    for (int k = 0; k < v->n_stalls && !bad; k++) {
        json_value *s = json_new_object();
        bad = json_array_push(stalls, s) || json_set_string(s, "reason", v->stalls[k].reason) ||
              json_set_number(s, "per_issue", v->stalls[k].value) ||
              json_set_number(s, "share", rb_profile_stall_share(v, k));
    }
    return bad || json_set_number(o, "declared_flops", v->declared_flops) ||
                   json_set_number(o, "declared_bytes", v->declared_bytes) ||
                   json_set_number(o, "dram_bytes", dram) ||
                   json_set_number(o, "dram_ratio",
                                   v->declared_bytes > 0 ? dram / v->declared_bytes : NAN) ||
                   json_set_string(o, "work_model", verdict_name(v->bytes_verdict)) ||
                   json_set_number(o, "measured_flops", rb_profile_flops(v)) ||
                   json_object_set(o, "points", points_json(v))
               ? -1
               : 0;
}

static json_value *variant_json(const rb_profile_variant *v)
{
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "pair", v->pair) || json_set_string(o, "row", v->row) ||
        json_set_string(o, "variant", v->variant) || json_set_bool(o, "profiled", v->profiled) ||
        json_set_number(o, "launches", v->n_kernels) || variant_fill(o, v) != 0) {
        json_free(o);
        return NULL;
    }
    return o;
}

json_value *rb_profile_document(const rb_profile *p, const rb_profile_roofs *r,
                                const rb_profile_meta *m)
{
    json_value *d = json_new_object();
    if (!d || json_set_number(d, "schema", 1) || json_set_string(d, "kind", "roofbench-profile") ||
        json_set_string(d, "device", p->device[0] ? p->device : "?") ||
        json_set_string(d, "git", m->git) || json_set_string(d, "date", m->date) ||
        json_set_string(d, "size", m->size) || json_set_string(d, "ncu", m->ncu_version) ||
        json_set_string(d, "command", m->command) || json_set_number(d, "wall_s", m->wall_s) ||
        json_set_number(d, "bytes_tolerance", RB_PROFILE_BYTES_TOLERANCE) ||
        json_set_number(d, "unmatched_launches", p->unmatched) ||
        json_set_number(d, "repeat_launches", p->repeats) ||
        json_set_number(d, "windows", p->windows) ||
        json_object_set(d, "roofs", roofs_json(r))) {
        json_free(d);
        return NULL;
    }
    json_value *vs = child(d, "variants", json_new_array());
    int bad = !vs;
    for (int i = 0; i < p->n && !bad; i++)
        bad = json_array_push(vs, variant_json(&p->variants[i]));
    if (bad) {
        json_free(d);
        return NULL;
    }
    return d;
}
