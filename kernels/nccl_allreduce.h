/* SPDX-License-Identifier: MIT */
/* The seam between kernels/nccl_allreduce.cu and bench/nccl_allreduce.c (both include it). */
#ifndef RB_KERNELS_NCCL_ALLREDUCE_H
#define RB_KERNELS_NCCL_ALLREDUCE_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t nccl_allreduce_check(const float *out, size_t n, int coll, int rank, int ranks,
                                 size_t chunk, uint64_t seed, double *acc, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
