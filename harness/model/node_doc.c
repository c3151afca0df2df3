/* SPDX-License-Identifier: MIT */
/* The node and fleet documents read into typed structs (model/node_doc.h). */
#include "node_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "util.h"

/* ---- one GPU's run, as the outliers read it ---- */

/* A fact that is a number or a bool (1, 0); NaN when neither. */
static double number_or_bool(const json_value *o, const char *key)
{
    const json_value *f = json_get(o, key);
    return f && f->type == JSON_BOOL ? f->boolean : json_number_at(o, key);
}

/* The reasons of an array of reason names, as model/clocks.h's bits (names it does not know
 * left out). */
static unsigned reasons_of(const json_value *list)
{
    unsigned bits = 0;
    for (size_t i = 0; list && list->type == JSON_ARRAY && i < list->count; i++) {
        rb_clock_reason r;
        if (list->items[i]->type == JSON_STRING &&
            rb_clock_reason_from_name(list->items[i]->string, &r) == 0)
            bits |= 1u << r;
    }
    return bits;
}

static void var_read(const json_value *o, rb_node_var *v)
{
    const json_value *t = json_get(o, "time_ms"), *clocks = json_get(o, "clocks");
    memset(v, 0, sizeof *v);
    v->name = json_string_at(o, "name", "");
    v->roof = json_string_at(o, "roof", NULL);
    v->host_bound_why = json_string_at(o, "host_bound_why", "");
    v->verdict = json_string_at(o, "verdict", "");
    v->valid = json_true_at(o, "valid");
    v->timed = json_true_at(o, "timed");
    v->skipped = json_true_at(o, "skipped");
    v->informational = json_true_at(o, "informational");
    v->time_ms.median = json_number_at(t, "median");
    v->time_ms.noise = json_number_at(t, "noise");
    v->time_ms.ci_lo = json_number_at(t, "median_ci_lo");
    v->time_ms.ci_hi = json_number_at(t, "median_ci_hi");
    v->expected_ms = json_number_at(o, "expected_ms");
    v->threshold = json_number_at(o, "threshold");
    v->sm_mhz_mean = json_number_at(clocks, "sm_mhz_mean");
    v->reasons = reasons_of(json_get(clocks, "reasons"));
}

/* The row groups of run into m. 0, or -1 when out of memory. */
static int groups_read(const json_value *pairs, rb_node_member *m)
{
    if (!pairs || pairs->type != JSON_ARRAY || pairs->count == 0)
        return 0;
    if (!(m->groups = calloc(pairs->count, sizeof *m->groups)))
        return -1;
    for (size_t i = 0; i < pairs->count; i++) {
        const json_value *vs = json_get(pairs->items[i], "variants");
        size_t n = vs && vs->type == JSON_ARRAY ? vs->count : 0;
        rb_node_group *g = &m->groups[m->n_groups++];
        g->name = json_string_at(pairs->items[i], "name", "");
        if (!(g->v = calloc(n ? n : 1, sizeof *g->v)))
            return -1;
        for (size_t k = 0; k < n; k++)
            var_read(vs->items[k], &g->v[g->n_variants++]);
    }
    return 0;
}

/* A platform's figures (or their noise: each a "noise" in an object of that key) from p. */
static void platform_read(const json_value *p, int noise, rb_results_platform *out)
{
    static const char *const keys[3] = {"dram_gbps", "fp32_tflops", "launch_us"};
    double x[3];
    for (int k = 0; k < 3; k++)
        x[k] = noise ? json_number_at(json_get(p, keys[k]), "noise") : json_number_at(p, keys[k]);
    *out = (rb_results_platform){x[0], x[1], x[2]};
}

int rb_node_member_read(const json_value *run, rb_node_member *m)
{
    static const char *const when[2] = {"start", "end"};
    const json_value *env = json_get(run, "environment"), *p = json_get(run, "platform");
    const json_value *start = json_get(env, "start");
    memset(m, 0, sizeof *m);
    m->hardware_key = json_string_at(run, "hardware_key", NULL);
    m->date = json_string_at(run, "date", NULL);
    m->git = json_string_at(run, "git", NULL);
    m->schema = json_number_at(run, "schema");
    m->host = json_string_at(start, "host", NULL);
    m->uuid = json_string_at(start, "uuid", NULL);
    m->pci_bus_id = json_string_at(start, "pci_bus_id", NULL);
    m->rank = json_number_at(start, "rank");
    m->device_index = json_number_at(start, "device_index");
    m->ecc = number_or_bool(start, "ecc");
    m->power_limit_w = number_or_bool(start, "power_limit_w");
    for (int k = 0; k < 2; k++) {
        const json_value *at = json_get(env, when[k]), *nvml = json_get(at, "nvml");
        m->pcie_gen[k] = json_number_at(at, "pcie_gen");
        m->pcie_width[k] = json_number_at(at, "pcie_width");
        m->reasons[k] = reasons_of(json_get(nvml, "clock_event_reasons"));
        m->temperature_c[k] = json_number_at(nvml, "temperature_c");
    }
    m->platform_measured = strcmp(json_string_at(p, "source", ""), "none") != 0;
    platform_read(p, 0, &m->platform);
    platform_read(json_get(p, "methods"), 1, &m->platform_noise);
    if (groups_read(json_get(run, "pairs"), m) != 0) {
        rb_node_member_free(m);
        return -1;
    }
    return 0;
}

void rb_node_member_free(rb_node_member *m)
{
    for (int i = 0; i < m->n_groups; i++)
        free(m->groups[i].v);
    free(m->groups);
    memset(m, 0, sizeof *m);
}

/* ---- the node and fleet documents ---- */

int rb_node_is_document(const json_value *doc)
{
    const char *kind = json_string_at(doc, "kind", "");
    const json_value *gpus = json_get(doc, "gpus");
    return (!strcmp(kind, "node") || !strcmp(kind, "fleet")) && gpus && gpus->type == JSON_ARRAY;
}

static int outliers_read(const json_value *list, rb_node_doc *d)
{
    if (!list || list->type != JSON_ARRAY || list->count == 0)
        return 0;
    if (!(d->outliers = calloc(list->count, sizeof *d->outliers)))
        return -1;
    for (size_t i = 0; i < list->count; i++) {
        const json_value *x = list->items[i];
        rb_node_outlier *o = &d->outliers[d->n_outliers++];
        o->host = json_string_at(x, "host", NULL);
        o->uuid = json_string_at(x, "uuid", NULL);
        o->row = json_string_at(x, "row", NULL);
        o->variant = json_string_at(x, "variant", NULL);
        o->roof = json_string_at(x, "roof", NULL);
        o->reference_kind = json_string_at(x, "reference_kind", NULL);
        o->attribution = json_string_at(x, "attribution", NULL);
        o->evidence = json_string_at(x, "evidence", NULL);
        o->device_index = json_number_at(x, "device_index");
        o->value = json_number_at(x, "value");
        o->reference = json_number_at(x, "reference");
        o->ratio = json_number_at(x, "ratio");
        o->threshold = json_number_at(x, "threshold");
        o->informational = json_true_at(x, "informational");
    }
    return 0;
}

static int slowest_read(const json_value *list, rb_node_doc *d)
{
    if (!list || list->type != JSON_ARRAY || list->count == 0)
        return 0;
    if (!(d->slowest = calloc(list->count, sizeof *d->slowest)))
        return -1;
    for (size_t i = 0; i < list->count; i++) {
        const json_value *x = list->items[i], *all = json_get(x, "ranks_ms");
        rb_fleet_slowest *s = &d->slowest[d->n_slowest++];
        size_t n = all && all->type == JSON_ARRAY ? all->count : 0;
        s->pair = json_string_at(x, "pair", NULL);
        s->row = json_string_at(x, "row", NULL);
        s->variant = json_string_at(x, "variant", NULL);
        s->host = json_string_at(x, "host", NULL);
        s->rank = json_number_at(x, "rank");
        s->time_ms = json_number_at(x, "time_ms");
        if (!(s->ranks_ms = calloc(n ? n : 1, sizeof *s->ranks_ms)))
            return -1;
        for (size_t r = 0; r < n; r++)
            s->ranks_ms[s->n_ranks++] =
                all->items[r]->type == JSON_NUMBER ? all->items[r]->number : NAN;
    }
    return 0;
}

static int gpus_read(const json_value *gpus, rb_node_doc *d)
{
    if (!(d->gpus = calloc(gpus->count ? gpus->count : 1, sizeof *d->gpus)))
        return -1;
    for (size_t i = 0; i < gpus->count; i++) {
        const json_value *x = gpus->items[i];
        rb_node_gpu *g = &d->gpus[i];
        g->host = json_string_at(x, "host", NULL);
        g->uuid = json_string_at(x, "uuid", NULL);
        g->pci_bus_id = json_string_at(x, "pci_bus_id", NULL);
        g->device_index = json_number_at(x, "device_index");
        g->run_doc = json_get(x, "run");
        if (rb_node_member_read(g->run_doc, &g->run) != 0)
            return -1;
        d->n_gpus++;
    }
    return 0;
}

int rb_node_doc_read(const json_value *doc, rb_node_doc *d, char *err, size_t err_size)
{
    const json_value *schema = json_get(doc, "schema");
    memset(d, 0, sizeof *d);
    if (!rb_node_is_document(doc)) {
        rb_fmt(err, err_size, "not a node or fleet document (\"kind\" and \"gpus\")");
        return -1;
    }
    if (schema && schema->type == JSON_NUMBER && isfinite(schema->number) &&
        schema->number != RB_NODE_SCHEMA) {
        rb_fmt(err, err_size, "schema %g: unsupported version (this build reads %d)",
               schema->number, RB_NODE_SCHEMA);
        return -1;
    }
    d->kind = json_string_at(doc, "kind", NULL);
    d->hardware_key = json_string_at(doc, "hardware_key", NULL);
    d->date = json_string_at(doc, "date", NULL);
    d->git = json_string_at(doc, "git", NULL);
    d->gate_all = !strcmp(json_string_at(doc, "gate", ""), "all");
    d->p2p_matrix = json_get(doc, "p2p_matrix");
    d->ranks = json_number_at(doc, "ranks");
    d->hosts = json_number_at(doc, "hosts");
    if (outliers_read(json_get(doc, "outliers"), d) != 0 ||
        slowest_read(json_get(doc, "slowest_rank"), d) != 0 ||
        gpus_read(json_get(doc, "gpus"), d) != 0) {
        rb_fmt(err, err_size, "out of memory");
        rb_node_doc_free(d);
        return -1;
    }
    return 0;
}

void rb_node_doc_free(rb_node_doc *d)
{
    for (int i = 0; i < d->n_gpus; i++)
        rb_node_member_free(&d->gpus[i].run);
    for (int i = 0; i < d->n_slowest; i++)
        free(d->slowest[i].ranks_ms);
    free(d->gpus);
    free(d->outliers);
    free(d->slowest);
    memset(d, 0, sizeof *d);
}

int rb_node_doc_gates(const rb_node_doc *d, const rb_node_outlier *o)
{
    return !o->informational || d->gate_all;
}

int rb_node_doc_count(const rb_node_doc *d, int gating)
{
    int n = 0;
    for (int i = 0; i < d->n_outliers; i++)
        n += (rb_node_doc_gates(d, &d->outliers[i]) != 0) == (gating != 0);
    return n;
}

/* The outliers of a node document that gate (gating != 0) or do not, read where they are:
 * what sets the exit code needs no allocation that could fail. */
static int count_outliers(const json_value *node, int gating)
{
    const json_value *o = json_get(node, "outliers");
    int all = !strcmp(json_string_at(node, "gate", ""), "all"), n = 0;
    for (uint32_t i = 0; o && o->type == JSON_ARRAY && i < o->count; i++)
        n += (!json_true_at(o->items[i], "informational") || all) == (gating != 0);
    return n;
}

int rb_node_outlier_count(const json_value *node)
{
    return count_outliers(node, 1);
}

int rb_node_host_bound_count(const json_value *node)
{
    return count_outliers(node, 0);
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

/* ---- a rank's fleet contribution ---- */

/* The variants of the pair records of rows, in order, into c->cells. 0, or -1. */
static int cells_read(const json_value *rows, rb_fleet_contrib *c)
{
    size_t n = 0;
    for (size_t i = 0; rows && rows->type == JSON_ARRAY && i < rows->count; i++) {
        const json_value *vs = json_get(rows->items[i], "variants");
        n += vs && vs->type == JSON_ARRAY ? vs->count : 0;
    }
    if (!(c->cells = calloc(n + 1, sizeof *c->cells)))
        return -1;
    for (size_t i = 0; rows && rows->type == JSON_ARRAY && i < rows->count; i++) {
        const json_value *vs = json_get(rows->items[i], "variants");
        for (size_t k = 0; vs && vs->type == JSON_ARRAY && k < vs->count; k++)
            c->cells[c->n_cells++] = (rb_fleet_time){json_string_at(rows->items[i], "name", ""),
                                                     json_string_at(vs->items[k], "name", ""), NAN};
    }
    return 0;
}

int rb_fleet_contrib_read(const json_value *contribution, rb_fleet_contrib *c)
{
    const json_value *ms = json_get(contribution, "collective_ms");
    size_t n = ms && ms->type == JSON_ARRAY ? ms->count : 0;
    memset(c, 0, sizeof *c);
    c->rank = json_number_at(contribution, "rank");
    c->run = json_get(contribution, "run");
    c->pairs = json_get(contribution, "collectives");
    c->host = json_string_at(json_get(json_get(c->run, "environment"), "start"), "host", NULL);
    if (cells_read(c->pairs, c) != 0 || !(c->own = calloc(n + 1, sizeof *c->own))) {
        rb_fleet_contrib_free(c);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        c->own[c->n_own++] = (rb_fleet_time){json_string_at(ms->items[i], "row", ""),
                                             json_string_at(ms->items[i], "variant", ""),
                                             json_number_at(ms->items[i], "time_ms")};
    return 0;
}

void rb_fleet_contrib_free(rb_fleet_contrib *c)
{
    free(c->cells);
    free(c->own);
    memset(c, 0, sizeof *c);
}

json_value *rb_fleet_time_json(const char *row, const char *variant, double time_ms)
{
    json_value *t = json_new_object();
    if (!t || json_set_string(t, "row", row) || json_set_string(t, "variant", variant) ||
        json_set_number(t, "time_ms", time_ms)) {
        json_free(t);
        return NULL;
    }
    return t;
}

json_value *rb_fleet_slowest_json(const rb_fleet_slowest *s)
{
    json_value *all = json_new_array(), *e = json_new_object();
    for (int r = 0; all && r < s->n_ranks; r++)
        if (json_array_push(all, isfinite(s->ranks_ms[r]) ? json_new_number(s->ranks_ms[r])
                                                          : json_new_null())) {
            json_free(all);
            all = NULL;
        }
    if (!all || !e || json_set_string(e, "pair", s->pair) || json_set_string(e, "row", s->row) ||
        json_set_string(e, "variant", s->variant) || json_set_number(e, "rank", s->rank) ||
        json_set_string(e, "host", s->host) || json_set_number(e, "time_ms", s->time_ms)) {
        json_free(all);
        json_free(e);
        return NULL;
    }
    if (json_object_set(e, "ranks_ms", all) != 0) { /* (takes all in any case) */
        json_free(e);
        return NULL;
    }
    return e;
}

/* Each variant's median of pair record p into own. 0, or -1. */
static int own_times(const json_value *p, const char *row, json_value *own)
{
    const json_value *vs = json_get(p, "variants");
    for (uint32_t k = 0; vs && vs->type == JSON_ARRAY && k < vs->count; k++) {
        double ms = json_number_at(json_get(vs->items[k], "time_ms"), "median");
        if (!isfinite(ms))
            continue;
        json_value *t = rb_fleet_time_json(row, json_string_at(vs->items[k], "name", ""), ms);
        if (!t || json_array_push(own, t)) /* (push frees t when it fails) */
            return -1;
    }
    return 0;
}

int rb_fleet_split_run(json_value *run, int (*is_collective)(const char *pair),
                       json_value *collectives, json_value *own)
{
    const json_value *pairs = json_get(run, "pairs");
    json_value *kept = pairs ? json_new_array() : NULL;
    if (!kept || pairs->type != JSON_ARRAY) {
        json_free(kept);
        return pairs ? -1 : -2;
    }
    for (uint32_t i = 0; i < pairs->count; i++) {
        const json_value *p = pairs->items[i];
        const char *row = json_string_at(p, "name", "");
        char pair[128];
        rb_fmt(pair, sizeof pair, "%.*s", (int)strcspn(row, ".@"), row); /* fleet.h's pair */
        int coll = is_collective(pair);
        if (json_array_push(coll ? collectives : kept, json_clone(p)) ||
            (coll && own_times(p, row, own) != 0)) {
            json_free(kept);
            return -1;
        }
    }
    return json_object_set(run, "pairs", kept);
}
