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
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "outputs.h"
#include "util.h"

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

/* Appends s as a JSON string literal, quotes included. Well-formed UTF-8 passes through raw; a
 * byte that is not part of a well-formed character becomes U+FFFD, so the text is always JSON
 * (a file name or an argument in another encoding cannot make a file its reader refuses). */
static void sb_put_escaped(strbuf *sb, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    sb_putc(sb, '"');
    const char *run = s; /* start of the pending run of bytes that need no escaping */
    while (*s) {
        unsigned char c = (unsigned char)*s;
        const char *esc = NULL;
        char ubuf[7];
        size_t n = 1;
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
            } else if (c >= 0x80 && (n = rb_utf8_seq(s, strnlen(s, 4))) == 0) {
                esc = "\xEF\xBF\xBD"; /* U+FFFD */
                n = 1;
            }
            break;
        }
        if (esc) {
            sb_putn(sb, run, (size_t)(s - run));
            sb_puts(sb, esc);
            run = s + n;
        }
        s += n;
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

/* ---- memory: a parsed document lives in an arena ----
 *
 * json_parse puts every node, string, key and array of the document in a few large blocks owned
 * by the root (a json_doc), exactly sized, the leaves and key lists that records repeat shared
 * (parser.leaves, parser.shapes), so a document takes less than twice its text (one malloc per
 * value made a 63 MiB file take 2.5 GB). Flags say what of a node is in the arena:
 * json_free frees only what is not, and the blocks with the root. A parsed container that is
 * changed later moves its arrays (and keys) to malloc'd memory first. */
enum {
    JSON_F_DOC = 1,          /* the root of a parsed document: a json_doc, owns the arena */
    JSON_F_ARENA_NODE = 2,   /* the node itself is in the arena */
    JSON_F_ARENA_STR = 4,    /* string is in the arena */
    JSON_F_ARENA_ARRAYS = 8, /* keys (and the key strings) and items are in the arena */
    JSON_F_INDEXED = 16,     /* an object whose keys array is followed by its hash index */
};

typedef struct json_doc {
    json_value root; /* first: a json_doc is its root */
    rb_arena arena;
} json_doc;

#define ARENA_BLOCK_BYTES ((size_t)1 << 20)

/* n bytes for nodes and arrays, 8-aligned, from the parser's arena (strings take 1-aligned
 * bytes); NULL when out of memory. */
static void *arena_alloc(rb_arena *arena, size_t n)
{
    return rb_arena_alloc(arena, n, 8);
}

void json_free(json_value *v)
{
    if (!v)
        return;
    int arena_arrays = (v->flags & JSON_F_ARENA_ARRAYS) != 0;
    for (size_t i = 0; i < v->count; i++) {
        if (v->keys && !arena_arrays)
            free(v->keys[i]);
        if (v->items)
            json_free(v->items[i]);
    }
    if (!arena_arrays) {
        free(v->keys);
        free(v->items);
    }
    if (v->type == JSON_STRING && !(v->flags & JSON_F_ARENA_STR))
        free(v->string);
    if (v->flags & JSON_F_DOC) {
        rb_arena_free(&((json_doc *)v)->arena);
        free(v);
    } else if (!(v->flags & JSON_F_ARENA_NODE)) {
        free(v);
    }
}

/* ---- containers: capacity and the index of keys ----
 * A container's arrays hold exactly count entries in the arena; malloc'd ones (built, or a
 * parsed one changed) cap_of(count): a power of two, at least 4, so the capacity needs no
 * field of its own. An object of JSON_INDEX_MIN keys or more keeps an open-addressing index
 * after its keys array: index_cap(capacity) slots of (position + 1), 0 empty, so json_get finds
 * a key in constant expected time. */
#define JSON_INDEX_MIN 8

static size_t cap_of(size_t count)
{
    size_t c = 4;
    if (count == 0)
        return 0;
    while (c < count)
        c *= 2;
    return c;
}

static size_t capacity_of(const json_value *c)
{
    return c->flags & JSON_F_ARENA_ARRAYS ? c->count : cap_of(c->count);
}

static size_t key_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static size_t index_cap(size_t capacity)
{
    size_t c = 16;
    while (c < 2 * capacity)
        c *= 2;
    return c;
}

static uint32_t *index_slots(const json_value *o)
{
    return (uint32_t *)(void *)(o->keys + capacity_of(o));
}

static void index_insert(json_value *o, size_t i)
{
    uint32_t *slots = index_slots(o);
    size_t mask = index_cap(capacity_of(o)) - 1, j = key_hash(o->keys[i]) & mask;
    while (slots[j])
        j = (j + 1) & mask;
    slots[j] = (uint32_t)(i + 1);
}

static void index_build(json_value *o)
{
    memset(index_slots(o), 0, index_cap(capacity_of(o)) * sizeof(uint32_t));
    for (size_t i = 0; i < o->count; i++)
        index_insert(o, i);
    o->flags |= JSON_F_INDEXED;
}

/* Bytes of an object's keys array with capacity cap (and its index, when it has one). */
static size_t keys_bytes(size_t cap)
{
    return cap * sizeof(char *) + (cap >= JSON_INDEX_MIN ? index_cap(cap) * sizeof(uint32_t) : 0);
}

static size_t object_find(const json_value *obj, const char *key)
{
    if (obj->flags & JSON_F_INDEXED) {
        const uint32_t *slots = index_slots(obj);
        size_t mask = index_cap(capacity_of(obj)) - 1;
        for (size_t j = key_hash(key) & mask; slots[j]; j = (j + 1) & mask)
            if (strcmp(obj->keys[slots[j] - 1], key) == 0)
                return slots[j] - 1;
        return (size_t)-1;
    }
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return i;
    return (size_t)-1;
}

/* The keys of an arena object copied to malloc'd strings in a malloc'd array of cap slots. */
static char **keys_out_of_arena(const json_value *c, size_t cap)
{
    char **keys = malloc(keys_bytes(cap));
    for (size_t i = 0; keys && i < c->count; i++)
        if (!(keys[i] = dup_string(c->keys[i]))) {
            while (i-- > 0)
                free(keys[i]);
            free(keys);
            return NULL;
        }
    return keys;
}

/* Makes room for one more item (and key, for objects): the arrays become malloc'd ones of
 * cap_of(count + 1) when they are full or in the arena; the index is dropped (the caller builds
 * it again once the entry is in). 0, or -1 with nothing changed. */
static int container_grow(json_value *c)
{
    int arena = (c->flags & JSON_F_ARENA_ARRAYS) != 0;
    size_t cap = cap_of((size_t)c->count + 1);
    if (!arena && c->count > 0 && cap == cap_of(c->count))
        return 0;
    if (c->count >= UINT32_MAX || cap > (size_t)-1 / (2 * sizeof(void *)))
        return -1;
    json_value **items;
    char **keys = NULL;
    if (arena) {
        if (!(items = malloc(cap * sizeof *items)))
            return -1;
        if (c->count)
            memcpy(items, c->items, c->count * sizeof *items);
        if (c->type == JSON_OBJECT && !(keys = keys_out_of_arena(c, cap))) {
            free(items);
            return -1;
        }
    } else {
        if (!(items = realloc(c->items, cap * sizeof *items)))
            return -1;
        c->items = items; /* larger than needed: still consistent */
        if (c->type == JSON_OBJECT && !(keys = realloc(c->keys, keys_bytes(cap))))
            return -1;
    }
    c->items = items;
    if (keys)
        c->keys = keys;
    c->flags &= (unsigned char)~(JSON_F_ARENA_ARRAYS | JSON_F_INDEXED);
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
    if (obj->flags & JSON_F_INDEXED)
        index_insert(obj, obj->count - 1);
    else if (obj->count >= JSON_INDEX_MIN)
        index_build(obj);
    return 0;
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

/* A member of a container being parsed (key NULL in an array). */
typedef struct pending {
    char *key;
    json_value *item;
} pending;

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
    rb_arena arena;     /* every node and string of the document */
    strbuf scratch;     /* a string being decoded */
    /* the keys and items of the containers being parsed, innermost last: a container's
     * arrays are copied to the arena, exactly sized, when it closes */
    pending *stack;
    size_t stack_len, stack_cap;
    char **intern; /* short keys seen, each once in the arena (JSON_INTERN_SLOTS) */
    size_t n_interned;
    /* Records repeat their leaves ("valid": true, "size": 1024, "roof": "dram_gbps") and their
     * shapes (the same keys in the same order): a leaf or an object's keys array met lately is
     * shared, not made again (json.h). Direct-mapped caches of JSON_SHARE_SLOTS: a value not
     * met lately costs one slot. NULL for a short text. */
    json_value **leaves; /* numbers and short strings */
    json_value *literals[3]; /* null, false, true */
    struct shape *shapes;
} parser;

#define JSON_INTERN_SLOTS 4096
#define JSON_INTERN_LEN 32
#define JSON_SHARE_SLOTS 4096
/* an object of more keys than this is rarely repeated: its keys are its own */
#define JSON_SHAPE_MAX_KEYS 64

typedef struct shape {
    char **keys; /* in the arena, with the index after them (keys_bytes) */
    size_t n;
} shape;

static size_t hash_bytes(const void *s, size_t n)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)s)[i]) * 1099511628211u;
    return h;
}

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
    return rb_utf8_seq(p->text + p->pos, p->len - p->pos);
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

/* The copy in the arena of the short text s (len bytes) the document has had before, or NULL.
 * Keys repeat in every record ("name", "median_ms"): each is kept once. */
static char *interned(const parser *p, const char *s, size_t len, size_t *slot)
{
    size_t j = hash_bytes(s, len) & (JSON_INTERN_SLOTS - 1);
    for (; p->intern[j]; j = (j + 1) & (JSON_INTERN_SLOTS - 1))
        if (!strncmp(p->intern[j], s, len) && p->intern[j][len] == '\0')
            return p->intern[j];
    *slot = j;
    return NULL;
}

/* Decodes the string literal at the cursor (a '"') into p->scratch (NUL-terminated). 0, or -1
 * (recorded). */
static int decode_string(parser *p)
{
    strbuf sb = p->scratch;
    sb.len = 0;
    sb.oom = 0;
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
    if (sb_reserve(&sb, 0) == 0) /* (an empty string leaves the last one's bytes) */
        sb.data[sb.len] = '\0';
    p->scratch = sb;
    if (sb.oom) {
        fail_oom(p);
        return -1;
    }
    return 0;
fail:
    p->scratch = sb;
    return -1;
}

/* Parses the string literal at the cursor (a '"'). Returns its decoded text in the arena (a
 * short key: the one copy of it, intern), or NULL. */
static char *parse_string_raw(parser *p, int intern)
{
    if (decode_string(p) != 0)
        return NULL;
    strbuf sb = p->scratch;
    size_t slot = (size_t)-1;
    intern = intern && p->intern && sb.len <= JSON_INTERN_LEN &&
             p->n_interned < JSON_INTERN_SLOTS / 2;
    char *s = intern ? interned(p, sb.data, sb.len, &slot) : NULL;
    if (s)
        return s;
    s = rb_arena_alloc(&p->arena, sb.len + 1, 1);
    if (!s) {
        fail_oom(p);
        return NULL;
    }
    memcpy(s, sb.data, sb.len + 1);
    if (intern) {
        p->intern[slot] = s;
        p->n_interned++;
    }
    return s;
}

/* A node of type t in the arena (NULL, failure recorded, when out of memory). */
static json_value *arena_node(parser *p, json_type t)
{
    json_value *v = arena_alloc(&p->arena, sizeof *v);
    if (!v) {
        fail_oom(p);
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = t;
    v->flags = JSON_F_ARENA_NODE;
    return v;
}

/* The leaf met lately in the cache slot of (type, bytes), or NULL; *slot: that slot. */
static json_value *leaf_seen(const parser *p, json_type t, const void *bytes, size_t n,
                             size_t *slot)
{
    *slot = (hash_bytes(bytes, n) ^ t) & (JSON_SHARE_SLOTS - 1);
    json_value *v = p->leaves ? p->leaves[*slot] : NULL;
    if (!v || v->type != t)
        return NULL;
    if (t == JSON_NUMBER)
        return !memcmp(&v->number, bytes, n) ? v : NULL; /* (bits: -0 is not 0) */
    return !strcmp(v->string, bytes) ? v : NULL;
}

static json_value *number_node(parser *p, double x)
{
    size_t slot;
    json_value *v = leaf_seen(p, JSON_NUMBER, &x, sizeof x, &slot);
    if (v)
        return v;
    if ((v = arena_node(p, JSON_NUMBER)) == NULL)
        return NULL;
    v->number = x;
    if (p->leaves)
        p->leaves[slot] = v;
    return v;
}

/* A string value at the cursor: a short one met lately is that node. */
static json_value *parse_string_value(parser *p)
{
    size_t slot = 0;
    if (decode_string(p) != 0)
        return NULL;
    int share = p->leaves && p->scratch.len <= JSON_INTERN_LEN;
    json_value *v =
        share ? leaf_seen(p, JSON_STRING, p->scratch.data, p->scratch.len, &slot) : NULL;
    if (v)
        return v;
    char *s = rb_arena_alloc(&p->arena, p->scratch.len + 1, 1);
    if (!s || (v = arena_node(p, JSON_STRING)) == NULL) {
        if (!s)
            fail_oom(p);
        return NULL;
    }
    memcpy(s, p->scratch.data, p->scratch.len + 1);
    v->string = s;
    v->flags |= JSON_F_ARENA_STR;
    if (share)
        p->leaves[slot] = v;
    return v;
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
    return number_node(p, x);
}

static json_value *parse_literal(parser *p, const char *word, json_type t, int truth)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) {
        fail_here(p, "invalid literal (expected '%s')", word);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        advance(p);
    json_value **shared = &p->literals[t == JSON_NULL ? 0 : 1 + truth];
    if (!*shared && (*shared = arena_node(p, t)) != NULL)
        (*shared)->boolean = (unsigned char)truth;
    return *shared;
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

/* Pushes one key (NULL in an array) and item onto the pending stack. 0, or -1 (recorded). */
static int push_pending(parser *p, char *key, json_value *item)
{
    if (p->stack_len == p->stack_cap) {
        size_t cap = p->stack_cap ? 2 * p->stack_cap : 64;
        pending *st = realloc(p->stack, cap * sizeof *st);
        if (!st) {
            fail_oom(p);
            return -1;
        }
        p->stack = st;
        p->stack_cap = cap;
    }
    p->stack[p->stack_len].key = key;
    p->stack[p->stack_len++].item = item;
    return 0;
}

static size_t shape_slot(const parser *p, size_t base, size_t n)
{
    size_t h = hash_bytes(&n, sizeof n);
    for (size_t i = 0; i < n; i++) /* (short keys are interned: one pointer per text) */
        h = (h ^ (size_t)(uintptr_t)p->stack[base + i].key) * 1099511628211u;
    return h & (JSON_SHARE_SLOTS - 1);
}

/* The keys array of an object met lately with the keys of the stack's n entries from base on,
 * in that order, or NULL. */
static char **shape_seen(const parser *p, size_t base, size_t n)
{
    if (!p->shapes || n > JSON_SHAPE_MAX_KEYS)
        return NULL;
    const shape *s = &p->shapes[shape_slot(p, base, n)];
    if (s->n != n || !s->keys)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (s->keys[i] != p->stack[base + i].key)
            return NULL;
    return s->keys;
}

/* Remembers keys, the keys array just made of the stack's n entries from base on. */
static void shape_keep(parser *p, size_t base, char **keys, size_t n)
{
    if (!p->shapes || n > JSON_SHAPE_MAX_KEYS)
        return;
    shape *s = &p->shapes[shape_slot(p, base, n)];
    s->keys = keys;
    s->n = n;
}

/* Closes the container c whose members are the stack's entries from base on: its arrays,
 * exactly sized, in the arena (an object's index after its keys). 0, or -1 (recorded). */
static int close_container(parser *p, json_value *c, size_t base)
{
    size_t n = p->stack_len - base;
    c->flags |= JSON_F_ARENA_ARRAYS;
    if (n == 0)
        return 0;
    if (n > UINT32_MAX) {
        fail_here(p, "more than %u members in one container", (unsigned)UINT32_MAX);
        return -1;
    }
    c->items = arena_alloc(&p->arena, n * sizeof *c->items);
    int shared = c->type == JSON_OBJECT && (c->keys = shape_seen(p, base, n)) != NULL;
    if (c->type == JSON_OBJECT && !shared)
        c->keys = arena_alloc(&p->arena, keys_bytes(n));
    if (!c->items || (c->type == JSON_OBJECT && !c->keys)) {
        fail_oom(p);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        c->items[i] = p->stack[base + i].item;
        if (c->keys && !shared)
            c->keys[i] = p->stack[base + i].key;
    }
    c->count = (uint32_t)n;
    if (c->type == JSON_OBJECT && !shared)
        shape_keep(p, base, c->keys, n);
    p->stack_len = base;
    if (c->type == JSON_OBJECT && n >= JSON_INDEX_MIN) {
        if (shared)
            c->flags |= JSON_F_INDEXED; /* (its index came with its keys) */
        else
            index_build(c);
    }
    return 0;
}

static json_value *parse_array(parser *p)
{
    if (enter_container(p) != 0)
        return NULL;
    json_value *arr = arena_node(p, JSON_ARRAY);
    size_t base = p->stack_len;
    if (!arr)
        return NULL;
    skip_ws(p);
    if (!at_end(p) && peek(p) == ']') {
        advance(p);
        p->depth--;
        return close_container(p, arr, base) == 0 ? arr : NULL;
    }
    for (;;) {
        json_value *item = parse_value(p);
        if (!item || push_pending(p, NULL, item) != 0)
            return NULL;
        skip_ws(p);
        if (!at_end(p) && peek(p) == ']') {
            advance(p);
            break;
        }
        if (at_end(p) || peek(p) != ',') {
            fail_expected(p, "',' or ']'");
            return NULL;
        }
        size_t comma_line = p->line, comma_col = p->col;
        advance(p);
        skip_ws(p);
        if (!at_end(p) && peek(p) == ']') {
            fail_at(p, comma_line, comma_col, "trailing comma before ']'");
            return NULL;
        }
    }
    p->depth--;
    return close_container(p, arr, base) == 0 ? arr : NULL;
}

/* The keys an object being parsed has so far, for duplicate detection in constant expected
 * time per key (a linear search made 100,000 keys take 16 s): open addressing over positions in
 * the pending stack (from base), grown to keep the load under one half. Objects of fewer than
 * JSON_INDEX_MIN keys are searched linearly and need none. */
typedef struct key_set {
    size_t *slots; /* position - base + 1; 0: empty */
    size_t cap;    /* a power of two */
} key_set;

static void key_set_put(size_t *slots, size_t cap, const char *key, size_t value)
{
    size_t j = key_hash(key) & (cap - 1);
    while (slots[j])
        j = (j + 1) & (cap - 1);
    slots[j] = value;
}

/* Is the key at stack position at (the last one pushed, from base on) a duplicate? 0 no, 1 yes,
 * -1 out of memory. */
static int key_seen(parser *p, key_set *ks, size_t base, size_t at)
{
    const char *key = p->stack[at].key;
    size_t n = at - base;
    if (n < JSON_INDEX_MIN) {
        for (size_t i = base; i < at; i++)
            if (strcmp(p->stack[i].key, key) == 0)
                return 1;
        return 0;
    }
    if (2 * (n + 1) > ks->cap) {
        size_t cap = ks->cap ? 2 * ks->cap : 32;
        size_t *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < n; i++)
            key_set_put(slots, cap, p->stack[base + i].key, i + 1);
        free(ks->slots);
        ks->slots = slots;
        ks->cap = cap;
    }
    for (size_t j = key_hash(key) & (ks->cap - 1); ks->slots[j]; j = (j + 1) & (ks->cap - 1))
        if (strcmp(p->stack[base + ks->slots[j] - 1].key, key) == 0)
            return 1;
    key_set_put(ks->slots, ks->cap, key, n + 1);
    return 0;
}

/* One "key": value member, pushed; 0, or -1 (recorded). */
static int parse_member(parser *p, key_set *seen, size_t base)
{
    if (at_end(p) || peek(p) != '"') {
        fail_expected(p, "a string key");
        return -1;
    }
    size_t key_line = p->line, key_col = p->col;
    char *key = parse_string_raw(p, 1);
    if (!key || push_pending(p, key, NULL) != 0)
        return -1;
    int dup = key_seen(p, seen, base, p->stack_len - 1);
    if (dup < 0) {
        fail_oom(p);
        return -1;
    }
    if (dup) {
        strbuf shown = {0};
        sb_put_escaped(&shown, key);
        char *q = sb_finish(&shown);
        fail_at(p, key_line, key_col, "duplicate key %.200s", q ? q : "(out of memory)");
        free(q);
        return -1;
    }
    skip_ws(p);
    if (at_end(p) || peek(p) != ':') {
        fail_expected(p, "':' after the object key");
        return -1;
    }
    advance(p);
    size_t at = p->stack_len - 1;
    json_value *val = parse_value(p); /* (may grow the stack: index, not pointer) */
    if (!val)
        return -1;
    p->stack[at].item = val;
    return 0;
}

static json_value *parse_object(parser *p)
{
    if (enter_container(p) != 0)
        return NULL;
    json_value *obj = arena_node(p, JSON_OBJECT);
    size_t base = p->stack_len;
    key_set seen = {NULL, 0};
    if (!obj)
        return NULL;
    skip_ws(p);
    if (!at_end(p) && peek(p) == '}') {
        advance(p);
        p->depth--;
        return close_container(p, obj, base) == 0 ? obj : NULL;
    }
    for (;;) {
        if (parse_member(p, &seen, base) != 0)
            goto fail;
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
    return close_container(p, obj, base) == 0 ? obj : NULL;
fail:
    free(seen.slots);
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
    case 't': return parse_literal(p, "true", JSON_BOOL, 1);
    case 'f': return parse_literal(p, "false", JSON_BOOL, 0);
    case 'n': return parse_literal(p, "null", JSON_NULL, 0);
    case '"': return parse_string_value(p);
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return parse_number(p);
        fail_expected(p, "a value");
        return NULL;
    }
}

/* The parse proper: the root, or NULL with the error recorded. */
static json_value *parse_text(parser *p)
{
    /* RFC 8259 forbids a byte-order mark; say what it is rather than "expected a value". */
    if (p->len >= 3 && !memcmp(p->text, "\xEF\xBB\xBF", 3)) {
        fail_here(p, "a UTF-8 byte-order mark (EF BB BF) starts the text: JSON must not have "
                     "one; save the file as UTF-8 without BOM");
        return NULL;
    }
    skip_ws(p);
    if (at_end(p)) {
        fail_here(p, "empty input");
        return NULL;
    }
    json_value *v = parse_value(p);
    if (!v)
        return NULL;
    skip_ws(p);
    if (!at_end(p)) {
        fail_here(p, "trailing characters after the JSON value");
        return NULL;
    }
    return v;
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
        .arena = {NULL, ARENA_BLOCK_BYTES},
    };
    set_err(err, err_size, "%s", "");
    /* (a short text, a child's report line, has little to share) */
    if (p.len > 4096) { /* (without them a text is parsed all the same, only larger) */
        p.intern = calloc(JSON_INTERN_SLOTS, sizeof *p.intern);
        p.leaves = calloc(JSON_SHARE_SLOTS, sizeof *p.leaves);
        p.shapes = calloc(JSON_SHARE_SLOTS, sizeof *p.shapes);
    }
    json_value *v = parse_text(&p);
    json_doc *doc = v ? malloc(sizeof *doc) : NULL;
    free(p.stack);
    free(p.scratch.data);
    free(p.intern);
    free(p.leaves);
    free(p.shapes);
    if (!doc) {
        if (v)
            fail_oom(&p);
        rb_arena_free(&p.arena);
        return NULL;
    }
    /* the root moves into the document, which owns the arena */
    doc->root = *v;
    doc->root.flags = (unsigned char)((v->flags & ~JSON_F_ARENA_NODE) | JSON_F_DOC);
    doc->arena = p.arena;
    return &doc->root;
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
    /* a regular file's size is a hint for one allocation of the right size (not a doubling
     * buffer up to twice as large, which sb_reserve would make); the cap holds whatever the size
     * says */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        st.st_size <= JSON_MAX_FILE_BYTES && (sb.data = malloc((size_t)st.st_size + 1)) != NULL)
        sb.cap = (size_t)st.st_size + 1;
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

/* A writer: into sb, and out to sink (when set) each time sb holds WRITE_SPILL_BYTES; the array
 * lazy (when set) takes its items from item(). */
typedef struct writer {
    strbuf sb;
    int indent;
    rb_sbuf *sink;
    const json_value *lazy;
    json_value *(*item)(void *ctx, size_t i);
    void *ctx;
    size_t n_lazy;
} writer;

#define WRITE_SPILL_BYTES ((size_t)64 << 10)

static void write_value(writer *w, const json_value *v, size_t level);

/* Line break plus indentation for the given level (pretty mode only). */
static void write_newline(writer *w, size_t level)
{
    if (w->indent <= 0)
        return;
    sb_putc(&w->sb, '\n');
    sb_spaces(&w->sb, (size_t)w->indent * level);
}

static void write_spill(writer *w, size_t at_least)
{
    if (!w->sink || w->sb.oom || w->sb.len < at_least)
        return;
    rb_sbuf_put(w->sink, w->sb.data, w->sb.len);
    if (w->sink->oom)
        w->sb.oom = 1;
    w->sb.len = 0;
}

/* Item i of container v: lazy's from item() (NULL: out of memory), else its own. */
static json_value *write_item(writer *w, const json_value *v, size_t i)
{
    if (v != w->lazy)
        return v->items[i];
    json_value *x = w->item(w->ctx, i);
    if (!x)
        w->sb.oom = 1;
    return x;
}

static void write_container(writer *w, const json_value *v, size_t level)
{
    int is_object = v->type == JSON_OBJECT;
    size_t n = v == w->lazy ? w->n_lazy : v->count;
    sb_putc(&w->sb, is_object ? '{' : '[');
    for (size_t i = 0; i < n && !w->sb.oom; i++) {
        if (i > 0)
            sb_putc(&w->sb, ',');
        write_newline(w, level + 1);
        if (is_object) {
            sb_put_escaped(&w->sb, v->keys[i]);
            sb_puts(&w->sb, w->indent > 0 ? ": " : ":");
        }
        json_value *item = write_item(w, v, i);
        if (item)
            write_value(w, item, level + 1);
        if (v == w->lazy)
            json_free(item);
        write_spill(w, WRITE_SPILL_BYTES);
    }
    if (n > 0)
        write_newline(w, level);
    sb_putc(&w->sb, is_object ? '}' : ']');
}

static void write_value(writer *w, const json_value *v, size_t level)
{
    strbuf *sb = &w->sb;
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
    case JSON_OBJECT: write_container(w, v, level); break;
    }
}

char *json_write(const json_value *v, int indent)
{
    writer w = {.indent = indent < 0 ? 0 : indent};
    write_value(&w, v, 0);
    if (w.indent > 0)
        sb_putc(&w.sb, '\n');
    return sb_finish(&w.sb);
}

void json_write_to(rb_sbuf *b, const json_value *v, int indent, const json_value *lazy,
                   json_value *(*item)(void *ctx, size_t i), void *ctx, size_t n)
{
    writer w = {.indent = indent < 0 ? 0 : indent,
                .sink = b,
                .lazy = lazy,
                .item = item,
                .ctx = ctx,
                .n_lazy = n};
    write_value(&w, v, 0);
    if (w.indent > 0)
        sb_putc(&w.sb, '\n');
    write_spill(&w, 0);
    if (w.sb.oom)
        b->oom = 1;
    free(w.sb.data);
}

int json_write_file(const char *path, const json_value *v, char *err, size_t err_size)
{
    set_err(err, err_size, "%s", "");
    char *text = json_write(v, 2);
    if (!text) {
        set_err(err, err_size, "%s: out of memory", path);
        return -1;
    }
    int rc = rb_write_file_atomic(path, text, err, err_size);
    free(text);
    return rc;
}
