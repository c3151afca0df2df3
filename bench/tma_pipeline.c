/* SPDX-License-Identifier: MIT */
/* tma_pipeline: the harness's view of kernels/tma_pipeline.cu (read that file first). The image,
 * reference, check and the baseline's run come from bench/async_pipeline.c; this file adds the
 * tensor map and the TMA variant. */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* CUtensorMap (the type only: nothing here calls the driver API) */

#include "pair_util.h"

#include "bench/async_pipeline.h"
#include "kernels/tma_pipeline.h"

typedef struct tma_pipeline_ctx {
    CUtensorMap map; /* first, in a 128-byte aligned allocation (the encoder wants 64) */
    void *image;     /* async_pipeline's context: image, output, reference */
    float *bordered; /* the image with R zero rows and columns around it, for the TMA */
    float *out;
    int rows, cols;
} tma_pipeline_ctx;

static rb_status setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    /* sizeof is a multiple of the alignment, as aligned_alloc requires */
    tma_pipeline_ctx *t = aligned_alloc(alignof(tma_pipeline_ctx), sizeof *t);
    *ctx = t;
    if (!t)
        return RB_ERR_ALLOC;
    memset(t, 0, sizeof *t);
    RB_TRY(async_pipeline_setup(&t->image, size, seed, input));
    const float *in;
    int pitch;
    async_pipeline_image(t->image, &in, &t->out, &t->rows, &t->cols, &pitch);
    RB_CUDA(tma_pipeline_upload_weights());
    /* TMA boxes may not start at negative coordinates (kernels/tma_pipeline.cu), so the top and
     * left zero padding is stored: (rows + 2R) x (cols + 2R), pitch a multiple of 4 floats. */
    int r = tma_pipeline_halo(), brows = t->rows + 2 * r, bcols = t->cols + 2 * r;
    int bpitch = (bcols + 3) / 4 * 4;
    size_t bbytes = (size_t)brows * bpitch * sizeof(float);
    RB_CUDA(cudaMalloc((void **)&t->bordered, bbytes));
    RB_CUDA(cudaMemset(t->bordered, 0, bbytes));
    RB_CUDA(cudaMemcpy2D(t->bordered + (size_t)r * bpitch + r, (size_t)bpitch * sizeof(float), in,
                         (size_t)pitch * sizeof(float), (size_t)t->cols * sizeof(float),
                         (size_t)t->rows, cudaMemcpyDeviceToDevice));
    RB_CUDA(tma_pipeline_encode_map(&t->map, t->bordered, brows, bcols, bpitch));
    return RB_OK;
}

static void output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    tma_pipeline_ctx *t = ctx;
    async_pipeline_output(t->image, variant, dev_ptr, bytes);
}

static rb_status check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    tma_pipeline_ctx *t = ctx;
    return async_pipeline_check(t->image, variant, stream, rel_err);
}

static void teardown(void *ctx)
{
    tma_pipeline_ctx *t = ctx;
    if (!t)
        return;
    async_pipeline_teardown(t->image);
    cudaFree(t->bordered);
    free(t);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    tma_pipeline_ctx *t = ctx;
    return async_pipeline_run_optimized(t->image, stream);
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    tma_pipeline_ctx *t = ctx;
    RB_CUDA(tma_pipeline_optimized(&t->map, t->out, t->rows, t->cols, stream));
    return RB_OK;
}

/* Tolerance: as async_pipeline (fp32 sums of 25 terms vs an fp64 reference). */
const rb_pair rb_pair_tma_pipeline = {
    .name = "tma_pipeline",
    .pattern = "TMA tile loads (tensor map, mbarrier stages) vs per-thread cp.async (5x5 stencil)",
    .size_unit = "fp32 pixels",
    .smoke_size = 1u << 20,
    .full_size = 1u << 28,
    .min_cc = 90,
    .shape = async_pipeline_shape,
    .flops = async_pipeline_flops,
    .bytes = async_pipeline_bytes,
    .setup = setup,
    .output = output,
    .check = check,
    .teardown = teardown,
    .selftest = async_pipeline_selftest,
    .codegen =
        {
            {"tma_pipeline_optimized_kernel", "UTMALDG.2D"},
            {"tma_pipeline_optimized_kernel", "SYNCS.ARRIVE.TRANS64"},
        },
    .kernels = tma_pipeline_kernels,
    .n_variants = 2,
    .variants =
        {
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, 1e-5, run_baseline},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, 1e-5, run_optimized},
        },
};
