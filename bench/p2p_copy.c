/* SPDX-License-Identifier: MIT */
/* p2p_copy: the harness's view of kernels/p2p_copy.cu (read that file first). GPU 0 is the
 * harness's device (its stream is the one run() gets); GPU 1 holds the output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/p2p_copy.h"

typedef struct p2p_ctx {
    float *in;        /* GPU 0: seeded input */
    float *out, *ref; /* GPU 1: what the variants write; the same seeded values, filled there */
    float *host;      /* pinned staging buffer of the baseline */
    size_t n;
    cudaStream_t s1;          /* GPU 1's stream: the baseline's upload, the peer_read kernel */
    cudaEvent_t ev0, ev1;     /* recorded on GPU 0's and GPU 1's streams: fork and join */
    int enabled01, enabled10; /* peer access this pair turned on (turned off in teardown) */
    int perf_rank, native_atomics;
} p2p_ctx;

/* Turns on the current device's access to peer's memory; *enabled = 1 when this call did it
 * (0 when it was already on: the error that says so is cleared, it is not sticky). */
static rb_status p2p_enable_peer(int peer, int *enabled)
{
    const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();
        return RB_OK;
    }
    RB_CUDA(e);
    *enabled = 1;
    return RB_OK;
}

/* GPU 1's half of the setup (the caller makes GPU 1 current and GPU 0 current again). */
static rb_status p2p_setup_gpu1(p2p_ctx *c, uint64_t seed)
{
    RB_TRY(p2p_enable_peer(0, &c->enabled10));
    RB_CUDA(cudaStreamCreateWithFlags(&c->s1, cudaStreamNonBlocking));
    RB_CUDA(cudaEventCreateWithFlags(&c->ev1, cudaEventDisableTiming));
    RB_CUDA(cudaMalloc((void **)&c->out, c->n * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->ref, c->n * sizeof(float)));
    /* The reference is GPU 1's own fill of the same seeded stream: bit-identical to the input
     * (harness/model/random.h) without any copy path in common with the variants. */
    RB_CUDA(rb_fill_uniform_f32(c->ref, c->n, seed, c->s1));
    RB_CUDA(cudaStreamSynchronize(c->s1));
    return RB_OK;
}

static rb_status p2p_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    p2p_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->n = size->n;
    int gpus = 0, can01 = 0, can10 = 0;
    RB_CUDA(cudaGetDeviceCount(&gpus));
    if (gpus < 2) {
        rb_skip_at(__FILE__, __LINE__, "cudaGetDeviceCount", "p2p_copy needs 2 GPUs");
        return RB_ERR_UNSUPPORTED;
    }
    RB_CUDA(cudaDeviceCanAccessPeer(&can01, 0, 1));
    RB_CUDA(cudaDeviceCanAccessPeer(&can10, 1, 0));
    if (!can01 || !can10) {
        char msg[160];
        rb_fmt(msg, sizeof msg, "no peer access between GPUs 0 and 1 (0 -> 1: %s, 1 -> 0: %s)",
               can01 ? "yes" : "no", can10 ? "yes" : "no");
        rb_skip_at(__FILE__, __LINE__, "cudaDeviceCanAccessPeer", msg);
        return RB_ERR_UNSUPPORTED;
    }
    RB_CUDA(cudaDeviceGetP2PAttribute(&c->perf_rank, cudaDevP2PAttrPerformanceRank, 0, 1));
    RB_CUDA(
        cudaDeviceGetP2PAttribute(&c->native_atomics, cudaDevP2PAttrNativeAtomicSupported, 0, 1));

    RB_CUDA(cudaSetDevice(1));
    rb_status st = p2p_setup_gpu1(c, seed);
    RB_CUDA(cudaSetDevice(0));
    if (st != RB_OK)
        return st;
    RB_TRY(p2p_enable_peer(1, &c->enabled01));
    RB_CUDA(cudaEventCreateWithFlags(&c->ev0, cudaEventDisableTiming));
    RB_CUDA(cudaMalloc((void **)&c->in, c->n * sizeof(float)));
    RB_CUDA(cudaMallocHost((void **)&c->host, c->n * sizeof(float)));
    memset(c->host, 0xFF, c->n * sizeof(float)); /* NaN until the baseline's download lands */
    RB_CUDA(rb_fill_uniform_f32(c->in, c->n, seed, 0));
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

static void p2p_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    p2p_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = c->n * sizeof(float);
}

/* Compared on GPU 1, where out and ref live. The harness has synchronized the stream that
 * joined every variant's work, so GPU 1's part is done too. After the baseline, its pinned
 * staging buffer is poisoned too: the input never changes, so a later run whose download did
 * not happen would otherwise upload the last run's copy and pass. */
static rb_status p2p_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    p2p_ctx *c = ctx;
    (void)stream;
    RB_CUDA(cudaSetDevice(1));
    const cudaError_t e = rb_relerr_f32_device(c->out, c->ref, c->n, c->s1, rel_err);
    RB_CUDA(cudaSetDevice(0));
    RB_CUDA(e);
    if (variant == 0)
        memset(c->host, 0xFF, c->n * sizeof(float));
    return RB_OK;
}

/* GPU 1's resources are released with GPU 1 current, GPU 0's with GPU 0 current. GPU 1 is
 * made current only when setup got that far (on one GPU, cudaSetDevice(1) would leave an error
 * behind for the next cudaGetLastError). */
static void p2p_teardown(void *ctx)
{
    p2p_ctx *c = ctx;
    if (!c)
        return;
    int on_gpu1 = c->out || c->ref || c->s1 || c->ev1 || c->enabled10;
    if (on_gpu1 && cudaSetDevice(1) == cudaSuccess) {
        cudaFree(c->out);
        cudaFree(c->ref);
        if (c->ev1)
            cudaEventDestroy(c->ev1);
        if (c->s1)
            cudaStreamDestroy(c->s1);
        if (c->enabled10)
            cudaDeviceDisablePeerAccess(0);
    }
    cudaSetDevice(0);
    cudaFree(c->in);
    cudaFreeHost(c->host);
    if (c->ev0)
        cudaEventDestroy(c->ev0);
    if (c->enabled01)
        cudaDeviceDisablePeerAccess(1);
    free(c);
}

/* Makes GPU 1's stream wait for what `stream` (GPU 0) has enqueued so far. */
static rb_status p2p_fork(p2p_ctx *c, cudaStream_t stream)
{
    RB_CUDA(cudaEventRecord(c->ev0, stream));
    RB_CUDA(cudaStreamWaitEvent(c->s1, c->ev0, 0));
    return RB_OK;
}

/* Makes `stream` wait for what GPU 1's stream has enqueued so far, so the harness's events on
 * `stream` time the whole variant. */
static rb_status p2p_join(p2p_ctx *c, cudaStream_t stream)
{
    RB_CUDA(cudaEventRecord(c->ev1, c->s1));
    RB_CUDA(cudaStreamWaitEvent(stream, c->ev1, 0));
    return RB_OK;
}

/* Host transfer is this variant's pattern: down to pinned host memory on GPU 0's stream, then
 * up to GPU 1 on GPU 1's stream once the download is complete. Enqueue only. */
static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    p2p_ctx *c = ctx;
    size_t bytes = c->n * sizeof(float);
    RB_CUDA(cudaMemcpyAsync(c->host, c->in, bytes, cudaMemcpyDeviceToHost, stream));
    RB_TRY(p2p_fork(c, stream));
    RB_CUDA(cudaSetDevice(1));
    const cudaError_t e = cudaMemcpyAsync(c->out, c->host, bytes, cudaMemcpyHostToDevice, c->s1);
    RB_CUDA(cudaSetDevice(0));
    RB_CUDA(e);
    RB_TRY(p2p_join(c, stream));
    return RB_OK;
}

static rb_status run_peer_read(void *ctx, cudaStream_t stream)
{
    p2p_ctx *c = ctx;
    RB_TRY(p2p_fork(c, stream));
    RB_CUDA(cudaSetDevice(1));
    const cudaError_t e = p2p_copy_peer_read(c->in, c->out, c->n, c->s1);
    RB_CUDA(cudaSetDevice(0));
    RB_CUDA(e);
    RB_TRY(p2p_join(c, stream));
    return RB_OK;
}

/* One call on GPU 0's stream; with peer access on, the copy engines move it over NVLink. */
static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    p2p_ctx *c = ctx;
    RB_CUDA(cudaMemcpyPeerAsync(c->out, 1, c->in, 0, c->n * sizeof(float), stream));
    return RB_OK;
}

/* Planted defect (tests/test_gpu.c): the peer copy in two pieces whose offsets are swapped (a
 * chunked copy with its chunk offsets off by one chunk): out [0, n - h) gets in [h, n), out
 * [n - h, n) gets in [0, h), h = n / 2. Every element is written, each with another element's
 * value: for independent inputs uniform in (-1, 1) the normwise error is sqrt(2) = 1.41; the
 * tolerance is 0 (a copy is exact). Needs 2 GPUs, like the pair. */
static rb_status run_defect_swapped_chunks(void *ctx, cudaStream_t stream)
{
    p2p_ctx *c = ctx;
    size_t n = c->n, h = n / 2;
    RB_CUDA(cudaMemcpyPeerAsync(c->out, 1, c->in + h, 0, (n - h) * sizeof(float), stream));
    RB_CUDA(cudaMemcpyPeerAsync(c->out + (n - h), 1, c->in, 0, h * sizeof(float), stream));
    return RB_OK;
}

static double p2p_flops(const rb_size *size)
{
    (void)size;
    return 0.0;
}

/* The bytes that cross from GPU 0 to GPU 1. */
static double p2p_bytes(const rb_size *size)
{
    return 4.0 * (double)size->n;
}

/* The link beside the times: GPU 0's PCIe link (NVML; NaN where it is not reported) on the
 * baseline's row, whose copies cross it twice; the peer-to-peer facts the runtime reports on
 * the optimized row (performance rank: lower is a faster link; native atomics: NVLink rather
 * than PCIe, in practice). Rows: 0 baseline, 1 peer_read, 2 optimized. */
static int p2p_extras(void *ctx, int variant, const double *median_ms, rb_extra out[RB_MAX_EXTRAS])
{
    p2p_ctx *c = ctx;
    (void)median_ms;
    if (variant == 0) {
        int gen = 0, width = 0, have = rb_env_pcie_link(0, &gen, &width) == 0;
        rb_fmt(out[0].name, sizeof out[0].name, "pcie_gen");
        out[0].value = have ? gen : NAN;
        rb_fmt(out[1].name, sizeof out[1].name, "pcie_width");
        out[1].value = have ? width : NAN;
        rb_fmt(out[2].name, sizeof out[2].name, "pcie_gbps_one_way");
        out[2].value = have ? rb_pcie_gbps(gen, width) : NAN;
        return 3;
    }
    if (variant == 2) {
        rb_fmt(out[0].name, sizeof out[0].name, "p2p_performance_rank");
        out[0].value = c->perf_rank;
        rb_fmt(out[1].name, sizeof out[1].name, "p2p_native_atomics");
        out[1].value = c->native_atomics;
        return 2;
    }
    return 0;
}

/* The reference of a copy is its input (GPU 1 fills the same seeded stream): nothing to compute
 * on the CPU. What is checked here is the work model: 5 elements and the full 1 GiB. */
static int p2p_selftest(char *why, size_t why_size)
{
    rb_size five = {5, 1, 5}, full = {1u << 28, 1, 1u << 28};
    if (p2p_bytes(&five) != 20.0 || p2p_flops(&five) != 0.0 || p2p_bytes(&full) != 1073741824.0) {
        rb_fmt(why, why_size, "p2p_copy work model wrong on 5 elements or on 2^28");
        return -1;
    }
    return 0;
}

static const rb_pair_ext p2p_copy_ext = {
    .link_bytes = 1,
    .min_gpus = 2,
    .extras = p2p_extras,
};

const rb_pair rb_pair_p2p_copy = {
    .name = "p2p_copy",
    .pattern = "GPU 0 -> GPU 1 over NVLink (peer copy) vs staged through pinned host memory",
    .size_unit = "fp32 elements",
    .smoke_size = 1u << 20,
    .full_size = 1u << 28,
    .flops = p2p_flops,
    .bytes = p2p_bytes,
    .setup = p2p_setup,
    .output = p2p_output,
    .check = p2p_check,
    .teardown = p2p_teardown,
    .selftest = p2p_selftest,
    .codegen =
        {
            {"p2p_copy_peer_read_kernel", "LDG.E.128"},
            {"p2p_copy_peer_read_kernel", "STG.E.128"},
        },
    .kernels = p2p_copy_kernels,
    .n_variants = 3,
    .variants =
        {
            /* Host transfer is the baseline's pattern (see kernels/p2p_copy.cu). Error model:
             * every variant copies, exactly, so the tolerance is 0 (any changed bit fails);
             * measured 0 for all three (2 x H200, 1 GiB: docs/notes/p2p_copy.md). */
            /* Roofs: the peer paths on the link they cross, nvlink_gbps. The host-staged
             * baseline never touches NVLink: its bytes cross PCIe down, then up, one crossing
             * after the other, so it is on pcie_d2h_gbps, where ~50% (1 / (1 + B_d2h / B_h2d))
             * is the most two serial crossings can reach. */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 0.0, run_baseline,
             .roof = "pcie_d2h_gbps"},
            {"peer_read", RB_ROLE_STEP, RB_UNIT_NONE, 0.0, run_peer_read, .roof = "nvlink_gbps"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.0, run_optimized,
             .roof = "nvlink_gbps"},
        },
    .defects = {{"chunk_offsets_swapped", 2, run_defect_swapped_chunks}},
    .ext = &p2p_copy_ext,
};
