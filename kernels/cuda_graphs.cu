/* SPDX-License-Identifier: MIT */
/*
 * cuda_graphs: a step of ~200 tiny dependent kernels, launched one by one on a stream vs
 * captured once into a CUDA graph and replayed with one call; and a graph whose parameters
 * change between replays, updated in place instead of captured again.
 *
 * What: the non-matmul part of one LLM decode step on a single token, as a chain of small
 *   kernels over vectors of d fp32 values (the hidden size; d = 4096 at full size), each kernel
 *   reading what the previous one wrote. An embedding lookup copies the token's input vector into
 *   the residual stream x; then each of CUDA_GRAPHS_LAYERS layers runs
 *     h = rmsnorm(x) * g_l        a reduction over the whole vector (sum of squares), a scale
 *     h = silu(h)                 elementwise
 *     p = softmax(h / 2)          per row of CUDA_GRAPHS_ROW = 128 elements: the attention
 *                                 scores of d / 128 heads over 128 positions, each row reduced
 *                                 by one warp (max, then sum of exponentials)
 *     h = h * p' * 128            elementwise (a gate; p * 128 averages 1; p' is p rotated)
 *     x = x + h / LAYERS          elementwise (the residual add)
 *   and a final out = rmsnorm(x) * g_final * scale. 5 x LAYERS + 2 = 202 kernels at 40 layers.
 *   The matmuls a real decode step has between these are left out: they would hide what this
 *   pair measures, the cost of launching many kernels that each do almost nothing. Without them
 *   nothing mixes positions, and the largest elements would feed back on themselves layer after
 *   layer (a few spikes would hold the whole output); so the gate reads p at a rotated position,
 *   p'[i] = p[(i + 97 (l + 1)) mod d] in layer l, which crosses rows, and the softmax's
 *   temperature of 2 keeps p * 128 within a small range. (Below d = 128 the one row is d long
 *   and the gate's factor is d.) The output then stays spread (median |out| ~0.65, max ~3.9 at
 *   d = 4096, from the CPU reference).
 *
 * Work (per step, counting 1 flop per add, multiply, divide, exp or compare; an FMA is 2):
 *   rmsnorm 4d (x^2 summed, then x r g), silu 4d, softmax 6d (max; exp and sum; scale), gate
 *   2d, residual 2d: flops = (18 LAYERS + 4) d = 3.0 MFLOP at full size. bytes = what the
 *   kernels read and write, 4 bytes per element: embed 8d, rmsnorm 12d (x and g read, y
 *   written), silu 8d, softmax 8d, gate 12d, residual 12d: (52 LAYERS + 20) d = 8.6 MB at full
 *   size. None of it is DRAM traffic: the working set (41 gain vectors and 5 vectors of 16 KB,
 *   ~0.75 MB) stays in L2 from one step to the next. The roofline point of every variant is
 *   far under any roof (~10-45 GB/s against ~3 TB/s): that is the point of the pair. Its
 *   honest figure is the extra `us_per_kernel` = median time of a step / kernels per step.
 *
 * Baseline: the kernels launched one after the other on the stream, <<<...>>> each. Every launch
 *   costs the CPU a few microseconds in the runtime and driver (argument packing, a push into the
 *   GPU's command queue), and the GPU cannot start a kernel before its launch arrives. A kernel
 *   here runs for about a microsecond, so the step is bound by the CPU issuing launches: the GPU
 *   idles between kernels.
 *
 * Step `graph`: the same launches captured once (setup) into a CUDA graph by stream capture,
 *   which records the 202 kernels and their order as nodes and edges instead of running them.
 *   The graph is instantiated once: the driver validates it and builds the whole command stream
 *   up front. A replay is then one cudaGraphLaunch: one cheap call for the CPU, and the GPU walks
 *   the prepared chain, starting each kernel once the one before it has finished.
 *
 * Optimized: the graph captured from launches that carry the programmatic-serialization
 *   attribute (programmatic dependent launch, Hopper and later), which capture turns into
 *   programmatic edges. In the plain graph a kernel is launched only once the one before it has
 *   completed and flushed its writes: each node pays the launch (grid set-up, block dispatch,
 *   the kernel's first instructions) in series with the work. With a programmatic edge the next
 *   kernel may be launched as soon as every block of the current one has executed
 *   griddepcontrol.launch_dependents, which each kernel does first thing; its blocks are then
 *   dispatched and wait at griddepcontrol.wait, which returns once the kernel before has
 *   completed and its writes are visible. The launch of kernel i + 1 overlaps the work of kernel
 *   i, and what is left in series per kernel is the hand-over at the wait plus the kernel's own
 *   dependent latency (its loads from L2, its reduction). Correctness does not depend on how far
 *   launches run ahead: every kernel waits before it touches memory, and kernel i completes only
 *   after its own wait, so each one sees all the kernels before it. Where the GPU or the build
 *   cannot (before sm_90; an older target's PTX JIT-compiled on Hopper has no wait), setup
 *   captures the optimized graph without the attribute (extra pdl = 0).
 *
 * Step `graph_update`: the next decode step uses another token (another input vector) and, here,
 *   another output scale. Capturing again per step would cost more than the stream launches.
 *   Instead the executable graph (the optimized one's twin) is edited in place:
 *   cudaGraphExecKernelNodeSetParams gives the embedding node a new input pointer and the final
 *   rmsnorm node a new scale (the node handles were taken during capture with
 *   cudaStreamGetCaptureInfo), then it is launched. An update affects only later launches, so
 *   updating while earlier replays still run is safe. Replay r uses input 1 and scale 0.5 when r
 *   is even, input 0 and scale 1 when r is odd: the first replay (the harness's first checked
 *   run) differs from what was captured, so an update that did not take would fail the check.
 *
 * Kernels: elementwise ones run one thread per element in blocks of CUDA_GRAPHS_BLOCK. rmsnorm
 *   runs in up to CUDA_GRAPHS_REDUCE_GRID blocks of the same size, each of which reduces the
 *   whole vector by itself and writes only its own slice: at batch 1 there is one small vector,
 *   and the redundant reads (from L2) cost less than a second kernel or a grid-wide
 *   synchronization. Within a block, each thread issues the loads of all its elements before
 *   using any, warps reduce with shuffles, and every warp then reduces the warp partials itself,
 *   so one barrier per reduction suffices. The softmax's rows are independent: one warp per row,
 *   two shuffle trees, no shared memory, no barrier. Every kernel here is a chain of latencies
 *   (an L2 round trip, a shuffle tree, a barrier), not of bandwidth: the choices above each
 *   shortened that chain (the per-kernel chain figures under Measured).
 *
 * Predicted (H100 SXM, before measuring; GPU.md: back-to-back stream launches of empty kernels
 *   3.9-4.4 us each, a graph of 1000 empty kernels 0.79 us per node): baseline ~3-4.5 us per
 *   kernel, ~0.6-0.9 ms per step: the CPU's launch cost, under which each kernel's ~1 us of GPU
 *   time hides. Plain graph: the empty node's cost plus each kernel's own latency (an L2 round
 *   trip of what the previous kernel wrote, ~0.15-0.3 us; for the reductions a barrier and two
 *   shuffle trees, ~0.1-0.2 us): ~0.95-1.2 us per kernel. Optimized (PDL): what is left in series
 *   per kernel is the hand-over at the wait plus the kernel's own dependent work: an elementwise
 *   kernel ~0.75 us, the per-row softmax ~0.85-0.9 (two 5-step shuffle trees and an exponential
 *   on top), rmsnorm ~1.3 (a whole-vector reduction): ~4.4-4.5 us per layer, ~0.89-0.92 us per
 *   kernel, ~0.18 ms per step, ~0.2x the stream. graph_update within ~2% of it: the two node
 *   updates cost the CPU ~1-2 us per replay, hidden while the GPU runs the previous replay.
 *   Acceptance: the optimized graph <= 1.0 us per kernel and <= 0.3x the stream's cost.
 * Measured (H100, results/nvidia-h100-80gb-hbm3/20261125T080411Z-e8e015a.json, the record run):
 *   stream 4.47 us per kernel (0.903 ms per step), plain graph 1.232, optimized 0.976 (0.197 ms
 *   per step, 0.22x the stream), graph_update 0.989; the full run 20261125T081152Z-317bbe9.json
 *   agrees (4.20, 1.231, 0.973, 0.986). Each kernel alone, in 1000-node chains of copies of it
 *   (scripts/cuda_graphs_chain.cu, 20261125T0759Z-e8e015a-cuda-graphs-chains.txt), plain / PDL:
 *   embed 0.99 / 0.67, rmsnorm 1.53 / 1.28, silu 1.02 / 0.77, softmax 1.31 / 1.01, gate 1.02 /
 *   0.76, residual 1.00 / 0.75 us. Where that differs from the prediction:
 *   - the plain graph's nodes cost 1.0-1.5 us, above the empty kernel's 0.79: in a plain graph
 *     the GPU dispatches a kernel only after the one before has drained, and that set-up (grid
 *     launch, 16 blocks placed, parameters loaded) is longer for real grids than for one empty
 *     block; PDL moves it off the critical path (0.25-0.32 us saved per kernel);
 *   - the softmax costs 1.01 us in a PDL chain, 0.26 over an elementwise kernel where 0.1-0.15
 *     was predicted: its chain after the loads is ~450 dependent cycles (ten shuffle steps of
 *     ~25-30 cycles, the exponentials, a reciprocal), which the prediction counted at half that;
 *   - the layer in chains sums to 4.57 us (0.91 per kernel), and the step runs 7% slower than
 *     that: not explained. The chains repeat one kernel, while the step hands over between
 *     different kernels and grids (16, 16, 4, 16, 16 blocks), and the hand-over cost may depend
 *     on both sides.
 * Reproducibility: the baseline is bound by the CPU issuing launches, so its time is the time of
 *   the host thread in the runtime and driver: it follows the CPU's clock, caches and scheduling,
 *   which the harness does not control (nor should). Within a run its samples spread 10-36%
 *   (noise); between runs of the same code its median moved 3.1% in two runs 5 s apart (0.814
 *   and 0.789 ms, 20261125T050941Z/050946Z-4bb75ee) and 6.2% in two runs 7 min apart (0.903 and
 *   0.849 ms, 20261125T080411Z-e8e015a and 081152Z-317bbe9): it is not reproducible to 2% on
 *   these virtual machines, and more samples do not change that (from its spread and 550-610
 *   samples, each run knew its median to about +-0.5-1%; the machine moved between them). The
 *   graphs, which the GPU runs from a prepared command stream, agree within 0.3% between those
 *   runs. The baseline's 95% interval of the median is in the results
 *   (median_ci_lo/hi); scripts/agree.py says whether two runs differ beyond them. Where the
 *   process runs does not settle it either: on the H100 (a Firecracker VM, 16 vCPUs, one NUMA
 *   node), three runs in each of three placements, none, taskset to the GPU's local CPUs and
 *   taskset to one CPU, spread 48%, 9% and 15% (0.63-0.97 ms; results/nvidia-h100-80gb-hbm3/
 *   20261126T0404Z-1bea7ec-affinity-probe/probe.log), so the harness pins nothing.
 *
 * Is the baseline what a competent engineer would write before knowing this pattern? Yes: one
 *   launch per operation on one stream is what an eager framework does for a decode step
 *   (PyTorch eager launches each op; its remedy is the same CUDA graph capture, through
 *   torch.cuda.graphs or torch.compile's "reduce-overhead" mode). The kernels are identical in
 *   every variant and each is already written for latency (loads issued together, shuffle
 *   reductions, one barrier, 16-block grids so a kernel spreads over SMs), so the speedups are
 *   launch cost and nothing else; a slower kernel would only hide under the stream's launch
 *   cost and flatter the graphs less, not more. The work is tiny by design (d = 4096 values):
 *   occupancy and bandwidth are not what is measured.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>

#include "kernel_info.h"
#include "kernels/cuda_graphs.h"

/* Tunables (each overridable with -D): layers (5 kernels each), threads per block of every
 * kernel (a multiple of 32, at most 1024), and the blocks of rmsnorm (each reduces the whole
 * vector, see cuda_graphs_rmsnorm_kernel). */
#ifndef CUDA_GRAPHS_LAYERS
#define CUDA_GRAPHS_LAYERS 40
#endif
#ifndef CUDA_GRAPHS_BLOCK
#define CUDA_GRAPHS_BLOCK 256
#endif
#ifndef CUDA_GRAPHS_REDUCE_GRID
#define CUDA_GRAPHS_REDUCE_GRID 16
#endif
/* Elements a thread of rmsnorm loads at once (see cuda_graphs_rmsnorm_kernel): at d = 4096
 * and 256 threads, all of them. */
#ifndef CUDA_GRAPHS_GROUP
#define CUDA_GRAPHS_GROUP 16
#endif
/* The softmax's row: the attention scores of one head (a multiple of 32: one warp per row). */
#ifndef CUDA_GRAPHS_ROW
#define CUDA_GRAPHS_ROW 128
#endif
#define CG_PER_LANE (CUDA_GRAPHS_ROW / 32)
#define CUDA_GRAPHS_KERNELS (5 * CUDA_GRAPHS_LAYERS + 2)
#define CUDA_GRAPHS_EPS 1e-6f     /* rmsnorm's epsilon */
#define CUDA_GRAPHS_INV_TEMP 0.5f /* softmax(h / 2) */
#define CUDA_GRAPHS_ROTATE 97     /* the gate reads p at i + 97 (l + 1) in layer l, mod d */

static_assert(CUDA_GRAPHS_LAYERS >= 1, "at least one layer");
static_assert(CUDA_GRAPHS_BLOCK % 32 == 0 && CUDA_GRAPHS_BLOCK <= 1024,
              "whole warps, at most 32 of them");
static_assert(CUDA_GRAPHS_REDUCE_GRID >= 1, "at least one block per reduction");
static_assert(CUDA_GRAPHS_ROW % 32 == 0 && CUDA_GRAPHS_ROW >= 32, "a softmax row is whole warps");

/* What bench/cuda_graphs.c needs to know (its reference and its per-kernel figure). */
extern "C" const int cuda_graphs_layers = CUDA_GRAPHS_LAYERS;
extern "C" const int cuda_graphs_kernels_per_step = CUDA_GRAPHS_KERNELS;
extern "C" const float cuda_graphs_eps = CUDA_GRAPHS_EPS;
extern "C" const float cuda_graphs_inv_temp = CUDA_GRAPHS_INV_TEMP;
extern "C" const int cuda_graphs_rotate = CUDA_GRAPHS_ROTATE;
extern "C" const int cuda_graphs_row = CUDA_GRAPHS_ROW;

/* ---- programmatic dependent launch (Hopper) ----
 * Every kernel calls this first thing (rmsnorm first issues the loads of its gain vector, which
 * no earlier kernel writes). launch_dependents lets the next kernel of the stream or graph be
 * launched now, if it was launched with the programmatic-serialization attribute (the optimized
 * graph): its blocks get dispatched and run up to their own wait while this kernel works. wait
 * blocks until the kernel this one depends on has completed and its writes are visible; in a
 * kernel launched without the attribute (baseline, graph) the launch already waited for that,
 * and both instructions do nothing. Before sm_90 they do not exist, and the host never asks for
 * the overlap (cuda_graphs_pdl_supported). CUDA_GRAPHS_LATE_TRIGGER=1 (-D) lets the next kernel
 * launch only once this one has passed its wait: at most one kernel runs ahead. */
#ifndef CUDA_GRAPHS_LATE_TRIGGER
#define CUDA_GRAPHS_LATE_TRIGGER 0
#endif

static __device__ __forceinline__ void cuda_graphs_pdl_enter(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (!CUDA_GRAPHS_LATE_TRIGGER)
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
    if (CUDA_GRAPHS_LATE_TRIGGER)
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* ---- reductions within one block ---- */

#define CG_WARPS (CUDA_GRAPHS_BLOCK / 32)
static_assert((CG_WARPS & (CG_WARPS - 1)) == 0, "a power-of-two number of warps per block");

/* Sum or max over the first `lanes` lanes of a warp (a power of two), returned to all of them:
 * log2(lanes) shuffle steps. */
template <int LANES> static __device__ __forceinline__ float cuda_graphs_warp_sum(float v)
{
#pragma unroll
    for (int o = LANES / 2; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
    return v;
}

template <int LANES> static __device__ __forceinline__ float cuda_graphs_warp_max(float v)
{
#pragma unroll
    for (int o = LANES / 2; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
    return v;
}

/* The block's sum, returned to every thread. Each warp reduces its lanes, lane 0 posts the
 * warp's partial, and after one barrier every warp sums the CG_WARPS partials itself (instead
 * of one warp summing them and a second barrier to broadcast the result). Once per kernel: a
 * second call could overwrite partials a slow warp has not read yet. */
static __device__ float cuda_graphs_block_sum(float v)
{
    __shared__ float partial[CG_WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = cuda_graphs_warp_sum<32>(v);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    return cuda_graphs_warp_sum<CG_WARPS>(partial[lane % CG_WARPS]);
}

/* ---- the kernels of a step ---- */

/* x = in: the token's input vector into the residual stream (an embedding lookup). */
static __global__ void __launch_bounds__(CUDA_GRAPHS_BLOCK)
    cuda_graphs_embed_kernel(const float *__restrict__ in, float *__restrict__ x, size_t d)
{
    cuda_graphs_pdl_enter();
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < d)
        x[i] = in[i];
}

/* y = x * scale / sqrt(mean(x^2) + eps) * g. Every block reduces the whole vector itself
 * (redundantly: at d = 4096, 16 KB that the L2 serves 16 times) and then writes its own slice,
 * grid-stride: no second kernel, no grid-wide synchronization, and the work spread over 16 SMs
 * (one 1024-thread block doing it all was measured at 1.43 us per kernel in a PDL chain, a
 * 16-block elementwise kernel at 0.75). A thread's elements are taken in groups of
 * CUDA_GRAPHS_GROUP, i + j * blockDim for j < GROUP, all loads of a group issued before the
 * first use: one L2 round trip per group (a plain strided loop compiles to a load, its FMA, the
 * next load). g, which no earlier kernel writes, is loaded before the wait. */
static __global__ void __launch_bounds__(CUDA_GRAPHS_BLOCK)
    cuda_graphs_rmsnorm_kernel(const float *__restrict__ x, const float *__restrict__ g,
                               float scale, float *__restrict__ y, size_t d)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    float g0 = first < d ? g[first] : 0.0f; /* issued now, used after the wait */
    cuda_graphs_pdl_enter();
    float ss = 0.0f;
#ifdef RB_PLANT_SLOW10
    /* issue 12's planted slowdown (make NVCCFLAGS=-DRB_PLANT_SLOW10): the sum of squares taken
     * twice, the loads forced again by a compiler barrier; the two sums are equal, so their
     * mean is the same ss. Not part of the lesson. */
    float first_ss = 0.0f;
    for (int rep = 0; rep < 2; rep++) {
        first_ss = rep ? ss : first_ss;
        ss = 0.0f;
        asm volatile("" ::: "memory");
#endif
        for (size_t base = threadIdx.x; base < d; base += (size_t)blockDim.x * CUDA_GRAPHS_GROUP) {
            float v[CUDA_GRAPHS_GROUP];
#pragma unroll
        for (int j = 0; j < CUDA_GRAPHS_GROUP; j++) {
            size_t i = base + (size_t)j * blockDim.x;
            v[j] = i < d ? x[i] : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < CUDA_GRAPHS_GROUP; j++)
            ss = fmaf(v[j], v[j], ss);
    }
#ifdef RB_PLANT_SLOW10
    }
    ss = 0.5f * (ss + first_ss);
#endif
    float r = rsqrtf(__fdividef(cuda_graphs_block_sum(ss), (float)d) + CUDA_GRAPHS_EPS) * scale;
    for (size_t i = first; i < d; i += stride) /* x[i] is in L1 from the first pass */
        y[i] = x[i] * r * (i == first ? g0 : g[i]);
}

/* h = silu(h) = h / (1 + exp(-h)), in place, with the fast intrinsics (__expf, __fdividef:
 * errors of a few ulp, far under the tolerance; the IEEE division's slow-path check alone made
 * this kernel ~0.15 us slower than gate's). */
static __global__ void __launch_bounds__(CUDA_GRAPHS_BLOCK)
    cuda_graphs_silu_kernel(float *__restrict__ h, size_t d)
{
    cuda_graphs_pdl_enter();
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < d)
        h[i] = __fdividef(h[i], 1.0f + __expf(-h[i]));
}

/* p = softmax(h / 2) within each row of CUDA_GRAPHS_ROW elements (the last one shorter when
 * CUDA_GRAPHS_ROW does not divide d): one warp per row. Each lane loads its CG_PER_LANE elements
 * of the row at once (coalesced: lane + 32 j), the warp takes the row's max with one shuffle
 * tree and the sum of the exponentials, which stay in registers, with a second; no shared
 * memory, no barrier. A warp past the last row returns whole, so the shuffles' full mask
 * holds. */
static __global__ void __launch_bounds__(CUDA_GRAPHS_BLOCK)
    cuda_graphs_softmax_kernel(const float *__restrict__ h, float *__restrict__ p, size_t d)
{
    cuda_graphs_pdl_enter();
    const size_t start = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * CUDA_GRAPHS_ROW;
    const int lane = threadIdx.x % 32;
    if (start >= d)
        return;
    float v[CG_PER_LANE], m = -INFINITY, s = 0.0f;
#pragma unroll
    for (int j = 0; j < CG_PER_LANE; j++) {
        size_t i = start + lane + 32 * j;
        v[j] = i < d ? h[i] : -INFINITY;
    }
#pragma unroll
    for (int j = 0; j < CG_PER_LANE; j++)
        m = fmaxf(m, v[j]);
    m = cuda_graphs_warp_max<32>(m); /* finite: the row's first element exists */
#pragma unroll
    for (int j = 0; j < CG_PER_LANE; j++) {
        v[j] = __expf((v[j] - m) * CUDA_GRAPHS_INV_TEMP); /* 0 past d */
        s += v[j];
    }
    const float inv = __fdividef(1.0f, cuda_graphs_warp_sum<32>(s));
#pragma unroll
    for (int j = 0; j < CG_PER_LANE; j++) {
        size_t i = start + lane + 32 * j;
        if (i < d)
            p[i] = v[j] * inv;
    }
}

/* h = h * p[(i + rotate) mod d] * w, in place, w = min(d, CUDA_GRAPHS_ROW): p * w averages 1
 * over a full row. rotate < d. */
static __global__ void __launch_bounds__(CUDA_GRAPHS_BLOCK)
    cuda_graphs_gate_kernel(float *__restrict__ h, const float *__restrict__ p, size_t rotate,
                            size_t d)
{
    cuda_graphs_pdl_enter();
    const float w = (float)(d < CUDA_GRAPHS_ROW ? d : CUDA_GRAPHS_ROW);
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t j = i + rotate < d ? i + rotate : i + rotate - d;
    if (i < d)
        h[i] = h[i] * p[j] * w;
}

/* x = x + c h, in place (c = 1 / LAYERS). */
static __global__ void __launch_bounds__(CUDA_GRAPHS_BLOCK)
    cuda_graphs_residual_kernel(float *__restrict__ x, const float *__restrict__ h, float c,
                                size_t d)
{
    cuda_graphs_pdl_enter();
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < d)
        x[i] = fmaf(c, h[i], x[i]);
}

/* Every variant launches the same six kernels (202 launches at 40 layers). */
#define CUDA_GRAPHS_ROWS(variant)                                                                  \
    {variant, "cuda_graphs_embed_kernel", (const void *)cuda_graphs_embed_kernel,                  \
     CUDA_GRAPHS_BLOCK, 0},                                                                        \
        {variant, "cuda_graphs_rmsnorm_kernel", (const void *)cuda_graphs_rmsnorm_kernel,          \
         CUDA_GRAPHS_BLOCK, 0},                                                                    \
        {variant, "cuda_graphs_silu_kernel", (const void *)cuda_graphs_silu_kernel,                \
         CUDA_GRAPHS_BLOCK, 0},                                                                    \
        {variant, "cuda_graphs_softmax_kernel", (const void *)cuda_graphs_softmax_kernel,          \
         CUDA_GRAPHS_BLOCK, 0},                                                                    \
        {variant, "cuda_graphs_gate_kernel", (const void *)cuda_graphs_gate_kernel,                \
         CUDA_GRAPHS_BLOCK, 0},                                                                    \
    {                                                                                              \
        variant, "cuda_graphs_residual_kernel", (const void *)cuda_graphs_residual_kernel,         \
            CUDA_GRAPHS_BLOCK, 0                                                                   \
    }

extern "C" const rb_kernel_info cuda_graphs_kernels[] = {CUDA_GRAPHS_ROWS("baseline"),
                                                         CUDA_GRAPHS_ROWS("graph"),
                                                         CUDA_GRAPHS_ROWS("optimized"),
                                                         CUDA_GRAPHS_ROWS("graph_update"),
                                                         {NULL, NULL, NULL, 0, 0}};

/* ---- the step ---- */

#define CG_TRY(call)                                                                               \
    do {                                                                                           \
        cudaError_t cg_e_ = (call);                                                                \
        if (cg_e_ != cudaSuccess)                                                                  \
            return cg_e_;                                                                          \
    } while (0)

/* Blocks of an elementwise kernel over d elements (d is far below 2^31 x 256). */
static unsigned cg_blocks(size_t d)
{
    return (unsigned)((d + CUDA_GRAPHS_BLOCK - 1) / CUDA_GRAPHS_BLOCK);
}

/* Blocks of rmsnorm: one per slice of the output, at most CUDA_GRAPHS_REDUCE_GRID
 * (each block reads the whole vector; more would only multiply that). */
static unsigned cg_reduce_blocks(size_t d)
{
    unsigned b = cg_blocks(d);
    return b < CUDA_GRAPHS_REDUCE_GRID ? b : CUDA_GRAPHS_REDUCE_GRID;
}

/* Blocks of the softmax: one warp per row of CUDA_GRAPHS_ROW elements. */
static unsigned cg_softmax_blocks(size_t d)
{
    size_t rows = (d + CUDA_GRAPHS_ROW - 1) / CUDA_GRAPHS_ROW;
    return (unsigned)((rows * 32 + CUDA_GRAPHS_BLOCK - 1) / CUDA_GRAPHS_BLOCK);
}

/* During capture: the node the stream's last launch became (the one the next would depend on). */
static cudaError_t cg_last_node(cudaStream_t stream, cudaGraphNode_t *node)
{
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps = NULL;
    size_t n_deps = 0;
    CG_TRY(cudaStreamGetCaptureInfo(stream, &status, NULL, NULL, &deps, NULL, &n_deps));
    if (status != cudaStreamCaptureStatusActive || n_deps != 1)
        return cudaErrorInvalidValue;
    *node = deps[0];
    return cudaSuccess;
}

/* A launch configuration on stream s; pdl: with the programmatic-serialization attribute, which
 * lets the kernel start while the one before it still runs (its griddepcontrol.wait then orders
 * it). attr must outlive the launch call. */
static cudaLaunchConfig_t cg_config(unsigned blocks, unsigned threads, cudaStream_t s, int pdl,
                                    cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    attr->id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr->val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    return cfg;
}

/* Enqueues one step: in -> out through x, h, p. gains: LAYERS + 1 vectors of d. pdl: every
 * kernel but the first may overlap the one before it (see cuda_graphs_pdl_enter). When
 * capturing, embed_node and final_node (non-NULL) receive the graph nodes of the first and last
 * kernels. */
static cudaError_t cg_step(const float *in, float *x, float *h, float *p, const float *gains,
                           float *out, float scale, size_t d, cudaStream_t s, int pdl,
                           cudaGraphNode_t *embed_node, cudaGraphNode_t *final_node)
{
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t ew = cg_config(cg_blocks(d), CUDA_GRAPHS_BLOCK, s, pdl, &attr);
    cudaLaunchConfig_t red = cg_config(cg_reduce_blocks(d), CUDA_GRAPHS_BLOCK, s, pdl, &attr);
    cudaLaunchConfig_t rows = cg_config(cg_softmax_blocks(d), CUDA_GRAPHS_BLOCK, s, pdl, &attr);
    /* The first kernel waits for whatever came before the step (the previous step) in full. */
    cudaLaunchConfig_t first = cg_config(cg_blocks(d), CUDA_GRAPHS_BLOCK, s, 0, &attr);
    const float c = 1.0f / CUDA_GRAPHS_LAYERS;
    CG_TRY(cudaLaunchKernelEx(&first, cuda_graphs_embed_kernel, in, x, d));
    if (embed_node)
        CG_TRY(cg_last_node(s, embed_node));
    for (int l = 0; l < CUDA_GRAPHS_LAYERS; l++) {
        const float *g = gains + (size_t)l * d;
        size_t rotate = (size_t)CUDA_GRAPHS_ROTATE * (size_t)(l + 1) % d;
        CG_TRY(cudaLaunchKernelEx(&red, cuda_graphs_rmsnorm_kernel, (const float *)x, g, 1.0f, h,
                                  d));
        CG_TRY(cudaLaunchKernelEx(&ew, cuda_graphs_silu_kernel, h, d));
        CG_TRY(cudaLaunchKernelEx(&rows, cuda_graphs_softmax_kernel, (const float *)h, p, d));
        CG_TRY(cudaLaunchKernelEx(&ew, cuda_graphs_gate_kernel, h, (const float *)p, rotate, d));
        CG_TRY(cudaLaunchKernelEx(&ew, cuda_graphs_residual_kernel, x, (const float *)h, c, d));
    }
    CG_TRY(cudaLaunchKernelEx(&red, cuda_graphs_rmsnorm_kernel, (const float *)x,
                              gains + (size_t)CUDA_GRAPHS_LAYERS * d, scale, out, d));
    if (final_node)
        CG_TRY(cg_last_node(s, final_node));
    return cudaSuccess;
}

/* Whether the kernels can overlap through programmatic dependent launch: the device is a
 * Hopper or later and the kernels were compiled for it (PTX 9.0 or later: a build for an older
 * target JIT-compiled on Hopper has no griddepcontrol.wait, and the overlap would be a race). */
extern "C" int cuda_graphs_pdl_supported(void)
{
    int dev = 0, major = 0;
    cudaFuncAttributes fa;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaFuncGetAttributes(&fa, cuda_graphs_embed_kernel) != cudaSuccess) {
        cudaGetLastError(); /* not sticky: clear it */
        return 0;
    }
    return major >= 9 && fa.ptxVersion >= 90;
}

/* Baseline: the step's kernels launched one by one on the stream. */
extern "C" cudaError_t cuda_graphs_stream_step(const float *in, float *x, float *h, float *p,
                                               const float *gains, float *out, float scale,
                                               size_t d, cudaStream_t stream)
{
    return cg_step(in, x, h, p, gains, out, scale, d, stream, 0, NULL, NULL);
}

/* Setup: records one step (scale 1) into *graph by stream capture on a stream of its own, and
 * hands back the nodes of its first (embed) and last (final rmsnorm) kernels. Nothing runs.
 * pdl: the kernels are launched with the programmatic-serialization attribute, which capture
 * turns into programmatic edges between their nodes. */
extern "C" cudaError_t cuda_graphs_capture(const float *in, float *x, float *h, float *p,
                                           const float *gains, float *out, size_t d, int pdl,
                                           cudaGraph_t *graph, cudaGraphNode_t *embed_node,
                                           cudaGraphNode_t *final_node)
{
    cudaStream_t s;
    *graph = NULL;
    CG_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        e = cg_step(in, x, h, p, gains, out, 1.0f, d, s, pdl, embed_node, final_node);
        /* End the capture whatever happened, so the stream can be destroyed. */
        cudaError_t end = cudaStreamEndCapture(s, graph);
        if (e == cudaSuccess)
            e = end;
    }
    cudaStreamDestroy(s);
    return e;
}

/* Setup: the executable graph, with its work uploaded to the device ahead of the first launch. */
extern "C" cudaError_t cuda_graphs_instantiate(cudaGraph_t graph, cudaGraphExec_t *exec)
{
    CG_TRY(cudaGraphInstantiate(exec, graph, 0));
    CG_TRY(cudaGraphUpload(*exec, 0));
    return cudaStreamSynchronize(0);
}

/* Optimized: the whole step is one call. */
extern "C" cudaError_t cuda_graphs_replay(cudaGraphExec_t exec, cudaStream_t stream)
{
    return cudaGraphLaunch(exec, stream);
}

/* Step graph_update: new input pointer for the embed node, new scale for the final rmsnorm
 * node, then a replay. A kernel node's parameters are given whole: the same kernel, grid and
 * block as the capture launched (cg_step), and its arguments as an array of pointers to their
 * values, of exactly the kernel's parameter types. */
extern "C" cudaError_t cuda_graphs_replay_updated(cudaGraphExec_t exec, cudaGraphNode_t embed_node,
                                                  cudaGraphNode_t final_node, const float *in,
                                                  float *x, const float *g_final, float scale,
                                                  float *out, size_t d, cudaStream_t stream)
{
    void *embed_args[] = {(void *)&in, (void *)&x, (void *)&d};
    cudaKernelNodeParams embed = {};
    embed.func = (void *)cuda_graphs_embed_kernel;
    embed.gridDim = dim3(cg_blocks(d));
    embed.blockDim = dim3(CUDA_GRAPHS_BLOCK);
    embed.sharedMemBytes = 0;
    embed.kernelParams = embed_args;
    CG_TRY(cudaGraphExecKernelNodeSetParams(exec, embed_node, &embed));

    const float *xc = x;
    void *final_args[] = {(void *)&xc, (void *)&g_final, (void *)&scale, (void *)&out, (void *)&d};
    cudaKernelNodeParams fin = {};
    fin.func = (void *)cuda_graphs_rmsnorm_kernel;
    fin.gridDim = dim3(cg_reduce_blocks(d));
    fin.blockDim = dim3(CUDA_GRAPHS_BLOCK);
    fin.sharedMemBytes = 0;
    fin.kernelParams = final_args;
    CG_TRY(cudaGraphExecKernelNodeSetParams(exec, final_node, &fin));
    return cudaGraphLaunch(exec, stream);
}
