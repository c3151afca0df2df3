/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 (no GPU, no CUDA call): the pair contract stays one a newcomer can hold in their head.
 * Read from the text of harness/kit/pair.h and of the bench/<pair>.c files:
 * - rb_pair has at most RB_CONTRACT_MAX_FIELDS fields, a struct held inline counting its fields
 *   (a pointer to a struct, the optional ext, counts one, and so does an array: the variants);
 * - every field of rb_pair and of rb_pair_ext is set by some pair (".field =" in a bench/ file):
 *   a field no pair sets is a knob every reader skips for nothing;
 * - each of rb_pair_ext's one-pair needs (after its "one pair's needs" line, each comment
 *   opening with the pair's name) is set by that pair's bench/ file and by no other.
 * Each check fails on a planted copy of the header.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbtest.h"

#define RB_CONTRACT_MAX_FIELDS 20
#define CONTRACT_MAX_FIELDS 64
#define CONTRACT_MAX_FILES 64
#define CONTRACT_ONE_PAIR "--- one pair's needs ---"

/* A struct's fields as the header declares them: each name, and for a one-pair need the pair
 * named by the comment above it ("" for the others). */
typedef struct contract_field {
    char name[64];
    char pair[64];
    int nested; /* count of an inline struct's fields, 0 for a plain field */
} contract_field;

typedef struct contract_struct {
    contract_field f[CONTRACT_MAX_FIELDS];
    int n;
} contract_struct;

typedef struct contract_sources {
    const char *name[CONTRACT_MAX_FILES]; /* "hgemm.c" */
    char *text[CONTRACT_MAX_FILES];
    int n;
} contract_sources;

/* The body of `typedef struct <name> {` ... `}` in header: its start, and its length in *len;
 * NULL when the header has none. */
static const char *struct_body(const char *header, const char *name, size_t *len)
{
    char open[96];
    snprintf(open, sizeof open, "typedef struct %s {", name);
    const char *s = strstr(header, open);
    if (!s)
        return NULL;
    s += strlen(open);
    int depth = 1;
    for (const char *t = s; *t; t++) {
        if (t[0] == '/' && t[1] == '*') {
            const char *end = strstr(t + 2, "*/");
            if (!end)
                return NULL;
            t = end + 1;
        } else if (*t == '{') {
            depth++;
        } else if (*t == '}' && --depth == 0) {
            *len = (size_t)(t - s);
            return s;
        }
    }
    return NULL;
}

/* The last identifier of code[0..len) before any '[' (a declarator's name), or after "(*" for a
 * function pointer; into out. */
static void declarator_name(const char *code, size_t len, char *out, size_t size)
{
    const char *fp = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (code[i] == '(' && code[i + 1] == '*') {
            fp = code + i + 2;
            break;
        }
    size_t end = len;
    if (fp) {
        const char *e = fp;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        snprintf(out, size, "%.*s", (int)(e - fp), fp);
        return;
    }
    const char *bracket = memchr(code, '[', len);
    if (bracket)
        end = (size_t)(bracket - code);
    while (end > 0 && !(isalnum((unsigned char)code[end - 1]) || code[end - 1] == '_'))
        end--;
    size_t start = end;
    while (start > 0 && (isalnum((unsigned char)code[start - 1]) || code[start - 1] == '_'))
        start--;
    snprintf(out, size, "%.*s", (int)(end - start), code + start);
}

/* The pair a comment names at its start ("hgemm: ...", a lower-case name and a colon), into out
 * ("" when none). */
static void comment_pair(const char *comment, size_t len, char *out, size_t size)
{
    out[0] = '\0';
    size_t i = 2;
    while (i < len && comment[i] == ' ')
        i++;
    size_t start = i;
    while (i < len && (islower((unsigned char)comment[i]) || isdigit((unsigned char)comment[i]) ||
                       comment[i] == '_'))
        i++;
    if (i > start && i < len && comment[i] == ':')
        snprintf(out, size, "%.*s", (int)(i - start), comment + start);
}

static int struct_fields(const char *header, const char *name, contract_struct *out, int depth);

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return 0;
    return 1;
}

/* One declaration (code without comments, up to its ';'): its fields into out. A type that is a
 * struct of the header, held inline, counts its own fields. */
static int declaration_fields(const char *header, const char *code, size_t len, const char *pair,
                              contract_struct *out, int depth)
{
    while (len > 0 && isspace((unsigned char)*code))
        code++, len--;
    if (len == 0)
        return 0;
    char type[64];
    size_t t = 0;
    while (t < len && t + 1 < sizeof type && (isalnum((unsigned char)code[t]) || code[t] == '_'))
        t++;
    snprintf(type, sizeof type, "%.*s", (int)t, code);
    int inline_struct = 0;
    contract_struct inner = {.n = 0};
    if (!memchr(code, '*', len) && depth < 4 && struct_fields(header, type, &inner, depth + 1) == 0)
        inline_struct = inner.n;
    /* declarators: split on commas outside brackets and parentheses */
    int paren = 0;
    size_t from = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && (code[i] == '(' || code[i] == '['))
            paren++;
        else if (i < len && (code[i] == ')' || code[i] == ']'))
            paren--;
        if (i < len && (code[i] != ',' || paren > 0))
            continue;
        if (out->n >= CONTRACT_MAX_FIELDS)
            return -1;
        contract_field *f = &out->f[out->n++];
        declarator_name(code + from, i - from, f->name, sizeof f->name);
        snprintf(f->pair, sizeof f->pair, "%s", pair);
        f->nested = memchr(code + from, '[', i - from) ? 0 : inline_struct;
        from = i + 1;
    }
    return 0;
}

/* The fields of `typedef struct <name>` in header, into out: 0, or -1 when there is none. */
static int struct_fields(const char *header, const char *name, contract_struct *out, int depth)
{
    size_t len;
    const char *body = struct_body(header, name, &len);
    if (!body)
        return -1;
    char code[1024], pair[64] = "";
    size_t n = 0;
    int one_pair = 0;
    for (size_t i = 0; i < len; i++) {
        if (body[i] == '/' && body[i + 1] == '*') {
            const char *end = strstr(body + i + 2, "*/");
            size_t clen = end ? (size_t)(end + 2 - (body + i)) : len - i;
            if (strstr(body + i, CONTRACT_ONE_PAIR) &&
                strstr(body + i, CONTRACT_ONE_PAIR) < body + i + clen)
                one_pair = 1;
            else if (one_pair && blank(code, n))
                comment_pair(body + i, clen, pair, sizeof pair);
            i += clen - 1;
        } else if (body[i] == ';') {
            if (declaration_fields(header, code, n, one_pair ? (pair[0] ? pair : "?") : "", out,
                                   depth) != 0)
                return -1;
            n = 0;
            pair[0] = '\0';
        } else if (n + 1 < sizeof code) {
            code[n++] = body[i];
        }
    }
    return 0;
}

/* rb_pair's field count, an inline struct counting its fields. */
static int contract_count(const contract_struct *s)
{
    int count = 0;
    for (int i = 0; i < s->n; i++)
        count += s->f[i].nested ? s->f[i].nested : 1;
    return count;
}

/* The bench/ files that set `name` (".name =", ".x.name =" or, for an inline struct, ".name.x
 * =", as a designated initializer): how many, and the first one's name into first. */
static int setters(const contract_sources *src, const char *name, const char **first)
{
    char want[80];
    snprintf(want, sizeof want, ".%s", name);
    int count = 0;
    *first = NULL;
    for (int k = 0; k < src->n; k++) {
        int sets = 0;
        for (const char *s = strstr(src->text[k], want); s && !sets; s = strstr(s + 1, want)) {
            const char *e = s + strlen(want);
            if (isalnum((unsigned char)*e) || *e == '_')
                continue;
            while (*e == ' ')
                e++;
            sets = (*e == '=' && e[1] != '=') || (*e == '.' && e == s + strlen(want));
        }
        if (sets && !count++)
            *first = src->name[k];
    }
    return count;
}

/* The first break of the contract in header against the pairs' sources, into why; 1: none. */
static int contract_check(const char *header, const contract_sources *src, char *why,
                          size_t why_size)
{
    static const char *const structs[] = {"rb_pair", "rb_pair_ext", "rb_pair_timing"};
    contract_struct core = {.n = 0};
    if (struct_fields(header, "rb_pair", &core, 0) != 0) {
        snprintf(why, why_size, "no typedef struct rb_pair in the header");
        return 0;
    }
    if (contract_count(&core) > RB_CONTRACT_MAX_FIELDS) {
        snprintf(why, why_size, "rb_pair has %d fields, at most %d", contract_count(&core),
                 RB_CONTRACT_MAX_FIELDS);
        return 0;
    }
    for (int s = 0; s < 3; s++) {
        contract_struct st = {.n = 0};
        if (struct_fields(header, structs[s], &st, 0) != 0) {
            snprintf(why, why_size, "no typedef struct %s in the header", structs[s]);
            return 0;
        }
        for (int i = 0; i < st.n; i++) {
            const contract_field *f = &st.f[i];
            const char *first = NULL;
            int count = setters(src, f->name, &first);
            if (!strcmp(f->pair, "?")) {
                snprintf(why, why_size, "%s.%s: a one-pair need whose comment names no pair",
                         structs[s], f->name);
                return 0;
            }
            if (count == 0) {
                snprintf(why, why_size, "%s.%s: set by no pair", structs[s], f->name);
                return 0;
            }
            char own[80];
            snprintf(own, sizeof own, "%s.c", f->pair);
            if (f->pair[0] && (count != 1 || strcmp(first, own) != 0)) {
                snprintf(why, why_size, "%s.%s: %s's need, set by %d file(s), first %s",
                         structs[s], f->name, f->pair, count, first);
                return 0;
            }
        }
    }
    return 1;
}

static int read_bench(contract_sources *src)
{
    DIR *d = opendir("bench");
    if (!d)
        return -1;
    struct dirent *e;
    static char names[CONTRACT_MAX_FILES][256];
    src->n = 0;
    while ((e = readdir(d)) != NULL && src->n < CONTRACT_MAX_FILES) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0)
            continue;
        char path[300];
        snprintf(path, sizeof path, "bench/%s", e->d_name);
        char *text = rbtest_read_file(path);
        if (!text)
            continue;
        snprintf(names[src->n], sizeof names[src->n], "%s", e->d_name);
        src->name[src->n] = names[src->n];
        src->text[src->n++] = text;
    }
    closedir(d);
    return 0;
}

static void free_bench(contract_sources *src)
{
    for (int k = 0; k < src->n; k++)
        free(src->text[k]);
    src->n = 0;
}

/* header with the first `from` replaced by `to` (caller frees). */
static char *planted(const char *header, const char *from, const char *to)
{
    const char *at = strstr(header, from);
    if (!at)
        return NULL;
    size_t head = (size_t)(at - header), len = strlen(header) + strlen(to) + 1;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%.*s%s%s", (int)head, header, to, at + strlen(from));
    return out;
}

/* The header and the pairs' sources, or NULL (the test skipped) when not run from the
 * repository root. */
static char *read_contract(contract_sources *src)
{
    char *header = rbtest_read_file("harness/kit/pair.h");
    if (!header || read_bench(src) != 0) {
        free(header);
        rbtest_skip("not run from the repository root (harness/kit/pair.h, bench/)");
        return NULL;
    }
    return header;
}

static void test_the_contract_holds(void)
{
    contract_sources src;
    char *header = read_contract(&src);
    if (!header)
        return;
    char why[300] = "";
    contract_struct core = {.n = 0};
    RB_CHECK(struct_fields(header, "rb_pair", &core, 0) == 0);
    printf("    rb_pair: %d fields (at most %d); %d pair files\n", contract_count(&core),
           RB_CONTRACT_MAX_FIELDS, src.n);
    int ok = contract_check(header, &src, why, sizeof why);
    if (!ok)
        printf("    %s\n", why);
    RB_CHECK(ok);
    RB_CHECK(src.n >= 20);
    free_bench(&src);
    free(header);
}

/* The checks fail on planted headers: a 21st field, an inline struct's fields, a field no pair
 * sets, a one-pair need another pair sets too. */
static void test_the_contract_check_fails_on_plants(void)
{
    contract_sources src;
    char *header = read_contract(&src);
    if (!header)
        return;
    char why[300];
    contract_struct core = {.n = 0};
    RB_CHECK(struct_fields(header, "rb_pair", &core, 0) == 0);
    int room = RB_CONTRACT_MAX_FIELDS - contract_count(&core);
    RB_CHECK(room >= 0);
    /* fields up to one past the limit, each one a pair sets (.name) so that only the count fails */
    char extra[RB_CONTRACT_MAX_FIELDS * 40 + 64] = "";
    for (int i = 0; i <= room; i++)
        strcat(extra, "    const char *name;\n");
    strcat(extra, "    const rb_pair_ext *ext;");
    char *more = planted(header, "    const rb_pair_ext *ext;", extra);
    RB_CHECK(more && !contract_check(more, &src, why, sizeof why) &&
             strstr(why, "fields, at most"));
    free(more);
    /* one field short of the limit passes; an inline struct of two fields tips it over */
    if (room > 0) {
        char fits[RB_CONTRACT_MAX_FIELDS * 40 + 64] = "";
        for (int i = 1; i < room; i++)
            strcat(fits, "    const char *name;\n");
        strcat(fits, "    rb_pair_timing timing;\n    const rb_pair_ext *ext;");
        char *inl = planted(header, "    const rb_pair_ext *ext;", fits);
        RB_CHECK(inl && !contract_check(inl, &src, why, sizeof why) && strstr(why, "at most"));
        free(inl);
    }
    /* a field no pair sets (the unused spills_cc, put back) */
    char *unused = planted(header, "    const rb_pair_ext *ext;",
                           "    int spills_cc;\n    const rb_pair_ext *ext;");
    if (room > 0)
        RB_CHECK(unused && !contract_check(unused, &src, why, sizeof why) &&
                 strstr(why, "rb_pair.spills_cc: set by no pair"));
    free(unused);
    char *ext_unused = planted(header, "    int min_cc;", "    int min_cc;\n    int spills_cc;");
    RB_CHECK(ext_unused && !contract_check(ext_unused, &src, why, sizeof why) &&
             strstr(why, "rb_pair_ext.spills_cc: set by no pair"));
    free(ext_unused);
    /* a one-pair need another pair sets: host_transfer's input roofs named as p2p_copy's */
    char *other = planted(header, "/* host_transfer: the roof", "/* p2p_copy: the roof");
    RB_CHECK(other && !contract_check(other, &src, why, sizeof why) &&
             strstr(why, "input_roofs: p2p_copy's need"));
    free(other);
    /* and a need of a few pairs moved under the one-pair line is refused as well */
    char *few = planted(header, "    int min_gpus;",
                        "    int min_gpus;\n    /* p2p_copy: as well */\n"
                        "    int (*extras)(void *, int, const double *, rb_extra *);");
    RB_CHECK(few && !contract_check(few, &src, why, sizeof why) && strstr(why, "extras"));
    free(few);
    /* a one-pair need whose comment names no pair */
    char *nameless = planted(header, "/* p2p_copy: GPUs the pair needs", "/* GPUs the pair needs");
    RB_CHECK(nameless && !contract_check(nameless, &src, why, sizeof why) &&
             strstr(why, "min_gpus: a one-pair need whose comment names no pair"));
    free(nameless);
    free_bench(&src);
    free(header);
}

static const rbtest_case contract_cases[] = {
    {"the_contract_holds", test_the_contract_holds},
    {"the_contract_check_fails_on_plants", test_the_contract_check_fails_on_plants},
};
RB_SUITE(contract_suite, "contract", contract_cases);
