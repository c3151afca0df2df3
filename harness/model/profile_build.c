/* SPDX-License-Identifier: MIT */
/* A capture's launches gathered into the variants of the profiled jobs, and the work-model check
 * (model/profile.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

/* Where a launch ran: its process in its table (PIDs of parts profiled apart may repeat). */
static long long source_of(const rb_profile_launch *l)
{
    return (long long)l->table << 40 | (l->process & ((1LL << 40) - 1));
}

/* The variant of job j whose kernel table names kernel, or -1. */
static int variant_of(const rb_profile_job *j, const char *kernel)
{
    for (int k = 0; k < j->n_kernels; k++)
        if (!strcmp(j->kernels[k].kernel, kernel))
            for (int v = 0; v < j->n_variants; v++)
                if (!strcmp(j->variants[v], j->kernels[k].variant))
                    return v;
    return -1;
}

/* The job a launch belongs to: the job its process was given to when that job names the kernel,
 * else the first job naming the kernel that no process has yet (one child process per job, in
 * the jobs' order), else the first job naming it. -1: no job names it. */
static int job_of(const rb_profile_launch *l, const rb_profile_job *jobs, int n_jobs,
                  long long *job_process)
{
    int first = -1, fresh = -1;
    for (int j = 0; j < n_jobs; j++) {
        if (variant_of(&jobs[j], l->kernel) < 0)
            continue;
        if (job_process[j] == source_of(l))
            return j;
        if (first < 0)
            first = j;
        if (fresh < 0 && job_process[j] < 0)
            fresh = j;
    }
    if (fresh >= 0) {
        job_process[fresh] = source_of(l);
        return fresh;
    }
    return first;
}

static void add_stall(rb_profile_variant *v, const rb_profile_stall *s, double weight)
{
    for (int k = 0; k < v->n_stalls; k++)
        if (!strcmp(v->stalls[k].reason, s->reason)) {
            v->stalls[k].value += weight * s->value;
            return;
        }
    if (v->n_stalls == RB_PROFILE_MAX_STALLS)
        return;
    v->stalls[v->n_stalls] = *s;
    v->stalls[v->n_stalls++].value = weight * s->value;
}

static double sum_nan(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a + b;
}

/* The launch's share of its variant's time, for the averages (occupancy, stalls): each launch
 * counts by its duration, or as one when the capture has no duration. */
static double launch_weight(const rb_profile_launch *l)
{
    return isnan(l->v[RB_PM_TIME_S]) || !(l->v[RB_PM_TIME_S] > 0) ? 1 : l->v[RB_PM_TIME_S];
}

static void add_launch_to(rb_profile_variant *v, const rb_profile_launch *l)
{
    double w = launch_weight(l);
    int named = 0;
    for (int k = 0; k < v->n_names && k < 4; k++)
        named |= !strcmp(v->kernels[k], l->kernel);
    if (!named && v->n_names++ < 4)
        rb_fmt(v->kernels[v->n_names - 1], sizeof v->kernels[0], "%s", l->kernel);
    for (int m = 0; m < RB_PM_COUNT; m++) {
        if (m == RB_PM_REGISTERS) {
            if (!(v->v[m] >= l->v[m]))
                v->v[m] = isnan(l->v[m]) ? v->v[m] : l->v[m];
        } else if (m == RB_PM_OCCUPANCY_PCT || m == RB_PM_TENSOR_ACTIVE_PCT) {
            /* summed weighted here, divided by the weights in finish_variant */
            if (!isnan(l->v[m]))
                v->v[m] = sum_nan(v->v[m], w * l->v[m]);
        } else {
            v->v[m] = sum_nan(v->v[m], l->v[m]);
        }
    }
    for (int s = 0; s < l->n_stalls; s++)
        add_stall(v, &l->stalls[s], w);
    v->n_kernels++;
    v->profiled = 1;
}

static int by_stall_value(const void *a, const void *b)
{
    double x = ((const rb_profile_stall *)a)->value, y = ((const rb_profile_stall *)b)->value;
    return x < y ? 1 : x > y ? -1 : strcmp(((const rb_profile_stall *)a)->reason,
                                           ((const rb_profile_stall *)b)->reason);
}

static void finish_variant(rb_profile_variant *v, double weights, int link_bytes)
{
    if (!v->profiled)
        return;
    if (weights > 0) {
        v->v[RB_PM_OCCUPANCY_PCT] /= weights;
        v->v[RB_PM_TENSOR_ACTIVE_PCT] /= weights;
        for (int k = 0; k < v->n_stalls; k++)
            v->stalls[k].value /= weights;
    }
    qsort(v->stalls, (size_t)v->n_stalls, sizeof v->stalls[0], by_stall_value);
    double measured = rb_profile_dram_bytes(v), declared = v->declared_bytes;
    if (link_bytes || !(declared > 0) || isnan(measured))
        v->bytes_verdict = RB_PB_UNCHECKED;
    else if (measured > declared * (1 + RB_PROFILE_BYTES_TOLERANCE))
        v->bytes_verdict = RB_PB_MORE;
    else if (measured < declared * (1 - RB_PROFILE_BYTES_TOLERANCE))
        v->bytes_verdict = RB_PB_LESS;
    else
        v->bytes_verdict = RB_PB_MATCHES;
}

static void start_variant(rb_profile_variant *v, const rb_profile_job *j, int k)
{
    memset(v, 0, sizeof *v);
    rb_fmt(v->pair, sizeof v->pair, "%s", j->pair);
    rb_fmt(v->row, sizeof v->row, "%s", j->row);
    rb_fmt(v->variant, sizeof v->variant, "%s", j->variants[k]);
    for (int m = 0; m < RB_PM_COUNT; m++)
        v->v[m] = NAN;
    v->declared_flops = j->flops;
    v->declared_bytes = j->bytes[k];
}

/* Whether launch i's kernel ran earlier in its process: `check` runs each variant twice, and
 * only the first launch is the profile's. */
static int repeated(const rb_profile_capture *c, int i)
{
    for (int k = 0; k < i; k++)
        if (source_of(&c->launches[k]) == source_of(&c->launches[i]) &&
            !strcmp(c->launches[k].kernel, c->launches[i].kernel))
            return 1;
    return 0;
}

/* The open profile window of each process (model/profile.h): the sources seen and, for each,
 * the job and variant of its last mark (open 0: no mark yet; job -1: a mark for no job here). */
typedef struct windows {
    int n;
    long long *source;
    int *open, *job, *variant;
} windows;

static int windows_make(windows *w, int launches)
{
    size_t n = (size_t)(launches ? launches : 1);
    w->n = 0;
    w->source = malloc(n * sizeof *w->source);
    w->open = malloc(n * sizeof *w->open);
    w->job = malloc(n * sizeof *w->job);
    w->variant = malloc(n * sizeof *w->variant);
    return w->source && w->open && w->job && w->variant ? 0 : -1;
}

static void windows_free(windows *w)
{
    free(w->source);
    free(w->open);
    free(w->job);
    free(w->variant);
}

static int window_of(windows *w, const rb_profile_launch *l)
{
    for (int i = 0; i < w->n; i++)
        if (w->source[i] == source_of(l))
            return i;
    w->source[w->n] = source_of(l);
    w->open[w->n] = 0;
    w->job[w->n] = w->variant[w->n] = -1;
    return w->n++;
}

/* The job of a mark: the one of its pair and input that its process already has, else the first
 * of them that no process has yet (a sweep's rows run one process each, in order). -1: none. */
static int job_of_mark(const rb_profile_launch *l, const rb_profile_job *jobs, int n_jobs,
                       long long *job_process)
{
    int fresh = -1;
    for (int j = 0; j < n_jobs; j++) {
        if (jobs[j].pair_index != l->grid[1] - 1 || jobs[j].input != l->grid[2] - 1)
            continue;
        if (job_process[j] == source_of(l))
            return j;
        if (fresh < 0 && job_process[j] < 0)
            fresh = j;
    }
    if (fresh >= 0)
        job_process[fresh] = source_of(l);
    return fresh;
}

/* A launch read through the windows: 1 with *j = -2 for a mark (the window opened), 1 with *j
 * and *k (-1: no such job or variant here) for a launch inside one, 0 when its process has no
 * window (then matched by name). */
static int windowed(windows *w, const rb_profile_launch *l, const rb_profile_job *jobs,
                    int n_jobs, long long *job_process, rb_profile *out, int *j, int *k)
{
    int i = window_of(w, l);
    if (!strcmp(l->kernel, RB_PROFILE_MARK_KERNEL) && l->grid[0] > 0) {
        w->open[i] = 1;
        w->job[i] = job_of_mark(l, jobs, n_jobs, job_process);
        w->variant[i] = w->job[i] >= 0 && l->grid[0] <= jobs[w->job[i]].n_variants
                            ? l->grid[0] - 1
                            : -1;
        out->windows++;
        *j = -2;
        return 1;
    }
    *j = w->variant[i] >= 0 ? w->job[i] : -1;
    *k = w->variant[i];
    return w->open[i];
}

int rb_profile_build(const rb_profile_capture *c, const rb_profile_job *jobs, int n_jobs,
                     rb_profile *out)
{
    memset(out, 0, sizeof *out);
    rb_fmt(out->device, sizeof out->device, "%s", c->device);
    int total = 0;
    for (int j = 0; j < n_jobs; j++)
        total += jobs[j].n_variants;
    if (total > RB_PROFILE_MAX_VARIANTS)
        total = RB_PROFILE_MAX_VARIANTS;
    out->variants = calloc((size_t)(total ? total : 1), sizeof *out->variants);
    int *first = calloc((size_t)n_jobs + 1, sizeof *first);
    long long *job_process = malloc(((size_t)n_jobs + 1) * sizeof *job_process);
    double *weights = calloc((size_t)(total ? total : 1), sizeof *weights);
    if (!out->variants || !first || !job_process || !weights) {
        free(first);
        free(job_process);
        free(weights);
        rb_profile_free(out);
        return -1;
    }
    for (int j = 0; j < n_jobs; j++) {
        first[j] = out->n;
        job_process[j] = -1;
        for (int k = 0; k < jobs[j].n_variants && out->n < total; k++)
            start_variant(&out->variants[out->n++], &jobs[j], k);
    }
    windows win;
    if (windows_make(&win, c->n) != 0) {
        windows_free(&win);
        free(first);
        free(job_process);
        free(weights);
        rb_profile_free(out);
        return -1;
    }
    for (int i = 0; i < c->n; i++) {
        const rb_profile_launch *l = &c->launches[i];
        int j, k;
        if (windowed(&win, l, jobs, n_jobs, job_process, out, &j, &k)) {
            if (j == -2)
                continue; /* the mark itself */
        } else if (repeated(c, i)) {
            out->repeats++;
            continue;
        } else {
            j = job_of(l, jobs, n_jobs, job_process);
            k = j < 0 ? -1 : variant_of(&jobs[j], l->kernel);
        }
        if (j < 0 || k < 0 || first[j] + k >= out->n) {
            out->unmatched++;
            continue;
        }
        add_launch_to(&out->variants[first[j] + k], l);
        weights[first[j] + k] += launch_weight(l);
    }
    for (int j = 0; j < n_jobs; j++)
        for (int k = 0; k < jobs[j].n_variants && first[j] + k < out->n; k++)
            finish_variant(&out->variants[first[j] + k], weights[first[j] + k],
                           jobs[j].link_bytes);
    windows_free(&win);
    free(first);
    free(job_process);
    free(weights);
    return 0;
}

void rb_profile_free(rb_profile *p)
{
    free(p->variants);
    memset(p, 0, sizeof *p);
}

double rb_profile_dram_bytes(const rb_profile_variant *v)
{
    if (!v->profiled)
        return NAN;
    return v->v[RB_PM_DRAM_BYTES];
}

double rb_profile_flops(const rb_profile_variant *v)
{
    double f = NAN;
    for (int m = RB_PM_FP32_FLOPS; m <= RB_PM_TENSOR_FP64_OPS; m++)
        f = sum_nan(f, v->v[m]);
    return f;
}

double rb_profile_stall_share(const rb_profile_variant *v, int k)
{
    double total = 0;
    for (int i = 0; i < v->n_stalls; i++)
        total += v->stalls[i].value;
    return k >= 0 && k < v->n_stalls && total > 0 ? v->stalls[k].value / total : 0;
}
