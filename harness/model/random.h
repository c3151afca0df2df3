/* SPDX-License-Identifier: MIT */
/*
 * Seeded, counter-based random inputs: element i of a stream is a pure function of (seed, i),
 * so the GPU fills large inputs in place and the CPU recomputes any element bit-exactly for a
 * reference. Under nvcc the functions are __host__ __device__ (RB_HOST_DEVICE): the GPU fill
 * (harness/kit/gpu_kernels.cu) and the kernels that regenerate inputs run this same code, so there is
 * no device copy to keep in step.
 */
#ifndef RB_RANDOM_H
#define RB_RANDOM_H

#include <stdint.h>

#ifdef __CUDACC__
#define RB_HOST_DEVICE __host__ __device__
#else
#define RB_HOST_DEVICE
#endif

/* splitmix64's finalizer: a bijective 64-bit mix. */
RB_HOST_DEVICE static inline uint64_t rb_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Uniform in (-1, 1), never exactly zero: the odd integers 2b + 1 - 2^24 for 24 random bits b,
 * scaled by 2^-24. Every step is exact in float (|2b + 1 - 2^24| < 2^24), so the CPU and the GPU
 * agree bit for bit and no rounding can land on 0 or 1. */
RB_HOST_DEVICE static inline float rb_uniform_f32(uint64_t seed, uint64_t i)
{
    uint32_t bits = (uint32_t)(rb_mix64(seed ^ rb_mix64(i)) >> 40);
    return (float)((int32_t)(2u * bits + 1u) - 16777216) * (1.0f / 16777216.0f);
}

#endif
