/* SPDX-License-Identifier: MIT */
/*
 * Tier 2 (no GPU needed): the multi-GPU pairs' declarations. nccl_allreduce's sweep list and
 * nccl-tests' bus-bandwidth formulas, and the build's account of a pair it left out (a build
 * without NCCL names nccl_allreduce in rb_registry_missing, with the reason).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../harness/pair.h"
#include "rbtest.h"

extern const rbtest_suite nccl_suite;

/* Generated into registry.c by the Makefile: "<pair>: <why>" for each pair left out. */
extern const char *const rb_registry_missing[];

#ifdef RB_HAVE_NCCL
double nccl_allreduce_bus_factor(int coll, int ranks);
#endif

static const rb_pair *find_pair(const char *name)
{
    for (int i = 0; rb_registry[i]; i++)
        if (!strcmp(rb_registry[i]->name, name))
            return rb_registry[i];
    return NULL;
}

/* Built with NCCL: the pair is registered and not listed as missing; without: the reverse,
 * with a reason that says what to do. */
static void test_nccl_pair_registered_or_missing_with_reason(void)
{
    const rb_pair *p = find_pair("nccl_allreduce");
    int missing = 0;
    for (int i = 0; rb_registry_missing[i]; i++)
        if (!strncmp(rb_registry_missing[i], "nccl_allreduce: ", 16)) {
            missing = 1;
            RB_CHECK(strstr(rb_registry_missing[i], "NCCL_HOME") != NULL);
        }
#ifdef RB_HAVE_NCCL
    RB_CHECK(p != NULL && !missing);
#else
    RB_CHECK(p == NULL && missing);
#endif
}

static void test_sweep_powers_of_8_from_8_bytes_to_1_gib(void)
{
    const rb_pair *p = find_pair("nccl_allreduce");
    if (!p) {
        rbtest_skip("nccl_allreduce is not in this build (no NCCL)");
        return;
    }
    RB_CHECK(p->sweep != NULL);
    if (!p->sweep)
        return;
    int n = 0;
    uint64_t want = 8;
    for (; p->sweep[n]; n++, want *= 8) {
        RB_CHECK(p->sweep[n] == want);
        /* below full_size: the DRAM-peak rule never judges a swept size (S is link traffic) */
        RB_CHECK(p->sweep[n] < p->full_size);
        rb_size s = {p->sweep[n], 1, p->sweep[n]};
        RB_CHECK(p->bytes(&s) == (double)p->sweep[n]); /* the work model is S: GB/s = algbw */
    }
    RB_CHECK(n == 10 && p->sweep[n - 1] == 1u << 30);
    RB_CHECK(p->n_inputs == 3 && !strcmp(p->inputs[0], "allreduce") &&
             !strcmp(p->inputs[1], "allgather") && !strcmp(p->inputs[2], "reduce_scatter"));
}

/* On one GPU the sweep keeps 8 B, 2 MiB and 128 MiB, each a size of the whole sweep; any other
 * GPU count, and a pair without a one-GPU list, keep every size. */
static void test_one_gpu_sweep(void)
{
    const rb_pair *p = find_pair("nccl_allreduce");
    if (!p) {
        rbtest_skip("nccl_allreduce is not in this build (no NCCL)");
        return;
    }
    RB_CHECK(p->sweep_one_gpu != NULL);
    if (!p->sweep_one_gpu || !p->sweep)
        return;
    const uint64_t want[] = {8, 2097152, 134217728};
    int n = 0;
    for (; p->sweep_one_gpu[n] && n < 3; n++) {
        RB_CHECK(p->sweep_one_gpu[n] == want[n]);
        int in_sweep = 0;
        for (int k = 0; p->sweep[k]; k++)
            in_sweep |= p->sweep[k] == p->sweep_one_gpu[n];
        RB_CHECK(in_sweep);
    }
    RB_CHECK(n == 3 && p->sweep_one_gpu[n] == 0);
    int kept_one = 0, kept_two = 0;
    for (int k = 0; p->sweep[k]; k++) {
        kept_one += rb_pair_sweeps_size(p, p->sweep[k], 1);
        kept_two += rb_pair_sweeps_size(p, p->sweep[k], 2);
    }
    RB_CHECK(kept_one == 3 && kept_two == 10);
    RB_CHECK(!rb_pair_sweeps_size(p, 16777216, 1) && rb_pair_sweeps_size(p, 16777216, 8));
    const rb_pair *copy = find_pair("copy_vectorized");
    RB_CHECK(copy && copy->sweep_one_gpu == NULL && rb_pair_sweeps_size(copy, 12345, 1));
}

static void test_bus_bandwidth_formulas(void)
{
#ifdef RB_HAVE_NCCL
    /* nccl-tests: all-reduce busbw = algbw x 2(n-1)/n; all-gather and reduce-scatter x (n-1)/n
     * (inputs 0, 1, 2). One GPU moves nothing over a link: 0. */
    RB_CHECK(nccl_allreduce_bus_factor(0, 1) == 0.0);
    RB_CHECK(nccl_allreduce_bus_factor(0, 2) == 1.0);
    RB_CHECK(nccl_allreduce_bus_factor(0, 4) == 1.5);
    RB_CHECK(nccl_allreduce_bus_factor(0, 8) == 1.75);
    RB_CHECK(nccl_allreduce_bus_factor(1, 2) == 0.5);
    RB_CHECK(nccl_allreduce_bus_factor(1, 8) == 0.875);
    RB_CHECK(nccl_allreduce_bus_factor(2, 8) == 0.875);
    RB_CHECK(nccl_allreduce_bus_factor(2, 1) == 0.0);
    RB_CHECK(isnan(nccl_allreduce_bus_factor(0, 0)));
    /* 1 GiB all-reduce in 3.25 ms on 2 GPUs: algbw = busbw = 330 GB/s */
    double algbw = 1073741824.0 / 3.25e-3 / 1e9;
    RB_CHECK_NEAR(algbw * nccl_allreduce_bus_factor(0, 2), 330.38, 0.01);
#else
    rbtest_skip("nccl_allreduce is not in this build (no NCCL)");
#endif
}

/* Pairs that need several GPUs say so, and a one-GPU pair says nothing. */
static void test_min_gpus_declared(void)
{
    const rb_pair *p2p = find_pair("p2p_copy");
    RB_CHECK(p2p != NULL && p2p->min_gpus == 2);
    for (int i = 0; rb_registry[i]; i++)
        RB_CHECK(rb_registry[i]->min_gpus >= 0 && rb_registry[i]->min_gpus <= 8);
    const rb_pair *nccl = find_pair("nccl_allreduce");
    RB_CHECK(!nccl || nccl->min_gpus <= 1); /* works on one GPU: busbw 0, as nccl-tests */
}

static const rbtest_case nccl_cases[] = {
    {"nccl_pair_registered_or_missing_with_reason",
     test_nccl_pair_registered_or_missing_with_reason},
    {"sweep_powers_of_8_from_8_bytes_to_1_gib", test_sweep_powers_of_8_from_8_bytes_to_1_gib},
    {"one_gpu_sweep", test_one_gpu_sweep},
    {"bus_bandwidth_formulas", test_bus_bandwidth_formulas},
    {"min_gpus_declared", test_min_gpus_declared},
};

RB_SUITE(nccl_suite, "nccl", nccl_cases);
