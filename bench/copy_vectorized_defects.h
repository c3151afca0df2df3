/* SPDX-License-Identifier: MIT */
/*
 * copy_vectorized's planted code changes, kernels of their own (bench/copy_vectorized_defects.cu;
 * the lesson in kernels/copy_vectorized.cu holds none). Not defects of the output: each copies
 * right, with other code. A build with CFLAGS=-DRB_PLANT_SCALAR_COPY or -DRB_PLANT_SLOW10 times
 * one of them as the optimized variant (bench/copy_vectorized.c), with its own kernel table, so
 * the results name another kernel there and `compare` and `run` must attribute the change to
 * code (scripts/gpu_regress.sh planted, scripts/probes/gpu_compare.sh).
 */
#ifndef RB_BENCH_COPY_VECTORIZED_DEFECTS_H
#define RB_BENCH_COPY_VECTORIZED_DEFECTS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The optimized copy with each float4 moved as four 4-byte accesses: a planted code change whose
 * slowdown is the 16-byte lesson undone. */
cudaError_t copy_vectorized_scalar_copy(const float *in, float *out, size_t n, cudaStream_t stream);
/* The optimized copy plus a tenth more DRAM traffic: the first tenth of the threads copy a second
 * float4 from the far half of the buffer, one another thread copies much later (L2 holds neither
 * copy by then); the same output. A planted 10% slowdown. */
cudaError_t copy_vectorized_slow10(const float *in, float *out, size_t n, cudaStream_t stream);

/* The pair's kernel tables with the planted kernel as the optimized one, {0}-terminated. */
extern const rb_kernel_info copy_vectorized_scalar_copy_kernels[];
extern const rb_kernel_info copy_vectorized_slow10_kernels[];

#ifdef __cplusplus
}
#endif

#endif
