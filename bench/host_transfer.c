/* SPDX-License-Identifier: MIT */
/* host_transfer: the harness's view of kernels/host_transfer.cu (read that file first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "platform.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/host_transfer.h"

enum { HT_H2D, HT_D2H };         /* inputs */
enum { HT_PAGEABLE, HT_PINNED }; /* variants, in table order */

typedef struct ht_ctx {
    int input;
    size_t n;
    float *dev;               /* h2d: the destination (output()); d2h: the source */
    float *dev_ref;           /* h2d: the input, kept on the device for the check */
    float *pageable;          /* h2d: a source; d2h: the baseline's destination (malloc) */
    float *pinned;            /* h2d: a source; d2h: the optimized destination, output() */
    float *host_ref;          /* d2h: the input, kept on the host for the check */
    int link_gen, link_width; /* the fastest link reading so far; 0 when none */
} ht_ctx;

static double ht_flops(const rb_size *size)
{
    (void)size;
    return 0.0;
}

/* Each byte crosses the link once. */
static double ht_bytes(const rb_size *size)
{
    return 4.0 * (double)size->n;
}

/* Reads the link now and keeps the fastest reading: NVML reports the current generation, which
 * an idle link may lower to save power, so readings are taken right after transfers (check())
 * as well as in setup. */
static void ht_read_link(ht_ctx *c)
{
    int device = 0, gen = 0, width = 0;
    if (cudaGetDevice(&device) != cudaSuccess || rb_env_pcie_link(device, &gen, &width) != 0)
        return;
    if (c->link_gen == 0 || rb_pcie_gbps(gen, width) > rb_pcie_gbps(c->link_gen, c->link_width)) {
        c->link_gen = gen;
        c->link_width = width;
    }
}

static rb_status ht_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    ht_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->input = input;
    c->n = size->n;
    size_t bytes = c->n * sizeof(float);
    RB_CUDA(cudaMalloc((void **)&c->dev, bytes));
    RB_CUDA(cudaMallocHost((void **)&c->pinned, bytes));
    c->pageable = malloc(bytes);
    if (!c->pageable)
        return RB_ERR_ALLOC;
    if (input == HT_H2D) {
        /* The input is made on the device and copied into both host sources; writing every
         * page of the pageable one now keeps first-touch page faults out of the timing. */
        RB_CUDA(cudaMalloc((void **)&c->dev_ref, bytes));
        RB_CUDA(rb_fill_uniform_f32(c->dev_ref, c->n, seed, 0));
        RB_CUDA(cudaMemcpy(c->pinned, c->dev_ref, bytes, cudaMemcpyDeviceToHost));
        memcpy(c->pageable, c->pinned, bytes);
    } else {
        /* Both destinations start poisoned (0xFF bytes: NaN), and touched. */
        c->host_ref = malloc(bytes);
        if (!c->host_ref)
            return RB_ERR_ALLOC;
        RB_CUDA(rb_fill_uniform_f32(c->dev, c->n, seed, 0));
        RB_CUDA(cudaMemcpy(c->host_ref, c->dev, bytes, cudaMemcpyDeviceToHost));
        memset(c->pageable, 0xFF, bytes);
        memset(c->pinned, 0xFF, bytes);
    }
    RB_CUDA(cudaDeviceSynchronize());
    ht_read_link(c);
    return RB_OK;
}

/* h2d: the device buffer both variants write. d2h: the variant's own host destination, pageable
 * or pinned (the harness poisons either, before every checked run and the timed loop). */
static void ht_output(void *ctx, int variant, void **ptr, size_t *bytes)
{
    ht_ctx *c = ctx;
    if (c->input == HT_H2D)
        *ptr = c->dev;
    else
        *ptr = variant == HT_PAGEABLE ? c->pageable : c->pinned;
    *bytes = c->n * sizeof(float);
}

static rb_status ht_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    ht_ctx *c = ctx;
    RB_CUDA(cudaStreamSynchronize(stream));
    ht_read_link(c);
    if (c->input == HT_H2D) {
        RB_CUDA(rb_relerr_f32_device(c->dev, c->dev_ref, c->n, stream, rel_err));
        return RB_OK;
    }
    /* d2h: the variant's destination. */
    *rel_err = rb_relerr_f32(variant == HT_PAGEABLE ? c->pageable : c->pinned, c->host_ref, c->n);
    return RB_OK;
}

static void ht_teardown(void *ctx)
{
    ht_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->dev);
    cudaFree(c->dev_ref);
    cudaFreeHost(c->pinned);
    free(c->pageable);
    free(c->host_ref);
    free(c);
}

static rb_status ht_copy(ht_ctx *c, float *host, cudaStream_t stream)
{
    if (c->input == HT_H2D)
        RB_CUDA(host_transfer_h2d(c->dev, host, c->n, stream));
    else
        RB_CUDA(host_transfer_d2h(host, c->dev, c->n, stream));
    return RB_OK;
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    ht_ctx *c = ctx;
    return ht_copy(c, c->pageable, stream);
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    ht_ctx *c = ctx;
    return ht_copy(c, c->pinned, stream);
}

/* Planted defect (tests/test_gpu.c): the pinned copy in two pieces whose offsets are swapped
 * (a chunked copy with its chunk offsets off by one chunk): destination [0, n - h) gets source
 * [h, n), destination [n - h, n) gets source [0, h), h = n / 2. Every element is written, each
 * with another element's value: for independent inputs uniform in (-1, 1) the normwise error is
 * sqrt(2) = 1.41; the tolerance is 0 (a copy is exact). */
static rb_status run_defect_swapped_chunks(void *ctx, cudaStream_t stream)
{
    ht_ctx *c = ctx;
    size_t n = c->n, h = n / 2;
    if (c->input == HT_H2D) {
        RB_CUDA(host_transfer_h2d(c->dev, c->pinned + h, n - h, stream));
        RB_CUDA(host_transfer_h2d(c->dev + (n - h), c->pinned, h, stream));
    } else {
        RB_CUDA(host_transfer_d2h(c->pinned, c->dev + h, n - h, stream));
        RB_CUDA(host_transfer_d2h(c->pinned + (n - h), c->dev, h, stream));
    }
    return RB_OK;
}

static void ht_extra(rb_extra *e, const char *name, double value)
{
    rb_fmt(e->name, sizeof e->name, "%s", name);
    e->value = value;
}

/* link_gbps: the link's theoretical rate per direction (NaN when not reported); of_link: this
 * variant's GB/s as a fraction of it. */
static int ht_extras(void *ctx, int variant, const double *median_ms, rb_extra out[RB_MAX_EXTRAS])
{
    ht_ctx *c = ctx;
    double gbps = 4.0 * (double)c->n / (median_ms[variant] * 1e-3) * 1e-9;
    double link = c->link_gen > 0 ? rb_pcie_gbps(c->link_gen, c->link_width) : NAN;
    ht_extra(&out[0], "link_gbps", link);
    ht_extra(&out[1], "of_link", gbps / link);
    return 2;
}

static int ht_selftest(char *why, size_t why_size)
{
    /* 1 GiB in 20 ms is 53.687 GB/s; on a gen 5 x16 link (63.015 GB/s) that is 0.852 of it. */
    ht_ctx c = {.n = 1u << 28, .link_gen = 5, .link_width = 16};
    double ms[2] = {NAN, 20.0};
    rb_extra e[RB_MAX_EXTRAS];
    rb_size full = {1u << 28, 1, 1u << 28};
    int k = ht_extras(&c, HT_PINNED, ms, e);
    if (k != 2 || strcmp(e[0].name, "link_gbps") || fabs(e[0].value - 63.0154) > 1e-3 ||
        strcmp(e[1].name, "of_link") || fabs(e[1].value - 53.6871 / 63.0154) > 1e-4 ||
        ht_bytes(&full) != 1073741824.0 || ht_flops(&full) != 0.0) {
        rb_fmt(why, why_size, "host_transfer extras or work model wrong on 1 GiB in 20 ms");
        return -1;
    }
    /* No link reported, or a variant not timed: NaN, never a number. */
    c.link_gen = 0;
    if (ht_extras(&c, HT_PINNED, ms, e) != 2 || !isnan(e[0].value) || !isnan(e[1].value)) {
        rb_fmt(why, why_size, "host_transfer extras: an unreported link must give NaN");
        return -1;
    }
    c.link_gen = 5;
    if (ht_extras(&c, HT_PAGEABLE, ms, e) != 2 || !isnan(e[1].value)) {
        rb_fmt(why, why_size, "host_transfer extras: an untimed variant must give NaN");
        return -1;
    }
    return 0;
}

static const rb_pair_ext host_transfer_ext = {
    .host_shared = 1, /* host memory and the PCIe link: one GPU at a time in a node run */
    .link_bytes = 1,
    /* Both variants on the link of their direction: pageable memory's staging shows as the
     * distance from the pinned rate the link allows. */
    .input_roofs = {"pcie_h2d_gbps", "pcie_d2h_gbps"},
    .extras = ht_extras,
};

const rb_pair rb_pair_host_transfer = {
    .name = "host_transfer",
    .pattern = "pinned host memory: the copy engine DMAs it directly, pageable memory is staged",
    .size_unit = "fp32 elements (4 bytes each cross the link)",
    .smoke_size = 1u << 20,
    /* 256 MiB: a pinned copy of ~5 ms at the link's ~55 GB/s, long past where a copy's fixed
     * cost matters; 1 GiB, as before, cost a full run several seconds more (allocation, pinning,
     * the checks), most where the host is slow (docs/notes/host_transfer.md). */
    .full_size = 1u << 26,
    .flops = ht_flops,
    .bytes = ht_bytes,
    .setup = ht_setup,
    .output = ht_output,
    .check = ht_check,
    .teardown = ht_teardown,
    .selftest = ht_selftest,
    .n_inputs = 2,
    .inputs = {"h2d", "d2h"},
    .kernels = host_transfer_kernels,
    .n_variants = 2,
    .variants =
        {
            /* Error model: a copy is exact, so the tolerance is 0 (any changed bit fails);
             * measured 0 for both variants and directions (H100, 1 GiB:
             * docs/notes/host_transfer.md). */
            /* Informational: pageable memory is staged by the driver, which copies each chunk
             * through its own pinned buffer with the CPU; the host's memory bandwidth, page
             * faults and scheduling set its time, and it moves between runs while the link
             * does not (docs/ lists its spread). */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 0.0, run_baseline,
             .host_bound_why = "pageable memory: the driver stages every chunk through a pinned "
                               "buffer with CPU copies, so the host's memory and scheduling set "
                               "the time"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 0.0, run_optimized},
        },
    .defects = {{"chunk_offsets_swapped", HT_PINNED, run_defect_swapped_chunks}},
    .ext = &host_transfer_ext,
};
