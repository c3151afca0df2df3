/* SPDX-License-Identifier: MIT */
/*
 * A diagnostic for hgemm's awkward row, not part of the suite: why does cuBLASLt run the bf16
 * 4095 x 4093 x 4112 GEMM at ~105 TFLOP/s when the hand-written steps run it at ~660? The pair
 * calls cuBLASLt exactly as here (TN, bf16 in and out, fp32 accumulation, C's rows ldc = N rounded
 * up to 8 elements, 32 MiB workspace, the best of the heuristic's top candidates). Each shape
 * changes one thing against the awkward one: M and N even, K a multiple of 64, or only the rows
 * of A and B padded from 8224 bytes (K = 4112) to a multiple of 128 bytes, the layout a user who
 * knows the TMA's alignment would allocate. Per shape: the number of candidates, and each one's
 * median TFLOP/s (2 M N K flops) over ~1 ms samples after a warm-up, with its tile and stages ids.
 *   make diagnostics ARCH=sm_90 && build/sm_90/gemm_awkward_lt
 */
/* cublasLt.h declares cublasLtLoggerForceDisable() without a prototype (CUDA 13.0). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/random.h"

enum { CANDIDATES = 8, WARM = 20, SAMPLES = 30 };
#define WORKSPACE_BYTES (32u << 20)

#define CHECK(ok, what)                                                                            \
    do {                                                                                           \
        if (!(ok)) {                                                                               \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, what);                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct shape {
    const char *what;
    int m, n, k, ld; /* ld: the rows of A (M x K) and B (N x K), elements apart */
} shape;

static const shape shapes[] = {
    {"the awkward row as the pair runs it", 4095, 4093, 4112, 4112},
    {"A and B rows padded to 8320 bytes (128-byte multiple)", 4095, 4093, 4112, 4160},
    {"M and N even (4096)", 4096, 4096, 4112, 4112},
    {"K = 4096 (rows of 8192 bytes)", 4095, 4093, 4096, 4096},
    {"the square 4096^3", 4096, 4096, 4096, 4096},
};

/* uniform (-1, 1) bf16 (round to nearest even): never time zeros. */
static void *upload(uint64_t seed, size_t n)
{
    uint16_t *h = malloc(n * sizeof *h);
    void *d = NULL;
    CHECK(h != NULL, "malloc");
    for (size_t i = 0; i < n; i++) {
        float f = rb_uniform_f32(seed, i);
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        h[i] = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    }
    CHECK(cudaMalloc(&d, n * sizeof *h) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMemcpy(d, h, n * sizeof *h, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy");
    free(h);
    return d;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static unsigned algo_id(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoConfigAttributes_t a)
{
    uint32_t v = 0;
    size_t written = 0;
    return cublasLtMatmulAlgoConfigGetAttribute(algo, a, &v, sizeof v, &written) ==
                   CUBLAS_STATUS_SUCCESS
               ? v
               : 9999u;
}

static void probe(cublasLtHandle_t lt, const shape *s, void *ws, cudaStream_t st)
{
    const int ldc = (s->n + 7) / 8 * 8;
    void *a = upload(1, (size_t)s->m * s->ld), *b = upload(2, (size_t)s->n * s->ld), *c = NULL;
    CHECK(cudaMalloc(&c, (size_t)s->m * ldc * 2) == cudaSuccess, "cudaMalloc");
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    const cublasOperation_t t = CUBLAS_OP_T;
    CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) == 0, "desc");
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t) == 0,
          "transa");
    /* Column-major as cuBLASLt sees it: D (N x M, ldc) = B^T (N x K) A (K x M). */
    CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, s->k, s->n, s->ld) == 0, "layout b");
    CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, s->k, s->m, s->ld) == 0, "layout a");
    CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, s->n, s->m, ldc) == 0, "layout c");
    cublasLtMatmulPreference_t pref;
    const uint64_t wsb = WORKSPACE_BYTES;
    CHECK(cublasLtMatmulPreferenceCreate(&pref) == 0, "pref");
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb,
                                               sizeof wsb) == 0,
          "pref workspace");
    cublasLtMatmulHeuristicResult_t h[CANDIDATES];
    int found = 0;
    cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, CANDIDATES, h, &found);
    printf("%s: %d x %d x %d, A/B rows %d elements, ldc %d: %d candidates\n", s->what, s->m, s->n,
           s->k, s->ld, ldc, found);
    const float alpha = 1.0f, beta = 0.0f;
    const double flops = 2.0 * s->m * (double)s->n * s->k;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess, "events");
    for (int i = 0; i < found; i++) {
        float ms[SAMPLES];
        int bad = 0;
        for (int r = 0; r < WARM + SAMPLES && !bad; r++) {
            cudaEventRecord(e0, st);
            bad = cublasLtMatmul(lt, desc, &alpha, b, la, a, lb, &beta, c, lc, c, lc, &h[i].algo,
                                 ws, WORKSPACE_BYTES, st) != CUBLAS_STATUS_SUCCESS;
            cudaEventRecord(e1, st);
            CHECK(cudaEventSynchronize(e1) == cudaSuccess, "sync");
            if (r >= WARM)
                cudaEventElapsedTime(&ms[r - WARM], e0, e1);
        }
        if (bad) {
            printf("  candidate %d: launch failed\n", i);
            continue;
        }
        qsort(ms, SAMPLES, sizeof *ms, cmp_float);
        printf("  candidate %d: %7.1f TFLOP/s  tile %u stages %u splitk %u cluster %u\n", i,
               flops / (ms[SAMPLES / 2] * 1e-3) / 1e12,
               algo_id(&h[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
               algo_id(&h[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID),
               algo_id(&h[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
               algo_id(&h[i].algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
}

int main(void)
{
    cublasLtHandle_t lt;
    void *ws = NULL;
    cudaStream_t st;
    CHECK(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
    CHECK(cudaMalloc(&ws, WORKSPACE_BYTES) == cudaSuccess, "workspace");
    CHECK(cudaStreamCreate(&st) == cudaSuccess, "stream");
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        probe(lt, &shapes[i], ws, st);
    cudaFree(ws);
    cublasLtDestroy(lt);
    return 0;
}
