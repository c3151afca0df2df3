/* SPDX-License-Identifier: MIT */
/*
 * The measured figures the project quotes must be committed: every result file or folder that
 * the README, a kernel header, a pair, the harness or a script names by its time stamp
 * (results/<hardware-key>/<yyyymmddThhmm[ss]Z>-<rev>...) must exist under results/. Runs are
 * not committed unless added on purpose (`git add -f`: .gitignore keeps the files under
 * results/<key>/ out), so a folder quoted but never added exists on the machine that fetched
 * it and nowhere else; CI runs on a clean clone, where this test then fails and names what is
 * missing.
 *
 * A citation is matched by its stamp-named component and, when a '/' follows it, the name after
 * it, as a substring of a path under results/: "20261126T0029Z-3364754-record/record.{json,md}"
 * needs a path containing "/20261126T0029Z-3364754-record/record". A name wrapped at the end of
 * a comment line ("...-hgemm-" then a new line) is matched by the part before the wrap.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The citations in text: each one whose path under results/ is missing is appended to missing
 * (as "file: citation"). Returns how many citations it found. */
static int check_text(const char *file, const char *text, const docs_paths *have, char *missing,
                      size_t missing_size, int *n_missing)
{
    int found = 0;
    for (const char *s = text; *s; s++) {
        if (s > text && isalnum((unsigned char)s[-1]))
            continue;
        size_t n = stamp_at(s);
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
        snprintf(cite, sizeof cite, "/%.*s", (int)(n < sizeof cite - 2 ? n : sizeof cite - 2), s);
        size_t len = strlen(cite);
        while (len > 1 && (cite[len - 1] == '.' || cite[len - 1] == ','))
            cite[--len] = '\0'; /* the end of a sentence, or of "record.{json,md}"'s stem */
        found++;
        int ok = 0;
        for (int i = 0; i < have->n && !ok; i++)
            ok = strstr(have->path[i], cite) != NULL;
        if (!ok && (*n_missing)++ < DOCS_MAX_MISSING) {
            size_t used = strlen(missing);
            snprintf(missing + used, missing_size - used, "  %s: results/...%s\n", file, cite);
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

/* The files that may quote results: the README and the sources under these folders. */
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
    const char *base = strrchr(path, '/');
    int text = (dot && (!strcmp(dot, ".c") || !strcmp(dot, ".h") || !strcmp(dot, ".cu") ||
                        !strcmp(dot, ".md") || !strcmp(dot, ".sh") || !strcmp(dot, ".py"))) ||
               (base && !strchr(base, '.'));
    if (!text)
        return;
    char *buf = read_file(path);
    if (!buf)
        return;
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
    const char *roots[] = {"README.md", "kernels", "bench", "harness", "scripts"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        scan(roots[i], &have, missing, 16384, &n_missing, &found, &files);
    if (n_missing)
        fprintf(stderr, "%d cited result(s) not under results/ (commit them: git add -f):\n%s",
                n_missing, missing);
    RB_CHECK(files > 20 && found > 0);
    RB_CHECK(n_missing == 0);
    free(have.path);
    free(missing);
}

/* The matcher on planted text: a cited folder that exists, one that does not, a wrapped name. */
static void test_citation_matcher(void)
{
    docs_paths have = {calloc(3, DOCS_PATH_LEN), 3};
    RB_CHECK(have.path != NULL);
    if (!have.path)
        return;
    strcpy(have.path[0], "results/gpu/20261126T0029Z-3364754-record/");
    strcpy(have.path[1], "results/gpu/20261126T0029Z-3364754-record/record.json");
    strcpy(have.path[2], "results/gpu/20261122T032108Z-8d68b70.json");
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
    free(have.path);
}

static const rbtest_case docs_cases[] = {
    {"citation_matcher", test_citation_matcher},
    {"cited_results_are_committed", test_cited_results_are_committed},
};

RB_SUITE(docs_suite, "docs", docs_cases);
