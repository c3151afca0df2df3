/* SPDX-License-Identifier: MIT */
/* The one reader of results documents (model/result_read.h). Each key is read once: what more
 * than one use needs, into a record's view (the first section); the charts' view, the run's
 * table and compare's and history's lean view are built from those views, and each reads beside
 * them only what it alone needs (the table: a pair's status, shape and timing; compare: the
 * kernels' resources, the platform's noise and the facts of the environment diff). */
#include "result_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "util.h"

/* ---- the records' views: every key of a results document, read here ---- */

const char *rb_results_text(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

/* The document's row groups; NULL (with the line in err, when err_size) when it holds no array
 * of them. */
static const json_value *pairs_of(const json_value *doc, char *err, size_t err_size)
{
    const json_value *pairs = json_get(doc, "pairs");
    if (pairs && pairs->type == JSON_ARRAY)
        return pairs;
    if (err_size)
        rb_fmt(err, err_size, "not a roofbench results file (no \"pairs\" array)");
    return NULL;
}

int rb_results_has_pairs(const json_value *doc)
{
    return pairs_of(doc, NULL, 0) != NULL;
}

static void run_view(const json_value *doc, rb_view_run *r)
{
    const json_value *env = json_get(doc, "environment"), *start = json_get(env, "start");
    const json_value *platform = json_get(doc, "platform");
    r->command = json_string_at(doc, "command", NULL);
    r->git = json_string_at(doc, "git", NULL);
    r->date = json_string_at(doc, "date", NULL);
    r->size = json_string_at(doc, "size", NULL);
    r->expectations = json_string_at(doc, "expectations", NULL);
    r->hardware_key = json_string_at(doc, "hardware_key", NULL);
    r->seed = json_number_at(doc, "seed");
    r->cold = json_true_at(doc, "cold");
    r->device = json_string_at(start, "device", NULL);
    r->cc = json_string_at(start, "cc", NULL);
    r->driver = json_string_at(start, "driver", NULL);
    r->cuda_runtime = json_string_at(start, "cuda_runtime", NULL);
    r->sms = json_number_at(start, "sms");
    r->l2_bytes = json_number_at(start, "l2_bytes");
    r->power_limit_w = json_number_at(start, "power_limit_w");
    r->platform = (rb_results_platform){json_number_at(platform, "dram_gbps"),
                                        json_number_at(platform, "fp32_tflops"),
                                        json_number_at(platform, "launch_us")};
    r->environment = env;
    r->start = start;
    r->platform_record = platform;
    r->roofs = json_get(doc, "roofs");
    r->contention = json_get(doc, "contention");
    r->p2p_matrix = json_get(doc, "p2p_matrix");
}

/* Roof i of the document's "roofs" (an object of {"kind", "measured", "peak"}). */
static void roof_view(const json_value *roofs, size_t i, rb_view_roof *r)
{
    const json_value *o = roofs->items[i];
    *r = (rb_view_roof){roofs->keys[i], json_string_at(o, "kind", NULL),
                        json_number_at(o, "measured"), json_number_at(o, "peak")};
}

static void point_view(const json_value *o, rb_view_point *p)
{
    p->held = o != NULL;
    p->bound = json_string_at(o, "bound", NULL);
    p->roof = json_string_at(o, "roof", NULL);
    p->ai = json_number_at(o, "ai");
    p->gbps = json_number_at(o, "gbps");
    p->tflops = json_number_at(o, "tflops");
    p->floor_ms = json_number_at(o, "floor_ms");
    p->efficiency = json_number_at(o, "efficiency");
}

/* A variant record's texts and flags. */
static void variant_texts_view(const json_value *o, rb_view_variant *v)
{
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
    v->cause = json_string_at(o, "cause", NULL);
    v->evidence = json_string_at(o, "evidence", NULL);
    v->timed = json_true_at(o, "timed");
    v->valid = json_true_at(o, "valid");
    v->informational = json_true_at(o, "informational");
    v->inconsistent = json_true_at(o, "inconsistent");
    v->throttled = json_true_at(o, "throttled");
    v->contended = json_true_at(o, "contended");
    v->per_clock = json_true_at(o, "per_clock");
    v->library_algo = json_get(o, "library_algo");
}

static void variant_view(const json_value *o, rb_view_variant *v)
{
    const json_value *t = json_get(o, "time_ms"), *c = json_get(o, "clocks");
    const json_value *extras = json_get(o, "extras"), *energy = json_get(o, "energy");
    variant_texts_view(o, v);
    v->rate = json_number_at(o, "rate");
    v->speedup = json_number_at(o, "speedup");
    v->expected_ms = json_number_at(o, "expected_ms");
    v->threshold = json_number_at(o, "threshold");
    v->sm_clock_mhz = json_number_at(o, "sm_clock_mhz");
    v->median_ms = json_number_at(t, "median");
    v->noise = json_number_at(t, "noise");
    v->ci_lo = json_number_at(t, "median_ci_lo");
    v->ci_hi = json_number_at(t, "median_ci_hi");
    v->samples = json_get(t, "samples");
    point_view(json_get(o, "vs_ceiling"), &v->ceiling);
    point_view(json_get(o, "vs_peak"), &v->peak);
    v->sm_mhz_mean = json_number_at(c, "sm_mhz_mean");
    v->clock_readings = json_number_at(c, "samples");
    v->has_clock_readings = json_get(c, "samples") != NULL;
    v->clock_reasons = json_get(c, "reasons");
    v->joules_per_launch = json_number_at(energy, "joules_per_launch");
    v->gflop_per_j = json_number_at(energy, "gflop_per_j");
    v->gb_per_j = json_number_at(energy, "gb_per_j");
    v->roof_rate_value = json_number_at(extras, json_string_at(o, "roof_rate", "us_per_kernel"));
    v->us_per_kernel = json_number_at(extras, "us_per_kernel");
    v->size_bytes = json_number_at(extras, "size_bytes");
    v->gpus = json_number_at(extras, "gpus");
    v->busbw_gbps = json_number_at(extras, "busbw_gbps");
    v->has_busbw = json_get(extras, "busbw_gbps") != NULL;
}

static void pair_view(const json_value *o, rb_view_pair *p)
{
    const json_value *vs = json_get(o, "variants"), *ks = json_get(o, "kernels");
    p->name = json_string_at(o, "name", NULL);
    p->size = json_number_at(o, "size");
    p->flops = json_number_at(o, "flops");
    p->bytes = json_number_at(o, "bytes");
    p->link_bytes = json_true_at(o, "link_bytes");
    p->variants = vs && vs->type == JSON_ARRAY ? vs : NULL;
    p->kernels = ks && ks->type == JSON_ARRAY ? ks : NULL;
    p->n_variants = p->variants ? (int)p->variants->count : 0;
}

/* ---- the charts' view ---- */

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

/* The top-level "roofs", each an object. */
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
        if (roofs->items[i]->type != JSON_OBJECT) {
            rb_fmt(err, err_size, "roofs.%s is not an object", roofs->keys[i]);
            return -1;
        }
        roof_view(roofs, i, &v->roofs[v->n_roofs++]);
    }
    return 0;
}

void rb_results_view_variants(const rb_results_view *v, int i, rb_view_variant *out)
{
    for (int k = 0; k < v->pairs[i].n_variants; k++)
        variant_view(v->pairs[i].variants->items[k], &out[k]);
}

int rb_results_view_read(const json_value *doc, rb_results_view *v, char *err, size_t err_size)
{
    const json_value *pairs = pairs_of(doc, err, err_size);
    memset(v, 0, sizeof *v);
    if (!pairs)
        return -1;
    run_view(doc, &v->run);
    if (view_check(pairs, err, err_size) != 0 || view_roofs(v->run.roofs, v, err, err_size) != 0) {
        rb_results_view_free(v);
        return -1;
    }
    if (!(v->pairs = calloc(pairs->count + 1, sizeof *v->pairs))) {
        rb_fmt(err, err_size, "out of memory");
        rb_results_view_free(v);
        return -1;
    }
    for (size_t i = 0; i < pairs->count; i++)
        pair_view(pairs->items[i], &v->pairs[v->n_pairs++]);
    return 0;
}

void rb_results_view_free(rb_results_view *v)
{
    free(v->pairs);
    free(v->roofs);
    memset(v, 0, sizeof *v);
}

/* ---- the run's table: the records a run prints, read back ---- */

static rb_verdict verdict_from_name(const char *s)
{
    for (int v = RB_VERDICT_NONE; v < RB_VERDICT_COUNT; v++)
        if (!strcmp(s, rb_verdict_name((rb_verdict)v)))
            return (rb_verdict)v;
    return RB_VERDICT_NONE;
}

/* The roof of key s; fallback when s is none or names no roof of this build. */
static rb_roof roof_of(const char *s, rb_roof fallback)
{
    rb_roof r;
    return s && rb_roof_from_key(s, &r) == 0 ? r : fallback;
}

static void point_read(const rb_view_point *o, rb_roof named, rb_point *pt)
{
    rb_point_none(pt);
    if (!o->held)
        return;
    pt->ai = o->ai;
    pt->gbps = o->gbps;
    pt->tflops = o->tflops;
    pt->floor_ms = o->floor_ms;
    pt->efficiency = o->efficiency;
    pt->memory_bound = !strcmp(rb_results_text(o->bound, ""), "memory");
    pt->compute_bound = !strcmp(rb_results_text(o->bound, ""), "compute");
    pt->binding = roof_of(o->roof, named);
}

static void copy_text(const char *s, char *out, size_t size)
{
    rb_fmt(out, size, "%s", rb_results_text(s, ""));
}

/* What the parent derived for the variant (model/report.c's variant_json), read back. */
static void derived_read(const rb_view_variant *o, rb_variant_result *v)
{
    v->named_roof = roof_of(o->roof, RB_ROOF_COUNT);
    v->roof = roof_of(o->declared_roof, v->named_roof);
    point_read(&o->ceiling, v->named_roof, &v->vs_ceiling);
    point_read(&o->peak, v->named_roof, &v->vs_peak);
    copy_text(o->roof_note, v->roof_note, sizeof v->roof_note);
    v->inconsistent = o->inconsistent;
    v->speedup = o->speedup;
    v->expected_ms = o->expected_ms;
    v->verdict = verdict_from_name(rb_results_text(o->verdict, ""));
    v->threshold = o->threshold;
    v->per_clock = o->per_clock;
    copy_text(o->cause, v->cause, sizeof v->cause);
    copy_text(o->evidence, v->evidence, sizeof v->evidence);
    /* (the ratio a verdict judged is not recorded: the time's, which it is unless per_clock) */
    v->judged_ratio = v->time_ms.median / v->expected_ms;
}

/* The pair's kernels (what the runtime said of each), so that a table read back lists them as the
 * run did. */
static int kernels_read(const json_value *ks, rb_pair_result *p, char *err, size_t err_size)
{
    for (size_t k = 0; ks && k < ks->count; k++) {
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

/* The variants of pair record pv into p. */
static int variants_read(const rb_view_pair *pv, rb_pair_result *p, char *err, size_t err_size)
{
    for (int k = 0; k < pv->n_variants; k++) {
        const json_value *o = pv->variants->items[k];
        rb_view_variant view;
        char why[200];
        if (p->n_variants == RB_MAX_VARIANTS) {
            rb_fmt(err, err_size, "%s: more than %d variants", p->name, RB_MAX_VARIANTS);
            return -1;
        }
        rb_variant_result *v = &p->v[p->n_variants++];
        if (rb_variant_from_json(o, v, why, sizeof why) != 0) {
            rb_fmt(err, err_size, "%s: %s", p->name, why);
            return -1;
        }
        variant_view(o, &view);
        derived_read(&view, v);
    }
    return 0;
}

static int pair_read(const json_value *o, rb_pair_result *p, char *err, size_t err_size)
{
    static const char *const status[] = {"ok", "failed", "skipped"};
    rb_view_pair pv;
    pair_view(o, &pv);
    memset(p, 0, sizeof *p);
    copy_text(pv.name, p->name, sizeof p->name);
    copy_text(json_string_at(o, "pattern", NULL), p->pattern, sizeof p->pattern);
    copy_text(json_string_at(o, "reason", NULL), p->reason, sizeof p->reason);
    for (int s = 0; s < 3; s++)
        if (!strcmp(json_string_at(o, "status", "ok"), status[s]))
            p->status = (rb_pair_status)s;
    double rows = json_number_at(o, "rows"), cols = json_number_at(o, "cols");
    p->size = pv.size >= 0 && pv.size < 1e19 ? (uint64_t)pv.size : 0;
    p->rows = rows >= 1 && rows < 1e19 ? (uint64_t)rows : 1;
    p->cols = cols >= 0 && cols < 1e19 ? (uint64_t)cols : p->size;
    p->full_size = p->size;
    p->flops = pv.flops;
    p->bytes = pv.bytes;
    p->link_bytes = pv.link_bytes;
    p->wall_s = json_number_at(o, "wall_s");
    p->setup_s = json_number_at(o, "setup_s");
    p->idle_gpu_util = json_number_at(o, "idle_utilization_gpu_pct");
    p->idle_mem_util = json_number_at(o, "idle_utilization_memory_pct");
    if (rb_contention_from_json(o, "contended_at_start", &p->contended_at_start, err, err_size) !=
            0 ||
        variants_read(&pv, p, err, err_size) != 0)
        return -1;
    return kernels_read(pv.kernels, p, err, err_size);
}

int rb_results_read(const json_value *doc, rb_pair_result **pairs, int *n, char *err,
                    size_t err_size)
{
    const json_value *list = pairs_of(doc, err, err_size);
    *pairs = NULL;
    *n = 0;
    if (!list)
        return -1;
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

/* A copy of s (NULL stays NULL); *bad set when out of memory. */
static char *dup_text(const char *s, int *bad)
{
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
        rb_view_roof view;
        roof_view(roofs, i, &view);
        rb_fmt(r->key, sizeof r->key, "%s", view.key);
        rb_fmt(r->kind, sizeof r->kind, "%s", rb_results_text(view.kind, ""));
        r->measured = view.measured;
        r->peak = view.peak;
    }
    return 0;
}

int rb_results_meta_read(const json_value *doc, rb_results_doc *d)
{
    rb_view_run r;
    int bad = 0;
    run_view(doc, &r);
    memset(d, 0, sizeof *d);
    d->command = dup_text(r.command, &bad);
    d->git = dup_text(r.git, &bad);
    d->date = dup_text(r.date, &bad);
    d->size = dup_text(r.size, &bad);
    d->expectations = dup_text(r.expectations, &bad);
    d->hardware_key = dup_text(r.hardware_key, &bad);
    d->seed = r.seed;
    d->cold = r.cold;
    d->start.device = dup_text(r.device, &bad);
    d->start.cc = dup_text(r.cc, &bad);
    d->start.driver = dup_text(r.driver, &bad);
    d->start.cuda_runtime = dup_text(r.cuda_runtime, &bad);
    d->start.sms = r.sms;
    d->start.l2_bytes = r.l2_bytes;
    d->start.power_limit_w = r.power_limit_w;
    d->platform = r.platform;
    if (bad || roofs_read(r.roofs, d) != 0) {
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

/* One run's median and its 95% interval: from the sample times when the record holds them,
 * else the recorded interval (NaN when the run had too few). */
static void side_read(const rb_view_variant *r, rb_results_cmp_variant *v)
{
    const json_value *samples = r->samples;
    v->recorded_median = v->median = r->median_ms;
    v->ci_lo = r->ci_lo;
    v->ci_hi = r->ci_hi;
    v->noise = r->noise;
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

/* The clock-event reasons joined by ",", the library_algo's JSON text and who contended, into
 * the pool. */
static int cmp_texts_read(const json_value *o, const rb_view_variant *view,
                          rb_results_cmp_variant *v, rb_results_cmp_doc *d)
{
    const json_value *r = view->clock_reasons, *algo = view->library_algo;
    char out[160] = "";
    int bad = 0;
    for (size_t i = 0; r && r->type == JSON_ARRAY && i < r->count; i++)
        if (r->items[i]->type == JSON_STRING) {
            size_t len = strlen(out);
            rb_fmt(out + len, sizeof out - len, "%s%s", len ? "," : "", r->items[i]->string);
        }
    v->reasons = pooled(d, out, &bad);
    if (algo) {
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
    rb_view_variant r;
    int bad = 0;
    variant_view(o, &r);
    memset(v, 0, sizeof *v);
    v->name = pooled(d, r.name, &bad);
    v->roof = pooled(d, rb_results_text(r.roof, ""), &bad);
    v->valid = r.valid;
    v->timed = r.timed;
    v->throttled = r.throttled;
    v->contended = r.contended;
    v->informational = r.informational || (r.host_bound_why && r.host_bound_why[0]);
    side_read(&r, v);
    v->sm_mhz_mean = r.sm_mhz_mean;
    v->clock_readings = r.clock_readings;
    v->has_clock_readings = r.has_clock_readings;
    v->sm_clock_mhz = r.sm_clock_mhz;
    v->joules_per_launch = r.joules_per_launch;
    v->efficiency = r.ceiling.efficiency;
    return bad || cmp_texts_read(o, &r, v, d) != 0 ? -1 : 0;
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

/* The members of o (an object, else none) into *out, *n from d's arena, their keys pooled. */
static int values_alloc(const json_value *o, rb_results_cmp_value **out, int *n,
                        rb_results_cmp_doc *d)
{
    size_t count = o && o->type == JSON_OBJECT ? o->count : 0;
    int bad = 0;
    *n = 0;
    if (!(*out = cmp_alloc(d, count, sizeof **out)))
        return -1;
    for (size_t i = 0; i < count; i++)
        (*out)[i].key = pooled(d, o->keys[i], &bad);
    *n = (int)count;
    return bad ? -1 : 0;
}

/* The platform reference's members, each a number (NaN: not one) with the noise of its method
 * (methods.<key>.noise). */
int rb_results_cmp_platform_read(const json_value *platform, rb_results_cmp_doc *d)
{
    const char *source = json_string_at(platform, "source", NULL);
    const json_value *methods = json_get(platform, "methods");
    d->has_platform = platform != NULL;
    d->platform_none = source && !strcmp(source, "none");
    if (values_alloc(platform, &d->platform, &d->n_platform, d) != 0)
        return -1;
    for (int i = 0; i < d->n_platform; i++) {
        rb_results_cmp_value *x = &d->platform[i];
        x->value = json_number_at(platform, x->key);
        x->noise = json_number_at(json_get(methods, x->key), "noise");
    }
    return 0;
}

/* The roofs' measured values (no noise recorded). */
static int cmp_roofs_read(const json_value *roofs, rb_results_cmp_doc *d)
{
    if (values_alloc(roofs, &d->roofs, &d->n_roofs, d) != 0)
        return -1;
    for (int i = 0; i < d->n_roofs; i++) {
        rb_view_roof r;
        roof_view(roofs, (size_t)i, &r);
        d->roofs[i].value = r.measured;
        d->roofs[i].noise = NAN;
    }
    return 0;
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

static int facts_read(const json_value *doc, const rb_view_run *run, rb_results_cmp_doc *d)
{
    /* tool and ranks: an MPI run against a one-process run is a fact worth saying */
    static const char *const top[] = {"tool", "ranks", "git",         "size",
                                      "cold", "seed",  "hardware_key"};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof top / sizeof top[0]; i++)
        if (json_get(doc, top[i]))
            rc = add_fact(d, top[i], json_get(doc, top[i]));
    if (rc == 0)
        rc = flatten(d, "", run->start ? run->start : run->environment, 0);
    if (rc == 0)
        rc = flatten(d, "platform", run->platform_record, 0);
    /* a run that shared its GPU says so (a clean run, or one from before the check, says
     * nothing) */
    const json_value *shared = run->contention;
    if (rc == 0 && json_true_at(shared, "contended"))
        rc = add_fact(d, "contention.contended", json_get(shared, "contended")) ||
             add_fact(d, "contention.processes", json_get(shared, "processes"));
    return rc ? -1 : 0;
}

static int cmp_pair_read(const json_value *o, rb_results_cmp_pair *p, rb_results_cmp_doc *d)
{
    rb_view_pair pv;
    int bad = 0;
    pair_view(o, &pv);
    memset(p, 0, sizeof *p);
    p->name = pooled(d, pv.name, &bad);
    p->size = pv.size;
    if (bad || !(p->v = cmp_alloc(d, (size_t)pv.n_variants, sizeof *p->v)))
        return -1;
    for (int k = 0; k < pv.n_variants; k++)
        if (rb_results_cmp_variant_read(pv.variants->items[k], &p->v[p->n_variants++], d) != 0)
            return -1;
    return rb_results_cmp_kernels_read(pv.kernels, &p->kernels, &p->n_kernels, d);
}

int rb_results_cmp_read(const json_value *doc, rb_results_cmp_doc *d, char *err, size_t err_size)
{
    const json_value *list = pairs_of(doc, err, err_size);
    rb_view_run run;
    int bad = 0;
    memset(d, 0, sizeof *d);
    if (!list)
        return -1;
    run_view(doc, &run);
    d->git = pooled(d, run.git, &bad);
    d->date = pooled(d, run.date, &bad);
    d->cold = run.cold;
    d->pairs = cmp_alloc(d, list->count, sizeof *d->pairs);
    bad |= !d->pairs || rb_results_cmp_platform_read(run.platform_record, d) != 0 ||
           cmp_roofs_read(run.roofs, d) != 0 || facts_read(doc, &run, d) != 0;
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
