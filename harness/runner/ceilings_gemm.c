/* SPDX-License-Identifier: MIT */
/*
 * The tensor-core roofs of `roofbench ceilings`: for TF32, BF16, FP16 and FP8 (E4M3), the best
 * dense rate cuBLASLt *sustains*, the way the maximum-achievable-matmul-FLOPS method finds it:
 * at a large square shape and two shapes around it, the heuristic's top candidates each run
 * back to back for CG_SUSTAIN_S seconds, timed in ~10 ms samples; a candidate's rate is its
 * median sample, the roof the best candidate's, recorded with the SM clock and board power
 * (NVML, read after every sample) during it. Sustained, not a burst: a GEMM at 8192^3 reaches
 * an H100's power limit within a second and the clock falls (gemm_precision's header: 1980 ->
 * ~1500 MHz); a roof measured before that would put every real GEMM 5-10% below it.
 *
 * The call is gemm_precision's (bench/gemm_precision.c): TN layout (the one Hopper's FP8
 * kernels require), fp32 accumulation, bf16 output for fp8 with per-tensor scales through
 * CUBLASLT_MATMUL_DESC_{A,B}_SCALE_POINTER (16-byte aligned apart) and fast accumulation, a
 * 32 MiB workspace, seeded uniform operands (zeros would draw less power), and each candidate
 * tried first with C = D, then with no C (beta is 0), as gemm_precision does, since cuBLASLt
 * refused its first FP8 choice with C = D on the H100.
 *
 * Budget (H100): per precision 0.5 s of warm-up (the card reaches its power limit before the
 * first candidate is timed, so the first is not favoured), then 7 candidates (top 3 at
 * 8192^3, top 2 at each other shape) x (1 s + ~0.05 s sizing) = ~7.9 s; 4 precisions ~32 s of
 * the 60 s that `roofbench ceilings` may take.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* cublasLt.h declares cublasLtLoggerForceDisable() without a prototype (CUDA 13.0). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop

#include "ceilings_gemm.h"
#include "ceilings_kernels.h"
#include "child.h"
#include "model/ceiling_record.h"
#include "model/stats.h"
#include "model/util.h"
#include "gemm_ref.h"

#define CG_WARM_S 0.5
#define CG_SUSTAIN_S 1.0
#define CG_SAMPLE_MS 10.0
#define CG_MAX_SAMPLES 4096
#define CG_MAX_CANDIDATES 8
#define CG_WORKSPACE ((size_t)32 << 20)
#define CG_E4M3_MAX 448.0f

typedef struct cg_format {
    const char *key, *name, *in_name, *out_name;
    cublasComputeType_t compute;
    cudaDataType_t in_type, out_type;
    rb_ceiling_elem elem;
    size_t in_bytes, out_bytes;
    int min_cc;  /* compute capability x 10 */
    float range; /* operands uniform in (-range, range); fp8: scaled back by 1 / range */
} cg_format;

static const cg_format cg_formats[] = {
    {"tf32_tflops", "tf32", "fp32 (tf32 math)", "fp32", CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F,
     CUDA_R_32F, RB_ELEM_F32, 4, 4, 80, 1.0f},
    {"bf16_tflops", "bf16", "bf16", "bf16", CUBLAS_COMPUTE_32F, CUDA_R_16BF, CUDA_R_16BF,
     RB_ELEM_BF16, 2, 2, 80, 1.0f},
    {"fp16_tflops", "fp16", "fp16", "fp16", CUBLAS_COMPUTE_32F, CUDA_R_16F, CUDA_R_16F, RB_ELEM_F16,
     2, 2, 80, 1.0f},
    {"fp8_tflops", "fp8 e4m3", "fp8 e4m3 (per-tensor scales, fast accumulation)", "bf16",
     CUBLAS_COMPUTE_32F, CUDA_R_8F_E4M3, CUDA_R_16BF, RB_ELEM_E4M3, 1, 2, 89, CG_E4M3_MAX},
};

typedef struct cg_shape {
    size_t m, n, k;
    int candidates;
} cg_shape;

/* The square shape and two around it: K doubled (a smaller share of epilogue per flop) and M, N
 * doubled (4x the tiles, a smaller last wave). */
static const cg_shape cg_shapes[] = {
    {8192, 8192, 8192, 3}, {8192, 8192, 16384, 2}, {16384, 16384, 8192, 2}};
#define CG_SHAPES (sizeof cg_shapes / sizeof cg_shapes[0])

typedef struct cg_ctx {
    cudaStream_t s;
    cublasLtHandle_t lt;
    const cg_format *f;
    const cg_shape *shape;
    void *a, *b, *d, *ws;
    float *scales; /* [0]: A's, [4]: B's (16-byte aligned apart) */
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, ld;
} cg_ctx;

typedef struct cg_candidate {
    cublasLtMatmulAlgo_t algo;
    int no_c;  /* C = NULL (beta 0) instead of C = D */
    int index; /* in the heuristic's list */
} cg_candidate;

typedef struct cg_result {
    double tflops, mhz, watts, noise;
    size_t samples;
} cg_result;

static cublasStatus_t cg_launch(const cg_ctx *c, const cg_candidate *x)
{
    const float one = 1.0f, zero = 0.0f;
    /* cuBLASLt's A is the n x k operand (k x n column-major, op T), its B the m x k one: the
     * column-major n x m result is the row-major m x n product (bench/gemm_precision.c). */
    return cublasLtMatmul(c->lt, c->desc, &one, c->a, c->la, c->b, c->lb, &zero,
                          x->no_c ? NULL : c->d, c->ld, c->d, c->ld, &x->algo, c->ws, CG_WORKSPACE,
                          c->s);
}

static rb_status cg_desc(cg_ctx *c)
{
    int32_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
    RB_CUBLAS(cublasLtMatmulDescCreate(&c->desc, c->f->compute, CUDA_R_32F));
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                             sizeof trans_a));
    RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                             sizeof trans_b));
    if (c->f->elem == RB_ELEM_E4M3) {
        const float *scale_a = c->scales, *scale_b = c->scales + 4;
        int8_t fast = 1;
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                 &scale_a, sizeof scale_a));
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                 &scale_b, sizeof scale_b));
        RB_CUBLAS(cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                 sizeof fast));
    }
    return RB_OK;
}

static void cg_free_layouts(cg_ctx *c)
{
    if (c->la)
        cublasLtMatrixLayoutDestroy(c->la);
    if (c->lb)
        cublasLtMatrixLayoutDestroy(c->lb);
    if (c->ld)
        cublasLtMatrixLayoutDestroy(c->ld);
    c->la = c->lb = c->ld = NULL;
}

static rb_status cg_layouts(cg_ctx *c)
{
    const cg_shape *sh = c->shape;
    cg_free_layouts(c);
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->la, c->f->in_type, sh->k, sh->n, (int64_t)sh->k));
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->lb, c->f->in_type, sh->k, sh->m, (int64_t)sh->k));
    RB_CUBLAS(cublasLtMatrixLayoutCreate(&c->ld, c->f->out_type, sh->n, sh->m, (int64_t)sh->n));
    return RB_OK;
}

/* The heuristic's first `want` candidates that run (each tried once with C = D, then with no
 * C); *found may be 0. */
static rb_status cg_candidates(cg_ctx *c, int want, cg_candidate *out, int *found)
{
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t h[CG_MAX_CANDIDATES];
    uint64_t ws = CG_WORKSPACE;
    int n = 0;
    *found = 0;
    RB_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(c->lt, c->desc, c->la, c->lb, c->ld, c->ld, pref,
                                            CG_MAX_CANDIDATES, h, &n);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED)
        return RB_OK; /* no algorithm for this problem: none found */
    RB_CUBLAS(st);
    for (int i = 0; i < n && *found < want; i++) {
        if (h[i].state != CUBLAS_STATUS_SUCCESS)
            continue;
        cg_candidate x = {h[i].algo, 0, i};
        st = cg_launch(c, &x);
        if (st != CUBLAS_STATUS_SUCCESS) {
            x.no_c = 1;
            st = cg_launch(c, &x);
        }
        if (st == CUBLAS_STATUS_SUCCESS)
            out[(*found)++] = x;
    }
    RB_CUDA(cudaStreamSynchronize(c->s));
    return RB_OK;
}

/* The median of the finite values of x[0..n) (sorted in place), NaN when there is none. */
static double median_finite(double *x, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            x[k++] = x[i];
    if (k == 0)
        return NAN;
    rb_stats st;
    return rb_stats_compute(x, k, &st) == 0 ? st.median : NAN;
}

typedef struct cg_timer {
    cudaEvent_t start[2], stop[2];
} cg_timer;

static rb_status cg_enqueue(const cg_ctx *c, const cg_candidate *x, const cg_timer *t, int slot,
                            int launches)
{
    RB_CUDA(cudaEventRecord(t->start[slot], c->s));
    for (int l = 0; l < launches; l++)
        RB_CUBLAS(cg_launch(c, x));
    RB_CUDA(cudaEventRecord(t->stop[slot], c->s));
    return RB_OK;
}

static double cg_samples_ms[CG_MAX_SAMPLES], cg_mhz[CG_MAX_SAMPLES], cg_watts[CG_MAX_SAMPLES];

/* Samples of `launches` back to back for `seconds`, always one sample queued behind the one
 * being read, so the GPU never waits for the CPU (which reads NVML between samples). */
static rb_status cg_sample_loop(const cg_ctx *c, const cg_candidate *x, const cg_timer *t,
                                int launches, double seconds, size_t *n)
{
    double t0 = rb_now_s();
    *n = 0;
    RB_TRY(cg_enqueue(c, x, t, 0, launches));
    for (size_t i = 0;; i++) {
        int more = rb_now_s() - t0 < seconds && i + 1 < CG_MAX_SAMPLES;
        if (more)
            RB_TRY(cg_enqueue(c, x, t, (int)((i + 1) % 2), launches));
        float ms = 0.0f;
        RB_CUDA(cudaEventSynchronize(t->stop[i % 2]));
        RB_CUDA(cudaEventElapsedTime(&ms, t->start[i % 2], t->stop[i % 2]));
        cg_samples_ms[i] = (double)ms / launches;
        cg_mhz[i] = rb_env_sm_clock_mhz(0);
        cg_watts[i] = rb_env_power_w(0);
        *n = i + 1;
        if (!more)
            return RB_OK;
    }
}

/* One candidate, sustained: `warm_s` untimed, then CG_SUSTAIN_S timed. */
static rb_status cg_sustain(const cg_ctx *c, const cg_candidate *x, double warm_s, cg_result *r)
{
    cg_timer t;
    memset(&t, 0, sizeof t);
    for (int k = 0; k < 2; k++) {
        RB_CUDA(cudaEventCreate(&t.start[k]));
        RB_CUDA(cudaEventCreate(&t.stop[k]));
    }
    size_t n = 0;
    float probe_ms = 0.0f;
    RB_TRY(cg_enqueue(c, x, &t, 0, 3));
    RB_CUDA(cudaEventSynchronize(t.stop[0]));
    RB_CUDA(cudaEventElapsedTime(&probe_ms, t.start[0], t.stop[0]));
    int launches = (int)ceil(CG_SAMPLE_MS / fmax(probe_ms / 3.0, 1e-3));
    if (launches < 1)
        launches = 1;
    if (warm_s > 0)
        RB_TRY(cg_sample_loop(c, x, &t, launches, warm_s, &n));
    RB_TRY(cg_sample_loop(c, x, &t, launches, CG_SUSTAIN_S, &n));
    for (int k = 0; k < 2; k++) {
        cudaEventDestroy(t.start[k]);
        cudaEventDestroy(t.stop[k]);
    }
    RB_CUDA(cudaGetLastError());
    rb_stats st;
    if (rb_stats_compute(cg_samples_ms, n, &st) != 0) {
        rb_error_at(__FILE__, __LINE__, "rb_stats_compute", "a GEMM sample is not finite");
        return RB_ERR_CUDA;
    }
    const cg_shape *sh = c->shape;
    r->tflops = 2.0 * (double)sh->m * (double)sh->n * (double)sh->k / (st.median * 1e-3) / 1e12;
    r->noise = st.noise;
    r->samples = st.n;
    r->mhz = median_finite(cg_mhz, n);
    r->watts = median_finite(cg_watts, n);
    return RB_OK;
}

/* Device buffers for the largest shape, operands filled once; fp8's scales 1 / range. */
static rb_status cg_alloc(cg_ctx *c)
{
    size_t max_a = 0, max_b = 0, max_d = 0;
    for (size_t i = 0; i < CG_SHAPES; i++) {
        const cg_shape *sh = &cg_shapes[i];
        max_a = sh->k * sh->n > max_a ? sh->k * sh->n : max_a;
        max_b = sh->k * sh->m > max_b ? sh->k * sh->m : max_b;
        max_d = sh->m * sh->n > max_d ? sh->m * sh->n : max_d;
    }
    RB_CUDA(cudaMalloc(&c->a, max_a * c->f->in_bytes));
    RB_CUDA(cudaMalloc(&c->b, max_b * c->f->in_bytes));
    RB_CUDA(cudaMalloc(&c->d, max_d * c->f->out_bytes));
    RB_CUDA(rb_ceiling_fill(c->a, c->f->elem, max_a, 11, c->f->range, c->s));
    RB_CUDA(rb_ceiling_fill(c->b, c->f->elem, max_b, 12, c->f->range, c->s));
    float scales[8] = {1.0f / c->f->range, 0, 0, 0, 1.0f / c->f->range, 0, 0, 0};
    RB_CUDA(cudaMalloc((void **)&c->scales, sizeof scales));
    RB_CUDA(cudaMemcpyAsync(c->scales, scales, sizeof scales, cudaMemcpyHostToDevice, c->s));
    RB_CUDA(cudaStreamSynchronize(c->s));
    return RB_OK;
}

static void cg_release(cg_ctx *c)
{
    cg_free_layouts(c);
    if (c->desc)
        cublasLtMatmulDescDestroy(c->desc);
    c->desc = NULL;
    cudaFree(c->a);
    cudaFree(c->b);
    cudaFree(c->d);
    cudaFree(c->scales);
    c->a = c->b = c->d = NULL;
    c->scales = NULL;
}

typedef struct cg_best {
    cg_result r;
    size_t shape;
    int index, tried;
    char by_shape[400]; /* "8192x8192x8192 [", then the rate of each candidate by its index */
} cg_best;

/* Every candidate of every shape, sustained; the best kept in *b. */
static rb_status cg_sweep(cg_ctx *c, cg_best *b)
{
    double warm_s = CG_WARM_S;
    for (size_t s = 0; s < CG_SHAPES; s++) {
        cg_candidate x[CG_MAX_CANDIDATES];
        int found = 0;
        c->shape = &cg_shapes[s];
        RB_TRY(cg_layouts(c));
        RB_TRY(cg_candidates(c, c->shape->candidates, x, &found));
        size_t len = strlen(b->by_shape);
        rb_fmt(b->by_shape + len, sizeof b->by_shape - len, "%s%zux%zux%zu [", s ? ", " : "",
               c->shape->m, c->shape->n, c->shape->k);
        for (int i = 0; i < found; i++) {
            cg_result r;
            RB_TRY(cg_sustain(c, &x[i], warm_s, &r));
            warm_s = 0;
            b->tried++;
            len = strlen(b->by_shape);
            rb_fmt(b->by_shape + len, sizeof b->by_shape - len, "%s#%d %.1f", i ? ", " : "",
                   x[i].index, r.tflops);
            if (r.tflops > b->r.tflops) {
                b->r = r;
                b->shape = s;
                b->index = x[i].index;
            }
        }
        len = strlen(b->by_shape);
        rb_fmt(b->by_shape + len, sizeof b->by_shape - len, "]");
    }
    return RB_OK;
}

static rb_status cg_report(int fd, const cg_ctx *c, const cg_best *b)
{
    const cg_shape *sh = &cg_shapes[b->shape];
    rb_ceiling_method m;
    rb_fmt(m.method, sizeof m.method,
           "cuBLASLt TN GEMM, %s in, %s out, fp32 accumulate, 32 MiB workspace, seeded uniform "
           "operands: best sustained median of %d candidates (the heuristic's first per shape), "
           "each %.0f s back to back in ~%.0f ms samples after a %.1f s warm-up; TFLOP/s by "
           "shape and heuristic index: %s",
           c->f->in_name, c->f->out_name, b->tried, CG_SUSTAIN_S, CG_SAMPLE_MS, CG_WARM_S,
           b->by_shape);
    rb_fmt(m.size, sizeof m.size, "%zu x %zu x %zu (M x N x K), heuristic candidate #%d", sh->m,
           sh->n, sh->k, b->index);
    m.samples = (double)b->r.samples;
    m.noise = b->r.noise;
    m.sm_clock_mhz = b->r.mhz;
    m.power_w = b->r.watts;
    if (rb_child_send(fd, rb_ceiling_roof_line(c->f->key, b->r.tflops, &m)) != 0) {
        rb_error_at(__FILE__, __LINE__, "rb_child_send", "cannot report to the parent");
        return RB_ERR_ALLOC;
    }
    return RB_OK;
}

/* One precision: skipped when the GPU is too old or cuBLASLt runs nothing, else measured. */
static rb_status cg_precision(int fd, cg_ctx *c, const rb_device *dev)
{
    char why[200];
    if (dev->cc < c->f->min_cc) {
        rb_fmt(why, sizeof why, "%s tensor cores need compute capability %d.%d, this GPU has %d.%d",
               c->f->name, c->f->min_cc / 10, c->f->min_cc % 10, dev->cc / 10, dev->cc % 10);
        return rb_child_send(fd, rb_ceiling_skip_line(c->f->key, why)) == 0 ? RB_OK : RB_ERR_ALLOC;
    }
    cg_best b;
    memset(&b, 0, sizeof b);
    rb_status st = cg_alloc(c);
    if (st == RB_OK)
        st = cg_desc(c);
    if (st == RB_OK)
        st = cg_sweep(c, &b);
    cg_release(c);
    RB_TRY(st);
    if (b.tried == 0) {
        rb_fmt(why, sizeof why, "cuBLASLt has no %s algorithm that runs at these shapes",
               c->f->name);
        return rb_child_send(fd, rb_ceiling_skip_line(c->f->key, why)) == 0 ? RB_OK : RB_ERR_ALLOC;
    }
    return cg_report(fd, c, &b);
}

rb_status rb_ceilings_tensor(int fd, const rb_device *dev)
{
    cg_ctx c;
    memset(&c, 0, sizeof c);
    rb_status st = RB_OK;
    if (cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking) != cudaSuccess ||
        cublasLtCreate(&c.lt) != CUBLAS_STATUS_SUCCESS ||
        cudaMalloc(&c.ws, CG_WORKSPACE) != cudaSuccess) {
        rb_error_at(__FILE__, __LINE__, "rb_ceilings_tensor",
                    "cannot create a stream, a cuBLASLt handle or its workspace");
        st = RB_ERR_CUDA;
    }
    for (size_t i = 0; st == RB_OK && i < sizeof cg_formats / sizeof cg_formats[0]; i++) {
        c.f = &cg_formats[i];
        st = cg_precision(fd, &c, dev);
    }
    cudaFree(c.ws);
    if (c.lt)
        cublasLtDestroy(c.lt);
    if (c.s)
        cudaStreamDestroy(c.s);
    return st;
}
