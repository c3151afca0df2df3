/* SPDX-License-Identifier: MIT */
/* `roofbench profile` (cmd_profile.h): ncu found and run on `check`, or captures read; the
 * profile built, drawn and written as one set of files. */
#include "cmd_profile.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "model/floors.h"
#include "model/outputs.h"
#include "model/profile.h"
#include "model/util.h"
#include "pair.h"
#include "report/profile_out.h"
#include "runner.h"

enum { PROFILE_OK = 0, PROFILE_USAGE = 2 };

static int profile_error(const char *msg)
{
    static char shown[4 * 4096];
    rb_text_for_terminal(msg, shown, sizeof shown);
    fprintf(stderr, "roofbench: %s\n", shown);
    return PROFILE_USAGE;
}

/* What the profile knows of the jobs: work models and kernel tables (static: the command runs
 * once per process). */
static rb_profile_job profile_jobs[RB_MAX_JOBS];
static rb_profile_kernel_ref profile_refs[RB_MAX_JOBS][RB_MAX_KERNELS];

static void describe_jobs(const rb_job *jobs, int n)
{
    for (int i = 0; i < n; i++) {
        const rb_pair *p = jobs[i].pair;
        rb_profile_job *j = &profile_jobs[i];
        const rb_pair_ext *ext = rb_pair_ext_of(p);
        double flops = p->flops(&jobs[i].size), bytes = p->bytes(&jobs[i].size);
        if (ext->work)
            ext->work(&jobs[i].size, jobs[i].input, &flops, &bytes);
        memset(j, 0, sizeof *j);
        j->pair = p->name;
        j->row = jobs[i].name;
        j->flops = flops;
        j->link_bytes = ext->link_bytes;
        j->n_variants = p->n_variants < RB_MAX_VARIANTS ? p->n_variants : RB_MAX_VARIANTS;
        for (int k = 0; k < j->n_variants; k++) {
            j->variants[k] = p->variants[k].name;
            j->bytes[k] = p->variants[k].bytes ? p->variants[k].bytes(&jobs[i].size) : bytes;
        }
        for (int k = 0; p->kernels && p->kernels[k].name && k < RB_MAX_KERNELS; k++) {
            profile_refs[i][k].variant = p->kernels[k].variant;
            profile_refs[i][k].kernel = p->kernels[k].name;
            j->n_kernels = k + 1;
        }
        j->kernels = profile_refs[i];
        j->pair_index = rb_registry_index(p);
        j->input = jobs[i].input;
    }
}

/* ncu: $CUDA_HOME/bin/ncu, else the first ncu on PATH. 0, or -1. */
static int find_ncu(char *out, size_t size)
{
    const char *home = getenv("CUDA_HOME");
    if (home && *home && rb_fmt_fits(out, size, "%s/bin/ncu", home) == 0 && access(out, X_OK) == 0)
        return 0;
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        if (len && rb_fmt_fits(out, size, "%.*s/ncu", (int)len, path) == 0 &&
            access(out, X_OK) == 0)
            return 0;
        path += len + (path[len] == ':');
    }
    return -1;
}

/* A program run with its standard output and error sent to files (NULL: kept). */
typedef struct spawn_args {
    char *const *argv;
    const char *out_path, *err_path;
} spawn_args;

static int redirect(int fd, const char *path)
{
    int f = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;
    if (!path)
        return 0;
    if (f < 0 || dup2(f, fd) < 0)
        return -1;
    close(f);
    return 0;
}

static int spawn_child(void *arg, int fd)
{
    const spawn_args *a = arg;
    close(fd);
    rb_runner_default_signals();
    if (redirect(STDOUT_FILENO, a->out_path) != 0 || redirect(STDERR_FILENO, a->err_path) != 0)
        _exit(126);
    execv(a->argv[0], a->argv);
    _exit(127);
}

static int spawn(char *const *argv, const char *out_path, const char *err_path, double timeout_s,
                 char *why, size_t why_size)
{
    spawn_args a = {argv, out_path, err_path};
    return rb_run_child(spawn_child, &a, timeout_s, NULL, NULL, why, why_size);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    rb_sbuf b = {0};
    rb_sbuf_copy(&b, f);
    fclose(f);
    return rb_sbuf_take(&b);
}

/* ncu's first "==ERROR==" line in text, or its first line; "" when empty. */
static void ncu_error_line(const char *text, char *out, size_t size)
{
    const char *e = text ? strstr(text, "==ERROR==") : NULL;
    const char *line = e ? e : text ? text : "";
    rb_fmt(out, size, "%.*s", (int)strcspn(line, "\n"), line);
}

/* The scratch folder of one profile: the report, ncu's log, the raw CSV. */
typedef struct scratch {
    char dir[RB_PATH_BUF], rep[RB_PATH_BUF], err[RB_PATH_BUF], csv[RB_PATH_BUF], ver[RB_PATH_BUF];
} scratch;

static int scratch_make(scratch *s)
{
    const char *tmp = getenv("TMPDIR");
    if (rb_fmt_fits(s->dir, sizeof s->dir, "%s/roofbench-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp") ||
        !mkdtemp(s->dir))
        return -1;
    rb_fmt(s->rep, sizeof s->rep, "%s/profile.ncu-rep", s->dir);
    rb_fmt(s->err, sizeof s->err, "%s/ncu.err", s->dir);
    rb_fmt(s->csv, sizeof s->csv, "%s/raw.csv", s->dir);
    rb_fmt(s->ver, sizeof s->ver, "%s/version.txt", s->dir);
    return 0;
}

static void scratch_remove(const scratch *s)
{
    unlink(s->rep);
    unlink(s->err);
    unlink(s->csv);
    unlink(s->ver);
    rmdir(s->dir);
}

/* The options of the command line that `check` under ncu is given. */
static int check_args(int argc, char **argv, char **out, int max)
{
    static const char *const pass[] = {"--filter", "--size", "--device", "--timeout"};
    int n = 0;
    for (int i = 2; i + 1 < argc && n + 2 <= max; i++)
        for (size_t k = 0; k < sizeof pass / sizeof pass[0]; k++)
            if (!strcmp(argv[i], pass[k])) {
                out[n++] = argv[i];
                out[n++] = argv[++i];
                break;
            }
    return n;
}

/* Runs ncu on `check`; the raw CSV's text into *csv (caller frees) and ncu's version line. The
 * exit code: 0, or 2 with the line said. */
static int run_ncu(const char *ncu, const rb_options *o, int n, int argc,
                   char **argv, char **csv, char *version, size_t version_size)
{
    scratch s;
    char self[RB_PATH_BUF], why[600], line[600];
    rb_sbuf metrics = {0};
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0 || scratch_make(&s) != 0)
        return profile_error("profile: cannot make a scratch folder or find its own binary");
    self[len] = '\0';
    char *ver_argv[] = {(char *)ncu, "--version", NULL};
    int rc = spawn(ver_argv, s.ver, s.err, 60, why, sizeof why);
    char *ver = rc == 0 ? slurp(s.ver) : NULL;
    const char *v = ver ? strstr(ver, "Version ") : NULL;
    rb_fmt(version, version_size, "%.*s", v ? (int)strcspn(v, "\n") : 1, v ? v : "?");
    free(ver);
    rb_profile_ncu_metrics(&metrics);
    char *metric_list = rb_sbuf_take(&metrics);
    char *args[48] = {(char *)ncu, "--clock-control", "none", "--target-processes", "all",
                      "--profile-from-start", "off", "--metrics", metric_list, "--section",
                      "WarpStateStats", "--export", s.rep, "--force-overwrite", self, "check"};
    int k = 16;
    k += check_args(argc, argv, args + k, 40 - k);
    args[k] = NULL;
    double timeout_s = o->timeout_s * (n + 1) + 600;
    setenv(RB_PROFILE_WINDOWS_ENV, "1", 1); /* check opens one window per variant */
    rc = metric_list ? spawn(args, NULL, s.err, timeout_s, why, sizeof why) : -1;
    unsetenv(RB_PROFILE_WINDOWS_ENV);
    free(metric_list);
    char *err = slurp(s.err);
    if (err)
        fputs(err, stderr);
    struct stat st;
    if (rc < 0 || stat(s.rep, &st) != 0) {
        ncu_error_line(err, line, sizeof line);
        int perm = err && strstr(err, "ERR_NVGPUCTRPERM");
        free(err);
        scratch_remove(&s);
        if (rb_runner_interrupted())
            return 128 + rb_runner_interrupted();
        rb_fmt(why, sizeof why, "profile: %s: %s", perm ? "ncu may not read this GPU's performance "
                                                          "counters (nothing written)"
                                                        : "ncu wrote no report (nothing written)",
               line[0] ? line : rc < 0 ? why : "no ==ERROR== line");
        return profile_error(why);
    }
    free(err);
    if (rc != 0)
        fprintf(stderr, "roofbench: profile: check under ncu exit %d (a variant is invalid, or a "
                        "pair failed): its launches are profiled all the same\n", rc);
    char *import_argv[] = {(char *)ncu, "--import", s.rep, "--page", "raw", "--csv", NULL};
    rc = spawn(import_argv, s.csv, s.err, 600, why, sizeof why);
    *csv = rc == 0 ? slurp(s.csv) : NULL;
    scratch_remove(&s);
    if (!*csv)
        return profile_error("profile: ncu --import --page raw --csv failed (nothing written)");
    return PROFILE_OK;
}

/* The captures given as operands, one after the other. 0, or 2 with the line said. */
static int read_captures(const rb_options *o, char **csv)
{
    rb_sbuf b = {0};
    for (int i = 0; i < o->n_inputs; i++) {
        char *t = slurp(o->inputs[i]);
        if (!t) {
            rb_sbuf_free(&b);
            char msg[RB_PATH_BUF + 64];
            rb_fmt(msg, sizeof msg, "profile: cannot read %s", o->inputs[i]);
            return profile_error(msg);
        }
        rb_sbuf_add(&b, "%s\n", t);
        free(t);
    }
    *csv = rb_sbuf_take(&b);
    return *csv ? PROFILE_OK : profile_error("out of memory");
}

/* The roofs: --expect FILE, none, or <repository>/expectations/<hardware-key>.json. */
static int load_roofs(const rb_options *o, const char *device, rb_profile_roofs *r)
{
    char path[RB_PATH_BUF], key[160], err[600];
    rb_profile_roofs_none(r);
    if (o->expect_none)
        return PROFILE_OK;
    if (o->expect_path) {
        rb_fmt(path, sizeof path, "%s", o->expect_path);
    } else {
        char root[RB_PATH_BUF];
        rb_hardware_key(device, key, sizeof key);
        if (rb_floors_source_root(rb_source_root, root, sizeof root) != 0 ||
            rb_fmt_fits(path, sizeof path, "%s/expectations/%s.json", root, key) != 0 ||
            access(path, R_OK) != 0) {
            printf("no expectation file for %s: the chart has no roofs\n", device);
            return PROFILE_OK;
        }
    }
    json_value *e = json_parse_file(path, err, sizeof err);
    if (!e) {
        char msg[RB_PATH_BUF + 700];
        rb_fmt(msg, sizeof msg, "profile: --expect %s: %s", path, err);
        return profile_error(msg);
    }
    rb_profile_roofs_from(e, path, r);
    json_free(e);
    return PROFILE_OK;
}

static void command_line(int argc, char **argv, char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(out);
        rb_fmt(out + len, size - len, "%s%s", i ? " " : "roofbench", i ? argv[i] : "");
    }
}

/* The files of -o BASE, registered and checked before any work. */
enum { OUT_JSON, OUT_MD, OUT_SVG, OUT_HTML, OUT_CSV, OUT_COUNT };
static int register_outputs(rb_outputs *outs, const rb_options *o, int with_csv)
{
    static const char *const ext[OUT_COUNT] = {".json", ".md", ".svg", ".html", ".ncu.csv"};
    char path[RB_PATH_BUF], err[RB_PATH_BUF + 300];
    for (int i = 0; i < o->n_inputs; i++)
        if (rb_outputs_input(outs, o->inputs[i], "NCU.csv", 0) != 0)
            return profile_error("out of memory");
    for (int k = 0; k < (with_csv ? OUT_COUNT : OUT_CSV); k++)
        if (rb_fmt_fits(path, sizeof path, "%s%s", o->out_base, ext[k]) != 0 ||
            rb_outputs_add(outs, path, "-o", RB_OUT_MAKE_DIRS) != k)
            return profile_error("profile: -o BASE is too long");
    if (rb_outputs_check(outs, err, sizeof err) != 0)
        return profile_error(err);
    return PROFILE_OK;
}

/* Builds, shows and writes the profile of csv. */
static int write_profile(const rb_options *o, rb_outputs *outs, const char *csv,
                         const rb_profile_meta *meta, int n)
{
    rb_profile_capture cap;
    rb_profile prof;
    rb_profile_roofs roofs;
    char err[600];
    if (rb_profile_parse(csv, strlen(csv), &cap, err, sizeof err) != 0) {
        char msg[700];
        rb_fmt(msg, sizeof msg, "profile: the capture: %s (nothing written)", err);
        return profile_error(msg);
    }
    int rc = rb_profile_build(&cap, profile_jobs, n, &prof) != 0 ? profile_error("out of memory")
                                                                   : PROFILE_OK;
    rb_profile_capture_free(&cap);
    if (rc == PROFILE_OK)
        rc = load_roofs(o, prof.device, &roofs);
    json_value *doc = rc == PROFILE_OK ? rb_profile_document(&prof, &roofs, meta) : NULL;
    rb_sbuf md = {0}, svg = {0}, html = {0}, text = {0};
    if (doc) {
        rb_profile_tables(&md, &prof, &roofs, 1);
        rb_plot_hier_svg(&svg, &prof, &roofs);
        rb_profile_html(&html, &prof, &roofs, "roofbench profile");
        rb_profile_tables(&text, &prof, &roofs, 0);
    }
    char *parts[5] = {doc ? json_write(doc, 2) : NULL, rb_sbuf_take(&md), rb_sbuf_take(&svg),
                      rb_sbuf_take(&html), rb_sbuf_take(&text)};
    json_free(doc);
    rb_profile_free(&prof);
    for (int k = 0; rc == PROFILE_OK && k < 4; k++)
        if (!parts[k] ||
            rb_outputs_stage_text(outs, k, parts[k], err, sizeof err) != 0)
            rc = profile_error(parts[k] ? err : "out of memory");
    if (rc == PROFILE_OK && rb_outputs_count(outs) > OUT_CSV &&
        rb_outputs_stage_text(outs, OUT_CSV, csv, err, sizeof err) != 0)
        rc = profile_error(err);
    if (rc == PROFILE_OK && rb_outputs_commit(outs, err, sizeof err) != 0)
        rc = profile_error(err);
    if (rc == PROFILE_OK && parts[4]) {
        fputs(parts[4], stdout);
        printf("wrote %s.json, .md, .svg, .html%s\n", o->out_base,
               rb_outputs_count(outs) > OUT_CSV ? ", .ncu.csv" : "");
    }
    for (int k = 0; k < 5; k++)
        free(parts[k]);
    return rc;
}

int rb_profile_cmd(const rb_options *o, const rb_job *jobs, int n, int argc, char **argv)
{
    char ncu[RB_PATH_BUF], version[200] = "?", date[32], cmd[4096];
    int from_captures = o->n_inputs > 0;
    if (!from_captures && find_ncu(ncu, sizeof ncu) != 0)
        return profile_error("profile: no ncu (Nsight Compute) in $CUDA_HOME/bin or on PATH; it "
                             "comes with the CUDA Toolkit (nothing written)");
    rb_outputs *outs = rb_outputs_new(0);
    if (!outs)
        return profile_error("out of memory");
    describe_jobs(jobs, n);
    double t0 = rb_now_s();
    char *csv = NULL;
    int rc = register_outputs(outs, o, !from_captures);
    if (rc == PROFILE_OK)
        rc = from_captures ? read_captures(o, &csv)
                           : run_ncu(ncu, o, n, argc, argv, &csv, version, sizeof version);
    rb_utc_iso(date, sizeof date);
    command_line(argc, argv, cmd, sizeof cmd);
    const char *size = "full";
    for (int i = 2; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--size"))
            size = argv[i + 1];
    rb_profile_meta meta = {rb_git_rev, date, size, from_captures ? "from captures" : version, cmd,
                            from_captures ? NAN : rb_now_s() - t0};
    if (rc == PROFILE_OK)
        rc = write_profile(o, outs, csv, &meta, n);
    free(csv);
    rb_outputs_free(outs);
    return rc;
}
