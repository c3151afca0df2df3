/* SPDX-License-Identifier: MIT */
/* roofbench ceilings: the measured roofs into the expectation file; and a run's platform
 * reference, the quick ones. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd_ceilings.h"
#include "ceilings.h"
#include "cmd.h"
#include "cmd_probe.h"
#include "env.h"
#include "model/ceiling_record.h"
#include "model/expect.h"
#include "model/expect_record.h"
#include "report/ceilings_out.h"
#include "report/table.h"
#include "results.h"
#include "runner.h"

/* What the ceilings child reports: each roof as it is measured (printed at once, a row of the
 * table: a full measurement takes up to a minute), or skipped, or an error. */
typedef struct ceilings_state {
    json_value *values, *methods;
    int measured;
    int quiet;  /* a run's platform reference: one line at the end, not one per roof */
    int headed; /* the table's heads are out */
    char error[400];
} ceilings_state;

/* The method of a {"type": "ceiling"} line (checked by rb_ceiling_record_check) as a struct. */
static void method_of(const json_value *m, rb_ceiling_method *out)
{
    const json_value *clock = json_get(m, "sm_clock_mhz"), *power = json_get(m, "power_w");
    memset(out, 0, sizeof *out);
    rb_fmt(out->method, sizeof out->method, "%s", json_string_at(m, "method", ""));
    rb_fmt(out->size, sizeof out->size, "%s", json_string_at(m, "size", ""));
    out->samples = json_number_at(m, "samples");
    out->noise = json_number_at(m, "noise");
    out->sm_clock_mhz = clock ? clock->number : NAN;
    out->power_w = power ? power->number : NAN;
}

/* A row of the table (report/ceilings_out.h), under its heads the first time. */
static void print_row(ceilings_state *s, const json_value *line, const char *skipped)
{
    rb_sbuf b = {.sink = stdout};
    int width = rb_table_width();
    if (!s->headed++)
        rb_ceilings_head(&b, width);
    const json_value *key = json_get(line, "key");
    const char *name = key && key->type == JSON_STRING ? key->string : "?";
    if (skipped) {
        rb_ceilings_skip_row(&b, width, name, skipped);
    } else {
        rb_ceiling_method m;
        method_of(json_get(line, "method"), &m);
        rb_ceilings_row(&b, width, name, json_get(line, "value")->number, &m);
    }
    rb_sbuf_flush(&b);
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
            print_row(s, line, NULL);
    } else if (!strcmp(type->string, "ceiling_skip") && !s->quiet) {
        print_row(s, line,
                  reason && reason->type == JSON_STRING ? reason->string : "no reason given");
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
        return rb_cmd_interrupted_exit();
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
json_value *rb_cmd_platform_reference(const rb_options *o, const rb_job *jobs, int n, int *rc)
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
        *rc = rb_cmd_interrupted_exit();
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
    if (rb_cmd_file_exists(path) && rb_expect_load(path, &e, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    if (e.doc && (rc = rb_cmd_check_expect_device(o, &e, path, env)) != 0) {
        rb_expect_free(&e);
        return rc;
    }
    if (e.doc) {
        *doc = e.doc; /* taken over: rb_expect holds nothing else */
        return 0;
    }
    rb_pair_result none;
    memset(&none, 0, sizeof none);
    json_value *peaks = rb_datasheet_peaks(rb_cmd_env_str(env, "hardware_key"));
    if (rb_expect_update(doc, &none, 0, rb_cmd_hardware(env), peaks, rb_cmd_provenance(o, env), err,
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
           o->quick   ? " --quick"
           : o->links ? " --links"
                      : "",
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

int rb_cmd_ceilings(const rb_options *o)
{
    char err[RB_PATH_BUF + 200];
    if (o->expect_none)
        return rb_cmd_usage_error("ceilings writes into an expectation file: not --expect none");
    if (o->expect_path && rb_cmd_file_exists(o->expect_path)) {
        rb_expect e;
        if (rb_expect_load(o->expect_path, &e, err, sizeof err) != 0)
            return rb_cmd_usage_error(err);
        rb_expect_free(&e);
    }
    if (o->expect_path ? rb_output_file_ok(o->expect_path, 1, err, sizeof err)
                       : rb_dir_writable("expectations", err, sizeof err))
        return rb_cmd_usage_error(err);
    rb_probe_state ps;
    int rc = rb_cmd_probe(&ps, o->timeout_s);
    if (rc == 0 && (rc = rb_cmd_select_device()) != 0)
        json_free(ps.env);
    if (rc != 0)
        return rc;
    char path[RB_PATH_BUF];
    const char *key = rb_cmd_env_str(ps.env, "hardware_key");
    rb_fmt(path, sizeof path, "%s", o->expect_path ? o->expect_path : "");
    if (!o->expect_path && !rb_is_hardware_key(key)) {
        json_free(ps.env);
        return rb_cmd_usage_error("the GPU's hardware key is not a hardware key");
    }
    if (!o->expect_path)
        rb_fmt(path, sizeof path, "expectations/%s.json", key);
    if (!o->expect_path && rb_output_file_ok(path, 1, err, sizeof err) != 0) {
        json_free(ps.env);
        return rb_cmd_usage_error(err);
    }
    json_value *doc = NULL;
    if ((rc = ceilings_doc(o, ps.env, path, &doc)) != 0) {
        json_free(ps.env);
        return rc;
    }
    printf("measuring the ceilings of %s%s ...\n", rb_cmd_env_str(ps.env, "device"),
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
