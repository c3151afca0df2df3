/* SPDX-License-Identifier: MIT */
/* The seam between bench/async_pipeline.c and bench/tma_pipeline.c, which shares its image,
 * reference, check and baseline run (defined in bench/async_pipeline.c, see there). */
#ifndef RB_BENCH_ASYNC_PIPELINE_H
#define RB_BENCH_ASYNC_PIPELINE_H

#include "pair.h"

int async_pipeline_shape(rb_size *size, char *why, size_t why_size);
double async_pipeline_flops(const rb_size *size);
double async_pipeline_bytes(const rb_size *size);
rb_status async_pipeline_setup(void **ctx, const rb_size *size, uint64_t seed, int input);
void async_pipeline_output(void *ctx, int variant, void **dev_ptr, size_t *bytes);
rb_status async_pipeline_check(void *ctx, int variant, cudaStream_t stream, double *rel_err);
void async_pipeline_teardown(void *ctx);
int async_pipeline_selftest(char *why, size_t why_size);
rb_status async_pipeline_run_optimized(void *ctx, cudaStream_t stream);
void async_pipeline_image(void *ctx, const float **in, float **out, int *rows, int *cols,
                          int *pitch);

#endif
