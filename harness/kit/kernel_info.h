/* SPDX-License-Identifier: MIT */
/*
 * A kernel as the results report it: kernels/<pair>.cu lists the kernels its launchers use, with
 * the block size and dynamic shared memory they are launched with, in a table ended by an empty
 * entry
 *
 *     extern "C" const rb_kernel_info transpose_kernels[] = {
 *         {"baseline", "transpose_baseline_kernel", (const void *)transpose_baseline_kernel,
 *          TRANSPOSE_THREADS, 0},
 *         ...
 *         {}};
 *
 * kernels/<pair>.h declares it, and bench/<pair>.c points rb_pair.kernels at it. The harness asks
 * the runtime for each one's registers, static shared and local memory and theoretical occupancy
 * (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor). Plain C: included by
 * .c and .cu files.
 */
#ifndef RB_KERNEL_INFO_H
#define RB_KERNEL_INFO_H

#include <stddef.h>

typedef struct rb_kernel_info {
    const char *variant; /* the variant whose launcher uses it */
    const char *name;    /* the kernel as the source names it */
    const void *func;    /* the __global__ function */
    int block_threads;   /* threads per block it is launched with */
    size_t dyn_smem;     /* dynamic shared memory per block, bytes */
} rb_kernel_info;

#endif
