/* SPDX-License-Identifier: MIT */
/*
 * The architecture, checked on the source tree (tier 1: no compiler involved). harness/ has
 * four folders: model/ (no CUDA, no presentation), report/ (what shows the model), kit/ (the
 * pair kit: the contract and the helpers a pair may use) and runner/ (the engine). A pair
 * (bench/<pair>.c, kernels/<pair>.{h,cu}) includes only the kit, model/ and its own kernels/
 * seam: the Makefile already builds pairs without runner/
 * on the include path, and this test also names the offending line when a pair reaches in by a
 * path ("../harness/runner/env.h", "runner/measure.h"). And the files of the runner call each
 * other without a cycle: file A calling a function that file B defines, while B (directly or
 * through others) calls one that A defines, is two files that can only be understood together.
 * The same holds for the whole harness, read from its include lines and from its objects'
 * symbols (nm): no include circle and no call circle between its modules (a source and its
 * header). And the model never reads the report (nor the runner): no file of harness/model
 * includes one of harness/report or harness/runner, and no model object uses a symbol that one
 * of theirs defines.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rbtest.h"

#define LAYOUT_MAX_FILES 256
#define LAYOUT_MAX_FUNCS 4096
#define LAYOUT_MAX_SYMS 16384
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

/* 1 when path (as resolve_include gives it) is inside the kit, model/ or kernels/, or is a header
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
    return !strncmp(rel, "harness/kit/", 12) || !strncmp(rel, "harness/model/", 14) ||
           !strncmp(rel, "kernels/", 8) ||
           (!strncmp(rel, "bench/", 6) && !strchr(rel + 6, '/') && len > 16 &&
            !strcmp(rel + len - 10, "_defects.h"));
}

/* Calls fn with each `#include "name"` of text and its line number. */
static void each_include(const char *text, void (*fn)(const char *name, int line, void *arg),
                         void *arg)
{
    int line = 1;
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
        char name[LAYOUT_NAME];
        memcpy(name, q, (size_t)(end - q));
        name[end - q] = '\0';
        fn(name, line, arg);
    }
}

/* A check of the include lines of one file: the refused ones appended to bad, counted. */
typedef struct include_check {
    const char *file, *dir;
    char *bad;
    size_t bad_size;
    int count;
} include_check;

/* Appends "  file:line: "name"" (and " (path)" when path is not NULL) to s->bad. */
static void include_refused(include_check *s, const char *name, int line, const char *path)
{
    size_t used = strlen(s->bad);
    snprintf(s->bad + used, s->bad_size - used, "  %s:%d: \"%s\"%s%s%s\n", s->file, line, name,
             path ? " (" : "", path ? path : "", path ? ")" : "");
    s->count++;
}

static void check_pair_include(const char *name, int line, void *arg)
{
    include_check *s = arg;
    char path[512];
    if (!resolve_include(s->dir, name, path, sizeof path) || !pair_may_include(path))
        include_refused(s, name, line, NULL);
}

/* Checks every quoted include of `text` (a file of folder dir); appends "file:line: name" of
 * each one a pair may not include to bad. Returns how many. */
static int check_pair_includes(const char *file, const char *dir, const char *text, char *bad,
                               size_t bad_size)
{
    include_check s = {file, dir, bad, bad_size, 0};
    each_include(text, check_pair_include, &s);
    return s.count;
}

static void test_pairs_include_only_the_kit_and_model(void)
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
        printf("    pairs including what is not the pair kit or model/:\n%s", bad);
    RB_CHECK(count == 0);
}

static void test_include_checker_catches_a_runner_header(void)
{
    char bad[1024] = "";
    const char *ok = "#include <math.h>\n#include \"pair_util.h\"\n#include \"model/json.h\"\n"
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

/* ---- harness/ as a whole: no include circle, no call circle ---- */

/* A module is a source and its header (harness/model/node.c and node.h are
 * "harness/model/node"). Module A includes B when one of A's files includes B's header, and A
 * calls B when A's object uses a symbol that B's object defines (nm). Two modules that include
 * or call each other, directly or through others, can only be read together: none may. */

typedef struct layout_files {
    int n;
    char path[2 * LAYOUT_MAX_FILES][LAYOUT_NAME]; /* harness/<folder>/<file>, by folder */
    char *text[2 * LAYOUT_MAX_FILES];
} layout_files;

/* The folders of harness/ (kit, runner, ...), sorted. */
static int harness_folders(char out[][LAYOUT_NAME], int max)
{
    DIR *d = opendir("harness");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL && n < max;) {
        char path[LAYOUT_NAME];
        struct stat st;
        if (e->d_name[0] == '.' || snprintf(path, sizeof path, "harness/%s", e->d_name) >= LAYOUT_NAME)
            continue;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(out[n++], LAYOUT_NAME, "%s", path);
    }
    if (d)
        closedir(d);
    qsort(out, (size_t)n, LAYOUT_NAME, (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Every file of the harness with a suffix of `suffixes`, read (texts NULL when reads is 0). */
static void harness_files(layout_files *t, const char *suffixes, int reads)
{
    static char folders[32][LAYOUT_NAME];
    int nf = harness_folders(folders, 32);
    t->n = 0;
    for (int i = 0; i < nf; i++)
        t->n += list_files(folders[i], suffixes, t->path + t->n, 2 * LAYOUT_MAX_FILES - t->n);
    for (int i = 0; i < t->n; i++)
        t->text[i] = reads ? rbtest_read_file(t->path[i]) : NULL;
}

static void harness_files_free(layout_files *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->text[i]);
}

/* The module of a file: its path without the extension. Its index in g, added when new. */
static int module_index(layout_graph *g, const char *path)
{
    char name[LAYOUT_NAME];
    snprintf(name, sizeof name, "%s", path);
    char *dot = strrchr(name, '.');
    if (dot && dot > strrchr(name, '/'))
        *dot = '\0';
    for (int i = 0; i < g->files; i++)
        if (!strcmp(g->name[i], name))
            return i;
    if (g->files >= LAYOUT_MAX_FILES)
        return -1;
    snprintf(g->name[g->files], LAYOUT_NAME, "%s", name);
    return g->files++;
}

/* Where `#include "name"` of a harness file in folder dir lands, as a path from the repository
 * root ("harness/model/json.h"): its own folder, then every folder of the harness (a name one
 * of them holds is found whatever -I flags its folder is built with), harness/, the root.
 * 0 when it lands nowhere. */
static int resolve_harness_include(const char *dir, const char *name, char *out, size_t size)
{
    const char *roots[] = {dir, "harness/runner", "harness/kit", "harness/model", "harness/report",
                           "harness", "."};
    char path[512], real[4096], root[4096];
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
        if (snprintf(path, sizeof path, "%s/%s", roots[r], name) >= (int)sizeof path ||
            !is_file(path) || !realpath(path, real) || !realpath(".", root))
            continue;
        size_t n = strlen(root);
        if (strncmp(real, root, n) || real[n] != '/')
            return 0;
        return snprintf(out, size, "%s", real + n + 1) < (int)size;
    }
    return 0;
}

typedef struct include_scan {
    layout_graph *g;
    const char *file;
    char dir[LAYOUT_NAME];
    int from;
} include_scan;

static void add_include(const char *name, int line, void *arg)
{
    include_scan *s = arg;
    char path[LAYOUT_NAME];
    (void)line;
    if (!resolve_harness_include(s->dir, name, path, sizeof path) || strncmp(path, "harness/", 8))
        return;
    int to = module_index(s->g, path);
    if (to >= 0 && to != s->from && s->from >= 0)
        s->g->calls[s->from][to] = 1;
}

/* The include graph of the modules of t's files. */
static void build_include_graph(layout_graph *g, const layout_files *t)
{
    memset(g, 0, sizeof *g);
    for (int i = 0; i < t->n; i++) {
        include_scan s = {g, t->path[i], "", module_index(g, t->path[i])};
        snprintf(s.dir, sizeof s.dir, "%.*s", (int)(strrchr(t->path[i], '/') - t->path[i]),
                 t->path[i]);
        if (t->text[i])
            each_include(t->text[i], add_include, &s);
    }
}

static void test_harness_has_no_include_circle(void)
{
    static layout_files t;
    static layout_graph g;
    harness_files(&t, ".c .h .cu .cuh", 1);
    RB_CHECK(t.n >= 120); /* 143 files today */
    build_include_graph(&g, &t);
    char cycle[2048] = "";
    int found = find_cycle(&g, cycle, sizeof cycle);
    if (found)
        printf("    an include circle between harness modules: %s\n", cycle);
    RB_CHECK(!found);
    /* the check can fail: node_attr.c including node.h again (the circle it had) */
    int at = -1;
    for (int i = 0; i < t.n; i++)
        if (strstr(t.path[i], "/node_attr.c") && t.text[i])
            at = i;
    RB_CHECK(at >= 0);
    if (at >= 0) {
        char *real = t.text[at], *planted = malloc(strlen(real) + 32);
        if (planted) {
            sprintf(planted, "%s#include \"node.h\"\n", real);
            t.text[at] = planted;
            build_include_graph(&g, &t);
            RB_CHECK(find_cycle(&g, cycle, sizeof cycle) && strstr(cycle, "/node_attr -> "));
            t.text[at] = real;
            free(planted);
        }
    }
    harness_files_free(&t);
}

/* ---- the call graph, from the objects ---- */

typedef struct layout_sym {
    char name[LAYOUT_NAME];
    int owner;
} layout_sym;

typedef struct layout_objects {
    layout_files src;            /* the harness's .c and .cu files */
    int module[2 * LAYOUT_MAX_FILES]; /* the module of each, in the graph */
    char *nm[2 * LAYOUT_MAX_FILES];   /* `nm -P` of its object; NULL: not built */
    int built;
} layout_objects;

/* `nm -P` of object path, malloc'd; NULL when it cannot be read. */
static char *nm_text(const char *path)
{
    char cmd[LAYOUT_NAME + 600];
    snprintf(cmd, sizeof cmd, "nm -P '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + len, 1, cap - len - 1, p)) > 0)
        if ((len += got) + 1 >= cap) {
            char *more = realloc(text, cap *= 2);
            if (!more)
                free(text);
            text = more;
        }
    int rc = pclose(p);
    if (text)
        text[len] = '\0';
    if (rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The objects of the harness's sources in the build folder beside rbtest (build/<arch>/). */
static void read_objects(layout_objects *o, layout_graph *g)
{
    char build[LAYOUT_NAME];
    snprintf(build, sizeof build, "%s", rbtest_self);
    char *slash = strrchr(build, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(build, sizeof build, ".");
    memset(g, 0, sizeof *g);
    harness_files(&o->src, ".c .cu", 0);
    o->built = 0;
    for (int i = 0; i < o->src.n; i++) {
        char obj[2 * LAYOUT_NAME];
        snprintf(obj, sizeof obj, "%s/%.*s.o", build,
                 (int)(strrchr(o->src.path[i], '.') - o->src.path[i]), o->src.path[i]);
        o->module[i] = module_index(g, o->src.path[i]);
        o->nm[i] = is_file(obj) ? nm_text(obj) : NULL; /* mpi_main.o only with MPI=1 */
        o->built += o->nm[i] != NULL;
    }
}

static void objects_free(layout_objects *o)
{
    for (int i = 0; i < o->src.n; i++)
        free(o->nm[i]);
}

/* Calls fn with each symbol line of nm -P text: its name and its type letter. */
static void each_symbol(const char *text, void (*fn)(const char *name, size_t len, char type,
                                                      void *arg),
                        void *arg)
{
    for (const char *p = text; p && *p;) {
        const char *sp = strchr(p, ' '), *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        if (sp && sp < eol && sp + 1 < eol)
            fn(p, (size_t)(sp - p), sp[1], arg);
        p = *eol ? eol + 1 : eol;
    }
}

typedef struct sym_table {
    layout_sym *sym;
    int n, owner;
    layout_graph *g;
} sym_table;

static void add_defined(const char *name, size_t len, char type, void *arg)
{
    sym_table *t = arg;
    if (type == 'U' || !isupper((unsigned char)type) || len >= LAYOUT_NAME || t->n >= LAYOUT_MAX_SYMS)
        return;
    memcpy(t->sym[t->n].name, name, len);
    t->sym[t->n].name[len] = '\0';
    t->sym[t->n++].owner = t->owner;
}

static int sym_order(const void *a, const void *b)
{
    return strcmp(((const layout_sym *)a)->name, ((const layout_sym *)b)->name);
}

static void add_used(const char *name, size_t len, char type, void *arg)
{
    sym_table *t = arg;
    layout_sym key;
    if (type != 'U' || len >= LAYOUT_NAME)
        return;
    memcpy(key.name, name, len);
    key.name[len] = '\0';
    const layout_sym *d = bsearch(&key, t->sym, (size_t)t->n, sizeof key, sym_order);
    if (d && d->owner != t->owner)
        t->g->calls[t->owner][d->owner] = 1;
}

/* The call graph of the modules from their objects' symbols (calls cleared, names kept). */
static void build_call_graph(layout_graph *g, const layout_objects *o)
{
    static layout_sym sym[LAYOUT_MAX_SYMS];
    sym_table t = {sym, 0, 0, g};
    memset(g->calls, 0, sizeof g->calls);
    for (int i = 0; i < o->src.n; i++) {
        t.owner = o->module[i];
        each_symbol(o->nm[i], add_defined, &t);
    }
    qsort(sym, (size_t)t.n, sizeof sym[0], sym_order);
    for (int i = 0; i < o->src.n; i++) {
        t.owner = o->module[i];
        each_symbol(o->nm[i], add_used, &t);
    }
}

/* The index of the source whose path ends with tail, -1 when none is built. */
static int object_named(const layout_objects *o, const char *tail)
{
    size_t n = strlen(tail);
    for (int i = 0; i < o->src.n; i++) {
        size_t len = strlen(o->src.path[i]);
        if (o->nm[i] && len >= n && !strcmp(o->src.path[i] + len - n, tail))
            return i;
    }
    return -1;
}

/* Appends a line to source i's nm text (a planted symbol); returns the real text to restore. */
static char *plant_symbol(layout_objects *o, int i, const char *line)
{
    char *real = o->nm[i], *planted = malloc(strlen(real) + strlen(line) + 1);
    if (planted) {
        sprintf(planted, "%s%s", real, line);
        o->nm[i] = planted;
    }
    return real;
}

static void unplant_symbol(layout_objects *o, int i, char *real)
{
    if (o->nm[i] != real)
        free(o->nm[i]);
    o->nm[i] = real;
}

static void test_harness_has_no_call_circle(void)
{
    static layout_objects o;
    static layout_graph g;
    read_objects(&o, &g);
    RB_CHECK(o.built >= 60); /* 76 objects today (mpi_main.o only with MPI=1) */
    build_call_graph(&g, &o);
    char cycle[2048] = "";
    int found = find_cycle(&g, cycle, sizeof cycle);
    if (found)
        printf("    a call circle between harness modules: %s\n", cycle);
    RB_CHECK(!found);
    /* the check can fail: plot_draw.c calling back into plot_roofs.c (the circle the drawing
     * primitives had while plot_svg.c defined them) */
    int at = object_named(&o, "/plot_draw.c");
    RB_CHECK(at >= 0);
    if (at >= 0) {
        char *real = plant_symbol(&o, at, "rb_plot_draw_flat_roofs U\n");
        build_call_graph(&g, &o);
        RB_CHECK(find_cycle(&g, cycle, sizeof cycle) && strstr(cycle, "/plot_draw -> ") &&
                 strstr(cycle, "/plot_roofs"));
        unplant_symbol(&o, at, real);
    }
    objects_free(&o);
}

/* ---- the model apart from the report ---- */

/* 1 when path is a file of the folders the model may not read: harness/report, harness/runner. */
static int model_may_not_read(const char *path)
{
    return !strncmp(path, "harness/report/", 15) || !strncmp(path, "harness/runner/", 15);
}

static void check_model_include(const char *name, int line, void *arg)
{
    include_check *s = arg;
    char path[LAYOUT_NAME];
    if (resolve_harness_include(s->dir, name, path, sizeof path) && model_may_not_read(path))
        include_refused(s, name, line, path);
}

/* The includes of text (a file of harness/model) that land in the report or the runner,
 * appended to bad as "file:line: name (path)". Returns how many. */
static int check_model_includes(const char *file, const char *text, char *bad, size_t bad_size)
{
    include_check s = {file, "harness/model", bad, bad_size, 0};
    each_include(text, check_model_include, &s);
    return s.count;
}

static void test_model_includes_no_report(void)
{
    static layout_files t;
    harness_files(&t, ".c .h", 1);
    char bad[4096] = "";
    int count = 0, model = 0, at = -1;
    for (int i = 0; i < t.n; i++) {
        if (strncmp(t.path[i], "harness/model/", 14) || !t.text[i])
            continue;
        model++;
        count += check_model_includes(t.path[i], t.text[i], bad, sizeof bad);
        if (strstr(t.path[i], "/expect.c"))
            at = i;
    }
    if (count)
        printf("    model files including the report or the runner:\n%s", bad);
    RB_CHECK(count == 0);
    RB_CHECK(model >= 40); /* 60 files today */
    /* the check can fail: a copy of expect.c with a report header planted, by each spelling */
    const char *planted[] = {"#include \"plot.h\"\n", "#include \"report/svg.h\"\n",
                             "#include \"../report/docs.h\"\n", "#include \"jobs.h\"\n"};
    RB_CHECK(at >= 0);
    for (size_t k = 0; at >= 0 && k < sizeof planted / sizeof planted[0]; k++) {
        char *copy = malloc(strlen(t.text[at]) + 64);
        if (!copy)
            continue;
        sprintf(copy, "%s%s", t.text[at], planted[k]);
        bad[0] = '\0';
        RB_CHECK(check_model_includes("harness/model/expect.c", copy, bad, sizeof bad) == 1);
        free(copy);
    }
    RB_CHECK(strstr(bad, "harness/model/expect.c:") && strstr(bad, "(harness/runner/jobs.h)"));
    harness_files_free(&t);
}

/* The model modules of g that call a report or runner module, as "a -> b" lines into bad.
 * Returns how many. */
static int model_calls_out(const layout_graph *g, char *bad, size_t bad_size)
{
    int count = 0;
    for (int a = 0; a < g->files; a++)
        for (int b = 0; b < g->files; b++) {
            char to[LAYOUT_NAME + 2];
            snprintf(to, sizeof to, "%s.", g->name[b]);
            if (!g->calls[a][b] || strncmp(g->name[a], "harness/model/", 14) ||
                !model_may_not_read(to))
                continue;
            size_t used = strlen(bad);
            snprintf(bad + used, bad_size - used, "  %s -> %s\n", g->name[a], g->name[b]);
            count++;
        }
    return count;
}

static void test_model_calls_no_report(void)
{
    static layout_objects o;
    static layout_graph g;
    read_objects(&o, &g);
    build_call_graph(&g, &o);
    char bad[4096] = "";
    int count = model_calls_out(&g, bad, sizeof bad);
    if (count)
        printf("    model objects calling the report or the runner:\n%s", bad);
    RB_CHECK(count == 0);
    /* the check can fail: json.o using a drawing primitive of the report */
    int at = object_named(&o, "/model/json.c");
    RB_CHECK(at >= 0);
    if (at >= 0) {
        char *real = plant_symbol(&o, at, "rb_plot_line U\n");
        build_call_graph(&g, &o);
        bad[0] = '\0';
        RB_CHECK(model_calls_out(&g, bad, sizeof bad) == 1 &&
                 strstr(bad, "harness/model/json -> harness/report/plot_draw"));
        unplant_symbol(&o, at, real);
    }
    objects_free(&o);
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

/* ---- the results formats' keys: only in their reader and writer ---- */

/* Keys of the results file that its writer writes (model/report.c, model/result.c) and that no
 * other file of harness/ may spell, however the access is wrapped (json_get, json_number_at, a
 * macro, a table of names): everything else reads the typed structs of model/result_read.h. The
 * generic names ("name", "size", "kernels", "verdict", ...) are left out: other formats and
 * folders share them. */
static const char *const results_keys[] = {
    "pairs",          "variants",        "time_ms",       "vs_ceiling",
    "vs_peak",        "declared_roof",   "roof_note",     "expected_ms",
    "median_ci_lo",   "median_ci_hi",    "rel_err_before", "rel_err_after",
    "launches_per_sample", "host_bound_why", "roof_rate", "library_algo",
    "sass_hash",      "floor_ms",        "per_clock",     "inconsistent",
    "contended_at_start", "idle_utilization_gpu_pct", "link_bytes", "setup_s",
    "rate_unit",      "raised_by"};

/* The files that may spell them, and why. Each must still spell one: a file converted comes off
 * the list, so that the list names exactly what is left. */
static const struct {
    const char *path, *why;
} results_key_files[] = {
    /* the reader and the writer */
    {"harness/model/result_read.c", "the one typed reader of results documents (the charts' "
                                    "view, the run's table, compare's and history's view)"},
    {"harness/model/node_doc.c", "the node and fleet documents' typed reader (and the fleet's "
                                 "records that share the results' keys, written)"},
    {"harness/model/result.c", "the variant, kernel and extras records; the document's check"},
    {"harness/model/report.c", "the writer (rb_report_json)"},
    /* other formats whose keys share the names, each in its own reader or writer */
    {"harness/model/expect.c", "the expectation file's reader and writer"},
    {"harness/model/expect_row.c", "the expectation file's rows' reader"},
    {"harness/model/profile_doc.c", "the profile document's writer"},
    {"harness/runner/cmd_list.c", "list --json's writer"},
    {"harness/report/list_out.c", "list's column heading"},
    {"harness/report/runcmp_out.c", "compare's own JSON document's writer"},
    {"harness/runner/child.c", "the child's record lines to the parent (writer)"},
    {"harness/runner/results.c", "the child's record lines (the parent's reader)"},
    {"harness/runner/rank_run.c", "a rank's own collective times in its fleet contribution"},
};

/* text with its comments blanked (string and character literals kept): a key named in a comment
 * is documentation, not access. Caller frees. */
static char *code_only(const char *text)
{
    size_t n = strlen(text);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i <= n;) {
        if (text[i] == '/' && text[i + 1] == '*') {
            const char *end = strstr(text + i + 2, "*/");
            size_t stop = end ? (size_t)(end - text) + 2 : n;
            memset(out + i, ' ', stop - i);
            i = stop;
        } else if (text[i] == '/' && text[i + 1] == '/') {
            size_t stop = i + strcspn(text + i, "\n");
            memset(out + i, ' ', stop - i);
            i = stop;
        } else if (text[i] == '"' || text[i] == '\'') {
            size_t j = i + 1;
            while (j < n && text[j] != text[i])
                j += text[j] == '\\' ? 2 : 1;
            size_t stop = j < n ? j + 1 : n;
            memcpy(out + i, text + i, stop - i);
            i = stop;
        } else {
            out[i] = text[i];
            i++;
        }
    }
    out[n] = '\0';
    return out;
}

/* The results keys that text's code spells as a string literal, space separated into found
 * (cut to size). Returns how many. */
static int keys_spelled(const char *text, char *found, size_t size)
{
    char *code = code_only(text);
    int count = 0;
    found[0] = '\0';
    for (size_t k = 0; code && k < sizeof results_keys / sizeof results_keys[0]; k++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "\"%s\"", results_keys[k]);
        if (!strstr(code, quoted))
            continue;
        size_t used = strlen(found);
        snprintf(found + used, size - used, " %s", results_keys[k]);
        count++;
    }
    free(code);
    return count;
}

static int key_file_listed(const char *path)
{
    for (size_t i = 0; i < sizeof results_key_files / sizeof results_key_files[0]; i++)
        if (!strcmp(results_key_files[i].path, path))
            return 1;
    return 0;
}

/* Every key of the list is one the writer writes: the list cannot drift from the format. */
static void check_keys_are_written(const layout_files *t)
{
    char all[8192] = "";
    for (int i = 0; i < t->n; i++)
        if (t->text[i] && (!strcmp(t->path[i], "harness/model/report.c") ||
                           !strcmp(t->path[i], "harness/model/result.c"))) {
            char found[1024];
            keys_spelled(t->text[i], found, sizeof found);
            strncat(all, found, sizeof all - strlen(all) - 1);
        }
    strncat(all, " ", sizeof all - strlen(all) - 1);
    for (size_t k = 0; k < sizeof results_keys / sizeof results_keys[0]; k++) {
        char word[64];
        snprintf(word, sizeof word, " %s ", results_keys[k]);
        if (!strstr(all, word))
            printf("    \"%s\" is not written by model/report.c or model/result.c\n",
                   results_keys[k]);
        RB_CHECK(strstr(all, word) != NULL);
    }
}

static void test_results_keys_only_in_reader_and_writer(void)
{
    static layout_files t;
    harness_files(&t, ".c .h .cu", 1);
    RB_CHECK(t.n >= 100);
    int bad = 0, listed_seen = 0;
    for (int i = 0; i < t.n; i++) {
        char found[1024];
        if (!t.text[i] || keys_spelled(t.text[i], found, sizeof found) == 0)
            continue;
        if (key_file_listed(t.path[i])) {
            listed_seen++;
            continue;
        }
        printf("    %s spells results keys (%s ): read the typed structs of "
               "model/result_read.h\n", t.path[i], found);
        bad++;
    }
    RB_CHECK(bad == 0);
    /* the list is exact: each file on it still spells a key (a converted file comes off it) */
    int listed = (int)(sizeof results_key_files / sizeof results_key_files[0]);
    if (listed_seen != listed)
        printf("    %d of the %d files allowed results keys spell none: take them off the list\n",
               listed - listed_seen, listed);
    RB_CHECK(listed_seen == listed);
    check_keys_are_written(&t);
    /* the check can fail, however the access is wrapped; a key in a comment is not access */
    char found[1024];
    RB_CHECK(keys_spelled("x = json_get(doc, \"pairs\");\n", found, sizeof found) == 1);
    RB_CHECK(keys_spelled("#define K \"vs_ceiling\"\n", found, sizeof found) == 1);
    RB_CHECK(keys_spelled("/* the \"pairs\" array */ // \"variants\"\n", found, sizeof found) == 0);
    RB_CHECK(keys_spelled("s = \"a \\\" \"; t = \"time_ms\";\n", found, sizeof found) == 1);
    harness_files_free(&t);
}

static const rbtest_case layout_cases[] = {
    {"pairs_include_only_the_kit_and_model", test_pairs_include_only_the_kit_and_model},
    {"include_checker_catches_a_runner_header", test_include_checker_catches_a_runner_header},
    {"runner_has_no_call_cycle", test_runner_has_no_call_cycle},
    {"cycle_finder_catches_a_planted_cycle", test_cycle_finder_catches_a_planted_cycle},
    {"lesson_kernels_hold_no_plants", test_lesson_kernels_hold_no_plants},
    {"harness_has_no_include_circle", test_harness_has_no_include_circle},
    {"harness_has_no_call_circle", test_harness_has_no_call_circle},
    {"model_includes_no_report", test_model_includes_no_report},
    {"model_calls_no_report", test_model_calls_no_report},
    {"results_keys_only_in_reader_and_writer", test_results_keys_only_in_reader_and_writer},
};
RB_SUITE(layout_suite, "layout", layout_cases);
