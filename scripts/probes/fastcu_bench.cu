/* SPDX-License-Identifier: MIT */
/* A driver for a third-party kernel, not part of the suite: fast.cu's kernel 12 (the public
 * hand-written Hopper BF16 GEMM that reports beating cuBLAS) against cublasGemmEx, the call its
 * own benchmark makes, on one square size. Its header comes from a copy of the fast.cu repository
 * that scripts/probes/gpu_fastcu.sh points the include path at; no fast.cu code is in roofbench.
 *
 * Two regimes: fast.cu's own (an idle pause, then a burst of 8 launches timed as one) and
 * roofbench's hgemm regime at full size, sustained and in turn: a warm-up, then rounds in which
 * each side runs 0.3 s untimed and 0.5 s of ~10 ms samples, the SM clock (NVML) read after each
 * sample. Kernel 12's C is checked against cuBLAS's (normwise) before timing.
 * usage: fastcu_bench SIZE [ROUNDS] */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/barrier>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cassert>
#include <cmath>
#include <algorithm>
#include <vector>

typedef __nv_bfloat16 bf16;
#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))
void cudaCheck(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(1);
    }
}
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))
#include "examples/matmul/matmul_12.cuh"

static cublasHandle_t handle;
static void run_cublas(int M, int N, int K, bf16 *A, bf16 *B, bf16 *C)
{
    float alpha = 1, beta = 0;
    cublasStatus_t s = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, A,
                                    CUDA_R_16BF, N, B, CUDA_R_16BF, K, &beta, C, CUDA_R_16BF, N,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS) {
        printf("cublas error %d\n", (int)s);
        exit(1);
    }
}

__global__ void fill(bf16 *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        h *= 3266489917u;
        h ^= h >> 16;
        p[i] = __float2bfloat16((float)(h & 0xFFFF) / 32768.0f - 1.0f);
    }
}

static int S;
static bf16 *dA, *dB, *dC;
// NVML by dlopen (the toolkit here has no nvml.h): the three calls used.
typedef void *nvmlDevice_t;
static int (*nvml_clock)(nvmlDevice_t, int, unsigned int *);
static nvmlDevice_t nvml_dev;
static void nvml_open()
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!h)
        return;
    int (*init)() = (int (*)())dlsym(h, "nvmlInit_v2");
    int (*get)(unsigned, nvmlDevice_t *) = (int (*)(unsigned, nvmlDevice_t *))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    nvml_clock = (int (*)(nvmlDevice_t, int, unsigned int *))dlsym(h, "nvmlDeviceGetClockInfo");
    if (!init || !get || !nvml_clock || init() != 0 || get(0, &nvml_dev) != 0)
        nvml_clock = nullptr;
}

static void launch(int which)
{
    if (which == 0)
        run_cublas(S, S, S, dA, dB, dC);
    else
        runKernel12(S, S, S, dA, dB, dC, nullptr);
}

static double now_s()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void run_for(int which, double secs)
{
    double t0 = now_s();
    while (now_s() - t0 < secs) {
        for (int i = 0; i < 4; i++)
            launch(which);
        cudaCheck(cudaDeviceSynchronize());
    }
}

int main(int argc, char **argv)
{
    S = argc > 1 ? atoi(argv[1]) : 8192;
    int rounds = argc > 2 ? atoi(argv[2]) : 6;
    size_t n = (size_t)S * S;
    nvml_open();
    cublasCreate(&handle);
    cudaCheck(cudaMalloc(&dA, n * 2));
    cudaCheck(cudaMalloc(&dB, n * 2));
    cudaCheck(cudaMalloc(&dC, n * 2));
    bf16 *dR;
    cudaCheck(cudaMalloc(&dR, n * 2));
    fill<<<1024, 256>>>(dA, n, 1);
    fill<<<1024, 256>>>(dB, n, 2);
    run_cublas(S, S, S, dA, dB, dR);
    cudaCheck(cudaMemset(dC, 0xFF, n * 2)); // NaN poison: a tile left unwritten fails
    launch(1);
    cudaCheck(cudaDeviceSynchronize());
    std::vector<bf16> c(n), r(n);
    cudaCheck(cudaMemcpy(c.data(), dC, n * 2, cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(r.data(), dR, n * 2, cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double a = __bfloat162float(c[i]), b = __bfloat162float(r[i]);
        num += (a - b) * (a - b);
        den += b * b;
    }
    double rel = std::sqrt(num / den);
    printf("fastcu size %d: kernel 12 vs cuBLAS normwise rel err %.3e %s\n", S, rel,
           rel < 5e-3 ? "ok" : "FAIL");
    double flops = 2.0 * S * (double)S * S;
    // fast.cu's own regime: idle, then a burst of 8 launches timed as one.
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int which = 0; which < 2; which++) {
        sleep(3);
        cudaEventRecord(e0);
        for (int i = 0; i < 8; i++)
            launch(which);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        printf("fastcu size %d burst-after-3s-idle %-8s %.1f TFLOP/s\n", S,
               which ? "kernel12" : "cublas", 8 * flops / (ms * 1e-3) / 1e12);
    }
    // Sustained, in turn.
    int reps = 1;
    {
        cudaEventRecord(e0);
        launch(0);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        reps = std::max(1, (int)(10.0 / ms));
    }
    run_for(0, 0.25);
    run_for(1, 0.25);
    std::vector<double> t[2], mhz[2];
    std::vector<double> ratio;
    for (int rd = 0; rd < rounds; rd++) {
        double med[2];
        for (int which = 0; which < 2; which++) {
            run_for(which, 0.3);
            std::vector<double> mine;
            double t0 = now_s();
            while (now_s() - t0 < 0.5) {
                cudaEventRecord(e0);
                for (int i = 0; i < reps; i++)
                    launch(which);
                cudaEventRecord(e1);
                cudaEventSynchronize(e1);
                float ms;
                cudaEventElapsedTime(&ms, e0, e1);
                unsigned int clk = 0;
                if (nvml_clock)
                    nvml_clock(nvml_dev, 1 /* NVML_CLOCK_SM */, &clk);
                mine.push_back(ms / reps);
                t[which].push_back(ms / reps);
                mhz[which].push_back(clk);
            }
            std::sort(mine.begin(), mine.end());
            med[which] = mine[mine.size() / 2];
        }
        ratio.push_back(med[0] / med[1]);
        printf("fastcu size %d round %d: cublas %.1f kernel12 %.1f TFLOP/s ratio %.3f\n", S, rd + 1,
               flops / (med[0] * 1e-3) / 1e12, flops / (med[1] * 1e-3) / 1e12, med[0] / med[1]);
    }
    for (int which = 0; which < 2; which++) {
        std::sort(t[which].begin(), t[which].end());
        std::sort(mhz[which].begin(), mhz[which].end());
        double m = t[which][t[which].size() / 2];
        printf("fastcu size %d sustained-in-turn %-8s median %.1f TFLOP/s (%zu samples of %d), SM "
               "clock median %.0f MHz\n",
               S, which ? "kernel12" : "cublas", flops / (m * 1e-3) / 1e12, t[which].size(), reps,
               mhz[which][mhz[which].size() / 2]);
    }
    std::sort(ratio.begin(), ratio.end());
    printf("fastcu size %d kernel12/cublas per-round ratio median %.3f (min %.3f max %.3f)\n", S,
           ratio[ratio.size() / 2], ratio.front(), ratio.back());
    return 0;
}
