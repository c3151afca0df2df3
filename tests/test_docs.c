/* SPDX-License-Identifier: MIT */
/*
 * The measured figures the documentation quotes must be committed: every result file or folder
 * that README.md, results/README.md, a page under docs/ or a kernel header's generated lines
 * (report/docs.h) names must exist under results/, whether by its time stamp
 * (<yyyymmddThhmm[ss]Z>-<rev>...) or by its path (results/<hardware-key>/reference.json). Runs
 * are not committed unless added on purpose (`git add -f`: .gitignore keeps the files under
 * results/<key>/ out), so a file quoted but never added exists on the machine that fetched it
 * and nowhere else; CI runs on a clean clone, where this test then fails and names what is
 * missing. Source comments are not documentation: numbers in them come from the generated lines.
 *
 * A stamp citation is matched by its stamp-named component and, when a '/' follows it, the name
 * after it, as a substring of a path under results/:
 * "20261126T0029Z-3364754-record/record.{json,md}" needs a path containing
 * "/20261126T0029Z-3364754-record/record". A name wrapped at the end of a line ("...-hgemm-" then a
 * new line) is matched by the part before the wrap. A path citation
 * ("results/nvidia-h200/reference.{json,md}") must be the start of a path under results/.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../harness/report/docs.h"
#include "../harness/model/expect.h"
#include "../harness/model/json.h"
#include "rbtest.h"

#define DOCS_MAX_PATHS 8192
#define DOCS_PATH_LEN 512
#define DOCS_MAX_MISSING 40

typedef struct docs_paths {
    char (*path)[DOCS_PATH_LEN];
    int n;
} docs_paths;

static void collect(const char *dir, docs_paths *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && out->n < DOCS_MAX_PATHS) {
        if (e->d_name[0] == '.')
            continue;
        char p[DOCS_PATH_LEN - 1]; /* room for the '/' of a folder */
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
            continue;
        struct stat st;
        if (stat(p, &st) != 0)
            continue;
        char *to = out->path[out->n++];
        strcpy(to, p);
        if (S_ISDIR(st.st_mode))
            strcat(to, "/");
        if (S_ISDIR(st.st_mode))
            collect(p, out);
    }
    closedir(d);
}

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* Length of a run stamp at s ("20261126T0029Z-" or "20261122T032108Z-"), 0 when there is none. */
static size_t stamp_at(const char *s)
{
    size_t i = 0;
    while (i < 8 && isdigit((unsigned char)s[i]))
        i++;
    if (i != 8 || s[i] != 'T')
        return 0;
    size_t j = ++i;
    while (isdigit((unsigned char)s[i]))
        i++;
    if ((i - j != 4 && i - j != 6) || s[i] != 'Z' || s[i + 1] != '-')
        return 0;
    return i + 2;
}

static void add_missing(const char *file, const char *cite, char *missing, size_t missing_size,
                        int *n_missing)
{
    if ((*n_missing)++ < DOCS_MAX_MISSING) {
        size_t used = strlen(missing);
        snprintf(missing + used, missing_size - used, "  %s: %s\n", file, cite);
    }
}

/* Length of a short run stamp at s, the date left out after an ellipsis ("…T0639Z-": the UTF-8
 * ellipsis, then T, 4 or 6 digits, Z and a dash), 0 when there is none; *skip is the ellipsis's
 * length. */
static size_t short_stamp_at(const char *s, size_t *skip)
{
    static const char ellipsis[] = "\xe2\x80\xa6";
    *skip = sizeof ellipsis - 1;
    if (strncmp(s, ellipsis, *skip) != 0 || s[*skip] != 'T')
        return 0;
    size_t i = *skip + 1, j = i;
    while (isdigit((unsigned char)s[i]))
        i++;
    if ((i - j != 4 && i - j != 6) || s[i] != 'Z' || s[i + 1] != '-')
        return 0;
    return i + 2 - *skip;
}

/* A citation by path at s ("results/<key>/<name>..."): its length, 0 when there is none (a
 * placeholder such as results/<hardware-key>/, or a path holding a stamp, which the stamp
 * matcher checks). */
static size_t path_at(const char *s)
{
    if (strncmp(s, "results/", 8) != 0)
        return 0;
    /* a hardware key, lower case ("results/KEY/" is a placeholder) */
    size_t key = strspn(s + 8, "abcdefghijklmnopqrstuvwxyz0123456789-");
    if (key == 0 || s[8 + key] != '/')
        return 0;
    size_t n = 8, slashes = 0;
    while (name_char(s[n]) || s[n] == '/') {
        slashes += s[n] == '/';
        if (stamp_at(s + n))
            return 0;
        n++;
    }
    return slashes > 0 && n > 8 && s[8] != '/' ? n : 0;
}

static int check_path(const char *file, const char *s, size_t n, const docs_paths *have,
                      char *missing, size_t missing_size, int *n_missing)
{
    char cite[DOCS_PATH_LEN];
    snprintf(cite, sizeof cite, "%.*s", (int)(n < sizeof cite - 1 ? n : sizeof cite - 1), s);
    size_t len = strlen(cite);
    while (len > 1 && (cite[len - 1] == '.' || cite[len - 1] == ','))
        cite[--len] = '\0';
    int ok = 0;
    for (int i = 0; i < have->n && !ok; i++)
        ok = strncmp(have->path[i], cite, len) == 0;
    if (!ok)
        add_missing(file, cite, missing, missing_size, n_missing);
    return 1;
}

/* The citations in text: each one whose path under results/ is missing is appended to missing
 * (as "file: citation"). Returns how many citations it found. */
static int check_text(const char *file, const char *text, const docs_paths *have, char *missing,
                      size_t missing_size, int *n_missing)
{
    int found = 0;
    for (const char *s = text; *s; s++) {
        if (s > text && isalnum((unsigned char)s[-1]))
            continue;
        size_t n = path_at(s);
        if (n) {
            found += check_path(file, s, n, have, missing, missing_size, n_missing);
            s += n - 1;
            continue;
        }
        size_t skip = 0;
        n = stamp_at(s);
        if (!n && (n = short_stamp_at(s, &skip)) != 0)
            s += skip; /* "…T0639Z-...": matched without the date, as "T0639Z-..." */
        if (!n)
            continue;
        while (name_char(s[n]))
            n++;
        if (s[n] == '/' && isalnum((unsigned char)s[n + 1])) { /* not "x.txt/.csv" */
            n++;
            while (name_char(s[n]))
                n++;
        }
        char cite[DOCS_PATH_LEN];
        snprintf(cite, sizeof cite, "%s%.*s", skip ? "" : "/",
                 (int)(n < sizeof cite - 2 ? n : sizeof cite - 2), s);
        size_t len = strlen(cite);
        while (len > 1 && (cite[len - 1] == '.' || cite[len - 1] == ','))
            cite[--len] = '\0'; /* the end of a sentence, or of "record.{json,md}"'s stem */
        found++;
        int ok = 0;
        for (int i = 0; i < have->n && !ok; i++)
            ok = strstr(have->path[i], cite) != NULL;
        if (!ok) {
            char shown[DOCS_PATH_LEN + 16];
            snprintf(shown, sizeof shown, "results/...%s", cite);
            add_missing(file, shown, missing, missing_size, n_missing);
        }
        s += n - 1;
    }
    return found;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (buf) {
        size_t got = fread(buf, 1, (size_t)size, f);
        buf[got] = '\0';
    }
    fclose(f);
    return buf;
}

/* A kernel header's generated lines: the text between the begin and end markers (report/docs.h),
 * each block's lines joined; the rest of the file is blanked out. */
static void keep_generated(char *text)
{
    char *s = text;
    while (*s) {
        char *begin = strstr(s, RB_DOCS_CU_BEGIN);
        char *end = begin ? strstr(begin, RB_DOCS_CU_END) : NULL;
        char *stop = begin ? begin : s + strlen(s);
        memset(s, ' ', (size_t)(stop - s));
        if (!end) {
            if (begin)
                memset(begin, ' ', strlen(begin));
            return;
        }
        s = end + strlen(RB_DOCS_CU_END);
    }
}

/* The files that may quote results: README.md, results/README.md, docs/ (Markdown) and the
 * generated lines of the kernel headers. */
static void scan(const char *path, const docs_paths *have, char *missing, size_t size,
                 int *n_missing, int *found, int *files)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char p[DOCS_PATH_LEN];
            if (snprintf(p, sizeof p, "%s/%s", path, e->d_name) < (int)sizeof p)
                scan(p, have, missing, size, n_missing, found, files);
        }
        closedir(d);
        return;
    }
    const char *dot = strrchr(path, '.');
    int cu = dot && !strcmp(dot, ".cu");
    if (!dot || (strcmp(dot, ".md") && !cu))
        return;
    char *buf = read_file(path);
    if (!buf)
        return;
    if (cu)
        keep_generated(buf);
    *found += check_text(path, buf, have, missing, size, n_missing);
    ++*files;
    free(buf);
}

static void test_cited_results_are_committed(void)
{
    struct stat st;
    if (stat("README.md", &st) != 0 || stat("results", &st) != 0) {
        rbtest_skip("not run from the repository root (README.md, results/)");
        return;
    }
    docs_paths have = {calloc(DOCS_MAX_PATHS, DOCS_PATH_LEN), 0};
    char *missing = calloc(1, 16384);
    RB_CHECK(have.path && missing);
    if (!have.path || !missing) {
        free(have.path);
        free(missing);
        return;
    }
    collect("results", &have);
    int n_missing = 0, found = 0, files = 0;
    const char *roots[] = {"README.md", "results/README.md", "docs", "kernels"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        scan(roots[i], &have, missing, 16384, &n_missing, &found, &files);
    if (n_missing)
        fprintf(stderr, "%d cited result(s) not under results/ (commit them: git add -f):\n%s",
                n_missing, missing);
    RB_CHECK(files > 10 && found > 0);
    RB_CHECK(n_missing == 0);
    free(have.path);
    free(missing);
}

/* ---- What a clone carries ----
 *
 * A clone carries results/ whole, so what git tracks there, and in the whole tree, stays under a
 * budget: the space du counts (each file's blocks and each folder's), the tracked files only (a
 * user's own runs under results/ are not the clone's). The budgets are the repository's
 * promise, in MiB as du -sh prints them.
 */
#define DOCS_RESULTS_BUDGET_MIB 10
#define DOCS_TREE_BUDGET_MIB 15

/* The disk space of the tracked files under prefix ("" for the whole tree) and of the folders
 * holding them, in bytes; -1 when git cannot list them. */
static long long tracked_du(const char *prefix)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "git ls-files -z -- '%s' 2>/dev/null", prefix[0] ? prefix : ".");
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char path[DOCS_PATH_LEN], dirs[512][DOCS_PATH_LEN];
    int n_dirs = 0, files = 0;
    long long bytes = 0;
    size_t len = 0;
    for (int c; (c = fgetc(p)) != EOF;) {
        if (c != '\0') {
            if (len + 1 < sizeof path)
                path[len++] = (char)c;
            continue;
        }
        path[len] = '\0';
        len = 0;
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        bytes += (long long)st.st_blocks * 512;
        files++;
        /* each folder on the way, once */
        for (char *slash = strrchr(path, '/'); slash; slash = strrchr(path, '/')) {
            *slash = '\0';
            int seen = 0;
            for (int i = 0; i < n_dirs && !seen; i++)
                seen = !strcmp(dirs[i], path);
            if (seen || n_dirs == 512 || lstat(path, &st) != 0)
                break;
            strcpy(dirs[n_dirs++], path);
            bytes += (long long)st.st_blocks * 512;
        }
    }
    int status = pclose(p);
    return status == 0 && files > 0 ? bytes : -1;
}

static void test_clone_fits_its_budget(void)
{
    struct stat st;
    long long results = stat("results", &st) == 0 ? tracked_du("results") : -1;
    long long tree = results >= 0 ? tracked_du("") : -1;
    if (results < 0 || tree < 0) {
        rbtest_skip("not a git checkout's root (git ls-files lists nothing)");
        return;
    }
    printf("    tracked: results/ %.1f MiB (budget %d), the tree %.1f MiB (budget %d)\n",
           (double)results / 1048576, DOCS_RESULTS_BUDGET_MIB, (double)tree / 1048576,
           DOCS_TREE_BUDGET_MIB);
    RB_CHECK(results <= (long long)DOCS_RESULTS_BUDGET_MIB << 20);
    RB_CHECK(tree <= (long long)DOCS_TREE_BUDGET_MIB << 20);
}

/* ---- The peaks templates of docs/expectations.md ----
 *
 * "Record a new GPU" shows `peaks` objects to paste into an expectation file (```json blocks that
 * open with "peaks": {). Each must read as one: wrapped into the smallest file, the strict reader
 * (model/expect.h) takes it, so a key misspelled or a peak of 0 in the page fails here, not on the
 * reader's GPU.
 */
#define DOCS_TEMPLATE_OPEN "```json\n\"peaks\": {"

/* 0 when the template at s (its "peaks": line, up to the closing fence) reads as peaks; -1 with
 * the reader's message in err. */
static int peaks_template_ok(const char *s, char *err, size_t err_size)
{
    const char *end = strstr(s, "\n```");
    if (!end) {
        snprintf(err, err_size, "no closing fence");
        return -1;
    }
    char *text = malloc((size_t)(end - s) + 300);
    if (!text) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    sprintf(text,
            "{\"schema\": 1, \"hardware\": {\"name\": \"Test GPU\", \"sm\": \"9.0\", \"sms\": 1}, "
            "%.*s, \"ceilings\": {}, \"pairs\": {}}",
            (int)(end - s), s);
    json_value *doc = json_parse(text, strlen(text), err, err_size);
    int rc = doc && json_get(json_get(doc, "peaks"), "source")
                 ? rb_expect_validate(doc, err, err_size)
                 : -1;
    if (doc && rc != 0 && !err[0])
        snprintf(err, err_size, "no source");
    json_free(doc);
    free(text);
    return rc;
}

static void test_peaks_templates_read(void)
{
    char *page = read_file("docs/expectations.md");
    if (!page) {
        rbtest_skip("not run from the repository root (docs/expectations.md)");
        return;
    }
    int n = 0;
    for (char *s = strstr(page, DOCS_TEMPLATE_OPEN); s; s = strstr(s + 1, DOCS_TEMPLATE_OPEN)) {
        char err[400] = "";
        int ok = peaks_template_ok(s + strlen("```json\n"), err, sizeof err) == 0;
        if (!ok)
            printf("    docs/expectations.md: peaks template %d: %s\n", n + 1, err);
        RB_CHECK(ok);
        n++;
    }
    RB_CHECK(n >= 2); /* the A100 and the B200 */
    free(page);
    /* planted: a key misspelled, a peak of 0, a template without its source */
    char err[400] = "";
    RB_CHECK(peaks_template_ok("\"peaks\": {\"dram_gbps\": 1, \"source\": \"s\"}\n```", err,
                               sizeof err) == 0);
    RB_CHECK(peaks_template_ok("\"peaks\": {\"dram_gpbs\": 1, \"source\": \"s\"}\n```", err,
                               sizeof err) != 0 &&
             strstr(err, "dram_gpbs"));
    RB_CHECK(peaks_template_ok("\"peaks\": {\"dram_gbps\": 0, \"source\": \"s\"}\n```", err,
                               sizeof err) != 0);
    err[0] = '\0';
    RB_CHECK(peaks_template_ok("\"peaks\": {\"dram_gbps\": 1}\n```", err, sizeof err) != 0);
}

/* The matcher on planted text: a cited folder that exists, one that does not, a wrapped name. */
static void test_citation_matcher(void)
{
    docs_paths have = {calloc(4, DOCS_PATH_LEN), 4};
    RB_CHECK(have.path != NULL);
    if (!have.path)
        return;
    strcpy(have.path[0], "results/gpu/20261126T0029Z-3364754-record/");
    strcpy(have.path[1], "results/gpu/20261126T0029Z-3364754-record/record.json");
    strcpy(have.path[2], "results/gpu/20261122T032108Z-8d68b70.json");
    strcpy(have.path[3], "results/gpu/reference.json");
    char missing[2048] = "";
    int n = 0;
    RB_CHECK(check_text("a", "see `results/gpu/20261126T0029Z-3364754-record/record.{json,md}`.",
                        &have, missing, sizeof missing, &n) == 1 &&
             n == 0);
    RB_CHECK(check_text("a", "(results/gpu/20261122T032108Z-8d68b70.json).", &have, missing,
                        sizeof missing, &n) == 1 &&
             n == 0);
    RB_CHECK(check_text("a", " * results/gpu/20261126T0029Z-3364754-rec\n * ord/x", &have, missing,
                        sizeof missing, &n) == 1 &&
             n == 0);
    RB_CHECK(check_text("b", "results/gpu/20261126T0038Z-481cd1c-judge/summary.log", &have, missing,
                        sizeof missing, &n) == 1 &&
             n == 1 && strstr(missing, "b: results/.../20261126T0038Z-481cd1c-judge/summary.log"));
    RB_CHECK(check_text("c", "20261126T0029Z-3364754-record/full.json", &have, missing,
                        sizeof missing, &n) == 1 &&
             n == 2);
    RB_CHECK(check_text("d", "x120261126T0029Z-3 and 2026112T0029Z-", &have, missing,
                        sizeof missing, &n) == 0);
    /* a stamp without its date after an ellipsis: a folder that exists, one that does not */
    RB_CHECK(check_text("g", "(`\xe2\x80\xa6T0029Z-3364754-record/record.json`)", &have, missing,
                        sizeof missing, &n) == 1 &&
             n == 2);
    RB_CHECK(check_text("g", "`\xe2\x80\xa6T0038Z-481cd1c-judge/`, \xe2\x80\xa6T12Z-", &have,
                        missing, sizeof missing, &n) == 1 &&
             n == 3 && strstr(missing, "g: results/...T0038Z-481cd1c-judge"));
    /* by path: a reference run, a stem, a placeholder, a file never committed */
    RB_CHECK(check_text("e", "(`results/gpu/reference.{json,md}`, ../results/gpu/reference.json)",
                        &have, missing, sizeof missing, &n) == 2 &&
             n == 3);
    RB_CHECK(check_text(
                 "e", "results/<hardware-key>/reference.json, results/*/x, results/KEY/x, results/",
                 &have, missing, sizeof missing, &n) == 0);
    RB_CHECK(check_text("f", "see results/gpu/reference.svg.", &have, missing, sizeof missing,
                        &n) == 1 &&
             n == 4 && strstr(missing, "f: results/gpu/reference.svg\n"));
    free(have.path);
}

/* ---- The kernel header template (STYLE.md) and the text rules of kernels/ and bench/ ----
 *
 * Every kernels/<pair>.cu opens, after its SPDX line, with one block comment whose first line is
 * "<pair>: <what it teaches>" and whose headings come once each, in the template's order. It is
 * at most HEADER_MAX_LINES lines long, counting the generated block of Measured: at its largest
 * (HEADER_GEN_MAX_LINES), so that `make docs` never pushes a header over. Measured: is the line
 * carrying HEADER_GEN_BEGIN, then the generated lines, the HEADER_GEN_END line, and at most two
 * hand-written lines whose numbers must be ones the generated lines carry (rounded at most).
 * Across kernels/ and bench/: no tracker reference (the word issue or a # before a number), no
 * GPU.md (not in the repository), no "never committed" results, no commit hash outside a results
 * citation, and at most one results citation per pair (the generated line of its header).
 */
#define HEADER_MAX_LINES 60
#define HEADER_GEN_MAX_LINES 4
#define HEADER_HAND_MAX_LINES 2
#define HEADER_GEN_BEGIN "(generated by `make docs`"
#define HEADER_GEN_END "(end of generated lines)"
#define HEADER_MAX_NUMBERS 256

static const char *const header_headings[] = {
    "What:",      "Work:",      "Baseline:", "Steps:",
    "Optimized:", "Predicted:", "Measured:", "Does not pay when:"};
#define HEADER_N_HEADINGS ((int)(sizeof header_headings / sizeof header_headings[0]))
#define HEADER_MEASURED 6

/* The line at *s (its start and length, without the newline); advances *s past it. */
static int header_next_line(const char **s, const char **line, size_t *len)
{
    if (!**s)
        return 0;
    const char *nl = strchr(*s, '\n');
    *line = *s;
    *len = nl ? (size_t)(nl - *s) : strlen(*s);
    *s = nl ? nl + 1 : *s + *len;
    return 1;
}

static int header_line_has(const char *line, size_t len, const char *what)
{
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(line + i, what, n))
            return 1;
    return 0;
}

/* The template heading a header line starts (" * What: ..."), -1 for any other line. */
static int header_heading(const char *line, size_t len)
{
    if (len < 3 || memcmp(line, " * ", 3) != 0)
        return -1;
    for (int h = 0; h < HEADER_N_HEADINGS; h++) {
        size_t n = strlen(header_headings[h]);
        if (len >= 3 + n && !memcmp(line + 3, header_headings[h], n))
            return h;
    }
    return -1;
}

static int header_is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* A number starting at s[i] (digits, then '.' and digits), not part of a name (H100, sm_90) or
 * of another number: its length (0 when none starts there), value and count of decimals. */
static size_t header_number_at(const char *s, size_t i, size_t len, double *value, int *decimals)
{
    if (i >= len || !isdigit((unsigned char)s[i]) ||
        (i > 0 && (header_is_word_char(s[i - 1]) || s[i - 1] == '.')))
        return 0;
    size_t j = i;
    double v = 0, scale = 1;
    while (j < len && isdigit((unsigned char)s[j]))
        v = v * 10 + (s[j++] - '0');
    *decimals = 0;
    if (j + 1 < len && s[j] == '.' && isdigit((unsigned char)s[j + 1]))
        for (j++; j < len && isdigit((unsigned char)s[j]); j++, ++*decimals)
            v += (s[j] - '0') * (scale /= 10);
    *value = v;
    return j - i;
}

/* Whether every number of hand[0..hand_len) is one that gen[0..gen_len) carries, rounded at
 * most (1.6 is backed by 1.61, 1.7 is not). */
static int header_numbers_backed(const char *hand, size_t hand_len, const char *gen, size_t gen_len)
{
    double have[HEADER_MAX_NUMBERS];
    int n_have = 0, d;
    for (size_t i = 0; i < gen_len && n_have < HEADER_MAX_NUMBERS; i++) {
        size_t n = header_number_at(gen, i, gen_len, &have[n_have], &d);
        if (n) {
            n_have++;
            i += n - 1;
        }
    }
    for (size_t i = 0; i < hand_len; i++) {
        double v;
        size_t n = header_number_at(hand, i, hand_len, &v, &d);
        if (!n)
            continue;
        double half = 0.5;
        while (d-- > 0)
            half /= 10;
        int backed = 0;
        for (int k = 0; k < n_have && !backed; k++)
            backed = (have[k] > v ? have[k] - v : v - have[k]) <= half * (1 + 1e-9);
        if (!backed)
            return 0;
        i += n - 1;
    }
    return 1;
}

__attribute__((format(printf, 3, 4))) static int header_fail(char *why, size_t why_size,
                                                             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
    return 0;
}

/* Whether text (the contents of kernels/<pair>.cu) opens with the template header; when not,
 * why says what is wrong. */
static int header_check(const char *pair, const char *text, char *why, size_t why_size)
{
    const char *s = text, *line = NULL, *gen = NULL, *gen_end = NULL, *hand = NULL;
    const char *hand_end = NULL;
    size_t len = 0;
    char first[128];
    snprintf(first, sizeof first, "/* %s: ", pair);
    if (!header_next_line(&s, &line, &len) ||
        !header_line_has(line, len, "SPDX-License-Identifier"))
        return header_fail(why, why_size, "%s: no SPDX line first", pair);
    if (!header_next_line(&s, &line, &len) || len <= strlen(first) ||
        memcmp(line, first, strlen(first)) != 0)
        return header_fail(why, why_size, "the header does not open with \"/* %s: <lesson>\"",
                           pair);
    int lines = 1, next = 0, gen_lines = 0, hand_lines = 0, closed = 0;
    while (!closed && header_next_line(&s, &line, &len)) {
        lines++;
        closed = header_line_has(line, len, "*/");
        int h = header_heading(line, len);
        if (h > next)
            return header_fail(why, why_size, "%s: heading \"%s\" missing before \"%s\"", pair,
                               header_headings[next], header_headings[h]);
        if (h >= 0 && h < next)
            return header_fail(why, why_size, "%s: heading \"%s\" again or out of order", pair,
                               header_headings[h]);
        if (h >= 0)
            next++;
        if (h == HEADER_MEASURED && !header_line_has(line, len, HEADER_GEN_BEGIN))
            return header_fail(why, why_size, "%s: Measured: lacks %s", pair, HEADER_GEN_BEGIN);
        if (h == HEADER_MEASURED) {
            gen = s;
        } else if (gen && !gen_end && header_line_has(line, len, HEADER_GEN_END)) {
            gen_end = line;
            hand = s;
        } else if (gen && !gen_end) {
            gen_lines++;
        } else if (hand && !hand_end && h < 0 && !closed) {
            hand_lines += len > 2; /* " *" alone is a blank line */
        } else if (hand && !hand_end) {
            hand_end = line;
        }
    }
    if (!closed)
        return header_fail(why, why_size, "%s: the header comment never ends", pair);
    if (next < HEADER_N_HEADINGS)
        return header_fail(why, why_size, "%s: heading \"%s\" missing", pair,
                           header_headings[next]);
    if (!gen_end)
        return header_fail(why, why_size, "%s: Measured: lacks %s", pair, HEADER_GEN_END);
    if (gen_lines > HEADER_GEN_MAX_LINES)
        return header_fail(why, why_size, "%s: %d generated lines", pair, gen_lines);
    int counted = lines - gen_lines + HEADER_GEN_MAX_LINES;
    if (counted > HEADER_MAX_LINES)
        return header_fail(why, why_size, "%s: header of %d lines with a full generated block",
                           pair, counted);
    if (hand_lines > HEADER_HAND_MAX_LINES)
        return header_fail(why, why_size, "%s: %d hand-written lines under Measured:", pair,
                           hand_lines);
    if (!header_numbers_backed(hand, (size_t)(hand_end - hand), gen, (size_t)(gen_end - gen)))
        return header_fail(why, why_size,
                           "%s: a hand-written number under Measured: that the "
                           "generated lines do not carry",
                           pair);
    return 1;
}

/* Length of the results citation that starts at s in text: a path into results/
 * ("results/<key>/...") or a run stamp ("20261125T081152Z-317bbe9.json"), with the rest of its
 * name; 0 when none starts there. */
static size_t citation_at(const char *text, const char *s)
{
    if (s > text && (header_is_word_char(s[-1]) || s[-1] == '-'))
        return 0;
    size_t n = 0;
    if (!strncmp(s, "results/", 8) && isalnum((unsigned char)s[8]))
        n = 8;
    else if (!(n = stamp_at(s)))
        return 0;
    while (name_char(s[n]) || (s[n] == '/' && name_char(s[n + 1])))
        n++;
    return n;
}

static int citation_count(const char *text)
{
    int count = 0;
    for (const char *s = text; *s; s++) {
        size_t n = citation_at(text, s);
        if (n) {
            count++;
            s += n - 1;
        }
    }
    return count;
}

static int is_hex_digit(char c)
{
    return isdigit((unsigned char)c) || (c >= 'a' && c <= 'f');
}

/* Length of a commit hash at s (7 to 40 lower-case hex digits, a digit and a letter among them,
 * a word of its own, not a 0x constant), 0 when there is none. */
static size_t commit_hash_at(const char *text, const char *s)
{
    if (s > text && (header_is_word_char(s[-1]) || s[-1] == '.')) /* 0x1f, 0.7071067811f */
        return 0;
    size_t n = 0;
    int digits = 0, letters = 0;
    for (; is_hex_digit(s[n]); n++)
        isdigit((unsigned char)s[n]) ? digits++ : letters++;
    if (n < 7 || n > 40 || !digits || !letters || header_is_word_char(s[n]))
        return 0;
    return n;
}

/* Whether s starts a tracker's number: digits, not a quantity ("4x", "48%", "1.5", "16-byte");
 * when is_list, only one that a list or a bracket follows ("9 and 12", "9, 12", "12)"). */
static int tracker_number_at(const char *s, int is_list)
{
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    if (header_is_word_char(*s) || *s == '%' || *s == '-' ||
        (*s == '.' && isdigit((unsigned char)s[1])))
        return 0;
    return !is_list || !strncmp(s, " and ", 5) || *s == ',' || *s == ')';
}

/* A tracker reference at s: the word issue (any case, or issues) then a number, a "#" and a
 * number, or a list of numbers; or a "#" and a number (not "&#39;"); not an instruction's issue
 * ("the SM issues 4x the loads", "issue 48%", "ptxas issues 4 of the 8 loads"). */
static int tracker_ref_at(const char *text, const char *s)
{
    if (s > text && header_is_word_char(s[-1]))
        return 0;
    if (s[0] == '#')
        return tracker_number_at(s + 1, 0) && !(s > text && s[-1] == '&');
    if (strncasecmp(s, "issue", 5) != 0)
        return 0;
    int is_list = s[5] == 's' || s[5] == 'S';
    s += 5 + is_list;
    while (*s == ' ' || *s == '#')
        s++;
    return tracker_number_at(s, is_list);
}

/* The first break of the text rules in text (a file of kernels/ or bench/), as "what: context"
 * in why; 1 when there is none. */
static int text_rules_check(const char *text, char *why, size_t why_size)
{
    for (const char *s = text; *s; s++) {
        size_t n = citation_at(text, s);
        if (n) {
            s += n - 1; /* a citation's hash is the citation's business */
            continue;
        }
        const char *what = tracker_ref_at(text, s)              ? "a tracker reference"
                           : !strncmp(s, "GPU.md", 6)           ? "GPU.md (not in the repository)"
                           : !strncmp(s, "never committed", 15) ? "results never committed"
                           : commit_hash_at(text, s)            ? "a commit hash"
                                                                : NULL;
        if (what)
            return header_fail(why, why_size, "%s: \"%.*s\"", what,
                               (int)(strcspn(s, "\n") < 24 ? strcspn(s, "\n") : 24), s);
    }
    return 1;
}

/* The pair a file of kernels/ or bench/ belongs to: its name without the extension. */
static int pair_of(const char *name, char *pair, size_t size)
{
    const char *dot = strrchr(name, '.');
    if (!dot || name[0] == '.' || (size_t)(dot - name) >= size)
        return 0;
    if (strcmp(dot, ".cu") && strcmp(dot, ".c") && strcmp(dot, ".h"))
        return 0;
    snprintf(pair, size, "%.*s", (int)(dot - name), name);
    return 1;
}

/* History told in a lesson file: it belongs in docs/notes/<pair>.md and git history. */
static const char *const narration_words[] = {
    "tried",           "not kept",        "measured lower", "measured higher",
    "measured slower", "measured faster", "it measured"};

/* Whether s starts word (any case) as words of its own (not "retried", "tried_x"). */
static int narration_at(const char *text, const char *s, const char *word)
{
    size_t n = strlen(word);
    return (s == text || !header_is_word_char(s[-1])) && !strncasecmp(s, word, n) &&
           !header_is_word_char(s[n]);
}

/* The first narration in text (a whole kernels/ file of pair), as "what: context" in why; 1
 * when there is none: no history word of narration_words[], and no results citation (a stamp or
 * a path under results/) outside the header's generated Measured lines. */
static int narration_check(const char *pair, const char *text, char *why, size_t why_size)
{
    (void)pair;
    const char *gen = strstr(text, HEADER_GEN_BEGIN), *gen_end = NULL;
    if (gen)
        gen_end = strstr(gen, HEADER_GEN_END);
    for (const char *s = text; *s; s++) {
        if (gen && gen_end && s >= gen && s < gen_end)
            continue;
        size_t context = strcspn(s, "\n") < 40 ? strcspn(s, "\n") : 40;
        if (citation_at(text, s))
            return header_fail(why, why_size, "a results citation outside Measured: \"%.*s\"",
                               (int)context, s);
        for (size_t w = 0; w < sizeof narration_words / sizeof narration_words[0]; w++)
            if (narration_at(text, s, narration_words[w]))
                return header_fail(why, why_size,
                                   "history (docs/notes/<pair>.md holds it): \"%.*s\"",
                                   (int)context, s);
    }
    return 1;
}

/* Runs check on every file of kernels/ (only the .cu ones when cu_only), printing each failure:
 * how many failed, or -1 (skipped) when not run from the repository root. *files: how many. */
static int kernel_files_check(int (*check)(const char *pair, const char *text, char *why,
                                           size_t why_size),
                              int cu_only, int *files)
{
    DIR *d = opendir("kernels");
    if (!d) {
        rbtest_skip("not run from the repository root (kernels/)");
        return -1;
    }
    int bad = 0;
    *files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char pair[128], path[DOCS_PATH_LEN], why[256];
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (cu_only && strcmp(dot, ".cu")) || !pair_of(e->d_name, pair, sizeof pair))
            continue;
        snprintf(path, sizeof path, "kernels/%s", e->d_name);
        char *text = read_file(path);
        ++*files;
        if (!text || !check(pair, text, why, sizeof why)) {
            fprintf(stderr, "  %s: %s\n", path, text ? why : "unreadable");
            bad++;
        }
        free(text);
    }
    closedir(d);
    return bad;
}

static void test_kernel_headers_follow_template(void)
{
    int files = 0, bad = kernel_files_check(header_check, 1, &files);
    if (bad < 0)
        return;
    RB_CHECK(files >= 20);
    RB_CHECK(bad == 0);
}

/* The narration check on every file of kernels/, the .cu and the .h. */
static void test_kernel_files_hold_no_narration(void)
{
    int files = 0, bad = kernel_files_check(narration_check, 0, &files);
    if (bad < 0)
        return;
    RB_CHECK(files >= 40);
    RB_CHECK(bad == 0);
}

#define DOCS_MAX_PAIRS 64

/* Adds text's citations to its pair's count (pairs[], counts[], *n_pairs). */
static void count_citations(const char *pair, const char *text, char (*pairs)[128], int *counts,
                            int *n_pairs)
{
    int i = 0;
    while (i < *n_pairs && strcmp(pairs[i], pair))
        i++;
    if (i == *n_pairs && *n_pairs < DOCS_MAX_PAIRS)
        snprintf(pairs[(*n_pairs)++], 128, "%s", pair);
    if (i < *n_pairs)
        counts[i] += citation_count(text);
}

static void test_kernels_and_bench_text_rules(void)
{
    static char pairs[DOCS_MAX_PAIRS][128];
    int counts[DOCS_MAX_PAIRS] = {0}, n_pairs = 0, files = 0, bad = 0;
    const char *dirs[] = {"kernels", "bench"};
    for (int k = 0; k < 2; k++) {
        DIR *d = opendir(dirs[k]);
        if (!d) {
            rbtest_skip("not run from the repository root (kernels/, bench/)");
            return;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char pair[128], path[DOCS_PATH_LEN], why[256];
            if (!pair_of(e->d_name, pair, sizeof pair))
                continue;
            snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name);
            char *text = read_file(path);
            if (!text)
                continue;
            files++;
            if (!text_rules_check(text, why, sizeof why)) {
                fprintf(stderr, "  %s: %s\n", path, why);
                bad++;
            }
            count_citations(pair, text, pairs, counts, &n_pairs);
            free(text);
        }
        closedir(d);
    }
    for (int i = 0; i < n_pairs; i++)
        if (counts[i] > 1) {
            fprintf(stderr, "  %s: %d results citations in kernels/ and bench/ (at most 1)\n",
                    pairs[i], counts[i]);
            bad++;
        }
    RB_CHECK(files >= 40);
    RB_CHECK(bad == 0);
}

/* A header that follows the template, and defects planted in copies of it. */
static const char header_fixture[] =
    "/* SPDX-License-Identifier: MIT */\n"
    "/* copy: a warp's loads should cover whole sectors\n"
    " *\n"
    " * What:      out[i] = in[i], n floats.\n"
    " * Work:      0 flops; 4n bytes read + 4n written = 8n bytes.\n"
    " * Baseline:  one float per thread, the loop anyone writes first.\n"
    " * Steps:     none\n"
    " * Optimized: float4 per thread: a quarter of the instructions.\n"
    " * Predicted: ~3.0 TB/s: 90% of the 3.35 TB/s HBM3 peak.\n"
    " * Measured:  (generated by `make docs` from the H100 reference run; do not edit)\n"
    " *   results/h100/reference.json: baseline 2.61 TB/s, optimized 2.95 TB/s (1.13x).\n"
    " *   (end of generated lines)\n"
    " *   The optimized kernel lands within 1.1x of the baseline's rate: both stream.\n"
    " * Does not pay when: the data sits in L2.\n"
    " */\n"
    "#include <cuda_runtime.h>\n";

/* header_fixture with the first occurrence of from replaced by to (caller frees). */
static char *fixture_with(const char *from, const char *to)
{
    const char *at = strstr(header_fixture, from);
    size_t size = sizeof header_fixture + strlen(to) + 1;
    char *out = malloc(size);
    if (!at || !out) {
        free(out);
        return NULL;
    }
    snprintf(out, size, "%.*s%s%s", (int)(at - header_fixture), header_fixture, to,
             at + strlen(from));
    return out;
}

/* Whether the fixture with from replaced by to passes header_check. */
static int fixture_passes(const char *from, const char *to)
{
    char why[256];
    char *text = fixture_with(from, to);
    int ok = text && header_check("copy", text, why, sizeof why);
    free(text);
    return ok;
}

static void test_header_check_planted(void)
{
    char why[256];
    RB_CHECK(header_check("copy", header_fixture, why, sizeof why));
    RB_CHECK(!header_check("transpose", header_fixture, why, sizeof why));    /* another pair's */
    RB_CHECK(fixture_passes(" * Steps:     none\n", " * Steps:     none\n")); /* the harness */
    RB_CHECK(!fixture_passes(" * Steps:     none\n", ""));
    RB_CHECK(!fixture_passes(" * Work:", " * Work -")); /* a heading misspelt */
    RB_CHECK(!fixture_passes(" * Predicted: ~3.0 TB/s: 90% of the 3.35 TB/s HBM3 peak.\n",
                             ""));                                       /* missing */
    RB_CHECK(!fixture_passes(" * Steps:     none\n * Optimized: float4", /* out of order */
                             " * Optimized: float4 ...\n * Steps:     none\n * float4"));
    RB_CHECK(!fixture_passes("(generated by `make docs` from", "(generated from"));
    RB_CHECK(!fixture_passes(" *   (end of generated lines)\n", ""));
    RB_CHECK(!fixture_passes(" *   (end of generated lines)\n", " *   (end)\n"));
    /* The fixture's header is 14 lines, 17 with its generated line counted as 4: 43 more lines
     * make 60, 44 more 61 (though only 58 as written). */
    char filler[44 * 7 + 64] = " * Steps:     none\n";
    for (int i = 0; i < 44; i++)
        strcat(filler, " *   x\n");
    RB_CHECK(!fixture_passes(" * Steps:     none\n", filler));
    filler[strlen(filler) - 7] = '\0';
    RB_CHECK(fixture_passes(" * Steps:     none\n", filler));
    /* hand-written lines: numbers the generated lines carry (rounded) pass; others fail */
    RB_CHECK(fixture_passes("within 1.1x", "within 1.13x"));
    RB_CHECK(!fixture_passes("within 1.1x", "within 1.2x"));
    RB_CHECK(!fixture_passes("within 1.1x of", "within 1.1x (3.4 TB/s) of"));
    RB_CHECK(!fixture_passes(" * Does not pay", " *   a second line\n *   a third line\n"
                                                " * Does not pay"));
    RB_CHECK(fixture_passes(" * Does not pay", " *   a second line\n * Does not pay"));
    RB_CHECK(fixture_passes(" * Does not pay", " *\n * Does not pay")); /* a blank line */
    RB_CHECK(!fixture_passes(" * Does not pay when: the data sits in L2.\n */\n",
                             " * Does not pay when: the data sits in L2.\n"));
}

/* header_fixture with `from` replaced by `to`: whether the whole file holds no narration. */
static int fixture_tells_no_history(const char *from, const char *to)
{
    char *text = fixture_with(from, to), why[256];
    int ok = text && narration_check("copy", text, why, sizeof why);
    free(text);
    return ok;
}

/* The narration check reads the whole file, header and step comments alike. */
static void test_narration_check_planted(void)
{
    const char *body = "#include <cuda_runtime.h>\n";
    RB_CHECK(fixture_tells_no_history(body, body)); /* its generated citation is allowed */
    RB_CHECK(fixture_tells_no_history(body, "/* Step 1 was retried_kernel's sibling. */\n"));
    RB_CHECK(!fixture_tells_no_history(
        body, "/* Tried beside it on the H100 and not kept: 192-column tiles. */\n"));
    RB_CHECK(!fixture_tells_no_history(body, "/* 192-column tiles, not kept. */\n"));
    RB_CHECK(!fixture_tells_no_history(
        body, "/* (It measured lower: the clock is capped; see the notes.) */\n"));
    RB_CHECK(!fixture_tells_no_history(body, "/* a deeper unroll measured slower */\n"));
    RB_CHECK(!fixture_tells_no_history(
        body, "/* step 3: 471.9 TFLOP/s in 20261126T0415Z-4053b1d-judge */\n"));
    RB_CHECK(!fixture_tells_no_history(
        body, "/* see results/nvidia-h100-80gb-hbm3/reference.json */\n"));
    RB_CHECK(!fixture_tells_no_history(" * Does not pay when", " *   Tried 8 warps.\n"
                                                               " * Does not pay when"));
}

static void test_text_rules_planted(void)
{
    char why[256];
    RB_CHECK(text_rules_check("/* tiles of 32 x 32 (sm_90, H100), 0xdeadbeef1 */\n#include <x.h>",
                              why, sizeof why));
    RB_CHECK(!text_rules_check("/* the contract of issue "
                               "11 */",
                               why, sizeof why) &&
             strstr(why, "tracker"));
    RB_CHECK(!text_rules_check("/* Issue "
                               "12's planted slowdown */",
                               why, sizeof why));
    RB_CHECK(!text_rules_check("/* issues "
                               "9 and 12 */",
                               why, sizeof why));
    RB_CHECK(!text_rules_check("/* (see #"
                               "12) */",
                               why, sizeof why));
    RB_CHECK(!text_rules_check("/* candidate #"
                               "1 */",
                               why, sizeof why));
    RB_CHECK(text_rules_check("/* &#39; and tissue 3 */", why, sizeof why));
    RB_CHECK(text_rules_check("/* the SM issues 4x the loads; issue 48%, 2.5 */", why, sizeof why));
    RB_CHECK(text_rules_check("/* ptxas issues 4 of the 8 loads; each issues 16-byte copies */",
                              why, sizeof why));
    RB_CHECK(text_rules_check("x = 1.0f / 0.70710678118654752f; y = 0x1f2e3d4c;", why, sizeof why));
    RB_CHECK(!text_rules_check("/* the peak GPU.md quotes */", why, sizeof why));
    RB_CHECK(!text_rules_check("/* a run never committed */", why, sizeof why));
    RB_CHECK(!text_rules_check("/* the rule added in 46a1f36 */", why, sizeof why) &&
             strstr(why, "commit hash"));
    RB_CHECK(
        text_rules_check("/* (results/gpu/20261122T050613Z-a3260d1.json) */", why, sizeof why));
    RB_CHECK(citation_count("results/gpu/20261122T050613Z-a3260d1.json and "
                            "20261125T1219Z-flush-experiment.txt, results/gpu/reference.json") ==
             3);
    RB_CHECK(citation_count("#include \"results.h\"; the results/ folder; 2026-11-25") == 0);
}

/* "#333333" or "#111": a colour of the charts' SVG and CSS, not a tracker's number. */
static int is_colour(const char *s)
{
    size_t n = 0;
    if (s[0] != '#')
        return 0;
    while (is_hex_digit(s[1 + n]) || (s[1 + n] >= 'A' && s[1 + n] <= 'F'))
        n++;
    return (n == 3 || n == 6) && !isalnum((unsigned char)s[1 + n]);
}

/* The tracker references in the text files under path (recursively: sources, scripts and
 * Markdown), each printed as "file: context"; their count. */
static int tracker_refs_under(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        int n = 0;
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char p[DOCS_PATH_LEN];
            if (e->d_name[0] != '.' &&
                snprintf(p, sizeof p, "%s/%s", path, e->d_name) < (int)sizeof p)
                n += tracker_refs_under(p);
        }
        if (d)
            closedir(d);
        return n;
    }
    const char *dot = strrchr(path, '.'), *base = strrchr(path, '/');
    static const char *const text_ext[] = {".c", ".h", ".cu", ".cuh", ".md", ".sh", ".py"};
    int text = !strcmp(base ? base + 1 : path, "Makefile");
    for (size_t i = 0; dot && i < sizeof text_ext / sizeof text_ext[0]; i++)
        text |= !strcmp(dot, text_ext[i]);
    char *buf = text ? read_file(path) : NULL;
    int n = 0;
    for (const char *c = buf; c && *c; c++)
        if (tracker_ref_at(buf, c) && !is_colour(c) && n++ < 5)
            fprintf(stderr, "  %s: a tracker reference: \"%.*s\"\n", path,
                    (int)(strcspn(c, "\n") < 24 ? strcspn(c, "\n") : 24), c);
    free(buf);
    return n;
}

/* No text of the repository names a tracker issue: a reader of the repository has no tracker. */
static void test_no_tracker_references(void)
{
    struct stat st;
    if (stat("README.md", &st) != 0) {
        rbtest_skip("not run from the repository root (README.md)");
        return;
    }
    const char *roots[] = {"README.md", "Makefile", "docs",  "scripts",          "harness",
                           "kernels",   "bench",    "tests", "results/README.md"};
    int n = 0;
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        n += tracker_refs_under(roots[i]);
    RB_CHECK(n == 0);
    /* a chart's colour is not a tracker's number; a number after '#' is */
    RB_CHECK(is_colour("#333333\"") && is_colour("#111; }") &&
             !is_colour("#"
                        "12)") &&
             !is_colour("#"
                        "1234 "));
}

static const rbtest_case docs_cases[] = {
    {"citation_matcher", test_citation_matcher},
    {"cited_results_are_committed", test_cited_results_are_committed},
    {"clone_fits_its_budget", test_clone_fits_its_budget},
    {"peaks_templates_read", test_peaks_templates_read},
    {"header_check_planted", test_header_check_planted},
    {"text_rules_planted", test_text_rules_planted},
    {"kernel_headers_follow_template", test_kernel_headers_follow_template},
    {"narration_check_planted", test_narration_check_planted},
    {"kernel_files_hold_no_narration", test_kernel_files_hold_no_narration},
    {"kernels_and_bench_text_rules", test_kernels_and_bench_text_rules},
    {"no_tracker_references", test_no_tracker_references},
};

RB_SUITE(docs_suite, "docs", docs_cases);
