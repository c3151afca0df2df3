/* SPDX-License-Identifier: MIT */
/*
 * scan: the harness's view of kernels/scan.cu (read that file first).
 *
 * Inputs: int32 and fp32 (kernels/scan.h: scan_input_i32, scan_input_f32), the same n. The
 *   int32 values lie in 0 .. floor((2^31 - 1) / n) (0 or 1 at the full 2^30, up to 2147 at the
 *   odd 1000003): no prefix can overflow, and every variant must match the reference exactly.
 * Reference: CUB's scan in int64 and fp64 over the device's inputs, rounded once to int32 (exact)
 *   and fp32; up to RB_CPU_REFERENCE_MAX elements the host recomputes both from the seeded
 *   inputs (an int64 and an fp64 running sum) and must agree.
 * Check: fp32, the normwise relative error ||out - ref|| / ||ref||. int32, the absolute error
 *   norm ||out - ref|| (0 exactly when every element is right, >= 1 as soon as one is wrong):
 *   judged against the same tolerance, far below 1, it accepts nothing but the exact answer.
 * Full run: 2 inputs x 3 variants of ~3-4.5 ms at 2^30, each timed for at most ~1 s, plus setup
 *   (4 GiB of inputs made on the GPU, the reference): ~7-9 s estimated.
 */
#include <math.h>
#include <stdlib.h>

#include "model/compare.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/scan.h"
#include "scan_defects.h"

enum { SCAN_INPUT_I32, SCAN_INPUT_F32, SCAN_INPUTS };
enum { SCAN_BASELINE, SCAN_OPTIMIZED, SCAN_LIBRARY };

/* Every variant's tolerance: fp32's normwise error, and for int32 an absolute error norm that any
 * wrong element puts at >= 1. Error model (fp32, positive inputs in (0, 1), so no cancellation):
 * each prefix is a sum whose rounding errors add up along its chain of fp32 adds. In the
 * optimized kernel that chain is within a tile (a thread's 4 elements, a warp's shuffles, the
 * warp and row totals of 20 rows: ~45 adds) and then across tiles, one add per tile (the
 * predecessor's inclusive prefix plus this tile's aggregate, or a window of aggregates): at
 * 2^30, 52429 tiles in a row, so random rounding grows the relative error of late prefixes like
 * sqrt(tiles) u (u = 2^-24), ~1.4e-5 at worst, ~5e-6 typical. A host replay of the kernels'
 * exact fp32 orders with tiles of 4096 (scratch program; the look-back read each predecessor
 * inclusive, or the inclusive word at a random depth of 1 to 32 or 64) measured for the
 * optimized kernel 1.1e-7 to 1.25e-7 at n = 1000003, 2.0e-7 to 2.5e-7 at 2^22 and 2.6e-6 to
 * 3.9e-6 at 2^30, an upper bound for tiles 4x larger (4x fewer adds across tiles); on the H100
 * the kernel with tiles of 16384 measured 9.9e-7 to 2.8e-6 at 2^30, and 6.1e-7 to 1.2e-6 with
 * its prefixes folded (carry + (in-tile prefix + value) for (carry + prefix) + value: the same
 * terms grouped otherwise, the chain one add long either way), and with tiles of 20480 folded
 * (the fp32 order of adds now) 4.5e-7 to 1.4e-6 in the tile-shape runs; for the baseline (its
 * carries chain over a few hundred blocks' sums, not over tiles) 5.5e-8, 6.5e-8 and 3.5e-7
 * (4.3e-7 on the H100). CUB adds in an order of its own (a look-back too): 4.4e-7 to 3.6e-6 on
 * the H100 (the runs docs/notes/scan.md cites). 2e-5 is 5x the largest; the smallest planted
 * defect measured 6.2e-5 on the H100. */
#define SCAN_TOLERANCE 2e-5

typedef struct scan_ctx {
    int is_float;
    size_t n;
    void *in, *out, *ref; /* device: n int32 or fp32 each */
    void *base_scratch, *opt_scratch, *lib_temp;
    void *race_scratch; /* the planted race's flags: cleared once, here at setup */
    size_t lib_temp_bytes;
    double *sums; /* device: the integer check's accumulator */
} scan_ctx;

/* The CPU reference: running sums in int64 and fp64, rounded once to the output type. */
static void scan_cpu_i32(uint64_t seed, size_t n, int32_t *ref)
{
    int64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc += scan_input_i32(seed, i, n);
        ref[i] = (int32_t)acc;
    }
}

static void scan_cpu_f32(uint64_t seed, size_t n, float *ref)
{
    double acc = 0.0;
    for (size_t i = 0; i < n; i++) {
        acc += (double)scan_input_f32(seed, i);
        ref[i] = (float)acc;
    }
}

/* The device reference against the CPU's: int32 bit for bit, fp32 within 1e-7 (both are fp64
 * sums rounded once; only their orders differ, by ~1e-16 before the rounding). */
static rb_status scan_crosscheck(const scan_ctx *c, uint64_t seed)
{
    void *h = malloc(c->n * 4), *d = malloc(c->n * 4);
    rb_status st = RB_ERR_ALLOC;
    if (h && d && cudaMemcpy(d, c->ref, c->n * 4, cudaMemcpyDeviceToHost) == cudaSuccess) {
        st = RB_OK;
        if (c->is_float) {
            scan_cpu_f32(seed, c->n, h);
            st = rb_crosscheck_reference("scan", c->ref, h, c->n, 1e-7);
        } else {
            scan_cpu_i32(seed, c->n, h);
            for (size_t i = 0; i < c->n && st == RB_OK; i++)
                if (((const int32_t *)h)[i] != ((const int32_t *)d)[i]) {
                    rb_error_at(__FILE__, __LINE__, "scan_crosscheck",
                                "scan: the int32 reference differs from the CPU's");
                    st = RB_ERR_INPUT;
                }
        }
    }
    free(h);
    free(d);
    return st;
}

/* Inputs and the reference, with the reference's temp storage freed before returning. */
static rb_status scan_inputs_and_reference(scan_ctx *c, uint64_t seed)
{
    size_t temp_bytes = 0;
    void *temp = NULL;
    RB_CUDA(scan_reference_temp(c->n, c->is_float, &temp_bytes));
    RB_CUDA(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
    cudaError_t e =
        c->is_float ? scan_fill_f32(c->in, c->n, seed, 0) : scan_fill_i32(c->in, c->n, seed, 0);
    if (e == cudaSuccess)
        e = c->is_float ? scan_reference_f32(c->in, c->ref, c->n, temp, temp_bytes, 0)
                        : scan_reference_i32(c->in, c->ref, c->n, temp, temp_bytes, 0);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    cudaFree(temp);
    RB_CUDA(e);
    if (c->n <= RB_CPU_REFERENCE_MAX)
        RB_TRY(scan_crosscheck(c, seed));
    return RB_OK;
}

static rb_status scan_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    size_t base_bytes = 0;
    scan_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->n = size->n;
    c->is_float = input == SCAN_INPUT_F32;
    if (c->n == 0 || c->n > SCAN_MAX_N || input < 0 || input >= SCAN_INPUTS) {
        rb_error_at(__FILE__, __LINE__, "scan_setup", "n must be in 1 .. 2^31 - 1");
        return RB_ERR_INPUT;
    }
    RB_CUDA(scan_baseline_scratch(c->n, &base_bytes));
    RB_CUDA(scan_library_temp(c->n, c->is_float, &c->lib_temp_bytes));
    RB_CUDA(cudaMalloc(&c->in, c->n * 4));
    RB_CUDA(cudaMalloc(&c->out, c->n * 4));
    RB_CUDA(cudaMalloc(&c->ref, c->n * 4));
    RB_CUDA(cudaMalloc(&c->base_scratch, base_bytes));
    RB_CUDA(cudaMalloc(&c->opt_scratch, scan_optimized_scratch(c->n)));
    RB_CUDA(cudaMalloc(&c->lib_temp, c->lib_temp_bytes ? c->lib_temp_bytes : 1));
    RB_CUDA(cudaMalloc((void **)&c->sums, sizeof(double)));
    RB_CUDA(cudaMalloc(&c->race_scratch, scan_defect_chained_scratch(c->n)));
    RB_CUDA(cudaMemset(c->race_scratch, 0, scan_defect_chained_scratch(c->n)));
    return scan_inputs_and_reference(c, seed);
}

static void scan_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    scan_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = c->n * 4;
}

static rb_status scan_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    scan_ctx *c = ctx;
    (void)variant;
    if (c->is_float)
        RB_CUDA(rb_relerr_f32_device(c->out, c->ref, c->n, stream, rel_err));
    else
        RB_CUDA(scan_abs_err_i32(c->out, c->ref, c->n, c->sums, stream, rel_err));
    return RB_OK;
}

static void scan_teardown(void *ctx)
{
    scan_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->in);
    cudaFree(c->out);
    cudaFree(c->ref);
    cudaFree(c->base_scratch);
    cudaFree(c->opt_scratch);
    cudaFree(c->lib_temp);
    cudaFree(c->sums);
    cudaFree(c->race_scratch);
    free(c);
}

static rb_status run_baseline(void *ctx, cudaStream_t stream)
{
    scan_ctx *c = ctx;
    if (c->is_float)
        RB_CUDA(scan_baseline_f32(c->in, c->out, c->n, c->base_scratch, stream));
    else
        RB_CUDA(scan_baseline_i32(c->in, c->out, c->n, c->base_scratch, stream));
    return RB_OK;
}

static rb_status run_optimized(void *ctx, cudaStream_t stream)
{
    scan_ctx *c = ctx;
    if (c->is_float)
        RB_CUDA(scan_optimized_f32(c->in, c->out, c->n, c->opt_scratch, stream));
    else
        RB_CUDA(scan_optimized_i32(c->in, c->out, c->n, c->opt_scratch, stream));
    return RB_OK;
}

static rb_status run_library(void *ctx, cudaStream_t stream)
{
    scan_ctx *c = ctx;
    if (c->is_float)
        RB_CUDA(scan_library_f32(c->in, c->out, c->n, c->lib_temp, c->lib_temp_bytes, stream));
    else
        RB_CUDA(scan_library_i32(c->in, c->out, c->n, c->lib_temp, c->lib_temp_bytes, stream));
    return RB_OK;
}

/* Planted defects (tests/test_gpu.c, at n = 1000003 (62 optimized tiles, 245 baseline ones),
 * seed 5, on both inputs; the fp32 errors as the H100 measured them (the GPU suite's log in the
 * scan-options results that docs/notes/scan.md cites), the int32 ones exact). Each writes every
 * element and fails whatever the timing:
 *   tile_tail (as optimized): every tile's loads stop one element short: each tile's last
 *     element (none of them 0 in the int32 input) is left out of every later prefix: fp32
 *     6.2e-5 normwise, 3x the tolerance; int32 wrong from the first tile's end.
 *   lost_carry (as optimized): inclusive prefixes published without their tile's own aggregate:
 *     fp32 0.056 normwise (the size depends on how far back each look-back read, so on the
 *     timing); int32 wrong from the second tile on.
 *   inclusive_sums (as baseline): the add-back kernel reads the block sums' inclusive scan, so
 *     every block range adds its own sum too: fp32 7.1e-3; int32 wrong everywhere. */
static rb_status scan_run_defect(void *ctx, int defect, cudaStream_t stream)
{
    scan_ctx *c = ctx;
    void *scratch = defect == SCAN_DEFECT_INCLUSIVE_SUMS ? c->base_scratch : c->opt_scratch;
    if (c->is_float)
        RB_CUDA(scan_defect_f32(c->in, c->out, c->n, scratch, defect, stream));
    else
        RB_CUDA(scan_defect_i32(c->in, c->out, c->n, scratch, defect, stream));
    return RB_OK;
}

static rb_status run_tile_tail(void *ctx, cudaStream_t stream)
{
    return scan_run_defect(ctx, SCAN_DEFECT_TILE_TAIL, stream);
}

static rb_status run_lost_carry(void *ctx, cudaStream_t stream)
{
    return scan_run_defect(ctx, SCAN_DEFECT_LOST_CARRY, stream);
}

static rb_status run_inclusive_sums(void *ctx, cudaStream_t stream)
{
    return scan_run_defect(ctx, SCAN_DEFECT_INCLUSIVE_SUMS, stream);
}

/* The planted race (rb_defect.race; bench/scan_defects.h), int32 only: a chained scan whose
 * flags, cleared once at setup, are not cleared between launches. Its first run after setup is
 * exact; in every later run each tile finds its predecessor's flag already set and reads its
 * carry from the output before the predecessor wrote it: the poison the harness put there, so
 * almost every element is wrong (tests/test_gpu.c: `check` fails it on its second run, 20 times
 * in 20). */
static rb_status run_stale_flags(void *ctx, cudaStream_t stream)
{
    scan_ctx *c = ctx;
    if (c->is_float)
        return RB_ERR_INPUT;
    RB_CUDA(scan_defect_chained_i32(c->in, c->out, c->n, c->race_scratch, 0, stream));
    return RB_OK;
}

/* One add per element; 4n bytes read, 4n written. */
static double scan_flops(const rb_size *size)
{
    return (double)size->n;
}

static double scan_bytes(const rb_size *size)
{
    return 8.0 * (double)size->n;
}

static int scan_selftest(char *why, size_t why_size)
{
    /* The CPU references on hand-computed cases, from the seeded inputs at n = 5 (int32 values
     * 0 .. 429496729) and a hand sum of the first three fp32 inputs. */
    int32_t ri[5];
    float rf[3];
    scan_cpu_i32(7, 5, ri);
    int64_t acc = 0;
    for (int i = 0; i < 5; i++) {
        acc += scan_input_i32(7, (uint64_t)i, 5);
        if (ri[i] != (int32_t)acc || scan_input_i32(7, (uint64_t)i, 5) > 429496729) {
            rb_fmt(why, why_size, "int32 reference or input wrong at %d", i);
            return -1;
        }
    }
    scan_cpu_f32(7, 3, rf);
    const double a = scan_input_f32(7, 0), b = scan_input_f32(7, 1), d = scan_input_f32(7, 2);
    if (rf[0] != (float)a || rf[1] != (float)(a + b) || rf[2] != (float)(a + b + d)) {
        rb_fmt(why, why_size, "fp32 reference wrong on the first 3 inputs");
        return -1;
    }
    /* The input bounds: no int32 prefix can overflow at the largest n, or at the odd size; the
     * fp32 inputs lie in (0, 1), never 0 (no cancellation, every element counts). */
    const uint64_t sizes[3] = {SCAN_MAX_N, 1u << 30, 1000003};
    for (int s = 0; s < 3; s++)
        if ((2147483647u / sizes[s]) * sizes[s] > 2147483647u) {
            rb_fmt(why, why_size, "int32 inputs at n = %llu could overflow",
                   (unsigned long long)sizes[s]);
            return -1;
        }
    for (uint64_t i = 0; i < 1000; i++) {
        const float x = scan_input_f32(3, i);
        const int32_t k = scan_input_i32(3, i, 1u << 30);
        if (!(x > 0.0f && x < 1.0f) || k < 0 || k > 1) {
            rb_fmt(why, why_size, "input %llu out of range (%g, %d)", (unsigned long long)i,
                   (double)x, k);
            return -1;
        }
    }
    rb_size five = {5, 1, 5};
    if (scan_bytes(&five) != 40.0 || scan_flops(&five) != 5.0 ||
        scan_optimized_scratch(1u << 30) != 128 + 52429 * 8) { /* 20480-element tiles */
        rb_fmt(why, why_size, "work model or scratch size wrong");
        return -1;
    }
    return 0;
}

const rb_pair rb_pair_scan = {
    .name = "scan",
    .pattern = "inclusive prefix sum in one pass with a decoupled look-back vs reduce-then-scan "
               "(and CUB)",
    .size_unit = "int32 or fp32 elements",
    .smoke_size = 1u << 22,
    .full_size = 1u << 30,
    .flops = scan_flops,
    .bytes = scan_bytes,
    .setup = scan_setup,
    .output = scan_output,
    .check = scan_check,
    .teardown = scan_teardown,
    .selftest = scan_selftest,
    /* The optimized kernels: 16-byte evict-first loads and stores, the tile counter's atomic,
     * and the status words' relaxed 64-bit loads and stores (ld/st.relaxed.gpu: STRONG.GPU). */
    .codegen =
        {
            {"scan_optimized_kernelILi0ELi0E", "LDG.E.EF.128", 0},
            {"scan_optimized_kernelILi0ELi0E", "STG.E.EF.128", 0},
            {"scan_optimized_kernelILi0ELi0E", "ATOMG.E.ADD", 0},
            {"scan_optimized_kernelILi0ELi0E", "LDG.E.64.STRONG.GPU", 0},
            {"scan_optimized_kernelILi0ELi0E", "STG.E.64.STRONG.GPU", 0},
            {"scan_optimized_kernelILi1ELi0E", "LDG.E.EF.128", 0},
            {"scan_optimized_kernelILi1ELi0E", "LDG.E.64.STRONG.GPU", 0},
            {NULL, NULL, 0},
        },
    .kernels = scan_kernels,
    /* No spill: on sm_80, sm_86, sm_89, sm_90, sm_100 and sm_120 every optimized kernel
     * fits 128 registers (two blocks an SM) with no local memory, so the check holds on all. */
    .n_inputs = SCAN_INPUTS,
    .inputs = {"int32", "fp32"},
    .n_variants = 3,
    .variants =
        {
            /* Roof: a stream that reads the input and writes the output once: DRAM copy. */
            {"baseline", RB_ROLE_BASELINE, RB_UNIT_FP32, SCAN_TOLERANCE, run_baseline,
             .roof = "dram_gbps"},
            {"optimized", RB_ROLE_OPTIMIZED, RB_UNIT_FP32, SCAN_TOLERANCE, run_optimized,
             .roof = "dram_gbps"},
            {"library", RB_ROLE_LIBRARY, RB_UNIT_FP32, SCAN_TOLERANCE, run_library,
             .roof = "dram_gbps"},
        },
    .defects =
        {
            {"tile_tail", SCAN_OPTIMIZED, run_tile_tail, 0},
            {"lost_carry", SCAN_OPTIMIZED, run_lost_carry, 0},
            {"inclusive_sums", SCAN_BASELINE, run_inclusive_sums, 0},
            {"stale_flags", SCAN_OPTIMIZED, run_stale_flags, 0, .inputs = 1u << SCAN_INPUT_I32,
             .race = 1},
        },
};
