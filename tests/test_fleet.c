/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 (no GPU, no MPI): the pieces of roofbench_mpi's fleet that need neither
 * (harness/model/fleet.h): the host name a rank goes by, the ranks of one host, the synthetic
 * contribution of the tests, the slowest rank of each collective and the fleet document made of
 * the contributions, in which an outlier on a host-bound (informational) row flags no rank.
 * tests/mpi_smoke.sh runs the MPI binary itself on these (CI, make MPI=1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/model/fleet.h"
#include "../harness/model/json.h"
#include "../harness/model/node.h"
#include "../harness/model/outputs.h"
#include "../harness/model/util.h"
#include "rbtest.h"

extern const rbtest_suite fleet_suite;

/* The name rank r goes by under the given variables (NULL: unset); "" with err on failure. */
static const char *host_of(const char *by_rank, const char *one, int r, int ranks, char *err,
                           size_t err_size)
{
    static char name[RB_FLEET_HOST_MAX];
    by_rank ? setenv("RB_HOST_NAME_BY_RANK", by_rank, 1) : unsetenv("RB_HOST_NAME_BY_RANK");
    one ? setenv("RB_HOST_NAME", one, 1) : unsetenv("RB_HOST_NAME");
    err[0] = '\0';
    if (rb_fleet_host_name(r, ranks, name, sizeof name, err, err_size) != 0)
        name[0] = '\0';
    return name;
}

static void test_host_names_by_rank_then_one_then_the_machine(void)
{
    char err[300];
    RB_CHECK(!strcmp(host_of("nodeA,nodeA,nodeB,nodeB", "x", 0, 4, err, sizeof err), "nodeA"));
    RB_CHECK(!strcmp(host_of("nodeA,nodeA,nodeB,nodeB", "x", 3, 4, err, sizeof err), "nodeB"));
    /* the chosen name is what the environment record reads */
    RB_CHECK(!strcmp(getenv("RB_HOST_NAME"), "nodeB"));
    RB_CHECK(!strcmp(host_of(NULL, "posed", 2, 4, err, sizeof err), "posed"));
    RB_CHECK(!strcmp(host_of("", "posed", 2, 4, err, sizeof err), "posed"));
    const char *machine = host_of(NULL, NULL, 0, 1, err, sizeof err);
    RB_CHECK(machine[0] != '\0' && !err[0]);
    unsetenv("RB_HOST_NAME_BY_RANK");
    unsetenv("RB_HOST_NAME");
}

static void test_host_names_refused(void)
{
    char err[300];
    RB_CHECK(!host_of("a,b", NULL, 0, 3, err, sizeof err)[0]);
    RB_CHECK(strstr(err, "names 2 hosts for 3 ranks") != NULL);
    RB_CHECK(!host_of("a,,c", NULL, 1, 3, err, sizeof err)[0] && err[0]);
    RB_CHECK(!host_of(NULL, "two words", 0, 1, err, sizeof err)[0] && err[0]);
    char longer[RB_FLEET_HOST_MAX + 2];
    memset(longer, 'h', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    RB_CHECK(!host_of(NULL, longer, 0, 1, err, sizeof err)[0] && err[0]);
    unsetenv("RB_HOST_NAME_BY_RANK");
    unsetenv("RB_HOST_NAME");
}

static void test_local_rank_and_hosts(void)
{
    static char names[5][RB_FLEET_HOST_MAX] = {"b", "a", "b", "b", "a"};
    int hosts = 0;
    RB_CHECK(rb_fleet_local_rank(names[0], 5, 0, &hosts) == 0 && hosts == 2);
    RB_CHECK(rb_fleet_local_rank(names[0], 5, 1, NULL) == 0);
    RB_CHECK(rb_fleet_local_rank(names[0], 5, 3, NULL) == 2);
    RB_CHECK(rb_fleet_local_rank(names[0], 5, 4, NULL) == 1);
    char pair[64];
    rb_fleet_pair_of_row("nccl_allreduce.allreduce@1G", pair, sizeof pair);
    RB_CHECK(!strcmp(pair, "nccl_allreduce"));
    rb_fleet_pair_of_row("sgemm@4M", pair, sizeof pair);
    RB_CHECK(!strcmp(pair, "sgemm"));
}

/* A contribution of rank r on host h whose own time of row R's variants a and b are ta, tb
 * (NaN: not timed). */
static json_value *contribution(int r, const char *h, double ta, double tb)
{
    char text[1024], a[64] = "", b[64] = "";
    if (isfinite(ta))
        rb_fmt(a, sizeof a, "{\"row\":\"coll.x@8\",\"variant\":\"a\",\"time_ms\":%g}", ta);
    if (isfinite(tb))
        rb_fmt(b, sizeof b, "%s{\"row\":\"coll.x@8\",\"variant\":\"b\",\"time_ms\":%g}",
               a[0] ? "," : "", tb);
    rb_fmt(text, sizeof text,
           "{\"rank\":%d,\"run\":{\"environment\":{\"start\":{\"host\":\"%s\",\"rank\":%d,"
           "\"device_index\":%d,\"uuid\":\"GPU-%d\",\"pci_bus_id\":\"0000:%02d:00.0\"}},"
           "\"pairs\":[]},\"collectives\":[{\"name\":\"coll.x@8\",\"variants\":[{\"name\":\"a\"},"
           "{\"name\":\"b\"},{\"name\":\"c\"}]}],\"collective_ms\":[%s%s]}",
           r, h, r, r % 2, r, r, a, b);
    char err[200];
    json_value *v = json_parse(text, strlen(text), err, sizeof err);
    if (!v)
        fprintf(stderr, "    %s\n", err);
    return v;
}

static void test_slowest_rank_of_each_collective(void)
{
    json_value *c[3] = {contribution(0, "n0", 1.0, 2.0), contribution(1, "n0", 1.5, NAN),
                        contribution(2, "n1", 1.2, 1.9)};
    RB_CHECK(c[0] && c[1] && c[2]);
    json_value *s = rb_fleet_slowest_rank(c, 3);
    /* a and b timed (b not on rank 1), c by no rank: no entry */
    RB_CHECK(s && s->type == JSON_ARRAY && s->count == 2);
    if (s && s->count == 2) {
        const json_value *a = s->items[0], *b = s->items[1];
        RB_CHECK(!strcmp(json_string_at(a, "variant", ""), "a"));
        RB_CHECK(json_number_at(a, "rank") == 1 && !strcmp(json_string_at(a, "host", ""), "n0"));
        RB_CHECK(json_number_at(a, "time_ms") == 1.5);
        RB_CHECK(!strcmp(json_string_at(a, "pair", ""), "coll"));
        RB_CHECK(json_number_at(b, "rank") == 0 && json_number_at(b, "time_ms") == 2.0);
        const json_value *all = json_get(b, "ranks_ms");
        RB_CHECK(all && all->count == 3 && all->items[1]->type == JSON_NULL &&
                 all->items[2]->number == 1.9);
    }
    json_free(s);
    for (int r = 0; r < 3; r++)
        json_free(c[r]);
}

/* The fleet document: each GPU with its rank and place, rank 0's collectives, the hosts. */
static void test_fleet_document_of_the_contributions(void)
{
    json_value *c[3] = {contribution(0, "n0", 1.0, 2.0), contribution(1, "n0", 1.5, 2.1),
                        contribution(2, "n1", 1.2, 1.9)};
    char err[300] = "";
    json_value *f = rb_fleet_build(c, 3, NULL, err, sizeof err);
    RB_CHECK(f != NULL);
    const json_value *gpus = json_get(f, "gpus");
    RB_CHECK(gpus && gpus->count == 3);
    for (uint32_t r = 0; gpus && r < gpus->count; r++) {
        RB_CHECK(json_number_at(gpus->items[r], "rank") == r);
        RB_CHECK(!strcmp(json_string_at(gpus->items[r], "host", ""), r < 2 ? "n0" : "n1"));
        RB_CHECK(json_number_at(gpus->items[r], "device_index") == r % 2);
    }
    RB_CHECK(json_number_at(f, "hosts") == 2 && json_number_at(f, "ranks") == 3);
    RB_CHECK(!strcmp(json_string_at(f, "kind", ""), "fleet"));
    RB_CHECK(!strcmp(json_string_at(f, "tool", ""), "roofbench_mpi"));
    const json_value *coll = json_get(f, "collectives"), *slow = json_get(f, "slowest_rank");
    RB_CHECK(coll && coll->count == 1 && slow && slow->count == 2);
    RB_CHECK(slow && slow->count == 2 && json_number_at(slow->items[1], "rank") == 1);
    json_free(f);
    for (int r = 0; r < 3; r++)
        json_free(c[r]);
}

/* Gives contribution c's run the host_transfer.d2h row: its pageable copy (informational: the
 * host sets its time) at pageable_ms, its pinned copy at pinned_ms. 0, or -1. */
static int with_host_row(json_value *c, double pageable_ms, double pinned_ms)
{
    char text[1024], err[200];
    rb_fmt(text, sizeof text,
           "[{\"name\":\"host_transfer.d2h\",\"status\":\"ok\",\"variants\":["
           "{\"name\":\"baseline\",\"valid\":true,\"timed\":true,\"roof\":\"pcie_d2h_gbps\","
           "\"informational\":true,\"host_bound_why\":\"pageable memory\","
           "\"time_ms\":{\"median\":%.17g,\"noise\":0.02}},"
           "{\"name\":\"optimized\",\"valid\":true,\"timed\":true,\"roof\":\"pcie_d2h_gbps\","
           "\"time_ms\":{\"median\":%.17g,\"noise\":0.005}}]}]",
           pageable_ms, pinned_ms);
    json_value *pairs = json_parse(text, strlen(text), err, sizeof err);
    return pairs ? json_object_set(json_get(c, "run"), "pairs", pairs) : -1;
}

/* The fleet's terminal summary of f into text. */
static void fleet_summary_of(const json_value *f, char *text, size_t size)
{
    FILE *out = tmpfile();
    size_t len = 0;
    if (out) {
        rb_fleet_summary(out, f);
        rewind(out);
        len = fread(text, 1, size - 1, out);
        fclose(out);
    }
    text[len] = '\0';
}

/* Rank 2's pageable copy 10% slower than the others', nothing else: recorded, said host-bound,
 * no GPU flagged; with gate all it counts; the same on the pinned copy is flagged. */
static void test_host_bound_outlier_flags_no_rank(void)
{
    static const double pageable[4] = {100, 101, 110, 100.5}, pinned[4] = {40, 40.2, 40.1, 39.9};
    for (int gating_row = 0; gating_row <= 1; gating_row++) {
        json_value *c[4];
        int bad = 0;
        for (int r = 0; r < 4; r++) {
            c[r] = contribution(r, r < 2 ? "nodeA" : "nodeB", 1.0, 2.0);
            bad |= !c[r] || with_host_row(c[r], pageable[r],
                                          pinned[r] * (gating_row && r == 2 ? 1.10 : 1.0)) != 0;
        }
        char err[300] = "", text[8192];
        json_value *f = bad ? NULL : rb_fleet_build(c, 4, NULL, err, sizeof err);
        RB_CHECK(f != NULL);
        const json_value *o = json_get(f, "outliers");
        RB_CHECK(o && o->count == (uint32_t)(1 + gating_row) &&
                 json_true_at(o->items[0], "informational") &&
                 json_number_at(o->items[0], "rank") == 2);
        RB_CHECK(rb_node_outlier_count(f) == gating_row && rb_node_host_bound_count(f) == 1);
        fleet_summary_of(f, text, sizeof text);
        RB_CHECK(strstr(text, "\nhost-bound nodeB:0 host_transfer.d2h/baseline x1."));
        RB_CHECK(!strstr(text, "\noutlier ") == !gating_row);
        RB_CHECK(!gating_row || strstr(text, "\noutlier nodeB:0 host_transfer.d2h/optimized x1."));
        RB_CHECK(rb_node_set_gate_all(f, 1) == 0 && rb_node_outlier_count(f) == 1 + gating_row &&
                 rb_node_host_bound_count(f) == 0);
        json_free(f);
        for (int r = 0; r < 4; r++)
            json_free(c[r]);
    }
}

static int is_nccl(const char *pair)
{
    return !strcmp(pair, "nccl_allreduce");
}

/* RB_TEST_SYNTHETIC_RUN: the rank's own file ("%r"), placed as its GPU, its collectives out. */
static void test_synthetic_contribution(void)
{
    const char *dir = rbtest_fresh_dir();
    char path[512], tmpl[512], err[600];
    rb_fmt(path, sizeof path, "%s/run-3.json", dir);
    rb_fmt(tmpl, sizeof tmpl, "%s/run-%%r.json", dir);
    const char *text =
        "{\"environment\":{\"start\":{\"device\":\"X\",\"uuid\":\"GPU-real\"}},\"pairs\":["
        "{\"name\":\"sgemm@4M\",\"variants\":[{\"name\":\"baseline\"}]},"
        "{\"name\":\"nccl_allreduce.allreduce@1G\",\"variants\":[{\"name\":\"nccl_in_place\","
        "\"time_ms\":{\"median\":0.75}},{\"name\":\"skipped\",\"time_ms\":null}]}]}";
    RB_CHECK(rb_write_file_atomic(path, text, err, sizeof err) == 0);
    json_value *c = rb_fleet_synthetic(tmpl, 3, "nodeB", 1, is_nccl, err, sizeof err);
    RB_CHECK(c != NULL);
    const json_value *start = json_get(json_get(json_get(c, "run"), "environment"), "start");
    RB_CHECK(!strcmp(json_string_at(start, "host", ""), "nodeB"));
    RB_CHECK(json_number_at(start, "device_index") == 1);
    RB_CHECK(strcmp(json_string_at(start, "uuid", "GPU-real"), "GPU-real") != 0);
    RB_CHECK(!strcmp(json_string_at(start, "device", ""), "X"));
    const json_value *pairs = json_get(json_get(c, "run"), "pairs");
    RB_CHECK(pairs && pairs->count == 1 &&
             !strcmp(json_string_at(pairs->items[0], "name", ""), "sgemm@4M"));
    const json_value *coll = json_get(c, "collectives"), *own = json_get(c, "collective_ms");
    RB_CHECK(coll && coll->count == 1 && json_number_at(c, "rank") == 3);
    /* the untimed variant has no own time */
    RB_CHECK(own && own->count == 1 && json_number_at(own->items[0], "time_ms") == 0.75);
    json_free(c);
    /* another rank reads its own file, which is not there */
    RB_CHECK(rb_fleet_synthetic(tmpl, 2, "nodeB", 0, is_nccl, err, sizeof err) == NULL &&
             strstr(err, "run-2.json") != NULL);
    rbtest_remove_dir();
}

static const rbtest_case fleet_cases[] = {
    {"host_names_by_rank_then_one_then_the_machine",
     test_host_names_by_rank_then_one_then_the_machine},
    {"host_names_refused", test_host_names_refused},
    {"local_rank_and_hosts", test_local_rank_and_hosts},
    {"slowest_rank_of_each_collective", test_slowest_rank_of_each_collective},
    {"fleet_document_of_the_contributions", test_fleet_document_of_the_contributions},
    {"synthetic_contribution", test_synthetic_contribution},
    {"host_bound_outlier_flags_no_rank", test_host_bound_outlier_flags_no_rank},
};

RB_SUITE(fleet_suite, "fleet", fleet_cases);
