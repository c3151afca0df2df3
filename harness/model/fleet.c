/* SPDX-License-Identifier: MIT */
#include "fleet.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "util.h"

/* A name a rank may go by: not empty, printable ASCII without spaces or commas, shorter than
 * RB_FLEET_HOST_MAX. 0, or -1 with err. */
static int check_host_name(const char *name, size_t len, const char *from, char *err,
                           size_t err_size)
{
    if (len == 0 || len >= RB_FLEET_HOST_MAX) {
        rb_fmt(err, err_size, "%s: a host name of %zu bytes (1 to %d)", from, len,
               RB_FLEET_HOST_MAX - 1);
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        if (name[i] <= ' ' || name[i] > '~' || name[i] == ',') {
            rb_fmt(err, err_size,
                   "%s: a host name with a space, a comma or a byte outside printable "
                   "ASCII",
                   from);
            return -1;
        }
    return 0;
}

/* Entry `rank` of the comma-separated list. 0, or -1 with err. */
static int name_from_list(const char *list, int rank, int ranks, char *out, size_t size, char *err,
                          size_t err_size)
{
    const char *at = list;
    int count = 1;
    for (const char *c = list; *c; c++)
        count += *c == ',';
    if (count < ranks) {
        rb_fmt(err, err_size, "RB_HOST_NAME_BY_RANK names %d host%s for %d ranks", count,
               count == 1 ? "" : "s", ranks);
        return -1;
    }
    for (int k = 0; k < rank; k++)
        at = strchr(at, ',') + 1;
    const char *end = strchr(at, ',');
    size_t len = end ? (size_t)(end - at) : strlen(at);
    if (check_host_name(at, len, "RB_HOST_NAME_BY_RANK", err, err_size) != 0)
        return -1;
    rb_fmt(out, size, "%.*s", (int)len, at);
    return 0;
}

int rb_fleet_host_name(int rank, int ranks, char *out, size_t size, char *err, size_t err_size)
{
    const char *list = getenv("RB_HOST_NAME_BY_RANK");
    char name[RB_FLEET_HOST_MAX + 1] = "";
    if (list && list[0]) {
        if (name_from_list(list, rank, ranks, name, sizeof name, err, err_size) != 0)
            return -1;
    } else {
        rb_host_name(name, sizeof name);
        if (check_host_name(name, strlen(name), "RB_HOST_NAME or the host's name", err, err_size) !=
            0)
            return -1;
    }
    if (setenv("RB_HOST_NAME", name, 1) != 0) {
        rb_fmt(err, err_size, "cannot set RB_HOST_NAME");
        return -1;
    }
    rb_fmt(out, size, "%s", name);
    return 0;
}

int rb_fleet_local_rank(const char *names, int ranks, int rank, int *hosts)
{
    int local = 0, distinct = 0;
    for (int i = 0; i < ranks; i++) {
        const char *a = names + (size_t)i * RB_FLEET_HOST_MAX;
        int first = 1;
        for (int k = 0; k < i && first; k++)
            first = strncmp(a, names + (size_t)k * RB_FLEET_HOST_MAX, RB_FLEET_HOST_MAX) != 0;
        distinct += first;
        if (i < rank && !strncmp(a, names + (size_t)rank * RB_FLEET_HOST_MAX, RB_FLEET_HOST_MAX))
            local++;
    }
    if (hosts)
        *hosts = distinct;
    return local;
}

void rb_fleet_pair_of_row(const char *row, char *out, size_t size)
{
    rb_fmt(out, size, "%.*s", (int)strcspn(row, ".@"), row);
}

json_value *rb_fleet_contribution(int rank, json_value *run, json_value *collectives,
                                  json_value *collective_ms)
{
    json_value *c = json_new_object();
    if (!collectives)
        collectives = json_new_array();
    if (!collective_ms)
        collective_ms = json_new_array();
    if (!c || json_set_number(c, "rank", rank) || json_object_set(c, "run", run) ||
        json_object_set(c, "collectives", collectives) ||
        json_object_set(c, "collective_ms", collective_ms)) {
        json_free(c);
        return NULL;
    }
    return c;
}

/* ---- the synthetic contribution of the tests ---- */

/* path_template with each "%r" replaced by rank. */
static void synthetic_path(const char *path_template, int rank, char *out, size_t size)
{
    size_t at = 0;
    out[0] = '\0';
    for (const char *c = path_template; *c && at + 1 < size; c++) {
        if (c[0] == '%' && c[1] == 'r') {
            at += (size_t)snprintf(out + at, size - at, "%d", rank);
            c++;
        } else {
            out[at++] = *c;
            out[at] = '\0';
        }
        if (at >= size)
            at = size - 1;
    }
}

/* The place of a rank's GPU in environment.start: as if GPU `local` of host `host`. */
static int synthetic_place(json_value *run, int rank, const char *host, int local)
{
    json_value *env = json_get(run, "environment");
    json_value *start = json_clone(json_get(env, "start"));
    char uuid[64], bus[32];
    rb_fmt(uuid, sizeof uuid, "GPU-00000000-0000-0000-0000-%012d", rank);
    rb_fmt(bus, sizeof bus, "00000000:%02X:00.0", (unsigned)(0x18 + local) & 0xffu);
    if (!start || start->type != JSON_OBJECT || json_set_string(start, "host", host) ||
        json_set_number(start, "rank", rank) || json_set_number(start, "device_index", local) ||
        json_set_string(start, "uuid", uuid) || json_set_string(start, "pci_bus_id", bus)) {
        json_free(start);
        return -1;
    }
    return json_object_set(env, "start", start);
}

/* Moves the pair records is_collective() names out of run's pairs into *collectives, each
 * variant's median into *own ({"row", "variant", "time_ms"}). 0, or -1 (out of memory). */
static int split_collectives(json_value *run, int (*is_collective)(const char *pair),
                             json_value *collectives, json_value *own)
{
    const json_value *pairs = json_get(run, "pairs");
    json_value *kept = json_new_array();
    if (!kept || !pairs || pairs->type != JSON_ARRAY) {
        json_free(kept);
        return -1;
    }
    for (uint32_t i = 0; i < pairs->count; i++) {
        const json_value *p = pairs->items[i];
        const char *row = json_string_at(p, "name", "");
        char pair[128];
        rb_fleet_pair_of_row(row, pair, sizeof pair);
        int coll = is_collective(pair);
        if (json_array_push(coll ? collectives : kept, json_clone(p))) {
            json_free(kept);
            return -1;
        }
        const json_value *vs = json_get(p, "variants");
        for (uint32_t k = 0; coll && vs && vs->type == JSON_ARRAY && k < vs->count; k++) {
            double ms = json_number_at(json_get(vs->items[k], "time_ms"), "median");
            if (!isfinite(ms))
                continue;
            json_value *t = json_new_object();
            if (!t || json_set_string(t, "row", row) ||
                json_set_string(t, "variant", json_string_at(vs->items[k], "name", "")) ||
                json_set_number(t, "time_ms", ms) || json_array_push(own, t)) {
                json_free(t);
                json_free(kept);
                return -1;
            }
        }
    }
    return json_object_set(run, "pairs", kept);
}

json_value *rb_fleet_synthetic(const char *path_template, int rank, const char *host, int local,
                               int (*is_collective)(const char *pair), char *err, size_t err_size)
{
    char path[1024], why[600];
    synthetic_path(path_template, rank, path, sizeof path);
    json_value *run = json_parse_file(path, why, sizeof why);
    if (!run || run->type != JSON_OBJECT || !json_get(json_get(run, "environment"), "start") ||
        !json_get(run, "pairs")) {
        rb_fmt(err, err_size, "RB_TEST_SYNTHETIC_RUN: %s", run ? "not a run document" : why);
        json_free(run);
        return NULL;
    }
    json_value *collectives = json_new_array(), *own = json_new_array();
    if (!collectives || !own || synthetic_place(run, rank, host, local) ||
        split_collectives(run, is_collective, collectives, own)) {
        rb_fmt(err, err_size, "RB_TEST_SYNTHETIC_RUN: out of memory");
        json_free(collectives);
        json_free(own);
        json_free(run);
        return NULL;
    }
    json_value *c = rb_fleet_contribution(rank, run, collectives, own);
    if (!c)
        rb_fmt(err, err_size, "out of memory");
    return c;
}

/* ---- rank 0: the fleet ---- */

/* Contribution c's own time of row's variant (NaN: none). */
static double own_ms(const json_value *c, const char *row, const char *variant)
{
    const json_value *ms = json_get(c, "collective_ms");
    for (uint32_t i = 0; ms && ms->type == JSON_ARRAY && i < ms->count; i++)
        if (!strcmp(json_string_at(ms->items[i], "row", ""), row) &&
            !strcmp(json_string_at(ms->items[i], "variant", ""), variant))
            return json_number_at(ms->items[i], "time_ms");
    return NAN;
}

/* The host contribution c's run names (environment.start.host). */
static const char *contribution_host(const json_value *c)
{
    return json_string_at(json_get(json_get(json_get(c, "run"), "environment"), "start"), "host",
                          "?");
}

/* The slowest_rank entry of row's variant, NULL when no rank timed it. */
static json_value *slowest_entry(json_value *const *contrib, int n, const char *row,
                                 const char *variant)
{
    int slowest = -1;
    double worst = NAN;
    json_value *all = json_new_array(), *e = json_new_object();
    char pair[128];
    rb_fleet_pair_of_row(row, pair, sizeof pair);
    for (int r = 0; all && r < n; r++) {
        double t = own_ms(contrib[r], row, variant);
        if (json_array_push(all, isfinite(t) ? json_new_number(t) : json_new_null()))
            all = NULL;
        if (isfinite(t) && !(t <= worst)) {
            worst = t;
            slowest = r;
        }
    }
    if (!all || !e || slowest < 0 || json_set_string(e, "pair", pair) ||
        json_set_string(e, "row", row) || json_set_string(e, "variant", variant) ||
        json_set_number(e, "rank", json_number_at(contrib[slowest], "rank")) ||
        json_set_string(e, "host", contribution_host(contrib[slowest])) ||
        json_set_number(e, "time_ms", worst) || json_object_set(e, "ranks_ms", all)) {
        json_free(e);
        json_free(slowest < 0 ? all : NULL);
        return NULL;
    }
    return e;
}

json_value *rb_fleet_slowest_rank(json_value *const *contrib, int n)
{
    json_value *out = json_new_array();
    const json_value *rows = n > 0 ? json_get(contrib[0], "collectives") : NULL;
    for (uint32_t i = 0; out && rows && rows->type == JSON_ARRAY && i < rows->count; i++) {
        const char *row = json_string_at(rows->items[i], "name", "");
        const json_value *vs = json_get(rows->items[i], "variants");
        for (uint32_t k = 0; out && vs && vs->type == JSON_ARRAY && k < vs->count; k++) {
            const char *variant = json_string_at(vs->items[k], "name", "");
            int timed = 0;
            for (int r = 0; r < n && !timed; r++)
                timed = isfinite(own_ms(contrib[r], row, variant));
            json_value *e = timed ? slowest_entry(contrib, n, row, variant) : NULL;
            if (timed && (!e || json_array_push(out, e))) {
                json_free(out);
                out = NULL;
            }
        }
    }
    return out;
}

/* Sets the collectives, slowest_rank, ranks and hosts on the node document. */
static int fleet_fields(json_value *doc, json_value *const *contrib, int n)
{
    int hosts = 0;
    for (int r = 0; r < n; r++) {
        int first = 1;
        for (int k = 0; k < r && first; k++)
            first = strcmp(contribution_host(contrib[k]), contribution_host(contrib[r])) != 0;
        hosts += first;
    }
    return rb_node_set_collectives(doc, json_clone(json_get(contrib[0], "collectives"))) ||
           json_object_set(doc, "slowest_rank", rb_fleet_slowest_rank(contrib, n)) ||
           json_set_number(doc, "ranks", n) || json_set_number(doc, "hosts", hosts);
}

json_value *rb_fleet_build(json_value **contrib, int n, const json_value *expect, char *err,
                           size_t err_size)
{
    json_value **runs = n > 0 ? calloc((size_t)n, sizeof *runs) : NULL;
    if (!runs) {
        rb_fmt(err, err_size, n > 0 ? "out of memory" : "no ranks");
        return NULL;
    }
    int missing = 0;
    for (int r = 0; r < n; r++)
        missing |= !(runs[r] = json_clone(json_get(contrib[r], "run")));
    if (missing) {
        for (int r = 0; r < n; r++)
            json_free(runs[r]);
        free(runs);
        rb_fmt(err, err_size, "a rank sent no run document, or out of memory");
        return NULL;
    }
    json_value *doc = rb_node_build("roofbench_mpi", "fleet", runs, n, expect, err, err_size);
    free(runs);
    if (doc && fleet_fields(doc, contrib, n) != 0) {
        rb_fmt(err, err_size, "out of memory");
        json_free(doc);
        doc = NULL;
    }
    return doc;
}
