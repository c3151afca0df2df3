/* SPDX-License-Identifier: MIT */
/* streams_overlap: the harness's view of kernels/streams_overlap.cu (read that file first).
 *
 * Buffers: the variants write in_dev (H2D), out_dev (kernel) and a host output; the PART variants
 * read fixed buffers instead (`kernel` reads src_dev, `d2h` reads ref_dev), so each part can be
 * timed alone. output() names what each variant's check reads (the pinned host output, in_dev or
 * out_dev), which the harness poisons before every checked run
 * and before the timed loop, so the check after timing sees what the timed runs wrote. check()
 * then poisons the device intermediates (in_dev, out_dev): a stage that was skipped cannot pass
 * on a previous run's data, and duplex's in_dev, which is not its output(), starts NaN too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "model/random.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/streams_overlap.h"

/* Variants, in table order. */
enum { SO_BASELINE, SO_OPTIMIZED, SO_H2D, SO_KERNEL, SO_D2H, SO_DUPLEX };

/* Error model: K dependent fp32 FMAs x <- a x + b per element, each rounding by at most 2^-24
 * relative; an error is damped by a per step, so one element's error stays under 2^-24 max|x| /
 * (1 - a) = 2^-24 K / 2 (6e-5 at K = 2048). Normwise it is far smaller and does not depend on n:
 * 4.4e-7 at K = 2048 over 10^5 inputs (fmaf on the CPU rounds exactly as the GPU's FFMA; the
 * selftest re-measures it on 4096), 1.6e-6 at K = 8192 (-DSTREAMS_OVERLAP_ITERS). Measured on
 * the GPU (H100, n = 2^28, baseline, optimized and kernel alike, every committed run:
 * docs/notes/streams_overlap.md): 4.49e-7. 2e-6 is 4.5x that (and
 * holds K = 8192); the planted defect (the input copied back, as a skipped chain would leave it)
 * gives 1.15. The copies (parts h2d, d2h, duplex) are exact: tolerance 0, measured 0. */
#define SO_TOL 2e-6

typedef struct so_ctx {
    size_t n;
    float *in_pinned, *out_pinned; /* the host buffers (cudaMallocHost) */
    float *in_dev, *out_dev;       /* written by the variants on the device */
    float *src_dev;  /* the input on the device: read by `kernel`, the reference of `h2d` */
    float *ref_dev;  /* the reference result on the device: read by `d2h`, checks `kernel` */
    float *ref_host; /* the reference result on the host */
    cudaStream_t *lanes;
    cudaEvent_t *events; /* fork, then one join event per lane */
    int n_lanes;
} so_ctx;

/* K FMAs per element, 2 flops each. */
static double so_flops(const rb_size *size)
{
    return 2.0 * streams_overlap_iters * (double)size->n;
}

/* Each element crosses the link twice: 4 bytes in, 4 bytes out. */
static double so_bytes(const rb_size *size)
{
    return 8.0 * (double)size->n;
}

/* A copy part moves each element across the link once (duplex: twice, as the pair). */
static double so_bytes_one_way(const rb_size *size)
{
    return 4.0 * (double)size->n;
}

/* The reference, in double from the closed form of K steps x <- a x + b:
 * x_K = c + a^K (x_0 - c), c = b / (1 - a). */
static void so_reference(const float *in, float *out, size_t n, int iters, float a, float b)
{
    double ad = a, c = (double)b / (1.0 - ad), ak = 1.0;
    for (int k = 0; k < iters; k++)
        ak *= ad;
    for (size_t i = 0; i < n; i++)
        out[i] = (float)(c + ak * ((double)in[i] - c));
}

/* Poisons the device buffers the variants write (in_dev, out_dev). */
static rb_status so_poison_device(so_ctx *c, cudaStream_t stream)
{
    RB_CUDA(cudaMemsetAsync(c->in_dev, 0xFF, c->n * sizeof(float), stream));
    RB_CUDA(cudaMemsetAsync(c->out_dev, 0xFF, c->n * sizeof(float), stream));
    RB_CUDA(cudaStreamSynchronize(stream));
    return RB_OK;
}

static rb_status so_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    so_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->n = size->n;
    size_t bytes = c->n * sizeof(float);
    RB_CUDA(cudaMalloc((void **)&c->in_dev, bytes));
    RB_CUDA(cudaMalloc((void **)&c->out_dev, bytes));
    RB_CUDA(cudaMalloc((void **)&c->src_dev, bytes));
    RB_CUDA(cudaMalloc((void **)&c->ref_dev, bytes));
    RB_CUDA(cudaMallocHost((void **)&c->in_pinned, bytes));
    RB_CUDA(cudaMallocHost((void **)&c->out_pinned, bytes));
    c->ref_host = malloc(bytes);
    if (!c->ref_host)
        return RB_ERR_ALLOC;

    /* The input is made on the device and copied to the host input. */
    RB_CUDA(rb_fill_uniform_f32(c->src_dev, c->n, seed, 0));
    RB_CUDA(cudaMemcpy(c->in_pinned, c->src_dev, bytes, cudaMemcpyDeviceToHost));
    so_reference(c->in_pinned, c->ref_host, c->n, streams_overlap_iters, streams_overlap_a,
                 streams_overlap_b);
    RB_CUDA(cudaMemcpy(c->ref_dev, c->ref_host, bytes, cudaMemcpyHostToDevice));
    memset(c->out_pinned, 0xFF, bytes);
    RB_TRY(so_poison_device(c, 0));

    c->n_lanes = streams_overlap_lanes;
    c->lanes = calloc((size_t)c->n_lanes, sizeof *c->lanes);
    c->events = calloc((size_t)c->n_lanes + 1, sizeof *c->events);
    if (!c->lanes || !c->events)
        return RB_ERR_ALLOC;
    for (int l = 0; l < c->n_lanes; l++)
        RB_CUDA(cudaStreamCreateWithFlags(&c->lanes[l], cudaStreamNonBlocking));
    for (int e = 0; e <= c->n_lanes; e++)
        RB_CUDA(cudaEventCreateWithFlags(&c->events[e], cudaEventDisableTiming));
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

/* What the variant's check reads (duplex: its host output; its in_dev is poisoned by check()). */
static void so_output(void *ctx, int variant, void **ptr, size_t *bytes)
{
    so_ctx *c = ctx;
    float *out[] = {[SO_BASELINE] = c->out_pinned,   [SO_OPTIMIZED] = c->out_pinned,
                    [SO_H2D] = c->in_dev,            [SO_KERNEL] = c->out_dev,
                    [SO_D2H] = c->out_pinned,        [SO_DUPLEX] = c->out_pinned};
    *ptr = out[variant];
    *bytes = c->n * sizeof(float);
}

static rb_status so_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    so_ctx *c = ctx;
    RB_CUDA(cudaStreamSynchronize(stream));
    switch (variant) {
    case SO_H2D: /* the device copy of the input */
        RB_CUDA(rb_relerr_f32_device(c->in_dev, c->src_dev, c->n, stream, rel_err));
        break;
    case SO_KERNEL: /* the result on the device */
        RB_CUDA(rb_relerr_f32_device(c->out_dev, c->ref_dev, c->n, stream, rel_err));
        break;
    case SO_DUPLEX: { /* both copies: the device input and the pinned host output */
        double in_err, out_err = rb_relerr_f32(c->out_pinned, c->ref_host, c->n);
        RB_CUDA(rb_relerr_f32_device(c->in_dev, c->src_dev, c->n, stream, &in_err));
        *rel_err = isnan(in_err) || isnan(out_err) ? NAN : fmax(in_err, out_err);
        break;
    }
    default: /* baseline, optimized and d2h: the pinned host output */
        *rel_err = rb_relerr_f32(c->out_pinned, c->ref_host, c->n);
        break;
    }
    RB_TRY(so_poison_device(c, stream));
    return RB_OK;
}

static void so_teardown(void *ctx)
{
    so_ctx *c = ctx;
    if (!c)
        return;
    for (int l = 0; c->lanes && l < c->n_lanes; l++)
        if (c->lanes[l])
            cudaStreamDestroy(c->lanes[l]);
    for (int e = 0; c->events && e <= c->n_lanes; e++)
        if (c->events[e])
            cudaEventDestroy(c->events[e]);
    free(c->lanes);
    free(c->events);
    cudaFree(c->in_dev);
    cudaFree(c->out_dev);
    cudaFree(c->src_dev);
    cudaFree(c->ref_dev);
    cudaFreeHost(c->in_pinned);
    cudaFreeHost(c->out_pinned);
    free(c->ref_host);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    so_ctx *c = ctx;
    RB_CUDA(streams_overlap_serial(c->in_pinned, c->in_dev, c->out_dev, c->out_pinned, c->n,
                                   stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    so_ctx *c = ctx;
    RB_CUDA(streams_overlap_pipelined(c->in_pinned, c->in_dev, c->out_dev, c->out_pinned, c->n,
                                      stream, c->lanes, c->events, STREAMS_OVERLAP_DEFECT_NONE));
    return RB_OK;
}

/* Planted defect (tests/test_gpu.c): the pipeline copying each chunk's input back instead of
 * its result. Every element is written, with x instead of 1 + a^K (x - 1), a^K = 0.135: for x
 * uniform in (-1, 1) the normwise error is 0.865 rms(x - 1) / rms(f) = 0.999 / 0.868 = 1.15,
 * 5.7e5x the tolerance. */
static rb_status run_defect_copy_input(void *ctx, cudaStream_t stream)
{
    so_ctx *c = ctx;
    RB_CUDA(streams_overlap_pipelined(c->in_pinned, c->in_dev, c->out_dev, c->out_pinned, c->n,
                                      stream, c->lanes, c->events,
                                      STREAMS_OVERLAP_DEFECT_COPY_INPUT));
    return RB_OK;
}

/* The stages alone, pinned, whole buffer: their medians give the bound of the pipeline. */
static rb_status run_h2d(void *ctx, cudaStream_t stream)
{
    so_ctx *c = ctx;
    RB_CUDA(cudaMemcpyAsync(c->in_dev, c->in_pinned, c->n * sizeof(float), cudaMemcpyHostToDevice,
                            stream));
    return RB_OK;
}

static rb_status run_kernel(void *ctx, cudaStream_t stream)
{
    so_ctx *c = ctx;
    RB_CUDA(streams_overlap_process(c->src_dev, c->out_dev, c->n, stream));
    return RB_OK;
}

static rb_status run_d2h(void *ctx, cudaStream_t stream)
{
    so_ctx *c = ctx;
    RB_CUDA(cudaMemcpyAsync(c->out_pinned, c->ref_dev, c->n * sizeof(float), cudaMemcpyDeviceToHost,
                            stream));
    return RB_OK;
}

/* Both directions at once, pinned, whole buffer: what the link allows the pipeline. */
static rb_status run_duplex(void *ctx, cudaStream_t stream)
{
    so_ctx *c = ctx;
    RB_CUDA(streams_overlap_duplex(c->in_pinned, c->in_dev, c->ref_dev, c->out_pinned, c->n,
                                   stream, c->lanes, c->events));
    return RB_OK;
}

static void so_extra(rb_extra *e, const char *name, double value)
{
    rb_fmt(e->name, sizeof e->name, "%s", name);
    e->value = value;
}

/* On the optimized variant: bound_ms = max(h2d, kernel, d2h), serial_ms = their sum (what the
 * stages take one after the other, pinned), pipelined_over_bound = optimized / bound_ms. NaN when
 * a stage was not timed. */
static int so_extras(void *ctx, int variant, const double *median_ms, rb_extra out[RB_MAX_EXTRAS])
{
    (void)ctx;
    if (variant != SO_OPTIMIZED)
        return 0;
    double h2d = median_ms[SO_H2D], kernel = median_ms[SO_KERNEL], d2h = median_ms[SO_D2H];
    double bound = isnan(h2d) || isnan(kernel) || isnan(d2h) ? NAN : fmax(h2d, fmax(kernel, d2h));
    so_extra(&out[0], "bound_ms", bound);
    so_extra(&out[1], "serial_ms", h2d + kernel + d2h);
    so_extra(&out[2], "pipelined_over_bound", median_ms[SO_OPTIMIZED] / bound);
    so_extra(&out[3], "duplex_ms", median_ms[SO_DUPLEX]);
    so_extra(&out[4], "pipelined_over_duplex", median_ms[SO_OPTIMIZED] / median_ms[SO_DUPLEX]);
    return 5;
}

/* Chunks of n elements cover [0, n) in order, without gaps or overlap, at most CHUNKS of them,
 * each but the last a multiple of 1024 elements. */
static int so_chunks_ok(size_t n)
{
    size_t next = 0, s, k;
    int used = 0;
    for (int c = 0; c < streams_overlap_chunk_count; c++) {
        streams_overlap_chunk(n, c, &s, &k);
        if (k == 0)
            continue;
        if (s != next || (s + k < n && k % 1024 != 0))
            return 0;
        next = s + k;
        used++;
    }
    streams_overlap_chunk(n, streams_overlap_chunk_count, &s, &k);
    return next == n && used >= 1 && k == 0;
}

static int so_selftest(char *why, size_t why_size)
{
    /* The closed form against K steps in double, by hand: a = 0.5, b = 0.5 (c = 1), K = 3:
     * x_0 = -1 -> 0 -> 0.5 -> 0.75; x_0 = 3 -> 2 -> 1.5 -> 1.25. */
    const float in[2] = {-1.0f, 3.0f}, want[2] = {0.75f, 1.25f};
    float out[2];
    so_reference(in, out, 2, 3, 0.5f, 0.5f);
    if (out[0] != want[0] || out[1] != want[1]) {
        rb_fmt(why, why_size, "closed form wrong: %g %g, want 0.75 1.25", out[0], out[1]);
        return -1;
    }
    /* The fp32 FMA chain the kernel runs (fmaf rounds exactly as the GPU's FFMA), on 4096
     * inputs, against the reference: the tolerance must leave a wide margin. */
    enum { N = 4096 };
    static float x[N], chain[N], ref[N];
    for (int i = 0; i < N; i++) {
        x[i] = rb_uniform_f32(11, (uint64_t)i);
        float v = x[i];
        for (int k = 0; k < streams_overlap_iters; k++)
            v = fmaf(streams_overlap_a, v, streams_overlap_b);
        chain[i] = v;
    }
    so_reference(x, ref, N, streams_overlap_iters, streams_overlap_a, streams_overlap_b);
    double err = rb_relerr_f32(chain, ref, N);
    if (!(err <= SO_TOL / 3)) {
        rb_fmt(why, why_size, "fp32 chain vs reference: rel_err %.3g > tol / 3 = %.3g", err,
               SO_TOL / 3);
        return -1;
    }
    /* A kernel that skipped the chain (out = in) must fail by far. */
    if (!(rb_relerr_f32(x, ref, N) > 100 * SO_TOL)) {
        rb_fmt(why, why_size, "the reference barely depends on the chain: raise ITERS' effect");
        return -1;
    }
    const size_t sizes[] = {1,       2,        1023,    1024, 1025, 31 * 1024, 32 * 1024 + 1,
                            1000003, 1u << 20, 1u << 28};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (!so_chunks_ok(sizes[i])) {
            rb_fmt(why, why_size, "chunks of %zu elements do not tile the buffer", sizes[i]);
            return -1;
        }
    /* Extras: parts 20, 18, 19 ms, duplex 25 ms and a pipelined 22 ms: bound 20, serial 57,
     * ratio 1.1, duplex ratio 0.88. */
    double ms[6] = {120.0, 22.0, 20.0, 18.0, 19.0, 25.0};
    rb_extra e[RB_MAX_EXTRAS];
    rb_size one = {1, 1, 1};
    if (so_extras(NULL, SO_OPTIMIZED, ms, e) != 5 || strcmp(e[0].name, "bound_ms") ||
        e[0].value != 20.0 || e[1].value != 57.0 || fabs(e[2].value - 1.1) > 1e-12 ||
        e[3].value != 25.0 || fabs(e[4].value - 0.88) > 1e-12 ||
        so_extras(NULL, SO_BASELINE, ms, e) != 0 || so_bytes(&one) != 8.0 ||
        so_flops(&one) != 2.0 * streams_overlap_iters) {
        rb_fmt(why, why_size, "streams_overlap extras or work model wrong on a hand case");
        return -1;
    }
    ms[SO_KERNEL] = NAN;
    if (so_extras(NULL, SO_OPTIMIZED, ms, e) != 5 || !isnan(e[0].value) || !isnan(e[2].value)) {
        rb_fmt(why, why_size, "streams_overlap extras: an untimed part must give NaN");
        return -1;
    }
    return 0;
}

static const rb_pair_ext streams_overlap_ext = {
    .host_shared = 1, /* host copies over PCIe: one GPU at a time in a node run */
    .link_bytes = 1,
    .extras = so_extras,
    /* The pipelined time is judged against the stages timed alone; the host link's speed drifts
     * from one second to the next on a shared machine (pinned H2D medians of 19.5 to 20.1 ms and
     * pipelines of 22.7 to 27.0 ms in runs minutes apart), so all five are timed in alternating
     * samples (harness/runner/measure.h) and see the same link. */
    .timing.interleave = 1,
};

const rb_pair rb_pair_streams_overlap = {
    .name = "streams_overlap",
    .pattern = "pinned chunks over several streams overlap H2D, compute and D2H",
    .size_unit = "fp32 elements (in host memory)",
    .smoke_size = 1u << 20,
    .full_size = 1u << 28,
    .flops = so_flops,
    .bytes = so_bytes,
    .setup = so_setup,
    .output = so_output,
    .check = so_check,
    .teardown = so_teardown,
    .selftest = so_selftest,
    /* The compute stage is a chain of FMAs (not a multiply and an add). */
    .codegen = {{"streams_overlap_process_kernel", "FFMA"}},
    .kernels = streams_overlap_kernels,
    .n_variants = 6,
    .variants =
        {
            /* Roofs: the pipeline's bytes (4n in, 4n out) cross the link both ways at once at
             * best, so baseline and optimized are on pcie_duplex_gbps (bytes of both directions
             * counted, as so_bytes counts them): the optimized kernel's %ceil is how close
             * overlap gets to what the link allows (pipelined_over_duplex inverted), the serial
             * baseline's how far it is. Each copy part is on its own direction's roof; the
             * kernel part moves its bytes in device memory: derived, fp32 with the DRAM term. */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, SO_TOL, run_baseline,
             .roof = "pcie_duplex_gbps"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, SO_TOL, run_optimized,
             .roof = "pcie_duplex_gbps"},
            /* The stages alone, for bound_ms: copies are exact. */
            {"h2d", RB_ROLE_PART, RB_UNIT_NONE, 0.0, run_h2d, so_bytes_one_way,
             .roof = "pcie_h2d_gbps"},
            {"kernel", RB_ROLE_PART, RB_UNIT_FP32, SO_TOL, run_kernel},
            {"d2h", RB_ROLE_PART, RB_UNIT_NONE, 0.0, run_d2h, so_bytes_one_way,
             .roof = "pcie_d2h_gbps"},
            /* Both copies at once: duplex_ms, what the link allows when both directions run. */
            {"duplex", RB_ROLE_PART, RB_UNIT_NONE, 0.0, run_duplex, .roof = "pcie_duplex_gbps"},
        },
    .defects = {{"d2h_copies_the_input", SO_OPTIMIZED, run_defect_copy_input}},
    .ext = &streams_overlap_ext,
};
