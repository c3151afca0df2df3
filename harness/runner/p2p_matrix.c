/* SPDX-License-Identifier: MIT */
#include "p2p_matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "model/ceiling_record.h"
#include "report/p2p_table.h"
#include "model/stats.h"
#include "model/text.h"
#include "model/util.h"
#include "gpu.h"
#include "measure.h"
#include "p2p_kernels.h"
#include "platform.h"
#include "runner.h"

#define P2P_MIB (1024.0 * 1024.0)
#define P2P_CAP_S 1.0              /* rb_measure's cap per cell; quiet cells stop at ~0.1 s */
#define P2P_LATCH_NS 2000000000ull /* the latch lets go after 2 s whatever happens */

typedef struct p2p_gpu {
    void *src, *dst; /* RB_P2P_COPY_BYTES each: what this GPU sends, what it receives */
    cudaStream_t s;
    cudaEvent_t fork, join;  /* both ways: the other GPU's stream joins this one's */
    cudaEvent_t start, stop; /* latency samples */
    int *timed_out;          /* the latch's report, device memory */
    unsigned *chain, *sink;  /* the pointer chase through this GPU's memory; its end */
} p2p_gpu;

typedef struct p2p_ctx {
    int n;
    p2p_gpu g[RB_P2P_MAX_GPUS];
    int peer[RB_P2P_MAX_GPUS][RB_P2P_MAX_GPUS]; /* peer access src -> dst (enabled) */
    int src, dst;                               /* the pair being timed */
    volatile int *flag;                         /* the latch, mapped pinned host memory */
} p2p_ctx;

/* ---- setup ---- */

/* Element k x stride holds (k + 1) x stride, the last 0: a chain through every line. */
static rb_status fill_chain(unsigned *chain)
{
    const size_t n = RB_P2P_CHASE_BYTES / sizeof(unsigned), lines = n / RB_P2P_CHASE_STRIDE;
    unsigned *host = calloc(n, sizeof *host);
    if (!host)
        return RB_ERR_ALLOC;
    for (size_t k = 0; k < lines; k++)
        host[k * RB_P2P_CHASE_STRIDE] = (unsigned)((k + 1) % lines * RB_P2P_CHASE_STRIDE);
    cudaError_t e = cudaMemcpy(chain, host, RB_P2P_CHASE_BYTES, cudaMemcpyHostToDevice);
    free(host);
    RB_CUDA(e);
    return RB_OK;
}

static rb_status setup_gpu(p2p_ctx *c, int d)
{
    p2p_gpu *g = &c->g[d];
    RB_CUDA(cudaSetDevice(d));
    RB_CUDA(cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking));
    RB_CUDA(cudaEventCreateWithFlags(&g->fork, cudaEventDisableTiming));
    RB_CUDA(cudaEventCreateWithFlags(&g->join, cudaEventDisableTiming));
    RB_CUDA(cudaEventCreate(&g->start));
    RB_CUDA(cudaEventCreate(&g->stop));
    RB_CUDA(cudaMalloc(&g->src, RB_P2P_COPY_BYTES));
    RB_CUDA(cudaMalloc(&g->dst, RB_P2P_COPY_BYTES));
    RB_CUDA(cudaMalloc((void **)&g->timed_out, sizeof(int)));
    RB_CUDA(cudaMalloc((void **)&g->chain, RB_P2P_CHASE_BYTES));
    RB_CUDA(cudaMalloc((void **)&g->sink, sizeof(unsigned)));
    RB_TRY(fill_chain(g->chain));
    /* seeded values, not zeros: a link or a memory that compresses must not see a constant */
    RB_CUDA(rb_fill_uniform_f32(g->src, RB_P2P_COPY_BYTES / 4, 1 + (uint64_t)d, g->s));
    RB_CUDA(cudaStreamSynchronize(g->s));
    return RB_OK;
}

/* Device d's access to every peer that has it (all contexts exist by now). */
static rb_status enable_peers(p2p_ctx *c, int d)
{
    RB_CUDA(cudaSetDevice(d));
    for (int p = 0; p < c->n; p++) {
        int can = 0;
        if (p == d)
            continue;
        RB_CUDA(cudaDeviceCanAccessPeer(&can, d, p));
        if (!can)
            continue;
        cudaError_t e = cudaDeviceEnablePeerAccess(p, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
            cudaGetLastError(); /* not sticky: cleared so no later check reports it */
        else
            RB_CUDA(e);
        c->peer[d][p] = 1;
    }
    return RB_OK;
}

static rb_status p2p_setup(p2p_ctx *c)
{
    RB_CUDA(cudaGetDeviceCount(&c->n));
    if (c->n > RB_P2P_MAX_GPUS)
        c->n = RB_P2P_MAX_GPUS;
    for (int d = 0; d < c->n; d++)
        RB_TRY(setup_gpu(c, d));
    for (int d = 0; d < c->n; d++)
        RB_TRY(enable_peers(c, d));
    RB_CUDA(cudaSetDevice(0));
    RB_CUDA(
        cudaHostAlloc((void **)&c->flag, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    *c->flag = 0;
    return RB_OK;
}

static void p2p_teardown(p2p_ctx *c)
{
    for (int d = 0; d < c->n; d++) {
        p2p_gpu *g = &c->g[d];
        if (cudaSetDevice(d) != cudaSuccess)
            continue;
        cudaFree(g->src);
        cudaFree(g->dst);
        cudaFree(g->timed_out);
        cudaFree(g->chain);
        cudaFree(g->sink);
        cudaEvent_t ev[4] = {g->fork, g->join, g->start, g->stop};
        for (int k = 0; k < 4; k++)
            if (ev[k])
                cudaEventDestroy(ev[k]);
        if (g->s)
            cudaStreamDestroy(g->s);
        for (int p = 0; p < c->n; p++)
            if (c->peer[d][p])
                cudaDeviceDisablePeerAccess(p);
    }
    if (c->flag)
        cudaFreeHost((void *)c->flag);
    cudaSetDevice(0);
}

/* ---- the measurements ---- */

static rb_status run_oneway(void *ctx, cudaStream_t s)
{
    p2p_ctx *c = ctx;
    RB_CUDA(cudaMemcpyPeerAsync(c->g[c->dst].dst, c->dst, c->g[c->src].src, c->src,
                                RB_P2P_COPY_BYTES, s));
    return RB_OK;
}

/* src -> dst on s (src's stream) and dst -> src on dst's stream, forked from s and joined
 * back, so the events on s span both. */
static rb_status run_bidir(void *ctx, cudaStream_t s)
{
    p2p_ctx *c = ctx;
    p2p_gpu *a = &c->g[c->src], *b = &c->g[c->dst];
    RB_CUDA(cudaEventRecord(a->fork, s));
    RB_CUDA(cudaStreamWaitEvent(b->s, a->fork, 0));
    RB_CUDA(cudaMemcpyPeerAsync(b->dst, c->dst, a->src, c->src, RB_P2P_COPY_BYTES, s));
    RB_CUDA(cudaMemcpyPeerAsync(a->dst, c->src, b->src, c->dst, RB_P2P_COPY_BYTES, b->s));
    RB_CUDA(cudaEventRecord(b->join, b->s));
    RB_CUDA(cudaStreamWaitEvent(s, b->join, 0));
    return RB_OK;
}

/* GB/s of the pair c->src, c->dst: one way, or both ways (the bytes of both counted). */
static rb_status time_bandwidth(p2p_ctx *c, int both, rb_stats *st, double *gbps)
{
    rb_measure_opts m = {.cap_s = P2P_CAP_S, .noise_target = 0.01, .sample_ms = 2.0};
    double launches = 0;
    RB_CUDA(cudaSetDevice(c->src)); /* rb_measure's events are the current device's */
    RB_TRY(rb_measure(both ? run_bidir : run_oneway, c, c->g[c->src].s, &m, st, &launches, NULL));
    *gbps = (both ? 2.0 : 1.0) * (double)RB_P2P_COPY_BYTES / (st->median * 1e-3) / 1e9;
    return RB_OK;
}

/* One latency sample: microseconds per copy of RB_P2P_LATENCY_COPIES queued behind the latch.
 * Without peer access the runtime stages each copy through the host, which may wait for the
 * stream: no latch then (the host paces those copies anyway), so it cannot time out. */
static rb_status latency_sample(p2p_ctx *c, double *us)
{
    p2p_gpu *a = &c->g[c->src], *b = &c->g[c->dst];
    int late = 0, latch = c->peer[c->src][c->dst] && c->peer[c->dst][c->src];
    float ms = 0;
    RB_CUDA(cudaSetDevice(c->src));
    *c->flag = 0;
    if (latch)
        RB_CUDA(rb_latch(c->flag, P2P_LATCH_NS, a->timed_out, a->s));
    else
        RB_CUDA(cudaMemsetAsync(a->timed_out, 0, sizeof(int), a->s));
    RB_CUDA(cudaEventRecord(a->start, a->s));
    for (int r = 0; r < RB_P2P_LATENCY_COPIES; r++)
        RB_CUDA(cudaMemcpyPeerAsync(b->dst, c->dst, a->src, c->src, RB_P2P_LATENCY_BYTES, a->s));
    RB_CUDA(cudaEventRecord(a->stop, a->s));
    __atomic_store_n(c->flag, 1, __ATOMIC_SEQ_CST);
    RB_CUDA(cudaEventSynchronize(a->stop));
    RB_CUDA(cudaEventElapsedTime(&ms, a->start, a->stop));
    RB_CUDA(cudaMemcpy(&late, a->timed_out, sizeof late, cudaMemcpyDeviceToHost));
    if (late) {
        rb_error_at(__FILE__, __LINE__, "rb_latch",
                    "the latch timed out before the copies were queued");
        return RB_ERR_CUDA;
    }
    *us = ms * 1e3 / RB_P2P_LATENCY_COPIES;
    return RB_OK;
}

static rb_status time_latency(p2p_ctx *c, rb_stats *st)
{
    double us[RB_P2P_LATENCY_SAMPLES], warm = 0;
    RB_TRY(latency_sample(c, &warm)); /* the first copies of a pair pay for its setup */
    for (int k = 0; k < RB_P2P_LATENCY_SAMPLES; k++)
        RB_TRY(latency_sample(c, &us[k]));
    if (rb_stats_compute(us, RB_P2P_LATENCY_SAMPLES, st) != 0) {
        rb_error_at(__FILE__, __LINE__, "rb_stats_compute", "no statistics");
        return RB_ERR_INPUT;
    }
    return RB_OK;
}

/* Microseconds per dependent load of src's thread through dst's chain, over launches. */
static rb_status time_load_latency(p2p_ctx *c, rb_stats *st)
{
    p2p_gpu *a = &c->g[c->src];
    double us[RB_P2P_LATENCY_SAMPLES];
    float ms = 0;
    RB_CUDA(cudaSetDevice(c->src));
    for (int k = -1; k < RB_P2P_LATENCY_SAMPLES; k++) { /* k = -1: the warm-up */
        RB_CUDA(cudaEventRecord(a->start, a->s));
        RB_CUDA(rb_p2p_chase(c->g[c->dst].chain, RB_P2P_CHASE_STEPS, a->sink, a->s));
        RB_CUDA(cudaEventRecord(a->stop, a->s));
        RB_CUDA(cudaEventSynchronize(a->stop));
        RB_CUDA(cudaEventElapsedTime(&ms, a->start, a->stop));
        if (k >= 0)
            us[k] = ms * 1e3 / RB_P2P_CHASE_STEPS;
    }
    if (rb_stats_compute(us, RB_P2P_LATENCY_SAMPLES, st) != 0) {
        rb_error_at(__FILE__, __LINE__, "rb_stats_compute", "no statistics");
        return RB_ERR_INPUT;
    }
    return RB_OK;
}

/* ---- the child's lines ---- */

static rb_status send_or_fail(int fd, json_value *line)
{
    if (!line || rb_child_send(fd, line) != 0) {
        rb_error_at(__FILE__, __LINE__, "rb_child_send", "cannot report to the parent");
        return RB_ERR_ALLOC;
    }
    return RB_OK;
}

static rb_status send_cell(int fd, const p2p_ctx *c, const char *kind, double value,
                           const rb_stats *st)
{
    int rank = -1;
    if (cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, c->src, c->dst) !=
        cudaSuccess) {
        cudaGetLastError();
        rank = -1;
    }
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "type", "p2p_cell") || json_set_number(o, "src", c->src) ||
        json_set_number(o, "dst", c->dst) ||
        json_set_bool(o, "peer_access", c->peer[c->src][c->dst] && c->peer[c->dst][c->src]) ||
        (rank >= 0 && json_set_number(o, "perf_rank", rank)) || json_set_string(o, "kind", kind) ||
        json_set_number(o, "value", value) || json_set_number(o, "noise", st->noise) ||
        json_set_number(o, "samples", (double)st->n)) {
        json_free(o);
        o = NULL;
    }
    return send_or_fail(fd, o);
}

static json_value *gpu_json(int d)
{
    struct cudaDeviceProp p;
    char uuid[48], bus[32] = "";
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
        return NULL;
    rb_text_uuid((const unsigned char *)p.uuid.bytes, uuid, sizeof uuid);
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) != cudaSuccess) {
        cudaGetLastError();
        bus[0] = '\0';
    }
    json_value *o = json_new_object();
    if (!o || json_set_number(o, "index", d) || json_set_string(o, "name", p.name) ||
        json_set_string(o, "uuid", uuid) || json_set_string(o, "pci_bus_id", bus[0] ? bus : NULL)) {
        json_free(o);
        return NULL;
    }
    return o;
}

static json_value *method_json(void)
{
    char oneway[300], bidir[300], latency[300], load[300];
    rb_fmt(oneway, sizeof oneway,
           "cudaMemcpyPeerAsync of %.0f MiB on a stream of the source GPU (its copy engine "
           "writes over the link), back to back, the median of ~2 ms samples",
           RB_P2P_COPY_BYTES / P2P_MIB);
    rb_fmt(bidir, sizeof bidir,
           "both directions at once, each on a stream of its source GPU, the bytes of both "
           "counted: %.0f MiB each way per copy",
           RB_P2P_COPY_BYTES / P2P_MIB);
    rb_fmt(latency, sizeof latency,
           "%d cudaMemcpyPeerAsync of %d bytes queued behind a spinning kernel and timed as the "
           "copy engine runs them (without peer access: as the host stages them), per copy; "
           "median of %d samples",
           RB_P2P_LATENCY_COPIES, RB_P2P_LATENCY_BYTES, RB_P2P_LATENCY_SAMPLES);
    rb_fmt(load, sizeof load,
           "one thread of the source GPU follows a chain of %d dependent volatile 4-byte loads "
           "through the destination's memory (128-byte steps over %.0f MiB, which its L2 holds), "
           "per load; median of %d launches",
           RB_P2P_CHASE_STEPS, RB_P2P_CHASE_BYTES / P2P_MIB, RB_P2P_LATENCY_SAMPLES);
    json_value *o = json_new_object();
    if (!o || json_set_number(o, "copy_bytes", (double)RB_P2P_COPY_BYTES) ||
        json_set_number(o, "latency_bytes", RB_P2P_LATENCY_BYTES) ||
        json_set_number(o, "latency_copies", RB_P2P_LATENCY_COPIES) ||
        json_set_string(o, "oneway", oneway) || json_set_string(o, "bidir", bidir) ||
        json_set_string(o, "latency", latency) || json_set_string(o, "load_latency", load)) {
        json_free(o);
        return NULL;
    }
    return o;
}

static rb_status send_gpus(int fd, const p2p_ctx *c)
{
    json_value *o = json_new_object(), *gpus = json_new_array();
    int bad = !o || !gpus || json_set_string(o, "type", "p2p_gpus") ||
              json_object_set(o, "gpus", gpus) || json_object_set(o, "method", method_json());
    for (int d = 0; !bad && d < c->n; d++)
        bad = json_array_push(gpus, gpu_json(d));
    if (bad) {
        json_free(o);
        o = NULL;
    }
    return send_or_fail(fd, o);
}

/* ---- the whole matrix ---- */

static rb_status measure_pair(int fd, p2p_ctx *c, int src, int dst)
{
    rb_stats st;
    double gbps = 0;
    c->src = src;
    c->dst = dst;
    RB_TRY(time_bandwidth(c, 0, &st, &gbps));
    RB_TRY(send_cell(fd, c, "oneway", gbps, &st));
    if (src < dst) {
        RB_TRY(time_bandwidth(c, 1, &st, &gbps));
        RB_TRY(send_cell(fd, c, "bidir", gbps, &st));
    }
    RB_TRY(time_latency(c, &st));
    RB_TRY(send_cell(fd, c, "latency", st.median, &st));
    if (!c->peer[src][dst]) /* a kernel cannot load another GPU's memory without it */
        return RB_OK;
    RB_TRY(time_load_latency(c, &st));
    return send_cell(fd, c, "load_latency", st.median, &st);
}

static rb_status measure_matrix(int fd, p2p_ctx *c)
{
    RB_TRY(p2p_setup(c));
    RB_TRY(send_gpus(fd, c));
    for (int i = 0; i < c->n; i++)
        for (int j = 0; j < c->n; j++)
            if (i != j)
                RB_TRY(measure_pair(fd, c, i, j));
    return RB_OK;
}

int rb_p2p_child(int fd)
{
    p2p_ctx c;
    memset(&c, 0, sizeof c);
    rb_status st = measure_matrix(fd, &c);
    p2p_teardown(&c);
    return st == RB_OK ? 0 : rb_child_error(fd, "measuring the P2P matrix failed");
}

/* ---- the link roofs of `roofbench ceilings` ---- */

typedef struct p2p_best {
    double gbps;
    rb_stats st;
    int src, dst, pairs;
} p2p_best;

static rb_status best_links(p2p_ctx *c, p2p_best *one, p2p_best *both)
{
    for (int i = 0; i < c->n; i++)
        for (int j = 0; j < c->n; j++) {
            if (i == j || !c->peer[i][j] || !c->peer[j][i])
                continue;
            rb_stats st;
            double gbps = 0;
            c->src = i;
            c->dst = j;
            for (int k = 0; k < (i < j ? 2 : 1); k++) {
                p2p_best *b = k ? both : one;
                RB_TRY(time_bandwidth(c, k, &st, &gbps));
                b->pairs++;
                if (gbps > b->gbps)
                    *b = (p2p_best){gbps, st, i, j, b->pairs};
            }
        }
    return RB_OK;
}

static rb_status send_link_roof(int fd, const char *key, const p2p_best *b, int n)
{
    rb_ceiling_method m;
    rb_fmt(m.method, sizeof m.method,
           "cudaMemcpyPeerAsync on a stream of the source GPU, %s, peer access enabled: the "
           "best of the %d %s pairs of %d GPUs with peer access (GPU %d %s GPU %d)",
           strcmp(key, "nvlink_gbps") ? "both directions at once (the bytes of both counted)"
                                      : "one direction",
           b->pairs, strcmp(key, "nvlink_gbps") ? "unordered" : "ordered", n, b->src,
           strcmp(key, "nvlink_gbps") ? "and" : "to", b->dst);
    rb_fmt(m.size, sizeof m.size, "%.0f MiB per copy%s", RB_P2P_COPY_BYTES / P2P_MIB,
           strcmp(key, "nvlink_gbps") ? ", each way" : "");
    m.samples = (double)b->st.n;
    m.noise = b->st.noise;
    m.sm_clock_mhz = rb_env_sm_clock_mhz(b->src);
    m.power_w = NAN;
    return send_or_fail(fd, rb_ceiling_roof_line(key, b->gbps, &m));
}

static rb_status link_ceilings(int fd, p2p_ctx *c)
{
    RB_CUDA(cudaGetDeviceCount(&c->n));
    const char *why = c->n < 2 ? "one GPU: no peer link to measure" : NULL;
    if (!why) {
        RB_TRY(p2p_setup(c));
        p2p_best one = {0}, both = {0};
        RB_TRY(best_links(c, &one, &both));
        if (one.pairs == 0)
            why = "no pair of GPUs has peer access";
        else {
            RB_TRY(send_link_roof(fd, "nvlink_gbps", &one, c->n));
            return send_link_roof(fd, "nvlink_bidir_gbps", &both, c->n);
        }
    }
    RB_TRY(send_or_fail(fd, rb_ceiling_skip_line("nvlink_gbps", why)));
    return send_or_fail(fd, rb_ceiling_skip_line("nvlink_bidir_gbps", why));
}

rb_status rb_p2p_link_ceilings(int fd)
{
    p2p_ctx c;
    memset(&c, 0, sizeof c);
    rb_status st = link_ceilings(fd, &c);
    p2p_teardown(&c);
    return st;
}

/* ---- the parent ---- */

typedef struct p2p_parent {
    json_value *matrix;
    char error[400];
} p2p_parent;

static void on_p2p_line(void *arg, const json_value *line)
{
    p2p_parent *p = arg;
    char err[300] = "";
    if (!strcmp(json_string_at(line, "type", ""), "error")) {
        rb_fmt(p->error, sizeof p->error, "%s", json_string_at(line, "reason", "unknown error"));
        return;
    }
    if (rb_p2p_add_line(p->matrix, line, err, sizeof err) < 0 && !p->error[0])
        rb_fmt(p->error, sizeof p->error, "a malformed report: %s", err);
}

static int p2p_child_fn(void *arg, int fd)
{
    (void)arg;
    return rb_p2p_child(fd);
}

json_value *rb_p2p_matrix_measure(double timeout_s, const json_value *ceilings,
                                  const json_value *peaks, char *why, size_t why_size)
{
    p2p_parent p = {.matrix = rb_p2p_new()};
    why[0] = '\0';
    if (!p.matrix) {
        rb_fmt(why, why_size, "out of memory");
        return NULL;
    }
    int rc = rb_run_child(p2p_child_fn, NULL, timeout_s, on_p2p_line, &p, why, why_size);
    const json_value *gpus = json_get(p.matrix, "gpus");
    if (rc != 0 || p.error[0] || !gpus || gpus->count == 0) {
        if (p.error[0])
            rb_fmt(why, why_size, "%s", p.error);
        else if (!why[0])
            rb_fmt(why, why_size,
                   rc ? "the measurement exited with status %d"
                      : "the measurement reported nothing",
                   rc);
        json_free(p.matrix);
        return NULL;
    }
    if (rb_p2p_judge(p.matrix, ceilings, peaks) != 0) {
        rb_fmt(why, why_size, "out of memory");
        json_free(p.matrix);
        return NULL;
    }
    return p.matrix;
}
