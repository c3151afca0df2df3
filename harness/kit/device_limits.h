/* SPDX-License-Identifier: MIT */
/*
 * Per-architecture limits for device code, so that one kernel source builds for every ARCH the
 * Makefile accepts. RB_MAX_THREADS_PER_SM: resident threads per SM of the architecture being
 * compiled (for __launch_bounds__ minimum-blocks arguments): 1536 on sm_86, sm_87, sm_89 and
 * sm_120, 2048 on sm_80, sm_90 and sm_100.
 */
#ifndef RB_DEVICE_LIMITS_H
#define RB_DEVICE_LIMITS_H

#if defined(__CUDA_ARCH__) &&                                                                      \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define RB_MAX_THREADS_PER_SM 1536
#else
#define RB_MAX_THREADS_PER_SM 2048
#endif

#endif
