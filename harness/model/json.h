/* SPDX-License-Identifier: MIT */
/*
 * A small strict JSON reader and writer (RFC 8259), no third-party library.
 *
 * Reading is strict: a UTF-8 byte-order mark, trailing commas, duplicate object keys (found in
 * constant expected time per key), leading zeros, control characters
 * in strings, lone surrogates, numbers out of double range, nesting deeper than JSON_MAX_DEPTH
 * and anything after the top-level value are refused. Every parse error names line and column
 * (both 1-based) of the offending character: "line 3, column 14: duplicate key \"noise\"".
 *
 * Writing: object keys keep insertion order; doubles are printed with the fewest significant
 * digits (15, 16 or 17) that read back to the same double, so every number round-trips;
 * NaN and +-Inf are written as null (JSON cannot hold them); -0.0 as "-0".
 *
 * Ownership: every json_value is owned by its parent container; json_free frees a whole tree.
 * Functions that take a child value take ownership of it, also when they fail. A parsed
 * document's values live in blocks owned by its root (less than twice the text): a value
 * taken out of a parsed tree must be copied (json_clone) before the root is freed. A parsed
 * document shares what its records repeat: equal leaves (literals, numbers, short strings) may
 * be one value, and objects with the same keys in the same order one keys array. Change a
 * parsed tree only through json_object_set and json_array_push (which replace a member or
 * move the arrays out first), never a parsed value in place.
 *
 * Lookups: json_get finds a key of an object of many keys in constant expected time (a hash
 * index beside its keys), so reading a file with many pairs stays linear.
 */
#ifndef RB_JSON_H
#define RB_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef struct rb_sbuf rb_sbuf; /* util.h */

#define JSON_MAX_DEPTH 256
/* json_parse_file refuses a file larger than this (64 MiB): results and expectation files are
 * a few hundred kB, and /dev/zero must not read until memory runs out. */
#define JSON_MAX_FILE_BYTES (64 << 20)

typedef enum json_type {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_type;

typedef struct json_value json_value;
/* 32 bytes: a parsed document is mostly these (one per value). number and string share their
 * place: read the one the type says. */
struct json_value {
    unsigned char type;    /* a json_type */
    unsigned char boolean; /* JSON_BOOL: 0 or 1 */
    unsigned char flags;   /* private to json.c: where the value's memory lives */
    uint32_t count;        /* JSON_ARRAY, JSON_OBJECT: number of items / members (else 0) */
    union {
        double number; /* JSON_NUMBER */
        char *string;  /* JSON_STRING: NUL-terminated UTF-8 (an embedded \u0000 is refused) */
    };
    char **keys; /* JSON_OBJECT: keys[i] names items[i] */
    json_value **items;
};

/* Parses text[0..len). Returns NULL on error with "line L, column C: message" in err. */
json_value *json_parse(const char *text, size_t len, char *err, size_t err_size);
/* Reads and parses a whole file. Errors: "PATH: line L, column C: message" or "PATH: <strerror>".
 */
json_value *json_parse_file(const char *path, char *err, size_t err_size);
void json_free(json_value *v);

/* Constructors: NULL when out of memory. */
json_value *json_new_null(void);
json_value *json_new_bool(int b);
json_value *json_new_number(double x);
json_value *json_new_string(const char *s);
json_value *json_new_array(void);
json_value *json_new_object(void);

/* Appends item (owned). Returns 0, or -1 when out of memory or arr is not an array. */
int json_array_push(json_value *arr, json_value *item);
/* Sets key to val (owned): replaces the value in place when the key exists (keeping its
 * position), else appends. Returns 0, or -1 when out of memory or obj is not an object. */
int json_object_set(json_value *obj, const char *key, json_value *val);
/* Convenience setters: json_object_set with a new number / string (NULL s: null) / bool. */
int json_set_number(json_value *obj, const char *key, double x);
int json_set_string(json_value *obj, const char *key, const char *s);
int json_set_bool(json_value *obj, const char *key, int b);

/* A deep copy of v (NULL when out of memory or v is NULL). */
json_value *json_clone(const json_value *v);

/* Member of an object, or NULL when absent or obj is not an object. */
json_value *json_get(const json_value *obj, const char *key);
/* Typed member reads for readers of optional fields: the number (NaN when absent or not a
 * number; JSON's null for a number that could not be written reads as NaN too), the string
 * (fallback when absent or not a string), 1 when the member is the boolean true. */
double json_number_at(const json_value *obj, const char *key);
const char *json_string_at(const json_value *obj, const char *key, const char *fallback);
int json_true_at(const json_value *obj, const char *key);
/* Type name for messages: "null", "boolean", "number", "string", "array", "object". */
const char *json_type_name(json_type t);

/* Serializes v. indent 0: one line, no spaces; indent > 0: pretty-printed with that many spaces
 * per level and a final newline. Returns a malloc'd string (caller frees), NULL when out of memory.
 */
char *json_write(const json_value *v, int indent);
/* Adds v's text, as json_write(v, indent) makes it, to b a piece at a time (with a sink, a text
 * of any size takes little memory), except that the array lazy (a value inside v, empty; NULL:
 * none) is written with n items made by item(ctx, i), i = 0 .. n-1, each freed once written
 * (item returns NULL: out of memory, b->oom set). */
void json_write_to(rb_sbuf *b, const json_value *v, int indent, const json_value *lazy,
                   json_value *(*item)(void *ctx, size_t i), void *ctx, size_t n);
/* Writes v (indent 2) to path atomically: a temporary file in the same folder, fsync, rename.
 * On failure nothing is left behind, and err holds "PATH: <reason>"; returns -1. */
int json_write_file(const char *path, const json_value *v, char *err, size_t err_size);

/* Formats x into buf (at least 32 bytes) as the writer would ("null" for NaN/Inf). */
void json_format_number(double x, char *buf, size_t buf_size);

#endif
