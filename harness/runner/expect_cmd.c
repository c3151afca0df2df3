/* SPDX-License-Identifier: MIT */
#include "expect_cmd.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/expect.h"
#include "model/expect_record.h"
#include "model/expect_stale.h"
#include "model/fingerprint.h"
#include "model/outputs.h"
#include "model/result.h"
#include "model/text.h"
#include "model/util.h"
#include "env.h"
#include "jobs.h"
#include "pair.h"

#define EXIT_USAGE 2

static int usage(const char *msg)
{
    static char shown[4 * 4096]; /* quotes paths and names from files: shown, not obeyed */
    rb_text_for_terminal(msg, shown, sizeof shown);
    fprintf(stderr, "roofbench: %s\n", shown);
    return EXIT_USAGE;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- the build, as the checker sees it ---- */

static void build_kernels(const rb_pair *p, rb_build_row *r)
{
    for (int i = 0; p->kernels && p->kernels[i].func && r->n_kernels < RB_MAX_KERNELS; i++) {
        const rb_kernel_info *ki = &p->kernels[i];
        rb_build_kernel *k = &r->kernels[r->n_kernels++];
        const rb_fingerprint *f = rb_fingerprint_find(rb_fingerprints, p->name, ki->name);
        rb_fmt(k->variant, sizeof k->variant, "%s", ki->variant);
        rb_fmt(k->name, sizeof k->name, "%s", ki->name);
        k->block_threads = ki->block_threads;
        k->dyn_smem = (double)ki->dyn_smem;
        k->sass_hash[0] = '\0';
        if (f)
            rb_fingerprint_hex(f->hash, k->sass_hash);
    }
}

int rb_expect_build(int gpus, rb_build *b)
{
    static rb_job jobs[RB_MAX_JOBS];
    rb_options all;
    char err[300];
    int n = 0;
    memset(&all, 0, sizeof all); /* a full run of every pair */
    memset(b, 0, sizeof *b);
    b->nvcc = rb_build_nvcc;
    b->arch = rb_build_arch;
    b->missing = rb_registry_missing;
    if (rb_jobs_select(&all, NULL, jobs, &n, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: the rows of this build's full run: %s\n", err);
        return -1;
    }
    rb_build_row *rows = calloc((size_t)n, sizeof *rows);
    if (!rows)
        return -1;
    for (int i = 0; i < n; i++) {
        const rb_job *j = &jobs[i];
        const rb_pair *p = j->pair;
        /* several GPUs together: the pairs that span them (the others run one GPU each, under
         * the one-GPU key: runner/node_run.c) */
        int min_gpus = rb_pair_ext_of(p)->min_gpus;
        if (min_gpus > gpus || (gpus > 1 && rb_pair_scope(p) != RB_SCOPE_SPAN) ||
            (j->swept && !rb_pair_sweeps_size(p, j->size.n, gpus)))
            continue;
        rb_build_row *r = &rows[b->n_rows++];
        rb_fmt(r->name, sizeof r->name, "%s", j->name);
        for (int k = 0; k < p->n_variants; k++)
            if (!rb_pair_swept_skips(p, k, j->input, j->size.n, j->swept))
                rb_fmt(r->variants[r->n_variants++], RB_NAME_MAX, "%s", p->variants[k].name);
        build_kernels(p, r);
    }
    b->rows = rows;
    return 0;
}

int rb_expect_file_gpus(const char *path)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    size_t len = strlen(name);
    if (len > 5 && !strcmp(name + len - 5, ".json"))
        len -= 5;
    size_t d = len;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d == len || d < 2 || name[d - 1] != 'x' || name[d - 2] != '-' || len - d > 3)
        return 1;
    int gpus = atoi(name + d);
    return gpus >= 2 ? gpus : 1;
}

/* ---- --check ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .json file in expectations/ of the current folder, sorted, into a malloc'd list of
 * malloc'd paths. */
static int committed_files(char ***out)
{
    DIR *d = opendir("expectations");
    int n = 0, cap = 0;
    char **list = NULL;
    *out = NULL;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **more = realloc(list, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *list);
            if (!more)
                break;
            list = more;
        }
        size_t size = len + sizeof "expectations/";
        if ((list[n] = malloc(size)) != NULL)
            rb_fmt(list[n++], size, "expectations/%s", e->d_name);
    }
    closedir(d);
    qsort(list, (size_t)n, sizeof *list, by_name);
    *out = list;
    return n;
}

/* One file against the build for its GPU count (builds[gpus], made when first needed). */
static int check_one(const char *path, rb_build *builds, int *made, FILE *out, FILE *err_out,
                     rb_check_counts *total)
{
    char err[RB_PATH_BUF + 600];
    rb_expect e;
    int gpus = rb_expect_file_gpus(path);
    if (gpus > RB_DEVICE_MAX)
        gpus = RB_DEVICE_MAX;
    if (rb_expect_load(path, &e, err, sizeof err) != 0) {
        char shown[sizeof err];
        rb_text_for_terminal(err, shown, sizeof shown);
        fprintf(err_out, "roofbench: %s\n", shown);
        return 2;
    }
    if (!made[gpus] && rb_expect_build(gpus, &builds[gpus]) != 0) {
        rb_expect_free(&e);
        fprintf(err_out, "roofbench: %s: this build's rows could not be listed\n", path);
        return 2;
    }
    made[gpus] = 1;
    rb_check_counts c;
    int differ = rb_expect_check_doc(e.doc, path, &builds[gpus], out, &c);
    rb_expect_free(&e);
    total->rows += c.rows;
    total->matched += c.matched;
    total->differ += c.differ;
    total->stale += c.stale;
    total->other += c.other;
    return differ ? 1 : 0;
}

int rb_expect_check_files(const char *const *paths, int n, FILE *out, FILE *err_out)
{
    if (rb_fingerprints_missing[0]) {
        fprintf(err_out,
                "roofbench: expectations --check: this build has no codegen fingerprints (%s): "
                "there is no code to compare the rows with\n",
                rb_fingerprints_missing);
        return 2;
    }
    char **found = NULL;
    if (n == 0 && (n = committed_files(&found)) <= 0) {
        fprintf(err_out, "roofbench: expectations --check: no expectations/*.json here\n");
        free(found);
        return 2;
    }
    static rb_build builds[RB_DEVICE_MAX + 1];
    int made[RB_DEVICE_MAX + 1] = {0}, rc = 0;
    rb_check_counts total = {0};
    for (int i = 0; i < n; i++) {
        int one = check_one(found ? found[i] : paths[i], builds, made, out, err_out, &total);
        rc = one > rc ? one : rc;
    }
    for (int g = 0; g <= RB_DEVICE_MAX; g++)
        if (made[g])
            free((void *)builds[g].rows);
    for (int i = 0; found && i < n; i++)
        free(found[i]);
    free(found);
    fprintf(out,
            "expectations --check: %d file(s), %d row(s): %d match this build (nvcc %s, %s), "
            "%d differ unmarked, %d marked stale, %d not compared (another toolkit or "
            "architecture, or a pair not built)\n",
            n, total.rows, total.matched, rb_build_nvcc, rb_build_arch, total.differ, total.stale,
            total.other);
    if (rc == 1)
        fprintf(out, "exit 1: a row whose code or variants changed since it was recorded must "
                     "be recorded again or marked stale (roofbench expectations --mark-stale)\n");
    return rc;
}

/* ---- --mark-stale ---- */

/* The file a command names: --expect FILE, or expectations/KEY.json. */
static void named_file(const rb_options *o, const char *key, char *path, size_t size)
{
    if (o->expect_path)
        rb_fmt(path, size, "%s", o->expect_path);
    else
        rb_fmt(path, size, "expectations/%s.json", key);
}

static int mark_stale_cmd(const rb_options *o)
{
    char path[RB_PATH_BUF], err[RB_PATH_BUF + 2200], date[32], *said = NULL;
    size_t said_len = 0;
    json_value *doc = NULL;
    int lock_fd = -1, marked = 0;
    named_file(o, o->key, path, sizeof path);
    if (!file_exists(path)) {
        rb_fmt(err, sizeof err, "%s: no such expectation file", path);
        return usage(err);
    }
    if (rb_expect_lock_and_load(path, &lock_fd, &doc, err, sizeof err) != 0)
        return usage(err);
    rb_utc_iso(date, sizeof date);
    FILE *lines = open_memstream(&said, &said_len); /* said once the file is written */
    int rc = lines ? rb_expect_mark_stale(doc, o->filter_re, o->why, rb_git_rev, date, lines, &marked,
                                          err, sizeof err)
                   : -1;
    if (!lines)
        rb_fmt(err, sizeof err, "out of memory");
    if (lines)
        fclose(lines);
    if (rc == 0 && rb_expect_validate(doc, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0 && json_write_file(path, doc, err, sizeof err) != 0)
        rc = -1;
    rb_unlock(lock_fd);
    json_free(doc);
    if (rc != 0) {
        free(said);
        char line[sizeof err + RB_PATH_BUF];
        rb_fmt(line, sizeof line, "%s: %s; nothing written", path, err);
        return usage(line);
    }
    fputs(said ? said : "", stdout);
    free(said);
    printf("expectations: %d row(s) of %s marked stale at %s (%s); a run judges their variants "
           "stale (not gating) until they are recorded again\n",
           marked, path, rb_git_rev, date);
    return 0;
}

/* ---- --record ---- */

/* The results files, parsed and checked to be results (rb_results_doc_check). 0, or the exit
 * code with the line said. */
static int load_runs(const rb_options *o, json_value **docs, rb_record_run *runs)
{
    char err[RB_PATH_BUF + 600], why[400];
    for (int i = 0; i < o->n_inputs; i++) {
        docs[i] = json_parse_file(o->inputs[i], err, sizeof err);
        if (!docs[i])
            return usage(err);
        if (rb_results_doc_check(docs[i], why, sizeof why) != 0) {
            rb_fmt(err, sizeof err, "%s: %s", o->inputs[i], why);
            return usage(err);
        }
        runs[i].path = o->inputs[i];
        runs[i].doc = docs[i];
    }
    return 0;
}

/* The expectation file the record goes to, checked as an output (never one of the runs). */
static int record_target(const rb_options *o, const json_value *first, rb_outputs *outs, char *path,
                         size_t size, int *index)
{
    char err[RB_PATH_BUF + 300];
    const char *key = json_string_at(first, "hardware_key", "");
    if (!o->expect_path && !rb_is_hardware_key(key)) {
        rb_fmt(err, sizeof err, "%s: names no hardware key: give --expect FILE", o->inputs[0]);
        return usage(err);
    }
    named_file(o, key, path, size);
    for (int i = 0; i < o->n_inputs; i++)
        rb_outputs_input(outs, o->inputs[i], "a results file", 0);
    rb_outputs_input(outs, path, "the expectation file", 1);
    *index = rb_outputs_add(outs, path, "the expectation file",
                            RB_OUT_MAKE_DIRS | RB_OUT_REPLACES_INPUT);
    if (*index < 0 || rb_outputs_check(outs, err, sizeof err) != 0)
        return usage(*index < 0 ? "out of memory" : err);
    return 0;
}

/* What the record says once written: the rows whose marks it cleared, the machines and runs,
 * the thresholds. */
static void record_said(const char *path, const json_value *before, const json_value *doc,
                        const rb_pair_result *rows, int n)
{
    const json_value *prov = json_get(doc, "provenance"), *gpus = json_get(prov, "gpus");
    rb_expect_say_cleared(stdout, before, rows, n);
    printf("expectations: %s recorded from %.0f run(s) on %.0f machine(s) (", path,
           json_number_at(prov, "runs"), json_number_at(prov, "machines"));
    for (size_t i = 0; gpus && i < gpus->count; i++)
        printf("%s%s", i ? ", " : "", gpus->items[i]->string);
    printf("): %d row group(s); the regression thresholds:\n", n);
    rb_expect_print_thresholds(stdout, doc, rows, n);
}

/* Records into the file, under its lock. 0, or the exit code with the line said. */
static int record_locked(const rb_options *o, const char *path, const rb_record_run *runs,
                         rb_outputs *outs, int index)
{
    char err[RB_PATH_BUF + 2200];
    json_value *doc = NULL, *before = NULL;
    rb_pair_result *rows = NULL;
    int lock_fd = -1, n = 0, rc = 0;
    const char *device =
        json_string_at(json_get(json_get(runs[0].doc, "environment"), "start"), "device", "?");
    if (rb_expect_lock_and_load(path, &lock_fd, &doc, err, sizeof err) != 0)
        return usage(err);
    if (doc && rb_expect_same_device(doc, device, err, sizeof err) != 0)
        rc = -1;
    before = rc == 0 && doc ? json_clone(doc) : NULL;
    if (rc == 0)
        rc = rb_expect_record_select(&doc, runs, o->n_inputs, o->filter_re, &rows, &n, err,
                                     sizeof err);
    if (rc == 0)
        rc = rb_expect_validate(doc, err, sizeof err);
    char *text = rc == 0 ? json_write(doc, 2) : NULL;
    if (rc == 0 && !text) {
        rb_fmt(err, sizeof err, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = rb_outputs_stage_text(outs, index, text, err, sizeof err);
    if (rc == 0)
        rc = rb_outputs_commit(outs, err, sizeof err);
    free(text);
    rb_unlock(lock_fd);
    if (rc == 0)
        record_said(path, before, doc, rows, n);
    free(rows);
    json_free(before);
    json_free(doc);
    if (rc == 0)
        return 0;
    char line[sizeof err + RB_PATH_BUF];
    rb_fmt(line, sizeof line, "%s; nothing written to %s", err, path);
    return usage(line);
}

static int record_cmd(const rb_options *o)
{
    char path[RB_PATH_BUF];
    json_value *docs[RB_CLI_MAX_INPUTS] = {0};
    rb_record_run runs[RB_EXPECT_MAX_REPEAT];
    int index = -1, rc;
    if (o->n_inputs > RB_EXPECT_MAX_REPEAT) {
        char err[120];
        rb_fmt(err, sizeof err, "--record takes at most %d results files, not %d",
               RB_EXPECT_MAX_REPEAT, o->n_inputs);
        return usage(err);
    }
    rb_outputs *outs = rb_outputs_new(0);
    if (!outs)
        return usage("out of memory");
    rc = load_runs(o, docs, runs);
    if (rc == 0)
        rc = record_target(o, docs[0], outs, path, sizeof path, &index);
    if (rc == 0)
        rc = record_locked(o, path, runs, outs, index);
    for (int i = 0; i < o->n_inputs; i++)
        json_free(docs[i]);
    rb_outputs_free(outs);
    return rc;
}

int rb_expect_cmd(const rb_options *o)
{
    if (o->mark_stale)
        return mark_stale_cmd(o);
    if (o->record)
        return record_cmd(o);
    return rb_expect_check_files(o->inputs, o->n_inputs, stdout, stderr);
}
