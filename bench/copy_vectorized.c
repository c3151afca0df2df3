/* SPDX-License-Identifier: MIT */
/* copy_vectorized: the harness's view of kernels/copy_vectorized.cu (read that file first). */
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

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    rb_copy_ctx *c = ctx;
    RB_CUDA(copy_vectorized_baseline(c->in, c->out, c->n, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    rb_copy_ctx *c = ctx;
    RB_CUDA(COPY_VECTORIZED_OPTIMIZED(c->in, c->out, c->n, stream));
    return RB_OK;
}

/* Planted defects (tests/test_gpu.c, at n = 1000003, seed 5; the errors were computed on the
 * host from the same seeded input). n % 4 = 3 floats follow the last whole float4. The
 * tolerance is 0 (a copy is exact), so any wrong element fails. */

/* The float4 copy of the whole vectors, then the tail by a scalar launch whose source is one
 * element early (in + 4 n4 - 1): every element written, the last 3 shifted: 1.2e-3 normwise. */
static rb_status run_tail_off_by_one(void *ctx, cudaStream_t stream)
{
    rb_copy_ctx *c = ctx;
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
    .flops = rb_copy_flops,
    .bytes = rb_copy_bytes,
    .setup = rb_copy_setup,
    .output = rb_copy_output,
    .check = rb_copy_check,
    .teardown = rb_copy_teardown,
    .selftest = rb_copy_selftest,
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
            {"library", RB_ROLE_LIBRARY, RB_UNIT_NONE, 0.0, rb_copy_memcpy},
        },
    .defects =
        {
            {"tail_off_by_one", 1, run_tail_off_by_one, 0},
        },
};
