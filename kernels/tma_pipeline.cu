/* SPDX-License-Identifier: MIT */
/*
 * tma_pipeline: a tiled 5x5 stencil whose tiles arrive by per-thread cp.async copies into a ring of
 * shared-memory stages vs the same ring filled by the tensor memory accelerator (TMA, sm_90).
 *
 * What: out[r][c] = sum over |dr|, |dc| <= R of w[dr + R][dc + R] * in[r + dr][c + dc], an fp32
 *   image of rows x cols, zero outside the image, R = 2 (a 5x5 correlation). The 25 weights are
 *   fixed, in __constant__ memory, and asymmetric in both directions, so a flipped (convolution)
 *   or transposed stencil fails the check.
 *
 * Layout: `out` is dense, rows x cols. `in` is row-major with a row pitch P = cols rounded up to a
 *   multiple of 4 floats (16 bytes), and the P - cols pad floats of each row are zero (setup
 *   writes them; nothing else touches them). Every row then starts 16-byte aligned, so a tile row
 *   moves in whole 16-byte pieces whatever cols is (16-byte cp.async; the TMA needs the 16-byte
 *   pitch too), and a piece that straddles the right edge of the image brings zeros from the
 *   pad, which is exactly the zero padding the stencil wants. With cols % 4 == 0, as at full
 *   size, P = cols and there is no pad. The GPU reference never reads the pad, so it checks the
 *   kernels' use of it.
 *
 * Work: 2 (2R+1)^2 = 50 flops per pixel; compulsory DRAM traffic 4 bytes read + 4 bytes written
 *   per pixel = 8 rows cols bytes. A tile also reads a 2-pixel halo around it (+13%), but the
 *   halo belongs to neighbouring tiles that run at about the same time, so it comes from L2, not
 *   DRAM. Full size 16384 x 16384: 2.15 GB moved, 13.4 GFLOP, 6.25 flop/byte, under the H100's
 *   balance of 60.6 TFLOP/s / 3.0 TB/s = 20 flop/byte: memory-bound. At the copy roof (~3.0
 *   TB/s) one pass takes 0.72 ms.
 *
 * Both kernels share the tile and compute code:
 * - A tile is 64 x 64 outputs plus a 2-pixel halo; 512 threads; thread (tx, ty) computes the 8
 *   outputs of column tx, rows 8 ty .. 8 ty + 7, with a register window: it reads each of the
 *   12 input rows it needs once (5 floats) and adds it to every output that row touches. 60
 *   shared loads per 8 outputs (7.5 per output) instead of 25: shared memory serves 32 floats
 *   per clock per SM, and the DRAM roof needs 3.0 TB/s / 8 B / 132 SMs / 1.75 GHz = 1.6 pixels
 *   per clock per SM; at 25 loads per output the stencil would top out at 32 / 25 = 1.3. A warp
 *   reads 32 consecutive floats of one row: no bank conflicts. 25 FFMA per output (weights as
 *   constant-bank operands).
 * - Persistent loop: a grid of (blocks per SM) x SMs blocks, block b taking tiles b, b + grid,
 *   b + 2 grid, ... in row-major tile order, so the tiles in flight at one time form a band of
 *   the image a few tile rows tall, and each halo row is still in L2 when the tile row below
 *   needs it.
 * - A ring of TMA_PIPELINE_STAGES = 3 shared stages: 2 tiles (~37-39 KB) in flight per SM while
 *   one is computed, ~2-5x the ~8-16 KB of reads Little's law asks per SM.
 *
 * Baseline: the cp.async ring (it was async_pipeline's optimized kernel; that pair now teaches
 *   the pipeline on a workload where it matters, a skinny GEMM). Each tile's input, 68 rows x 72
 *   floats (the halo widened from 2 to 4 floats on each side so that every row is 18 aligned
 *   16-byte pieces), is 19.6 KB; each of the 512 threads computes the addresses and bounds of
 *   its ~2.4 pieces per tile and issues them as cp.async.cg 16-byte copies (global -> shared,
 *   not through registers; out-of-image pieces use the zero-fill form, src-size 0), a few dozen
 *   instructions per thread per tile, and the LSU tracks 1224 copies per tile. Each thread
 *   commits one group per tile; iteration k does
 *     cp.async.wait_group STAGES-2   (this thread's pieces of tile k have landed)
 *     __syncthreads                  (everyone's have; and everyone is done reading tile k-1)
 *     issue tile k+STAGES-1 into the stage tile k-1 used; commit (an empty group past the end,
 *                                    so that the group count stays one per iteration)
 *     compute tile k, store its outputs
 *   Is this what a competent engineer writes before knowing the TMA? Yes: it is the best
 *   pre-Hopper way to fill a shared ring (async_pipeline's lesson), and it runs at the occupancy
 *   that is best for it. Fairness of occupancy: as built (__launch_bounds__(512, 1), 96
 *   registers), one block per SM is all its resources allow, and issue 9 measured this kernel's
 *   best at 1 block per SM on the H100 (0.83 ms; built for 2 per SM, with 64 registers, it was
 *   not faster), so both variants run the same persistent grid of 1 block per SM. The extras of
 *   each variant time it at every blocks-per-SM its kernel fits (ms_bps_1, ms_bps_2, ...:
 *   bench/tma_pipeline.c), so every run records the sweep; make
 *   NVCCFLAGS=-DTMA_PIPELINE_BLOCKS_PER_SM=2 rebuilds both kernels for 2 per SM to check again.
 *
 * Optimized: one thread describes the whole tile to the TMA with one instruction,
 *     cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
 *   and the TMA walks the box (68 x 68 floats = the tile + the 2-pixel halo) in hardware:
 *   address generation, the bounds (elements past the right and bottom edges are written as
 *   zeros: the stencil's zero padding there) and the shared-memory writes. The threads only
 *   compute.
 *   - Negative coordinates: a box that starts left of or above the tensor's origin faults. On
 *     the H100 (driver 580.159.04) cp.async.bulk.tensor.2d in tile mode with a start of
 *     (-2, -2) raised "an illegal instruction was encountered" for every box shape tried, with
 *     the descriptor in param or in global memory, while the same boxes at (0, 0) ran
 *     (scratch experiment, 2026-11-22). So the top and left zero padding cannot come from the
 *     TMA's out-of-bounds fill: setup makes a zero-bordered copy of the image, R rows above and
 *     R columns left of it (outside the timed region), and the box of the tile at image
 *     (c0, r0) starts at bordered (c0, r0), which is image (c0 - R, r0 - R).
 *   - The tensor map (CUtensorMap) describes the bordered image: fp32, 2 dims
 *     {cols + 2R, rows + 2R}, row stride bordered pitch x 4 bytes, box {68, 68}, no swizzle,
 *     no interleave, out-of-bounds fill zero. It is encoded on the host in setup with
 *     cuTensorMapEncodeTiled, fetched from the driver with cudaGetDriverEntryPointByVersion
 *     (so nothing links -lcuda; <cuda.h> and <cudaTypedefs.h> give the types only), and passed
 *     by value as a `const __grid_constant__ CUtensorMap` kernel parameter, the form the TMA
 *     reads it from.
 *   - TMA constraints and how they are met: the global base 16-byte aligned (cudaMalloc: 256);
 *     the row stride a multiple of 16 bytes: cols x 4 is not when cols % 4 != 0 (999 x 1021),
 *     which is why the image both variants use is stored with a pitch rounded up to 4 floats
 *     (setup, outside the timed region; the cp.async baseline and the reference use the same
 *     pitched image; the bordered copy has its own pitch, cols + 2R rounded up to 4). The
 *     map's inner dim is cols + 2R, not the pitch, so the TMA zero-fills past it itself. The
 *     box's inner dimension, 68 x 4 = 272 bytes, is a multiple of 16, and both box dims are
 *     <= 256. Each stage's shared destination is 128-byte aligned (stages of 18,560 bytes,
 *     145 x 128, from a base rounded up at run time).
 *   - Completion: a "full" mbarrier per stage, initialized with an arrival count of 1. The
 *     producer thread does mbarrier.arrive.expect_tx(box bytes = 18,496) then issues the copy,
 *     whose completion subtracts the bytes it wrote; the phase completes when both the arrival
 *     and the bytes are in. The TMA always writes (and counts) the whole box, zero-filled parts
 *     included, so the expected count is the same for every tile.
 *   - Phases: stage s holds this block's tiles k = s, s + S, s + 2S, ...; the u-th of them
 *     completes the barrier's phase u, so the consumers wait with
 *     mbarrier.try_wait.parity(parity = u & 1), kept as (stage, phase bit) flipping when the
 *     stage index wraps. A barrier can never be two phases ahead of a waiter: a stage is refilled
 *     only after every thread has finished with it (the __syncthreads below).
 *   - The loop: wait(full[s], phase); compute from stage s; __syncthreads (every thread is done
 *     reading stage s); the producer refills stage s with tile k + S. With S = 3 stages, the
 *     next 2 tiles (37 KB) are in flight while one is computed, as in the baseline.
 *   - Proxies: the TMA writes shared memory through the async proxy; the mbarrier's completion
 *     (complete_tx, observed by try_wait's acquire) makes those writes visible to the threads'
 *     ordinary loads, so no fence is needed for loads. fence.proxy.async would be needed if
 *     threads wrote shared memory with ordinary stores that the async proxy then read (a TMA
 *     store of an output tile from shared memory); this kernel stores its outputs directly from
 *     registers, so it has none. The mbarrier initialization is published to the async proxy
 *     and to the other threads by fence.mbarrier_init + __syncthreads before the first copy.
 *   All sm_90 PTX sits under `__CUDA_ARCH__ >= 900`: an ARCH=sm_80 build compiles, its kernel
 *   body is a trap, and the harness skips the pair below compute capability 9.0 (min_cc = 90).
 *
 * Library: none (no CUDA Toolkit library in our dependencies computes a 2D stencil).
 *
 * Predicted (H100 SXM, before measuring): both near the copy roof, the TMA version ~2.7-2.85
 *   TB/s (>= 0.9 of 2996 GB/s; the acceptance floor is 0.85, ~2550 GB/s) and the cp.async
 *   baseline ~2.6-2.8 TB/s; the TMA kernel a few percent faster (no per-thread address and copy
 *   instructions, fewer registers), not more: both are DRAM-bound with the same bytes in flight.
 *   The lesson is what the TMA frees (the threads' issue slots and registers), not bandwidth.
 *
 * Tunables (compile-time, overridable with -D): TMA_PIPELINE_STAGES (2..4, both kernels),
 *   TMA_PIPELINE_BLOCKS_PER_SM (the launch bound of both kernels and their default grid),
 *   TMA_PIPELINE_TILE_W (multiple of 32, tile + 4 <= 256), TMA_PIPELINE_TILE_H (tile + 4 <=
 *   256), TMA_PIPELINE_ROWS_PER_THREAD.
 *
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261122T042738Z-6bfc0b1.json, when the baseline
 *   was async_pipeline's optimized kernel, the same code; ncu: ...-6bfc0b1-ncu-bytes.txt/.csv):
 *   cp.async baseline 2591 GB/s, TMA 2636 GB/s = 1.02x (the first run of the same revision:
 *   1.01x) and 0.88x the cudaMemcpy 2999 GB/s of the same run; declared bytes within 2.1% (ncu).
 *   That is under the predicted 2.7-2.85 TB/s and the TMA's timing noise is higher than the
 *   others' (1.7-2.3%). ncu has the single kernel at 84% of the DRAM peak (775 us) against ~815
 *   us per launch back to back, so some of the gap is between launches of the persistent grid;
 *   the per-tile __syncthreads of one 512-thread block per SM is the other suspect. Neither is
 *   confirmed yet: the extras' blocks-per-SM sweep and TMA_PIPELINE_STAGES are the next checks,
 *   then a warp-specialized producer.
 * Measured after the move (H100, 20261125T120458Z-7100242.json and 120618Z, two back-to-back
 *   runs): cp.async baseline 0.8354 / 0.8390 ms (2571 / 2560 GB/s), TMA 0.8214 / 0.8153 ms
 *   (2614 / 2634 GB/s), 1.02x / 1.03x; --cold 0.8327 and 0.7879 ms (1.06x,
 *   20261125T1209Z-7100242-cold.json). The extras' occupancy sweep: the baseline fits 1 block
 *   per SM (its registers), the TMA kernel 2, where it is slower (ms_bps_2 0.878 against
 *   ms_bps_1 0.824), so 1 block per SM is each kernel's best and the comparison is fair. Still
 *   ~0.87x the copy roof, as before the move: the gap between launches and the per-tile barrier
 *   remain the suspects, unconfirmed.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"
#include "kernels/tma_pipeline.h"

#define TMA_PIPELINE_R 2
#ifndef TMA_PIPELINE_TILE_W
#define TMA_PIPELINE_TILE_W 64
#endif
#ifndef TMA_PIPELINE_TILE_H
#define TMA_PIPELINE_TILE_H 64
#endif
#ifndef TMA_PIPELINE_ROWS_PER_THREAD
#define TMA_PIPELINE_ROWS_PER_THREAD 8
#endif
#ifndef TMA_PIPELINE_STAGES
#define TMA_PIPELINE_STAGES 3
#endif
#ifndef TMA_PIPELINE_BLOCKS_PER_SM
#define TMA_PIPELINE_BLOCKS_PER_SM 1
#endif
#ifndef TMA_PIPELINE_PREFETCH
#define TMA_PIPELINE_PREFETCH 1 /* prefetch the tensor map into the descriptor cache */
#endif

enum {
    TP_R = TMA_PIPELINE_R,
    TP_TAPS = 2 * TP_R + 1,
    TP_TILE_W = TMA_PIPELINE_TILE_W,
    TP_TILE_H = TMA_PIPELINE_TILE_H,
    TP_V = TMA_PIPELINE_ROWS_PER_THREAD,
    TP_STAGES = TMA_PIPELINE_STAGES,
    TP_THREADS = TP_TILE_W * TP_TILE_H / TP_V,
    /* The baseline's stage: the halo widened to one 16-byte piece (4 floats) on each side. */
    TP_HALO_X = 4,
    TP_SMEM_W = TP_TILE_W + 2 * TP_HALO_X, /* floats per shared row */
    TP_SMEM_H = TP_TILE_H + 2 * TP_R,
    TP_PIECES_PER_ROW = TP_SMEM_W / 4,
    TP_TILE_PIECES = TP_SMEM_H * TP_PIECES_PER_ROW, /* 16-byte pieces per tile */
    TP_LOAD_ITERS = (TP_TILE_PIECES + TP_THREADS - 1) / TP_THREADS,
    TP_CP_STAGE_BYTES = TP_TILE_PIECES * 16,
    TP_CP_SMEM_BYTES = TP_STAGES * TP_CP_STAGE_BYTES, /* the baseline's ring (dynamic) */
    /* The optimized kernel's stage: the TMA box = the tile + halo, dense rows. */
    TP_BOX_W = TP_TILE_W + 2 * TP_R,
    TP_BOX_H = TP_TILE_H + 2 * TP_R,
    TP_BOX_BYTES = TP_BOX_W * TP_BOX_H * 4,
    TP_STAGE_BYTES = (TP_BOX_BYTES + 127) / 128 * 128, /* each stage 128-byte aligned */
    TP_SMEM_BYTES = TP_STAGES * TP_STAGE_BYTES + 128   /* + slack to align the base */
};

static_assert(TP_R >= 1 && TP_R <= TP_HALO_X, "the halo must fit in one 16-byte piece per side");
static_assert(TP_BOX_W * 4 % 16 == 0, "TMA: the box's inner dimension must be a multiple of 16 B");
static_assert(TP_BOX_W <= 256 && TP_BOX_H <= 256, "TMA: box dimensions are at most 256");
static_assert(TP_BOX_BYTES < (1 << 20), "mbarrier transaction counts are below 2^20");
static_assert(TP_TILE_W % 32 == 0, "a warp covers 32 columns of one row group");
static_assert(TP_TILE_H % TP_V == 0, "rows per thread must divide the tile height");
static_assert(TP_THREADS >= 32 && TP_THREADS <= 1024, "threads per block out of range");
static_assert(TP_STAGES >= 2 && TP_STAGES <= 8, "the ring needs 2 or more stages");

/* w[dr + R][dc + R] multiplies in[r + dr][c + dc]. Multiples of 1/64 (exact in fp32), no zero,
 * symmetric in neither direction. bench/tma_pipeline.c's selftest holds hand-computed values
 * from this table. */
/* clang-format off */
#define TMA_PIPELINE_WEIGHTS {                                   \
        { 1 / 64.f, -2 / 64.f,  3 / 64.f,  1 / 64.f,  2 / 64.f}, \
        {-1 / 64.f,  4 / 64.f,  6 / 64.f, -3 / 64.f,  1 / 64.f}, \
        { 2 / 64.f,  5 / 64.f, 16 / 64.f,  7 / 64.f, -2 / 64.f}, \
        { 1 / 64.f, -4 / 64.f,  8 / 64.f,  3 / 64.f,  1 / 64.f}, \
        { 1 / 64.f,  2 / 64.f, -1 / 64.f,  2 / 64.f,  3 / 64.f}}
/* clang-format on */
static __constant__ float tma_pipeline_w[TP_TAPS][TP_TAPS] = TMA_PIPELINE_WEIGHTS;
static const float tma_pipeline_host_w[TP_TAPS][TP_TAPS] = TMA_PIPELINE_WEIGHTS;

static __device__ __forceinline__ uint32_t tma_pipeline_smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void tma_pipeline_tile_origin(int t, int tiles_x, int *r0,
                                                                int *c0)
{
    const int ty = t / tiles_x;
    *r0 = ty * TP_TILE_H;
    *c0 = (t - ty * tiles_x) * TP_TILE_W;
}

/* Thread (tx, ty) of the tile at (r0, c0) computes out[r0 + V ty + j][c0 + tx], j < V. s points
 * at the shared float holding image (r0 + V ty - R, c0 + tx - R): the top left of the thread's
 * window; ROW is the stage's row stride in floats (72 for the cp.async ring, 68 for the TMA). */
template <int ROW>
static __device__ __forceinline__ void tma_pipeline_compute_tile(const float *s,
                                                                 float *__restrict__ out, int r0,
                                                                 int c0, int rows, int cols)
{
    const int tx = threadIdx.x % TP_TILE_W, ty = threadIdx.x / TP_TILE_W;
    float acc[TP_V]; /* input row i of the window feeds output j through weight row i - j */
#pragma unroll
    for (int j = 0; j < TP_V; j++)
        acc[j] = 0.0f;
#pragma unroll
    for (int i = 0; i < TP_V + 2 * TP_R; i++) {
        float x[TP_TAPS];
#pragma unroll
        for (int dc = 0; dc < TP_TAPS; dc++)
            x[dc] = s[i * ROW + dc];
#pragma unroll
        for (int j = 0; j < TP_V; j++) {
            const int dr = i - j;
            if (dr >= 0 && dr < TP_TAPS) {
#pragma unroll
                for (int dc = 0; dc < TP_TAPS; dc++)
                    acc[j] = fmaf(tma_pipeline_w[dr][dc], x[dc], acc[j]);
            }
        }
    }
    const int c = c0 + tx;
    if (c < cols) {
#pragma unroll
        for (int j = 0; j < TP_V; j++) {
            const int r = r0 + ty * TP_V + j;
            if (r < rows)
                __stcs(out + (size_t)r * cols + c, acc[j]); /* streamed: never read again */
        }
    }
}

/* ---- Baseline: every thread issues 16-byte cp.async copies into the ring. ---- */

/* The tile with output origin (r0, c0): where a piece i of its shared image comes from. */
typedef struct tma_pipeline_piece {
    size_t offset; /* into `in`, in floats */
    int inside;    /* the 4 floats are in the image (or in the zero pad of a row) */
} tma_pipeline_piece;

static __device__ __forceinline__ tma_pipeline_piece tma_pipeline_locate(int i, int r0, int c0,
                                                                         int rows, int cols,
                                                                         int pitch)
{
    const int sr = i / TP_PIECES_PER_ROW, sc = i - sr * TP_PIECES_PER_ROW;
    const int gr = r0 - TP_R + sr, gc = c0 - TP_HALO_X + 4 * sc;
    tma_pipeline_piece p;
    /* gc is a multiple of 4 and cols <= pitch, a multiple of 4: a piece with gc < cols ends at
     * or before the end of its row's pitch, and the floats it holds past cols are zero pad. */
    p.inside = gr >= 0 && gr < rows && gc >= 0 && gc < cols;
    p.offset = p.inside ? (size_t)gr * pitch + gc : 0;
    return p;
}

/* The three cp.async wrappers below are repeated in kernels/async_pipeline.cu on purpose: each
 * kernel file reads alone. cp.async.cg: 16 bytes global -> shared, cached in L2 only. src_bytes = 0
 * reads nothing and writes 16 zero bytes (the zero-fill form). */
static __device__ __forceinline__ void tma_pipeline_cp_async16(uint32_t dst, const float *src,
                                                               uint32_t src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(__cvta_generic_to_global(src)), "r"(src_bytes)
                 : "memory");
}

static __device__ __forceinline__ void tma_pipeline_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most n of this thread's committed groups are still pending. */
template <int n> static __device__ __forceinline__ void tma_pipeline_cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory");
}

/* Issues this thread's pieces of tile t into the shared stage at `stage` (a shared address). */
static __device__ __forceinline__ void tma_pipeline_issue_pieces(uint32_t stage,
                                                                 const float *__restrict__ in,
                                                                 int t, int tiles_x, int rows,
                                                                 int cols, int pitch)
{
    int r0, c0;
    tma_pipeline_tile_origin(t, tiles_x, &r0, &c0);
#pragma unroll
    for (int k = 0; k < TP_LOAD_ITERS; k++) {
        const int i = threadIdx.x + k * TP_THREADS;
        if (i < TP_TILE_PIECES) {
            tma_pipeline_piece p = tma_pipeline_locate(i, r0, c0, rows, cols, pitch);
            tma_pipeline_cp_async16(stage + 16u * i, in + p.offset, p.inside ? 16u : 0u);
        }
    }
}

static __global__ void __launch_bounds__(TP_THREADS, TMA_PIPELINE_BLOCKS_PER_SM)
    tma_pipeline_baseline_kernel(const float *__restrict__ in, float *__restrict__ out, int rows,
                                 int cols, int pitch, int tiles_x, int n_tiles)
{
    extern __shared__ float4 tma_pipeline_ring[]; /* TP_STAGES x TP_TILE_PIECES */
    const uint32_t ring = tma_pipeline_smem_u32(tma_pipeline_ring);
    const int step = gridDim.x;

    /* Prologue: this block's first STAGES-1 tiles into stages 0 .. STAGES-2, one group each. */
#pragma unroll
    for (int s = 0; s < TP_STAGES - 1; s++) {
        const int t = blockIdx.x + s * step;
        if (t < n_tiles)
            tma_pipeline_issue_pieces(ring + s * TP_CP_STAGE_BYTES, in, t, tiles_x, rows, cols,
                                      pitch);
        tma_pipeline_cp_async_commit();
    }

    int s_read = 0, s_write = TP_STAGES - 1; /* stage of tile k; stage for tile k + STAGES-1 */
    const int tx = threadIdx.x % TP_TILE_W, ty = threadIdx.x / TP_TILE_W;
    for (int t = blockIdx.x; t < n_tiles; t += step) {
        /* Before iteration k, STAGES-1 + k groups are committed; at most STAGES-2 pending means
         * groups 0 .. k, so tile k, are complete (for this thread's copies). */
        tma_pipeline_cp_async_wait<TP_STAGES - 2>();
        /* Makes every thread's copies of tile k visible, and guarantees every thread has finished
         * computing tile k-1, whose stage (s_write) is refilled next. */
        __syncthreads();
        const int t_next = t + (TP_STAGES - 1) * step;
        if (t_next < n_tiles)
            tma_pipeline_issue_pieces(ring + s_write * TP_CP_STAGE_BYTES, in, t_next, tiles_x, rows,
                                      cols, pitch);
        tma_pipeline_cp_async_commit(); /* possibly empty: keeps one group per iteration */

        int r0, c0;
        tma_pipeline_tile_origin(t, tiles_x, &r0, &c0);
        const float *tile = (const float *)(tma_pipeline_ring + s_read * TP_TILE_PIECES);
        /* Shared column TP_HALO_X holds image column c0. */
        tma_pipeline_compute_tile<TP_SMEM_W>(tile + ty * TP_V * TP_SMEM_W + tx + (TP_HALO_X - TP_R),
                                             out, r0, c0, rows, cols);
        s_read = s_read + 1 == TP_STAGES ? 0 : s_read + 1;
        s_write = s_write + 1 == TP_STAGES ? 0 : s_write + 1;
    }
    /* Every copy issued was for a tile this block then waited for: none is left in flight. */
}

/* ---- Optimized: one thread hands each tile to the TMA. ---- */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

static __device__ __forceinline__ void tma_pipeline_mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* Makes the mbarrier.init's visible to the other threads and to the async proxy (with the
 * __syncthreads that follows). */
static __device__ __forceinline__ void tma_pipeline_fence_mbar_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* One arrival, and `bytes` more expected from complete_tx before the phase can complete. */
static __device__ __forceinline__ void tma_pipeline_mbar_arrive_expect_tx(uint32_t bar,
                                                                          uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* Returns once the phase with this parity has completed (acquire: the TMA's writes to the stage
 * are then visible). The "memory" clobber keeps the compiler from hoisting the stage's reads. */
static __device__ __forceinline__ void tma_pipeline_mbar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    do {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* The box whose first element is bordered-image (x, y) = (column, row), both >= 0 (parts past
 * the right or bottom edge are zero-filled), into shared memory at dst; completion is reported
 * to the mbarrier bar. */
static __device__ __forceinline__ void tma_pipeline_load_box(uint32_t dst, const CUtensorMap *map,
                                                             int x, int y, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}

/* The producer's step: tile t into stage s, expecting the whole box's bytes. */
static __device__ __forceinline__ void tma_pipeline_issue(const CUtensorMap *map, uint32_t stages,
                                                          uint32_t full, int s, int t, int tiles_x)
{
    int r0, c0;
    tma_pipeline_tile_origin(t, tiles_x, &r0, &c0);
    tma_pipeline_mbar_arrive_expect_tx(full + 8u * s, TP_BOX_BYTES);
    /* Bordered (c0, r0) is image (c0 - R, r0 - R): the box's first row and column are halo. */
    tma_pipeline_load_box(stages + (uint32_t)s * TP_STAGE_BYTES, map, c0, r0, full + 8u * s);
}

#endif /* __CUDA_ARCH__ >= 900 */

static __global__ void __launch_bounds__(TP_THREADS, TMA_PIPELINE_BLOCKS_PER_SM)
    tma_pipeline_optimized_kernel(const __grid_constant__ CUtensorMap map, float *__restrict__ out,
                                  int rows, int cols, int tiles_x, int n_tiles)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) unsigned char tma_pipeline_smem[];
    __shared__ __align__(8) uint64_t full_bar[TP_STAGES];
    const uint32_t raw = tma_pipeline_smem_u32(tma_pipeline_smem);
    const uint32_t stages = (raw + 127u) & ~127u; /* TMA destinations: 128-byte aligned */
    const float *stage0 = (const float *)(tma_pipeline_smem + (stages - raw));
    const uint32_t full = tma_pipeline_smem_u32(full_bar);
    const bool producer = threadIdx.x == 0;
    const int step = gridDim.x;

    if (producer) {
#if TMA_PIPELINE_PREFETCH
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)&map) : "memory");
#endif
        for (int s = 0; s < TP_STAGES; s++)
            tma_pipeline_mbar_init(full + 8u * s, 1);
        tma_pipeline_fence_mbar_init();
    }
    __syncthreads();
    if (producer)
        for (int s = 0; s < TP_STAGES; s++) {
            const int t = blockIdx.x + s * step;
            if (t < n_tiles)
                tma_pipeline_issue(&map, stages, full, s, t, tiles_x);
        }

    int s = 0;
    uint32_t phase = 0;
    for (int t = blockIdx.x; t < n_tiles; t += step) {
        tma_pipeline_mbar_wait(full + 8u * s, phase);
        int r0, c0;
        tma_pipeline_tile_origin(t, tiles_x, &r0, &c0);
        /* Shared column 0 holds image column c0 - R. */
        tma_pipeline_compute_tile<TP_BOX_W>(stage0 + s * (TP_STAGE_BYTES / 4) +
                                                (threadIdx.x / TP_TILE_W) * TP_V * TP_BOX_W +
                                                threadIdx.x % TP_TILE_W,
                                            out, r0, c0, rows, cols);
        __syncthreads(); /* every thread is done reading stage s: it may be refilled */
        const int t_next = t + TP_STAGES * step;
        if (producer && t_next < n_tiles)
            tma_pipeline_issue(&map, stages, full, s, t_next, tiles_x);
        if (++s == TP_STAGES) {
            s = 0;
            phase ^= 1u;
        }
    }
    /* Every box issued was for a tile this block then waited for: none is left in flight. */
#else
    __trap(); /* sm_90 only; the harness never launches it below compute capability 9.0 */
#endif
}

/* ---- Setup: the trusted reference, and the launchers. ---- */

/* The trusted reference: one thread per output, plain loads, fp64 accumulation. It reads only
 * image pixels (never the pad), so it does not share the kernels' assumptions. */
static __global__ void tma_pipeline_reference_kernel(const float *__restrict__ in,
                                                     float *__restrict__ ref, int rows, int cols,
                                                     int pitch)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const int r = (int)(i / cols), c = (int)(i % cols);
        double acc = 0.0;
        for (int dr = -TP_R; dr <= TP_R; dr++)
            for (int dc = -TP_R; dc <= TP_R; dc++) {
                const int rr = r + dr, cc = c + dc;
                if (rr >= 0 && rr < rows && cc >= 0 && cc < cols)
                    acc += (double)tma_pipeline_w[dr + TP_R][dc + TP_R] *
                           (double)in[(size_t)rr * pitch + cc];
            }
        ref[i] = (float)acc;
    }
}

/* The persistent grid of `kernel`: blocks_per_sm blocks per SM (0: TMA_PIPELINE_BLOCKS_PER_SM,
 * the default both variants run), no more blocks than tiles. Opts the kernel in to smem_bytes of
 * dynamic shared memory first (above 48 KB a kernel must; a host-side attribute, no sync). */
static cudaError_t tma_pipeline_grid(const void *kernel, int smem_bytes, int rows, int cols,
                                     int blocks_per_sm, int *tiles_x, int *n_tiles, int *blocks)
{
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
    if (e != cudaSuccess)
        return e;
    *tiles_x = (cols + TP_TILE_W - 1) / TP_TILE_W;
    *n_tiles = *tiles_x * ((rows + TP_TILE_H - 1) / TP_TILE_H);
    const long long want =
        (long long)sms * (blocks_per_sm > 0 ? blocks_per_sm : TMA_PIPELINE_BLOCKS_PER_SM);
    *blocks = (long long)*n_tiles < want ? *n_tiles : (int)want;
    return cudaSuccess;
}

/* The blocks per SM that the baseline (variant 0) or optimized (1) kernel fits, as built. */
extern "C" cudaError_t tma_pipeline_max_blocks_per_sm(int variant, int *blocks_per_sm)
{
    const void *k = variant == 0 ? (const void *)tma_pipeline_baseline_kernel
                                 : (const void *)tma_pipeline_optimized_kernel;
    const int smem = variant == 0 ? TP_CP_SMEM_BYTES : TP_SMEM_BYTES;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess)
        return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, TP_THREADS, smem);
}

/* in: rows x pitch floats (pitch % 4 == 0, pad zero, 16-byte aligned base); out: rows x cols;
 * rows, cols >= 1 and small enough that the tile count fits an int (the bench file limits both to
 * 2^30). blocks_per_sm: 0 for the default (see tma_pipeline_grid). */
extern "C" cudaError_t tma_pipeline_baseline(const float *in, float *out, int rows, int cols,
                                             int pitch, int blocks_per_sm, cudaStream_t stream)
{
    int tiles_x, n_tiles, blocks;
    cudaError_t e = tma_pipeline_grid((const void *)tma_pipeline_baseline_kernel, TP_CP_SMEM_BYTES,
                                      rows, cols, blocks_per_sm, &tiles_x, &n_tiles, &blocks);
    if (e != cudaSuccess)
        return e;
    tma_pipeline_baseline_kernel<<<blocks, TP_THREADS, TP_CP_SMEM_BYTES, stream>>>(
        in, out, rows, cols, pitch, tiles_x, n_tiles);
    return cudaGetLastError();
}

/* map: from tma_pipeline_encode_map; out: rows x cols. */
extern "C" cudaError_t tma_pipeline_optimized(const CUtensorMap *map, float *out, int rows,
                                              int cols, int blocks_per_sm, cudaStream_t stream)
{
    int tiles_x, n_tiles, blocks;
    cudaError_t e = tma_pipeline_grid((const void *)tma_pipeline_optimized_kernel, TP_SMEM_BYTES,
                                      rows, cols, blocks_per_sm, &tiles_x, &n_tiles, &blocks);
    if (e != cudaSuccess)
        return e;
    tma_pipeline_optimized_kernel<<<blocks, TP_THREADS, TP_SMEM_BYTES, stream>>>(
        *map, out, rows, cols, tiles_x, n_tiles);
    return cudaGetLastError();
}

extern "C" cudaError_t tma_pipeline_reference(const float *in, float *ref, int rows, int cols,
                                              int pitch, cudaStream_t stream)
{
    size_t n = (size_t)rows * cols, blocks = (n + 255) / 256;
    if (blocks > 4096)
        blocks = 4096; /* the kernel strides over the rest */
    tma_pipeline_reference_kernel<<<(unsigned)blocks, 256, 0, stream>>>(in, ref, rows, cols, pitch);
    return cudaGetLastError();
}

/* The stencil as the kernels see it: *radius = R and w[(2R+1)^2] (row-major, w[(dr + R) (2R+1)
 * + dc + R]); w must hold 81 floats (R <= 4). Host only: the CPU reference uses it, so every
 * copy of the weights comes from this one table. */
extern "C" cudaError_t tma_pipeline_weights(int *radius, float *w)
{
    *radius = TP_R;
    for (int i = 0; i < TP_TAPS; i++)
        for (int j = 0; j < TP_TAPS; j++)
            w[i * TP_TAPS + j] = tma_pipeline_host_w[i][j];
    return cudaSuccess;
}

/* The halo width R: the border the zero-bordered image needs on each side. */
extern "C" int tma_pipeline_halo(void)
{
    return TP_R;
}

/* Encodes the tensor map of the pitched image `in` (rows x pitch floats, rows x cols of them the
 * image) with the box this kernel loads. Host side, in setup; map must be 64-byte aligned
 * (CUtensorMap is declared 128-byte aligned). */
extern "C" cudaError_t tma_pipeline_encode_map(CUtensorMap *map, const float *in, int rows,
                                               int cols, int pitch)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                     cudaEnableDefault, &found);
    if (e != cudaSuccess)
        return e;
    if (found != cudaDriverEntryPointSuccess || fn == NULL)
        return cudaErrorNotSupported;
    PFN_cuTensorMapEncodeTiled_v12000 encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};   /* innermost first */
    const cuuint64_t strides[1] = {(cuuint64_t)pitch * sizeof(float)}; /* bytes, dims 1.. */
    const cuuint32_t box[2] = {TP_BOX_W, TP_BOX_H};
    const cuuint32_t element_strides[2] = {1, 1};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)in, dims, strides, box,
                        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/* The kernels each variant launches, as launched (harness/kit/kernel_info.h); the reference kernel
 * runs in setup only. */
extern "C" const rb_kernel_info tma_pipeline_kernels[] = {
    {"baseline", "tma_pipeline_baseline_kernel", (const void *)tma_pipeline_baseline_kernel,
     TP_THREADS, TP_CP_SMEM_BYTES},
    {"optimized", "tma_pipeline_optimized_kernel", (const void *)tma_pipeline_optimized_kernel,
     TP_THREADS, TP_SMEM_BYTES},
    {}};
