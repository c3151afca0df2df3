/* SPDX-License-Identifier: MIT */
/*
 * A diagnostic for gemm_precision's BF16 step, not part of the suite: does any of cuBLASLt's
 * candidate kernels for the bf16 8192^3 TN GEMM (the step's exact problem: bf16 in and out,
 * fp32 accumulation, 32 MiB workspace, seeded uniform (-1, 1) inputs) sustain a higher rate
 * than the heuristic's first choice once the GPU sits at its power limit? Each candidate runs
 * back to back for WARM_S seconds, then for MEASURE_S seconds in samples of SAMPLE_LAUNCHES
 * launches between two events; the median sample is reported with the SM clock and board power
 * read through NVML (dlopen) after every sample. Build and run on the GPU machine from the
 * repository root:
 *   make diagnostics ARCH=sm_90 && build/sm_90/gemm_bf16_sustained [candidates [rounds]]
 * rounds > 0: then candidates 0 and 1 in turn, rounds times each (0, 1, 0, 1, ...), so that a
 * drift of the card over the sweep hits both alike: is the one the ceilings keep choosing (candidate 1)
 * faster than the heuristic's first in the same state of the board?
 */
/* cublasLt.h declares cublasLtLoggerForceDisable() without a prototype (CUDA 13.0). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/random.h"

enum { DIM = 8192, MAX_CANDIDATES = 32, SAMPLE_LAUNCHES = 10, MAX_SAMPLES = 4096 };
#define WARM_S 1.5
#define MEASURE_S 2.0
#define WORKSPACE_BYTES (32u << 20)

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_LT(call)                                                                             \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #call, (int)s_);         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* NVML, the two readings used here: SM clock (MHz) and board power (mW). */
static struct {
    int (*clock)(void *, int, unsigned *);
    int (*power)(void *, unsigned *);
    void *dev;
} nvml;

static void nvml_open(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    int (*init)(void) = NULL;
    int (*by_index)(unsigned, void **) = NULL;
    if (!lib)
        return;
    *(void **)&init = dlsym(lib, "nvmlInit_v2");
    *(void **)&by_index = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void **)&nvml.clock = dlsym(lib, "nvmlDeviceGetClockInfo");
    *(void **)&nvml.power = dlsym(lib, "nvmlDeviceGetPowerUsage");
    if (!init || !by_index || init() != 0 || by_index(0, &nvml.dev) != 0)
        nvml.dev = NULL;
}

static void nvml_read(double *mhz, double *watts)
{
    unsigned c = 0, p = 0;
    *mhz = nvml.dev && nvml.clock && nvml.clock(nvml.dev, 1, &c) == 0 ? c : NAN;
    *watts = nvml.dev && nvml.power && nvml.power(nvml.dev, &p) == 0 ? p / 1000.0 : NAN;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* fp32 -> bf16, round to nearest even (the inputs are finite). */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static void *upload_uniform_bf16(uint64_t seed, size_t n)
{
    uint16_t *h = malloc(n * sizeof *h);
    void *d = NULL;
    if (!h)
        exit(1);
    for (size_t i = 0; i < n; i++)
        h[i] = to_bf16(rb_uniform_f32(seed, i));
    CHECK_CUDA(cudaMalloc(&d, n * sizeof *h));
    CHECK_CUDA(cudaMemcpy(d, h, n * sizeof *h, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

typedef struct gemm {
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, ld;
    void *a, *b, *d, *ws;
    cudaStream_t s;
} gemm;

static void launch(const gemm *g, const cublasLtMatmulAlgo_t *algo)
{
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_LT(cublasLtMatmul(g->lt, g->desc, &alpha, g->a, g->la, g->b, g->lb, &beta, g->d, g->ld,
                            g->d, g->ld, algo, g->ws, WORKSPACE_BYTES, g->s));
}

static double samples[MAX_SAMPLES], clocks[MAX_SAMPLES], watts[MAX_SAMPLES];

/* One candidate, sustained: median TFLOP/s of the measured samples and the median clock/power. */
static void sustain(const gemm *g, const cublasLtMatmulAlgo_t *algo, double *tflops, double *mhz,
                    double *w)
{
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    double t0 = now_s();
    while (now_s() - t0 < WARM_S) {
        for (int k = 0; k < SAMPLE_LAUNCHES; k++)
            launch(g, algo);
        CHECK_CUDA(cudaStreamSynchronize(g->s));
    }
    int n = 0;
    t0 = now_s();
    while (n < MAX_SAMPLES && now_s() - t0 < MEASURE_S) {
        float ms = 0.0f;
        CHECK_CUDA(cudaEventRecord(e0, g->s));
        for (int k = 0; k < SAMPLE_LAUNCHES; k++)
            launch(g, algo);
        CHECK_CUDA(cudaEventRecord(e1, g->s));
        CHECK_CUDA(cudaEventSynchronize(e1));
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        samples[n] = 2.0 * DIM * (double)DIM * DIM * SAMPLE_LAUNCHES / (ms * 1e-3) / 1e12;
        nvml_read(&clocks[n], &watts[n]);
        n++;
    }
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    qsort(clocks, (size_t)n, sizeof *clocks, cmp_double);
    qsort(watts, (size_t)n, sizeof *watts, cmp_double);
    *tflops = samples[n / 2];
    *mhz = clocks[n / 2];
    *w = watts[n / 2];
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

static unsigned config(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoConfigAttributes_t a,
                       size_t bytes)
{
    uint32_t v32 = 0;
    uint16_t v16 = 0;
    size_t written = 0;
    void *p = bytes == 2 ? (void *)&v16 : (void *)&v32;
    if (cublasLtMatmulAlgoConfigGetAttribute(algo, a, p, bytes, &written) !=
        CUBLAS_STATUS_SUCCESS)
        return 9999;
    return bytes == 2 ? v16 : v32;
}

int main(int argc, char **argv)
{
    int want = argc > 1 ? atoi(argv[1]) : 16;
    if (want < 1 || want > MAX_CANDIDATES)
        want = 16;
    gemm g;
    const size_t n = (size_t)DIM * DIM;
    nvml_open();
    CHECK_CUDA(cudaStreamCreate(&g.s));
    g.a = upload_uniform_bf16(1, n); /* the weights, N x K row-major: cuBLASLt's op(A) = T */
    g.b = upload_uniform_bf16(2, n); /* the activations, M x K row-major */
    CHECK_CUDA(cudaMalloc(&g.d, n * 2));
    CHECK_CUDA(cudaMalloc(&g.ws, WORKSPACE_BYTES));
    CHECK_LT(cublasLtCreate(&g.lt));
    CHECK_LT(cublasLtMatmulDescCreate(&g.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
    CHECK_LT(cublasLtMatmulDescSetAttribute(g.desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    CHECK_LT(cublasLtMatmulDescSetAttribute(g.desc, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof nop));
    CHECK_LT(cublasLtMatrixLayoutCreate(&g.la, CUDA_R_16BF, DIM, DIM, DIM));
    CHECK_LT(cublasLtMatrixLayoutCreate(&g.lb, CUDA_R_16BF, DIM, DIM, DIM));
    CHECK_LT(cublasLtMatrixLayoutCreate(&g.ld, CUDA_R_16BF, DIM, DIM, DIM));
    cublasLtMatmulPreference_t pref;
    uint64_t ws = WORKSPACE_BYTES;
    CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t h[MAX_CANDIDATES];
    int found = 0;
    CHECK_LT(cublasLtMatmulAlgoGetHeuristic(g.lt, g.desc, g.la, g.lb, g.ld, g.ld, pref, want, h,
                                            &found));
    printf("bf16 %d^3 TN, bf16 out, fp32 accumulate, %u MiB workspace: %d candidates; %.1f s "
           "warm, then the median of %d-launch samples over %.1f s\n",
           DIM, WORKSPACE_BYTES >> 20, found, WARM_S, SAMPLE_LAUNCHES, MEASURE_S);
    printf(" #  algo tile stages cluster swizzle splitk   TFLOP/s  SM MHz  power W\n");
    for (int i = 0; i < found; i++) {
        double tf, mhz, w;
        sustain(&g, &h[i].algo, &tf, &mhz, &w);
        printf("%2d %5u %4u %6u %7u %7u %6u %9.1f %7.0f %8.0f\n", i,
               config(&h[i].algo, CUBLASLT_ALGO_CONFIG_ID, 4),
               config(&h[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID, 4),
               config(&h[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, 4),
               config(&h[i].algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, 2),
               config(&h[i].algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, 4),
               config(&h[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, 4), tf, mhz, w);
        fflush(stdout);
    }
    /* The first candidate again: did the card drift over the sweep? */
    double tf, mhz, w;
    sustain(&g, &h[0].algo, &tf, &mhz, &w);
    printf(" 0 again%*s %9.1f %7.0f %8.0f\n", 38, "", tf, mhz, w);
    int rounds = argc > 2 ? atoi(argv[2]) : 0;
    for (int r = 0; r < rounds && found > 1; r++)
        for (int i = 0; i < 2; i++) {
            sustain(&g, &h[i].algo, &tf, &mhz, &w);
            printf("round %d #%d%*s %9.1f %7.0f %8.0f\n", r + 1, i, 34, "", tf, mhz, w);
            fflush(stdout);
        }
    return 0;
}
