/* SPDX-License-Identifier: MIT */
/*
 * roofbench_mpi (built by `make MPI=1`): the NCCL collectives of bench/nccl_allreduce.c with one
 * process per GPU, on one machine or many, bootstrapped through MPI:
 *
 *   mpirun -np 16 --map-by ppr:8:node build/sm_90/roofbench_mpi [--input NAME] [--size N]
 *          [--samples N] [--seed N] [--json FILE]
 *
 * Rank 0 makes NCCL's unique id and broadcasts it (MPI_Bcast); every rank takes the GPU
 * (its rank among the processes of its node) mod (the node's GPUs), makes its communicator
 * with ncclCommInitRank and hands it to the pair (nccl_allreduce_attach), whose setup, variants,
 * check and extras then serve that one GPU: the same buffers, NCCL calls, validation (each rank
 * checks its own output against the seeds, with no communication) and bandwidth formulas as in
 * a roofbench run. The pair's host_staged baseline needs every GPU in one process: not run here.
 *
 * Timing, as nccl-tests does it: each sample starts after an MPI_Barrier and lasts K launches;
 * its time is the slowest rank's (MPI_MAX). K and the number of samples are the same on every
 * rank, which must call each collective equally often. Each variant is validated before timing
 * and after (the largest error of any rank; the wrong elements summed over ranks).
 *
 * No child processes: forking after MPI_Init is not safe. A CUDA or NCCL failure on one rank
 * would leave the others waiting in a collective, so it ends the job (MPI_Abort). Results: a
 * table on rank 0's stdout, and with --json FILE the same rows as JSON.
 *
 * This cannot run on the development machines or in CI (no GPU); CI only builds it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes" /* nccl.h: ncclGroupStart() etc. */
#include <nccl.h>
#pragma GCC diagnostic pop

#include "core/compare.h"
#include "core/json.h"
#include "core/stats.h"
#include "core/util.h"
#include "env.h"
#include "pair.h"

/* bench/nccl_allreduce.c */
extern const rb_pair rb_pair_nccl_allreduce;
void nccl_allreduce_attach(ncclComm_t comm, int rank, int ranks);

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_NO_GPU = 3 };

#define RB_MPI_MAX_SAMPLES 1000
#define RB_MPI_SAMPLE_MS 1.0 /* target duration of a sample */
#define RB_MPI_MAX_LAUNCHES 10000

typedef struct mpi_opts {
    const char *input; /* NULL: all three */
    uint64_t size;     /* 0: the sweep */
    uint64_t samples;
    uint64_t seed;
    const char *json_path;
} mpi_opts;

static int rank_id, ranks;

/* Ends every rank: a rank that failed cannot take part in the next collective. */
static void die(const char *what)
{
    const char *first = rb_first_error();
    fprintf(stderr, "roofbench_mpi: rank %d: %s%s%s\n", rank_id, what, first[0] ? ": " : "", first);
    MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
}

static int parse_args(int argc, char **argv, mpi_opts *o, char *err, size_t err_size)
{
    o->input = NULL;
    o->size = 0;
    o->samples = 20;
    o->seed = 20261122; /* roofbench's default */
    o->json_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            rb_fmt(err, err_size,
                   "usage: roofbench_mpi [--input allreduce|allgather|reduce_scatter] [--size N] "
                   "[--samples N] [--seed N] [--json FILE]");
            return -1;
        }
        if (!v) {
            rb_fmt(err, err_size, "%s: missing value (see --help)", a);
            return -1;
        }
        i++;
        if (!strcmp(a, "--input")) {
            o->input = v;
        } else if (!strcmp(a, "--json")) {
            o->json_path = v;
        } else if (!strcmp(a, "--size") || !strcmp(a, "--samples") || !strcmp(a, "--seed")) {
            uint64_t *dst = !strcmp(a, "--size")      ? &o->size
                            : !strcmp(a, "--samples") ? &o->samples
                                                      : &o->seed;
            char why[200];
            if (rb_parse_count(v, dst, why, sizeof why) != 0) {
                rb_fmt(err, err_size, "%s: %s", a, why);
                return -1;
            }
        } else {
            rb_fmt(err, err_size, "unknown option %s (see --help)", a);
            return -1;
        }
    }
    if (o->samples > RB_MPI_MAX_SAMPLES) {
        rb_fmt(err, err_size, "--samples: at most %d", RB_MPI_MAX_SAMPLES);
        return -1;
    }
    const rb_pair *p = &rb_pair_nccl_allreduce;
    int known = !o->input;
    for (int k = 0; k < p->n_inputs; k++)
        known |= o->input && !strcmp(o->input, p->inputs[k]);
    if (!known) {
        rb_fmt(err, err_size, "--input %s: not one of allreduce, allgather, reduce_scatter",
               o->input);
        return -1;
    }
    return 0;
}

/* NaN -> +Inf, so that MPI_MAX (a comparison) cannot lose it. */
static double max_over_ranks(double x)
{
    double in = isnan(x) ? INFINITY : x, out = 0.0;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

static double sum_over_ranks(double x)
{
    double out = 0.0;
    MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
}

/* Poisons the output (as roofbench does), runs the variant once, checks: the largest error of
 * any rank. */
static double checked_run(const rb_pair *p, int k, void *ctx, cudaStream_t s)
{
    void *out = NULL;
    size_t bytes = 0;
    double err = NAN;
    p->output(ctx, k, &out, &bytes);
    if (cudaMemsetAsync(out, 0xFF, bytes, s) != cudaSuccess ||
        p->variants[k].run(ctx, s) != RB_OK || cudaStreamSynchronize(s) != cudaSuccess ||
        p->check(ctx, k, s, &err) != RB_OK)
        die("a checked run failed");
    return max_over_ranks(err);
}

/* Milliseconds per launch of `launches` launches after a barrier: the slowest rank's. */
static double timed_sample(const rb_variant_def *v, void *ctx, cudaStream_t s, cudaEvent_t ev[2],
                           int launches)
{
    float ms = 0.0f;
    MPI_Barrier(MPI_COMM_WORLD);
    if (cudaEventRecord(ev[0], s) != cudaSuccess)
        die("cudaEventRecord failed");
    for (int k = 0; k < launches; k++)
        if (v->run(ctx, s) != RB_OK)
            die("a timed launch failed");
    if (cudaEventRecord(ev[1], s) != cudaSuccess || cudaEventSynchronize(ev[1]) != cudaSuccess ||
        cudaEventElapsedTime(&ms, ev[0], ev[1]) != cudaSuccess)
        die("timing failed");
    return max_over_ranks((double)ms / launches);
}

/* One row: a variant of one collective at one size. */
typedef struct mpi_row {
    const char *input, *variant;
    uint64_t size;
    int valid, launches;
    double err_before, err_after, tolerance;
    rb_stats t;
    double algbw, busbw, wrong;
} mpi_row;

static void measure_variant(const rb_pair *p, int k, void *ctx, cudaStream_t s, cudaEvent_t ev[2],
                            const mpi_opts *o, mpi_row *r)
{
    const rb_variant_def *v = &p->variants[k];
    double median_ms[RB_MAX_VARIANTS];
    for (int i = 0; i < RB_MAX_VARIANTS; i++)
        median_ms[i] = NAN;
    r->variant = v->name;
    r->tolerance = v->tolerance;
    r->err_before = checked_run(p, k, ctx, s);
    r->err_after = NAN;
    r->valid = 0;
    memset(&r->t, 0, sizeof r->t);
    r->t.median = NAN;
    if (rb_within_tolerance(r->err_before, v->tolerance)) {
        /* warm-up, then K from the slowest rank's launch, so every rank agrees on it */
        timed_sample(v, ctx, s, ev, 1);
        double one_ms = timed_sample(v, ctx, s, ev, 1);
        r->launches = (int)fmin(RB_MPI_MAX_LAUNCHES, fmax(1.0, ceil(RB_MPI_SAMPLE_MS / one_ms)));
        void *out = NULL;
        size_t bytes = 0;
        p->output(ctx, k, &out, &bytes);
        if (cudaMemsetAsync(out, 0xFF, bytes, s) != cudaSuccess)
            die("poisoning the output failed");
        double samples[RB_MPI_MAX_SAMPLES];
        for (uint64_t i = 0; i < o->samples; i++)
            samples[i] = timed_sample(v, ctx, s, ev, r->launches);
        if (rb_stats_compute(samples, o->samples, &r->t) != 0)
            die("a timing sample is not finite");
        double err = NAN;
        if (p->check(ctx, k, s, &err) != RB_OK)
            die("the check after timing failed");
        r->err_after = max_over_ranks(err);
        r->valid = rb_within_tolerance(r->err_after, v->tolerance);
        median_ms[k] = r->t.median;
    }
    /* algbw and busbw from the common median (the same on every rank); wrong elements of the
     * last check, per rank, summed */
    rb_extra x[RB_MAX_EXTRAS];
    int n = p->extras ? p->extras(ctx, k, median_ms, x) : 0;
    r->algbw = r->busbw = r->wrong = NAN;
    for (int i = 0; i < n; i++) {
        if (!strcmp(x[i].name, "algbw_gbps"))
            r->algbw = x[i].value;
        else if (!strcmp(x[i].name, "busbw_gbps"))
            r->busbw = x[i].value;
        else if (!strcmp(x[i].name, "wrong_elements"))
            r->wrong = x[i].value;
    }
    r->wrong = sum_over_ranks(r->wrong);
}

static void print_row(const mpi_row *r)
{
    char median[32] = "-";
    if (r->valid)
        rb_fmt(median, sizeof median, "%.4f", r->t.median);
    printf("%-15s %12llu %-18s %11s %6.2f%% %10.2f %10.2f %8.0f  %s\n", r->input,
           (unsigned long long)r->size, r->variant, median, 100 * r->t.noise, r->algbw, r->busbw,
           r->wrong, r->valid ? "ok" : "INVALID");
    fflush(stdout);
}

static json_value *row_json(const mpi_row *r)
{
    json_value *o = json_new_object();
    if (!o || json_set_string(o, "input", r->input) ||
        json_set_number(o, "size_bytes", (double)r->size) ||
        json_set_string(o, "variant", r->variant) || json_set_bool(o, "valid", r->valid) ||
        json_set_number(o, "rel_err_before", r->err_before) ||
        json_set_number(o, "rel_err_after", r->err_after) ||
        json_set_number(o, "tolerance", r->tolerance) ||
        json_set_number(o, "median_ms", r->t.median) || json_set_number(o, "min_ms", r->t.min) ||
        json_set_number(o, "p10_ms", r->t.p10) || json_set_number(o, "p90_ms", r->t.p90) ||
        json_set_number(o, "noise", r->t.noise) || json_set_number(o, "samples", (double)r->t.n) ||
        json_set_number(o, "launches_per_sample", r->launches) ||
        json_set_number(o, "algbw_gbps", r->algbw) || json_set_number(o, "busbw_gbps", r->busbw) ||
        json_set_number(o, "wrong_elements", r->wrong)) {
        json_free(o);
        return NULL;
    }
    return o;
}

/* The run's facts: what produced the rows, and under which NCCL environment (the user's,
 * recorded, never changed). */
static json_value *run_json(int version, const mpi_opts *o)
{
    extern char **environ;
    json_value *doc = json_new_object(), *env = json_new_object();
    int bad = !doc || !env || json_set_string(doc, "tool", "roofbench_mpi") ||
              json_set_string(doc, "git", rb_git_rev) ||
              json_set_string(doc, "arch", rb_build_arch) || json_set_number(doc, "ranks", ranks) ||
              json_set_number(doc, "nccl_version", version) ||
              json_set_number(doc, "seed", (double)o->seed);
    for (char **e = environ; !bad && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && !strncmp(*e, "NCCL_", 5)) {
            char name[128];
            rb_fmt(name, sizeof name, "%.*s", (int)(eq - *e), *e);
            bad = json_set_string(env, name, eq + 1);
        }
    }
    if (bad || json_object_set(doc, "nccl_env", env) ||
        json_object_set(doc, "rows", json_new_array())) {
        json_free(doc);
        if (!doc)
            json_free(env);
        return NULL;
    }
    return doc;
}

/* This rank's GPU: its rank among the processes of its node, mod the node's GPUs. */
static int pick_gpu(char *err, size_t err_size)
{
    MPI_Comm node;
    int local = 0, gpus = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_id, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (rb_env_device_count(&gpus, err, err_size) != RB_OK)
        return EXIT_NO_GPU;
    if (cudaSetDevice(local % gpus) != cudaSuccess) {
        rb_fmt(err, err_size, "cudaSetDevice(%d) failed", local % gpus);
        return EXIT_NO_GPU;
    }
    return EXIT_OK;
}

/* The communicator of all ranks: rank 0's unique id, broadcast, then ncclCommInitRank (itself a
 * collective: a rank that fails there ends the job). */
static ncclComm_t init_nccl(void)
{
    ncclUniqueId id;
    ncclComm_t comm = NULL;
    ncclResult_t r = ncclSuccess;
    memset(&id, 0, sizeof id);
    if (rank_id == 0)
        r = ncclGetUniqueId(&id);
    MPI_Bcast(&r, sizeof r, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (r == ncclSuccess) {
        MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
        r = ncclCommInitRank(&comm, ranks, id, rank_id);
    }
    if (r != ncclSuccess) {
        char msg[300];
        rb_fmt(msg, sizeof msg, "%s (%s)", ncclGetErrorString(r), ncclGetLastError(NULL));
        rb_error_at(__FILE__, __LINE__, "ncclCommInitRank", msg);
        die("NCCL initialization failed");
    }
    return comm;
}

/* Every variant but the baseline, of every selected input, at every size. */
static int run_all(const mpi_opts *o, json_value *rows)
{
    const rb_pair *p = &rb_pair_nccl_allreduce;
    int invalid = 0;
    cudaStream_t s;
    cudaEvent_t ev[2];
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreate(&ev[0]) != cudaSuccess || cudaEventCreate(&ev[1]) != cudaSuccess)
        die("cannot create a stream or events");
    if (rank_id == 0)
        printf("%-15s %12s %-18s %11s %7s %10s %10s %8s  %s\n", "input", "size (B)", "variant",
               "median ms", "noise", "algbw GB/s", "busbw GB/s", "wrong", "check");
    for (int input = 0; input < p->n_inputs; input++) {
        if (o->input && strcmp(o->input, p->inputs[input]) != 0)
            continue;
        for (int i = 0; o->size ? i == 0 : p->sweep[i] != 0; i++) {
            rb_size size = {o->size ? o->size : p->sweep[i], 1, 0};
            size.cols = size.n;
            void *ctx = NULL;
            if (p->setup(&ctx, &size, o->seed, input) != RB_OK)
                die("setup failed");
            for (int k = 0; k < p->n_variants; k++) {
                if (p->variants[k].role == RB_ROLE_BASELINE)
                    continue; /* host_staged: every GPU in one process only */
                mpi_row r = {.input = p->inputs[input], .size = size.n};
                measure_variant(p, k, ctx, s, ev, o, &r);
                invalid += !r.valid || !(r.wrong == 0.0);
                if (rank_id == 0) {
                    print_row(&r);
                    if (rows && json_array_push(rows, row_json(&r)) != 0)
                        die("out of memory");
                }
            }
            p->teardown(ctx);
        }
    }
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    cudaStreamDestroy(s);
    return invalid;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_id);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    setvbuf(stdout, NULL, _IOLBF, 0);
    mpi_opts o;
    char err[400];
    if (parse_args(argc, argv, &o, err, sizeof err) != 0) {
        if (rank_id == 0)
            fprintf(stderr, "roofbench_mpi: %s\n", err);
        MPI_Finalize();
        return EXIT_USAGE;
    }
    int rc = pick_gpu(err, sizeof err), worst = 0;
    /* every rank learns whether any rank has no GPU, so that all end the same way */
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst != EXIT_OK) {
        if (rc != EXIT_OK)
            fprintf(stderr, "roofbench_mpi: rank %d: %s\n", rank_id, err);
        MPI_Finalize();
        return worst;
    }
    ncclComm_t comm = init_nccl();
    nccl_allreduce_attach(comm, rank_id, ranks);
    int version = 0;
    ncclGetVersion(&version);
    json_value *doc = rank_id == 0 ? run_json(version, &o) : NULL;
    if (rank_id == 0)
        printf("roofbench_mpi %s: %d ranks, NCCL %d.%d.%d\n", rb_git_rev, ranks, version / 10000,
               version / 100 % 100, version % 100);
    int invalid = run_all(&o, doc ? json_get(doc, "rows") : NULL);
    rc = invalid ? EXIT_FAIL : EXIT_OK;
    if (rank_id == 0 && o.json_path) {
        if (!doc || json_write_file(o.json_path, doc, err, sizeof err) != 0) {
            fprintf(stderr, "roofbench_mpi: %s\n", doc ? err : "out of memory");
            rc = EXIT_FAIL;
        } else {
            printf("results: %s\n", o.json_path);
        }
    }
    json_free(doc);
    ncclCommDestroy(comm);
    MPI_Finalize();
    return rc;
}
