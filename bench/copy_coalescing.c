/* SPDX-License-Identifier: MIT */
/* copy_coalescing: the harness's view of kernels/copy_coalescing.cu (read that file first). */
#include "pair_util.h"

#include "kernels/copy_coalescing.h"

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    rb_copy_ctx *c = ctx;
    RB_CUDA(copy_coalescing_baseline(c->in, c->out, c->n, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    rb_copy_ctx *c = ctx;
    RB_CUDA(copy_coalescing_optimized(c->in, c->out, c->n, stream));
    return RB_OK;
}

const rb_pair rb_pair_copy_coalescing = {
    .name = "copy_coalescing",
    .pattern = "lanes of a warp on consecutive addresses: column walk vs row walk of an image",
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
    .kernels = copy_coalescing_kernels,
    .n_variants = 3,
    .variants =
        {
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 0.0, run_baseline},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.0, run_optimized},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_NONE, 0.0, rb_copy_memcpy},
        },
};
