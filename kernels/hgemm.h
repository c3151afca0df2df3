/* SPDX-License-Identifier: MIT */
/*
 * The seam between kernels/hgemm.cu and bench/hgemm.c (both include it).
 *
 * Every launcher computes C = A B with bf16 inputs, fp32 accumulation and bf16 output (round to
 * nearest even), for any 1 <= m, n and 1 <= k with k % 8 == 0 (TMA and 16-byte cp.async need
 * row strides that are multiples of 16 bytes; bench/hgemm.c refuses other K with a clear
 * message). Layouts:
 *   a: m x k row-major, compact (K-major: each row of A is one output row's K values)
 *   b: n x k row-major, compact (K-major too: B stored column-major, i.e. B^T row-major)
 *   c: m x n row-major, ldc >= n elements between the starts of consecutive rows
 * Both operands K-major is the layout wgmma reads from shared memory without transposition and
 * what cuBLASLt's TN GEMM uses. Values are raw bf16 bits (uint16_t) so plain C can hold them.
 * Pointers are 16-byte aligned (cudaMalloc), so k % 8 == 0 makes every row of A and B start
 * 16-byte aligned, and ldc % 8 == 0 every row of C (the layout a user pads C to: step 6 then
 * stores C with the TMA, which needs a row stride of a multiple of 16 bytes; with any other ldc
 * it stores from registers). Columns n .. ldc - 1 of C are never written. Edges (m, n not
 * multiples of a tile, k not a multiple of the K tile) are handled in the kernel: zero fill on
 * load, predicated stores. ldc < n is refused (cudaErrorInvalidValue).
 *
 * Each launcher enqueues on stream and returns cudaGetLastError() (or the error of its own
 * set-up, e.g. cudaFuncSetAttribute or tensor-map encoding); it never synchronizes.
 */
#ifndef RB_KERNELS_HGEMM_H
#define RB_KERNELS_HGEMM_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder, one idea per step (kernels/hgemm.cu explains each). */
cudaError_t hgemm_mma_sync(const uint16_t *a, const uint16_t *b, uint16_t *c, int m, int n, int k,
                           int ldc, cudaStream_t stream);
cudaError_t hgemm_cp_async(const uint16_t *a, const uint16_t *b, uint16_t *c, int m, int n, int k,
                           int ldc, cudaStream_t stream);
cudaError_t hgemm_wgmma(const uint16_t *a, const uint16_t *b, uint16_t *c, int m, int n, int k,
                        int ldc, cudaStream_t stream);
cudaError_t hgemm_tma(const uint16_t *a, const uint16_t *b, uint16_t *c, int m, int n, int k,
                      int ldc, cudaStream_t stream);
cudaError_t hgemm_warp_specialized(const uint16_t *a, const uint16_t *b, uint16_t *c, int m, int n,
                                   int k, int ldc, cudaStream_t stream);
cudaError_t hgemm_clusters(const uint16_t *a, const uint16_t *b, uint16_t *c, int m, int n, int k,
                           int ldc, cudaStream_t stream);
cudaError_t hgemm_optimized(const uint16_t *a, const uint16_t *b, uint16_t *c, int m, int n, int k,
                            int ldc, cudaStream_t stream);

/* Step 1 with a planted bug, for bench/hgemm.c's defects (tests/test_gpu.c requires the check
 * to catch each): HGEMM_DEFECT_K_TAIL, the K loop stops one HGEMM_BK tile early (K rounded down
 * to a multiple of 32, one tile less when it is one already); HGEMM_DEFECT_EDGE_ROW, the A
 * loader's row guard is off by one (row < m - 1), so the last row of A reads as zeros and C's
 * last row is 0; HGEMM_DEFECT_PAD_WRITE, the store guard takes ldc for n (the row stride for the
 * row length), so the last column tile also writes C's padding columns n .. ldc - 1 (zeros:
 * B's rows past n load as zeros), every value inside m x n still right. HGEMM_DEFECT_NONE:
 * hgemm_mma_sync. */
enum {
    HGEMM_DEFECT_NONE = 0,
    HGEMM_DEFECT_K_TAIL = 1,
    HGEMM_DEFECT_EDGE_ROW = 2,
    HGEMM_DEFECT_PAD_WRITE = 3
};
cudaError_t hgemm_mma_sync_defect(const uint16_t *a, const uint16_t *b, uint16_t *c, int m, int n,
                                  int k, int ldc, int defect, cudaStream_t stream);

/* FP8 E4M3 form of the top step: a (m x k) and b (n x k) are e4m3 bytes, K-major as above, with
 * per-tensor scales: C = (scale_a scale_b) (A B), fp32 accumulation, bf16 output. k % 16 == 0. */
cudaError_t hgemm_fp8_optimized(const uint8_t *a, const uint8_t *b, uint16_t *c, int m, int n,
                                int k, int ldc, float scale_a, float scale_b, cudaStream_t stream);

/* Where steps 6-7 and FP8 stage C for their TMA stores, for tests/test_hgemm_epilogue.c (no
 * GPU): the byte offset, in one consumer warpgroup's buffer of two 64 x 64 bf16 boxes (128B
 * swizzle), of the pair lane `lane` of warp `warp` holds in 8-column group jj (of the buffer),
 * half h, as the epilogue's st.shared.u32 writes it. */
uint32_t hgemm_c_pair_offset(int warp, int lane, int jj, int h);

/* Setup: one side's count inputs from rb_uniform_f32(seed, i): bf16, e4m3 of x / scale and
 * that e4m3 value times scale in bf16 (exact; the FP8 variants' truth). scale: a power of two. */
cudaError_t hgemm_fill_inputs(uint16_t *bf16, uint8_t *e4m3, uint16_t *fp8_truth, size_t count,
                              uint64_t seed, float scale, cudaStream_t stream);

/* The kernels each variant launches, {0}-terminated (rb_pair.kernels). */
extern const rb_kernel_info hgemm_kernels[];

#ifdef __cplusplus
}
#endif

#endif
