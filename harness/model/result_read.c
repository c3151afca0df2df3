/* SPDX-License-Identifier: MIT */
#include "result_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static rb_verdict verdict_from_name(const char *s)
{
    for (int v = RB_VERDICT_NONE; v < RB_VERDICT_COUNT; v++)
        if (!strcmp(s, rb_verdict_name((rb_verdict)v)))
            return (rb_verdict)v;
    return RB_VERDICT_NONE;
}

static rb_roof roof_at(const json_value *o, const char *key, rb_roof fallback)
{
    rb_roof r;
    const char *s = json_string_at(o, key, NULL);
    return s && rb_roof_from_key(s, &r) == 0 ? r : fallback;
}

static void point_read(const json_value *o, rb_roof named, rb_point *pt)
{
    rb_point_none(pt);
    if (!o)
        return;
    pt->ai = json_number_at(o, "ai");
    pt->gbps = json_number_at(o, "gbps");
    pt->tflops = json_number_at(o, "tflops");
    pt->floor_ms = json_number_at(o, "floor_ms");
    pt->efficiency = json_number_at(o, "efficiency");
    pt->memory_bound = !strcmp(json_string_at(o, "bound", ""), "memory");
    pt->compute_bound = !strcmp(json_string_at(o, "bound", ""), "compute");
    pt->binding = roof_at(o, "roof", named);
}

static void copy_string(const json_value *o, const char *key, char *out, size_t size)
{
    rb_fmt(out, size, "%s", json_string_at(o, key, ""));
}

/* What the parent derived for the variant (model/report.c's variant_json), read back. */
static void derived_read(const json_value *o, rb_variant_result *v)
{
    v->named_roof = roof_at(o, "roof", RB_ROOF_COUNT);
    v->roof = roof_at(o, "declared_roof", v->named_roof);
    point_read(json_get(o, "vs_ceiling"), v->named_roof, &v->vs_ceiling);
    point_read(json_get(o, "vs_peak"), v->named_roof, &v->vs_peak);
    copy_string(o, "roof_note", v->roof_note, sizeof v->roof_note);
    v->inconsistent = json_true_at(o, "inconsistent");
    v->speedup = json_number_at(o, "speedup");
    v->expected_ms = json_number_at(o, "expected_ms");
    v->verdict = verdict_from_name(json_string_at(o, "verdict", ""));
    v->threshold = json_number_at(o, "threshold");
    v->per_clock = json_true_at(o, "per_clock");
    copy_string(o, "cause", v->cause, sizeof v->cause);
    copy_string(o, "evidence", v->evidence, sizeof v->evidence);
    /* (the ratio a verdict judged is not recorded: the time's, which it is unless per_clock) */
    v->judged_ratio = v->time_ms.median / v->expected_ms;
}

/* The pair's kernels (what the runtime said of each), so that a table read back lists them as the
 * run did. */
static int kernels_read(const json_value *ks, rb_pair_result *p, char *err, size_t err_size)
{
    for (size_t k = 0; ks && ks->type == JSON_ARRAY && k < ks->count; k++) {
        char why[200];
        if (p->n_kernels == RB_MAX_KERNELS) {
            rb_fmt(err, err_size, "%s: more than %d kernels", p->name, RB_MAX_KERNELS);
            return -1;
        }
        if (rb_kernel_from_json(ks->items[k], &p->kernels[p->n_kernels++], why, sizeof why) != 0) {
            rb_fmt(err, err_size, "%s: %s", p->name, why);
            return -1;
        }
    }
    return 0;
}

static int pair_read(const json_value *o, rb_pair_result *p, char *err, size_t err_size)
{
    static const char *const status[] = {"ok", "failed", "skipped"};
    memset(p, 0, sizeof *p);
    copy_string(o, "name", p->name, sizeof p->name);
    copy_string(o, "pattern", p->pattern, sizeof p->pattern);
    copy_string(o, "reason", p->reason, sizeof p->reason);
    for (int s = 0; s < 3; s++)
        if (!strcmp(json_string_at(o, "status", "ok"), status[s]))
            p->status = (rb_pair_status)s;
    double size = json_number_at(o, "size"), rows = json_number_at(o, "rows");
    double cols = json_number_at(o, "cols");
    p->size = size >= 0 && size < 1e19 ? (uint64_t)size : 0;
    p->rows = rows >= 1 && rows < 1e19 ? (uint64_t)rows : 1;
    p->cols = cols >= 0 && cols < 1e19 ? (uint64_t)cols : p->size;
    p->full_size = p->size;
    p->flops = json_number_at(o, "flops");
    p->bytes = json_number_at(o, "bytes");
    p->link_bytes = json_true_at(o, "link_bytes");
    p->wall_s = json_number_at(o, "wall_s");
    p->setup_s = json_number_at(o, "setup_s");
    p->idle_gpu_util = json_number_at(o, "idle_utilization_gpu_pct");
    p->idle_mem_util = json_number_at(o, "idle_utilization_memory_pct");
    if (rb_contention_from_json(o, "contended_at_start", &p->contended_at_start, err, err_size) !=
        0)
        return -1;
    const json_value *vs = json_get(o, "variants");
    for (size_t k = 0; vs && vs->type == JSON_ARRAY && k < vs->count; k++) {
        if (p->n_variants == RB_MAX_VARIANTS) {
            rb_fmt(err, err_size, "%s: more than %d variants", p->name, RB_MAX_VARIANTS);
            return -1;
        }
        rb_variant_result *v = &p->v[p->n_variants++];
        char why[200];
        if (rb_variant_from_json(vs->items[k], v, why, sizeof why) != 0) {
            rb_fmt(err, err_size, "%s: %s", p->name, why);
            return -1;
        }
        derived_read(vs->items[k], v);
    }
    return kernels_read(json_get(o, "kernels"), p, err, err_size);
}

int rb_results_read(const json_value *doc, rb_pair_result **pairs, int *n, char *err,
                    size_t err_size)
{
    const json_value *list = json_get(doc, "pairs");
    *pairs = NULL;
    *n = 0;
    if (!list || list->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "not a roofbench results file (no \"pairs\" array)");
        return -1;
    }
    rb_pair_result *p = calloc(list->count ? list->count : 1, sizeof *p);
    if (!p) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < list->count; i++)
        if (pair_read(list->items[i], &p[i], err, err_size) != 0) {
            free(p);
            return -1;
        }
    *pairs = p;
    *n = (int)list->count;
    return 0;
}

/* ---- the document: the run's facts and roofs ---- */

const char *rb_results_text(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

/* A copy of the string at key (NULL when o holds none there); *bad set when out of memory. */
static char *text_at(const json_value *o, const char *key, int *bad)
{
    const char *s = json_string_at(o, key, NULL);
    char *copy = s ? strdup(s) : NULL;
    *bad |= s && !copy;
    return copy;
}

static int roofs_read(const json_value *roofs, rb_results_doc *d)
{
    if (!roofs || roofs->type != JSON_OBJECT || roofs->count == 0)
        return 0;
    d->roofs = calloc(roofs->count, sizeof *d->roofs);
    if (!d->roofs)
        return -1;
    for (size_t i = 0; i < roofs->count; i++) {
        rb_results_roof *r = &d->roofs[d->n_roofs++];
        const json_value *o = roofs->items[i];
        rb_fmt(r->key, sizeof r->key, "%s", roofs->keys[i]);
        rb_fmt(r->kind, sizeof r->kind, "%s", json_string_at(o, "kind", ""));
        r->measured = json_number_at(o, "measured");
        r->peak = json_number_at(o, "peak");
    }
    return 0;
}

int rb_results_meta_read(const json_value *doc, rb_results_doc *d)
{
    int bad = 0;
    memset(d, 0, sizeof *d);
    d->command = text_at(doc, "command", &bad);
    d->git = text_at(doc, "git", &bad);
    d->date = text_at(doc, "date", &bad);
    d->size = text_at(doc, "size", &bad);
    d->expectations = text_at(doc, "expectations", &bad);
    d->hardware_key = text_at(doc, "hardware_key", &bad);
    d->seed = json_number_at(doc, "seed");
    d->cold = json_true_at(doc, "cold");
    const json_value *env = json_get(json_get(doc, "environment"), "start");
    d->start.device = text_at(env, "device", &bad);
    d->start.cc = text_at(env, "cc", &bad);
    d->start.driver = text_at(env, "driver", &bad);
    d->start.cuda_runtime = text_at(env, "cuda_runtime", &bad);
    d->start.sms = json_number_at(env, "sms");
    d->start.l2_bytes = json_number_at(env, "l2_bytes");
    d->start.power_limit_w = json_number_at(env, "power_limit_w");
    const json_value *platform = json_get(doc, "platform");
    d->platform.dram_gbps = json_number_at(platform, "dram_gbps");
    d->platform.fp32_tflops = json_number_at(platform, "fp32_tflops");
    d->platform.launch_us = json_number_at(platform, "launch_us");
    if (bad || roofs_read(json_get(doc, "roofs"), d) != 0) {
        rb_results_doc_free(d);
        return -1;
    }
    return 0;
}

int rb_results_doc_read(const json_value *doc, rb_results_doc *d, char *err, size_t err_size)
{
    rb_pair_result *pairs = NULL;
    int n = 0;
    memset(d, 0, sizeof *d);
    if (rb_results_read(doc, &pairs, &n, err, err_size) != 0)
        return -1;
    if (rb_results_meta_read(doc, d) != 0) {
        free(pairs);
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    d->pairs = pairs;
    d->n_pairs = n;
    return 0;
}

void rb_results_doc_free(rb_results_doc *d)
{
    char *texts[] = {d->command,      d->git,          d->date,
                     d->size,         d->expectations, d->hardware_key,
                     d->start.device, d->start.cc,     d->start.driver,
                     d->start.cuda_runtime};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        free(texts[i]);
    free(d->roofs);
    free(d->pairs);
    memset(d, 0, sizeof *d);
}

const rb_results_roof *rb_results_roof_find(const rb_results_doc *d, const char *key)
{
    for (int i = 0; i < d->n_roofs; i++)
        if (!strcmp(d->roofs[i].key, key))
            return &d->roofs[i];
    return NULL;
}
