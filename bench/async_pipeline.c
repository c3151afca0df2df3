/* SPDX-License-Identifier: MIT */
/* async_pipeline: the harness's view of kernels/async_pipeline.cu (read that file first): the
 * skinny GEMM out = in W (in m x 1024, W 1024 x 32, fp32), its references and check, and the
 * occupancy figures each variant's extras record. The size is m, the rows of in. */
#include <stdlib.h>

#include "model/compare.h"
#include "model/random.h"
#include "gpu.h"
#include "kernels/async_pipeline.h"
#include "pair_util.h"

#define AP_K 1024
#define AP_N 32
#define AP_MAX_ROWS ((uint64_t)1 << 22) /* in: 16 GiB; the kernels index rows with int */
/* The CPU reference costs 2 K N flops a row: pin the GPU one only up to this many rows. */
#define AP_CPU_ROWS 4096

typedef struct async_pipeline_ctx {
    float *in;  /* m x K, seeded uniform in (-1, 1) */
    float *w;   /* K x N, seeded uniform in (-1, 1) */
    float *out; /* m x N: what the variants write */
    float *ref; /* m x N: the GPU reference */
    float *w_short; /* W with its last 32-row chunk zeroed: the planted defect's operand */
    int m;
    int sweep_bps; /* the blocks per SM the extras' sweep is timing (0: the kernel's best) */
} async_pipeline_ctx;

/* 2 K N flops per row. */
static double async_pipeline_flops(const rb_size *size)
{
    return 2.0 * AP_K * AP_N * (double)size->n;
}

/* Each row of in read once and of out written once; W read once. */
static double async_pipeline_bytes(const rb_size *size)
{
    return 4.0 * (AP_K + AP_N) * (double)size->n + 4.0 * AP_K * AP_N;
}

/* The CPU reference: out[r][c] = sum over k of in[r][k] w[k][c] in fp64, k ascending. */
static void async_pipeline_cpu(const float *in, const float *w, float *out, int m, int k, int n)
{
    for (int r = 0; r < m; r++)
        for (int c = 0; c < n; c++) {
            double acc = 0.0;
            for (int i = 0; i < k; i++)
                acc += (double)in[(size_t)r * k + i] * (double)w[(size_t)i * n + c];
            out[(size_t)r * n + c] = (float)acc;
        }
}

/* Small sizes: the CPU reference on the same seeded inputs pins the GPU reference. */
static rb_status async_pipeline_crosscheck(const async_pipeline_ctx *c, uint64_t seed)
{
    size_t in_n = (size_t)c->m * AP_K, out_n = (size_t)c->m * AP_N;
    float *in = malloc(in_n * sizeof *in), *w = malloc((size_t)AP_K * AP_N * sizeof *w);
    float *ref = malloc(out_n * sizeof *ref);
    rb_status st = RB_ERR_ALLOC;
    if (in && w && ref) {
        for (size_t i = 0; i < in_n; i++)
            in[i] = rb_uniform_f32(seed, i);
        for (size_t i = 0; i < (size_t)AP_K * AP_N; i++)
            w[i] = rb_uniform_f32(seed + 1, i);
        async_pipeline_cpu(in, w, ref, c->m, AP_K, AP_N);
        st = rb_crosscheck_reference("async_pipeline", c->ref, ref, out_n, 1e-6);
    }
    free(in);
    free(w);
    free(ref);
    return st;
}

/* W (128 KB) and the ring must fit one block's shared memory: 224 KB, which Hopper's 227 KB
 * allows and earlier GPUs' (A100: 163 KB) do not. Not fitting is a skip, with the reason. */
static rb_status async_pipeline_fits(void)
{
    int dev = 0, optin = 0;
    RB_CUDA(cudaGetDevice(&dev));
    RB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    for (int v = 0; v < 2; v++)
        if (async_pipeline_smem_bytes(v) > optin) {
            char msg[160];
            rb_fmt(msg, sizeof msg, "needs %d bytes of shared memory per block, this GPU allows %d",
                   async_pipeline_smem_bytes(v), optin);
            rb_skip_at(__FILE__, __LINE__, "async_pipeline_fits", msg);
            return RB_ERR_UNSUPPORTED;
        }
    return RB_OK;
}

static rb_status async_pipeline_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    async_pipeline_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    int k = 0, n = 0;
    async_pipeline_dims(&k, &n);
    if (k != AP_K || n != AP_N || size->n < 1 || size->n > AP_MAX_ROWS) {
        rb_error_at(__FILE__, __LINE__, "async_pipeline_setup",
                    "rows must be 1 .. 2^22, and the kernels built for K = 1024, N = 32");
        return RB_ERR_INPUT;
    }
    RB_TRY(async_pipeline_fits());
    c->m = (int)size->n;
    size_t in_n = (size_t)c->m * AP_K, out_n = (size_t)c->m * AP_N;
    RB_CUDA(cudaMalloc((void **)&c->in, in_n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->w, (size_t)AP_K * AP_N * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->out, out_n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->ref, out_n * sizeof(float)));
    RB_CUDA(rb_fill_uniform_f32(c->in, in_n, seed, 0));
    RB_CUDA(rb_fill_uniform_f32(c->w, (size_t)AP_K * AP_N, seed + 1, 0));
    RB_CUDA(async_pipeline_reference(c->in, c->w, c->ref, c->m, 0));
    /* The planted defect's W (see async_pipeline_defect_last_chunk): 128 KB, made once. */
    RB_CUDA(cudaMalloc((void **)&c->w_short, (size_t)AP_K * AP_N * sizeof(float)));
    RB_CUDA(cudaMemcpy(c->w_short, c->w, (size_t)AP_K * AP_N * sizeof(float),
                       cudaMemcpyDeviceToDevice));
    RB_CUDA(cudaMemset(c->w_short + (size_t)(AP_K - 32) * AP_N, 0, 32 * AP_N * sizeof(float)));
    RB_CUDA(cudaDeviceSynchronize());
    if (c->m <= AP_CPU_ROWS)
        RB_TRY(async_pipeline_crosscheck(c, seed));
    return RB_OK;
}

static void async_pipeline_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    async_pipeline_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = (size_t)c->m * AP_N * sizeof(float);
}

static rb_status async_pipeline_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    async_pipeline_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_f32_device(c->out, c->ref, (size_t)c->m * AP_N, stream, rel_err));
    return RB_OK;
}

static void async_pipeline_teardown(void *ctx)
{
    async_pipeline_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->in);
    cudaFree(c->w);
    cudaFree(c->w_short);
    cudaFree(c->out);
    cudaFree(c->ref);
    free(c);
}

static rb_status async_pipeline_run_baseline(void *ctx, cudaStream_t stream)
{
    async_pipeline_ctx *c = ctx;
    RB_CUDA(async_pipeline_baseline(c->in, c->w, c->out, c->m, c->sweep_bps, stream));
    return RB_OK;
}

static rb_status async_pipeline_run_optimized(void *ctx, cudaStream_t stream)
{
    async_pipeline_ctx *c = ctx;
    RB_CUDA(async_pipeline_optimized(c->in, c->w, c->out, c->m, c->sweep_bps, stream));
    return RB_OK;
}

/* Planted defect: the K loop stops one 32-column chunk early (a loop bound off by one chunk).
 * Running the optimized kernel on a W whose last chunk of rows is zero computes exactly that:
 * out = in[:, :992] W[:992, :]. Every output is written; each misses 32 of its 1024 terms, a
 * normwise error of sqrt(32 / 1024) = 0.18 (the error model beside the tolerance: 0.174), ~10^5
 * times the tolerance. */
static rb_status async_pipeline_defect_last_chunk(void *ctx, cudaStream_t stream)
{
    async_pipeline_ctx *c = ctx;
    RB_CUDA(async_pipeline_optimized(c->in, c->w_short, c->out, c->m, 0, stream));
    return RB_OK;
}

/* Extras: max_blocks_per_sm, the blocks per SM the variant's kernel fits (the occupancy API; 1
 * for both: W alone is 128 KB of shared memory), and ms_bps_<k>, the variant timed at each k up
 * to it: the sweep of the baseline's occupancy that shows it runs at its best. Runs after every
 * check (it overwrites the output); nothing when the variant was not timed (check only). */
static int async_pipeline_extras(void *ctx, int variant, const double *median_ms,
                                 rb_extra out[RB_MAX_EXTRAS])
{
    async_pipeline_ctx *c = ctx;
    int max_bps = 0;
    if (!c || variant < 0 || variant > 1 || !(median_ms[variant] > 0.0) ||
        async_pipeline_max_blocks_per_sm(variant, &max_bps) != cudaSuccess)
        return 0;
    return rb_occupancy_sweep(variant == 0 ? async_pipeline_run_baseline
                                           : async_pipeline_run_optimized,
                              c, &c->sweep_bps, max_bps, median_ms[variant], out);
}

static int async_pipeline_fail(char *why, size_t why_size, const char *msg)
{
    rb_fmt(why, why_size, "%s", msg);
    return -1;
}

/* The CPU reference on a hand-computed 2 x 3 times 3 x 2 product, and the work model. */
static int async_pipeline_selftest(char *why, size_t why_size)
{
    const float in[6] = {1, 2, 3, -1, 0.5f, 4};     /* rows (1, 2, 3) and (-1, 0.5, 4) */
    const float w[6] = {1, -2, 0.25f, 1, -1, 0.5f}; /* rows (1, -2), (0.25, 1), (-1, 0.5) */
    /* (1 + 0.5 - 3, -2 + 2 + 1.5) and (-1 + 0.125 - 4, 2 + 0.5 + 2) */
    const float want[4] = {-1.5f, 1.5f, -4.875f, 4.5f};
    float got[4];
    async_pipeline_cpu(in, w, got, 2, 3, 2);
    if (!(rb_relerr_f32(got, want, 4) <= 1e-7))
        return async_pipeline_fail(why, why_size, "CPU GEMM wrong on a 2x3 by 3x2 product");
    /* One row: 2 x 1024 x 32 flops; (1024 + 32) x 4 bytes + W's 1024 x 32 x 4. */
    rb_size one = {1, 1, 1};
    if (async_pipeline_flops(&one) != 65536.0 || async_pipeline_bytes(&one) != 4224.0 + 131072.0)
        return async_pipeline_fail(why, why_size, "work model wrong for one row");
    int k = 0, n = 0;
    async_pipeline_dims(&k, &n);
    if (k != AP_K || n != AP_N)
        return async_pipeline_fail(why, why_size, "kernels built for another K x N");
    return 0;
}

static const rb_pair_ext async_pipeline_ext = {
    .extras = async_pipeline_extras,
};

const rb_pair rb_pair_async_pipeline = {
    .name = "async_pipeline",
    .pattern = "cp.async ring loading ahead vs synchronous chunk loads (skinny GEMM, W on chip)",
    .size_unit = "rows of 1024 fp32",
    .smoke_size = 4096,
    .full_size = 270336,
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
            {"async_pipeline_optimized_kernel", "LDS.128"},
            {"async_pipeline_baseline_kernel", "LDG.E.128.STRONG.GPU"}, /* ld.global.cg */
        },
    .kernels = async_pipeline_kernels,
    .n_variants = 2,
    .variants =
        {
            /* Error model: each output is a K = 1024-term fp32 dot product, accumulated by fused
             * multiply-adds in k order (both kernels; one rounding per term), against an fp64
             * reference rounded once to fp32. Inputs uniform in (-1, 1). Emulated on the CPU in
             * the kernels' order at m = 999, 4096 and 20000: 5.7e-7 normwise at all three
             * (~sqrt(K) roundings of 2^-24 on partial sums of size ~sqrt(k/9)). The tolerance
             * is ~3.5x that. A chunk skipped (32 of the 1024 k: the last one dropped) is off by
             * 0.174, a chunk computed from a stale stage (a missing wait) by 0.25, and a row or
             * tile never stored is NaN: each fails by 10^4 or more. */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, 2e-6, async_pipeline_run_baseline},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, 2e-6, async_pipeline_run_optimized},
        },
    .defects = {{"last_k_chunk_dropped", 1, async_pipeline_defect_last_chunk}},
    .ext = &async_pipeline_ext,
};
