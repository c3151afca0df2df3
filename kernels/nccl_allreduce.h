/* SPDX-License-Identifier: MIT */
/* The seam between kernels/nccl_allreduce.cu and bench/nccl_allreduce.c (both include it). */
#ifndef RB_KERNELS_NCCL_ALLREDUCE_H
#define RB_KERNELS_NCCL_ALLREDUCE_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t nccl_allreduce_check(const float *out, size_t n, int coll, int rank, int ranks,
                                 size_t chunk, uint64_t seed, double *acc, cudaStream_t stream);
cudaError_t nccl_allreduce_ring_step(float *dst, const float *peer, const float *local, size_t n,
                                     cudaStream_t stream);

/* The ring's plan (host code in bench/nccl_allreduce.c, simulated on the CPU by
 * tests/test_ring.c). coll: 0 all-reduce, 1 all-gather, 2 reduce-scatter; chunk: c, the elements
 * per rank of the layout (the all-reduce's whole buffer). One move: rank's recv[dst, dst + len) =
 * src_rank's send (src_send) or recv at [src, src + len), plus rank's send at [local, local + len)
 * when reduce. */
typedef struct nccl_allreduce_move {
    size_t dst, src, local, len;
    int src_rank, src_send, reduce;
} nccl_allreduce_move;

/* Steps of a collective on n ranks: all-reduce 2(n - 1), the halves n - 1; one rank: 0. */
int nccl_allreduce_ring_steps(int coll, int ranks);
/* Slices per step: the longest segment cut into pieces of at least slice_min elements, 1 to
 * NCCL_ALLREDUCE_RING_MAX_SLICES. */
#define NCCL_ALLREDUCE_RING_MAX_SLICES 8
int nccl_allreduce_ring_slices(int coll, int ranks, size_t chunk, size_t slice_min);
/* Part i of `parts` near-equal parts of n elements (the first n % parts one longer). */
void nccl_allreduce_part(size_t n, int parts, int i, size_t *off, size_t *len);
/* Slice `slice` of rank's move at `step` (-1: its own data, copied locally before the steps: the
 * all-gather's own chunk, and on one rank the whole output). 1 with *m filled, 0: no such move. */
int nccl_allreduce_ring_move(int coll, int ranks, size_t chunk, int slices, int rank, int step,
                             int slice, nccl_allreduce_move *m);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info nccl_allreduce_kernels[];

#ifdef __cplusplus
}
#endif

#endif
