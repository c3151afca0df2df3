/* SPDX-License-Identifier: MIT */
/* reduction: the harness's view of kernels/reduction.cu (read that file first). */
#include <math.h>
#include <stdlib.h>

#include "model/compare.h"
#include "model/random.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/reduction.h"

/* The GPU reference is exact (an integer sum); the CPU one too: they must agree to the last
 * bit, and 1e-12 leaves room only for a wrong conversion, not for a wrong sum. */
#define REDUCTION_CROSSCHECK_TOL 1e-12

/* Every variant's tolerance. Error model: n - 1 fp32 adds of positive values in (0.25, 1.25]
 * in a tree (baseline: pairwise within blocks of 256, then again over the partials; optimized:
 * 4 accumulators per thread, warp shuffles, a fixed-order finish kernel; CUB: its own tree).
 * The worst-case bound is depth x 2^-24 (1.7e-6 to 2.3e-6, docs/notes/reduction.md), but
 * rounding errors are random and shrink with the partial sums they act on, so only the top few
 * adds and the final rounding of the result to fp32 (at most 2^-24 = 6.0e-8 relative) count.
 * Measured: H100 full size n = 2^28 (docs/notes/reduction.md) 4.89e-8 baseline and optimized,
 * 3.06e-8 CUB. A host replay of the baseline's and the optimized
 * kernel's exact fp32 order (scratch program, reproducing both 4.89e-8 to 3 digits) gives
 * 2.11e-8 for both at the odd size 1000003 (seed 5) and 3.2e-9 to 6.1e-8 at 2^20. 2e-7 is 3.3x
 * the largest (6.1e-8, about one final rounding). A kernel that skips one input (>= 0.25 of a
 * sum of ~0.75 n) is off by >= 3.3e-7 at n = 1000003, only 1.7x the tolerance: a single
 * element is about the smallest defect a scalar fp32 result can show at that size. The
 * planted defects skip 3 and 67 elements (below). */
#define REDUCTION_TOLERANCE 2e-7

typedef struct reduction_ctx {
    size_t n;
    float *in, *out;
    float *baseline_scratch, *partials;
    void *cub_temp;
    size_t cub_temp_bytes;
    unsigned long long *ref_acc; /* device: the reference kernel's sum and out-of-range count */
    double ref;                  /* the exact sum, rounded once to double */
} reduction_ctx;

/* The host twin of reduction_map_input_kernel: u in (-1, 1) -> (0.25, 1.25]. 0.5f * u is
 * exact, so there is one rounding, the same on both sides. */
static float reduction_map(float u)
{
    return 0.5f * u + 0.75f;
}

/* Adds x * 2^25 to *units; exact for x in [0.25, 2) (see the .cu header). -1 outside it. */
static int reduction_fixed_add(uint64_t *units, float x)
{
    if (!(x >= 0.25f && x < 2.0f))
        return -1;
    *units += (uint64_t)(x * 33554432.0f);
    return 0;
}

/* The exact sum of x[0..n) rounded once to double; NaN when a value lies outside [0.25, 2),
 * where x * 2^25 is not an exact integer. n < 2^38 keeps the 64-bit sum from overflowing. */
static double reduction_exact_sum(const float *x, size_t n)
{
    uint64_t units = 0;
    for (size_t i = 0; i < n; i++)
        if (reduction_fixed_add(&units, x[i]) != 0)
            return NAN;
    return ldexp((double)units, -25);
}

/* The CPU reference: the same exact sum over the generated input, element by element. */
static double reduction_cpu_reference(uint64_t seed, size_t n)
{
    uint64_t units = 0;
    for (size_t i = 0; i < n; i++)
        if (reduction_fixed_add(&units, reduction_map(rb_uniform_f32(seed, i))) != 0)
            return NAN;
    return ldexp((double)units, -25);
}

/* |a - b| / |b|, NaN when either is NaN (and Inf when b is 0 but a is not). */
static double reduction_relerr(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (b == 0.0)
        return a == 0.0 ? 0.0 : INFINITY;
    return fabs(a - b) / fabs(b);
}

static rb_status reduction_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    size_t n = size->n, baseline_floats = 0, partial_floats = 0;
    reduction_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->n = n;
    /* Sums stay exact below 2^38 elements (2^26 units each, 64-bit sum); far beyond memory. */
    if (n == 0 || n >= ((size_t)1 << 38)) {
        rb_error_at(__FILE__, __LINE__, "reduction_setup", "n must be in [1, 2^38)");
        return RB_ERR_INPUT;
    }
    RB_CUDA(reduction_baseline_scratch(n, &baseline_floats));
    RB_CUDA(reduction_optimized_scratch(n, &partial_floats));
    RB_CUDA(reduction_library_temp_bytes(n, &c->cub_temp_bytes));
    RB_CUDA(cudaMalloc((void **)&c->in, n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->out, sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->baseline_scratch,
                       (baseline_floats ? baseline_floats : 1) * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->partials, partial_floats * sizeof(float)));
    RB_CUDA(cudaMalloc(&c->cub_temp, c->cub_temp_bytes ? c->cub_temp_bytes : 1));
    RB_CUDA(cudaMalloc((void **)&c->ref_acc, 2 * sizeof(unsigned long long)));

    RB_CUDA(rb_fill_uniform_f32(c->in, n, seed, 0));
    RB_CUDA(reduction_map_input(c->in, n, 0));
    RB_CUDA(reduction_reference(c->in, n, c->ref_acc, 0));
    unsigned long long acc[2];
    RB_CUDA(cudaMemcpy(acc, c->ref_acc, sizeof acc, cudaMemcpyDeviceToHost));
    if (acc[1] != 0) {
        rb_error_at(__FILE__, __LINE__, "reduction_reference", "input outside [0.25, 2)");
        return RB_ERR_INPUT;
    }
    c->ref = ldexp((double)acc[0], -25);

    if (n <= RB_CPU_REFERENCE_MAX) {
        double cpu = reduction_cpu_reference(seed, n), err = reduction_relerr(c->ref, cpu);
        if (!rb_within_tolerance(err, REDUCTION_CROSSCHECK_TOL)) {
            char msg[200];
            rb_fmt(msg, sizeof msg,
                   "reduction: GPU reference %.17g disagrees with the CPU's %.17g (rel_err %.3g)",
                   c->ref, cpu, err);
            rb_error_at(__FILE__, __LINE__, "reduction_setup", msg);
            return RB_ERR_INPUT;
        }
    }
    return RB_OK;
}

static void reduction_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    reduction_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = sizeof(float);
}

static rb_status reduction_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    reduction_ctx *c = ctx;
    (void)variant;
    float out;
    RB_CUDA(cudaMemcpyAsync(&out, c->out, sizeof out, cudaMemcpyDeviceToHost, stream));
    RB_CUDA(cudaStreamSynchronize(stream));
    *rel_err = reduction_relerr((double)out, c->ref);
    return RB_OK;
}

static void reduction_teardown(void *ctx)
{
    reduction_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->in);
    cudaFree(c->out);
    cudaFree(c->baseline_scratch);
    cudaFree(c->partials);
    cudaFree(c->cub_temp);
    cudaFree(c->ref_acc);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    reduction_ctx *c = ctx;
    RB_CUDA(reduction_baseline(c->in, c->n, c->out, c->baseline_scratch, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    reduction_ctx *c = ctx;
    RB_CUDA(reduction_optimized(c->in, c->n, c->out, c->partials, stream));
    return RB_OK;
}

static rb_status run_library(void *ctx, cudaStream_t stream)
{
    reduction_ctx *c = ctx;
    RB_CUDA(reduction_library(c->in, c->n, c->out, c->cub_temp, c->cub_temp_bytes, stream));
    return RB_OK;
}

/* Planted defects (tests/test_gpu.c, at n = 1000003 with seed 5; the errors were computed on the
 * host from the same seeded input, whose exact sum is 750016.83). */

/* The float4 kernel called with n rounded down to its vector width: the n % 4 = 3 floats after
 * the last whole float4 are never added. They sum to 2.1486, so the result is low by 2.86e-6
 * relative: 14x the 2e-7 tolerance (the old 1e-5 passed it). */
static rb_status run_dropped_vector_tail(void *ctx, cudaStream_t stream)
{
    reduction_ctx *c = ctx;
    RB_CUDA(reduction_optimized(c->in, c->n & ~(size_t)3, c->out, c->partials, stream));
    return RB_OK;
}

/* The baseline's grid rounded down (n / 256 blocks instead of ceil(n / 256)): the last
 * n % 256 = 67 floats are never loaded. They sum to 49.153: 6.55e-5 relative, 330x the 2e-7
 * tolerance. */
static rb_status run_grid_rounded_down(void *ctx, cudaStream_t stream)
{
    reduction_ctx *c = ctx;
    RB_CUDA(reduction_baseline(c->in, c->n - c->n % 256, c->out, c->baseline_scratch, stream));
    return RB_OK;
}

/* One add per element; 4n bytes read, one float written. */
static double reduction_flops(const rb_size *size)
{
    return (double)size->n;
}

static double reduction_bytes(const rb_size *size)
{
    return 4.0 * (double)size->n + 4.0;
}

static int reduction_selftest(char *why, size_t why_size)
{
    /* Hand-computed: 0.25 + 0.5 + 1 + 1.25 + (0.25 + 2^-25) = 3.25 + 2^-25 = 3.25000002980232...
     * A float accumulator would lose the 2^-25 (an ulp of 3.25 is 2^-22). */
    const float x[5] = {0.25f, 0.5f, 1.0f, 1.25f, 0.25f + 0x1p-25f};
    const double want = 3.25 + 0x1p-25;
    double got = reduction_exact_sum(x, 5);
    if (got != want) {
        rb_fmt(why, why_size, "exact sum of a 5-element case: %.17g, want %.17g", got, want);
        return -1;
    }
    /* Outside the exact range the reference refuses (NaN), it does not guess. */
    const float bad[2] = {1.0f, 0.125f};
    if (!isnan(reduction_exact_sum(bad, 2))) {
        rb_fmt(why, why_size, "exact sum accepted a value below 0.25");
        return -1;
    }
    /* The input map: 0.5 -> 1, -0.5 -> 0.5, the smallest u = -1 + 2^-24 -> 0.25 + 2^-25
     * (exact), the largest 1 - 2^-24 -> 1.25 - 2^-25, which rounds to 1.25 (an ulp of [1, 2) is
     * 2^-23); never outside (0.25, 1.25]. */
    if (reduction_map(0.5f) != 1.0f || reduction_map(-0.5f) != 0.5f ||
        reduction_map(-1.0f + 0x1p-24f) != 0.25f + 0x1p-25f ||
        reduction_map(1.0f - 0x1p-24f) != 1.25f) {
        rb_fmt(why, why_size, "input map wrong on hand-computed values");
        return -1;
    }
    for (uint64_t i = 0; i < 1000; i++) {
        float v = reduction_map(rb_uniform_f32(3, i));
        if (!(v > 0.25f && v <= 1.25f)) {
            rb_fmt(why, why_size, "input %llu = %g outside (0.25, 1.25]", (unsigned long long)i,
                   (double)v);
            return -1;
        }
    }
    /* The scalar check: NaN propagates, exact is 0. */
    if (!isnan(reduction_relerr(NAN, 1.0)) || reduction_relerr(2.0, 2.0) != 0.0 ||
        reduction_relerr(1.5, 1.0) != 0.5) {
        rb_fmt(why, why_size, "scalar relative error wrong");
        return -1;
    }
    rb_size five = {5, 1, 5};
    if (reduction_bytes(&five) != 24.0 || reduction_flops(&five) != 5.0) {
        rb_fmt(why, why_size, "work model wrong on n = 5: %g bytes, %g flops",
               reduction_bytes(&five), reduction_flops(&five));
        return -1;
    }
    return 0;
}

const rb_pair rb_pair_reduction = {
    .name = "reduction",
    .pattern = "sum of n floats: interleaved shared-memory tree vs float4 loads + warp shuffles",
    .size_unit = "fp32 elements",
    .smoke_size = 1u << 20,
    .full_size = 1u << 28,
    .flops = reduction_flops,
    .bytes = reduction_bytes,
    .setup = reduction_setup,
    .output = reduction_output,
    .check = reduction_check,
    .teardown = reduction_teardown,
    .selftest = reduction_selftest,
    .codegen =
        {
            {"reduction_optimized_kernel", "LDG.E.EF.128"},
            {"reduction_optimized_kernel", "SHFL.DOWN"},
        },
    .kernels = reduction_kernels,
    .n_variants = 3,
    .variants =
        {
            /* REDUCTION_TOLERANCE (above): the measured error is the final rounding to fp32. */
            /* Roof: a read-only stream (4n read, 4 bytes written), so the read-only DRAM roof;
             * the copy roof (half writes) understates what a pure read can reach. */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, REDUCTION_TOLERANCE, run_baseline,
             .roof = "dram_read_gbps"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, REDUCTION_TOLERANCE, run_optimized,
             .roof = "dram_read_gbps"},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_FP32, REDUCTION_TOLERANCE, run_library,
             .roof = "dram_read_gbps"},
        },
    .defects =
        {
            {"dropped_vector_tail", 1, run_dropped_vector_tail, 0},
            {"grid_rounded_down", 0, run_grid_rounded_down, 0},
        },
};
