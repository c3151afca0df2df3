/* SPDX-License-Identifier: MIT */
/*
 * nccl_allreduce: the harness's view of kernels/nccl_allreduce.cu (read that file first).
 *
 * One process drives every visible GPU: local GPU k is CUDA device k and NCCL rank k
 * (ncclCommInitAll). run() gets a stream of GPU 0: it forks the other GPUs' streams from it with
 * an event, enqueues AR_OPS_PER_RUN collectives back to back on every GPU (nccl-tests' -n 20:
 * the harness reports the time of one, rb_pair_ext.ops_per_run), and joins the streams back,
 * so the harness's events on that stream time them on all GPUs. The fork and the join are paid
 * once per run, not per collective; the host's queuing of a sample's first run (tens of
 * microseconds on several GPUs) is not timed: the harness holds the stream with a latch until
 * it is queued (rb_pair_ext.ops_per_run).
 * The MPI driver (harness/runner/mpi_main.c, `make MPI=1`) runs the same code with one GPU
 * per process: setup_rank() gets its communicator (made by ncclCommInitRank) and the ranks'
 * host reductions (rb_comm); the check then sums its three figures over all ranks, so every
 * rank reports the error and the wrong elements of the whole collective. The ring reads its
 * neighbour's memory with peer loads, which needs every GPU in this process: under MPI it is
 * skipped (on every rank alike).
 *
 * Buffers of rank r: send (its input, never written after setup) and recv (what the variants
 * write; output() is GPU 0's). Element counts, with c elements per chunk and n ranks:
 *              send    recv    output at          in-place input at
 *   allreduce  c       c       recv               recv
 *   allgather  c       n c     recv               recv + r c
 *   reduce_sc. n c     n c     recv + r c (c)     recv
 *
 * In place: the harness poisons the output before every checked run and before the timed loop,
 *   which wipes an in-place input; so the in-place variant restores its input (a device copy
 *   from send) on its first run after anything else touched recv, and only then. In the timed
 *   loop that first run is the harness's first warm-up launch, never a timed one. Repeated in
 *   place, an all-reduce multiplies the data by n each launch (a reduce-scatter adds the other
 *   ranks' chunks again): on 2 GPUs the values overflow to +-Inf after ~128 collectives and stay
 *   there (every rank holds the same values, so Inf never meets -Inf: no NaN). That does not
 *   change the speed of an fp32 sum, but the timed loop's output cannot be checked; so the
 *   check after timing restores the input and runs the in-place collective once more, and
 *   checks that. An average (ncclAvg) or a max would keep the values finite, but for fp32 NCCL
 *   runs NVLS (NVLink SHARP) for the sum only, and the pair should measure what users run. An
 *   in-place all-gather is idempotent (every chunk lands where it already is): it is checked
 *   on the timed loop's output itself. One GPU's in-place collectives do nothing at all: the
 *   variant is skipped there (run() returns RB_ERR_UNSUPPORTED, the harness reports why).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nccl.h declares ncclGroupStart() and a few others without a prototype (NCCL 2.28), which
 * -Wstrict-prototypes -Werror rejects: silence that one warning for NCCL's header only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

#include "model/compare.h"
#include "model/random.h"
#include "platform.h"
#include "gpu.h"
#include "pair_util.h"

#include "kernels/nccl_allreduce.h"

/* Exported for the tests (tests/test_nccl.c). */
double nccl_allreduce_bus_factor(int coll, int ranks);

enum { AR = 0, AG = 1, RS = 2 }; /* the collectives, in the order of the pair's inputs */
enum { V_RING, V_OUT_OF_PLACE, V_IN_PLACE, V_COUNT }; /* the variants, in order */

#define AR_MAX_GPUS 64
#define AR_CPU_CHECK_MAX (1u << 20) /* output elements per GPU up to which setup pins the check */
#define AR_OPS_PER_RUN 20           /* collectives per run(), back to back: nccl-tests' -n 20 */
/* The ring's slices: at least 8 MiB, so that the host's launches and event calls (~5 us per
 * slice and GPU) stay ahead of the GPUs' work down to 128 MiB on 4 GPUs. */
#define AR_RING_SLICE_MIN ((size_t)1 << 21)

/* ncclResult_t failures -> rb_error_at + RB_ERR_CUDA, with NCCL's own explanation. */
#define AR_NCCL(call)                                                                              \
    do {                                                                                           \
        ncclResult_t nr_ = (call);                                                                 \
        if (nr_ != ncclSuccess) {                                                                  \
            char msg_[300];                                                                        \
            rb_fmt(msg_, sizeof msg_, "%s (%s)", ncclGetErrorString(nr_), ncclGetLastError(NULL)); \
            rb_error_at(__FILE__, __LINE__, #call, msg_);                                          \
            return RB_ERR_CUDA;                                                                    \
        }                                                                                          \
    } while (0)

static const uint64_t nccl_allreduce_sweep[] = {
    8, 64, 512, 4096, 32768, 262144, 2097152, 16777216, 134217728, 1073741824, 0};
/* One GPU: the bandwidth-bound size only. Nothing crosses a link there, so the only figure that
 * means the same as on several GPUs is the bandwidth plateau (device copies). Below it a row
 * times host work (a collective call's ~5 us, the ring's launches), which follows the CPU and the
 * scheduler, not the GPU: such rows flapped the regression verdicts of one-GPU runs
 * (docs/notes/nccl_allreduce.md). */
static const uint64_t nccl_allreduce_sweep_one_gpu[] = {1073741824, 0};

/* nccl-tests' bus bandwidth factor: busbw = algbw x factor. 0 on one GPU. */
double nccl_allreduce_bus_factor(int coll, int ranks)
{
    if (ranks < 1)
        return NAN;
    return (coll == AR ? 2.0 : 1.0) * (ranks - 1) / ranks;
}

/* Element counts of a collective of S bytes on n ranks (see the table above). */
typedef struct ar_layout {
    size_t chunk, send, recv, out; /* elements */
    double size_bytes;             /* S after rounding down to whole elements and chunks */
} ar_layout;

static ar_layout ar_layout_of(int coll, uint64_t size_bytes, int ranks)
{
    ar_layout l;
    uint64_t elems = size_bytes / 4, n = (uint64_t)ranks;
    l.chunk = coll == AR ? elems : elems / n;
    if (l.chunk == 0)
        l.chunk = 1;
    l.send = coll == RS ? n * l.chunk : l.chunk;
    l.recv = coll == AR ? l.chunk : n * l.chunk;
    l.out = coll == AG ? n * l.chunk : l.chunk;
    l.size_bytes = 4.0 * (double)(coll == AR ? l.chunk : n * l.chunk);
    return l;
}

/* Where rank r's output, and its in-place input, start inside its recv buffer. */
static size_t ar_out_offset(int coll, int rank, size_t chunk)
{
    return coll == RS ? (size_t)rank * chunk : 0;
}

static size_t ar_in_place_offset(int coll, int rank, size_t chunk)
{
    return coll == AG ? (size_t)rank * chunk : 0;
}

/* The ring's plan (kernels/nccl_allreduce.h). Rank r pulls from rank r - 1. A segment is what one
 * step moves: the all-reduce's buffer in n near-equal parts (any count: the first c % n one
 * longer), the halves' chunks of c. All-reduce, reduce-scatter phase, step s: rank r adds its
 * own segment r - 1 - s to r - 1's partial of it (its input at s = 0), so after n - 1 steps it
 * holds the whole sum of segment r + 1; all-gather phase, step t: it copies segment r - t from
 * r - 1, which completed it one step before. The reduce-scatter shifts the segments by one (r - 2
 * - s) so that rank r ends with segment r, its output; the all-gather copies segment r - 1 - t
 * (at t = 0 from r - 1's input). */
int nccl_allreduce_ring_steps(int coll, int ranks)
{
    return ranks < 2 ? 0 : coll == AR ? 2 * (ranks - 1) : ranks - 1;
}

void nccl_allreduce_part(size_t n, int parts, int i, size_t *off, size_t *len)
{
    size_t base = n / (size_t)parts, extra = n % (size_t)parts, k = (size_t)i;
    *off = k * base + (k < extra ? k : extra);
    *len = base + (k < extra);
}

int nccl_allreduce_ring_slices(int coll, int ranks, size_t chunk, size_t slice_min)
{
    size_t seg = coll == AR ? (chunk + (size_t)ranks - 1) / (size_t)ranks : chunk;
    size_t slices = slice_min ? (seg + slice_min - 1) / slice_min : 1;
    if (slices > NCCL_ALLREDUCE_RING_MAX_SLICES)
        return NCCL_ALLREDUCE_RING_MAX_SLICES;
    return slices < 1 ? 1 : (int)slices;
}

int nccl_allreduce_ring_move(int coll, int ranks, size_t chunk, int slices, int rank, int step,
                             int slice, nccl_allreduce_move *m)
{
    int n = ranks, steps = nccl_allreduce_ring_steps(coll, n);
    size_t so, sl, seg_off;
    memset(m, 0, sizeof *m);
    if (step < 0) { /* own data: the all-gather's chunk r, or one rank's whole output */
        if (coll != AG && n > 1)
            return 0;
        nccl_allreduce_part(chunk, slices, slice, &so, &sl);
        *m = (nccl_allreduce_move){
            coll == AG ? (size_t)rank * chunk + so : so, so, 0, sl, rank, 1, 0};
        return 1;
    }
    if (step >= steps)
        return 0;
    int reduce = coll == RS || (coll == AR && step < n - 1);
    int t = coll == AR && !reduce ? step - (n - 1) : step;
    int seg = rank - 1 - t; /* all-reduce, reduce-scatter phase; all-gather */
    if (coll == AR && !reduce)
        seg = rank - t;
    else if (coll == RS)
        seg = rank - 2 - t;
    seg = ((seg % n) + n) % n;
    size_t seg_len = chunk;
    if (coll == AR)
        nccl_allreduce_part(chunk, n, seg, &seg_off, &seg_len);
    else
        seg_off = (size_t)seg * chunk;
    nccl_allreduce_part(seg_len, slices, slice, &so, &sl);
    m->dst = m->local = seg_off + so;
    m->len = sl;
    m->src_rank = (rank + n - 1) % n;
    m->reduce = reduce;
    m->src_send = t == 0 && (coll != AR || reduce);
    m->src = coll == AG && t == 0 ? so : seg_off + so; /* r - 1's input is its chunk alone */
    return 1;
}

typedef struct ar_gpu {
    int dev, rank;
    ncclComm_t comm;
    cudaStream_t stream; /* GPUs 1..: its stream (GPU 0 uses the one run() gets) */
    cudaEvent_t done;    /* GPUs 1..: the join */
    /* The ring's events, recorded after each slice of a step, by the step's parity (a step
     * waits for its neighbours' previous step while recording its own). */
    cudaEvent_t ring_ev[2][NCCL_ALLREDUCE_RING_MAX_SLICES];
    int peer_enabled; /* this pair turned on its access to rank - 1's memory */
    float *send, *recv;
    double *acc; /* the check's three sums */
} ar_gpu;

typedef struct ar_ctx {
    int coll, ranks, local; /* local: GPUs of this process (ranks, or 1 under MPI) */
    const rb_comm *comm;    /* the MPI driver's (setup_rank), its NCCL communicator not ours to
                               destroy; NULL: every GPU in this process */
    int nccl_version;       /* the library's, e.g. 22803 for 2.28.3 */
    uint64_t seed;
    ar_layout l;
    ar_gpu gpu[AR_MAX_GPUS];
    cudaEvent_t fork;      /* on GPU 0 */
    int ring_slices;       /* slices per ring step */
    const char *ring_why;  /* why the ring cannot run here; NULL: it can */
    int in_place_ready;    /* recv holds the in-place input */
    long in_place_runs;    /* in-place collectives since it was restored */
    double wrong[V_COUNT]; /* wrong elements at the variant's last check; NaN: none yet */
} ar_ctx;

static cudaStream_t ar_stream(const ar_ctx *c, int k, cudaStream_t stream)
{
    return k == 0 ? stream : c->gpu[k].stream;
}

/* The other GPUs' streams wait for what `stream` has enqueued so far. */
static rb_status ar_fork(ar_ctx *c, cudaStream_t stream)
{
    if (c->local == 1)
        return RB_OK;
    RB_CUDA(cudaEventRecord(c->fork, stream));
    for (int k = 1; k < c->local; k++)
        RB_CUDA(cudaStreamWaitEvent(c->gpu[k].stream, c->fork, 0));
    return RB_OK;
}

/* `stream` waits for what the other GPUs' streams have enqueued so far. */
static rb_status ar_join(ar_ctx *c, cudaStream_t stream)
{
    for (int k = 1; k < c->local; k++) {
        RB_CUDA(cudaEventRecord(c->gpu[k].done, c->gpu[k].stream));
        RB_CUDA(cudaStreamWaitEvent(stream, c->gpu[k].done, 0));
    }
    return RB_OK;
}

/* One rank's NCCL call, in place or not (buffers as in the table above). */
static ncclResult_t ar_collective(const ar_ctx *c, int k, int in_place, cudaStream_t stream)
{
    const ar_gpu *g = &c->gpu[k];
    size_t chunk = c->l.chunk;
    const float *in = in_place ? g->recv + ar_in_place_offset(c->coll, g->rank, chunk) : g->send;
    float *out = g->recv + ar_out_offset(c->coll, g->rank, chunk);
    if (c->coll == AR)
        return ncclAllReduce(in, out, chunk, ncclFloat, ncclSum, g->comm, stream);
    if (c->coll == AG)
        return ncclAllGather(in, out, chunk, ncclFloat, g->comm, stream);
    return ncclReduceScatter(in, out, chunk, ncclFloat, ncclSum, g->comm, stream);
}

/* ops collectives between a fork and a join, each one group of every local GPU's call (NCCL
 * launches them together: one thread may not wait for one GPU's collective before issuing the
 * next GPU's), as nccl-tests issues its -n iterations. */
static rb_status ar_run_nccl(ar_ctx *c, cudaStream_t stream, int in_place, int ops)
{
    RB_TRY(ar_fork(c, stream));
    for (int op = 0; op < ops; op++) {
        AR_NCCL(ncclGroupStart());
        ncclResult_t r = ncclSuccess;
        for (int k = 0; k < c->local && r == ncclSuccess; k++)
            r = ar_collective(c, k, in_place, ar_stream(c, k, stream));
        ncclResult_t end = ncclGroupEnd();
        AR_NCCL(r);
        AR_NCCL(end);
    }
    RB_TRY(ar_join(c, stream));
    return RB_OK;
}

/* The planted defect's calls for rank k (see run_defect_swapped_buckets): the collective in two
 * buckets of count - h and h elements, the first bucket fed the second one's input. */
static ncclResult_t ar_swapped_buckets(const ar_ctx *c, int k, cudaStream_t stream)
{
    const ar_gpu *g = &c->gpu[k];
    size_t chunk = c->l.chunk, h = chunk / 2, n = (size_t)c->ranks;
    float *out = g->recv + ar_out_offset(c->coll, g->rank, chunk);
    ncclResult_t r;
    if (c->coll == AR) {
        r = ncclAllReduce(g->send + h, out, chunk - h, ncclFloat, ncclSum, g->comm, stream);
        if (r == ncclSuccess)
            r = ncclAllReduce(g->send, out + (chunk - h), h, ncclFloat, ncclSum, g->comm, stream);
    } else if (c->coll == AG) {
        r = ncclAllGather(g->send + h, out, chunk - h, ncclFloat, g->comm, stream);
        if (r == ncclSuccess)
            r = ncclAllGather(g->send, out + n * (chunk - h), h, ncclFloat, g->comm, stream);
    } else {
        r = ncclReduceScatter(g->send + n * h, out, chunk - h, ncclFloat, ncclSum, g->comm, stream);
        if (r == ncclSuccess)
            r = ncclReduceScatter(g->send, out + (chunk - h), h, ncclFloat, ncclSum, g->comm,
                                  stream);
    }
    return r;
}

/* Planted defect (tests/test_gpu.c): a bucketed collective (as frameworks split gradients into
 * buckets) whose buckets' input offsets are swapped. Out of place, every output element is
 * written once, with another element's value: on one GPU the output is the input rotated by h =
 * chunk / 2, on several a permutation of the right values (the all-gather's and reduce-scatter's
 * buckets partition the buffers, so no element is written twice). For independent zero-mean
 * values the normwise error is sqrt(2) = 1.41, 1.4e5x the tolerance. A wrong op or datatype
 * would not do on one GPU: there every collective is a copy, whatever the op. */
static rb_status run_defect_swapped_buckets(void *ctx, cudaStream_t stream)
{
    ar_ctx *c = ctx;
    c->in_place_ready = 0;
    RB_TRY(ar_fork(c, stream));
    AR_NCCL(ncclGroupStart());
    ncclResult_t r = ncclSuccess;
    for (int k = 0; k < c->local && r == ncclSuccess; k++)
        r = ar_swapped_buckets(c, k, ar_stream(c, k, stream));
    ncclResult_t end = ncclGroupEnd();
    AR_NCCL(r);
    AR_NCCL(end);
    RB_TRY(ar_join(c, stream));
    return RB_OK;
}

/* One ring collective on every GPU (see nccl_allreduce_ring_move), enqueued step by step and
 * slice by slice. Slice p of step g on GPU r waits for slice p of step g - 1 on r - 1 (the data
 * it pulls) and on r + 1 (which must have read what it overwrites); *g counts steps since the
 * fork, so the first waits for nothing more. drop_last: the planted defect's pipeline that never
 * drains: the last slice of the last move (of the own copy on one GPU) is not moved. */
static rb_status ar_ring_collective(ar_ctx *c, cudaStream_t stream, long *g, int drop_last)
{
    int n = c->ranks, steps = nccl_allreduce_ring_steps(c->coll, n), slices = c->ring_slices;
    for (int step = -1; step < steps; step++) {
        for (int p = 0; p < slices; p++)
            for (int k = 0; k < n; k++) {
                ar_gpu *gk = &c->gpu[k];
                cudaStream_t s = ar_stream(c, k, stream);
                nccl_allreduce_move m;
                if (!nccl_allreduce_ring_move(c->coll, n, c->l.chunk, slices, k, step, p, &m))
                    continue;
                RB_CUDA(cudaSetDevice(gk->dev));
                if (step >= 0 && *g > 0) {
                    int left = (k + n - 1) % n, right = (k + 1) % n;
                    RB_CUDA(cudaStreamWaitEvent(s, c->gpu[left].ring_ev[(*g - 1) & 1][p], 0));
                    if (right != left)
                        RB_CUDA(cudaStreamWaitEvent(s, c->gpu[right].ring_ev[(*g - 1) & 1][p], 0));
                }
                if (drop_last && step == steps - 1 && p == slices - 1)
                    m.len = 0;
                const ar_gpu *src = &c->gpu[m.src_rank];
                RB_CUDA(nccl_allreduce_ring_step(gk->recv + m.dst,
                                                 (m.src_send ? src->send : src->recv) + m.src,
                                                 m.reduce ? gk->send + m.local : NULL, m.len, s));
                if (step >= 0)
                    RB_CUDA(cudaEventRecord(gk->ring_ev[*g & 1][p], s));
            }
        if (step >= 0)
            (*g)++;
    }
    RB_CUDA(cudaSetDevice(c->gpu[0].dev));
    return RB_OK;
}

/* ops ring collectives between a fork and a join. */
static rb_status ar_run_ring(ar_ctx *c, cudaStream_t stream, int ops, int drop_last)
{
    c->in_place_ready = 0;
    if (c->ring_why) {
        rb_skip_at(__FILE__, __LINE__, "run_ring", c->ring_why);
        return RB_ERR_UNSUPPORTED;
    }
    long g = 0;
    RB_TRY(ar_fork(c, stream));
    for (int op = 0; op < ops; op++)
        RB_TRY(ar_ring_collective(c, stream, &g, drop_last));
    RB_TRY(ar_join(c, stream));
    return RB_OK;
}

static rb_status run_ring(void *ctx, cudaStream_t stream)
{
    return ar_run_ring(ctx, stream, AR_OPS_PER_RUN, 0);
}

/* Planted defect (tests/test_gpu.c): the ring's pipeline never drains: its last slice (of the
 * last step, or of the one GPU's copy) is not moved. The elements of that slice keep what they
 * held (the poison, or a partial sum). */
static rb_status run_defect_ring_undrained(void *ctx, cudaStream_t stream)
{
    return ar_run_ring(ctx, stream, 1, 1);
}

static rb_status run_out_of_place(void *ctx, cudaStream_t stream)
{
    ar_ctx *c = ctx;
    c->in_place_ready = 0;
#ifdef RB_PLANT_SLOW10
    /* A planted 10% slowdown, a test hook (make NVCCFLAGS=-DRB_PLANT_SLOW10
     * CFLAGS=-DRB_PLANT_SLOW10): GPU 0's output cleared over a fifth of a chunk before the
     * collective writes it all: on one GPU, where the all-reduce is a copy (a chunk read and
     * written), 10% more DRAM traffic. */
    RB_CUDA(cudaSetDevice(c->gpu[0].dev));
    RB_CUDA(cudaMemsetAsync(c->gpu[0].recv, 0, c->l.chunk * sizeof(float) / 5, stream));
#endif
    return ar_run_nccl(c, stream, 0, AR_OPS_PER_RUN);
}

/* ops in-place collectives, after restoring the in-place input (send -> its place in recv) when
 * anything else touched recv since the last in-place run; see the top of this file. */
static rb_status ar_in_place(ar_ctx *c, cudaStream_t stream, int ops)
{
    /* One GPU's in-place collective has nothing to move: NCCL returns at once, and a rate from
     * it (millions of GB/s) means nothing. The out-of-place ones still copy or reduce locally. */
    if (c->ranks == 1) {
        rb_skip_at(__FILE__, __LINE__, "run_in_place",
                   "one GPU: an in-place collective moves no data");
        return RB_ERR_UNSUPPORTED;
    }
    if (!c->in_place_ready) {
        RB_TRY(ar_fork(c, stream));
        for (int k = 0; k < c->local; k++) {
            const ar_gpu *g = &c->gpu[k];
            size_t off = ar_in_place_offset(c->coll, g->rank, c->l.chunk);
            RB_CUDA(cudaSetDevice(g->dev));
            RB_CUDA(cudaMemcpyAsync(g->recv + off, g->send, c->l.send * sizeof(float),
                                    cudaMemcpyDeviceToDevice, ar_stream(c, k, stream)));
        }
        RB_CUDA(cudaSetDevice(c->gpu[0].dev));
        c->in_place_ready = 1;
        c->in_place_runs = 0;
    }
    RB_TRY(ar_run_nccl(c, stream, 1, ops));
    c->in_place_runs += ops;
    return RB_OK;
}

static rb_status run_in_place(void *ctx, cudaStream_t stream)
{
    return ar_in_place(ctx, stream, AR_OPS_PER_RUN);
}

/* Compares every local GPU's output with the seeds' sums (the check kernel), then poisons the
 * outputs of GPUs 1.. for the next run (the harness poisons only GPU 0's, output()). sums: the
 * three accumulators over all local GPUs, and under MPI over all ranks (every rank checks at
 * the same point, so the sums are collectives that match). */
static rb_status ar_check_sums(ar_ctx *c, cudaStream_t stream, double sums[3])
{
    sums[0] = sums[1] = sums[2] = 0.0;
    for (int k = 0; k < c->local; k++) {
        const ar_gpu *g = &c->gpu[k];
        cudaStream_t s = ar_stream(c, k, stream);
        double part[3];
        RB_CUDA(cudaSetDevice(g->dev));
        RB_CUDA(nccl_allreduce_check(g->recv + ar_out_offset(c->coll, g->rank, c->l.chunk),
                                     c->l.out, c->coll, g->rank, c->ranks, c->l.chunk, c->seed,
                                     g->acc, s));
        RB_CUDA(cudaMemcpyAsync(part, g->acc, sizeof part, cudaMemcpyDeviceToHost, s));
        RB_CUDA(cudaStreamSynchronize(s));
        if (k > 0)
            RB_CUDA(cudaMemsetAsync(g->recv, 0xFF, c->l.recv * sizeof(float), s));
        for (int i = 0; i < 3; i++)
            sums[i] += part[i];
    }
    for (int i = 0; c->comm && i < 3; i++)
        sums[i] = c->comm->sum(sums[i]);
    RB_CUDA(cudaSetDevice(c->gpu[0].dev));
    c->in_place_ready = 0;
    return RB_OK;
}

static rb_status ar_check(void *ctx, int variant, cudaStream_t stream, double *rel_err)
{
    ar_ctx *c = ctx;
    /* After a run (AR_OPS_PER_RUN collectives) in place the data have been reduced over and
     * over: check one fresh in-place collective instead (see the top of this file). */
    if (variant == V_IN_PLACE && c->in_place_runs > 1 && c->ranks > 1 && c->coll != AG) {
        c->in_place_ready = 0;
        RB_TRY(ar_in_place(c, stream, 1));
        RB_CUDA(cudaStreamSynchronize(stream));
    }
    double sums[3];
    RB_TRY(ar_check_sums(c, stream, sums));
    *rel_err = rb_relerr_from_sums(sums[0], sums[1]);
    if (variant >= 0 && variant < V_COUNT)
        c->wrong[variant] = sums[2];
    return RB_OK;
}

/* The CPU reference: rank's output (see kernels/nccl_allreduce.cu, What), summed in double and
 * rounded once. in[q] is rank q's input; NULL: the seeded streams rb_uniform_f32(seed + q, i). */
static float ar_input(const float *const *in, uint64_t seed, int q, size_t i)
{
    return in ? in[q][i] : rb_uniform_f32(seed + (uint64_t)q, i);
}

static void ar_reference(int coll, int ranks, int rank, size_t chunk, uint64_t seed,
                         const float *const *in, float *out)
{
    size_t n_out = coll == AG ? (size_t)ranks * chunk : chunk;
    for (size_t j = 0; j < n_out; j++) {
        double v = 0.0;
        if (coll == AG) {
            v = ar_input(in, seed, (int)(j / chunk), j % chunk);
        } else {
            size_t i = coll == RS ? (size_t)rank * chunk + j : j;
            for (int q = 0; q < ranks; q++)
                v += ar_input(in, seed, q, i);
        }
        out[j] = (float)v;
    }
}

/* Pins the check kernel to the CPU reference: the CPU's outputs, written into every recv with
 * rank 0's middle element off by 1.0, must give exactly one wrong element and a squared error
 * of 1 (the other elements differ by fp32 rounding only: ~1e-14 each). */
static rb_status ar_crosscheck(ar_ctx *c)
{
    size_t n = c->l.out;
    float *ref = malloc(n * sizeof *ref);
    if (!ref)
        return RB_ERR_ALLOC;
    rb_status st = RB_OK;
    for (int k = 0; k < c->local && st == RB_OK; k++) {
        const ar_gpu *g = &c->gpu[k];
        ar_reference(c->coll, c->ranks, g->rank, c->l.chunk, c->seed, NULL, ref);
        if (g->rank == 0)
            ref[n / 2] += 1.0f;
        float *out = g->recv + ar_out_offset(c->coll, g->rank, c->l.chunk);
        if (cudaSetDevice(g->dev) != cudaSuccess ||
            cudaMemcpy(out, ref, n * sizeof *ref, cudaMemcpyHostToDevice) != cudaSuccess) {
            rb_error_at(__FILE__, __LINE__, "cudaMemcpy", "writing the CPU reference failed");
            st = RB_ERR_CUDA;
        }
    }
    free(ref);
    RB_CUDA(cudaSetDevice(c->gpu[0].dev));
    double sums[3];
    if (st == RB_OK)
        st = ar_check_sums(c, 0, sums);
    if (st == RB_OK && (sums[2] != 1.0 || !(fabs(sums[0] - 1.0) <= 1e-5) || !(sums[1] > 0.0))) {
        char msg[200];
        rb_fmt(msg, sizeof msg,
               "the check kernel disagrees with the CPU reference: %.0f wrong elements and a "
               "squared error of %.9g where one planted error of 1.0 should give 1 and 1",
               sums[2], sums[0]);
        rb_error_at(__FILE__, __LINE__, "ar_crosscheck", msg);
        st = RB_ERR_INPUT;
    }
    if (st == RB_OK)
        RB_CUDA(cudaMemset(c->gpu[0].recv, 0xFF, c->l.recv * sizeof(float)));
    return st;
}

/* GPU k's buffers, stream and events, with GPU k current; its input filled from seed + rank. */
static rb_status ar_setup_gpu(ar_ctx *c, int k)
{
    ar_gpu *g = &c->gpu[k];
    if (k > 0) {
        RB_CUDA(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
        RB_CUDA(cudaEventCreateWithFlags(&g->done, cudaEventDisableTiming));
    }
    RB_CUDA(cudaMalloc((void **)&g->send, c->l.send * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&g->recv, c->l.recv * sizeof(float)));
    RB_CUDA(cudaMalloc((void **)&g->acc, 3 * sizeof(double)));
    RB_CUDA(rb_fill_uniform_f32(g->send, c->l.send, c->seed + (uint64_t)g->rank, 0));
    RB_CUDA(cudaMemset(g->recv, 0xFF, c->l.recv * sizeof(float)));
    RB_CUDA(cudaDeviceSynchronize());
    return RB_OK;
}

/* Turns on the current device's access to peer's memory; *enabled = 1 when this call did it (0
 * when it was already on: the error that says so is cleared, it is not sticky). */
static rb_status ar_enable_peer(int peer, int *enabled)
{
    cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();
        return RB_OK;
    }
    RB_CUDA(e);
    *enabled = 1;
    return RB_OK;
}

/* The ring's slices, events and peer access (rank r reads r - 1), or why it cannot run here. */
static rb_status ar_ring_setup(ar_ctx *c)
{
    int n = c->ranks;
    c->ring_slices = nccl_allreduce_ring_slices(c->coll, n, c->l.chunk, AR_RING_SLICE_MIN);
    if (c->local != n) {
        c->ring_why = "the ring reads its neighbour's memory: it needs every GPU in one process";
        return RB_OK;
    }
    for (int k = 0; k < n; k++) {
        int left = (k + n - 1) % n, can = 1;
        RB_CUDA(cudaSetDevice(c->gpu[k].dev));
        for (int par = 0; par < 2; par++)
            for (int p = 0; p < c->ring_slices; p++)
                RB_CUDA(
                    cudaEventCreateWithFlags(&c->gpu[k].ring_ev[par][p], cudaEventDisableTiming));
        if (n > 1)
            RB_CUDA(cudaDeviceCanAccessPeer(&can, c->gpu[k].dev, c->gpu[left].dev));
        if (!can) {
            c->ring_why = "no peer access between neighbouring GPUs of the ring";
            break;
        }
        if (n > 1)
            RB_TRY(ar_enable_peer(c->gpu[left].dev, &c->gpu[k].peer_enabled));
    }
    RB_CUDA(cudaSetDevice(c->gpu[0].dev));
    return RB_OK;
}

/* The NCCL environment is the user's: it is listed, never changed. */
static void ar_print_environment(const ar_ctx *c)
{
    int version = c->nccl_version;
    char vars[600];
    rb_env_list("NCCL_", vars, sizeof vars);
    fprintf(stderr, "nccl_allreduce: NCCL %d.%d.%d, %d GPU%s;%s\n", version / 10000,
            version / 100 % 100, version % 100, c->ranks, c->ranks == 1 ? "" : "s",
            vars[0] ? vars : " no NCCL_* variable set");
}

/* setup() (comm NULL: every visible GPU, one communicator made here) and setup_rank() (the
 * current GPU, as rank comm->rank of the driver's communicator). */
static rb_status ar_setup_comm(void **ctx, const rb_size *size, uint64_t seed, int input,
                               const rb_comm *comm)
{
    ar_ctx *c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c)
        return RB_ERR_ALLOC;
    c->coll = input;
    c->seed = seed;
    for (int i = 0; i < V_COUNT; i++)
        c->wrong[i] = NAN;
    AR_NCCL(ncclGetVersion(&c->nccl_version));
    if (comm) {
        c->comm = comm;
        c->ranks = comm->ranks;
        c->local = 1;
        c->gpu[0].rank = comm->rank;
        c->gpu[0].comm = comm->nccl;
        RB_CUDA(cudaGetDevice(&c->gpu[0].dev));
    } else {
        RB_CUDA(cudaGetDeviceCount(&c->ranks));
        if (c->ranks > AR_MAX_GPUS)
            c->ranks = AR_MAX_GPUS;
        c->local = c->ranks;
        ncclComm_t comms[AR_MAX_GPUS];
        AR_NCCL(ncclCommInitAll(comms, c->ranks, NULL)); /* devices 0 .. ranks-1 */
        for (int k = 0; k < c->local; k++) {
            c->gpu[k].dev = c->gpu[k].rank = k;
            c->gpu[k].comm = comms[k];
        }
    }
    c->l = ar_layout_of(c->coll, size->n, c->ranks);
    for (int k = 0; k < c->local; k++) {
        RB_CUDA(cudaSetDevice(c->gpu[k].dev));
        rb_status st = ar_setup_gpu(c, k);
        RB_CUDA(cudaSetDevice(c->gpu[0].dev));
        if (st != RB_OK)
            return st;
    }
    RB_CUDA(cudaEventCreateWithFlags(&c->fork, cudaEventDisableTiming));
    RB_TRY(ar_ring_setup(c));
    if (c->l.out <= AR_CPU_CHECK_MAX)
        RB_TRY(ar_crosscheck(c));
    if (!comm) /* the MPI driver records it once, in its results */
        ar_print_environment(c);
    return RB_OK;
}

static rb_status ar_setup(void **ctx, const rb_size *size, uint64_t seed, int input)
{
    return ar_setup_comm(ctx, size, seed, input, NULL);
}

static void ar_output(void *ctx, int variant, void **dev_ptr, size_t *bytes)
{
    ar_ctx *c = ctx;
    (void)variant;
    *dev_ptr = c->gpu[0].recv + ar_out_offset(c->coll, c->gpu[0].rank, c->l.chunk);
    *bytes = c->l.out * sizeof(float);
}

static void ar_teardown(void *ctx)
{
    ar_ctx *c = ctx;
    if (!c)
        return;
    for (int k = 0; k < c->local; k++) {
        ar_gpu *g = &c->gpu[k];
        if (cudaSetDevice(g->dev) != cudaSuccess)
            continue;
        if (g->comm && !c->comm)
            ncclCommDestroy(g->comm);
        cudaFree(g->send);
        cudaFree(g->recv);
        cudaFree(g->acc);
        if (g->done)
            cudaEventDestroy(g->done);
        for (int par = 0; par < 2; par++)
            for (int p = 0; p < NCCL_ALLREDUCE_RING_MAX_SLICES; p++)
                if (g->ring_ev[par][p])
                    cudaEventDestroy(g->ring_ev[par][p]);
        if (g->peer_enabled)
            cudaDeviceDisablePeerAccess(c->gpu[(k + c->local - 1) % c->local].dev);
        if (g->stream)
            cudaStreamDestroy(g->stream);
    }
    cudaSetDevice(c->gpu[0].dev);
    if (c->fork)
        cudaEventDestroy(c->fork);
    free(c);
}

static double ar_flops(const rb_size *size)
{
    (void)size;
    return 0.0;
}

/* S, nccl-tests' size (see kernels/nccl_allreduce.cu, Work): the GB/s column is algbw. Not
 * the bus bytes: those need the GPU count, and asking CUDA for it here would initialize CUDA
 * in the parent process, which forks the pairs' children. */
static double ar_bytes(const rb_size *size)
{
    return (double)size->n;
}

/* nccl-tests' columns of the variant's row (its out-of-place or in-place half): size (S, bytes),
 * count (fp32 elements per rank, nccl-tests' count: the all-reduce's buffer, the all-gather's
 * input, the reduce-scatter's output; type float, redop sum), the time of one collective,
 * algbw = S / time and busbw = algbw x the bus factor (nccl-tests' definitions, with the exact S
 * after rounding to whole elements), #wrong (the wrong elements of its last check); then the
 * GPUs and NCCL. */
static int ar_extras(void *ctx, int variant, const double *median_ms, rb_extra out[RB_MAX_EXTRAS])
{
    ar_ctx *c = ctx;
    double algbw = c->l.size_bytes / (median_ms[variant] * 1e-3) / 1e9;
    const char *names[8] = {"size_bytes", "count",          "time_us", "algbw_gbps",
                            "busbw_gbps", "wrong_elements", "gpus",    "nccl_version"};
    double values[8] = {c->l.size_bytes,
                        (double)c->l.chunk,
                        median_ms[variant] * 1e3,
                        algbw,
                        algbw * nccl_allreduce_bus_factor(c->coll, c->ranks),
                        c->wrong[variant],
                        c->ranks,
                        c->nccl_version};
    for (int i = 0; i < 8; i++) {
        rb_fmt(out[i].name, sizeof out[i].name, "%s", names[i]);
        out[i].value = values[i];
    }
    return 8;
}

/* Hand-computed cases of the CPU reference on 2 ranks, the bus factors, the layouts and the
 * sweep. */
static int ar_selftest(char *why, size_t why_size)
{
    const float x0[4] = {1.0f, 2.0f, 3.0f, 0.25f}, x1[4] = {0.5f, -2.0f, 4.0f, 8.0f};
    const float *in[2] = {x0, x1};
    float out[4];
    /* all-reduce of 3: [1.5 0 7]; all-gather of 2: [1 2 0.5 -2]; reduce-scatter, chunk 2,
     * rank 1: elements 2 and 3 of the sum: [7 8.25]. */
    const float want_ar[3] = {1.5f, 0.0f, 7.0f}, want_ag[4] = {1.0f, 2.0f, 0.5f, -2.0f},
                want_rs[2] = {7.0f, 8.25f};
    ar_reference(AR, 2, 0, 3, 0, in, out);
    int bad = memcmp(out, want_ar, sizeof want_ar) != 0;
    ar_reference(AG, 2, 1, 2, 0, in, out);
    bad |= memcmp(out, want_ag, sizeof want_ag) != 0;
    ar_reference(RS, 2, 1, 2, 0, in, out);
    bad |= memcmp(out, want_rs, sizeof want_rs) != 0;
    /* the seeded path: rank 1's stream is seed + 1 */
    ar_reference(AG, 2, 0, 2, 5, NULL, out);
    bad |= out[3] != rb_uniform_f32(6, 1) || out[0] != rb_uniform_f32(5, 0);
    if (bad) {
        rb_fmt(why, why_size, "nccl_allreduce CPU reference wrong on a hand-computed 2-rank case");
        return -1;
    }
    /* nccl-tests: all-reduce 2(n-1)/n, the others (n-1)/n; 0 on one GPU */
    if (nccl_allreduce_bus_factor(AR, 1) != 0.0 || nccl_allreduce_bus_factor(AR, 2) != 1.0 ||
        nccl_allreduce_bus_factor(AR, 8) != 1.75 || nccl_allreduce_bus_factor(AG, 2) != 0.5 ||
        nccl_allreduce_bus_factor(RS, 8) != 0.875 || !isnan(nccl_allreduce_bus_factor(AR, 0))) {
        rb_fmt(why, why_size, "nccl_allreduce bus bandwidth factors wrong");
        return -1;
    }
    /* 1 GiB on 8 ranks: all-reduce 2^28 floats; the others 2^25 per chunk; 8 B on 8 ranks
     * rounds the chunk up to 1 element (S = 32 B); 1000003 B all-reduce: 250000 floats. */
    ar_layout a = ar_layout_of(AR, 1u << 30, 8), g = ar_layout_of(AG, 1u << 30, 8),
              r = ar_layout_of(RS, 1u << 30, 8), t = ar_layout_of(RS, 8, 8),
              o = ar_layout_of(AR, 1000003, 2);
    if (a.chunk != 1u << 28 || a.send != a.chunk || a.recv != a.chunk || a.out != a.chunk ||
        a.size_bytes != 1073741824.0 || g.chunk != 1u << 25 || g.send != g.chunk ||
        g.recv != 1u << 28 || g.out != 1u << 28 || g.size_bytes != 1073741824.0 ||
        r.send != 1u << 28 || r.recv != 1u << 28 || r.out != 1u << 25 || t.chunk != 1 ||
        t.size_bytes != 32.0 || o.chunk != 250000 || o.size_bytes != 1000000.0 ||
        ar_out_offset(RS, 3, 5) != 15 || ar_out_offset(AG, 3, 5) != 0 ||
        ar_in_place_offset(AG, 3, 5) != 15 || ar_in_place_offset(RS, 3, 5) != 0) {
        rb_fmt(why, why_size, "nccl_allreduce buffer layout wrong");
        return -1;
    }
    /* the sweep: 8 B to 1 GiB by powers of 8, 0-terminated */
    int i = 0;
    for (uint64_t want = 8; want <= 1u << 30; want *= 8, i++)
        if (nccl_allreduce_sweep[i] != want) {
            rb_fmt(why, why_size, "nccl_allreduce sweep: entry %d is not %llu", i,
                   (unsigned long long)want);
            return -1;
        }
    if (nccl_allreduce_sweep[i] != 0) {
        rb_fmt(why, why_size, "nccl_allreduce sweep is not 0-terminated after 1 GiB");
        return -1;
    }
    return 0;
}

static const rb_pair_ext nccl_allreduce_ext = {
    .link_bytes = 1,
    .setup_rank = ar_setup_comm,
    .ops_per_run = AR_OPS_PER_RUN,
    .sweep = nccl_allreduce_sweep,
    .sweep_one_gpu = nccl_allreduce_sweep_one_gpu,
    .extras = ar_extras,
};

const rb_pair rb_pair_nccl_allreduce = {
    .name = "nccl_allreduce",
    .pattern = "NCCL collectives over NVLink vs a hand-written ring of peer loads",
    .size_unit = "bytes (S)", /* nccl-tests' size, of fp32 data */
    .smoke_size = 1u << 20,
    /* A full run sweeps nccl_allreduce_sweep (8 B .. 1 GiB; on one GPU 1 GiB only,
     * nccl_allreduce_sweep_one_gpu), so full_size only sets where the harness judges
     * rates against the DRAM peak: above every swept size, because S counts link traffic, not DRAM
     * traffic. --size 4G runs a 4 GiB point. */
    .full_size = 1ull << 32,
    .flops = ar_flops,
    .bytes = ar_bytes,
    .setup = ar_setup,
    .output = ar_output,
    .check = ar_check,
    .teardown = ar_teardown,
    .selftest = ar_selftest,
    /* The ring's kernel is the only one of ours that is timed (the check kernel is validation);
     * the optimized variants are NCCL's kernels: no codegen rule. */
    .kernels = nccl_allreduce_kernels,
    .n_inputs = 3,
    .inputs = {"allreduce", "allgather", "reduce_scatter"},
    .n_variants = 3,
    .variants =
        {
            /* Error model: the all-gather copies (exact); an all-reduce or reduce-scatter
             * element is a sum of one value per rank in fp32, in NCCL's or the ring's order,
             * against the double sum rounded once. One rank: a copy; two: one fp32 addition,
             * correctly rounded like the reference: both exact. n ranks: n - 1 roundings of
             * partial sums, at most (n - 1) 2^-24 sum|x_q| per element, normwise at most (n -
             * 1) 2^-24 sqrt(3 n) for inputs uniform in (-1, 1): 2.0e-6 on 8 GPUs, 5e-5 on 64 if
             * every rounding were maximal and aligned (random ones give ~30x less). Measured
             * (every size and collective): 0 on one GPU (H100) and on two (2 x H200)
             * (docs/notes/nccl_allreduce.md). 1e-5 is 5x the
             * 8-GPU bound; the planted defect gives 1.41. */
            /* Roofs: nvlink_gbps, judged by the bus bandwidth (the extra busbw_gbps,
             * nccl-tests' figure: what each GPU's link carries), not by algbw = S / t, which
             * understates the link's load by 2(n-1)/n. On one GPU nothing crosses a link: busbw
             * is 0 and no nvlink ceiling exists, so %ceil and %peak stay '-' (the ring and the
             * out-of-place variant are a device copy there, shown by their GB/s). The ring sums
             * in rank order, one fp32 rounding per step: inside the same bound. */
            {"ring", RB_ROLE_BASELINE, RB_UNIT_NONE, 1e-5, run_ring, .roof = "nvlink_gbps",
             .roof_rate = "busbw_gbps"},
            {"nccl_out_of_place", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 1e-5, run_out_of_place,
             .roof = "nvlink_gbps", .roof_rate = "busbw_gbps"},
            /* what frameworks call: PyTorch's all_reduce works in place */
            {"nccl_in_place", RB_ROLE_LIBRARY, RB_UNIT_NONE, 1e-5, run_in_place,
             .roof = "nvlink_gbps", .roof_rate = "busbw_gbps"},
        },
    /* The ring's at 1000003 fp32 elements: odd, divisible by no GPU count. */
    .defects = {{"buckets_swapped", V_OUT_OF_PLACE, run_defect_swapped_buckets},
                {"ring_undrained", V_RING, run_defect_ring_undrained, 4000012}},
    .ext = &nccl_allreduce_ext,
};
