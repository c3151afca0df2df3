/* SPDX-License-Identifier: MIT */
/* The node document and its outliers (model/node.h says what they are). */
#include "node.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "node_attr.h"
#include "result.h"
#include "roofline.h"
#include "util.h"

/* A variant's median time when it is a result to compare (valid, timed, positive), else NaN. */
static double node_median_ms(const json_value *v)
{
    if (!v || !json_true_at(v, "valid") || !json_true_at(v, "timed") || json_true_at(v, "skipped"))
        return NAN;
    double ms = json_number_at(json_get(v, "time_ms"), "median");
    return ms > 0 && isfinite(ms) ? ms : NAN;
}

/* The hardware key of a run, without any -xN. */
static void node_single_key(const json_value *run, char *out, size_t size)
{
    rb_hardware_key_single(json_string_at(run, "hardware_key", "unknown-gpu"), out, size);
}

/* The row's expected median and threshold for GPU v's time: the expectation file's entry when
 * there is one (as `run` judges: model/expect.h), else what the run recorded, else the noise. */
static void node_expected(const json_value *expect, const char *row, const char *variant,
                          const json_value *v, double *expected_ms, double *threshold)
{
    const json_value *entry =
        json_get(json_get(json_get(json_get(expect, "pairs"), row), "variants"), variant);
    const json_value *t = json_get(v, "time_ms");
    rb_stats now = {.median = json_number_at(t, "median"),
                    .noise = json_number_at(t, "noise"),
                    .ci_lo = json_number_at(t, "median_ci_lo"),
                    .ci_hi = json_number_at(t, "median_ci_hi")};
    *expected_ms = json_number_at(v, "expected_ms");
    *threshold = json_number_at(v, "threshold");
    if (entry) {
        rb_expected e;
        rb_expected_read(entry, &e);
        *expected_ms = e.median_ms;
        *threshold = rb_expect_run_threshold(&e, &now);
    } else if (!(*threshold > 0)) {
        *threshold = rb_expect_threshold(NAN, now.noise);
    }
    rb_roof r;
    if (rb_roof_from_key(json_string_at(v, "roof", ""), &r) == 0 && !rb_roof_is_link(r) &&
        rb_roof_kind_of(r) != RB_KIND_LATENCY && *threshold > RB_NODE_MAX_THRESHOLD)
        *threshold = RB_NODE_MAX_THRESHOLD;
}

/* The reference of GPU g's time x[g] among the group's times x[0..n) (NaN: not timed there),
 * per model/node.h; 0 with *ref and *kind, or -1 when it is not judged (or not slow). */
static int node_reference(const double *x, int n, int g, double expected_ms, double threshold,
                          double *ref, const char **kind)
{
    int m;
    double peer = rb_node_peer_reference(x, n, g, &m);
    if (!isfinite(x[g]) || !isfinite(peer))
        return -1;
    if (m >= 3) {
        *ref = peer;
        *kind = "node_median";
        return 0;
    }
    if (!(x[g] > peer * (1 + threshold))) /* two GPUs: slower than the other one too */
        return -1;
    *ref = expected_ms > 0 ? expected_ms : peer;
    *kind = expected_ms > 0 ? "expectation" : "other_gpu";
    return 0;
}

typedef struct node_ctx {
    const json_value *const *runs; /* the GPUs of one hardware key */
    int n;
    const json_value *expect;
    json_value *out;
    int oom;
} node_ctx;

static void node_flag(node_ctx *c, int g, const json_value *row, const json_value *v, double ref,
                      const char *kind, double threshold, const double *x)
{
    const json_value *start = json_get(json_get(c->runs[g], "environment"), "start");
    const char *row_name = json_string_at(row, "name", "");
    char pair[RB_NAME_MAX];
    rb_fmt(pair, sizeof pair, "%.*s", (int)strcspn(row_name, ".@"), row_name);
    rb_node_attr a;
    rb_node_attribute(c->runs, c->n, g, row, v, x[g] / ref, threshold, &a);
    json_value *o = json_new_object();
    const json_value *rank = json_get(start, "rank");
    int bad = !o || json_set_string(o, "host", json_string_at(start, "host", NULL)) ||
              json_object_set(o, "rank", rank ? json_clone(rank) : json_new_null()) ||
              json_set_number(o, "device_index", json_number_at(start, "device_index")) ||
              json_set_string(o, "uuid", json_string_at(start, "uuid", NULL)) ||
              json_set_string(o, "pair", pair) || json_set_string(o, "row", row_name) ||
              json_set_string(o, "variant", json_string_at(v, "name", "")) ||
              json_set_string(o, "roof", json_string_at(v, "roof", NULL)) ||
              json_set_number(o, "value", x[g]) || json_set_number(o, "reference", ref) ||
              json_set_string(o, "reference_kind", kind) ||
              json_set_number(o, "ratio", x[g] / ref) ||
              json_set_number(o, "threshold", threshold) ||
              json_set_string(o, "attribution", a.attribution) ||
              json_set_string(o, "evidence", a.evidence) ||
              (json_true_at(v, "informational") && json_set_bool(o, "informational", 1));
    if (bad || json_array_push(c->out, o) != 0) {
        if (bad)
            json_free(o);
        c->oom = 1;
    }
}

/* Every variant of GPU g's row group against the same variant on the group's other GPUs. */
static void node_judge_row(node_ctx *c, int g, const json_value *row, double *x)
{
    const json_value *vs = json_get(row, "variants");
    const char *row_name = json_string_at(row, "name", "");
    for (uint32_t k = 0; vs && vs->type == JSON_ARRAY && k < vs->count; k++) {
        const json_value *v = vs->items[k];
        const char *name = json_string_at(v, "name", "");
        for (int i = 0; i < c->n; i++)
            x[i] = i == g
                       ? node_median_ms(v)
                       : node_median_ms(rb_node_variant(rb_node_row(c->runs[i], row_name), name));
        if (!isfinite(x[g]))
            continue;
        double expected_ms, threshold, ref;
        const char *kind;
        node_expected(c->expect, row_name, name, v, &expected_ms, &threshold);
        if (node_reference(x, c->n, g, expected_ms, threshold, &ref, &kind) == 0 &&
            x[g] > ref * (1 + threshold))
            node_flag(c, g, row, v, ref, kind, threshold, x);
    }
}

json_value *rb_node_outliers(const json_value *const *runs, int n, const json_value *expect)
{
    json_value *out = json_new_array();
    const json_value **group = malloc((size_t)(n > 0 ? n : 1) * sizeof *group);
    double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    node_ctx c = {.expect = expect, .out = out, .oom = !out || !group || !x};
    for (int g = 0; !c.oom && g < n; g++) {
        char key[160], other[160];
        node_single_key(runs[g], key, sizeof key);
        int m = 0, me = 0;
        for (int i = 0; i < n; i++) {
            node_single_key(runs[i], other, sizeof other);
            if (!strcmp(key, other)) {
                if (i == g)
                    me = m;
                group[m++] = runs[i];
            }
        }
        c.runs = group;
        c.n = m;
        const json_value *pairs = json_get(runs[g], "pairs");
        for (uint32_t p = 0; m >= 2 && pairs && pairs->type == JSON_ARRAY && p < pairs->count; p++)
            node_judge_row(&c, me, pairs->items[p], x);
    }
    free(group);
    free(x);
    if (c.oom) {
        json_free(out);
        return NULL;
    }
    return out;
}

/* One "gpus" entry, taking run. */
static json_value *node_gpu_entry(json_value *run)
{
    const json_value *start = json_get(json_get(run, "environment"), "start");
    const json_value *rank = json_get(start, "rank");
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "host", json_string_at(start, "host", NULL)) ||
        json_object_set(o, "rank", rank ? json_clone(rank) : json_new_null()) ||
        json_set_number(o, "device_index", json_number_at(start, "device_index")) ||
        json_set_string(o, "uuid", json_string_at(start, "uuid", NULL)) ||
        json_set_string(o, "pci_bus_id", json_string_at(start, "pci_bus_id", NULL))) {
        json_free(o);
        json_free(run);
        return NULL;
    }
    if (json_object_set(o, "run", run) != 0) {
        json_free(o);
        return NULL;
    }
    return o;
}

static json_value *node_head(const char *tool, const char *kind, const json_value *run0, int n)
{
    char single[160], key[176];
    node_single_key(run0, single, sizeof single);
    rb_fmt(key, sizeof key, n > 1 ? "%s-x%d" : "%s", single, n);
    json_value *node = json_new_object();
    if (!node || json_set_number(node, "schema", json_number_at(run0, "schema")) ||
        json_set_string(node, "tool", tool) || json_set_string(node, "kind", kind) ||
        json_set_string(node, "hardware_key", key) ||
        json_set_string(node, "date", json_string_at(run0, "date", NULL)) ||
        json_set_string(node, "git", json_string_at(run0, "git", NULL)) ||
        json_set_string(node, "gate", "gating")) {
        json_free(node);
        return NULL;
    }
    return node;
}

static void node_free_runs(json_value **runs, int n)
{
    for (int i = 0; i < n; i++) {
        json_free(runs[i]);
        runs[i] = NULL;
    }
}

json_value *rb_node_build(const char *tool, const char *kind, json_value **runs, int n,
                          const json_value *expect, char *err, size_t err_size)
{
    for (int i = 0; i < n; i++) {
        char why[400];
        if (!runs[i] || rb_results_doc_check(runs[i], why, sizeof why) != 0) {
            rb_fmt(err, err_size, "GPU %d of %d: not a run document: %s", i, n,
                   runs[i] ? why : "none");
            node_free_runs(runs, n);
            return NULL;
        }
    }
    if (n < 1) {
        rb_fmt(err, err_size, "a node needs at least one GPU's run");
        return NULL;
    }
    json_value *outliers = rb_node_outliers((const json_value *const *)runs, n, expect);
    json_value *node = outliers ? node_head(tool, kind, runs[0], n) : NULL;
    json_value *gpus = node ? json_new_array() : NULL;
    if (!gpus)
        json_free(outliers); /* nothing took it */
    int bad = !gpus || json_object_set(node, "gpus", gpus) ||
              json_object_set(node, "collectives", json_new_array());
    for (int i = 0; i < n; i++) {
        json_value *e = bad ? NULL : node_gpu_entry(runs[i]);
        if (!bad)
            runs[i] = NULL; /* taken by node_gpu_entry, also when it failed */
        bad = bad || !e || json_array_push(gpus, e) != 0;
    }
    if (gpus)
        bad = json_object_set(node, "outliers", outliers) || bad; /* takes it in any case */
    if (bad) {
        node_free_runs(runs, n);
        json_free(node);
        rb_fmt(err, err_size, "the node document: out of memory");
        return NULL;
    }
    return node;
}

int rb_node_set_collectives(json_value *node, json_value *pairs)
{
    if (!pairs || pairs->type != JSON_ARRAY) {
        json_free(pairs);
        return -1;
    }
    return json_object_set(node, "collectives", pairs);
}

int rb_node_set_p2p(json_value *node, json_value *matrix)
{
    if (!matrix || matrix->type != JSON_OBJECT) {
        json_free(matrix);
        return -1;
    }
    return json_object_set(node, "p2p_matrix", matrix);
}

int rb_node_set_gate_all(json_value *node, int gate_all)
{
    return json_set_string(node, "gate", gate_all ? "all" : "gating");
}

int rb_node_outlier_gates(const json_value *node, const json_value *outlier)
{
    return !json_true_at(outlier, "informational") ||
           !strcmp(json_string_at(node, "gate", ""), "all");
}

/* The outliers of the node that gate (gating != 0) or do not. */
static int node_count_outliers(const json_value *node, int gating)
{
    const json_value *o = json_get(node, "outliers");
    int n = 0;
    for (uint32_t i = 0; o && o->type == JSON_ARRAY && i < o->count; i++)
        n += (rb_node_outlier_gates(node, o->items[i]) != 0) == (gating != 0);
    return n;
}

int rb_node_outlier_count(const json_value *node)
{
    return node_count_outliers(node, 1);
}

int rb_node_host_bound_count(const json_value *node)
{
    return node_count_outliers(node, 0);
}

/* ---- one GPU of a node document ---- */

int rb_node_is_document(const json_value *doc)
{
    const char *kind = json_string_at(doc, "kind", "");
    const json_value *gpus = json_get(doc, "gpus");
    return (!strcmp(kind, "node") || !strcmp(kind, "fleet")) && gpus && gpus->type == JSON_ARRAY;
}

json_value *rb_node_gpu_run(const json_value *node, int gpu, char *err, size_t err_size)
{
    const json_value *gpus = json_get(node, "gpus");
    const json_value *run =
        gpu >= 0 && (size_t)gpu < gpus->count ? json_get(gpus->items[gpu], "run") : NULL;
    if (gpu < 0) {
        rb_fmt(err, err_size,
               "a %s document of %u GPU(s), not one GPU's run: name one with --gpu N (0 to %u)",
               json_string_at(node, "kind", ""), gpus->count, gpus->count ? gpus->count - 1 : 0);
        return NULL;
    }
    if (!run || run->type != JSON_OBJECT) {
        rb_fmt(err, err_size, "--gpu %d: the %s document has no run of GPU %d (%u GPU(s): 0 to %u)",
               gpu, json_string_at(node, "kind", ""), gpu, gpus->count,
               gpus->count ? gpus->count - 1 : 0);
        return NULL;
    }
    json_value *doc = json_clone(run), *pairs = json_get(doc, "pairs");
    const json_value *collectives = json_get(node, "collectives"),
                     *p2p = json_get(node, "p2p_matrix");
    int bad = !doc;
    /* the pairs that span the GPUs ran once, across them: each GPU's view holds them */
    for (uint32_t i = 0; !bad && pairs && pairs->type == JSON_ARRAY && collectives &&
                         collectives->type == JSON_ARRAY && i < collectives->count;
         i++)
        bad = json_array_push(pairs, json_clone(collectives->items[i])) != 0;
    if (!bad && p2p && !json_get(doc, "p2p_matrix"))
        bad = json_object_set(doc, "p2p_matrix", json_clone(p2p)) != 0;
    if (bad) {
        json_free(doc);
        rb_fmt(err, err_size, "out of memory");
        return NULL;
    }
    return doc;
}
