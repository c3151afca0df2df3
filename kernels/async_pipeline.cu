/* SPDX-License-Identifier: MIT */
/*
 * async_pipeline: a skinny GEMM whose input chunks are loaded, waited for and then computed, vs
 * the same chunks loaded with cp.async into a ring of shared-memory stages, two chunks ahead of
 * the compute.
 *
 * What: out = in W, fp32, row-major: in is m x K, W is K x N, out is m x N, with K = 1024 and
 *   N = 32 fixed (a projection of long feature rows down to 32 features, as in a low-rank
 *   adapter's down-projection or a retrieval embedding's head) and m, the row count, the size.
 *
 * Work: 2 K N = 65536 flops per row; compulsory DRAM traffic 4 K (in) + 4 N (out) = 4224 bytes per
 *   row, + 4 K N (W, once). AI = 65536 / 4224 = 15.5 flop/byte, just under the H100's balance
 *   (60.6 TFLOP/s FP32 FMA / 3.0 TB/s = 20), and FFMA is only ~80% of this kernel's
 *   instructions (below): the memory and the FP32 pipe both need nearly the whole run. Full size
 *   m = 270336 = 1056 tiles of 256 rows = 8 per SM on a 132-SM H100 or H200 (no partial wave):
 *   in is 1.107 GB, out 34.6 MB, 1.142 GB compulsory (> 4x L2), 17.7 GFLOP; 0.38 ms at a
 *   3.0 TB/s roof, 0.29 ms at 60.6 TFLOP/s.
 *
 * Why this workload (the lesson is when loading ahead matters):
 *   Little's law: to stream ~3 TB/s through a loaded DRAM latency of ~0.7-1 us the GPU must keep
 *   ~2-3 MB of reads in flight, ~16-23 KB per SM, all the time. A synchronous block (load a chunk,
 *   __syncthreads, compute it) has loads in flight only during its load phase; while it computes,
 *   its SM asks the DRAM for nothing. There are two ways to fill that gap: more resident blocks
 *   (one computes while another loads: occupancy), or one block that issues the next chunks
 *   before it computes the current one (a pipeline). A pipeline is the only way when something
 *   the algorithm needs caps the SM at one block. Here it is W: every row of `in` meets all of W,
 *   so each block holds the whole of W (128 KB) in shared memory for its lifetime; two copies do
 *   not fit in 227 KB, so one block per SM is all the shared memory allows, whatever the block
 *   size. (Splitting W between two blocks would make each read every row of `in`: twice the
 *   traffic.) This is a GEMM main loop in miniature: a large operand kept on chip for reuse,
 *   accumulators in registers across the K loop, the other operand streamed in chunks.
 *   And the work is near balance: the synchronous kernel's time is load + compute per chunk,
 *   the pipeline's is max(load, compute), so the gain is largest when the two are equal (up to
 *   2x, plus the exposed latency).
 *
 * The tile, both kernels: a tile is 256 rows of in (all K) -> 256 x 32 of out; 256 threads; the
 *   thread (rg, cg) = (t / 4, t % 4) owns rows rg + 64 i (i < 4) and columns 8 cg .. 8 cg + 7:
 *   32 accumulators in registers for the whole tile. The K loop is 32 chunks of 32 columns: a
 *   chunk is 256 rows x 128 bytes (one whole line of each row) = 32 KB of `in` (2048 16-byte
 *   pieces, 8 per thread; a warp's 32 pieces are 4 whole lines). Per 4 k a thread does 4 LDS.128
 *   of in (4 k of each of its rows) and 8 of W (8 columns for each k) for 128 FFMA: shared
 *   memory is not the limit. A chunk row is 128 bytes, so the 8 rows a warp reads at once would
 *   all hit one 16-byte bank group (8-way conflicts): the piece index is XOR-swizzled by the low
 *   3 bits of the row (async_pipeline_slot). Rows past m are zero-filled and never stored (the
 *   tail tile). A persistent grid (blocks per SM the kernel fits x SMs, all 1 here: see the
 *   sweep below) takes tiles b, b + grid, ...; W is loaded once per block (128 KB from L2: ~1%
 *   of the run).
 *
 * Baseline: a good synchronous GEMM loop. Per chunk every thread issues its 8 16-byte loads
 *   (ld.global.cg, all before the first shared store: 32 KB per SM in flight at once, above the
 *   16-23 KB Little's law asks), stores them to the swizzled chunk, __syncthreads, computes,
 *   __syncthreads. Coalesced, 16-byte, conflict-free, one block per SM because that is all its
 *   shared memory (W 128 KB + one chunk 32 KB = 160 KB) allows: cudaOccupancyMaxActive-
 *   BlocksPerMultiprocessor says 1 for both kernels, the launcher sizes the grid with it, and
 *   the extras (bench/async_pipeline.c) record that figure and time each variant at every
 *   blocks-per-SM it fits (ms_bps_1: the whole sweep). A non-persistent grid (one block per
 *   tile) would reload W for every tile and still run one block per SM. Is this what a competent
 *   engineer writes before knowing cp.async? Yes: it is the classic tiled loop with every access
 *   right; its only missing idea is loading ahead. Its weakness: while its loads are in flight
 *   the block computes nothing, and while it computes it has nothing in flight.
 *
 * Optimized: the same tile, chunk layout and compute, but the chunks arrive by cp.async.cg 16-byte
 *   copies (global -> shared without passing through registers, and without stalling the
 *   thread; rows past m use the zero-fill form) into a ring of ASYNC_PIPELINE_STAGES = 3 stages.
 *   The block's chunks form one stream across its tiles (the ring runs through tile ends). Each
 *   thread commits one group per chunk; iteration c does
 *     cp.async.wait_group STAGES-2   (this thread's pieces of chunk c have landed)
 *     __syncthreads                  (everyone's have; and everyone is done with chunk c-1)
 *     issue chunk c+STAGES-1 into the stage chunk c-1 used; commit (an empty group past the end,
 *                                    so that the group count stays one per iteration)
 *     compute chunk c (and store the tile after its last chunk)
 *   so 2 chunks (64 KB per SM, ~3x what Little's law asks) are in flight while one is computed.
 *   Shared memory: W + 3 x 32 KB = 224 KB of the 227 KB; a 4th stage does not fit.
 *
 * Where this pattern does not win (so a learner does not reach for it everywhere):
 *   - When occupancy can hide the latency instead: a block small enough that two or more fit
 *     per SM. With K = N = 64, W is 16 KB and two synchronous blocks fit; they take turns and
 *     the pipeline buys little. The 5x5 stencil that this pair used to teach with is that case:
 *     its synchronous baseline at 2 blocks per SM ran 0.925 ms on the H100 against the cp.async
 *     ring's 0.83 (1.12x; level on an H200). The stencil now lives in tma_pipeline.
 *   - Far from balance: a copy has no compute to overlap (16-byte loads with enough in flight
 *     already reach the roof: copy_vectorized); a compute-heavy tile (AI >> 20) spends so little
 *     time loading that hiding it gains little.
 *   - Data that L2 or L1 already holds: its latency is short, and there is less to hide.
 *
 * Library: cuBLAS SGEMM would compute this product; it is not a variant here because the lesson
 *   is the loop structure, and cuBLAS's kernel for an m x 32 x 1024 shape is its own choice
 *   (gemm_autotune times such skinny shapes).
 *
 * Predicted (H100 SXM, before measuring; m = 270336, 256 chunks of 32 KB per SM):
 *   Compute per chunk: the optimized loop is ~1270 instructions per thread per chunk (1024 FFMA,
 *   ~100 LDS, ~130 for the 8 copies' addresses, the rest indexing; cuobjdump), the baseline's
 *   ~1370 (its loads and shared stores each compute their address). 8 warps x 1270 / 4
 *   schedulers = 2540 issue cycles = 1.3 us at 1.98 GHz; ~1.45-1.7 us with only 2 warps per
 *   scheduler to hide the FFMA and LDS latencies. Memory per chunk at the SM's share of 3.0
 *   TB/s: 32 KB / 22.7 GB/s = 1.45 us. Optimized: the larger of the two, ~1.55-1.85 us per chunk
 *   -> 0.40-0.47 ms, 2.45-2.85 TB/s, 38-44 TFLOP/s (both pipes busy; 0.8-0.95 of the memory
 *   roof).
 *   Baseline: load phase + compute per chunk. The load phase is the latency of its slowest of
 *   2048 loads under load (~0.7-1 us) plus its transfer. Two limits: if the SMs stay in step (all
 *   start together and do the same work, so their load phases tend to coincide), the DRAM is
 *   shared 132 ways: ~0.8 + 1.45 us; if they drift apart, an SM loads while others compute and
 *   is limited by its own 32 KB in flight: ~0.9-1.2 us. With ~1.6-1.8 us of compute: 2.6-3.9 us
 *   per chunk -> 0.66-1.0 ms, 1.15-1.7 TB/s. Speedup 1.4-2.5x, central ~1.7x. The loaded latency
 *   and how far the SMs drift apart are the uncertain terms.
 *
 * Tunables (compile-time; -D, e.g. make NVCCFLAGS=-DASYNC_PIPELINE_STAGES=2): the ring's stage
 *   count, 2 or 3 (a 4th does not fit beside W).
 *
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261125T120458Z-7100242.json and 120618Z, two
 *   back-to-back runs): baseline 0.7055 / 0.7064 ms (1619 GB/s), optimized 0.5122 / 0.5151 ms
 *   (2230 GB/s, 74% of the measured copy roof), 1.38x / 1.37x. Both at 1 block per SM, the
 *   most their shared memory allows (the occupancy sweep in the extras: max_blocks_per_sm 1,
 *   ms_bps_1 as the median), so the baseline is at its best occupancy. --cold: 0.7028 and 0.5081
 *   ms (20261125T1209Z-7100242-cold.json). The baseline is inside its prediction (0.66-1.0 ms);
 *   the optimized kernel missed its 0.40-0.47 ms by 10-25%, and the speedup sits at the bottom
 *   of the predicted 1.4-2.5x.
 *   Why, from ncu (--set detailed, 20261125T1214Z-7d58124-async-pipeline-optimized-ncu.txt and
 *   20261125T1209Z-7100242-async-pipeline-baseline-ncu.txt): the optimized kernel keeps neither
 *   DRAM (66% of peak) nor the FMA pipe (53%) busy; issue slots are 65% busy (IPC 2.63 of 4)
 *   with 8 warps per SM, 2 per scheduler. Per chunk it spends 2.0 us (0.512 ms / 256 chunks)
 *   against the predicted 1.55-1.85: the compute phase is the limit, and with two warps a
 *   scheduler cannot cover the LDS -> FFMA latency of each warp's dependent chain (the
 *   prediction allowed 1.45-1.7 us for it, measured ~1.9). The copies are hidden, which is the
 *   pattern's part; what is left is instruction latency, which more independent FFMAs per
 *   thread (a larger register tile, AP_TR x AP_TC) or a second block per SM (W in shared memory
 *   prevents it) would hide. The baseline: issue 48%, FMA 38%, DRAM 48%: its load phase and
 *   compute phase alternate, as modelled.
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"
#include "kernels/async_pipeline.h"

#ifndef ASYNC_PIPELINE_STAGES
#define ASYNC_PIPELINE_STAGES 3
#endif

enum {
    AP_K = 1024, /* in's columns = W's rows */
    AP_N = 32,   /* W's columns = out's columns */
    AP_BK = 32,  /* the K columns of one chunk: one 128-byte line of each row */
    AP_THREADS = 256,
    AP_TR = 4,                                  /* rows per thread */
    AP_TC = 8,                                  /* columns per thread */
    AP_COL_GROUPS = AP_N / AP_TC,               /* 4 */
    AP_ROW_GROUPS = AP_THREADS / AP_COL_GROUPS, /* 64 */
    AP_TM = AP_ROW_GROUPS * AP_TR,              /* 256 rows per tile */
    AP_CHUNKS = AP_K / AP_BK,                   /* 32 chunks per tile */
    AP_PIECES_PER_ROW = AP_BK / 4,              /* 16-byte pieces of a row's chunk: 8 */
    AP_CHUNK_PIECES = AP_TM * AP_PIECES_PER_ROW,
    AP_PIECES_PER_THREAD = AP_CHUNK_PIECES / AP_THREADS, /* 8 */
    AP_CHUNK_BYTES = AP_CHUNK_PIECES * 16,               /* 32 KB */
    AP_W_BYTES = AP_K * AP_N * 4,                        /* 128 KB */
    AP_STAGES = ASYNC_PIPELINE_STAGES,
    AP_BASELINE_SMEM = AP_W_BYTES + AP_CHUNK_BYTES,             /* 160 KB */
    AP_OPTIMIZED_SMEM = AP_W_BYTES + AP_STAGES * AP_CHUNK_BYTES /* 224 KB at 3 stages */
};

static_assert(AP_PIECES_PER_ROW == 8, "the swizzle below is for 8 pieces per row (BK = 32)");
static_assert(AP_CHUNK_PIECES % AP_THREADS == 0, "every thread copies the same number of pieces");
static_assert(AP_K % AP_BK == 0 && AP_N % AP_TC == 0, "tiles divide K and N");
static_assert(AP_COL_GROUPS == 4, "a warp: 8 row groups x 4 column groups");
static_assert(AP_ROW_GROUPS % 8 == 0, "row rg + ROW_GROUPS i keeps rg's low 3 bits (the swizzle)");
static_assert(AP_STAGES >= 2 && AP_OPTIMIZED_SMEM <= 227 * 1024,
              "the ring needs 2 or more stages, and W + the ring must fit 227 KB");

static __device__ __forceinline__ uint32_t async_pipeline_smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* ---- Shared by both kernels: W in shared memory, the chunk layout, the compute. ---- */

/* Shared slot (16-byte unit) of piece p (k columns 4p .. 4p+3 of the chunk) of tile row r. Rows
 * are 128 bytes, so the 8 rows a warp reads at once (r = 8j .. 8j+7, the same p) would all fall
 * on the same 16-byte bank group: 8-way conflicts. XOR-ing p with the low 3 bits of r puts each
 * of the 8 rows on its own group (the classic XOR swizzle; a 16-byte copy can land anywhere). */
static __device__ __forceinline__ int async_pipeline_slot(int r, int p)
{
    return r * AP_PIECES_PER_ROW + (p ^ (r & 7));
}

/* The whole of W (K x N, row-major, 16-byte aligned) into shared memory, by every thread. W is
 * 128 KB and the same for every tile, so a block loads it once (from L2 after the first block). */
static __device__ __forceinline__ void async_pipeline_load_w(float4 *w_s,
                                                             const float4 *__restrict__ w)
{
#pragma unroll 8
    for (int i = threadIdx.x; i < AP_W_BYTES / 16; i += AP_THREADS)
        w_s[i] = __ldg(&w[i]);
}

/* Where piece q (0 .. CHUNK_PIECES-1) of chunk kc of the tile starting at row0 comes from and
 * goes to: a warp's 32 pieces are 4 rows x 128 contiguous bytes (4 whole lines). */
typedef struct async_pipeline_piece {
    size_t src; /* into `in`, in floats */
    int slot;   /* shared 16-byte slot in the stage */
    int inside; /* the row exists (rows past m are zero: they feed outputs never stored) */
} async_pipeline_piece;

static __device__ __forceinline__ async_pipeline_piece async_pipeline_locate(int q, int row0,
                                                                             int kc, int m)
{
    const int r = q / AP_PIECES_PER_ROW, p = q % AP_PIECES_PER_ROW;
    async_pipeline_piece x;
    x.inside = row0 + r < m;
    x.src = x.inside ? (size_t)(row0 + r) * AP_K + kc * AP_BK + 4 * p : 0;
    x.slot = async_pipeline_slot(r, p);
    return x;
}

/* acc[i][j] += sum over the chunk's 32 k of in[row i][k] W[k][col j], for this thread's rows
 * rg + 64 i (i < 4) and columns 8 cg + j (j < 8). Per 4 k: 4 LDS.128 of in (one per row, four k
 * each) and 8 of W (two per k) feed 128 FFMA, so the FMA pipe, not shared memory, sets the pace.
 * A warp's in-loads read 8 distinct rows (conflict-free by the swizzle), each row broadcast to
 * the 4 column groups; its W loads read 128 contiguous bytes of one W row. */
static __device__ __forceinline__ void
async_pipeline_compute_chunk(const float4 *a_s, const float4 *w_s, int kc, float acc[AP_TR][AP_TC])
{
    const int cg = threadIdx.x % AP_COL_GROUPS, rg = threadIdx.x / AP_COL_GROUPS;
    const int swz = rg & 7; /* rg + 64 i has the same low 3 bits as rg */
#pragma unroll
    for (int kq = 0; kq < AP_PIECES_PER_ROW; kq++) {
        float4 a[AP_TR];
#pragma unroll
        for (int i = 0; i < AP_TR; i++)
            a[i] = a_s[(rg + AP_ROW_GROUPS * i) * AP_PIECES_PER_ROW + (kq ^ swz)];
#pragma unroll
        for (int kk = 0; kk < 4; kk++) {
            const int k = kc * AP_BK + 4 * kq + kk;
            const float4 w0 = w_s[k * (AP_N / 4) + 2 * cg], w1 = w_s[k * (AP_N / 4) + 2 * cg + 1];
            const float w[AP_TC] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
#pragma unroll
            for (int i = 0; i < AP_TR; i++) {
                const float av = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
#pragma unroll
                for (int j = 0; j < AP_TC; j++)
                    acc[i][j] = fmaf(av, w[j], acc[i][j]);
            }
        }
    }
}

/* Stores this thread's 4 x 8 outputs of the tile at row0 (two 16-byte stores per row; a warp
 * writes 8 whole 128-byte rows per i) and zeroes the accumulators for the next tile. */
static __device__ __forceinline__ void async_pipeline_store_tile(float *__restrict__ out, int row0,
                                                                 int m, float acc[AP_TR][AP_TC])
{
    const int cg = threadIdx.x % AP_COL_GROUPS, rg = threadIdx.x / AP_COL_GROUPS;
#pragma unroll
    for (int i = 0; i < AP_TR; i++) {
        const int r = row0 + rg + AP_ROW_GROUPS * i;
        if (r < m) {
            float4 *o = (float4 *)(out + (size_t)r * AP_N + AP_TC * cg);
            __stcs(o, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
            __stcs(o + 1, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
        }
#pragma unroll
        for (int j = 0; j < AP_TC; j++)
            acc[i][j] = 0.0f;
    }
}

/* ---- Baseline: load a chunk, wait for it, compute it; repeat. ---- */

static __global__ void __launch_bounds__(AP_THREADS, 1)
    async_pipeline_baseline_kernel(const float4 *__restrict__ in, const float4 *__restrict__ w,
                                   float *__restrict__ out, int m, int n_tiles)
{
    extern __shared__ float4 async_pipeline_smem[]; /* W, then one chunk */
    float4 *w_s = async_pipeline_smem, *a_s = async_pipeline_smem + AP_W_BYTES / 16;
    async_pipeline_load_w(w_s, w);
    float acc[AP_TR][AP_TC] = {};
    for (int t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        const int row0 = t * AP_TM;
        for (int kc = 0; kc < AP_CHUNKS; kc++) {
            /* All 8 loads first (32 KB per block in flight), then the shared stores: the thread
             * waits for the memory latency once per chunk, not once per piece. */
            float4 v[AP_PIECES_PER_THREAD];
#pragma unroll
            for (int j = 0; j < AP_PIECES_PER_THREAD; j++) {
                async_pipeline_piece x =
                    async_pipeline_locate(threadIdx.x + j * AP_THREADS, row0, kc, m);
                v[j] = x.inside ? __ldcg((const float4 *)((const float *)in + x.src))
                                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
#pragma unroll
            for (int j = 0; j < AP_PIECES_PER_THREAD; j++)
                a_s[async_pipeline_locate(threadIdx.x + j * AP_THREADS, row0, kc, m).slot] = v[j];
            __syncthreads(); /* the chunk (and, the first time, W) is complete */
            async_pipeline_compute_chunk(a_s, w_s, kc, acc);
            __syncthreads(); /* everyone is done with it before the next chunk overwrites it */
        }
        async_pipeline_store_tile(out, row0, m, acc);
    }
}

/* ---- Optimized: the same chunks through a ring of STAGES stages, filled STAGES-1 ahead. ---- */

/* The three cp.async wrappers below are repeated in kernels/tma_pipeline.cu on purpose: each kernel
 * file reads alone. cp.async.cg: 16 bytes global -> shared, cached in L2 only, without passing
 * through registers and without stalling the thread. src_bytes = 0 reads nothing and writes 16 zero
 * bytes. */
static __device__ __forceinline__ void async_pipeline_cp_async16(uint32_t dst, const float *src,
                                                                 uint32_t src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(__cvta_generic_to_global(src)), "r"(src_bytes)
                 : "memory");
}

static __device__ __forceinline__ void async_pipeline_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most n of this thread's committed groups are still pending. */
template <int n> static __device__ __forceinline__ void async_pipeline_cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory");
}

/* This block's chunk c (its tiles in order, 32 chunks each: tile blockIdx.x + (c / 32) grid,
 * chunk c % 32) into the stage at shared address `stage`: this thread's 8 pieces. */
static __device__ __forceinline__ void
async_pipeline_issue_chunk(uint32_t stage, const float *__restrict__ in, int c, int m)
{
    const int row0 = (blockIdx.x + (c / AP_CHUNKS) * gridDim.x) * AP_TM, kc = c % AP_CHUNKS;
#pragma unroll
    for (int j = 0; j < AP_PIECES_PER_THREAD; j++) {
        async_pipeline_piece x = async_pipeline_locate(threadIdx.x + j * AP_THREADS, row0, kc, m);
        async_pipeline_cp_async16(stage + 16u * x.slot, in + x.src, x.inside ? 16u : 0u);
    }
}

static __global__ void __launch_bounds__(AP_THREADS, 1)
    async_pipeline_optimized_kernel(const float4 *__restrict__ in, const float4 *__restrict__ w,
                                    float *__restrict__ out, int m, int n_tiles)
{
    extern __shared__ float4 async_pipeline_smem[]; /* W, then STAGES chunks */
    float4 *w_s = async_pipeline_smem, *ring = async_pipeline_smem + AP_W_BYTES / 16;
    const uint32_t ring_u32 = async_pipeline_smem_u32(ring);
    const float *in_f = (const float *)in;
    /* The block's chunks form one stream across its tiles, so loading ahead crosses tile ends. */
    const int my_tiles = blockIdx.x < n_tiles ? (n_tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    const int n_chunks = my_tiles * AP_CHUNKS;

    /* Prologue: chunks 0 .. STAGES-2 into stages 0 .. STAGES-2, one group each; W meanwhile. */
#pragma unroll
    for (int s = 0; s < AP_STAGES - 1; s++) {
        if (s < n_chunks)
            async_pipeline_issue_chunk(ring_u32 + s * AP_CHUNK_BYTES, in_f, s, m);
        async_pipeline_cp_async_commit();
    }
    async_pipeline_load_w(w_s, w);
    float acc[AP_TR][AP_TC] = {};
    int s_read = 0, s_write = AP_STAGES - 1; /* stage of chunk c; stage for chunk c + STAGES-1 */
    for (int c = 0; c < n_chunks; c++) {
        /* Before iteration c, STAGES-1 + c groups are committed; at most STAGES-2 pending means
         * groups 0 .. c, so chunk c, are complete (for this thread's copies). */
        async_pipeline_cp_async_wait<AP_STAGES - 2>();
        /* Makes every thread's copies of chunk c (and W) visible, and guarantees every thread
         * has finished computing chunk c-1, whose stage (s_write) is refilled next. */
        __syncthreads();
        if (c + AP_STAGES - 1 < n_chunks)
            async_pipeline_issue_chunk(ring_u32 + s_write * AP_CHUNK_BYTES, in_f, c + AP_STAGES - 1,
                                       m);
        async_pipeline_cp_async_commit(); /* possibly empty: keeps one group per iteration */
        async_pipeline_compute_chunk(ring + s_read * (AP_CHUNK_BYTES / 16), w_s, c % AP_CHUNKS,
                                     acc);
        if (c % AP_CHUNKS == AP_CHUNKS - 1)
            async_pipeline_store_tile(out, (blockIdx.x + (c / AP_CHUNKS) * gridDim.x) * AP_TM, m,
                                      acc);
        s_read = s_read + 1 == AP_STAGES ? 0 : s_read + 1;
        s_write = s_write + 1 == AP_STAGES ? 0 : s_write + 1;
    }
    /* Every copy issued was for a chunk this block then waited for: none is left in flight. */
}

/* ---- Setup: the trusted reference, and the launchers. ---- */

/* The trusted reference: one thread per output, plain loads, fp64 accumulation in k order. */
static __global__ void async_pipeline_reference_kernel(const float *__restrict__ in,
                                                       const float *__restrict__ w,
                                                       float *__restrict__ ref, int m)
{
    const size_t n = (size_t)m * AP_N;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / AP_N, col = i % AP_N;
        double acc = 0.0;
        for (int k = 0; k < AP_K; k++)
            acc += (double)in[r * AP_K + k] * (double)w[(size_t)k * AP_N + col];
        ref[i] = (float)acc;
    }
}

typedef struct async_pipeline_launch {
    const void *kernel;
    int smem_bytes;
} async_pipeline_launch;

static async_pipeline_launch async_pipeline_variant(int variant)
{
    async_pipeline_launch l;
    l.kernel = variant == 0 ? (const void *)async_pipeline_baseline_kernel
                            : (const void *)async_pipeline_optimized_kernel;
    l.smem_bytes = variant == 0 ? AP_BASELINE_SMEM : AP_OPTIMIZED_SMEM;
    return l;
}

/* The blocks per SM that the baseline (variant 0) or optimized (1) kernel fits: both 1 (their
 * shared memory: W alone is 128 KB of the 227 KB). Opts the kernel in to its dynamic shared
 * memory first (above 48 KB a kernel must; a host-side attribute, no sync). */
extern "C" cudaError_t async_pipeline_max_blocks_per_sm(int variant, int *blocks_per_sm)
{
    async_pipeline_launch l = async_pipeline_variant(variant);
    cudaError_t e =
        cudaFuncSetAttribute(l.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, l.smem_bytes);
    if (e != cudaSuccess)
        return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, l.kernel, AP_THREADS,
                                                         l.smem_bytes);
}

/* The persistent grid: (blocks per SM the kernel fits) x SMs, no more blocks than tiles; or
 * blocks_per_sm x SMs when blocks_per_sm > 0 (the extras' sweep). */
static cudaError_t async_pipeline_grid(int variant, int m, int blocks_per_sm, int *n_tiles,
                                       int *blocks)
{
    int dev = 0, sms = 0, fit = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = async_pipeline_max_blocks_per_sm(variant, &fit);
    if (e != cudaSuccess)
        return e;
    *n_tiles = (m + AP_TM - 1) / AP_TM;
    const long long want = (long long)sms * (blocks_per_sm > 0 ? blocks_per_sm : fit);
    *blocks = (long long)*n_tiles < want ? *n_tiles : (int)want;
    return *blocks > 0 ? cudaSuccess : cudaErrorInvalidConfiguration;
}

/* in: m x 1024, w: 1024 x 32, out: m x 32, fp32 row-major, 16-byte aligned; 1 <= m <= 2^22.
 * blocks_per_sm: 0 for the kernel's best (all it fits). */
static cudaError_t async_pipeline_launch_variant(int variant, const float *in, const float *w,
                                                 float *out, int m, int blocks_per_sm,
                                                 cudaStream_t stream)
{
    int n_tiles = 0, blocks = 0;
    cudaError_t e = async_pipeline_grid(variant, m, blocks_per_sm, &n_tiles, &blocks);
    if (e != cudaSuccess)
        return e;
    const size_t smem = (size_t)async_pipeline_variant(variant).smem_bytes;
    if (variant == 0)
        async_pipeline_baseline_kernel<<<blocks, AP_THREADS, smem, stream>>>(
            (const float4 *)in, (const float4 *)w, out, m, n_tiles);
    else
        async_pipeline_optimized_kernel<<<blocks, AP_THREADS, smem, stream>>>(
            (const float4 *)in, (const float4 *)w, out, m, n_tiles);
    return cudaGetLastError();
}

extern "C" cudaError_t async_pipeline_baseline(const float *in, const float *w, float *out, int m,
                                               int blocks_per_sm, cudaStream_t stream)
{
    return async_pipeline_launch_variant(0, in, w, out, m, blocks_per_sm, stream);
}

extern "C" cudaError_t async_pipeline_optimized(const float *in, const float *w, float *out, int m,
                                                int blocks_per_sm, cudaStream_t stream)
{
    return async_pipeline_launch_variant(1, in, w, out, m, blocks_per_sm, stream);
}

extern "C" cudaError_t async_pipeline_reference(const float *in, const float *w, float *ref, int m,
                                                cudaStream_t stream)
{
    size_t n = (size_t)m * AP_N, blocks = (n + 255) / 256;
    if (blocks > 8192)
        blocks = 8192; /* the kernel strides over the rest */
    async_pipeline_reference_kernel<<<(unsigned)blocks, 256, 0, stream>>>(in, w, ref, m);
    return cudaGetLastError();
}

/* The dynamic shared memory each variant's kernel needs per block (variant 0: baseline). */
extern "C" int async_pipeline_smem_bytes(int variant)
{
    return async_pipeline_variant(variant).smem_bytes;
}

/* The shape the kernels are built for: *k = K, *n = N. */
extern "C" void async_pipeline_dims(int *k, int *n)
{
    *k = AP_K;
    *n = AP_N;
}

/* The kernels each variant launches, as launched (harness/kit/kernel_info.h); the reference kernel
 * runs in setup only. */
extern "C" const rb_kernel_info async_pipeline_kernels[] = {
    {"baseline", "async_pipeline_baseline_kernel", (const void *)async_pipeline_baseline_kernel,
     AP_THREADS, AP_BASELINE_SMEM},
    {"optimized", "async_pipeline_optimized_kernel", (const void *)async_pipeline_optimized_kernel,
     AP_THREADS, AP_OPTIMIZED_SMEM},
    {}};
