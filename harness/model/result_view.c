/* SPDX-License-Identifier: MIT */
/* A results document as the charts view it (model/result_view.h). */
#include "result_view.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The document's shape: every pair record named with a variants array of named records. */
static int view_check(const json_value *pairs, char *err, size_t err_size)
{
    for (size_t i = 0; i < pairs->count; i++) {
        const json_value *p = pairs->items[i], *vs = json_get(p, "variants");
        const json_value *name = json_get(p, "name");
        if (p->type != JSON_OBJECT || !name || name->type != JSON_STRING) {
            rb_fmt(err, err_size, "pairs[%zu] is not a pair record (no name)", i);
            return -1;
        }
        if (!vs || vs->type != JSON_ARRAY) {
            rb_fmt(err, err_size, "pair %s has no \"variants\" array", name->string);
            return -1;
        }
        for (size_t k = 0; k < vs->count; k++) {
            const json_value *vn = json_get(vs->items[k], "name");
            if (!vn || vn->type != JSON_STRING) {
                rb_fmt(err, err_size, "pair %s: variants[%zu] has no name", name->string, k);
                return -1;
            }
        }
    }
    return 0;
}

/* The top-level "roofs": {"<key>": {"kind", "measured", "peak"}}. */
static int view_roofs(const json_value *roofs, rb_results_view *v, char *err, size_t err_size)
{
    if (!roofs)
        return 0;
    if (roofs->type != JSON_OBJECT) {
        rb_fmt(err, err_size, "\"roofs\" is not an object");
        return -1;
    }
    v->have_roofs = 1;
    if (!(v->roofs = calloc(roofs->count + 1, sizeof *v->roofs))) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < roofs->count; i++) {
        const json_value *r = roofs->items[i];
        if (r->type != JSON_OBJECT) {
            rb_fmt(err, err_size, "roofs.%s is not an object", roofs->keys[i]);
            return -1;
        }
        v->roofs[v->n_roofs++] =
            (rb_view_roof){roofs->keys[i], json_string_at(r, "kind", NULL),
                           json_number_at(r, "measured"), json_number_at(r, "peak")};
    }
    return 0;
}

static void view_variant(const json_value *o, rb_view_variant *v)
{
    const json_value *ceil = json_get(o, "vs_ceiling"), *t = json_get(o, "time_ms");
    const json_value *extras = json_get(o, "extras"), *energy = json_get(o, "energy");
    v->name = json_string_at(o, "name", NULL);
    v->role = json_string_at(o, "role", NULL);
    v->verdict = json_string_at(o, "verdict", NULL);
    v->note = json_string_at(o, "note", NULL);
    v->host_bound_why = json_string_at(o, "host_bound_why", NULL);
    v->rate_unit = json_string_at(o, "rate_unit", NULL);
    v->roof = json_string_at(o, "roof", NULL);
    v->declared_roof = json_string_at(o, "declared_roof", NULL);
    v->has_declared_roof = json_get(o, "declared_roof") != NULL;
    v->roof_note = json_string_at(o, "roof_note", NULL);
    v->bound = json_string_at(ceil, "bound", NULL);
    v->timed = json_true_at(o, "timed");
    v->valid = json_true_at(o, "valid");
    v->informational = json_true_at(o, "informational");
    v->inconsistent = json_true_at(o, "inconsistent");
    v->rate = json_number_at(o, "rate");
    v->median_ms = json_number_at(t, "median");
    v->noise = json_number_at(t, "noise");
    v->speedup = json_number_at(o, "speedup");
    v->ai = json_number_at(ceil, "ai");
    v->gbps = json_number_at(ceil, "gbps");
    v->tflops = json_number_at(ceil, "tflops");
    v->efficiency = json_number_at(ceil, "efficiency");
    v->peak_efficiency = json_number_at(json_get(o, "vs_peak"), "efficiency");
    v->gflop_per_j = json_number_at(energy, "gflop_per_j");
    v->gb_per_j = json_number_at(energy, "gb_per_j");
    v->roof_rate_value = json_number_at(extras, json_string_at(o, "roof_rate", "us_per_kernel"));
    v->us_per_kernel = json_number_at(extras, "us_per_kernel");
    v->size_bytes = json_number_at(extras, "size_bytes");
    v->gpus = json_number_at(extras, "gpus");
    v->busbw_gbps = json_number_at(extras, "busbw_gbps");
    v->has_busbw = json_get(extras, "busbw_gbps") != NULL;
}

static int view_pairs(const json_value *pairs, rb_results_view *v)
{
    if (!(v->pairs = calloc(pairs->count + 1, sizeof *v->pairs)))
        return -1;
    for (size_t i = 0; i < pairs->count; i++) {
        const json_value *p = pairs->items[i];
        v->pairs[v->n_pairs++] = (rb_view_pair){
            json_string_at(p, "name", NULL), json_number_at(p, "flops"), json_number_at(p, "bytes"),
            json_true_at(p, "link_bytes"), (int)json_get(p, "variants")->count};
    }
    v->records = pairs;
    return 0;
}

void rb_results_view_variants(const rb_results_view *v, int i, rb_view_variant *out)
{
    const json_value *vs = json_get(v->records->items[i], "variants");
    for (int k = 0; k < v->pairs[i].n_variants; k++)
        view_variant(vs->items[k], &out[k]);
}

int rb_results_view_read(const json_value *doc, rb_results_view *v, char *err, size_t err_size)
{
    const json_value *pairs = json_get(doc, "pairs");
    const json_value *env = json_get(json_get(doc, "environment"), "start");
    memset(v, 0, sizeof *v);
    if (!doc || doc->type != JSON_OBJECT || !pairs || pairs->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "not a roofbench results file (no \"pairs\" array)");
        return -1;
    }
    if (view_check(pairs, err, err_size) != 0 ||
        view_roofs(json_get(doc, "roofs"), v, err, err_size) != 0) {
        rb_results_view_free(v);
        return -1;
    }
    if (view_pairs(pairs, v) != 0) {
        rb_fmt(err, err_size, "out of memory");
        rb_results_view_free(v);
        return -1;
    }
    v->device = json_string_at(env, "device", NULL);
    v->driver = json_string_at(env, "driver", NULL);
    v->cuda_runtime = json_string_at(env, "cuda_runtime", NULL);
    v->date = json_string_at(doc, "date", NULL);
    v->git = json_string_at(doc, "git", NULL);
    v->p2p_matrix = json_get(doc, "p2p_matrix");
    return 0;
}

void rb_results_view_free(rb_results_view *v)
{
    free(v->pairs);
    free(v->roofs);
    memset(v, 0, sizeof *v);
}
