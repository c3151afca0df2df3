/* SPDX-License-Identifier: MIT */
/*
 * `roofbench ceilings` in its child process: every roof but the tensor cores' (those are in
 * ceilings_gemm.c), each timed by rb_measure (harness/runner/measure.h: ~2 ms samples of
 * back-to-back launches, until the median is known to 1% or the cap) and sent to the parent as
 * soon as it is measured. Order: DRAM copy, read, write; L2; shared memory; FP32, FP64; tensor
 * cores; host links; peer links (p2p_matrix.h: the best pair one way and both ways, every pair
 * timed, ~0.2 s each and a context per GPU); launch latency. Time (H100, full): DRAM and L2
 * ~3 s, FMA and shared memory ~1 s, tensor cores ~31 s (ceilings_gemm.c), host links ~1.5 s,
 * latency ~0.5 s, plus the CUDA context and allocations: ~40 s on one GPU, under the 60 s
 * budget; peer links add ~5 s on 4 GPUs; the DRAM latency (a pointer chase) ~0.5 s. --quick: DRAM copy, FP32, launch, ~1.5 s in the
 * child. --links: host and peer links, seconds. A run's platform reference is the quick three
 * and the probes its rows need (model/ceiling_record.h: DRAM read or write, L2, the PCIe roofs),
 * each by the same method as the full measurement with a shorter cap (CEIL_PROBE_CAP_S): a
 * fraction of a second each.
 */
#include "ceilings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings_gemm.h"
#include "ceilings_kernels.h"
#include "child.h"
#include "model/util.h"
#include "gpu.h"
#include "measure.h"
#include "p2p_matrix.h"

#define CEIL_MIB (1024.0 * 1024.0)
#define CEIL_LINK_BYTES ((size_t)256 << 20) /* per direction: host copies */
#define CEIL_GRAPH_NODES 1000
#define CEIL_CAP_S 2.0 /* rb_measure's cap per roof; quiet roofs stop after ~0.1 s */
/* A platform probe's cap: rb_measure's floor (20 samples over 0.1 s) still holds, and a quiet
 * roof stops as early as in the full measurement. */
#define CEIL_PROBE_CAP_S 0.3

typedef struct ceil_ctx {
    int fd;
    int device; /* the current device: a child's 0, a rank's own GPU under MPI (quick roofs) */
    rb_device dev;
    cudaStream_t s, s2; /* s2: the second direction of the duplex copy */
    cudaEvent_t fork, join;
    void *a, *b; /* DRAM buffers, dram_bytes each (>= 8x L2) */
    size_t dram_bytes;
    size_t n_vec4; /* elements of the kernel being timed (read, write, L2) */
    int reps;      /* L2: passes per launch */
    unsigned *sink;
    float *fma32;
    double *fma64;
    int fma_blocks, fma_iters;
    double smem_bytes; /* per launch, from the launcher */
    void *host_src, *host_dst;
    cudaGraphExec_t graph;
    double dram_read_gbps; /* where L2 falls to */
    double cap_s;          /* rb_measure's cap: CEIL_CAP_S, or CEIL_PROBE_CAP_S for a probe */
    int is_probe;          /* a platform probe: the quick sweep of L2 */
} ceil_ctx;

/* One roof: value from the median, its method from the samples, the SM clock just after. */
static rb_status report(const ceil_ctx *c, const char *key, double value, const rb_stats *st,
                        const char *method, const char *size)
{
    rb_ceiling_method m;
    rb_fmt(m.method, sizeof m.method, "%s", method);
    rb_fmt(m.size, sizeof m.size, "%s", size);
    m.samples = (double)st->n;
    m.noise = st->noise;
    m.sm_clock_mhz = rb_env_sm_clock_mhz(c->device);
    m.power_w = NAN;
    if (rb_child_send(c->fd, rb_ceiling_roof_line(key, value, &m)) != 0) {
        rb_error_at(__FILE__, __LINE__, "rb_child_send", "cannot report to the parent");
        return RB_ERR_ALLOC;
    }
    return RB_OK;
}

static rb_status timed(rb_status (*run)(void *, cudaStream_t), ceil_ctx *c, rb_stats *st)
{
    rb_measure_opts m = {.cap_s = c->cap_s, .noise_target = 0.01, .sample_ms = 2.0};
    double launches = 0;
    return rb_measure(run, c, c->s, &m, st, &launches, NULL);
}

/* GB/s (1e9 bytes/s) or TFLOP/s from the work of one launch and the median ms per launch. */
static double per_s(double work, const rb_stats *st, double unit)
{
    return work / (st->median * 1e-3) / unit;
}

/* ---- DRAM ---- */

static rb_status run_memcpy(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(cudaMemcpyAsync(c->b, c->a, c->dram_bytes, cudaMemcpyDeviceToDevice, s));
    return RB_OK;
}

static rb_status run_copy(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(rb_ceiling_copy(c->a, c->b, c->dram_bytes / 16, s));
    return RB_OK;
}

static rb_status run_read(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(rb_ceiling_read(c->a, c->dram_bytes / 16, 0xFFFFFFFFu, c->sink, s));
    return RB_OK;
}

static rb_status run_write(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(rb_ceiling_write(c->b, c->dram_bytes / 16, s));
    return RB_OK;
}

static rb_status measure_dram_copy(ceil_ctx *c)
{
    rb_stats memcpy_st, kernel_st;
    char method[400], size[160];
    double bytes = (double)c->dram_bytes, x_l2 = bytes / (double)c->dev.l2_bytes;
    RB_TRY(timed(run_memcpy, c, &memcpy_st));
    RB_TRY(timed(run_copy, c, &kernel_st));
    double memcpy_gbps = per_s(2 * bytes, &memcpy_st, 1e9);
    double kernel_gbps = per_s(2 * bytes, &kernel_st, 1e9);
    rb_fmt(method, sizeof method,
           "copy, bytes read + written: the faster of cudaMemcpyAsync device to device (%.1f "
           "GB/s) and a kernel of 16-byte evict-first (.cs) loads and stores (%.1f GB/s)",
           memcpy_gbps, kernel_gbps);
    rb_fmt(size, sizeof size, "%.0f MiB copied into another %.0f MiB buffer (%.1fx L2)",
           bytes / CEIL_MIB, bytes / CEIL_MIB, x_l2);
    int kernel_wins = kernel_gbps > memcpy_gbps;
    return report(c, "dram_gbps", kernel_wins ? kernel_gbps : memcpy_gbps,
                  kernel_wins ? &kernel_st : &memcpy_st, method, size);
}

static rb_status measure_dram_read(ceil_ctx *c)
{
    rb_stats st;
    char size[160];
    double bytes = (double)c->dram_bytes, x_l2 = bytes / (double)c->dev.l2_bytes;
    RB_TRY(timed(run_read, c, &st));
    c->dram_read_gbps = per_s(bytes, &st, 1e9);
    rb_fmt(size, sizeof size, "%.0f MiB read (%.1fx L2)", bytes / CEIL_MIB, x_l2);
    return report(c, "dram_read_gbps", c->dram_read_gbps, &st,
                  "read-only stream: a kernel of 16-byte evict-first (.cs) loads, 4 per thread, "
                  "xor-reduced per thread and kept alive by a conditional store",
                  size);
}

static rb_status measure_dram_write(ceil_ctx *c)
{
    rb_stats st;
    char size[160];
    double bytes = (double)c->dram_bytes, x_l2 = bytes / (double)c->dev.l2_bytes;
    RB_TRY(timed(run_write, c, &st));
    rb_fmt(size, sizeof size, "%.0f MiB written (%.1fx L2)", bytes / CEIL_MIB, x_l2);
    return report(c, "dram_write_gbps", per_s(bytes, &st, 1e9), &st,
                  "write-only stream: a kernel of 16-byte evict-first (.cs) stores of an "
                  "index-dependent pattern, 4 per thread (not a memset)",
                  size);
}

/* ---- L2 ---- */

static rb_status run_l2(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(rb_ceiling_l2_read(c->a, c->n_vec4, c->reps, 0xFFFFFFFFu, c->sink, c->dev.sms, s));
    return RB_OK;
}

/* Working sets swept, as fractions of L2: the roof is the best of those up to half of it (a
 * set that fits with room for the other partition's copies on GPUs whose L2 is split in two);
 * the larger ones show where the rate falls to DRAM's. */
static const double l2_fractions[] = {0.125, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0};
#define L2_POINTS (sizeof l2_fractions / sizeof l2_fractions[0])

static rb_status measure_l2(ceil_ctx *c)
{
    double gbps[L2_POINTS], mib[L2_POINTS];
    int reps[L2_POINTS];
    rb_stats st[L2_POINTS];
    size_t best = 0, points = L2_POINTS;
    /* a probe: the sets the roof is the best of, not the ones that show where it falls */
    while (c->is_probe && points > 1 && l2_fractions[points - 1] > 0.5)
        points--;
    for (size_t i = 0; i < points; i++) {
        size_t w = (size_t)(l2_fractions[i] * (double)c->dev.l2_bytes) / 256 * 256;
        c->n_vec4 = w / 16;
        /* >= 256 MiB per launch: the launch overhead stays under ~1% of a launch */
        c->reps = reps[i] = (int)(((size_t)256 << 20) / w) + 1;
        RB_TRY(timed(run_l2, c, &st[i]));
        gbps[i] = per_s((double)w * c->reps, &st[i], 1e9);
        mib[i] = (double)w / CEIL_MIB;
        if (l2_fractions[i] <= 0.5 && gbps[i] > gbps[best])
            best = i;
    }
    /* Falls to DRAM: the first working set below half way from the L2 roof to DRAM's read. */
    double half_way = 0.5 * (gbps[best] + c->dram_read_gbps);
    char sweep[300] = "", falls[80] = "beyond the sweep";
    for (size_t i = 0; i < points; i++) {
        size_t len = strlen(sweep);
        rb_fmt(sweep + len, sizeof sweep - len, "%s%.1f: %.0f", i ? ", " : "", mib[i], gbps[i]);
    }
    if (c->is_probe)
        rb_fmt(falls, sizeof falls, "not swept (a platform probe: the sets up to L2/2 only)");
    for (size_t i = best; i < points && !c->is_probe; i++)
        if (gbps[i] < half_way) {
            rb_fmt(falls, sizeof falls, "at %.1f MiB (%.2fx L2)", mib[i], l2_fractions[i]);
            break;
        }
    char method[600], size[160];
    rb_fmt(method, sizeof method,
           "a working set read again and again with 16-byte L2-only (.cg) loads over a "
           "resident grid; the best set up to L2/2; falls to DRAM (below half way to "
           "dram_read_gbps) %s; sweep MiB: GB/s %s",
           falls, sweep);
    rb_fmt(size, sizeof size, "%.1f MiB working set (L2 %.1f MiB), read %d times per launch",
           mib[best], (double)c->dev.l2_bytes / CEIL_MIB, reps[best]);
    return report(c, "l2_read_gbps", gbps[best], &st[best], method, size);
}

/* ---- shared memory and FMA ---- */

#define SMEM_ITERS 2048

static rb_status run_smem(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(rb_ceiling_smem(c->sink, c->dev.sms, SMEM_ITERS, s, &c->smem_bytes));
    return RB_OK;
}

static rb_status run_fma32(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(rb_ceiling_fma(c->fma32, c->fma_blocks, c->fma_iters, s));
    return RB_OK;
}

static rb_status run_fma64(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(rb_ceiling_fma64(c->fma64, c->fma_blocks, c->fma_iters, s));
    return RB_OK;
}

static rb_status measure_smem(ceil_ctx *c)
{
    rb_stats st;
    char size[160];
    RB_TRY(timed(run_smem, c, &st));
    /* The bound at the SM's maximum clock (the runtime's clock rate), which no moment exceeds;
     * the clock read now could be an idle one. */
    char why[300];
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) != cudaSuccess)
        khz = 0;
    if (rb_smem_over_bound(per_s(c->smem_bytes, &st, 1e9), c->dev.sms, khz > 0 ? khz * 1e-3 : NAN,
                           why, sizeof why)) {
        rb_error_at(__FILE__, __LINE__, "rb_smem_over_bound", why);
        return RB_ERR_INPUT;
    }
    rb_fmt(size, sizeof size,
           "16 KiB per block, blocks resident on all %d SMs, %.0f MiB per launch", c->dev.sms,
           c->smem_bytes / CEIL_MIB);
    return report(c, "smem_gbps", per_s(c->smem_bytes, &st, 1e9), &st,
                  "ld.shared.v4 (16 bytes, a warp's 32 consecutive words: conflict-free, 512 B "
                  "per instruction), 4 per thread per iteration, summed over all SMs",
                  size);
}

/* fp32 at 2^14 rounds, fp64 (half the rate or less) at 2^13: ~1 ms launches on an H100. */
static rb_status measure_fma(ceil_ctx *c, int fp64)
{
    rb_stats st;
    char size[160];
    c->fma_blocks = c->dev.sms * 8;
    c->fma_iters = fp64 ? 1 << 13 : 1 << 14;
    RB_TRY(timed(fp64 ? run_fma64 : run_fma32, c, &st));
    double flops = (double)c->fma_blocks * 256 * c->fma_iters * 8 * 2;
    rb_fmt(size, sizeof size, "%d blocks x 256 threads x %d rounds x 8 chains", c->fma_blocks,
           c->fma_iters);
    return report(c, fp64 ? "fp64_tflops" : "fp32_tflops", per_s(flops, &st, 1e12), &st,
                  fp64 ? "DFMA: 8 independent fma() chains per thread, 2 flops each"
                       : "FFMA: 8 independent fmaf() chains per thread, 2 flops each",
                  size);
}

/* ---- host and peer links ---- */

static rb_status run_h2d(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(cudaMemcpyAsync(c->a, c->host_src, CEIL_LINK_BYTES, cudaMemcpyHostToDevice, s));
    return RB_OK;
}

static rb_status run_d2h(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(cudaMemcpyAsync(c->host_dst, c->b, CEIL_LINK_BYTES, cudaMemcpyDeviceToHost, s));
    return RB_OK;
}

/* Both directions at once: D2H forked onto s2 and joined back, so the events on s span both. */
static rb_status run_duplex(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(cudaEventRecord(c->fork, s));
    RB_CUDA(cudaStreamWaitEvent(c->s2, c->fork, 0));
    RB_CUDA(cudaMemcpyAsync(c->a, c->host_src, CEIL_LINK_BYTES, cudaMemcpyHostToDevice, s));
    RB_CUDA(cudaMemcpyAsync(c->host_dst, c->b, CEIL_LINK_BYTES, cudaMemcpyDeviceToHost, c->s2));
    RB_CUDA(cudaEventRecord(c->join, c->s2));
    RB_CUDA(cudaStreamWaitEvent(s, c->join, 0));
    return RB_OK;
}

static rb_status measure_host_links(ceil_ctx *c)
{
    rb_stats st;
    char size[160], link[120] = "link not reported by NVML";
    int gen = 0, width = 0;
    if (rb_env_pcie_link(0, &gen, &width) == 0)
        rb_fmt(link, sizeof link, "PCIe gen %d x%d, %.1f GB/s per direction in theory", gen, width,
               rb_pcie_gbps(gen, width));
    RB_CUDA(cudaMallocHost(&c->host_src, CEIL_LINK_BYTES));
    RB_CUDA(cudaMallocHost(&c->host_dst, CEIL_LINK_BYTES));
    memset(c->host_src, 0x5A, CEIL_LINK_BYTES);
    memset(c->host_dst, 0, CEIL_LINK_BYTES);
    const double mib = (double)CEIL_LINK_BYTES / CEIL_MIB, bytes = (double)CEIL_LINK_BYTES;
    char method[300];
    rb_fmt(size, sizeof size, "%.0f MiB per copy", mib);
    rb_fmt(method, sizeof method, "cudaMemcpyAsync from pinned host memory to the device (%s)",
           link);
    RB_TRY(timed(run_h2d, c, &st));
    RB_TRY(report(c, "pcie_h2d_gbps", per_s(bytes, &st, 1e9), &st, method, size));
    rb_fmt(method, sizeof method, "cudaMemcpyAsync from the device to pinned host memory (%s)",
           link);
    RB_TRY(timed(run_d2h, c, &st));
    RB_TRY(report(c, "pcie_d2h_gbps", per_s(bytes, &st, 1e9), &st, method, size));
    rb_fmt(method, sizeof method,
           "H2D and D2H pinned copies at once on two streams, the bytes of both counted (%s)",
           link);
    rb_fmt(size, sizeof size, "%.0f MiB each way per sample", mib);
    RB_TRY(timed(run_duplex, c, &st));
    return report(c, "pcie_duplex_gbps", per_s(2 * bytes, &st, 1e9), &st, method, size);
}

/* ---- latency ---- */

static rb_status run_launch(void *ctx, cudaStream_t s)
{
    (void)ctx;
    RB_CUDA(rb_ceiling_empty(s));
    return RB_OK;
}

static rb_status run_graph(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(cudaGraphLaunch(c->graph, s));
    return RB_OK;
}

static rb_status measure_launch(ceil_ctx *c)
{
    rb_stats st;
    RB_TRY(timed(run_launch, c, &st));
    return report(c, "launch_us", st.median * 1e3, &st,
                  "an empty kernel (1 block of 32 threads) launched back to back on a stream: "
                  "time per launch in a batch of ~2 ms",
                  "1 block x 32 threads, no arguments");
}

static rb_status measure_graph(ceil_ctx *c)
{
    cudaGraph_t g = NULL;
    RB_CUDA(cudaStreamBeginCapture(c->s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < CEIL_GRAPH_NODES; i++)
        RB_CUDA(rb_ceiling_empty(c->s));
    RB_CUDA(cudaStreamEndCapture(c->s, &g));
    cudaError_t e = cudaGraphInstantiate(&c->graph, g, 0);
    cudaGraphDestroy(g);
    RB_CUDA(e);
    rb_stats st;
    char size[100];
    RB_TRY(timed(run_graph, c, &st));
    rb_fmt(size, sizeof size, "a chain of %d empty kernel nodes", CEIL_GRAPH_NODES);
    return report(c, "graph_node_us", st.median * 1e3 / CEIL_GRAPH_NODES, &st,
                  "a CUDA graph of empty kernels in a chain (captured from a stream), "
                  "replayed: time per replay / nodes",
                  size);
}

/* ---- DRAM latency: a pointer chase ---- */

/* The chase's links, one per 128-byte line of the a buffer (>= 8x L2), in one random cycle
 * (Sattolo's shuffle of the line indices: every line once, in an order no prefetcher or DRAM page
 * can follow), built on the host. CEIL_CHASE_STEPS loads per launch, ~30 ms at ~0.3 us each;
 * each launch walks on from where the last stopped, so a 2 s measurement visits ~6M of the 8M
 * lines of 1 GiB once and none twice. */
#define CEIL_CHASE_WORDS 32 /* unsigned per 128-byte line */
#define CEIL_CHASE_STEPS 100000

static rb_status chase_setup(ceil_ctx *c, size_t lines)
{
    unsigned *h = malloc(c->dram_bytes);
    if (!h)
        return RB_ERR_ALLOC;
    unsigned *perm = malloc(lines * sizeof *perm);
    if (!perm) {
        free(h);
        return RB_ERR_ALLOC;
    }
    for (size_t i = 0; i < lines; i++)
        perm[i] = (unsigned)i;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = lines - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        size_t j = (size_t)(x % i);              /* j < i: one cycle through every line */
        unsigned t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    memset(h, 0, c->dram_bytes);
    for (size_t i = 0; i < lines; i++)
        h[i * CEIL_CHASE_WORDS] = perm[i] * CEIL_CHASE_WORDS;
    free(perm);
    cudaError_t e = cudaMemcpy(c->a, h, c->dram_bytes, cudaMemcpyHostToDevice);
    free(h);
    RB_CUDA(e);
    RB_CUDA(cudaMemset(c->sink, 0, sizeof(unsigned))); /* the chain starts at word 0 */
    return RB_OK;
}

static rb_status run_chase(void *ctx, cudaStream_t s)
{
    ceil_ctx *c = ctx;
    RB_CUDA(rb_ceiling_chase(c->a, CEIL_CHASE_STEPS, c->sink, s));
    return RB_OK;
}

/* Last of the DRAM users: it overwrites the a buffer with the chain. */
static rb_status measure_dram_latency(ceil_ctx *c)
{
    const size_t lines = c->dram_bytes / (CEIL_CHASE_WORDS * sizeof(unsigned));
    if (lines > 0xFFFFFFFFu / CEIL_CHASE_WORDS)
        return RB_OK; /* word indices are 32-bit: a buffer over 16 GiB is not chased */
    RB_TRY(chase_setup(c, lines));
    rb_stats st;
    char size[160];
    RB_TRY(timed(run_chase, c, &st));
    rb_fmt(size, sizeof size, "%d dependent loads per launch over %.0f MiB (%.1fx L2)",
           CEIL_CHASE_STEPS, (double)c->dram_bytes / CEIL_MIB,
           (double)c->dram_bytes / (double)c->dev.l2_bytes);
    return report(c, "dram_latency_us", st.median * 1e3 / CEIL_CHASE_STEPS, &st,
                  "pointer chase, one thread: each L2-only (.cg) load's address is the value of "
                  "the one before, over a random cycle through every 128-byte line of the buffer "
                  "(unloaded latency; bytes in flight = bandwidth x this)",
                  size);
}

/* ---- the whole run ---- */

static rb_status ceil_setup(ceil_ctx *c)
{
    RB_CUDA(cudaGetDevice(&c->device));
    RB_TRY(rb_env_device(c->device, &c->dev));
    RB_CUDA(cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking));
    RB_CUDA(cudaStreamCreateWithFlags(&c->s2, cudaStreamNonBlocking));
    RB_CUDA(cudaEventCreateWithFlags(&c->fork, cudaEventDisableTiming));
    RB_CUDA(cudaEventCreateWithFlags(&c->join, cudaEventDisableTiming));
    /* 1 GiB per buffer, and at least 8x L2, so every DRAM stream misses L2. */
    c->dram_bytes = (size_t)1 << 30;
    if (c->dram_bytes < 8 * c->dev.l2_bytes)
        c->dram_bytes = (8 * c->dev.l2_bytes + 4095) / 4096 * 4096;
    RB_CUDA(cudaMalloc(&c->a, c->dram_bytes));
    RB_CUDA(cudaMalloc(&c->b, c->dram_bytes));
    RB_CUDA(cudaMalloc((void **)&c->sink, 256));
    RB_CUDA(cudaMalloc((void **)&c->fma32, (size_t)c->dev.sms * 8 * 256 * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&c->fma64, (size_t)c->dev.sms * 8 * 256 * sizeof(double)));
    RB_CUDA(rb_fill_uniform_f32(c->a, c->dram_bytes / 4, 1, c->s));
    RB_CUDA(cudaStreamSynchronize(c->s));
    return RB_OK;
}

static void ceil_teardown(ceil_ctx *c)
{
    if (c->graph)
        cudaGraphExecDestroy(c->graph);
    cudaFreeHost(c->host_src);
    cudaFreeHost(c->host_dst);
    cudaFree(c->a);
    cudaFree(c->b);
    cudaFree(c->sink);
    cudaFree(c->fma32);
    cudaFree(c->fma64);
    if (c->fork)
        cudaEventDestroy(c->fork);
    if (c->join)
        cudaEventDestroy(c->join);
    if (c->s)
        cudaStreamDestroy(c->s);
    if (c->s2)
        cudaStreamDestroy(c->s2);
}

/* The quick three, and each probe asked for between them (ceiling_record.h's order). */
static rb_status measure_platform(ceil_ctx *c, unsigned probes)
{
    RB_TRY(measure_dram_copy(c));
    c->cap_s = CEIL_PROBE_CAP_S;
    c->is_probe = 1;
    if (probes & RB_PROBE_DRAM_READ)
        RB_TRY(measure_dram_read(c));
    if (probes & RB_PROBE_DRAM_WRITE)
        RB_TRY(measure_dram_write(c));
    if (probes & RB_PROBE_L2)
        RB_TRY(measure_l2(c));
    c->cap_s = CEIL_CAP_S;
    c->is_probe = 0;
    RB_TRY(measure_fma(c, 0));
    if (probes & RB_PROBE_PCIE) {
        c->cap_s = CEIL_PROBE_CAP_S;
        RB_TRY(measure_host_links(c));
        c->cap_s = CEIL_CAP_S;
    }
    return measure_launch(c);
}

static rb_status measure_all(ceil_ctx *c, rb_ceilings_mode mode, unsigned probes)
{
    RB_TRY(ceil_setup(c));
    if (mode == RB_CEILINGS_LINKS) {
        RB_TRY(measure_host_links(c));
        return rb_p2p_link_ceilings(c->fd);
    }
    if (mode == RB_CEILINGS_QUICK)
        return measure_platform(c, probes);
    RB_TRY(measure_dram_copy(c));
    RB_TRY(measure_dram_read(c));
    RB_TRY(measure_dram_write(c));
    RB_TRY(measure_l2(c));
    RB_TRY(measure_smem(c));
    RB_TRY(measure_fma(c, 0));
    RB_TRY(measure_fma(c, 1));
    RB_TRY(rb_ceilings_tensor(c->fd, &c->dev));
    RB_TRY(measure_host_links(c));
    RB_TRY(rb_p2p_link_ceilings(c->fd)); /* p2p_matrix.h: every pair, the best */
    RB_TRY(measure_launch(c));
    RB_TRY(measure_graph(c));
    return measure_dram_latency(c);
}

int rb_ceilings_child(int fd, rb_ceilings_mode mode, unsigned probes)
{
    ceil_ctx c;
    memset(&c, 0, sizeof c);
    c.fd = fd;
    c.cap_s = CEIL_CAP_S;
    rb_status st = measure_all(&c, mode, probes);
    ceil_teardown(&c);
    return st == RB_OK ? 0 : rb_child_error(fd, "measuring the ceilings failed");
}
