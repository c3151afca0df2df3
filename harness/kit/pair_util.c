/* SPDX-License-Identifier: MIT */
#include "pair_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "model/stats.h"
#include "model/util.h"
#include "gpu.h"

int rb_pair_resolve_size(const rb_pair *p, const rb_size *requested, rb_size *out, char *why,
                         size_t why_size)
{
    *out = *requested;
    /* before any shape rule: a size no GPU holds, whose products could overflow */
    if (requested->n > RB_MAX_ELEMENTS || requested->rows > RB_MAX_ELEMENTS ||
        requested->cols > RB_MAX_ELEMENTS) {
        rb_fmt(why, why_size,
               "%llu elements: more than 2^40 (%llu), more than any GPU's memory holds",
               (unsigned long long)(requested->n ? requested->n : UINT64_MAX),
               (unsigned long long)RB_MAX_ELEMENTS);
        return -1;
    }
    int (*shape)(rb_size *, char *, size_t) = rb_pair_ext_of(p)->shape;
    if (shape && shape(out, why, why_size) != 0)
        return -1;
    if (!shape) {
        out->rows = 1;
        out->cols = out->n;
    }
    /* what the shape rule made must still be a size: rows x cols = n, at most the bound */
    if (out->n == 0 || out->n > RB_MAX_ELEMENTS || out->rows == 0 || out->cols == 0 ||
        out->rows > out->n || out->cols > out->n || out->rows * out->cols != out->n) {
        rb_fmt(why, why_size, "no valid shape for %llu elements", (unsigned long long)requested->n);
        return -1;
    }
    return 0;
}

int rb_checked_bytes(uint64_t n, size_t elem_bytes, size_t *bytes)
{
    if (elem_bytes != 0 && n > SIZE_MAX / elem_bytes) {
        *bytes = SIZE_MAX;
        return -1;
    }
    *bytes = (size_t)n * elem_bytes;
    return 0;
}

const rb_pair_ext *rb_pair_ext_of(const rb_pair *p)
{
    static const rb_pair_ext none;
    return p->ext ? p->ext : &none;
}

int rb_pair_sweeps_size(const rb_pair *p, uint64_t size, int gpus)
{
    const uint64_t *one_gpu = rb_pair_ext_of(p)->sweep_one_gpu;
    if (gpus != 1 || !one_gpu)
        return 1;
    for (int i = 0; one_gpu[i]; i++)
        if (one_gpu[i] == size)
            return 1;
    return 0;
}

int rb_pair_sustains(const rb_pair *p, uint64_t size, int swept)
{
    return rb_pair_ext_of(p)->timing.sustain_s > 0 && (size >= p->full_size || swept);
}

int rb_pair_swept_skips(const rb_pair *p, int k, int input, uint64_t size, int swept)
{
    const rb_pair_ext *e = rb_pair_ext_of(p);
    return swept && size < p->full_size && e->swept_variants && k >= 0 && k < 32 &&
           !(e->swept_variants(input, size) & 1u << k);
}

int rb_pair_variant_roof(const rb_pair *p, int k, int input, double flops, rb_roof *out)
{
    const rb_pair_ext *e = rb_pair_ext_of(p);
    const char *key = input >= 0 && input < RB_MAX_INPUTS && e->input_roofs[input]
                          ? e->input_roofs[input]
                          : p->variants[k].roof;
    *out = rb_roof_derived(p->variants[k].unit, flops);
    return key ? rb_roof_from_key(key, out) : 0;
}

const char *rb_pair_host_bound(const rb_pair *p, int k, int input)
{
    (void)input;
    return p->variants[k].host_bound_why;
}

#define RB_HOST_BOUND_WHY_MIN 40 /* a sentence that says what on the host sets the time */

int rb_pair_informational_check(const rb_pair *p, int k, char *why, size_t why_size)
{
    const rb_variant_def *v = &p->variants[k];
    const rb_pair_ext *e = rb_pair_ext_of(p);
    int inputs = p->n_inputs > 0 ? p->n_inputs : 1;
    if (!v->host_bound_why)
        return 0;
    if (strlen(v->host_bound_why) < RB_HOST_BOUND_WHY_MIN) {
        rb_fmt(why, why_size, "%s/%s: host_bound_why must say what on the host sets the time",
               p->name, v->name);
        return -1;
    }
    if (v->role == RB_ROLE_OPTIMIZED || v->role == RB_ROLE_LIBRARY) {
        rb_fmt(why, why_size, "%s/%s: the pair's answer (%s) is never informational", p->name,
               v->name, rb_role_name(v->role));
        return -1;
    }
    for (int in = 0; in < inputs; in++) {
        rb_roof roof;
        if (!rb_pair_host_bound(p, k, in))
            continue;
        rb_size size = {p->full_size, 0, 0};
        char sub[160];
        if (e->shape && e->shape(&size, sub, sizeof sub) != 0)
            size = (rb_size){p->full_size, 0, 0};
        if (rb_pair_variant_roof(p, k, in, p->flops(&size), &roof) != 0 ||
            !(rb_roof_is_link(roof) || rb_roof_kind_of(roof) == RB_KIND_LATENCY)) {
            rb_fmt(why, why_size,
                   "%s/%s: on %s, a %s roof: a row a GPU kernel or library bounds is never "
                   "informational (only a link or latency roof)",
                   p->name, v->name, rb_roof_key(roof), rb_roof_kind_name(rb_roof_kind_of(roof)));
            return -1;
        }
    }
    return 0;
}

rb_status rb_crosscheck_reference(const char *pair, const float *d_ref, const float *h_ref,
                                  size_t n, double tol)
{
    float *back = malloc(n * sizeof *back);
    if (!back)
        return RB_ERR_ALLOC;
    cudaError_t e = cudaMemcpy(back, d_ref, n * sizeof *back, cudaMemcpyDeviceToHost);
    double err = rb_relerr_f32(back, h_ref, n);
    free(back);
    RB_CUDA(e);
    if (!rb_within_tolerance(err, tol)) {
        char msg[200];
        rb_fmt(msg, sizeof msg,
               "%s: GPU reference disagrees with the CPU reference: rel_err %.3g > %.3g", pair, err,
               tol);
        rb_error_at(__FILE__, __LINE__, "rb_crosscheck_reference", msg);
        return RB_ERR_INPUT;
    }
    return RB_OK;
}

rb_status rb_copy_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    (void)input;
    uint64_t n = size->n;
    rb_copy_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->n = n;
    size_t bytes;
    if (rb_checked_bytes(n, sizeof(float), &bytes) != 0)
        return RB_ERR_INPUT;
    RB_CUDA(cudaMalloc((void **)&c->in, bytes));
    RB_CUDA(cudaMalloc((void **)&c->out, bytes));
    RB_CUDA(rb_fill_uniform_f32(c->in, n, seed, 0));
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

void rb_copy_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    rb_copy_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->out;
    *bytes = c->n * sizeof(float);
}

rb_status rb_copy_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    rb_copy_ctx *c = ctx;
    (void)variant;
    RB_CUDA(rb_relerr_f32_device(c->out, c->in, c->n, stream, rel_err));
    return RB_OK;
}

void rb_copy_teardown(void *ctx)
{
    rb_copy_ctx *c = ctx;
    if (!c)
        return;
    cudaFree(c->in);
    cudaFree(c->out);
    free(c);
}

rb_status rb_copy_memcpy(void *ctx, cudaStream_t stream)
{
    rb_copy_ctx *c = ctx;
    RB_CUDA(cudaMemcpyAsync(c->out, c->in, c->n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return RB_OK;
}

double rb_copy_flops(const rb_size *size)
{
    (void)size;
    return 0.0;
}

double rb_copy_bytes(const rb_size *size)
{
    return 8.0 * (double)size->n;
}

int rb_copy_selftest(char *why, size_t why_size)
{
    const float in[5] = {1.5f, -2.0f, 3.25f, -0.0f, 1e-30f};
    float out[5];
    memcpy(out, in, sizeof out); /* the CPU reference of a copy */
    rb_size five = {5, 1, 5};
    if (rb_relerr_f32(out, in, 5) != 0.0 || rb_copy_bytes(&five) != 40.0) {
        rb_fmt(why, why_size, "copy reference or work model wrong on a 5-element case");
        return -1;
    }
    return 0;
}

rb_status rb_poison(void *out, size_t bytes, cudaStream_t stream)
{
    struct cudaPointerAttributes a;
    RB_CUDA(cudaPointerGetAttributes(&a, out));
    if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) {
        RB_CUDA(cudaMemsetAsync(out, 0xFF, bytes, stream));
    } else {
        RB_CUDA(cudaStreamSynchronize(stream));
        memset(out, 0xFF, bytes);
    }
    return RB_OK;
}

enum { RB_TIME_MAX_SAMPLES = 64 };

/* One sample: reps calls between the two events, ms per call into *ms. */
static rb_status rb_time_sample(rb_status (*launch)(void *arg, cudaStream_t stream), void *arg,
                                cudaStream_t stream, int reps, cudaEvent_t start, cudaEvent_t stop,
                                double *ms)
{
    RB_CUDA(cudaEventRecord(start, stream));
    for (int r = 0; r < reps; r++)
        RB_TRY(launch(arg, stream));
    RB_CUDA(cudaEventRecord(stop, stream));
    RB_CUDA(cudaEventSynchronize(stop));
    float elapsed_ms = 0.0f;
    RB_CUDA(cudaEventElapsedTime(&elapsed_ms, start, stop));
    *ms = (double)elapsed_ms / reps;
    return RB_OK;
}

rb_status rb_time_launches_ms(rb_status (*launch)(void *arg, cudaStream_t stream), void *arg,
                              cudaStream_t stream, int reps, int samples, double *median_ms)
{
    double ms[RB_TIME_MAX_SAMPLES];
    if (samples < 1 || samples > RB_TIME_MAX_SAMPLES || reps < 1)
        return RB_ERR_INPUT;
    cudaEvent_t start = NULL, stop = NULL;
    rb_status st = RB_OK;
    if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) {
        rb_error_at(__FILE__, __LINE__, "cudaEventCreate", "cannot create the timing events");
        st = RB_ERR_CUDA;
    }
    if (st == RB_OK)
        st = launch(arg, stream);
    for (int k = 0; st == RB_OK && k < samples; k++)
        st = rb_time_sample(launch, arg, stream, reps, start, stop, &ms[k]);
    rb_stats stats;
    if (st == RB_OK && rb_stats_compute(ms, (size_t)samples, &stats) != 0)
        st = RB_ERR_INPUT;
    if (st == RB_OK)
        *median_ms = stats.median;
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    return st;
}

int rb_occupancy_sweep(rb_status (*run)(void *ctx, cudaStream_t stream), void *ctx, int *sweep_bps,
                       int max_bps, double median_ms, rb_extra out[RB_MAX_EXTRAS])
{
    int n = 0;
    rb_fmt(out[n].name, sizeof out[n].name, "max_blocks_per_sm");
    out[n++].value = max_bps;
    double want = ceil(1.0 / median_ms);
    int reps = !(want >= 3) ? 3 : want > 1000 ? 1000 : (int)want;
    for (int bps = 1; bps <= max_bps && n < RB_MAX_EXTRAS; bps++) {
        double ms = NAN;
        *sweep_bps = bps;
        if (rb_time_launches_ms(run, ctx, 0, reps, 11, &ms) != RB_OK)
            ms = NAN;
        rb_fmt(out[n].name, sizeof out[n].name, "ms_bps_%d", bps);
        out[n++].value = ms;
    }
    *sweep_bps = 0;
    return n;
}

int rb_registry_index(const rb_pair *p)
{
    int i = 0;
    while (rb_registry[i] && rb_registry[i] != p)
        i++;
    return i;
}
