/* SPDX-License-Identifier: MIT */
/*
 * roofbench: the driver. Parses the command line, checks every input it can before touching a
 * GPU (so a usage or file error costs nothing and writes nothing), then runs each pair in its
 * own child process, judges the results against the expectation file and writes them.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ceilings.h"
#include "child.h"
#include "model/cli.h"
#include "report/docs.h"
#include "report/list_out.h"
#include "model/expect.h"
#include "model/expect_record.h"
#include "model/expect_stale.h"
#include "model/floors.h"
#include "model/history.h"
#include "model/node.h"
#include "model/outputs.h"
#include "report/plot.h"
#include "report/table.h"
#include "model/report.h"
#include "model/runcmp.h"
#include "model/text.h"
#include "model/util.h"
#include "env.h"
#include "expect_cmd.h"
#include "jobs.h"
#include "p2p_cmd.h"
#include "cmd_profile.h"
#include "pair.h"
#include "progress.h"
#include "node_run.h"
#include "results.h"
#include "runner.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_NO_GPU = 3 };

static int usage_error(const char *msg)
{
    /* messages quote paths and names from the command line and from files: shown, not obeyed */
    static char shown[4 * 4096];
    rb_text_for_terminal(msg, shown, sizeof shown);
    fprintf(stderr, "roofbench: %s\n", shown);
    return EXIT_USAGE;
}

/* Standard output was closed when the process started (main then holds its descriptor open on
 * /dev/null, so that no file this process opens takes it): what is printed there is lost. */
static int stdout_was_closed;
/* The failure of standard output was said already (by commit_after_stdout). */
static int stdout_failure_said;

/* Whether standard output took everything printed so far: flushed, no error, not closed. */
static int stdout_ok(void)
{
    return fflush(stdout) == 0 && !ferror(stdout) && !stdout_was_closed;
}

/* The outputs staged by a command that also prints a report (plot, compare, history) are renamed
 * into place only once the report is out: a standard output that cannot be written (a full
 * disk, a closed descriptor, a pipe closed early) is exit 2 with no file written. 0, or the exit
 * code. */
static int commit_after_stdout(rb_outputs *outs, int have_outputs)
{
    char err[RB_PATH_BUF + 300];
    if (!stdout_ok()) {
        fprintf(stderr, "roofbench: writing the standard output failed: %s: nothing written\n",
                stdout_was_closed ? "it is closed" : strerror(errno));
        stdout_failure_said = 1;
        return EXIT_USAGE;
    }
    if (have_outputs && rb_outputs_commit(outs, err, sizeof err) != 0)
        return usage_error(err);
    return EXIT_OK;
}

/* After SIGINT, SIGTERM or another caught signal (the runner ended the running child): one line,
 * exit 128 + signal,
 * as a shell reports a command a signal ended. Said once, however many callers return it. */
static int interrupted_exit(void)
{
    static int said;
    int sig = rb_runner_interrupted();
    if (!said++)
        fprintf(stderr,
                "roofbench: interrupted by %s: the running child was ended, no file "
                "was written\n",
                rb_runner_signal_name(sig));
    return 128 + sig;
}

/* ---- pair selection ---- */

/* "1024x1024, 2.14748 GFLOP, 0.0125829 GB" for one job. */
static void job_work(const rb_job *j, char *buf, size_t size)
{
    const rb_pair *p = j->pair;
    double flops = p->flops(&j->size), bytes = p->bytes(&j->size);
    const rb_pair_ext *e = rb_pair_ext_of(p);
    if (e->work)
        e->work(&j->size, j->input, &flops, &bytes);
    /* bytes in the unit that shows them: 8 B, not 8e-09 GB */
    double scale = bytes >= 1e9 ? 1e-9 : bytes >= 1e6 ? 1e-6 : bytes >= 1e3 ? 1e-3 : 1;
    const char *unit = bytes >= 1e9 ? "GB" : bytes >= 1e6 ? "MB" : bytes >= 1e3 ? "kB" : "B";
    if (j->size.rows > 1)
        rb_fmt(buf, size, "%llux%llu, %.6g GFLOP, %.6g %s", (unsigned long long)j->size.rows,
               (unsigned long long)j->size.cols, flops * 1e-9, bytes * scale, unit);
    else
        rb_fmt(buf, size, "%llu %s, %.6g GFLOP, %.6g %s", (unsigned long long)j->size.n,
               p->size_unit, flops * 1e-9, bytes * scale, unit);
}

/* The work of what a run at the selected size does with jobs[i]'s pair (its first input): one
 * size, or the first and last points of a sweep, each its own row group; lines onto d. */
static void list_work(rb_sbuf *d, const rb_job *jobs, int n, int i)
{
    const rb_pair *p = jobs[i].pair;
    int last = i;
    while (last + 1 < n && jobs[last + 1].pair == p && jobs[last + 1].input == jobs[i].input)
        last++;
    char first_work[300], last_work[300];
    job_work(&jobs[i], first_work, sizeof first_work);
    const char *link = rb_pair_ext_of(p)->link_bytes ? " over the link" : "";
    if (last == i) {
        rb_sbuf_add(d, "work: %s%s\n", first_work, link);
        return;
    }
    job_work(&jobs[last], last_work, sizeof last_work);
    int one_gpu = 0;
    const uint64_t *sweep_one_gpu = rb_pair_ext_of(p)->sweep_one_gpu;
    while (sweep_one_gpu && sweep_one_gpu[one_gpu])
        one_gpu++;
    char on_one[48] = "";
    if (one_gpu)
        rb_fmt(on_one, sizeof on_one, " (%d of them on one GPU)", one_gpu);
    rb_sbuf_add(d, "work: a sweep of %d sizes%s, each its own row, from %s%s\n", last - i + 1,
                on_one, first_work, link);
    rb_sbuf_add(d, "      to %s%s\n", last_work, link);
}

/* The variants a full run times at each of its rows below the full size (jobs[i..], the pair's
 * rows), where the pair names them; lines onto d. */
static void list_swept_variants(rb_sbuf *d, const rb_job *jobs, int n, int i)
{
    const rb_pair *p = jobs[i].pair;
    if (!rb_pair_ext_of(p)->swept_variants)
        return;
    int said = 0;
    for (int j = i; j < n && jobs[j].pair == p; j++) {
        if (!jobs[j].swept || jobs[j].size.n >= p->full_size)
            continue;
        char names[400] = "";
        for (int k = 0; k < p->n_variants; k++)
            if (!rb_pair_swept_skips(p, k, jobs[j].input, jobs[j].size.n, 1)) {
                size_t len = strlen(names);
                rb_fmt(names + len, sizeof names - len, "%s%s", names[0] ? ", " : "",
                       p->variants[k].name);
            }
        if (!said++)
            rb_sbuf_add(d, "below the full size (%s):\n", rb_pair_ext_of(p)->swept_why);
        rb_sbuf_add(d, "  %s times %s\n", jobs[j].name, names);
    }
}

/* One pair's row of list: its cells into the buffers, the lines under it into d. */
typedef struct list_cells {
    char cc[16], smoke[32], full[32], variants[400];
} list_cells;

static void list_row(const rb_job *jobs, int n, int i, list_cells *c, rb_sbuf *d)
{
    const rb_pair *p = jobs[i].pair;
    const rb_pair_ext *e = rb_pair_ext_of(p);
    rb_fmt(c->cc, sizeof c->cc, e->min_cc ? "%d.%d" : "any", e->min_cc / 10, e->min_cc % 10);
    c->variants[0] = '\0';
    for (int k = 0; k < p->n_variants; k++) {
        size_t len = strlen(c->variants);
        rb_fmt(c->variants + len, sizeof c->variants - len, "%s%s", k ? ", " : "",
               p->variants[k].name);
    }
    rb_fmt(c->smoke, sizeof c->smoke, "%llu", (unsigned long long)p->smoke_size);
    if (e->sweep && e->sweep[0])
        rb_fmt(c->full, sizeof c->full, "sweep");
    else
        rb_fmt(c->full, sizeof c->full, "%llu", (unsigned long long)p->full_size);
    rb_sbuf_add(d, "%s\n", p->pattern);
    list_work(d, jobs, n, i);
    if (p->n_inputs) {
        rb_sbuf_add(d, "inputs: ");
        for (int k = 0; k < p->n_inputs; k++)
            rb_sbuf_add(d, "%s%s", k ? ", " : "", p->inputs[k]);
        rb_sbuf_add(d, "\n");
    }
    list_swept_variants(d, jobs, n, i);
}

static int cmd_list(const rb_job *jobs, int n)
{
    rb_list_row *rows = calloc((size_t)(n > 0 ? n : 1), sizeof *rows);
    list_cells *cells = calloc((size_t)(n > 0 ? n : 1), sizeof *cells);
    int count = 0, oom = !rows || !cells;
    for (int i = 0; !oom && i < n; i++) {
        if (i > 0 && jobs[i - 1].pair == jobs[i].pair)
            continue;
        rb_sbuf d = {0};
        list_row(jobs, n, i, &cells[count], &d);
        const rb_pair *p = jobs[i].pair;
        rows[count] = (rb_list_row){p->name,          cells[count].cc,    cells[count].smoke,
                                    cells[count].full, p->size_unit,       cells[count].variants,
                                    rb_sbuf_take(&d)};
        oom |= !rows[count++].details;
    }
    if (!oom)
        rb_list_print(stdout, rows, count, rb_registry_missing);
    else
        fprintf(stderr, "roofbench: list: out of memory\n");
    for (int i = 0; i < count; i++)
        free((char *)rows[i].details);
    free(rows);
    free(cells);
    return oom ? EXIT_FAIL : EXIT_OK;
}

/* ---- children ---- */

/* What the probe child reports. */
typedef struct probe_state {
    json_value *env;
    char error[400];
    int no_device;
    int usage;          /* --device names a GPU that is not there */
    rb_gpu_check check; /* who else was on the GPU (when the probe looked: probe_looks) */
} probe_state;

static void on_probe_line(void *arg, const json_value *line)
{
    probe_state *s = arg;
    const json_value *type = json_get(line, "type"), *reason = json_get(line, "reason");
    if (!type || type->type != JSON_STRING)
        return;
    if (!strcmp(type->string, "env")) {
        json_free(s->env);
        s->env = json_clone(json_get(line, "env"));
    } else if (!strcmp(type->string, "gpu_check")) {
        char err[200];
        if (rb_gpu_check_from_json(line, &s->check, err, sizeof err) != 0)
            fprintf(stderr, "roofbench: the probe's look at the GPU: %s\n", err);
    } else if (!strcmp(type->string, "error")) {
        rb_fmt(s->error, sizeof s->error, "%s",
               reason && reason->type == JSON_STRING ? reason->string : "unknown error");
        s->no_device = json_true_at(line, "no_device");
        s->usage = json_true_at(line, "usage");
    }
}

/* The next probe looks at who else is on the GPU (a run's first: rb_child_probe's look). */
static int probe_looks;

static int probe_child(void *arg, int fd)
{
    return rb_child_probe(fd, *(const int *)arg, probe_looks);
}

/* --device N: the GPU the run uses, and whether the children see it alone yet (select_device). */
static int selected_device = -1, device_restricted;

/* Runs the probe: 0 with s->env set, or the exit code to end with (message printed). */
static int probe(probe_state *s, double timeout_s)
{
    char why[300];
    memset(s, 0, sizeof *s);
    rb_gpu_check_init(&s->check);
    /* once restricted, the selected GPU is device 0 of the children's */
    int device = device_restricted ? 0 : selected_device;
    int rc = rb_run_child(probe_child, &device, timeout_s, on_probe_line, s, why, sizeof why);
    if (rb_runner_interrupted()) {
        json_free(s->env);
        s->env = NULL;
        return interrupted_exit();
    }
    if (s->usage) {
        fprintf(stderr, "roofbench: %s\n", s->error);
        json_free(s->env);
        s->env = NULL;
        return EXIT_USAGE;
    }
    if (s->no_device || rc == EXIT_NO_GPU) {
        fprintf(stderr, "roofbench: %s\n", s->error[0] ? s->error : "no usable CUDA device");
        return EXIT_NO_GPU;
    }
    if (rc != 0 || !s->env) {
        fprintf(stderr, "roofbench: cannot read the GPU's environment: %s\n",
                s->error[0] ? s->error
                : why[0]    ? why
                            : "no report");
        return EXIT_NO_GPU;
    }
    if (device_restricted) /* the index is the user's, not the child's */
        json_set_number(s->env, "device_index", selected_device);
    return 0;
}

/* --device N, after the first probe named the GPU: every later child sees that GPU alone, as
 * its device 0 (CUDA_VISIBLE_DEVICES set to the N-th entry of the user's list, or N), so the
 * pairs, the ceilings and the clock readings need no device number of their own. The parent
 * never initialises CUDA, so setting the variable here reaches every child it forks. 0, or the
 * exit code (message printed). */
static int select_device(void)
{
    char pick[256];
    if (selected_device < 0 || device_restricted)
        return 0;
    if (rb_text_visible_pick(getenv("CUDA_VISIBLE_DEVICES"), selected_device, pick, sizeof pick) !=
            0 ||
        setenv("CUDA_VISIBLE_DEVICES", pick, 1) != 0) {
        fprintf(stderr, "roofbench: --device %d: CUDA_VISIBLE_DEVICES has no entry %d\n",
                selected_device, selected_device);
        return EXIT_USAGE;
    }
    device_restricted = 1;
    return 0;
}

/* On a machine with one GPU, a pair's sweep shrinks to its sweep_one_gpu sizes
 * (rb_jobs_for_gpus). Returns the jobs kept; 0 when none is left. */
static int keep_one_gpu_sizes(rb_job *jobs, int n, const json_value *env)
{
    const json_value *count = json_get(env, "device_count");
    return rb_jobs_for_gpus(jobs, n, count && count->type == JSON_NUMBER ? (int)count->number : 0);
}

static const char *env_str(const json_value *env, const char *key)
{
    const json_value *x = json_get(env, key);
    return x && x->type == JSON_STRING ? x->string : "?";
}

typedef struct pair_job {
    const rb_pair *pair;
    const char *name;
    rb_child_opts opts;
    rb_pair_result *result;
    char error[300];
} pair_job;

static int pair_child(void *arg, int fd)
{
    pair_job *j = arg;
    return rb_child_pair(j->pair, &j->opts, fd);
}

static void on_pair_line(void *arg, const json_value *line)
{
    pair_job *j = arg;
    rb_results_line(j->result, line);
}

/* The pairs' children, one after the other, with the progress on stderr (progress.h; the
 * estimate from expected_s[i], pair i's recorded wall time, NaN or a NULL array when none). */
static void run_pairs(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *results,
                      const double *expected_s)
{
    double actual_s[RB_MAX_JOBS] = {0};
    rb_progress_start(n, expected_s);
    for (int i = 0; i < n; i++) {
        const rb_pair *p = jobs[i].pair;
        rb_pair_result *r = &results[i];
        rb_results_begin(r, &jobs[i]);
        pair_job job = {.pair = p, .name = jobs[i].name, .result = r};
        rb_results_child_opts(&jobs[i], o, &job.opts);
        rb_progress_hide();
        if (r->rows > 1)
            printf("[%d/%d] %s: %llu x %llu %s\n", i + 1, n, jobs[i].name,
                   (unsigned long long)r->rows, (unsigned long long)r->cols, p->size_unit);
        else
            printf("[%d/%d] %s: %llu %s\n", i + 1, n, jobs[i].name, (unsigned long long)r->size,
                   p->size_unit);
        fflush(stdout);
        rb_progress_pair(i, jobs[i].name, actual_s);
        double t0 = rb_now_s();
        char why[300];
        int rc = rb_run_child(pair_child, &job, o->timeout_s, on_pair_line, &job, why, sizeof why);
        r->wall_s = actual_s[i] = rb_now_s() - t0;
        rb_progress_hide();
        if (rb_runner_interrupted())
            break;
        if (rc != 0 && r->status != RB_PAIR_FAILED) {
            r->status = RB_PAIR_FAILED;
            if (rc < 0)
                rb_fmt(r->reason, sizeof r->reason, "%s", why);
            else
                rb_fmt(r->reason, sizeof r->reason, "child exited with status %d", rc);
        }
        if (r->status == RB_PAIR_FAILED)
            printf("      FAILED: %s\n", r->reason);
        else if (r->status == RB_PAIR_SKIPPED)
            printf("      skipped: %s\n", r->reason);
        if (isfinite(r->setup_s))
            printf("      (%.1f s, of which setup %.1f s)\n", r->wall_s, r->setup_s);
        else
            printf("      (%.1f s)\n", r->wall_s);
        fflush(stdout);
    }
    rb_progress_end();
}

/* ---- check ---- */

static int cmd_check(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *results)
{
    run_pairs(jobs, n, o, results, NULL);
    if (rb_runner_interrupted())
        return interrupted_exit();
    int bad = 0;
    printf("\n%-18s %-12s %12s %12s %10s  %s\n", "pair", "variant", "err before", "err after",
           "tolerance", "result");
    for (int i = 0; i < n; i++) {
        const rb_pair_result *r = &results[i];
        if (r->status == RB_PAIR_SKIPPED) {
            printf("%-18s skipped: %s\n", r->name, r->reason);
            continue;
        }
        bad += r->status == RB_PAIR_FAILED || r->n_variants != jobs[i].pair->n_variants;
        for (int k = 0; k < r->n_variants; k++) {
            const rb_variant_result *v = &r->v[k];
            bad += !v->valid && !v->skipped;
            printf("%-18s %-12s %12.3g %12.3g %10.3g  %s\n", k ? "" : r->name, v->name,
                   v->rel_err_before, v->rel_err_after, v->tolerance,
                   v->skipped ? v->note
                   : v->valid ? "ok"
                              : "INVALID");
        }
        if (r->status == RB_PAIR_FAILED)
            printf("%-18s FAILED: %s\n", r->name, r->reason);
    }
    printf("%s\n", bad ? "check FAILED" : "check passed");
    return bad ? EXIT_FAIL : EXIT_OK;
}

/* ---- run ---- */

static json_value *provenance(const rb_options *o, const json_value *env)
{
    char date[32];
    rb_utc_iso(date, sizeof date);
    json_value *p = json_new_object();
    if (!p || json_set_string(p, "git", rb_git_rev) ||
        json_set_string(p, "driver", env_str(env, "driver")) ||
        json_set_string(p, "cuda", env_str(env, "cuda_runtime")) ||
        json_set_string(p, "date", date) ||
        json_set_string(p, "size", o->size_kind == RB_SIZE_FULL ? "full" : "custom")) {
        json_free(p);
        return NULL;
    }
    return p;
}

/* What run --update-expectations records of itself: provenance, the build's nvcc release and
 * architecture (which decide the kernels' machine code: model/expect_check.h), one machine (its
 * GPU's UUID) and the runs. NULL when out of memory. */
static json_value *recording_provenance(const rb_options *o, const json_value *env, int repeat)
{
    json_value *p = provenance(o, env);
    const char *uuid = env_str(env, "uuid");
    if (p && rb_expect_provenance_add(p, rb_build_nvcc, rb_build_arch, 1, repeat, &uuid,
                                      strcmp(uuid, "?") ? 1 : 0) != 0) {
        json_free(p);
        return NULL;
    }
    return p;
}

static json_value *hardware(const json_value *env)
{
    json_value *h = json_new_object();
    const json_value *sms = json_get(env, "sms");
    if (!h || json_set_string(h, "name", env_str(env, "device")) ||
        json_set_string(h, "sm", env_str(env, "cc")) ||
        json_set_number(h, "sms", sms && sms->type == JSON_NUMBER ? sms->number : NAN)) {
        json_free(h);
        return NULL;
    }
    return h;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* An expectation file of another GPU model is refused unless --expect-any-device: 0, or the
 * exit code with the line printed. */
static int check_expect_device(const rb_options *o, const rb_expect *e, const char *path,
                               const json_value *env)
{
    char err[400];
    if (o->expect_any_device ||
        rb_expect_same_device(e->doc, env_str(env, "device"), err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "roofbench: %s: %s\n", path, err);
    return EXIT_USAGE;
}

/* What the run can check before touching a GPU: the expectation file, and that every file it
 * will write can be written (a full GPU run must not end with its results lost), none of them
 * an input or another output. The inputs go into outs. 0, or the line printed and the exit
 * code. */
static int run_prechecks(const rb_options *o, rb_expect *expect, int *have_expect, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 200];
    if (o->expect_path && !o->expect_none &&
        !(o->update_expectations && !file_exists(o->expect_path))) {
        if (rb_expect_load(o->expect_path, expect, err, sizeof err) != 0)
            return usage_error(err);
        *have_expect = 1;
    }
    if (o->expect_path && !o->expect_none)
        rb_outputs_input(outs, o->expect_path, "--expect", o->update_expectations);
    if (o->baseline_path)
        rb_outputs_input(outs, o->baseline_path, "--baseline", 0);
    const char *expect_out = o->update_expectations ? o->expect_path : NULL;
    int bad = rb_results_check_outputs(o, NULL, expect_out, outs, err, sizeof err);
    if (!bad && o->update_expectations && !o->expect_path)
        bad = rb_dir_writable("expectations", err, sizeof err);
    if (bad) {
        rb_expect_free(expect);
        *have_expect = 0;
        return usage_error(err);
    }
    return 0;
}

/* Once the GPU is known: its hardware key names the default paths (a slug, checked before it
 * does), and every file the run will write is checked under its real name before any pair
 * runs. 0, or the line printed and the exit code. */
static int run_paths_ok(const rb_options *o, const char *key, const char *expect_path,
                        rb_outputs *outs)
{
    char err[RB_PATH_BUF + 200];
    if (!rb_is_hardware_key(key)) {
        char shown[200];
        rb_text_for_terminal(key, shown, sizeof shown);
        rb_fmt(err, sizeof err, "the GPU's hardware key '%s' is not a hardware key", shown);
        return usage_error(err);
    }
    if (!o->expect_path && file_exists(expect_path))
        rb_outputs_input(outs, expect_path, "the expectation file", o->update_expectations);
    if (rb_results_check_outputs(o, key, o->update_expectations ? expect_path : NULL, outs, err,
                                 sizeof err) != 0)
        return usage_error(err);
    return 0;
}

/* Says which variants recording left out (rb_expect_dropped), so a removed or renamed variant
 * leaves the file visibly, not silently. */
static void report_dropped(const rb_pair_result *results, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; results[i].status == RB_PAIR_OK && k < results[i].n_variants; k++) {
            const rb_variant_result *v = &results[i].v[k];
            if (rb_expect_dropped(v))
                printf("expectations: %s/%s %s\n", results[i].name, v->name,
                       v->verdict == RB_VERDICT_MISSING
                           ? "dropped: the run no longer produces it (removed or renamed)"
                           : "not recorded: skipped on this machine");
        }
}

static json_value *platform_reference(const rb_options *o, const rb_job *jobs, int n, int *rc);

/* The sanity bound on every row's energy (core/energy.h): the power limit NVML reports, and
 * nine tenths of the idle power the probe read (the environment's energy_counter: a few of its
 * updates, a few watts either way). */
static void bound_energy(rb_pair_result *results, int n, const json_value *env)
{
    double limit_w = json_number_at(env, "power_limit_w");
    double idle_w = 0.9 * json_number_at(json_get(env, "energy_counter"), "idle_w");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < results[i].n_variants; k++)
            rb_energy_bound(&results[i].v[k].energy, idle_w, limit_w);
}

/* run --baseline: this run's document against the baseline's, printed; the number of variants
 * that make it fail (rb_runcmp_failing), 1 when the comparison could not be made. */
static int compare_with_baseline(const json_value *baseline, const json_value *doc,
                                 const json_value *expect, const rb_options *o)
{
    rb_runcmp c;
    char err[300];
    if (rb_runcmp_build_expect(baseline, doc, expect, &c, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: --baseline: %s\n", err);
        return 1;
    }
    c.gate_all = o->gate_all;
    printf("\n");
    rb_runcmp_print(stdout, &c, o->baseline_path, "(this run)");
    int failing = rb_runcmp_failing(&c, o->fail_on_platform);
    int contended = rb_runcmp_contended(&c);
    if (failing)
        rb_table_say(stdout, "baseline: %d variant(s) slower than in %s for a cause other than the machine (platform, clock)%s",
               failing, o->baseline_path, o->fail_on_platform ? " (or for any cause)" : "");
    if (contended)
        rb_table_say(stdout, "baseline: of which %d contended: timed on a shared GPU, not a code regression",
               contended);
    rb_runcmp_free(&c);
    return failing;
}

/* run --update-expectations --repeat N: the first N - 1 runs of the pairs, into earlier[r * n
 * .. r * n + n). 0, or the exit code (interrupted). */
static int run_earlier(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *earlier,
                       const double *expected_s)
{
    int repeat = (int)o->repeat;
    for (int r = 0; r + 1 < repeat; r++) {
        printf("== run %d of %d (--repeat: the spread of each variant's medians over the runs "
               "sets its regression threshold)\n",
               r + 1, repeat);
        run_pairs(jobs, n, o, earlier + (size_t)r * n, expected_s);
        if (rb_runner_interrupted())
            return interrupted_exit();
    }
    if (repeat > 1)
        printf("== run %d of %d: judged and written\n", repeat, repeat);
    return 0;
}

/* run --update-expectations: the expectation file as it is now (locked, so that two runs
 * recording at once do not lose each other's pairs), updated from this run and staged in outs,
 * to be written with the results. 0 with *doc (the caller frees) and *lock_fd held (the caller
 * unlocks after the commit); 1 with the line printed: not recorded, the results still are. */
static int stage_expectations(const rb_options *o, const char *expect_path, const char *key,
                              const rb_pair_result *results, int n, const rb_pair_result *earlier,
                              int repeat, const json_value *platform, const json_value *env,
                              rb_outputs *outs, int *lock_fd, json_value **doc)
{
    char err[RB_PATH_BUF + 2200] = "";
    const rb_pair_result *runs[RB_EXPECT_MAX_REPEAT];
    for (int r = 0; r + 1 < repeat; r++)
        runs[r] = earlier + (size_t)r * n;
    json_value *d = NULL;
    char *text = NULL;
    int k = -1, rc = rb_expect_lock_and_load(expect_path, lock_fd, &d, err, sizeof err);
    if (rc == 0)
        rc = rb_expect_update_runs(&d, results, n, runs, repeat - 1, platform, hardware(env),
                                   rb_datasheet_peaks(key), recording_provenance(o, env, repeat),
                                   err, sizeof err);
    if (rc == 0)
        rc = rb_expect_validate(d, err, sizeof err);
    if (rc == 0 && (!(text = json_write(d, 2)) ||
                    (k = rb_outputs_add(outs, expect_path, "the expectation file",
                                        RB_OUT_MAKE_DIRS | RB_OUT_REPLACES_INPUT)) < 0)) {
        rb_fmt(err, sizeof err, "%s: out of memory", expect_path);
        rc = -1;
    }
    if (rc == 0)
        rc = rb_outputs_stage_text(outs, k, text, err, sizeof err);
    free(text);
    if (rc == 0) {
        *doc = d;
        return 0;
    }
    fprintf(stderr, "roofbench: %s\n", err);
    if (k >= 0)
        rb_outputs_drop_from(outs, k);
    rb_unlock(*lock_fd);
    *lock_fd = -1;
    json_free(d);
    return 1;
}

static int run_body(rb_job *jobs, int n, const rb_options *o, int argc, char **argv,
                    rb_pair_result *results, const json_value *baseline, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 200];
    rb_expect expect = {0};
    int have_expect = 0;
    /* Everything that can be checked without a GPU is checked first. */
    int rc = run_prechecks(o, &expect, &have_expect, outs);
    if (rc != 0)
        return rc;

    probe_state ps;
    probe_looks = 1; /* who else is on the GPU before the run: the first probe looks */
    rc = probe(&ps, o->timeout_s);
    probe_looks = 0;
    if (rc == 0 && (rc = select_device()) != 0)
        json_free(ps.env);
    if (rc != 0) {
        rb_expect_free(&expect);
        return rc;
    }
    if ((n = keep_one_gpu_sizes(jobs, n, ps.env)) == 0) {
        rb_expect_free(&expect);
        json_free(ps.env);
        return usage_error("every size selected is one a one-GPU machine leaves out");
    }
    const char *key = env_str(ps.env, "hardware_key");
    char expect_path[RB_PATH_BUF];
    rb_fmt(expect_path, sizeof expect_path, "%s", o->expect_path ? o->expect_path : "");
    if (!o->expect_path && rb_is_hardware_key(key))
        rb_fmt(expect_path, sizeof expect_path, "expectations/%s.json", key);
    if ((rc = run_paths_ok(o, key, expect_path, outs)) != 0) {
        rb_expect_free(&expect);
        json_free(ps.env);
        return rc;
    }
    if (!o->expect_path) {
        if (file_exists(expect_path)) {
            if (rb_expect_load(expect_path, &expect, err, sizeof err) != 0) {
                json_free(ps.env);
                return usage_error(err);
            }
            have_expect = 1;
        }
    }
    if (have_expect && (rc = check_expect_device(o, &expect, expect_path, ps.env)) != 0) {
        rb_expect_free(&expect);
        json_free(ps.env);
        return rc;
    }
    printf("roofbench %s on %s (compute capability %s), driver %s, CUDA runtime %s\n", rb_git_rev,
           env_str(ps.env, "device"), env_str(ps.env, "cc"), env_str(ps.env, "driver"),
           env_str(ps.env, "cuda_runtime"));
    if (rb_contention_any(&ps.check.seen)) {
        char who[400];
        rb_contention_text(&ps.check.seen, who, sizeof who);
        printf("contended: %s on the GPU before the run: every row timed while it is there says "
               "contended\n",
               who);
    }
    if (!have_expect && !o->expect_none)
        printf("no expectation file %s: every verdict is 'new'. Record one with:\n"
               "  build/<arch>/roofbench ceilings && build/<arch>/roofbench run "
               "--update-expectations\n",
               expect_path);

    json_value *platform = platform_reference(o, jobs, n, &rc);
    if (rc != 0) {
        rb_expect_free(&expect);
        json_free(ps.env);
        return rc;
    }

    int repeat = o->update_expectations && o->repeat > 1 ? (int)o->repeat : 1;
    rb_pair_result *earlier =
        repeat > 1 ? calloc((size_t)(repeat - 1) * (size_t)n, sizeof *earlier) : NULL;
    if (repeat > 1 && !earlier) {
        fprintf(stderr, "roofbench: out of memory for %d runs of %d pairs\n", repeat, n);
        json_free(platform);
        rb_expect_free(&expect);
        json_free(ps.env);
        return EXIT_FAIL;
    }
    static double expected_s[RB_MAX_JOBS];
    for (int i = 0; i < n; i++)
        expected_s[i] = have_expect ? rb_expect_wall_s(&expect, jobs[i].name) : NAN;
    if ((rc = run_earlier(jobs, n, o, earlier, expected_s)) != 0) {
        free(earlier);
        json_free(platform);
        rb_expect_free(&expect);
        json_free(ps.env);
        return rc;
    }
    run_pairs(jobs, n, o, results, expected_s);
    bound_energy(results, n, ps.env);

    probe_state end;
    json_value *env_end =
        rb_runner_interrupted() || probe(&end, o->timeout_s) != 0 ? NULL : end.env;
    if (rb_runner_interrupted()) {
        free(earlier);
        json_free(env_end);
        json_free(platform);
        rb_expect_free(&expect);
        json_free(ps.env);
        return interrupted_exit();
    }

    rb_roofs ceilings, peaks;
    rb_results_derive(have_expect ? &expect : NULL, key, results, n, &ceilings, &peaks);
    rb_expect_apply(have_expect ? &expect : NULL, results, n);
    int failing = rb_expect_failing(results, n, o->gate_all);
    rb_contention shared, before;
    int contended = rb_report_contention(&ps.check, results, n, &shared, NULL, 0);
    for (int r = 0; r + 1 < repeat; r++) { /* --repeat's earlier runs share the verdict */
        contended |= rb_report_contention(NULL, earlier + (size_t)r * n, n, &before, NULL, 0);
        rb_contention_merge(&shared, &before);
    }

    json_value *meta =
        rb_results_meta("roofbench", o, argc, argv, ps.env, have_expect ? expect_path : NULL);
    /* the expectations keep a copy of the platform reference they were recorded with */
    json_value *recorded_platform =
        o->update_expectations && platform ? json_clone(platform) : NULL;
    if (meta) {
        json_object_set(json_get(meta, "environment"), "end", env_end);
        /* NULL (out of memory) leaves the file without a platform: an old file's shape */
        if (platform)
            json_object_set(meta, "platform", platform);
        json_value *shared_json = rb_report_contention_json(&ps.check, results, n);
        if (shared_json)
            json_object_set(meta, "contention", shared_json);
    } else {
        json_free(env_end);
        json_free(platform);
    }
    json_value *doc = rb_report_json(results, n, &ceilings, &peaks, meta);
    if (doc)
        rb_runcmp_attribute_verdicts(have_expect ? expect.doc : NULL, doc, results, n);
    printf("\n");
    rb_report_table(stdout, results, n, o->wide);
    rb_report_summary(stdout, results, n);
    rb_report_energy_and_contention(stdout, &ps.check, results, n);
    int lock_fd = -1;
    json_value *recorded = NULL;
    if (o->update_expectations && contended) {
        char who[400];
        rb_contention_text(&shared, who, sizeof who);
        fprintf(stderr,
                "roofbench: not recording expectations: the GPU was shared while the run "
                "measured (%s): %s left as it was; record again on an idle GPU\n",
                who, expect_path);
    } else if (o->update_expectations) {
        failing += stage_expectations(o, expect_path, key, results, n, earlier, repeat,
                                      recorded_platform, ps.env, outs, &lock_fd, &recorded);
    }
    /* every file of the run at once: the results, their twins, the CSV, the expectations */
    if (!doc || rb_results_save(o, key, doc, results, n, outs) != 0) {
        failing++;
    } else if (recorded) {
        report_dropped(results, n);
        if (have_expect)
            rb_expect_say_cleared(stdout, expect.doc, results, n);
        printf("expectations: %s updated from %d run(s); the regression thresholds:\n", expect_path,
               repeat);
        rb_expect_print_thresholds(stdout, recorded, results, n);
    }
    rb_unlock(lock_fd);
    json_free(recorded);
    if (doc && baseline)
        failing += compare_with_baseline(baseline, doc, have_expect ? expect.doc : NULL, o);
    json_free(doc);
    json_free(recorded_platform);
    free(earlier);
    rb_expect_free(&expect);
    json_free(ps.env);
    if (contended) {
        char who[400];
        rb_contention_text(&shared, who, sizeof who);
        printf("exit 1: contended: %s used the GPU while the run measured; its times cannot be "
               "trusted\n",
               who);
    }
    int contended_rows = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < results[i].n_variants; k++)
            contended_rows += results[i].v[k].verdict == RB_VERDICT_CONTENDED;
    if (failing > contended_rows)
        printf("exit 1: %d failed pair(s), invalid or regressed variant(s), or unwritten "
               "file(s)\n",
               failing - contended_rows);
    return failing || contended ? EXIT_FAIL : EXIT_OK;
}

static int cmd_run(rb_job *jobs, int n, const rb_options *o, int argc, char **argv,
                   rb_pair_result *results, const json_value *baseline)
{
    rb_outputs *outs = rb_outputs_new(o->through_links);
    if (!outs)
        return usage_error("out of memory");
    int rc = run_body(jobs, n, o, argc, argv, results, baseline, outs);
    rb_outputs_free(outs);
    return rc;
}

/* ---- ceilings ---- */

/* What the ceilings child reports: each roof as it is measured (printed at once: a full
 * measurement takes up to a minute), or skipped, or an error. */
typedef struct ceilings_state {
    json_value *values, *methods;
    int measured;
    int quiet; /* a run's platform reference: one line at the end, not one per roof */
    char error[400];
} ceilings_state;

static void print_roof(const json_value *line)
{
    const char *key = json_get(line, "key")->string, *unit = rb_ceiling_unit(key);
    const json_value *m = json_get(line, "method"), *clock = json_get(m, "sm_clock_mhz");
    const json_value *power = json_get(m, "power_w");
    double v = json_get(line, "value")->number;
    char extra[80] = "";
    if (clock && power)
        rb_fmt(extra, sizeof extra, ", %.0f MHz, %.0f W", clock->number, power->number);
    else if (clock)
        rb_fmt(extra, sizeof extra, ", %.0f MHz", clock->number);
    printf("  %-17s %10.*f %-8s %s (%.0f samples, noise %.1f%%%s)\n", key,
           !strcmp(unit, "GB/s") ? 1
           : !strcmp(unit, "us") ? 3
                                 : 2,
           v, unit, json_get(m, "size")->string, json_get(m, "samples")->number,
           100 * json_get(m, "noise")->number, extra);
    fflush(stdout);
}

static void on_ceilings_line(void *arg, const json_value *line)
{
    ceilings_state *s = arg;
    const json_value *type = json_get(line, "type"), *key = json_get(line, "key");
    const json_value *reason = json_get(line, "reason");
    char err[300];
    if (!type || type->type != JSON_STRING)
        return;
    if (!strcmp(type->string, "ceiling")) {
        if (rb_ceiling_record_check(line, err, sizeof err) != 0) {
            if (!s->error[0])
                rb_fmt(s->error, sizeof s->error, "a malformed report: %s", err);
            return;
        }
        if (json_set_number(s->values, key->string, json_get(line, "value")->number) ||
            json_object_set(s->methods, key->string, json_clone(json_get(line, "method")))) {
            rb_fmt(s->error, sizeof s->error, "out of memory");
            return;
        }
        s->measured++;
        if (!s->quiet)
            print_roof(line);
    } else if (!strcmp(type->string, "ceiling_skip") && !s->quiet) {
        printf("  %-17s skipped: %s\n", key && key->type == JSON_STRING ? key->string : "?",
               reason && reason->type == JSON_STRING ? reason->string : "no reason given");
        fflush(stdout);
    } else if (!strcmp(type->string, "error")) {
        rb_fmt(s->error, sizeof s->error, "%s",
               reason && reason->type == JSON_STRING ? reason->string : "unknown error");
    }
}

/* What the ceilings child measures: a mode, and with RB_CEILINGS_QUICK the probes beside the
 * quick three (ceilings.h). */
typedef struct ceilings_ask {
    rb_ceilings_mode mode;
    unsigned probes;
} ceilings_ask;

static int ceilings_child(void *arg, int fd)
{
    const ceilings_ask *ask = arg;
    return rb_ceilings_child(fd, ask->mode, ask->probes);
}

/* Runs the ceilings child (mode: which roofs; probes: the quick mode's others; quiet: no line
 * per roof): 0 with s->values and s->methods filled; -2 when interrupted; else -1 with why
 * filled. */
static int ceilings_child_run(const rb_options *o, rb_ceilings_mode mode, unsigned probes,
                              int quiet, ceilings_state *s, char *why, size_t why_size)
{
    memset(s, 0, sizeof *s);
    s->quiet = quiet;
    s->values = json_new_object();
    s->methods = json_new_object();
    if (!s->values || !s->methods) {
        rb_fmt(why, why_size, "out of memory");
        return -1;
    }
    ceilings_ask ask = {mode, probes};
    int rc = rb_run_child(ceilings_child, &ask, o->timeout_s, on_ceilings_line, s, why, why_size);
    if (rb_runner_interrupted())
        return -2;
    if (rc != 0 || s->error[0] || s->measured == 0) {
        if (s->error[0])
            rb_fmt(why, why_size, "%s", s->error);
        else if (!why[0])
            rb_fmt(why, why_size, "the measurement reported nothing");
        return -1;
    }
    return 0;
}

/* Runs the ceilings child: 0 with s->values and s->methods filled, or the exit code to end
 * with (message printed). */
static int measure_ceilings(const rb_options *o, ceilings_state *s)
{
    char why[400] = "";
    rb_ceilings_mode mode = o->quick   ? RB_CEILINGS_QUICK
                            : o->links ? RB_CEILINGS_LINKS
                                       : RB_CEILINGS_FULL;
    int rc = ceilings_child_run(o, mode, 0, 0, s, why, sizeof why);
    if (rc == -2)
        return interrupted_exit();
    if (rc != 0) {
        fprintf(stderr, "roofbench: ceilings: %s; nothing written\n", why);
        return EXIT_FAIL;
    }
    return 0;
}

/* A run's platform reference: the quick ceilings (DRAM copy, FP32, launch; ~1.5 s
 * in the child on an H100, plus its CUDA context) and the probes of the roofs the jobs' rows are
 * placed on (rb_jobs_platform_probes: DRAM read or write, L2, PCIe; a fraction of a second
 * each), measured before the pairs, so that a comparison of two runs can tell a machine that
 * moved from a kernel that did. One line printed. A measurement that fails is recorded as not
 * measured, with the reason, and the run goes on: the pairs' own numbers do not depend on it.
 * NULL when interrupted (*rc set) or out of memory. */
static json_value *platform_reference(const rb_options *o, const rb_job *jobs, int n, int *rc)
{
    char why[400] = "", line[400];
    *rc = 0;
    if (o->no_ceilings) {
        printf("platform: not measured (--no-ceilings)\n");
        return rb_platform_json(NULL, NULL, NULL);
    }
    ceilings_state s;
    double t0 = rb_now_s();
    int st = ceilings_child_run(o, RB_CEILINGS_QUICK, rb_jobs_platform_probes(jobs, n), 1, &s, why,
                                sizeof why);
    json_value *platform = NULL;
    if (st == -2) {
        *rc = interrupted_exit();
    } else if (st != 0) {
        fprintf(stderr, "roofbench: platform reference not measured: %s\n", why);
        platform = rb_platform_json(NULL, NULL, why);
    } else {
        platform = rb_platform_json(s.values, s.methods, NULL);
        rb_platform_text(platform, line, sizeof line);
        printf("platform: %s (%.1f s)\n", line, rb_now_s() - t0);
    }
    json_free(s.values);
    json_free(s.methods);
    return platform;
}

/* The expectation file to write the ceilings into: the one there (loaded and checked for this
 * GPU), or a new one with the datasheet peaks. 0, or the exit code (message printed). */
static int ceilings_doc(const rb_options *o, const json_value *env, const char *path,
                        json_value **doc)
{
    char err[RB_PATH_BUF + 200];
    rb_expect e = {0};
    int rc;
    *doc = NULL;
    if (file_exists(path) && rb_expect_load(path, &e, err, sizeof err) != 0)
        return usage_error(err);
    if (e.doc && (rc = check_expect_device(o, &e, path, env)) != 0) {
        rb_expect_free(&e);
        return rc;
    }
    if (e.doc) {
        *doc = e.doc; /* taken over: rb_expect holds nothing else */
        return 0;
    }
    rb_pair_result none;
    memset(&none, 0, sizeof none);
    json_value *peaks = rb_datasheet_peaks(env_str(env, "hardware_key"));
    if (rb_expect_update(doc, &none, 0, hardware(env), peaks, provenance(o, env), err,
                         sizeof err) != 0) {
        fprintf(stderr, "roofbench: %s\n", err);
        return EXIT_FAIL;
    }
    return 0;
}

/* Refuses values above their peaks, merges the rest into the file at path as it is now (locked
 * and read again: another roofbench may have recorded into it meanwhile; *doc, the file as it
 * was read before measuring, when it is not there any more) and writes it. */
static int record_ceilings(const rb_options *o, json_value **doc, const ceilings_state *s,
                           const char *path)
{
    char err[2400], date[32], source[200];
    json_value *now = NULL;
    int lock_fd = -1;
    if (rb_expect_lock_and_load(path, &lock_fd, &now, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: %s\n", err);
        return EXIT_FAIL;
    }
    if (now) {
        json_free(*doc);
        *doc = now;
    }
    int rc = EXIT_FAIL;
    if (rb_ceilings_over_peak(s->values, json_get(*doc, "peaks"), err, sizeof err) > 0) {
        fprintf(stderr,
                "roofbench: ceilings: refusing to record a value above its datasheet "
                "peak; nothing written to %s:\n%s\n",
                path, err);
        goto out;
    }
    rb_utc_iso(date, sizeof date);
    rb_fmt(source, sizeof source, "roofbench ceilings%s, git %s, %s",
           o->quick ? " --quick" : o->links ? " --links" : "",
           rb_git_rev, date);
    if (rb_ceilings_store(json_get(*doc, "ceilings"), s->values, s->methods, source) != 0) {
        fprintf(stderr, "roofbench: out of memory\n");
        goto out;
    }
    if (rb_expect_validate(*doc, err, sizeof err) != 0 ||
        json_write_file(path, *doc, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: %s\n", err);
        goto out;
    }
    printf("%d ceilings written to %s\n", s->measured, path);
    rc = EXIT_OK;
out:
    rb_unlock(lock_fd);
    return rc;
}

static int cmd_ceilings(const rb_options *o)
{
    char err[RB_PATH_BUF + 200];
    if (o->expect_none)
        return usage_error("ceilings writes into an expectation file: not --expect none");
    if (o->expect_path && file_exists(o->expect_path)) {
        rb_expect e;
        if (rb_expect_load(o->expect_path, &e, err, sizeof err) != 0)
            return usage_error(err);
        rb_expect_free(&e);
    }
    if (o->expect_path ? rb_output_file_ok(o->expect_path, 1, err, sizeof err)
                       : rb_dir_writable("expectations", err, sizeof err))
        return usage_error(err);
    probe_state ps;
    int rc = probe(&ps, o->timeout_s);
    if (rc == 0 && (rc = select_device()) != 0)
        json_free(ps.env);
    if (rc != 0)
        return rc;
    char path[RB_PATH_BUF];
    const char *key = env_str(ps.env, "hardware_key");
    rb_fmt(path, sizeof path, "%s", o->expect_path ? o->expect_path : "");
    if (!o->expect_path && !rb_is_hardware_key(key)) {
        json_free(ps.env);
        return usage_error("the GPU's hardware key is not a hardware key");
    }
    if (!o->expect_path)
        rb_fmt(path, sizeof path, "expectations/%s.json", key);
    if (!o->expect_path && rb_output_file_ok(path, 1, err, sizeof err) != 0) {
        json_free(ps.env);
        return usage_error(err);
    }
    json_value *doc = NULL;
    if ((rc = ceilings_doc(o, ps.env, path, &doc)) != 0) {
        json_free(ps.env);
        return rc;
    }
    printf("measuring the ceilings of %s%s ...\n", env_str(ps.env, "device"),
           o->quick   ? " (quick: DRAM copy, FP32, launch)"
           : o->links ? " (links: PCIe, NVLink)"
                      : " (up to a minute)");
    fflush(stdout);
    json_free(ps.env);
    ceilings_state s;
    rc = measure_ceilings(o, &s);
    if (rc == 0)
        rc = record_ceilings(o, &doc, &s, path);
    json_free(s.values);
    json_free(s.methods);
    json_free(doc);
    return rc;
}

/* ---- compare ---- */

/* A results file, parsed and checked to be one (rb_results_doc_check: pairs and variants named,
 * each name once). A node or fleet document gives the run of its GPU gpu (--gpu N; -1: none
 * named, refused with how to name one), *node_read set. NULL with the line printed. */
static json_value *load_results_of(const char *path, int gpu, int *node_read)
{
    char err[RB_PATH_BUF + 600], why[400];
    json_value *doc = json_parse_file(path, err, sizeof err);
    if (!doc) {
        usage_error(err);
        return NULL;
    }
    if (rb_node_is_document(doc)) {
        json_value *run = rb_node_gpu_run(doc, gpu, why, sizeof why);
        json_free(doc);
        doc = run;
        if (node_read)
            *node_read = 1;
    } else if (rb_results_doc_check(doc, why, sizeof why) == 0) {
        return doc;
    }
    if (doc && rb_results_doc_check(doc, why, sizeof why) == 0)
        return doc;
    rb_fmt(err, sizeof err, "%s: %s", path, why);
    json_free(doc);
    usage_error(err);
    return NULL;
}

static json_value *load_results(const char *path)
{
    return load_results_of(path, -1, NULL);
}

/* --gpu N names a GPU of a node document: one given where no input is one does nothing, and is
 * refused. 0, or the exit code. */
static int node_gpu_used(const rb_options *o, int node_read)
{
    if (o->node_gpu < 0 || node_read)
        return 0;
    return usage_error("--gpu N picks a GPU of a node or fleet results file (run --device all, "
                       "roofbench_mpi); no input is one");
}

/* compare's files: OLD, NEW and --expect are read, --json and --html written; no output is an
 * input or another output (as files, checked before anything is read). 0, or the exit code. */
static int compare_files(const rb_options *o, rb_outputs *outs, int *json_i, int *html_i)
{
    char err[RB_PATH_BUF + 300];
    rb_outputs_input(outs, o->compare_old, "OLD", 0);
    rb_outputs_input(outs, o->compare_new, "NEW", 0);
    if (o->expect_path && !o->expect_none)
        rb_outputs_input(outs, o->expect_path, "--expect", 0);
    *json_i = o->json_path ? rb_outputs_add(outs, o->json_path, "--json", 0) : -1;
    *html_i = o->plot_html ? rb_outputs_add(outs, o->plot_html, "--html", 0) : -1;
    if (rb_outputs_check(outs, err, sizeof err) != 0)
        return usage_error(err);
    return 0;
}

/* A warning when the expectation file was recorded on another GPU than the run named which (its
 * spreads are then another GPU's). */
static void warn_other_gpu(const json_value *expect, const char *path, const json_value *run,
                           const char *which)
{
    const char *name = json_string_at(json_get(expect, "hardware"), "name", "");
    const char *key = json_string_at(run, "hardware_key", NULL);
    char ek[256], rk[256], shown_name[300], shown_key[300];
    if (!key)
        return;
    rb_hardware_key(name, ek, sizeof ek);
    rb_hardware_key_single(key, rk, sizeof rk);
    if (!strcmp(ek, rk))
        return;
    rb_text_for_terminal(name, shown_name, sizeof shown_name);
    rb_text_for_terminal(key, shown_key, sizeof shown_key);
    fprintf(stderr,
            "roofbench: warning: %s was recorded on %s, but %s ran on %s: its run spreads are "
            "another GPU's\n",
            path, shown_name, which, shown_key);
}

/* compare's files, made a row at a time into their outputs (the memory of a row, not of the
 * text). */
typedef struct compare_made {
    const rb_options *o;
    const rb_runcmp *c;
} compare_made;

static void make_compare_json(rb_sbuf *b, const void *x)
{
    const compare_made *m = x;
    rb_runcmp_json_to(b, m->c, m->o->compare_old, m->o->compare_new, m->o->fail_on_platform);
}

static void make_compare_html(rb_sbuf *b, const void *x)
{
    const compare_made *m = x;
    rb_runcmp_html_to(b, m->c, m->o->compare_old, m->o->compare_new);
}

/* Stages compare's --json and --html (renamed into place, both or neither, once the report is
 * out). 0, or the exit code. */
static int stage_comparison(const rb_options *o, const rb_runcmp *c, rb_outputs *outs, int json_i,
                            int html_i)
{
    char err[RB_PATH_BUF + 300] = "";
    compare_made m = {o, c};
    int rc = json_i >= 0
                 ? rb_outputs_stage_made(outs, json_i, make_compare_json, &m, err, sizeof err)
                 : 0;
    if (rc == 0 && html_i >= 0)
        rc = rb_outputs_stage_made(outs, html_i, make_compare_html, &m, err, sizeof err);
    return rc == 0 ? 0 : usage_error(err);
}

/* A comparison in which no variant was compared checks nothing: a gate must not pass on it. 0,
 * or the exit code with the line said. */
static int compared_something(const rb_options *o, const rb_runcmp *c)
{
    char err[600];
    int compared = c->n_rows - c->counts[RB_CHANGE_NOT_COMPARED];
    if (compared > 0)
        return 0;
    if (o->filter && c->n_rows == 0)
        rb_fmt(err, sizeof err,
               "compare: --filter '%s' matches no variant (%d left out): nothing compared",
               o->filter, c->n_filtered_out);
    else
        rb_fmt(err, sizeof err,
               "compare: no variant was compared (%d not compared: in one run only, invalid or "
               "untimed in one, or of another size): a comparison of nothing checks nothing",
               c->counts[RB_CHANGE_NOT_COMPARED]);
    return usage_error(err);
}

/* Each run holds pairs: a run of none compares nothing and would pass. */
static int has_pairs(const json_value *doc, const char *which)
{
    char err[80];
    if (json_get(doc, "pairs")->count > 0)
        return 1;
    rb_fmt(err, sizeof err, "compare: %s holds no pairs: nothing to compare", which);
    usage_error(err);
    return 0;
}

/* The floors of runs whose hardware keys are keys[0..n) (model/floors.h): the same from any
 * folder. 0, or the exit code with the line said. */
static int resolve_floors(const rb_options *o, const char *const *keys, int n, rb_floors *f)
{
    char root[RB_PATH_BUF], err[RB_PATH_BUF + 300];
    rb_floors_source_root(rb_source_root, root, sizeof root);
    if (rb_floors_resolve(o->expect_none ? NULL : o->expect_path, o->expect_none, keys, n, root, f,
                          err, sizeof err) != 0)
        return usage_error(err);
    return 0;
}

/* compare's report on stdout: text, --md or --csv (the floors line then goes to stderr: CSV
 * is data). */
static void print_compare(const rb_options *o, const rb_runcmp *c)
{
    rb_sbuf b = {.sink = stdout}; /* (written as it is made: a row's memory, not the text's) */
    if (o->compare_csv && c->floors_line)
        fprintf(stderr, "%s\n", c->floors_line);
    if (o->compare_md)
        rb_runcmp_markdown_to(&b, c, o->compare_old, o->compare_new);
    else if (o->compare_csv)
        rb_runcmp_csv_to(&b, c);
    else
        rb_runcmp_print(stdout, c, o->compare_old, o->compare_new);
    /* (a write that failed is said with the standard output's check; else memory ran out) */
    if (rb_sbuf_flush(&b) != 0 && !ferror(stdout))
        fprintf(stderr, "roofbench: compare: out of memory\n");
}

/* The comparison of compare's two files, with its floors and filter. The expectation file found
 * is an input too: no output may replace it. 0, or the exit code. */
static int build_compare(const rb_options *o, rb_runcmp *c, char *floors_line, size_t size,
                         rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300];
    int node_read = 0;
    json_value *old_doc = load_results_of(o->compare_old, o->node_gpu, &node_read);
    json_value *new_doc = old_doc ? load_results_of(o->compare_new, o->node_gpu, &node_read) : NULL;
    if (!new_doc || node_gpu_used(o, node_read) != 0 || !has_pairs(old_doc, "OLD") ||
        !has_pairs(new_doc, "NEW")) {
        json_free(old_doc);
        json_free(new_doc);
        return EXIT_USAGE;
    }
    const char *keys[2] = {json_string_at(old_doc, "hardware_key", NULL),
                           json_string_at(new_doc, "hardware_key", NULL)};
    rb_floors f;
    int rc = resolve_floors(o, keys, 2, &f);
    if (rc == 0 && f.have) {
        rb_outputs_input(outs, f.path, "the expectation file", 0);
        if (rb_outputs_check(outs, err, sizeof err) != 0)
            rc = usage_error(err);
        warn_other_gpu(f.expect.doc, f.path, old_doc, "OLD");
        warn_other_gpu(f.expect.doc, f.path, new_doc, "NEW");
    }
    if (rc == 0 && rb_runcmp_build_expect(old_doc, new_doc, f.have ? f.expect.doc : NULL, c, err,
                                          sizeof err) != 0)
        rc = usage_error(err);
    if (rc == 0 && o->filter && rb_runcmp_filter(c, o->filter, err, sizeof err) != 0) {
        rb_runcmp_free(c);
        rc = usage_error(err);
    }
    if (rc == 0) {
        rb_floors_line(&f, c->floors_from_runs, floors_line, size);
        c->floors_line = floors_line;
        c->gate_all = o->gate_all;
    }
    rb_floors_free(&f);
    json_free(old_doc);
    json_free(new_doc);
    return rc;
}

/* Everything is read and built before anything is written. */
static int compare_body(const rb_options *o, rb_outputs *outs)
{
    char floors_line[RB_PATH_BUF + 600];
    int json_i, html_i, rc = compare_files(o, outs, &json_i, &html_i);
    rb_runcmp c;
    if (rc != 0 || (rc = build_compare(o, &c, floors_line, sizeof floors_line, outs)) != 0)
        return rc;
    rc = compared_something(o, &c);
    if (rc == 0)
        rc = stage_comparison(o, &c, outs, json_i, html_i);
    if (rc == 0) {
        print_compare(o, &c);
        int failing = rb_runcmp_failing(&c, o->fail_on_platform);
        int contended = rb_runcmp_contended(&c);
        if (failing && !o->compare_md && !o->compare_csv)
            rb_table_say(stdout, "exit 1: %d variant(s) slower for a cause other than the machine (platform, clock)%s", failing,
                   o->fail_on_platform ? " (or for any cause)" : "");
        if (contended && !o->compare_md && !o->compare_csv)
            rb_table_say(stdout, "of which %d contended: a run timed them while another process used the GPU, "
                   "not a code regression; measure again on an idle GPU",
                   contended);
        rc = commit_after_stdout(outs, json_i >= 0 || html_i >= 0);
        if (rc == 0)
            rc = failing ? EXIT_FAIL : EXIT_OK;
    }
    rb_runcmp_free(&c);
    return rc;
}

/* ---- history ---- */

/* history -o BASE: BASE.svg, BASE.md and BASE.json, checked as files against every file it read
 * (the runs and the files it skipped) and each other before any is written. 0, or the exit
 * code. */
static int history_outputs(const rb_options *o, const rb_history *h, rb_outputs *outs)
{
    static const char *const ext[3] = {".svg", ".md", ".json"};
    char err[RB_PATH_BUF + 200], path[RB_PATH_BUF];
    for (int r = 0; r < h->n_runs; r++)
        if (rb_outputs_input(outs, h->runs[r].path, "a run it reads,", 0) != 0)
            return usage_error("history: out of memory");
    for (int i = 0; i < h->n_skipped; i++)
        if (rb_outputs_input(outs, h->skipped[i], "a file it read,", 0) != 0)
            return usage_error("history: out of memory");
    for (int i = 0; i < 3; i++) {
        if (rb_fmt_fits(path, sizeof path, "%s%s", o->out_base, ext[i]) != 0 ||
            strlen(path) > RB_PATH_MAX)
            return usage_error("history: -o BASE: the path is too long");
        if (rb_outputs_add(outs, path, "history -o", 0) < 0)
            return usage_error("history: out of memory");
    }
    if (rb_outputs_check(outs, err, sizeof err) != 0)
        return usage_error(err);
    return 0;
}

static void make_history_svg(rb_sbuf *b, const void *h)
{
    rb_history_svg_to(b, h);
}

static void make_history_md(rb_sbuf *b, const void *h)
{
    rb_history_markdown_to(b, h);
}

static void make_history_json(rb_sbuf *b, const void *h)
{
    rb_history_json_to(b, h);
}

/* The three files of -o BASE staged, each made a series at a time. 0, or the exit code. */
static int stage_history(const rb_history *h, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300] = "";
    int rc = rb_outputs_stage_made(outs, 0, make_history_svg, h, err, sizeof err);
    if (rc == 0)
        rc = rb_outputs_stage_made(outs, 1, make_history_md, h, err, sizeof err);
    if (rc == 0)
        rc = rb_outputs_stage_made(outs, 2, make_history_json, h, err, sizeof err);
    return rc == 0 ? 0 : usage_error(err);
}

/* The expectation file found is an input too: no output may replace it; and one of another GPU
 * is said, as compare says it. 0, or the exit code. */
static int history_floors_file(const rb_options *o, const rb_history *h, const rb_floors *f,
                               rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300];
    if (!f->have)
        return 0;
    warn_other_gpu(f->expect.doc, f->path, h->runs[0].doc, "the history");
    if (!o->out_base)
        return 0;
    if (rb_outputs_input(outs, f->path, "the expectation file", 0) != 0)
        return usage_error("history: out of memory");
    return rb_outputs_check(outs, err, sizeof err) == 0 ? 0 : usage_error(err);
}

/* Everything is read, built and staged, and the report printed, before anything is renamed
 * into place: a standard output that cannot be written leaves no file. */
static int history_body(const rb_options *o, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300], floors_line[RB_PATH_BUF + 600];
    rb_history h;
    if (rb_history_load(o->inputs, o->n_inputs, &h, err, sizeof err) != 0)
        return usage_error(err);
    const char **keys = malloc((size_t)h.n_runs * sizeof *keys);
    rb_floors f = {0};
    int rc = keys ? 0 : usage_error("history: out of memory");
    for (int i = 0; rc == 0 && i < h.n_runs; i++)
        keys[i] = h.runs[i].hardware_key[0] ? h.runs[i].hardware_key : NULL;
    if (rc == 0 && o->out_base)
        rc = history_outputs(o, &h, outs);
    if (rc == 0)
        rc = resolve_floors(o, keys, h.n_runs, &f);
    free(keys);
    if (rc == 0)
        rc = history_floors_file(o, &h, &f, outs);
    if (rc == 0 &&
        rb_history_build(&h, f.have ? f.expect.doc : NULL, o->filter, err, sizeof err) != 0)
        rc = usage_error(err);
    if (rc == 0 && o->out_base)
        rc = stage_history(&h, outs);
    if (rc == 0) {
        rb_floors_line(&f, h.floors_from_runs, floors_line, sizeof floors_line);
        h.floors_line = floors_line;
        rb_history_print(stdout, &h);
        if (o->out_base) {
            char line[4 * RB_PATH_BUF], shown[4 * RB_PATH_BUF];
            rb_fmt(line, sizeof line, "history: %s, %s, %s", rb_outputs_path(outs, 0),
                   rb_outputs_path(outs, 1), rb_outputs_path(outs, 2));
            rb_text_for_terminal(line, shown, sizeof shown);
            printf("%s\n", shown);
        }
        rc = commit_after_stdout(outs, o->out_base != NULL);
    }
    rb_floors_free(&f);
    rb_history_free(&h);
    return rc;
}

/* ---- plot ---- */

/* The charts (and with --html the report) of a results file: BASE.svg, BASE-speedup.svg and
 * BASE.html (or --html FILE.html), BASE from -o (a trailing .svg dropped) or the results file's
 * name without .json. Every output is checked before anything is read (none is the results
 * file or another output, as files); all are written or none. */
static int plot_body(const rb_options *o, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300], base[RB_PATH_BUF], svg[RB_PATH_BUF + 16],
        speedup[RB_PATH_BUF + 32], html_beside[RB_PATH_BUF + 16];
    const char *from = o->plot_svg ? o->plot_svg : o->plot_input;
    const char *drop = o->plot_svg ? ".svg" : ".json";
    size_t len = strlen(from), cut = strlen(drop);
    if (len > cut && !strcmp(from + len - cut, drop))
        len -= cut;
    const char *html = o->plot_html;
    if (rb_fmt_fits(base, sizeof base, "%.*s", (int)len, from) != 0 ||
        rb_fmt_fits(svg, sizeof svg, "%s.svg", base) != 0 ||
        rb_fmt_fits(speedup, sizeof speedup, "%s-speedup.svg", base) != 0 ||
        rb_fmt_fits(html_beside, sizeof html_beside, "%s.html", base) != 0)
        return usage_error("plot: an output path is too long");
    if (o->plot_html_beside)
        html = html_beside;
    rb_outputs_input(outs, o->plot_input, "the results file", 0);
    int svg_i = rb_outputs_add(outs, svg, o->plot_svg ? "-o" : "the roofline chart", 0);
    int speedup_i = rb_outputs_add(outs, speedup, "the speedup chart", 0);
    int html_i = html ? rb_outputs_add(outs, html, "--html", 0) : -1;
    if (rb_outputs_check(outs, err, sizeof err) != 0)
        return usage_error(err);
    int node_read = 0;
    json_value *doc = load_results_of(o->plot_input, o->node_gpu, &node_read);
    if (doc && node_gpu_used(o, node_read) != 0) {
        json_free(doc);
        return EXIT_USAGE;
    }
    if (!doc)
        return EXIT_USAGE;
    int rc = rb_plot_stage_taking(doc, o->plot_input, o->filter, outs, svg_i, speedup_i, html_i,
                                  err, sizeof err);
    if (rc != 0)
        return usage_error(err);
    char line[4 * RB_PATH_BUF], shown[4 * RB_PATH_BUF];
    rb_fmt(line, sizeof line, "plot: %s, %s%s%s", svg, speedup, html ? ", " : "", html ? html : "");
    rb_text_for_terminal(line, shown, sizeof shown);
    printf("%s\n", shown);
    return commit_after_stdout(outs, 1);
}

/* A standard output that could not be written (a full disk, a closed descriptor, a pipe closed
 * early) is an error, exit 2 (not 0 or 1: the table or the comparison was lost). */
static int stdout_checked(int rc)
{
    if (stdout_ok())
        return rc;
    if (!stdout_failure_said)
        fprintf(stderr, "roofbench: writing the standard output failed: %s\n",
                stdout_was_closed ? "it is closed" : strerror(errno));
    return rc == EXIT_OK || rc == EXIT_FAIL ? EXIT_USAGE : rc;
}

/* A descriptor 0, 1 or 2 that is closed at the start is opened on /dev/null, so that no file
 * the process opens (a temporary, an output) takes its number and receives what is printed; a
 * closed standard output is remembered (stdout_ok). */
static void hold_standard_descriptors(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        if (fd == STDOUT_FILENO)
            stdout_was_closed = 1;
        int held = open("/dev/null", O_RDWR);
        if (held >= 0 && held != fd) /* (cannot be: the lower ones are open) */
            close(held);
    }
}

/* A command that writes files: body with an output set of its own (model/outputs.h). */
static int with_outputs(const rb_options *o, int through_links,
                        int (*body)(const rb_options *o, rb_outputs *outs))
{
    rb_outputs *outs = rb_outputs_new(through_links);
    if (!outs)
        return usage_error("out of memory");
    /* a pipe closed early (| head) is a standard output that cannot be written: exit 2 with
     * nothing written, not the end of the process by SIGPIPE with the outputs lost unsaid */
    signal(SIGPIPE, SIG_IGN);
    int rc = body(o, outs);
    rb_outputs_free(outs);
    return rc;
}

/* p2p: its files checked before the probe, as every command's. */
static int cmd_p2p(const rb_options *o, int argc, char **argv, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300];
    int index[2];
    if (rb_p2p_files(o, outs, index, err, sizeof err) != 0)
        return usage_error(err);
    probe_state ps;
    int rc = probe(&ps, o->timeout_s);
    if (rc != 0)
        return rc;
    rc = rb_p2p_run(o, argc, argv, ps.env, outs, index);
    json_free(ps.env);
    return rb_runner_interrupted() ? interrupted_exit() : rc;
}

/* run --device all | N,M,...: how many GPUs there are (the probe), then the node run. */
static int node_body(const rb_options *o, int argc, char **argv)
{
    /* Test hook (tests/test_node.c): RB_TEST_FAULT=node:gpus=N poses as N GPUs, no probe */
    const char *fault = getenv("RB_TEST_FAULT");
    int fake = 0;
    if (fault && sscanf(fault, "node:gpus=%d", &fake) == 1 && fake > 0)
        return rb_node_run(o, argc, argv, fake);
    probe_state ps;
    int rc = probe(&ps, o->timeout_s);
    if (rc != 0)
        return rc;
    const json_value *count = json_get(ps.env, "device_count");
    int visible = count && count->type == JSON_NUMBER ? (int)count->number : 0;
    json_free(ps.env);
    return rb_node_run(o, argc, argv, visible);
}

static int dispatch(int argc, char **argv, const rb_options *o)
{
    char err[600];
    rb_test_stall("start");
    if (o->command == RB_CMD_HELP) {
        char *help = rb_cli_help(o->help_topic);
        if (!help)
            return usage_error("out of memory");
        fputs(help, stdout);
        free(help);
        return EXIT_OK;
    }
    if (o->command == RB_CMD_VERSION) {
        char text[600];
        rb_env_version_text(text, sizeof text);
        fputs(text, stdout);
        return EXIT_OK;
    }
    selected_device = o->device;
    if (o->command == RB_CMD_PLOT)
        return with_outputs(o, o->through_links, plot_body);
    if (o->command == RB_CMD_COMPARE)
        return with_outputs(o, o->through_links, compare_body);
    if (o->command == RB_CMD_HISTORY)
        return with_outputs(o, 0, history_body);
    if (o->command == RB_CMD_DOCS)
        return rb_docs_main(".", o->check, stdout, stderr);
    if (o->command == RB_CMD_CEILINGS)
        return cmd_ceilings(o);
    if (o->command == RB_CMD_EXPECTATIONS)
        return rb_expect_cmd(o);
    if (o->command == RB_CMD_P2P) {
        rb_outputs *outs = rb_outputs_new(0);
        int rc = outs ? cmd_p2p(o, argc, argv, outs) : usage_error("out of memory");
        rb_outputs_free(outs);
        return rc;
    }
    static rb_job jobs[RB_MAX_JOBS];
    int n = 0;
    if (rb_jobs_select(o, NULL, jobs, &n, err, sizeof err) != 0)
        return usage_error(err);
    if (o->command == RB_CMD_RUN && (o->device_all || o->n_devices))
        return node_body(o, argc, argv);
    if (o->command == RB_CMD_LIST)
        return cmd_list(jobs, n);
    if (o->command == RB_CMD_PROFILE)
        return rb_profile_cmd(o, jobs, n, argc, argv);
    rb_pair_result *results = calloc((size_t)n, sizeof *results);
    if (!results)
        return usage_error("out of memory");
    int rc;
    if (o->command == RB_CMD_CHECK) {
        probe_state ps;
        rc = probe(&ps, o->timeout_s);
        if (rc == 0)
            rc = select_device();
        if (rc == 0 && (n = keep_one_gpu_sizes(jobs, n, ps.env)) == 0)
            rc = usage_error("every size selected is one a one-GPU machine leaves out");
        json_free(ps.env);
        if (rc == 0)
            rc = cmd_check(jobs, n, o, results);
    } else {
        /* the baseline is read before any GPU work: a bad one costs nothing */
        json_value *baseline = o->baseline_path ? load_results(o->baseline_path) : NULL;
        rc = o->baseline_path && !baseline ? EXIT_USAGE
                                           : cmd_run(jobs, n, o, argc, argv, results, baseline);
        json_free(baseline);
    }
    free(results);
    return rc;
}

int main(int argc, char **argv)
{
    rb_options o;
    char err[600];
    hold_standard_descriptors();
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* SIGINT, SIGTERM, SIGHUP and the other signals that end a process end every command
     * promptly: a running child is ended and the run stops (interrupted_exit); in the parent's
     * own work the process ends at once, its temporary files removed (runner.h). */
    rb_runner_catch_interrupts();
    if (rb_cli_parse(argc, argv, &o, err, sizeof err) != 0)
        return stdout_checked(usage_error(err));
    rb_table_set_wide(o.wide);
    int rc = stdout_checked(dispatch(argc, argv, &o));
    rb_test_report_memory();
    return rc;
}
