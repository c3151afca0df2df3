/* SPDX-License-Identifier: MIT */
/*
 * roofbench_mpi (built by `make MPI=1`): a fleet, one process per GPU on one machine or many,
 * started by mpirun or srun (docs/fleet.md):
 *
 *   mpirun -np 16 --map-by ppr:8:node build/sm_90/roofbench_mpi [--filter REGEX]
 *          [--size smoke|full|N] [--samples N] [--cap S] [--cold] [--seed N] [--nvtx]
 *          [--no-ceilings] [--gate all] [--json FILE] [--results-dir DIR]
 *
 * The options mean what they mean to `roofbench run` (parsed by the same code). Each rank:
 * 1. takes its GPU: its rank among the processes of its machine (MPI_COMM_TYPE_SHARED) mod the
 *    GPUs it sees, and goes by a host name (gethostname; RB_HOST_NAME or RB_HOST_NAME_BY_RANK
 *    let one machine pose as several nodes: model/fleet.h);
 * 2. runs its own GPU's run, as `roofbench run` would on that GPU (rank_run.h): the platform
 *    reference, then every selected pair that runs on one GPU, all ranks at once; then the pairs
 *    that need the host to themselves (rb_pair_scope: the host-shared ones, host transfers,
 *    streams, host launches; and pairs of several GPUs of one process) one rank of each
 *    machine at a time, the others waiting without spinning, so that no rank's PCIe or CPU
 *    figure carries another's traffic (pairs of several GPUs only on the first rank of each
 *    machine: they use its GPUs 0 and 1);
 * 3. runs the collectives (the pairs with setup_rank(): nccl_allreduce) across all ranks in
 *    step: rank 0 makes NCCL's unique id and broadcasts it, each rank makes its communicator with
 *    ncclCommInitRank, and every sample starts after a barrier and counts as the slowest rank's,
 *    so every rank takes the same samples of the same launches (measure.h); each rank also keeps
 *    its own median of each, from which the fleet names the slowest rank;
 * 4. sends its run document and its own collective times to rank 0 as JSON text (MPI_Gatherv).
 * Rank 0 writes ONE fleet results file (model/fleet.h: the node document of kind "fleet", per host
 * and GPU, with the outliers across the fleet and the slowest rank of each collective) and its
 * Markdown twin: --json FILE, else <results-dir>/<hardware key>/<UTC>-<git>.json.
 *
 * No child processes (forking after MPI_Init is not safe), so no watchdog (--timeout refused).
 * Each rank judges its GPU against expectations/<its hardware key>.json when that file exists
 * (--expect, --update-expectations refused: record a file with roofbench on one node). A pair
 * that fails on its own GPU is recorded failed, as roofbench would; a rank whose GPU is broken
 * after its own pairs makes every rank leave the collectives out; a collective that fails on
 * one rank leaves the others waiting in it, so it ends the job (MPI_Abort), with no results
 * file. Ranks other than 0 print errors only. Exit: 1 when a pair failed, a gating variant is
 * invalid or regressed on any rank, or a GPU is an outlier of the fleet (on a host-bound,
 * informational row only with --gate all: model/node.h).
 *
 * Test hook (tests/mpi_smoke.sh, no GPU): RB_TEST_SYNTHETIC_RUN=FILE makes each rank skip the
 * GPU and NCCL and contribute the run document in FILE ("%r": the rank number), placed as its
 * own GPU's (rb_fleet_synthetic); everything from the host names to the fleet file is the same.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes" /* nccl.h: ncclGroupStart() etc. */
#include <nccl.h>
#pragma GCC diagnostic pop

#include "model/cli.h"
#include "model/fleet.h"
#include "model/node.h"
#include "model/report.h"
#include "model/util.h"
#include "cmd.h"
#include "env.h"
#include "jobs.h"
#include "rank_run.h"
#include "report/table.h"
#include "results.h"

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

/* A barrier that waits without spinning (MPI's own polls a core at 100%): the ranks waiting
 * for their turn must leave the host's CPUs to the rank measuring a host-bound row. */
static void quiet_barrier(void)
{
    MPI_Request q;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &q);
    for (MPI_Test(&q, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&q, &done, MPI_STATUS_IGNORE))
        nanosleep(&(struct timespec){0, 1000000}, NULL);
}

/* The largest of every rank's code: all ranks end the same way. */
static int agree(int rc)
{
    int out = rc;
    MPI_Allreduce(&rc, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

/* ---- the command line ---- */

static const char mpi_usage[] =
    "usage: mpirun -np N roofbench_mpi [--filter REGEX] [--size smoke|full|N] [--samples N]\n"
    "                                  [--cap S] [--cold] [--seed N] [--nvtx] [--no-ceilings]\n"
    "                                  [--gate all] [--json FILE] [--results-dir DIR]\n"
    "A fleet: each rank runs the suite on its own GPU, the collectives run across all ranks,\n"
    "and rank 0 writes one fleet results file (docs/fleet.md). The options are run's\n"
    "(roofbench --help). RB_HOST_NAME_BY_RANK=a,a,b,b: one machine posing as several nodes.\n";

/* `roofbench run`'s options that need a child process, one machine or one run: refused. */
static const char *const mpi_refused[] = {
    "--timeout",  "--expect", "--expect-any-device", "--update-expectations", "--device",
    "--baseline", "--csv",    "--repeat",            "--fail-on-platform",    NULL};

static const char *refused_why(const char *opt)
{
    if (!strcmp(opt, "--timeout"))
        return "watchdog";
    if (!strcmp(opt, "--device"))
        return "device choice (each rank takes its own)";
    if (!strcmp(opt, "--baseline") || !strcmp(opt, "--fail-on-platform"))
        return "baseline (compare two fleet files' GPUs with roofbench compare)";
    if (!strcmp(opt, "--csv"))
        return "CSV table (the fleet file holds every rank's run)";
    return "expectation file to give or record (each rank reads its GPU's own)";
}

/* Parses argv as `roofbench run ARGS` would, refusing what roofbench_mpi cannot do. 0, 1 for
 * --help, or -1 with one line in err. */
static int parse_args(int argc, char **argv, rb_options *o, char *err, size_t err_size)
{
    for (int i = 1; i < argc; i++)
        for (int k = 0; mpi_refused[k]; k++)
            if (!strcmp(argv[i], mpi_refused[k])) {
                rb_fmt(err, err_size, "%s: roofbench_mpi has no %s (see --help)", argv[i],
                       refused_why(argv[i]));
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
    return rb_pair_ext_of(p)->setup_rank != NULL;
}

/* For the synthetic runs of the tests: a pair name of the registry's collectives. */
static int is_collective_name(const char *pair)
{
    for (int i = 0; rb_registry[i]; i++)
        if (!strcmp(rb_registry[i]->name, pair))
            return runs_across_ranks(rb_registry[i]);
    return 0;
}

/* ---- where each rank is ---- */

typedef struct rank_place {
    char host[RB_FLEET_HOST_MAX]; /* the name it goes by */
    int local;                    /* its place among the ranks of that name */
    int hosts;                    /* names in the fleet */
    int machine_local;            /* its place among the processes of its machine */
    int machine_size;             /* the processes of its machine */
    int machine_ranks;            /* the most processes any machine has */
} rank_place;

/* Names and places: every rank's name gathered to all. 0, or the exit code (said). */
static int place_rank(rank_place *p)
{
    char err[300] = "";
    int rc = rb_fleet_host_name(rank_id, ranks, p->host, sizeof p->host, err, sizeof err) != 0
                 ? EXIT_USAGE
                 : EXIT_OK;
    if (agree(rc) != EXIT_OK) {
        if (rank_id == 0 && rc != EXIT_OK)
            fprintf(stderr, "roofbench_mpi: %s\n", err);
        return EXIT_USAGE;
    }
    char *names = calloc((size_t)ranks, RB_FLEET_HOST_MAX);
    if (!names) {
        fprintf(stderr, "roofbench_mpi: rank %d: out of memory\n", rank_id);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
    }
    MPI_Allgather(p->host, RB_FLEET_HOST_MAX, MPI_CHAR, names, RB_FLEET_HOST_MAX, MPI_CHAR,
                  MPI_COMM_WORLD);
    p->local = rb_fleet_local_rank(names, ranks, rank_id, &p->hosts);
    free(names);
    MPI_Comm machine;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_id, MPI_INFO_NULL, &machine);
    MPI_Comm_rank(machine, &p->machine_local);
    MPI_Comm_size(machine, &p->machine_size);
    MPI_Comm_free(&machine);
    MPI_Allreduce(&p->machine_size, &p->machine_ranks, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return EXIT_OK;
}

/* This rank's GPU: its place among the processes of its machine, mod the GPUs it sees (the
 * machine's, not the posed host's: two posed nodes on one machine share its GPUs). */
static int pick_gpu(const rank_place *p, int *device, char *err, size_t err_size)
{
    int gpus = 0;
    if (rb_env_device_count(&gpus, err, err_size) != RB_OK)
        return EXIT_NO_GPU;
    *device = p->machine_local % gpus;
    /* two ranks on one GPU measure each other: said, once per machine */
    if (p->machine_local == 0 && p->machine_size > gpus)
        fprintf(stderr,
                "roofbench_mpi: warning: %d ranks on a machine of %d GPU(s): ranks share GPUs, "
                "and their figures each other's (one rank per GPU)\n",
                p->machine_size, gpus);
    if (cudaSetDevice(*device) != cudaSuccess) {
        rb_fmt(err, err_size, "cudaSetDevice(%d) failed", *device);
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

/* ---- this rank's run ---- */

/* Rank 0's progress line before a pair (the other ranks' stdout is silenced). */
static void say_pair(int i, int n, const rb_job *j, const char *how)
{
    printf("[%d/%d] %s: %llu %s%s\n", i, n, j->name, (unsigned long long)j->size.n,
           j->pair->size_unit, how);
}

static void say_done(const rb_pair_result *r)
{
    if (r->status == RB_PAIR_FAILED)
        printf("      FAILED: %s\n", r->reason);
    else if (r->status == RB_PAIR_SKIPPED)
        printf("      skipped: %s\n", r->reason);
    printf("      (%.1f s)\n", r->wall_s);
}

/* Does this rank run job j on its own GPU, and in which phase (1: with every rank at once; 2:
 * alone on its machine, in its turn)? 0: not its (a collective, or a pair of several GPUs that
 * the machine's first rank runs). */
static int own_phase(const rb_job *j, const rank_place *p)
{
    if (runs_across_ranks(j->pair))
        return 0;
    switch (rb_pair_scope(j->pair)) {
    case RB_SCOPE_LOCAL:
        return 1;
    case RB_SCOPE_SPAN: /* several GPUs of one process: the machine's, once */
        return p->machine_local == 0 ? 2 : 0;
    default:
        return 2;
    }
}

/* The rank's own pairs into results[0..): the one-GPU pairs on every rank at once, then those
 * that need the host, one rank of each machine at a time (each turn ends at a barrier that all
 * ranks reach). Returns how many, in job order. */
static int own_pairs(const rb_job *jobs, int n, const rb_options *o, const rank_place *p,
                     rb_pair_result *results)
{
    int mine = 0, done = 0, at[RB_MAX_JOBS];
    for (int i = 0; i < n; i++)
        at[i] = own_phase(&jobs[i], p) ? mine++ : -1;
    for (int phase = 1; phase <= 2; phase++)
        for (int turn = 0; turn < (phase == 1 ? 1 : p->machine_ranks); turn++) {
            if (phase == 2)
                quiet_barrier();
            if (phase == 2 && p->machine_local != turn)
                continue;
            for (int i = 0; i < n; i++) {
                if (at[i] < 0 || own_phase(&jobs[i], p) != phase)
                    continue;
                say_pair(++done, mine, &jobs[i], phase == 2 ? " (alone on its machine)" : "");
                rb_rank_pair(&jobs[i], o, NULL, &results[at[i]], NULL);
                say_done(&results[at[i]]);
            }
        }
    quiet_barrier();
    return mine;
}

/* The collectives across all ranks, into results[0..), this rank's own times into own. Returns
 * how many ran (0 when a rank's GPU failed during its own pairs: said by rank 0). */
static int collectives(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *results,
                       json_value *own)
{
    int count = 0, k = 0;
    for (int i = 0; i < n; i++)
        count += runs_across_ranks(jobs[i].pair);
    if (count == 0)
        return 0;
    /* a context an illegal address broke fails every later call: NCCL would hang the others */
    if (agree(cudaDeviceSynchronize() != cudaSuccess)) {
        printf("collectives left out: a rank's GPU failed during its own pairs\n");
        return 0;
    }
    ncclComm_t nccl = init_nccl();
    rb_comm comm = {rank_id, ranks, nccl, mpi_barrier, mpi_max, mpi_sum};
    int version = 0;
    ncclGetVersion(&version);
    printf("collectives: %d ranks, NCCL %d.%d.%d\n", ranks, version / 10000, version / 100 % 100,
           version % 100);
    for (int i = 0; i < n; i++) {
        if (!runs_across_ranks(jobs[i].pair))
            continue;
        say_pair(k + 1, count, &jobs[i], " (across all ranks)");
        if (rb_rank_pair(&jobs[i], o, &comm, &results[k], own) != 0) {
            rb_error_at(__FILE__, __LINE__, results[k].name,
                        results[k].reason[0] ? results[k].reason : "failed");
            die("a collective failed");
        }
        say_done(&results[k++]);
    }
    ncclCommDestroy(nccl);
    return k;
}

/* The pair records of the collectives, as a run document holds them (placed on the roofline
 * without an expectation file). NULL when out of memory. */
static json_value *collective_records(const char *key, rb_pair_result *results, int n)
{
    rb_roofs ceilings, peaks;
    rb_results_derive(NULL, key, results, n, &ceilings, &peaks);
    rb_expect_apply(NULL, results, n);
    json_value *doc = rb_report_json(results, n, &ceilings, &peaks, json_new_object());
    json_value *pairs = rb_results_pairs_copy(doc);
    json_free(doc);
    return pairs;
}

/* This rank's expectation file, expectations/<its GPU's key>.json, when it exists. 0 (loaded
 * or absent: *have), or EXIT_USAGE with the line said. */
static int load_expectations(const char *key, rb_expect *e, int *have, char *path, size_t size)
{
    char err[RB_PATH_BUF + 200];
    *have = 0;
    rb_fmt(path, size, "expectations/%s.json", key);
    if (!rb_is_hardware_key(key) || access(path, F_OK) != 0)
        return EXIT_OK;
    if (rb_expect_load(path, e, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench_mpi: rank %d: %s\n", rank_id, err);
        return EXIT_USAGE;
    }
    *have = 1;
    return EXIT_OK;
}

/* This rank's contribution from its GPU (see the top of the file): 0 with *out (NULL: out of
 * memory), or the exit code every rank agreed on (said). *failing: what makes its run fail. */
static int gpu_contribution(const rb_options *o, int argc, char **argv, const rank_place *p,
                            const rb_job *jobs, int n, json_value **out, int *failing)
{
    char err[RB_PATH_BUF + 200], path[RB_PATH_BUF], line[400];
    int device = 0, have = 0, mine = pick_gpu(p, &device, err, sizeof err), all = agree(mine);
    if (all != EXIT_OK) {
        if (mine != EXIT_OK)
            fprintf(stderr, "roofbench_mpi: rank %d: %s\n", rank_id, err);
        return all;
    }
    rb_expect e = {0};
    json_value *env = rb_env_collect(device, 1);
    /* the name the fleet groups by, whatever the environment record found, and the rank */
    if (env && (json_set_string(env, "host", p->host) || json_set_number(env, "rank", rank_id))) {
        json_free(env);
        env = NULL;
    }
    const char *key = json_string_at(env, "hardware_key", "unknown");
    mine = env ? load_expectations(key, &e, &have, path, sizeof path) : EXIT_NO_GPU;
    if (!env)
        fprintf(stderr, "roofbench_mpi: rank %d: cannot read the GPU's environment\n", rank_id);
    if ((all = agree(mine)) != EXIT_OK) {
        rb_expect_free(&e);
        json_free(env);
        return all;
    }
    printf("roofbench_mpi %s: %d ranks on %d host(s); rank 0 on %s GPU %d (%s), %s\n", rb_git_rev,
           ranks, p->hosts, p->host, device, json_string_at(env, "device", "?"),
           have ? path : "no expectation file: every verdict is 'new'");
    json_value *platform = rb_rank_platform(o, rb_jobs_platform_probes(jobs, n), line, sizeof line);
    printf("platform: %s\n", line);
    rb_pair_result *results = calloc((size_t)n, sizeof *results);
    json_value *own = json_new_array();
    if (!results || !own)
        die("out of memory");
    int n_own = own_pairs(jobs, n, o, p, results);
    int n_coll = collectives(jobs, n, o, results + n_own, own);
    json_value *doc = rb_rank_document(o, argc, argv, have ? &e : NULL, path, env,
                                       rb_env_collect(device, 1), platform, results, n_own,
                                       failing);
    json_value *coll = collective_records(key, results + n_own, n_coll);
    *failing += rb_expect_failing(results + n_own, n_coll, o->gate_all, o->fail_on_platform);
    *out = doc && coll ? rb_fleet_contribution(rank_id, doc, coll, own) : NULL;
    if (!*out) {
        json_free(doc);
        json_free(coll);
        json_free(own);
    }
    free(results);
    rb_expect_free(&e);
    json_free(env);
    return EXIT_OK;
}

/* The tests' contribution (RB_TEST_SYNTHETIC_RUN): 0, or EXIT_USAGE on every rank (said). */
static int synthetic_contribution(const char *path, const rank_place *p, json_value **out)
{
    char err[RB_PATH_BUF + 200];
    *out = rb_fleet_synthetic(path, rank_id, p->host, p->local, is_collective_name, err,
                              sizeof err);
    if (!*out)
        fprintf(stderr, "roofbench_mpi: rank %d: %s\n", rank_id, err);
    return agree(*out ? EXIT_OK : EXIT_USAGE);
}

/* ---- rank 0: the fleet ---- */

/* Every rank's contribution as JSON text, gathered to rank 0 (MPI_Gatherv) and parsed there
 * into contrib[0..ranks). 0, or -1 on rank 0 with the line said. Called by every rank. */
static int gather(const json_value *mine, json_value **contrib)
{
    char *text = mine ? json_write(mine, 0) : NULL;
    size_t len = text ? strlen(text) : 0;
    int n = len > 0 && len < INT_MAX ? (int)len : 0, ok = 1;
    int *lens = rank_id == 0 ? calloc((size_t)ranks, 2 * sizeof *lens) : NULL;
    int *at = lens ? lens + ranks : NULL;
    char *all = NULL;
    MPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank_id == 0) {
        long long total = 0;
        for (int r = 0; lens && r < ranks; r++) {
            ok &= lens[r] > 0;
            at[r] = (int)total;
            total += lens[r];
        }
        ok &= lens && total < INT_MAX && (all = malloc((size_t)total + 1)) != NULL;
        if (!ok)
            fprintf(stderr, "roofbench_mpi: a rank's results could not be sent (out of memory, "
                            "or above 2 GB in all)\n");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (ok)
        MPI_Gatherv(text, n, MPI_CHAR, all, lens, at, MPI_CHAR, 0, MPI_COMM_WORLD);
    for (int r = 0; ok && rank_id == 0 && r < ranks; r++) {
        char err[200];
        contrib[r] = json_parse(all + at[r], (size_t)lens[r], err, sizeof err);
        if (!contrib[r] || json_number_at(contrib[r], "rank") != r) {
            fprintf(stderr, "roofbench_mpi: rank %d's results: %s\n", r,
                    contrib[r] ? "another rank's" : err);
            ok = 0;
        }
    }
    free(all);
    free(lens);
    free(text);
    return ok ? 0 : -1;
}

/* The expectation file rank 0's GPU has, for a fleet of fewer than 3 GPUs (NULL: none). */
static json_value *fleet_expectation(const json_value *contrib0)
{
    char path[RB_PATH_BUF], err[RB_PATH_BUF + 200];
    const char *key = json_string_at(json_get(contrib0, "run"), "hardware_key", "");
    rb_fmt(path, sizeof path, "expectations/%s.json", key);
    if (!rb_is_hardware_key(key) || access(path, F_OK) != 0)
        return NULL;
    return json_parse_file(path, err, sizeof err);
}

/* Rank 0: the fleet file and its report. The exit code. */
static int fleet_report(const rb_options *o, json_value **contrib, int failing)
{
    char err[RB_PATH_BUF + 200];
    json_value *expect = fleet_expectation(contrib[0]);
    json_value *fleet = rb_fleet_build(contrib, ranks, expect, err, sizeof err);
    json_free(expect);
    if (fleet && rb_node_set_gate_all(fleet, o->gate_all) != 0) {
        json_free(fleet);
        fleet = NULL;
        rb_fmt(err, sizeof err, "out of memory");
    }
    if (!fleet) {
        fprintf(stderr, "roofbench_mpi: the fleet document: %s\n", err);
        return EXIT_FAIL;
    }
    printf("\n");
    rb_fleet_summary(stdout, fleet);
    int outliers = rb_node_outlier_count(fleet);
    if (rb_fleet_save(o, fleet, rb_git_rev, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench_mpi: %s; no file written\n", err);
        failing++;
    } else if (rb_cli_is_stdout(o->json_path)) { /* --json -: the fleet file on stdout too */
        rb_cmd_print_json_document(fleet);
        failing += rb_cmd_stdout_checked(EXIT_OK) != EXIT_OK;
    }
    json_free(fleet);
    if (failing || outliers)
        printf("exit 1: %d failed pair(s) or invalid or regressed variant(s) on the ranks, %d "
               "outlier(s), or an unwritten file\n",
               failing, outliers);
    return failing || outliers ? EXIT_FAIL : EXIT_OK;
}

/* Everything after MPI_Init and the command line: 0..3, the same on every rank. */
static int run(const rb_options *o, int argc, char **argv, const rb_job *jobs, int n)
{
    char err[RB_PATH_BUF + 200];
    int rc = EXIT_OK;
    /* --json -: rank 0's standard output holds the fleet file alone (the others' is dropped) */
    if (rank_id == 0 && rb_cli_writes_stdout(o) && rb_cmd_stdout_for_document() != 0)
        rc = EXIT_USAGE;
    /* The results must be writable before any GPU work (as `roofbench run` checks). */
    if (rc == EXIT_OK && rank_id == 0 && rb_fleet_check_outputs(o, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench_mpi: %s\n", err);
        rc = EXIT_USAGE;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    rank_place p;
    if (rc != EXIT_OK || (rc = place_rank(&p)) != EXIT_OK)
        return rc;
    json_value *mine = NULL;
    int failing = 0, total = 0;
    const char *synthetic = getenv("RB_TEST_SYNTHETIC_RUN");
    rc = synthetic && synthetic[0]
             ? synthetic_contribution(synthetic, &p, &mine)
             : gpu_contribution(o, argc, argv, &p, jobs, n, &mine, &failing);
    if (rc != EXIT_OK)
        return rc;
    json_value **contrib = rank_id == 0 ? calloc((size_t)ranks, sizeof *contrib) : NULL;
    if (rank_id == 0 && !contrib)
        die("out of memory");
    int gathered = gather(mine, contrib);
    json_free(mine);
    MPI_Reduce(&failing, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank_id == 0)
        rc = gathered == 0 ? fleet_report(o, contrib, total) : EXIT_FAIL;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; contrib && r < ranks; r++)
        json_free(contrib[r]);
    free(contrib);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_id);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* rank 0 speaks for all; the others' progress (their own pairs) is dropped */
    if (rank_id != 0 && !freopen("/dev/null", "w", stdout))
        fprintf(stderr, "roofbench_mpi: rank %d: cannot silence stdout\n", rank_id);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rb_options o;
    char err[600];
    static rb_job jobs[RB_MAX_JOBS];
    int n = 0, rc = parse_args(argc, argv, &o, err, sizeof err);
    if (rc == 0 && rb_jobs_select(&o, NULL, jobs, &n, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0)
        rb_table_set_wide(o.wide);
    if (rc != 0) {
        if (rank_id == 0 && rc > 0)
            fputs(mpi_usage, stdout);
        else if (rank_id == 0)
            fprintf(stderr, "roofbench_mpi: %s\n", err);
        MPI_Finalize();
        return rc > 0 ? EXIT_OK : EXIT_USAGE;
    }
    /* one rank: the collectives' one-GPU sweep, as roofbench's on one GPU (said by rank 0) */
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
