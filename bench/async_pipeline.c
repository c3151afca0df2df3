/* SPDX-License-Identifier: MIT */
/* async_pipeline: the harness's view of kernels/async_pipeline.cu (read that file first).
 * bench/tma_pipeline.c shares this pair's image, reference and check: the functions below named
 * async_pipeline_* (not static) are that interface, declared in bench/async_pipeline.h. */
#include <stdlib.h>

#include "core/compare.h"
#include "core/random.h"
#include "gpu.h"
#include "pair_util.h"

#include "bench/async_pipeline.h"
#include "kernels/async_pipeline.h"

typedef struct async_pipeline_ctx {
    float *in;  /* rows x pitch; pitch = cols rounded up to 4 floats, the pad floats zero */
    float *out; /* rows x cols: what the variants write */
    float *ref; /* rows x cols: the GPU reference */
    int rows, cols, pitch;
    size_t n; /* rows x cols */
} async_pipeline_ctx;

/* Largest rows or cols (the kernels index with int), and largest n: together they keep the
 * kernels' tile count (< n / 4096 + rows / 64 + cols / 64 + 1) under 2^31. */
static const uint64_t max_dim = (uint64_t)1 << 30;
static const uint64_t max_pixels = (uint64_t)1 << 33;

/* When only n is given: cols = the largest power of two <= sqrt(n), at most 16384 (full size:
 * 16384 x 16384), rows = n / cols (n rounded down). Any rows x cols given is taken as is. */
int async_pipeline_shape(rb_size *size, char *why, size_t why_size)
{
    if (size->rows == 0) {
        uint64_t cols = 1;
        while (cols < 16384 && (cols * 2) * (cols * 2) <= size->n)
            cols *= 2;
        size->cols = cols;
        size->rows = size->n / cols;
    }
    if (size->rows == 0 || size->cols == 0 || size->rows > max_dim || size->cols > max_dim ||
        size->rows * size->cols > max_pixels) {
        rb_fmt(why, why_size, "shape %llux%llu: rows, cols must be 1 .. 2^30, rows x cols <= 2^33",
               (unsigned long long)size->rows, (unsigned long long)size->cols);
        return -1;
    }
    size->n = size->rows * size->cols;
    return 0;
}

/* (2R+1)^2 multiply-adds per pixel, R = 2. */
double async_pipeline_flops(const rb_size *size)
{
    return 50.0 * (double)size->rows * (double)size->cols;
}

/* Each pixel read once and written once; halos come from L2. */
double async_pipeline_bytes(const rb_size *size)
{
    return 8.0 * (double)size->rows * (double)size->cols;
}

/* The CPU reference: zero outside the image, fp64 accumulation; w[(dr + R)(2R+1) + dc + R]. */
static void stencil_cpu(const float *in, float *out, int rows, int cols, int radius, const float *w)
{
    const int taps = 2 * radius + 1;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            double acc = 0.0;
            for (int dr = -radius; dr <= radius; dr++)
                for (int dc = -radius; dc <= radius; dc++) {
                    int rr = r + dr, cc = c + dc;
                    if (rr >= 0 && rr < rows && cc >= 0 && cc < cols)
                        acc += (double)w[(dr + radius) * taps + dc + radius] *
                               (double)in[(size_t)rr * cols + cc];
                }
            out[(size_t)r * cols + c] = (float)acc;
        }
}

/* Small sizes: the CPU reference on the same seeded image pins the GPU reference. */
static rb_status crosscheck(const async_pipeline_ctx *c, uint64_t seed)
{
    float w[81];
    int radius = 0;
    RB_CUDA(async_pipeline_weights(&radius, w));
    float *h_in = malloc(c->n * sizeof *h_in), *h_ref = malloc(c->n * sizeof *h_ref);
    rb_status st = RB_ERR_ALLOC;
    if (h_in && h_ref) {
        for (size_t i = 0; i < c->n; i++)
            h_in[i] = rb_uniform_f32(seed, i);
        stencil_cpu(h_in, h_ref, c->rows, c->cols, radius, w);
        st = rb_crosscheck_reference("async_pipeline", c->ref, h_ref, c->n, 1e-6);
    }
    free(h_in);
    free(h_ref);
    return st;
}

rb_status async_pipeline_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    async_pipeline_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->rows = (int)size->rows;
    c->cols = (int)size->cols;
    c->pitch = (c->cols + 3) / 4 * 4;
    c->n = (size_t)size->rows * (size_t)size->cols;
    size_t in_bytes = (size_t)c->rows * (size_t)c->pitch * sizeof(float);
    RB_CUDA(cudaMalloc((void **)&c->in, in_bytes));
    RB_CUDA(cudaMalloc((void **)&c->out, c->n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->ref, c->n * sizeof(float)));
    /* The kernels rely on zero pad floats. The dense image (element r cols + c is
     * rb_uniform_f32(seed, r cols + c)) is staged in out, then copied into the pitched rows. */
    RB_CUDA(cudaMemset(c->in, 0, in_bytes));
    RB_CUDA(rb_fill_uniform_f32(c->out, c->n, seed, 0));
    RB_CUDA(cudaMemcpy2D(c->in, (size_t)c->pitch * sizeof(float), c->out,
                         (size_t)c->cols * sizeof(float), (size_t)c->cols * sizeof(float),
                         (size_t)c->rows, cudaMemcpyDeviceToDevice));
    RB_CUDA(async_pipeline_reference(c->in, c->ref, c->rows, c->cols, c->pitch, 0));
    RB_CUDA(cudaDeviceSynchronize());
    if (c->n <= RB_CPU_REFERENCE_MAX)
        RB_TRY(crosscheck(c, seed));
    return RB_OK;
}

void async_pipeline_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    async_pipeline_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = c->n * sizeof(float);
}

rb_status async_pipeline_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    async_pipeline_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_f32_device(c->out, c->ref, c->n, stream, rel_err));
    return RB_OK;
}

void async_pipeline_teardown(void *ctx)
{
    async_pipeline_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->in);
    cudaFree(c->out);
    cudaFree(c->ref);
    free(c);
}

void async_pipeline_image(void *ctx, const float **in, float **out, int *rows, int *cols,
                          int *pitch)
{
    async_pipeline_ctx *c = ctx;
    *in = c->in;
    *out = c->out;
    *rows = c->rows;
    *cols = c->cols;
    *pitch = c->pitch;
}

static int fail(char *why, size_t why_size, const char *msg)
{
    rb_fmt(why, why_size, "%s", msg);
    return -1;
}

int async_pipeline_selftest(char *why, size_t why_size)
{
    float w[81];
    int radius = 0;
    if (async_pipeline_weights(&radius, w) != cudaSuccess || radius != 2)
        return fail(why, why_size, "the hand-computed cases below are for the 5x5 table (R = 2)");
    /* A 3 x 4 image with a single 1 at (1, 2): out[r][c] = w[3 - r][4 - c], the table read
     * backwards from its bottom right (a correlation; a convolution would read it forwards). */
    const float impulse[12] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    const float want_impulse[12] = {1 / 64.f,  3 / 64.f, 8 / 64.f, -4 / 64.f, -2 / 64.f, 7 / 64.f,
                                    16 / 64.f, 5 / 64.f, 1 / 64.f, -3 / 64.f, 6 / 64.f,  4 / 64.f};
    /* A 2 x 2 image of ones: each output sums the 4 weights whose taps land inside the image,
     * e.g. out[0][0] = w[2][2] + w[2][3] + w[3][2] + w[3][3] = (16 + 7 + 8 + 3) / 64. */
    const float ones[4] = {1, 1, 1, 1};
    const float want_ones[4] = {34 / 64.f, 25 / 64.f, 26 / 64.f, 31 / 64.f};
    float got[12];
    stencil_cpu(impulse, got, 3, 4, radius, w);
    if (!(rb_relerr_f32(got, want_impulse, 12) <= 1e-7))
        return fail(why, why_size, "CPU stencil wrong on a 3x4 impulse");
    stencil_cpu(ones, got, 2, 2, radius, w);
    if (!(rb_relerr_f32(got, want_ones, 4) <= 1e-7))
        return fail(why, why_size, "CPU stencil wrong (zero padding) on a 2x2 image of ones");
    rb_size s = {12, 3, 4};
    if (async_pipeline_bytes(&s) != 96.0 || async_pipeline_flops(&s) != 600.0)
        return fail(why, why_size, "work model wrong on a 3x4 image");
    rb_size full = {(uint64_t)1 << 28, 0, 0}, odd = {999 * 1021, 999, 1021};
    if (async_pipeline_shape(&full, why, why_size) != 0 || full.rows != 16384 ||
        full.cols != 16384 || async_pipeline_shape(&odd, why, why_size) != 0 || odd.n != 999 * 1021)
        return fail(why, why_size, "shape rule wrong for 2^28 or 999x1021");
    return 0;
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    async_pipeline_ctx *c = ctx;
    RB_CUDA(async_pipeline_baseline(c->in, c->out, c->rows, c->cols, c->pitch, stream));
    return RB_OK;
}

rb_status async_pipeline_run_optimized(void *ctx, cudaStream_t stream)
{
    async_pipeline_ctx *c = ctx;
    RB_CUDA(async_pipeline_optimized(c->in, c->out, c->rows, c->cols, c->pitch, stream));
    return RB_OK;
}

/* fp32 sums of 25 terms against an fp64 reference: ~1e-7 normwise; 1e-5 leaves room for the
 * order of the sums. */
const rb_pair rb_pair_async_pipeline = {
    .name = "async_pipeline",
    .pattern = "cp.async ring of shared-memory stages vs synchronous tile loads (5x5 stencil)",
    .size_unit = "fp32 pixels",
    .smoke_size = 1u << 20,
    .full_size = 1u << 28,
    .shape = async_pipeline_shape,
    .flops = async_pipeline_flops,
    .bytes = async_pipeline_bytes,
    .setup = async_pipeline_setup,
    .output = async_pipeline_output,
    .check = async_pipeline_check,
    .teardown = async_pipeline_teardown,
    .selftest = async_pipeline_selftest,
    .codegen =
        {
            {"async_pipeline_optimized_kernel", "LDGSTS.E.BYPASS.128"},
            {"async_pipeline_optimized_kernel", "LDGDEPBAR"},
        },
    .kernels = async_pipeline_kernels,
    .n_variants = 2,
    .variants =
        {
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, 1e-5, run_baseline},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, 1e-5, async_pipeline_run_optimized},
        },
};
