/* SPDX-License-Identifier: MIT */
/*
 * Tier 2 (no GPU needed): the launch and transfer pairs (cuda_graphs, streams_overlap,
 * host_transfer) are registered as their headers describe them, their kernel tables are
 * well formed, and streams_overlap's chunks tile any buffer exactly.
 */
#include <stdio.h>
#include <string.h>

#include "../harness/kit/pair.h"
#include "kernels/streams_overlap.h"
#include "rbtest.h"

extern const rbtest_suite launch_suite;

static const rb_pair *find_pair(const char *name)
{
    for (int i = 0; rb_registry[i]; i++)
        if (!strcmp(rb_registry[i]->name, name))
            return rb_registry[i];
    return NULL;
}

static int variant_index(const rb_pair *p, const char *name)
{
    for (int k = 0; k < p->n_variants; k++)
        if (!strcmp(p->variants[k].name, name))
            return k;
    return -1;
}

/* Each named variant exists, in this order, with this role. */
static void check_variants(const rb_pair *p, const char *const *names, const rb_role *roles, int n)
{
    RB_CHECK(p->n_variants == n);
    for (int k = 0; k < n && k < p->n_variants; k++) {
        RB_CHECK(!strcmp(p->variants[k].name, names[k]));
        RB_CHECK(p->variants[k].role == roles[k]);
    }
}

static void test_registered_as_described(void)
{
    const rb_pair *g = find_pair("cuda_graphs"), *s = find_pair("streams_overlap"),
                  *h = find_pair("host_transfer");
    RB_CHECK(g && s && h);
    if (!g || !s || !h)
        return;
    const char *const gn[] = {"baseline", "graph", "optimized", "graph_update"};
    const rb_role gr[] = {RB_ROLE_BASELINE, RB_ROLE_STEP, RB_ROLE_OPTIMIZED, RB_ROLE_STEP};
    check_variants(g, gn, gr, 4);
    const char *const sn[] = {"baseline", "optimized", "h2d", "kernel", "d2h", "duplex"};
    const rb_role sr[] = {RB_ROLE_BASELINE, RB_ROLE_OPTIMIZED, RB_ROLE_PART, RB_ROLE_PART,
                          RB_ROLE_PART, RB_ROLE_PART};
    check_variants(s, sn, sr, 6);
    const char *const hn[] = {"baseline", "optimized"};
    const rb_role hr[] = {RB_ROLE_BASELINE, RB_ROLE_OPTIMIZED};
    check_variants(h, hn, hr, 2);
    RB_CHECK(h->n_inputs == 2 && !strcmp(h->inputs[0], "h2d") && !strcmp(h->inputs[1], "d2h"));
    /* The figures the acceptance is judged on come from extras. */
    RB_CHECK(rb_pair_ext_of(g)->extras && rb_pair_ext_of(s)->extras && rb_pair_ext_of(h)->extras);
    /* The copies are exact; the pipeline's copies too. */
    RB_CHECK(h->variants[0].tolerance == 0.0 && h->variants[1].tolerance == 0.0);
    RB_CHECK(s->variants[2].tolerance == 0.0 && s->variants[4].tolerance == 0.0 &&
             s->variants[5].tolerance == 0.0);
}

/* {0}-terminated; every row names a variant of the pair, a kernel of the pair (<pair>_..._kernel)
 * with its function, and a block of whole warps. Every variant that runs a kernel has a row. */
static void check_kernel_table(const rb_pair *p, int expect_rows, const char *const *must_have)
{
    RB_CHECK(p->kernels != NULL);
    if (!p->kernels)
        return;
    int rows = 0;
    for (const rb_kernel_info *k = p->kernels; k->name && rows < 64; k++, rows++) {
        size_t len = strlen(k->name), plen = strlen(p->name);
        RB_CHECK(k->variant && variant_index(p, k->variant) >= 0);
        RB_CHECK(!strncmp(k->name, p->name, plen) && k->name[plen] == '_');
        RB_CHECK(len > 7 && !strcmp(k->name + len - 7, "_kernel"));
        RB_CHECK(k->func != NULL);
        RB_CHECK(k->block_threads >= 32 && k->block_threads <= 1024 && k->block_threads % 32 == 0);
    }
    if (rows != expect_rows)
        printf("    %s: %d kernel rows, expected %d\n", p->name, rows, expect_rows);
    RB_CHECK(rows == expect_rows);
    for (int i = 0; must_have && must_have[i]; i++) {
        int found = 0;
        for (const rb_kernel_info *k = p->kernels; k->name; k++)
            found |= !strcmp(k->variant, must_have[i]);
        RB_CHECK(found);
    }
}

static void test_kernel_tables(void)
{
    const rb_pair *g = find_pair("cuda_graphs"), *s = find_pair("streams_overlap"),
                  *h = find_pair("host_transfer");
    RB_CHECK(g && s && h);
    if (!g || !s || !h)
        return;
    const char *const gv[] = {"baseline", "graph", "optimized", "graph_update", NULL};
    check_kernel_table(g, 24, gv); /* six kernels, every variant */
    const char *const sv[] = {"baseline", "optimized", "kernel", NULL};
    check_kernel_table(s, 3, sv); /* the copies run no kernel */
    check_kernel_table(h, 0, NULL);
}

/* The chunks of n elements: in order, contiguous, covering [0, n), at most CHUNKS, each but the
 * last a multiple of 1024 elements (4 KiB), and nothing past the last. */
static int chunks_tile(size_t n)
{
    size_t next = 0, s, k;
    for (int c = 0; c < streams_overlap_chunk_count; c++) {
        streams_overlap_chunk(n, c, &s, &k);
        if (k == 0) {
            if (next != n)
                return 0;
            continue;
        }
        if (s != next || (s + k < n && k % 1024 != 0))
            return 0;
        next = s + k;
    }
    streams_overlap_chunk(n, streams_overlap_chunk_count, &s, &k);
    return next == n && k == 0;
}

static void test_streams_overlap_chunks_tile_any_size(void)
{
    RB_CHECK(streams_overlap_chunk_count >= 1 && streams_overlap_lanes >= 1);
    size_t bad = 0;
    for (size_t n = 1; n <= 70000; n++)
        bad += !chunks_tile(n);
    const size_t big[] = {1000003,  999 * 1021,     1u << 20,       (1u << 28) - 1,
                          1u << 28, (1u << 28) + 1, (size_t)3 << 30};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        bad += !chunks_tile(big[i]);
    if (bad)
        printf("    %zu sizes whose chunks do not tile the buffer\n", bad);
    RB_CHECK(bad == 0);
}

static const rbtest_case launch_cases[] = {
    {"registered_as_described", test_registered_as_described},
    {"kernel_tables", test_kernel_tables},
    {"streams_overlap_chunks_tile_any_size", test_streams_overlap_chunks_tile_any_size},
};

RB_SUITE(launch_suite, "launch", launch_cases);
