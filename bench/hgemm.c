/* SPDX-License-Identifier: MIT */
/*
 * hgemm: the harness's view of kernels/hgemm.cu (read that file first: the ladder and its
 * predictions) and of cuBLASLt's BF16 and FP8 GEMMs beside it.
 *
 * Problem: C (M x N, bf16) = A B with A M x K and B stored N x K (both K-major), bf16 inputs,
 *   fp32 accumulation (kernels/hgemm.h). Inputs: "square" and "awkward", each its own row group:
 *   --size n gives rows = cols = floor(sqrt(n)) (2^26: 8192, the full size; the sweep adds
 *   6144^2 and 2^24: 6144 and 4096), --size RxC gives rows = R, cols = C; then
 *     square:  M = rows, N = cols, K = cols rounded up to a multiple of 16 (8192^3, 6144^3,
 *              4096^3; 999x1021 -> K 1024);
 *     awkward: M = rows - 1, N = cols - 3, K = cols rounded up to 16, plus 16, plus 16 more if
 *              that is a multiple of 64 (8191 x 8189 x 8208, 4095 x 4093 x 4112; 999x1021 ->
 *              998 x 1018 x 1040): M and N odd, no multiple of any tile, K a multiple of 16 but
 *              not of 32 or 64, so every kernel's edge and K-tail paths run.
 *   K % 16 == 0 always: TMA and 16-byte cp.async need rows that are multiples of 16 bytes (K % 8
 *   for bf16, K % 16 for e4m3); hgemm_dims_check refuses any other K with a clear message.
 * C's layout: rows ldc = N rounded up to 8 elements apart (16-byte rows: 4096 at the awkward
 *   4095 x 4093 x 4112, whose compact rows would be 8186 bytes), for every variant, ours and
 *   cuBLASLt's (its ldc and ldd). It is the layout a user who cares about speed gives a GEMM
 *   whose N is no multiple of 8 (cuBLASLt's tensor-core kernels and the TMA want 16-byte aligned
 *   rows), so both sides are timed on the layout they would meet. A and B stay compact (but for
 *   the library's padded copies, below). The work model counts M N elements of C.
 * Inputs: seeded uniform (-1, 1) values (model/random.h, generated on the device by
 *   hgemm_fill_inputs in kernels/hgemm.cu), rounded to nearest-even to bf16; the rounded values
 *   are the truth. FP8: the same values over a per-tensor power-of-two scale (s_A = 2^-8,
 *   s_B = 2^-7: |x| / s < 256 and 128, inside E4M3's 448), rounded to nearest-even to E4M3;
 *   the truth is q s, exact in bf16 (E4M3 has 3 mantissa bits and a power of two only moves the
 *   exponent) and in fp32, so the kernels' scale_a scale_b product is exact too.
 * Reference: cublasDgemm (fp64) of the truth widened exactly (rb_gemm_ref), rounded once to
 *   fp32; the CPU (double) pins it on rows 0, M/2, M-1 (every row when M N <= 2^16).
 * Check: the M x N values inside the padded rows against the reference, and C's padding columns
 *   N .. ldc - 1 untouched: they hold the poison the harness writes into the whole output before
 *   every checked run (pair.h: all 0xFF bytes, a bf16 NaN no rounding produces), and a variant
 *   that changed any byte of them (a kernel storing a full tile past N) gets an infinite error
 *   (but the padded library, below).
 * Library variants: cuBLASLt in the TN layout (its A = our B, op T; its B = our A), bf16 output
 *   into the same C, rows ldc apart (16 bytes, as cuBLASLt's FP8 kernels require of every leading
 *   dimension). "library": BF16, the best of the heuristic's top candidates timed and cached by
 *   harness/kit/gemm_tune.c (gemm_autotune's tuning and C layout, same cache file, same key for
 *   the same M N K). "fp8_library": FP8 E4M3 with the same scales (A/B_SCALE_POINTER) and fast
 *   accumulation, the heuristic's first candidate that runs (tried with C = D, then with no C, as
 *   gemm_precision does).
 * The library at an M or N that is no multiple of 8 (the awkward row): cuBLASLt runs the problem
 *   padded to M8 x N8 x K (M, N rounded up to 8), as a user who measured it would lay it out:
 *   with M, N odd its heuristic offers only slow kernels (and no FP8 one), 116 TFLOP/s at best at
 *   4095 x 4093 x 4112 against 720 at 4096 x 4096 x 4112 (docs/notes/hgemm.md). A and B are
 *   copies with M8 / N8 rows, the extra rows zero (made in setup, untimed), C has M8 rows; the
 *   check reads the M x N corner, the flops stay 2 M N K (the padding is the user's cost, charged
 *   to the library), and the rows' note says so. Only these variants at these shapes may write
 *   C's padding columns (zeros, by design); the hand-written steps run the unpadded problem (the
 *   row measures their edge handling) and must leave them poisoned.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "model/random.h"
#include "gemm_ref.h"
#include "gemm_tune.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/hgemm.h"

extern const rb_pair rb_pair_hgemm; /* at the bottom: check() names the variant it judges */

#ifndef HGEMM_WORKSPACE
#define HGEMM_WORKSPACE (32u << 20) /* cuBLASLt workspace (as gemm_autotune's) */
#endif
#define HGEMM_MAX_DIM (1u << 20)      /* rows, cols limit (int kernel and cuBLAS arguments) */
#define HGEMM_CPU_FULL_MAX (1u << 16) /* M N up to this: the CPU checks every row */
#define HGEMM_LDC_ALIGN 8             /* C's rows: N rounded up to 8 bf16, 16 bytes */
#define HGEMM_LIB_ALIGN 8             /* the library's M and N: rounded up to 8 (see the top) */
#define HGEMM_FP8_CANDIDATES 8
/* The FP8 per-tensor scales: powers of two, see above. */
#define HGEMM_SCALE_A 0x1p-8f
#define HGEMM_SCALE_B 0x1p-7f

/* Variants, in ladder order. */
enum {
    HG_MMA_SYNC,
    HG_CP_ASYNC,
    HG_WGMMA,
    HG_TMA,
    HG_WARP_SPECIALIZED,
    HG_CLUSTERS,
    HG_OPTIMIZED,
    HG_LIBRARY,
    HG_FP8,
    HG_FP8_LIBRARY,
    HG_VARIANTS
};
enum { HG_SQUARE, HG_AWKWARD, HG_INPUTS };

typedef struct hgemm_dims {
    size_t m, n, k;
} hgemm_dims;

static size_t hgemm_round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

/* The problem of `input` at a resolved size (see the top). */
static hgemm_dims hgemm_dims_of(const rb_size *size, int input)
{
    size_t r = (size_t)size->rows, c = (size_t)size->cols;
    hgemm_dims d = {r, c, hgemm_round_up(c, 16)};
    if (input == HG_AWKWARD) {
        d.m = r > 1 ? r - 1 : 1;
        d.n = c > 3 ? c - 3 : 1;
        d.k = hgemm_round_up(c, 16) + 16;
        if (d.k % 64 == 0)
            d.k += 16;
    }
    return d;
}

/* C's row stride for N columns: the next multiple of 8 elements (16-byte rows, see the top). */
static size_t hgemm_ldc_of(size_t n)
{
    return hgemm_round_up(n, HGEMM_LDC_ALIGN);
}

/* The problem cuBLASLt runs for the pair's d and C's ldc, and the buffers it needs (see the top):
 * M and N rounded up to `align` (HGEMM_LIB_ALIGN; the tests plant another), K as it is. */
typedef struct hgemm_lib_shape {
    hgemm_dims d;
    int padded;              /* d is not the pair's: cuBLASLt reads zero-padded copies */
    size_t a_bytes, b_bytes; /* A (d.m x K) and B (d.n x K) in bf16; the e4m3 copies take half */
    size_t c_bytes;          /* C as allocated for every variant: d.m rows of ldc bf16 */
} hgemm_lib_shape;

static hgemm_lib_shape hgemm_lib_shape_of(const hgemm_dims *d, size_t ldc, size_t align)
{
    hgemm_lib_shape l = {
        {hgemm_round_up(d->m, align), hgemm_round_up(d->n, align), d->k}, 0, 0, 0, 0};
    l.padded = l.d.m != d->m || l.d.n != d->n;
    l.a_bytes = l.d.m * l.d.k * 2;
    l.b_bytes = l.d.n * l.d.k * 2;
    l.c_bytes = l.d.m * ldc * 2;
    return l;
}

/* Does `variant` write C's padding columns N .. ldc - 1 by design? Only a library variant run on
 * N padded (B's zero rows give zero columns there); every other variant must leave them
 * poisoned, the hand-written steps above all (they run the pair's own M x N). */
static int hgemm_writes_padding(const hgemm_lib_shape *lib, const hgemm_dims *d, int variant)
{
    return (variant == HG_LIBRARY || variant == HG_FP8_LIBRARY) && lib->d.n != d->n;
}

/* How many bytes of a copy of C's padding columns no longer hold the poison (0xFF). */
static size_t hgemm_padding_written(const uint8_t *pad, size_t bytes)
{
    size_t written = 0;
    for (size_t i = 0; i < bytes; i++)
        written += pad[i] != 0xFF;
    return written;
}

/* 0 when the kernels and cuBLASLt take d, else -1 with the reason (one line). */
static int hgemm_dims_check(const hgemm_dims *d, char *why, size_t why_size)
{
    if (d->m < 1 || d->n < 1 || d->k < 1 || d->m > 2 * HGEMM_MAX_DIM || d->n > 2 * HGEMM_MAX_DIM ||
        d->k > 2 * HGEMM_MAX_DIM) {
        rb_fmt(why, why_size, "hgemm: M, N, K must be in 1..2^21 (M=%zu N=%zu K=%zu)", d->m, d->n,
               d->k);
        return -1;
    }
    if (d->k % 8 != 0) {
        rb_fmt(why, why_size,
               "hgemm: K=%zu is not a multiple of 8: TMA and 16-byte cp.async need bf16 rows of a "
               "multiple of 16 bytes",
               d->k);
        return -1;
    }
    if (d->k % 16 != 0) {
        rb_fmt(why, why_size,
               "hgemm: K=%zu is not a multiple of 16: the FP8 variants need e4m3 rows of a "
               "multiple of 16 bytes",
               d->k);
        return -1;
    }
    return 0;
}

/* rows == 0: rows = cols = floor(sqrt(n)); else as given. */
static int hgemm_shape(rb_size *s, char *why, size_t why_size)
{
    return rb_gemm_square_shape(s, HGEMM_MAX_DIM,
                                "hgemm needs 1 <= rows, cols <= 2^20 (M x N; K follows from N)",
                                why, why_size);
}

static double hgemm_flops_of(const hgemm_dims *d)
{
    return 2.0 * (double)d->m * (double)d->n * (double)d->k;
}

/* A and B read once, C's M x N written once (its padding is not touched): bf16 (2 bytes) inputs,
 * or e4m3 (1 byte) and two scales. */
static double hgemm_bytes_of(const hgemm_dims *d, double in_bytes)
{
    return in_bytes * ((double)d->m * d->k + (double)d->n * d->k) + 2.0 * (double)d->m * d->n +
           (in_bytes == 1.0 ? 8.0 : 0.0);
}

/* flops()/bytes() are the square's; input_work gives each input its own. */
static double hgemm_flops(const rb_size *size)
{
    hgemm_dims d = hgemm_dims_of(size, HG_SQUARE);
    return hgemm_flops_of(&d);
}

static double hgemm_bytes(const rb_size *size)
{
    hgemm_dims d = hgemm_dims_of(size, HG_SQUARE);
    return hgemm_bytes_of(&d, 2.0);
}

/* The FP8 variants' bytes (rb_variant_def.bytes, which sees no input: the square's; the awkward
 * input's are 0.2% more at 8192). */
static double hgemm_bytes_fp8(const rb_size *size)
{
    hgemm_dims d = hgemm_dims_of(size, HG_SQUARE);
    return hgemm_bytes_of(&d, 1.0);
}

static void hgemm_input_work(const rb_size *size, int input, double *flops, double *bytes)
{
    hgemm_dims d = hgemm_dims_of(size, input);
    *flops = hgemm_flops_of(&d);
    *bytes = hgemm_bytes_of(&d, 2.0);
}

/* bf16 bits to float (the CPU reference reads the device's inputs back). */
static float hgemm_bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- The context. ---- */

/* Device buffers: A (M x K), B (N x K) in bf16 and e4m3; C (lib.d.m x ldc: M rows for every
 * variant, the library's padded rows below them); packed: C without its padding (check; NULL
 * when ldc == N); ref[0] the bf16 reference, ref[1] the FP8 one (M x N fp32); lib_in: cuBLASLt's
 * A and B in bf16 and e4m3 (the pair's, or lib_own, their copies padded with zero rows). Host:
 * pad, a copy of C's padding columns (check). */
typedef struct hgemm_ctx {
    hgemm_dims d;
    size_t ldc;
    hgemm_lib_shape lib;
    const void *lib_in[4];
    void *lib_own[4];
    uint16_t *a, *b, *c, *packed;
    uint8_t *pad;
    uint8_t *a8, *b8;
    float *ref[2];
    float *scales; /* s_A at [0], s_B at [4] (each 16-byte aligned, as cuBLASLt wants) */
    void *workspace;
    rb_lt_gemm lt; /* BF16 */
    rb_lt_tuned tuned;
    rb_lt_gemm lt8; /* FP8 */
    cublasLtMatmulAlgo_t algo8;
    int candidate8, no_c8;
    char lt8_missing[240]; /* why fp8_library cannot run this shape ("" : it can) */
    /* Setup only (freed before setup returns; teardown frees them after a failed setup). */
    uint16_t *truth[2]; /* device: A's and B's FP8 truth (bf16), to be widened */
    cublasHandle_t blas;
    rb_gemm_ref ref64;
} hgemm_ctx;

static rb_status hgemm_upload(void **dst, const void *src, size_t bytes)
{
    RB_CUDA(cudaMalloc(dst, bytes));
    RB_CUDA(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice));
    return RB_OK;
}

/* out (rows x n, compact) = a b^T in double from bf16: a is rows x k, b is n x k, compact. */
static void hgemm_cpu_reference(const uint16_t *a, const uint16_t *b, size_t rows, size_t n,
                                size_t k, float *out)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < n; j++) {
            double s = 0.0;
            for (size_t p = 0; p < k; p++)
                s += (double)hgemm_bf16_to_float(a[r * k + p]) *
                     (double)hgemm_bf16_to_float(b[j * k + p]);
            out[r * n + j] = (float)s;
        }
}

/* rb_gemm_crosscheck's view of hgemm_cpu_reference; arg: the hgemm_dims. */
static void hgemm_cpu_rows(const void *a, const void *b, size_t rows, const void *arg, float *out)
{
    const hgemm_dims *d = arg;
    hgemm_cpu_reference(a, b, rows, d->n, d->k, out);
}

/* ref = fp64 GEMM of the truths a_truth (M x K) and b_truth (N x K), bf16 on the device, rounded
 * to fp32; then pinned to the CPU. */
static rb_status hgemm_reference(hgemm_ctx *c, const uint16_t *a_truth, const uint16_t *b_truth,
                                 float *ref)
{
    const hgemm_dims *d = &c->d;
    rb_gemm_ref *g = &c->ref64;
    RB_CUDA(rb_bf16_to_f64(a_truth, g->a, d->m * d->k, 0));
    RB_CUDA(rb_bf16_to_f64(b_truth, g->b, d->n * d->k, 0));
    RB_TRY(rb_gemm_ref_dgemm(g, c->blas, 1, d->m, d->n, d->k, d->k, d->k));
    RB_CUDA(rb_f64_to_f32(g->c, ref, d->m * d->n, 0));
    RB_CUDA(cudaDeviceSynchronize());
    rb_gemm_check x = {
        .pair = "hgemm",
        .a = a_truth,
        .b = b_truth,
        .a_row_bytes = d->k * sizeof(uint16_t),
        .b_bytes = d->n * d->k * sizeof(uint16_t),
        .ref = ref,
        .m = d->m,
        .n = d->n,
        .all = d->m * d->n <= HGEMM_CPU_FULL_MAX,
        .cpu = hgemm_cpu_rows,
        .arg = d,
    };
    return rb_gemm_crosscheck(&x);
}

/* Inputs made on the device (hgemm_fill_inputs: bf16, e4m3 and the FP8 truth of each side, from
 * rb_uniform_f32 as the host would make them, in milliseconds where the host took seconds at
 * 8192^3); both references. */
static rb_status hgemm_inputs_and_references(hgemm_ctx *c, uint64_t seed)
{
    const hgemm_dims *d = &c->d;
    RB_CUDA(cudaMalloc((void **)&c->a, d->m * d->k * 2));
    RB_CUDA(cudaMalloc((void **)&c->b, d->n * d->k * 2));
    RB_CUDA(cudaMalloc((void **)&c->a8, d->m * d->k));
    RB_CUDA(cudaMalloc((void **)&c->b8, d->n * d->k));
    RB_CUDA(cudaMalloc((void **)&c->truth[0], d->m * d->k * 2));
    RB_CUDA(cudaMalloc((void **)&c->truth[1], d->n * d->k * 2));
    RB_CUDA(hgemm_fill_inputs(c->a, c->a8, c->truth[0], d->m * d->k, seed, HGEMM_SCALE_A, 0));
    RB_CUDA(hgemm_fill_inputs(c->b, c->b8, c->truth[1], d->n * d->k, seed + 1, HGEMM_SCALE_B, 0));
    RB_TRY(rb_gemm_ref_alloc(&c->ref64, d->m * d->k, d->n * d->k, d->m * d->n));
    RB_CUBLAS(cublasCreate(&c->blas));
    RB_TRY(hgemm_reference(c, c->a, c->b, c->ref[0]));
    RB_TRY(hgemm_reference(c, c->truth[0], c->truth[1], c->ref[1]));
    for (int i = 0; i < 2; i++) {
        RB_CUDA(cudaFree(c->truth[i]));
        c->truth[i] = NULL;
    }
    RB_CUBLAS(cublasDestroy(c->blas));
    c->blas = NULL;
    return rb_gemm_ref_free(&c->ref64);
}

/* ---- cuBLASLt. ---- */

/* cuBLASLt's inputs (A, B in bf16, then in e4m3): the pair's own, or at a padded shape copies
 * with lib.d.m / lib.d.n rows whose extra rows are zero, so that C's M x N corner is the pair's
 * product. Made once here, outside the timing. */
static rb_status hgemm_lib_inputs(hgemm_ctx *c)
{
    const hgemm_dims *d = &c->d;
    const void *own[4] = {c->a, c->b, c->a8, c->b8};
    const size_t used[4] = {d->m * d->k * 2, d->n * d->k * 2, d->m * d->k, d->n * d->k};
    const size_t bytes[4] = {c->lib.a_bytes, c->lib.b_bytes, c->lib.a_bytes / 2,
                             c->lib.b_bytes / 2};
    for (int i = 0; i < 4; i++) {
        c->lib_in[i] = own[i];
        if (!c->lib.padded)
            continue;
        RB_CUDA(cudaMalloc(&c->lib_own[i], bytes[i]));
        RB_CUDA(cudaMemset(c->lib_own[i], 0, bytes[i]));
        RB_CUDA(cudaMemcpy(c->lib_own[i], own[i], used[i], cudaMemcpyDeviceToDevice));
        c->lib_in[i] = c->lib_own[i];
    }
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

/* The TN problem in `type` on lib.d (see the top): cuBLASLt's A = our B (K x N column-major,
 * op T), its B = our A (K x M, op N), its C = D = our C (N x M column-major, leading dimension
 * ldc). */
static rb_status hgemm_lt_problem(hgemm_ctx *c, rb_lt_gemm *g, cudaDataType_t type)
{
    const hgemm_dims *d = &c->lib.d;
    int32_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
    int fp8 = type == CUDA_R_8F_E4M3;
    g->a = c->lib_in[2 * fp8 + 1];
    g->b = c->lib_in[2 * fp8];
    g->c = c->c;
    g->workspace = c->workspace;
    g->workspace_bytes = HGEMM_WORKSPACE;
    RB_CUBLAS(cublasLtCreate(&g->lt));
    RB_CUBLAS(cublasLtMatmulDescCreate(&g->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                             sizeof trans_a));
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                             sizeof trans_b));
    if (type == CUDA_R_8F_E4M3) {
        const float *scale_a = c->scales + 4, *scale_b = c->scales; /* its A is our B */
        int8_t fast = 1;
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                 &scale_a, sizeof scale_a));
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                 &scale_b, sizeof scale_b));
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                 sizeof fast));
    }
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&g->layout_a, type, d->k, d->n, (int64_t)d->k));
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&g->layout_b, type, d->k, d->m, (int64_t)d->k));
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&g->layout_c, CUDA_R_16BF, d->n, d->m, (int64_t)c->ldc));
    return RB_OK;
}

/* The FP8 GEMM with algo: C = D, or no C (beta is 0). Status unchecked. */
static cublasStatus_t hgemm_lt8_run(const hgemm_ctx *c, const cublasLtMatmulAlgo_t *algo, int no_c,
                                    cudaStream_t stream)
{
    const rb_lt_gemm *g = &c->lt8;
    const float one = 1.0f, zero = 0.0f;
    return cublasLtMatmul(g->lt, g->desc, &one, g->a, g->layout_a, g->b, g->layout_b, &zero,
                          no_c ? NULL : g->c, g->layout_c, g->c, g->layout_c, algo, g->workspace,
                          g->workspace_bytes, stream);
}

/* The heuristic's first FP8 candidate that runs, with C = D, else with no C: on the H100
 * cuBLASLt 13.0 refused its first FP8 choice with C = D (gemm_precision). */
static rb_status hgemm_lt8_choose(hgemm_ctx *c)
{
    cublasLtMatmulHeuristicResult_t h[HGEMM_FP8_CANDIDATES];
    cublasLtMatmulPreference_t pref = NULL;
    uint64_t workspace = HGEMM_WORKSPACE;
    int found = 0;
    memset(h, 0, sizeof h);
    RB_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulAlgoGetHeuristic(c->lt8.lt, c->lt8.desc, c->lt8.layout_a, c->lt8.layout_b,
                                           c->lt8.layout_c, c->lt8.layout_c, pref,
                                           HGEMM_FP8_CANDIDATES, h, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (s != CUBLAS_STATUS_NOT_SUPPORTED)
        RB_CUBLAS(s);
    cublasStatus_t last = CUBLAS_STATUS_NOT_SUPPORTED;
    for (int no_c = 0; no_c < 2; no_c++)
        for (int i = 0; i < found; i++) {
            if (h[i].state != CUBLAS_STATUS_SUCCESS)
                continue;
            last = hgemm_lt8_run(c, &h[i].algo, no_c, 0);
            if (last == CUBLAS_STATUS_SUCCESS) {
                RB_CUDA(cudaDeviceSynchronize());
                c->algo8 = h[i].algo;
                c->candidate8 = i;
                c->no_c8 = no_c;
                return RB_OK;
            }
        }
    /* No FP8 algorithm for this shape (on the H100, cuBLASLt 13.0: every shape with an odd M,
     * the heuristic answering "not supported", which the padding to 8 avoids): fp8_library is
     * skipped with the reason, the other variants still run (run_fp8_library). */
    rb_fmt(c->lt8_missing, sizeof c->lt8_missing,
           "cuBLASLt has no FP8 algorithm for M=%zu N=%zu K=%zu (%d candidates, last: %s)",
           c->lib.d.m, c->lib.d.n, c->lib.d.k, found, cublasGetStatusString(found ? last : s));
    return RB_OK;
}

static rb_status hgemm_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    char why[200];
    hgemm_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    if (input < 0 || input >= HG_INPUTS)
        return RB_ERR_INPUT;
    c->d = hgemm_dims_of(size, input);
    if (hgemm_dims_check(&c->d, why, sizeof why) != 0) {
        rb_error_at(__FILE__, __LINE__, "hgemm_setup", why);
        return RB_ERR_INPUT;
    }
    const hgemm_dims *d = &c->d;
    c->ldc = hgemm_ldc_of(d->n);
    c->lib = hgemm_lib_shape_of(d, c->ldc, HGEMM_LIB_ALIGN);
    RB_CUDA(cudaMalloc((void **)&c->c, c->lib.c_bytes));
    if (c->ldc != d->n) {
        RB_CUDA(cudaMalloc((void **)&c->packed, d->m * d->n * 2));
        c->pad = malloc(d->m * (c->ldc - d->n) * 2);
        if (!c->pad)
            return RB_ERR_ALLOC;
    }
    RB_CUDA(cudaMalloc((void **)&c->ref[0], d->m * d->n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->ref[1], d->m * d->n * sizeof(float)));
    RB_CUDA(cudaMalloc(&c->workspace, HGEMM_WORKSPACE));
    const float scales[8] = {HGEMM_SCALE_A, 0, 0, 0, HGEMM_SCALE_B, 0, 0, 0};
    RB_TRY(hgemm_upload((void **)&c->scales, scales, sizeof scales));
    RB_TRY(hgemm_inputs_and_references(c, seed));
    RB_TRY(hgemm_lib_inputs(c));
    RB_TRY(hgemm_lt_problem(c, &c->lt, CUDA_R_16BF));
    static const char *const labels[HG_INPUTS] = {"hgemm.square", "hgemm.awkward"};
    /* tuned and cached as the problem it runs, the padded one where it is padded */
    RB_TRY(rb_lt_gemm_tune(&c->lt, c->lib.d.m, c->lib.d.n, c->lib.d.k, labels[input], &c->tuned));
    RB_TRY(hgemm_lt_problem(c, &c->lt8, CUDA_R_8F_E4M3));
    return hgemm_lt8_choose(c);
}

static void hgemm_teardown(void *ctx)
{
    hgemm_ctx *c = ctx;
    if (!c)
        return;
    rb_lt_gemm_destroy(&c->lt);
    rb_lt_gemm_destroy(&c->lt8);
    if (c->blas)
        cublasDestroy(c->blas);
    cudaFree(c->a);
    cudaFree(c->b);
    cudaFree(c->a8);
    cudaFree(c->b8);
    for (int i = 0; i < 4; i++)
        cudaFree(c->lib_own[i]);
    cudaFree(c->c);
    cudaFree(c->packed);
    free(c->pad);
    cudaFree(c->ref[0]);
    cudaFree(c->ref[1]);
    cudaFree(c->scales);
    cudaFree(c->workspace);
    cudaFree(c->truth[0]);
    cudaFree(c->truth[1]);
    rb_gemm_ref_free(&c->ref64);
    free(c);
}

/* Every variant writes C: its padding columns are poisoned too (the check's sentinel). */
static void hgemm_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    hgemm_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->c;
    *bytes = c->d.m * c->ldc * 2;
}

/* Each variant against its reference (bf16 or FP8 truth), on C's M x N values; then C's padding
 * columns must still hold the poison (see the top): else the error is infinite, and a line on
 * stderr says why. The one exception, hgemm_writes_padding: a library variant on N padded to 8
 * writes zeros there by design (the user's padded layout, read at its M x N corner). */
static rb_status hgemm_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    hgemm_ctx *c = ctx;
    const hgemm_dims *d = &c->d;
    const float *ref = c->ref[variant == HG_FP8 || variant == HG_FP8_LIBRARY];
    RB_TRY(rb_gemm_relerr_padded(c->c, c->packed, d->m, d->n, c->ldc, 2, ref, stream, rel_err));
    if (c->ldc == d->n || hgemm_writes_padding(&c->lib, d, variant))
        return RB_OK;
    size_t pad_bytes = (c->ldc - d->n) * 2;
    RB_CUDA(cudaMemcpy2DAsync(c->pad, pad_bytes, c->c + d->n, c->ldc * 2, pad_bytes, d->m,
                              cudaMemcpyDeviceToHost, stream));
    RB_CUDA(cudaStreamSynchronize(stream));
    size_t written = hgemm_padding_written(c->pad, pad_bytes * d->m);
    if (written) {
        fprintf(stderr, "hgemm: %s wrote %zu bytes of C's padding (columns %zu .. %zu)\n",
                rb_pair_hgemm.variants[variant].name, written, d->n, c->ldc - 1);
        *rel_err = INFINITY;
    }
    return RB_OK;
}

/* ---- The variants. ---- */

typedef cudaError_t (*hgemm_launcher)(const uint16_t *, const uint16_t *, uint16_t *, int, int, int,
                                      int, cudaStream_t);

static rb_status hgemm_run_step(void *ctx, hgemm_launcher launch, cudaStream_t stream)
{
    hgemm_ctx *c = ctx;
    RB_CUDA(launch(c->a, c->b, c->c, (int)c->d.m, (int)c->d.n, (int)c->d.k, (int)c->ldc, stream));
    return RB_OK;
}

static rb_status run_mma_sync(void *ctx, cudaStream_t stream)
{
    return hgemm_run_step(ctx, hgemm_mma_sync, stream);
}

static rb_status run_cp_async(void *ctx, cudaStream_t stream)
{
    return hgemm_run_step(ctx, hgemm_cp_async, stream);
}

static rb_status run_wgmma(void *ctx, cudaStream_t stream)
{
    return hgemm_run_step(ctx, hgemm_wgmma, stream);
}

static rb_status run_tma(void *ctx, cudaStream_t stream)
{
    return hgemm_run_step(ctx, hgemm_tma, stream);
}

static rb_status run_warp_specialized(void *ctx, cudaStream_t stream)
{
    return hgemm_run_step(ctx, hgemm_warp_specialized, stream);
}

static rb_status run_clusters(void *ctx, cudaStream_t stream)
{
    return hgemm_run_step(ctx, hgemm_clusters, stream);
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    return hgemm_run_step(ctx, hgemm_optimized, stream);
}

static rb_status run_library(void *ctx, cudaStream_t stream)
{
    hgemm_ctx *c = ctx;
    RB_CUBLAS(rb_lt_gemm_run(&c->lt, &c->tuned.tuned, stream));
    return RB_OK;
}

static rb_status run_fp8(void *ctx, cudaStream_t stream)
{
    hgemm_ctx *c = ctx;
    RB_CUDA(hgemm_fp8_optimized(c->a8, c->b8, c->c, (int)c->d.m, (int)c->d.n, (int)c->d.k,
                                (int)c->ldc, HGEMM_SCALE_A, HGEMM_SCALE_B, stream));
    return RB_OK;
}

static rb_status run_fp8_library(void *ctx, cudaStream_t stream)
{
    hgemm_ctx *c = ctx;
    if (c->lt8_missing[0]) {
        rb_skip_at(__FILE__, __LINE__, "fp8_library", c->lt8_missing);
        return RB_ERR_UNSUPPORTED;
    }
    RB_CUBLAS(hgemm_lt8_run(c, &c->algo8, c->no_c8, stream));
    return RB_OK;
}

/* Planted defects (tests/test_gpu.c), all in step 1's kernel (kernels/hgemm.h). At 999 x 1021
 * (square 999 x 1021 x 1024, awkward 998 x 1018 x 1040) the terms are independent and zero-mean,
 * so a dropped share f of K or of the rows gives a normwise error of about sqrt(f):
 *   k_tail_tile_skipped: the K loop one 32-deep tile short: 32 of 1024 and 16 of 1040 columns
 *     of K dropped: 0.18 and 0.12, 25-35x the 5e-3 tolerance;
 *   edge_row_guard_off_by_one: the A loader's row guard `row < m - 1`: the last row of C is 0
 *     (every element written, so the poison alone does not catch it): sqrt(1/999) = 0.032, 6x;
 *   padding_written: the store guard `col < ldc`: every value inside M x N right (an error of
 *     ~1.7e-3, within tolerance), but zeros in C's padding columns (3 and 6 of ldc 1024): only
 *     the padding check catches it, with an infinite error. */
static rb_status hgemm_run_defect(void *ctx, int defect, cudaStream_t stream)
{
    hgemm_ctx *c = ctx;
    RB_CUDA(hgemm_mma_sync_defect(c->a, c->b, c->c, (int)c->d.m, (int)c->d.n, (int)c->d.k,
                                  (int)c->ldc, defect, stream));
    return RB_OK;
}

static rb_status run_defect_k_tail(void *ctx, cudaStream_t stream)
{
    return hgemm_run_defect(ctx, HGEMM_DEFECT_K_TAIL, stream);
}

static rb_status run_defect_edge_row(void *ctx, cudaStream_t stream)
{
    return hgemm_run_defect(ctx, HGEMM_DEFECT_EDGE_ROW, stream);
}

static rb_status run_defect_pad_write(void *ctx, cudaStream_t stream)
{
    return hgemm_run_defect(ctx, HGEMM_DEFECT_PAD_WRITE, stream);
}

/* The acceptance ratios, beside the optimized and fp8 variants: speed over the library's
 * (library time / ours; >= 0.95 for bf16, >= 0.90 for FP8). The variants are timed in turns
 * (in sustained windows at the full size), so both sides of each ratio met the same clocks;
 * the harness gives extras() no per-variant clock, so no separate "at equal clock" figure is
 * computed here. The library's tuning is reported too. */
static int hgemm_extras(void *ctx, int variant, const double *median_ms,
                        rb_extra out[RB_MAX_EXTRAS])
{
    hgemm_ctx *c = ctx;
    if (variant == HG_OPTIMIZED || variant == HG_FP8) {
        int lib = variant == HG_OPTIMIZED ? HG_LIBRARY : HG_FP8_LIBRARY;
        if (isnan(median_ms[lib]) && isnan(median_ms[variant]))
            return 0; /* neither timed at this row (hgemm_swept_variants): nothing to compare */
        rb_fmt(out[0].name, sizeof out[0].name, "speed_vs_library");
        out[0].value = median_ms[lib] / median_ms[variant]; /* NaN when either was not timed */
        return 1;
    }
    if (variant == HG_LIBRARY) {
        rb_fmt(out[0].name, sizeof out[0].name, "candidates");
        out[0].value = c->tuned.candidates;
        rb_fmt(out[1].name, sizeof out[1].name, "chosen_index");
        out[1].value = c->tuned.chosen;
        rb_fmt(out[2].name, sizeof out[2].name, "cache_hit");
        out[2].value = c->tuned.cache_hit;
        rb_fmt(out[3].name, sizeof out[3].name, "setup_gain");
        out[3].value = c->tuned.setup_gain;
        return 4;
    }
    return 0;
}

static int hgemm_library_algo(void *ctx, int variant, rb_library_algo *out)
{
    hgemm_ctx *c = ctx;
    if (variant == HG_LIBRARY)
        return rb_lt_algo_describe(&c->tuned.tuned, c->tuned.chosen, out);
    if (variant == HG_FP8_LIBRARY && !c->lt8_missing[0])
        return rb_lt_algo_describe(&c->algo8, c->candidate8, out);
    return 0;
}

/* At a padded shape, the library rows say so: their time is that of the padded problem. */
static int hgemm_variant_note(void *ctx, int variant, char *out, size_t out_size)
{
    const hgemm_ctx *c = ctx;
    if (!c->lib.padded || (variant != HG_LIBRARY && variant != HG_FP8_LIBRARY))
        return 0;
    rb_fmt(out, out_size,
           "cuBLASLt ran %zu x %zu x %zu, M and N padded to 8 with zero rows of A and B, as a user "
           "would (C read at its M x N corner); flops counted 2 M N K",
           c->lib.d.m, c->lib.d.n, c->lib.d.k);
    return 1;
}

/* The shape rules against hand-computed cases: rows x cols to M x N x K per input, C's ldc. */
static int hgemm_selftest_shapes(char *why, size_t why_size)
{
    /* Shapes: 2^26 -> 8192^3 and 8191 x 8189 x 8208; 6144^2 -> 6144^3 and 6143 x 6141 x 6160;
     * 999x1021 -> K 1024 and 998 x 1018 x 1040; 1000003 -> 1000 x 1000 x 1008 and 999 x 997 x
     * 1040 (1024 is a multiple of 64). C's rows: N rounded up to 8. */
    rb_size full = {1u << 26, 0, 0}, mid = {6144u * 6144u, 0, 0}, shaped = {999 * 1021, 999, 1021},
            odd = {1000003, 0, 0};
    char sub[160];
    if (hgemm_shape(&full, sub, sizeof sub) != 0 || hgemm_shape(&mid, sub, sizeof sub) != 0 ||
        hgemm_shape(&shaped, sub, sizeof sub) != 0 || hgemm_shape(&odd, sub, sizeof sub) != 0) {
        rb_fmt(why, why_size, "shape rule refused 2^26, 6144^2, 999x1021 or 1000003");
        return -1;
    }
    const hgemm_dims want_dims[8] = {{8192, 8192, 8192}, {8191, 8189, 8208}, {6144, 6144, 6144},
                                     {6143, 6141, 6160}, {999, 1021, 1024},  {998, 1018, 1040},
                                     {1000, 1000, 1008}, {999, 997, 1040}};
    const size_t want_ldc[8] = {8192, 8192, 6144, 6144, 1024, 1024, 1000, 1000};
    const rb_size *sizes[4] = {&full, &mid, &shaped, &odd};
    for (int i = 0; i < 8; i++) {
        hgemm_dims d = hgemm_dims_of(sizes[i / 2], i % 2);
        if (memcmp(&d, &want_dims[i], sizeof d) != 0 || hgemm_dims_check(&d, sub, sizeof sub) ||
            hgemm_ldc_of(d.n) != want_ldc[i]) {
            rb_fmt(why, why_size, "dims %d: %zu x %zu x %zu, ldc %zu", i, d.m, d.n, d.k,
                   hgemm_ldc_of(d.n));
            return -1;
        }
    }
    /* The awkward input's C: 4093 columns in rows of 4096 (16-byte rows), 1 column in rows of 8. */
    if (hgemm_ldc_of(4093) != 4096 || hgemm_ldc_of(1) != 8) {
        rb_fmt(why, why_size, "C's row stride is not N rounded up to 8");
        return -1;
    }
    return 0;
}

static int hgemm_lib_shape_equal(const hgemm_lib_shape *x, const hgemm_lib_shape *y)
{
    return x->d.m == y->d.m && x->d.n == y->d.n && x->d.k == y->d.k && x->padded == y->padded &&
           x->a_bytes == y->a_bytes && x->b_bytes == y->b_bytes && x->c_bytes == y->c_bytes;
}

/* The library's problem and buffers against hand-computed cases, and which variants may write
 * C's padding; planted: the padding rounded to 2 (N 4093 -> 4094, an ldc cuBLASLt's C could not
 * have: rows of 8188 bytes) must be caught. */
static int hgemm_selftest_lib_shapes(char *why, size_t why_size)
{
    /* Pair's M x N x K and ldc -> cuBLASLt's M x N x K, padded, bytes of A, B (bf16) and C:
     * the awkward rows at 16M and at 999x1021 and 1000003, the square at 64M and 999x1021. */
    const hgemm_dims in[5] = {{4095, 4093, 4112},
                              {998, 1018, 1040},
                              {999, 997, 1040},
                              {8192, 8192, 8192},
                              {999, 1021, 1024}};
    const size_t ldc[5] = {4096, 1024, 1000, 8192, 1024};
    const hgemm_lib_shape want[5] = {
        {{4096, 4096, 4112}, 1, 4096 * 4112 * 2, 4096 * 4112 * 2, 4096 * 4096 * 2},
        {{1000, 1024, 1040}, 1, 1000 * 1040 * 2, 1024 * 1040 * 2, 1000 * 1024 * 2},
        {{1000, 1000, 1040}, 1, 1000 * 1040 * 2, 1000 * 1040 * 2, 1000 * 1000 * 2},
        {{8192, 8192, 8192}, 0, 8192 * 8192 * 2, 8192 * 8192 * 2, 8192 * 8192 * 2},
        {{1000, 1024, 1024}, 1, 1000 * 1024 * 2, 1024 * 1024 * 2, 1000 * 1024 * 2}};
    for (int i = 0; i < 5; i++) {
        hgemm_lib_shape l = hgemm_lib_shape_of(&in[i], ldc[i], HGEMM_LIB_ALIGN);
        if (!hgemm_lib_shape_equal(&l, &want[i])) {
            rb_fmt(why, why_size, "library shape %d: %zu x %zu x %zu, padded %d, bytes %zu %zu %zu",
                   i, l.d.m, l.d.n, l.d.k, l.padded, l.a_bytes, l.b_bytes, l.c_bytes);
            return -1;
        }
    }
    hgemm_lib_shape planted = hgemm_lib_shape_of(&in[0], ldc[0], 2);
    if (hgemm_lib_shape_equal(&planted, &want[0])) {
        rb_fmt(why, why_size, "the library shape rounded to 2 not caught");
        return -1;
    }
    /* Only the library variants, and only where N is padded, may write C's padding: both at
     * 4095 x 4093; none at 8192^3 nor at 999 x 1000 (M padded alone); never a hand-written step
     * (mma_sync: padding_written's). */
    hgemm_lib_shape awk = hgemm_lib_shape_of(&in[0], ldc[0], HGEMM_LIB_ALIGN),
                    sq = hgemm_lib_shape_of(&in[3], ldc[3], HGEMM_LIB_ALIGN);
    hgemm_dims m_only = {999, 1000, 1008};
    hgemm_lib_shape m_pad = hgemm_lib_shape_of(&m_only, 1000, HGEMM_LIB_ALIGN);
    int writes = 0;
    for (int v = 0; v < HG_VARIANTS; v++)
        writes += hgemm_writes_padding(&awk, &in[0], v) +
                  10 * hgemm_writes_padding(&sq, &in[3], v) +
                  100 * hgemm_writes_padding(&m_pad, &m_only, v);
    if (writes != 2 || !hgemm_writes_padding(&awk, &in[0], HG_LIBRARY) ||
        !hgemm_writes_padding(&awk, &in[0], HG_FP8_LIBRARY) || !m_pad.padded) {
        rb_fmt(why, why_size, "the padding exemption is not exactly the padded library's");
        return -1;
    }
    return 0;
}

/* The pure parts against hand-computed cases: the CPU reference, the roundings, the shapes and
 * their refusal, the padding check, the work model. */
static int hgemm_selftest(char *why, size_t why_size)
{
    /* A = [1 2 -1; 0.5 0 4] (2 x 3), B = [1 1 1; -2 0.25 1] (2 x 3): A B^T = [2 -2.5; 4.5 3]. */
    const uint16_t a[6] = {0x3F80, 0x4000, 0xBF80, 0x3F00, 0x0000, 0x4080};
    const uint16_t b[6] = {0x3F80, 0x3F80, 0x3F80, 0xC000, 0x3E80, 0x3F80};
    const float want[4] = {2.0f, -2.5f, 4.5f, 3.0f};
    float out[4];
    hgemm_cpu_reference(a, b, 2, 2, 3, out);
    if (!(rb_relerr_f32(out, want, 4) == 0.0)) {
        rb_fmt(why, why_size, "CPU reference wrong on the 2x2x3 case");
        return -1;
    }
    if (hgemm_bf16_to_float(0xC100) != -8.0f || hgemm_bf16_to_float(0x3F82) != 1.0f + 0x1p-6f) {
        rb_fmt(why, why_size, "bf16 decoding wrong");
        return -1;
    }
    if (hgemm_selftest_shapes(why, why_size) != 0 || hgemm_selftest_lib_shapes(why, why_size) != 0)
        return -1;
    /* The padding check: poison everywhere passes; one byte written (a zero's low byte) fails. */
    uint8_t pad[24];
    memset(pad, 0xFF, sizeof pad);
    size_t clean = hgemm_padding_written(pad, sizeof pad);
    pad[17] = 0x00;
    if (clean != 0 || hgemm_padding_written(pad, sizeof pad) != 1 ||
        hgemm_padding_written(pad, 17) != 0) {
        rb_fmt(why, why_size, "padding check wrong");
        return -1;
    }
    char sub[160];
    /* K % 8 != 0 and K % 16 != 0 are refused with their reasons; so is an empty dimension. */
    hgemm_dims k_odd = {64, 64, 1020}, k_8 = {64, 64, 1016}, empty = {0, 64, 64};
    if (hgemm_dims_check(&k_odd, sub, sizeof sub) != -1 || !strstr(sub, "multiple of 8") ||
        hgemm_dims_check(&k_8, sub, sizeof sub) != -1 || !strstr(sub, "multiple of 16") ||
        hgemm_dims_check(&empty, sub, sizeof sub) != -1) {
        rb_fmt(why, why_size, "K %% 8, K %% 16 or M = 0 not refused as it should be");
        return -1;
    }
    /* Work at 8192^3: 2^40 flops; bf16 3 x 2^27 bytes, fp8 2 x 2^26 + 2^27 + 8. The awkward
     * 4095 x 4093 x 4112: C counted as M N elements, not M ldc. */
    double flops, bytes;
    rb_size full = {1u << 26, 8192, 8192}, awkward = {4096u * 4096u, 4096, 4096};
    hgemm_input_work(&awkward, HG_AWKWARD, &flops, &bytes);
    if (hgemm_flops(&full) != 0x1p40 || hgemm_bytes(&full) != 3.0 * 0x1p27 ||
        hgemm_bytes_fp8(&full) != 0x1p27 + 0x1p27 + 8.0 || flops != 2.0 * 4095 * 4093 * 4112 ||
        bytes != 2.0 * (4095.0 * 4112 + 4093.0 * 4112 + 4095.0 * 4093)) {
        rb_fmt(why, why_size, "work model wrong at 8192^3 or at the awkward 4095 x 4093 x 4112");
        return -1;
    }
    return 0;
}

static const uint64_t hgemm_sweep[] = {1u << 26, 6144u * 6144u, 1u << 24, 0}; /* 8192^3 .. 4096^3 */
/* The awkward shape at one size, 4095 x 4093 x 4112: its edges are the same at 8191 x 8189 x
 * 8208, which took 27 s of a full run (cuBLASLt runs 9.4 ms there, 8x its square time); run it
 * with --filter hgemm.awkward --size 67108864. */
static const uint64_t hgemm_awkward_sweep[] = {1u << 24, 0};

/* What a full run times at the sweep's rows below 8192^3 (rb_pair_ext.swept_variants): the top
 * BF16 step against cuBLASLt everywhere, the FP8 pair at 4096^3 and at the awkward shape, not at
 * 6144^3 (a BF16 row: where the public BF16 kernels lead most). Sustained, each variant costs a
 * row ~1.6 s of windows: the whole ladder at every row would add ~35 s to a full run for what the
 * 8192^3 rows already show. */
static unsigned hgemm_swept_variants(int input, uint64_t size)
{
    unsigned bf16 = 1u << HG_OPTIMIZED | 1u << HG_LIBRARY,
             fp8 = 1u << HG_FP8 | 1u << HG_FP8_LIBRARY;
    return input == HG_SQUARE && size == 6144u * 6144u ? bf16 : bf16 | fp8;
}

static const rb_pair_ext hgemm_ext = {
    .min_cc = 90, /* wgmma, TMA and clusters: sm_90a (H100, H200) */
    .shape = hgemm_shape,
    .work = hgemm_input_work,
    .extras = hgemm_extras,
    .library_algo = hgemm_library_algo,
    .variant_note = hgemm_variant_note,
    .sweep = hgemm_sweep,
    .input_sweep = {NULL, hgemm_awkward_sweep},
    /* optimized and library differ by a few percent at most, less than a power-capped GPU
     * drifts between two variants timed one after the other: every variant is timed in turns.
     * At the full size in sustained windows (ext->timing.sustain_s): in ~1 ms samples in
     * turn, the slow steps between the fast ones lowered the board's power and the fast ones ran
     * near the boost clock, above the bf16 and fp8 roofs that `roofbench ceilings` measures
     * sustained. Timed as the roof is, the faster of optimized and cuBLASLt sets the roof of the
     * run when it beats the measured one (model/report.h). The sweep's smaller rows are timed
     * the same way (sustained), for the top steps against the library only
     * (hgemm_swept_variants). */
    .timing.interleave = 1,
    .timing.sustain_s = 1.0,
    .swept_variants = hgemm_swept_variants,
    .swept_why = "the ladder's steps are timed at 8192^3; the smaller rows compare the top "
                 "steps with cuBLASLt, FP8 where its rows are (4096^3, the awkward shape)",
};

const rb_pair rb_pair_hgemm = {
    .name = "hgemm",
    .pattern = "BF16 GEMM by hand, mma.sync -> cp.async -> wgmma -> TMA -> warp specialization "
               "-> clusters, against cuBLASLt (and FP8), both on C rows padded to 16 bytes",
    .size_unit =
        "output elements (M x N; K = N rounded up to 16; C's rows 16-byte aligned, ldc = N "
        "rounded up to 8: 4096 at the awkward 4095 x 4093 x 4112)",
    .smoke_size = 1u << 16,
    .full_size = 1u << 26,
    .flops = hgemm_flops,
    .bytes = hgemm_bytes,
    .setup = hgemm_setup,
    .output = hgemm_output,
    .check = hgemm_check,
    .teardown = hgemm_teardown,
    .selftest = hgemm_selftest,
    /* What each step is made of (kernels/hgemm.cu), by the SASS that only that technique
     * emits: HMMA.16816 (mma.sync m16n8k16), LDSM (ldmatrix), LDGSTS (cp.async), HGMMA / QGMMA
     * (wgmma, bf16 / e4m3), UTMALDG (TMA loads), UTMASTG (TMA stores: steps 6-7 and fp8). A
     * pair's rules may name at most RB_MAX_EXTRAS - 1 distinct instructions (their counts are
     * reported as extras), so SYNCS (mbarrier), which every UTMALDG kernel needs anyway, is not
     * named. Every hgemm_* kernel must also be free of local memory (tests/test_codegen.c). */
    .codegen =
        {
            {"hgemm_mma_sync_kernel", "HMMA.16816", 0},
            {"hgemm_mma_sync_kernel", "LDSM", 0},
            {"hgemm_cp_async_kernel", "HMMA.16816", 0},
            {"hgemm_cp_async_kernel", "LDSM", 0},
            {"hgemm_cp_async_kernel", "LDGSTS", 0},
            {"hgemm_wgmma_kernel", "HGMMA", 90},
            {"hgemm_tma_kernel", "HGMMA", 90},
            {"hgemm_tma_kernel", "UTMALDG", 90},
            {"hgemm_warp_specialized_kernel", "HGMMA", 90},
            {"hgemm_warp_specialized_kernel", "UTMALDG", 90},
            {"hgemm_clusters_kernel", "HGMMA", 90},
            {"hgemm_clusters_kernel", "UTMALDG", 90},
            {"hgemm_clusters_kernel", "UTMASTG", 90},
            {"hgemm_optimized_kernel", "HGMMA", 90},
            {"hgemm_optimized_kernel", "UTMASTG", 90},
            {"hgemm_optimized_kernel", "UTMALDG", 90},
            {"hgemm_fp8_optimized_kernel", "QGMMA", 90},
            {"hgemm_fp8_optimized_kernel", "UTMASTG", 90},
            {"hgemm_fp8_optimized_kernel", "UTMALDG", 90},
            {NULL, NULL, 0},
        },
    .kernels = hgemm_kernels,
    .n_inputs = HG_INPUTS,
    .inputs = {"square", "awkward"},
    .n_variants = HG_VARIANTS,
    .variants =
        {
            /* Error model (normwise relative error against the fp64 GEMM of the exact inputs):
             * products of bf16 (or E4M3 times power-of-two scales) are exact in fp32; fp32
             * accumulation over K adds ~0.3 u_32 sqrt(K) ~ 1.6e-6 at K = 8192 (u_32 = 2^-24;
             * the tensor cores' truncating adds at most a few times that); the bf16 output
             * rounding dominates: relative error up to u = 2^-9 per element, ~1.66e-3 normwise
             * for these random values whatever the shape (measured on the H100 for cuBLASLt's
             * bf16 GEMM in gemm_autotune and gemm_precision: 1.660e-3 to 1.662e-3). 5e-3 is 3x
             * that; a skipped K tile gives 0.12-0.18, a zeroed edge row 0.032 (the planted
             * defects). FP8: the same output rounding plus the wgmma's FP8 accumulation inside
             * the MMA without promotion (fast accumulation: ~14 bits kept), which grows with K:
             * cuBLASLt measured 2.49e-3 at K = 8192 in gemm_precision; 5e-3 is 2x that. What
             * each variant reaches at a full run's shapes: docs/notes/hgemm.md (Accuracy); the
             * largest is half the tolerance. */
            {"mma_sync", RB_ROLE_BASELINE, RB_UNIT_BF16, 5e-3, run_mma_sync},
            {"cp_async", RB_ROLE_STEP, RB_UNIT_BF16, 5e-3, run_cp_async},
            {"wgmma", RB_ROLE_STEP, RB_UNIT_BF16, 5e-3, run_wgmma},
            {"tma", RB_ROLE_STEP, RB_UNIT_BF16, 5e-3, run_tma},
            {"warp_specialized", RB_ROLE_STEP, RB_UNIT_BF16, 5e-3, run_warp_specialized},
            {"clusters", RB_ROLE_STEP, RB_UNIT_BF16, 5e-3, run_clusters},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_BF16, 5e-3, run_optimized},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_BF16, 5e-3, run_library},
            {"fp8", RB_ROLE_STEP, RB_UNIT_FP8, 5e-3, run_fp8, hgemm_bytes_fp8},
            {"fp8_library", RB_ROLE_LIBRARY, RB_UNIT_FP8, 5e-3, run_fp8_library, hgemm_bytes_fp8},
        },
    .defects =
        {
            {"k_tail_tile_skipped", HG_MMA_SYNC, run_defect_k_tail},
            {"edge_row_guard_off_by_one", HG_MMA_SYNC, run_defect_edge_row},
            {"padding_written", HG_MMA_SYNC, run_defect_pad_write},
        },
    .ext = &hgemm_ext,
};
