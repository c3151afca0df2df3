/* SPDX-License-Identifier: MIT */
/*
 * decode_gemv: the harness's view of kernels/decode_gemv.cu (read that file first) and of
 * cuBLASLt's GEMM on the same shapes.
 *
 * Shape and inputs: the size is W's, n x k (rows x cols): --size N gives k = min(N, 8192),
 *   n = N / k; --size RxC is taken as given. The full size is 28672 x 8192, a Llama-3-70B-class
 *   MLP up-projection (470 MB of bf16, 7.8x the H200's 60 MB L2). The inputs are the decode
 *   batch: m1, m4 and m16 tokens. The GPU tests' odd shape 999 x 1021 has rows no 16-byte
 *   vector divides (k % 8 = 5: the optimized launcher runs the baseline's element-by-element
 *   kernel there) and n odd; 1004 x 2008 runs the optimized kernels' row and k tails (k % 256 =
 *   216, k % 32 = 24, n % 32 = 12); the smoke size 1021 x 8192 and 1000003 (122 x 8192) their
 *   row tails at full k.
 * Inputs: W ~ N(0, 1/k), x ~ N(0, 1) zero-mean activations with an outlier channel every 64
 *   (kernels/decode_gemv.cu, decode_gemv_fill_kernel), each rounded to bf16; the rounded values
 *   are the truth.
 * Reference: fp64 dot products on the GPU (exact bf16 products, fp64 sums), rounded once to fp32;
 *   at n k <= RB_CPU_REFERENCE_MAX the CPU recomputes it from the device's own inputs.
 * Library: cuBLASLt, y^T (n x m, column-major) = W (k x n column-major, op T) x^T (k x m): the TN
 *   form, bf16 in and out, fp32 compute, the heuristic's first candidate that runs (its best by
 *   its own ranking), a 32 MiB workspace.
 * Full run: 3 inputs x 3 variants of ~0.1-0.3 ms each at the harness's default samples, plus
 *   setup (470 MB filled and the fp64 reference, ~1 ms of GPU time each): ~3-5 s estimated.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "gemm_ref.h"
#include "gpu.h"
#include "pair_util.h"

#include "decode_gemv_defects.h"
#include "kernels/decode_gemv.h"

#define DECODE_GEMV_K 8192              /* the full size's k, and the most --size N gives */
#define DECODE_GEMV_MAX_ROWS (1u << 30) /* n (the launchers' grids stay below 2^31 blocks) */
#define DECODE_GEMV_INPUTS 3
#define DECODE_GEMV_WORKSPACE (32u << 20) /* cuBLASLt workspace (as hgemm's) */
#define DECODE_GEMV_CANDIDATES 8          /* heuristic results tried in order */

static const int decode_gemv_tokens[DECODE_GEMV_INPUTS] = {1, 4, 16};

/* Every variant's tolerance, normwise against the fp32-rounded exact result. Error model: the
 * products of bf16 are exact in fp32; the sums of k = 8192 terms run in fp32 (a lane's chain of
 * 256 FMAs and 5 shuffle adds in the baseline and the FMA path, 512 mma steps of 16 terms each
 * on the tensor cores, cuBLASLt's own order), bounded by n u32 sum |w x| ~ 1.3e-3 normwise for
 * chains of n = 528 with truncation (u32 = 2^-23) and sum |w x| / |y| ~ sqrt(k) 2/pi ~ 58, but
 * expected near u32 sqrt(n) ~ 1e-5 with rounding and ~4e-5 with the tensor cores' truncation
 * (biased: ~2/3 n u32 of |y|). The output is then rounded once to bf16: |error| <= 2^-8 |y| an
 * element (half its ulp), 3.9e-3 normwise at most, ~1.66e-3 expected (a rounding error uniform
 * in half an ulp of log-uniform values, as rmsnorm's header derives). Together at most
 * 3.9e-3 + ~4e-5 for any realistic order: 4e-3 is that bound and 2.4x the expected error. The
 * defects below are 2x to 19x it. */
#define DECODE_GEMV_TOLERANCE 4e-3

typedef struct decode_gemv_ctx {
    uint16_t *w, *x, *y; /* device: n x k weights, m x k tokens, m x n output */
    float *ref;          /* device: m x n, the fp64 reference rounded to fp32 */
    size_t n, k;
    int m;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t layout_w, layout_x, layout_y;
    cublasLtMatmulAlgo_t algo;
    int candidate;     /* algo's place in the heuristic's list; -1: none runs */
    void *workspace;   /* device, DECODE_GEMV_WORKSPACE bytes */
    char no_lt[200];   /* why the library variant cannot run this shape ("": it can) */
} decode_gemv_ctx;

/* k = min(n, 8192), rows = n / k; a given RxC is kept. */
static int decode_gemv_shape(rb_size *size, char *why, size_t why_size)
{
    if (size->rows == 0) {
        size->cols = size->n < DECODE_GEMV_K ? size->n : DECODE_GEMV_K;
        size->rows = size->cols ? size->n / size->cols : 0;
        size->n = size->rows * size->cols;
    }
    if (size->rows == 0 || size->cols == 0 || size->rows > DECODE_GEMV_MAX_ROWS ||
        size->n != size->rows * size->cols) {
        rb_fmt(why, why_size, "decode_gemv needs W as n x k with 1 <= n <= 2^30 and k >= 1");
        return -1;
    }
    return 0;
}

/* W read once (2 n k bytes), x read once and y written once (2 m k + 2 m n); 2 m n k flops. */
static double decode_gemv_bytes_of(const rb_size *size, int m)
{
    const double n = (double)size->rows, k = (double)size->cols;
    return 2.0 * n * k + 2.0 * m * k + 2.0 * m * n;
}

static double decode_gemv_flops_of(const rb_size *size, int m)
{
    return 2.0 * m * (double)size->rows * (double)size->cols;
}

/* flops()/bytes() are input m1's; decode_gemv_input_work gives each input its own. */
static double decode_gemv_flops(const rb_size *size)
{
    return decode_gemv_flops_of(size, decode_gemv_tokens[0]);
}

static double decode_gemv_bytes(const rb_size *size)
{
    return decode_gemv_bytes_of(size, decode_gemv_tokens[0]);
}

static void decode_gemv_input_work(const rb_size *size, int input, double *flops, double *bytes)
{
    const int m = decode_gemv_tokens[input >= 0 && input < DECODE_GEMV_INPUTS ? input : 0];
    *flops = decode_gemv_flops_of(size, m);
    *bytes = decode_gemv_bytes_of(size, m);
}

/* The CPU reference in fp64: y[t][r] = sum_c w[r][c] x[t][c]. */
static void decode_gemv_cpu(const uint16_t *w, const uint16_t *x, size_t n, size_t k, int m,
                            double *y)
{
    for (int t = 0; t < m; t++)
        for (size_t r = 0; r < n; r++) {
            double s = 0.0;
            for (size_t c = 0; c < k; c++)
                s += rb_bf16_to_double(w[r * k + c]) * rb_bf16_to_double(x[(size_t)t * k + c]);
            y[(size_t)t * n + r] = s;
        }
}

/* The GPU reference against the CPU's, from the device's own inputs. */
static rb_status decode_gemv_crosscheck(const decode_gemv_ctx *c)
{
    const size_t out = (size_t)c->m * c->n;
    uint16_t *w = malloc(c->n * c->k * sizeof *w), *x = malloc((size_t)c->m * c->k * sizeof *x);
    double *y = malloc(out * sizeof *y);
    float *ref = malloc(out * sizeof *ref);
    rb_status st = RB_ERR_ALLOC;
    if (w && x && y && ref &&
        cudaMemcpy(w, c->w, c->n * c->k * 2, cudaMemcpyDeviceToHost) == cudaSuccess &&
        cudaMemcpy(x, c->x, (size_t)c->m * c->k * 2, cudaMemcpyDeviceToHost) == cudaSuccess) {
        decode_gemv_cpu(w, x, c->n, c->k, c->m, y);
        for (size_t i = 0; i < out; i++)
            ref[i] = (float)y[i];
        st = rb_crosscheck_reference("decode_gemv", c->ref, ref, out, 1e-6);
    }
    free(w);
    free(x);
    free(y);
    free(ref);
    return st;
}

/* One cuBLASLt launch of algo: y^T = W^T' x^T (see the top), beta 0. */
static cublasStatus_t decode_gemv_lt_run(const decode_gemv_ctx *c, const cublasLtMatmulAlgo_t *algo,
                                         cudaStream_t stream)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasLtMatmul(c->lt, c->desc, &one, c->w, c->layout_w, c->x, c->layout_x, &zero, c->y,
                          c->layout_y, c->y, c->layout_y, algo, c->workspace,
                          DECODE_GEMV_WORKSPACE, stream);
}

/* The descriptor, the layouts and the heuristic's first candidate that runs on this problem
 * (each tried once, in the heuristic's order); none: c->no_lt says why. */
static rb_status decode_gemv_lt_setup(decode_gemv_ctx *c)
{
    int32_t trans_w = CUBLAS_OP_T, trans_x = CUBLAS_OP_N;
    uint64_t workspace = DECODE_GEMV_WORKSPACE;
    RB_CUBLAS(cublasLtCreate(&c->lt));
    RB_CUBLAS(cublasLtMatmulDescCreate(&c->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_TRANSA, &trans_w,
                                             sizeof trans_w));
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_TRANSB, &trans_x,
                                             sizeof trans_x));
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->layout_w, CUDA_R_16BF, c->k, c->n, (int64_t)c->k));
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->layout_x, CUDA_R_16BF, c->k, (uint64_t)c->m,
                                         (int64_t)c->k));
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->layout_y, CUDA_R_16BF, c->n, (uint64_t)c->m,
                                         (int64_t)c->n));
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t result[DECODE_GEMV_CANDIDATES];
    int found = 0;
    memset(result, 0, sizeof result);
    RB_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulAlgoGetHeuristic(c->lt, c->desc, c->layout_w, c->layout_x, c->layout_y,
                                           c->layout_y, pref, DECODE_GEMV_CANDIDATES, result,
                                           &found);
    cublasLtMatmulPreferenceDestroy(pref);
    c->candidate = -1;
    for (int i = 0; s == CUBLAS_STATUS_SUCCESS && i < found && c->candidate < 0; i++)
        if (result[i].state == CUBLAS_STATUS_SUCCESS &&
            decode_gemv_lt_run(c, &result[i].algo, 0) == CUBLAS_STATUS_SUCCESS) {
            c->algo = result[i].algo;
            c->candidate = i;
        }
    RB_CUDA(cudaDeviceSynchronize());
    if (c->candidate < 0)
        rb_fmt(c->no_lt, sizeof c->no_lt,
               "cuBLASLt has no bf16 algorithm that runs for %zu rows, %d tokens, k=%zu (%d "
               "candidates, %s)",
               c->n, c->m, c->k, found, cublasGetStatusString(s));
    return RB_OK;
}

static rb_status decode_gemv_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    decode_gemv_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    if (input < 0 || input >= DECODE_GEMV_INPUTS) {
        rb_error_at(__FILE__, __LINE__, "decode_gemv_setup", "no such input");
        return RB_ERR_INPUT;
    }
    c->n = (size_t)size->rows;
    c->k = (size_t)size->cols;
    c->m = decode_gemv_tokens[input];
    size_t w_bytes;
    if (rb_checked_bytes(size->n, 2, &w_bytes) != 0) {
        rb_error_at(__FILE__, __LINE__, "decode_gemv_setup", "W does not fit in memory");
        return RB_ERR_INPUT;
    }
    RB_CUDA(cudaMalloc((void **)&c->w, w_bytes));
    RB_CUDA(cudaMalloc((void **)&c->x, (size_t)c->m * c->k * 2));
    RB_CUDA(cudaMalloc((void **)&c->y, (size_t)c->m * c->n * 2));
    RB_CUDA(cudaMalloc((void **)&c->ref, (size_t)c->m * c->n * sizeof(float)));
    RB_CUDA(cudaMalloc(&c->workspace, DECODE_GEMV_WORKSPACE));
    RB_CUDA(decode_gemv_fill_inputs(c->w, c->x, c->n, c->k, c->m, seed, 0));
    RB_CUDA(decode_gemv_reference(c->w, c->x, c->ref, c->n, c->k, c->m, 0));
    RB_CUDA(cudaDeviceSynchronize());
    if (size->n <= RB_CPU_REFERENCE_MAX)
        RB_TRY(decode_gemv_crosscheck(c));
    return decode_gemv_lt_setup(c);
}

static void decode_gemv_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    decode_gemv_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->y;
    *bytes = (size_t)c->m * c->n * 2;
}

static rb_status decode_gemv_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    decode_gemv_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_bf16_device(c->y, c->ref, (size_t)c->m * c->n, stream, rel_err));
    return RB_OK;
}

static void decode_gemv_teardown(void *ctx)
{
    decode_gemv_ctx *c = ctx;
    if (!c)
        return;
    if (c->layout_w)
        cublasLtMatrixLayoutDestroy(c->layout_w);
    if (c->layout_x)
        cublasLtMatrixLayoutDestroy(c->layout_x);
    if (c->layout_y)
        cublasLtMatrixLayoutDestroy(c->layout_y);
    if (c->desc)
        cublasLtMatmulDescDestroy(c->desc);
    if (c->lt)
        cublasLtDestroy(c->lt);
    cudaFree(c->w);
    cudaFree(c->x);
    cudaFree(c->y);
    cudaFree(c->ref);
    cudaFree(c->workspace);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    decode_gemv_ctx *c = ctx;
    RB_CUDA(decode_gemv_baseline(c->w, c->x, c->y, c->n, c->k, c->m, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    decode_gemv_ctx *c = ctx;
    RB_CUDA(decode_gemv_optimized(c->w, c->x, c->y, c->n, c->k, c->m, stream));
    return RB_OK;
}

/* A shape cuBLASLt has no algorithm for: skipped, with the reason. */
static rb_status run_library(void *ctx, cudaStream_t stream)
{
    decode_gemv_ctx *c = ctx;
    if (c->no_lt[0]) {
        rb_skip_at(__FILE__, __LINE__, "decode_gemv library", c->no_lt);
        return RB_ERR_UNSUPPORTED;
    }
    RB_CUBLAS(decode_gemv_lt_run(c, &c->algo, stream));
    return RB_OK;
}

static int decode_gemv_library_algo(void *ctx, int variant, rb_library_algo *out)
{
    decode_gemv_ctx *c = ctx;
    return variant == 2 && c->candidate >= 0 && rb_lt_algo_describe(&c->algo, c->candidate, out);
}

/* Planted defects (tests/test_gpu.c, seed 5, judged as the optimized variant; the errors are the
 * error model's estimates for these inputs: uncorrelated outputs of similar norm differ by
 * sqrt(2) of it). All write every element.
 *   tail_rows_repeated (at 999 x 1021 and at 999 x 8192): rows 996-998, the partial last group of
 *     4, computed from rows 992-994's weights: 3 rows of 999 wrong on every token, sqrt(2 x 3 /
 *     999) = 0.078 normwise, 19x the tolerance.
 *   x_column_off_by_one (at 999 x 1021): the last token's x read one column late over each row's
 *     last 8 columns (the last wrapping to column 0): 8 of 1021 terms of that token's dot
 *     products wrong, sqrt(2 x 8 / 1021) = 0.125 of its norm, ~0.09 with the outlier channels
 *     (which double |y|^2 and lie outside those columns); over all tokens 0.09 / sqrt(m): 0.022
 *     at m16, 5.5x the tolerance. (At k = 8192 it would be 0.008 at m16, 2x: too close to
 *     plant.) */
static rb_status run_tail_rows(void *ctx, cudaStream_t stream)
{
    decode_gemv_ctx *c = ctx;
    RB_CUDA(decode_gemv_defect_run(c->w, c->x, c->y, c->n, c->k, c->m,
                                   DECODE_GEMV_DEFECT_TAIL_ROWS, stream));
    return RB_OK;
}

static rb_status run_x_column(void *ctx, cudaStream_t stream)
{
    decode_gemv_ctx *c = ctx;
    RB_CUDA(decode_gemv_defect_run(c->w, c->x, c->y, c->n, c->k, c->m,
                                   DECODE_GEMV_DEFECT_X_COLUMN, stream));
    return RB_OK;
}

/* The CPU reference on a hand-computed case: W = [1 2 3; -1 0.5 4], x = [1 1 1; 2 -1 0.5]:
 * y (tokens x rows) = [6 3.5; 1.5 -0.5]. bf16: 1 = 0x3F80, 2 = 0x4000, 3 = 0x4040,
 * -1 = 0xBF80, 0.5 = 0x3F00, 4 = 0x4080. */
static int decode_gemv_selftest_reference(char *why, size_t why_size)
{
    const uint16_t w[6] = {0x3F80, 0x4000, 0x4040, 0xBF80, 0x3F00, 0x4080};
    const uint16_t x[6] = {0x3F80, 0x3F80, 0x3F80, 0x4000, 0xBF80, 0x3F00};
    const double want[4] = {6.0, 3.5, 1.5, -0.5};
    double y[4];
    decode_gemv_cpu(w, x, 2, 3, 2, y);
    for (int i = 0; i < 4; i++)
        if (y[i] != want[i]) {
            rb_fmt(why, why_size, "CPU reference: y[%d] = %.17g, want %g", i, y[i], want[i]);
            return -1;
        }
    return 0;
}

/* The shape rule, the work model and the launchers' refusals (before any CUDA call, so this
 * runs without a GPU). */
static int decode_gemv_selftest(char *why, size_t why_size)
{
    if (decode_gemv_selftest_reference(why, why_size) != 0)
        return -1;
    rb_size full = {28672u * 8192u, 0, 0}, odd = {999 * 1021, 999, 1021}, n_odd = {1000003, 0, 0};
    rb_size thin = {5000, 0, 0}, bad = {6, 2, 4};
    char sub[200];
    if (decode_gemv_shape(&full, sub, sizeof sub) != 0 || full.rows != 28672 ||
        full.cols != 8192 || decode_gemv_shape(&odd, sub, sizeof sub) != 0 || odd.rows != 999 ||
        decode_gemv_shape(&n_odd, sub, sizeof sub) != 0 || n_odd.rows != 122 ||
        n_odd.cols != 8192 || decode_gemv_shape(&thin, sub, sizeof sub) != 0 || thin.rows != 1 ||
        thin.cols != 5000 || decode_gemv_shape(&bad, sub, sizeof sub) != -1) {
        rb_fmt(why, why_size, "shape rule wrong on 28672x8192, 999x1021, 1000003, 5000 or 2x4");
        return -1;
    }
    double flops, bytes;
    decode_gemv_input_work(&full, 2, &flops, &bytes);
    if (decode_gemv_bytes(&full) != 0x1p30 * 0.4375 + 2.0 * 8192 + 2.0 * 28672 ||
        decode_gemv_flops(&full) != 0x1p30 * 0.4375 || flops != 0x1p30 * 0.4375 * 16 ||
        bytes != 0x1p30 * 0.4375 + 32.0 * 8192 + 32.0 * 28672) {
        rb_fmt(why, why_size, "work model wrong at 28672 x 8192");
        return -1;
    }
    if (decode_gemv_optimized(NULL, NULL, NULL, 8, 8, 17, 0) != cudaErrorInvalidValue ||
        decode_gemv_baseline(NULL, NULL, NULL, 8, 8, 0, 0) != cudaErrorInvalidValue ||
        decode_gemv_optimized(NULL, NULL, NULL, 0, 8, 1, 0) != cudaErrorInvalidValue) {
        rb_fmt(why, why_size, "a launcher accepted 17 or 0 tokens, or 0 rows");
        return -1;
    }
    return 0;
}

static const rb_pair_ext decode_gemv_ext = {
    .shape = decode_gemv_shape,
    .work = decode_gemv_input_work,
    .library_algo = decode_gemv_library_algo,
};

const rb_pair rb_pair_decode_gemv = {
    .name = "decode_gemv",
    .pattern = "a decode step's y = x W^T at the DRAM read roof: 16-byte loads, several rows a "
               "warp, every weight used for all tokens from registers, tensor cores from 8 "
               "tokens; vs a warp a row with 4-byte loads, and cuBLASLt",
    .size_unit = "bf16 elements of W (n x k; --size N gives k = min(N, 8192)); the inputs m1, "
                 "m4 and m16 are the tokens",
    .smoke_size = 1021u * 8192u,
    .full_size = 28672u * 8192u,
    .flops = decode_gemv_flops,
    .bytes = decode_gemv_bytes,
    .setup = decode_gemv_setup,
    .output = decode_gemv_output,
    .check = decode_gemv_check,
    .teardown = decode_gemv_teardown,
    .selftest = decode_gemv_selftest,
    /* 16-byte evict-first loads of W in both optimized paths (ld.global.cs), mma.sync m16n8k16
     * (HMMA.16816) in the tensor-core path; every decode_gemv_optimized* kernel free of local
     * memory (tests/test_codegen.c). */
    .codegen =
        {
            {"decode_gemv_optimized_fma_kernelILi1E", "LDG.E.EF.128", 0},
            {"decode_gemv_optimized_fma_kernelILi4E", "LDG.E.EF.128", 0},
            {"decode_gemv_optimized_mma_kernel", "LDG.E.EF.128", 0},
            {"decode_gemv_optimized_mma_kernel", "HMMA.16816", 0},
            {NULL, NULL, 0},
        },
    .kernels = decode_gemv_kernels,
    .n_inputs = DECODE_GEMV_INPUTS,
    .inputs = {"m1", "m4", "m16"},
    .n_variants = 3,
    .variants =
        {
            /* Roof: W read once, 99.8% of the bytes: the DRAM read roof. The baseline runs on the
             * FP32 pipe (at m16 its compute term binds); the optimized variant's unit is bf16,
             * its tensor cores from 8 tokens (below, FP32 FMAs whose compute term, 31 us at m4,
             * stays under the memory term either way). */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, DECODE_GEMV_TOLERANCE, run_baseline,
             .roof = "dram_read_gbps"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_BF16, DECODE_GEMV_TOLERANCE, run_optimized,
             .roof = "dram_read_gbps"},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_BF16, DECODE_GEMV_TOLERANCE, run_library,
             .roof = "dram_read_gbps"},
        },
    .defects =
        {
            {"tail_rows_repeated", 1, run_tail_rows, 0, 0, 0, 4.0},
            {"tail_rows_repeated_full_k", 1, run_tail_rows, 999u * 8192u, 0, 0, 4.0},
            {"x_column_off_by_one", 1, run_x_column, 0, 0, 0, 2.0},
        },
    .ext = &decode_gemv_ext,
};
