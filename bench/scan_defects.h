/* SPDX-License-Identifier: MIT */
/*
 * scan's planted race, a kernel of its own (bench/scan_defects.cu; the lesson in kernels/scan.cu
 * holds none): for tests/test_gpu.c through bench/scan.c's rb_defect table, never timed.
 */
#ifndef RB_BENCH_SCAN_DEFECTS_H
#define RB_BENCH_SCAN_DEFECTS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A chained scan (one pass, a tile after the other): each tile waits for its predecessor's flag,
 * reads the predecessor's last output element as its carry, writes its own outputs and then sets
 * its flag. The scratch (scan_defect_chained_scratch bytes) holds the tile counter and the flags;
 * the launcher clears the counter before every launch, but the flags only when clear_flags: the
 * race, a launch whose flags were left set by the one before, so that every tile reads its
 * carry from the output before its predecessor has written it (the harness poisons the output
 * before every checked run: the carry read is that poison). Cleared once, at setup, the first
 * launch is right; every later one is not. int32 (1 <= n < 2^31). */
size_t scan_defect_chained_scratch(size_t n);
cudaError_t scan_defect_chained_i32(const int32_t *in, int32_t *out, size_t n, void *scratch,
                                    int clear_flags, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
