/* SPDX-License-Identifier: MIT */
#include "history.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "result.h"
#include "util.h"

const char *rb_history_verdict_name(rb_history_verdict v)
{
    static const char *const names[] = {"steady", "step", "moved", "blind", "single"};
    return names[v];
}

/* ---- reading the runs ---- */

/* items with room for item n (doubling *cap from first), or NULL when out of memory (items
 * unchanged). */
static void *grow_from(void *items, int n, int *cap, size_t size, int first)
{
    if (n < *cap)
        return items;
    int ncap = *cap ? 2 * *cap : first;
    void *more = realloc(items, (size_t)ncap * size);
    if (more)
        *cap = ncap;
    return more;
}

static void *grow(void *items, int n, int *cap, size_t size)
{
    return grow_from(items, n, cap, size, 16);
}

static int add_note(rb_history *h, const char *text)
{
    char **n = realloc(h->notes, (size_t)(h->n_notes + 1) * sizeof *n);
    if (!n)
        return -1;
    h->notes = n;
    if (!(n[h->n_notes] = strdup(text)))
        return -1;
    h->n_notes++;
    return 0;
}

typedef struct path_list {
    char **p;
    int n, cap;
} path_list;

static int push_path(path_list *l, const char *path)
{
    char **p = grow(l->p, l->n, &l->cap, sizeof *p);
    if (!p)
        return -1;
    l->p = p;
    if (!(l->p[l->n] = strdup(path)))
        return -1;
    l->n++;
    return 0;
}

/* A file history read, or looked at, and did not take as a run: no output may replace it. */
static int add_skipped(rb_history *h, const char *path, const char *note)
{
    path_list l = {h->skipped, h->n_skipped, h->skipped_cap};
    int rc = push_path(&l, path);
    h->skipped = l.p;
    h->n_skipped = l.n;
    h->skipped_cap = l.cap;
    return rc == 0 ? add_note(h, note) : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n > t && !strcmp(s + n - t, tail);
}

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
                         : "not a regular file";
}

/* One entry of a folder: a *.json regular file into l; a sub-folder counted; a *.json that is
 * no regular file, or that cannot be looked at (a link to nothing, a loop), skipped with a
 * note. */
static int list_entry(const char *path, const char *name, path_list *l, int *subfolders,
                      rb_history *h)
{
    char note[RB_PATH_BUF + 200];
    struct stat st;
    int is_json = ends_with(name, ".json");
    if (stat(path, &st) != 0) {
        if (!is_json)
            return 0;
        rb_fmt(note, sizeof note, "skipped %s: %s", path, strerror(errno));
        return add_skipped(h, path, note);
    }
    if (S_ISDIR(st.st_mode)) {
        (*subfolders)++;
        return 0;
    }
    if (!is_json)
        return 0;
    if (S_ISREG(st.st_mode))
        return push_path(l, path);
    rb_fmt(note, sizeof note, "skipped %s: %s, not a regular file", path, kind_of(st.st_mode));
    return add_skipped(h, path, note);
}

/* A folder's *.json files, in name order, into l; its sub-folders counted in a note. */
static int list_folder(const char *dir, path_list *l, rb_history *h, char *err, size_t err_size)
{
    DIR *d = opendir(dir);
    if (!d) {
        rb_fmt(err, err_size, "%s: cannot read the folder: %s", dir, strerror(errno));
        return -1;
    }
    int first = l->n, subfolders = 0, rc = 0;
    const char *sep = ends_with(dir, "/") || !strcmp(dir, "/") ? "" : "/";
    for (struct dirent *e; rc == 0 && (e = readdir(d)) != NULL;) {
        char path[RB_PATH_BUF];
        if (e->d_name[0] == '.' ||
            rb_fmt_fits(path, sizeof path, "%s%s%s", dir, sep, e->d_name) != 0)
            continue;
        rc = list_entry(path, e->d_name, l, &subfolders, h);
    }
    closedir(d);
    if (rc != 0) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    if (l->n > first) /* (qsort of no element: a null pointer, which UBSan refuses) */
        qsort(l->p + first, (size_t)(l->n - first), sizeof *l->p, by_name);
    if (subfolders) {
        char note[RB_PATH_BUF + 100];
        rb_fmt(note, sizeof note,
               "%s: %d sub-folder(s) not read (name their files to include "
               "them)",
               dir, subfolders);
        rc = add_note(h, note);
    }
    return rc;
}

/* ---- what identifies a run ---- */

static uint64_t mix(uint64_t x, uint64_t v)
{
    return (x ^ v) * 1099511628211ull; /* FNV-1a, a word at a time */
}

static uint64_t hash_text(uint64_t x, const char *s)
{
    for (; *s; s++)
        x = mix(x, (unsigned char)*s);
    return mix(x, 0x100);
}

/* A hash of the document's values (not of its text: a copy pretty-printed anew hashes the
 * same). */
static uint64_t doc_hash(const json_value *v, uint64_t x)
{
    x = mix(x, v->type);
    if (v->type == JSON_BOOL)
        return mix(x, v->boolean);
    if (v->type == JSON_NUMBER) {
        uint64_t bits;
        double n = v->number == 0 ? 0 : v->number; /* (-0 and 0 are equal) */
        memcpy(&bits, &n, sizeof bits);
        return mix(x, bits);
    }
    if (v->type == JSON_STRING)
        return hash_text(x, v->string);
    x = mix(x, v->count);
    for (uint32_t i = 0; i < v->count; i++) {
        if (v->type == JSON_OBJECT)
            x = hash_text(x, v->keys[i]);
        x = doc_hash(v->items[i], x);
    }
    return x;
}

static int doc_equal(const json_value *a, const json_value *b)
{
    if (a->type != b->type || a->count != b->count)
        return 0;
    if (a->type == JSON_BOOL)
        return a->boolean == b->boolean;
    if (a->type == JSON_NUMBER)
        return a->number == b->number;
    if (a->type == JSON_STRING)
        return !strcmp(a->string, b->string);
    for (uint32_t i = 0; i < a->count; i++)
        if ((a->type == JSON_OBJECT && strcmp(a->keys[i], b->keys[i])) ||
            !doc_equal(a->items[i], b->items[i]))
            return 0;
    return 1;
}

/* A date as run writes it, YYYY-MM-DDTHH:MM:SSZ, as seconds since 1970 (UTC); -1 when it is not
 * one (another form, or no such day or time). */
static double utc_seconds(const char *s)
{
    static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, hh, mm, ss, n = 0;
    if (strlen(s) != 20 ||
        sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &hh, &mm, &ss, &n) != 6 || n != 20)
        return -1;
    for (int i = 0; i < 19; i++)
        if ((i == 4 || i == 7)     ? s[i] != '-'
            : i == 10              ? s[i] != 'T'
            : (i == 13 || i == 16) ? s[i] != ':'
                                   : !(s[i] >= '0' && s[i] <= '9'))
            return -1;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days[mo - 1] ||
        (mo == 2 && d == 29 && !leap) || hh > 23 || mm > 59 || ss > 60)
        return -1;
    /* days since 1970-01-01 (the civil-from-days inverse, proleptic Gregorian) */
    int yy = mo <= 2 ? y - 1 : y, era = yy / 400, yoe = yy - era * 400;
    int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    double day = (double)era * 146097 + doe - 719468;
    return day * 86400 + hh * 3600 + mm * 60 + ss;
}

/* Why run doc cannot be placed in time (its date is not one, or is after now), into why; 0
 * when it can. */
static int undated(const json_value *doc, char *why, size_t size)
{
    const json_value *date = json_get(doc, "date");
    if (!date || date->type != JSON_STRING) {
        rb_fmt(why, size,
               "it has no date%s (a run records when it ran: its place in time is "
               "unknown)",
               date ? " string" : "");
        return -1;
    }
    const char *shown = date->string;
    double at = utc_seconds(date->string);
    if (at < 0) {
        rb_fmt(why, size,
               "its date \"%s\" is not a UTC time as run writes one "
               "(YYYY-MM-DDTHH:MM:SSZ): its place in time is unknown",
               shown);
        return -1;
    }
    /* (a day's grace: another machine's clock) */
    if (at > (double)time(NULL) + 86400) {
        rb_fmt(why, size,
               "its date %s is after this machine's clock: its place in time is "
               "unknown",
               shown);
        return -1;
    }
    return 0;
}

/* The GPU a run names: its hardware_key, else its device's name as a key; "" when none. */
static void run_key(const json_value *doc, char *out, size_t size)
{
    const char *key = json_string_at(doc, "hardware_key", NULL);
    const char *device =
        json_string_at(json_get(json_get(doc, "environment"), "start"), "device", NULL);
    if (key)
        rb_fmt(out, size, "%s", key);
    else if (device)
        rb_hardware_key(device, out, size);
    else
        out[0] = '\0';
}

/* ---- reading the runs ---- */

static int add_run(rb_history *h, const char *path, json_value *doc, uint64_t hash, const char *key)
{
    rb_history_run *runs = grow(h->runs, h->n_runs, &h->runs_cap, sizeof *runs);
    if (!runs)
        return -1;
    h->runs = runs;
    rb_history_run *r = &h->runs[h->n_runs];
    memset(r, 0, sizeof *r);
    if (!(r->path = strdup(path)))
        return -1;
    r->doc = doc;
    r->hash = hash;
    rb_fmt(r->date, sizeof r->date, "%s", json_string_at(doc, "date", "?"));
    rb_fmt(r->git, sizeof r->git, "%s", json_string_at(doc, "git", "?"));
    rb_fmt(r->hardware_key, sizeof r->hardware_key, "%s", key);
    h->n_runs++;
    return 0;
}

/* The run already taken that doc repeats (the same file named twice, a copy beside it), or -1.
 * (Linear in the runs: a history holds hundreds, not millions.) */
static int same_run(const rb_history *h, const json_value *doc, uint64_t hash)
{
    for (int i = 0; i < h->n_runs; i++)
        if (h->runs[i].hash == hash && doc_equal(h->runs[i].doc, doc))
            return i;
    return -1;
}

/* Why doc, a document that is not a run, is not one. */
static void not_a_run(const json_value *doc, char *why, size_t size)
{
    const char *kind = json_string_at(doc, "kind", "");
    const json_value *gpus = json_get(doc, "gpus");
    if ((!strcmp(kind, "node") || !strcmp(kind, "fleet")) && gpus && gpus->type == JSON_ARRAY)
        rb_fmt(why, size,
               "a %s document of %u GPU(s), not one GPU's run (history follows one "
               "GPU: plot or compare one of its GPUs with --gpu N)",
               kind, gpus->count);
    else
        rb_fmt(why, size, "not a results file (no \"pairs\" array)");
}

/* Why doc, a results document, is not taken as a run of the history ("" when it is): it repeats
 * a run taken, it cannot be placed in time, or it names no GPU. */
static void not_taken(const rb_history *h, const json_value *doc, uint64_t hash, const char *key,
                      char *why, size_t size)
{
    int twin = same_run(h, doc, hash);
    why[0] = '\0';
    if (twin >= 0)
        rb_fmt(why, size, "the same run as %s (counted once)", h->runs[twin].path);
    else if (undated(doc, why, size) == 0 && !key[0])
        rb_fmt(why, size, "it names no GPU (no hardware_key): history follows one GPU");
}

int rb_history_take(rb_history *h, const char *path, json_value *doc, char *err, size_t err_size)
{
    char why[RB_PATH_BUF + 300], note[2 * RB_PATH_BUF + 400], key[136];
    if (!rb_results_has_pairs(doc)) {
        not_a_run(doc, why, sizeof why);
    } else if (rb_results_doc_check(doc, why, sizeof why) != 0) {
        /* a run that names a pair or variant twice is refused, as compare and plot refuse it */
        rb_fmt(err, err_size, "history: %s: %s", path, why);
        json_free(doc);
        return -1;
    } else {
        uint64_t hash = doc_hash(doc, 1469598103934665603ull);
        run_key(doc, key, sizeof key);
        not_taken(h, doc, hash, key, why, sizeof why);
        if (!why[0]) {
            if (add_run(h, path, doc, hash, key) == 0)
                return 0;
            json_free(doc);
            rb_fmt(err, err_size, "out of memory");
            return -1;
        }
    }
    json_free(doc);
    rb_fmt(note, sizeof note, "skipped %s: %s", path, why);
    if (add_skipped(h, path, note) == 0)
        return 0;
    rb_fmt(err, err_size, "out of memory");
    return -1;
}

/* One file: parsed, then taken as a run or skipped with a note. A file named that is no
 * regular file (a FIFO would block the read, /dev/zero never end it) is skipped unread. */
static int read_run(rb_history *h, const char *path, char *err, size_t err_size)
{
    char why[RB_PATH_BUF + 300], note[RB_PATH_BUF + 400];
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        rb_fmt(note, sizeof note, "skipped %s: %s, not a regular file", path, kind_of(st.st_mode));
        return add_skipped(h, path, note) == 0 ? 0 : (rb_fmt(err, err_size, "out of memory"), -1);
    }
    json_value *doc = json_parse_file(path, why, sizeof why);
    if (doc)
        return rb_history_take(h, path, doc, err, err_size);
    rb_fmt(note, sizeof note, "skipped %s", why); /* why names the path */
    return add_skipped(h, path, note) == 0 ? 0 : (rb_fmt(err, err_size, "out of memory"), -1);
}

static int by_date(const void *pa, const void *pb)
{
    const rb_history_run *a = pa, *b = pb;
    int k = strcmp(a->date, b->date);
    return k ? k : strcmp(a->path, b->path);
}

static int collect_paths(const char *const *inputs, int n_inputs, path_list *l, rb_history *h,
                         char *err, size_t err_size)
{
    for (int i = 0; i < n_inputs; i++) {
        struct stat st;
        if (stat(inputs[i], &st) != 0) {
            int e = errno;
            rb_fmt(err, err_size, "%s: %s", inputs[i],
                   e == ENOENT ? "no such file or folder" : strerror(e));
            return -1;
        }
        if (S_ISDIR(st.st_mode) ? list_folder(inputs[i], l, h, err, err_size) != 0
                                : push_path(l, inputs[i]) != 0) {
            if (!S_ISDIR(st.st_mode))
                rb_fmt(err, err_size, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* Every run is of one GPU: the first run of another key refuses the history. */
static int one_gpu(const rb_history *h, char *err, size_t err_size)
{
    for (int i = 1; i < h->n_runs; i++) {
        if (!strcmp(h->runs[i].hardware_key, h->runs[0].hardware_key))
            continue;
        rb_fmt(err, err_size,
               "history: the runs are of more than one GPU: %s ran on %s, %s on %s (history "
               "follows one GPU: name one GPU's runs, results/<hardware-key>/)",
               h->runs[0].path, h->runs[0].hardware_key, h->runs[i].path, h->runs[i].hardware_key);
        return -1;
    }
    return 0;
}

int rb_history_finish(rb_history *h, const char *what, char *err, size_t err_size)
{
    if (h->n_runs == 0) {
        rb_fmt(err, err_size, "history: no results file in %s%s%s", what, h->n_notes ? "; " : "",
               h->n_notes ? h->notes[h->n_notes - 1] : "");
        return -1;
    }
    if (one_gpu(h, err, err_size) != 0)
        return -1;
    qsort(h->runs, (size_t)h->n_runs, sizeof *h->runs, by_date);
    return 0;
}

int rb_history_load(const char *const *inputs, int n_inputs, rb_history *h, char *err,
                    size_t err_size)
{
    memset(h, 0, sizeof *h);
    path_list l = {0};
    char what[RB_PATH_BUF];
    int rc = collect_paths(inputs, n_inputs, &l, h, err, err_size);
    for (int i = 0; rc == 0 && i < l.n; i++)
        rc = read_run(h, l.p[i], err, err_size);
    for (int i = 0; i < l.n; i++)
        free(l.p[i]);
    free(l.p);
    rb_fmt(what, sizeof what, "%s%s", inputs[0], n_inputs > 1 ? " and the rest" : "");
    if (rc == 0)
        rc = rb_history_finish(h, what, err, err_size);
    if (rc != 0) {
        rb_history_free(h);
        return -1;
    }
    return 0;
}

void rb_history_free(rb_history *h)
{
    for (int i = 0; i < h->n_runs; i++) {
        free(h->runs[i].path);
        json_free(h->runs[i].doc);
        if (h->runs[i].read)
            rb_results_cmp_free(h->runs[i].read);
        free(h->runs[i].read);
    }
    for (int i = 0; i < h->n_series; i++) {
        free(h->series[i].points);
        free(h->series[i].steps);
    }
    for (int i = 0; i < h->n_notes; i++)
        free(h->notes[i]);
    for (int i = 0; i < h->n_skipped; i++)
        free(h->skipped[i]);
    free(h->skipped);
    free(h->runs);
    free(h->series);
    free(h->notes);
    rb_strpool_free(&h->strings);
    memset(h, 0, sizeof *h);
}

/* ---- the series ---- */

/* An open-addressing table from a series' key to its index: the points of every run are added
 * in time linear in their number. */
typedef struct series_index {
    int *slot; /* -1: empty */
    size_t size;
} series_index;

static uint64_t key_hash(const char *pair, const char *variant, double size, int cold)
{
    uint64_t x = 1469598103934665603ull; /* FNV-1a */
    for (const char *s = pair; *s; s++)
        x = (x ^ (unsigned char)*s) * 1099511628211ull;
    x = (x ^ 0x1f) * 1099511628211ull;
    for (const char *s = variant; *s; s++)
        x = (x ^ (unsigned char)*s) * 1099511628211ull;
    uint64_t bits;
    memcpy(&bits, &size, sizeof bits);
    return (x ^ bits ^ (uint64_t)cold) * 1099511628211ull;
}

static int same_series(const rb_history_series *s, const char *pair, const char *variant,
                       double size, int cold)
{
    return s->cold == cold && !strcmp(s->pair, pair) && !strcmp(s->variant, variant) &&
           (s->size == size || (isnan(s->size) && isnan(size)));
}

static int index_grow(series_index *ix, const rb_history *h)
{
    size_t size = ix->size ? 2 * ix->size : 256;
    int *slot = malloc(size * sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < size; i++)
        slot[i] = -1;
    for (int k = 0; k < h->n_series; k++) {
        const rb_history_series *s = &h->series[k];
        size_t i = key_hash(s->pair, s->variant, s->size, s->cold) & (size - 1);
        while (slot[i] >= 0)
            i = (i + 1) & (size - 1);
        slot[i] = k;
    }
    free(ix->slot);
    ix->slot = slot;
    ix->size = size;
    return 0;
}

/* The series of (pair, variant, size, cold), made when new; NULL when out of memory. */
static rb_history_series *series_for(rb_history *h, int *cap, series_index *ix, const char *pair,
                                     const char *variant, double size, int cold)
{
    if ((size_t)(h->n_series + 1) * 2 > ix->size && index_grow(ix, h) != 0)
        return NULL;
    size_t i = key_hash(pair, variant, size, cold) & (ix->size - 1);
    for (; ix->slot[i] >= 0; i = (i + 1) & (ix->size - 1))
        if (same_series(&h->series[ix->slot[i]], pair, variant, size, cold))
            return &h->series[ix->slot[i]];
    rb_history_series *all = grow(h->series, h->n_series, cap, sizeof *all);
    if (!all)
        return NULL;
    h->series = all;
    rb_history_series *s = &h->series[h->n_series];
    char cut_pair[64], cut_variant[64];
    memset(s, 0, sizeof *s);
    rb_fmt(cut_pair, sizeof cut_pair, "%s", pair);
    rb_fmt(cut_variant, sizeof cut_variant, "%s", variant);
    s->pair = rb_strpool_add(&h->strings, cut_pair);
    s->variant = rb_strpool_add(&h->strings, cut_variant);
    s->label = s->blind_why = "";
    if (!s->pair || !s->variant)
        return NULL;
    s->size = size;
    s->cold = cold;
    s->first = h->n_series;
    ix->slot[i] = h->n_series++;
    return s;
}

static int add_point(rb_history_series *s, int run, const rb_results_cmp_pair *pair,
                     const rb_results_cmp_variant *variant)
{
    /* (from two: most series have a point or two per run of a folder) */
    rb_history_point *points = grow_from(s->points, s->n_points, &s->cap, sizeof *points, 2);
    if (!points)
        return -1;
    s->points = points;
    rb_history_point *p = &s->points[s->n_points++];
    p->run = run;
    p->median_ms = variant->recorded_median;
    /* (the recorded interval where the file holds no samples: the read one is that) */
    p->has_interval = variant->n_samples >= 0 ? variant->n_samples >= 6
                                              : variant->ci_lo <= variant->ci_hi;
    p->pair = pair;
    p->variant = variant;
    return 0;
}

/* Every valid, timed variant of run r into its series (a name the run repeats: its first). */
static int add_run_points(rb_history *h, int r, int *cap, series_index *ix)
{
    const rb_results_cmp_doc *d = h->runs[r].read;
    for (int i = 0; i < d->n_pairs; i++) {
        const rb_results_cmp_pair *p = &d->pairs[i];
        const char *pair = p->name;
        for (int k = 0; pair && k < p->n_variants; k++) {
            const rb_results_cmp_variant *v = &p->v[k];
            const char *name = v->name;
            if (!name || !v->valid || !v->timed || !(v->recorded_median > 0))
                continue;
            rb_history_series *s = series_for(h, cap, ix, pair, name, p->size, d->cold);
            if (!s)
                return -1;
            if (s->n_points && s->points[s->n_points - 1].run == r)
                continue;
            if (add_point(s, r, p, v) != 0)
                return -1;
        }
    }
    return 0;
}

/* ---- steps ---- */

static int add_step(rb_history *h, rb_history_series *s, int from, int to, int confirmed,
                    const rb_runcmp_row *row)
{
    rb_history_step *steps = grow_from(s->steps, s->n_steps, &s->steps_cap, sizeof *steps, 1);
    if (!steps)
        return -1;
    s->steps = steps;
    rb_history_step *st = &s->steps[s->n_steps];
    st->from = from;
    st->to = to;
    st->confirmed = confirmed;
    st->row = *row;
    if (rb_runcmp_keep(&h->strings, &st->row) != 0)
        return -1;
    s->n_steps++;
    return 0;
}

/* Without an interval compare says unclear; a ratio of the medians beyond the floor is then a
 * move for history to confirm with the next run, attributed as compare attributes one. */
static void judge_medians(const rb_history_point *pa, const rb_history_point *pb,
                          const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                          rb_runcmp_row *row,
                          rb_runcmp_text *t)
{
    if (row->change != RB_CHANGE_UNCLEAR || isfinite(row->ratio_lo) || !isfinite(row->ratio))
        return;
    if (row->ratio > 1 + row->floor)
        row->change = RB_CHANGE_SLOWER;
    else if (row->ratio < 1 / (1 + row->floor))
        row->change = RB_CHANGE_FASTER;
    else
        return;
    /* the ratio itself stands for its interval in the attribution's tests */
    row->ratio_lo = row->ratio_hi = row->ratio;
    rb_runcmp_attribute(od, nd, pa->pair, pb->pair, pa->variant, pb->variant, row, t);
    row->ratio_lo = row->ratio_hi = NAN;
    size_t len = strlen(t->evidence);
    rb_fmt(t->evidence + len, sizeof t->evidence - len,
           " (judged on the medians: no interval of the median in %s)",
           pa->has_interval ? "the later run" : "the earlier run");
}

/* Point b of s judged against point a, as compare judges two runs (the row's texts in t). -1
 * when out of memory. */
static int judge(rb_history *h, rb_history_series *s, const json_value *expect, int a, int b,
                 rb_runcmp_row *row, rb_runcmp_text *t)
{
    const rb_history_point *pa = &s->points[a], *pb = &s->points[b];
    const rb_results_cmp_doc *od = h->runs[pa->run].read, *nd = h->runs[pb->run].read;
    rb_expected e;
    int expected = rb_expect_variant_at(expect, pa->pair->name, pa->pair->size, s->variant, &e);
    rb_runcmp_judge(od, nd, pa->pair, pb->pair, pa->variant, pb->variant,
                    expected ? &e : NULL, row, t);
    judge_medians(pa, pb, od, nd, row, t);
    s->n_judged++;
    s->n_blind += row->floor > RB_RUNCMP_BLIND_FLOOR;
    if (row->floor > s->max_floor) {
        s->max_floor = row->floor;
        const char *why = strstr(row->evidence, "blind: ");
        char cut[300];
        if (why) {
            rb_fmt(cut, sizeof cut, "%s", why + 7);
            if (!(s->blind_why = rb_strpool_add(&h->strings, cut)))
                return -1;
        }
    }
    return (int)row->change;
}

static int is_move(rb_change c)
{
    return c == RB_CHANGE_SLOWER || c == RB_CHANGE_FASTER;
}

/* The steps of one series (history.h): one pass, each point judged at most twice. Returns 1
 * when a judgement's floor came from the expectation file, else 0; -1: out of memory. */
static int find_steps(rb_history *h, rb_history_series *s, const json_value *expect)
{
    int ref = 0, from_runs = 0;
    rb_runcmp_row row, next;
    rb_runcmp_text row_text, next_text;
    for (int i = 1; i < s->n_points; i++) {
        int c = judge(h, s, expect, ref, i, &row, &row_text);
        if (c < 0)
            return -1;
        from_runs |= row.floor_from_runs;
        if (!is_move((rb_change)c)) {
            if (!s->points[ref].has_interval && s->points[i].has_interval)
                ref = i; /* a better reference for the same level */
            continue;
        }
        if (i + 1 == s->n_points)
            return add_step(h, s, ref, i, 0, &row) == 0 ? from_runs : -1;
        int c_next = judge(h, s, expect, ref, i + 1, &next, &next_text);
        if (c_next < 0)
            return -1;
        if (c_next == c) {
            if (add_step(h, s, ref, i, 1, &row) != 0)
                return -1;
            ref = i;
        } else {
            s->n_blips++;
        }
    }
    return from_runs;
}

static rb_history_verdict series_verdict(const rb_history_series *s)
{
    if (s->n_points < 2)
        return RB_HISTORY_SINGLE;
    if (s->n_steps && !s->steps[s->n_steps - 1].confirmed)
        return RB_HISTORY_MOVED;
    if (s->n_steps)
        return RB_HISTORY_STEP;
    return 2 * s->n_blind > s->n_judged ? RB_HISTORY_BLIND : RB_HISTORY_STEADY;
}

/* ---- the whole ---- */

static int by_pair(const void *pa, const void *pb)
{
    const rb_history_series *a = pa, *b = pb;
    int k = strcmp(a->pair, b->pair);
    if (k)
        return k;
    if (a->cold != b->cold)
        return a->cold - b->cold;
    return a->first - b->first;
}

static int by_variant(const void *pa, const void *pb)
{
    const rb_history_series *a = *(rb_history_series *const *)pa,
                            *b = *(rb_history_series *const *)pb;
    int k = strcmp(a->pair, b->pair);
    return k ? k : strcmp(a->variant, b->variant);
}

/* pair/variant, with the size where another series of that pair and variant is of the same
 * regime, and [cold] for a cold one. */
static int label_series(rb_history *h)
{
    rb_history_series **v = malloc((size_t)(h->n_series ? h->n_series : 1) * sizeof *v);
    if (!v)
        return -1;
    for (int i = 0; i < h->n_series; i++)
        v[i] = &h->series[i];
    qsort(v, (size_t)h->n_series, sizeof *v, by_variant);
    for (int i = 0, end; i < h->n_series; i = end) {
        int warm = 0, cold = 0;
        for (end = i; end < h->n_series && !by_variant(&v[i], &v[end]); end++)
            *(v[end]->cold ? &cold : &warm) += 1;
        for (int k = i; k < end; k++) {
            char size[48] = "", label[200];
            if ((v[k]->cold ? cold : warm) > 1)
                rb_fmt(size, sizeof size, " (size %.0f)", v[k]->size);
            rb_fmt(label, sizeof label, "%s/%s%s%s", v[k]->pair, v[k]->variant, size,
                   v[k]->cold ? " [cold]" : "");
            if (!(v[k]->label = rb_strpool_add(&h->strings, label))) {
                free(v);
                return -1;
            }
        }
    }
    free(v);
    return 0;
}

/* Keeps the series filter selects. */
static void filter_series(rb_history *h, const rb_filter *filter)
{
    if (!filter)
        return;
    int kept = 0;
    for (int i = 0; i < h->n_series; i++) {
        if (rb_runcmp_selected(filter, h->series[i].pair, h->series[i].variant))
            h->series[kept++] = h->series[i];
        else
            free(h->series[i].points);
    }
    h->n_filtered_out = h->n_series - kept;
    h->n_series = kept;
    h->filter = filter->text;
}

/* Run r's document read (its JSON freed: the read one is what the series point into). */
static int read_run_doc(rb_history_run *r)
{
    char err[200];
    if (!(r->read = malloc(sizeof *r->read)))
        return -1;
    if (rb_results_cmp_read(r->doc, r->read, err, sizeof err) != 0) {
        free(r->read);
        r->read = NULL;
        return -1;
    }
    r->fingerprints = rb_runcmp_fingerprints(r->read);
    json_free(r->doc);
    r->doc = NULL;
    return 0;
}

static void unread_run(rb_history_run *r)
{
    if (r->read)
        rb_results_cmp_free(r->read);
    free(r->read);
    r->read = NULL;
}

int rb_history_build(rb_history *h, const json_value *expect, const rb_filter *filter, char *err,
                     size_t err_size)
{
    series_index ix = {0};
    int cap = 0, rc = 0;
    for (int r = 0; rc == 0 && r < h->n_runs; r++) {
        rc = read_run_doc(&h->runs[r]);
        if (rc == 0)
            rc = add_run_points(h, r, &cap, &ix);
    }
    free(ix.slot);
    if (rc != 0) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    filter_series(h, filter);
    /* a history of nothing checks nothing: refused, as list and plot refuse a filter that
     * matches nothing */
    if (h->n_series == 0) {
        if (filter)
            rb_fmt(err, err_size,
                   "history: --filter '%s' matches no series (%d left out): "
                   "nothing to follow",
                   filter->text, h->n_filtered_out);
        else
            rb_fmt(err, err_size,
                   "history: no run holds a valid, timed variant: nothing to "
                   "follow");
        return -1;
    }
    for (int i = 0; i < h->n_series && rc >= 0; i++) {
        rb_history_series *s = &h->series[i];
        rc = find_steps(h, s, expect);
        h->floors_from_runs += rc > 0 ? rc : 0;
        s->verdict = series_verdict(s);
        h->counts[s->verdict]++;
    }
    if (rc < 0) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    if (h->n_series)
        qsort(h->series, (size_t)h->n_series, sizeof *h->series, by_pair);
    if (label_series(h) != 0) {
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    for (int r = 0; r < h->n_runs; r++) {
        h->runs_without_fingerprints += h->runs[r].fingerprints == 0;
        unread_run(&h->runs[r]);
    }
    for (int i = 0; i < h->n_series; i++)
        for (int k = 0; k < h->series[i].n_points; k++) {
            h->series[i].points[k].pair = NULL;
            h->series[i].points[k].variant = NULL;
        }
    return 0;
}
