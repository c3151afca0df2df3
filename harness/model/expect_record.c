/* SPDX-License-Identifier: MIT */
#include "expect_record.h"

#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "expect_stale.h"
#include "result_read.h"
#include "util.h"

int rb_expect_provenance_add(json_value *prov, const char *nvcc, const char *arch, int machines,
                             int runs, const char *const *gpus, int n_gpus)
{
    json_value *list = json_new_array();
    int bad = !list;
    for (int i = 0; !bad && i < n_gpus; i++)
        bad |= json_array_push(list, json_new_string(gpus[i]));
    if (bad) {
        json_free(list);
        return -1;
    }
    bad |= nvcc && nvcc[0] && json_set_string(prov, "nvcc", nvcc);
    bad |= arch && arch[0] && json_set_string(prov, "arch", arch);
    bad |= json_set_number(prov, "machines", machines) || json_set_number(prov, "runs", runs);
    bad |= json_object_set(prov, "gpus", list); /* takes list, also when it fails */
    return bad ? -1 : 0;
}

/* ---- the runs agree ---- */

static const json_value *env_start(const json_value *doc)
{
    return json_get(json_get(doc, "environment"), "start");
}

/* A top-level or environment fact of run r against the first run's: equal, or both absent. */
static int same_fact(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int run_agrees(const rb_record_run *r, const rb_record_run *first, char *err,
                      size_t err_size)
{
    static const char *const top[] = {"hardware_key", "git", "size"};
    static const char *const what[] = {"GPU model (hardware key)", "revision", "size"};
    static const char *const built[] = {"build_arch", "build_nvcc"};
    const char *key = json_string_at(r->doc, "hardware_key", NULL);
    if (!key || !rb_is_hardware_key(key)) {
        rb_fmt(err, err_size, "%s: names no hardware key: not a run's results file", r->path);
        return -1;
    }
    for (int k = 0; k < 3; k++) {
        const char *a = json_string_at(r->doc, top[k], NULL);
        const char *b = json_string_at(first->doc, top[k], NULL);
        if (!same_fact(a, b)) {
            rb_fmt(err, err_size, "%s: a run of %s %s, but %s is of %s: runs of one %s only",
                   r->path, top[k], a ? a : "(none)", first->path, b ? b : "(none)", what[k]);
            return -1;
        }
    }
    for (int k = 0; k < 2; k++) {
        const char *a = json_string_at(env_start(r->doc), built[k], NULL);
        const char *b = json_string_at(env_start(first->doc), built[k], NULL);
        if (!same_fact(a, b)) {
            rb_fmt(err, err_size, "%s: built with %s %s, but %s with %s: runs of one build only",
                   r->path, built[k], a ? a : "(none)", first->path, b ? b : "(none)");
            return -1;
        }
    }
    const char *uuid = json_string_at(env_start(r->doc), "uuid", NULL);
    if (!uuid || !uuid[0]) {
        rb_fmt(err, err_size,
               "%s: its environment names no GPU UUID (a run of an older build): the file "
               "could not say which machines it was recorded on",
               r->path);
        return -1;
    }
    return 0;
}

/* ---- the rows agree ---- */

/* A run that shared its GPU (its "contention": a process not its own on the GPU while it
 * measured, model/contention.h): its times are not the code's, and nothing is recorded from it. */
static int run_not_shared(const rb_record_run *r, char *err, size_t err_size)
{
    const json_value *shared = json_get(r->doc, "contention");
    if (!json_true_at(shared, "contended"))
        return 0;
    rb_contention c;
    char who[300] = "", why[120];
    if (rb_contention_from_json(shared, "processes", &c, why, sizeof why) == 0)
        rb_contention_text(&c, who, sizeof who);
    rb_fmt(err, err_size,
           "%s: contended: %s used the GPU while it measured (%s): not recorded; record again "
           "on an idle GPU",
           r->path, who[0] ? who : "another process",
           json_string_at(shared, "where", "where not said"));
    return -1;
}

/* Each run's rows, read (rb_results_read). */
typedef struct record_set {
    const rb_record_run *runs;
    int n;
    rb_pair_result *read[RB_EXPECT_MAX_REPEAT];
    int n_read[RB_EXPECT_MAX_REPEAT];
} record_set;

static const rb_pair_result *row_in(const record_set *s, int r, const char *name)
{
    for (int i = 0; i < s->n_read[r]; i++)
        if (!strcmp(s->read[r][i].name, name))
            return &s->read[r][i];
    return NULL;
}

/* A failed row or an invalid variant in any run: nothing is recorded from such a set. */
static int rows_valid(const record_set *s, char *err, size_t err_size)
{
    for (int r = 0; r < s->n; r++)
        for (int i = 0; i < s->n_read[r]; i++) {
            const rb_pair_result *p = &s->read[r][i];
            if (p->status == RB_PAIR_FAILED) {
                rb_fmt(err, err_size, "%s: %s failed (%s): not recorded", s->runs[r].path, p->name,
                       p->reason);
                return -1;
            }
            for (int k = 0; p->status == RB_PAIR_OK && k < p->n_variants; k++) {
                const rb_variant_result *v = &p->v[k];
                if (rb_expect_dropped(v) || (v->valid && v->timed))
                    continue;
                rb_fmt(err, err_size, "%s: %s/%s is not a valid timed result%s%s: not recorded",
                       s->runs[r].path, p->name, v->name, v->note[0] ? ": " : "", v->note);
                return -1;
            }
        }
    return 0;
}

/* The kernel of p named as k is, or NULL. */
static const rb_kernel_result *kernel_in(const rb_pair_result *p, const rb_kernel_result *k)
{
    for (int j = 0; j < p->n_kernels; j++)
        if (!strcmp(p->kernels[j].variant, k->variant) && !strcmp(p->kernels[j].name, k->name))
            return &p->kernels[j];
    return NULL;
}

/* The first difference of code between kernel a and b into why ("" : none): the fingerprint
 * and the launch geometry (a grid only where both runs know it). */
static void kernel_differs(const rb_kernel_result *a, const rb_kernel_result *b, char *why,
                           size_t size)
{
    why[0] = '\0';
    if (strcmp(a->sass_hash, b->sass_hash))
        rb_fmt(why, size, "sass_hash %s and %s", a->sass_hash[0] ? a->sass_hash : "(none)",
               b->sass_hash[0] ? b->sass_hash : "(none)");
    else if (a->block_threads != b->block_threads)
        rb_fmt(why, size, "block_threads %d and %d", a->block_threads, b->block_threads);
    else if (a->dyn_smem != b->dyn_smem)
        rb_fmt(why, size, "dyn_smem_bytes %.0f and %.0f", a->dyn_smem, b->dyn_smem);
    else if (a->grid > 0 && b->grid > 0 && a->grid != b->grid)
        rb_fmt(why, size, "grid %lld and %lld", a->grid, b->grid);
}

/* Row q of one run against the same row p of another (ref_path's): the same size and kernels. */
static int row_same_code(const rb_pair_result *p, const char *ref_path, const rb_pair_result *q,
                         const char *path, char *err, size_t err_size)
{
    char why[200];
    if (p->size != q->size || p->rows != q->rows) {
        rb_fmt(err, err_size, "%s: %s was run at another size than in %s: runs of one size only",
               path, q->name, ref_path);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++) {
        const rb_pair_result *from = pass ? q : p, *to = pass ? p : q;
        for (int j = 0; j < from->n_kernels; j++) {
            const rb_kernel_result *k = &from->kernels[j], *o = kernel_in(to, k);
            if (!o) {
                rb_fmt(err, err_size,
                       "%s: %s: kernel %s (%s) is in %s only: runs of different code", path,
                       q->name, k->name, k->variant, pass ? path : ref_path);
                return -1;
            }
            if (pass)
                continue;
            kernel_differs(k, o, why, sizeof why);
            if (why[0]) {
                rb_fmt(err, err_size,
                       "%s: %s: kernel %s: %s in %s and in this file: runs of "
                       "different code",
                       path, q->name, k->name, why, ref_path);
                return -1;
            }
        }
    }
    return 0;
}

/* A variant recorded from fewer than RB_EXPECT_MIN_RUNS runs has no spread to set its
 * threshold: refused, naming the runs that timed it. */
static int variant_runs_enough(const record_set *s, const char *row, const char *variant, char *err,
                               size_t err_size)
{
    char files[600] = "";
    int n = 0;
    for (int r = 0; r < s->n; r++) {
        const rb_pair_result *p = row_in(s, r, row);
        for (int k = 0; p && p->status == RB_PAIR_OK && k < p->n_variants; k++)
            if (!strcmp(p->v[k].name, variant) && !rb_expect_dropped(&p->v[k])) {
                size_t len = strlen(files);
                rb_fmt(files + len, sizeof files - len, "%s%s", n++ ? ", " : "", s->runs[r].path);
            }
    }
    if (n >= RB_EXPECT_MIN_RUNS)
        return 0;
    rb_fmt(err, err_size, "%s/%s: timed in %d run(s) (%s): at least %d are needed for its spread",
           row, variant, n, files, RB_EXPECT_MIN_RUNS);
    return -1;
}

/* Every row the runs recorded: the same code in each, and enough runs of each variant. */
static int rows_agree(const record_set *s, char *err, size_t err_size)
{
    for (int r = 0; r < s->n; r++)
        for (int i = 0; i < s->n_read[r]; i++) {
            const rb_pair_result *q = &s->read[r][i], *p = NULL;
            int ref = 0;
            if (q->status != RB_PAIR_OK)
                continue;
            while (ref < r && !((p = row_in(s, ref, q->name)) && p->status == RB_PAIR_OK))
                ref++;
            if (ref < r &&
                row_same_code(p, s->runs[ref].path, q, s->runs[r].path, err, err_size) != 0)
                return -1;
            for (int k = 0; k < q->n_variants; k++)
                if (!rb_expect_dropped(&q->v[k]) &&
                    variant_runs_enough(s, q->name, q->v[k].name, err, err_size) != 0)
                    return -1;
        }
    return 0;
}

/* ---- the merge ---- */

/* The rows recorded, each once, in the order the runs first hold them (status ok). */
static int union_rows(const record_set *s, const char ***names)
{
    int cap = 0, n = 0;
    for (int r = 0; r < s->n; r++)
        cap += s->n_read[r];
    *names = calloc((size_t)(cap ? cap : 1), sizeof **names);
    if (!*names)
        return -1;
    for (int r = 0; r < s->n; r++)
        for (int i = 0; i < s->n_read[r]; i++) {
            const char *name = s->read[r][i].name;
            int seen = s->read[r][i].status != RB_PAIR_OK;
            for (int j = 0; j < n && !seen; j++)
                seen = !strcmp((*names)[j], name);
            if (!seen)
                (*names)[n++] = name;
        }
    return n;
}

/* rb_expect_update_runs wants one array per run, aligned by row: last[i] is the last run's
 * record of row i, earlier[r][i] run r's (r < n - 1), blank (no name: not a run of it) where
 * run r lacks the row or its record is last[i]. */
static int align(const record_set *s, const char **names, int rows, rb_pair_result **last,
                 rb_pair_result **earlier)
{
    *last = calloc((size_t)rows, sizeof **last);
    for (int r = 0; r + 1 < s->n; r++)
        earlier[r] = calloc((size_t)rows, sizeof **earlier);
    if (!*last)
        return -1;
    for (int r = 0; r + 1 < s->n; r++)
        if (!earlier[r])
            return -1;
    for (int i = 0; i < rows; i++) {
        int from = s->n - 1;
        const rb_pair_result *p;
        while (!((p = row_in(s, from, names[i])) && p->status == RB_PAIR_OK))
            from--; /* a row of the union is ok in some run */
        (*last)[i] = *p;
        for (int r = 0; r < from; r++)
            if ((p = row_in(s, r, names[i])) && p->status == RB_PAIR_OK)
                earlier[r][i] = *p;
    }
    return 0;
}

/* The distinct GPUs of the runs, by UUID (gpus[] point into the documents). */
static int distinct_gpus(const rb_record_run *runs, int n, const char **gpus)
{
    int m = 0;
    for (int r = 0; r < n; r++) {
        const char *uuid = json_string_at(env_start(runs[r].doc), "uuid", "");
        int seen = 0;
        for (int j = 0; j < m && !seen; j++)
            seen = !strcmp(gpus[j], uuid);
        if (!seen)
            gpus[m++] = uuid;
    }
    return m;
}

/* The provenance of the recording: the runs' revision and build, the last run's driver and
 * runtime, the newest run's date, how many machines and runs. NULL when out of memory. */
static json_value *record_provenance(const rb_record_run *runs, int n)
{
    const json_value *last = env_start(runs[n - 1].doc);
    const char *date = "";
    const char *gpus[RB_EXPECT_MAX_REPEAT];
    for (int r = 0; r < n; r++) {
        const char *d = json_string_at(runs[r].doc, "date", "");
        if (strcmp(d, date) > 0)
            date = d;
    }
    int machines = distinct_gpus(runs, n, gpus);
    json_value *p = json_new_object();
    const char *size = json_string_at(runs[0].doc, "size", "");
    if (!p || json_set_string(p, "git", json_string_at(runs[0].doc, "git", "?")) ||
        json_set_string(p, "driver", json_string_at(last, "driver", "?")) ||
        json_set_string(p, "cuda", json_string_at(last, "cuda_runtime", "?")) ||
        json_set_string(p, "date", date) ||
        json_set_string(p, "size", !strcmp(size, "full") ? "full" : "custom") ||
        rb_expect_provenance_add(p, json_string_at(last, "build_nvcc", NULL),
                                 json_string_at(last, "build_arch", NULL), machines, n, gpus,
                                 machines)) {
        json_free(p);
        return NULL;
    }
    return p;
}

/* The hardware of a new file: the first run's GPU. */
static json_value *record_hardware(const rb_record_run *first)
{
    const json_value *env = env_start(first->doc);
    json_value *h = json_new_object();
    if (!h || json_set_string(h, "name", json_string_at(env, "device", "?")) ||
        json_set_string(h, "sm", json_string_at(env, "cc", "?")) ||
        json_set_number(h, "sms", json_number_at(env, "sms"))) {
        json_free(h);
        return NULL;
    }
    return h;
}

/* The merge itself, on a copy of *doc (kept on success). */
static int merge(json_value **doc, const record_set *s, rb_pair_result **rows, int *n_rows,
                 char *err, size_t err_size)
{
    const char **names = NULL;
    rb_pair_result *last = NULL, *earlier[RB_EXPECT_MAX_REPEAT] = {0};
    int n = union_rows(s, &names), rc = -1;
    json_value *d = *doc ? json_clone(*doc) : NULL;
    if (n < 0 || (*doc && !d) || align(s, names, n, &last, earlier) != 0) {
        rb_fmt(err, err_size, "out of memory while recording expectations");
    } else {
        const rb_pair_result *const *before = (const rb_pair_result *const *)earlier;
        const char *key = json_string_at(s->runs[0].doc, "hardware_key", "");
        rc = rb_expect_update_runs(&d, last, n, before, s->n - 1,
                                   json_get(s->runs[s->n - 1].doc, "platform"),
                                   record_hardware(&s->runs[0]), rb_datasheet_peaks(key),
                                   record_provenance(s->runs, s->n), err, err_size);
    }
    for (int r = 0; r + 1 < s->n; r++)
        free(earlier[r]);
    free(names);
    if (rc != 0) {
        free(last);
        if (d != *doc)
            json_free(d);
        return -1;
    }
    json_free(*doc);
    *doc = d;
    *rows = last;
    *n_rows = n;
    return 0;
}

/* Keeps the rows of s's run r that only selects (expect_stale.h's row or pair match); the count
 * kept. */
static int keep_selected(record_set *s, int r, const rb_filter *only)
{
    int kept = 0;
    for (int i = 0; i < s->n_read[r]; i++)
        if (rb_expect_row_selected(only, s->read[r][i].name))
            s->read[r][kept++] = s->read[r][i];
    s->n_read[r] = kept;
    return kept;
}

int rb_expect_record_runs(json_value **doc, const rb_record_run *runs, int n, rb_pair_result **rows,
                          int *n_rows, char *err, size_t err_size)
{
    return rb_expect_record_select(doc, runs, n, NULL, rows, n_rows, err, err_size);
}

int rb_expect_record_select(json_value **doc, const rb_record_run *runs, int n,
                            const rb_filter *only, rb_pair_result **rows, int *n_rows, char *err,
                            size_t err_size)
{
    record_set s = {.runs = runs, .n = n};
    int selected = 0;
    int rc = 0;
    *rows = NULL;
    *n_rows = 0;
    if (n < 1 || n > RB_EXPECT_MAX_REPEAT) {
        rb_fmt(err, err_size, "--record takes 1 to %d results files, not %d", RB_EXPECT_MAX_REPEAT,
               n);
        return -1;
    }
    for (int r = 0; r < n && rc == 0; r++) {
        char why[400];
        rc = run_agrees(&runs[r], &runs[0], err, err_size);
        if (rc == 0)
            rc = run_not_shared(&runs[r], err, err_size);
        if (rc == 0 && rb_results_read(runs[r].doc, &s.read[r], &s.n_read[r], why, sizeof why)) {
            rb_fmt(err, err_size, "%s: %s", runs[r].path, why);
            rc = -1;
        }
        if (rc == 0)
            selected += only ? keep_selected(&s, r, only) : s.n_read[r];
    }
    if (rc == 0 && selected == 0) {
        rb_fmt(err, err_size, "no row of the runs matches --filter");
        rc = -1;
    }
    if (rc == 0)
        rc = rows_valid(&s, err, err_size);
    if (rc == 0)
        rc = rows_agree(&s, err, err_size);
    if (rc == 0)
        rc = merge(doc, &s, rows, n_rows, err, err_size);
    for (int r = 0; r < n; r++)
        free(s.read[r]);
    return rc;
}
