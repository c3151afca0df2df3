/* SPDX-License-Identifier: MIT */
/*
 * The architecture, checked on the source tree (tier 1: no compiler involved). harness/ has
 * three folders: core/ (no CUDA), kit/ (the pair kit: the contract and the helpers a pair may
 * use) and runner/ (the engine). A pair (bench/<pair>.c, kernels/<pair>.{h,cu}) includes only
 * the kit, core/ and its own kernels/ seam: the Makefile already builds pairs without runner/
 * on the include path, and this test also names the offending line when a pair reaches in by a
 * path ("../harness/runner/env.h", "runner/measure.h"). And the files of the runner call each
 * other without a cycle: file A calling a function that file B defines, while B (directly or
 * through others) calls one that A defines, is two files that can only be understood together.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rbtest.h"

#define LAYOUT_MAX_FILES 64
#define LAYOUT_MAX_FUNCS 4096
#define LAYOUT_NAME 96

/* The files of dir whose names end in one of the suffixes (space separated), sorted. */
static int list_files(const char *dir, const char *suffixes, char out[][LAYOUT_NAME], int max)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
        const char *dot = strrchr(e->d_name, '.');
        char want[16];
        if (!dot || snprintf(want, sizeof want, " %s ", dot) >= (int)sizeof want)
            continue;
        char list[64];
        snprintf(list, sizeof list, " %s ", suffixes);
        if (strstr(list, want) && snprintf(out[n], LAYOUT_NAME, "%s/%s", dir, e->d_name) < LAYOUT_NAME)
            n++;
    }
    closedir(d);
    qsort(out, (size_t)n, LAYOUT_NAME, (int (*)(const void *, const void *))strcmp);
    return n;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where `#include "name"` in a file of folder `dir` resolves, as the compiler searches for a
 * pair: the file's own folder, then -Iharness/kit -Iharness -I. (the Makefile's INC_KIT).
 * Returns 1 with the path in out, or 0 when it resolves nowhere. */
static int resolve_include(const char *dir, const char *name, char *out, size_t size)
{
    const char *roots[] = {dir, "harness/kit", "harness", "."};
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++)
        if (snprintf(out, size, "%s/%s", roots[r], name) < (int)size && is_file(out))
            return 1;
    return 0;
}

/* 1 when path (as resolve_include gives it) is inside the kit, core/ or kernels/, or is a header
 * of planted defects beside the pairs (bench/<pair>_defects.h): what a pair may include. "../"
 * anywhere is judged by the folder it lands in. */
static int pair_may_include(const char *path)
{
    char real[4096];
    if (!realpath(path, real))
        return 0;
    char root[4096];
    if (!realpath(".", root))
        return 0;
    size_t n = strlen(root);
    if (strncmp(real, root, n) || real[n] != '/')
        return 0;
    const char *rel = real + n + 1;
    size_t len = strlen(rel);
    return !strncmp(rel, "harness/kit/", 12) || !strncmp(rel, "harness/core/", 13) ||
           !strncmp(rel, "kernels/", 8) ||
           (!strncmp(rel, "bench/", 6) && !strchr(rel + 6, '/') && len > 16 &&
            !strcmp(rel + len - 10, "_defects.h"));
}

/* Checks every quoted include of `text` (a file of folder dir); appends "file:line: name" of
 * each one a pair may not include to bad. Returns how many. */
static int check_pair_includes(const char *file, const char *dir, const char *text, char *bad,
                               size_t bad_size)
{
    int count = 0, line = 1;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            line++;
            continue;
        }
        if (p != text && p[-1] != '\n')
            continue;
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, "#include \"", 10))
            continue;
        q += 10;
        const char *end = strchr(q, '"');
        if (!end || end - q >= LAYOUT_NAME)
            continue;
        char name[LAYOUT_NAME], path[512];
        memcpy(name, q, (size_t)(end - q));
        name[end - q] = '\0';
        if (resolve_include(dir, name, path, sizeof path) && pair_may_include(path))
            continue;
        size_t used = strlen(bad);
        snprintf(bad + used, bad_size - used, "  %s:%d: \"%s\"\n", file, line, name);
        count++;
    }
    return count;
}

static void test_pairs_include_only_the_kit_and_core(void)
{
    static char files[3 * LAYOUT_MAX_FILES][LAYOUT_NAME];
    int n = list_files("bench", ".c .h .cu", files, LAYOUT_MAX_FILES);
    n += list_files("kernels", ".cu .h", files + n, LAYOUT_MAX_FILES);
    RB_CHECK(n >= 40); /* 20 pairs today: three files each */
    char bad[4096] = "";
    int count = 0;
    for (int i = 0; i < n; i++) {
        char *text = rbtest_read_file(files[i]);
        RB_CHECK(text != NULL);
        if (!text)
            continue;
        char dir[LAYOUT_NAME];
        snprintf(dir, sizeof dir, "%.*s", (int)(strchr(files[i], '/') - files[i]), files[i]);
        count += check_pair_includes(files[i], dir, text, bad, sizeof bad);
        free(text);
    }
    if (count)
        printf("    pairs including what is not the pair kit or core/:\n%s", bad);
    RB_CHECK(count == 0);
}

static void test_include_checker_catches_a_runner_header(void)
{
    char bad[1024] = "";
    const char *ok = "#include <math.h>\n#include \"pair_util.h\"\n#include \"core/json.h\"\n"
                     "#include \"kernels/copy_vectorized.h\"\n";
    RB_CHECK(check_pair_includes("bench/x.c", "bench", ok, bad, sizeof bad) == 0);
    const char *planted[] = {"#include \"runner/measure.h\"\n", "#include \"../harness/runner/env.h\"\n",
                             "  #include \"no_such_header.h\"\n"};
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++)
        RB_CHECK(check_pair_includes("bench/x.c", "bench", planted[i], bad, sizeof bad) == 1);
    RB_CHECK(strstr(bad, "bench/x.c:1: \"runner/measure.h\"") != NULL);
}

/* ---- the runner's call graph, from the text ---- */

typedef struct layout_graph {
    int files;
    char name[LAYOUT_MAX_FILES][LAYOUT_NAME];
    int funcs;
    char func[LAYOUT_MAX_FUNCS][LAYOUT_NAME];
    int owner[LAYOUT_MAX_FUNCS];
    unsigned char calls[LAYOUT_MAX_FILES][LAYOUT_MAX_FILES];
} layout_graph;

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Each identifier directly followed by '(' in text (comments and strings skipped), passed to
 * fn with whether it starts a line (a definition's name does, in this code base's style, once
 * the return type is on the same line: the identifier is preceded only by the type). */
static void each_call(const char *text, void (*fn)(const char *id, size_t len, int defines,
                                                   void *arg),
                      void *arg)
{
    const char *p = text, *line = text;
    while (*p) {
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            e = e ? e + 2 : p + strlen(p);
            for (; p < e; p++) /* a comment over several lines: the next line starts after it */
                if (*p == '\n')
                    line = p + 1;
            continue;
        }
        if ((p[0] == '/' && p[1] == '/') || *p == '#') { /* comment or preprocessor line */
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (*p == '"' || *p == '\'') {
            char quote = *p++;
            while (*p && *p != quote)
                p += p[0] == '\\' && p[1] ? 2 : 1;
            p += *p ? 1 : 0;
            continue;
        }
        if (*p == '\n') {
            line = ++p;
            continue;
        }
        if (ident_char(*p) && (p == text || !ident_char(p[-1]))) {
            const char *s = p;
            while (ident_char(*p))
                p++;
            if (*p == '(' && !isdigit((unsigned char)*s)) {
                /* a definition: at column 0 of a line that is not a statement (no leading
                 * space), not static, and not ending with ';' (a prototype) */
                const char *eol = strchr(p, '\n');
                int top = line[0] != ' ' && line[0] != '\t' && strncmp(line, "static", 6) &&
                          strncmp(line, "extern", 6) && !(eol && eol > p && eol[-1] == ';');
                fn(s, (size_t)(p - s), top, arg);
            }
            continue;
        }
        p++;
    }
}

typedef struct layout_scan {
    layout_graph *g;
    int file;
} layout_scan;

static void add_definition(const char *id, size_t len, int defines, void *arg)
{
    layout_scan *s = arg;
    layout_graph *g = s->g;
    if (!defines || len >= LAYOUT_NAME || g->funcs >= LAYOUT_MAX_FUNCS)
        return;
    memcpy(g->func[g->funcs], id, len);
    g->func[g->funcs][len] = '\0';
    g->owner[g->funcs++] = s->file;
}

static void add_call(const char *id, size_t len, int defines, void *arg)
{
    layout_scan *s = arg;
    layout_graph *g = s->g;
    if (defines)
        return;
    for (int f = 0; f < g->funcs; f++)
        if (strlen(g->func[f]) == len && !memcmp(g->func[f], id, len) && g->owner[f] != s->file)
            g->calls[s->file][g->owner[f]] = 1;
}

/* Builds the graph of texts[0..n) named names[]. */
static void build_graph(layout_graph *g, char names[][LAYOUT_NAME], char **texts, int n)
{
    memset(g, 0, sizeof *g);
    g->files = n;
    for (int i = 0; i < n; i++) {
        snprintf(g->name[i], LAYOUT_NAME, "%s", names[i]);
        layout_scan s = {g, i};
        each_call(texts[i], add_definition, &s);
    }
    for (int i = 0; i < n; i++) {
        layout_scan s = {g, i};
        each_call(texts[i], add_call, &s);
    }
}

/* Depth-first search for a cycle; on finding one, writes "a -> b -> a" to out and returns 1. */
static int find_cycle_from(const layout_graph *g, int at, int *state, int *stack, int depth,
                           char *out, size_t size)
{
    state[at] = 1; /* on the stack */
    stack[depth] = at;
    for (int to = 0; to < g->files; to++) {
        if (!g->calls[at][to])
            continue;
        if (state[to] == 1) {
            size_t used = 0;
            int k = 0;
            while (stack[k] != to)
                k++;
            for (; k <= depth; k++)
                used += (size_t)snprintf(out + used, size > used ? size - used : 0, "%s -> ",
                                         g->name[stack[k]]);
            snprintf(out + used, size > used ? size - used : 0, "%s", g->name[to]);
            return 1;
        }
        if (state[to] == 0 && find_cycle_from(g, to, state, stack, depth + 1, out, size))
            return 1;
    }
    state[at] = 2; /* done */
    return 0;
}

static int find_cycle(const layout_graph *g, char *out, size_t size)
{
    int state[LAYOUT_MAX_FILES] = {0}, stack[LAYOUT_MAX_FILES];
    for (int i = 0; i < g->files; i++)
        if (state[i] == 0 && find_cycle_from(g, i, state, stack, 0, out, size))
            return 1;
    return 0;
}

static void test_runner_has_no_call_cycle(void)
{
    static char names[LAYOUT_MAX_FILES][LAYOUT_NAME];
    static layout_graph g;
    char *texts[LAYOUT_MAX_FILES];
    int n = list_files("harness/runner", ".c", names, LAYOUT_MAX_FILES);
    RB_CHECK(n >= 10);
    for (int i = 0; i < n; i++) {
        texts[i] = rbtest_read_file(names[i]);
        RB_CHECK(texts[i] != NULL);
        if (!texts[i])
            texts[i] = calloc(1, 1);
    }
    build_graph(&g, names, texts, n);
    char cycle[1024] = "";
    int found = find_cycle(&g, cycle, sizeof cycle);
    if (found)
        printf("    a call cycle between runner files: %s\n", cycle);
    RB_CHECK(!found);
    RB_CHECK(g.funcs >= 20); /* the scan found the runner's exported functions at all */
    for (int i = 0; i < n; i++)
        free(texts[i]);
}

static void test_cycle_finder_catches_a_planted_cycle(void)
{
    static layout_graph g;
    char names[3][LAYOUT_NAME] = {"a.c", "b.c", "c.c"};
    char a[] = "int rb_a(void)\n{\n    return rb_b(); /* rb_c( in a comment */\n}\n";
    char b[] = "static int helper(void);\nint rb_b(void)\n{\n    return rb_c();\n}\n";
    char c_ok[] = "int rb_c(void)\n{\n    return 0;\n}\nconst char *s = \"rb_a(\";\n";
    char c_cycle[] = "int rb_c(void)\n{\n    return rb_a();\n}\n";
    char *texts[3] = {a, b, c_ok};
    char out[256] = "";
    build_graph(&g, names, texts, 3);
    RB_CHECK(g.calls[0][1] && g.calls[1][2] && !g.calls[0][2] && !g.calls[2][0]);
    RB_CHECK(!find_cycle(&g, out, sizeof out));
    texts[2] = c_cycle;
    build_graph(&g, names, texts, 3);
    RB_CHECK(find_cycle(&g, out, sizeof out));
    RB_CHECK(!strcmp(out, "a.c -> b.c -> c.c -> a.c"));
}

/* A lesson file carries only the lesson (STYLE.md): no test plant, no `#if...` on an RB_PLANT_
 * macro, in kernels/; plants reach a kernel from bench/ or tests/. 0, or 1 with its line. */
static int plant_in_lesson(const char *text, int *line)
{
    *line = 1;
    for (const char *s = text; *s; s++) {
        if (*s == '\n')
            (*line)++;
        if (!strncmp(s, "RB_PLANT_", 9))
            return 1;
    }
    return 0;
}

static void test_lesson_kernels_hold_no_plants(void)
{
    static char files[LAYOUT_MAX_FILES][LAYOUT_NAME];
    int n = list_files("kernels", ".cu .h", files, LAYOUT_MAX_FILES), bad = 0, line = 0;
    RB_CHECK(n >= 40);
    for (int i = 0; i < n; i++) {
        char *text = rbtest_read_file(files[i]);
        RB_CHECK(text != NULL);
        if (text && plant_in_lesson(text, &line)) {
            printf("    %s:%d: a test plant in a lesson file (move it to bench/ or tests/)\n",
                   files[i], line);
            bad++;
        }
        free(text);
    }
    RB_CHECK(bad == 0);
    /* the check can fail: a planted #ifdef */
    RB_CHECK(plant_in_lesson("x\n#ifdef RB_PLANT_SLOW10\n#endif\n", &line) && line == 2);
    RB_CHECK(!plant_in_lesson("/* a lesson */\n", &line));
}

static const rbtest_case layout_cases[] = {
    {"pairs_include_only_the_kit_and_core", test_pairs_include_only_the_kit_and_core},
    {"include_checker_catches_a_runner_header", test_include_checker_catches_a_runner_header},
    {"runner_has_no_call_cycle", test_runner_has_no_call_cycle},
    {"cycle_finder_catches_a_planted_cycle", test_cycle_finder_catches_a_planted_cycle},
    {"lesson_kernels_hold_no_plants", test_lesson_kernels_hold_no_plants},
};
RB_SUITE(layout_suite, "layout", layout_cases);
