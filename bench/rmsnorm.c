/* SPDX-License-Identifier: MIT */
/*
 * rmsnorm: the harness's view of kernels/rmsnorm.cu (read that file first).
 *
 * Shape and inputs: --size n gives cols = min(n, 4096), rows = n / cols; --size RxC is taken as
 *   given, with C <= 4096. That is input h4k's rows x hidden. The other inputs keep the element
 *   count and make the rows 4, 16 and 64 times longer (and fewer, at least 1): h16k, h64k, h256k.
 *   The full size 2^28 runs 65536 x 4096, 16384 x 16384, 4096 x 65536 and 1024 x 262144: the
 *   single-block kernel (4096, 16384), persistent clusters of 2 and 8 blocks (65536, 262144),
 *   and rows that are not a multiple of 8 one cluster a row. An odd C keeps every input's rows
 *   odd, hidden = (C - 1) 4^k + 1, so the element-by-element paths of every kernel run too:
 *   the GPU tests' 999 x 1021 runs 999 x 1021, 249 x 4081, 62 x 16321 and 15 x 65281 (a
 *   cluster of 2).
 * Full run: 4 inputs x 2 variants of ~0.4-0.6 ms each, at most ~1 s of timing each, plus setup
 *   (1 GiB of inputs and a 1 GiB reference made on the GPU): ~5-8 s estimated.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "gemm_ref.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/rmsnorm.h"
#include "rmsnorm_defects.h"

#define RMSNORM_EPS 1e-6f
#define RMSNORM_MAX_COLS 4096 /* input h4k's hidden; the others take up to 64x */
#define RMSNORM_INPUTS 4

/* Both variants' tolerance, against the fp64 reference rounded to the nearest bf16 (the
 * correctly rounded output). Error model: the kernels compute y = x rstd w in fp32 and round it
 * once to bf16, as the reference rounds the exact value, so the two differ only where the fp32
 * result lies on the other side of a rounding boundary: an fp32 error delta (the row's sum of
 * squares in fp32 in the kernel's order, rsqrtf's 2 ulp, two products) crosses one with
 * probability ~delta / ulp and then costs one bf16 ulp (2^-8 to 2^-7 relative): a normwise error
 * of ~sqrt(delta ulp), against the ~1.66e-3 that the bf16 rounding itself would show against an
 * unrounded reference. A host replay of both kernels' fp32 orders (scratch program; rsqrt
 * correctly rounded, where the GPU's may be 2 ulp off: ~3e-5 more by the same rule) measured
 * 1.0e-5 to 3.3e-5 at every input of the odd shape 999 x 1021 and of 2^22, the optimized kernel
 * 1.4e-5 at full size (65536 x 4096 and 1024 x 262144), and the baseline 9.1e-5 at 1024 x 262144
 * (its threads add 1024 squares each in one chain). 5e-4 is 5.5x the largest. The defects below
 * are 7.6e-3 and more. The inputs' every eighth row (a mean square near eps) and their outlier
 * last channel change no step of the kernels' (the same fp32 sums, rsqrt and products, with
 * values of other sizes: the rounding-boundary rule above holds as it is); they make the
 * placement of eps and a row's tail matter to the result, which two of the defects need. */
#define RMSNORM_TOLERANCE 5e-4

typedef struct rmsnorm_ctx {
    uint16_t *x, *w, *y; /* device: rows x hidden input, hidden weights, rows x hidden output */
    float *ref, *rstd;   /* device: the bf16-rounded reference; the baseline's per-row scratch */
    size_t rows, hidden, n;
    char no_clusters[200]; /* why the cluster kernel cannot run here ("" : it can, or no need) */
    rmsnorm_plan plan;     /* the optimized launcher's, its clusters resident at once read once */
} rmsnorm_ctx;

/* cols = min(n, 4096), rows = n / cols; a given RxC is kept when C <= 4096. */
static int rmsnorm_shape(rb_size *size, char *why, size_t why_size)
{
    if (size->rows == 0) {
        size->cols = size->n < RMSNORM_MAX_COLS ? size->n : RMSNORM_MAX_COLS;
        size->rows = size->cols ? size->n / size->cols : 0;
        size->n = size->rows * size->cols;
    }
    if (size->rows == 0 || size->cols == 0 || size->cols > RMSNORM_MAX_COLS ||
        size->n != size->rows * size->cols) {
        rb_fmt(why, why_size,
               "rmsnorm needs rows x hidden with 1 <= hidden <= 4096 (the inputs h16k, h64k and "
               "h256k make rows 4, 16 and 64 times longer)");
        return -1;
    }
    return 0;
}

/* Input k's rows and hidden at a resolved size (see the top). */
static void rmsnorm_dims(const rb_size *size, int input, size_t *rows, size_t *hidden)
{
    const size_t scale = (size_t)1 << (2 * input), c = (size_t)size->cols;
    *hidden = c % 2 ? (c - 1) * scale + 1 : c * scale;
    *rows = (size_t)size->rows / scale ? (size_t)size->rows / scale : 1;
}

/* x read once, y written once (2 bytes each), w read once; per element a square-add (2 flops)
 * and two multiplications. */
static double rmsnorm_bytes_of(size_t rows, size_t hidden)
{
    return 4.0 * (double)rows * (double)hidden + 2.0 * (double)hidden;
}

static double rmsnorm_flops_of(size_t rows, size_t hidden)
{
    return 4.0 * (double)rows * (double)hidden;
}

/* flops()/bytes() are input h4k's; rmsnorm_input_work gives each input its own. */
static double rmsnorm_flops(const rb_size *size)
{
    return rmsnorm_flops_of(size->rows, size->cols);
}

static double rmsnorm_bytes(const rb_size *size)
{
    return rmsnorm_bytes_of(size->rows, size->cols);
}

static void rmsnorm_input_work(const rb_size *size, int input, double *flops, double *bytes)
{
    size_t rows, hidden;
    rmsnorm_dims(size, input, &rows, &hidden);
    *flops = rmsnorm_flops_of(rows, hidden);
    *bytes = rmsnorm_bytes_of(rows, hidden);
}

/* The CPU reference in fp64, unrounded: y = x w / sqrt(mean x^2 + eps) per row. */
static void rmsnorm_cpu(const uint16_t *x, const uint16_t *w, size_t rows, size_t hidden,
                        double eps, double *y)
{
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * hidden;
        double s = 0.0;
        for (size_t c = 0; c < hidden; c++)
            s += rb_bf16_to_double(xr[c]) * rb_bf16_to_double(xr[c]);
        const double scale = 1.0 / sqrt(s / (double)hidden + eps);
        for (size_t c = 0; c < hidden; c++)
            y[r * hidden + c] = rb_bf16_to_double(xr[c]) * scale * rb_bf16_to_double(w[c]);
    }
}

/* The GPU reference (fp64, rounded once to fp32, not yet to bf16) against the CPU's, from the
 * device's own inputs. */
static rb_status rmsnorm_crosscheck(const rmsnorm_ctx *c)
{
    uint16_t *x = malloc(c->n * sizeof *x), *w = malloc(c->hidden * sizeof *w);
    double *y = malloc(c->n * sizeof *y);
    float *ref = malloc(c->n * sizeof *ref);
    rb_status st = RB_ERR_ALLOC;
    if (x && w && y && ref &&
        cudaMemcpy(x, c->x, c->n * 2, cudaMemcpyDeviceToHost) == cudaSuccess &&
        cudaMemcpy(w, c->w, c->hidden * 2, cudaMemcpyDeviceToHost) == cudaSuccess) {
        rmsnorm_cpu(x, w, c->rows, c->hidden, (double)RMSNORM_EPS, y);
        for (size_t i = 0; i < c->n; i++)
            ref[i] = (float)y[i];
        st = rb_crosscheck_reference("rmsnorm", c->ref, ref, c->n, 1e-6);
    }
    free(x);
    free(w);
    free(y);
    free(ref);
    return st;
}

/* Why the optimized variant cannot run input `hidden` here, into c->no_clusters ("" : it can);
 * where it can, how many of its clusters fit at once, into c->plan. */
static rb_status rmsnorm_cluster_check(rmsnorm_ctx *c)
{
    int supported = 0, device_cc = 0, kernel_cc = 0;
    c->no_clusters[0] = '\0';
    if (c->plan.cluster == 1)
        return RB_OK;
    RB_CUDA(rmsnorm_cluster_support(&supported, &device_cc, &kernel_cc));
    if (!supported) {
        rb_fmt(c->no_clusters, sizeof c->no_clusters,
               "rows of %zu need a thread-block cluster: compute capability 9.0 or later, and a "
               "build for it (this GPU %d.%d, this build's kernels %d.%d)",
               c->hidden, device_cc / 10, device_cc % 10, kernel_cc / 10, kernel_cc % 10);
        return RB_OK;
    }
    /* A diagnostic, and the persistent grid of aligned rows: a query that fails leaves the figure
     * out, not the pair (the launcher then starts one cluster a row, each looping once). */
    if (rmsnorm_clusters_fit(c->hidden, &c->plan) != cudaSuccess) {
        c->plan.resident = 0;
        (void)cudaGetLastError();
    }
    return RB_OK;
}

/* Beside the optimized rate of a clustered input: how many of its clusters fit on the GPU at once
 * and the blocks they hold (a cluster's blocks share a GPC, so a GPC whose free SMs do not divide
 * into clusters leaves some idle): what may hold long rows below the copy roof. */
static int rmsnorm_extras(void *ctx, int variant, const double *median_ms,
                          rb_extra out[RB_MAX_EXTRAS])
{
    const rmsnorm_ctx *c = ctx;
    (void)median_ms;
    if (variant != 1 || c->plan.resident <= 0)
        return 0;
    rb_fmt(out[0].name, sizeof out[0].name, "clusters_fit");
    out[0].value = c->plan.resident;
    rb_fmt(out[1].name, sizeof out[1].name, "blocks_in_clusters");
    out[1].value = (double)c->plan.resident * c->plan.cluster;
    return 2;
}

static rb_status rmsnorm_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    rmsnorm_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    rmsnorm_dims(size, input, &c->rows, &c->hidden);
    c->n = c->rows * c->hidden;
    if (input < 0 || input >= RMSNORM_INPUTS || rmsnorm_plan_for(c->hidden, &c->plan) != 0 ||
        c->n / c->hidden != c->rows) {
        rb_error_at(__FILE__, __LINE__, "rmsnorm_setup", "hidden must be in 1 .. 262144");
        return RB_ERR_INPUT;
    }
    RB_CUDA(cudaMalloc((void **)&c->x, c->n * 2));
    RB_CUDA(cudaMalloc((void **)&c->y, c->n * 2));
    RB_CUDA(cudaMalloc((void **)&c->w, c->hidden * 2));
    RB_CUDA(cudaMalloc((void **)&c->ref, c->n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->rstd, c->rows * sizeof(float)));
    RB_CUDA(rmsnorm_fill_inputs(c->x, c->w, c->rows, c->hidden, seed, 0));
    RB_CUDA(rmsnorm_reference(c->x, c->w, c->ref, c->rows, c->hidden, RMSNORM_EPS, 0));
    RB_CUDA(cudaDeviceSynchronize());
    if (c->n <= RB_CPU_REFERENCE_MAX)
        RB_TRY(rmsnorm_crosscheck(c));
    RB_CUDA(rmsnorm_round_to_bf16(c->ref, c->n, 0));
    RB_CUDA(cudaDeviceSynchronize());
    return rmsnorm_cluster_check(c);
}

static void rmsnorm_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    rmsnorm_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->y;
    *bytes = c->n * 2;
}

static rb_status rmsnorm_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    rmsnorm_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_bf16_device(c->y, c->ref, c->n, stream, rel_err));
    return RB_OK;
}

static void rmsnorm_teardown(void *ctx)
{
    rmsnorm_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->x);
    cudaFree(c->y);
    cudaFree(c->w);
    cudaFree(c->ref);
    cudaFree(c->rstd);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    rmsnorm_ctx *c = ctx;
    RB_CUDA(rmsnorm_baseline(c->x, c->w, c->y, c->rstd, c->rows, c->hidden, RMSNORM_EPS, stream));
    return RB_OK;
}

/* Rows that need a cluster on a GPU (or build) without clusters: skipped, with the reason. */
static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    rmsnorm_ctx *c = ctx;
    if (c->no_clusters[0]) {
        rb_skip_at(__FILE__, __LINE__, "rmsnorm optimized", c->no_clusters);
        return RB_ERR_UNSUPPORTED;
    }
    RB_CUDA(rmsnorm_optimized(&c->plan, c->x, c->w, c->y, c->rows, c->hidden, RMSNORM_EPS, stream));
    return RB_OK;
}

/* Planted defects (tests/test_gpu.c, seed 5, at the odd shape 999 x 1021: the inputs' rows are
 * 1021, 4081, 16321 and 65281 long, none a multiple of 8; the _aligned one at 999 x 4096: 4096
 * to 262144). All write every element.
 *   wrong_row_scale (judged as the baseline): row r normalized with row r + 1's rstd. Neighbouring
 *     rows differ in scale by a factor of 2 to 16 (the inputs' row scales 2^(r % 5 - 2)), and by
 *     2^8 to 2^12 beside every eighth row (2^-10): 6.6 to 6.7 normwise in the host replay,
 *     against a tolerance of 5e-4.
 *   cluster_rank_left_out (judged as the optimized variant): the cluster kernel, 2 or more blocks
 *     per row on every input (2 at 1021 .. 65281), whose sum leaves out the last block's partial:
 *     about half the row's sum of squares is missing, every element comes out ~sqrt(2) too large:
 *     0.41 normwise in the host replay (0.069 at 262144, where 1 block of 8 is left out).
 *   cluster_rank_left_out_aligned: the same on rows of 16-byte vectors (2 blocks at 4096 .. 65536,
 *     8 at 262144), so the persistent kernel that the full run's long rows take runs the bug too,
 *     999 rows a launch: each of its clusters takes several rows. 0.41, and 0.069 at 262144.
 *   (These three were replayed on the inputs before the rows of ms near eps and the outlier
 *   channel came in; tests/test_gpu.c prints each defect's error against its tolerance.)
 *   eps_outside_sqrt (as the baseline; bench/rmsnorm_defects.cu): rstd = 1 / (sqrt(ms) + eps).
 *     Every eighth row has ms ~ eps / 3 (x at 2^-10, the outlier channel included: 0.3 eps at
 *     65281, 0.6 eps at 1021), where this scales the row by 1.5 to 2; elsewhere it moves a row by
 *     eps / sqrt(ms) < 1e-5, below anything a check can tell from rounding. Against the exact
 *     (fp64) output, at seed 5: 0.13 to 0.18 normwise, 270x the tolerance and more.
 *   dropped_tail (as the baseline; bench/rmsnorm_defects.cu): the mean square leaves out the
 *     row's last hidden % 8 elements (1 to 5 here), which hold the outlier channel (32x: 1024 / 3
 *     of a row's sum of squares of ~hidden / 3): every row's scale off by ~512 / hidden at
 *     least; against the exact output 7.6e-3 (65281) to 0.47 (1021) normwise, 15x the tolerance
 *     and more. Without the outlier, one element of 65281 moves a row by ~8e-6, which no
 *     normwise check sees. */
static rb_status run_wrong_row_scale(void *ctx, cudaStream_t stream)
{
    rmsnorm_ctx *c = ctx;
    RB_CUDA(rmsnorm_defect_wrong_row_scale(c->x, c->w, c->y, c->rstd, c->rows, c->hidden,
                                           RMSNORM_EPS, stream));
    return RB_OK;
}

static rb_status run_cluster_rank_left_out(void *ctx, cudaStream_t stream)
{
    rmsnorm_ctx *c = ctx;
    RB_CUDA(rmsnorm_defect_cluster_rank_left_out(c->x, c->w, c->y, c->rows, c->hidden, RMSNORM_EPS,
                                                 stream));
    return RB_OK;
}

static rb_status run_eps_outside_sqrt(void *ctx, cudaStream_t stream)
{
    rmsnorm_ctx *c = ctx;
    RB_CUDA(rmsnorm_defect_run(c->x, c->w, c->y, c->rows, c->hidden, RMSNORM_EPS,
                               RMSNORM_DEFECT_EPS_OUTSIDE_SQRT, stream));
    return RB_OK;
}

static rb_status run_dropped_tail(void *ctx, cudaStream_t stream)
{
    rmsnorm_ctx *c = ctx;
    RB_CUDA(rmsnorm_defect_run(c->x, c->w, c->y, c->rows, c->hidden, RMSNORM_EPS,
                               RMSNORM_DEFECT_DROPPED_TAIL, stream));
    return RB_OK;
}

/* The CPU reference on hand-computed rows. */
static int rmsnorm_selftest_reference(char *why, size_t why_size)
{
    /* x = [3 4; 1 -1; 0 0], w = [1 2], eps 0 for the first two rows: mean squares 12.5 and 1,
     * y = [3 8] / sqrt(12.5) = [0.848528137..., 2.262741699...] and [1 -2]. The zero row needs
     * eps: with it y = 0, without it 0 / 0. bf16: 3 = 0x4040, 4 = 0x4080, 1 = 0x3F80,
     * -1 = 0xBF80, 2 = 0x4000. */
    const uint16_t x[6] = {0x4040, 0x4080, 0x3F80, 0xBF80, 0x0000, 0x0000};
    const uint16_t w[2] = {0x3F80, 0x4000};
    const double want[4] = {0.84852813742385702, 2.2627416997969521, 1.0, -2.0};
    double y[6];
    rmsnorm_cpu(x, w, 2, 2, 0.0, y);
    for (int i = 0; i < 4; i++)
        if (!(fabs(y[i] - want[i]) <= 1e-15)) {
            rb_fmt(why, why_size, "CPU reference: y[%d] = %.17g, want %.17g", i, y[i], want[i]);
            return -1;
        }
    rmsnorm_cpu(x + 4, w, 1, 2, (double)RMSNORM_EPS, y);
    if (y[0] != 0.0 || y[1] != 0.0) {
        rb_fmt(why, why_size, "CPU reference: a zero row with eps gave %g, %g", y[0], y[1]);
        return -1;
    }
    return 0;
}

/* The shape rule, the inputs' dimensions and the launcher's plan at the sizes a run takes. */
static int rmsnorm_selftest_shapes(char *why, size_t why_size)
{
    rb_size full = {1u << 28, 0, 0}, odd = {999 * 1021, 999, 1021}, n_odd = {1000003, 0, 0};
    rb_size wide = {10 * 4097, 10, 4097};
    char sub[200];
    if (rmsnorm_shape(&full, sub, sizeof sub) != 0 || full.rows != 65536 || full.cols != 4096 ||
        rmsnorm_shape(&odd, sub, sizeof sub) != 0 || rmsnorm_shape(&n_odd, sub, sizeof sub) != 0 ||
        n_odd.rows != 244 || n_odd.cols != 4096 || rmsnorm_shape(&wide, sub, sizeof sub) != -1) {
        rb_fmt(why, why_size, "shape rule wrong on 2^28, 999x1021, 1000003 or 10x4097");
        return -1;
    }
    const size_t want[2][RMSNORM_INPUTS][2] = {
        {{65536, 4096}, {16384, 16384}, {4096, 65536}, {1024, 262144}},
        {{999, 1021}, {249, 4081}, {62, 16321}, {15, 65281}}};
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < RMSNORM_INPUTS; k++) {
            size_t rows, hidden;
            rmsnorm_dims(s ? &odd : &full, k, &rows, &hidden);
            if (rows != want[s][k][0] || hidden != want[s][k][1]) {
                rb_fmt(why, why_size, "input %d at %s: %zu x %zu", k, s ? "999x1021" : "2^28", rows,
                       hidden);
                return -1;
            }
        }
    /* hidden -> cluster, threads, items, chunk */
    const size_t plans[11][5] = {
        {4096, 1, 256, 2, 4096},    {16384, 1, 256, 8, 16384},  {16385, 2, 512, 4, 8200},
        {65536, 2, 512, 8, 32768},  {65281, 2, 512, 8, 32648},  {131072, 4, 512, 8, 32768},
        {131080, 5, 512, 8, 26216}, {200064, 7, 512, 8, 28584}, {262143, 8, 512, 8, 32768},
        {262144, 8, 512, 8, 32768}, {1021, 1, 256, 1, 1021}};
    for (int i = 0; i < 11; i++) {
        rmsnorm_plan p;
        if (rmsnorm_plan_for(plans[i][0], &p) != 0 || (size_t)p.cluster != plans[i][1] ||
            (size_t)p.threads != plans[i][2] || (size_t)p.items != plans[i][3] ||
            p.chunk != plans[i][4] || p.resident != 0) {
            rb_fmt(why, why_size, "plan for hidden %zu wrong", plans[i][0]);
            return -1;
        }
    }
    rmsnorm_plan p;
    if (rmsnorm_plan_for(262145, &p) != -1 || rmsnorm_plan_for(0, &p) != -1) {
        rb_fmt(why, why_size, "plan accepted hidden 0 or 262145");
        return -1;
    }
    return 0;
}

/* The launcher and the residency query refuse a plan made for another row length (the persistent
 * launch would otherwise size its grid and shared memory from it): before any CUDA call, so this
 * runs without a GPU. */
static int rmsnorm_selftest_plan_refused(char *why, size_t why_size)
{
    rmsnorm_plan p;
    if (rmsnorm_plan_for(65536, &p) != 0 ||
        rmsnorm_optimized(&p, NULL, NULL, NULL, 1, 262144, RMSNORM_EPS, 0) !=
            cudaErrorInvalidValue ||
        rmsnorm_clusters_fit(262144, &p) != cudaErrorInvalidValue) {
        rb_fmt(why, why_size, "a plan for 65536 accepted for rows of 262144");
        return -1;
    }
    return 0;
}

static int rmsnorm_selftest(char *why, size_t why_size)
{
    if (rmsnorm_selftest_reference(why, why_size) != 0 ||
        rmsnorm_selftest_shapes(why, why_size) != 0 ||
        rmsnorm_selftest_plan_refused(why, why_size) != 0)
        return -1;
    rb_size full = {1u << 28, 65536, 4096};
    double flops, bytes;
    rmsnorm_input_work(&full, 3, &flops, &bytes);
    if (rmsnorm_bytes(&full) != 0x1p30 + 8192.0 || rmsnorm_flops(&full) != 0x1p30 ||
        bytes != 0x1p30 + 524288.0 || flops != 0x1p30) {
        rb_fmt(why, why_size, "work model wrong at 2^28");
        return -1;
    }
    return 0;
}

static const rb_pair_ext rmsnorm_ext = {
    .shape = rmsnorm_shape,
    .work = rmsnorm_input_work,
    .extras = rmsnorm_extras,
};

const rb_pair rb_pair_rmsnorm = {
    .name = "rmsnorm",
    .pattern = "RMSNorm in one DRAM pass, the row in registers and long rows summed across a "
               "thread-block cluster through distributed shared memory, vs two kernels",
    .size_unit = "bf16 elements (rows x hidden of input h4k, hidden <= 4096; h16k, h64k and "
                 "h256k make the rows 4, 16 and 64 times longer)",
    .smoke_size = 1u << 22,
    .full_size = 1u << 28,
    .flops = rmsnorm_flops,
    .bytes = rmsnorm_bytes,
    .setup = rmsnorm_setup,
    .output = rmsnorm_output,
    .check = rmsnorm_check,
    .teardown = rmsnorm_teardown,
    .selftest = rmsnorm_selftest,
    /* 16-byte evict-first loads and stores in the full run's kernels. From compute capability 9.0
     * (below it the cluster kernels are a trap): the persistent kernel (aligned long rows) copies
     * its chunk of w into shared memory (STS.128), sends its partials by st.async (STAS) and
     * prefetches its chunk of the next row into L2 (UBLKPF); the one-row cluster kernel (other
     * long rows) has the cluster barrier (UCGABAR_ARV; its UCGABAR_WAIT comes with it, and the
     * fingerprint counts at most 7 distinct instructions a pair) and its distributed-shared-memory
     * reads (mapa + ld.shared::cluster compile to LD.E through the shared window). Every
     * rmsnorm_optimized* kernel must be free of local memory (tests/test_codegen.c). */
    .codegen =
        {
            {"rmsnorm_optimized_kernelILi2ELb1E", "LDG.E.EF.128", 0},
            {"rmsnorm_optimized_kernelILi2ELb1E", "STG.E.EF.128", 0},
            {"rmsnorm_optimized_kernelILi8ELb1E", "LDG.E.EF.128", 0},
            {"rmsnorm_optimized_persistent_kernelILi8EE", "LDG.E.EF.128", 90},
            {"rmsnorm_optimized_persistent_kernelILi8EE", "STG.E.EF.128", 90},
            {"rmsnorm_optimized_persistent_kernelILi8EE", "STS.128", 90},
            {"rmsnorm_optimized_persistent_kernelILi8EE", "STAS", 90},
            {"rmsnorm_optimized_persistent_kernelILi8EE", "UBLKPF", 90},
            {"rmsnorm_optimized_cluster_kernelILi8EE", "UCGABAR_ARV", 90},
            {"rmsnorm_optimized_cluster_kernelILi8EE", "LD.E", 90},
            {NULL, NULL, 0},
        },
    .kernels = rmsnorm_kernels,
    .n_inputs = RMSNORM_INPUTS,
    .inputs = {"h4k", "h16k", "h64k", "h256k"},
    .n_variants = 2,
    .variants =
        {
            /* Roof: a stream that reads x and writes y once: the DRAM copy roof. */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, RMSNORM_TOLERANCE, run_baseline,
             .roof = "dram_gbps"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, RMSNORM_TOLERANCE, run_optimized,
             .roof = "dram_gbps"},
        },
    .defects =
        {
            {"wrong_row_scale", 0, run_wrong_row_scale, 0},
            {"cluster_rank_left_out", 1, run_cluster_rank_left_out, 0},
            {"cluster_rank_left_out_aligned", 1, run_cluster_rank_left_out, 999 * 4096},
            {"eps_outside_sqrt", 0, run_eps_outside_sqrt, 0},
            {"dropped_tail", 0, run_dropped_tail, 0},
        },
    .ext = &rmsnorm_ext,
};
