/* SPDX-License-Identifier: MIT */
/* Tier 2: the registry of pairs is consistent (no GPU needed). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../harness/pair.h"
#include "rbtest.h"

extern const rbtest_suite registry_suite;

/* Largest L2 among the GPUs we measure on (H200: 60 MB): memory-bound full sizes must be >= 4x
 * it so that no timed pass is served from cache. */
#define LARGEST_L2_BYTES (60.0 * 1024 * 1024)

/* A pair's smoke or full size, resolved as the harness resolves it. */
static rb_size resolved(const rb_pair *p, uint64_t n)
{
    rb_size want = {n, 0, 0}, got = {0, 0, 0};
    char why[200];
    if (rb_pair_resolve_size(p, &want, &got, why, sizeof why) != 0)
        printf("    %s: size %llu refused: %s\n", p->name, (unsigned long long)n, why);
    return got;
}

static int count_pairs(void)
{
    int n = 0;
    while (rb_registry[n])
        n++;
    return n;
}

static void test_registry_not_empty_and_names_unique(void)
{
    int n = count_pairs();
    RB_CHECK(n >= 2);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            RB_CHECK(strcmp(rb_registry[i]->name, rb_registry[j]->name) != 0);
}

static void test_names_are_identifiers(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const char *s = rb_registry[i]->name;
        RB_CHECK(s && islower((unsigned char)s[0]));
        for (; s && *s; s++)
            RB_CHECK(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_');
        RB_CHECK(rb_registry[i]->pattern && strlen(rb_registry[i]->pattern) > 10);
        RB_CHECK(rb_registry[i]->size_unit && rb_registry[i]->size_unit[0]);
    }
}

static void test_no_null_callbacks(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        RB_CHECK(p->flops && p->bytes && p->setup && p->output && p->check && p->teardown &&
                 p->selftest);
        RB_CHECK(p->n_variants >= 2 && p->n_variants <= RB_MAX_VARIANTS);
        for (int k = 0; k < p->n_variants && k < RB_MAX_VARIANTS; k++) {
            RB_CHECK(p->variants[k].name && p->variants[k].name[0]);
            RB_CHECK(p->variants[k].run != NULL);
        }
    }
}

static void test_variants_well_formed(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        int baselines = 0, optimized = 0;
        for (int k = 0; k < p->n_variants; k++) {
            const rb_variant_def *v = &p->variants[k];
            baselines += v->role == RB_ROLE_BASELINE;
            optimized += v->role == RB_ROLE_OPTIMIZED;
            RB_CHECK(v->tolerance >= 0 && isfinite(v->tolerance) && v->tolerance < 0.2);
            RB_CHECK((unsigned)v->unit < RB_UNIT_COUNT);
            for (int j = k + 1; j < p->n_variants; j++)
                RB_CHECK(strcmp(v->name, p->variants[j].name) != 0);
        }
        RB_CHECK(baselines == 1);
        RB_CHECK(optimized == 1);
        RB_CHECK(p->variants[0].role == RB_ROLE_BASELINE); /* the table reads in order */
    }
}

static void test_work_model_positive_and_growing(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        rb_size smoke = resolved(p, p->smoke_size), full = resolved(p, p->full_size);
        RB_CHECK(p->smoke_size >= 1 && p->smoke_size < p->full_size);
        RB_CHECK(smoke.n >= 1 && smoke.n == smoke.rows * smoke.cols);
        RB_CHECK(full.n > smoke.n && full.n == full.rows * full.cols);
        RB_CHECK(p->bytes(&smoke) > 0);
        RB_CHECK(p->bytes(&full) > p->bytes(&smoke));
        RB_CHECK(p->flops(&smoke) >= 0);
        RB_CHECK(p->flops(&full) >= p->flops(&smoke));
        RB_CHECK(isfinite(p->flops(&full)) && isfinite(p->bytes(&full)));
    }
}

/* Pairs whose point is a working set that stays in cache, so that what is timed is launch
 * overhead, not memory traffic (cuda_graphs: ~200 kernels on 16 KB vectors). rb_pair has no
 * field to say so yet; until it has, they are named here. */
static int small_by_design(const char *pair)
{
    static const char *const pairs[] = {"cuda_graphs", NULL};
    for (int i = 0; pairs[i]; i++)
        if (!strcmp(pair, pairs[i]))
            return 1;
    return 0;
}

static void test_memory_bound_sizes_exceed_l2(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        if (small_by_design(p->name))
            continue;
        rb_size full = resolved(p, p->full_size);
        double ai = p->flops(&full) / p->bytes(&full);
        if (ai < 10) { /* memory-bound on every GPU we know */
            if (!(p->bytes(&full) >= 4 * LARGEST_L2_BYTES))
                printf("    %s: full size moves %.0f MB, under 4x L2\n", p->name,
                       p->bytes(&full) / 1e6);
            RB_CHECK(p->bytes(&full) >= 4 * LARGEST_L2_BYTES);
        }
    }
}

static void test_cpu_references_pass_hand_computed_cases(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        char why[200] = "";
        int rc = rb_registry[i]->selftest(why, sizeof why);
        if (rc != 0)
            printf("    %s: %s\n", rb_registry[i]->name, why);
        RB_CHECK(rc == 0);
    }
}

static void test_inputs_named(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        RB_CHECK(p->n_inputs >= 0 && p->n_inputs <= RB_MAX_INPUTS);
        for (int k = 0; k < p->n_inputs; k++) {
            RB_CHECK(p->inputs[k] && p->inputs[k][0]);
            for (int j = k + 1; j < p->n_inputs; j++)
                RB_CHECK(strcmp(p->inputs[k], p->inputs[j]) != 0);
        }
    }
}

static void test_odd_sizes_resolve(void)
{
    /* Every pair takes the odd sizes the GPU tests use: 1000003 elements and 999 x 1021. */
    rb_size odd = {1000003, 0, 0}, shaped = {999 * 1021, 999, 1021}, got;
    char why[200];
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        RB_CHECK(rb_pair_resolve_size(p, &odd, &got, why, sizeof why) == 0);
        RB_CHECK(got.n == got.rows * got.cols && got.n <= odd.n && got.n > 0);
        RB_CHECK(rb_pair_resolve_size(p, &shaped, &got, why, sizeof why) == 0);
        RB_CHECK(got.n == 999 * 1021);
    }
}

static const rbtest_case registry_cases[] = {
    {"inputs_named", test_inputs_named},
    {"odd_sizes_resolve", test_odd_sizes_resolve},
    {"registry_not_empty_and_names_unique", test_registry_not_empty_and_names_unique},
    {"names_are_identifiers", test_names_are_identifiers},
    {"no_null_callbacks", test_no_null_callbacks},
    {"variants_well_formed", test_variants_well_formed},
    {"work_model_positive_and_growing", test_work_model_positive_and_growing},
    {"memory_bound_sizes_exceed_l2", test_memory_bound_sizes_exceed_l2},
    {"cpu_references_pass_hand_computed_cases", test_cpu_references_pass_hand_computed_cases},
};

RB_SUITE(registry_suite, "registry", registry_cases);
