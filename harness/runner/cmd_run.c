/* SPDX-License-Identifier: MIT */
/* roofbench run: validate, time, judge against the expectation file and write the results
 * (and with --update-expectations the expectation file, with --baseline a comparison). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_run.h"
#include "cmd.h"
#include "cmd_ceilings.h"
#include "cmd_check.h"
#include "cmd_probe.h"
#include "env.h"
#include "model/expect.h"
#include "model/expect_record.h"
#include "model/expect_stale.h"
#include "model/report.h"
#include "model/runcmp.h"
#include "model/text.h"
#include "results.h"
#include "runner.h"

/* What run --update-expectations records of itself: provenance, the build's nvcc release and
 * architecture (which decide the kernels' machine code: model/expect_check.h), one machine (its
 * GPU's UUID) and the runs. NULL when out of memory. */
static json_value *recording_provenance(const rb_options *o, const json_value *env, int repeat)
{
    json_value *p = rb_cmd_provenance(o, env);
    const char *uuid = rb_cmd_env_str(env, "uuid");
    if (p && rb_expect_provenance_add(p, rb_build_nvcc, rb_build_arch, 1, repeat, &uuid,
                                      strcmp(uuid, "?") ? 1 : 0) != 0) {
        json_free(p);
        return NULL;
    }
    return p;
}

/* What the run can check before touching a GPU: the expectation file, and that every file it
 * will write can be written (a full GPU run must not end with its results lost), none of them
 * an input or another output. The inputs go into outs. 0, or the line printed and the exit
 * code. */
static int run_prechecks(const rb_options *o, rb_expect *expect, int *have_expect, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 200];
    if (o->expect_path && !o->expect_none &&
        !(o->update_expectations && !rb_cmd_file_exists(o->expect_path))) {
        if (rb_expect_load(o->expect_path, expect, err, sizeof err) != 0)
            return rb_cmd_usage_error(err);
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
        return rb_cmd_usage_error(err);
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
        return rb_cmd_usage_error(err);
    }
    if (!o->expect_path && rb_cmd_file_exists(expect_path))
        rb_outputs_input(outs, expect_path, "the expectation file", o->update_expectations);
    if (rb_results_check_outputs(o, key, o->update_expectations ? expect_path : NULL, outs, err,
                                 sizeof err) != 0)
        return rb_cmd_usage_error(err);
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
        printf("baseline: %d variant(s) slower than in %s for a cause other than the machine "
               "(platform, clock)%s\n",
               failing, o->baseline_path, o->fail_on_platform ? " (or for any cause)" : "");
    if (contended)
        printf("baseline: of which %d contended: timed on a shared GPU, not a code regression\n",
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
        rb_cmd_run_pairs(jobs, n, o, earlier + (size_t)r * n, expected_s);
        if (rb_runner_interrupted())
            return rb_cmd_interrupted_exit();
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
        rc = rb_expect_update_runs(&d, results, n, runs, repeat - 1, platform, rb_cmd_hardware(env),
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

/* What a run holds between its phases (run_body): the expectation file, the GPU's environment
 * at the start and the end, the platform reference, --repeat's earlier runs and the verdicts. */
typedef struct run_state {
    rb_expect expect;
    int have_expect;
    rb_probe_state ps;
    const char *key; /* the GPU's hardware key (in ps.env) */
    char expect_path[RB_PATH_BUF];
    json_value *platform, *env_end;
    int repeat;
    rb_pair_result *earlier; /* repeat - 1 runs of the n pairs */
    double expected_s[RB_MAX_JOBS];
    int failing, contended;
    rb_contention shared;
} run_state;

static void run_state_free(run_state *s)
{
    free(s->earlier);
    json_free(s->env_end);
    json_free(s->platform);
    rb_expect_free(&s->expect);
    json_free(s->ps.env);
}

/* Everything that can be checked without a GPU, then the probe, the GPU's paths and its
 * expectation file. 0, or the exit code (what s holds freed). */
static int run_setup(rb_job *jobs, int *n, const rb_options *o, run_state *s, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 200];
    int rc = run_prechecks(o, &s->expect, &s->have_expect, outs);
    if (rc != 0)
        return rc;
    rb_cmd_probe_looks(1); /* who else is on the GPU before the run: the first probe looks */
    rc = rb_cmd_probe(&s->ps, o->timeout_s);
    rb_cmd_probe_looks(0);
    if (rc == 0 && (rc = rb_cmd_select_device()) != 0)
        json_free(s->ps.env);
    if (rc != 0) {
        s->ps.env = NULL;
        rb_expect_free(&s->expect);
        return rc;
    }
    if ((*n = rb_cmd_keep_one_gpu_sizes(jobs, *n, s->ps.env)) == 0) {
        run_state_free(s);
        return rb_cmd_usage_error("every size selected is one a one-GPU machine leaves out");
    }
    s->key = rb_cmd_env_str(s->ps.env, "hardware_key");
    rb_fmt(s->expect_path, sizeof s->expect_path, "%s", o->expect_path ? o->expect_path : "");
    if (!o->expect_path && rb_is_hardware_key(s->key))
        rb_fmt(s->expect_path, sizeof s->expect_path, "expectations/%s.json", s->key);
    if ((rc = run_paths_ok(o, s->key, s->expect_path, outs)) != 0) {
        run_state_free(s);
        return rc;
    }
    if (!o->expect_path && rb_cmd_file_exists(s->expect_path)) {
        if (rb_expect_load(s->expect_path, &s->expect, err, sizeof err) != 0) {
            json_free(s->ps.env);
            return rb_cmd_usage_error(err);
        }
        s->have_expect = 1;
    }
    if (s->have_expect &&
        (rc = rb_cmd_check_expect_device(o, &s->expect, s->expect_path, s->ps.env)) != 0) {
        run_state_free(s);
        return rc;
    }
    return 0;
}

/* The lines that open a run: the build and the GPU, who else is on it, a missing expectation
 * file. */
static void run_header(const rb_options *o, const run_state *s)
{
    const json_value *env = s->ps.env;
    printf("roofbench %s on %s (compute capability %s), driver %s, CUDA runtime %s\n", rb_git_rev,
           rb_cmd_env_str(env, "device"), rb_cmd_env_str(env, "cc"), rb_cmd_env_str(env, "driver"),
           rb_cmd_env_str(env, "cuda_runtime"));
    if (rb_contention_any(&s->ps.check.seen)) {
        char who[400];
        rb_contention_text(&s->ps.check.seen, who, sizeof who);
        printf("contended: %s on the GPU before the run: every row timed while it is there says "
               "contended\n",
               who);
    }
    if (!s->have_expect && !o->expect_none)
        printf("no expectation file %s: every verdict is 'new'. Record one with:\n"
               "  build/<arch>/roofbench ceilings && build/<arch>/roofbench run "
               "--update-expectations\n",
               s->expect_path);
}

/* The platform reference, --repeat's earlier runs, the run of the pairs and the probe at the
 * end. 0, or the exit code (what s holds freed). */
static int run_measure(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *results,
                       run_state *s)
{
    int rc;
    s->platform = rb_cmd_platform_reference(o, jobs, n, &rc);
    if (rc != 0) {
        run_state_free(s);
        return rc;
    }
    s->repeat = o->update_expectations && o->repeat > 1 ? (int)o->repeat : 1;
    s->earlier =
        s->repeat > 1 ? calloc((size_t)(s->repeat - 1) * (size_t)n, sizeof *s->earlier) : NULL;
    if (s->repeat > 1 && !s->earlier) {
        fprintf(stderr, "roofbench: out of memory for %d runs of %d pairs\n", s->repeat, n);
        run_state_free(s);
        return EXIT_FAIL;
    }
    for (int i = 0; i < n; i++)
        s->expected_s[i] = s->have_expect ? rb_expect_wall_s(&s->expect, jobs[i].name) : NAN;
    if ((rc = run_earlier(jobs, n, o, s->earlier, s->expected_s)) != 0) {
        run_state_free(s);
        return rc;
    }
    rb_cmd_run_pairs(jobs, n, o, results, s->expected_s);
    bound_energy(results, n, s->ps.env);
    rb_probe_state end;
    s->env_end = rb_runner_interrupted() || rb_cmd_probe(&end, o->timeout_s) != 0 ? NULL : end.env;
    if (rb_runner_interrupted()) {
        run_state_free(s);
        return rb_cmd_interrupted_exit();
    }
    return 0;
}

/* The verdicts (expectations, contention, over --repeat's earlier runs too) and the results
 * document, which takes the platform reference and the end's environment. NULL when out of
 * memory. */
static json_value *run_document(const rb_options *o, int argc, char **argv, rb_pair_result *results,
                                int n, run_state *s)
{
    rb_roofs ceilings, peaks;
    rb_contention before;
    const rb_expect *e = s->have_expect ? &s->expect : NULL;
    rb_results_derive(e, s->key, results, n, &ceilings, &peaks);
    rb_expect_apply(e, results, n);
    s->contended = rb_report_contention(&s->ps.check, results, n, &s->shared, NULL, 0);
    for (int r = 0; r + 1 < s->repeat; r++) { /* --repeat's earlier runs share the verdict */
        s->contended |= rb_report_contention(NULL, s->earlier + (size_t)r * n, n, &before, NULL, 0);
        rb_contention_merge(&s->shared, &before);
    }
    json_value *meta = rb_results_meta("roofbench", o, argc, argv, s->ps.env,
                                       s->have_expect ? s->expect_path : NULL);
    if (meta) {
        json_object_set(json_get(meta, "environment"), "end", s->env_end);
        /* NULL (out of memory) leaves the file without a platform: an old file's shape */
        if (s->platform)
            json_object_set(meta, "platform", s->platform);
        json_value *shared_json = rb_report_contention_json(&s->ps.check, results, n);
        if (shared_json)
            json_object_set(meta, "contention", shared_json);
    } else {
        json_free(s->env_end);
        json_free(s->platform);
    }
    s->env_end = s->platform = NULL; /* the document holds them now */
    json_value *doc = rb_report_json(results, n, &ceilings, &peaks, meta);
    if (doc)
        rb_runcmp_attribute_verdicts(s->have_expect ? s->expect.doc : NULL, doc, results, n);
    /* after the causes: a regression the machine explains gates only with --fail-on-platform */
    s->failing = rb_expect_failing(results, n, o->gate_all, o->fail_on_platform);
    return doc;
}

/* The table, then every file of the run at once (the results, their twins, the CSV, the
 * expectations) and the document of --json - or --csv -, then --baseline's comparison.
 * recorded_platform: the platform reference the expectations keep a copy of (taken). */
static void run_write(const rb_options *o, rb_pair_result *results, int n, run_state *s,
                      json_value *doc, json_value *recorded_platform, const json_value *baseline,
                      rb_outputs *outs)
{
    printf("\n");
    rb_report_table(stdout, results, n, o->wide);
    rb_report_summary(stdout, results, n);
    rb_report_energy_and_contention(stdout, &s->ps.check, results, n);
    int lock_fd = -1;
    json_value *recorded = NULL;
    if (o->update_expectations && s->contended) {
        char who[400];
        rb_contention_text(&s->shared, who, sizeof who);
        fprintf(stderr,
                "roofbench: not recording expectations: the GPU was shared while the run "
                "measured (%s): %s left as it was; record again on an idle GPU\n",
                who, s->expect_path);
    } else if (o->update_expectations) {
        s->failing +=
            stage_expectations(o, s->expect_path, s->key, results, n, s->earlier, s->repeat,
                               recorded_platform, s->ps.env, outs, &lock_fd, &recorded);
    }
    int saved = doc && rb_results_save(o, s->key, doc, results, n, outs) == 0;
    /* --json - or --csv -: the standard output's document, once the files are written */
    if (!saved || rb_results_print(o, doc, results, n, rb_cmd_document()) != 0)
        s->failing++;
    if (saved && recorded) {
        report_dropped(results, n);
        if (s->have_expect)
            rb_expect_say_cleared(stdout, s->expect.doc, results, n);
        printf("expectations: %s updated from %d run(s); the regression thresholds:\n",
               s->expect_path, s->repeat);
        rb_expect_print_thresholds(stdout, recorded, results, n);
    }
    rb_unlock(lock_fd);
    json_free(recorded);
    if (doc && baseline)
        s->failing +=
            compare_with_baseline(baseline, doc, s->have_expect ? s->expect.doc : NULL, o);
    json_free(recorded_platform);
}

/* The lines that close a run, and its exit code. */
static int run_exit(const rb_pair_result *results, int n, const run_state *s)
{
    if (s->contended) {
        char who[400];
        rb_contention_text(&s->shared, who, sizeof who);
        printf("exit 1: contended: %s used the GPU while the run measured; its times cannot be "
               "trusted\n",
               who);
    }
    int contended_rows = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < results[i].n_variants; k++)
            contended_rows += results[i].v[k].verdict == RB_VERDICT_CONTENDED;
    if (s->failing > contended_rows)
        printf("exit 1: %d failed pair(s), invalid or regressed variant(s), or unwritten "
               "file(s)\n",
               s->failing - contended_rows);
    return s->failing || s->contended ? EXIT_FAIL : EXIT_OK;
}

static int run_body(rb_job *jobs, int n, const rb_options *o, int argc, char **argv,
                    rb_pair_result *results, const json_value *baseline, rb_outputs *outs)
{
    static run_state s;
    memset(&s, 0, sizeof s);
    /* Everything that can be checked without a GPU is checked first. */
    int rc = run_setup(jobs, &n, o, &s, outs);
    if (rc != 0)
        return rc;
    run_header(o, &s);
    if ((rc = run_measure(jobs, n, o, results, &s)) != 0)
        return rc;
    /* the expectations keep a copy of the platform reference they were recorded with */
    json_value *recorded_platform =
        o->update_expectations && s.platform ? json_clone(s.platform) : NULL;
    json_value *doc = run_document(o, argc, argv, results, n, &s);
    run_write(o, results, n, &s, doc, recorded_platform, baseline, outs);
    json_free(doc);
    rc = run_exit(results, n, &s);
    run_state_free(&s);
    return rc;
}

int rb_cmd_run(rb_job *jobs, int n, const rb_options *o, int argc, char **argv,
               rb_pair_result *results, const json_value *baseline)
{
    rb_outputs *outs = rb_outputs_new(o->through_links);
    if (!outs)
        return rb_cmd_usage_error("out of memory");
    int rc = run_body(jobs, n, o, argc, argv, results, baseline, outs);
    rb_outputs_free(outs);
    return rc;
}
