/* SPDX-License-Identifier: MIT */
/*
 * sgemm: fp32 C = A B on the CUDA cores, a ladder of six kernels from the textbook first attempt
 * to a register- and warp-tiled, double-buffered kernel, against cuBLAS SGEMM.
 *
 * What: C = A B, row-major fp32: A is M x K, B is K x N, C is M x N, fp32 accumulation (FFMA).
 *   Any M, N, K >= 1: what a kernel's tiles hold beyond the matrices is zeros (or, in the
 *   optimized kernel, copies of the last row or column, feeding only outputs that are dropped),
 *   and only elements inside C are stored, so no size has to be a multiple of a tile. Shape
 *   (bench/sgemm.c): --size n gives M = N = K = floor(sqrt(n)) (n = 2^24: 4096^3); --size RxC
 *   gives M = R, N = C and K = N (999x1021: K = 1021, a K that is not a multiple of 4 or of any
 *   tile, so the scalar edge paths are exercised too).
 *
 * Work: flops = 2 M N K (M N outputs, each K multiply-adds); compulsory bytes = 4 (M K + K N +
 *   M N): A and B read once, C written once (beta = 0: C is not read). At 4096^3: 137.4 GFLOP
 *   over 201 MB, AI = 683 flop/byte, far right of the fp32 ridge (~60 TFLOP/s / ~3 TB/s = 20):
 *   compute-bound. The roof is FFMA issue: an SM has 4 schedulers, each issuing one warp
 *   instruction per clock and 32 FP32 lanes, so 128 FMAs (256 flops) per clock when every issue
 *   slot is an FFMA. Every kernel below is a story about what else eats issue slots or stalls:
 *   memory instructions and their wavefronts (a wavefront = one 128-byte pass of the L1 or
 *   shared-memory data path, one per clock per SM), address arithmetic, barriers.
 *
 * Baseline (sgemm_baseline_kernel): one thread per output, a 32 x 32 block, threadIdx.x mapped
 *   to the row of C, as a first attempt often does (x is "the first coordinate", and rows come
 *   first). The 32 lanes of a warp then own 32 consecutive rows of one column: each A load is 32
 *   addresses K * 4 bytes apart (32 sectors, 32 L1 wavefronts for one instruction), the B load
 *   is one address for all lanes, and the stores of C are 32 scattered words. The L1 catches
 *   most of A (the block's 32 warps share the same 32 rows), so the kernel is bound by L1
 *   wavefronts: ~32 clocks of the L1 per warp FFMA, 64 flops per 32 clocks per SM.
 *
 * Step coalesced: the same kernel with threadIdx.x mapped to the column. Now a warp's B load is
 *   one 128-byte line (1 wavefront), its A load one broadcast word (1 wavefront) and its C
 *   store one line. Two global loads per FFMA remain: the L1 data path (2 wavefronts per FFMA)
 *   and the load/store unit's issue bound it, not the FP32 lanes.
 *
 * Step smem_tiled: the block stages a 32 x 32 tile of A and of B in shared memory (each thread
 *   loads one element of each, coalesced), synchronizes, and every thread runs 32 FMAs from
 *   shared memory. Global traffic per FMA falls 32x; the inner loop reads As[ty][p] (the same
 *   word for the whole warp: a broadcast, which the compiler also merges into 16-byte LDS.128
 *   over p) and Bs[p][tx] (32 consecutive words: one wavefront). Still about 1.25 shared-memory
 *   wavefronts and 1.25 load instructions per FFMA: bound by the shared-memory pipe.
 *
 * Step reg_1d: register blocking in one dimension. A 64 x 64 block tile (BK = 8), 512 threads,
 *   each computing 8 outputs down one column: per k it loads one B value into a register and
 *   reuses it for 8 FMAs with 8 A values (broadcasts, merged into LDS.128 over k): 2.7 FMAs
 *   per shared-memory load instruction instead of 0.8.
 *
 * Step reg_2d_vec4: register blocking in two dimensions plus 16-byte accesses. A 128 x 128 block
 *   tile (BK = 8), 256 threads (16 x 16), each computing an 8 x 8 micro-tile: per k it loads 8
 *   A values and 8 B values (four LDS.128) and does 64 FMAs with them. Global loads are float4
 *   (one of A and one of B per thread per tile); A is stored transposed in shared memory (As[p][r])
 *   so that a thread's 8 A values of one k are contiguous and load as two LDS.128. What is left:
 *   a warp's 16 B fragments land on 4 bank groups only (16-byte pieces 32 bytes apart: a 2x
 *   shared-memory bank conflict, 4 wavefronts where 2 would do), the transposed A stores collide
 *   2-way, and each tile costs two barriers with the global-load latency exposed between them
 *   (load, barrier, compute, barrier: nothing overlaps the loads but other resident blocks).
 *
 * Optimized (sgemm_optimized_kernel): keep the FP32 lanes fed. Block tile SGEMM_BM x SGEMM_BN
 *   (128 x 128), BK = 8, 256 threads; warp tile SGEMM_WM x SGEMM_WN (64 x 32, 2 x 4 warps); a
 *   warp's 32 lanes form an 8 x 4 grid and each lane computes an 8 x 8 micro-tile made of 2 x 2
 *   sub-tiles of 4 x 4 spaced 32 rows and 16 columns apart. Consequences:
 *   - fragment loads are conflict-free broadcasts: for one k the warp's A reads are 8 distinct
 *     16-byte pieces, contiguous (128 bytes, 1 wavefront), its B reads 4 distinct pieces (64
 *     bytes, 1 wavefront): 4 LDS.128 and 4 wavefronts per 64 FFMA (reg_2d_vec4: 10 wavefronts);
 *   - A's shared tile rows are padded by 4 floats (SGEMM_BM + 4), so the transposed stores of a
 *     warp (16 rows x 2 k-groups) spread over all 32 banks, and rows stay 16-byte aligned;
 *   - double-buffered shared memory with register prefetch: at the top of tile t each thread
 *     issues the global loads of tile t + 1 into registers, computes tile t from one shared
 *     buffer, then stores the registers into the other buffer: one barrier per tile, and the
 *     global latency hides behind BK x 64 FMAs;
 *   - the fragments of step k + 1 are loaded from shared memory while step k's FMAs run (two
 *     register sets), so the LDS latency hides too;
 *   - edges cost nothing in the main loop: rows of A past M and columns of B past N are clamped
 *     to the last row or column (they only feed outputs that are never stored), the loop runs
 *     over the tiles wholly inside K, and a last partial tile (K % BK != 0) is handled once
 *     after it with checked loads; the global pointers advance by a constant per tile;
 *   - the tile loop is unrolled by two, so that the two shared buffers have constant addresses;
 *   - __launch_bounds__(256, 2): at most 128 registers, so two blocks (16 warps) share an SM.
 *   Per thread per tile: 512 FFMA, 32 LDS.128, 2 LDG.128, 4 STS + 1 STS.128, one barrier and
 *   ~20 other instructions: 90% of the main loop's instructions are FFMA (cuobjdump, sm_90).
 *   16-byte global loads need rows that start 16-byte aligned: K % 4 == 0 and N % 4 == 0 (the
 *   VEC = true instantiation, all the sizes we time); other shapes run VEC = false, four checked
 *   scalar loads per float4 (it needs ~150 registers, so it asks for one block per SM).
 *   Tunables (-D, see below): SGEMM_BM, SGEMM_BN, SGEMM_BK, SGEMM_WM, SGEMM_WN,
 *   SGEMM_MIN_BLOCKS; the lane grid is fixed at 8 x 4, so the micro-tile is (WM / 8) x (WN / 4).
 *
 * Library: cublasSgemm with CUBLAS_DEFAULT_MATH (bench/sgemm.c says how TF32 stays off).
 *
 * Reference: cublasDgemm on fp64 copies of the inputs (exact widening), rounded to fp32,
 *   cross-checked on the CPU (double) for every row when M N K <= 2^27, else rows 0, M/2 and
 *   M - 1 (bench/sgemm.c).
 *
 * Predicted (H100 SXM, before measuring). Sustained GEMMs run power-capped on our H100 (SM clock
 *   seen 1440-1575 MHz, gemm_epilogue's header), where the FFMA peak is 132 x 256 x ~1.5 GHz
 *   ~ 51 TFLOP/s; cuBLAS SGEMM ~45-55 TFLOP/s (GPU.md: 51.2 at 8192^3). The share of FFMA among
 *   the instructions of each kernel's inner loop (cuobjdump -sass, sm_90) is an upper bound on
 *   its share of the FFMA peak: baseline and coalesced 18%, smem_tiled 31%, reg_1d 53%,
 *   reg_2d_vec4 83%, optimized 90%. The ratios of the same ladder reported for an RTX A6000
 *   (siboehm's SGEMM worklog: naive 1.3%, coalesced 8.5%, shared memory 12.8%, 1D tiling 36%,
 *   2D + float4 78%, warp tiling 94% of cuBLAS) are a sanity check for the numbers below, each
 *   derived from the bound named in its paragraph above:
 *     baseline     ~0.4 TFLOP/s: 64 flops per ~32 L1 clocks per SM = 2 flops/clk x 132 SMs x
 *                  ~1.6 GHz = 0.42 (the A6000 figure, 0.31, is that same bound for 84 SMs);
 *     coalesced    ~3 TFLOP/s: 2 L1 wavefronts per FFMA bound it at 32 flops/clk/SM = ~7,
 *                  and such kernels reach ~40% of that bound (A6000: 2.0 of 4.8);
 *     smem_tiled   ~5 TFLOP/s: 1.25 shared wavefronts per FFMA: bound ~11, ~40-45% of it;
 *     reg_1d       ~15-20 TFLOP/s: 24 shared wavefronts and 53% FFMA per 64 FMAs, two barriers
 *                  per 8-deep tile in 512-thread blocks;
 *     reg_2d_vec4  ~30-38 TFLOP/s: 83% FFMA, but 10 shared wavefronts per 64 FFMA (the bank
 *                  conflicts), two barriers per tile and global latency exposed within a block
 *                  (two blocks per SM overlap each other's);
 *     optimized    ~43-48 TFLOP/s, 0.85-0.95x cuBLAS: 90% FFMA, latencies hidden;
 *     library      ~45-52 TFLOP/s.
 *   The acceptance test for the measurement: optimized >= 0.85x library at 4096^3, and every step
 *   faster than the one before it. Only the optimized kernel is expected near the roof; the
 *   others are bound by the pipes named above, not by DRAM (A and B are 128 MB at 4096^3 and are
 *   re-read mostly from L2: each 128 x 128 block reads 4 MB of A and B panels, 4.3 GB in all,
 *   ~1.5 TB/s from L2 at 45 TFLOP/s, well under its bandwidth).
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"
#include "kernels/sgemm.h"

/* ---- Tunables. Steps are fixed (they show one idea each); the optimized kernel's tile
 * shape can be swept with -D (NVCCFLAGS=-DSGEMM_BK=16 ...). ---- */

/* baseline, coalesced and smem_tiled: a TILE x TILE block of threads, one output each. */
#define SGEMM_TILE 32
/* reg_1d: R1_BM x R1_BN block tile, R1_BK deep, R1_TM outputs per thread down a column. */
#define SGEMM_R1_BM 64
#define SGEMM_R1_BN 64
#define SGEMM_R1_BK 8
#define SGEMM_R1_TM 8
#define SGEMM_R1_THREADS (SGEMM_R1_BM * SGEMM_R1_BN / SGEMM_R1_TM)
/* reg_2d_vec4: R2_BM x R2_BN block tile, R2_BK deep, R2_T x R2_T outputs per thread. */
#define SGEMM_R2_BM 128
#define SGEMM_R2_BN 128
#define SGEMM_R2_BK 8
#define SGEMM_R2_T 8
#define SGEMM_R2_THREADS (SGEMM_R2_BM / SGEMM_R2_T * (SGEMM_R2_BN / SGEMM_R2_T))

/* optimized: block tile, depth, warp tile, and the minimum resident blocks per SM that
 * __launch_bounds__ asks for (2: at most 128 registers per thread at 256 threads). */
#ifndef SGEMM_BM
#define SGEMM_BM 128
#endif
#ifndef SGEMM_BN
#define SGEMM_BN 128
#endif
#ifndef SGEMM_BK
#define SGEMM_BK 8
#endif
#ifndef SGEMM_WM
#define SGEMM_WM 64
#endif
#ifndef SGEMM_WN
#define SGEMM_WN 32
#endif
#ifndef SGEMM_MIN_BLOCKS
#define SGEMM_MIN_BLOCKS 2
#endif

/* A warp's lanes form an 8 x 4 grid (rows x columns of C); each lane owns TM x TN outputs in
 * 4 x 4 sub-tiles, LANES_M * 4 rows and LANES_N * 4 columns apart. */
#define SGEMM_LANES_M 8
#define SGEMM_LANES_N 4
#define SGEMM_TM (SGEMM_WM / SGEMM_LANES_M)
#define SGEMM_TN (SGEMM_WN / SGEMM_LANES_N)
#define SGEMM_WARPS_N (SGEMM_BN / SGEMM_WN)
#define SGEMM_THREADS (SGEMM_BM / SGEMM_WM * SGEMM_WARPS_N * 32)
/* float4 loads per thread per tile, and the rows (of A) or k-rows (of B) between them. */
#define SGEMM_A_LOADS (SGEMM_BM * SGEMM_BK / 4 / SGEMM_THREADS)
#define SGEMM_B_LOADS (SGEMM_BK * SGEMM_BN / 4 / SGEMM_THREADS)
#define SGEMM_A_ROW_STEP (SGEMM_THREADS / (SGEMM_BK / 4))
#define SGEMM_B_ROW_STEP (SGEMM_THREADS / (SGEMM_BN / 4))
/* Row length of the transposed A tile: +4 floats spreads a warp's transposed stores over all
 * banks and keeps every row 16-byte aligned. */
#define SGEMM_AS_LD (SGEMM_BM + 4)
#define SGEMM_SMEM_BYTES (2 * SGEMM_BK * (SGEMM_AS_LD + SGEMM_BN) * 4)

static_assert(SGEMM_R1_BM * SGEMM_R1_BK == SGEMM_R1_THREADS, "reg_1d: one A element per thread");
static_assert(SGEMM_R1_BK * SGEMM_R1_BN == SGEMM_R1_THREADS, "reg_1d: one B element per thread");
static_assert(SGEMM_R2_BM * SGEMM_R2_BK / 4 == SGEMM_R2_THREADS, "reg_2d: one A float4 per thread");
static_assert(SGEMM_R2_BK * SGEMM_R2_BN / 4 == SGEMM_R2_THREADS, "reg_2d: one B float4 per thread");
static_assert(SGEMM_TM % 4 == 0 && SGEMM_TN % 4 == 0, "micro-tiles are made of 4 x 4 sub-tiles");
static_assert(SGEMM_BM % SGEMM_WM == 0 && SGEMM_BN % SGEMM_WN == 0, "warps tile the block");
static_assert(SGEMM_THREADS <= 1024, "at most 1024 threads per block");
static_assert(SGEMM_BK % 4 == 0, "A is loaded in float4 pieces along k");
static_assert(SGEMM_A_LOADS >= 1 && SGEMM_A_LOADS * SGEMM_THREADS * 4 == SGEMM_BM * SGEMM_BK &&
                  SGEMM_THREADS % (SGEMM_BK / 4) == 0,
              "the threads load the A tile in whole float4 rounds");
static_assert(SGEMM_B_LOADS >= 1 && SGEMM_B_LOADS * SGEMM_THREADS * 4 == SGEMM_BK * SGEMM_BN &&
                  SGEMM_THREADS % (SGEMM_BN / 4) == 0,
              "the threads load the B tile in whole float4 rounds");
static_assert(SGEMM_SMEM_BYTES <= 48 * 1024, "static shared memory is limited to 48 KB");

/* ---- Baseline: one thread per output, lanes down a column (uncoalesced). ---- */

static __global__ void __launch_bounds__(SGEMM_TILE *SGEMM_TILE)
    sgemm_baseline_kernel(const float *__restrict__ a, const float *__restrict__ b,
                          float *__restrict__ c, int m, int n, int k)
{
    /* x, the index that varies fastest within a warp, walks the rows of C. */
    int row = blockIdx.x * SGEMM_TILE + threadIdx.x;
    int col = blockIdx.y * SGEMM_TILE + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int p = 0; p < k; p++)
        acc += a[(size_t)row * k + p] * b[(size_t)p * n + col];
    c[(size_t)row * n + col] = acc;
}

/* ---- Step coalesced: the same, lanes along a row (one idea: x walks the columns). ---- */

static __global__ void __launch_bounds__(SGEMM_TILE *SGEMM_TILE)
    sgemm_coalesced_kernel(const float *__restrict__ a, const float *__restrict__ b,
                           float *__restrict__ c, int m, int n, int k)
{
    int col = blockIdx.x * SGEMM_TILE + threadIdx.x;
    int row = blockIdx.y * SGEMM_TILE + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int p = 0; p < k; p++)
        acc += a[(size_t)row * k + p] * b[(size_t)p * n + col];
    c[(size_t)row * n + col] = acc;
}

/* ---- Step smem_tiled: TILE x TILE tiles of A and B staged in shared memory (one idea: each
 * element loaded from global memory once per block instead of once per thread). ---- */

static __global__ void __launch_bounds__(SGEMM_TILE *SGEMM_TILE)
    sgemm_smem_tiled_kernel(const float *__restrict__ a, const float *__restrict__ b,
                            float *__restrict__ c, int m, int n, int k)
{
    __shared__ __align__(16) float as[SGEMM_TILE][SGEMM_TILE]; /* as[r][p] */
    __shared__ __align__(16) float bs[SGEMM_TILE][SGEMM_TILE]; /* bs[p][c] */
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * SGEMM_TILE + tx;
    int row = blockIdx.y * SGEMM_TILE + ty;
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += SGEMM_TILE) {
        /* Zeros outside the matrices add nothing to the sums. */
        as[ty][tx] = row < m && p0 + tx < k ? a[(size_t)row * k + p0 + tx] : 0.0f;
        bs[ty][tx] = p0 + ty < k && col < n ? b[(size_t)(p0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < SGEMM_TILE; p++)
            acc += as[ty][p] * bs[p][tx];
        __syncthreads(); /* before the next tile overwrites what others may still read */
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = acc;
}

/* ---- Step reg_1d: each thread computes R1_TM outputs of one column (one idea: a B value
 * loaded into a register once serves R1_TM FMAs). ---- */

static __global__ void __launch_bounds__(SGEMM_R1_THREADS)
    sgemm_reg_1d_kernel(const float *__restrict__ a, const float *__restrict__ b,
                        float *__restrict__ c, int m, int n, int k)
{
    __shared__ __align__(16) float as[SGEMM_R1_BM][SGEMM_R1_BK]; /* as[r][p] */
    __shared__ __align__(16) float bs[SGEMM_R1_BK][SGEMM_R1_BN]; /* bs[p][c] */
    int tid = threadIdx.x;
    int m0 = blockIdx.y * SGEMM_R1_BM, n0 = blockIdx.x * SGEMM_R1_BN;
    /* This thread's outputs: rows trow * TM .. + TM - 1 of the tile, column tcol. A warp is 32
     * consecutive columns of one row group: coalesced stores, broadcast A reads. */
    int tcol = tid % SGEMM_R1_BN, trow = tid / SGEMM_R1_BN;
    /* The element of each tile this thread loads. */
    int ar = tid / SGEMM_R1_BK, ap = tid % SGEMM_R1_BK;
    int bp = tid / SGEMM_R1_BN, bc = tid % SGEMM_R1_BN;
    float acc[SGEMM_R1_TM];
#pragma unroll
    for (int i = 0; i < SGEMM_R1_TM; i++)
        acc[i] = 0.0f;
    for (int p0 = 0; p0 < k; p0 += SGEMM_R1_BK) {
        int ga = m0 + ar, gb = n0 + bc;
        as[ar][ap] = ga < m && p0 + ap < k ? a[(size_t)ga * k + p0 + ap] : 0.0f;
        bs[bp][bc] = p0 + bp < k && gb < n ? b[(size_t)(p0 + bp) * n + gb] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < SGEMM_R1_BK; p++) {
            float bv = bs[p][tcol];
#pragma unroll
            for (int i = 0; i < SGEMM_R1_TM; i++)
                acc[i] += as[trow * SGEMM_R1_TM + i][p] * bv;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < SGEMM_R1_TM; i++) {
        int row = m0 + trow * SGEMM_R1_TM + i, col = n0 + tcol;
        if (row < m && col < n)
            c[(size_t)row * n + col] = acc[i];
    }
}

/* ---- 16-byte global accesses with zero-filled edges (reg_2d_vec4 and optimized). ---- */

/* x[r][c .. c + 3] of a row-major rows x cols matrix, zeros outside it; c % 4 == 0. vec:
 * cols % 4 == 0 and x is 16-byte aligned, so the four floats are one aligned float4 that lies
 * entirely inside or entirely outside the row; otherwise four checked scalar loads. */
static __device__ __forceinline__ float4 sgemm_load4(const float *__restrict__ x, int rows,
                                                     int cols, int r, int c, bool vec)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows || c >= cols)
        return v;
    const float *src = x + (size_t)r * cols + c;
    if (vec)
        return *(const float4 *)src;
    v.x = src[0];
    if (c + 1 < cols)
        v.y = src[1];
    if (c + 2 < cols)
        v.z = src[2];
    if (c + 3 < cols)
        v.w = src[3];
    return v;
}

/* Stores the parts of v that fall inside x (same conventions as sgemm_load4). */
static __device__ __forceinline__ void sgemm_store4(float *__restrict__ x, int rows, int cols,
                                                    int r, int c, float4 v, bool vec)
{
    if (r >= rows || c >= cols)
        return;
    float *dst = x + (size_t)r * cols + c;
    if (vec) {
        *(float4 *)dst = v;
        return;
    }
    dst[0] = v.x;
    if (c + 1 < cols)
        dst[1] = v.y;
    if (c + 2 < cols)
        dst[2] = v.z;
    if (c + 3 < cols)
        dst[3] = v.w;
}

/* ---- Step reg_2d_vec4: an R2_T x R2_T micro-tile per thread, float4 global loads, A stored
 * transposed so that fragments load as LDS.128 (one idea: each value loaded from shared memory
 * serves R2_T FMAs in both dimensions). ---- */

static __global__ void __launch_bounds__(SGEMM_R2_THREADS)
    sgemm_reg_2d_vec4_kernel(const float *__restrict__ a, const float *__restrict__ b,
                             float *__restrict__ c, int m, int n, int k)
{
    __shared__ __align__(16) float as[SGEMM_R2_BK][SGEMM_R2_BM]; /* transposed: as[p][r] */
    __shared__ __align__(16) float bs[SGEMM_R2_BK][SGEMM_R2_BN]; /* bs[p][c] */
    int tid = threadIdx.x;
    int m0 = blockIdx.y * SGEMM_R2_BM, n0 = blockIdx.x * SGEMM_R2_BN;
    /* Threads form a 16 x 16 grid; thread (tr, tc) owns rows tr * 8 .., columns tc * 8 ... */
    int tr = tid / (SGEMM_R2_BN / SGEMM_R2_T), tc = tid % (SGEMM_R2_BN / SGEMM_R2_T);
    /* The float4 of each tile this thread loads: A along k, B along a row. */
    int ar = tid / (SGEMM_R2_BK / 4), ap = tid % (SGEMM_R2_BK / 4) * 4;
    int bp = tid / (SGEMM_R2_BN / 4), bc = tid % (SGEMM_R2_BN / 4) * 4;
    bool a_vec = k % 4 == 0, b_vec = n % 4 == 0;
    float acc[SGEMM_R2_T][SGEMM_R2_T];
#pragma unroll
    for (int i = 0; i < SGEMM_R2_T; i++)
#pragma unroll
        for (int j = 0; j < SGEMM_R2_T; j++)
            acc[i][j] = 0.0f;
    for (int p0 = 0; p0 < k; p0 += SGEMM_R2_BK) {
        float4 av = sgemm_load4(a, m, k, m0 + ar, p0 + ap, a_vec);
        float4 bv = sgemm_load4(b, k, n, p0 + bp, n0 + bc, b_vec);
        as[ap + 0][ar] = av.x;
        as[ap + 1][ar] = av.y;
        as[ap + 2][ar] = av.z;
        as[ap + 3][ar] = av.w;
        *(float4 *)&bs[bp][bc] = bv;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < SGEMM_R2_BK; p++) {
            float fa[SGEMM_R2_T], fb[SGEMM_R2_T];
#pragma unroll
            for (int q = 0; q < SGEMM_R2_T; q += 4) {
                float4 va = *(const float4 *)&as[p][tr * SGEMM_R2_T + q];
                float4 vb = *(const float4 *)&bs[p][tc * SGEMM_R2_T + q];
                fa[q] = va.x, fa[q + 1] = va.y, fa[q + 2] = va.z, fa[q + 3] = va.w;
                fb[q] = vb.x, fb[q + 1] = vb.y, fb[q + 2] = vb.z, fb[q + 3] = vb.w;
            }
#pragma unroll
            for (int i = 0; i < SGEMM_R2_T; i++)
#pragma unroll
                for (int j = 0; j < SGEMM_R2_T; j++)
                    acc[i][j] += fa[i] * fb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < SGEMM_R2_T; i++)
#pragma unroll
        for (int j = 0; j < SGEMM_R2_T; j += 4)
            sgemm_store4(c, m, n, m0 + tr * SGEMM_R2_T + i, n0 + tc * SGEMM_R2_T + j,
                         make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]),
                         b_vec);
}

/* ---- Optimized: warp tiling, double-buffered shared memory, register prefetch (one idea:
 * keep every issue slot an FFMA: conflict-free broadcast fragment loads, and global and shared
 * latencies hidden behind the math of the previous step). ---- */

/* A thread's global-load state. It loads, of each tile, the float4s of A in rows ar + l *
 * A_ROW_STEP at k offset ap, and of B in k-rows bp + l * B_ROW_STEP at column bc (b_col in C). */
typedef struct sgemm_loader {
    int ar, ap, bp, bc, b_col;
    const float *a_src[SGEMM_A_LOADS], *b_src[SGEMM_B_LOADS]; /* the next tile's float4s */
    float4 a_next[SGEMM_A_LOADS], b_next[SGEMM_B_LOADS];      /* a tile on its way to shared */
} sgemm_loader;

/* A thread's math state: its first row and column in the block tile, the fragments of steps p
 * (in use) and p + 1 (loading), and its TM x TN accumulators. */
typedef struct sgemm_math {
    int tm, tn;
    float fa[2][SGEMM_TM], fb[2][SGEMM_TN];
    float acc[SGEMM_TM][SGEMM_TN];
} sgemm_math;

/* Global -> registers: the thread's float4s of the tile that starts at k = p0; then a_src and
 * b_src step to the next tile. Edges cost no check in the main loop: rows of A past M (and,
 * when VEC, columns of B past N) were clamped to the last row or column when a_src and b_src
 * were set up, since the outputs they feed are never stored, and the main loop runs over the
 * tiles that lie wholly inside the k range; only a last PARTIAL tile checks k (elements past K
 * read as zeros). VEC: K % 4 == 0 and N % 4 == 0, so every float4 is one aligned 16-byte load,
 * entirely inside or outside the k range. Otherwise four scalar loads (B's columns past N read
 * as zeros). */
template <bool VEC, bool PARTIAL>
static __device__ __forceinline__ void sgemm_fetch(sgemm_loader *ld, int n, int k, int p0)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    int p = p0 + ld->ap, c = ld->b_col;
#pragma unroll
    for (int l = 0; l < SGEMM_A_LOADS; l++) {
        const float *s = ld->a_src[l];
        if (VEC)
            ld->a_next[l] = !PARTIAL || p < k ? *(const float4 *)s : zero;
        else
            ld->a_next[l] = make_float4(
                !PARTIAL || p < k ? s[0] : 0.0f, !PARTIAL || p + 1 < k ? s[1] : 0.0f,
                !PARTIAL || p + 2 < k ? s[2] : 0.0f, !PARTIAL || p + 3 < k ? s[3] : 0.0f);
        ld->a_src[l] += SGEMM_BK;
    }
#pragma unroll
    for (int l = 0; l < SGEMM_B_LOADS; l++) {
        const float *s = ld->b_src[l];
        bool in = !PARTIAL || p0 + ld->bp + l * SGEMM_B_ROW_STEP < k;
        if (VEC)
            ld->b_next[l] = in ? *(const float4 *)s : zero;
        else
            ld->b_next[l] =
                make_float4(in && c < n ? s[0] : 0.0f, in && c + 1 < n ? s[1] : 0.0f,
                            in && c + 2 < n ? s[2] : 0.0f, in && c + 3 < n ? s[3] : 0.0f);
        ld->b_src[l] += (size_t)SGEMM_BK * n;
    }
}

/* Registers -> one shared buffer: A transposed (as[p][r]), B as it is (bs[p][c]). */
static __device__ __forceinline__ void sgemm_stage(float (*as)[SGEMM_AS_LD], float (*bs)[SGEMM_BN],
                                                   const sgemm_loader *ld)
{
#pragma unroll
    for (int l = 0; l < SGEMM_A_LOADS; l++) {
        int r = ld->ar + l * SGEMM_A_ROW_STEP;
        as[ld->ap + 0][r] = ld->a_next[l].x;
        as[ld->ap + 1][r] = ld->a_next[l].y;
        as[ld->ap + 2][r] = ld->a_next[l].z;
        as[ld->ap + 3][r] = ld->a_next[l].w;
    }
#pragma unroll
    for (int l = 0; l < SGEMM_B_LOADS; l++)
        *(float4 *)&bs[ld->bp + l * SGEMM_B_ROW_STEP][ld->bc] = ld->b_next[l];
}

/* Shared -> registers: the thread's TM A values and TN B values of step p, into fragment set
 * f. Its 4 x 4 sub-tiles are LANES_M * 4 rows and LANES_N * 4 columns apart, so the warp's 32
 * lanes read 8 (A) and 4 (B) contiguous float4s: broadcasts, no bank conflicts. */
static __device__ __forceinline__ void sgemm_frags(const float (*as)[SGEMM_AS_LD],
                                                   const float (*bs)[SGEMM_BN], int p,
                                                   sgemm_math *mt, int f)
{
#pragma unroll
    for (int i = 0; i < SGEMM_TM / 4; i++) {
        float4 v = *(const float4 *)&as[p][mt->tm + i * SGEMM_LANES_M * 4];
        mt->fa[f][4 * i] = v.x, mt->fa[f][4 * i + 1] = v.y;
        mt->fa[f][4 * i + 2] = v.z, mt->fa[f][4 * i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < SGEMM_TN / 4; j++) {
        float4 v = *(const float4 *)&bs[p][mt->tn + j * SGEMM_LANES_N * 4];
        mt->fb[f][4 * j] = v.x, mt->fb[f][4 * j + 1] = v.y;
        mt->fb[f][4 * j + 2] = v.z, mt->fb[f][4 * j + 3] = v.w;
    }
}

/* Tile t of the main loop (over the `full` tiles wholly inside the k range): its BK steps from
 * the shared buffer (as, bs), while tile t + 1's global loads are in flight and, at the last
 * step, go into the other buffer (as_next, bs_next). The other buffer was last read during tile
 * t - 1, before the previous barrier, so it is free; one barrier per tile publishes it. The
 * caller alternates the two buffers, so that every shared-memory address here is a constant. */
template <bool VEC>
static __device__ __forceinline__ void
sgemm_tile(const float (*as)[SGEMM_AS_LD], const float (*bs)[SGEMM_BN],
           float (*as_next)[SGEMM_AS_LD], float (*bs_next)[SGEMM_BN], int t, int full, int n, int k,
           sgemm_loader *ld, sgemm_math *mt)
{
    const bool more = t + 1 < full; /* the same for the whole block */
    if (more)
        sgemm_fetch<VEC, false>(ld, n, k, (t + 1) * SGEMM_BK);
#pragma unroll
    for (int p = 0; p < SGEMM_BK; p++) {
        if (p + 1 < SGEMM_BK) {
            sgemm_frags(as, bs, p + 1, mt, (p + 1) % 2);
        } else if (more) {
            sgemm_stage(as_next, bs_next, ld);
            __syncthreads();
            sgemm_frags(as_next, bs_next, 0, mt, (p + 1) % 2);
        }
#pragma unroll
        for (int i = 0; i < SGEMM_TM; i++)
#pragma unroll
            for (int j = 0; j < SGEMM_TN; j++)
                mt->acc[i][j] += mt->fa[p % 2][i] * mt->fb[p % 2][j];
    }
}

/* VEC: see sgemm_fetch; the launcher picks the instantiation from K and N. The scalar one (odd
 * K or N only) needs more than 128 registers for its four-scalar loads: it asks for one block
 * per SM rather than spill. */
template <bool VEC>
static __global__ void __launch_bounds__(SGEMM_THREADS, VEC ? SGEMM_MIN_BLOCKS : 1)
    sgemm_optimized_kernel(const float *__restrict__ a, const float *__restrict__ b,
                           float *__restrict__ c, int m, int n, int k)
{
    __shared__ __align__(16) float as[2][SGEMM_BK][SGEMM_AS_LD]; /* transposed: as[.][p][r] */
    __shared__ __align__(16) float bs[2][SGEMM_BK][SGEMM_BN];    /* bs[.][p][c] */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int m0 = blockIdx.y * SGEMM_BM, n0 = blockIdx.x * SGEMM_BN;

    sgemm_math mt;
    /* The warp's tile, then the lane's place in the warp's 8 x 4 lane grid. */
    mt.tm = warp / SGEMM_WARPS_N * SGEMM_WM + lane / SGEMM_LANES_N * 4;
    mt.tn = warp % SGEMM_WARPS_N * SGEMM_WN + lane % SGEMM_LANES_N * 4;
#pragma unroll
    for (int i = 0; i < SGEMM_TM; i++)
#pragma unroll
        for (int j = 0; j < SGEMM_TN; j++)
            mt.acc[i][j] = 0.0f;

    sgemm_loader ld;
    ld.ar = tid / (SGEMM_BK / 4);
    ld.ap = tid % (SGEMM_BK / 4) * 4;
    ld.bp = tid / (SGEMM_BN / 4);
    ld.bc = tid % (SGEMM_BN / 4) * 4;
    ld.b_col = n0 + ld.bc;
    /* Tile 0's float4s, clamped as sgemm_fetch says. The pointers step past the ends of A and B
     * (k-rows of B past K, A after its last tile) but are never dereferenced there. */
#pragma unroll
    for (int l = 0; l < SGEMM_A_LOADS; l++)
        ld.a_src[l] = a + (size_t)min(m0 + ld.ar + l * SGEMM_A_ROW_STEP, m - 1) * k + ld.ap;
#pragma unroll
    for (int l = 0; l < SGEMM_B_LOADS; l++)
        ld.b_src[l] = b + (size_t)(ld.bp + l * SGEMM_B_ROW_STEP) * n +
                      (VEC ? min(ld.b_col, n - 4) : ld.b_col);

    const int full = k / SGEMM_BK; /* tiles wholly inside the k range */
    if (full > 0) {
        sgemm_fetch<VEC, false>(&ld, n, k, 0);
        sgemm_stage(as[0], bs[0], &ld);
        __syncthreads();
        sgemm_frags(as[0], bs[0], 0, &mt, 0);
    }
    for (int t = 0; t < full; t += 2) {
        sgemm_tile<VEC>(as[0], bs[0], as[1], bs[1], t, full, n, k, &ld, &mt);
        if (t + 1 < full)
            sgemm_tile<VEC>(as[1], bs[1], as[0], bs[0], t + 1, full, n, k, &ld, &mt);
    }
    if (k % SGEMM_BK != 0) {
        /* The partial last tile, not pipelined. Buffer full % 2 was last read in tile full - 2,
         * before that tile's closing barrier. */
        int buf = full % 2;
        sgemm_fetch<VEC, true>(&ld, n, k, full * SGEMM_BK);
        sgemm_stage(as[buf], bs[buf], &ld);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < SGEMM_BK; p++) {
            sgemm_frags(as[buf], bs[buf], p, &mt, 0);
#pragma unroll
            for (int i = 0; i < SGEMM_TM; i++)
#pragma unroll
                for (int j = 0; j < SGEMM_TN; j++)
                    mt.acc[i][j] += mt.fa[0][i] * mt.fb[0][j];
        }
    }

#pragma unroll
    for (int i = 0; i < SGEMM_TM; i++) {
        int row = m0 + mt.tm + i / 4 * SGEMM_LANES_M * 4 + i % 4;
#pragma unroll
        for (int j = 0; j < SGEMM_TN; j += 4)
            sgemm_store4(
                c, m, n, row, n0 + mt.tn + j / 4 * SGEMM_LANES_N * 4,
                make_float4(mt.acc[i][j], mt.acc[i][j + 1], mt.acc[i][j + 2], mt.acc[i][j + 3]),
                VEC);
    }
}

/* ---- Launchers: a, b, c 16-byte aligned (cudaMalloc), 1 <= m, n, k <= 2^20. ---- */

/* A grid of ceil(cols / bx) x ceil(rows / by) blocks; 0 when gridDim.y would pass 65535 or a
 * pointer is not 16-byte aligned (the float4 paths assume it). */
static int sgemm_grid(const float *a, const float *b, const float *c, int rows, int cols, int by,
                      int bx, dim3 *grid)
{
    unsigned gy = (unsigned)((rows + by - 1) / by), gx = (unsigned)((cols + bx - 1) / bx);
    if (rows < 1 || cols < 1 || gy > 65535u || ((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16)
        return 0;
    *grid = dim3(gx, gy);
    return 1;
}

extern "C" cudaError_t sgemm_baseline(const float *a, const float *b, float *c, int m, int n, int k,
                                      cudaStream_t stream)
{
    dim3 grid;
    /* Transposed grid: x over the rows of C, y over its columns. */
    if (!sgemm_grid(a, b, c, n, m, SGEMM_TILE, SGEMM_TILE, &grid))
        return cudaErrorInvalidConfiguration;
    sgemm_baseline_kernel<<<grid, dim3(SGEMM_TILE, SGEMM_TILE), 0, stream>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

extern "C" cudaError_t sgemm_coalesced(const float *a, const float *b, float *c, int m, int n,
                                       int k, cudaStream_t stream)
{
    dim3 grid;
    if (!sgemm_grid(a, b, c, m, n, SGEMM_TILE, SGEMM_TILE, &grid))
        return cudaErrorInvalidConfiguration;
    sgemm_coalesced_kernel<<<grid, dim3(SGEMM_TILE, SGEMM_TILE), 0, stream>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

extern "C" cudaError_t sgemm_smem_tiled(const float *a, const float *b, float *c, int m, int n,
                                        int k, cudaStream_t stream)
{
    dim3 grid;
    if (!sgemm_grid(a, b, c, m, n, SGEMM_TILE, SGEMM_TILE, &grid))
        return cudaErrorInvalidConfiguration;
    sgemm_smem_tiled_kernel<<<grid, dim3(SGEMM_TILE, SGEMM_TILE), 0, stream>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

extern "C" cudaError_t sgemm_reg_1d(const float *a, const float *b, float *c, int m, int n, int k,
                                    cudaStream_t stream)
{
    dim3 grid;
    if (!sgemm_grid(a, b, c, m, n, SGEMM_R1_BM, SGEMM_R1_BN, &grid))
        return cudaErrorInvalidConfiguration;
    sgemm_reg_1d_kernel<<<grid, SGEMM_R1_THREADS, 0, stream>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

extern "C" cudaError_t sgemm_reg_2d_vec4(const float *a, const float *b, float *c, int m, int n,
                                         int k, cudaStream_t stream)
{
    dim3 grid;
    if (!sgemm_grid(a, b, c, m, n, SGEMM_R2_BM, SGEMM_R2_BN, &grid))
        return cudaErrorInvalidConfiguration;
    sgemm_reg_2d_vec4_kernel<<<grid, SGEMM_R2_THREADS, 0, stream>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

extern "C" cudaError_t sgemm_optimized(const float *a, const float *b, float *c, int m, int n,
                                       int k, cudaStream_t stream)
{
    dim3 grid;
    if (!sgemm_grid(a, b, c, m, n, SGEMM_BM, SGEMM_BN, &grid))
        return cudaErrorInvalidConfiguration;
    if (k % 4 == 0 && n % 4 == 0) /* every row of A and B starts 16-byte aligned */
        sgemm_optimized_kernel<true><<<grid, SGEMM_THREADS, 0, stream>>>(a, b, c, m, n, k);
    else
        sgemm_optimized_kernel<false><<<grid, SGEMM_THREADS, 0, stream>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

/* The kernels each variant launches (the library variant runs cuBLAS's own). */
extern "C" const rb_kernel_info sgemm_kernels[] = {
    {"baseline", "sgemm_baseline_kernel", (const void *)sgemm_baseline_kernel,
     SGEMM_TILE *SGEMM_TILE, 0},
    {"coalesced", "sgemm_coalesced_kernel", (const void *)sgemm_coalesced_kernel,
     SGEMM_TILE *SGEMM_TILE, 0},
    {"smem_tiled", "sgemm_smem_tiled_kernel", (const void *)sgemm_smem_tiled_kernel,
     SGEMM_TILE *SGEMM_TILE, 0},
    {"reg_1d", "sgemm_reg_1d_kernel", (const void *)sgemm_reg_1d_kernel, SGEMM_R1_THREADS, 0},
    {"reg_2d_vec4", "sgemm_reg_2d_vec4_kernel", (const void *)sgemm_reg_2d_vec4_kernel,
     SGEMM_R2_THREADS, 0},
    {"optimized", "sgemm_optimized_kernel<true>", (const void *)sgemm_optimized_kernel<true>,
     SGEMM_THREADS, 0},
    {"optimized", "sgemm_optimized_kernel<false>", (const void *)sgemm_optimized_kernel<false>,
     SGEMM_THREADS, 0},
    {NULL, NULL, NULL, 0, 0}}; /* {0} would trip -Wmissing-field-initializers in C++ */
