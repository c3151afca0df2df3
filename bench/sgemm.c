/* SPDX-License-Identifier: MIT */
/* sgemm: the harness's view of kernels/sgemm.cu (read that file first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "model/compare.h"
#include "gemm_ref.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/sgemm.h"

#define SGEMM_MAX_DIM (1u << 20)        /* M, N, K limit: int indexing, grid y <= 65535 */
#define SGEMM_CPU_FULL_MAX (1ull << 27) /* M N K up to this: the CPU checks every row */
#define SGEMM_TOL 5e-6                  /* every variant's; the error model is at the table */
/* K: 0 follows N (K = N, the default); a positive value fixes it (CFLAGS=-DSGEMM_FIXED_K=1024). */
#ifndef SGEMM_FIXED_K
#define SGEMM_FIXED_K 0
#endif
/* The library variant's math mode. CUBLAS_DEFAULT_MATH lets cublasSgemm use fp32 FMA only: TF32
 * tensor cores need CUBLAS_TF32_TENSOR_OP_MATH (or a _FAST_TF32 compute type), and
 * NVIDIA_TF32_OVERRIDE can only switch TF32 off, never on, so it cannot change this variant
 * (=0 would matter only to code that asks for TF32). A TF32 result would fail the 5e-6
 * tolerance anyway (~1e-3 error) and be reported invalid, never timed as fp32.
 * -DSGEMM_CUBLAS_MATH=CUBLAS_PEDANTIC_MATH compares with the pedantic mode. */
#ifndef SGEMM_CUBLAS_MATH
#define SGEMM_CUBLAS_MATH CUBLAS_DEFAULT_MATH
#endif

typedef struct sgemm_ctx {
    float *a, *b, *c, *ref; /* device: A (M x K), B (K x N), C and its reference (M x N) */
    int m, n, k;
    cublasHandle_t blas; /* the library variant's, and setup's fp64 reference GEMM */
    rb_gemm_ref ref64;   /* setup only (see harness/kit/gemm_ref.h) */
} sgemm_ctx;

/* K for a resolved shape (M x N). */
static uint64_t sgemm_k(const rb_size *s)
{
    return SGEMM_FIXED_K > 0 ? (uint64_t)SGEMM_FIXED_K : s->cols;
}

/* --size n: M = N = K = floor(sqrt(n)); --size RxC: M = R, N = C, K = N. */
static int sgemm_shape(rb_size *s, char *why, size_t why_size)
{
    static const char rule[] = "sgemm needs 1 <= M, N, K <= 2^20 (M x N output elements, K = N)";
    if (rb_gemm_square_shape(s, SGEMM_MAX_DIM, rule, why, why_size) != 0)
        return -1;
    if (sgemm_k(s) > SGEMM_MAX_DIM) {
        rb_fmt(why, why_size, "%s", rule);
        return -1;
    }
    return 0;
}

static double sgemm_flops_mnk(double m, double n, double k)
{
    return 2.0 * m * n * k;
}

static double sgemm_bytes_mnk(double m, double n, double k)
{
    return 4.0 * (m * k + k * n + m * n);
}

/* M N outputs, K multiply-adds each. */
static double sgemm_flops(const rb_size *size)
{
    return sgemm_flops_mnk((double)size->rows, (double)size->cols, (double)sgemm_k(size));
}

/* A and B read once, C written once (beta = 0: C is not read). */
static double sgemm_bytes(const rb_size *size)
{
    return sgemm_bytes_mnk((double)size->rows, (double)size->cols, (double)sgemm_k(size));
}

/* The CPU reference in double: out (rows x n) = a (rows x k) b (k x n), all row-major, rounded
 * to fp32 once at the end. */
static void sgemm_cpu_reference(const float *a, const float *b, size_t rows, size_t n, size_t k,
                                float *out)
{
    double *acc = malloc(n * sizeof *acc);
    if (!acc) { /* NaN: the comparison then fails loudly */
        for (size_t i = 0; i < rows * n; i++)
            out[i] = NAN;
        return;
    }
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < n; c++)
            acc[c] = 0.0;
        for (size_t p = 0; p < k; p++) { /* i-k-j order: b is read row by row */
            double av = (double)a[r * k + p];
            for (size_t c = 0; c < n; c++)
                acc[c] += av * (double)b[p * n + c];
        }
        for (size_t c = 0; c < n; c++)
            out[r * n + c] = (float)acc[c];
    }
    free(acc);
}

/* rb_gemm_crosscheck's view of sgemm_cpu_reference; arg: the sgemm_ctx. */
static void sgemm_cpu_rows(const void *a, const void *b, size_t rows, const void *arg, float *out)
{
    const sgemm_ctx *c = arg;
    sgemm_cpu_reference(a, b, rows, (size_t)c->n, (size_t)c->k, out);
}

/* Pins the GPU reference to the CPU: every row when M N K is small, else rows 0, M/2, M-1. */
static rb_status sgemm_crosscheck(const sgemm_ctx *c)
{
    size_t m = (size_t)c->m, n = (size_t)c->n, k = (size_t)c->k;
    rb_gemm_check x = {
        .pair = "sgemm",
        .a = c->a,
        .b = c->b,
        .a_row_bytes = k * sizeof(float),
        .b_bytes = k * n * sizeof(float),
        .ref = c->ref,
        .m = m,
        .n = n,
        .all = (double)m * (double)n * (double)k <= (double)SGEMM_CPU_FULL_MAX,
        .cpu = sgemm_cpu_rows,
        .arg = c,
    };
    return rb_gemm_crosscheck(&x);
}

/* The trusted reference: cublasDgemm on the inputs widened to fp64 (exact), rounded to fp32,
 * into c->ref. Pedantic math: plain IEEE fp64 arithmetic, no emulation. */
static rb_status sgemm_gpu_reference(sgemm_ctx *c)
{
    size_t m = (size_t)c->m, n = (size_t)c->n, k = (size_t)c->k;
    rb_gemm_ref *g = &c->ref64;
    RB_TRY(rb_gemm_ref_alloc(g, m * k, k * n, m * n));
    RB_CUDA(rb_f32_to_f64(c->a, g->a, m * k, 0));
    RB_CUDA(rb_f32_to_f64(c->b, g->b, k * n, 0));
    RB_CUBLAS(cublasSetMathMode(c->blas, CUBLAS_PEDANTIC_MATH));
    RB_TRY(rb_gemm_ref_dgemm(g, c->blas, 0, m, n, k, k, n));
    RB_CUDA(rb_f64_to_f32(g->c, c->ref, m * n, 0));
    RB_CUDA(cudaDeviceSynchronize());
    return rb_gemm_ref_free(g);
}

static rb_status sgemm_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    sgemm_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->m = (int)size->rows;
    c->n = (int)size->cols;
    c->k = (int)sgemm_k(size);
    size_t m = (size_t)c->m, n = (size_t)c->n, k = (size_t)c->k;
    RB_CUDA(cudaMalloc((void **)&c->a, m * k * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->b, k * n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->c, m * n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->ref, m * n * sizeof(float)));
    /* Uniform in (-1, 1), never zero; outputs have a standard deviation of sqrt(K) / 3. */
    RB_CUDA(rb_fill_uniform_f32(c->a, m * k, seed, 0));
    RB_CUDA(rb_fill_uniform_f32(c->b, k * n, seed + 1, 0));
    RB_CUBLAS(cublasCreate(&c->blas));
    RB_TRY(sgemm_gpu_reference(c));
    RB_TRY(sgemm_crosscheck(c));
    RB_CUBLAS(cublasSetMathMode(c->blas, SGEMM_CUBLAS_MATH));
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

static void sgemm_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    sgemm_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->c;
    *bytes = (size_t)c->m * (size_t)c->n * sizeof(float);
}

static rb_status sgemm_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    sgemm_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_f32_device(c->c, c->ref, (size_t)c->m * (size_t)c->n, stream, rel_err));
    return RB_OK;
}

static void sgemm_teardown(void *ctx)
{
    sgemm_ctx *c = ctx;
    if (!c)
        return;
    if (c->blas)
        cublasDestroy(c->blas);
    cudaFree(c->a);
    cudaFree(c->b);
    cudaFree(c->c);
    cudaFree(c->ref);
    rb_gemm_ref_free(&c->ref64);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    sgemm_ctx *c = ctx;
    RB_CUDA(sgemm_baseline(c->a, c->b, c->c, c->m, c->n, c->k, stream));
    return RB_OK;
}

static rb_status run_coalesced(void *ctx, cudaStream_t stream)
{
    sgemm_ctx *c = ctx;
    RB_CUDA(sgemm_coalesced(c->a, c->b, c->c, c->m, c->n, c->k, stream));
    return RB_OK;
}

static rb_status run_smem_tiled(void *ctx, cudaStream_t stream)
{
    sgemm_ctx *c = ctx;
    RB_CUDA(sgemm_smem_tiled(c->a, c->b, c->c, c->m, c->n, c->k, stream));
    return RB_OK;
}

static rb_status run_reg_1d(void *ctx, cudaStream_t stream)
{
    sgemm_ctx *c = ctx;
    RB_CUDA(sgemm_reg_1d(c->a, c->b, c->c, c->m, c->n, c->k, stream));
    return RB_OK;
}

static rb_status run_reg_2d_vec4(void *ctx, cudaStream_t stream)
{
    sgemm_ctx *c = ctx;
    RB_CUDA(sgemm_reg_2d_vec4(c->a, c->b, c->c, c->m, c->n, c->k, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    sgemm_ctx *c = ctx;
    RB_CUDA(sgemm_optimized(c->a, c->b, c->c, c->m, c->n, c->k, stream));
    return RB_OK;
}

/* cublasSgemm, row-major through the transpose as in sgemm_gpu_reference. Enqueue only:
 * cublasSetStream is a host call. */
static rb_status run_library(void *ctx, cudaStream_t stream)
{
    sgemm_ctx *c = ctx;
    const float one = 1.0f, zero = 0.0f;
    RB_CUBLAS(cublasSetStream(c->blas, stream));
    RB_CUBLAS(cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, c->n, c->m, c->k, &one, c->b, c->n,
                             c->a, c->k, &zero, c->c, c->n));
    return RB_OK;
}

/* Planted defect (tests/test_gpu.c): the last partial tile of K skipped, the bug of a tiled
 * kernel whose main loop runs over whole BK = 8 tiles and whose tail path is missing. cuBLAS
 * computes it: K rounded down to a multiple of 8, the leading dimension of A still K, so each
 * dot product simply stops early. At 999 x 1021 (K = 1021) it drops 5 of 1021 terms; the terms
 * are independent and zero-mean, so the normwise error is sqrt(5 / 1021) = 0.070, 14000x the
 * 5e-6 tolerance. */
static rb_status run_defect_k_tail(void *ctx, cudaStream_t stream)
{
    sgemm_ctx *c = ctx;
    const float one = 1.0f, zero = 0.0f;
    int k_tiles = c->k / 8 * 8;
    RB_CUBLAS(cublasSetStream(c->blas, stream));
    RB_CUBLAS(cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, c->n, c->m, k_tiles, &one, c->b, c->n,
                             c->a, c->k, &zero, c->c, c->n));
    return RB_OK;
}

static int sgemm_selftest(char *why, size_t why_size)
{
    /* [1 2 3; 4 5 6] [7 8; 9 10; 11 12] = [58 64; 139 154], by hand. */
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
    const float want[4] = {58, 64, 139, 154};
    float out[4];
    sgemm_cpu_reference(a, b, 2, 2, 3, out);
    if (rb_relerr_f32(out, want, 4) != 0.0) {
        rb_fmt(why, why_size, "CPU reference wrong on the 2x3 by 3x2 case");
        return -1;
    }
    /* One row at a time (the crosscheck's use): row 1 alone, from its own offset. */
    sgemm_cpu_reference(a + 3, b, 1, 2, 3, out);
    if (out[0] != 139.0f || out[1] != 154.0f) {
        rb_fmt(why, why_size, "CPU reference wrong on a single row");
        return -1;
    }
    /* Fractions accumulate in double: 0.1 * 0.1 * 3 in double is 0.03 to 1e-17. */
    const float tenth[3] = {0.1f, 0.1f, 0.1f};
    sgemm_cpu_reference(tenth, tenth, 1, 1, 3, out);
    double exact = 3.0 * (double)0.1f * (double)0.1f;
    if (out[0] != (float)exact) {
        rb_fmt(why, why_size, "CPU reference does not accumulate in double (%.9g)", out[0]);
        return -1;
    }
    /* Work model: 2x2x2 is 16 flops and 4 (4 + 4 + 4) = 48 bytes; 4096^3 is 2^37 flops and
     * 12 x 2^24 bytes. */
    rb_size two = {4, 2, 2}, full = {1u << 24, 0, 0};
    char sub[160];
    if (sgemm_flops(&two) != 16.0 || sgemm_bytes(&two) != 48.0 ||
        sgemm_shape(&full, sub, sizeof sub) != 0 || sgemm_flops(&full) != 137438953472.0 ||
        sgemm_bytes(&full) != 201326592.0) {
        rb_fmt(why, why_size, "work model wrong on 2x2x2 (%g flops, %g bytes) or 4096^3",
               sgemm_flops(&two), sgemm_bytes(&two));
        return -1;
    }
    /* The shape rule: 2^24 -> 4096 x 4096 (K 4096), 1000003 -> 1000 x 1000, 999x1021 -> K = N. */
    rb_size odd = {1000003, 0, 0}, shaped = {999 * 1021, 999, 1021}, huge = {1u << 21, 1u << 21, 1};
    if (full.rows != 4096 || full.cols != 4096 || sgemm_k(&full) != 4096 ||
        sgemm_shape(&odd, sub, sizeof sub) != 0 || odd.rows != 1000 || odd.cols != 1000 ||
        odd.n != 1000000 || sgemm_shape(&shaped, sub, sizeof sub) != 0 || shaped.rows != 999 ||
        shaped.cols != 1021 || (SGEMM_FIXED_K == 0 && sgemm_k(&shaped) != 1021) ||
        sgemm_shape(&huge, sub, sizeof sub) == 0) {
        rb_fmt(why, why_size, "shape rule wrong on 2^24, 1000003, 999x1021 or 2^21x1");
        return -1;
    }
    return 0;
}

/* A full run sweeps three square sizes: 1024^3, 2048^3 and 4096^3 (the acceptance size). */
static const uint64_t sgemm_sweep[] = {1u << 20, 1u << 22, 1u << 24, 0};

static const rb_pair_ext sgemm_ext = {
    .shape = sgemm_shape,
    .sweep = sgemm_sweep,
};

const rb_pair rb_pair_sgemm = {
    .name = "sgemm",
    .pattern = "fp32 GEMM on CUDA cores: coalescing, shared tiles, register blocking, warp tiling",
    .size_unit = "fp32 output elements (M x N; K = N)",
    .smoke_size = 1u << 18,
    .full_size = 1u << 24,
    .flops = sgemm_flops,
    .bytes = sgemm_bytes,
    .setup = sgemm_setup,
    .output = sgemm_output,
    .check = sgemm_check,
    .teardown = sgemm_teardown,
    .selftest = sgemm_selftest,
    /* "sgemm_optimized_kernelILb1" is the VEC = true instantiation (the Itanium mangling of the
     * template argument <true>), the one every K, N % 4 == 0 problem runs. */
    .codegen =
        {
            {"sgemm_optimized_kernelILb1", "FFMA"},
            {"sgemm_optimized_kernelILb1", "LDS.128"},
            {"sgemm_optimized_kernelILb1", "LDG.E.128"},
            {"sgemm_optimized_kernelILb1", "STS.128"},
            {"sgemm_optimized_kernelILb1", "STG.E.128"},
            {"sgemm_reg_2d_vec4_kernel", "LDS.128"},
        },
    .kernels = sgemm_kernels,
    .n_variants = 7,
    .variants =
        {
            /* Error model: every variant accumulates a dot product of K terms in fp32, one FMA
             * per term, k in order (the tiles change which thread does it, not the order;
             * the measured errors of all seven, cuBLAS included, agree to 15 digits).
             * Rounding errors of a running sum s_j are ~0.3 u |s_j| each (u = 2^-24) and |s_j|
             * grows as sqrt(j) for these random inputs, so the normwise error is ~0.3 u sqrt(K)
             * (a CPU simulation of sequential fp32 FMA sums agrees within 5% for K = 512 ..
             * 45000): 5.7e-7 at K = 1000, 1.14e-6 at K = 4096. Measured (H100,
             * docs/notes/sgemm.md), every variant alike:
             * 5.75e-7 at 1024^3, 8.11e-7 at 2048^3, 1.146e-6 at 4096^3 (the full size, the
             * largest measured). 5e-6 is 4.4x that and covers the model up to K = 78000 (the
             * largest square problem whose fp64 reference fits in 80 GB has K = 45000: 3.7e-6);
             * it fails a TF32 result (~1e-3) and one skipped tile of k (the planted defect: 0.07
             * at 999 x 1021, ~sqrt(BK / K) = 0.044 at 4096^3). */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, SGEMM_TOL, run_baseline},
            {"coalesced", RB_ROLE_STEP, RB_UNIT_FP32, SGEMM_TOL, run_coalesced},
            {"smem_tiled", RB_ROLE_STEP, RB_UNIT_FP32, SGEMM_TOL, run_smem_tiled},
            {"reg_1d", RB_ROLE_STEP, RB_UNIT_FP32, SGEMM_TOL, run_reg_1d},
            {"reg_2d_vec4", RB_ROLE_STEP, RB_UNIT_FP32, SGEMM_TOL, run_reg_2d_vec4},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, SGEMM_TOL, run_optimized},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_FP32, SGEMM_TOL, run_library},
        },
    .defects = {{"k_tail_tile_skipped", 6, run_defect_k_tail}},
    .ext = &sgemm_ext,
};
