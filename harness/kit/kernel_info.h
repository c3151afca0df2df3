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
 *
 * Launch geometry is code too: a kernel whose launcher chooses its grid at run time (from the
 * shape, or from the device: blocks per SM x SMs) says how many blocks it launches through
 * `grid`, which the child calls after setup with the run's resolved shape; the results record it
 * beside the block size, and run and compare count a change of it as a change of code.
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
    /* The blocks its launcher launches for a rows x cols problem (a one-dimensional pair: rows
     * 1, cols its size) on the current device; -1 when it cannot say. NULL: not said. (In C++,
     * a default member initializer: a table entry of five values leaves it NULL without
     * -Wmissing-field-initializers; the layout is C's.) */
#ifdef __cplusplus
    long long (*grid)(size_t rows, size_t cols) = nullptr;
#else
    long long (*grid)(size_t rows, size_t cols);
#endif
} rb_kernel_info;

#endif
