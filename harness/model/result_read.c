/* SPDX-License-Identifier: MIT */
#include "result_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
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

/* ---- a results document as compare and history judge it ---- */

const char *rb_results_kernel_field(int i)
{
    static const char *const keys[RB_RESULTS_KERNEL_FIELDS] = {
        "registers",   "static_smem_bytes", "dyn_smem_bytes", "local_bytes",
        "block_threads", "blocks_per_sm",   "grid"};
    return keys[i];
}

int rb_results_has_pairs(const json_value *doc)
{
    const json_value *pairs = json_get(doc, "pairs");
    return doc && doc->type == JSON_OBJECT && pairs && pairs->type == JSON_ARRAY;
}

/* The pool's copy of s (NULL stays NULL); *bad set when out of memory. */
static const char *pooled(rb_results_cmp_doc *d, const char *s, int *bad)
{
    const char *copy = s ? rb_strpool_add(&d->pool, s) : NULL;
    *bad |= s && !copy;
    return copy;
}

static void *cmp_alloc(rb_results_cmp_doc *d, size_t n, size_t size)
{
    return rb_arena_alloc(&d->arena, (n ? n : 1) * size, 8);
}

/* One run's median and its 95% interval: from the sample times when time_ms.samples holds
 * them, else the recorded median_ci_lo / median_ci_hi (NaN when the run had too few). */
static void side_read(const json_value *t, rb_results_cmp_variant *v)
{
    const json_value *samples = json_get(t, "samples");
    v->recorded_median = v->median = json_number_at(t, "median");
    v->ci_lo = json_number_at(t, "median_ci_lo");
    v->ci_hi = json_number_at(t, "median_ci_hi");
    v->noise = json_number_at(t, "noise");
    v->n_samples = samples && samples->type == JSON_ARRAY ? (int)samples->count : -1;
    if (v->n_samples <= 0)
        return;
    double *x = malloc(samples->count * sizeof *x);
    rb_stats st;
    if (!x)
        return;
    for (size_t i = 0; i < samples->count; i++)
        x[i] = samples->items[i]->type == JSON_NUMBER ? samples->items[i]->number : NAN;
    if (rb_stats_compute(x, samples->count, &st) == 0) {
        v->median = st.median;
        v->ci_lo = st.ci_lo;
        v->ci_hi = st.ci_hi;
        v->noise = st.noise;
    }
    free(x);
}

/* clocks.reasons joined by "," and the library_algo's JSON text, into the pool. */
static int cmp_texts_read(const json_value *o, rb_results_cmp_variant *v, rb_results_cmp_doc *d)
{
    const json_value *r = json_get(json_get(o, "clocks"), "reasons"), *algo;
    char out[160] = "";
    int bad = 0;
    for (size_t i = 0; r && r->type == JSON_ARRAY && i < r->count; i++)
        if (r->items[i]->type == JSON_STRING) {
            size_t len = strlen(out);
            rb_fmt(out + len, sizeof out - len, "%s%s", len ? "," : "", r->items[i]->string);
        }
    v->reasons = pooled(d, out, &bad);
    if ((algo = json_get(o, "library_algo")) != NULL) {
        char *text = json_write(algo, 0);
        v->library_algo = pooled(d, text, &bad);
        bad |= !text;
        free(text);
    }
    if (v->contended) {
        rb_contention c;
        char err[120], who[300];
        if (rb_contention_from_json(o, "contended_by", &c, err, sizeof err) != 0)
            rb_contention_init(&c);
        rb_contention_text(&c, who, sizeof who);
        v->contended_by = pooled(d, who, &bad);
    }
    return bad ? -1 : 0;
}

int rb_results_cmp_variant_read(const json_value *o, rb_results_cmp_variant *v,
                                rb_results_cmp_doc *d)
{
    const json_value *c = json_get(o, "clocks");
    const char *why = json_string_at(o, "host_bound_why", NULL);
    int bad = 0;
    memset(v, 0, sizeof *v);
    v->name = pooled(d, json_string_at(o, "name", NULL), &bad);
    v->roof = pooled(d, json_string_at(o, "roof", ""), &bad);
    v->valid = json_true_at(o, "valid");
    v->timed = json_true_at(o, "timed");
    v->throttled = json_true_at(o, "throttled");
    v->contended = json_true_at(o, "contended");
    v->informational = json_true_at(o, "informational") || (why && why[0]);
    side_read(json_get(o, "time_ms"), v);
    v->sm_mhz_mean = json_number_at(c, "sm_mhz_mean");
    v->clock_readings = json_number_at(c, "samples");
    v->has_clock_readings = json_get(c, "samples") != NULL;
    v->sm_clock_mhz = json_number_at(o, "sm_clock_mhz");
    v->joules_per_launch = json_number_at(json_get(o, "energy"), "joules_per_launch");
    v->efficiency = json_number_at(json_get(o, "vs_ceiling"), "efficiency");
    return bad || cmp_texts_read(o, v, d) != 0 ? -1 : 0;
}

int rb_results_cmp_kernels_read(const json_value *ks, rb_results_cmp_kernel **out, int *n,
                                rb_results_cmp_doc *d)
{
    size_t count = ks && ks->type == JSON_ARRAY ? ks->count : 0;
    int bad = 0;
    *n = 0;
    if (!(*out = cmp_alloc(d, count, sizeof **out)))
        return -1;
    for (size_t i = 0; i < count; i++) {
        const json_value *k = ks->items[i];
        rb_results_cmp_kernel *to = &(*out)[i];
        to->name = pooled(d, json_string_at(k, "name", NULL), &bad);
        to->variant = pooled(d, json_string_at(k, "variant", NULL), &bad);
        to->sass_hash = pooled(d, json_string_at(k, "sass_hash", NULL), &bad);
        for (int f = 0; f < RB_RESULTS_KERNEL_FIELDS; f++)
            to->field[f] = json_number_at(k, rb_results_kernel_field(f));
    }
    *n = (int)count;
    return bad ? -1 : 0;
}

/* The members of o, each a number (NaN: not one) with the noise methods.<key>.noise of o's. */
static int values_read(const json_value *o, const char *inner, rb_results_cmp_value **out,
                       int *n, rb_results_cmp_doc *d)
{
    size_t count = o && o->type == JSON_OBJECT ? o->count : 0;
    int bad = 0;
    *n = 0;
    if (!(*out = cmp_alloc(d, count, sizeof **out)))
        return -1;
    for (size_t i = 0; i < count; i++) {
        rb_results_cmp_value *x = &(*out)[i];
        x->key = pooled(d, o->keys[i], &bad);
        x->value = inner ? json_number_at(o->items[i], inner) : json_number_at(o, o->keys[i]);
        x->noise = inner ? NAN : json_number_at(json_get(json_get(o, "methods"), o->keys[i]),
                                                "noise");
    }
    *n = (int)count;
    return bad ? -1 : 0;
}

int rb_results_cmp_platform_read(const json_value *platform, rb_results_cmp_doc *d)
{
    const char *source = json_string_at(platform, "source", NULL);
    d->has_platform = platform != NULL;
    d->platform_none = source && !strcmp(source, "none");
    return values_read(platform, NULL, &d->platform, &d->n_platform, d);
}

const rb_results_cmp_value *rb_results_cmp_value_of(const rb_results_cmp_value *vals, int n,
                                                    const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(vals[i].key, key))
            return &vals[i];
    return NULL;
}

/* A value as text: strings bare, a library version as a version (22803: 2.28.3), another
 * number with the 5 digits a measured figure supports (3020.7, not 3020.69948469187), anything
 * else as JSON. Caller frees. */
static char *fact_text(const char *key, const json_value *v)
{
    char num[48];
    size_t klen = strlen(key);
    if (v->type == JSON_STRING)
        return strdup(v->string);
    if (v->type == JSON_NUMBER && klen > 8 && !strcmp(key + klen - 8, "_version")) {
        rb_text_version(v->number, num, sizeof num);
        return strdup(num);
    }
    if (v->type == JSON_NUMBER) {
        rb_fmt(num, sizeof num, "%.5g", v->number);
        return strdup(num);
    }
    return json_write(v, 0);
}

/* A fact (v NULL: its text NULL, as if absent), each key once (the first place that names it wins). -1 when out of memory. */
static int add_fact(rb_results_cmp_doc *d, const char *key, const json_value *v)
{
    char cut[160];
    int bad = 0;
    rb_fmt(cut, sizeof cut, "%s", key);
    if (rb_name_index_get(&d->facts_ix, cut) >= 0)
        return 0;
    if (d->n_facts == d->facts_cap) {
        int ncap = d->facts_cap ? 2 * d->facts_cap : 64;
        rb_results_cmp_fact *f = realloc(d->facts, (size_t)ncap * sizeof *f);
        if (!f)
            return -1;
        d->facts = f;
        d->facts_cap = ncap;
    }
    char *text = v ? fact_text(cut, v) : NULL; /* (NULL: a key held with no value) */
    rb_results_cmp_fact *at = &d->facts[d->n_facts];
    at->key = pooled(d, cut, &bad);
    at->text = pooled(d, text, &bad);
    free(text);
    if (bad || (v && !text) || rb_name_index_put(&d->facts_ix, at->key, d->n_facts) < 0)
        return -1;
    d->n_facts++;
    return 0;
}

/* Facts that change from one moment to the next (a temperature, the power drawn, the clock at
 * the instant of reading) would fill the diff with noise: the per-variant clocks say what
 * matters of them. */
static int is_momentary(const char *leaf)
{
    static const char *const keys[] = {"temperature_c",       "power_w", "sm_clock_mhz",
                                       "clock_event_reasons", "git",     "methods"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(leaf, keys[i]))
            return 1;
    return 0;
}

static int flatten(rb_results_cmp_doc *d, const char *prefix, const json_value *o, int depth)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && o && o->type == JSON_OBJECT && i < o->count; i++) {
        char key[160];
        if (is_momentary(o->keys[i]))
            continue;
        rb_fmt(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", o->keys[i]);
        if (o->items[i]->type == JSON_OBJECT && depth < 4)
            rc = flatten(d, key, o->items[i], depth + 1);
        else
            rc = add_fact(d, key, o->items[i]);
    }
    return rc;
}

static int facts_read(const json_value *doc, rb_results_cmp_doc *d)
{
    /* tool and ranks: an MPI run against a one-process run is a fact worth saying */
    static const char *const top[] = {"tool", "ranks", "git",         "size",
                                      "cold", "seed",  "hardware_key"};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof top / sizeof top[0]; i++)
        if (json_get(doc, top[i]))
            rc = add_fact(d, top[i], json_get(doc, top[i]));
    const json_value *env = json_get(doc, "environment");
    if (rc == 0)
        rc = flatten(d, "", json_get(env, "start") ? json_get(env, "start") : env, 0);
    if (rc == 0)
        rc = flatten(d, "platform", json_get(doc, "platform"), 0);
    /* a run that shared its GPU says so (a clean run, or one from before the check, says
     * nothing) */
    const json_value *shared = json_get(doc, "contention");
    if (rc == 0 && json_true_at(shared, "contended"))
        rc = add_fact(d, "contention.contended", json_get(shared, "contended")) ||
             add_fact(d, "contention.processes", json_get(shared, "processes"));
    return rc ? -1 : 0;
}

static int cmp_pair_read(const json_value *o, rb_results_cmp_pair *p, rb_results_cmp_doc *d)
{
    const json_value *vs = json_get(o, "variants");
    size_t count = vs && vs->type == JSON_ARRAY ? vs->count : 0;
    int bad = 0;
    memset(p, 0, sizeof *p);
    p->name = pooled(d, json_string_at(o, "name", NULL), &bad);
    p->size = json_number_at(o, "size");
    if (bad || !(p->v = cmp_alloc(d, count, sizeof *p->v)))
        return -1;
    for (size_t k = 0; k < count; k++)
        if (rb_results_cmp_variant_read(vs->items[k], &p->v[p->n_variants++], d) != 0)
            return -1;
    return rb_results_cmp_kernels_read(json_get(o, "kernels"), &p->kernels, &p->n_kernels, d);
}

int rb_results_cmp_read(const json_value *doc, rb_results_cmp_doc *d, char *err, size_t err_size)
{
    int bad = 0;
    memset(d, 0, sizeof *d);
    if (!rb_results_has_pairs(doc)) {
        rb_fmt(err, err_size, "not a roofbench results file (no \"pairs\" array)");
        return -1;
    }
    const json_value *list = json_get(doc, "pairs");
    d->git = pooled(d, json_string_at(doc, "git", NULL), &bad);
    d->date = pooled(d, json_string_at(doc, "date", NULL), &bad);
    d->cold = json_true_at(doc, "cold");
    d->pairs = cmp_alloc(d, list->count, sizeof *d->pairs);
    bad |= !d->pairs || rb_results_cmp_platform_read(json_get(doc, "platform"), d) != 0 ||
           values_read(json_get(doc, "roofs"), "measured", &d->roofs, &d->n_roofs, d) != 0 ||
           facts_read(doc, d) != 0;
    for (size_t i = 0; !bad && i < list->count; i++)
        bad = cmp_pair_read(list->items[i], &d->pairs[d->n_pairs++], d) != 0;
    if (bad) {
        rb_results_cmp_free(d);
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    return 0;
}

void rb_results_cmp_free(rb_results_cmp_doc *d)
{
    free(d->facts);
    rb_name_index_free(&d->facts_ix);
    rb_strpool_free(&d->pool);
    rb_arena_free(&d->arena);
    memset(d, 0, sizeof *d);
}
