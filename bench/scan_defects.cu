/* SPDX-License-Identifier: MIT */
/*
 * scan's planted race (see scan_defects.h). Not a kernel to learn from: a correct chained scan
 * whose launcher forgets to clear the flags that publish each tile's carry.
 */
#include "scan_defects.h"

#define SCAN_DEFECT_THREADS 256
#define SCAN_DEFECT_ITEMS 8
#define SCAN_DEFECT_TILE (SCAN_DEFECT_THREADS * SCAN_DEFECT_ITEMS)

extern "C" size_t scan_defect_chained_scratch(size_t n)
{
    return (1 + (n + SCAN_DEFECT_TILE - 1) / SCAN_DEFECT_TILE) * sizeof(unsigned);
}

/* The tile's inclusive scan (each thread's items in order, then the threads' totals by a
 * Hillis-Steele scan in shared memory), the carry from the predecessor once its flag is set,
 * the outputs, then this tile's flag. Tiles are numbered in the order the blocks start (the
 * counter), so a tile's predecessor is always running or done: the wait cannot deadlock. */
static __global__ void __launch_bounds__(SCAN_DEFECT_THREADS)
    scan_defect_chained_kernel(const int32_t *__restrict__ in, int32_t *out, size_t n,
                               unsigned *scratch)
{
    __shared__ int32_t part[SCAN_DEFECT_THREADS];
    __shared__ unsigned tile_of_block;
    __shared__ int32_t carry;
    unsigned *counter = scratch, *flags = scratch + 1;
    const int t = (int)threadIdx.x;
    if (t == 0)
        tile_of_block = atomicAdd(counter, 1u);
    __syncthreads();
    const size_t tile = tile_of_block,
                 first = tile * SCAN_DEFECT_TILE + (size_t)t * SCAN_DEFECT_ITEMS;
    int32_t x[SCAN_DEFECT_ITEMS], sum = 0;
#pragma unroll
    for (int i = 0; i < SCAN_DEFECT_ITEMS; i++) {
        sum += first + i < n ? in[first + i] : 0;
        x[i] = sum;
    }
    part[t] = sum;
    __syncthreads();
    for (int off = 1; off < SCAN_DEFECT_THREADS; off *= 2) {
        const int32_t add = t >= off ? part[t - off] : 0;
        __syncthreads();
        part[t] += add;
        __syncthreads();
    }
    if (t == 0) {
        int32_t c = 0;
        if (tile > 0) {
            while (((volatile unsigned *)flags)[tile - 1] == 0)
                ;
            __threadfence();
            c = ((volatile int32_t *)out)[tile * SCAN_DEFECT_TILE - 1];
        }
        carry = c;
    }
    __syncthreads();
    const int32_t before = (t ? part[t - 1] : 0) + carry;
#pragma unroll
    for (int i = 0; i < SCAN_DEFECT_ITEMS; i++)
        if (first + i < n)
            out[first + i] = x[i] + before;
    __threadfence(); /* every thread's outputs visible before the flag says so */
    __syncthreads();
    if (t == 0)
        atomicExch(&flags[tile], 1u);
}

extern "C" cudaError_t scan_defect_chained_i32(const int32_t *in, int32_t *out, size_t n,
                                               void *scratch, int clear_flags, cudaStream_t stream)
{
    if (n < 1 || n > 0x7fffffffu)
        return cudaErrorInvalidValue;
    const size_t tiles = (n + SCAN_DEFECT_TILE - 1) / SCAN_DEFECT_TILE;
    /* the race: without clear_flags only the counter is cleared, the flags keep the last launch's
     */
    cudaError_t e = cudaMemsetAsync(
        scratch, 0, clear_flags ? scan_defect_chained_scratch(n) : sizeof(unsigned), stream);
    if (e != cudaSuccess)
        return e;
    scan_defect_chained_kernel<<<(unsigned)tiles, SCAN_DEFECT_THREADS, 0, stream>>>(
        in, out, n, (unsigned *)scratch);
    return cudaGetLastError();
}
