/* SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700 /* realpath */
#include "floors.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A roofbench tree: its expectations/ folder and its Makefile. */
static int is_source_root(const char *dir)
{
    char sub[RB_PATH_BUF];
    struct stat st;
    if (rb_fmt_fits(sub, sizeof sub, "%s/expectations", dir) != 0 || !is_dir(sub))
        return 0;
    return rb_fmt_fits(sub, sizeof sub, "%s/Makefile", dir) == 0 && stat(sub, &st) == 0 &&
           S_ISREG(st.st_mode);
}

static int canonical(const char *path, char *out, size_t out_size)
{
    char *real = realpath(path, NULL);
    int rc = real ? rb_fmt_fits(out, out_size, "%s", real) : -1;
    free(real);
    return rc;
}

int rb_floors_source_root(const char *built_root, char *out, size_t out_size)
{
    out[0] = '\0';
    if (built_root && built_root[0] && is_source_root(built_root))
        return canonical(built_root, out, out_size);
    /* the tree moved since the build (copied to another machine): where the binary is now */
    char exe[RB_PATH_BUF];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash || slash == exe)
            return -1;
        *slash = '\0';
    }
    if (!is_source_root(exe))
        return -1;
    return canonical(exe, out, out_size);
}

/* A key from a file, fit to be quoted in a message: printable ASCII, at most 60 bytes. */
static void printable(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; s && *s && n + 1 < size && n < 60; s++)
        out[n++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
    out[n] = '\0';
}

/* The one hardware key of the runs, into key; 0, or -1 with why_none said. */
static int runs_key(const char *const *keys, int n_keys, rb_floors *f, const char **key)
{
    char a[64], b[64];
    *key = NULL;
    for (int i = 0; i < n_keys; i++) {
        if (!keys[i]) {
            rb_fmt(f->why_none, sizeof f->why_none, "a run names no hardware key");
            return -1;
        }
        if (!rb_is_hardware_key(keys[i])) {
            printable(keys[i], a, sizeof a);
            rb_fmt(f->why_none, sizeof f->why_none,
                   "a run's hardware key '%s' is not a valid key (lower-case letters, digits "
                   "and '-')",
                   a);
            return -1;
        }
        if (*key && strcmp(*key, keys[i])) {
            printable(*key, a, sizeof a);
            printable(keys[i], b, sizeof b);
            rb_fmt(f->why_none, sizeof f->why_none, "the runs are of two GPUs, %s and %s", a, b);
            return -1;
        }
        *key = keys[i];
    }
    if (!*key)
        rb_fmt(f->why_none, sizeof f->why_none, "no run to take a hardware key from");
    return *key ? 0 : -1;
}

static int load(const char *path, rb_floors *f, char *err, size_t err_size)
{
    if (rb_expect_load(path, &f->expect, err, err_size) != 0)
        return -1;
    if (canonical(path, f->path, sizeof f->path) != 0)
        rb_fmt(f->path, sizeof f->path, "%s", path);
    f->have = 1;
    return 0;
}

int rb_floors_resolve(const char *expect_path, int expect_none, const char *const *keys, int n_keys,
                      const char *source_root, rb_floors *f, char *err, size_t err_size)
{
    memset(f, 0, sizeof *f);
    if (expect_none) {
        rb_fmt(f->why_none, sizeof f->why_none, "--expect none");
        return 0;
    }
    if (expect_path)
        return load(expect_path, f, err, err_size);
    const char *key;
    if (runs_key(keys, n_keys, f, &key) != 0)
        return 0;
    if (!source_root || !source_root[0]) {
        rb_fmt(f->why_none, sizeof f->why_none,
               "the repository this binary was built from was not found (give --expect FILE)");
        return 0;
    }
    char path[RB_PATH_BUF];
    struct stat st;
    if (rb_fmt_fits(path, sizeof path, "%s/expectations/%s.json", source_root, key) != 0) {
        rb_fmt(f->why_none, sizeof f->why_none, "the repository's path is too long");
        return 0;
    }
    if (stat(path, &st) != 0) {
        rb_fmt(f->why_none, sizeof f->why_none, "%s does not exist", path);
        return 0;
    }
    return load(path, f, err, err_size);
}

void rb_floors_free(rb_floors *f)
{
    if (f->have)
        rb_expect_free(&f->expect);
    memset(f, 0, sizeof *f);
}

void rb_floors_line(const rb_floors *f, int n_from_runs, char *buf, size_t size)
{
    if (f->have)
        rb_fmt(buf, size, "floors: %s (its recorded run spreads set %d variant(s)' floors)",
               f->path, n_from_runs);
    else
        rb_fmt(buf, size, "floors: none (%s): timed-loop spreads only, at least 2%%", f->why_none);
}
