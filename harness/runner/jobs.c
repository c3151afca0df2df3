/* SPDX-License-Identifier: MIT */
#include "jobs.h"

#include <stdio.h>
#include <string.h>

#include "model/ceiling_record.h"
#include "model/util.h"

static rb_size requested_size(const rb_pair *p, const rb_options *o)
{
    rb_size s = {0, 0, 0};
    if (o->size_kind == RB_SIZE_N)
        return o->size;
    s.n = o->size_kind == RB_SIZE_SMOKE ? p->smoke_size : p->full_size;
    return s;
}

rb_scope rb_pair_scope(const rb_pair *p)
{
    const rb_pair_ext *e = rb_pair_ext_of(p);
    if (e->min_gpus >= 2 || e->setup_rank)
        return RB_SCOPE_SPAN;
    return e->host_shared ? RB_SCOPE_HOST : RB_SCOPE_LOCAL;
}

int rb_jobs_select(const rb_options *o, int (*keep)(const rb_pair *p), rb_job *jobs, int *n,
                   char *err, size_t err_size)
{
    *n = 0;
    int rc = 0;
    for (int i = 0; rb_registry[i] && rc == 0; i++) {
        const rb_pair *p = rb_registry[i];
        if ((keep && !keep(p)) || (o->scope != RB_SCOPE_ALL && rb_pair_scope(p) != o->scope))
            continue;
        /* A full run of a pair with a sweep takes each size of its input's sweep; any other
         * run one size. */
        for (int k = 0; k < (p->n_inputs ? p->n_inputs : 1) && rc == 0; k++) {
            const rb_pair_ext *e = rb_pair_ext_of(p);
            const uint64_t *sizes = e->input_sweep[k] ? e->input_sweep[k] : e->sweep;
            int sweep = sizes && sizes[0] && o->size_kind == RB_SIZE_FULL;
            for (int si = 0; rc == 0 && (si == 0 || (sweep && sizes[si])); si++) {
                rb_job *j = &jobs[*n];
                j->pair = p;
                j->input = k;
                char at[32] = "";
                rb_size want = requested_size(p, o);
                j->swept = sweep;
                if (sweep) {
                    want.n = sizes[si];
                    at[0] = '@';
                    rb_format_count(want.n, at + 1, sizeof at - 1);
                }
                rb_fmt(j->name, sizeof j->name, "%s%s%s%s", p->name, p->n_inputs ? "." : "",
                       p->n_inputs ? p->inputs[k] : "", at);
                /* A pair's own name selects all its rows: '^sgemm$' is every size of sgemm. */
                if (!rb_filter_match(o->filter_re, j->name) &&
                    !rb_filter_match(o->filter_re, p->name))
                    continue;
                char why[200];
                if (rb_pair_resolve_size(p, &want, &j->size, why, sizeof why) != 0) {
                    rb_fmt(err, err_size, "%s: --size: %s", j->name, why);
                    rc = -1;
                } else if (++*n == RB_MAX_JOBS) {
                    rb_fmt(err, err_size, "more than %d pairs and inputs selected", RB_MAX_JOBS);
                    rc = -1;
                }
            }
        }
    }
    if (rc == 0 && *n == 0) {
        rb_fmt(err, err_size, "no pair matches --filter '%s'%s (see: roofbench list)",
               o->filter ? o->filter : "", o->scope != RB_SCOPE_ALL ? " in --scope" : "");
        rc = -1;
    }
    return rc;
}

int rb_jobs_for_gpus(rb_job *jobs, int n, int gpus)
{
    int kept = 0;
    const rb_pair *said = NULL;
    for (int i = 0; i < n; i++) {
        const rb_pair *p = jobs[i].pair;
        if (!jobs[i].swept || rb_pair_sweeps_size(p, jobs[i].size.n, gpus)) {
            jobs[kept++] = jobs[i];
        } else if (p != said) {
            char sizes[200] = "";
            const uint64_t *one_gpu = rb_pair_ext_of(p)->sweep_one_gpu;
            for (int k = 0; one_gpu[k]; k++) {
                char one[32];
                size_t len = strlen(sizes);
                rb_format_count(one_gpu[k], one, sizeof one);
                rb_fmt(sizes + len, sizeof sizes - len, "%s %s", k ? "," : "", one);
            }
            printf("%s: one GPU: its sweep takes only%s (see the pair)\n", p->name, sizes);
            said = p;
        }
    }
    return kept;
}

unsigned rb_jobs_platform_probes(const rb_job *jobs, int n)
{
    unsigned probes = 0;
    for (int i = 0; i < n; i++) {
        const rb_pair *p = jobs[i].pair;
        double flops = p->flops ? p->flops(&jobs[i].size) : 0;
        for (int k = 0; k < p->n_variants; k++) {
            rb_roof roof;
            if (rb_pair_variant_roof(p, k, jobs[i].input, flops, &roof) == 0)
                probes |= rb_platform_probe_of(rb_roof_key(roof));
        }
    }
    return probes;
}
