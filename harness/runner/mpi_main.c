/* SPDX-License-Identifier: MIT */
/*
 * roofbench_mpi (built by `make MPI=1`): the pairs that can run with one process per GPU (those
 * with setup_rank(): nccl_allreduce), on one machine or many, bootstrapped through MPI:
 *
 *   mpirun -np 16 --map-by ppr:8:node build/sm_90/roofbench_mpi [--filter REGEX]
 *          [--size smoke|full|N] [--samples N] [--cap S] [--cold] [--seed N] [--nvtx]
 *          [--json FILE] [--results-dir DIR]
 *
 * The options mean what they mean to `roofbench run` (they are parsed by the same code), and
 * the pairs, their rows ("nccl_allreduce.allreduce@1G") and the results file are the same:
 * rank 0 writes results/<hardware-key>/<UTC>-<git>.json and its Markdown twin, the document of
 * `roofbench run` with "tool": "roofbench_mpi" and "ranks" added. With one rank a full run
 * takes a pair's one-GPU sweep (sweep_one_gpu), as roofbench does on a machine with one GPU.
 *
 * Rank 0 makes NCCL's unique id and broadcasts it (MPI_Bcast); every rank takes the GPU (its
 * rank among the processes of its node) mod (the node's GPUs) and makes its communicator with
 * ncclCommInitRank. Each rank then runs each pair as a child of roofbench's would
 * (rb_child_pair: setup_rank() with the communicator, then per variant validate, time, validate
 * again; a variant a pair skips is reported skipped), its records going to a temporary file
 * that is read back through the same collector (rb_results_line). The ranks keep in step
 * through rb_comm, made of MPI calls here: each sample starts after a barrier and counts as the
 * slowest rank's time, the sampling loop's clock is the latest rank's, so every rank takes the
 * same samples of the same launches; the pair's check reports what holds over all ranks.
 *
 * No child processes (forking after MPI_Init is not safe), so no watchdog (--timeout is
 * refused) and no expectation file (--expect and --update-expectations are refused: every
 * verdict is 'new'; a run across nodes has no one hardware key). A failure on one rank would
 * leave the others waiting in a collective, so it ends the job (MPI_Abort), with no results
 * file. Ranks other than 0 print errors only.
 *
 * This cannot run on the development machines or in CI (no GPU); CI builds it and checks its
 * command-line handling and its no-GPU exit (tests/mpi_smoke.sh).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes" /* nccl.h: ncclGroupStart() etc. */
#include <nccl.h>
#pragma GCC diagnostic pop

#include "child.h"
#include "core/cli.h"
#include "core/report.h"
#include "core/util.h"
#include "env.h"
#include "jobs.h"
#include "results.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_NO_GPU = 3 };

static int rank_id, ranks;

/* ---- rb_comm over MPI_COMM_WORLD ---- */

static void mpi_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

/* NaN on any rank: NaN (MPI_MAX, a comparison, would lose it). */
static double mpi_max(double x)
{
    double in[2] = {isnan(x) ? 1.0 : 0.0, isnan(x) ? -INFINITY : x}, out[2] = {0.0, 0.0};
    MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out[0] > 0.0 ? NAN : out[1];
}

static double mpi_sum(double x)
{
    double out = 0.0;
    MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
}

/* ---- the command line ---- */

static const char mpi_usage[] =
    "usage: mpirun -np N roofbench_mpi [--filter REGEX] [--size smoke|full|N] [--samples N]\n"
    "                                  [--cap S] [--cold] [--seed N] [--nvtx] [--json FILE]\n"
    "                                  [--results-dir DIR]\n"
    "Runs the pairs that work with one process per GPU (see the README's Two GPUs) as\n"
    "`roofbench run` does, one GPU per rank; the options are run's (roofbench --help).\n";

/* `roofbench run`'s options that need a child process or one machine: refused. */
static const char *const mpi_refused[] = {
    "--timeout", "--expect", "--expect-any-device", "--update-expectations", "--device", NULL};

/* Parses argv as `roofbench run ARGS` would, refusing what roofbench_mpi cannot do. 0, 1 for
 * --help, or -1 with one line in err. */
static int parse_args(int argc, char **argv, rb_options *o, char *err, size_t err_size)
{
    for (int i = 1; i < argc; i++)
        for (int k = 0; mpi_refused[k]; k++)
            if (!strcmp(argv[i], mpi_refused[k])) {
                rb_fmt(err, err_size, "%s: roofbench_mpi has no %s (see --help)", argv[i],
                       !strcmp(argv[i], "--timeout")  ? "watchdog"
                       : !strcmp(argv[i], "--device") ? "device choice (each rank takes its own)"
                                                      : "expectation file");
                return -1;
            }
    char **run_argv = malloc(((size_t)argc + 2) * sizeof *run_argv);
    if (!run_argv) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    run_argv[0] = argv[0];
    run_argv[1] = "run";
    for (int i = 1; i <= argc; i++)
        run_argv[i + 1] = argv[i]; /* with argv[argc], NULL */
    int rc = rb_cli_parse(argc + 1, run_argv, o, err, err_size);
    free(run_argv);
    if (rc != 0)
        return -1;
    return o->command == RB_CMD_HELP ? 1 : 0;
}

static int runs_across_ranks(const rb_pair *p)
{
    return p->gpus.setup_rank != NULL;
}

/* ---- setup ---- */

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

/* Ends every rank: a rank that failed cannot take part in the next collective. */
static void die(const char *what)
{
    const char *first = rb_first_error();
    fprintf(stderr, "roofbench_mpi: rank %d: %s%s%s\n", rank_id, what, first[0] ? ": " : "",
            first);
    MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
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

/* ---- the pairs ---- */

/* Reads back the records rb_child_pair wrote to fd into r. 0, or -1 when they cannot be read. */
static int collect_records(int fd, rb_pair_result *r)
{
    off_t size = lseek(fd, 0, SEEK_END);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (!text || lseek(fd, 0, SEEK_SET) != 0 || read(fd, text, (size_t)size) != size) {
        free(text);
        return -1;
    }
    text[size] = '\0';
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            break;
        char err[200];
        json_value *v = json_parse(line, (size_t)(end - line), err, sizeof err);
        if (v)
            rb_results_line(r, v);
        json_free(v);
    }
    free(text);
    return 0;
}

/* Runs job j on this rank, its records into r. A failure on any rank ends the job: the others
 * wait in a collective it will not reach. */
static void run_job(const rb_job *j, const rb_options *o, const rb_comm *comm, rb_pair_result *r)
{
    rb_child_opts opts;
    rb_results_begin(r, j);
    rb_results_child_opts(j, o, &opts);
    opts.comm = comm;
    FILE *records = tmpfile();
    if (!records)
        die("cannot make a temporary file for the records");
    double t0 = rb_now_s();
    int rc = rb_child_pair(j->pair, &opts, fileno(records));
    r->wall_s = rb_now_s() - t0;
    if (collect_records(fileno(records), r) != 0)
        die("cannot read back the records");
    fclose(records);
    if (rc != 0 || r->status == RB_PAIR_FAILED) {
        rb_error_at(__FILE__, __LINE__, r->name, r->reason[0] ? r->reason : "failed");
        die("a pair failed");
    }
    if (r->status == RB_PAIR_SKIPPED)
        printf("      skipped: %s\n", r->reason);
    printf("      (%.1f s)\n", r->wall_s);
}

/* Rank 0: the roofline, the table and the results file, as `roofbench run` without an
 * expectation file. The exit code. */
static int report(const rb_options *o, int argc, char **argv, json_value *env_start,
                  rb_pair_result *results, int n)
{
    int dev = 0;
    cudaGetDevice(&dev);
    const json_value *k = json_get(env_start, "hardware_key");
    const char *key = k && k->type == JSON_STRING ? k->string : "unknown";
    rb_roofs ceilings, peaks;
    rb_results_derive(NULL, key, results, n, &ceilings, &peaks);
    int failing = rb_expect_apply(NULL, results, n);
    printf("\n");
    rb_report_table(stdout, results, n, 0);
    json_value *meta = rb_results_meta("roofbench_mpi", o, argc, argv, env_start, NULL);
    if (meta && (json_set_number(meta, "ranks", ranks) ||
                 json_object_set(json_get(meta, "environment"), "end", rb_env_collect(dev, 0)))) {
        json_free(meta);
        meta = NULL;
    }
    json_value *doc = rb_report_json(results, n, &ceilings, &peaks, meta);
    rb_outputs *outs = rb_outputs_new(o->through_links);
    if (!doc || !outs || !rb_is_hardware_key(key) ||
        rb_results_save(o, key, doc, results, n, outs) != 0)
        failing++;
    rb_outputs_free(outs);
    json_free(doc);
    if (failing)
        printf("exit 1: %d failed pair(s), invalid variant(s), or unwritten file(s)\n", failing);
    return failing ? EXIT_FAIL : EXIT_OK;
}

/* Everything after MPI_Init and the command line: 0..3, the same on every rank. */
static int run(const rb_options *o, int argc, char **argv, const rb_job *jobs, int n)
{
    char err[RB_PATH_BUF + 200];
    int rc = EXIT_OK;
    /* The results must be writable before any GPU work (as `roofbench run` checks). */
    rb_outputs *outs = rank_id == 0 ? rb_outputs_new(o->through_links) : NULL;
    if (rank_id == 0 &&
        (!outs || rb_results_check_outputs(o, NULL, NULL, outs, err, sizeof err) != 0)) {
        fprintf(stderr, "roofbench_mpi: %s\n", outs ? err : "out of memory");
        rc = EXIT_USAGE;
    }
    rb_outputs_free(outs);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != EXIT_OK)
        return rc;
    int mine = pick_gpu(err, sizeof err);
    /* every rank learns whether any rank has no GPU, so that all end the same way */
    MPI_Allreduce(&mine, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rc != EXIT_OK) {
        if (mine != EXIT_OK)
            fprintf(stderr, "roofbench_mpi: rank %d: %s\n", rank_id, err);
        return rc;
    }
    ncclComm_t nccl = init_nccl();
    rb_comm comm = {rank_id, ranks, nccl, mpi_barrier, mpi_max, mpi_sum};
    int dev = 0, version = 0;
    cudaGetDevice(&dev);
    ncclGetVersion(&version);
    json_value *env = rank_id == 0 ? rb_env_collect(dev, 0) : NULL;
    if (rank_id == 0 && !env)
        fprintf(stderr, "roofbench_mpi: cannot read the GPU's environment\n");
    rb_pair_result *results = calloc((size_t)n, sizeof *results);
    if (!results)
        die("out of memory");
    printf("roofbench_mpi %s: %d ranks, NCCL %d.%d.%d\n", rb_git_rev, ranks, version / 10000,
           version / 100 % 100, version % 100);
    for (int i = 0; i < n; i++) {
        printf("[%d/%d] %s: %llu %s\n", i + 1, n, jobs[i].name,
               (unsigned long long)jobs[i].size.n, jobs[i].pair->size_unit);
        run_job(&jobs[i], o, &comm, &results[i]);
    }
    rc = rank_id == 0 ? report(o, argc, argv, env, results, n) : EXIT_OK;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    json_free(env);
    free(results);
    ncclCommDestroy(nccl);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_id);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* rank 0 speaks for all; the others' progress (the same, by construction) is dropped */
    if (rank_id != 0 && !freopen("/dev/null", "w", stdout))
        fprintf(stderr, "roofbench_mpi: rank %d: cannot silence stdout\n", rank_id);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rb_options o;
    char err[600];
    static rb_job jobs[RB_MAX_JOBS];
    int n = 0, rc = parse_args(argc, argv, &o, err, sizeof err);
    if (rc == 0 && rb_jobs_select(&o, runs_across_ranks, jobs, &n, err, sizeof err) != 0) {
        rc = -1;
        char all_err[600], names[200] = "";
        for (int i = 0; rb_registry[i]; i++) {
            size_t len = strlen(names);
            if (runs_across_ranks(rb_registry[i]))
                rb_fmt(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                       rb_registry[i]->name);
        }
        /* the filter names pairs, but none that runs across processes: say so */
        if (rb_jobs_select(&o, NULL, jobs, &n, all_err, sizeof all_err) == 0)
            rb_fmt(err, sizeof err,
                   "--filter '%s' selects only pairs that run in one process (roofbench_mpi "
                   "runs the pairs with setup_rank: %s)",
                   o.filter, names);
    }
    if (rc != 0) {
        if (rank_id == 0 && rc > 0)
            fputs(mpi_usage, stdout);
        else if (rank_id == 0)
            fprintf(stderr, "roofbench_mpi: %s\n", err);
        MPI_Finalize();
        return rc > 0 ? EXIT_OK : EXIT_USAGE;
    }
    /* one rank: one GPU, whose sweep is roofbench's on one GPU (said by rank 0 only) */
    if ((n = rb_jobs_for_gpus(jobs, n, ranks)) == 0) {
        if (rank_id == 0)
            fprintf(stderr, "roofbench_mpi: every size selected is one a single rank leaves out\n");
        MPI_Finalize();
        return EXIT_USAGE;
    }
    rc = run(&o, argc, argv, jobs, n);
    MPI_Finalize();
    return rc;
}
