/* SPDX-License-Identifier: MIT */
/*
 * Strict JSON reader and writer (RFC 8259). See json.h for the contract.
 *
 * The reader is a recursive-descent parser over a cursor that tracks line and column (both
 * 1-based; the column counts bytes). Recursion happens only when entering an array or object,
 * and the depth is checked before each descent, so at most JSON_MAX_DEPTH frames are used.
 * The first error wins: it is formatted once into the caller's buffer and parsing unwinds.
 */
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                              */
/* ------------------------------------------------------------------------------------------ */

/* snprintf into err when the caller gave a buffer; always NUL-terminated. */
static void set_err(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Growable byte buffer. After an allocation failure it stops growing and sets oom. */
typedef struct strbuf {
    char *data;
    size_t len;
    size_t cap;
    int oom;
} strbuf;

static int sb_reserve(strbuf *sb, size_t extra)
{
    if (sb->oom)
        return -1;
    if (extra > (size_t)-1 - sb->len - 1) {
        sb->oom = 1;
        return -1;
    }
    size_t need = sb->len + extra + 1; /* room for a terminating NUL */
    if (need <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap = cap > (size_t)-1 / 2 ? need : cap * 2;
    char *data = realloc(sb->data, cap);
    if (!data) {
        sb->oom = 1;
        return -1;
    }
    sb->data = data;
    sb->cap = cap;
    return 0;
}

static void sb_putn(strbuf *sb, const char *s, size_t n)
{
    if (sb_reserve(sb, n) != 0)
        return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

static void sb_puts(strbuf *sb, const char *s)
{
    sb_putn(sb, s, strlen(s));
}

static void sb_putc(strbuf *sb, char c)
{
    sb_putn(sb, &c, 1);
}

static void sb_spaces(strbuf *sb, size_t n)
{
    if (sb_reserve(sb, n) != 0)
        return;
    memset(sb->data + sb->len, ' ', n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

/* Returns the finished NUL-terminated string (caller frees), or NULL after an allocation
 * failure (the buffer is released). */
static char *sb_finish(strbuf *sb)
{
    if (!sb->oom && sb_reserve(sb, 0) == 0) {
        sb->data[sb->len] = '\0'; /* an empty buffer may not have been terminated yet */
        return sb->data;
    }
    free(sb->data);
    sb->data = NULL;
    return NULL;
}

/* Appends s as a JSON string literal, quotes included. Non-ASCII bytes pass through raw. */
static void sb_put_escaped(strbuf *sb, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    sb_putc(sb, '"');
    const char *run = s; /* start of the pending run of bytes that need no escaping */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *esc = NULL;
        char ubuf[7];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (c < 0x20) {
                memcpy(ubuf, "\\u00", 4);
                ubuf[4] = hex[c >> 4];
                ubuf[5] = hex[c & 0xF];
                ubuf[6] = '\0';
                esc = ubuf;
            }
            break;
        }
        if (esc) {
            sb_putn(sb, run, (size_t)(s - run));
            sb_puts(sb, esc);
            run = s + 1;
        }
    }
    sb_putn(sb, run, (size_t)(s - run));
    sb_putc(sb, '"');
}

/* ------------------------------------------------------------------------------------------ */
/* Values                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static json_value *new_value(json_type t)
{
    json_value *v = calloc(1, sizeof *v);
    if (v)
        v->type = t;
    return v;
}

json_value *json_new_null(void)
{
    return new_value(JSON_NULL);
}

json_value *json_new_bool(int b)
{
    json_value *v = new_value(JSON_BOOL);
    if (v)
        v->boolean = b ? 1 : 0;
    return v;
}

json_value *json_new_number(double x)
{
    json_value *v = new_value(JSON_NUMBER);
    if (v)
        v->number = x;
    return v;
}

json_value *json_new_string(const char *s)
{
    if (!s)
        return NULL;
    json_value *v = new_value(JSON_STRING);
    if (!v)
        return NULL;
    v->string = dup_string(s);
    if (!v->string) {
        free(v);
        return NULL;
    }
    return v;
}

json_value *json_new_array(void)
{
    return new_value(JSON_ARRAY);
}

json_value *json_new_object(void)
{
    return new_value(JSON_OBJECT);
}

void json_free(json_value *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->count; i++) {
        if (v->keys)
            free(v->keys[i]);
        if (v->items)
            json_free(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->string);
    free(v);
}

/* Makes room for one more item (and key, for objects). Returns 0 or -1 (nothing changed). */
static int container_grow(json_value *c)
{
    if (c->count < c->capacity)
        return 0;
    size_t cap = c->capacity ? c->capacity * 2 : 4;
    if (cap < c->capacity || cap > (size_t)-1 / sizeof(void *))
        return -1;
    json_value **items = realloc(c->items, cap * sizeof *items);
    if (!items)
        return -1;
    c->items = items;
    if (c->type == JSON_OBJECT) {
        char **keys = realloc(c->keys, cap * sizeof *keys);
        if (!keys)
            return -1; /* items is merely larger than capacity says; still consistent */
        c->keys = keys;
    }
    c->capacity = cap;
    return 0;
}

int json_array_push(json_value *arr, json_value *item)
{
    if (!arr || arr->type != JSON_ARRAY || !item || container_grow(arr) != 0) {
        json_free(item);
        return -1;
    }
    arr->items[arr->count++] = item;
    return 0;
}

/* Appends key (owned) and val (owned) to obj without looking for an existing key. */
static int object_append(json_value *obj, char *key, json_value *val)
{
    if (container_grow(obj) != 0) {
        free(key);
        json_free(val);
        return -1;
    }
    obj->keys[obj->count] = key;
    obj->items[obj->count] = val;
    obj->count++;
    return 0;
}

static size_t object_find(const json_value *obj, const char *key)
{
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return i;
    return (size_t)-1;
}

int json_object_set(json_value *obj, const char *key, json_value *val)
{
    if (!obj || obj->type != JSON_OBJECT || !key || !val) {
        json_free(val);
        return -1;
    }
    size_t i = object_find(obj, key);
    if (i != (size_t)-1) {
        if (obj->items[i] != val) {
            json_free(obj->items[i]);
            obj->items[i] = val;
        }
        return 0;
    }
    char *k = dup_string(key);
    if (!k) {
        json_free(val);
        return -1;
    }
    return object_append(obj, k, val);
}

int json_set_number(json_value *obj, const char *key, double x)
{
    json_value *v = json_new_number(x);
    return v ? json_object_set(obj, key, v) : -1;
}

int json_set_string(json_value *obj, const char *key, const char *s)
{
    json_value *v = s ? json_new_string(s) : json_new_null();
    return v ? json_object_set(obj, key, v) : -1;
}

int json_set_bool(json_value *obj, const char *key, int b)
{
    json_value *v = json_new_bool(b);
    return v ? json_object_set(obj, key, v) : -1;
}

json_value *json_clone(const json_value *v)
{
    if (!v)
        return NULL;
    json_value *c = NULL;
    switch (v->type) {
    case JSON_NULL: return json_new_null();
    case JSON_BOOL: return json_new_bool(v->boolean);
    case JSON_NUMBER: return json_new_number(v->number);
    case JSON_STRING: return json_new_string(v->string);
    case JSON_ARRAY:
        c = json_new_array();
        for (size_t i = 0; c && i < v->count; i++) {
            json_value *item = json_clone(v->items[i]);
            if (!item || json_array_push(c, item) != 0) {
                json_free(c);
                return NULL;
            }
        }
        return c;
    case JSON_OBJECT:
        c = json_new_object();
        for (size_t i = 0; c && i < v->count; i++) {
            /* the keys are unique already: append without a search, so cloning is linear */
            json_value *item = json_clone(v->items[i]);
            char *key = item ? dup_string(v->keys[i]) : NULL;
            if (!key) {
                json_free(item);
                json_free(c);
                return NULL;
            }
            if (object_append(c, key, item) != 0) {
                json_free(c);
                return NULL;
            }
        }
        return c;
    }
    return NULL;
}

json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT || !key)
        return NULL;
    size_t i = object_find(obj, key);
    return i == (size_t)-1 ? NULL : obj->items[i];
}

double json_number_at(const json_value *obj, const char *key)
{
    const json_value *x = json_get(obj, key);
    return x && x->type == JSON_NUMBER ? x->number : NAN;
}

const char *json_string_at(const json_value *obj, const char *key, const char *fallback)
{
    const json_value *x = json_get(obj, key);
    return x && x->type == JSON_STRING ? x->string : fallback;
}

int json_true_at(const json_value *obj, const char *key)
{
    const json_value *x = json_get(obj, key);
    return x && x->type == JSON_BOOL && x->boolean;
}

const char *json_type_name(json_type t)
{
    switch (t) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return "boolean";
    case JSON_NUMBER: return "number";
    case JSON_STRING: return "string";
    case JSON_ARRAY: return "array";
    case JSON_OBJECT: return "object";
    }
    return "unknown";
}

/* ------------------------------------------------------------------------------------------ */
/* Reader                                                                                     */
/* ------------------------------------------------------------------------------------------ */

typedef struct parser {
    const char *text;
    size_t len;
    size_t pos;
    size_t line; /* 1-based line of text[pos] */
    size_t col;  /* 1-based byte column of text[pos] */
    int depth;   /* containers currently open */
    int failed;
    char *err;
    size_t err_size;
} parser;

static void fail_at(parser *p, size_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records the first error as "line L, column C: message". */
static void fail_at(parser *p, size_t line, size_t col, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_err(p->err, p->err_size, "line %zu, column %zu: %s", line, col, msg);
}

#define fail_here(p, ...) fail_at((p), (p)->line, (p)->col, __VA_ARGS__)

static int at_end(const parser *p)
{
    return p->pos >= p->len;
}

static unsigned char peek(const parser *p)
{
    return (unsigned char)p->text[p->pos];
}

static void advance(parser *p)
{
    if (p->text[p->pos] == '\n') {
        p->line++;
        p->col = 1;
    } else {
        p->col++;
    }
    p->pos++;
}

static void skip_ws(parser *p)
{
    while (!at_end(p)) {
        unsigned char c = peek(p);
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
            break;
        advance(p);
    }
}

/* "expected X, found Y" for the character at the cursor (or the end of input). */
static void fail_expected(parser *p, const char *expected)
{
    if (at_end(p)) {
        fail_here(p, "expected %s, found end of input", expected);
        return;
    }
    unsigned char c = peek(p);
    unsigned char next = p->pos + 1 < p->len ? (unsigned char)p->text[p->pos + 1] : 0;
    if (c == '/' && (next == '/' || next == '*'))
        fail_here(p, "expected %s, found a comment (comments are not allowed)", expected);
    else if (c == '\'')
        fail_here(p, "expected %s, found a single quote (strings use double quotes)", expected);
    else if (c > 0x20 && c < 0x7F)
        fail_here(p, "expected %s, found '%c'", expected, c);
    else
        fail_here(p, "expected %s, found byte 0x%02X", expected, c);
}

static void fail_oom(parser *p)
{
    fail_here(p, "out of memory");
}

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads the 4 hex digits of a \u escape starting at text[at] ("\uXXXX"). Returns the code unit
 * or -1 when the escape is not "\u" followed by 4 hex digits. */
static long read_u_escape(const parser *p, size_t at)
{
    if (at + 6 > p->len || p->text[at] != '\\' || p->text[at + 1] != 'u')
        return -1;
    long cu = 0;
    for (size_t i = at + 2; i < at + 6; i++) {
        int h = hex_value((unsigned char)p->text[i]);
        if (h < 0)
            return -1;
        cu = cu * 16 + h;
    }
    return cu;
}

static void put_utf8(strbuf *sb, unsigned long cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    sb_putn(sb, b, n);
}

/* Length of the well-formed UTF-8 sequence starting at text[pos] (a byte >= 0x80), or 0 when
 * it is not well-formed (stray continuation, overlong, surrogate, > U+10FFFF, truncated). */
static size_t utf8_sequence_length(const parser *p)
{
    const unsigned char *s = (const unsigned char *)p->text + p->pos;
    size_t avail = p->len - p->pos;
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong below U+0800 */
        else if (c == 0xED)
            hi = 0x9F; /* U+D800..U+DFFF are surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong below U+10000 */
        else if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else {
        return 0; /* 0x80..0xC1 (continuation or overlong lead) or 0xF5..0xFF */
    }
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

/* Handles the escape at the cursor (a backslash) and appends its decoded bytes. Returns 0 or -1. */
static int parse_escape(parser *p, strbuf *sb)
{
    size_t line = p->line, col = p->col;
    if (p->pos + 1 >= p->len) {
        advance(p);
        fail_here(p, "unterminated string");
        return -1;
    }
    unsigned char e = (unsigned char)p->text[p->pos + 1];
    char simple = 0;
    switch (e) {
    case '"': simple = '"'; break;
    case '\\': simple = '\\'; break;
    case '/': simple = '/'; break;
    case 'b': simple = '\b'; break;
    case 'f': simple = '\f'; break;
    case 'n': simple = '\n'; break;
    case 'r': simple = '\r'; break;
    case 't': simple = '\t'; break;
    case 'u': break;
    default:
        if (e > 0x20 && e < 0x7F)
            fail_at(p, line, col, "invalid escape '\\%c'", e);
        else
            fail_at(p, line, col, "invalid escape: backslash followed by byte 0x%02X", e);
        return -1;
    }
    if (simple) {
        sb_putc(sb, simple);
        advance(p);
        advance(p);
        return 0;
    }

    long cu = read_u_escape(p, p->pos);
    if (cu < 0) {
        fail_at(p, line, col, "invalid \\u escape (expected 4 hex digits)");
        return -1;
    }
    unsigned long cp = (unsigned long)cu;
    size_t consumed = 6;
    if (cu == 0) {
        fail_at(p, line, col, "\\u0000 is not allowed (strings are NUL-terminated)");
        return -1;
    }
    if (cu >= 0xDC00 && cu <= 0xDFFF) {
        fail_at(p, line, col, "unpaired low surrogate \\u%04lX", (unsigned long)cu);
        return -1;
    }
    if (cu >= 0xD800 && cu <= 0xDBFF) {
        long low = read_u_escape(p, p->pos + 6);
        if (low < 0xDC00 || low > 0xDFFF) {
            fail_at(p, line, col, "unpaired high surrogate \\u%04lX", (unsigned long)cu);
            return -1;
        }
        cp = 0x10000 + (((unsigned long)cu - 0xD800) << 10) + ((unsigned long)low - 0xDC00);
        consumed = 12;
    }
    put_utf8(sb, cp);
    for (size_t i = 0; i < consumed; i++)
        advance(p);
    return 0;
}

/* Parses the string literal at the cursor (a '"'). Returns its decoded malloc'd text, or NULL. */
static char *parse_string_raw(parser *p)
{
    strbuf sb = {0};
    advance(p); /* opening quote */
    for (;;) {
        if (at_end(p)) {
            fail_here(p, "unterminated string");
            goto fail;
        }
        unsigned char c = peek(p);
        if (c == '"') {
            advance(p);
            break;
        }
        if (c == '\\') {
            if (parse_escape(p, &sb) != 0)
                goto fail;
        } else if (c < 0x20) {
            fail_here(p, "control character 0x%02X in string (must be escaped)", c);
            goto fail;
        } else if (c < 0x80) {
            /* Copy the run of plain ASCII at once. */
            size_t start = p->pos;
            while (!at_end(p) && peek(p) >= 0x20 && peek(p) < 0x80 && peek(p) != '"' &&
                   peek(p) != '\\')
                advance(p);
            sb_putn(&sb, p->text + start, p->pos - start);
        } else {
            size_t n = utf8_sequence_length(p);
            if (n == 0) {
                fail_here(p, "invalid UTF-8 byte sequence in string");
                goto fail;
            }
            sb_putn(&sb, p->text + p->pos, n);
            for (size_t i = 0; i < n; i++)
                advance(p);
        }
        if (sb.oom) {
            fail_oom(p);
            goto fail;
        }
    }
    char *s = sb_finish(&sb);
    if (!s)
        fail_oom(p);
    return s;
fail:
    free(sb.data);
    return NULL;
}

static void skip_digits(parser *p)
{
    while (!at_end(p) && peek(p) >= '0' && peek(p) <= '9')
        advance(p);
}

static int at_digit(const parser *p)
{
    return !at_end(p) && peek(p) >= '0' && peek(p) <= '9';
}

/* number = [ "-" ] ( "0" / [1-9] *DIGIT ) [ "." 1*DIGIT ] [ ( "e" / "E" ) [ "+" / "-" ] 1*DIGIT ]
 */
static json_value *parse_number(parser *p)
{
    size_t start = p->pos, line = p->line, col = p->col;
    if (peek(p) == '-')
        advance(p);
    if (!at_digit(p)) {
        fail_expected(p, "a digit after '-'");
        return NULL;
    }
    if (peek(p) == '0') {
        advance(p);
        if (at_digit(p)) {
            fail_at(p, p->line, p->col - 1, "leading zeros are not allowed in numbers");
            return NULL;
        }
    } else {
        skip_digits(p);
    }
    if (!at_end(p) && peek(p) == '.') {
        advance(p);
        if (!at_digit(p)) {
            fail_expected(p, "a digit after the decimal point");
            return NULL;
        }
        skip_digits(p);
    }
    if (!at_end(p) && (peek(p) == 'e' || peek(p) == 'E')) {
        advance(p);
        if (!at_end(p) && (peek(p) == '+' || peek(p) == '-'))
            advance(p);
        if (!at_digit(p)) {
            fail_expected(p, "a digit in the exponent");
            return NULL;
        }
        skip_digits(p);
    }

    /* strtod needs a NUL-terminated copy: the text need not be terminated after the token. */
    size_t n = p->pos - start;
    char small[64];
    char *tok = n < sizeof small ? small : malloc(n + 1);
    if (!tok) {
        fail_oom(p);
        return NULL;
    }
    memcpy(tok, p->text + start, n);
    tok[n] = '\0';
    errno = 0;
    double x = strtod(tok, NULL);
    int range_error = isinf(x); /* ERANGE with a finite result is underflow: accepted */
    if (tok != small)
        free(tok);
    if (range_error) {
        fail_at(p, line, col, "number out of range");
        return NULL;
    }
    json_value *v = json_new_number(x);
    if (!v)
        fail_oom(p);
    return v;
}

static json_value *parse_literal(parser *p, const char *word, json_value *(*make)(void))
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) {
        fail_here(p, "invalid literal (expected '%s')", word);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        advance(p);
    json_value *v = make();
    if (!v)
        fail_oom(p);
    return v;
}

static json_value *make_true(void)
{
    return json_new_bool(1);
}

static json_value *make_false(void)
{
    return json_new_bool(0);
}

static json_value *parse_value(parser *p);

/* Called with the cursor on '[' or '{': refuses nesting beyond JSON_MAX_DEPTH. */
static int enter_container(parser *p)
{
    if (p->depth >= JSON_MAX_DEPTH) {
        fail_here(p, "nesting deeper than %d levels", JSON_MAX_DEPTH);
        return -1;
    }
    p->depth++;
    advance(p);
    return 0;
}

static json_value *parse_array(parser *p)
{
    if (enter_container(p) != 0)
        return NULL;
    json_value *arr = json_new_array();
    if (!arr) {
        fail_oom(p);
        return NULL;
    }
    skip_ws(p);
    if (!at_end(p) && peek(p) == ']') {
        advance(p);
        p->depth--;
        return arr;
    }
    for (;;) {
        json_value *item = parse_value(p);
        if (!item)
            goto fail;
        if (json_array_push(arr, item) != 0) {
            fail_oom(p);
            goto fail;
        }
        skip_ws(p);
        if (!at_end(p) && peek(p) == ']') {
            advance(p);
            break;
        }
        if (at_end(p) || peek(p) != ',') {
            fail_expected(p, "',' or ']'");
            goto fail;
        }
        size_t comma_line = p->line, comma_col = p->col;
        advance(p);
        skip_ws(p);
        if (!at_end(p) && peek(p) == ']') {
            fail_at(p, comma_line, comma_col, "trailing comma before ']'");
            goto fail;
        }
    }
    p->depth--;
    return arr;
fail:
    json_free(arr);
    return NULL;
}

/* The keys an object being parsed has so far, for duplicate detection in constant expected
 * time per key (a linear search made 100,000 keys take 16 s): open addressing over indices into
 * obj->keys, grown to keep the load under one half. */
typedef struct key_set {
    size_t *slots; /* index + 1; 0: empty */
    size_t cap;    /* a power of two */
} key_set;

static size_t key_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Adds obj->keys[index] unless an equal key is there: 0 added, 1 duplicate, -1 out of memory. */
static int key_set_add(key_set *ks, const json_value *obj, size_t index)
{
    if (2 * (index + 1) > ks->cap) {
        size_t cap = ks->cap ? 2 * ks->cap : 16;
        size_t *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < ks->cap; i++)
            if (ks->slots[i]) {
                size_t j = key_hash(obj->keys[ks->slots[i] - 1]) & (cap - 1);
                while (slots[j])
                    j = (j + 1) & (cap - 1);
                slots[j] = ks->slots[i];
            }
        free(ks->slots);
        ks->slots = slots;
        ks->cap = cap;
    }
    const char *key = obj->keys[index];
    size_t j = key_hash(key) & (ks->cap - 1);
    for (; ks->slots[j]; j = (j + 1) & (ks->cap - 1))
        if (strcmp(obj->keys[ks->slots[j] - 1], key) == 0)
            return 1;
    ks->slots[j] = index + 1;
    return 0;
}

static json_value *parse_object(parser *p)
{
    if (enter_container(p) != 0)
        return NULL;
    json_value *obj = json_new_object();
    key_set seen = {NULL, 0};
    if (!obj) {
        fail_oom(p);
        return NULL;
    }
    skip_ws(p);
    if (!at_end(p) && peek(p) == '}') {
        advance(p);
        p->depth--;
        return obj;
    }
    for (;;) {
        if (at_end(p) || peek(p) != '"') {
            fail_expected(p, "a string key");
            goto fail;
        }
        size_t key_line = p->line, key_col = p->col;
        char *key = parse_string_raw(p);
        if (!key)
            goto fail;
        /* appended first (with a null placeholder), so the set can point at it */
        json_value *placeholder = json_new_null();
        if (!placeholder || object_append(obj, key, placeholder) != 0) {
            if (!placeholder)
                free(key);
            fail_oom(p);
            goto fail;
        }
        int dup = key_set_add(&seen, obj, obj->count - 1);
        if (dup < 0) {
            fail_oom(p);
            goto fail;
        }
        if (dup) {
            strbuf shown = {0};
            sb_put_escaped(&shown, key);
            char *q = sb_finish(&shown);
            fail_at(p, key_line, key_col, "duplicate key %.200s", q ? q : "(out of memory)");
            free(q);
            goto fail;
        }
        skip_ws(p);
        if (at_end(p) || peek(p) != ':') {
            fail_expected(p, "':' after the object key");
            goto fail;
        }
        advance(p);
        json_value *val = parse_value(p);
        if (!val)
            goto fail;
        json_free(obj->items[obj->count - 1]);
        obj->items[obj->count - 1] = val;
        skip_ws(p);
        if (!at_end(p) && peek(p) == '}') {
            advance(p);
            break;
        }
        if (at_end(p) || peek(p) != ',') {
            fail_expected(p, "',' or '}'");
            goto fail;
        }
        size_t comma_line = p->line, comma_col = p->col;
        advance(p);
        skip_ws(p);
        if (!at_end(p) && peek(p) == '}') {
            fail_at(p, comma_line, comma_col, "trailing comma before '}'");
            goto fail;
        }
    }
    p->depth--;
    free(seen.slots);
    return obj;
fail:
    free(seen.slots);
    json_free(obj);
    return NULL;
}

static json_value *parse_value(parser *p)
{
    skip_ws(p);
    if (at_end(p)) {
        fail_expected(p, "a value");
        return NULL;
    }
    unsigned char c = peek(p);
    switch (c) {
    case '{': return parse_object(p);
    case '[': return parse_array(p);
    case 't': return parse_literal(p, "true", make_true);
    case 'f': return parse_literal(p, "false", make_false);
    case 'n': return parse_literal(p, "null", json_new_null);
    case '"': {
        char *s = parse_string_raw(p);
        if (!s)
            return NULL;
        json_value *v = new_value(JSON_STRING);
        if (!v) {
            free(s);
            fail_oom(p);
            return NULL;
        }
        v->string = s;
        return v;
    }
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return parse_number(p);
        fail_expected(p, "a value");
        return NULL;
    }
}

json_value *json_parse(const char *text, size_t len, char *err, size_t err_size)
{
    parser p = {
        .text = text ? text : "",
        .len = text ? len : 0,
        .line = 1,
        .col = 1,
        .err = err,
        .err_size = err_size,
    };
    set_err(err, err_size, "%s", "");
    /* RFC 8259 forbids a byte-order mark; say what it is rather than "expected a value". */
    if (p.len >= 3 && !memcmp(p.text, "\xEF\xBB\xBF", 3)) {
        fail_here(&p, "a UTF-8 byte-order mark (EF BB BF) starts the text: JSON must not have "
                      "one; save the file as UTF-8 without BOM");
        return NULL;
    }
    skip_ws(&p);
    if (at_end(&p)) {
        fail_here(&p, "empty input");
        return NULL;
    }
    json_value *v = parse_value(&p);
    if (!v)
        return NULL;
    skip_ws(&p);
    if (!at_end(&p)) {
        fail_here(&p, "trailing characters after the JSON value");
        json_free(v);
        return NULL;
    }
    return v;
}

json_value *json_parse_file(const char *path, char *err, size_t err_size)
{
    set_err(err, err_size, "%s", "");
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(err, err_size, "%s: %s", path, strerror(errno));
        return NULL;
    }
    strbuf sb = {0};
    char chunk[65536];
    size_t n;
    int too_big = 0;
    /* Read with a cap, not by the size stat gives: /dev/zero or a pipe has none. */
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (sb.len + n > JSON_MAX_FILE_BYTES) {
            too_big = 1;
            break;
        }
        sb_putn(&sb, chunk, n);
        if (sb.oom)
            break;
    }
    int read_errno = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (too_big) {
        set_err(err, err_size, "%s: larger than %d MiB, the most a JSON file read here may be",
                path, JSON_MAX_FILE_BYTES >> 20);
        free(sb.data);
        return NULL;
    }
    if (read_errno || sb.oom) {
        set_err(err, err_size, "%s: %s", path, sb.oom ? "out of memory" : strerror(read_errno));
        free(sb.data);
        return NULL;
    }
    char msg[512];
    json_value *v = json_parse(sb.data, sb.len, msg, sizeof msg);
    free(sb.data);
    if (!v)
        set_err(err, err_size, "%s: %s", path, msg);
    return v;
}

/* ------------------------------------------------------------------------------------------ */
/* Writer                                                                                     */
/* ------------------------------------------------------------------------------------------ */

void json_format_number(double x, char *buf, size_t buf_size)
{
    if (!buf || buf_size == 0)
        return;
    if (isnan(x) || isinf(x)) {
        snprintf(buf, buf_size, "null");
        return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, buf_size, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            return;
    }
    /* Unreachable for IEEE doubles: %.17g always reads back exactly (buf is already set). */
}

static void write_value(strbuf *sb, const json_value *v, int indent, size_t level);

/* Line break plus indentation for the given level (pretty mode only). */
static void write_newline(strbuf *sb, int indent, size_t level)
{
    if (indent <= 0)
        return;
    sb_putc(sb, '\n');
    sb_spaces(sb, (size_t)indent * level);
}

static void write_container(strbuf *sb, const json_value *v, int indent, size_t level)
{
    int is_object = v->type == JSON_OBJECT;
    sb_putc(sb, is_object ? '{' : '[');
    for (size_t i = 0; i < v->count; i++) {
        if (i > 0)
            sb_putc(sb, ',');
        write_newline(sb, indent, level + 1);
        if (is_object) {
            sb_put_escaped(sb, v->keys[i]);
            sb_puts(sb, indent > 0 ? ": " : ":");
        }
        write_value(sb, v->items[i], indent, level + 1);
    }
    if (v->count > 0)
        write_newline(sb, indent, level);
    sb_putc(sb, is_object ? '}' : ']');
}

static void write_value(strbuf *sb, const json_value *v, int indent, size_t level)
{
    if (sb->oom)
        return;
    if (!v) {
        sb_puts(sb, "null");
        return;
    }
    switch (v->type) {
    case JSON_NULL: sb_puts(sb, "null"); break;
    case JSON_BOOL: sb_puts(sb, v->boolean ? "true" : "false"); break;
    case JSON_NUMBER: {
        char num[40];
        json_format_number(v->number, num, sizeof num);
        sb_puts(sb, num);
        break;
    }
    case JSON_STRING: sb_put_escaped(sb, v->string ? v->string : ""); break;
    case JSON_ARRAY:
    case JSON_OBJECT: write_container(sb, v, indent, level); break;
    }
}

char *json_write(const json_value *v, int indent)
{
    strbuf sb = {0};
    if (indent < 0)
        indent = 0;
    write_value(&sb, v, indent, 0);
    if (indent > 0)
        sb_putc(&sb, '\n');
    return sb_finish(&sb);
}

/* fsync the folder holding path, so that the rename itself is durable. Best effort. */
static void sync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash)
        dir = dup_string(".");
    else if (slash == path)
        dir = dup_string("/");
    else {
        size_t n = (size_t)(slash - path);
        dir = malloc(n + 1);
        if (dir) {
            memcpy(dir, path, n);
            dir[n] = '\0';
        }
    }
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY);
    free(dir);
    if (fd < 0)
        return;
    (void)fsync(fd);
    close(fd);
}

int json_write_file(const char *path, const json_value *v, char *err, size_t err_size)
{
    set_err(err, err_size, "%s", "");
    char *text = json_write(v, 2);
    if (!text) {
        set_err(err, err_size, "%s: out of memory", path);
        return -1;
    }
    size_t tmp_size = strlen(path) + 32;
    char *tmp = malloc(tmp_size);
    if (!tmp) {
        free(text);
        set_err(err, err_size, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, tmp_size, "%s.tmp.%ld", path, (long)getpid());

    const char *step = NULL; /* what failed, for the message */
    int saved_errno = 0;
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        saved_errno = errno;
        set_err(err, err_size, "%s: %s", path, strerror(saved_errno));
        free(tmp);
        free(text);
        return -1;
    }
    size_t len = strlen(text);
    if (fwrite(text, 1, len, f) != len)
        step = "write";
    else if (fflush(f) != 0)
        step = "flush";
    else if (fsync(fileno(f)) != 0)
        step = "fsync";
    if (step)
        saved_errno = errno;
    if (fclose(f) != 0 && !step) {
        step = "close";
        saved_errno = errno;
    }
    if (!step && rename(tmp, path) != 0) {
        step = "rename";
        saved_errno = errno;
    }
    free(text);
    if (step) {
        unlink(tmp);
        free(tmp);
        set_err(err, err_size, "%s: %s failed: %s", path, step,
                strerror(saved_errno ? saved_errno : EIO));
        return -1;
    }
    free(tmp);
    sync_parent_dir(path);
    return 0;
}
