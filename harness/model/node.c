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
static double node_median_ms(const rb_node_var *v)
{
    if (!v || !v->valid || !v->timed || v->skipped)
        return NAN;
    double ms = v->time_ms.median;
    return ms > 0 && isfinite(ms) ? ms : NAN;
}

/* The hardware key of a run, without any -xN. */
static void node_single_key(const rb_node_member *run, char *out, size_t size)
{
    rb_hardware_key_single(rb_results_text(run->hardware_key, "unknown-gpu"), out, size);
}

/* The expectation file's variants, read once (rb_expected_each). */
typedef struct node_expected_row {
    const char *row, *variant;
    rb_expected e;
} node_expected_row;

typedef struct node_expectations {
    node_expected_row *rows;
    int n, cap, oom;
} node_expectations;

static void node_expected_add(const char *row, const char *variant, const rb_expected *e, void *ctx)
{
    node_expectations *x = ctx;
    if (x->n == x->cap) {
        int cap = x->cap ? 2 * x->cap : 64;
        node_expected_row *grown = realloc(x->rows, (size_t)cap * sizeof *grown);
        if (!grown) {
            x->oom = 1;
            return;
        }
        x->rows = grown;
        x->cap = cap;
    }
    x->rows[x->n++] = (node_expected_row){row, variant, *e};
}

static const rb_expected *node_expected_find(const node_expectations *x, const char *row,
                                             const char *variant)
{
    for (int i = 0; i < x->n; i++)
        if (!strcmp(x->rows[i].row, row) && !strcmp(x->rows[i].variant, variant))
            return &x->rows[i].e;
    return NULL;
}

/* The row's expected median and threshold for GPU v's time: the expectation file's entry when
 * there is one (as `run` judges: model/expect.h), else what the run recorded, else the noise. */
static void node_expected(const node_expectations *expect, const char *row, const rb_node_var *v,
                          double *expected_ms, double *threshold)
{
    const rb_expected *e = node_expected_find(expect, row, v->name);
    *expected_ms = v->expected_ms;
    *threshold = v->threshold;
    if (e) {
        *expected_ms = e->median_ms;
        *threshold = rb_expect_run_threshold(e, &v->time_ms);
    } else if (!(*threshold > 0)) {
        *threshold = rb_expect_threshold(NAN, v->time_ms.noise);
    }
    rb_roof r;
    if (rb_roof_from_key(rb_results_text(v->roof, ""), &r) == 0 && !rb_roof_is_link(r) &&
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
    const rb_node_member *const *runs; /* the GPUs of one hardware key */
    int n;
    const node_expectations *expect;
    json_value *out;
    int oom;
} node_ctx;

/* Who the GPU of run is (host, rank, device_index, uuid) onto o. 0, or -1. */
static int node_set_who(json_value *o, const rb_node_member *run)
{
    return !o || json_set_string(o, "host", run->host) ||
           json_object_set(o, "rank",
                           isnan(run->rank) ? json_new_null() : json_new_number(run->rank)) ||
           json_set_number(o, "device_index", run->device_index) ||
           json_set_string(o, "uuid", run->uuid);
}

static void node_flag(node_ctx *c, int g, const rb_node_group *row, const rb_node_var *v,
                      double ref, const char *kind, double threshold, const double *x)
{
    char pair[RB_NAME_MAX];
    rb_fmt(pair, sizeof pair, "%.*s", (int)strcspn(row->name, ".@"), row->name);
    rb_node_attr a;
    rb_node_attribute(c->runs, c->n, g, row, v, x[g] / ref, threshold, &a);
    json_value *o = json_new_object();
    int bad = node_set_who(o, c->runs[g]) || json_set_string(o, "pair", pair) ||
              json_set_string(o, "row", row->name) || json_set_string(o, "variant", v->name) ||
              json_set_string(o, "roof", v->roof) || json_set_number(o, "value", x[g]) ||
              json_set_number(o, "reference", ref) || json_set_string(o, "reference_kind", kind) ||
              json_set_number(o, "ratio", x[g] / ref) ||
              json_set_number(o, "threshold", threshold) ||
              json_set_string(o, "attribution", a.attribution) ||
              json_set_string(o, "evidence", a.evidence) ||
              (v->informational && json_set_bool(o, "informational", 1));
    if (bad || json_array_push(c->out, o) != 0) {
        if (bad)
            json_free(o);
        c->oom = 1;
    }
}

/* Every variant of GPU g's row group against the same variant on the group's other GPUs. */
static void node_judge_row(node_ctx *c, int g, const rb_node_group *row, double *x)
{
    for (int k = 0; k < row->n_variants; k++) {
        const rb_node_var *v = &row->v[k];
        for (int i = 0; i < c->n; i++)
            x[i] =
                i == g
                    ? node_median_ms(v)
                    : node_median_ms(rb_node_variant(rb_node_row(c->runs[i], row->name), v->name));
        if (!isfinite(x[g]))
            continue;
        double expected_ms, threshold, ref;
        const char *kind;
        node_expected(c->expect, row->name, v, &expected_ms, &threshold);
        if (node_reference(x, c->n, g, expected_ms, threshold, &ref, &kind) == 0 &&
            x[g] > ref * (1 + threshold))
            node_flag(c, g, row, v, ref, kind, threshold, x);
    }
}

/* The outliers of the runs read, as a new array; NULL when out of memory. */
static json_value *node_outliers_of(const rb_node_member *runs, int n, const json_value *expect)
{
    json_value *out = json_new_array();
    const rb_node_member **group = malloc((size_t)(n > 0 ? n : 1) * sizeof *group);
    double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    node_expectations table = {0};
    if (expect)
        rb_expected_each(expect, node_expected_add, &table);
    node_ctx c = {.expect = &table, .out = out, .oom = !out || !group || !x || table.oom};
    for (int g = 0; !c.oom && g < n; g++) {
        char key[160], other[160];
        node_single_key(&runs[g], key, sizeof key);
        int m = 0, me = 0;
        for (int i = 0; i < n; i++) {
            node_single_key(&runs[i], other, sizeof other);
            if (!strcmp(key, other)) {
                if (i == g)
                    me = m;
                group[m++] = &runs[i];
            }
        }
        c.runs = group;
        c.n = m;
        for (int p = 0; m >= 2 && p < runs[g].n_groups; p++)
            node_judge_row(&c, me, &runs[g].groups[p], x);
    }
    free(group);
    free(x);
    free(table.rows);
    if (c.oom) {
        json_free(out);
        return NULL;
    }
    return out;
}

/* runs[0..n) read into a new array (*out; caller frees it with node_runs_free). 0, or -1 when
 * out of memory. */
static int node_runs_read(const json_value *const *runs, int n, rb_node_member **out)
{
    rb_node_member *r = calloc((size_t)(n > 0 ? n : 1), sizeof *r);
    int bad = !r;
    for (int i = 0; !bad && i < n; i++)
        bad = rb_node_member_read(runs[i], &r[i]) != 0;
    *out = r;
    return bad ? -1 : 0;
}

static void node_runs_free(rb_node_member *r, int n)
{
    for (int i = 0; r && i < n; i++)
        rb_node_member_free(&r[i]);
    free(r);
}

json_value *rb_node_outliers(const json_value *const *runs, int n, const json_value *expect)
{
    rb_node_member *r;
    json_value *out = node_runs_read(runs, n, &r) == 0 ? node_outliers_of(r, n, expect) : NULL;
    node_runs_free(r, n);
    return out;
}

/* One "gpus" entry of GPU r (read from run), taking run. */
static json_value *node_gpu_entry(const rb_node_member *r, json_value *run)
{
    json_value *o = json_new_object();
    if (node_set_who(o, r) || json_set_string(o, "pci_bus_id", r->pci_bus_id)) {
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

static json_value *node_head(const char *tool, const char *kind, const rb_node_member *run0, int n)
{
    char single[160], key[176];
    node_single_key(run0, single, sizeof single);
    rb_fmt(key, sizeof key, n > 1 ? "%s-x%d" : "%s", single, n);
    json_value *node = json_new_object();
    if (!node || json_set_number(node, "schema", run0->schema) ||
        json_set_string(node, "tool", tool) || json_set_string(node, "kind", kind) ||
        json_set_string(node, "hardware_key", key) || json_set_string(node, "date", run0->date) ||
        json_set_string(node, "git", run0->git) || json_set_string(node, "gate", "gating")) {
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

/* The node document of runs read into r, taking runs; NULL when out of memory (runs freed). */
static json_value *node_assemble(const char *tool, const char *kind, json_value **runs,
                                 const rb_node_member *r, int n, const json_value *expect)
{
    json_value *outliers = node_outliers_of(r, n, expect);
    json_value *node = outliers ? node_head(tool, kind, &r[0], n) : NULL;
    json_value *gpus = node ? json_new_array() : NULL;
    if (!gpus)
        json_free(outliers); /* nothing took it */
    int bad = !gpus || json_object_set(node, "gpus", gpus) ||
              json_object_set(node, "collectives", json_new_array());
    for (int i = 0; i < n; i++) {
        json_value *e = bad ? NULL : node_gpu_entry(&r[i], runs[i]);
        if (!bad)
            runs[i] = NULL; /* taken by node_gpu_entry, also when it failed */
        bad = bad || !e || json_array_push(gpus, e) != 0;
    }
    if (gpus)
        bad = json_object_set(node, "outliers", outliers) || bad; /* takes it in any case */
    if (bad) {
        node_free_runs(runs, n);
        json_free(node);
        return NULL;
    }
    return node;
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
    rb_node_member *r;
    json_value *node = NULL;
    if (node_runs_read((const json_value *const *)runs, n, &r) != 0)
        node_free_runs(runs, n);
    else
        node = node_assemble(tool, kind, runs, r, n, expect);
    if (!node)
        rb_fmt(err, err_size, "the node document: out of memory");
    node_runs_free(r, n);
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
