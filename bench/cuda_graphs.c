/* SPDX-License-Identifier: MIT */
/* cuda_graphs: the harness's view of kernels/cuda_graphs.cu (read that file first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "model/random.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/cuda_graphs.h"

/* Variants, in table order. */
enum { CG_BASELINE, CG_GRAPH, CG_OPTIMIZED, CG_UPDATE };

/* The output scale of graph_update's even replays (odd ones use the captured 1). */
#define CG_ALT_SCALE 0.5f

/* Error model: fp32 through ~200 dependent kernels, each element a few roundings (and exp or
 * rsqrt, <= 2 ulp) per kernel, vs a double reference; the sums of squares are short per thread
 * and combined by trees, so the error does not grow with d. A CPU run that rounds every
 * operation to float in the GPU's order (cg_reference with f32; the selftest re-measures it at
 * d = 4096) is off by 2.9e-7 at d = 4096 and 1.9e-7 at d = 1000003 (normwise). Measured on the
 * GPU (H100, d = 4096, every variant): 1.83e-7 to 1.94e-7 in the committed runs
 * (docs/notes/cuda_graphs.md). 1e-6 is 3.4x the largest of those; a stale graph
 * parameter (the planted defects) gives 1.4-2.2. */
#define CG_TOL 1e-6

typedef struct cg_ctx {
    size_t d;
    float *in[2]; /* two token input vectors (input 0 is the captured one) */
    float *gains; /* LAYERS + 1 gain vectors */
    float *x, *h, *p, *out;
    float *ref[2]; /* device: the step on in[0] at scale 1, and on in[1] at CG_ALT_SCALE */
    int pdl;                    /* the optimized graph's kernels overlap (0: not supported here) */
    cudaGraph_t graph, graph_pdl; /* captured without and with programmatic dependent launch */
    cudaGraphExec_t exec, exec_pdl, exec_update; /* graph; optimized; graph_update (edited) */
    cudaGraphNode_t embed_node, final_node;      /* graph_pdl's, which exec_update was made of */
    uint64_t replays; /* graph_update replays so far */
} cg_ctx;

static double cg_flops_d(double d, int layers)
{
    return (18.0 * layers + 4.0) * d;
}

static double cg_bytes_d(double d, int layers)
{
    return (52.0 * layers + 20.0) * d;
}

/* The kernels' real, tiny work (see the .cu): it stays in L2. */
static double cg_flops(const rb_size *size)
{
    return cg_flops_d((double)size->n, cuda_graphs_layers);
}

static double cg_bytes(const rb_size *size)
{
    return cg_bytes_d((double)size->n, cuda_graphs_layers);
}

/* v, or v rounded to float when f32 (to model the GPU's fp32 arithmetic in the selftest). */
static double cg_round(double v, int f32)
{
    return f32 ? (double)(float)v : v;
}

/* The threads of a GPU rmsnorm block (CUDA_GRAPHS_BLOCK in the .cu): each sums every 256th
 * square, then the block adds the 256 partial sums. */
#define CG_GPU_THREADS 256

/* y = x scale / sqrt(mean(x^2) + eps) g, in the GPU's order of operations (when f32, the sum of
 * squares too: one running fp32 sum per thread of a block, then the partials). */
static void cg_rmsnorm(const double *x, const float *g, double scale, double *y, size_t d, int f32)
{
    double ss = 0.0, part[CG_GPU_THREADS] = {0.0};
    for (size_t i = 0; i < d; i++) {
        double *acc = f32 ? &part[i % CG_GPU_THREADS] : &ss;
        *acc = cg_round(*acc + x[i] * x[i], f32);
    }
    for (int t = 0; f32 && t < CG_GPU_THREADS; t++)
        ss = cg_round(ss + part[t], f32);
    double r =
        cg_round(1.0 / sqrt(cg_round(cg_round(ss / (double)d, f32) + cuda_graphs_eps, f32)), f32);
    r = cg_round(r * scale, f32);
    for (size_t i = 0; i < d; i++)
        y[i] = cg_round(cg_round(x[i] * r, f32) * g[i], f32);
}

/* p = softmax(h / 2) within each row of cuda_graphs_row elements (the last may be shorter). */
static void cg_softmax_rows(const double *h, double *p, size_t d, int f32)
{
    const double t = cuda_graphs_inv_temp;
    for (size_t start = 0; start < d; start += (size_t)cuda_graphs_row) {
        size_t end = d - start < (size_t)cuda_graphs_row ? d : start + (size_t)cuda_graphs_row;
        double m = -INFINITY, s = 0.0;
        for (size_t i = start; i < end; i++)
            m = fmax(m, h[i]);
        for (size_t i = start; i < end; i++) {
            p[i] = cg_round(exp(cg_round(cg_round(h[i] - m, f32) * t, f32)), f32);
            s = cg_round(s + p[i], f32);
        }
        double inv = cg_round(1.0 / s, f32);
        for (size_t i = start; i < end; i++)
            p[i] = cg_round(p[i] * inv, f32);
    }
}

/* One decode step (see the .cu) on the CPU, in double, or rounding every operation to float
 * when f32. x, h, p: scratch vectors of d doubles. */
static void cg_reference(const float *in, const float *gains, double scale, size_t d, int layers,
                         int f32, double *x, double *h, double *p, float *out)
{
    double c = (double)(1.0f / (float)layers); /* the kernels' float 1 / LAYERS */
    for (size_t i = 0; i < d; i++)
        x[i] = in[i];
    for (int l = 0; l < layers; l++) {
        cg_rmsnorm(x, gains + (size_t)l * d, 1.0, h, d, f32);
        for (size_t i = 0; i < d; i++) /* silu */
            h[i] = cg_round(h[i] / cg_round(1.0 + cg_round(exp(-h[i]), f32), f32), f32);
        cg_softmax_rows(h, p, d, f32);
        size_t rotate = (size_t)cuda_graphs_rotate * (size_t)(l + 1) % d;
        double w = (double)(d < (size_t)cuda_graphs_row ? d : (size_t)cuda_graphs_row);
        for (size_t i = 0; i < d; i++) /* gate, residual */
            h[i] = cg_round(cg_round(h[i] * p[(i + rotate) % d], f32) * w, f32);
        for (size_t i = 0; i < d; i++)
            x[i] = cg_round(x[i] + c * h[i], f32);
    }
    cg_rmsnorm(x, gains + (size_t)layers * d, scale, h, d, f32);
    for (size_t i = 0; i < d; i++)
        out[i] = (float)h[i];
}

/* Inputs in (-1, 1); gains in (0.5, 1.5). */
static void cg_inputs(uint64_t seed, size_t d, int layers, float *in0, float *in1, float *gains)
{
    for (size_t i = 0; i < d; i++) {
        in0[i] = rb_uniform_f32(seed, i);
        in1[i] = rb_uniform_f32(seed + 1, i);
    }
    for (size_t i = 0; i < (size_t)(layers + 1) * d; i++)
        gains[i] = 1.0f + 0.5f * rb_uniform_f32(seed + 2, i);
}

static rb_status cg_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    cg_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    size_t d = size->n, vec = d * sizeof(float);
    size_t n_gains = (size_t)(cuda_graphs_layers + 1) * d;
    c->d = d;
    RB_CUDA(cudaMalloc((void **)&c->in[0], vec));
    RB_CUDA(cudaMalloc((void **)&c->in[1], vec));
    RB_CUDA(cudaMalloc((void **)&c->gains, n_gains * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->x, vec));
    RB_CUDA(cudaMalloc((void **)&c->h, vec));
    RB_CUDA(cudaMalloc((void **)&c->p, vec));
    RB_CUDA(cudaMalloc((void **)&c->out, vec));
    RB_CUDA(cudaMalloc((void **)&c->ref[0], vec));
    RB_CUDA(cudaMalloc((void **)&c->ref[1], vec));

    /* Inputs and both references on the host (small: d values, 41 gain vectors). */
    float *in0 = malloc(vec), *in1 = malloc(vec), *gains = malloc(n_gains * sizeof(float));
    float *ref0 = malloc(vec), *ref1 = malloc(vec);
    double *scratch = malloc(3 * d * sizeof(double));
    rb_status st = in0 && in1 && gains && ref0 && ref1 && scratch ? RB_OK : RB_ERR_ALLOC;
    if (st == RB_OK) {
        cg_inputs(seed, d, cuda_graphs_layers, in0, in1, gains);
        cg_reference(in0, gains, 1.0, d, cuda_graphs_layers, 0, scratch, scratch + d,
                     scratch + 2 * d, ref0);
        cg_reference(in1, gains, CG_ALT_SCALE, d, cuda_graphs_layers, 0, scratch, scratch + d,
                     scratch + 2 * d, ref1);
        if (cudaMemcpy(c->in[0], in0, vec, cudaMemcpyHostToDevice) != cudaSuccess ||
            cudaMemcpy(c->in[1], in1, vec, cudaMemcpyHostToDevice) != cudaSuccess ||
            cudaMemcpy(c->gains, gains, n_gains * sizeof(float), cudaMemcpyHostToDevice) !=
                cudaSuccess ||
            cudaMemcpy(c->ref[0], ref0, vec, cudaMemcpyHostToDevice) != cudaSuccess ||
            cudaMemcpy(c->ref[1], ref1, vec, cudaMemcpyHostToDevice) != cudaSuccess) {
            rb_error_at(__FILE__, __LINE__, "cudaMemcpy", "uploading inputs or references");
            st = RB_ERR_CUDA;
        }
    }
    free(in0);
    free(in1);
    free(gains);
    free(ref0);
    free(ref1);
    free(scratch);
    RB_TRY(st);

    /* The plain graph (step `graph`), and the one with programmatic edges, instantiated twice:
     * the optimized one stays as captured, graph_update's copy gets its nodes edited between
     * replays. Where the overlap is not supported both captures are plain. */
    c->pdl = cuda_graphs_pdl_supported();
    RB_CUDA(cuda_graphs_capture(c->in[0], c->x, c->h, c->p, c->gains, c->out, d, 0, &c->graph,
                                NULL, NULL));
    RB_CUDA(cuda_graphs_capture(c->in[0], c->x, c->h, c->p, c->gains, c->out, d, c->pdl,
                                &c->graph_pdl, &c->embed_node, &c->final_node));
    RB_CUDA(cuda_graphs_instantiate(c->graph, &c->exec));
    RB_CUDA(cuda_graphs_instantiate(c->graph_pdl, &c->exec_pdl));
    RB_CUDA(cuda_graphs_instantiate(c->graph_pdl, &c->exec_update));
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

static void cg_output(void *ctx, int variant, void **ptr, size_t *bytes)
{
    cg_ctx *c = ctx;
    (void)variant;
    *ptr = c->out;
    *bytes = c->d * sizeof(float);
}

/* Baseline and the two graphs compute the step on input 0 at scale 1; graph_update's last replay r
 * used input 1 at CG_ALT_SCALE when r was even, input 0 at scale 1 when odd. */
static rb_status cg_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    cg_ctx *c = ctx;
    int which = variant == CG_UPDATE && c->replays % 2 == 1; /* replay replays-1 was even */
    RB_CUDA(rb_relerr_f32_device(c->out, c->ref[which], c->d, stream, rel_err));
    return RB_OK;
}

static void cg_teardown(void *ctx)
{
    cg_ctx *c = ctx;
    if (!c)
        return;
    if (c->exec)
        cudaGraphExecDestroy(c->exec);
    if (c->exec_pdl)
        cudaGraphExecDestroy(c->exec_pdl);
    if (c->exec_update)
        cudaGraphExecDestroy(c->exec_update);
    if (c->graph)
        cudaGraphDestroy(c->graph);
    if (c->graph_pdl)
        cudaGraphDestroy(c->graph_pdl);
    cudaFree(c->in[0]);
    cudaFree(c->in[1]);
    cudaFree(c->gains);
    cudaFree(c->x);
    cudaFree(c->h);
    cudaFree(c->p);
    cudaFree(c->out);
    cudaFree(c->ref[0]);
    cudaFree(c->ref[1]);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    cg_ctx *c = ctx;
    RB_CUDA(
        cuda_graphs_stream_step(c->in[0], c->x, c->h, c->p, c->gains, c->out, 1.0f, c->d, stream));
    return RB_OK;
}

static rb_status run_graph(void *ctx, cudaStream_t stream)
{
    cg_ctx *c = ctx;
    RB_CUDA(cuda_graphs_replay(c->exec, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    cg_ctx *c = ctx;
    RB_CUDA(cuda_graphs_replay(c->exec_pdl, stream));
    return RB_OK;
}

/* Edits two nodes of the executable graph (host calls that do not wait for the GPU), then
 * replays it: even replays use input 1 at CG_ALT_SCALE, odd ones input 0 at scale 1. */
static rb_status run_graph_update(void *ctx, cudaStream_t stream)
{
    cg_ctx *c = ctx;
    int even = c->replays % 2 == 0;
    c->replays++;
    RB_CUDA(cuda_graphs_replay_updated(c->exec_update, c->embed_node, c->final_node,
                                       c->in[even ? 1 : 0], c->x,
                                       c->gains + (size_t)cuda_graphs_layers * c->d,
                                       even ? CG_ALT_SCALE : 1.0f, c->out, c->d, stream));
    return RB_OK;
}

/* Planted defects (tests/test_gpu.c), each a graph_update replay whose update did not take, as
 * when a node handle is stale or an update call's error is ignored; the replay counts as
 * graph_update's, so check() expects input 1 at CG_ALT_SCALE. The errors beside them are the
 * double CPU reference's (setup's computation) at d = 1000003, 4096 within 1%. */

/* No update at all: the captured input 0 at scale 1, normwise 2.2 from input 1 at 0.5. */
static rb_status run_defect_stale_graph(void *ctx, cudaStream_t stream)
{
    cg_ctx *c = ctx;
    c->replays++;
    RB_CUDA(cuda_graphs_replay(c->exec_update, stream));
    return RB_OK;
}

/* The scale updated, the embedding node still reading input 0: 1.4 (other token, same scale). */
static rb_status run_defect_stale_input(void *ctx, cudaStream_t stream)
{
    cg_ctx *c = ctx;
    c->replays++;
    RB_CUDA(cuda_graphs_replay_updated(c->exec_update, c->embed_node, c->final_node, c->in[0],
                                       c->x, c->gains + (size_t)cuda_graphs_layers * c->d,
                                       CG_ALT_SCALE, c->out, c->d, stream));
    return RB_OK;
}

/* us_per_kernel: a step's median time over its kernels, for each variant; the optimized graph
 * and graph_update also say whether their kernels overlapped (pdl 1) or ran as plain graph
 * nodes because this GPU or build cannot (pdl 0). */
static int cg_extras(void *ctx, int variant, const double *median_ms, rb_extra out[RB_MAX_EXTRAS])
{
    const cg_ctx *c = ctx;
    rb_fmt(out[0].name, sizeof out[0].name, "us_per_kernel");
    out[0].value = median_ms[variant] * 1000.0 / cuda_graphs_kernels_per_step;
    if (variant < CG_OPTIMIZED || !c)
        return 1;
    rb_fmt(out[1].name, sizeof out[1].name, "pdl");
    out[1].value = c->pdl;
    return 2;
}

static int cg_selftest(char *why, size_t why_size)
{
    /* A 2-element, 1-layer step by hand (gains all 1, scale 1, c = 1), in = (1, -1), computed
     * once with 25-digit arithmetic and written here to 8 digits:
     * rmsnorm: mean(x^2) = 1, h = x / sqrt(1 + eps) = (0.9999995, -0.9999995);
     * silu: (0.73105811, -0.26894139); softmax(h / 2): p = (0.62245927, 0.37754073);
     * gate (rotation 97 mod 2 = 1, d = 2): h = (h0 p1 2, h1 p0 2) = (0.55200843, -0.33481012);
     * residual: x = (1.5520084, -1.3348101); final rmsnorm: mean(x^2) = 2.0952241,
     * out = x / 1.4474892 = (1.0722072, -0.92215547). */
    const float in[2] = {1.0f, -1.0f}, gains[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    const float want[2] = {1.0722072f, -0.92215547f};
    double scratch[6];
    float out[2];
    cg_reference(in, gains, 1.0, 2, 1, 0, scratch, scratch + 2, scratch + 4, out);
    double err = rb_relerr_f32(out, want, 2);
    if (!(err <= 1e-7)) {
        rb_fmt(why, why_size, "CPU reference wrong on the 2-element step: %.7g %.7g (err %.3g)",
               out[0], out[1], err);
        return -1;
    }
    /* The tolerance: an fp32 run of the full-size step against the double reference. */
    enum { D = 4096 };
    int layers = cuda_graphs_layers;
    float *x0 = malloc(D * sizeof(float)), *x1 = malloc(D * sizeof(float));
    float *g = malloc((size_t)(layers + 1) * D * sizeof(float));
    float *ref = malloc(D * sizeof(float)), *f32 = malloc(D * sizeof(float));
    double *s = malloc(3 * D * sizeof(double));
    int rc = 0;
    if (!x0 || !x1 || !g || !ref || !f32 || !s) {
        rb_fmt(why, why_size, "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        cg_inputs(5, D, layers, x0, x1, g);
        cg_reference(x0, g, 1.0, D, layers, 0, s, s + D, s + 2 * D, ref);
        cg_reference(x0, g, 1.0, D, layers, 1, s, s + D, s + 2 * D, f32);
        err = rb_relerr_f32(f32, ref, D);
        if (!(err <= CG_TOL / 2)) {
            rb_fmt(why, why_size, "fp32 step vs reference: rel_err %.3g > tol / 2", err);
            rc = -1;
        }
        /* Input 1 at the other scale must differ from it by far more than the tolerance. */
        cg_reference(x1, g, CG_ALT_SCALE, D, layers, 0, s, s + D, s + 2 * D, f32);
        if (rc == 0 && !(rb_relerr_f32(f32, ref, D) > 0.1)) {
            rb_fmt(why, why_size, "graph_update's two states give nearly the same output");
            rc = -1;
        }
    }
    free(x0);
    free(x1);
    free(g);
    free(ref);
    free(f32);
    free(s);
    if (rc != 0)
        return rc;
    /* Work model at d = 4096, 40 layers: 724 d flops, 2100 d bytes. */
    if (cg_flops_d(4096, 40) != 724.0 * 4096 || cg_bytes_d(4096, 40) != 2100.0 * 4096) {
        rb_fmt(why, why_size, "cuda_graphs work model wrong at d = 4096, 40 layers");
        return -1;
    }
    double ms[4] = {0.808, 0.404, 0.202, NAN};
    rb_extra e[RB_MAX_EXTRAS];
    if (cg_extras(NULL, CG_BASELINE, ms, e) != 1 || strcmp(e[0].name, "us_per_kernel") ||
        fabs(e[0].value - 808.0 / cuda_graphs_kernels_per_step) > 1e-9 ||
        cg_extras(NULL, CG_UPDATE, ms, e) != 1 || !isnan(e[0].value)) {
        rb_fmt(why, why_size, "cuda_graphs extras wrong on a hand case");
        return -1;
    }
    return 0;
}

static const rb_pair_ext cuda_graphs_ext = {
    .host_shared = 1, /* host launches: one GPU at a time in a node run */
    .extras = cg_extras,
};

const rb_pair rb_pair_cuda_graphs = {
    .name = "cuda_graphs",
    .pattern = "~200 tiny dependent kernels: one graph replay (kernels overlapping their launch) "
               "instead of one launch per kernel",
    .size_unit = "fp32 elements per vector (the hidden size)",
    .smoke_size = 1024,
    .full_size = 4096,
    .flops = cg_flops,
    .bytes = cg_bytes,
    .setup = cg_setup,
    .output = cg_output,
    .check = cg_check,
    .teardown = cg_teardown,
    .selftest = cg_selftest,
    /* The reductions stay warp-shuffle trees; exp and rsqrt stay on the special-function unit;
     * from sm_90 on, every kernel opens with griddepcontrol.launch_dependents and .wait (SASS
     * PREEXIT and ACQBULK), checked on two of them. */
    .codegen =
        {
            {"cuda_graphs_rmsnorm_kernel", "SHFL.BFLY", 0},
            {"cuda_graphs_rmsnorm_kernel", "MUFU.RSQ", 0},
            {"cuda_graphs_softmax_kernel", "SHFL.BFLY", 0},
            {"cuda_graphs_softmax_kernel", "MUFU.EX2", 0},
            {"cuda_graphs_silu_kernel", "PREEXIT", 90},
            {"cuda_graphs_rmsnorm_kernel", "ACQBULK", 90},
        },
    .kernels = cuda_graphs_kernels,
    .n_variants = 4,
    .variants =
        {
            /* Roofs: latency. Every variant issues the step's kernels one after the other, so
             * its floor is that many launches (the stream) or graph nodes (the graphs) at the
             * measured cost of an empty one; us_per_kernel (time per step / kernels per step) is
             * the rate judged against it: %ceil = launch_us (or graph_node_us) / us_per_kernel.
             * The kernels do work, so 100% is out of reach; programmatic launch (optimized)
             * overlaps a node's launch with the one before, which an empty-kernel graph does
             * not, and may land above its roof (the table prints why). */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, CG_TOL, run_baseline, .roof = "launch_us",
             .roof_rate = "us_per_kernel",
             .host_bound_why = "one host launch per kernel: the CPU's launch path (driver calls, "
                               "its clock, scheduling) sets the time per kernel, not the GPU"},
            {"graph", RB_ROLE_STEP, RB_UNIT_NONE, CG_TOL, run_graph, .roof = "graph_node_us",
             .roof_rate = "us_per_kernel"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, CG_TOL, run_optimized,
             .roof = "graph_node_us", .roof_rate = "us_per_kernel"},
            {"graph_update", RB_ROLE_STEP, RB_UNIT_NONE, CG_TOL, run_graph_update,
             .roof = "graph_node_us", .roof_rate = "us_per_kernel"},
        },
    .defects = {{"graph_not_updated", CG_UPDATE, run_defect_stale_graph},
                {"stale_input_pointer", CG_UPDATE, run_defect_stale_input}},
    .ext = &cuda_graphs_ext,
};
