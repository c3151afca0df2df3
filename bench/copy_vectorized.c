/* SPDX-License-Identifier: MIT */
/* copy_vectorized: the harness's view of kernels/copy_vectorized.cu (read that file first).
 *
 * The model pair (docs/adding-a-pair.md walks it): everything the contract asks of a pair is in
 * this file, so it reads alone. copy_coalescing, the other copy, takes the same setup, check and
 * library variant from pair_util.h's rb_copy_* instead. */
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "model/util.h"
#include "gpu.h"
#include "pair_util.h"

#include "copy_vectorized_defects.h"
#include "kernels/copy_vectorized.h"

/* Planted code changes, test hooks (bench/copy_vectorized_defects.h): a build with
 * CFLAGS=-DRB_PLANT_SCALAR_COPY or -DRB_PLANT_SLOW10 times one of them as the optimized
 * variant. */
#if defined(RB_PLANT_SCALAR_COPY)
#define COPY_VECTORIZED_OPTIMIZED copy_vectorized_scalar_copy
#define COPY_VECTORIZED_KERNELS copy_vectorized_scalar_copy_kernels
#elif defined(RB_PLANT_SLOW10)
#define COPY_VECTORIZED_OPTIMIZED copy_vectorized_slow10
#define COPY_VECTORIZED_KERNELS copy_vectorized_slow10_kernels
#else
#define COPY_VECTORIZED_OPTIMIZED copy_vectorized_optimized
#define COPY_VECTORIZED_KERNELS copy_vectorized_kernels
#endif

/* The device buffers: in (seeded random), out (what each variant writes). */
typedef struct copy_vectorized_ctx {
    float *in, *out;
    size_t n;
} copy_vectorized_ctx;

/* Work model: no arithmetic; each float read once and written once. */
static double copy_vectorized_flops(const rb_size *size)
{
    (void)size;
    return 0.0;
}

static double copy_vectorized_bytes(const rb_size *size)
{
    return 8.0 * (double)size->n;
}

static rb_status copy_vectorized_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    copy_vectorized_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->n = size->n;
    size_t bytes;
    if (rb_checked_bytes(c->n, sizeof(float), &bytes) != 0)
        return RB_ERR_INPUT;
    RB_CUDA(cudaMalloc((void **)&c->in, bytes));
    RB_CUDA(cudaMalloc((void **)&c->out, bytes));
    RB_CUDA(rb_fill_uniform_f32(c->in, c->n, seed, 0));
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

/* Every variant writes out. */
static void copy_vectorized_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    copy_vectorized_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = c->n * sizeof(float);
}

/* The reference of a copy is its input: out against in, on the device. */
static rb_status copy_vectorized_check(void *ctx, int variant, cudaStream_t stream,
                                       double *rel_err)
{
    copy_vectorized_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_f32_device(c->out, c->in, c->n, stream, rel_err));
    return RB_OK;
}

/* Frees what setup got to, also after a failed setup. */
static void copy_vectorized_teardown(void *ctx)
{
    copy_vectorized_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->in);
    cudaFree(c->out);
    free(c);
}

/* The CPU reference (out = in) and the work model on a hand-computed case. */
static int copy_vectorized_selftest(char *why, size_t why_size)
{
    const float in[5] = {1.5f, -2.0f, 3.25f, -0.0f, 1e-30f};
    float out[5];
    memcpy(out, in, sizeof out);
    rb_size five = {5, 1, 5};
    if (rb_relerr_f32(out, in, 5) != 0.0 || copy_vectorized_bytes(&five) != 40.0) {
        rb_fmt(why, why_size, "copy reference or work model wrong on a 5-element case");
        return -1;
    }
    return 0;
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    copy_vectorized_ctx *c = ctx;
    RB_CUDA(copy_vectorized_baseline(c->in, c->out, c->n, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    copy_vectorized_ctx *c = ctx;
    RB_CUDA(COPY_VECTORIZED_OPTIMIZED(c->in, c->out, c->n, stream));
    return RB_OK;
}

/* The library variant: what a user calls instead, cudaMemcpyAsync device to device. */
static rb_status run_library(void *ctx, cudaStream_t stream)
{
    copy_vectorized_ctx *c = ctx;
    RB_CUDA(cudaMemcpyAsync(c->out, c->in, c->n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return RB_OK;
}

/* Planted defects (tests/test_gpu.c, at n = 1000003, seed 5; the errors were computed on the
 * host from the same seeded input). n % 4 = 3 floats follow the last whole float4. The
 * tolerance is 0 (a copy is exact), so any wrong element fails. */

/* The float4 copy of the whole vectors, then the tail by a scalar launch whose source is one
 * element early (in + 4 n4 - 1): every element written, the last 3 shifted: 1.2e-3 normwise. */
static rb_status run_tail_off_by_one(void *ctx, cudaStream_t stream)
{
    copy_vectorized_ctx *c = ctx;
    size_t whole = c->n & ~(size_t)3;
    RB_CUDA(copy_vectorized_optimized(c->in, c->out, whole, stream));
    if (whole < c->n && whole > 0)
        RB_CUDA(copy_vectorized_baseline(c->in + whole - 1, c->out + whole, c->n - whole, stream));
    return RB_OK;
}

const rb_pair rb_pair_copy_vectorized = {
    .name = "copy_vectorized",
    .pattern = "16-byte loads and several requests in flight per thread vs one float per thread",
    .size_unit = "fp32 elements",
    .smoke_size = 1u << 20,
    .full_size = 1u << 28,
    .flops = copy_vectorized_flops,
    .bytes = copy_vectorized_bytes,
    .setup = copy_vectorized_setup,
    .output = copy_vectorized_output,
    .check = copy_vectorized_check,
    .teardown = copy_vectorized_teardown,
    .selftest = copy_vectorized_selftest,
    .codegen =
        {
            {"copy_vectorized_optimized_kernel", "LDG.E.EF.128"},
            {"copy_vectorized_optimized_kernel", "STG.E.EF.128"},
        },
    .kernels = COPY_VECTORIZED_KERNELS,
    .n_variants = 3,
    .variants =
        {
            /* Exact: a copy moves bits, so the error is 0 or the output is wrong; it was 0 for
             * all three on the H100 (docs/notes/copy_vectorized.md). */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 0.0, run_baseline},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.0, run_optimized},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_NONE, 0.0, run_library},
        },
    .defects =
        {
            {"tail_off_by_one", 1, run_tail_off_by_one, 0},
        },
};
