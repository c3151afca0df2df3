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
#include "report/list_out.h"
#include "model/text.h"

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

int rb_cmd_list(const rb_job *jobs, int n)
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
