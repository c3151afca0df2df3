/* SPDX-License-Identifier: MIT */
/*
 * The harness's own device code (harness/kit/gpu_kernels.cu): input fills, the device-side
 * comparison that checks large outputs, the conversions of the GEMM references
 * (harness/kit/gemm_ref.h) and the L2 flush. Pairs use the first three from bench/<pair>.c. (The
 * ceiling kernels: harness/runner/ceilings_kernels.h.)
 */
#ifndef RB_GPU_H
#define RB_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* d[i] = rb_uniform_f32(seed, i) (harness/model/random.h), bit-exact with the CPU. */
cudaError_t rb_fill_uniform_f32(float *d, size_t n, uint64_t seed, cudaStream_t stream);

/* Normwise relative error ||out - ref|| / ||ref|| over n floats, accumulated in double on the
 * device; NaN or Inf anywhere makes it NaN or Inf. Synchronizes the stream. */
cudaError_t rb_relerr_f32_device(const float *out, const float *ref, size_t n, cudaStream_t stream,
                                 double *rel_err);

/* The same for a bf16 output (raw __nv_bfloat16 bits) against an fp32 reference. */
cudaError_t rb_relerr_bf16_device(const void *out_bf16, const float *ref, size_t n,
                                  cudaStream_t stream, double *rel_err);

/* The largest error of one row, rows x cols of a bf16 output against an fp32 reference: the
 * device twin of rb_row_relerr_max_f32 (harness/model/compare.h; NaN anywhere: NaN).
 * Synchronizes the stream. */
cudaError_t rb_row_relerr_bf16_device(const void *out_bf16, const float *ref, size_t rows,
                                      size_t cols, cudaStream_t stream, double *max_err);

/* The fp64 reference GEMM's operands and result (harness/kit/gemm_ref.h): out[i] = in[i] widened
 * exactly from fp32 or bf16 (raw bits), or rounded once (to nearest) from fp64 to fp32. */
cudaError_t rb_f32_to_f64(const float *in, double *out, size_t n, cudaStream_t stream);
cudaError_t rb_bf16_to_f64(const void *in_bf16, double *out, size_t n, cudaStream_t stream);
cudaError_t rb_f64_to_f32(const double *in, float *out, size_t n, cudaStream_t stream);

/* Reads every byte of buf (sized >= 2x L2, zero-filled once by its owner) so that no line of the
 * timed data stays in L2 and every line left there is clean. */
cudaError_t rb_flush_l2(void *buf, size_t bytes, cudaStream_t stream);

/* One thread that spins until *flag (mapped, pinned host memory the host sets to nonzero) is
 * nonzero, or timeout_ns of the GPU's global timer have passed (a host that dies or a queue
 * that blocks the host cannot hang the GPU); then it stores to *timed_out (device memory; NULL:
 * not reported) 1 if it gave up, else 0. A stream it holds lets the host queue work behind it
 * that then runs as the GPU executes it, not as fast as the host can enqueue it. Enqueue only. */
cudaError_t rb_latch(const volatile int *flag, unsigned long long timeout_ns, int *timed_out,
                     cudaStream_t stream);

/* Launches rb_profile_mark_kernel, which does nothing, with the grid (variant + 1, pair + 1,
 * input + 1): the mark that opens a profile window (model/profile.h, RB_PROFILE_MARK_KERNEL). */
cudaError_t rb_profile_mark(int variant, int pair, int input, cudaStream_t stream);

/* Launches a kernel that stores to an invalid address (the watchdog tests' illegal address). */
cudaError_t rb_fault_illegal_address(cudaStream_t stream);

/* cudaSuccess when this binary has machine code (or PTX) that runs on the current device;
 * cudaErrorNoKernelImageForDevice when it was built for another architecture. */
cudaError_t rb_gpu_image_check(void);

#ifdef __cplusplus
}
#endif

#endif
