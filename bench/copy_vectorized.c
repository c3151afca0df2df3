/* SPDX-License-Identifier: MIT */
/* copy_vectorized: the harness's view of kernels/copy_vectorized.cu (read that file first). */
#include "pair_util.h"

#include "kernels/copy_vectorized.h"

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    rb_copy_ctx *c = ctx;
    RB_CUDA(copy_vectorized_baseline(c->in, c->out, c->n, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    rb_copy_ctx *c = ctx;
    RB_CUDA(copy_vectorized_optimized(c->in, c->out, c->n, stream));
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
    .kernels = copy_vectorized_kernels,
    .n_variants = 3,
    .variants =
        {
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 0.0, run_baseline},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.0, run_optimized},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_NONE, 0.0, rb_copy_memcpy},
        },
};
