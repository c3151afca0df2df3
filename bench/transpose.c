/* SPDX-License-Identifier: MIT */
/* transpose: the harness's view of kernels/transpose.cu (read that file first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "model/compare.h"
#include "model/random.h"
#include "gemm_ref.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/transpose.h"

typedef struct transpose_ctx {
    float *in, *out, *ref; /* device: rows x cols input, cols x rows output and reference */
    size_t rows, cols, n;
    cublasHandle_t handle; /* for the library variant; NULL until created */
} transpose_ctx;

/* rows = floor(sqrt(n / 2)) (at least 1), cols = floor(n / rows): about twice as wide as tall,
 * so the two sides of the transpose differ. A given RxC shape is taken as it is. */
static int transpose_shape(rb_size *size, char *why, size_t why_size)
{
    if (size->rows == 0) {
        if (size->n == 0) {
            rb_fmt(why, why_size, "transpose needs at least one element");
            return -1;
        }
        uint64_t r = rb_isqrt(size->n / 2);
        size->rows = r > 0 ? r : 1;
        size->cols = size->n / size->rows;
        size->n = size->rows * size->cols;
    }
    if (size->rows == 0 || size->cols == 0 || size->n != size->rows * size->cols) {
        rb_fmt(why, why_size, "transpose needs rows x cols >= 1 with n = rows x cols");
        return -1;
    }
    return 0;
}

static double transpose_flops(const rb_size *size)
{
    (void)size;
    return 0.0;
}

/* Each input element read once (4 bytes), each output element written once (4 bytes). */
static double transpose_bytes(const rb_size *size)
{
    return 8.0 * (double)size->rows * (double)size->cols;
}

/* The CPU reference: out[c * rows + r] = in[r * cols + c]. With in == NULL the input is the
 * seeded stream rb_uniform_f32(seed, i), the same values rb_fill_uniform_f32 puts on the device,
 * so no host copy of a large input is needed. The loop runs down the output sequentially. */
static void transpose_reference(const float *in, uint64_t seed, size_t rows, size_t cols,
                                float *out)
{
    for (size_t c = 0; c < cols; c++)
        for (size_t r = 0; r < rows; r++) {
            size_t i = r * cols + c;
            out[c * rows + r] = in ? in[i] : rb_uniform_f32(seed, i);
        }
}

static rb_status transpose_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    transpose_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->rows = size->rows;
    c->cols = size->cols;
    c->n = size->rows * size->cols;
    size_t bytes = c->n * sizeof(float);
    RB_CUDA(cudaMalloc((void **)&c->in, bytes));
    RB_CUDA(cudaMalloc((void **)&c->out, bytes));
    RB_CUDA(cudaMalloc((void **)&c->ref, bytes));
    RB_CUDA(rb_fill_uniform_f32(c->in, c->n, seed, 0));

    /* Exact reference, built on the host from the seeded stream (~0.5 s at 2^27). */
    float *h_ref = malloc(bytes);
    if (!h_ref)
        return RB_ERR_ALLOC;
    transpose_reference(NULL, seed, c->rows, c->cols, h_ref);
    const cudaError_t e = cudaMemcpy(c->ref, h_ref, bytes, cudaMemcpyHostToDevice);
    free(h_ref);
    RB_CUDA(e);

    RB_CUBLAS(cublasCreate(&c->handle));
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

static void transpose_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    transpose_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = c->n * sizeof(float);
}

static rb_status transpose_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    transpose_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_f32_device(c->out, c->ref, c->n, stream, rel_err));
    return RB_OK;
}

static void transpose_teardown(void *ctx)
{
    transpose_ctx *c = ctx;
    if (!c)
        return;
    if (c->handle)
        cublasDestroy(c->handle);
    cudaFree(c->in);
    cudaFree(c->out);
    cudaFree(c->ref);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    transpose_ctx *c = ctx;
    RB_CUDA(transpose_baseline(c->in, c->out, c->rows, c->cols, stream));
    return RB_OK;
}

static rb_status run_tiled(void *ctx, cudaStream_t stream)
{
    transpose_ctx *c = ctx;
    RB_CUDA(transpose_tiled(c->in, c->out, c->rows, c->cols, stream));
    return RB_OK;
}

static rb_status run_padded(void *ctx, cudaStream_t stream)
{
    transpose_ctx *c = ctx;
    RB_CUDA(transpose_padded(c->in, c->out, c->rows, c->cols, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    transpose_ctx *c = ctx;
    RB_CUDA(transpose_optimized(c->in, c->out, c->rows, c->cols, stream));
    return RB_OK;
}

/* Planted defects (tests/test_gpu.c, seed 5; the error was computed on the host from the same
 * seeded input). A launcher called with rows and cols swapped reads the input as cols x rows and
 * writes a rows x cols output in full, every element but a few from the wrong source: normwise
 * 1.41 (sqrt 2: two independent uniforms). The tolerance is 0 (an exact copy), so any misplaced
 * element fails. At a square shape the bug is invisible; neither shape here is square. At the odd
 * shape 999 x 1021 the optimized launcher takes the padded kernel; at 1004 x 2008 (2016032
 * elements: multiples of 4, partial 64-wide tiles on both sides) its own 16-byte kernel. */
static rb_status run_optimized_shape_swapped(void *ctx, cudaStream_t stream)
{
    transpose_ctx *c = ctx;
    RB_CUDA(transpose_optimized(c->in, c->out, c->cols, c->rows, stream));
    return RB_OK;
}

static rb_status run_baseline_shape_swapped(void *ctx, cudaStream_t stream)
{
    transpose_ctx *c = ctx;
    RB_CUDA(transpose_baseline(c->in, c->out, c->cols, c->rows, stream));
    return RB_OK;
}

/* cuBLAS is column-major: the row-major rows x cols input is a column-major cols x rows matrix A
 * (lda = cols); the row-major cols x rows output is a column-major rows x cols matrix C
 * (ldc = rows). C = 1 * A^T + 0 * B; with beta == 0, B need not be a valid input (cuBLAS
 * documentation of geam), so it is NULL. Enqueue only: cublasSetStream is a host call. */
static rb_status run_library(void *ctx, cudaStream_t stream)
{
    transpose_ctx *c = ctx;
    const float one = 1.0f, zero = 0.0f;
    int64_t m = (int64_t)c->rows, n = (int64_t)c->cols;
    RB_CUBLAS(cublasSetStream(c->handle, stream));
    RB_CUBLAS(cublasSgeam_64(c->handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, c->in, n,
                                    &zero, NULL, m, c->out, m));
    return RB_OK;
}

static int transpose_selftest(char *why, size_t why_size)
{
    /* [1 2 3; 4 5 6] transposed is [1 4; 2 5; 3 6], written out by hand. */
    const float in[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
    const float want[6] = {1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f};
    float out[6];
    transpose_reference(in, 0, 2, 3, out);
    rb_size two_by_three = {6, 2, 3};
    if (rb_relerr_f32(out, want, 6) != 0.0 || transpose_bytes(&two_by_three) != 48.0 ||
        transpose_flops(&two_by_three) != 0.0) {
        rb_fmt(why, why_size, "transpose reference or work model wrong on a 2 x 3 case");
        return -1;
    }
    /* The seeded path of the reference: element (r, c) of the input lands at c * rows + r. */
    float seeded[6];
    transpose_reference(NULL, 7, 2, 3, seeded);
    if (seeded[1] != rb_uniform_f32(7, 3) || seeded[4] != rb_uniform_f32(7, 2)) {
        rb_fmt(why, why_size, "transpose reference: seeded input placed wrongly");
        return -1;
    }
    /* The shape rule on the sizes the brief names: 2^27, 1000003 and 2^21. */
    rb_size full = {1u << 27, 0, 0}, odd = {1000003, 0, 0}, smoke = {1u << 21, 0, 0};
    char shape_why[120];
    if (transpose_shape(&full, shape_why, sizeof shape_why) != 0 || full.rows != 8192 ||
        full.cols != 16384 || transpose_shape(&odd, shape_why, sizeof shape_why) != 0 ||
        odd.rows != 707 || odd.cols != 1414 || odd.n != 707 * 1414 ||
        transpose_shape(&smoke, shape_why, sizeof shape_why) != 0 || smoke.rows != 1024 ||
        smoke.cols != 2048) {
        rb_fmt(why, why_size, "transpose shape rule wrong on 2^27, 1000003 or 2^21");
        return -1;
    }
    return 0;
}

static const rb_pair_ext transpose_ext = {
    .shape = transpose_shape,
};

const rb_pair rb_pair_transpose = {
    .name = "transpose",
    .pattern = "shared-memory tile makes both sides coalesced; a +1 pad removes bank conflicts",
    .size_unit = "fp32 elements",
    .smoke_size = 1u << 21,
    .full_size = 1u << 27,
    .flops = transpose_flops,
    .bytes = transpose_bytes,
    .setup = transpose_setup,
    .output = transpose_output,
    .check = transpose_check,
    .teardown = transpose_teardown,
    .selftest = transpose_selftest,
    .codegen =
        {
            {"transpose_padded_kernel", "STS"},
            {"transpose_padded_kernel", "LDS"},
            {"transpose_optimized_kernelILi64E", "LDG.E.EF.128"},
            {"transpose_optimized_kernelILi64E", "LDS.128"},
            {"transpose_optimized_kernelILi64E", "STG.E.EF.128"},
        },
    .kernels = transpose_kernels,
    .n_variants = 5,
    .variants =
        {
            /* Exact: every variant moves bits (no arithmetic), so the error is 0 or the output
             * is wrong (docs/notes/transpose.md). */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 0.0, run_baseline},
            {"tiled", RB_ROLE_STEP, RB_UNIT_NONE, 0.0, run_tiled},
            {"padded", RB_ROLE_STEP, RB_UNIT_NONE, 0.0, run_padded},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.0, run_optimized},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_NONE, 0.0, run_library},
        },
    .defects =
        {
            {"shape_swapped", 3, run_optimized_shape_swapped, 0},
            {"shape_swapped_vector_path", 3, run_optimized_shape_swapped, 2016032},
            {"baseline_shape_swapped", 0, run_baseline_shape_swapped, 0},
        },
    .ext = &transpose_ext,
};
