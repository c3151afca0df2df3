/* SPDX-License-Identifier: MIT */
/*
 * Tier 2 (no GPU needed): the multi-GPU pairs' declarations. nccl_allreduce's sweep list and
 * nccl-tests' bus-bandwidth formulas, and the build's account of a pair it left out (a build
 * without NCCL names nccl_allreduce in rb_registry_missing, with the reason). The pieces of
 * roofbench_mpi (harness/runner/mpi_main.c) that need no MPI and no GPU: the pairs it takes from the
 * registry (those with setup_rank) and the results document its ranks' records make, which must
 * be roofbench run's. tests/mpi_smoke.sh checks the MPI binary itself (CI, make MPI=1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/model/report.h"
#include "../harness/runner/jobs.h"
#include "../harness/kit/pair.h"
#include "../harness/runner/results.h"
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
    RB_CHECK(rb_pair_ext_of(p)->sweep != NULL);
    if (!rb_pair_ext_of(p)->sweep)
        return;
    int n = 0;
    uint64_t want = 8;
    for (; rb_pair_ext_of(p)->sweep[n]; n++, want *= 8) {
        RB_CHECK(rb_pair_ext_of(p)->sweep[n] == want);
        /* below full_size: the DRAM-peak rule never judges a swept size (S is link traffic) */
        RB_CHECK(rb_pair_ext_of(p)->sweep[n] < p->full_size);
        rb_size s = {rb_pair_ext_of(p)->sweep[n], 1, rb_pair_ext_of(p)->sweep[n]};
        /* the work model is S: GB/s = algbw */
        RB_CHECK(p->bytes(&s) == (double)rb_pair_ext_of(p)->sweep[n]);
    }
    RB_CHECK(n == 10 && rb_pair_ext_of(p)->sweep[n - 1] == 1u << 30);
    RB_CHECK(p->n_inputs == 3 && !strcmp(p->inputs[0], "allreduce") &&
             !strcmp(p->inputs[1], "allgather") && !strcmp(p->inputs[2], "reduce_scatter"));
}

/* On one GPU the sweep keeps 1 GiB alone, a size of the whole sweep; any other GPU count, and a
 * pair without a one-GPU list, keep every size. */
static void test_one_gpu_sweep(void)
{
    const rb_pair *p = find_pair("nccl_allreduce");
    if (!p) {
        rbtest_skip("nccl_allreduce is not in this build (no NCCL)");
        return;
    }
    RB_CHECK(rb_pair_ext_of(p)->sweep_one_gpu != NULL);
    if (!rb_pair_ext_of(p)->sweep_one_gpu || !rb_pair_ext_of(p)->sweep)
        return;
    const uint64_t want[] = {1073741824};
    int n = 0;
    for (; rb_pair_ext_of(p)->sweep_one_gpu[n] && n < 1; n++) {
        RB_CHECK(rb_pair_ext_of(p)->sweep_one_gpu[n] == want[n]);
        int in_sweep = 0;
        for (int k = 0; rb_pair_ext_of(p)->sweep[k]; k++)
            in_sweep |= rb_pair_ext_of(p)->sweep[k] == rb_pair_ext_of(p)->sweep_one_gpu[n];
        RB_CHECK(in_sweep);
    }
    RB_CHECK(n == 1 && rb_pair_ext_of(p)->sweep_one_gpu[n] == 0);
    int kept_one = 0, kept_two = 0;
    for (int k = 0; rb_pair_ext_of(p)->sweep[k]; k++) {
        kept_one += rb_pair_sweeps_size(p, rb_pair_ext_of(p)->sweep[k], 1);
        kept_two += rb_pair_sweeps_size(p, rb_pair_ext_of(p)->sweep[k], 2);
    }
    RB_CHECK(kept_one == 1 && kept_two == 10);
    RB_CHECK(!rb_pair_sweeps_size(p, 16777216, 1) && rb_pair_sweeps_size(p, 16777216, 8));
    RB_CHECK(!rb_pair_sweeps_size(p, 8, 1) && rb_pair_sweeps_size(p, 8, 2));
    const rb_pair *copy = find_pair("copy_vectorized");
    RB_CHECK(copy && rb_pair_ext_of(copy)->sweep_one_gpu == NULL &&
             rb_pair_sweeps_size(copy, 12345, 1));
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
    RB_CHECK(p2p != NULL && rb_pair_ext_of(p2p)->min_gpus == 2);
    for (int i = 0; rb_registry[i]; i++)
        RB_CHECK(rb_pair_ext_of(rb_registry[i])->min_gpus >= 0 &&
                 rb_pair_ext_of(rb_registry[i])->min_gpus <= 8);
    const rb_pair *nccl = find_pair("nccl_allreduce");
    /* works on one GPU: busbw 0, as nccl-tests */
    RB_CHECK(!nccl || rb_pair_ext_of(nccl)->min_gpus <= 1);
}

/* The optional hook is there where it must be, and only there: roofbench_mpi runs exactly the
 * pairs with setup_rank, and each of them has a plain setup for roofbench too. */
static void test_setup_rank_declared(void)
{
    int with = 0;
    for (int i = 0; rb_registry[i]; i++)
        if (rb_pair_ext_of(rb_registry[i])->setup_rank) {
            with++;
            RB_CHECK(rb_registry[i]->setup != NULL);
        }
    const rb_pair *p = find_pair("nccl_allreduce");
    if (!p) {
        RB_CHECK(with == 0);
        rbtest_skip("nccl_allreduce is not in this build (no NCCL)");
        return;
    }
    RB_CHECK(rb_pair_ext_of(p)->setup_rank != NULL);
    RB_CHECK(with == 1);
}

static int has_setup_rank(const rb_pair *p)
{
    return rb_pair_ext_of(p)->setup_rank != NULL;
}

/* roofbench_mpi's selection: the registry's pairs with setup_rank, named as roofbench names
 * them, by run's options (parsed by rb_cli_parse as mpi_main.c does). */
static void test_mpi_jobs_from_registry(void)
{
    if (!find_pair("nccl_allreduce")) {
        rbtest_skip("nccl_allreduce is not in this build (no NCCL)");
        return;
    }
    static rb_job jobs[RB_MAX_JOBS];
    rb_options o;
    char err[300];
    int n = -1;
    char *smoke[] = {"roofbench_mpi", "run", "--size", "smoke", NULL};
    RB_CHECK(rb_cli_parse(4, smoke, &o, err, sizeof err) == 0);
    RB_CHECK(rb_jobs_select(&o, has_setup_rank, jobs, &n, err, sizeof err) == 0);
    RB_CHECK(n == 3);
    RB_CHECK(n == 3 && !strcmp(jobs[0].name, "nccl_allreduce.allreduce") &&
             !strcmp(jobs[2].name, "nccl_allreduce.reduce_scatter") && jobs[1].input == 1 &&
             jobs[0].size.n == 1u << 20);
    /* a full run: every input at every size of the sweep, as roofbench's rows */
    char *full[] = {"roofbench_mpi", "run", "--filter", "allgather", NULL};
    RB_CHECK(rb_cli_parse(4, full, &o, err, sizeof err) == 0);
    RB_CHECK(rb_jobs_select(&o, has_setup_rank, jobs, &n, err, sizeof err) == 0);
    RB_CHECK(n == 10 && !strcmp(jobs[0].name, "nccl_allreduce.allgather@8") &&
             !strcmp(jobs[9].name, "nccl_allreduce.allgather@1G") &&
             jobs[9].size.n == 1u << 30);
    /* a pair without setup_rank is not taken, even when named */
    char *sgemm[] = {"roofbench_mpi", "run", "--filter", "^sgemm$", NULL};
    RB_CHECK(rb_cli_parse(4, sgemm, &o, err, sizeof err) == 0);
    RB_CHECK(rb_jobs_select(&o, has_setup_rank, jobs, &n, err, sizeof err) == -1);
    RB_CHECK(rb_jobs_select(&o, NULL, jobs, &n, err, sizeof err) == 0 && n > 0);
}

/* One record as child.c sends it: {"type": type, key: value}. */
static json_value *record(const char *type, const char *key, json_value *value)
{
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "type", type) || (key && json_object_set(o, key, value))) {
        json_free(o);
        return NULL;
    }
    return o;
}

static void feed(rb_pair_result *r, json_value *line)
{
    RB_CHECK(line != NULL);
    if (line)
        rb_results_line(r, line);
    json_free(line);
}

static json_value *variant_record(const char *name, rb_role role, int timed, int skipped)
{
    rb_variant_result v;
    rb_variant_result_init(&v, name, role, RB_UNIT_NONE, 1e-5);
    v.rel_err_before = v.rel_err_after = skipped ? NAN : 1e-8;
    v.valid = !skipped;
    v.skipped = skipped;
    if (skipped)
        rb_fmt(v.note, sizeof v.note, "skipped on this machine: one GPU");
    if (timed) {
        double samples[4] = {0.5, 0.25, 0.25, 0.25};
        v.timed = rb_stats_compute(samples, 4, &v.time_ms) == 0;
        v.launches_per_sample = 4;
    }
    return record("variant", "variant", rb_variant_to_json(&v));
}

/* The records rb_child_pair writes for one nccl_allreduce job on one GPU: the pair, host_staged
 * and out of place timed, in place skipped, out of place's extras. */
static void feed_rank_records(rb_pair_result *r)
{
    json_value *pair = record("pair", NULL, NULL);
    RB_CHECK(pair && !json_set_number(pair, "flops", 0) &&
             !json_set_number(pair, "bytes", 1048576) && !json_set_bool(pair, "link_bytes", 1));
    feed(r, pair);
    RB_CHECK(isnan(r->setup_s)); /* not reported yet: no setup_s is written */
    json_value *setup = record("setup", NULL, NULL);
    RB_CHECK(setup && !json_set_number(setup, "setup_s", 0.25));
    feed(r, setup);
    RB_CHECK(r->setup_s == 0.25);
    feed(r, variant_record("host_staged", RB_ROLE_BASELINE, 1, 0));
    feed(r, variant_record("nccl_out_of_place", RB_ROLE_OPTIMIZED, 1, 0));
    feed(r, variant_record("nccl_in_place", RB_ROLE_LIBRARY, 0, 1));
    rb_extra x[2] = {{"busbw_gbps", 2.5}, {"wrong_elements", 0}};
    json_value *extras = record("extras", "extras", rb_extras_to_json(x, 2));
    RB_CHECK(extras && !json_set_number(extras, "index", 1));
    feed(r, extras);
    RB_CHECK(r->n_variants == 3 && r->v[2].skipped && r->v[1].n_extras == 2);
}

/* The results file at path, read as any reader of results files would: roofbench_mpi's tool
 * and ranks in the meta, r's row with its variants (rb_variant_from_json), verdicts, extras. */
static void check_run_document(const char *path, const rb_pair_result *r)
{
    char err[300];
    FILE *f = fopen(path, "rb");
    char *text = calloc(1, 1 << 20);
    size_t len = f && text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    json_value *back = len ? json_parse(text, len, err, sizeof err) : NULL;
    free(text);
    RB_CHECK(back != NULL);
    const json_value *tool = json_get(back, "tool"), *ranks = json_get(back, "ranks");
    const json_value *pairs = json_get(back, "pairs"), *schema = json_get(back, "schema");
    RB_CHECK(tool && tool->type == JSON_STRING && !strcmp(tool->string, "roofbench_mpi"));
    RB_CHECK(ranks && ranks->type == JSON_NUMBER && ranks->number == 2);
    RB_CHECK(schema && schema->type == JSON_NUMBER && schema->number == 1);
    RB_CHECK(json_get(back, "environment") && json_get(back, "hardware_key"));
    /* the roofs it was placed against: the datasheet's, nothing measured (no expectation file) */
    const json_value *dram = json_get(json_get(back, "roofs"), "dram_gbps");
    RB_CHECK(dram && json_get(dram, "peak") && json_get(dram, "peak")->type == JSON_NUMBER &&
             json_get(dram, "measured") && json_get(dram, "measured")->type == JSON_NULL);
    RB_CHECK(pairs && pairs->type == JSON_ARRAY && pairs->count == 1);
    const json_value *p0 = pairs && pairs->count ? pairs->items[0] : NULL;
    const json_value *name = json_get(p0, "name"), *vs = json_get(p0, "variants");
    RB_CHECK(name && name->type == JSON_STRING && !strcmp(name->string, r->name));
    RB_CHECK(json_number_at(p0, "setup_s") == 0.25); /* the child's setup time, as reported */
    RB_CHECK(vs && vs->type == JSON_ARRAY && vs->count == 3);
    for (size_t k = 0; vs && k < vs->count; k++) {
        rb_variant_result v;
        RB_CHECK(rb_variant_from_json(vs->items[k], &v, err, sizeof err) == 0);
        RB_CHECK(!strcmp(v.name, r->v[k].name) && v.skipped == (k == 2) && v.valid == (k != 2));
        const json_value *verdict = json_get(vs->items[k], "verdict");
        RB_CHECK(verdict && verdict->type == JSON_STRING &&
                 !strcmp(verdict->string, k == 2 ? "skipped" : "new"));
        RB_CHECK(v.n_extras == (k == 1 ? 2 : 0));
        const json_value *roof = json_get(vs->items[k], "roof");
        RB_CHECK(k == 2 || (roof && roof->type == JSON_STRING)); /* a skipped one has no point */
    }
    json_free(back);
}

/* The records of one nccl_allreduce job on a rank, as rb_child_pair writes them, make through
 * the shared collector and writer the document `roofbench run` writes: the same reader reads
 * every variant back (the skipped one skipped), the extras sit on their variant, and the meta
 * says which tool and how many ranks. */
static void test_rank_records_make_the_run_document(void)
{
    if (!find_pair("nccl_allreduce")) {
        rbtest_skip("nccl_allreduce is not in this build (no NCCL)");
        return;
    }
    static rb_job jobs[RB_MAX_JOBS];
    rb_options o;
    char err[300], path[400];
    int n = 0;
    const char *dir = rbtest_fresh_dir();
    rb_fmt(path, sizeof path, "%s/mpi.json", dir);
    char *argv[] = {"roofbench_mpi", "run", "--size", "smoke", "--json", path, NULL};
    RB_CHECK(rb_cli_parse(6, argv, &o, err, sizeof err) == 0);
    RB_CHECK(rb_jobs_select(&o, has_setup_rank, jobs, &n, err, sizeof err) == 0 && n == 3);
    rb_pair_result r;
    rb_results_begin(&r, &jobs[0]);
    RB_CHECK(!strcmp(r.name, "nccl_allreduce.allreduce"));
    feed_rank_records(&r);
    rb_roofs ceilings, peaks;
    rb_results_derive(NULL, "nvidia-h100-80gb-hbm3", &r, 1, &ceilings, &peaks);
    RB_CHECK(rb_expect_apply(NULL, &r, 1) == 0); /* a skipped variant is not a failure */
    json_value *env = json_new_object();
    RB_CHECK(env && !json_set_string(env, "hardware_key", "nvidia-h100-80gb-hbm3"));
    json_value *meta = rb_results_meta("roofbench_mpi", &o, 6, argv, env, NULL);
    RB_CHECK(meta && !json_set_number(meta, "ranks", 2));
    json_value *doc = rb_report_json(&r, 1, &ceilings, &peaks, meta);
    rb_outputs *outs = rb_outputs_new(0);
    RB_CHECK(doc && outs && rb_results_save(&o, "nvidia-h100-80gb-hbm3", doc, &r, 1, outs) == 0);
    rb_outputs_free(outs);
    json_free(doc);
    json_free(env);
    check_run_document(path, &r);
    rb_fmt(path, sizeof path, "%s/mpi.md", dir);
    FILE *f = fopen(path, "rb");
    RB_CHECK(f != NULL); /* the Markdown twin */
    if (f)
        fclose(f);
    rbtest_remove_dir();
}

static const rbtest_case nccl_cases[] = {
    {"nccl_pair_registered_or_missing_with_reason",
     test_nccl_pair_registered_or_missing_with_reason},
    {"sweep_powers_of_8_from_8_bytes_to_1_gib", test_sweep_powers_of_8_from_8_bytes_to_1_gib},
    {"one_gpu_sweep", test_one_gpu_sweep},
    {"bus_bandwidth_formulas", test_bus_bandwidth_formulas},
    {"min_gpus_declared", test_min_gpus_declared},
    {"setup_rank_declared", test_setup_rank_declared},
    {"mpi_jobs_from_registry", test_mpi_jobs_from_registry},
    {"rank_records_make_the_run_document", test_rank_records_make_the_run_document},
};

RB_SUITE(nccl_suite, "nccl", nccl_cases);
