/* SPDX-License-Identifier: MIT */
/*
 * The Hopper PTX wrappers that the sm_90 pairs (hgemm, tma_pipeline, attention) share: mbarrier,
 * 2D TMA loads, wgmma's fence/commit/wait, setmaxnreg, and the descriptor of a K-major
 * 128B-swizzled wgmma operand; and, on the host, the driver's tensor-map encoder. Each wrapper is one asm statement (or the loop
 * around one) whose constraints, clobbers, state spaces and scopes are part of its contract: a
 * form that differs in any of them (a cluster-scope arrive, a multicast load, a TMA store, a
 * descriptor of another layout) is another wrapper, and stays in the kernel file that uses it,
 * beside the wgmma calls of that kernel's own shapes.
 *
 * Guards follow the callers'. The mbarrier and TMA forms are sm_90 PTX, defined for any
 * __CUDA_ARCH__ >= 900 (tma_pipeline's TMA kernel builds for sm_100 and sm_120 too). wgmma and
 * setmaxnreg exist only in the arch-specific sm_90a target (ARCH=sm_90 builds sm_90a, which
 * defines __CUDA_ARCH_FEAT_SM90_ALL), where hgemm's and attention's sm_90 kernels are built. Below
 * sm_90 only sm90_smem_u32 is defined, and the callers' sm_90 kernels are traps there.
 */
#ifndef RB_SM90_PTX_CUH
#define RB_SM90_PTX_CUH

#include <cuda.h> /* CUtensorMap */
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stdint.h>

/* Host: cuTensorMapEncodeTiled from the driver, found once per file that includes this (nothing
 * links -lcuda); cudaErrorNotSupported when the driver has none. */
static inline cudaError_t sm90_tensor_map_encoder(PFN_cuTensorMapEncodeTiled_v12000 *out)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    if (encode == NULL) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                         cudaEnableDefault, &found);
        if (e != cudaSuccess)
            return e;
        if (found != cudaDriverEntryPointSuccess || fn == NULL)
            return cudaErrorNotSupported;
        encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }
    *out = encode;
    return cudaSuccess;
}

/* The 32-bit shared-state-space address of p (a pointer into shared memory), the form the PTX
 * below takes for [shared] operands. */
static __device__ __forceinline__ uint32_t sm90_smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/* ---- mbarrier (a 64-bit barrier in shared memory at address bar, 8-byte aligned) ---- */

static __device__ __forceinline__ void sm90_mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* Publishes the mbarrier.init's to the other threads, the async proxy (TMA) and the cluster's
 * other CTAs; a __syncthreads or cluster barrier must follow before any use. */
static __device__ __forceinline__ void sm90_fence_mbar_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* One arrival, and `bytes` more expected from complete_tx before the phase can complete. */
static __device__ __forceinline__ void sm90_mbar_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* One arrival on this CTA's barrier (default semantics: release, CTA scope). */
static __device__ __forceinline__ void sm90_mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* Returns once the phase with this parity has completed (acquire, CTA scope: the TMA writes that
 * completed it are then visible). A barrier in its first phase reports parity 1 complete, so a
 * producer's first wait on an empty barrier passes. The "memory" clobber keeps the compiler from
 * hoisting the guarded reads above the loop. */
static __device__ __forceinline__ void sm90_mbar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    do {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* ---- TMA ---- */

/* The box of a 2D tensor map at coordinates (x = inner, y = outer) into shared dst; completion
 * (the box's bytes, zero-filled parts past the tensor's edges included) is reported to the
 * mbarrier bar. The .shared::cluster destination with a CTA-local address is this CTA's. */
static __device__ __forceinline__ void sm90_tma_load_2d(uint32_t dst, const CUtensorMap *map, int x,
                                                        int y, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}

/* Brings the tensor map (a __grid_constant__ kernel parameter) into the descriptor cache before
 * the first copy needs it. */
static __device__ __forceinline__ void sm90_prefetch_map(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}

#endif /* __CUDA_ARCH__ >= 900 */

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

/* ---- wgmma (sm_90a) ---- */

/* The descriptor of a K-major, 128B-swizzled operand at shared address addr (PTX ISA, "Matrix
 * Descriptor Format"): start >> 4, LBO 1 (unused when swizzled), SBO 1024 >> 4 (the next group
 * of 8 rows of 128 bytes), swizzle mode 1 (128B) in bits 62-63. */
static __device__ __forceinline__ uint64_t sm90_desc_k128(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) |
           ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}

/* Orders this thread's earlier register (accumulator) and shared-memory accesses before the
 * wgmmas that follow; required before the first wgmma of a batch. */
static __device__ __forceinline__ void sm90_wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void sm90_wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Waits until at most N of the warpgroup's committed wgmma groups are pending. */
template <int N> static __device__ __forceinline__ void sm90_wgmma_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Tells the compiler these registers may have changed here (an asynchronous wgmma wrote or read
 * them), so that it neither moves their uses above a wait nor keeps stale copies or reuses them
 * while one is in flight. Emits nothing. */
template <int N> static __device__ __forceinline__ void sm90_fence_f(float (&x)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++)
        asm volatile("" : "+f"(x[i])::"memory");
}

/* ---- warpgroup registers ---- */

/* setmaxnreg: the whole warpgroup executes it; dec returns registers to the SM's pool, inc
 * blocks until the pool has enough. */
template <int R> static __device__ __forceinline__ void sm90_setmaxnreg_dec(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}

template <int R> static __device__ __forceinline__ void sm90_setmaxnreg_inc(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}

#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

#endif /* RB_SM90_PTX_CUH */
