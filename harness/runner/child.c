/* SPDX-License-Identifier: MIT */
#include "child.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>

#include "model/compare.h"
#include "model/fingerprint.h"
#include "model/util.h"
#include "env.h"
#include "gpu.h"
#include "energy_read.h"
#include "gpu_check.h"
#include "pair_util.h"

int rb_child_send(int fd, json_value *v)
{
    char *text = v ? json_write(v, 0) : NULL;
    json_free(v);
    if (!text)
        return -1;
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the terminator: the line is sent with its newline */
    size_t off = 0;
    while (off < len + 1) {
        ssize_t k = write(fd, text + off, len + 1 - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            free(text);
            return -1;
        }
        off += (size_t)k;
    }
    free(text);
    return 0;
}

static json_value *record(const char *type)
{
    json_value *o = json_new_object();
    if (o && json_set_string(o, "type", type)) {
        json_free(o);
        return NULL;
    }
    return o;
}

static int send_reason(int fd, const char *type, const char *reason)
{
    json_value *o = record(type);
    if (o && json_set_string(o, "reason", reason)) {
        json_free(o);
        o = NULL;
    }
    return rb_child_send(fd, o);
}

static int send_error(int fd, const char *what)
{
    char reason[400];
    const char *first = rb_first_error();
    rb_fmt(reason, sizeof reason, "%s%s%s", what, first[0] ? ": " : "", first);
    send_reason(fd, "error", reason);
    return 1;
}

int rb_child_error(int fd, const char *what)
{
    return send_error(fd, what);
}

/* v's index in p->variants: what output() and check() are told. */
static int variant_index(const rb_pair *p, const rb_variant_def *v)
{
    return (int)(v - p->variants);
}

static rb_status poison_output(const rb_pair *p, const rb_variant_def *v, void *ctx,
                               cudaStream_t s)
{
    void *out = NULL;
    size_t bytes = 0;
    p->output(ctx, variant_index(p, v), &out, &bytes);
    return rb_poison(out, bytes, s);
}

/* Poisons the output, runs the variant once and compares with the reference. */
static rb_status checked_run(const rb_pair *p, const rb_variant_def *v, void *ctx, cudaStream_t s,
                             double *rel_err)
{
    RB_TRY(poison_output(p, v, ctx, s));
    RB_TRY(v->run(ctx, s));
    RB_CUDA(cudaStreamSynchronize(s));
    RB_TRY(p->check(ctx, variant_index(p, v), s, rel_err));
    return RB_OK;
}

/* A variant whose run() returns RB_ERR_UNSUPPORTED in its first checked run cannot be measured
 * meaningfully on this machine (NCCL in place on one GPU moves nothing): it is skipped with
 * rb_error_at's message, never timed and not invalid, and the pair's other variants still run.
 * Returns 1 when r was marked skipped. */
/* A variant a full run does not time at this size of its sweep (rb_pair_swept_skips). */
static int skipped_at_size(const rb_pair *p, int k, const rb_child_opts *o, rb_variant_result *r)
{
    if (!rb_pair_swept_skips(p, k, o->input, o->size.n, o->swept))
        return 0;
    r->skipped = 1;
    rb_fmt(r->note, sizeof r->note, RB_NOT_AT_SIZE_NOTE ": %s", rb_pair_ext_of(p)->swept_why);
    return 1;
}

/* A variant check --skip-variants leaves out (rb_child_opts.skip_variants). */
static int skipped_by_option(int k, const rb_child_opts *o, rb_variant_result *r)
{
    if (k >= 32 || !(o->skip_variants >> k & 1u))
        return 0;
    r->skipped = 1;
    rb_fmt(r->note, sizeof r->note, "left out by --skip-variants");
    return 1;
}

static int skipped_variant(rb_status st, rb_variant_result *r)
{
    if (st != RB_ERR_UNSUPPORTED)
        return 0;
    r->skipped = 1;
    rb_fmt(r->note, sizeof r->note, "skipped on this machine: %s", rb_first_error());
    rb_error_clear();
    return 1;
}

/* The SM clock of the current device: the child's device 0, a rank's own GPU under MPI. */
static double current_sm_clock_mhz(void)
{
    int device = 0;
    return cudaGetDevice(&device) == cudaSuccess ? rb_env_sm_clock_mhz(device) : NAN;
}

/* A pair that spans GPUs is timed on several, and the energy counter read is one GPU's. */
static void energy_of_pair(const rb_pair *p, rb_variant_result *r)
{
    if (rb_pair_ext_of(p)->min_gpus >= 2 && r->energy.state != RB_ENERGY_NONE)
        rb_energy_none(&r->energy, RB_ENERGY_SEVERAL_GPUS);
}

/* The note of a variant whose samples were timed without the start latch (measure.h). */
static void note_latch_dropped(rb_variant_result *r)
{
    rb_fmt(r->note, sizeof r->note,
           "timed without the start latch: a run() queues more than the GPU takes in while "
           "held, so each sample's time includes the host's queuing of its first run");
}

/* One run of the variant alone in a profile window (model/profile.h): what ncu profiles under
 * `roofbench profile`, every kernel of it and nothing else. */
static rb_status profile_window(const rb_pair *p, const rb_variant_def *v, void *ctx,
                                cudaStream_t s, int input)
{
    const int pair = rb_registry_index(p);
    RB_CUDA(cudaStreamSynchronize(s));
    RB_CUDA(cudaProfilerStart());
    RB_CUDA(rb_profile_mark(variant_index(p, v), pair, input, s));
    RB_TRY(v->run(ctx, s));
    RB_CUDA(cudaStreamSynchronize(s));
    RB_CUDA(cudaProfilerStop());
    return RB_OK;
}

/* Validates, times and validates again; fills r, and with several ranks (o->comm) *own_ms with
 * this rank's own median (rb_measure_opts.rank_median_ms). A failure of a CUDA call is returned
 * (the context may be gone); a wrong result is not a failure: it leaves r invalid and untimed. */
static rb_status run_variant(const rb_pair *p, const rb_variant_def *v, void *ctx, cudaStream_t s,
                             const rb_child_opts *o, rb_variant_result *r, double *own_ms)
{
    rb_status first = checked_run(p, v, ctx, s, &r->rel_err_before);
    if (skipped_variant(first, r))
        return RB_OK;
    RB_TRY(first);
    if (!rb_within_tolerance(r->rel_err_before, v->tolerance)) {
        rb_fmt(r->note, sizeof r->note, "wrong result before timing: rel_err %.3g > tol %.3g",
               r->rel_err_before, v->tolerance);
        return RB_OK;
    }
    if (o->check_only) {
        if (o->profile_window)
            RB_TRY(profile_window(p, v, ctx, s, o->input));
        /* A second independent run catches results that change between runs (races). */
        RB_TRY(checked_run(p, v, ctx, s, &r->rel_err_after));
    } else {
        /* Poisoned before the timed loop: what is checked after it was written by it. */
        RB_TRY(poison_output(p, v, ctx, s));
        rb_measure_opts m = o->measure;
        int dropped = 0, read = 0;
        m.rank_median_ms = o->comm ? own_ms : NULL;
        m.latch_dropped = &dropped;
        m.energy = &r->energy;
        m.contended = &r->contended_by;
        m.contention_read = &read;
        RB_TRY(rb_measure(v->run, ctx, s, &m, &r->time_ms, &r->launches_per_sample, &r->clocks));
        if (dropped)
            note_latch_dropped(r);
        energy_of_pair(p, r);
        r->timed = 1;
        r->sm_clock_mhz = current_sm_clock_mhz();
        RB_TRY(p->check(ctx, variant_index(p, v), s, &r->rel_err_after));
    }
    r->valid = rb_within_tolerance(r->rel_err_after, v->tolerance);
    if (!r->valid)
        rb_fmt(r->note, sizeof r->note, "wrong result after %s: rel_err %.3g > tol %.3g",
               o->check_only ? "a second run" : "timing", r->rel_err_after, v->tolerance);
    return RB_OK;
}

/* Runs the variant `launches` times back to back on a poisoned output and checks the result. */
static rb_status checked_launches(const rb_pair *p, const rb_variant_def *v, void *ctx,
                                  cudaStream_t s, int launches, double *rel_err)
{
    RB_TRY(poison_output(p, v, ctx, s));
    for (int l = 0; l < launches; l++)
        RB_TRY(v->run(ctx, s));
    RB_CUDA(cudaStreamSynchronize(s));
    RB_TRY(p->check(ctx, variant_index(p, v), s, rel_err));
    return RB_OK;
}

/* run_variant for every variant of an interleaved pair: each is validated, the valid ones are
 * timed together in rounds, and each then runs one more sample's launches on a poisoned output,
 * which is checked (the output of its own timed samples was overwritten by the others'). */
static rb_status run_interleaved(const rb_pair *p, void *ctx, cudaStream_t s,
                                 const rb_child_opts *o, rb_variant_result *r, double *own_ms)
{
    rb_timed timed[RB_MAX_VARIANTS];
    int which[RB_MAX_VARIANTS], n = 0;
    for (int k = 0; k < p->n_variants; k++) {
        const rb_variant_def *v = &p->variants[k];
        if (skipped_at_size(p, k, o, &r[k]))
            continue;
        rb_status first = checked_run(p, v, ctx, s, &r[k].rel_err_before);
        if (skipped_variant(first, &r[k]))
            continue;
        RB_TRY(first);
        if (!rb_within_tolerance(r[k].rel_err_before, v->tolerance)) {
            rb_fmt(r[k].note, sizeof r[k].note, "wrong result before timing: rel_err %.3g > tol %.3g",
                   r[k].rel_err_before, v->tolerance);
            continue;
        }
        timed[n] = (rb_timed){v->run, ctx};
        which[n++] = k;
    }
    if (n == 0)
        return RB_OK;
    rb_stats stats[RB_MAX_VARIANTS];
    double launches[RB_MAX_VARIANTS];
    if (o->nvtx) {
        char label[160];
        rb_fmt(label, sizeof label, "%s/interleaved", p->name);
        nvtxRangePushA(label);
    }
    rb_clocks clocks[RB_MAX_VARIANTS];
    rb_energy energy[RB_MAX_VARIANTS];
    rb_contention seen;
    double own[RB_MAX_VARIANTS];
    int dropped[RB_MAX_VARIANTS] = {0}, read = 0;
    rb_measure_opts m = o->measure;
    m.rank_median_ms = o->comm ? own : NULL;
    m.latch_dropped = dropped;
    m.energy = energy;
    m.contended = &seen;
    m.contention_read = &read;
    rb_status st = rb_measure_rounds(timed, n, s, &m, stats, launches, clocks);
    if (o->nvtx)
        nvtxRangePop();
    RB_TRY(st);
    double clock = current_sm_clock_mhz();
    for (int i = 0; i < n; i++) {
        rb_variant_result *ri = &r[which[i]];
        own_ms[which[i]] = o->comm ? own[i] : NAN;
        const rb_variant_def *v = &p->variants[which[i]];
        ri->time_ms = stats[i];
        ri->launches_per_sample = launches[i];
        ri->timed = 1;
        ri->sm_clock_mhz = clock;
        ri->clocks = clocks[i]; /* the readings taken while its own samples ran */
        ri->energy = energy[i];
        ri->contended_by = seen; /* timed together: the loop's processes are each one's */
        energy_of_pair(p, ri);
        if (dropped[i])
            note_latch_dropped(ri);
        RB_TRY(checked_launches(p, v, ctx, s, (int)launches[i], &ri->rel_err_after));
        ri->valid = rb_within_tolerance(ri->rel_err_after, v->tolerance);
        if (!ri->valid)
            rb_fmt(ri->note, sizeof ri->note, "wrong result after timing: rel_err %.3g > tol %.3g",
                   ri->rel_err_after, v->tolerance);
    }
    return RB_OK;
}

static int pair_header(int fd, const rb_pair *p, const rb_size *size, int input)
{
    json_value *o = record("pair");
    double flops = p->flops(size), bytes = p->bytes(size);
    const rb_pair_ext *e = rb_pair_ext_of(p);
    if (e->work)
        e->work(size, input, &flops, &bytes);
    if (!o || json_set_string(o, "name", p->name) || json_set_string(o, "pattern", p->pattern) ||
        json_set_number(o, "size", (double)size->n) || json_set_number(o, "flops", flops) ||
        json_set_number(o, "bytes", bytes) || json_set_bool(o, "link_bytes", e->link_bytes)) {
        json_free(o);
        return -1;
    }
    return rb_child_send(fd, o);
}

/* A variant's record; with several ranks, beside it this rank's own median (rank_median_ms, NaN:
 * none), which roofbench_mpi gathers to name the slowest rank of a collective. */
static int variant_record(int fd, const rb_variant_result *r, double own_ms)
{
    json_value *o = record("variant");
    if (!o || json_object_set(o, "variant", rb_variant_to_json(r)) ||
        (isfinite(own_ms) && json_set_number(o, "rank_median_ms", own_ms))) {
        json_free(o);
        return -1;
    }
    return rb_child_send(fd, o);
}

/* The kernel's codegen fingerprint, from the table the build embedded (none: the fields stay
 * absent). */
static void kernel_fingerprint(const rb_pair *p, const rb_kernel_info *ki, rb_kernel_result *k)
{
    const rb_fingerprint *f = rb_fingerprint_find(rb_fingerprints, p->name, ki->name);
    if (!f)
        return;
    rb_fingerprint_hex(f->hash, k->sass_hash);
    k->n_sass_counts = rb_fingerprint_counts(f, p->codegen, k->sass_counts, RB_MAX_EXTRAS);
}

/* The resources of the pair's kernels, as the runtime reports them (after setup: the pair may
 * have raised a kernel's dynamic shared memory limit there), and the grid each launches at the
 * run's size where the pair says. */
static int kernels_record(int fd, const rb_pair *p, const rb_size *size)
{
    if (!p->kernels || !p->kernels[0].func)
        return 0;
    int dev = 0, max_threads = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    json_value *o = record("kernels"), *list = json_new_array();
    int bad = !o || !list;
    for (int i = 0; !bad && p->kernels[i].func && i < RB_MAX_KERNELS; i++) {
        const rb_kernel_info *ki = &p->kernels[i];
        rb_kernel_result k;
        memset(&k, 0, sizeof k);
        rb_fmt(k.variant, sizeof k.variant, "%s", ki->variant);
        rb_fmt(k.name, sizeof k.name, "%s", ki->name);
        k.block_threads = ki->block_threads;
        k.dyn_smem = (double)ki->dyn_smem;
        long long grid = ki->grid ? ki->grid((size_t)size->rows, (size_t)size->cols) : -1;
        k.grid = grid > 0 ? grid : 0; /* 0: unknown */
        struct cudaFuncAttributes fa;
        int blocks = 0;
        if (cudaFuncGetAttributes(&fa, ki->func) != cudaSuccess) {
            cudaGetLastError(); /* not sticky: clear it */
            k.registers = k.blocks_per_sm = -1;
            k.static_smem = k.local_bytes = k.occupancy = NAN;
        } else {
            k.registers = fa.numRegs;
            k.static_smem = (double)fa.sharedSizeBytes;
            k.local_bytes = (double)fa.localSizeBytes;
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, ki->func, ki->block_threads,
                                                              ki->dyn_smem) != cudaSuccess) {
                cudaGetLastError();
                blocks = -1;
            }
            k.blocks_per_sm = blocks;
            k.occupancy = blocks >= 0 && max_threads > 0
                              ? (double)blocks * ki->block_threads / max_threads
                              : NAN;
        }
        kernel_fingerprint(p, ki, &k);
        bad |= json_array_push(list, rb_kernel_to_json(&k));
    }
    if (bad || json_object_set(o, "kernels", list)) {
        json_free(o);
        return -1;
    }
    return rb_child_send(fd, o);
}

/* The pair's figures beside the time, once every variant has run. */
static int extras_records(int fd, const rb_pair *p, void *ctx, const double *median_ms, int n)
{
    int (*extras)(void *, int, const double *, rb_extra *) = rb_pair_ext_of(p)->extras;
    if (!extras)
        return 0;
    for (int k = 0; k < n; k++) {
        rb_extra x[RB_MAX_EXTRAS];
        int m = extras(ctx, k, median_ms, x);
        if (m <= 0)
            continue;
        json_value *o = record("extras");
        if (!o || json_set_number(o, "index", k) ||
            json_object_set(o, "extras", rb_extras_to_json(x, m < RB_MAX_EXTRAS ? m : RB_MAX_EXTRAS)) ||
            rb_child_send(fd, o) != 0)
            return -1;
    }
    return 0;
}

/* How the variants of p are timed under o (ext->timing; --cold). */
static rb_timing timing_of(const rb_pair *p, const rb_child_opts *o)
{
    if (o->measure.cold)
        return RB_TIMING_COLD;
    if (o->measure.windows > 0)
        return RB_TIMING_SUSTAINED_INTERLEAVED;
    if (o->measure.min_s > 0)
        return RB_TIMING_SUSTAINED;
    return rb_pair_ext_of(p)->timing.interleave ? RB_TIMING_INTERLEAVED : RB_TIMING_SAMPLES;
}

static void variant_init(const rb_pair *p, int k, const rb_child_opts *o, rb_variant_result *r)
{
    const rb_variant_def *v = &p->variants[k];
    rb_variant_result_init(r, v->name, v->role, v->unit, v->tolerance);
    r->timing = timing_of(p, o);
    if (v->bytes)
        r->bytes = v->bytes(&o->size);
    double flops = p->flops(&o->size), bytes = 0;
    const rb_pair_ext *e = rb_pair_ext_of(p);
    if (e->work)
        e->work(&o->size, o->input, &flops, &bytes);
    /* A key that is not a roof's leaves the derived one (tests/test_registry.c refuses it). */
    rb_pair_variant_roof(p, k, o->input, flops, &r->roof);
    if (v->roof_rate)
        rb_fmt(r->roof_rate, sizeof r->roof_rate, "%s", v->roof_rate);
    const char *host_bound = rb_pair_host_bound(p, k, o->input);
    if (host_bound)
        rb_fmt(r->host_bound_why, sizeof r->host_bound_why, "%s", host_bound);
}

/* The library algorithm the variant ran, where the pair can tell. */
static void variant_algo(const rb_pair *p, void *ctx, int k, rb_variant_result *r)
{
    memset(&r->library_algo, 0, sizeof r->library_algo);
    const rb_pair_ext *e = rb_pair_ext_of(p);
    if (e->library_algo && e->library_algo(ctx, k, &r->library_algo) == 1)
        r->library_algo.present = 1;
    else
        memset(&r->library_algo, 0, sizeof r->library_algo);
}

/* The pair's note on the variant, where it has one, after any the run wrote. */
static void variant_pair_note(const rb_pair *p, void *ctx, int k, rb_variant_result *r)
{
    char line[sizeof r->note];
    const rb_pair_ext *e = rb_pair_ext_of(p);
    if (!e->variant_note || e->variant_note(ctx, k, line, sizeof line) != 1)
        return;
    size_t len = strlen(r->note);
    rb_fmt(r->note + len, sizeof r->note - len, "%s%s", len ? "; " : "", line);
}

/* Every variant validated, timed and validated again, one after the other; each variant's
 * record sent as it is done, its median into median_ms[k] (NaN when it was not timed). 0, or 1
 * after an error (reported). */
static int sequential_records(int fd, const rb_pair *p, void *ctx, cudaStream_t s,
                              const rb_child_opts *o, double *median_ms)
{
    for (int k = 0; k < p->n_variants; k++) {
        const rb_variant_def *v = &p->variants[k];
        rb_variant_result r;
        double own_ms = NAN;
        variant_init(p, k, o, &r);
        if (skipped_by_option(k, o, &r) || skipped_at_size(p, k, o, &r)) {
            median_ms[k] = NAN;
            if (variant_record(fd, &r, NAN) != 0)
                return 1;
            continue;
        }
        if (o->nvtx) {
            char label[160];
            rb_fmt(label, sizeof label, "%s%s%s/%s", p->name, p->n_inputs ? "." : "",
                   p->n_inputs ? p->inputs[o->input] : "", v->name);
            nvtxRangePushA(label);
        }
        rb_status st = run_variant(p, v, ctx, s, o, &r, &own_ms);
        median_ms[k] = r.timed && r.valid ? r.time_ms.median : NAN;
        if (o->nvtx)
            nvtxRangePop();
        if (st != RB_OK) {
            rb_fmt(r.note, sizeof r.note, "%s", rb_first_error());
            variant_record(fd, &r, NAN);
            return send_error(fd, v->name);
        }
        variant_algo(p, ctx, k, &r);
        variant_pair_note(p, ctx, k, &r);
        if (variant_record(fd, &r, r.timed && r.valid ? own_ms : NAN) != 0)
            return 1;
    }
    return 0;
}

/* The same for an interleaved pair (run_interleaved): the records are sent once all are done. */
static int interleaved_records(int fd, const rb_pair *p, void *ctx, cudaStream_t s,
                               const rb_child_opts *o, double *median_ms)
{
    rb_variant_result r[RB_MAX_VARIANTS];
    double own_ms[RB_MAX_VARIANTS];
    for (int k = 0; k < p->n_variants; k++) {
        variant_init(p, k, o, &r[k]);
        own_ms[k] = NAN;
    }
    rb_status st = run_interleaved(p, ctx, s, o, r, own_ms);
    for (int k = 0; k < p->n_variants; k++) {
        median_ms[k] = r[k].timed && r[k].valid ? r[k].time_ms.median : NAN;
        if (st != RB_OK && !r[k].note[0])
            rb_fmt(r[k].note, sizeof r[k].note, "%s", rb_first_error());
        variant_algo(p, ctx, k, &r[k]);
        variant_pair_note(p, ctx, k, &r[k]);
        if (variant_record(fd, &r[k], r[k].timed && r[k].valid ? own_ms[k] : NAN) != 0)
            return 1;
    }
    return st != RB_OK ? send_error(fd, "interleaved timing") : 0;
}

/* Fault injection for the tests of crash and hang handling (tests/test_gpu.c):
 * RB_TEST_FAULT=<pair>:segv|hang|illegal_address makes that pair's child fail that way. */
static rb_status inject_fault(const char *pair, cudaStream_t s)
{
    const char *f = getenv("RB_TEST_FAULT");
    size_t n = strlen(pair);
    if (!f || strncmp(f, pair, n) != 0 || f[n] != ':')
        return RB_OK;
    f += n + 1;
    if (!strcmp(f, "segv"))
        raise(SIGSEGV);
    if (!strcmp(f, "hang"))
        for (;;)
            pause();
    if (!strcmp(f, "illegal_address")) {
        RB_CUDA(rb_fault_illegal_address(s));
        RB_CUDA(cudaStreamSynchronize(s));
    }
    return RB_OK;
}

/* setup(), or setup_rank() for this rank of a multi-process run. */
static rb_status setup_pair(const rb_pair *p, const rb_child_opts *o, void **ctx)
{
    if (!o->comm)
        return p->setup(ctx, &o->size, o->seed, o->input);
    const rb_pair_ext *e = rb_pair_ext_of(p);
    if (!e->setup_rank) {
        rb_error_at(__FILE__, __LINE__, "setup_rank", "the pair runs in one process only");
        return RB_ERR_INPUT;
    }
    return e->setup_rank(ctx, &o->size, o->seed, o->input, o->comm);
}

/* The time a successful setup took, as a "setup" record (the parent prints it beside the pair's
 * wall time and writes it as setup_s: inputs, references and library tuning are not timed work,
 * but they are part of what a suite run costs). 0, or -1 when it cannot be sent. */
static int setup_record(int fd, double setup_s)
{
    json_value *r = record("setup");
    if (!r || json_set_number(r, "setup_s", setup_s)) {
        json_free(r);
        return -1;
    }
    return rb_child_send(fd, r);
}

/* What is on the GPU before this child puts anything there (rb_gpu_check_idle), as a
 * "gpu_check" record. 0, or -1 when it cannot be sent. */
static int idle_record(int fd, int device, int settle, int holds_context)
{
    rb_gpu_check g;
    rb_gpu_check_idle(device, settle, holds_context, &g);
    json_value *r = record("gpu_check");
    if (!r || rb_gpu_check_to_json(&g, r) != 0) {
        json_free(r);
        return -1;
    }
    return rb_child_send(fd, r);
}

/* The timing of pair p under the parent's options o, into opts (a copy of o). */
static void pair_timing(const rb_pair *p, const rb_child_opts *o, rb_child_opts *opts)
{
    const rb_pair_ext *e = rb_pair_ext_of(p);
    opts->measure.comm = o->comm;
    opts->measure.ops_per_launch = e->ops_per_run;
    /* Sustained timing at the full size and the sweep's other sizes (rb_pair_sustains): a smoke
     * size or a --cold sample (one launch after a flush) has no steady state to reach;
     * --samples N asks for exactly N samples. */
    if (rb_pair_sustains(p, o->size.n, o->swept) && !o->measure.cold && !o->measure.samples) {
        opts->measure.warm_s = RB_SUSTAIN_WARM_S;
        opts->measure.min_s = e->timing.sustain_s;
        if (e->timing.interleave) {
            opts->measure.windows = RB_SUSTAIN_WINDOWS;
            opts->measure.settle_s = RB_SUSTAIN_SETTLE_S;
            opts->measure.window_s = e->timing.sustain_s / RB_SUSTAIN_WINDOWS;
            opts->measure.sample_ms = RB_SUSTAIN_SAMPLE_MS;
        }
    }
}

int rb_child_pair(const rb_pair *p, const rb_child_opts *o, int fd)
{
    const rb_pair_ext *e = rb_pair_ext_of(p);
    rb_device dev;
    char why[200];
    int device = 0; /* 0 in a child of roofbench's; a rank's own GPU under MPI */
    /* between pairs: before anything of this child is on the GPU (a rank of roofbench_mpi has
     * its context from the pairs before) */
    if (o->comm && cudaGetDevice(&device) != cudaSuccess)
        return send_error(fd, "cannot read the device");
    if (!o->check_only && idle_record(fd, device, 0, o->comm != NULL) != 0)
        return 1;
    if (cudaGetDevice(&device) != cudaSuccess || rb_env_device(device, &dev) != RB_OK)
        return send_error(fd, "cannot read the device");
    if (e->min_cc && dev.cc < e->min_cc) {
        rb_fmt(why, sizeof why, "needs compute capability %d.%d, this GPU has %d.%d",
               e->min_cc / 10, e->min_cc % 10, dev.cc / 10, dev.cc % 10);
        send_reason(fd, "skip", why);
        return 0;
    }
    int gpus = 0;
    if (e->min_gpus > 1 && (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < e->min_gpus)) {
        rb_fmt(why, sizeof why, "needs %d GPUs, this machine has %d", e->min_gpus, gpus);
        send_reason(fd, "skip", why);
        return 0;
    }
    if (pair_header(fd, p, &o->size, o->input) != 0)
        return 1;
    cudaStream_t s = NULL;
    void *ctx = NULL;
    rb_child_opts opts = *o;
    pair_timing(p, o, &opts);
    int status = 0;
    rb_status st;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return send_error(fd, "cannot create a stream");
    if (o->measure.cold) {
        opts.measure.flush_bytes = 2 * dev.l2_bytes;
        if (cudaMalloc(&opts.measure.flush_buf, opts.measure.flush_bytes) != cudaSuccess ||
            cudaMemset(opts.measure.flush_buf, 0, opts.measure.flush_bytes) != cudaSuccess)
            return send_error(fd, "cannot allocate the L2 flush buffer");
    }
    if (opts.measure.ops_per_launch > 1 && !o->check_only &&
        (cudaHostAlloc((void **)&opts.measure.latch, sizeof(int), cudaHostAllocMapped) !=
             cudaSuccess ||
         cudaMalloc((void **)&opts.measure.latch_late, sizeof(int)) != cudaSuccess))
        return send_error(fd, "cannot allocate the timing latch");
    if (o->nvtx)
        nvtxRangePushA(p->name);
    double t0 = rb_now_s();
    if (inject_fault(p->name, s) != RB_OK) {
        status = send_error(fd, "injected fault");
    } else if ((st = setup_pair(p, o, &ctx)) != RB_OK) {
        /* RB_ERR_UNSUPPORTED: this machine cannot run it (no peer access, say): a skip. */
        if (st == RB_ERR_UNSUPPORTED)
            send_reason(fd, "skip", rb_first_error());
        else
            status = send_error(fd, "setup failed");
    } else if (setup_record(fd, rb_now_s() - t0) != 0) {
        status = 1;
    } else {
        double median_ms[RB_MAX_VARIANTS];
        if (e->timing.interleave && !o->check_only)
            status = interleaved_records(fd, p, ctx, s, &opts, median_ms);
        else
            status = sequential_records(fd, p, ctx, s, &opts, median_ms);
        if (status == 0 && (kernels_record(fd, p, &o->size) != 0 ||
                            extras_records(fd, p, ctx, median_ms, p->n_variants) != 0))
            status = 1;
    }
    if (o->nvtx)
        nvtxRangePop();
    p->teardown(ctx);
    cudaFree(opts.measure.flush_buf);
    cudaFreeHost((void *)opts.measure.latch);
    cudaFree(opts.measure.latch_late);
    cudaStreamDestroy(s);
    return status;
}

/* Reports that no usable device is there (the parent then exits 3). */
static int send_no_device(int fd, const char *why)
{
    json_value *o = record("error");
    if (o && (json_set_string(o, "reason", why) || json_set_bool(o, "no_device", 1))) {
        json_free(o);
        o = NULL;
    }
    rb_child_send(fd, o);
    return 3;
}

/* The energy counter's update behaviour, polled while the GPU is idle (energy_read.h), as the
 * environment's energy_counter (null with energy_counter_why when it cannot be read). */
static int counter_record(json_value *env, int device)
{
    char why[200] = "";
    json_value *c = rb_energy_read_probe(device, why, sizeof why);
    if (c)
        return json_object_set(env, "energy_counter", c);
    return json_object_set(env, "energy_counter", json_new_null()) ||
                   json_set_string(env, "energy_counter_why", why)
               ? -1
               : 0;
}

int rb_child_probe(int fd, int device, int look)
{
    int count = 0;
    char why[300];
    /* Test hook (tests/test_binary.c): a probe that hangs before touching CUDA, so the handling
     * of Ctrl-C and SIGTERM during a child is tested on machines without a GPU. */
    const char *fault = getenv("RB_TEST_FAULT");
    if (fault && !strcmp(fault, "probe:hang"))
        for (;;)
            pause();
    if (rb_env_device_count(&count, why, sizeof why) != RB_OK)
        return send_no_device(fd, why);
    if (device >= count) {
        json_value *o = record("error");
        char range[32] = "index 0";
        if (count > 1)
            rb_fmt(range, sizeof range, "indices 0 to %d", count - 1);
        rb_fmt(why, sizeof why,
               "--device %d: the CUDA runtime shows %d GPU%s here (%s); CUDA_VISIBLE_DEVICES "
               "decides which",
               device, count, count == 1 ? "" : "s", range);
        if (o && (json_set_string(o, "reason", why) || json_set_bool(o, "usage", 1))) {
            json_free(o);
            o = NULL;
        }
        rb_child_send(fd, o);
        return 2;
    }
    int dev_index = device < 0 ? 0 : device;
    /* Before anything of the run is on the GPU (cudaSetDevice makes this child's context): who
     * else is (a busy GPU with none listed is looked at again a second later: a run that just
     * ended still shows in its utilization). */
    if (look && idle_record(fd, dev_index, 1, 0) != 0)
        return 1;
    cudaError_t e = cudaSetDevice(dev_index);
    if (e == cudaSuccess)
        e = rb_gpu_image_check();
    if (e != cudaSuccess) {
        rb_device dev;
        int have = rb_env_device(dev_index, &dev) == RB_OK;
        rb_fmt(why, sizeof why,
               "this build (%s) cannot run on this GPU (%s, sm_%d): %s; rebuild with "
               "make ARCH=sm_%d",
               rb_build_arch, have ? dev.name : "?", have ? dev.cc : 0, cudaGetErrorString(e),
               have ? dev.cc : 0);
        return send_no_device(fd, why);
    }
    json_value *env = rb_env_collect(dev_index, device >= 0);
    if (!env)
        return send_error(fd, "cannot read the environment");
    if (look && counter_record(env, dev_index) != 0)
        return send_error(fd, "out of memory");
    json_value *o = record("env");
    if (!o || json_object_set(o, "env", env))
        return 1;
    return rb_child_send(fd, o) == 0 ? 0 : 1;
}
