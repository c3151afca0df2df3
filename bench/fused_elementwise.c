/* SPDX-License-Identifier: MIT */
/* fused_elementwise: the harness's view of kernels/fused_elementwise.cu (read that file first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/fused_elementwise.h"

#define FE_DEFAULT_COLS 4096 /* a transformer hidden size */
#define FE_MAX_COLS (1ull << 31)

/* Device buffers. bf16 buffers hold raw bits (uint16_t). */
typedef struct fe_ctx {
    uint16_t *x, *residual, *bias, *y;
    uint16_t *t1, *t2; /* the baseline's intermediates (n each) */
    float *ref;        /* n: the fp32 staging buffer of the fills, then the reference */
    size_t n, cols;
} fe_ctx;

static int fe_shape(rb_size *s, char *why, size_t why_size)
{
    if (s->rows == 0) {
        if (s->n == 0) {
            rb_fmt(why, why_size, "needs at least one element");
            return -1;
        }
        s->cols = s->n < FE_DEFAULT_COLS ? s->n : FE_DEFAULT_COLS;
        s->rows = s->n / s->cols;
        s->n = s->rows * s->cols;
        return 0;
    }
    if (s->cols == 0 || s->cols > FE_MAX_COLS) {
        rb_fmt(why, why_size, "cols must be 1 .. 2^31");
        return -1;
    }
    return 0;
}

/* 6 fp32 operations per element as the formula is written; erf not counted (see the .cu). */
static double fe_flops(const rb_size *size)
{
    return 6.0 * (double)size->n;
}

/* x, residual and y once each (2 bytes an element) and the bias row once. */
static double fe_bytes(const rb_size *size)
{
    return 6.0 * (double)size->n + 2.0 * (double)size->cols;
}

static float fe_bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The CPU reference: fp64 from the bf16 inputs, gelu with erf from <math.h>. */
static void fe_cpu_reference(const uint16_t *x, const uint16_t *bias, const uint16_t *residual,
                             size_t n, size_t cols, float *out)
{
    for (size_t i = 0; i < n; i++) {
        double v = (double)fe_bf16_to_float(x[i]) + (double)fe_bf16_to_float(bias[i % cols]);
        double g = 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
        out[i] = (float)(g + (double)fe_bf16_to_float(residual[i]));
    }
}

/* Reads the bf16 inputs back and pins the GPU reference to the CPU one. */
static rb_status fe_crosscheck(const fe_ctx *c)
{
    size_t n = c->n, cols = c->cols;
    uint16_t *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r), *b = malloc(cols * sizeof *b);
    float *ref = malloc(n * sizeof *ref);
    rb_status st = RB_ERR_ALLOC;
    if (x && r && b && ref) {
        st = RB_OK;
        if (cudaMemcpy(x, c->x, n * sizeof *x, cudaMemcpyDeviceToHost) != cudaSuccess ||
            cudaMemcpy(r, c->residual, n * sizeof *r, cudaMemcpyDeviceToHost) != cudaSuccess ||
            cudaMemcpy(b, c->bias, cols * sizeof *b, cudaMemcpyDeviceToHost) != cudaSuccess) {
            rb_error_at(__FILE__, __LINE__, "cudaMemcpy", "reading the inputs back failed");
            st = RB_ERR_CUDA;
        }
    }
    if (st == RB_OK) {
        fe_cpu_reference(x, b, r, n, cols, ref);
        st = rb_crosscheck_reference("fused_elementwise", c->ref, ref, n, 1e-6);
    }
    free(x);
    free(r);
    free(b);
    free(ref);
    return st;
}

static rb_status fe_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    fe_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    size_t n = size->n, cols = size->cols;
    c->n = n;
    c->cols = cols;
    RB_CUDA(cudaMalloc((void **)&c->x, n * sizeof(uint16_t)));
    RB_CUDA(cudaMalloc((void **)&c->residual, n * sizeof(uint16_t)));
    RB_CUDA(cudaMalloc((void **)&c->y, n * sizeof(uint16_t)));
    RB_CUDA(cudaMalloc((void **)&c->t1, n * sizeof(uint16_t)));
    RB_CUDA(cudaMalloc((void **)&c->t2, n * sizeof(uint16_t)));
    RB_CUDA(cudaMalloc((void **)&c->bias, cols * sizeof(uint16_t)));
    RB_CUDA(cudaMalloc((void **)&c->ref, n * sizeof(float)));
    /* x in (-3, 3), so GELU is well into its nonlinear range; residual and bias in (-1, 1). The
     * fp32 fills go through ref, which the reference overwrites last. */
    RB_CUDA(rb_fill_uniform_f32(c->ref, n, seed, 0));
    RB_CUDA(fused_elementwise_to_bf16(c->ref, 3.0f, c->x, n, 0));
    RB_CUDA(rb_fill_uniform_f32(c->ref, n, seed + 1, 0));
    RB_CUDA(fused_elementwise_to_bf16(c->ref, 1.0f, c->residual, n, 0));
    RB_CUDA(rb_fill_uniform_f32(c->ref, cols, seed + 2, 0));
    RB_CUDA(fused_elementwise_to_bf16(c->ref, 1.0f, c->bias, cols, 0));
    RB_CUDA(fused_elementwise_reference(c->x, c->bias, c->residual, c->ref, n, cols, 0));
    RB_CUDA(cudaDeviceSynchronize());
    if (n <= RB_CPU_REFERENCE_MAX)
        RB_TRY(fe_crosscheck(c));
    return RB_OK;
}

static void fe_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    fe_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->y;
    *bytes = c->n * sizeof(uint16_t);
}

static rb_status fe_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    fe_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_bf16_device(c->y, c->ref, c->n, stream, rel_err));
    return RB_OK;
}

static void fe_teardown(void *ctx)
{
    fe_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->x);
    cudaFree(c->residual);
    cudaFree(c->y);
    cudaFree(c->t1);
    cudaFree(c->t2);
    cudaFree(c->bias);
    cudaFree(c->ref);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    fe_ctx *c = ctx;
    RB_CUDA(fused_elementwise_baseline(c->x, c->bias, c->residual, c->t1, c->t2, c->y, c->n,
                                       c->cols, stream));
    return RB_OK;
}

/* Planted defect: the bias add is lost (the fused kernel reads a zero bias, as a kernel that
 * skipped the broadcast term would compute). The baseline's intermediate t1 serves as the zero
 * row; bias values are uniform in (-1, 1), so gelu(x) + r is off by ~0.3 normwise (the error
 * model beside the tolerances), ~100 times the tolerance. */
static rb_status fused_elementwise_defect_no_bias(void *ctx, cudaStream_t stream)
{
    fe_ctx *c = ctx;
    RB_CUDA(cudaMemsetAsync(c->t1, 0, c->cols * sizeof(uint16_t), stream));
    RB_CUDA(fused_elementwise_optimized(c->x, c->t1, c->residual, c->y, c->n, c->cols, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    fe_ctx *c = ctx;
    RB_CUDA(fused_elementwise_optimized(c->x, c->bias, c->residual, c->y, c->n, c->cols, stream));
    return RB_OK;
}

/* gelu(v) = v * Phi(v): Phi(1) = 0.8413447460685429, Phi(-1) = 0.15865525393145707,
 * Phi(2) = 0.9772498680518208 (standard normal table values). A 2 x 2 case whose x + bias hits
 * 1, -1, -1, 2 exactly. */
static int fe_selftest(char *why, size_t why_size)
{
    /* bf16 bits: 0.5 0x3F00, 0 0x0000, -1.5 0xBFC0, 3 0x4040, -1 0xBF80, 0.25 0x3E80, 1 0x3F80,
     * -0.5 0xBF00, 0.125 0x3E00. */
    const uint16_t x[4] = {0x3F00, 0x0000, 0xBFC0, 0x4040};        /* 0.5, 0, -1.5, 3 */
    const uint16_t bias[2] = {0x3F00, 0xBF80};                     /* 0.5, -1 */
    const uint16_t residual[4] = {0x3E80, 0x3F80, 0xBF00, 0x3E00}; /* 0.25, 1, -0.5, 0.125 */
    const float want[4] = {
        (float)(0.8413447460685429 + 0.25),  /* gelu(1) + 0.25 */
        (float)(-0.15865525393145707 + 1.0), /* gelu(-1) + 1 */
        (float)(-0.15865525393145707 - 0.5), /* gelu(-1) - 0.5 */
        (float)(1.9544997361036416 + 0.125), /* gelu(2) + 0.125 */
    };
    float out[4];
    fe_cpu_reference(x, bias, residual, 4, 2, out);
    double err = rb_relerr_f32(out, want, 4);
    if (!(err <= 1e-7)) {
        rb_fmt(why, why_size, "CPU reference wrong on the 2x2 case: rel_err %.3g", err);
        return -1;
    }
    rb_size two = {4, 2, 2}, derived = {1000003, 0, 0};
    char sub[80];
    if (fe_bytes(&two) != 28.0 || fe_flops(&two) != 24.0) {
        rb_fmt(why, why_size, "work model wrong on 2x2: %g bytes (want 28), %g flops (want 24)",
               fe_bytes(&two), fe_flops(&two));
        return -1;
    }
    if (fe_shape(&derived, sub, sizeof sub) != 0 || derived.cols != 4096 || derived.rows != 244 ||
        derived.n != 999424) {
        rb_fmt(why, why_size, "shape of n = 1000003 is not 244 x 4096");
        return -1;
    }
    return 0;
}

static const rb_pair_ext fused_elementwise_ext = {
    .shape = fe_shape,
};

const rb_pair rb_pair_fused_elementwise = {
    .name = "fused_elementwise",
    .pattern =
        "bias + GELU + residual in one pass vs three unfused 16-byte-vector ops (bytes not moved)",
    .size_unit = "bf16 elements",
    .smoke_size = 1u << 20,
    .full_size = 1u << 28,
    .flops = fe_flops,
    .bytes = fe_bytes,
    .setup = fe_setup,
    .output = fe_output,
    .check = fe_check,
    .teardown = fe_teardown,
    .selftest = fe_selftest,
    /* Every kernel of both variants moves 16-byte vectors (the baseline is as good an
     * elementwise kernel as the fused one: kernels/fused_elementwise.cu). */
    .codegen =
        {
            {"fused_elementwise_optimized_kernel", "LDG.E.EF.128"},
            {"fused_elementwise_optimized_kernel", "STG.E.EF.128"},
            {"fused_elementwise_baseline_bias_kernel", "LDG.E.EF.128"},
            {"fused_elementwise_baseline_gelu_kernel", "LDG.E.EF.128"},
            {"fused_elementwise_baseline_residual_kernel", "LDG.E.EF.128"},
            {"fused_elementwise_baseline_residual_kernel", "STG.E.EF.128"},
        },
    .kernels = fused_elementwise_kernels,
    .n_variants = 2,
    .variants =
        {
            /* Error model: y is bf16, so every element carries a rounding error of up to 2^-9
             * relative (round to nearest); over the seeded inputs (x in (-3, 3), bias and
             * residual in (-1, 1)) that is a normwise relative error of 1.63e-3 for one rounding
             * (the fused kernel), and 2.79e-3 for the baseline's three (t1, t2 and y each
             * rounded; t1's error passes through gelu' <= 1.13). Measured by emulating both
             * roundings on the CPU at 256 x 4096, 999 x 1021 and 65536 x 4096 (the same figures
             * to 3 digits at all three), and what the GPU measured at full size: 2.7785e-3
             * and 1.6303e-3 (docs/notes/fused_elementwise.md; the scalar baseline, same
             * roundings). The tolerances are ~1.8x those: a dropped bias
             * (0.30), bias indexed by row (0.42) or any unwritten element (NaN) fails by 100x. A
             * tanh GELU instead of erf (1.64e-3) hides under the bf16 rounding: no normwise check
             * can tell it. */
            /* Roof: the compulsory traffic is 4n read and 2n written, two thirds reads. A mix
             * between a copy (half reads) and a read-only stream streams between the two roofs;
             * the copy roof is the lower one, and the optimized kernel has run above it (3054
             * GB/s against the H100's measured copy 3006). Judged against the read-only roof,
             * the upper end of what such a mix can reach, its %ceil is a lower bound that the
             * mix alone cannot push past 100%. The baseline is judged on the same roof: both
             * move the same declared bytes, and their %ceil then compare like their times. */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, 5e-3, run_baseline,
             .roof = "dram_read_gbps"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, 3e-3, run_optimized,
             .roof = "dram_read_gbps"},
        },
    .defects = {{"bias_dropped", 1, fused_elementwise_defect_no_bias}},
    .ext = &fused_elementwise_ext,
};
