/* SPDX-License-Identifier: MIT */
/*
 * Tier 3: runs only where a GPU is usable (each test skips itself elsewhere). The harness's own
 * device code against its CPU twins, the poison-then-check mechanism of every pair, and every
 * variant of every pair validated at smoke size and at an odd size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/model/compare.h"
#include "../harness/model/json.h"
#include "../harness/model/random.h"
#include "../harness/kit/gpu.h"
#include "../harness/kit/pair.h"
#include "../harness/model/util.h"
#include "../harness/kit/pair_util.h"
#include "../harness/runner/child.h"
#include "../harness/runner/measure.h"
#include "rbtest.h"

extern const rbtest_suite gpu_suite;

int rbtest_gpu_count(void)
{
    static int count = -1;
    if (count < 0 && cudaGetDeviceCount(&count) != cudaSuccess)
        count = 0;
    return count;
}

static int need_gpu(void)
{
    if (rbtest_gpu_count() > 0)
        return 1;
    rbtest_skip("no usable CUDA device");
    return 0;
}

static void test_fill_matches_cpu_bit_for_bit(void)
{
    if (!need_gpu())
        return;
    size_t n = 1000003;
    float *d = NULL, *h = malloc(n * sizeof *h);
    RB_CHECK(h && cudaMalloc((void **)&d, n * sizeof *d) == cudaSuccess);
    if (!h || !d)
        return;
    RB_CHECK(rb_fill_uniform_f32(d, n, 42, 0) == cudaSuccess);
    RB_CHECK(cudaMemcpy(h, d, n * sizeof *d, cudaMemcpyDeviceToHost) == cudaSuccess);
    size_t mismatches = 0, zeros = 0;
    for (size_t i = 0; i < n; i++) {
        float want = rb_uniform_f32(42, i);
        mismatches += memcmp(&h[i], &want, sizeof want) != 0;
        zeros += h[i] == 0.0f;
    }
    RB_CHECK(mismatches == 0);
    RB_CHECK(zeros == 0);
    cudaFree(d);
    free(h);
}

static void test_device_relerr_matches_cpu(void)
{
    if (!need_gpu())
        return;
    size_t n = 1 << 20;
    float *ref = malloc(n * sizeof *ref), *out = malloc(n * sizeof *out);
    float *d_ref = NULL, *d_out = NULL;
    RB_CHECK(ref && out);
    RB_CHECK(cudaMalloc((void **)&d_ref, n * sizeof(float)) == cudaSuccess);
    RB_CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)) == cudaSuccess);
    if (!ref || !out || !d_ref || !d_out)
        return;
    for (size_t i = 0; i < n; i++) {
        ref[i] = rb_uniform_f32(7, i);
        out[i] = ref[i] * (1.0f + 1e-4f * rb_uniform_f32(8, i));
    }
    cudaMemcpy(d_ref, ref, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_out, out, n * sizeof(float), cudaMemcpyHostToDevice);
    double gpu = NAN, cpu = rb_relerr_f32(out, ref, n);
    RB_CHECK(rb_relerr_f32_device(d_out, d_ref, n, 0, &gpu) == cudaSuccess);
    RB_CHECK(cpu > 1e-6 && cpu < 1e-4);
    RB_CHECK_NEAR(gpu / cpu, 1.0, 1e-9);
    /* identical: exactly zero */
    RB_CHECK(rb_relerr_f32_device(d_ref, d_ref, n, 0, &gpu) == cudaSuccess);
    RB_CHECK(gpu == 0.0);
    /* one NaN anywhere makes the error NaN, which no tolerance accepts */
    out[n / 3] = NAN;
    cudaMemcpy(d_out, out, n * sizeof(float), cudaMemcpyHostToDevice);
    RB_CHECK(rb_relerr_f32_device(d_out, d_ref, n, 0, &gpu) == cudaSuccess);
    RB_CHECK(isnan(gpu));
    RB_CHECK(!rb_within_tolerance(gpu, 1e30));
    cudaFree(d_ref);
    cudaFree(d_out);
    free(ref);
    free(out);
}

/* The per-row error on the device against its CPU twin (model/compare.h): one row made 10x worse
 * than the rest is what it reports; a NaN in one row makes it NaN. */
static void test_device_row_relerr_matches_cpu(void)
{
    if (!need_gpu())
        return;
    const size_t rows = 4099, cols = 128, n = rows * cols;
    float *ref = malloc(n * sizeof *ref), *out = malloc(n * sizeof *out);
    uint16_t *bf = malloc(n * sizeof *bf);
    void *d_out = NULL;
    float *d_ref = NULL;
    RB_CHECK(ref && out && bf);
    RB_CHECK(cudaMalloc(&d_out, n * 2) == cudaSuccess);
    RB_CHECK(cudaMalloc((void **)&d_ref, n * sizeof(float)) == cudaSuccess);
    if (!ref || !out || !bf || !d_out || !d_ref)
        return;
    for (size_t i = 0; i < n; i++) {
        const size_t r = i / cols;
        ref[i] = rb_uniform_f32(7, i);
        out[i] = ref[i] * (1.0f + (r == 2049 ? 1e-1f : 1e-2f) * rb_uniform_f32(8, i));
        uint32_t b;
        memcpy(&b, &out[i], 4);
        bf[i] = (uint16_t)(b >> 16); /* (truncated: the CPU twin gets the same values) */
        b = (uint32_t)bf[i] << 16;
        memcpy(&out[i], &b, 4);
    }
    cudaMemcpy(d_ref, ref, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_out, bf, n * 2, cudaMemcpyHostToDevice);
    double gpu = NAN, cpu = rb_row_relerr_max_f32(out, ref, rows, cols);
    RB_CHECK(rb_row_relerr_bf16_device(d_out, d_ref, rows, cols, 0, &gpu) == cudaSuccess);
    RB_CHECK(cpu > 3e-2 && cpu < 1e-1);
    RB_CHECK_NEAR(gpu / cpu, 1.0, 1e-9);
    bf[77 * cols + 5] = 0x7fc0; /* a NaN in row 77 */
    cudaMemcpy(d_out, bf, n * 2, cudaMemcpyHostToDevice);
    RB_CHECK(rb_row_relerr_bf16_device(d_out, d_ref, rows, cols, 0, &gpu) == cudaSuccess);
    RB_CHECK(isnan(gpu));
    cudaFree(d_out);
    cudaFree(d_ref);
    free(ref);
    free(out);
    free(bf);
}

/* Poisoned output, no kernel run: every pair's check must fail. This proves both that the
 * poison is NaN to the check and that a variant which writes nothing cannot pass. */
static void test_poison_alone_fails_every_check(void)
{
    if (!need_gpu())
        return;
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        void *ctx = NULL, *out = NULL;
        size_t bytes = 0;
        double err = 0.0;
        char why[200];
        rb_size want = {p->smoke_size, 0, 0}, size;
        RB_CHECK(rb_pair_resolve_size(p, &want, &size, why, sizeof why) == 0);
        if (rb_pair_ext_of(p)->min_gpus > rbtest_gpu_count())
            continue;
        if (rb_pair_ext_of(p)->min_cc) {
            int cc_major = 0;
            cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, 0);
            if (cc_major * 10 < rb_pair_ext_of(p)->min_cc)
                continue;
        }
        if (p->setup(&ctx, &size, 1, 0) != RB_OK) {
            RB_CHECK(!"setup failed");
            p->teardown(ctx);
            continue;
        }
        p->output(ctx, 0, &out, &bytes);
        RB_CHECK(rb_poison(out, bytes, 0) == RB_OK && cudaDeviceSynchronize() == cudaSuccess);
        RB_CHECK(p->check(ctx, 0, 0, &err) == RB_OK);
        if (rb_within_tolerance(err, 0.1))
            printf("    %s: poisoned output passed its check (err %g)\n", p->name, err);
        RB_CHECK(!rb_within_tolerance(err, 0.1));
        /* and one real variant passes it, so the check is not simply always failing */
        RB_CHECK(p->variants[0].run(ctx, 0) == RB_OK);
        RB_CHECK(cudaDeviceSynchronize() == cudaSuccess);
        RB_CHECK(p->check(ctx, 0, 0, &err) == RB_OK);
        RB_CHECK(rb_within_tolerance(err, p->variants[0].tolerance));
        p->teardown(ctx);
    }
}

/* For each pair and input at smoke size: the optimized variant passes its check; one planted
 * NaN-bytes word in the middle of its output makes the check fail (0xFF bytes are NaN in fp32,
 * bf16 and fp8 and an absurd count in integers); and after teardown no L2 is set aside for
 * persisting lines, so the next pair starts with none (l2_persistence must reset what it set). */
static void test_planted_nan_caught_and_persisting_l2_reset(void)
{
    if (!need_gpu())
        return;
    int cc_major = 0;
    cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, 0);
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        const rb_pair_ext *e = rb_pair_ext_of(p);
        if ((e->min_cc && cc_major * 10 < e->min_cc) || e->min_gpus > rbtest_gpu_count())
            continue;
        const rb_variant_def *opt = NULL;
        int opt_k = 0;
        for (int k = 0; k < p->n_variants; k++)
            if (p->variants[k].role == RB_ROLE_OPTIMIZED) {
                opt = &p->variants[k];
                opt_k = k;
            }
        for (int input = 0; input < (p->n_inputs ? p->n_inputs : 1); input++) {
            void *ctx = NULL, *out = NULL;
            size_t bytes = 0, limit = 1;
            double err = NAN;
            char why[200];
            rb_size want = {p->smoke_size, 0, 0}, size;
            RB_CHECK(rb_pair_resolve_size(p, &want, &size, why, sizeof why) == 0);
            RB_CHECK(p->setup(&ctx, &size, 3, input) == RB_OK);
            /* as the harness does before every checked run: the whole output poisoned (hgemm's
             * check reads its padding columns as that poison, which setup's tuning may write) */
            p->output(ctx, opt_k, &out, &bytes);
            RB_CHECK(rb_poison(out, bytes, 0) == RB_OK);
            RB_CHECK(opt && opt->run(ctx, 0) == RB_OK);
            RB_CHECK(cudaDeviceSynchronize() == cudaSuccess);
            RB_CHECK(p->check(ctx, opt_k, 0, &err) == RB_OK &&
                     rb_within_tolerance(err, opt->tolerance));
            size_t at = bytes / 2 / 4 * 4;
            RB_CHECK(rb_poison((char *)out + at, 4, 0) == RB_OK);
            RB_CHECK(cudaDeviceSynchronize() == cudaSuccess);
            RB_CHECK(p->check(ctx, opt_k, 0, &err) == RB_OK);
            if (rb_within_tolerance(err, 0.1))
                printf("    %s: a planted NaN passed its check (err %g)\n", p->name, err);
            RB_CHECK(!rb_within_tolerance(err, 0.1));
            p->teardown(ctx);
            RB_CHECK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) == cudaSuccess);
            if (limit != 0)
                printf("    %s: %zu bytes of L2 still set aside for persisting lines\n", p->name,
                       limit);
            RB_CHECK(limit == 0);
        }
    }
}

/* The odd size a defect runs at: 1000003 elements, or 999 x 1021 for a pair with a shape. */
static int defect_size(const rb_pair *p, const rb_defect *d, rb_size *size)
{
    char why[200];
    rb_size want = {d->size ? d->size : 1000003, 0, 0};
    if (!d->size && rb_pair_ext_of(p)->shape)
        want = (rb_size){999 * 1021, 999, 1021};
    if (rb_pair_resolve_size(p, &want, size, why, sizeof why) != 0) {
        printf("    %s/%s: size refused: %s\n", p->name, d->name, why);
        return -1;
    }
    return 0;
}

/* One planted defect on one input: the check of the variant it imitates must fail (by
 * d->margin x its tolerance where the defect says so). The error is printed with the
 * tolerance, so the margin shows in the log. */
static void defect_case(const rb_pair *p, const rb_defect *d, int input)
{
    const rb_variant_def *v = &p->variants[d->variant];
    rb_size size;
    void *ctx = NULL, *out = NULL;
    size_t bytes = 0;
    double err = 0.0;
    const double bound = d->margin > 0 ? d->margin * v->tolerance : v->tolerance;
    if (defect_size(p, d, &size) != 0) {
        RB_CHECK(!"defect size refused");
        return;
    }
    rb_status st = p->setup(&ctx, &size, 5, input);
    RB_CHECK(st == RB_OK);
    if (st == RB_OK) {
        p->output(ctx, d->variant, &out, &bytes);
        RB_CHECK(rb_poison(out, bytes, 0) == RB_OK);
        RB_CHECK(d->run(ctx, 0) == RB_OK);
        RB_CHECK(cudaDeviceSynchronize() == cudaSuccess);
        RB_CHECK(p->check(ctx, d->variant, 0, &err) == RB_OK);
        printf("    %s%s%s/%s as %s at %llux%llu: rel_err %.3g vs tolerance %.3g%s: %s\n", p->name,
               p->n_inputs ? "." : "", p->n_inputs ? p->inputs[input] : "", d->name, v->name,
               (unsigned long long)size.rows, (unsigned long long)size.cols, err, v->tolerance,
               d->margin > 0 ? " (wanted beyond its margin)" : "",
               rb_within_tolerance(err, bound) ? "PASSED (bad)" : "caught");
        RB_CHECK(!rb_within_tolerance(err, bound));
    }
    p->teardown(ctx);
}

/* The variant record named name among the JSON lines a child reported into f (rb_child_pair's
 * {"type": "variant", "variant": {...}}), copied (caller frees), or NULL. */
static json_value *reported_variant(FILE *f, const char *name)
{
    static char line[1 << 16];
    char err[200];
    json_value *found = NULL;
    rewind(f);
    while (!found && fgets(line, sizeof line, f)) {
        json_value *v = json_parse(line, strlen(line), err, sizeof err);
        const json_value *rec = json_get(v, "variant");
        if (v && !strcmp(json_string_at(v, "type", ""), "variant") &&
            !strcmp(json_string_at(rec, "name", ""), name))
            found = json_clone(rec);
        json_free(v);
    }
    return found;
}

#define RB_RACE_RUNS 20

/* A race (rb_defect.race) through `check`'s own path (rb_child_pair with check_only: poison, run,
 * check, then a second independent poisoned run and check), RB_RACE_RUNS times, each after a
 * fresh setup: every time the first run is right and the second is caught. */
static void race_case(const rb_pair *p, const rb_defect *d, int input)
{
    rb_pair racy = *p;
    rb_child_opts o;
    rb_size size;
    int caught = 0, first_right = 0;
    if (defect_size(p, d, &size) != 0) {
        RB_CHECK(!"defect size refused");
        return;
    }
    racy.variants[d->variant].run = d->run;
    memset(&o, 0, sizeof o);
    o.size = size;
    o.input = input;
    o.seed = 5;
    o.check_only = 1;
    o.skip_variants = ~(1u << d->variant); /* this variant alone */
    for (int i = 0; i < RB_RACE_RUNS; i++) {
        FILE *f = tmpfile();
        RB_CHECK(f != NULL);
        if (!f)
            return;
        fflush(stdout);
        rb_child_pair(&racy, &o, fileno(f));
        json_value *v = reported_variant(f, p->variants[d->variant].name);
        const char *note = json_string_at(v, "note", "");
        first_right += rb_within_tolerance(json_number_at(v, "rel_err_before"),
                                           p->variants[d->variant].tolerance);
        caught += v && !json_true_at(v, "valid") && strstr(note, "after a second run") != NULL;
        if (i == 0)
            printf("    %s%s%s/%s as %s: first run rel_err %.3g, second %.3g: %s\n", p->name,
                   p->n_inputs ? "." : "", p->n_inputs ? p->inputs[input] : "", d->name,
                   p->variants[d->variant].name, json_number_at(v, "rel_err_before"),
                   json_number_at(v, "rel_err_after"), note);
        json_free(v);
        fclose(f);
    }
    printf("    %s/%s: the first run right in %d of %d checks, the second run caught in %d\n",
           p->name, d->name, first_right, RB_RACE_RUNS, caught);
    RB_CHECK(first_right == RB_RACE_RUNS && caught == RB_RACE_RUNS);
}

/* Every pair's planted defects (rb_defect) fail the check they target, on every input they
 * exist on; a race, check's second run, every time. */
static void test_planted_defects_fail_their_check(void)
{
    if (!need_gpu())
        return;
    int cc_major = 0;
    cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, 0);
    const char *only = getenv("RBTEST_PAIR"); /* one pair's defects alone */
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        const rb_pair_ext *e = rb_pair_ext_of(p);
        if ((e->min_cc && cc_major * 10 < e->min_cc) || e->min_gpus > rbtest_gpu_count() ||
            (only && *only && strcmp(only, p->name)))
            continue;
        for (int k = 0; k < RB_MAX_DEFECTS && p->defects[k].name; k++)
            for (int input = 0; input < (p->n_inputs ? p->n_inputs : 1); input++) {
                const rb_defect *d = &p->defects[k];
                if (d->inputs && !(d->inputs >> input & 1u))
                    continue;
                if (d->race)
                    race_case(p, d, input);
                else
                    defect_case(p, d, input);
            }
    }
}

/* roofbench check at size, of every pair or of those filter selects (NULL: every pair). */
static void check_pairs(const char *size, const char *filter)
{
    char args[200];
    snprintf(args, sizeof args, "check --size %s%s%s%s", size, filter ? " --filter '" : "",
             filter ? filter : "", filter ? "'" : "");
    rbtest_fresh_dir();
    int rc = rbtest_run(args);
    if (rc != 0)
        printf("    roofbench %s -> %d:\n%s", args, rc, rbtest_output());
    RB_CHECK(rc == 0);
    RB_CHECK(strstr(rbtest_output(), "check passed") != NULL);
    rbtest_remove_dir();
}

static void test_every_variant_valid_at_smoke_size(void)
{
    if (need_gpu())
        check_pairs("smoke", NULL);
}

static void test_every_variant_valid_at_odd_size(void)
{
    if (need_gpu())
        check_pairs("1000003", NULL);
}

/* Two-dimensional pairs on a shape that is a multiple of nothing useful (1D pairs: 1019979). */
static void test_every_variant_valid_at_odd_shape(void)
{
    if (need_gpu())
        check_pairs("999x1021", NULL);
}

/* The two-dimensional memory pairs at a shape of multiples of 4 that are multiples of neither 32
 * nor 64: their 16-byte paths' partial tiles (transpose's optimized kernel takes its own path only
 * where rows and cols are multiples of 4, so 999 x 1021 alone tests only its fallback; so does
 * decode_gemv's, whose 16-byte kernels need k % 8 == 0 and here run their k and row tails). */
static void test_memory_pairs_valid_at_aligned_partial_shape(void)
{
    if (need_gpu())
        check_pairs("1004x2008",
                    "^(transpose|fused_elementwise|rmsnorm|softmax|tma_pipeline|decode_gemv)$");
}

/* A GPU with no expectation file: every verdict is new, the run says how to record one, and it
 * exits 0 (the temporary folder has no expectations/). */
static void test_no_expectation_file_all_new_exit_0(void)
{
    if (!need_gpu())
        return;
    rbtest_fresh_dir();
    int rc = rbtest_run("run --size smoke --samples 3 --filter '^copy_' --results-dir r");
    const char *out = rbtest_output();
    if (rc != 0)
        printf("    -> %d:\n%s", rc, out);
    RB_CHECK(rc == 0);
    RB_CHECK(strstr(out, "every verdict is 'new'") != NULL);
    RB_CHECK(strstr(out, "--update-expectations") != NULL);
    RB_CHECK(strstr(out, " pass") == NULL && strstr(out, "regressed") == NULL);
    RB_CHECK(strstr(out, "results: r/") != NULL);
    rbtest_remove_dir();
}

/* An interleaved pair (gemm_autotune: its variants timed in rounds, one sample of each in turn):
 * with --samples 5 every variant of every input gets exactly 5 samples, is valid after timing,
 * and has a median. */
static void test_interleaved_pair_times_every_variant(void)
{
    if (!need_gpu())
        return;
    setenv("RB_AUTOTUNE_CACHE", "autotune.json", 1); /* inside the fresh folder */
    const char *dir = rbtest_fresh_dir();
    char path[400];
    snprintf(path, sizeof path, "%s/out.json", dir); /* the binary runs inside dir */
    int rc = rbtest_run("run --size smoke --samples 5 --expect none --json out.json "
                        "--filter '^gemm_autotune[.]'");
    unsetenv("RB_AUTOTUNE_CACHE");
    if (rc != 0)
        printf("    -> %d:\n%s", rc, rbtest_output());
    RB_CHECK(rc == 0);
    char err[200];
    json_value *doc = json_parse_file(path, err, sizeof err);
    if (!doc)
        printf("    -> %s: %s\n", path, err);
    const json_value *pairs = doc ? json_get(doc, "pairs") : NULL;
    int timed = 0;
    RB_CHECK(pairs && pairs->type == JSON_ARRAY && pairs->count == 3); /* three inputs */
    for (size_t i = 0; pairs && i < pairs->count; i++) {
        const json_value *vs = json_get(pairs->items[i], "variants");
        for (size_t k = 0; vs && k < vs->count; k++) {
            const json_value *v = vs->items[k], *t = json_get(v, "time_ms");
            const json_value *n = t ? json_get(t, "samples") : NULL;
            const json_value *med = t ? json_get(t, "median") : NULL;
            const json_value *valid = json_get(v, "valid");
            RB_CHECK(n && n->type == JSON_NUMBER && n->number == 5);
            RB_CHECK(med && med->type == JSON_NUMBER && med->number > 0);
            RB_CHECK(valid && valid->type == JSON_BOOL && valid->boolean);
            timed++;
        }
    }
    RB_CHECK(timed == 6);
    json_free(doc);
    rbtest_remove_dir();
}

/* The adaptive loop (harness/runner/measure.c): every variant has >= 20 samples and the 95% interval of
 * its median in the results, around the median; the loop stopped because that interval spans
 * <= 1% of the median, or because the time cap (1 s of wall clock) ran out, of which the timed
 * launches take more than half (the rest: a sync and a check between samples). */
static void test_adaptive_loop_stops_on_the_median_interval(void)
{
    if (!need_gpu())
        return;
    const char *dir = rbtest_fresh_dir();
    char path[400];
    snprintf(path, sizeof path, "%s/out.json", dir);
    int rc = rbtest_run("run --size smoke --expect none --json out.json --filter '^copy_'");
    if (rc != 0)
        printf("    -> %d:\n%s", rc, rbtest_output());
    RB_CHECK(rc == 0);
    char err[200];
    json_value *doc = json_parse_file(path, err, sizeof err);
    const json_value *pairs = doc ? json_get(doc, "pairs") : NULL;
    int timed = 0;
    for (size_t i = 0; pairs && i < pairs->count; i++) {
        const json_value *vs = json_get(pairs->items[i], "variants");
        for (size_t k = 0; vs && k < vs->count; k++) {
            const json_value *t = json_get(vs->items[k], "time_ms");
            const json_value *med = t ? json_get(t, "median") : NULL;
            const json_value *lo = t ? json_get(t, "median_ci_lo") : NULL;
            const json_value *hi = t ? json_get(t, "median_ci_hi") : NULL;
            const json_value *n = t ? json_get(t, "samples") : NULL;
            const json_value *lps = t ? json_get(t, "launches_per_sample") : NULL;
            if (!med || !lo || !hi || !n || !lps || lo->type != JSON_NUMBER ||
                hi->type != JSON_NUMBER) {
                RB_CHECK(!"a timed variant without its median's interval");
                continue;
            }
            double m = med->number, spent_ms = n->number * lps->number * m;
            RB_CHECK(n->number >= 20);
            RB_CHECK(lo->number <= m && m <= hi->number);
            RB_CHECK((hi->number - lo->number) / m <= 0.01 || spent_ms >= 500.0);
            timed++;
        }
    }
    RB_CHECK(timed == 6); /* copy_coalescing and copy_vectorized, three variants each */
    json_free(doc);
    rbtest_remove_dir();
}

/* A run records its platform reference (the quick ceilings, in under 5 s, one line
 * printed), the environment's library versions and platform settings, and each timed
 * variant's clocks from the sampler (where NVML loads); --no-ceilings records none. */
static void test_platform_and_clocks_recorded(void)
{
    if (!need_gpu())
        return;
    const char *dir = rbtest_fresh_dir();
    char path[400], err[200];
    snprintf(path, sizeof path, "%s/out.json", dir);
    int rc = rbtest_run("run --size smoke --expect none --json out.json "
                        "--filter '^copy_vectorized$'");
    if (rc != 0)
        printf("    -> %d:\n%s", rc, rbtest_output());
    RB_CHECK(rc == 0);
    const char *line = strstr(rbtest_output(), "platform: DRAM copy ");
    double seconds = NAN;
    const char *open = line ? strstr(line, "us (") : NULL;
    if (open)
        seconds = atof(open + 4);
    printf("    %.*s\n", line ? (int)strcspn(line, "\n") : 0, line ? line : "");
    RB_CHECK(line != NULL && seconds < 5.0);
    json_value *doc = json_parse_file(path, err, sizeof err);
    const json_value *platform = json_get(doc, "platform");
    const json_value *source = json_get(platform, "source");
    RB_CHECK(source && !strcmp(source->string, "ceilings --quick at run start"));
    static const char *const roofs[] = {"dram_gbps", "fp32_tflops", "launch_us"};
    for (int i = 0; i < 3; i++) {
        const json_value *x = json_get(platform, roofs[i]);
        RB_CHECK(x && x->type == JSON_NUMBER && x->number > 0);
        RB_CHECK(json_get(json_get(platform, "methods"), roofs[i]) != NULL);
    }
    const json_value *env = json_get(json_get(doc, "environment"), "start");
    static const char *const keys[] = {"cublas_version", "cublaslt_version", "nccl_version",
                                       "power_limit_w", "ecc", "persistence_mode", "pcie_gen",
                                       "pcie_width", "mig", "sm_clock_max_mhz", "mem_clock_mhz"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (!json_get(env, keys[i]))
            printf("    environment lacks %s\n", keys[i]);
        RB_CHECK(json_get(env, keys[i]) != NULL);
    }
    RB_CHECK(json_get(env, "cublas_version")->type == JSON_STRING);
    int nvml = !json_get(json_get(env, "nvml"), "unavailable");
    const json_value *vs = json_get(json_get(doc, "pairs")->items[0], "variants");
    for (size_t k = 0; vs && k < vs->count; k++) {
        const json_value *clocks = json_get(vs->items[k], "clocks");
        const json_value *t = json_get(vs->items[k], "throttled");
        if (!nvml) {
            RB_CHECK(!clocks && !t);
            continue;
        }
        const json_value *n = json_get(clocks, "samples"), *mean = json_get(clocks, "sm_mhz_mean");
        const json_value *min = json_get(clocks, "sm_mhz_min");
        /* >= 0.1 s of sampling at ~10 ms: several samples */
        RB_CHECK(n && n->number >= 5);
        RB_CHECK(mean && min && min->number > 0 && min->number <= mean->number);
        RB_CHECK(t && t->type == JSON_BOOL);
    }
    json_free(doc);
    rc = rbtest_run("run --size smoke --samples 3 --expect none --json out.json --no-ceilings "
                    "--filter '^copy_vectorized$'");
    RB_CHECK(rc == 0 && strstr(rbtest_output(), "platform: not measured (--no-ceilings)"));
    doc = json_parse_file(path, err, sizeof err);
    platform = json_get(doc, "platform");
    RB_CHECK(platform && platform->count == 1 &&
             !strcmp(json_get(platform, "source")->string, "none"));
    json_free(doc);
    rbtest_remove_dir();
}

/* A run of link-bound and read-bound rows takes the probes of their roofs beside the quick three
 * (PCIe each way and both, DRAM read), each recorded with its method, named on the platform line
 * and all of it within a few seconds; a run of copies alone takes none. */
static void test_platform_probes_recorded(void)
{
    if (!need_gpu())
        return;
    const char *dir = rbtest_fresh_dir();
    char path[400], err[200];
    snprintf(path, sizeof path, "%s/out.json", dir);
    int rc = rbtest_run("run --size smoke --samples 3 --expect none --json out.json "
                        "--filter '^(host_transfer|reduction)$'");
    if (rc != 0)
        printf("    -> %d:\n%s", rc, rbtest_output());
    RB_CHECK(rc == 0);
    const char *line = strstr(rbtest_output(), "platform: DRAM copy ");
    const char *open = line ? strstr(line, "us (") : NULL;
    double seconds = open ? atof(open + 4) : NAN;
    printf("    %.*s\n", line ? (int)strcspn(line, "\n") : 0, line ? line : "");
    RB_CHECK(line && strstr(line, "DRAM read ") && strstr(line, "PCIe h2d ") &&
             strstr(line, "PCIe duplex ") && seconds < 8.0);
    json_value *doc = json_parse_file(path, err, sizeof err);
    const json_value *platform = json_get(doc, "platform");
    static const char *const probed[] = {"dram_read_gbps", "pcie_h2d_gbps", "pcie_d2h_gbps",
                                         "pcie_duplex_gbps"};
    for (int i = 0; i < 4; i++) {
        const json_value *x = json_get(platform, probed[i]);
        RB_CHECK(x && x->type == JSON_NUMBER && x->number > 0);
        RB_CHECK(json_get(json_get(platform, "methods"), probed[i]) != NULL);
    }
    RB_CHECK(!json_get(platform, "l2_read_gbps") && !json_get(platform, "dram_write_gbps"));
    json_free(doc);
    rc = rbtest_run("run --size smoke --samples 3 --expect none --json out.json "
                    "--filter '^copy_vectorized$'");
    doc = rc == 0 ? json_parse_file(path, err, sizeof err) : NULL;
    platform = json_get(doc, "platform");
    RB_CHECK(rc == 0 && platform && platform->count == 5 && !json_get(platform, "pcie_h2d_gbps"));
    json_free(doc);
    rbtest_remove_dir();
}

/* check --skip-variants leaves the matched variant out (reported skipped, the check passing)
 * and runs the pair's others: what make sanitize relies on to keep every other kernel checked. */
static void test_check_skips_variants(void)
{
    if (!need_gpu())
        return;
    rbtest_fresh_dir();
    int rc = rbtest_run("check --size smoke --filter '^copy_vectorized$' --skip-variants "
                        "'^copy_vectorized/optimized$'");
    const char *out = rbtest_output();
    if (rc != 0)
        printf("    -> %d:\n%s", rc, out);
    RB_CHECK(rc == 0 && strstr(out, "left out by --skip-variants") && strstr(out, "check passed"));
    RB_CHECK(strstr(out, "baseline") && strstr(out, "library"));
    rbtest_remove_dir();
}

/* `roofbench profile` under the real ncu: every variant of reduction profiled from its window,
 * CUB's library kernels (names no table holds) and the two-kernel optimized variant included.
 * Skipped where ncu is absent or may not read the counters (exit 2, said in one line). */
static void test_profile_windows_every_variant(void)
{
    if (!need_gpu())
        return;
    const char *dir = rbtest_fresh_dir();
    int rc = rbtest_run("profile --filter '^reduction$' --size smoke -o p");
    const char *out = rbtest_output();
    if (rc == 2 && (strstr(out, "no ncu") || strstr(out, "performance counters"))) {
        rbtest_skip("ncu absent or refused the counters");
        rbtest_remove_dir();
        return;
    }
    if (rc != 0)
        printf("    -> %d:\n%s", rc, out);
    RB_CHECK(rc == 0);
    char path[600];
    snprintf(path, sizeof path, "%s/p.json", dir);
    json_value *d = json_parse_file(path, NULL, 0);
    const json_value *vs = json_get(d, "variants");
    RB_CHECK(vs && vs->count == 3 && json_number_at(d, "windows") == 3);
    for (size_t k = 0; vs && k < vs->count; k++) {
        const json_value *pr = json_get(vs->items[k], "profiled");
        RB_CHECK(pr && pr->type == JSON_BOOL && pr->boolean);
    }
    RB_CHECK(vs && vs->count == 3 && json_number_at(vs->items[1], "launches") == 2);
    json_free(d);
    rbtest_remove_dir();
}

/* A pair whose child crashes, hangs or hits an illegal address is reported as failed with the
 * reason, the run goes on to the next pair, and the exit code says the run failed. */
static void fault_case(const char *fault, const char *options, const char *reason)
{
    char args[300];
    snprintf(args, sizeof args,
             "run --size smoke --samples 3 --expect none --json out.json --filter '^copy_' %s",
             options);
    setenv("RB_TEST_FAULT", fault, 1);
    rbtest_fresh_dir();
    int rc = rbtest_run(args);
    unsetenv("RB_TEST_FAULT");
    const char *out = rbtest_output();
    int valid_lines = 0;
    for (const char *s = out; (s = strstr(s, "valid (rel_err")) != NULL; s++)
        valid_lines++;
    if (rc != 1 || !strstr(out, reason) || valid_lines != 3)
        printf("    %s -> %d, %d valid variants:\n%s", fault, rc, valid_lines, out);
    RB_CHECK(rc == 1);
    RB_CHECK(strstr(out, "FAILED") != NULL);
    RB_CHECK(strstr(out, reason) != NULL);
    RB_CHECK(strstr(out, "[2/2] copy_vectorized") != NULL);
    RB_CHECK(valid_lines == 3); /* the next pair's three variants still ran */
    RB_CHECK(strstr(out, "results: out.json") != NULL);
    rbtest_remove_dir();
}

static void test_crashing_pair_is_reported_and_run_continues(void)
{
    if (need_gpu())
        fault_case("copy_coalescing:segv", "", "crashed: Segmentation fault");
}

static void test_hanging_pair_is_killed_by_watchdog(void)
{
    if (need_gpu())
        fault_case("copy_coalescing:hang", "--timeout 8", "timed out after 8 s");
}

static void test_illegal_address_is_reported(void)
{
    if (need_gpu())
        fault_case("copy_coalescing:illegal_address", "", "illegal memory access");
}


/* An expectation file recorded on another GPU model is refused after the probe, naming both
 * devices, with nothing written; --expect-any-device uses it. */
static void test_expectation_of_another_gpu_refused(void)
{
    if (!need_gpu())
        return;
    const char *dir = rbtest_fresh_dir();
    char path[400];
    snprintf(path, sizeof path, "%s/e.json", dir);
    FILE *f = fopen(path, "w");
    RB_CHECK(f != NULL);
    if (!f)
        return;
    fputs("{\"schema\": 1, \"hardware\": {\"name\": \"NVIDIA Imaginary GPU\"}, \"peaks\": {},"
          " \"ceilings\": {}, \"pairs\": {}}\n",
          f);
    fclose(f);
    int rc = rbtest_run("run --size smoke --samples 3 --filter '^copy_vectorized$' "
                        "--expect e.json --json out.json");
    const char *out = rbtest_output();
    if (rc != 2)
        printf("    -> %d:\n%s", rc, out);
    RB_CHECK(rc == 2);
    RB_CHECK(strstr(out, "e.json: recorded on NVIDIA Imaginary GPU, but this GPU is") != NULL);
    snprintf(path, sizeof path, "%s/out.json", dir);
    FILE *written = fopen(path, "r");
    RB_CHECK(written == NULL);
    if (written)
        fclose(written);
    rc = rbtest_run("run --size smoke --samples 3 --filter '^copy_vectorized$' "
                    "--expect e.json --expect-any-device --json out.json");
    if (rc != 0)
        printf("    -> %d:\n%s", rc, rbtest_output());
    RB_CHECK(rc == 0);
    rbtest_remove_dir();
}

/* On one GPU NCCL's in-place collectives move nothing: that variant is skipped with the reason,
 * the pair's other variants still run and validate, and the check passes. */
static int in_registry(const char *name)
{
    for (int i = 0; rb_registry[i]; i++)
        if (!strcmp(rb_registry[i]->name, name))
            return 1;
    return 0;
}

static void test_nccl_in_place_skipped_on_one_gpu(void)
{
    if (!need_gpu())
        return;
    int have_nccl = in_registry("nccl_allreduce");
    if (!have_nccl || rbtest_gpu_count() != 1) {
        rbtest_skip(have_nccl ? "more than one GPU" : "nccl_allreduce is not in this build");
        return;
    }
    rbtest_fresh_dir();
    int rc = rbtest_run("run --size smoke --samples 3 --expect none --json out.json "
                        "--filter '^nccl_allreduce$'");
    const char *out = rbtest_output();
    int skips = 0, valid = 0;
    for (const char *s = out; (s = strstr(s, "nccl_in_place: skipped on this machine")) != NULL;
         s++)
        skips++;
    for (const char *s = out; (s = strstr(s, "valid (rel_err")) != NULL; s++)
        valid++;
    if (rc != 0 || skips != 3 || valid != 6)
        printf("    -> %d, %d skipped, %d valid:\n%s", rc, skips, valid, out);
    RB_CHECK(rc == 0);
    RB_CHECK(skips == 3); /* one per collective, in the notes under the table */
    RB_CHECK(valid == 6); /* ring and nccl_out_of_place of each collective */
    RB_CHECK(strstr(out, "GB/s") != NULL);
    /* an expected skip is one line with its reason: no error trace, no "failed" */
    RB_CHECK(strstr(out, "): failed") == NULL && strstr(out, "nccl_allreduce.c:") == NULL);
    rbtest_remove_dir();
}

/* The P2P matrix on this machine: every ordered pair a cell with its three measurements, each
 * positive and physically possible (one way under the datasheet's 450 GB/s NVLink 4 plus the
 * 2% margin, latency under 100 us); a weak link, if any, is exit 1 and said; one GPU has no
 * pairs, exit 0. */
static void test_p2p_matrix_every_pair(void)
{
    if (!need_gpu())
        return;
    const char *dir = rbtest_fresh_dir();
    char path[400], err[200];
    snprintf(path, sizeof path, "%s/m.json", dir);
    int rc = rbtest_run("p2p --expect none --json m.json");
    const char *out = rbtest_output();
    int n = rbtest_gpu_count();
    if (!(rc == 0 || (rc == 1 && n > 1 && strstr(out, "<- weak"))))
        printf("    -> %d:\n%s", rc, out);
    RB_CHECK(rc == 0 || (rc == 1 && n > 1 && strstr(out, "<- weak")));
    json_value *doc = json_parse_file(path, err, sizeof err);
    const json_value *m = doc ? json_get(doc, "p2p_matrix") : NULL;
    const json_value *cells = json_get(m, "cells");
    RB_CHECK(cells && cells->type == JSON_ARRAY && (int)cells->count == n * (n - 1));
    RB_CHECK(n > 1 || strstr(out, "one GPU: no pairs to measure"));
    for (uint32_t i = 0; cells && i < cells->count; i++) {
        const json_value *c = cells->items[i];
        double one = json_number_at(json_get(c, "oneway"), "gbps");
        double both = json_number_at(json_get(c, "bidir"), "gbps");
        double us = json_number_at(json_get(c, "latency"), "us");
        double load_us = json_number_at(json_get(c, "load_latency"), "us");
        RB_CHECK(!json_true_at(c, "peer_access") || (load_us > 0 && load_us < 100));
        if (!(one > 0 && one < 459 && both > 0 && both < 2 * 459 && us > 0 && us < 100))
            printf("    %g -> %g: %g GB/s, %g GB/s both ways, %g us\n",
                   json_number_at(c, "src"), json_number_at(c, "dst"), one, both, us);
        RB_CHECK(one > 0 && one < 459 && both > 0 && both < 2 * 459 && us > 0 && us < 100);
    }
    json_free(doc);
    rbtest_remove_dir();
}

/* nccl_allreduce's ring (and NCCL beside it) valid at counts that divide by nothing: 1000003
 * fp32 elements (odd, prime: segments and slices of unequal lengths on any GPU count) and 3 (fewer
 * elements than GPUs on 4 or more: empty segments). The ring's planted defect (its undrained last
 * slice) is in planted_defects_fail_their_check. */
static void test_nccl_ring_valid_at_odd_counts(void)
{
    if (!need_gpu())
        return;
    if (!in_registry("nccl_allreduce")) {
        rbtest_skip("nccl_allreduce is not in this build");
        return;
    }
    check_pairs("4000012", "^nccl_allreduce$");
    check_pairs("12", "^nccl_allreduce$");
}

/* A run() that spends slow_queue_ms of host work before it queues one small kernel: what a run
 * of a fork, 20 groups of NCCL launches on several GPUs and a join is, magnified. */
static double slow_queue_ms = 2.0;
static rb_status slow_queue_run(void *buf, cudaStream_t s)
{
    for (double t0 = rb_now_s(); rb_now_s() - t0 < slow_queue_ms * 1e-3;)
        ;
    return rb_flush_l2(buf, 1u << 20, s) == cudaSuccess ? RB_OK : RB_ERR_CUDA;
}

/* Behind the latch (rb_measure_opts.latch) a sample's clock starts when the GPU runs its first
 * launch, not while the host is still queuing it: the 2 ms of queuing above is in every sample
 * without the latch (the defect it removes) and in none with it. One launch a sample (cold). */
static void test_latch_leaves_the_hosts_queuing_untimed(void)
{
    if (!need_gpu())
        return;
    void *buf = NULL, *flush = NULL;
    int *late = NULL;
    volatile int *latch = NULL;
    cudaStream_t s = NULL;
    int ok = cudaMalloc(&buf, 1u << 20) == cudaSuccess &&
             cudaMemset(buf, 0, 1u << 20) == cudaSuccess &&
             cudaMalloc(&flush, 2u << 20) == cudaSuccess &&
             cudaMemset(flush, 0, 2u << 20) == cudaSuccess &&
             cudaMalloc((void **)&late, sizeof *late) == cudaSuccess &&
             cudaHostAlloc((void **)&latch, sizeof *latch, cudaHostAllocMapped) == cudaSuccess &&
             cudaStreamCreate(&s) == cudaSuccess;
    RB_CHECK(ok);
    rb_measure_opts o = {.samples = 20, .cap_s = 5, .noise_target = 0.01, .sample_ms = 1.0,
                         .cold = 1, .flush_buf = flush, .flush_bytes = 2u << 20};
    rb_stats plain = {0}, latched = {0};
    double lps = 0;
    RB_CHECK(ok && rb_measure(slow_queue_run, buf, s, &o, &plain, &lps, NULL) == RB_OK);
    o.latch = latch;
    o.latch_late = late;
    RB_CHECK(ok && rb_measure(slow_queue_run, buf, s, &o, &latched, &lps, NULL) == RB_OK);
    if (!(plain.median > 1.5 && latched.median < 0.5))
        printf("    -> %.3f ms a launch without the latch, %.3f ms with it\n", plain.median,
               latched.median);
    RB_CHECK(plain.median > 1.5);
    RB_CHECK(latched.median < 0.5);
    /* A run() whose queuing outlasts the latch (RB_MEASURE_LATCH_NS, 50 ms): timed without it,
     * with the host's time in, and said so; the measurement does not fail. */
    slow_queue_ms = 80.0;
    int dropped = 0;
    rb_stats held = {0};
    o.samples = 3;
    o.latch_dropped = &dropped;
    RB_CHECK(ok && rb_measure(slow_queue_run, buf, s, &o, &held, &lps, NULL) == RB_OK);
    RB_CHECK(dropped == 1);
    RB_CHECK(held.median > 60.0);
    slow_queue_ms = 2.0;
    cudaStreamDestroy(s);
    cudaFreeHost((void *)latch);
    cudaFree(late);
    cudaFree(flush);
    cudaFree(buf);
}

/* NVML's energy counter read around each row's timed samples: a row of >= 100 ms of samples
 * records joules per launch, its mean power and GB/J; a row of 3 samples is too short (null,
 * "short"); without NVML's counter every row is null and the run says so once. */
static void test_energy_recorded_per_row(void)
{
    if (!need_gpu())
        return;
    const char *dir = rbtest_fresh_dir();
    char path[400], err[200];
    snprintf(path, sizeof path, "%s/out.json", dir);
    int rc = rbtest_run("run --size smoke --expect none --no-ceilings --json out.json "
                        "--filter '^copy_vectorized$'");
    RB_CHECK(rc == 0);
    json_value *doc = json_parse_file(path, err, sizeof err);
    const json_value *env = json_get(json_get(doc, "environment"), "start");
    int nvml = doc && !json_get(json_get(env, "nvml"), "unavailable");
    const json_value *vs = json_get(json_get(doc, "pairs")->items[0], "variants");
    int measured = 0;
    for (size_t k = 0; vs && k < vs->count; k++) {
        const json_value *e = json_get(vs->items[k], "energy");
        RB_CHECK(e != NULL);
        if (e && e->type == JSON_OBJECT) {
            double w = json_number_at(e, "mean_power_w");
            measured++;
            printf("    %s: %.4g J/launch, %.0f W, %.3g GB/J\n",
                   json_string_at(vs->items[k], "name", "?"),
                   json_number_at(e, "joules_per_launch"), w, json_number_at(e, "gb_per_j"));
            /* read on the counter's edges: between the idle power and the board's limit */
            double limit_w = json_number_at(env, "power_limit_w");
            double idle_w = json_number_at(json_get(env, "energy_counter"), "idle_w");
            RB_CHECK(json_number_at(e, "window_s") >= 0.1 && w > 10 && w < 5000 &&
                     json_number_at(e, "gb_per_j") > 0 &&
                     json_number_at(e, "uncertainty") <= RB_ENERGY_MAX_UNCERTAINTY);
            RB_CHECK(!(w > limit_w) && !(w < 0.9 * idle_w));
        } else {
            printf("    %s: energy null (%s)\n", json_string_at(vs->items[k], "name", "?"),
                   json_string_at(vs->items[k], "energy_why", "?"));
        }
    }
    if (!nvml)
        RB_CHECK(measured == 0 && strstr(rbtest_output(), "energy: not measured"));
    else /* the probe's update period, recorded with the environment */
        RB_CHECK(json_get(env, "energy_counter") != NULL);
    json_free(doc);
    rc = rbtest_run("run --size smoke --samples 3 --expect none --no-ceilings --json out.json "
                    "--filter '^copy_vectorized$'");
    doc = json_parse_file(path, err, sizeof err);
    vs = json_get(json_get(doc, "pairs")->items[0], "variants");
    for (size_t k = 0; nvml && vs && k < vs->count; k++)
        RB_CHECK(json_get(vs->items[k], "energy")->type == JSON_NULL &&
                 !strcmp(json_string_at(vs->items[k], "energy_why", ""), "short"));
    json_free(doc);
    rbtest_remove_dir();
}

/* A planted co-runner (RB_TEST_GPU_PROCESSES stands for NVML's process list) makes every row
 * contended, the run exit 1 naming it, --update-expectations write nothing, and compare of a
 * clean run against it blame the shared GPU, not the code. */
static void test_planted_co_runner_makes_the_run_contended(void)
{
    if (!need_gpu())
        return;
    const char *dir = rbtest_fresh_dir();
    char path[400], err[200];
    snprintf(path, sizeof path, "%s/contended.json", dir);
    int rc = rbtest_run("run --size smoke --samples 20 --expect none --no-ceilings --json "
                        "clean.json --filter '^copy_vectorized$'");
    RB_CHECK(rc == 0);
    setenv("RB_TEST_GPU_PROCESSES", "self:roofbench:1073741824,4242:python3:2147483648", 1);
    rc = rbtest_run("run --size smoke --samples 20 --expect none --no-ceilings --json "
                    "contended.json --filter '^copy_vectorized$'");
    const char *out = rbtest_output();
    json_value *doc = json_parse_file(path, err, sizeof err);
    if (doc && !json_get(json_get(json_get(json_get(doc, "environment"), "start"), "nvml"),
                         "unavailable")) {
        RB_CHECK(rc == 1 && strstr(out, "exit 1: contended: pid 4242 (python3, 2.0 GiB)"));
        RB_CHECK(json_true_at(json_get(doc, "contention"), "contended"));
        const json_value *vs = json_get(json_get(doc, "pairs")->items[0], "variants");
        for (size_t k = 0; vs && k < vs->count; k++)
            RB_CHECK(!strcmp(json_string_at(vs->items[k], "verdict", ""), "contended") &&
                     json_true_at(vs->items[k], "contended"));
        rc = rbtest_run("run --size smoke --samples 20 --no-ceilings --expect e.json "
                        "--update-expectations --json again.json --filter '^copy_vectorized$'");
        char e[400];
        snprintf(e, sizeof e, "%s/e.json", dir);
        FILE *f = fopen(e, "r");
        RB_CHECK(rc == 1 && !f && strstr(rbtest_output(), "not recording expectations"));
        if (f)
            fclose(f);
        unsetenv("RB_TEST_GPU_PROCESSES");
        rc = rbtest_run("compare clean.json contended.json --expect none");
        /* slower rows are contended, and a same row says nothing: exit 1 only for a slower one */
        RB_CHECK(!strstr(rbtest_output(), "unexplained") &&
                 strstr(rbtest_output(), "contention.contended"));
    } else {
        printf("    no NVML here: the co-runner cannot be seen (contention not checked)\n");
        RB_CHECK(rc == 0 && strstr(out, "contention: not checked"));
    }
    unsetenv("RB_TEST_GPU_PROCESSES");
    json_free(doc);
    rbtest_remove_dir();
}

static const rbtest_case gpu_cases[] = {
    {"fill_matches_cpu_bit_for_bit", test_fill_matches_cpu_bit_for_bit},
    {"device_relerr_matches_cpu", test_device_relerr_matches_cpu},
    {"device_row_relerr_matches_cpu", test_device_row_relerr_matches_cpu},
    {"poison_alone_fails_every_check", test_poison_alone_fails_every_check},
    {"planted_nan_caught_and_persisting_l2_reset", test_planted_nan_caught_and_persisting_l2_reset},
    {"planted_defects_fail_their_check", test_planted_defects_fail_their_check},
    {"every_variant_valid_at_smoke_size", test_every_variant_valid_at_smoke_size},
    {"every_variant_valid_at_odd_size", test_every_variant_valid_at_odd_size},
    {"every_variant_valid_at_odd_shape", test_every_variant_valid_at_odd_shape},
    {"memory_pairs_valid_at_aligned_partial_shape",
     test_memory_pairs_valid_at_aligned_partial_shape},
    {"no_expectation_file_all_new_exit_0", test_no_expectation_file_all_new_exit_0},
    {"interleaved_pair_times_every_variant", test_interleaved_pair_times_every_variant},
    {"adaptive_loop_stops_on_the_median_interval", test_adaptive_loop_stops_on_the_median_interval},
    {"crashing_pair_is_reported_and_run_continues",
     test_crashing_pair_is_reported_and_run_continues},
    {"hanging_pair_is_killed_by_watchdog", test_hanging_pair_is_killed_by_watchdog},
    {"illegal_address_is_reported", test_illegal_address_is_reported},
    {"expectation_of_another_gpu_refused", test_expectation_of_another_gpu_refused},
    {"nccl_in_place_skipped_on_one_gpu", test_nccl_in_place_skipped_on_one_gpu},
    {"nccl_ring_valid_at_odd_counts", test_nccl_ring_valid_at_odd_counts},
    {"platform_and_clocks_recorded", test_platform_and_clocks_recorded},
    {"platform_probes_recorded", test_platform_probes_recorded},
    {"check_skips_variants", test_check_skips_variants},
    {"profile_windows_every_variant", test_profile_windows_every_variant},
    {"p2p_matrix_every_pair", test_p2p_matrix_every_pair},
    {"latch_leaves_the_hosts_queuing_untimed", test_latch_leaves_the_hosts_queuing_untimed},
    {"energy_recorded_per_row", test_energy_recorded_per_row},
    {"planted_co_runner_makes_the_run_contended", test_planted_co_runner_makes_the_run_contended},
};

RB_SUITE(gpu_suite, "gpu", gpu_cases);
