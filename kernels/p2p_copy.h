/* SPDX-License-Identifier: MIT */
/* The seam between kernels/p2p_copy.cu and bench/p2p_copy.c (both include it). */
#ifndef RB_KERNELS_P2P_COPY_H
#define RB_KERNELS_P2P_COPY_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t p2p_copy_peer_read(const float *peer_in, float *out, size_t n, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info p2p_copy_kernels[];

#ifdef __cplusplus
}
#endif

#endif
