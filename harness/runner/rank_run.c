/* SPDX-License-Identifier: MIT */
#include "rank_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ceilings.h"
#include "model/ceiling_record.h"
#include "model/report.h"
#include "model/runcmp.h"
#include "model/util.h"
#include "results.h"

/* A fresh start for the next pair in this process, as a new child would have: no error of an
 * earlier pair's left in the first-error record or in the runtime's last error (a pair's next
 * cudaGetLastError would report it as its own). */
static void fresh_start(void)
{
    rb_error_clear();
    cudaGetLastError();
}

/* Hands each line a record file holds to on_line. 0, or -1 when it cannot be read. */
static int read_records(FILE *f, void (*on_line)(void *arg, const json_value *line), void *arg)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    if (fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0)
        return -1;
    while ((len = getline(&line, &cap, f)) > 0) {
        char err[200];
        json_value *v = json_parse(line, (size_t)len, err, sizeof err);
        if (v)
            on_line(arg, v);
        json_free(v);
    }
    free(line);
    return ferror(f) ? -1 : 0;
}

typedef struct pair_lines {
    rb_pair_result *r;
    json_value *own;
    int oom;
} pair_lines;

/* A pair's record into the result; a variant's rank_median_ms (several ranks) into own. */
static void on_pair_line(void *arg, const json_value *line)
{
    pair_lines *s = arg;
    rb_results_line(s->r, line);
    double ms = json_number_at(line, "rank_median_ms");
    if (!s->own || !isfinite(ms))
        return;
    json_value *t = json_new_object();
    if (!t || json_set_string(t, "row", s->r->name) ||
        json_set_string(t, "variant", json_string_at(json_get(line, "variant"), "name", "")) ||
        json_set_number(t, "time_ms", ms) || json_array_push(s->own, t)) {
        json_free(t);
        s->oom = 1;
    }
}

int rb_rank_pair(const rb_job *j, const rb_options *o, const rb_comm *comm, rb_pair_result *r,
                 json_value *own)
{
    rb_child_opts opts;
    int device = 0;
    fresh_start();
    cudaGetDevice(&device);
    rb_results_begin(r, j);
    rb_results_child_opts(j, o, &opts);
    opts.comm = comm;
    FILE *records = tmpfile();
    if (!records) {
        r->status = RB_PAIR_FAILED;
        rb_fmt(r->reason, sizeof r->reason, "cannot make a temporary file for the records");
        return -1;
    }
    double t0 = rb_now_s();
    int rc = rb_child_pair(j->pair, &opts, fileno(records));
    r->wall_s = rb_now_s() - t0;
    /* a pair of several GPUs may leave another one current */
    cudaSetDevice(device);
    pair_lines s = {r, comm ? own : NULL, 0};
    if (read_records(records, on_pair_line, &s) != 0 && r->status != RB_PAIR_FAILED) {
        r->status = RB_PAIR_FAILED;
        rb_fmt(r->reason, sizeof r->reason, "cannot read back the records");
    }
    fclose(records);
    if (rc != 0 && r->status != RB_PAIR_FAILED) {
        r->status = RB_PAIR_FAILED;
        rb_fmt(r->reason, sizeof r->reason, "the pair ended with status %d", rc);
    }
    if (s.oom && r->status != RB_PAIR_FAILED) {
        r->status = RB_PAIR_FAILED;
        rb_fmt(r->reason, sizeof r->reason, "out of memory");
    }
    return r->status == RB_PAIR_FAILED ? -1 : 0;
}

typedef struct platform_lines {
    json_value *values, *methods;
    char error[400];
} platform_lines;

/* The quick roofs' records (the ceilings child's "ceiling" and "error" lines). */
static void on_platform_line(void *arg, const json_value *line)
{
    platform_lines *s = arg;
    const char *type = json_string_at(line, "type", "");
    char err[300];
    if (!strcmp(type, "error") && !s->error[0])
        rb_fmt(s->error, sizeof s->error, "%s", json_string_at(line, "reason", "unknown error"));
    if (strcmp(type, "ceiling"))
        return;
    if (rb_ceiling_record_check(line, err, sizeof err) != 0) {
        if (!s->error[0])
            rb_fmt(s->error, sizeof s->error, "a malformed report: %s", err);
        return;
    }
    const char *key = json_string_at(line, "key", "");
    if (json_set_number(s->values, key, json_number_at(line, "value")) ||
        json_object_set(s->methods, key, json_clone(json_get(line, "method"))))
        rb_fmt(s->error, sizeof s->error, "out of memory");
}

json_value *rb_rank_platform(const rb_options *o, unsigned probes, char *line, size_t line_size)
{
    if (o->no_ceilings) {
        rb_fmt(line, line_size, "not measured (--no-ceilings)");
        return rb_platform_json(NULL, NULL, NULL);
    }
    platform_lines s = {json_new_object(), json_new_object(), ""};
    FILE *records = tmpfile();
    int device = 0;
    fresh_start();
    cudaGetDevice(&device);
    if (!s.values || !s.methods || !records)
        rb_fmt(s.error, sizeof s.error, "out of memory, or no temporary file");
    else if (rb_ceilings_child(fileno(records), RB_CEILINGS_QUICK, probes) != 0 && !s.error[0])
        rb_fmt(s.error, sizeof s.error, "the measurement failed");
    cudaSetDevice(device);
    if (records && read_records(records, on_platform_line, &s) != 0 && !s.error[0])
        rb_fmt(s.error, sizeof s.error, "cannot read back the records");
    if (records)
        fclose(records);
    json_value *p =
        rb_platform_json(s.error[0] ? NULL : s.values, s.methods, s.error[0] ? s.error : NULL);
    if (p && !s.error[0])
        rb_platform_text(p, line, line_size);
    else
        rb_fmt(line, line_size, "not measured: %s", s.error);
    json_free(s.values);
    json_free(s.methods);
    return p;
}

json_value *rb_rank_document(const rb_options *o, int argc, char **argv, const rb_expect *e,
                             const char *expect_path, const json_value *env_start,
                             json_value *env_end, json_value *platform, rb_pair_result *results,
                             int n, int *failing)
{
    const char *key = json_string_at(env_start, "hardware_key", "unknown");
    rb_roofs ceilings, peaks;
    rb_results_derive(e, key, results, n, &ceilings, &peaks);
    rb_expect_apply(e, results, n);
    /* counted again once the causes are known (below); this count stands if no document is made */
    *failing = rb_expect_failing(results, n, o->gate_all, o->fail_on_platform);
    json_value *meta =
        rb_results_meta("roofbench_mpi", o, argc, argv, env_start, e ? expect_path : NULL);
    if (!meta) {
        json_free(env_end);
        json_free(platform);
        return NULL;
    }
    /* each takes its value, also when it fails */
    int bad = json_object_set(json_get(meta, "environment"), "end", env_end);
    bad |= json_object_set(meta, "platform", platform);
    if (bad) {
        json_free(meta);
        return NULL;
    }
    json_value *doc = rb_report_json(results, n, &ceilings, &peaks, meta);
    if (doc)
        rb_runcmp_attribute_verdicts(e ? e->doc : NULL, doc, results, n);
    /* after the causes: a regression the machine explains gates only with --fail-on-platform */
    *failing = rb_expect_failing(results, n, o->gate_all, o->fail_on_platform);
    return doc;
}
