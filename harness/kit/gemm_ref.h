/* SPDX-License-Identifier: MIT */
/*
 * What the GEMM pairs (sgemm, gemm_precision, gemm_autotune, gemm_epilogue; transpose for the
 * status macro) share: cuBLAS status checks, the square-shape rule of --size N, the trusted fp64
 * reference GEMM on the device, and its CPU cross-check on a few rows.
 *
 * Layouts are row-major, as the pairs store them. cuBLAS is column-major, so the row-major
 * C = A B is computed as C^T = B^T A^T: a row-major R x C buffer is a column-major C x R matrix
 * (its transpose) with the same leading dimension.
 */
#ifndef RB_GEMM_REF_H
#define RB_GEMM_REF_H

/* cublasLt.h declares cublasLtLoggerForceDisable() without a prototype (CUDA 13.0). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop
#include <cublas_v2.h>

#include "pair.h"

/* cublasStatus_t failures -> rb_error_at + RB_ERR_CUDA (cuBLASLt returns cublasStatus_t too). */
#define RB_CUBLAS(call)                                                                            \
    do {                                                                                           \
        cublasStatus_t rb_st_ = (call);                                                            \
        if (rb_st_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            rb_error_at(__FILE__, __LINE__, #call, cublasGetStatusString(rb_st_));                 \
            return RB_ERR_CUDA;                                                                    \
        }                                                                                          \
    } while (0)

/* The square-shape rule: --size N (rows == 0) gives rows = cols = floor(sqrt(N)) exactly and
 * N = rows x cols; --size RxC is taken as given. 0 when 1 <= rows, cols <= max_dim, else -1
 * with `rule` (the pair's sentence for its limits) in why. */
int rb_gemm_square_shape(rb_size *s, uint64_t max_dim, const char *rule, char *why,
                         size_t why_size);

/* The configuration of a cuBLASLt algorithm (cublasLtMatmulAlgoConfigGetAttribute: ID, tile,
 * stages, split-K, reduction scheme, CTA swizzling, custom option) and candidate_index, its
 * place in the heuristic's list (-1: unknown), into out, for a pair's library_algo hook. 1, or 0
 * when cuBLASLt cannot tell (out->present then 0). */
int rb_lt_algo_describe(const cublasLtMatmulAlgo_t *algo, int candidate_index,
                        rb_library_algo *out);

/* A bf16 value (raw bits) widened exactly. */
double rb_bf16_to_double(uint16_t bits);

/* The fp64 operands of the reference GEMM, on the device: a pair widens its inputs into a and b
 * exactly (rb_f32_to_f64 or rb_bf16_to_f64 in harness/kit/gpu.h; gemm_precision's own kernel for its
 * scaled formats), rb_gemm_ref_dgemm computes c, and the pair rounds c into its reference
 * (rb_f64_to_f32, or gemm_epilogue's epilogue kernel). Setup only: rb_gemm_ref_free releases them before setup
 * returns, and teardown calls it again after a failed setup. */
typedef struct rb_gemm_ref {
    double *a, *b, *c;
} rb_gemm_ref;

/* cudaMalloc of the three buffers, in elements. */
rb_status rb_gemm_ref_alloc(rb_gemm_ref *g, size_t a_elems, size_t b_elems, size_t c_elems);
/* c (m x n, row-major, compact) = a b in fp64 by cublasDgemm on the default stream, with the
 * handle's math mode: a is m x k with row stride lda; b is k x n with row stride ldb, or, when
 * b_n_by_k, n x k with row stride ldb (b^T is used). Does not wait for the GPU. */
rb_status rb_gemm_ref_dgemm(const rb_gemm_ref *g, cublasHandle_t blas, int b_n_by_k, size_t m,
                            size_t n, size_t k, size_t lda, size_t ldb);
/* Frees the buffers (NULL ones too) and sets them NULL. */
rb_status rb_gemm_ref_free(rb_gemm_ref *g);

/* The check of a padded GEMM output: out is rows x cols elements of elem bytes (4: fp32, 2: bf16)
 * stored with a row stride of ld elements; the padding columns are dropped into packed (rows x
 * cols, on the device; NULL when ld == cols) first, then the normwise error against ref (rows x
 * cols fp32) is computed on the device (harness/kit/gpu.h). */
rb_status rb_gemm_relerr_padded(const void *out, void *packed, size_t rows, size_t cols, size_t ld,
                                size_t elem, const float *ref, cudaStream_t stream,
                                double *rel_err);

/* The rows the CPU checks: every row (one block of per = m rows) when the problem is small,
 * else rows 0, M/2 and M-1 one at a time (each covers every column, so the right-edge tiles
 * too; row M-1 lies in the bottom-edge tiles). */
typedef struct rb_gemm_rows {
    size_t first[3]; /* first row of each block */
    size_t n_blocks, per;
} rb_gemm_rows;
rb_gemm_rows rb_gemm_rows_to_check(size_t m, int all);

/* The CPU cross-check of a reference GEMM: reads b (b_bytes) back once, then for each block of
 * rows reads those rows of a (a_row_bytes each) back, has cpu() compute them (out: rows x n,
 * compact) and compares them with the same rows of ref (m x n floats on the device) within
 * 1e-6 (rb_crosscheck_reference; pair names it). */
typedef struct rb_gemm_check {
    const char *pair;
    const void *a, *b; /* device */
    size_t a_row_bytes, b_bytes;
    const float *ref; /* device */
    size_t m, n;
    int all; /* every row (small problems) or rows 0, M/2, M-1 */
    void (*cpu)(const void *a_rows, const void *b, size_t rows, const void *arg, float *out);
    const void *arg; /* what cpu() needs beyond the rows: sizes, strides, a bias */
} rb_gemm_check;
rb_status rb_gemm_crosscheck(const rb_gemm_check *x);

#endif
