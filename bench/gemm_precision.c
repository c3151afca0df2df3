/* SPDX-License-Identifier: MIT */
/* gemm_precision: the harness's view of kernels/gemm_precision.cu (read that file first). The
 * layout is explained at gp_make_op, the padding at GEMM_PRECISION_PAD, the tolerances above the
 * variant table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cublasLt.h declares cublasLtLoggerForceDisable() without a prototype (CUDA 13.0), which
 * -Wstrict-prototypes -Werror rejects: silence that one warning for the toolkit header only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop
#include <cublas_v2.h>

#include "model/compare.h"
#include "gemm_ref.h"
#include "gpu.h"
#include "pair_util.h"
#include "timer.h"

#include "kernels/gemm_precision.h"

/* The precisions, in variant order (kernels/gemm_precision.cu numbers them the same way). */
enum { GP_FP32, GP_TF32, GP_BF16, GP_FP8, GP_COUNT };

/* Tunable (CFLAGS=-D...): cuBLASLt workspace, and FP8 fast accumulation (see the .cu). The 32 MiB
 * workspace matters: Hopper kernels use it for split-K / stream-K partials, and without it the
 * heuristic drops those configurations. -DGEMM_PRECISION_FP8_FAST_ACCUM=0 measures the accurate
 * FP8 mode (same tolerance). */
#ifndef GEMM_PRECISION_WORKSPACE
#define GEMM_PRECISION_WORKSPACE (32u << 20)
#endif
#ifndef GEMM_PRECISION_FP8_FAST_ACCUM
#define GEMM_PRECISION_FP8_FAST_ACCUM 1
#endif
/* FP8's tolerance, with or without fast accumulation (the error model is above the variant
 * table). */
#define GEMM_PRECISION_FP8_TOL 5e-3
/* The planted defect's error in s_A (run_defect_fp8_scale): 5% too large. */
#define GEMM_PRECISION_DEFECT_SCALE 1.05f

/* cuBLASLt's FP8 kernels require 16-byte aligned matrices whose dimensions meet its Tensor Core
 * alignment rules (the cuBLAS documentation of cublasLtMatmul: 16 bytes for the leading
 * dimensions and the contiguous extents, i.e. 16 fp8 elements). So every buffer has kp = K
 * rounded up to 16 columns, and B has np = N rounded up to 16 rows: every extent cuBLASLt sees
 * (m = np, k = kp, all leading dimensions) is a multiple of 16, however strictly the rules are
 * read. The padding is zero, so the padded products add exactly 0; C's padding columns are never
 * compared. All four steps run this same padded problem; the work model counts the logical
 * M N K. */
#define GEMM_PRECISION_PAD 16                  /* kp, np: multiples of 16 elements */
#define GEMM_PRECISION_MAX_DIM (1u << 24)      /* M, N, K limit (int arguments of cublasDgemm) */
#define GEMM_PRECISION_CPU_FULL_MAX (1u << 16) /* M N up to this: CPU checks every row */
#define GEMM_PRECISION_E4M3_MAX 448.0f         /* largest finite E4M3 value */

/* What distinguishes the steps: types, compute mode, element sizes and the input rounding. */
typedef struct gp_format {
    const char *name;
    cublasComputeType_t compute;
    cudaDataType_t in_type, out_type;
    size_t in_bytes, out_bytes; /* per element */
    double unit_roundoff;       /* of the input quantization: its relative error bound */
} gp_format;

static const gp_format gp_formats[GP_COUNT] = {
    {"fp32", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, 4, 4, 0.0},
    {"tf32", CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUDA_R_32F, 4, 4, 0x1p-11},
    {"bf16", CUBLAS_COMPUTE_32F, CUDA_R_16BF, CUDA_R_16BF, 2, 2, 0x1p-8},
    {"fp8", CUBLAS_COMPUTE_32F, CUDA_R_8F_E4M3, CUDA_R_16BF, 1, 2, 0x1p-4},
};

/* Device buffers. Inputs in each precision: A is M x kp, B is np x kp (row-major, zero padding);
 * the output is M x np elements of the type of the step that wrote it (fp32 buffer size). */
typedef struct gp_ctx {
    size_t m, n, k, np, kp;
    void *a[GP_COUNT], *b[GP_COUNT];
    float *scales; /* device: s_A at [0], s_B at [4], the defect's wrong s_A at [8] */
    float scale_a, scale_b;
    void *out;
    void *packed; /* check(): the output without padding columns; NULL when np == N */
    float *ref[GP_COUNT];
    void *workspace;
    int no_c[GP_COUNT]; /* pass C = NULL (beta is 0): see gp_make_op */
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc[GP_COUNT];
    cublasLtMatrixLayout_t layout_a[GP_COUNT], layout_b[GP_COUNT], layout_d[GP_COUNT];
#ifdef RB_PLANT_SLOW10
    cublasLtMatrixLayout_t plant_layout_b, plant_layout_d; /* the first tenth of the rows */
#endif
    cublasLtMatmulAlgo_t algo[GP_COUNT];
    int candidate[GP_COUNT]; /* algo[f]'s place in the heuristic's list */
    /* Setup only (freed before setup returns; teardown frees them after a failed setup). */
    cublasHandle_t blas;
    float *stage, *amax;
    rb_gemm_ref ref64;
} gp_ctx;

static size_t gp_round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

/* rows == 0: M = N = K = floor(sqrt(n)); else M = rows, N = K = cols. */
static int gp_shape(rb_size *s, char *why, size_t why_size)
{
    return rb_gemm_square_shape(s, GEMM_PRECISION_MAX_DIM,
                                "gemm_precision needs 1 <= M, N <= 2^24 (M x N output elements)",
                                why, why_size);
}

static double gp_flops(const rb_size *size)
{
    return 2.0 * (double)size->rows * (double)size->cols * (double)size->cols;
}

/* Step f's compulsory bytes: A and B in its input precision, C in its output type (+ the two
 * fp8 scales). */
static double gp_bytes_of(const rb_size *size, int f)
{
    double m = (double)size->rows, n = (double)size->cols, k = n;
    const gp_format *g = &gp_formats[f];
    return (double)g->in_bytes * (m * k + n * k) + (double)g->out_bytes * m * n +
           (f == GP_FP8 ? 8.0 : 0.0);
}

/* The pair's bytes are the baseline's; each step declares its own (rb_variant_def.bytes). */
static double gp_bytes(const rb_size *size)
{
    return gp_bytes_of(size, GP_FP32);
}

static double gp_bytes_tf32(const rb_size *size)
{
    return gp_bytes_of(size, GP_TF32);
}

static double gp_bytes_bf16(const rb_size *size)
{
    return gp_bytes_of(size, GP_BF16);
}

static double gp_bytes_fp8(const rb_size *size)
{
    return gp_bytes_of(size, GP_FP8);
}

/* ---- CPU side: decoding the quantized inputs, and the reference. ---- */

/* An E4M3 byte: sign, 4 exponent bits (bias 7), 3 mantissa bits; exponent 0 is subnormal
 * (m x 2^-9); S.1111.111 is NaN; no infinities. */
static float gp_e4m3_to_float(uint8_t b)
{
    int e = (b >> 3) & 0xF, m = b & 7;
    float v;
    if (e == 0xF && m == 7)
        return NAN;
    v = e == 0 ? ldexpf((float)m, -9) : ldexpf((float)(8 + m), e - 10);
    return (b & 0x80) ? -v : v;
}

/* out[i] = the value of raw[i] in format f, without the fp8 scale: exact in float. */
static void gp_decode(const void *raw, int f, size_t count, float *out)
{
    for (size_t i = 0; i < count; i++) {
        if (f == GP_FP32 || f == GP_TF32) {
            out[i] = ((const float *)raw)[i];
        } else if (f == GP_BF16) {
            uint32_t u = (uint32_t)((const uint16_t *)raw)[i] << 16;
            memcpy(&out[i], &u, sizeof u);
        } else {
            out[i] = gp_e4m3_to_float(((const uint8_t *)raw)[i]);
        }
    }
}

/* out (rows x n, compact) = scale * (a b^T) in double: a is rows x k, b is n x k, both with row
 * stride ld. For fp8, scale = s_A s_B, applied to the exact sum of q_A q_B. */
static void gp_cpu_reference(const float *a, const float *b, size_t rows, size_t n, size_t k,
                             size_t ld, double scale, float *out)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < n; j++) {
            double s = 0.0;
            for (size_t p = 0; p < k; p++)
                s += (double)a[r * ld + p] * (double)b[j * ld + p];
            out[r * n + j] = (float)(s * scale);
        }
}

/* Setup's checks of step f against the CPU: its quantized inputs against the fp32 originals
 * (a_orig: the rows checked, b_orig: all of B), then its GPU reference on those rows. */
typedef struct gp_cross {
    float *a_orig, *b_orig, *a_q, *b_q, *ref;
    void *raw;
    rb_gemm_rows rows;
} gp_cross;

static rb_status gp_read(void *dst, const void *src, size_t bytes)
{
    RB_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return RB_OK;
}

static rb_status gp_check_quantized(const gp_ctx *c, const gp_cross *x, int f)
{
    double diff2 = 0.0, ref2 = 0.0;
    double sa = f == GP_FP8 ? c->scale_a : 1.0, sb = f == GP_FP8 ? c->scale_b : 1.0;
    size_t low_bits_set = 0;
    for (size_t i = 0; i < x->rows.per; i++)
        for (size_t p = 0; p < c->k; p++) {
            size_t at = i * c->kp + p;
            double d = sa * x->a_q[at] - x->a_orig[at];
            diff2 += d * d;
            ref2 += (double)x->a_orig[at] * x->a_orig[at];
        }
    for (size_t j = 0; j < c->n; j++)
        for (size_t p = 0; p < c->k; p++) {
            size_t at = j * c->kp + p;
            double d = sb * x->b_q[at] - x->b_orig[at];
            uint32_t u;
            memcpy(&u, &x->b_q[at], sizeof u);
            low_bits_set += f == GP_TF32 && (u & 0x1FFFu) != 0;
            diff2 += d * d;
            ref2 += (double)x->b_orig[at] * x->b_orig[at];
        }
    double err = rb_relerr_from_sums(diff2, ref2);
    if (!rb_within_tolerance(err, gp_formats[f].unit_roundoff) || low_bits_set) {
        char msg[200];
        rb_fmt(msg, sizeof msg,
               "gemm_precision: %s inputs wrongly quantized: rel_err %.3g (bound %.3g), %zu "
               "values with low tf32 bits set",
               gp_formats[f].name, err, gp_formats[f].unit_roundoff, low_bits_set);
        rb_error_at(__FILE__, __LINE__, "gp_check_quantized", msg);
        return RB_ERR_INPUT;
    }
    return RB_OK;
}

static rb_status gp_crosscheck_format(const gp_ctx *c, gp_cross *x, int f)
{
    size_t n = c->n, kp = c->kp, in = gp_formats[f].in_bytes;
    double scale = f == GP_FP8 ? (double)c->scale_a * (double)c->scale_b : 1.0;
    RB_TRY(gp_read(x->raw, c->b[f], n * kp * in));
    gp_decode(x->raw, f, n * kp, x->b_q);
    for (size_t i = 0; i < x->rows.n_blocks; i++) {
        size_t r = x->rows.first[i];
        RB_TRY(gp_read(x->a_orig, (const float *)c->a[GP_FP32] + r * kp, x->rows.per * kp * 4));
        RB_TRY(gp_read(x->raw, (const char *)c->a[f] + r * kp * in, x->rows.per * kp * in));
        gp_decode(x->raw, f, x->rows.per * kp, x->a_q);
        if (i == 0)
            RB_TRY(gp_check_quantized(c, x, f));
        gp_cpu_reference(x->a_q, x->b_q, x->rows.per, n, c->k, kp, scale, x->ref);
        RB_TRY(
            rb_crosscheck_reference("gemm_precision", c->ref[f] + r * n, x->ref, x->rows.per * n, 1e-6));
    }
    return RB_OK;
}

/* Pins every step's GPU reference to the CPU: all rows when M N is small, else rows 0, M/2,
 * M-1. Only the valid n x K part of B is read (the N padding rows are zero and unused). */
static rb_status gp_crosscheck(const gp_ctx *c)
{
    size_t m = c->m, n = c->n, kp = c->kp;
    int all = m * n <= GEMM_PRECISION_CPU_FULL_MAX;
    gp_cross x = {.rows = rb_gemm_rows_to_check(m, all)};
    size_t a_elems = x.rows.per * kp, b_elems = n * kp;
    x.a_orig = malloc(a_elems * sizeof(float));
    x.a_q = malloc(a_elems * sizeof(float));
    x.b_orig = malloc(b_elems * sizeof(float));
    x.b_q = malloc(b_elems * sizeof(float));
    x.ref = malloc(x.rows.per * n * sizeof(float));
    x.raw = malloc((a_elems > b_elems ? a_elems : b_elems) * sizeof(float));
    rb_status st =
        (x.a_orig && x.a_q && x.b_orig && x.b_q && x.ref && x.raw) ? RB_OK : RB_ERR_ALLOC;
    if (st == RB_OK)
        st = gp_read(x.b_orig, c->b[GP_FP32], b_elems * sizeof(float));
    for (int f = 0; st == RB_OK && f < GP_COUNT; f++)
        st = gp_crosscheck_format(c, &x, f);
    free(x.a_orig);
    free(x.a_q);
    free(x.b_orig);
    free(x.b_q);
    free(x.ref);
    free(x.raw);
    return st;
}

/* ---- GPU side of setup. ---- */

/* The inputs: seeded uniform (-1, 1) fp32 (A from seed, B from seed + 1), then each precision's
 * copy with zero padding; the fp8 scales from amax. */
static rb_status gp_inputs(gp_ctx *c, uint64_t seed)
{
    size_t m = c->m, np = c->np, kp = c->kp, stage_rows = m > np ? m : np;
    RB_CUDA(cudaMalloc((void **)&c->stage, stage_rows * kp * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->amax, sizeof(float)));
    for (int side = 0; side < 2; side++) { /* side 0: A (M rows), 1: B (np rows, N valid) */
        size_t rows = side == 0 ? m : np, valid_rows = side == 0 ? m : c->n;
        void **dst = side == 0 ? c->a : c->b;
        float amax = 0.0f;
        RB_CUDA(rb_fill_uniform_f32(c->stage, rows * kp, seed + (uint64_t)side, 0));
        RB_CUDA(gemm_precision_amax(c->stage, valid_rows, kp, c->k, c->amax, 0));
        RB_CUDA(cudaMemcpy(&amax, c->amax, sizeof amax, cudaMemcpyDeviceToHost));
        /* amax > 0: the fill never produces 0. x / s with s = amax / 448 maps amax to 448. */
        float scale = amax / GEMM_PRECISION_E4M3_MAX, inv_scale = GEMM_PRECISION_E4M3_MAX / amax;
        if (side == 0)
            c->scale_a = scale;
        else
            c->scale_b = scale;
        for (int f = 0; f < GP_COUNT; f++) {
            RB_CUDA(cudaMalloc(&dst[f], rows * kp * gp_formats[f].in_bytes));
            RB_CUDA(gemm_precision_quantize(c->stage, dst[f], f, rows, kp, valid_rows, c->k,
                                            inv_scale, 0));
        }
        RB_CUDA(cudaDeviceSynchronize());
    }
    /* s_A at [0], s_B at [4]: each scale 16-byte aligned (cuBLASLt refused every FP8 algorithm
     * on the H200 with s_B 4 bytes after s_A); [8]: the planted defect's s_A, 5% off. */
    float scales[12] = {c->scale_a, 0, 0, 0, c->scale_b, 0, 0, 0,
                        c->scale_a * GEMM_PRECISION_DEFECT_SCALE, 0, 0, 0};
    RB_CUDA(cudaMalloc((void **)&c->scales, sizeof scales));
    RB_CUDA(cudaMemcpy(c->scales, scales, sizeof scales, cudaMemcpyHostToDevice));
    RB_CUDA(cudaFree(c->stage));
    RB_CUDA(cudaFree(c->amax));
    c->stage = c->amax = NULL;
    return RB_OK;
}

/* The trusted references: per step, fp64 GEMM of its quantized inputs widened exactly. Column-
 * major view as in the variants: C^T (N x M, ld N) = B' (op T of the kp x np buffer) A'; C^T
 * column-major is the compact row-major M x N. */
static rb_status gp_gpu_references(gp_ctx *c)
{
    size_t m = c->m, n = c->n, k = c->k, np = c->np, kp = c->kp;
    rb_gemm_ref *g = &c->ref64;
    RB_TRY(rb_gemm_ref_alloc(g, m * kp, np * kp, m * n));
    RB_CUBLAS(cublasCreate(&c->blas));
    for (int f = 0; f < GP_COUNT; f++) {
        RB_CUDA(cudaMalloc((void **)&c->ref[f], m * n * sizeof(float)));
        RB_CUDA(gemm_precision_to_f64(c->a[f], f, m * kp, c->scale_a, g->a, 0));
        RB_CUDA(gemm_precision_to_f64(c->b[f], f, np * kp, c->scale_b, g->b, 0));
        RB_TRY(rb_gemm_ref_dgemm(g, c->blas, 1, m, n, k, kp, kp));
        RB_CUDA(rb_f64_to_f32(g->c, c->ref[f], m * n, 0));
    }
    RB_CUDA(cudaDeviceSynchronize());
    RB_CUBLAS(cublasDestroy(c->blas));
    c->blas = NULL;
    return rb_gemm_ref_free(g);
}

#define GP_CANDIDATES 8 /* heuristic results tried in setup */

/* Each tensor step runs the sustained-faster of the heuristic's first GP_TUNE_CANDIDATES that
 * run, at M x N >= GP_TUNE_MIN_ELEMS (the full size; smaller sizes run the first): after
 * GP_TUNE_WARM_S of the first, GP_TUNE_ROUNDS rounds of GP_TUNE_S back to back of each in turn
 * (A B A B: the board's drift hits both alike), each window timed by rb_time_window in
 * ~GP_TUNE_SAMPLE_MS samples; a candidate's score is the mean of its windows' medians, and
 * another than the first is chosen when it is GP_TUNE_MIN_GAIN faster. Why: at the power cap
 * the heuristic's first choice is not the fastest, and the roof it is placed on is the best
 * candidate's: on the H100, in bf16 at 8192^3, the heuristic's second candidate sustained a few
 * percent more than its first in every round of 3.5 s windows timed in turn. Windows of 0.3 s
 * differ by up to 10% at the power cap, more than the candidates do, so a choice made from them
 * is noise (docs/notes/gemm_precision.md). */
#define GP_TUNE_CANDIDATES 2
#define GP_TUNE_MIN_ELEMS (1u << 26)
#define GP_TUNE_WARM_S 0.5
#define GP_TUNE_S 1.0
#define GP_TUNE_ROUNDS 2
#define GP_TUNE_SAMPLE_MS 10.0
#define GP_TUNE_MIN_GAIN 0.01

typedef struct gp_candidate {
    cublasLtMatmulAlgo_t algo;
    int index; /* in the heuristic's list */
    int no_c;  /* runs with C = NULL only */
} gp_candidate;

/* One launch of step f with candidate x. */
static rb_status gp_launch(gp_ctx *c, int f, const gp_candidate *x, cudaStream_t stream)
{
    const float one = 1.0f, zero = 0.0f;
    RB_CUBLAS(cublasLtMatmul(c->lt, c->desc[f], &one, c->b[f], c->layout_a[f], c->a[f],
                             c->layout_b[f], &zero, x->no_c ? NULL : c->out, c->layout_d[f], c->out,
                             c->layout_d[f], &x->algo, c->workspace, GEMM_PRECISION_WORKSPACE,
                             stream));
    return RB_OK;
}

/* Candidate x of step f as a variant the harness's timer can run. */
typedef struct gp_trial {
    gp_ctx *c;
    int f;
    const gp_candidate *x;
} gp_trial;

static rb_status gp_trial_run(void *arg, cudaStream_t stream)
{
    const gp_trial *t = arg;
    return gp_launch(t->c, t->f, t->x, stream);
}

/* One window: the median time of a launch of x in ~GP_TUNE_SAMPLE_MS samples over GP_TUNE_S of
 * back-to-back launches, after warm_s of them untimed (the kit's timer: no noise target, so the
 * window ends at its length and not before). */
static rb_status gp_window_ms(gp_ctx *c, int f, const gp_candidate *x, double warm_s, double *ms)
{
    gp_trial t = {c, f, x};
    return rb_time_window(gp_trial_run, &t, 0, warm_s, GP_TUNE_S, GP_TUNE_SAMPLE_MS, ms);
}

/* The sustained-fastest of run[0..n) into *best (0 unless another wins by GP_TUNE_MIN_GAIN);
 * every candidate's windows are printed, so the run's log shows the choice. */
static rb_status gp_tune(gp_ctx *c, int f, const gp_candidate *run, int n, int *best)
{
    double ms[GP_TUNE_CANDIDATES][GP_TUNE_ROUNDS], score[GP_TUNE_CANDIDATES];
    for (int r = 0; r < GP_TUNE_ROUNDS; r++)
        for (int i = 0; i < n; i++) {
            double warm_s = r == 0 && i == 0 ? GP_TUNE_WARM_S : 0.0;
            RB_TRY(gp_window_ms(c, f, &run[i], warm_s, &ms[i][r]));
        }
    char line[400];
    int used = snprintf(line, sizeof line, "gemm_precision: %s, %d x %.1f s windows in turn:",
                        gp_formats[f].name, GP_TUNE_ROUNDS, GP_TUNE_S);
    *best = 0;
    for (int i = 0; i < n; i++) {
        score[i] = 0.0;
        for (int r = 0; r < GP_TUNE_ROUNDS; r++)
            score[i] += ms[i][r] / GP_TUNE_ROUNDS;
        if (i > 0 && score[i] < score[*best] && score[i] < (1.0 - GP_TUNE_MIN_GAIN) * score[0])
            *best = i;
        if (used > 0 && (size_t)used < sizeof line)
            used += snprintf(line + used, sizeof line - (size_t)used, " #%d", run[i].index);
        for (int r = 0; r < GP_TUNE_ROUNDS && used > 0 && (size_t)used < sizeof line; r++)
            used += snprintf(line + used, sizeof line - (size_t)used, "%c%.4f", r ? '/' : ' ',
                             ms[i][r]);
        if (used > 0 && (size_t)used < sizeof line)
            used += snprintf(line + used, sizeof line - (size_t)used, " ms%s",
                             run[i].no_c ? " (no C)" : "");
    }
    fprintf(stderr, "%s: runs #%d\n", line, run[*best].index);
    return RB_OK;
}

/* Step f's descriptor, layouts and algorithm (the heuristic's first that runs; with tune, the
 * sustained-faster of its first GP_TUNE_CANDIDATES). cuBLASLt's A is our B (kp x np
 * column-major, op T), its B our A (kp x M, op N), its C = D our output (np x M). cuBLASLt is
 * column-major: the row-major N x K buffer of B is a column-major K x N matrix, and the row-major
 * M x K buffer of A a column-major K x M one. So cuBLASLt computes D = op(A') op(B') with A' = our
 * B (op T), B' = our A (op N), and D = C^T (N x M column-major = C row-major): m = N, n = M,
 * k = K, the "TN" form. TN is what Hopper's FP8 GEMMs require, and the layout in which wgmma
 * reads both operands K-major from shared memory with no transposition (TF32 and FP8 wgmma accept
 * only K-major operands), so all four steps use it and differ only in precision. */
static rb_status gp_make_op(gp_ctx *c, int f, cublasLtMatmulPreference_t pref, int tune)
{
    const gp_format *g = &gp_formats[f];
    int32_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
    RB_CUBLAS(cublasLtMatmulDescCreate(&c->desc[f], g->compute, CUDA_R_32F));
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc[f], CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                             sizeof trans_a));
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc[f], CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                             sizeof trans_b));
    if (f == GP_FP8) {
        const float *scale_a = c->scales + 4, *scale_b = c->scales; /* cuBLASLt's A is our B */
        int8_t fast = GEMM_PRECISION_FP8_FAST_ACCUM;
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc[f], CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                 &scale_a, sizeof scale_a));
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc[f], CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                 &scale_b, sizeof scale_b));
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc[f], CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                 sizeof fast));
    }
    RB_CUBLAS(
        cublasLtMatrixLayoutCreate(&c->layout_a[f], g->in_type, c->kp, c->np, (int64_t)c->kp));
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->layout_b[f], g->in_type, c->kp, c->m, (int64_t)c->kp));
#ifdef RB_PLANT_SLOW10
    if (f == GP_BF16 && c->m >= 10) {
        RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->plant_layout_b, g->in_type, c->kp, c->m / 10,
                                             (int64_t)c->kp));
        RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->plant_layout_d, g->out_type, c->np, c->m / 10,
                                             (int64_t)c->np));
    }
#endif
    RB_CUBLAS(
        cublasLtMatrixLayoutCreate(&c->layout_d[f], g->out_type, c->np, c->m, (int64_t)c->np));
    cublasLtMatmulHeuristicResult_t result[GP_CANDIDATES];
    int found = 0;
    memset(result, 0, sizeof result);
    RB_CUBLAS(cublasLtMatmulAlgoGetHeuristic(c->lt, c->desc[f], c->layout_a[f], c->layout_b[f],
                                             c->layout_d[f], c->layout_d[f], pref, GP_CANDIDATES,
                                             result, &found));
    /* The heuristic does not see the pointers: on the H100 (cuBLASLt 13.0) its first FP8 choice
     * was refused by cublasLtMatmul itself ("not supported") with C = D. So each candidate, in
     * the heuristic's order, is tried once here, first with C = D, then with no C (beta is 0,
     * as NVIDIA's FP8 sample and PyTorch's scaled_mm call it), as the roofs do; the first
     * GP_TUNE_CANDIDATES that run are kept (the first alone without tune). */
    cublasStatus_t last = CUBLAS_STATUS_NOT_SUPPORTED;
    gp_candidate run[GP_TUNE_CANDIDATES];
    int n_run = 0, want = tune && f != GP_FP32 ? GP_TUNE_CANDIDATES : 1;
    for (int i = 0; i < found && n_run < want; i++) {
        if (result[i].state != CUBLAS_STATUS_SUCCESS)
            continue;
        for (int no_c = 0; no_c < 2; no_c++) {
            const float one = 1.0f, zero = 0.0f;
            cublasStatus_t st = cublasLtMatmul(
                c->lt, c->desc[f], &one, c->b[f], c->layout_a[f], c->a[f], c->layout_b[f], &zero,
                no_c ? NULL : c->out, c->layout_d[f], c->out, c->layout_d[f], &result[i].algo,
                c->workspace, GEMM_PRECISION_WORKSPACE, 0);
            last = st;
            if (st == CUBLAS_STATUS_SUCCESS) {
                run[n_run++] = (gp_candidate){result[i].algo, i, no_c};
                break;
            }
        }
    }
    if (n_run == 0) {
        char msg[200];
        rb_fmt(msg, sizeof msg,
               "cuBLASLt has no %s algorithm that runs for m=%zu n=%zu k=%zu (%d candidates "
               "tried, last: %s)",
               g->name, c->np, c->m, c->kp, found, cublasGetStatusString(last));
        rb_error_at(__FILE__, __LINE__, "cublasLtMatmul", msg);
        return RB_ERR_CUDA;
    }
    RB_CUDA(cudaDeviceSynchronize());
    int best = 0;
    if (n_run > 1)
        RB_TRY(gp_tune(c, f, run, n_run, &best));
    c->algo[f] = run[best].algo;
    c->candidate[f] = run[best].index;
    c->no_c[f] = run[best].no_c;
    if (run[best].index > 0 || run[best].no_c)
        fprintf(stderr, "gemm_precision: %s runs the heuristic's candidate #%d%s\n", g->name,
                run[best].index, run[best].no_c ? " with no C" : "");
    return RB_OK;
}

static rb_status gp_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    gp_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->m = size->rows;
    c->n = size->cols;
    c->k = size->cols;
    c->np = gp_round_up(c->n, GEMM_PRECISION_PAD);
    c->kp = gp_round_up(c->k, GEMM_PRECISION_PAD);
    RB_CUDA(cudaMalloc(&c->out, c->m * c->np * sizeof(float)));
    if (c->np != c->n)
        RB_CUDA(cudaMalloc(&c->packed, c->m * c->n * sizeof(float)));
    RB_CUDA(cudaMalloc(&c->workspace, GEMM_PRECISION_WORKSPACE));

    RB_TRY(gp_inputs(c, seed));
    RB_TRY(gp_gpu_references(c));
    RB_TRY(gp_crosscheck(c));

    RB_CUBLAS(cublasLtCreate(&c->lt));
    cublasLtMatmulPreference_t pref = NULL;
    RB_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t workspace = GEMM_PRECISION_WORKSPACE;
    rb_status st = RB_OK;
    cublasStatus_t bs = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    if (bs != CUBLAS_STATUS_SUCCESS) {
        rb_error_at(__FILE__, __LINE__, "cublasLtMatmulPreferenceSetAttribute",
                    cublasGetStatusString(bs));
        st = RB_ERR_CUDA;
    }
    int tune = c->m * c->n >= GP_TUNE_MIN_ELEMS;
    for (int f = 0; st == RB_OK && f < GP_COUNT; f++)
        st = gp_make_op(c, f, pref, tune);
    cublasLtMatmulPreferenceDestroy(pref);
    return st;
}

/* The variants are the steps, in the order of gp_formats. */

/* Each step runs the cuBLASLt algorithm gp_make_op kept (variant k is format k). */
static int gp_library_algo(void *ctx, int variant, rb_library_algo *out)
{
    gp_ctx *c = ctx;
    return variant >= 0 && variant < GP_COUNT &&
           rb_lt_algo_describe(&c->algo[variant], c->candidate[variant], out);
}

static void gp_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    gp_ctx *c = ctx;
    *dev_ptr = c->out;
    *bytes = c->m * c->np * gp_formats[variant].out_bytes;
}

/* Compares the step's output with its own reference; padding columns (np != N) are dropped with
 * a 2D copy first. */
static rb_status gp_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    gp_ctx *c = ctx;
    return rb_gemm_relerr_padded(c->out, c->packed, c->m, c->n, c->np,
                                 gp_formats[variant].out_bytes, c->ref[variant], stream, rel_err);
}

static void gp_teardown(void *ctx)
{
    gp_ctx *c = ctx;
    if (!c)
        return;
    for (int f = 0; f < GP_COUNT; f++) {
        if (c->desc[f])
            cublasLtMatmulDescDestroy(c->desc[f]);
        if (c->layout_a[f])
            cublasLtMatrixLayoutDestroy(c->layout_a[f]);
        if (c->layout_b[f])
            cublasLtMatrixLayoutDestroy(c->layout_b[f]);
        if (c->layout_d[f])
            cublasLtMatrixLayoutDestroy(c->layout_d[f]);
        cudaFree(c->a[f]);
        cudaFree(c->b[f]);
        cudaFree(c->ref[f]);
    }
#ifdef RB_PLANT_SLOW10
    if (c->plant_layout_b)
        cublasLtMatrixLayoutDestroy(c->plant_layout_b);
    if (c->plant_layout_d)
        cublasLtMatrixLayoutDestroy(c->plant_layout_d);
#endif
    if (c->lt)
        cublasLtDestroy(c->lt);
    if (c->blas)
        cublasDestroy(c->blas);
    cudaFree(c->scales);
    cudaFree(c->out);
    cudaFree(c->packed);
    cudaFree(c->workspace);
    cudaFree(c->stage);
    cudaFree(c->amax);
    rb_gemm_ref_free(&c->ref64);
    free(c);
}

/* D = 1 * op(A') op(B') + 0 * C with C = D (cuBLASLt reads no C when beta == 0). */
static rb_status gp_matmul(gp_ctx *c, int f, cudaStream_t stream)
{
    const float one = 1.0f, zero = 0.0f;
#ifdef RB_PLANT_SLOW10
    /* A planted 10% slowdown, a test hook (make CFLAGS=-DRB_PLANT_SLOW10), not part of the
     * lesson: the BF16 step first computes the first tenth of the output's rows, then the whole
     * output as always (which overwrites them): 10% more work through the same cuBLASLt call. A
     * forced slower algorithm could not do it: the heuristic's candidates for this GEMM all ran
     * within a few percent of each other on the H100, and its algorithm accepted no other tile
     * or split-K. */
    if (f == GP_BF16 && c->plant_layout_b)
        RB_CUBLAS(cublasLtMatmul(c->lt, c->desc[f], &one, c->b[f], c->layout_a[f], c->a[f],
                                 c->plant_layout_b, &zero, c->no_c[f] ? NULL : c->out,
                                 c->plant_layout_d, c->out, c->plant_layout_d, &c->algo[f],
                                 c->workspace, GEMM_PRECISION_WORKSPACE, stream));
#endif
    RB_CUBLAS(cublasLtMatmul(c->lt, c->desc[f], &one, c->b[f], c->layout_a[f], c->a[f],
                             c->layout_b[f], &zero, c->no_c[f] ? NULL : c->out, c->layout_d[f],
                             c->out, c->layout_d[f],
                             &c->algo[f], c->workspace, GEMM_PRECISION_WORKSPACE, stream));
    return RB_OK;
}

static rb_status run_fp32(void *ctx, cudaStream_t stream)
{
    return gp_matmul(ctx, GP_FP32, stream);
}

static rb_status run_tf32(void *ctx, cudaStream_t stream)
{
    return gp_matmul(ctx, GP_TF32, stream);
}

static rb_status run_bf16(void *ctx, cudaStream_t stream)
{
    return gp_matmul(ctx, GP_BF16, stream);
}

static rb_status run_fp8(void *ctx, cudaStream_t stream)
{
    return gp_matmul(ctx, GP_FP8, stream);
}

/* Points cuBLASLt's B scale (our s_A) at `scale`: a host-side descriptor edit, read at the next
 * enqueue. */
static rb_status gp_set_scale_a(gp_ctx *c, const float *scale)
{
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc[GP_FP8], CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                             &scale, sizeof scale));
    return RB_OK;
}

/* Planted defect (tests/test_gpu.c): the FP8 GEMM with s_A 5% too large, as from an amax taken
 * over a stale or padded tensor. The output is then 1.05 times the right one, a normwise error
 * of 0.05 on top of the ~1.7e-3 of a correct run at 999 x 1021: 10x the 5e-3 tolerance (the
 * 5e-2 tolerance before this defect existed passed it). The descriptor is restored after the
 * enqueue. */
static rb_status run_defect_fp8_scale(void *ctx, cudaStream_t stream)
{
    gp_ctx *c = ctx;
    RB_TRY(gp_set_scale_a(c, c->scales + 8));
    rb_status st = gp_matmul(c, GP_FP8, stream);
    RB_TRY(gp_set_scale_a(c, c->scales));
    return st;
}

/* A 2 x 2 x 3 case (row stride 4, a NaN in the padding that must not be read):
 * A = [1 2 -1; 0.5 0 4], B = [1 1 1; -2 0.25 1]: A B^T = [2 -2.5; 4.5 3]; scaled by 0.5. */
static int gp_selftest(char *why, size_t why_size)
{
    const float a[8] = {1, 2, -1, NAN, 0.5f, 0, 4, NAN};
    const float b[8] = {1, 1, 1, NAN, -2, 0.25f, 1, NAN};
    const float want[4] = {1.0f, -1.25f, 2.25f, 1.5f};
    float out[4];
    gp_cpu_reference(a, b, 2, 2, 3, 4, 0.5, out);
    if (!(rb_relerr_f32(out, want, 4) == 0.0)) {
        rb_fmt(why, why_size, "CPU reference wrong on the 2x2x3 case");
        return -1;
    }
    /* E4M3: 0x38 = 1, 0xB8 = -1, 0x7E = 448 (largest), 0x08 = 2^-6 (smallest normal),
     * 0x01 = 2^-9 (smallest subnormal), 0x07 = 7 x 2^-9, 0x4B = 1.375 x 2^2 = 5.5, 0x7F NaN. */
    const uint8_t fp8[8] = {0x38, 0xB8, 0x7E, 0x08, 0x01, 0x07, 0x4B, 0x00};
    const float fp8_want[8] = {1.0f, -1.0f, 448.0f, 0x1p-6f, 0x1p-9f, 7 * 0x1p-9f, 5.5f, 0.0f};
    /* bf16 0x3FC0 = 1.5, 0xC100 = -8 */
    const uint16_t bf16[2] = {0x3FC0, 0xC100};
    float dec[8];
    gp_decode(fp8, GP_FP8, 8, dec);
    if (memcmp(dec, fp8_want, sizeof dec) != 0 || !isnan(gp_e4m3_to_float(0x7F)) ||
        !isnan(gp_e4m3_to_float(0xFF))) {
        rb_fmt(why, why_size, "E4M3 decoding wrong");
        return -1;
    }
    gp_decode(bf16, GP_BF16, 2, dec);
    if (dec[0] != 1.5f || dec[1] != -8.0f) {
        rb_fmt(why, why_size, "bf16 decoding wrong");
        return -1;
    }
    /* Work model at 2 x 2 (K = 2): 16 flops; fp32 4(4 + 4) + 4 x 4 = 48 bytes, bf16 24, fp8
     * 8 + 8 + 8 = 24; at 8192^3, fp8 moves 268435464 bytes. */
    rb_size two = {4, 2, 2}, full = {1u << 26, 0, 0}, odd = {1000003, 0, 0},
            shaped = {999 * 1021, 999, 1021};
    char sub[120];
    if (gp_flops(&two) != 16.0 || gp_bytes(&two) != 48.0 || gp_bytes_of(&two, GP_TF32) != 48.0 ||
        gp_bytes_of(&two, GP_BF16) != 24.0 || gp_bytes_of(&two, GP_FP8) != 24.0) {
        rb_fmt(why, why_size, "work model wrong on 2x2x2");
        return -1;
    }
    if (gp_shape(&full, sub, sizeof sub) != 0 || full.rows != 8192 || full.cols != 8192 ||
        gp_bytes_of(&full, GP_FP8) != 268435464.0 || gp_shape(&odd, sub, sizeof sub) != 0 ||
        odd.rows != 1000 || odd.n != 1000000 || gp_shape(&shaped, sub, sizeof sub) != 0 ||
        shaped.rows != 999 || shaped.cols != 1021 || gp_round_up(1021, 16) != 1024 ||
        gp_round_up(8192, 16) != 8192) {
        rb_fmt(why, why_size, "shape rule, padding or fp8 bytes wrong at 2^26, 1000003, 999x1021");
        return -1;
    }
    return 0;
}

static const rb_pair_ext gemm_precision_ext = {
    .min_cc = 89, /* FP8 tensor cores (Ada, Hopper and later) */
    .shape = gp_shape,
    .library_algo = gp_library_algo,
    /* Timed sustained (0.5 s warm, then 1 s of samples each), the way `roofbench ceilings`
     * measures the tensor roofs that these steps are placed on (harness/runner/ceilings_gemm.c),
     * so a step and its roof are measured in the same state of the board; shorter or interleaved
     * samples met the power controller at different points (docs/notes/gemm_precision.md). */
    .timing.sustain_s = 1.0,
};

const rb_pair rb_pair_gemm_precision = {
    .name = "gemm_precision",
    .pattern = "one GEMM in FP32 -> TF32 -> BF16 -> FP8 (cuBLASLt): each precision's "
               "tensor-core roof, and its accuracy",
    .size_unit = "output elements (M x N; K = N)",
    .smoke_size = 1u << 16,
    .full_size = 1u << 26,
    .flops = gp_flops,
    .bytes = gp_bytes,
    .setup = gp_setup,
    .output = gp_output,
    .check = gp_check,
    .teardown = gp_teardown,
    .selftest = gp_selftest,
    /* No codegen rules: every variant is one cuBLASLt call, no kernel of ours (ours run in
     * setup only). */
    .kernels = gemm_precision_kernels,
    .n_variants = 4,
    .variants =
        {
            /* Each step is checked against its own reference: cublasDgemm (fp64) on that step's
             * quantized inputs widened to double exactly (fp8: q * s), so quantization error is
             * not counted, only accumulation and output rounding; the CPU pins each reference,
             * and setup checks each quantized input against the fp32 original (normwise error <=
             * the format's unit roundoff; tf32 values have their 13 low mantissa bits clear).
             * Tolerances (normwise), each a small multiple of the largest error measured on the
             * H100 at 8192^3, identical in every committed run (docs/notes/gemm_precision.md):
             * fp32 5e-6: FMA chains over K, ~0.3 u sqrt(K) (u = 2^-24): 1.6e-6 at K = 8192.
             *   Measured 1.62e-6: 3.1x. Rejects a silent TF32 path (~2e-5) and a skipped k tile.
             * tf32 5e-5: the inputs are tf32 already, so the products are exact; the tensor
             *   core's fp32 accumulation truncates (biased, linear in K). Measured 1.92e-5:
             *   2.6x. Rejects bf16-precision inputs (~2e-3).
             * bf16 5e-3: products exact, fp32 accumulation, then the bf16 output rounding (u =
             *   2^-8: ~1.6e-3 normwise for random values, whatever K). Measured 1.66e-3: 3.0x.
             * fp8 5e-3, with or without fast accumulation: the bf16 output rounding plus the
             *   ~14-bit running sum inside the MMA, which grows with K: measured 2.49e-3 with fast
             *   accumulation at K = 8192 (2.0x; ~1.9e-3 of it from the accumulation). A
             *   per-tensor scale 5% off gives 0.05 whatever the size: the planted defect fails by
             *   10x. */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, 5e-6, run_fp32},
            {"tf32", RB_ROLE_STEP, RB_UNIT_TF32, 5e-5, run_tf32, gp_bytes_tf32},
            {"bf16", RB_ROLE_STEP, RB_UNIT_BF16, 5e-3, run_bf16, gp_bytes_bf16},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP8, GEMM_PRECISION_FP8_TOL, run_fp8,
             gp_bytes_fp8},
        },
    .defects = {{"fp8_scale_5pct_off", GP_FP8, run_defect_fp8_scale}},
    .ext = &gemm_precision_ext,
};
