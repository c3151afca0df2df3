/* SPDX-License-Identifier: MIT */
#include "gemm_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "pair_util.h"

int rb_gemm_square_shape(rb_size *s, uint64_t max_dim, const char *rule, char *why,
                         size_t why_size)
{
    if (s->rows == 0) {
        uint64_t r = rb_isqrt(s->n);
        s->rows = s->cols = r;
        s->n = r * r;
    }
    if (s->rows == 0 || s->cols == 0 || s->rows > max_dim || s->cols > max_dim ||
        s->rows > UINT64_MAX / s->cols || s->n != s->rows * s->cols) {
        rb_fmt(why, why_size, "%s", rule);
        return -1;
    }
    return 0;
}

double rb_bf16_to_double(uint16_t bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

rb_status rb_gemm_ref_alloc(rb_gemm_ref *g, size_t a_elems, size_t b_elems, size_t c_elems)
{
    RB_CUDA(cudaMalloc((void **)&g->a, a_elems * sizeof(double)));
    RB_CUDA(cudaMalloc((void **)&g->b, b_elems * sizeof(double)));
    RB_CUDA(cudaMalloc((void **)&g->c, c_elems * sizeof(double)));
    return RB_OK;
}

rb_status rb_gemm_ref_dgemm(const rb_gemm_ref *g, cublasHandle_t blas, int b_n_by_k, size_t m,
                            size_t n, size_t k, size_t lda, size_t ldb)
{
    const double one = 1.0, zero = 0.0;
    RB_CUBLAS(cublasDgemm(blas, b_n_by_k ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m,
                          (int)k, &one, g->b, (int)ldb, g->a, (int)lda, &zero, g->c, (int)n));
    return RB_OK;
}

rb_status rb_gemm_ref_free(rb_gemm_ref *g)
{
    cudaError_t ea = cudaFree(g->a), eb = cudaFree(g->b), ec = cudaFree(g->c);
    g->a = g->b = g->c = NULL;
    RB_CUDA(ea);
    RB_CUDA(eb);
    RB_CUDA(ec);
    return RB_OK;
}

rb_status rb_gemm_relerr_padded(const void *out, void *packed, size_t rows, size_t cols, size_t ld,
                                size_t elem, const float *ref, cudaStream_t stream,
                                double *rel_err)
{
    if (packed) {
        RB_CUDA(cudaMemcpy2DAsync(packed, cols * elem, out, ld * elem, cols * elem, rows,
                                  cudaMemcpyDeviceToDevice, stream));
        out = packed;
    }
    if (elem == sizeof(float))
        RB_CUDA(rb_relerr_f32_device(out, ref, rows * cols, stream, rel_err));
    else
        RB_CUDA(rb_relerr_bf16_device(out, ref, rows * cols, stream, rel_err));
    return RB_OK;
}

rb_gemm_rows rb_gemm_rows_to_check(size_t m, int all)
{
    rb_gemm_rows r = {{0, m / 2, m - 1}, all ? 1 : 3, all ? m : 1};
    return r;
}

rb_status rb_gemm_crosscheck(const rb_gemm_check *x)
{
    rb_gemm_rows rows = rb_gemm_rows_to_check(x->m, x->all);
    void *a = malloc(rows.per * x->a_row_bytes), *b = malloc(x->b_bytes);
    float *ref = malloc(rows.per * x->n * sizeof *ref);
    rb_status st = (a && b && ref) ? RB_OK : RB_ERR_ALLOC;
    if (st == RB_OK && cudaMemcpy(b, x->b, x->b_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        rb_error_at(__FILE__, __LINE__, "cudaMemcpy", "reading B back failed");
        st = RB_ERR_CUDA;
    }
    for (size_t i = 0; st == RB_OK && i < rows.n_blocks; i++) {
        size_t r = rows.first[i];
        if (cudaMemcpy(a, (const char *)x->a + r * x->a_row_bytes, rows.per * x->a_row_bytes,
                       cudaMemcpyDeviceToHost) != cudaSuccess) {
            rb_error_at(__FILE__, __LINE__, "cudaMemcpy", "reading A back failed");
            st = RB_ERR_CUDA;
            break;
        }
        x->cpu(a, b, rows.per, x->arg, ref);
        st = rb_crosscheck_reference(x->pair, x->ref + r * x->n, ref, rows.per * x->n, 1e-6);
    }
    free(a);
    free(b);
    free(ref);
    return st;
}

int rb_lt_algo_describe(const cublasLtMatmulAlgo_t *algo, int candidate_index, rb_library_algo *out)
{
    static const cublasLtMatmulAlgoConfigAttributes_t attrs[] = {
        CUBLASLT_ALGO_CONFIG_ID,
        CUBLASLT_ALGO_CONFIG_TILE_ID,
        CUBLASLT_ALGO_CONFIG_STAGES_ID,
        CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
        CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
        CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING,
        CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION};
    long long *const values[] = {
        &out->algo_id,          &out->tile,    &out->stages,       &out->splitk,
        &out->reduction_scheme, &out->swizzle, &out->custom_option};
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        /* every one of these is a 32-bit integer: int32_t (ID, SPLITK_NUM) or uint32_t */
        uint32_t word = 0;
        size_t written = 0;
        if (cublasLtMatmulAlgoConfigGetAttribute(algo, attrs[i], &word, sizeof word, &written) !=
                CUBLAS_STATUS_SUCCESS ||
            written != sizeof word) {
            memset(out, 0, sizeof *out);
            return 0;
        }
        int is_signed =
            attrs[i] == CUBLASLT_ALGO_CONFIG_ID || attrs[i] == CUBLASLT_ALGO_CONFIG_SPLITK_NUM;
        *values[i] = is_signed ? (long long)(int32_t)word : (long long)word;
    }
    rb_fmt(out->kind, sizeof out->kind, "cublasLt");
    out->candidate_index = candidate_index;
    out->present = 1;
    return 1;
}
