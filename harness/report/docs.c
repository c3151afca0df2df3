/* SPDX-License-Identifier: MIT */
#include "docs.h"

#include <dirent.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "docs_render.h"
#include "floors.h"
#include "outputs.h"
#include "plot.h"
#include "report.h"
#include "result_read.h"
#include "runcmp.h"

#define DOCS_MAX_DOCS 32
#define DOCS_MAX_WORDS 6
#define DOCS_MAX_FILES 4096

struct rb_docs {
    char root[RB_PATH_BUF];
    int n;
    char path[DOCS_MAX_DOCS][RB_PATH_BUF]; /* relative to root */
    json_value *doc[DOCS_MAX_DOCS]; /* as parsed, for compare */
    rb_results_doc read[DOCS_MAX_DOCS];
};

rb_docs *rb_docs_new(const char *root)
{
    rb_docs *d = calloc(1, sizeof *d);
    if (d && rb_fmt_fits(d->root, sizeof d->root, "%s", root) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

void rb_docs_free(rb_docs *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->n; i++) {
        json_free(d->doc[i]);
        rb_results_doc_free(&d->read[i]);
    }
    free(d);
}

static void full_path(const rb_docs *d, const char *path, char *out, size_t size)
{
    if (!strcmp(d->root, "."))
        rb_fmt(out, size, "%s", path);
    else
        rb_fmt(out, size, "%s/%s", d->root, path);
}

/* A results file under the root, read once (its index in d). Only relative paths without "..": a
 * block names committed files, nothing outside the repository. -1 with err when it cannot be. */
static int load_at(rb_docs *d, const char *path, char *err, size_t err_size)
{
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->path[i], path))
            return i;
    if (path[0] == '/' || strstr(path, "..") || strlen(path) >= RB_PATH_BUF) {
        rb_fmt(err, err_size, "%.200s: a block names a file under the repository, relative", path);
        return -1;
    }
    char full[RB_PATH_BUF * 2], why[300];
    full_path(d, path, full, sizeof full);
    json_value *doc = json_parse_file(full, err, err_size);
    if (!doc)
        return -1;
    if (d->n == DOCS_MAX_DOCS) {
        rb_fmt(err, err_size, "%s: the blocks name more than %d results files", path,
               DOCS_MAX_DOCS);
        json_free(doc);
        return -1;
    }
    if (rb_results_doc_read(doc, &d->read[d->n], why, sizeof why) != 0) {
        rb_fmt(err, err_size, "%s: %s", path, why);
        json_free(doc);
        return -1;
    }
    rb_fmt(d->path[d->n], sizeof d->path[0], "%s", path);
    d->doc[d->n] = doc;
    return d->n++;
}

/* The document of a results file, as read (load_at); NULL with err. */
static const rb_results_doc *load(rb_docs *d, const char *path, char *err, size_t err_size)
{
    int i = load_at(d, path, err, err_size);
    return i < 0 ? NULL : &d->read[i];
}

/* results/<key>/reference.json, the key checked as a hardware-key slug. */
static int reference_path(const char *key, char *out, size_t size, char *err, size_t err_size)
{
    size_t n = strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-");
    if (!key[0] || key[n] || key[0] == '-') {
        rb_fmt(err, err_size, "'%.100s' is not a hardware key", key);
        return -1;
    }
    rb_fmt(out, size, "results/%s/reference.json", key);
    return 0;
}

char *rb_docs_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    rb_sbuf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        rb_sbuf_add(&b, "%.*s", (int)got, chunk);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        rb_sbuf_free(&b);
        return NULL;
    }
    char *s = rb_sbuf_take(&b);
    return s ? s : calloc(1, 1);
}

/* The committed file under results/<key>/ whose bytes are the reference run's, so that a page
 * can say which run the reference is (NULL: none). */
static void find_copy(const rb_docs *d, const char *dir, const char *ref_text, const char *skip,
                      char *out, size_t size, int depth)
{
    char full[RB_PATH_BUF * 2];
    full_path(d, dir, full, sizeof full);
    DIR *dp = depth < 3 ? opendir(full) : NULL;
    struct dirent *e;
    while (dp && !out[0] && (e = readdir(dp)) != NULL) {
        char rel[RB_PATH_BUF];
        if (e->d_name[0] == '.' || rb_fmt_fits(rel, sizeof rel, "%s/%s", dir, e->d_name) != 0 ||
            !strcmp(rel, skip))
            continue;
        struct stat st;
        full_path(d, rel, full, sizeof full);
        if (stat(full, &st) != 0)
            continue;
        size_t len = strlen(e->d_name);
        if (S_ISDIR(st.st_mode)) {
            find_copy(d, rel, ref_text, skip, out, size, depth + 1);
        } else if (len > 5 && !strcmp(e->d_name + len - 5, ".json") &&
                   (size_t)st.st_size == strlen(ref_text)) {
            char *text = rb_docs_read_text(full);
            if (text && !strcmp(text, ref_text))
                rb_fmt(out, size, "%s", rel);
            free(text);
        }
    }
    if (dp)
        closedir(dp);
}

static char *block_run(rb_docs *d, const char *key, char *err, size_t err_size)
{
    char ref[RB_PATH_BUF], full[RB_PATH_BUF * 2], dir[RB_PATH_BUF], copy[RB_PATH_BUF] = "";
    if (reference_path(key, ref, sizeof ref, err, err_size) != 0)
        return NULL;
    const rb_results_doc *doc = load(d, ref, err, err_size);
    if (!doc)
        return NULL;
    full_path(d, ref, full, sizeof full);
    char *text = rb_docs_read_text(full);
    rb_fmt(dir, sizeof dir, "results/%s", key);
    if (text)
        find_copy(d, dir, text, ref, copy, sizeof copy, 0);
    free(text);
    return rb_docs_render_run(doc, ref, copy[0] ? copy : NULL, RB_DOCS_WIDTH);
}

/* KEY's reference run (its path in ref) and the block's regex compiled into *re: the document,
 * or NULL with the reason in err (nothing to free). */
static const rb_results_doc *reference_and_regex(rb_docs *d, const char *key, const char *regex,
                                                 char *ref, rb_filter *re, char *err,
                                                 size_t err_size)
{
    if (reference_path(key, ref, RB_PATH_BUF, err, err_size) != 0)
        return NULL;
    const rb_results_doc *doc = load(d, ref, err, err_size);
    if (!doc || rb_filter_compile(re, "the block's regex", regex, err, err_size) != 0)
        return NULL;
    return doc;
}

static char *block_rows(rb_docs *d, const char *key, const char *regex, int terminal, char *err,
                        size_t err_size)
{
    char ref[RB_PATH_BUF];
    rb_filter re;
    const rb_results_doc *doc = reference_and_regex(d, key, regex, ref, &re, err, err_size);
    if (!doc)
        return NULL;
    char why[200];
    char *text = rb_docs_render_rows(doc, &re.re, terminal, terminal ? RB_DOCS_SAMPLE_MAX_ROWS : 0,
                                     why, sizeof why);
    rb_filter_free(&re);
    /* A table of a pair newer than the reference run says so (make docs fills it once a
     * reference run has the pair); a sample must show rows. */
    if (!text && !terminal && !strcmp(why, "no row group matches")) {
        rb_sbuf b = {0};
        rb_sbuf_add(
            &b, "No row of the reference run `%s` matches `%s`: the run is older than the pair.\n",
            ref, regex);
        text = rb_sbuf_take(&b);
    }
    if (!text)
        rb_fmt(err, err_size, "%s in %s: %s", regex, ref, why);
    return text;
}

/* The reference run's energy of the row groups regex matches (rb_docs_render_energy). */
static char *block_energy(rb_docs *d, const char *key, const char *regex, char *err,
                          size_t err_size)
{
    char ref[RB_PATH_BUF];
    rb_filter re;
    const rb_results_doc *doc = reference_and_regex(d, key, regex, ref, &re, err, err_size);
    if (!doc)
        return NULL;
    char why[200];
    char *text = rb_docs_render_energy(doc, &re.re, why, sizeof why);
    rb_filter_free(&re);
    if (!text)
        rb_fmt(err, err_size, "%s in %s: %s", regex, ref, why);
    return text;
}

/* roofbench compare OLD NEW --expect none [--filter REGEX], as the command prints it. The floors
 * come from the runs alone: an expectation file's path would be this machine's. */
static char *block_compare(rb_docs *d, char **w, int n, char *err, size_t err_size)
{
    int old_at = load_at(d, w[1], err, err_size);
    int new_at = old_at < 0 ? -1 : load_at(d, w[2], err, err_size);
    if (new_at < 0)
        return NULL;
    const json_value *old_doc = d->doc[old_at], *new_doc = d->doc[new_at];
    const char *keys[2] = {d->read[old_at].hardware_key, d->read[new_at].hardware_key};
    rb_floors f;
    rb_runcmp c;
    if (rb_floors_resolve(NULL, 1, keys, 2, NULL, &f, err, err_size) != 0)
        return NULL;
    char *text = NULL, line[RB_PATH_BUF + 600];
    size_t len = 0;
    rb_filter filter;
    int have_filter = 0;
    int rc = rb_runcmp_build_expect(old_doc, new_doc, NULL, &c, err, err_size);
    if (rc == 0 && n == 4 &&
        (rc = rb_filter_compile(&filter, "--filter", w[3], err, err_size)) != 0)
        rb_runcmp_free(&c);
    if (rc == 0 && n == 4) {
        have_filter = 1;
        rb_runcmp_filter(&c, &filter);
    }
    if (rc == 0) {
        rb_floors_line(&f, c.floors_from_runs, line, sizeof line);
        c.floors_line = line;
        FILE *out = open_memstream(&text, &len);
        if (out) {
            fprintf(out, "```\n");
            rb_runcmp_print_at(out, &c, w[1], w[2], 0);
            int failing = rb_runcmp_failing(&c, 0);
            if (failing)
                fprintf(out, "exit 1: %d variant(s) slower for a cause other than the machine (platform, clock)\n",
                        failing);
            fprintf(out, "```\n");
            fclose(out);
        }
        rb_runcmp_free(&c);
        if (!text)
            rb_fmt(err, err_size, "out of memory");
    }
    if (have_filter)
        rb_filter_free(&filter);
    rb_floors_free(&f);
    return text;
}

/* ---- an index of results/<key>/ ---- */

typedef struct docs_names {
    char **name;
    int n, cap;
} docs_names;

static int names_add(docs_names *l, const char *name)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **bigger = realloc(l->name, (size_t)cap * sizeof *bigger);
        if (!bigger)
            return -1;
        l->name = bigger;
        l->cap = cap;
    }
    size_t len = strlen(name);
    if (!(l->name[l->n] = malloc(len + 1)))
        return -1;
    memcpy(l->name[l->n++], name, len + 1);
    return 0;
}

static void names_free(docs_names *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->name[i]);
    free(l->name);
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files under rel (relative to the root) that git tracks, each as its path below rel: 1 with
 * l filled, 0 when git cannot say (no git, not a checkout: then the folder as it is), -1 out of
 * memory. What a run writes there is ignored by git until it is committed on purpose, so an
 * index of the tracked files does not change with a user's runs. */
static int tracked_paths(const rb_docs *d, const char *rel, docs_names *l)
{
    char cmd[RB_PATH_BUF * 2 + 64];
    if (strchr(d->root, '\'') || strchr(rel, '\''))
        return 0;
    rb_fmt(cmd, sizeof cmd, "git -C '%s' ls-files -- '%s' 2>/dev/null", d->root, rel);
    int status;
    char *out = rb_command_output(cmd, &status);
    if (!out || status != 0 || !out[0]) {
        free(out);
        return 0;
    }
    size_t skip = strlen(rel) + 1;
    int rc = 1;
    for (char *line = strtok(out, "\n"); line && rc == 1; line = strtok(NULL, "\n"))
        if (strlen(line) > skip)
            rc = names_add(l, line + skip) == 0 ? 1 : -1;
    free(out);
    return rc;
}

/* The files under the folder rel as they are on disk, each as prefix + its path below rel. */
static int walk_paths(const rb_docs *d, const char *rel, const char *prefix, docs_names *l,
                      int depth)
{
    char full[RB_PATH_BUF * 2];
    full_path(d, rel, full, sizeof full);
    DIR *dp = depth < 8 ? opendir(full) : NULL;
    struct dirent *e;
    int rc = dp || depth > 0 ? 0 : -1;
    while (dp && rc == 0 && (e = readdir(dp)) != NULL) {
        char sub[RB_PATH_BUF], name[RB_PATH_BUF];
        struct stat st;
        if (e->d_name[0] == '.' || rb_fmt_fits(sub, sizeof sub, "%s/%s", rel, e->d_name) != 0 ||
            rb_fmt_fits(name, sizeof name, "%s%s", prefix, e->d_name) != 0)
            continue;
        full_path(d, sub, full, sizeof full);
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            char deeper[RB_PATH_BUF];
            rb_fmt(deeper, sizeof deeper, "%s/", name);
            rc = walk_paths(d, sub, deeper, l, depth + 1);
        } else {
            rc = names_add(l, name);
        }
    }
    if (dp)
        closedir(dp);
    return rc;
}

/* Every file under the folder rel (relative to the root), as its path below rel, sorted: those
 * git tracks, in a checkout; -1 when they cannot be read. */
static int folder_paths(const rb_docs *d, const char *rel, docs_names *l)
{
    int rc = tracked_paths(d, rel, l);
    if (rc == 0)
        rc = walk_paths(d, rel, "", l, 0) == 0 ? 1 : -1;
    if (l->n)
        qsort(l->name, (size_t)l->n, sizeof l->name[0], by_string);
    return rc < 0 ? -1 : 0;
}

/* The entries of the folder rel (the first component of each of its files' paths), sorted. The
 * paths of one sub-folder are adjacent once sorted ("a/..." all share the prefix "a/"). */
static int folder_names(const rb_docs *d, const char *rel, docs_names *l)
{
    docs_names all = {0};
    int rc = folder_paths(d, rel, &all);
    for (int i = 0; rc == 0 && i < all.n; i++) {
        char *name = all.name[i], *slash = strchr(name, '/');
        if (slash)
            *slash = '\0';
        if (l->n == 0 || strcmp(l->name[l->n - 1], name))
            rc = names_add(l, name);
    }
    names_free(&all);
    if (l->n)
        qsort(l->name, (size_t)l->n, sizeof l->name[0], by_string);
    return rc;
}

/* A run's companions (<stem>.md, .html and its charts: .svg, -speedup.svg, -compute.svg, ...)
 * are listed with it, not alone. */
static int is_companion(const docs_names *l, const char *name)
{
    for (int k = 0; k < 2 + RB_PLOT_FILES; k++) {
        const char *ext = k == 0 ? ".md" : k == 1 ? ".html" : rb_plot_file_suffix(k - 2);
        size_t n = strlen(name), e = strlen(ext);
        if (n <= e || strcmp(name + n - e, ext))
            continue;
        char json[RB_PATH_BUF];
        rb_fmt(json, sizeof json, "%.*s.json", (int)(n - e), name);
        for (int i = 0; i < l->n; i++)
            if (!strcmp(l->name[i], json))
                return 1;
    }
    return 0;
}

/* Whether the file at path (relative to the root) is the Markdown twin of a run: its first line
 * is the one `run` writes. */
static int is_run_markdown(const rb_docs *d, const char *path)
{
    static const char head[] = "# roofbench results: ";
    char full[RB_PATH_BUF * 2], first[sizeof head] = "";
    size_t n = strlen(path);
    if (n < 3 || strcmp(path + n - 3, ".md"))
        return 0;
    full_path(d, path, full, sizeof full);
    FILE *f = fopen(full, "rb");
    size_t got = f ? fread(first, 1, sizeof head - 1, f) : 0;
    if (f)
        fclose(f);
    first[got] = '\0';
    return !strcmp(first, head);
}

/* One file of the index: a run with its companions, or another file. */
static void index_file(rb_docs *d, const char *rel, const docs_names *l, const char *name,
                       rb_sbuf *b)
{
    char path[RB_PATH_BUF], full[RB_PATH_BUF * 2], err[300];
    rb_fmt(path, sizeof path, "%s/%s", rel, name);
    size_t n = strlen(name);
    json_value *doc = NULL;
    rb_results_doc run;
    if (n > 5 && !strcmp(name + n - 5, ".json")) {
        full_path(d, path, full, sizeof full);
        doc = json_parse_file(full, err, sizeof err);
    }
    int is_run = doc && rb_results_doc_read(doc, &run, err, sizeof err) == 0;
    char *line = is_run ? rb_docs_render_run_line(&run) : NULL;
    if (is_run)
        rb_results_doc_free(&run);
    rb_sbuf_add(b, "| `%s`", name);
    for (int i = 0; line && i < l->n; i++)
        if (strncmp(l->name[i], name, n - 5) == 0 && strcmp(l->name[i], name) &&
            is_companion(l, l->name[i]))
            rb_sbuf_add(b, ", `%s`", l->name[i] + n - 5);
    rb_sbuf_add(b, " | %s |\n",
                line  ? line
                : doc ? "a JSON document, not a run"
                : is_run_markdown(d, path)
                    ? "a run's Markdown table, kept without its JSON (git history has the JSON)"
                    : "a log or a diagnostic's output");
    free(line);
    json_free(doc);
}

/* One sub-folder of the index: every file under it (its path below the folder), on one row. */
static void index_folder(rb_docs *d, const char *rel, const char *name, rb_sbuf *b)
{
    char sub[RB_PATH_BUF];
    docs_names l = {0};
    rb_fmt(sub, sizeof sub, "%s/%s", rel, name);
    folder_paths(d, sub, &l);
    rb_sbuf_add(b, "| `%s/` | ", name);
    for (int i = 0; i < l.n; i++)
        rb_sbuf_add(b, "%s`%s`", i ? ", " : "", l.name[i]);
    rb_sbuf_add(b, " |\n");
    names_free(&l);
}

/* Every file and folder of results/<key>/, a row each (a run with its companions). */
static char *block_index(rb_docs *d, const char *key, char *err, size_t err_size)
{
    char ref[RB_PATH_BUF], rel[RB_PATH_BUF], full[RB_PATH_BUF * 2];
    docs_names l = {0};
    if (reference_path(key, ref, sizeof ref, err, err_size) != 0)
        return NULL;
    rb_fmt(rel, sizeof rel, "results/%s", key);
    if (folder_names(d, rel, &l) != 0) {
        rb_fmt(err, err_size, "%s: cannot read the folder", rel);
        names_free(&l);
        return NULL;
    }
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "| file or folder | what |\n|---|---|\n");
    for (int i = 0; i < l.n; i++) {
        char path[RB_PATH_BUF];
        struct stat st;
        rb_fmt(path, sizeof path, "%s/%s", rel, l.name[i]);
        full_path(d, path, full, sizeof full);
        if (stat(full, &st) != 0 || is_companion(&l, l.name[i]))
            continue;
        if (S_ISDIR(st.st_mode))
            index_folder(d, rel, l.name[i], &b);
        else
            index_file(d, rel, &l, l.name[i], &b);
    }
    names_free(&l);
    char *text = rb_sbuf_take(&b);
    if (!text)
        rb_fmt(err, err_size, "out of memory");
    return text;
}

/* The thresholds of expectations/<key>.json above 5%: the rows a 10% change could hide in. */
static char *block_thresholds(rb_docs *d, const char *key, char *err, size_t err_size)
{
    char ref[RB_PATH_BUF], full[RB_PATH_BUF * 2];
    if (reference_path(key, ref, sizeof ref, err, err_size) != 0)
        return NULL;
    rb_fmt(ref, sizeof ref, "expectations/%s.json", key);
    full_path(d, ref, full, sizeof full);
    json_value *doc = json_parse_file(full, err, err_size);
    if (!doc)
        return NULL;
    char *text = rb_docs_render_thresholds(doc, 0.05);
    json_free(doc);
    if (!text)
        rb_fmt(err, err_size, "out of memory");
    return text;
}

char *rb_docs_block(rb_docs *d, const char *words, char *err, size_t err_size)
{
    char buf[1024], *w[DOCS_MAX_WORDS + 1];
    int n = 0;
    if (rb_fmt_fits(buf, sizeof buf, "%s", words) != 0) {
        rb_fmt(err, err_size, "the block's name is too long");
        return NULL;
    }
    for (char *tok = strtok(buf, " \t"); tok && n <= DOCS_MAX_WORDS; tok = strtok(NULL, " \t"))
        w[n++] = tok;
    const char *kind = n ? w[0] : "";
    if (!strcmp(kind, "run") && n == 2)
        return block_run(d, w[1], err, err_size);
    if (!strcmp(kind, "roofs") && n == 2) {
        char ref[RB_PATH_BUF];
        const rb_results_doc *doc = reference_path(w[1], ref, sizeof ref, err, err_size) == 0
                                        ? load(d, ref, err, err_size)
                                        : NULL;
        return doc ? rb_docs_render_roofs(doc) : NULL;
    }
    if ((!strcmp(kind, "table") || !strcmp(kind, "sample")) && n == 3)
        return block_rows(d, w[1], w[2], kind[0] == 's', err, err_size);
    if (!strcmp(kind, "energy") && n == 3)
        return block_energy(d, w[1], w[2], err, err_size);
    if (!strcmp(kind, "index") && n == 2)
        return block_index(d, w[1], err, err_size);
    if (!strcmp(kind, "thresholds") && n == 2)
        return block_thresholds(d, w[1], err, err_size);
    if (!strcmp(kind, "compare") && (n == 3 || n == 4))
        return block_compare(d, w, n, err, err_size);
    rb_fmt(err, err_size,
           "unknown block '%.200s' (run KEY, roofs KEY, table KEY REGEX, sample KEY REGEX, "
           "energy KEY REGEX, thresholds KEY, index KEY, compare OLD NEW [REGEX])",
           words);
    return NULL;
}

char *rb_docs_header_lines(rb_docs *d, const char *pair, const char *prefix, char *err,
                           size_t err_size)
{
    char ref[RB_PATH_BUF];
    if (reference_path(RB_DOCS_HEADER_KEY, ref, sizeof ref, err, err_size) != 0)
        return NULL;
    const rb_results_doc *doc = load(d, ref, err, err_size);
    if (!doc)
        return NULL;
    char *text = rb_docs_render_header(doc, ref, pair, prefix, RB_DOCS_WIDTH, RB_DOCS_HEADER_LINES);
    if (!text)
        rb_fmt(err, err_size, "out of memory");
    return text;
}

/* ---- a reference run's Markdown twin ---- */

char *rb_docs_reference_md(rb_docs *d, const char *key, char *err, size_t err_size)
{
    char ref[RB_PATH_BUF];
    if (reference_path(key, ref, sizeof ref, err, err_size) != 0)
        return NULL;
    const rb_results_doc *doc = load(d, ref, err, err_size);
    if (!doc)
        return NULL;
    char *md = rb_report_markdown(doc->pairs, doc->n_pairs, doc);
    if (!md) {
        rb_fmt(err, err_size, "out of memory");
        return NULL;
    }
    /* the charts and the report make docs draws beside the run (roofbench plot --html), linked
     * as run links its own */
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "%s\n", md);
    /* the charts read the document as parsed (plot.c) */
    rb_plot_charts_markdown(&b, rb_plot_charts_of(d->doc[load_at(d, ref, err, err_size)]),
                            "reference");
    free(md);
    char *text = rb_sbuf_take(&b);
    if (!text)
        rb_fmt(err, err_size, "out of memory");
    return text;
}

/* ---- the blocks of a file ---- */

/* One line of text: [s, s + len) with its newline, if any. */
typedef struct docs_line {
    const char *s;
    size_t len;
} docs_line;

static docs_line line_at(const char *s)
{
    const char *nl = strchr(s, '\n');
    docs_line l = {s, nl ? (size_t)(nl - s) + 1 : strlen(s)};
    return l;
}

/* The line without its surrounding blanks, into out. */
static void trimmed(docs_line l, char *out, size_t size)
{
    size_t a = 0, b = l.len;
    while (a < b && (l.s[a] == ' ' || l.s[a] == '\t'))
        a++;
    while (b > a &&
           (l.s[b - 1] == '\n' || l.s[b - 1] == '\r' || l.s[b - 1] == ' ' || l.s[b - 1] == '\t'))
        b--;
    rb_fmt(out, size, "%.*s", (int)(b - a), l.s + a);
}

static int starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* The block's name when the line opens a Markdown block ("" otherwise). */
static void md_begin(docs_line l, char *name, size_t size)
{
    char t[1200];
    trimmed(l, t, sizeof t);
    size_t n = strlen(t), b = strlen(RB_DOCS_MD_BEGIN);
    name[0] = '\0';
    if (starts_with(t, RB_DOCS_MD_BEGIN) && n >= b + 3 && !strcmp(t + n - 3, "-->"))
        rb_fmt(name, size, "%.*s", (int)(n - b - 3), t + b);
    n = strlen(name);
    while (n > 0 && name[n - 1] == ' ')
        name[--n] = '\0';
}

static int is_md_end(docs_line l)
{
    char t[64];
    trimmed(l, t, sizeof t);
    return !strcmp(t, RB_DOCS_MD_END);
}

static int holds(docs_line l, const char *what)
{
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= l.len; i++)
        if (!memcmp(l.s + i, what, n))
            return 1;
    return 0;
}

/* The first line where committed and generated differ, said in report under the block's line. */
static void say_stale(rb_sbuf *report, const char *path, int line, const char *name,
                      const char *committed, size_t committed_len, const char *generated)
{
    size_t i = 0, start = 0;
    while (i < committed_len && generated[i] && committed[i] == generated[i]) {
        if (committed[i] == '\n')
            start = i + 1;
        i++;
    }
    size_t a = strcspn(committed + start, "\n"), b = strcspn(generated + start, "\n");
    if (start + a > committed_len)
        a = committed_len - start;
    rb_sbuf_add(report,
                "%s:%d: block '%s' is not what the reference run gives (run make docs)\n"
                "    committed: %.*s\n    generated: %.*s\n",
                path, line, name, (int)a, committed + start, (int)b, generated + start);
}

/* A file being regenerated: where it is, what it has counted, the text it becomes. */
typedef struct docs_scan {
    const char *path;
    int line; /* of the begin line, 1-based */
    int blocks, stale;
    rb_sbuf *out, *report;
} docs_scan;

/* Replaces [body, end) (the committed lines) by generated, counting and reporting. */
static void put_block(docs_scan *sc, const char *name, const char *body, const char *end,
                      const char *generated)
{
    size_t len = (size_t)(end - body);
    sc->blocks++;
    if (strlen(generated) != len || memcmp(body, generated, len)) {
        sc->stale++;
        say_stale(sc->report, sc->path, sc->line, name, body, len, generated);
    }
    rb_sbuf_add(sc->out, "%s", generated);
}

static int md_block(rb_docs *d, docs_scan *sc, const char *name, const char **s, int *line,
                    char *err, size_t err_size)
{
    const char *body = *s;
    int n = *line;
    char other[8];
    for (docs_line l = line_at(body); l.len; l = line_at(l.s + l.len), n++) {
        md_begin(l, other, sizeof other);
        if (other[0])
            break;
        if (!is_md_end(l))
            continue;
        char *generated = rb_docs_block(d, name, err, err_size);
        if (!generated) {
            char why[400];
            rb_fmt(why, sizeof why, "%s", err);
            rb_fmt(err, err_size, "%s:%d: %s", sc->path, sc->line, why);
            return -1;
        }
        put_block(sc, name, body, l.s, generated);
        free(generated);
        rb_sbuf_add(sc->out, "%.*s", (int)l.len, l.s);
        *s = l.s + l.len;
        *line = n + 1;
        return 0;
    }
    rb_fmt(err, err_size, "%s:%d: no '%s' line closes this block", sc->path, sc->line,
           RB_DOCS_MD_END);
    return -1;
}

static int md_file(rb_docs *d, docs_scan *sc, const char *text, char *err, size_t err_size)
{
    int fenced = 0, line = 1;
    const char *s = text;
    while (*s) {
        docs_line l = line_at(s);
        char name[1024], t[8];
        md_begin(l, name, sizeof name);
        rb_sbuf_add(sc->out, "%.*s", (int)l.len, l.s);
        s += l.len;
        if (!fenced && name[0]) {
            sc->line = line++;
            if (md_block(d, sc, name, &s, &line, err, err_size) != 0)
                return -1;
            continue;
        }
        trimmed(l, t, sizeof t);
        fenced ^= starts_with(t, "```") || starts_with(t, "~~~");
        line++;
    }
    return 0;
}

/* A kernel header: the lines after the begin line up to the end line are the pair's. */
static int cu_file(rb_docs *d, docs_scan *sc, const char *text, char *err, size_t err_size)
{
    char pair[128];
    const char *base = strrchr(sc->path, '/');
    base = base ? base + 1 : sc->path;
    rb_fmt(pair, sizeof pair, "%.*s", (int)strcspn(base, "."), base);
    int line = 1;
    const char *s = text;
    while (*s) {
        docs_line l = line_at(s);
        rb_sbuf_add(sc->out, "%.*s", (int)l.len, l.s);
        s += l.len;
        if (!holds(l, RB_DOCS_CU_BEGIN)) {
            line++;
            continue;
        }
        sc->line = line++;
        docs_line e = line_at(s);
        for (int k = 0; e.len && !holds(e, RB_DOCS_CU_END) && k <= RB_DOCS_HEADER_LINES * 4; k++)
            e = line_at(e.s + e.len);
        if (!e.len || !holds(e, RB_DOCS_CU_END)) {
            rb_fmt(err, err_size, "%s:%d: no '%s' line closes these generated lines", sc->path,
                   sc->line, RB_DOCS_CU_END);
            return -1;
        }
        char prefix[64];
        const char *at = strstr(e.s, RB_DOCS_CU_END);
        rb_fmt(prefix, sizeof prefix, "%.*s", (int)(at - e.s), e.s);
        char *generated = rb_docs_header_lines(d, pair, prefix, err, err_size);
        if (!generated)
            return -1;
        put_block(sc, "Measured", s, e.s, generated);
        free(generated);
        for (const char *p = s; p < e.s; p++)
            line += *p == '\n';
        s = e.s;
    }
    return 0;
}

char *rb_docs_refresh(rb_docs *d, const char *path, const char *text, int *blocks, int *stale,
                      rb_sbuf *report, char *err, size_t err_size)
{
    rb_sbuf out = {0};
    docs_scan sc = {.path = path, .out = &out, .report = report};
    size_t n = strlen(path);
    int cu = n > 3 && !strcmp(path + n - 3, ".cu");
    if ((cu ? cu_file : md_file)(d, &sc, text, err, err_size) != 0) {
        rb_sbuf_free(&out);
        return NULL;
    }
    *blocks += sc.blocks;
    *stale += sc.stale;
    char *s = rb_sbuf_take(&out);
    if (!s && text[0])
        rb_fmt(err, err_size, "%s: out of memory", path);
    return s ? s : text[0] ? NULL : calloc(1, 1);
}

/* ---- the files ---- */

typedef struct docs_list {
    char **p;
    int n;
} docs_list;

static int add_file(docs_list *l, const char *path)
{
    if (l->n + 1 >= DOCS_MAX_FILES)
        return 0; /* a repository with more pages than this is not one this tool knows */
    char *s = malloc(strlen(path) + 1);
    if (!s)
        return -1;
    strcpy(s, path);
    l->p[l->n++] = s;
    return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a > b && !strcmp(s + a - b, suffix);
}

static int walk(const char *root, const char *dir, const char *suffix, int deep, docs_list *l)
{
    char full[RB_PATH_BUF * 2];
    rb_fmt(full, sizeof full, "%s/%s", root, dir);
    DIR *dp = opendir(full);
    struct dirent *e;
    int rc = 0;
    while (dp && rc == 0 && (e = readdir(dp)) != NULL) {
        char rel[RB_PATH_BUF];
        struct stat st;
        if (e->d_name[0] == '.' || rb_fmt_fits(rel, sizeof rel, "%s/%s", dir, e->d_name) != 0)
            continue;
        rb_fmt(full, sizeof full, "%s/%s", root, rel);
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && deep)
            rc = walk(root, rel, suffix, deep, l);
        else if (S_ISREG(st.st_mode) && has_suffix(e->d_name, suffix))
            rc = add_file(l, rel);
    }
    if (dp)
        closedir(dp);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int rb_docs_files(const char *root, char ***paths, char *err, size_t err_size)
{
    docs_list l = {calloc(DOCS_MAX_FILES, sizeof(char *)), 0};
    const char *single[] = {"README.md", "results/README.md"};
    int rc = l.p ? 0 : -1;
    for (int i = 0; rc == 0 && i < 2; i++) {
        char full[RB_PATH_BUF * 2];
        struct stat st;
        rb_fmt(full, sizeof full, "%s/%s", root, single[i]);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
            rc = add_file(&l, single[i]);
    }
    if (rc == 0)
        rc = walk(root, "docs", ".md", 1, &l);
    if (rc == 0)
        rc = walk(root, "kernels", ".cu", 0, &l);
    if (rc != 0) {
        rb_docs_files_free(l.p);
        rb_fmt(err, err_size, "out of memory");
        return -1;
    }
    qsort(l.p, (size_t)l.n, sizeof l.p[0], by_name);
    *paths = l.p;
    return 0;
}

void rb_docs_files_free(char **paths)
{
    for (int i = 0; paths && paths[i]; i++)
        free(paths[i]);
    free(paths);
}

/* ---- roofbench docs ---- */

/* One file: regenerated, and rewritten when it changed (unless check). 0, or -1 with err. */
static int docs_file(rb_docs *d, const char *root, const char *path, int check, int *blocks,
                     int *stale, int *rewritten, rb_sbuf *report, char *err, size_t err_size)
{
    char full[RB_PATH_BUF * 2];
    rb_fmt(full, sizeof full, "%s/%s", root, path);
    char *text = rb_docs_read_text(full);
    if (!text) {
        rb_fmt(err, err_size, "%s: cannot read", path);
        return -1;
    }
    int before = *stale;
    char *fresh = rb_docs_refresh(d, path, text, blocks, stale, report, err, err_size);
    int rc = fresh ? 0 : -1;
    if (fresh && !check && *stale > before) {
        rc = rb_write_file_atomic(full, fresh, err, err_size);
        *rewritten += rc == 0;
    }
    free(text);
    free(fresh);
    return rc;
}

/* The hardware keys of the results/<key>/ folders that hold a reference run, sorted. */
static int reference_keys(const char *root, docs_names *keys)
{
    char full[RB_PATH_BUF * 2];
    rb_fmt(full, sizeof full, "%s/results", root);
    DIR *dp = opendir(full);
    struct dirent *e;
    int rc = 0;
    while (dp && rc == 0 && (e = readdir(dp)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.' ||
            rb_fmt_fits(full, sizeof full, "%s/results/%s/reference.json", root, e->d_name) != 0)
            continue;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
            rc = names_add(keys, e->d_name);
    }
    if (dp)
        closedir(dp);
    if (keys->n)
        qsort(keys->name, (size_t)keys->n, sizeof keys->name[0], by_string);
    return rc;
}

/* results/<key>/reference.md of every reference run: regenerated and rewritten when it differs
 * (unless check), counting into *files and *stale. 0, or -1 with err. */
static int docs_reference_mds(rb_docs *d, const char *root, int check, int *files, int *stale,
                              rb_sbuf *report, char *err, size_t err_size)
{
    docs_names keys = {0};
    int rc = reference_keys(root, &keys) == 0 ? 0 : -1;
    if (rc != 0)
        rb_fmt(err, err_size, "out of memory");
    for (int i = 0; rc == 0 && i < keys.n; i++) {
        char rel[RB_PATH_BUF], full[RB_PATH_BUF * 2];
        char *fresh = rb_docs_reference_md(d, keys.name[i], err, err_size);
        rb_fmt(rel, sizeof rel, "results/%s/reference.md", keys.name[i]);
        rb_fmt(full, sizeof full, "%s/%s", root, rel);
        char *committed = fresh ? rb_docs_read_text(full) : NULL;
        rc = fresh ? 0 : -1;
        ++*files;
        if (fresh && (!committed || strcmp(committed, fresh))) {
            ++*stale;
            rb_sbuf_add(report, "%s: not what results/%s/reference.json gives (run make docs)\n",
                        rel, keys.name[i]);
            if (!check)
                rc = rb_write_file_atomic(full, fresh, err, err_size);
        }
        free(committed);
        free(fresh);
    }
    names_free(&keys);
    return rc;
}

int rb_docs_main(const char *root, int check, FILE *out, FILE *err_out)
{
    char err[1200], readme[RB_PATH_BUF * 2], **paths = NULL;
    struct stat st;
    rb_fmt(readme, sizeof readme, "%s/README.md", root);
    if (stat(readme, &st) != 0) {
        fprintf(err_out, "roofbench: docs: %s: no README.md: run it in the repository's root\n",
                root);
        return 2;
    }
    rb_docs *d = rb_docs_new(root);
    if (!d || rb_docs_files(root, &paths, err, sizeof err) != 0) {
        fprintf(err_out, "roofbench: docs: %s\n", d ? err : "out of memory");
        rb_docs_free(d);
        return 2;
    }
    rb_sbuf report = {0};
    int blocks = 0, stale = 0, rewritten = 0, files = 0, rc = 0;
    int mds = 0, md_stale = 0;
    for (; paths[files] && rc == 0; files++)
        rc = docs_file(d, root, paths[files], check, &blocks, &stale, &rewritten, &report, err,
                       sizeof err);
    if (rc == 0)
        rc = docs_reference_mds(d, root, check, &mds, &md_stale, &report, err, sizeof err);
    char *said = rb_sbuf_take(&report);
    if (said && check)
        fputs(said, out);
    free(said);
    if (rc != 0)
        fprintf(err_out, "roofbench: docs: %s\n", err);
    else if (check)
        fprintf(out,
                "docs: %d generated blocks in %d files: %d stale; %d of %d reference .md stale%s\n",
                blocks, files, stale, md_stale, mds,
                stale || md_stale
                    ? " (make docs regenerates them from results/<hardware-key>/reference.json)"
                    : "");
    else
        fprintf(out,
                "docs: %d generated blocks in %d files: %d rewritten, in %d files; %d of %d "
                "reference .md rewritten\n",
                blocks, files, stale, rewritten, md_stale, mds);
    rb_docs_files_free(paths);
    rb_docs_free(d);
    return rc != 0 ? 2 : check && (stale || md_stale) ? 1 : 0;
}
