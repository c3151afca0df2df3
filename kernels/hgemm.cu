/* SPDX-License-Identifier: MIT */
/*
 * hgemm: a hand-written Hopper BF16 GEMM ladder, from Ampere-style mma.sync to TMA + wgmma +
 * warp specialization, against cuBLASLt. (The file's overview is written when the steps land.)
 */
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/hgemm.h"

/* ======================= Steps 1-2: Ampere-style tensor cores (mma.sync) ===================== */
/*
 * Both steps share everything but how a K tile reaches shared memory, so that the difference
 * between them is that one idea.
 *
 * Tiling. A block computes a HGEMM_BM x HGEMM_BN (128 x 256) tile of C with 256 threads: 8 warps
 *   as 2 (M) x 4 (N), each warp a 64 x 64 tile = 4 x 8 mma.sync.m16n8k16 tiles, 128 fp32
 *   accumulators per thread (the warp tile CUTLASS uses on Ampere). The K loop takes HGEMM_BK =
 *   32 columns of A (128 x 32) and rows of B (256 x 32, K-major: B is stored n x k) per tile.
 *   Per warp and k16 step: 4 ldmatrix.x4 for A (4 m16 x k16 fragments), 4 for B (8 n8 x k16
 *   fragments), 32 mma: a fragment is loaded once and used 8 (A) or 4 (B) times.
 * Shared memory: a tile row is 32 bf16 (64 bytes) padded to HGEMM_PITCH = 40 (80 bytes): the 8
 *   row addresses of one 8x8 ldmatrix matrix then start 20 words apart (0, 20, 8, 28, 16, 4,
 *   24, 12 mod 32), so its 8 x 16 bytes cover the 32 banks once: no bank conflict. (An XOR
 *   swizzle does the same without the 25% padding; the padding is the simpler read.)
 * Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"): ldmatrix.x4 of A at (row lane % 16,
 *   column 8 (lane / 16)) yields a0..a3 = rows 0-7 / 8-15 x k 0-7 / 8-15 in the order mma wants;
 *   B stored n x k is mma's "col" operand as it is, so plain (untransposed) ldmatrix.x4 at
 *   (row 8 (lane / 16) + lane % 8, column 8 ((lane / 8) % 2)) yields two n8 fragments {b0, b1}.
 * Edges: a 16-byte chunk (8 bf16) of A or B is loaded when its row is inside M (N) and its first
 *   column inside K, else zeros are stored: k % 8 == 0 makes every chunk wholly in or out. Zero
 *   rows and columns add exact zeros, so only the stores need a guard: each thread stores its
 *   bf16 pairs (4-byte stores when N is even, else one element at a time) where row < M and
 *   column < N.
 * Block order: tiles are numbered in groups of HGEMM_GROUP_M (8) tile rows, column by column
 *   within a group (the "grouped" raster of Triton's and CUTLASS's GEMMs). The blocks of a wave
 *   walk K at about the same pace, so a K slice of a panel that several of them share comes
 *   from DRAM about once per wave. At 8192^3 (64 x 32 tiles, 15.5 waves of 132) a wave in row
 *   order spans ~4 tile rows and every column: all of B (128 MB) + 4 panels of A (8 MB) per
 *   wave, 2.1 GB in all (0.7 ms at 3 TB/s, a third of the predicted time below); grouped, ~8
 *   rows x 17 columns: 16 + 68 MB per wave, 1.3 GB. Cheap, and it keeps DRAM well off the
 *   critical path.
 * Work per block and K tile: global (L2) reads (128 + 256) x 32 x 2 = 24 KB for 2 x 128 x 256 x
 *   32 = 2.1 MFLOP (85 flop/byte of L2 traffic; at 550 TFLOP/s: 6.5 TB/s from L2); shared
 *   memory 24 KB written, and read by ldmatrix 2 x 4 x 4 KB (A, B per warp per k16 step, 8 warps,
 *   2 steps) = 64 KB: 32 flop per byte read, just what 4096 dense flop/clock/SM (989 TFLOP/s at
 *   1830 MHz over 132 SMs) needs from 128 bytes/clock/SM of shared-memory bandwidth.
 *
 * Step 1, mma_sync (hgemm_mma_sync_kernel): the tutorial kernel. Per K tile every thread loads
 *   its 16-byte chunks of A and B from global memory into registers, stores them to shared
 *   memory, __syncthreads, the warps run their 64 mma, __syncthreads. 30 KB of static shared
 *   memory, ~200 registers: one block (8 warps) per SM, so nothing hides the ~600-800 cycles of
 *   L2 latency of each tile's loads: per tile ~800 cycles of loads, then ~770 of mma (2.1 MFLOP
 *   at ~2730 flop/clock, mma.sync's ~2/3 of the wgmma rate).
 *   Predicted (H100 SXM, 8192^3, before measuring): ~250-320 TFLOP/s (3.4-4.4 ms): about half
 *   of the mma.sync ceiling (~600-650 TFLOP/s, roughly 60-70% of the 989 dense BF16 peak at
 *   1830 MHz, less at the ~1500 MHz a power-capped GEMM runs at).
 *   Measured: (to be filled from the GPU run).
 *
 * Step 2, cp_async (hgemm_cp_async_kernel): the loads go straight from global to shared memory
 *   with cp.async.cg (16 bytes, L1 bypassed, src-size 0 for the zero fill), into a ring of
 *   HGEMM_STAGES (4) tiles: tile t + 3 is in flight while tile t is computed (commit_group per
 *   tile, wait_group 2, one __syncthreads per tile), and the loads need no registers. 120 KB of
 *   dynamic shared memory (4 x 30 KB), still one block per SM; the latency now hides behind
 *   three tiles of mma (~2300 cycles).
 *   Predicted (same conditions): ~450-550 TFLOP/s (2.0-2.4 ms), 1.6-1.9x step 1, held below the
 *   mma.sync ceiling by the ldmatrix traffic (exactly at shared memory's bandwidth above), the
 *   epilogue and the power cap; the rest of the way to ~700 needs wgmma (step 3).
 *   Measured: (to be filled from the GPU run).
 */
#define HGEMM_BM 128
#define HGEMM_BN 256
#define HGEMM_BK 32
#define HGEMM_PITCH (HGEMM_BK + 8) /* bf16 per shared-memory tile row: 80 bytes, see above */
#define HGEMM_THREADS 256          /* 8 warps: 2 (M) x 4 (N) */
#define HGEMM_WM 64                /* warp tile */
#define HGEMM_WN 64
#define HGEMM_MT (HGEMM_WM / 16) /* mma tiles per warp: 4 x 8 */
#define HGEMM_NT (HGEMM_WN / 8)
#define HGEMM_GROUP_M 8 /* tile rows per group of the block order */
#define HGEMM_STAGES 4  /* step 2's ring */
/* bf16 elements of one stage: the A tile, then the B tile. */
#define HGEMM_STAGE_ELEMS ((HGEMM_BM + HGEMM_BN) * HGEMM_PITCH)
#define HGEMM_CP_ASYNC_SMEM (HGEMM_STAGES * HGEMM_STAGE_ELEMS * 2) /* bytes: 122880 */

static_assert(HGEMM_THREADS == (HGEMM_BM / HGEMM_WM) * (HGEMM_BN / HGEMM_WN) * 32,
              "one warp per warp tile");
static_assert((HGEMM_BM * HGEMM_BK / 8) % HGEMM_THREADS == 0 &&
                  (HGEMM_BN * HGEMM_BK / 8) % HGEMM_THREADS == 0,
              "every thread loads whole 16-byte chunks");

/* The tile (tm, tn) block `tile` computes, in the grouped order above. */
static __device__ __forceinline__ void hgemm_tile_of(int tile, int tiles_m, int tiles_n, int *tm,
                                                     int *tn)
{
    int per_group = HGEMM_GROUP_M * tiles_n;
    int first_m = tile / per_group * HGEMM_GROUP_M;
    int rows = min(tiles_m - first_m, HGEMM_GROUP_M);
    int in_group = tile % per_group;
    *tm = first_m + in_group % rows;
    *tn = in_group / rows;
}

static __device__ __forceinline__ void hgemm_ldmatrix_x4(uint32_t r[4], const uint16_t *smem)
{
    uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* d += a b: one m16n8k16 bf16 tensor-core product with fp32 accumulation. */
static __device__ __forceinline__ void hgemm_mma_16816(float d[4], const uint32_t a[4],
                                                       const uint32_t b[2])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* One K tile in shared memory (as: BM x PITCH, bs: BN x PITCH) into the warp's accumulators. */
static __device__ __forceinline__ void hgemm_warp_tile(float acc[HGEMM_MT][HGEMM_NT][4],
                                                       const uint16_t *as, const uint16_t *bs,
                                                       int warp_m, int warp_n, int lane)
{
#pragma unroll
    for (int kk = 0; kk < HGEMM_BK; kk += 16) {
        uint32_t af[HGEMM_MT][4], bf[HGEMM_NT][2];
#pragma unroll
        for (int i = 0; i < HGEMM_MT; i++)
            hgemm_ldmatrix_x4(af[i], as + (warp_m * HGEMM_WM + i * 16 + (lane & 15)) * HGEMM_PITCH +
                                         kk + (lane >> 4) * 8);
#pragma unroll
        for (int j = 0; j < HGEMM_NT; j += 2) {
            uint32_t r[4];
            hgemm_ldmatrix_x4(r, bs + (warp_n * HGEMM_WN + j * 8 + (lane >> 4) * 8 + (lane & 7)) *
                                         HGEMM_PITCH +
                                     kk + ((lane >> 3) & 1) * 8);
            bf[j][0] = r[0];
            bf[j][1] = r[1];
            bf[j + 1][0] = r[2];
            bf[j + 1][1] = r[3];
        }
#pragma unroll
        for (int i = 0; i < HGEMM_MT; i++)
#pragma unroll
            for (int j = 0; j < HGEMM_NT; j++)
                hgemm_mma_16816(acc[i][j], af[i], bf[j]);
    }
}

/* The warp's accumulators, rounded to bf16, into C (m x n row-major) at (row0, col0), inside M
 * and N only. Thread (g = lane / 4, t = lane % 4) holds rows g and g + 8, columns 2t and 2t + 1
 * of each m16n8 tile. */
static __device__ __forceinline__ void hgemm_store_warp_tile(uint16_t *c,
                                                             const float acc[HGEMM_MT][HGEMM_NT][4],
                                                             int m, int n, int row0, int col0,
                                                             int lane)
{
    int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < HGEMM_MT; i++)
#pragma unroll
        for (int j = 0; j < HGEMM_NT; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int row = row0 + i * 16 + g + 8 * h, col = col0 + j * 8 + 2 * t;
                if (row >= m || col >= n)
                    continue;
                __nv_bfloat162 v = __floats2bfloat162_rn(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                uint16_t *p = c + (size_t)row * n + col;
                if ((n & 1) == 0) { /* col even, n even: a 4-byte aligned pair, both inside N */
                    *(__nv_bfloat162 *)p = v;
                } else {
                    p[0] = __bfloat16_as_ushort(__low2bfloat16(v));
                    if (col + 1 < n)
                        p[1] = __bfloat16_as_ushort(__high2bfloat16(v));
                }
            }
}

/*
 * Step 1. ld: the row stride of A and B (K); k: the K extent looped over (K; the planted
 * defect's is one tile short); a_rows: the rows of A the loader reads (M; the planted defect's
 * off-by-one guard reads M - 1 and zero-fills the last).
 */
__global__ void __launch_bounds__(HGEMM_THREADS, 1)
    hgemm_mma_sync_kernel(const uint16_t *__restrict__ a, const uint16_t *__restrict__ b,
                          uint16_t *__restrict__ c, int m, int n, int k, int ld, int a_rows)
{
    __shared__ __align__(16) uint16_t as[HGEMM_BM * HGEMM_PITCH];
    __shared__ __align__(16) uint16_t bs[HGEMM_BN * HGEMM_PITCH];
    int tm, tn, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    hgemm_tile_of(blockIdx.x, (m + HGEMM_BM - 1) / HGEMM_BM, (n + HGEMM_BN - 1) / HGEMM_BN, &tm,
                  &tn);
    int row0 = tm * HGEMM_BM, col0 = tn * HGEMM_BN;
    int warp_m = warp / (HGEMM_BN / HGEMM_WN), warp_n = warp % (HGEMM_BN / HGEMM_WN);
    float acc[HGEMM_MT][HGEMM_NT][4] = {};

    for (int k0 = 0; k0 < k; k0 += HGEMM_BK) {
#pragma unroll
        for (int i = 0; i < HGEMM_BM * HGEMM_BK / 8 / HGEMM_THREADS; i++) {
            int chunk = tid + i * HGEMM_THREADS, r = chunk / (HGEMM_BK / 8),
                col = chunk % (HGEMM_BK / 8) * 8;
            uint4 v = make_uint4(0, 0, 0, 0);
            if (row0 + r < a_rows && k0 + col < k)
                v = *(const uint4 *)(a + (size_t)(row0 + r) * ld + k0 + col);
            *(uint4 *)(as + r * HGEMM_PITCH + col) = v;
        }
#pragma unroll
        for (int i = 0; i < HGEMM_BN * HGEMM_BK / 8 / HGEMM_THREADS; i++) {
            int chunk = tid + i * HGEMM_THREADS, r = chunk / (HGEMM_BK / 8),
                col = chunk % (HGEMM_BK / 8) * 8;
            uint4 v = make_uint4(0, 0, 0, 0);
            if (col0 + r < n && k0 + col < k)
                v = *(const uint4 *)(b + (size_t)(col0 + r) * ld + k0 + col);
            *(uint4 *)(bs + r * HGEMM_PITCH + col) = v;
        }
        __syncthreads();
        hgemm_warp_tile(acc, as, bs, warp_m, warp_n, lane);
        __syncthreads();
    }
    hgemm_store_warp_tile(c, acc, m, n, row0 + warp_m * HGEMM_WM, col0 + warp_n * HGEMM_WN, lane);
}

/* 16 bytes global -> shared, asynchronously (L2 only: .cg); zeros when !valid (src-size 0 reads
 * nothing; gmem must still be a global address). */
static __device__ __forceinline__ void hgemm_cp_async_16(uint16_t *smem, const uint16_t *gmem,
                                                         bool valid)
{
    uint32_t dst = (uint32_t)__cvta_generic_to_shared(smem);
    size_t src = __cvta_generic_to_global(gmem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0));
}

/* Step 2's tile at k0 into one stage of the ring (as: its A part, bs: its B part), as one
 * cp.async group. */
static __device__ __forceinline__ void hgemm_load_stage_async(uint16_t *as, uint16_t *bs,
                                                              const uint16_t *a, const uint16_t *b,
                                                              int m, int n, int k, int row0,
                                                              int col0, int k0, int tid)
{
#pragma unroll
    for (int i = 0; i < HGEMM_BM * HGEMM_BK / 8 / HGEMM_THREADS; i++) {
        int chunk = tid + i * HGEMM_THREADS, r = chunk / (HGEMM_BK / 8),
            col = chunk % (HGEMM_BK / 8) * 8;
        bool valid = row0 + r < m && k0 + col < k;
        hgemm_cp_async_16(as + r * HGEMM_PITCH + col,
                          valid ? a + (size_t)(row0 + r) * k + k0 + col : a, valid);
    }
#pragma unroll
    for (int i = 0; i < HGEMM_BN * HGEMM_BK / 8 / HGEMM_THREADS; i++) {
        int chunk = tid + i * HGEMM_THREADS, r = chunk / (HGEMM_BK / 8),
            col = chunk % (HGEMM_BK / 8) * 8;
        bool valid = col0 + r < n && k0 + col < k;
        hgemm_cp_async_16(bs + r * HGEMM_PITCH + col,
                          valid ? b + (size_t)(col0 + r) * k + k0 + col : b, valid);
    }
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Step 2: step 1 with the ring. Iteration t waits for tile t (at most HGEMM_STAGES - 2 younger
 * groups pending), then one barrier both publishes it to every warp and proves that every warp
 * is done with tile t - 1, whose stage the load of tile t + HGEMM_STAGES - 1 reuses. An empty
 * group is committed past the last tile so that the count stays right. */
__global__ void __launch_bounds__(HGEMM_THREADS, 1)
    hgemm_cp_async_kernel(const uint16_t *__restrict__ a, const uint16_t *__restrict__ b,
                          uint16_t *__restrict__ c, int m, int n, int k)
{
    extern __shared__ __align__(128) uint16_t hgemm_ring[];
    int tm, tn, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    hgemm_tile_of(blockIdx.x, (m + HGEMM_BM - 1) / HGEMM_BM, (n + HGEMM_BN - 1) / HGEMM_BN, &tm,
                  &tn);
    int row0 = tm * HGEMM_BM, col0 = tn * HGEMM_BN, tiles = (k + HGEMM_BK - 1) / HGEMM_BK;
    int warp_m = warp / (HGEMM_BN / HGEMM_WN), warp_n = warp % (HGEMM_BN / HGEMM_WN);
    float acc[HGEMM_MT][HGEMM_NT][4] = {};

#pragma unroll
    for (int s = 0; s < HGEMM_STAGES - 1; s++) {
        uint16_t *as = hgemm_ring + s * HGEMM_STAGE_ELEMS;
        if (s < tiles)
            hgemm_load_stage_async(as, as + HGEMM_BM * HGEMM_PITCH, a, b, m, n, k, row0, col0,
                                   s * HGEMM_BK, tid);
        else
            asm volatile("cp.async.commit_group;\n" ::);
    }
    for (int t = 0; t < tiles; t++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(HGEMM_STAGES - 2));
        __syncthreads();
        int next = t + HGEMM_STAGES - 1;
        uint16_t *ns = hgemm_ring + next % HGEMM_STAGES * HGEMM_STAGE_ELEMS;
        if (next < tiles)
            hgemm_load_stage_async(ns, ns + HGEMM_BM * HGEMM_PITCH, a, b, m, n, k, row0, col0,
                                   next * HGEMM_BK, tid);
        else
            asm volatile("cp.async.commit_group;\n" ::);
        const uint16_t *as = hgemm_ring + t % HGEMM_STAGES * HGEMM_STAGE_ELEMS;
        hgemm_warp_tile(acc, as, as + HGEMM_BM * HGEMM_PITCH, warp_m, warp_n, lane);
    }
    asm volatile("cp.async.wait_group 0;\n" ::);
    hgemm_store_warp_tile(c, acc, m, n, row0 + warp_m * HGEMM_WM, col0 + warp_n * HGEMM_WN, lane);
}

/* Blocks for an m x n C, or 0 when the arguments are outside the seam's contract (1 <= m, n, k,
 * k % 8 == 0) or the tiles would not fit a grid. */
static unsigned hgemm_steps12_blocks(int m, int n, int k)
{
    if (m < 1 || n < 1 || k < 1 || k % 8 != 0)
        return 0;
    long long tiles = (long long)((m + HGEMM_BM - 1) / HGEMM_BM) * ((n + HGEMM_BN - 1) / HGEMM_BN);
    return tiles > 0x7fffffffLL ? 0 : (unsigned)tiles;
}

extern "C" cudaError_t hgemm_mma_sync_defect(const uint16_t *a, const uint16_t *b, uint16_t *c,
                                             int m, int n, int k, int defect, cudaStream_t stream)
{
    unsigned blocks = hgemm_steps12_blocks(m, n, k);
    if (!blocks)
        return cudaErrorInvalidValue;
    int k_loop = defect == HGEMM_DEFECT_K_TAIL ? (k - 1) / HGEMM_BK * HGEMM_BK : k;
    int a_rows = defect == HGEMM_DEFECT_EDGE_ROW ? m - 1 : m;
    hgemm_mma_sync_kernel<<<blocks, HGEMM_THREADS, 0, stream>>>(a, b, c, m, n, k_loop, k, a_rows);
    return cudaGetLastError();
}

extern "C" cudaError_t hgemm_mma_sync(const uint16_t *a, const uint16_t *b, uint16_t *c, int m,
                                      int n, int k, cudaStream_t stream)
{
    return hgemm_mma_sync_defect(a, b, c, m, n, k, HGEMM_DEFECT_NONE, stream);
}

extern "C" cudaError_t hgemm_cp_async(const uint16_t *a, const uint16_t *b, uint16_t *c, int m,
                                      int n, int k, cudaStream_t stream)
{
    unsigned blocks = hgemm_steps12_blocks(m, n, k);
    if (!blocks)
        return cudaErrorInvalidValue;
    /* Above 48 KB of dynamic shared memory a kernel must opt in (once per process would do;
     * the call is cheap and host-side only). */
    cudaError_t e = cudaFuncSetAttribute(hgemm_cp_async_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         HGEMM_CP_ASYNC_SMEM);
    if (e != cudaSuccess)
        return e;
    hgemm_cp_async_kernel<<<blocks, HGEMM_THREADS, HGEMM_CP_ASYNC_SMEM, stream>>>(a, b, c, m, n,
                                                                                 k);
    return cudaGetLastError();
}


/* ======================= Steps 3-6 and FP8: Hopper (wgmma, TMA, clusters) ==================== */

/* ======================= Placeholders while the steps are written (none may remain) ========== */
extern "C" cudaError_t hgemm_wgmma(const uint16_t *, const uint16_t *, uint16_t *, int, int, int, cudaStream_t) { return cudaErrorNotSupported; }
extern "C" cudaError_t hgemm_tma(const uint16_t *, const uint16_t *, uint16_t *, int, int, int, cudaStream_t) { return cudaErrorNotSupported; }
extern "C" cudaError_t hgemm_warp_specialized(const uint16_t *, const uint16_t *, uint16_t *, int, int, int, cudaStream_t) { return cudaErrorNotSupported; }
extern "C" cudaError_t hgemm_optimized(const uint16_t *, const uint16_t *, uint16_t *, int, int, int, cudaStream_t) { return cudaErrorNotSupported; }
extern "C" cudaError_t hgemm_fp8_optimized(const uint8_t *, const uint8_t *, uint16_t *, int, int, int, float, float, cudaStream_t) { return cudaErrorNotSupported; }

/* ======================= The kernel table (rb_pair.kernels) ================================== */
extern "C" const rb_kernel_info hgemm_kernels[] = {
    /* steps 1-2 */
    {"mma_sync", "hgemm_mma_sync_kernel", (const void *)hgemm_mma_sync_kernel, HGEMM_THREADS, 0},
    {"cp_async", "hgemm_cp_async_kernel", (const void *)hgemm_cp_async_kernel, HGEMM_THREADS,
     HGEMM_CP_ASYNC_SMEM},
    /* steps 3-6, fp8 */
    {}};
