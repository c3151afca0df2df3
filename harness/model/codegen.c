/* SPDX-License-Identifier: MIT */
#include "codegen.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *rb_sass_opcode(const char *line, const char *end, size_t *len)
{
    const char *p = line;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p < 4 || p[0] != '/' || p[1] != '*')
        return NULL;
    const char *close = rb_sass_find(p, end, "*/");
    if (!close)
        return NULL;
    p = close + 2;
    for (int field = 0; field < 2; field++) { /* an optional predicate, then the opcode */
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *q = p;
        while (q < end && *q != ' ' && *q != '\t' && *q != ';')
            q++;
        if (q == p)
            return NULL;
        if (*p != '@') {
            *len = (size_t)(q - p);
            return p;
        }
        p = q;
    }
    return NULL;
}

int rb_sass_opcode_matches(const char *op, size_t len, const char *instruction)
{
    size_t k = strlen(instruction);
    return len >= k && strncmp(op, instruction, k) == 0 && (len == k || op[k] == '.');
}

/* Whether the function header line names a function containing `kernel`. */
const char *rb_sass_find(const char *line, const char *end, const char *text)
{
    size_t k = strlen(text);
    for (const char *p = line; p + k <= end; p++)
        if (*p == *text && memcmp(p, text, k) == 0)
            return p;
    return NULL;
}

static int header_matches(const char *line, const char *end, const char *kernel, const char *marker)
{
    const char *m = rb_sass_find(line, end, marker);
    if (!m)
        return -1; /* not a header */
    size_t k = strlen(kernel);
    for (const char *p = m; p + k <= end; p++)
        if (strncmp(p, kernel, k) == 0)
            return 1;
    return 0;
}

int rb_sass_has(const char *sass, const char *kernel, const char *instruction)
{
    int in_match = 0, matched = 0;
    for (const char *line = sass; line && *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        int h = header_matches(line, end, kernel, "Function :");
        if (h >= 0) {
            in_match = h;
            matched |= h;
        } else if (in_match) {
            size_t len = 0;
            const char *op = rb_sass_opcode(line, end, &len);
            if (op && rb_sass_opcode_matches(op, len, instruction))
                return 1;
        }
        line = *end ? end + 1 : end;
    }
    return matched ? 0 : -1;
}

/* The number after "KEY:" in text[0..end), or -1. */
static long field(const char *text, const char *end, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = text; p + k < end; p++)
        if (strncmp(p, key, k) == 0 && (p == text || p[-1] == ' '))
            return strtol(p + k, NULL, 10);
    return -1;
}

int rb_res_spills(const char *res, const char *kernel, char *why, size_t why_size)
{
    int matched = 0, bad = 0, in_match = 0;
    char name[200] = "";
    for (const char *line = res; line && *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        int h = header_matches(line, end, kernel, "Function ");
        if (h >= 0) {
            in_match = h;
            matched |= h;
            if (h) {
                const char *n = strstr(line, "Function ") + 9;
                rb_fmt(name, sizeof name, "%.*s", (int)(end - n), n);
            }
        } else if (in_match && field(line, end, "REG:") >= 0) {
            long stack = field(line, end, "STACK:"), local = field(line, end, "LOCAL:");
            if (stack != 0 || local != 0) {
                if (!bad)
                    rb_fmt(why, why_size, "%s uses %ld bytes of stack and %ld of local memory",
                           name, stack, local);
                bad++;
            }
            in_match = 0;
        }
        line = *end ? end + 1 : end;
    }
    return matched ? bad : -1;
}
