/* SPDX-License-Identifier: MIT */
#include "fleet.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "node_doc.h"
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

json_value *rb_fleet_synthetic(const char *path_template, int rank, const char *host, int local,
                               int (*is_collective)(const char *pair), char *err, size_t err_size)
{
    char path[1024], why[600];
    synthetic_path(path_template, rank, path, sizeof path);
    json_value *run = json_parse_file(path, why, sizeof why);
    json_value *collectives = json_new_array(), *own = json_new_array();
    int rc = !run || run->type != JSON_OBJECT || !json_get(json_get(run, "environment"), "start")
                 ? -2
                 : -1;
    if (rc == -1 && collectives && own && synthetic_place(run, rank, host, local) == 0)
        rc = rb_fleet_split_run(run, is_collective, collectives, own);
    if (rc != 0) {
        rb_fmt(err, err_size, "RB_TEST_SYNTHETIC_RUN: %s",
               rc == -1 ? "out of memory"
               : run    ? "not a run document"
                        : why);
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
static double own_ms(const rb_fleet_contrib *c, const char *row, const char *variant)
{
    for (int i = 0; i < c->n_own; i++)
        if (!strcmp(c->own[i].row, row) && !strcmp(c->own[i].variant, variant))
            return c->own[i].time_ms;
    return NAN;
}

/* The slowest_rank entry of cell's variant onto out; 0 also when no rank timed it, -1 when out
 * of memory. */
static int slowest_entry(const rb_fleet_contrib *c, int n, const rb_fleet_time *cell,
                         json_value *out)
{
    int slowest = -1;
    char pair[128];
    rb_fleet_pair_of_row(cell->row, pair, sizeof pair);
    rb_fleet_slowest s = {pair, cell->row, cell->variant, NULL, NAN, NAN, n, NULL};
    if (!(s.ranks_ms = malloc((size_t)(n > 0 ? n : 1) * sizeof *s.ranks_ms)))
        return -1;
    for (int r = 0; r < n; r++) {
        double t = s.ranks_ms[r] = own_ms(&c[r], cell->row, cell->variant);
        if (isfinite(t) && !(t <= s.time_ms)) {
            s.time_ms = t;
            slowest = r;
        }
    }
    json_value *e = NULL;
    if (slowest >= 0) {
        s.rank = c[slowest].rank;
        s.host = rb_results_text(c[slowest].host, "?");
        e = rb_fleet_slowest_json(&s);
    }
    free(s.ranks_ms);
    return slowest < 0 ? 0 : !e || json_array_push(out, e) ? -1 : 0;
}

/* The slowest rank of each collective variant of c[0], as a new array; NULL: out of memory. */
static json_value *slowest_of(const rb_fleet_contrib *c, int n)
{
    json_value *out = json_new_array();
    for (int i = 0; out && n > 0 && i < c[0].n_cells; i++)
        if (slowest_entry(c, n, &c[0].cells[i], out) != 0) {
            json_free(out);
            out = NULL;
        }
    return out;
}

/* contrib[0..n) read into a new array (*out; caller frees with contribs_free). 0, or -1. */
static int contribs_read(json_value *const *contrib, int n, rb_fleet_contrib **out)
{
    rb_fleet_contrib *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c);
    int bad = !c;
    for (int r = 0; !bad && r < n; r++)
        bad = rb_fleet_contrib_read(contrib[r], &c[r]) != 0;
    *out = c;
    return bad ? -1 : 0;
}

static void contribs_free(rb_fleet_contrib *c, int n)
{
    for (int r = 0; c && r < n; r++)
        rb_fleet_contrib_free(&c[r]);
    free(c);
}

json_value *rb_fleet_slowest_rank(json_value *const *contrib, int n)
{
    rb_fleet_contrib *c;
    json_value *out = contribs_read(contrib, n, &c) == 0 ? slowest_of(c, n) : NULL;
    contribs_free(c, n);
    return out;
}

/* Sets the collectives, slowest_rank, ranks and hosts on the node document. */
static int fleet_fields(json_value *doc, const rb_fleet_contrib *c, int n)
{
    int hosts = 0;
    for (int r = 0; r < n; r++) {
        int first = 1;
        for (int k = 0; k < r && first; k++)
            first = strcmp(rb_results_text(c[k].host, "?"), rb_results_text(c[r].host, "?")) != 0;
        hosts += first;
    }
    return rb_node_set_collectives(doc, json_clone(c[0].pairs)) ||
           json_object_set(doc, "slowest_rank", slowest_of(c, n)) ||
           json_set_number(doc, "ranks", n) || json_set_number(doc, "hosts", hosts);
}

json_value *rb_fleet_build(json_value **contrib, int n, const json_value *expect, char *err,
                           size_t err_size)
{
    rb_fleet_contrib *c = NULL;
    json_value **runs = n > 0 ? calloc((size_t)n, sizeof *runs) : NULL;
    if (!runs || contribs_read(contrib, n, &c) != 0) {
        rb_fmt(err, err_size, n > 0 ? "out of memory" : "no ranks");
        free(runs);
        contribs_free(c, n);
        return NULL;
    }
    int missing = 0;
    for (int r = 0; r < n; r++)
        missing |= !(runs[r] = json_clone(c[r].run));
    json_value *doc = NULL;
    if (missing) {
        for (int r = 0; r < n; r++)
            json_free(runs[r]);
        rb_fmt(err, err_size, "a rank sent no run document, or out of memory");
    } else {
        doc = rb_node_build("roofbench_mpi", "fleet", runs, n, expect, err, err_size);
    }
    free(runs);
    if (doc && fleet_fields(doc, c, n) != 0) {
        rb_fmt(err, err_size, "out of memory");
        json_free(doc);
        doc = NULL;
    }
    contribs_free(c, n);
    return doc;
}
