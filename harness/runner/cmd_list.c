/* SPDX-License-Identifier: MIT */
/* roofbench list: the pairs, their sizes, work and variants, without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_list.h"
#include "cmd.h"
#include "env.h"
#include "model/json.h"
#include "model/roofline.h"
#include "pair_util.h"

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
 * size, or the first and last points of a sweep, each its own row group. */
static void list_work(const rb_job *jobs, int n, int i)
{
    const rb_pair *p = jobs[i].pair;
    int last = i;
    while (last + 1 < n && jobs[last + 1].pair == p && jobs[last + 1].input == jobs[i].input)
        last++;
    char first_work[300], last_work[300];
    job_work(&jobs[i], first_work, sizeof first_work);
    const char *link = rb_pair_ext_of(p)->link_bytes ? " over the link" : "";
    if (last == i) {
        printf("%-18s   work: %s%s\n", "", first_work, link);
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
    printf("%-18s   work: a sweep of %d sizes%s, each its own row, from %s%s\n", "", last - i + 1,
           on_one, first_work, link);
    printf("%-18s         to %s%s\n", "", last_work, link);
}

/* The variants a full run times at each of its rows below the full size (jobs[i..], the pair's
 * rows), where the pair names them. */
static void list_swept_variants(const rb_job *jobs, int n, int i)
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
            printf("%-18s   below the full size (%s):\n", "", rb_pair_ext_of(p)->swept_why);
        printf("%-18s     %s times %s\n", "", jobs[j].name, names);
    }
}

int rb_cmd_list(const rb_job *jobs, int n)
{
    printf("%-18s %-6s %-12s %-12s %-16s %s\n", "pair", "min cc", "smoke size", "full size",
           "size counts", "variants");
    printf("%-18s   work of a run at the selected size (default full; a sweep when full size "
           "says so): size or shape, GFLOP, bytes of compulsory DRAM traffic\n",
           "");
    for (int i = 0; i < n; i++) {
        const rb_pair *p = jobs[i].pair;
        if (i > 0 && jobs[i - 1].pair == p)
            continue;
        char cc[16], variants[400] = "";
        const rb_pair_ext *e = rb_pair_ext_of(p);
        rb_fmt(cc, sizeof cc, e->min_cc ? "%d.%d" : "any", e->min_cc / 10, e->min_cc % 10);
        for (int k = 0; k < p->n_variants; k++) {
            size_t len = strlen(variants);
            rb_fmt(variants + len, sizeof variants - len, "%s%s", k ? ", " : "",
                   p->variants[k].name);
        }
        char full[32];
        if (e->sweep && e->sweep[0])
            rb_fmt(full, sizeof full, "sweep");
        else
            rb_fmt(full, sizeof full, "%llu", (unsigned long long)p->full_size);
        printf("%-18s %-6s %-12llu %-12s %-16s %s\n", p->name, cc,
               (unsigned long long)p->smoke_size, full, p->size_unit, variants);
        printf("%-18s   %s\n", "", p->pattern);
        list_work(jobs, n, i);
        if (p->n_inputs) {
            char inputs[200] = "";
            for (int k = 0; k < p->n_inputs; k++) {
                size_t len = strlen(inputs);
                rb_fmt(inputs + len, sizeof inputs - len, "%s%s", k ? ", " : "", p->inputs[k]);
            }
            printf("%-18s   inputs: %s\n", "", inputs);
        }
        list_swept_variants(jobs, n, i);
    }
    for (int i = 0; rb_registry_missing[i]; i++)
        printf("not built: %s\n", rb_registry_missing[i]);
    return EXIT_OK;
}

/* ---- list --json: the same, for scripts (docs/list.schema.json) ---- */

/* A JSON array of strings names[0..n); NULL when out of memory. */
static json_value *string_array(const char *const *names, int n)
{
    json_value *a = json_new_array();
    for (int k = 0; a && k < n; k++)
        if (json_array_push(a, json_new_string(names[k])) != 0) {
            json_free(a);
            return NULL;
        }
    return a;
}

/* One row group of a run at the selected size: its name, size, work and each variant's roof. */
static json_value *job_json(const rb_job *j)
{
    const rb_pair *p = j->pair;
    double flops = p->flops(&j->size), bytes = p->bytes(&j->size);
    const rb_pair_ext *e = rb_pair_ext_of(p);
    if (e->work)
        e->work(&j->size, j->input, &flops, &bytes);
    json_value *r = json_new_object(), *roofs = json_new_object();
    int bad = !r || !roofs || json_set_string(r, "name", j->name) ||
              json_set_string(r, "input", p->n_inputs ? p->inputs[j->input] : "") ||
              json_set_number(r, "size", (double)j->size.n) ||
              json_set_number(r, "rows", (double)j->size.rows) ||
              json_set_number(r, "cols", (double)j->size.cols) ||
              json_set_number(r, "flops", flops) || json_set_number(r, "bytes", bytes) ||
              json_set_bool(r, "over_link", e->link_bytes != 0);
    for (int k = 0; !bad && k < p->n_variants; k++) {
        rb_roof roof;
        bad = rb_pair_variant_roof(p, k, j->input, flops, &roof) != 0 ||
              json_set_string(roofs, p->variants[k].name, rb_roof_key(roof));
    }
    if (bad || json_object_set(r, "roofs", roofs) != 0) {
        json_free(r);
        json_free(roofs);
        return NULL;
    }
    return r;
}

/* The pair of jobs[i] (its first job) with its rows jobs[i..]. */
static json_value *pair_json(const rb_job *jobs, int n, int i)
{
    const rb_pair *p = jobs[i].pair;
    const char *variants[RB_MAX_VARIANTS];
    for (int k = 0; k < p->n_variants && k < RB_MAX_VARIANTS; k++)
        variants[k] = p->variants[k].name;
    const rb_pair_ext *e = rb_pair_ext_of(p);
    json_value *o = json_new_object(), *rows = json_new_array();
    int bad = !o || !rows || json_set_string(o, "name", p->name) ||
              json_set_string(o, "pattern", p->pattern) ||
              json_set_number(o, "min_cc", e->min_cc) ||
              json_set_string(o, "size_unit", p->size_unit) ||
              json_set_number(o, "smoke_size", (double)p->smoke_size) ||
              json_set_number(o, "full_size", (double)p->full_size) ||
              json_set_bool(o, "sweep", e->sweep && e->sweep[0] != 0) ||
              json_object_set(o, "variants", string_array(variants, p->n_variants)) ||
              json_object_set(o, "inputs", string_array(p->inputs, p->n_inputs));
    for (int j = i; !bad && j < n && jobs[j].pair == p; j++)
        bad = json_array_push(rows, job_json(&jobs[j])) != 0;
    if (bad || json_object_set(o, "rows", rows) != 0) {
        json_free(o);
        json_free(rows);
        return NULL;
    }
    return o;
}

int rb_cmd_list_json(const rb_job *jobs, int n)
{
    json_value *doc = json_new_object(), *pairs = json_new_array();
    int missing = 0, bad = !doc || !pairs || json_set_string(doc, "git", rb_git_rev);
    for (int i = 0; !bad && i < n; i++)
        if (i == 0 || jobs[i - 1].pair != jobs[i].pair)
            bad = json_array_push(pairs, pair_json(jobs, n, i)) != 0;
    while (rb_registry_missing[missing])
        missing++;
    bad = bad || json_object_set(doc, "pairs", pairs) != 0;
    if (bad)
        json_free(pairs);
    char *text =
        bad || json_object_set(doc, "not_built", string_array(rb_registry_missing, missing)) != 0
            ? NULL
            : json_write(doc, 2);
    json_free(doc);
    if (!text)
        return rb_cmd_usage_error("list --json: out of memory");
    printf("%s\n", text);
    free(text);
    return EXIT_OK;
}
