/* SPDX-License-Identifier: MIT */
/* The seam between kernels/host_transfer.cu and bench/host_transfer.c (both include it). */
#ifndef RB_KERNELS_HOST_TRANSFER_H
#define RB_KERNELS_HOST_TRANSFER_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t host_transfer_h2d(float *dst_dev, const float *src_host, size_t n, cudaStream_t stream);
cudaError_t host_transfer_d2h(float *dst_host, const float *src_dev, size_t n, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info host_transfer_kernels[];

#ifdef __cplusplus
}
#endif

#endif
