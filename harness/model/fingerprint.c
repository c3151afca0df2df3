/* SPDX-License-Identifier: MIT */
#include "fingerprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "util.h"

const rb_fingerprint *rb_fingerprint_find(const rb_fingerprint *table, const char *pair,
                                          const char *name)
{
    for (const rb_fingerprint *f = table; f && f->pair; f++)
        if (strcmp(f->pair, pair) == 0 && strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

int rb_fingerprint_count(const rb_fingerprint *f, const char *instruction)
{
    int n = 0;
    for (int i = 0; i < f->n_ops; i++)
        if (rb_sass_opcode_matches(f->ops[i].op, strlen(f->ops[i].op), instruction))
            n += f->ops[i].n;
    return n;
}

int rb_fingerprint_counts(const rb_fingerprint *f, const rb_codegen_rule *rules, rb_extra *out,
                          int max)
{
    int n = 0;
    for (int r = 0; r < RB_MAX_CODEGEN && rules[r].kernel && n < max - 1; r++) {
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= strcmp(out[i].name, rules[r].instruction) == 0;
        if (seen)
            continue;
        rb_fmt(out[n].name, sizeof out[n].name, "%s", rules[r].instruction);
        out[n++].value = rb_fingerprint_count(f, rules[r].instruction);
    }
    if (n < max) {
        rb_fmt(out[n].name, sizeof out[n].name, "instructions");
        out[n++].value = f->instructions;
    }
    return n;
}

void rb_fingerprint_hex(uint64_t hash, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)hash);
}

/* One template argument "L<type>[n]<digits>E" at *p, its source form appended to out. 0 or -1. */
static int demangle_arg(const char **p, char *out, size_t size)
{
    const char *q = *p;
    if (*q++ != 'L')
        return -1;
    char type = *q++;
    int neg = *q == 'n';
    q += neg;
    char *end;
    unsigned long long v = strtoull(q, &end, 10);
    if (end == q || *end != 'E' || (neg && (type == 'b' || type == 'j' || type == 'm')))
        return -1;
    size_t len = strlen(out);
    const char *sign = neg ? "-" : "";
    switch (type) {
    case 'b':
        if (v > 1)
            return -1;
        rb_fmt(out + len, size - len, "%s", v ? "true" : "false");
        break;
    case 'i': rb_fmt(out + len, size - len, "%s%llu", sign, v); break;
    case 'j': rb_fmt(out + len, size - len, "%lluu", v); break;
    case 'l': rb_fmt(out + len, size - len, "%s%llul", sign, v); break;
    case 'm': rb_fmt(out + len, size - len, "%lluul", v); break;
    default: return -1;
    }
    *p = end + 1;
    return 0;
}

int rb_sass_demangle(const char *mangled, char *out, size_t size)
{
    char buf[512] = "";
    const char *p = mangled + 2;
    char *end;
    unsigned long n = strncmp(mangled, "_Z", 2) == 0 ? strtoul(p, &end, 10) : 0;
    if (n == 0 || n >= 256 || strnlen(end, n) < n) {
        rb_fmt(out, size, "%s", mangled);
        return -1;
    }
    rb_fmt(buf, sizeof buf, "%.*s", (int)n, end);
    p = end + n;
    if (*p == 'I') {
        p++;
        rb_fmt(buf + strlen(buf), sizeof buf - strlen(buf), "<");
        for (int first = 1; *p != 'E'; first = 0) {
            if (!first)
                rb_fmt(buf + strlen(buf), sizeof buf - strlen(buf), ", ");
            if (demangle_arg(&p, buf, sizeof buf) != 0) {
                rb_fmt(out, size, "%s", mangled);
                return -1;
            }
        }
        rb_fmt(buf + strlen(buf), sizeof buf - strlen(buf), ">");
    }
    rb_fmt(out, size, "%s", buf);
    return 0;
}

/* ---- parsing ---- */

/* sass_counts are rb_extras: a pair's distinct instructions and the total must fit
 * RB_MAX_EXTRAS (rb_fingerprint_counts stops short of it otherwise); tests/test_codegen.c keeps
 * every pair within it. */

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* Instruction text op..end (up to the ';') hashed: whitespace runs as one space, the name inside
 * a symbol reference `(name) left out. */
static uint64_t hash_instruction(uint64_t h, const char *p, const char *end)
{
    int space = 0;
    for (; p < end && *p != ';'; p++) {
        if (*p == ' ' || *p == '\t') {
            space = 1;
            continue;
        }
        if (space)
            h = fnv(h, " ", 1);
        space = 0;
        h = fnv(h, p, 1);
        if (p[0] == '`' && p + 1 < end && p[1] == '(') {
            const char *close = memchr(p, ')', (size_t)(end - p));
            if (close) {
                h = fnv(h, "()", 2);
                p = close;
            }
        }
    }
    return fnv(h, "\n", 1);
}

static int add_op(rb_sass_function *f, const char *op, size_t len, int *cap)
{
    for (int i = 0; i < f->n_ops; i++)
        if (strlen(f->ops[i].op) == len && strncmp(f->ops[i].op, op, len) == 0) {
            f->ops[i].n++;
            return 0;
        }
    if (f->n_ops == *cap) {
        int bigger = *cap ? 2 * *cap : 32;
        rb_sass_op *ops = realloc(f->ops, (size_t)bigger * sizeof *ops);
        if (!ops)
            return -1;
        f->ops = ops;
        *cap = bigger;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, op, len);
    copy[len] = '\0';
    f->ops[f->n_ops].op = copy;
    f->ops[f->n_ops++].n = 1;
    return 0;
}

static int op_cmp(const void *a, const void *b)
{
    return strcmp(((const rb_sass_op *)a)->op, ((const rb_sass_op *)b)->op);
}

/* A new function from the header line "Function : NAME" at m..end. */
static int start_function(rb_sass_function *f, const char *m, const char *end)
{
    memset(f, 0, sizeof *f);
    m += strlen("Function :");
    while (m < end && (*m == ' ' || *m == '\t'))
        m++;
    const char *e = end;
    while (e > m && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    size_t len = (size_t)(e - m);
    f->function = malloc(len + 1);
    f->name = malloc(len + 260);
    if (!f->function || !f->name)
        return -1;
    memcpy(f->function, m, len);
    f->function[len] = '\0';
    rb_sass_demangle(f->function, f->name, len + 260);
    f->hash = FNV_OFFSET;
    return 0;
}

int rb_sass_functions(const char *sass, rb_sass_function **out)
{
    rb_sass_function *fs = NULL;
    int n = 0, cap = 0, ops_cap = 0;
    for (const char *line = sass; line && *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        const char *m = rb_sass_find(line, end, "Function :");
        if (m) {
            if (n == cap) {
                int bigger = cap ? 2 * cap : 16;
                rb_sass_function *more = realloc(fs, (size_t)bigger * sizeof *more);
                if (!more)
                    goto fail;
                fs = more;
                cap = bigger;
            }
            ops_cap = 0;
            if (start_function(&fs[n++], m, end) != 0)
                goto fail;
        } else if (n > 0) {
            size_t len = 0;
            const char *op = rb_sass_opcode(line, end, &len);
            if (op) {
                rb_sass_function *f = &fs[n - 1];
                /* from the predicate (or the opcode) on: the address comment is left out */
                const char *text = rb_sass_find(line, end, "*/") + 2;
                f->hash = hash_instruction(f->hash, text, end);
                f->instructions++;
                if (add_op(f, op, len, &ops_cap) != 0)
                    goto fail;
            }
        }
        line = *end ? end + 1 : end;
    }
    for (int i = 0; i < n; i++)
        qsort(fs[i].ops, (size_t)fs[i].n_ops, sizeof *fs[i].ops, op_cmp);
    *out = fs;
    return n;
fail:
    rb_sass_functions_free(fs, n);
    *out = NULL;
    return -1;
}

void rb_sass_functions_free(rb_sass_function *f, int n)
{
    for (int i = 0; f && i < n; i++) {
        for (int k = 0; k < f[i].n_ops; k++)
            free((char *)f[i].ops[k].op);
        free(f[i].ops);
        free(f[i].function);
        free(f[i].name);
    }
    free(f);
}
