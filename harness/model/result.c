/* SPDX-License-Identifier: MIT */
#include "result.h"

#include <math.h>
#include <string.h>

#include "name_index.h"
#include "util.h"

static const char *const role_names[] = {"baseline", "step", "optimized", "library",
                                              "part"};
static const char *const verdict_names[RB_VERDICT_COUNT] = {
    "-",       "pass",    "improved", "regressed", "new",
    "missing", "invalid", "skipped",  "stale",     "contended"};

const char *rb_role_name(rb_role r)
{
    return (unsigned)r < 5 ? role_names[r] : "?";
}

const char *rb_verdict_name(rb_verdict v)
{
    return (unsigned)v < RB_VERDICT_COUNT ? verdict_names[v] : "?";
}

static const char *const timing_names[RB_TIMING_COUNT] = {"samples", "interleaved", "sustained",
                                                          "sustained_interleaved", "cold"};

const char *rb_timing_name(rb_timing t)
{
    return (unsigned)t < RB_TIMING_COUNT ? timing_names[t] : "?";
}

int rb_timing_from_name(const char *s, rb_timing *out)
{
    for (int i = 0; i < RB_TIMING_COUNT; i++)
        if (!strcmp(s, timing_names[i])) {
            *out = (rb_timing)i;
            return 0;
        }
    return -1;
}

int rb_timing_sustained(rb_timing t)
{
    return t == RB_TIMING_SUSTAINED || t == RB_TIMING_SUSTAINED_INTERLEAVED;
}

int rb_role_from_name(const char *s, rb_role *out)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(s, role_names[i]) == 0) {
            *out = (rb_role)i;
            return 0;
        }
    return -1;
}

int rb_unit_from_name(const char *s, rb_unit *out)
{
    for (int i = 0; i < RB_UNIT_COUNT; i++)
        if (strcmp(s, rb_unit_name((rb_unit)i)) == 0) {
            *out = (rb_unit)i;
            return 0;
        }
    return -1;
}

void rb_variant_result_init(rb_variant_result *v, const char *name, rb_role role, rb_unit unit,
                            double tolerance)
{
    memset(v, 0, sizeof *v);
    rb_fmt(v->name, sizeof v->name, "%s", name);
    v->role = role;
    v->unit = unit;
    v->tolerance = tolerance;
    v->rel_err_before = v->rel_err_after = NAN;
    v->time_ms.median = v->time_ms.min = v->time_ms.max = NAN;
    v->time_ms.p10 = v->time_ms.p90 = v->time_ms.noise = NAN;
    v->time_ms.ci_lo = v->time_ms.ci_hi = v->time_ms.ci_width = NAN;
    v->launches_per_sample = NAN;
    v->sm_clock_mhz = NAN;
    rb_clocks_init(&v->clocks);
    rb_energy_init(&v->energy);
    rb_contention_init(&v->contended_by);
    v->bytes = NAN;
    v->roof = RB_ROOF_COUNT;
    v->named_roof = RB_ROOF_COUNT;
    rb_point_none(&v->vs_ceiling);
    rb_point_none(&v->vs_peak);
    v->speedup = NAN;
    v->expected_ms = NAN;
    v->verdict = RB_VERDICT_NONE;
    v->threshold = v->judged_ratio = NAN;
}

json_value *rb_variant_to_json(const rb_variant_result *v)
{
    json_value *o = json_new_object();
    json_value *t = json_new_object();
    if (!o || !t) {
        json_free(o);
        json_free(t);
        return NULL;
    }
    int bad =
        json_set_string(o, "name", v->name) | json_set_string(o, "role", rb_role_name(v->role)) |
        json_set_string(o, "unit", rb_unit_name(v->unit)) | json_set_bool(o, "valid", v->valid) |
        json_set_bool(o, "timed", v->timed) | json_set_number(o, "tolerance", v->tolerance) |
        json_set_number(o, "rel_err_before", v->rel_err_before) |
        json_set_number(o, "rel_err_after", v->rel_err_after) |
        json_set_number(t, "median", v->time_ms.median) |
        json_set_number(t, "min", v->time_ms.min) | json_set_number(t, "max", v->time_ms.max) |
        json_set_number(t, "p10", v->time_ms.p10) | json_set_number(t, "p90", v->time_ms.p90) |
        json_set_number(t, "noise", v->time_ms.noise) |
        json_set_number(t, "median_ci_lo", v->time_ms.ci_lo) |
        json_set_number(t, "median_ci_hi", v->time_ms.ci_hi) |
        json_set_number(t, "samples", (double)v->time_ms.n) |
        json_set_number(t, "launches_per_sample", v->launches_per_sample);
    bad |= json_object_set(o, "time_ms", t);
    bad |= json_set_number(o, "sm_clock_mhz", v->sm_clock_mhz);
    if (!isnan(v->bytes))
        bad |= json_set_number(o, "bytes", v->bytes);
    bad |= json_set_string(o, "note", v->note);
    if (v->roof < RB_ROOF_COUNT)
        bad |= json_set_string(o, "roof", rb_roof_key(v->roof));
    if (v->roof_rate[0])
        bad |= json_set_string(o, "roof_rate", v->roof_rate);
    if (v->skipped)
        bad |= json_set_bool(o, "skipped", 1);
    if (v->timed)
        bad |= json_set_string(o, "timing", rb_timing_name(v->timing));
    if (v->host_bound_why[0])
        bad |= json_set_bool(o, "informational", 1) |
               json_set_string(o, "host_bound_why", v->host_bound_why);
    if (v->n_extras > 0)
        bad |= json_object_set(o, "extras", rb_extras_to_json(v->extras, v->n_extras));
    bad |= rb_clocks_to_json(&v->clocks, o);
    bad |= rb_energy_to_json(&v->energy, o);
    if (rb_variant_contended(v))
        bad |= json_set_bool(o, "contended", 1) |
               rb_contention_to_json(&v->contended_by, o, "contended_by");
    if (v->library_algo.present)
        bad |= json_object_set(o, "library_algo", rb_library_algo_to_json(&v->library_algo));
    if (bad) {
        json_free(o);
        return NULL;
    }
    return o;
}

int rb_variant_from_json(const json_value *o, rb_variant_result *v, char *err, size_t err_size)
{
    const json_value *name = json_get(o, "name"), *role = json_get(o, "role");
    const json_value *unit = json_get(o, "unit"), *t = json_get(o, "time_ms");
    rb_role r;
    rb_unit u;
    if (!name || name->type != JSON_STRING || !role || role->type != JSON_STRING ||
        rb_role_from_name(role->string, &r) != 0 || !unit || unit->type != JSON_STRING ||
        rb_unit_from_name(unit->string, &u) != 0 || !t || t->type != JSON_OBJECT) {
        rb_fmt(err, err_size, "variant record lacks name, role, unit or time_ms");
        return -1;
    }
    rb_variant_result_init(v, name->string, r, u, json_number_at(o, "tolerance"));
    const json_value *valid = json_get(o, "valid"), *timed = json_get(o, "timed");
    v->valid = valid && valid->type == JSON_BOOL && valid->boolean;
    v->timed = timed && timed->type == JSON_BOOL && timed->boolean;
    const json_value *skipped = json_get(o, "skipped");
    v->skipped = skipped && skipped->type == JSON_BOOL && skipped->boolean;
    v->rel_err_before = json_number_at(o, "rel_err_before");
    v->rel_err_after = json_number_at(o, "rel_err_after");
    v->time_ms.median = json_number_at(t, "median");
    v->time_ms.min = json_number_at(t, "min");
    v->time_ms.max = json_number_at(t, "max");
    v->time_ms.p10 = json_number_at(t, "p10");
    v->time_ms.p90 = json_number_at(t, "p90");
    v->time_ms.noise = json_number_at(t, "noise");
    v->time_ms.ci_lo = json_number_at(t, "median_ci_lo");
    v->time_ms.ci_hi = json_number_at(t, "median_ci_hi");
    v->time_ms.ci_width = v->time_ms.median > 0
                              ? (v->time_ms.ci_hi - v->time_ms.ci_lo) / v->time_ms.median
                              : NAN;
    double n = json_number_at(t, "samples");
    /* A count no run reaches reads as 0: converting a double beyond size_t's range (1e300,
     * which UBSan flags when tests/fuzz/fuzz_json runs such a record) is undefined behaviour. */
    v->time_ms.n = n >= 0 && n <= 1e15 ? (size_t)n : 0;
    v->launches_per_sample = json_number_at(t, "launches_per_sample");
    v->sm_clock_mhz = json_number_at(o, "sm_clock_mhz");
    v->bytes = json_number_at(o, "bytes");
    const json_value *note = json_get(o, "note");
    if (note && note->type == JSON_STRING)
        rb_fmt(v->note, sizeof v->note, "%s", note->string);
    /* A record without a roof (one written before roofs were per variant) gets the derived one;
     * a roof this build does not know is refused rather than guessed. A results file names the
     * binding roof "roof" and the declared one "declared_roof": the declared one is what a
     * point is placed on again. */
    const json_value *roof = json_get(o, "declared_roof"), *rate = json_get(o, "roof_rate");
    if (!roof)
        roof = json_get(o, "roof");
    if (roof && (roof->type != JSON_STRING || rb_roof_from_key(roof->string, &v->roof) != 0)) {
        rb_fmt(err, err_size, "variant record: roof is not a roof key");
        return -1;
    }
    if (rate && rate->type == JSON_STRING)
        rb_fmt(v->roof_rate, sizeof v->roof_rate, "%s", rate->string);
    const json_value *timing = json_get(o, "timing"), *why = json_get(o, "host_bound_why");
    if (timing &&
        (timing->type != JSON_STRING || rb_timing_from_name(timing->string, &v->timing) != 0)) {
        rb_fmt(err, err_size, "variant record: timing is not a timing's name");
        return -1;
    }
    if (why && why->type == JSON_STRING)
        rb_fmt(v->host_bound_why, sizeof v->host_bound_why, "%s", why->string);
    const json_value *extras = json_get(o, "extras");
    if (extras && rb_extras_from_json(extras, v->extras, &v->n_extras, err, err_size) != 0)
        return -1;
    const json_value *algo = json_get(o, "library_algo");
    if (algo && rb_library_algo_from_json(algo, &v->library_algo, err, err_size) != 0)
        return -1;
    if (rb_energy_from_json(o, &v->energy, err, err_size) != 0 ||
        rb_contention_from_json(o, "contended_by", &v->contended_by, err, err_size) != 0)
        return -1;
    /* a file that says contended and names nobody is still contended */
    if (json_true_at(o, "contended") && !rb_variant_contended(v))
        v->contended_by.more = 1;
    return rb_clocks_from_json(o, &v->clocks, err, err_size);
}

int rb_variant_contended(const rb_variant_result *v)
{
    return rb_contention_any(&v->contended_by);
}

/* The numeric fields of rb_library_algo, in the order the results write them. */
static const char *const algo_keys[] = {
    "algo_id",          "tile",    "stages",        "splitk",
    "reduction_scheme", "swizzle", "custom_option", "candidate_index"};
#define RB_ALGO_KEYS (int)(sizeof algo_keys / sizeof algo_keys[0])

static long long *algo_value(rb_library_algo *a, int i)
{
    long long *const values[RB_ALGO_KEYS] = {
        &a->algo_id,          &a->tile,    &a->stages,        &a->splitk,
        &a->reduction_scheme, &a->swizzle, &a->custom_option, &a->candidate_index};
    return values[i];
}

json_value *rb_library_algo_to_json(const rb_library_algo *a)
{
    rb_library_algo copy = *a;
    json_value *o = json_new_object();
    int bad = !o || json_set_string(o, "kind", a->kind);
    for (int i = 0; !bad && i < RB_ALGO_KEYS; i++)
        bad |= json_set_number(o, algo_keys[i], (double)*algo_value(&copy, i));
    if (bad) {
        json_free(o);
        return NULL;
    }
    return o;
}

int rb_library_algo_from_json(const json_value *o, rb_library_algo *a, char *err, size_t err_size)
{
    memset(a, 0, sizeof *a);
    const json_value *kind = o->type == JSON_OBJECT ? json_get(o, "kind") : NULL;
    if (!kind || kind->type != JSON_STRING) {
        rb_fmt(err, err_size, "library_algo: an object with a kind expected");
        return -1;
    }
    rb_fmt(a->kind, sizeof a->kind, "%s", kind->string);
    for (int i = 0; i < RB_ALGO_KEYS; i++) {
        const json_value *x = json_get(o, algo_keys[i]);
        /* integers as cuBLASLt reports them: 32 bits, the index -1 or more */
        if (!x || x->type != JSON_NUMBER || !(x->number >= -1 && x->number <= 4294967295.0) ||
            x->number != (double)(long long)x->number) {
            rb_fmt(err, err_size, "library_algo: %s is not an integer", algo_keys[i]);
            return -1;
        }
        *algo_value(a, i) = (long long)x->number;
    }
    a->present = 1;
    return 0;
}

json_value *rb_extras_to_json(const rb_extra *x, int n)
{
    json_value *o = json_new_object();
    for (int i = 0; o && i < n; i++)
        if (json_set_number(o, x[i].name, x[i].value)) {
            json_free(o);
            return NULL;
        }
    return o;
}

int rb_extras_from_json(const json_value *o, rb_extra *x, int *n, char *err, size_t err_size)
{
    if (o->type != JSON_OBJECT || o->count > RB_MAX_EXTRAS) {
        rb_fmt(err, err_size, "extras: an object of at most %d numbers expected", RB_MAX_EXTRAS);
        return -1;
    }
    for (size_t i = 0; i < o->count; i++) {
        const json_value *v = o->items[i];
        if (v->type != JSON_NUMBER && v->type != JSON_NULL) {
            rb_fmt(err, err_size, "extras: '%s' is not a number", o->keys[i]);
            return -1;
        }
        rb_fmt(x[i].name, sizeof x[i].name, "%s", o->keys[i]);
        x[i].value = v->type == JSON_NUMBER ? v->number : NAN;
    }
    *n = (int)o->count;
    return 0;
}

json_value *rb_kernel_to_json(const rb_kernel_result *k)
{
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "variant", k->variant) || json_set_string(o, "name", k->name) ||
        json_set_number(o, "registers", k->registers) ||
        json_set_number(o, "static_smem_bytes", k->static_smem) ||
        json_set_number(o, "dyn_smem_bytes", k->dyn_smem) ||
        json_set_number(o, "local_bytes", k->local_bytes) ||
        json_set_number(o, "block_threads", k->block_threads) ||
        json_set_number(o, "blocks_per_sm", k->blocks_per_sm) ||
        json_set_number(o, "occupancy", k->occupancy) ||
        (k->grid > 0 && json_set_number(o, "grid", (double)k->grid)) ||
        (k->sass_hash[0] &&
         (json_set_string(o, "sass_hash", k->sass_hash) ||
          json_object_set(o, "sass_counts",
                          rb_extras_to_json(k->sass_counts, k->n_sass_counts))))) {
        json_free(o);
        return NULL;
    }
    return o;
}

/* A count read back; -1 when absent or not a number. */
static int int_or_minus_one(const json_value *o, const char *key)
{
    double x = json_number_at(o, key);
    return x >= -1 && x <= 1e9 ? (int)x : -1;
}

int rb_kernel_from_json(const json_value *o, rb_kernel_result *k, char *err, size_t err_size)
{
    const json_value *variant = json_get(o, "variant"), *name = json_get(o, "name");
    if (!variant || variant->type != JSON_STRING || !name || name->type != JSON_STRING) {
        rb_fmt(err, err_size, "kernel record lacks variant or name");
        return -1;
    }
    memset(k, 0, sizeof *k);
    rb_fmt(k->variant, sizeof k->variant, "%s", variant->string);
    rb_fmt(k->name, sizeof k->name, "%s", name->string);
    k->registers = int_or_minus_one(o, "registers");
    k->static_smem = json_number_at(o, "static_smem_bytes");
    k->dyn_smem = json_number_at(o, "dyn_smem_bytes");
    k->local_bytes = json_number_at(o, "local_bytes");
    k->block_threads = int_or_minus_one(o, "block_threads");
    k->blocks_per_sm = int_or_minus_one(o, "blocks_per_sm");
    k->occupancy = json_number_at(o, "occupancy");
    double grid = json_number_at(o, "grid"); /* a count no launch reaches reads as unknown */
    k->grid = grid >= 1 && grid <= 9e15 && grid == floor(grid) ? (long long)grid : 0;
    const json_value *hash = json_get(o, "sass_hash"), *counts = json_get(o, "sass_counts");
    if (hash && (hash->type != JSON_STRING || strlen(hash->string) != 16 ||
                 strspn(hash->string, "0123456789abcdef") != 16)) {
        rb_fmt(err, err_size, "kernel record: sass_hash is not 16 hex digits");
        return -1;
    }
    if (hash) {
        rb_fmt(k->sass_hash, sizeof k->sass_hash, "%s", hash->string);
        if (counts &&
            rb_extras_from_json(counts, k->sass_counts, &k->n_sass_counts, err, err_size) != 0)
            return -1;
    }
    return 0;
}

/* Why the timing of variant record v cannot be true ("" when it can): an interval of the median
 * that is inverted or leaves out the median (which compare and history would judge with), or a
 * sample count that is no count (negative, fractional, more than any run takes). */
static void timing_problem(const json_value *v, char *why, size_t size)
{
    const json_value *t = json_get(v, "time_ms"), *samples = json_get(t, "samples");
    double lo = json_number_at(t, "median_ci_lo"), hi = json_number_at(t, "median_ci_hi");
    double median = json_number_at(t, "median");
    why[0] = '\0';
    if (!isnan(lo) && !isnan(hi) && !(lo <= hi))
        rb_fmt(why, size, "its median's interval [%g, %g] is inverted", lo, hi);
    else if (!isnan(lo) && !isnan(hi) && !isnan(median) && !(lo <= median && median <= hi))
        rb_fmt(why, size, "its median %g lies outside its interval [%g, %g]", median, lo, hi);
    else if (samples && samples->type == JSON_NUMBER &&
             !(samples->number >= 0 && samples->number <= 1e9 &&
               samples->number == floor(samples->number)))
        rb_fmt(why, size, "its sample count %g is not a count of samples (0 to 1e9)",
               samples->number);
}

/* The variants of pair record p (named name, pairs[i]): objects with unique string names and a
 * timing that can be true. */
static int check_variants(const json_value *vs, const char *name, size_t i, char *err,
                          size_t err_size)
{
    char shown[200];
    rb_text_for_terminal(name, shown, sizeof shown);
    if (!vs || vs->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "pairs[%zu] (%s) has no \"variants\" array", i, shown);
        return -1;
    }
    rb_name_index seen = {0};
    int rc = 0;
    for (size_t k = 0; k < vs->count && rc == 0; k++) {
        const json_value *vn = json_get(vs->items[k], "name");
        if (!vn || vn->type != JSON_STRING) {
            rb_fmt(err, err_size, "pairs[%zu] (%s): variants[%zu] has no name", i, shown, k);
            rc = -1;
            break;
        }
        char why[200];
        timing_problem(vs->items[k], why, sizeof why);
        if (why[0]) {
            char v[200];
            rb_text_for_terminal(vn->string, v, sizeof v);
            rb_fmt(err, err_size, "pairs[%zu] (%s): variant %s: %s", i, shown, v, why);
            rc = -1;
            break;
        }
        /* a handful of variants: a linear search; many: the index */
        int dup = 0;
        if (vs->count <= 16) {
            for (size_t j = 0; j < k && !dup; j++)
                dup = !strcmp(json_get(vs->items[j], "name")->string, vn->string);
        } else {
            dup = rb_name_index_put(&seen, vn->string, (int)k);
        }
        if (dup) {
            char v[200];
            rb_text_for_terminal(vn->string, v, sizeof v);
            if (dup < 0)
                rb_fmt(err, err_size, "out of memory");
            else
                rb_fmt(err, err_size, "pairs[%zu] (%s): variant %s appears twice", i, shown, v);
            rc = -1;
        }
    }
    rb_name_index_free(&seen);
    return rc;
}

int rb_results_doc_check(const json_value *doc, char *err, size_t err_size)
{
    const json_value *pairs = json_get(doc, "pairs");
    if (!pairs || pairs->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "not a roofbench results file (no \"pairs\" array)");
        return -1;
    }
    if (pairs->count > (size_t)1 << 30) {
        rb_fmt(err, err_size, "more pairs than a results file holds");
        return -1;
    }
    rb_name_index names = {0};
    int rc = 0;
    for (size_t i = 0; i < pairs->count && rc == 0; i++) {
        const json_value *p = pairs->items[i], *name = json_get(p, "name");
        if (!name || name->type != JSON_STRING) {
            rb_fmt(err, err_size, "pairs[%zu] is not a pair record (an object with a name)", i);
            rc = -1;
            break;
        }
        int dup = rb_name_index_put(&names, name->string, (int)i);
        if (dup) {
            char shown[200];
            rb_text_for_terminal(name->string, shown, sizeof shown);
            if (dup < 0)
                rb_fmt(err, err_size, "out of memory");
            else
                rb_fmt(err, err_size,
                       "pair %s appears twice (pairs[%d] and pairs[%zu]): each pair is named once",
                       shown, rb_name_index_get(&names, name->string), i);
            rc = -1;
            break;
        }
        rc = check_variants(json_get(p, "variants"), name->string, i, err, err_size);
    }
    rb_name_index_free(&names);
    return rc;
}

int rb_results_default_path(char *path, size_t size, const char *dir, const char *key,
                            const char *stamp, const char *git, const char *suffix)
{
    return rb_fmt_fits(path, size, "%s/%s/%s-%s%s.json", dir, key, stamp, git, suffix);
}

size_t rb_results_pair_count(const json_value *doc)
{
    const json_value *pairs = json_get(doc, "pairs");
    return pairs && pairs->type == JSON_ARRAY ? pairs->count : 0;
}

json_value *rb_results_pairs_copy(const json_value *doc)
{
    const json_value *pairs = json_get(doc, "pairs");
    return pairs ? json_clone(pairs) : NULL;
}

int rb_results_merge(json_value *a, const json_value *b, const char *const *order, int n)
{
    json_value *pa = json_get(a, "pairs"), *pb = json_get(b, "pairs");
    json_value *all = json_new_array();
    if (!all || !pa || !pb)
        return json_free(all), -1;
    for (int r = 0; r < n; r++)
        for (int s = 0; s < 2; s++) {
            const json_value *from = s ? pb : pa;
            for (uint32_t i = 0; i < from->count; i++) {
                const char *name = json_string_at(from->items[i], "name", "");
                size_t len = strcspn(name, ".@");
                if (strlen(order[r]) == len && !strncmp(name, order[r], len) &&
                    json_array_push(all, json_clone(from->items[i])) != 0)
                    return json_free(all), -1;
            }
        }
    json_value *end = json_clone(json_get(json_get(b, "environment"), "end"));
    if (end && json_object_set(json_get(a, "environment"), "end", end) != 0)
        return json_free(all), -1;
    return json_object_set(a, "pairs", all);
}
