/* SPDX-License-Identifier: MIT */
/*
 * transpose: out = in^T for an fp32 matrix, staged through shared memory, with and without the
 * one-word pad that removes bank conflicts.
 *
 * What: in is rows x cols, row-major; out is cols x rows, row-major: out[c * rows + r] =
 *   in[r * cols + c]. Any shape (bounds checks everywhere; nothing needs a multiple of the tile).
 *   With --size N the shape is rows = floor(sqrt(N / 2)), cols = floor(N / rows): full size
 *   2^27 gives 8192 x 16384.
 *
 * Work: 0 flops; 4n bytes read + 4n bytes written = 8n bytes compulsory DRAM traffic. Full size
 *   n = 2^27: 512 MiB per buffer, 1 GiB moved (> 4x the 50 MB L2 of an H100).
 *
 * The problem: one side of a transpose is always strided. Reading rows coalesced means writing
 *   columns: the 32 lanes of a warp then store to 32 different output rows, `rows * 4` bytes
 *   apart, one 4-byte piece of 32 different 32-byte sectors per store instruction.
 *
 * Baseline: one thread per element, the textbook first kernel. Blocks of 32 x 8 threads, x along
 *   the columns, so reads are coalesced (a warp reads 128 contiguous bytes) and writes are
 *   strided as above. The 8 warps of a block do fill each output sector between them (8 rows x 4
 *   bytes = 32 bytes), but as 8 separate partial-sector writes from 8 instructions: L2 handles
 *   32 sector writes for every 128 useful bytes instead of 4, and the SM issues a 32-way
 *   scattered store for every warp instruction.
 *
 * Step `tiled`: a block moves a 32 x 32 tile through shared memory. It reads the tile row by row
 *   (coalesced), synchronizes, then writes the tile's columns as output rows (coalesced too: a
 *   warp stores 128 contiguous bytes). The block is 32 x 8 threads, each moving 32 / 8 = 4
 *   elements: four independent global loads in flight per thread before the barrier. But the
 *   column read of the tile, tile[threadIdx.x][k], strides by 32 words: all 32 lanes hit the
 *   same bank (bank = word address mod 32), so each such shared-memory load is replayed as 32
 *   wavefronts. Per 32 x 32 tile: 32 conflict-free stores + 32 loads x 32 = 1056 shared-memory
 *   cycles for 8 KB of DRAM traffic. At 132 SMs x ~1.75 GHz that caps the kernel near
 *   132 x 1.75e9 / 1056 x 8 KB ~ 1.8 TB/s, below the DRAM roof.
 *
 * Optimized: the same kernel with the tile declared [32][33]. Row r of the tile now starts at
 *   word 33r, so tile[lane][k] sits in bank (33 lane + k) mod 32 = (lane + k) mod 32: 32 lanes,
 *   32 different banks, one wavefront. The padding costs 128 bytes of shared memory per block.
 *   `tiled` and `optimized` share one device function and differ only in that pad (a template
 *   argument), so their ratio measures exactly the cost of the bank conflicts.
 *   Block 32 x 8 (TRANSPOSE_TILE x TRANSPOSE_BLOCK_ROWS), 4 elements per thread: 256 threads
 *   and 4.2 KB of shared memory per block, so 8 blocks (2048 threads) fit an SM and each SM
 *   keeps ~32 KB of loads in flight, more than the ~14 KB Little's law asks for (~3 TB/s x
 *   ~0.6 us / 132 SMs). TILE may be any multiple of 32 (the +1 pad works for all: 33, 65 ... are
 *   odd) and BLOCK_ROWS any divisor of TILE with TILE x BLOCK_ROWS <= 1024.
 *
 * Grids: every kernel here uses a one-dimensional grid and splits the block index into (tile
 *   row, tile column) with one division per block, x fastest as a 2D grid would run. gridDim.y
 *   is limited to 65535, which would cap rows at ~2M for a tall, skinny matrix; gridDim.x
 *   holds 2^31 - 1 blocks.
 *
 * Library: cublasSgeam, C = 1 * op(A) + 0 * B with op(A) = A^T. cuBLAS is column-major: the
 *   row-major rows x cols input is a column-major cols x rows matrix with lda = cols, and the
 *   row-major cols x rows output is a column-major rows x cols matrix with ldc = rows. The
 *   cuBLAS documentation says that with beta == 0, B "does not have to be a valid input", so B
 *   is NULL (it is not read; if it were, the run would fault or the check would see NaN). The
 *   _64 entry point takes 64-bit dimensions. See bench/transpose.c.
 *
 * Predicted (H100 SXM, before measuring), against cudaMemcpy D2D 2996 GB/s (GPU.md):
 *   baseline ~0.9-1.3 TB/s: reads stream at full speed, but 32 partial-sector writes per 128
 *   bytes load the L2 ~4.5x as much per byte as a copy (copy_coalescing's column walk, with 32 on
 *   both sides, measured 311 GB/s; here only the write side is scattered, and a block's warps
 *   complete each sector within a short window).
 *   tiled ~1.6-1.9 TB/s: bound by the 32-way shared-memory replays (estimate above).
 *   optimized ~2.7-2.9 TB/s (0.90-0.97x cudaMemcpy): both sides coalesced, no replays; short of
 *   the float4 copy because accesses are 4 bytes per lane and the write stream goes out in 128-
 *   byte pieces 32 KB apart rather than as one contiguous stream.
 *   library (cublasSgeam) ~2.6-2.9 TB/s, about the optimized kernel.
 *
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261125T081152Z-317bbe9.json, the latest full
 *   run; ncu: 20261122T042800Z-6bfc0b1-ncu-bytes.txt/.csv): baseline 422 GB/s, tiled 1736 GB/s
 *   (4.11x), optimized 2795 GB/s (6.62x; 0.93x the cudaMemcpy 2986-2993 GB/s of the same run,
 *   the copy pairs' library rows), cuBLAS geam 2863 GB/s. The baseline came in far
 *   under the predicted 0.9-1.3 TB/s: ncu shows its stores as 134M L2 write sectors for 16.8M of
 *   data (8x: each 4-byte store of a warp lands in its own sector), the L2 at 79% of its peak
 *   throughput and DRAM at 15%: it is bound by L2 write requests, exactly like copy_coalescing's
 *   baseline, and partial-sector write-back adds 15% DRAM bytes. tiled and optimized matched the
 *   predictions; the pad alone is worth 1.61x. The library row's kernel in ncu is cuBLAS's
 *   transpose_readWrite_alignment_kernel.
 *
 * Audit (issue 9: is the baseline what a competent engineer writes before knowing the pattern?):
 *   yes. The baseline is the naive kernel of NVIDIA's transpose tutorial: full occupancy (8
 *   blocks of 256 threads per SM), coalesced reads, the strided writes being the subject. Its
 *   4-byte accesses are not the handicap (the 16-byte form of a transpose needs the tile this
 *   pair teaches). A framework doing the same op is no stronger: PyTorch's
 *   x.t().contiguous() on the same 8192 x 16384 fp32 input runs 903 GB/s on the H100 (GPU.md),
 *   a generic strided copy, 2.1x the baseline and 0.32x the optimized kernel; cuBLAS geam is
 *   2.4% faster than the optimized kernel (2863 vs 2795 GB/s). So the speedups are what tiling
 *   (4.11x) and the pad (1.61x) are worth against what an engineer, or a framework, would run
 *   without them; cuBLAS shows the kernel is within a few percent of the best known.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stddef.h>

#include "kernel_info.h"
#include "kernels/transpose.h"

/* Tunables: the tile edge (a multiple of 32) and the thread rows of a block (a divisor of the
 * tile); each thread moves TRANSPOSE_TILE / TRANSPOSE_BLOCK_ROWS elements. The baseline uses
 * the same TRANSPOSE_TILE x TRANSPOSE_BLOCK_ROWS block, one element per thread. */
#define TRANSPOSE_TILE 32
#define TRANSPOSE_BLOCK_ROWS 8

static_assert(TRANSPOSE_TILE % 32 == 0, "the +1 pad and coalescing assume whole warps per row");
static_assert(TRANSPOSE_TILE % TRANSPOSE_BLOCK_ROWS == 0, "rows of threads must divide the tile");
static_assert(TRANSPOSE_TILE * TRANSPOSE_BLOCK_ROWS <= 1024, "at most 1024 threads per block");

#define TRANSPOSE_THREADS (TRANSPOSE_TILE * TRANSPOSE_BLOCK_ROWS)

static __global__ void __launch_bounds__(TRANSPOSE_THREADS)
    transpose_baseline_kernel(const float *__restrict__ in, float *__restrict__ out, size_t rows,
                              size_t cols, unsigned tiles_x)
{
    size_t col = (size_t)(blockIdx.x % tiles_x) * TRANSPOSE_TILE + threadIdx.x;
    size_t row = (size_t)(blockIdx.x / tiles_x) * TRANSPOSE_BLOCK_ROWS + threadIdx.y;
    if (row < rows && col < cols)
        out[col * rows + row] = in[row * cols + col]; /* each lane: another output row */
}

/* One TILE x TILE tile through shared memory. PAD = 0: the `tiled` step; PAD = 1: optimized. */
template <int PAD>
static __device__ __forceinline__ void transpose_tile(const float *__restrict__ in,
                                                      float *__restrict__ out, size_t rows,
                                                      size_t cols, unsigned tiles_x)
{
    __shared__ float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + PAD];
    size_t col0 = (size_t)(blockIdx.x % tiles_x) * TRANSPOSE_TILE;
    size_t row0 = (size_t)(blockIdx.x / tiles_x) * TRANSPOSE_TILE;

    /* Read rows of the tile: lanes walk consecutive columns, 128 contiguous bytes per warp. All
     * TILE / BLOCK_ROWS loads of a thread are independent, so they are in flight together. */
    size_t c = col0 + threadIdx.x;
#pragma unroll
    for (int j = 0; j < TRANSPOSE_TILE; j += TRANSPOSE_BLOCK_ROWS) {
        size_t r = row0 + threadIdx.y + j;
        if (r < rows && c < cols)
            tile[threadIdx.y + j][threadIdx.x] = in[r * cols + c];
    }
    __syncthreads();

    /* Write columns of the tile as rows of out: output row col0 + k holds input column col0 + k,
     * and lanes walk consecutive input rows, so the store is 128 contiguous bytes again. The
     * shared-memory read tile[lane][k] strides by TILE + PAD words across the warp: with PAD = 0
     * that is a multiple of 32 and every lane hits the same bank. */
    size_t r = row0 + threadIdx.x;
#pragma unroll
    for (int j = 0; j < TRANSPOSE_TILE; j += TRANSPOSE_BLOCK_ROWS) {
        size_t k = threadIdx.y + j;
        if (col0 + k < cols && r < rows)
            out[(col0 + k) * rows + r] = tile[threadIdx.x][k];
    }
}

static __global__ void __launch_bounds__(TRANSPOSE_THREADS)
    transpose_tiled_kernel(const float *__restrict__ in, float *__restrict__ out, size_t rows,
                           size_t cols, unsigned tiles_x)
{
    transpose_tile<0>(in, out, rows, cols, tiles_x);
}

static __global__ void __launch_bounds__(TRANSPOSE_THREADS)
    transpose_optimized_kernel(const float *__restrict__ in, float *__restrict__ out, size_t rows,
                               size_t cols, unsigned tiles_x)
{
    transpose_tile<1>(in, out, rows, cols, tiles_x);
}

/* Blocks of a grid whose block covers block_rows x TRANSPOSE_TILE elements; 0 when the grid
 * would exceed gridDim.x's 2^31 - 1 (far beyond any matrix that fits in memory twice). */
static size_t transpose_grid(size_t rows, size_t cols, size_t block_rows, unsigned *tiles_x)
{
    size_t tx = (cols + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE;
    size_t ty = (rows + block_rows - 1) / block_rows;
    if (tx == 0 || ty == 0 || tx > INT_MAX / ty)
        return 0;
    *tiles_x = (unsigned)tx;
    return tx * ty;
}

extern "C" cudaError_t transpose_baseline(const float *in, float *out, size_t rows, size_t cols,
                                          cudaStream_t stream)
{
    unsigned tiles_x = 0;
    size_t blocks = transpose_grid(rows, cols, TRANSPOSE_BLOCK_ROWS, &tiles_x);
    if (blocks == 0)
        return cudaErrorInvalidConfiguration;
    dim3 block(TRANSPOSE_TILE, TRANSPOSE_BLOCK_ROWS);
    transpose_baseline_kernel<<<(unsigned)blocks, block, 0, stream>>>(in, out, rows, cols, tiles_x);
    return cudaGetLastError();
}

extern "C" cudaError_t transpose_tiled(const float *in, float *out, size_t rows, size_t cols,
                                       cudaStream_t stream)
{
    unsigned tiles_x = 0;
    size_t blocks = transpose_grid(rows, cols, TRANSPOSE_TILE, &tiles_x);
    if (blocks == 0)
        return cudaErrorInvalidConfiguration;
    dim3 block(TRANSPOSE_TILE, TRANSPOSE_BLOCK_ROWS);
    transpose_tiled_kernel<<<(unsigned)blocks, block, 0, stream>>>(in, out, rows, cols, tiles_x);
    return cudaGetLastError();
}

extern "C" cudaError_t transpose_optimized(const float *in, float *out, size_t rows, size_t cols,
                                           cudaStream_t stream)
{
    unsigned tiles_x = 0;
    size_t blocks = transpose_grid(rows, cols, TRANSPOSE_TILE, &tiles_x);
    if (blocks == 0)
        return cudaErrorInvalidConfiguration;
    dim3 block(TRANSPOSE_TILE, TRANSPOSE_BLOCK_ROWS);
    transpose_optimized_kernel<<<(unsigned)blocks, block, 0, stream>>>(in, out, rows, cols,
                                                                       tiles_x);
    return cudaGetLastError();
}

/* The kernels each variant launches, as launched (harness/kit/kernel_info.h): all three use the
 * TRANSPOSE_TILE x TRANSPOSE_BLOCK_ROWS block and static shared memory only. */
extern "C" const rb_kernel_info transpose_kernels[] = {
    {"baseline", "transpose_baseline_kernel", (const void *)transpose_baseline_kernel,
     TRANSPOSE_THREADS, 0},
    {"tiled", "transpose_tiled_kernel", (const void *)transpose_tiled_kernel, TRANSPOSE_THREADS, 0},
    {"optimized", "transpose_optimized_kernel", (const void *)transpose_optimized_kernel,
     TRANSPOSE_THREADS, 0},
    {}};
