/* SPDX-License-Identifier: MIT */
/*
 * nccl_allreduce: the collectives of data-parallel training (all-reduce, and the two halves it
 * is made of, reduce-scatter and all-gather) across every visible GPU of one machine, staged
 * through host memory vs NCCL. The three collectives are the pair's three inputs.
 *
 * What: n GPUs (ranks), rank r holding fp32 input x_r (the seeded stream seed + r), sum:
 *   allreduce       every rank gets y[i] = sum_r x_r[i], i < count
 *   allgather       every rank gets the concatenation x_0[0..c) x_1[0..c) ... x_{n-1}[0..c)
 *   reduce_scatter  rank r gets chunk r of the sum: y_r[j] = sum_q x_q[r c + j], j < c
 *   with count = S / 4 and c = S / (4 n) (at least 1), where S (bytes, the pair's size, as
 *   nccl-tests defines it) is the all-reduce buffer, the all-gather output, the reduce-scatter
 *   input. The sum is ncclSum on ncclFloat: the op whose fp32 form NVLink SHARP (NVLS) also
 *   runs, so on machines that enable NVLS the pair measures what nccl-tests measures by default
 *   (average and max are not NVLS ops for fp32; bench/nccl_allreduce.c explains what that
 *   choice costs the in-place variant).
 *
 * Work: 0 flops. bytes = S, so the GB/s column is nccl-tests' algorithm bandwidth
 *   algbw = S / t. The figure that compares across GPU counts is the bus bandwidth,
 *   busbw = algbw x 2(n-1)/n (all-reduce: a ring sends and receives that much per GPU) or
 *   algbw x (n-1)/n (all-gather, reduce-scatter); it is an extra beside the time, with algbw and
 *   the count of wrong elements. On one GPU busbw is 0 (nothing crosses a link) and NCCL's
 *   in-place collectives do nothing at all (out of place: one device-to-device copy).
 *   Sizes: a full run sweeps S = 8 B, 64 B, ..., 1 GiB (powers of 8): small sizes measure the
 *   latency of a collective, large ones its bandwidth. On a machine with one GPU it takes 1 GiB
 *   alone (nccl_allreduce_sweep_one_gpu): there nothing crosses a link, so the only figure that
 *   means the same as on several GPUs is the bandwidth plateau (NCCL's device copy against the
 *   host path's PCIe; 128 MiB was within 4% of 1 GiB's rates: 20261125T163337Z-1da3649.json).
 *   Below it, one GPU measures host work, not a collective (Reproducibility, below): rows at
 *   8 B or 2 MiB tell the user nothing about NCCL across GPUs and flap the regression verdicts
 *   of a one-GPU run (H100, every size timed,
 *   20261125T081152Z-317bbe9.json: NCCL's call ~5-6 us from 8 B to 256 KiB, host_staged ~42-50
 *   us at 8 B; 2 MiB was still latency-bound for NCCL). Several GPUs take the whole sweep: there
 *   every size tells where NCCL's protocols and algorithms change. `--size N` still runs any
 *   one size on one GPU.
 *
 * Baseline (host_staged): what a program does without a collectives library: every GPU's input
 *   goes down to pinned host memory (one copy per GPU, concurrently), the host adds the buffers
 *   (one thread, in a host function enqueued on the stream), and the result goes up to every
 *   GPU. Each byte crosses PCIe twice, and the host's one-thread sum (~10 GB/s) is slower
 *   still.
 *
 * Optimized (nccl_out_of_place): one NCCL call per GPU inside ncclGroupStart/End, from one
 *   process (ncclCommInitAll). NCCL moves the data GPU to GPU over NVLink, reducing in its own
 *   kernels (ring or tree, LL / LL128 / Simple protocol, chosen by its tuner per size unless
 *   NCCL_ALGO / NCCL_PROTO say otherwise: the environment is the user's and is left as it is).
 *
 * Library (nccl_in_place): the same calls with the output buffer as the input (all-gather: the
 *   rank's own chunk inside the output; reduce-scatter: the output is chunk r of the input), as
 *   frameworks call them (PyTorch's all_reduce works in place on the gradients). Saves one
 *   buffer per GPU; NCCL may skip the local copy of the own chunk, so it can be a little faster
 *   at small sizes, and should be the same at large ones.
 *
 * Check (nccl_allreduce_check_kernel, not timed): each GPU recomputes its expected output from
 *   the seeds (rb_uniform_f32 is a pure function of seed and index), in double, so no reference
 *   buffer and no copy between GPUs is needed, and compares: the normwise relative error, and
 *   the count of wrong elements: |out - ref| beyond n 2^-24 sum_r |x_r| (the rounding bound of
 *   an fp32 sum of n terms in any order, which NCCL's ring and tree orders both meet; 0 for the
 *   all-gather, which is a copy). NaN counts as wrong. setup pins the kernel to the CPU
 *   reference at small sizes (bench/nccl_allreduce.c).
 *
 * Predicted (2 x H200 SXM on NVLink 4, 450 GB/s each way per GPU; NCCL 2.28, NVLS off; before
 *   measuring): all-reduce busbw at 1 GiB ~320-340 GB/s (GPU.md: 327 GB/s measured with
 *   nccl-tests), in place within 2%; all-gather and reduce-scatter busbw ~330-370 GB/s (half
 *   the steps of an all-reduce per byte, the same link). Small sizes: ~10-20 us per all-reduce
 *   (NCCL's LL protocol, and the host work of launching one kernel per GPU in a group; our
 *   fork/join events add ~2 us); host_staged ~50-80 us there (four copy latencies and a host
 *   callback). host_staged at 1 GiB: ~0.35 s (1 GiB down from each GPU at ~25-50 GB/s when
 *   both share a PCIe switch, a one-thread sum of 2 GiB, 1 GiB up to each GPU), algbw ~3 GB/s:
 *   NCCL ~100x faster. On one GPU (H100 SXM): out of place is a 1 GiB device copy (algbw
 *   ~1.5 TB/s: S over a copy that moves 2S), in place does nothing (a meaningless algbw), busbw
 *   0 for both.
 * Measured (2 x H200, NVLink, NVLS off, results/nvidia-h200-x2/20261123T024453Z-ef68b16.json):
 *   at 1 GiB all-reduce busbw 324.5 GB/s out of place and 327.7 in place (as predicted), all-
 *   gather 265.6 / 287.2 and reduce-scatter 271.1 / 275.4 (below the predicted 330-370: not
 *   explained; nccl-tests on the same machine would say whether NCCL itself runs them at that
 *   rate); host_staged all-reduce 265.5 ms (algbw 4.0 GB/s against NCCL's 324.5: 80x). At 32
 *   KiB the all-reduce takes 14.3 us out of place and host_staged 73.5 us, as predicted. Zero
 *   wrong elements at every size of every collective. On one GPU (H100,
 *   results/nvidia-h100-80gb-hbm3/20261125T081152Z-317bbe9.json): out of place at 1 GiB is the
 *   predicted device copy (0.72 ms, algbw 1492 GB/s); the in-place rows of that run predate the
 *   skip and mean nothing (0.3 us: nothing moved).
 * Reproducibility on one GPU: below the bandwidth plateau a row is latency-bound: NCCL's ~5 us
 *   is the host work of one collective call (nothing crosses a link), and host_staged's ~40-60
 *   us is two copy latencies and a host callback, whose thread the OS wakes. Both follow the CPU
 *   and the scheduler, not the GPU: across the committed H100 runs NCCL's 8 B all-reduce
 *   measured 5.7-6.6 us and host_staged 40-58 us, noise 10-40% inside a run, rows moving up to
 *   35% between runs 7 min apart; the expectations' four recorded runs (20261125T1639Z-fdff3f5)
 *   spread 2-33%, so a 10% slowdown passed unseen and a same-build run was judged regressed.
 *   That is why one GPU runs 1 GiB only. There the rows agree within 1% (NCCL's copy, DRAM) and
 *   1-3% (host_staged, PCIe through pinned memory and one host thread's sum).
 *
 * Is the baseline what a competent engineer would write before knowing this pattern? It is what
 *   one writes without a collectives library and without peer access: every byte through host
 *   memory, summed by one host thread. An engineer who knows peer access (p2p_copy's lesson)
 *   would reduce over NVLink with a kernel of their own, which would come much closer to NCCL;
 *   the pair has no such variant, so the 80x at 1 GiB is NCCL against the host path, not
 *   against the best hand-written collective. NCCL's own choices (algorithm, protocol) are left
 *   to its tuner, as users run it.
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/random.h"
#include "kernels/nccl_allreduce.h"

/* The collectives, in the order of the pair's inputs. */
enum { NCCL_ALLREDUCE_AR = 0, NCCL_ALLREDUCE_AG = 1, NCCL_ALLREDUCE_RS = 2 };

#define NCCL_ALLREDUCE_CHECK_BLOCK 256

/* acc[0] += sum (out - ref)^2, acc[1] += sum ref^2, acc[2] += wrong elements, over rank's n
 * output elements. One pass; each thread accumulates in double, then a block reduction and one
 * atomic per block and figure. */
static __global__ void __launch_bounds__(NCCL_ALLREDUCE_CHECK_BLOCK)
    nccl_allreduce_check_kernel(const float *__restrict__ out, size_t n, int coll, int rank,
                                int ranks, size_t chunk, uint64_t seed, double *acc)
{
    __shared__ double s_diff[NCCL_ALLREDUCE_CHECK_BLOCK], s_ref[NCCL_ALLREDUCE_CHECK_BLOCK],
        s_wrong[NCCL_ALLREDUCE_CHECK_BLOCK];
    double diff2 = 0.0, ref2 = 0.0, wrong = 0.0;
    const double unit = 1.0 / 16777216.0; /* 2^-24: fp32's unit roundoff */
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        double ref = 0.0, abs_sum = 0.0;
        if (coll == NCCL_ALLREDUCE_AG) { /* a copy: exact, bound 0 */
            ref = rb_uniform_f32(seed + j / chunk, j % chunk);
        } else {
            size_t i = coll == NCCL_ALLREDUCE_RS ? (size_t)rank * chunk + j : j;
            for (int q = 0; q < ranks; q++) {
                double x = rb_uniform_f32(seed + (uint64_t)q, i);
                ref += x; /* exact: n <= 2^29 values of 24 bits, scaled by 2^-24 */
                abs_sum += fabs(x);
            }
        }
        double d = (double)out[j] - ref;
        diff2 += d * d;
        ref2 += ref * ref;
        wrong += !(fabs(d) <= ranks * unit * abs_sum); /* NaN is wrong */
    }
    s_diff[threadIdx.x] = diff2;
    s_ref[threadIdx.x] = ref2;
    s_wrong[threadIdx.x] = wrong;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            s_diff[threadIdx.x] += s_diff[threadIdx.x + half];
            s_ref[threadIdx.x] += s_ref[threadIdx.x + half];
            s_wrong[threadIdx.x] += s_wrong[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&acc[0], s_diff[0]);
        atomicAdd(&acc[1], s_ref[0]);
        atomicAdd(&acc[2], s_wrong[0]);
    }
}

/* Enqueues the check of rank's output out[0..n) on stream (a stream of the GPU that holds out
 * and acc): acc (3 doubles on that GPU) is zeroed, then accumulated as above. The caller copies
 * acc back once the stream is done. */
extern "C" cudaError_t nccl_allreduce_check(const float *out, size_t n, int coll, int rank,
                                            int ranks, size_t chunk, uint64_t seed, double *acc,
                                            cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(acc, 0, 3 * sizeof(double), stream);
    if (e != cudaSuccess)
        return e;
    size_t blocks = (n + NCCL_ALLREDUCE_CHECK_BLOCK - 1) / NCCL_ALLREDUCE_CHECK_BLOCK;
    if (blocks > 4096) /* grid-stride beyond ~4 waves of 132 SMs x 8 blocks */
        blocks = 4096;
    nccl_allreduce_check_kernel<<<blocks ? (unsigned)blocks : 1u, NCCL_ALLREDUCE_CHECK_BLOCK, 0,
                                  stream>>>(out, n, coll, rank, ranks, chunk, seed, acc);
    return cudaGetLastError();
}
