/* SPDX-License-Identifier: MIT */
/* tma_pipeline: the harness's view of kernels/tma_pipeline.cu (read that file first): the 5x5
 * stencil's pitched image, its references and check, the tensor map, and the occupancy sweep
 * each variant's extras record. */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "model/random.h"
#include "gpu.h"
#include "kernels/tma_pipeline.h"
#include "pair_util.h"

typedef struct tma_pipeline_ctx {
    CUtensorMap map; /* first, in a 128-byte aligned allocation (the encoder wants 64) */
    float *in;       /* rows x pitch; pitch = cols rounded up to 4 floats, the pad floats zero */
    float *bordered; /* the image with R zero rows and columns around it, for the TMA */
    float *out;      /* rows x cols: what the variants write */
    float *ref;      /* rows x cols: the GPU reference */
    int rows, cols, pitch;
    size_t n;      /* rows x cols */
    int sweep_bps; /* the blocks per SM the extras' sweep is timing (0: the default) */
} tma_pipeline_ctx;

/* Largest rows or cols (the kernels index with int), and largest n: together they keep the
 * kernels' tile count (< n / 4096 + rows / 64 + cols / 64 + 1) under 2^31. */
static const uint64_t tma_pipeline_max_dim = (uint64_t)1 << 30;
static const uint64_t tma_pipeline_max_pixels = (uint64_t)1 << 33;

/* When only n is given: cols = the largest power of two <= sqrt(n), at most 16384 (full size:
 * 16384 x 16384), rows = n / cols (n rounded down). Any rows x cols given is taken as is. */
static int tma_pipeline_shape(rb_size *size, char *why, size_t why_size)
{
    if (size->rows == 0) {
        uint64_t cols = 1;
        while (cols < 16384 && (cols * 2) * (cols * 2) <= size->n)
            cols *= 2;
        size->cols = cols;
        size->rows = size->n / cols;
    }
    if (size->rows == 0 || size->cols == 0 || size->rows > tma_pipeline_max_dim ||
        size->cols > tma_pipeline_max_dim || size->rows * size->cols > tma_pipeline_max_pixels) {
        rb_fmt(why, why_size, "shape %llux%llu: rows, cols must be 1 .. 2^30, rows x cols <= 2^33",
               (unsigned long long)size->rows, (unsigned long long)size->cols);
        return -1;
    }
    size->n = size->rows * size->cols;
    return 0;
}

/* (2R+1)^2 multiply-adds per pixel, R = 2. */
static double tma_pipeline_flops(const rb_size *size)
{
    return 50.0 * (double)size->rows * (double)size->cols;
}

/* Each pixel read once and written once; halos come from L2. */
static double tma_pipeline_bytes(const rb_size *size)
{
    return 8.0 * (double)size->rows * (double)size->cols;
}

/* The CPU reference: zero outside the image, fp64 accumulation; w[(dr + R)(2R+1) + dc + R]. */
static void tma_pipeline_stencil_cpu(const float *in, float *out, int rows, int cols, int radius,
                                     const float *w)
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
static rb_status tma_pipeline_crosscheck(const tma_pipeline_ctx *c, uint64_t seed)
{
    float w[81];
    int radius = 0;
    RB_CUDA(tma_pipeline_weights(&radius, w));
    float *h_in = malloc(c->n * sizeof *h_in), *h_ref = malloc(c->n * sizeof *h_ref);
    rb_status st = RB_ERR_ALLOC;
    if (h_in && h_ref) {
        for (size_t i = 0; i < c->n; i++)
            h_in[i] = rb_uniform_f32(seed, i);
        tma_pipeline_stencil_cpu(h_in, h_ref, c->rows, c->cols, radius, w);
        st = rb_crosscheck_reference("tma_pipeline", c->ref, h_ref, c->n, 1e-6);
    }
    free(h_in);
    free(h_ref);
    return st;
}

/* The pitched image (pad floats zero) and the reference. */
static rb_status tma_pipeline_image(tma_pipeline_ctx *c, uint64_t seed)
{
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
    RB_CUDA(tma_pipeline_reference(c->in, c->ref, c->rows, c->cols, c->pitch, 0));
    RB_CUDA(cudaDeviceSynchronize());
    if (c->n <= RB_CPU_REFERENCE_MAX)
        RB_TRY(tma_pipeline_crosscheck(c, seed));
    return RB_OK;
}

static rb_status tma_pipeline_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    /* sizeof is a multiple of the alignment, as aligned_alloc requires */
    tma_pipeline_ctx *c = aligned_alloc(alignof(tma_pipeline_ctx), sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    memset(c, 0, sizeof *c);
    c->rows = (int)size->rows;
    c->cols = (int)size->cols;
    c->pitch = (c->cols + 3) / 4 * 4;
    c->n = (size_t)size->rows * (size_t)size->cols;
    RB_TRY(tma_pipeline_image(c, seed));
    /* TMA boxes may not start at negative coordinates (kernels/tma_pipeline.cu), so the top and
     * left zero padding is stored: (rows + 2R) x (cols + 2R), pitch a multiple of 4 floats. */
    int r = tma_pipeline_halo(), brows = c->rows + 2 * r, bcols = c->cols + 2 * r;
    int bpitch = (bcols + 3) / 4 * 4;
    size_t bbytes = (size_t)brows * bpitch * sizeof(float);
    RB_CUDA(cudaMalloc((void **)&c->bordered, bbytes));
    RB_CUDA(cudaMemset(c->bordered, 0, bbytes));
    RB_CUDA(cudaMemcpy2D(c->bordered + (size_t)r * bpitch + r, (size_t)bpitch * sizeof(float),
                         c->in, (size_t)c->pitch * sizeof(float), (size_t)c->cols * sizeof(float),
                         (size_t)c->rows, cudaMemcpyDeviceToDevice));
    RB_CUDA(tma_pipeline_encode_map(&c->map, c->bordered, brows, bcols, bpitch));
    return RB_OK;
}

static void tma_pipeline_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    tma_pipeline_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = c->n * sizeof(float);
}

static rb_status tma_pipeline_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    tma_pipeline_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_f32_device(c->out, c->ref, c->n, stream, rel_err));
    return RB_OK;
}

static void tma_pipeline_teardown(void *ctx)
{
    tma_pipeline_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->in);
    cudaFree(c->bordered);
    cudaFree(c->out);
    cudaFree(c->ref);
    free(c);
}

static rb_status tma_pipeline_run_baseline(void *ctx, cudaStream_t stream)
{
    tma_pipeline_ctx *c = ctx;
    RB_CUDA(tma_pipeline_baseline(c->in, c->out, c->rows, c->cols, c->pitch, c->sweep_bps, stream));
    return RB_OK;
}

static rb_status tma_pipeline_run_optimized(void *ctx, cudaStream_t stream)
{
    tma_pipeline_ctx *c = ctx;
    RB_CUDA(tma_pipeline_optimized(&c->map, c->out, c->rows, c->cols, c->sweep_bps, stream));
    return RB_OK;
}

/* Planted defect: the cp.async ring steps through the image with a row pitch one 16-byte piece
 * short (a classic bug: width and pitch confused, or the pad forgotten). Every output is written
 * from the wrong pixels (row r starts 4 r floats early), all but the first rows' stencils see
 * unrelated values: a normwise error of order 1, ~10^6 times the tolerance. Reads stay inside
 * the image (rows x (pitch - 4) < rows x pitch floats). */
static rb_status tma_pipeline_defect_pitch(void *ctx, cudaStream_t stream)
{
    tma_pipeline_ctx *c = ctx;
    RB_CUDA(tma_pipeline_baseline(c->in, c->out, c->rows, c->cols, c->pitch - 4, 0, stream));
    return RB_OK;
}

/* Extras: the variant's kernel timed at every blocks-per-SM it fits, max_blocks_per_sm and
 * ms_bps_<k> (the variant runs 1 by default; kernels/tma_pipeline.cu says why). Runs after every
 * check (it overwrites the output); nothing when the variant was not timed (check only). */
static int tma_pipeline_extras(void *ctx, int variant, const double *median_ms,
                               rb_extra out[RB_MAX_EXTRAS])
{
    tma_pipeline_ctx *c = ctx;
    int max_bps = 0;
    if (!c || variant < 0 || variant > 1 || !(median_ms[variant] > 0.0) ||
        tma_pipeline_max_blocks_per_sm(variant, &max_bps) != cudaSuccess)
        return 0;
    return rb_occupancy_sweep(variant == 0 ? tma_pipeline_run_baseline : tma_pipeline_run_optimized,
                              c, &c->sweep_bps, max_bps, median_ms[variant], out);
}

static int tma_pipeline_fail(char *why, size_t why_size, const char *msg)
{
    rb_fmt(why, why_size, "%s", msg);
    return -1;
}

static int tma_pipeline_selftest(char *why, size_t why_size)
{
    float w[81];
    int radius = 0;
    if (tma_pipeline_weights(&radius, w) != cudaSuccess || radius != 2)
        return tma_pipeline_fail(why, why_size,
                                 "the hand-computed cases below are for the 5x5 table (R = 2)");
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
    tma_pipeline_stencil_cpu(impulse, got, 3, 4, radius, w);
    if (!(rb_relerr_f32(got, want_impulse, 12) <= 1e-7))
        return tma_pipeline_fail(why, why_size, "CPU stencil wrong on a 3x4 impulse");
    tma_pipeline_stencil_cpu(ones, got, 2, 2, radius, w);
    if (!(rb_relerr_f32(got, want_ones, 4) <= 1e-7))
        return tma_pipeline_fail(why, why_size,
                                 "CPU stencil wrong (zero padding) on a 2x2 image of ones");
    rb_size s = {12, 3, 4};
    if (tma_pipeline_bytes(&s) != 96.0 || tma_pipeline_flops(&s) != 600.0)
        return tma_pipeline_fail(why, why_size, "work model wrong on a 3x4 image");
    rb_size full = {(uint64_t)1 << 28, 0, 0}, odd = {999 * 1021, 999, 1021};
    if (tma_pipeline_shape(&full, why, why_size) != 0 || full.rows != 16384 || full.cols != 16384 ||
        tma_pipeline_shape(&odd, why, why_size) != 0 || odd.n != 999 * 1021)
        return tma_pipeline_fail(why, why_size, "shape rule wrong for 2^28 or 999x1021");
    return 0;
}

/* Tolerance: each output is 25 fused multiply-adds in fp32 (each rounds once, to 2^-24 relative
 * of the running sum), against an fp64 reference rounded to fp32 once: measured 9.40e-8
 * normwise on the H100 at full size, both variants (docs/notes/tma_pipeline.md). 5e-7 is ~5x
 * that: a wrong tap, a flipped or transposed stencil, or a halo row from the wrong tile is off
 * by > 1e-2, and a tile not computed is NaN (the output is poisoned before every check). */
static const rb_pair_ext tma_pipeline_ext = {
    .min_cc = 90,
    .shape = tma_pipeline_shape,
    .extras = tma_pipeline_extras,
};

const rb_pair rb_pair_tma_pipeline = {
    .name = "tma_pipeline",
    .pattern = "TMA tile loads (tensor map, mbarrier stages) vs per-thread cp.async (5x5 stencil)",
    .size_unit = "fp32 pixels",
    .smoke_size = 1u << 20,
    .full_size = 1u << 28,
    .flops = tma_pipeline_flops,
    .bytes = tma_pipeline_bytes,
    .setup = tma_pipeline_setup,
    .output = tma_pipeline_output,
    .check = tma_pipeline_check,
    .teardown = tma_pipeline_teardown,
    .selftest = tma_pipeline_selftest,
    .codegen =
        {
            {"tma_pipeline_optimized_kernel", "UTMALDG.2D"},
            {"tma_pipeline_optimized_kernel", "SYNCS.ARRIVE.TRANS64"},
            {"tma_pipeline_baseline_kernel", "LDGSTS.E.BYPASS.128"},
            {"tma_pipeline_baseline_kernel", "LDGDEPBAR"},
        },
    .kernels = tma_pipeline_kernels,
    .n_variants = 2,
    .variants =
        {
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, 5e-7, tma_pipeline_run_baseline},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, 5e-7, tma_pipeline_run_optimized},
        },
    .defects = {{"row_pitch_short_by_16_bytes", 0, tma_pipeline_defect_pitch}},
    .ext = &tma_pipeline_ext,
};
