/* SPDX-License-Identifier: MIT */
/* Tests of the strict JSON reader and writer (harness/model/json.c). */
#include "rbtest.h"
#include "../harness/model/json.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern const rbtest_suite json_suite;

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* Parses text[0..len); returns 1 when it is refused and the message contains needle. */
static int refused_len(const char *text, size_t len, const char *needle)
{
    char err[512];
    json_value *v = json_parse(text, len, err, sizeof err);
    if (v) {
        json_free(v);
        return 0;
    }
    return strstr(err, needle) != NULL;
}

static int refused(const char *text, const char *needle)
{
    return refused_len(text, strlen(text), needle);
}

/* Returns 1 when text parses (the value is freed). */
static int accepted(const char *text)
{
    char err[512];
    json_value *v = json_parse(text, strlen(text), err, sizeof err);
    json_free(v);
    return v != NULL;
}

/* The error message for text (which must be refused), into err. */
static void parse_error(const char *text, char *err, size_t err_size)
{
    json_value *v = json_parse(text, strlen(text), err, err_size);
    if (v) {
        json_free(v);
        snprintf(err, err_size, "(accepted)");
    }
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Parses text and writes it back with indent; NULL when either step fails. */
static char *rewrite(const char *text, int indent)
{
    json_value *v = json_parse(text, strlen(text), NULL, 0);
    if (!v)
        return NULL;
    char *out = json_write(v, indent);
    json_free(v);
    return out;
}

/* 1 when json_write(v, indent) equals expected exactly. */
static int writes_as(const json_value *v, int indent, const char *expected)
{
    char *out = json_write(v, indent);
    int same = out && strcmp(out, expected) == 0;
    free(out);
    return same;
}

/* Writes x, parses it back and returns 1 when the double is bit-for-bit identical. */
static int number_round_trips(double x)
{
    json_value *arr = json_new_array();
    if (!arr || json_array_push(arr, json_new_number(x)) != 0) {
        json_free(arr);
        return 0;
    }
    char *text = json_write(arr, 0);
    json_free(arr);
    if (!text)
        return 0;
    json_value *back = json_parse(text, strlen(text), NULL, 0);
    free(text);
    int same = back && back->type == JSON_ARRAY && back->count == 1 &&
               back->items[0]->type == JSON_NUMBER &&
               memcmp(&back->items[0]->number, &x, sizeof x) == 0;
    json_free(back);
    return same;
}

static int make_tmpdir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/rbjson.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

/* Number of entries in dir other than "." and "..", or -1. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Removes the plain files in dir, then dir itself. */
static void remove_tmpdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* ------------------------------------------------------------------------------------------ */
/* Tests                                                                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_round_trip_nested(void)
{
    const char *doc =
        "{\n"
        "  \"name\": \"stream \\\"copy\\\" \\u00e9\\t\",\n"
        "  \"sizes\": [1, 2.5, -3e-5, 0, -0, 1e300],\n"
        "  \"nested\": {\"a\": [[], {}, [null, true, false]], \"b\": {\"c\": {\"d\": \"\"}}},\n"
        "  \"ok\": true\n"
        "}";
    char *first = rewrite(doc, 0);
    RB_CHECK(first != NULL);
    if (!first)
        return;
    char *second = rewrite(first, 0);
    RB_CHECK(second != NULL && strcmp(first, second) == 0);
    RB_CHECK(strcmp(first,
                    "{\"name\":\"stream \\\"copy\\\" \xC3\xA9\\t\","
                    "\"sizes\":[1,2.5,-3e-05,0,-0,1e+300],"
                    "\"nested\":{\"a\":[[],{},[null,true,false]],\"b\":{\"c\":{\"d\":\"\"}}},"
                    "\"ok\":true}") == 0);
    /* The pretty form reads back to the same document too. */
    char *pretty = rewrite(first, 2);
    char *third = pretty ? rewrite(pretty, 0) : NULL;
    RB_CHECK(third != NULL && strcmp(first, third) == 0);
    free(first);
    free(second);
    free(pretty);
    free(third);
}

static void test_doubles_round_trip(void)
{
    RB_CHECK(number_round_trips(0.1));
    RB_CHECK(number_round_trips(1.0 / 3.0));
    RB_CHECK(number_round_trips(1e-310)); /* subnormal */
    RB_CHECK(number_round_trips(4.9406564584124654e-324));
    RB_CHECK(number_round_trips(DBL_MIN));
    RB_CHECK(number_round_trips(DBL_MAX));
    RB_CHECK(number_round_trips(-DBL_MAX));
    RB_CHECK(number_round_trips(9007199254740994.0)); /* 2^53 + 2 */
    RB_CHECK(number_round_trips(123456789.123456789));
    RB_CHECK(number_round_trips(-0.0));

    /* -0.0 keeps its sign through write and parse. */
    json_value *v = json_parse("-0", 2, NULL, 0);
    RB_CHECK(v && v->type == JSON_NUMBER && v->number == 0.0 && signbit(v->number));
    json_free(v);
    v = json_parse("0", 1, NULL, 0);
    RB_CHECK(v && v->type == JSON_NUMBER && !signbit(v->number));
    json_free(v);

    v = json_parse("[2.5e-3]", 8, NULL, 0);
    RB_CHECK(v && v->count == 1);
    if (v && v->count == 1)
        RB_CHECK_NEAR(v->items[0]->number, 0.0025, 1e-18);
    json_free(v);
}

static void test_format_number_shortest(void)
{
    char buf[32];
    json_format_number(0.1, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "0.1") == 0);
    json_format_number(1.0, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "1") == 0);
    json_format_number(1e300, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "1e+300") == 0);
    json_format_number(-0.0, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "-0") == 0);
    json_format_number(1.0 / 3.0, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "0.3333333333333333") == 0); /* 16 digits needed */
    json_format_number(9007199254740994.0, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "9007199254740994") == 0);
    json_format_number(0.30000000000000004, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "0.30000000000000004") == 0); /* 17 digits needed */
    json_format_number(DBL_MAX, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "1.7976931348623157e+308") == 0);
}

static void test_nan_inf_written_as_null(void)
{
    char buf[32];
    json_format_number(NAN, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "null") == 0);
    json_format_number(INFINITY, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "null") == 0);
    json_format_number(-INFINITY, buf, sizeof buf);
    RB_CHECK(strcmp(buf, "null") == 0);

    json_value *o = json_new_object();
    RB_CHECK(json_set_number(o, "nan", NAN) == 0);
    RB_CHECK(json_set_number(o, "inf", INFINITY) == 0);
    RB_CHECK(json_set_number(o, "ninf", -INFINITY) == 0);
    RB_CHECK(json_set_number(o, "x", 2.0) == 0);
    RB_CHECK(writes_as(o, 0, "{\"nan\":null,\"inf\":null,\"ninf\":null,\"x\":2}"));
    json_free(o);
}

static void test_booleans_written(void)
{
    json_value *o = json_new_object();
    RB_CHECK(json_set_bool(o, "t", 1) == 0);
    RB_CHECK(json_set_bool(o, "f", 0) == 0);
    RB_CHECK(json_set_bool(o, "seven", 7) == 0); /* any non-zero is true */
    RB_CHECK(writes_as(o, 0, "{\"t\":true,\"f\":false,\"seven\":true}"));
    json_free(o);

    json_value *v = json_parse("[true,false]", 12, NULL, 0);
    RB_CHECK(v && v->count == 2);
    if (v && v->count == 2) {
        RB_CHECK(v->items[0]->type == JSON_BOOL && v->items[0]->boolean == 1);
        RB_CHECK(v->items[1]->type == JSON_BOOL && v->items[1]->boolean == 0);
    }
    json_free(v);
    RB_CHECK(refused("tru", "invalid literal"));
    RB_CHECK(refused("nul", "invalid literal"));
    RB_CHECK(refused("True", "expected a value"));
}

static void test_error_line_column(void)
{
    char err[256];
    /* Trailing comma on line 3: the comma is column 9 of "  \"b\": 3,". */
    parse_error("{\n  \"a\": [1, 2],\n  \"b\": 3,\n}", err, sizeof err);
    RB_CHECK(starts_with(err, "line 3, column 9: "));
    RB_CHECK(strstr(err, "trailing comma") != NULL);

    parse_error("[1,\n 2,\n]", err, sizeof err);
    RB_CHECK(strcmp(err, "line 2, column 3: trailing comma before ']'") == 0);

    /* CR counts as a byte of the line; only LF starts a new line; tabs count as 1. */
    parse_error("[\r\n\t1,\r\n\t\t@]", err, sizeof err);
    RB_CHECK(starts_with(err, "line 3, column 3: "));

    /* At end of input the column is just past the last character. */
    parse_error("[1,\n 2", err, sizeof err);
    RB_CHECK(strcmp(err, "line 2, column 3: expected ',' or ']', found end of input") == 0);
    parse_error("{\"a\" 1}", err, sizeof err);
    RB_CHECK(starts_with(err, "line 1, column 6: "));
}

static void test_duplicate_key(void)
{
    char err[256];
    parse_error("{\"noise\": 1, \"noise\": 2}", err, sizeof err);
    RB_CHECK(strcmp(err, "line 1, column 14: duplicate key \"noise\"") == 0);
    parse_error("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2, \"y\": 3, \"x\": 4}}", err, sizeof err);
    RB_CHECK(strstr(err, "duplicate key \"x\"") != NULL);
    /* The same key in different objects is fine; escapes that decode alike are duplicates. */
    RB_CHECK(accepted("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}"));
    RB_CHECK(refused("{\"ab\": 1, \"a\\u0062\": 2}", "duplicate key \"ab\""));
}

static void test_trailing_garbage(void)
{
    char err[256];
    parse_error("{} x", err, sizeof err);
    RB_CHECK(strcmp(err, "line 1, column 4: trailing characters after the JSON value") == 0);
    RB_CHECK(refused("1 2", "trailing characters after the JSON value"));
    RB_CHECK(refused("[1]]", "trailing characters"));
    RB_CHECK(refused("nullx", "trailing characters"));
    RB_CHECK(refused("\"a\"\"b\"", "trailing characters"));
    /* Trailing whitespace is fine, and any value may be the top level. */
    RB_CHECK(accepted("{} \n\t\r\n"));
    RB_CHECK(accepted("42"));
    RB_CHECK(accepted("\"s\""));
    RB_CHECK(accepted("null"));
}

static void test_number_syntax(void)
{
    char err[256];
    parse_error("[01]", err, sizeof err);
    RB_CHECK(strcmp(err, "line 1, column 2: leading zeros are not allowed in numbers") == 0);
    RB_CHECK(refused("-01", "leading zeros"));
    RB_CHECK(refused("00", "leading zeros"));
    RB_CHECK(refused("+1", "expected a value"));
    RB_CHECK(refused(".5", "expected a value"));
    RB_CHECK(refused("1.", "decimal point"));
    RB_CHECK(refused("1.e5", "decimal point"));
    RB_CHECK(refused("1e", "exponent"));
    RB_CHECK(refused("1e+", "exponent"));
    RB_CHECK(refused("-", "after '-'"));
    RB_CHECK(refused("--1", "after '-'"));
    RB_CHECK(refused("0x10", "trailing characters"));
    RB_CHECK(refused("NaN", "expected a value"));
    RB_CHECK(refused("Infinity", "expected a value"));
    RB_CHECK(refused("-Infinity", "after '-'"));
    RB_CHECK(refused("[1,2,]", "trailing comma"));
    RB_CHECK(refused("{\"a\":1,}", "trailing comma"));
    RB_CHECK(refused("['a']", "single quote"));
    RB_CHECK(refused("[1 /* c */]", "comment"));
    RB_CHECK(refused("// c\n1", "comment"));
    RB_CHECK(accepted("0"));
    RB_CHECK(accepted("-0.0"));
    RB_CHECK(accepted("1E+2"));
    RB_CHECK(accepted("-1.25e-3"));
}

static void test_number_out_of_range(void)
{
    char err[256];
    parse_error("[1, 1e400]", err, sizeof err);
    RB_CHECK(strcmp(err, "line 1, column 5: number out of range") == 0);
    RB_CHECK(refused("-1e400", "number out of range"));
    RB_CHECK(refused("1.8e308", "number out of range"));
    /* Underflow to zero or a subnormal is fine. */
    json_value *v = json_parse("1e-400", 6, NULL, 0);
    RB_CHECK(v && v->type == JSON_NUMBER && v->number == 0.0);
    json_free(v);
    v = json_parse("5e-324", 6, NULL, 0);
    RB_CHECK(v && v->type == JSON_NUMBER && v->number > 0.0 && v->number < DBL_MIN);
    json_free(v);
    RB_CHECK(accepted("1.7976931348623157e308"));
}

/* A string of depth '[' followed by depth ']'. */
static char *nested_arrays(int depth)
{
    char *s = malloc((size_t)depth * 2 + 1);
    if (!s)
        return NULL;
    memset(s, '[', (size_t)depth);
    memset(s + depth, ']', (size_t)depth);
    s[depth * 2] = '\0';
    return s;
}

static void test_depth_limit(void)
{
    char err[256];
    char *ok = nested_arrays(JSON_MAX_DEPTH);
    char *deep = nested_arrays(JSON_MAX_DEPTH + 1);
    RB_CHECK(ok && deep);
    if (ok && deep) {
        json_value *v = json_parse(ok, strlen(ok), err, sizeof err);
        RB_CHECK(v != NULL);
        json_free(v);
        v = json_parse(deep, strlen(deep), err, sizeof err);
        RB_CHECK(v == NULL);
        char expect[64];
        snprintf(expect, sizeof expect, "line 1, column %d: nesting", JSON_MAX_DEPTH + 1);
        RB_CHECK(starts_with(err, expect));
        json_free(v);
    }
    free(ok);
    free(deep);

    /* Objects count as levels too. */
    size_t n = JSON_MAX_DEPTH + 1;
    char *objs = malloc(n * 5 + 2);
    RB_CHECK(objs != NULL);
    if (objs) {
        char *w = objs;
        for (size_t i = 0; i < n; i++)
            w += sprintf(w, "{\"a\":");
        sprintf(w, "1");
        RB_CHECK(refused(objs, "nesting"));
        free(objs);
    }
}

static void test_escapes_and_surrogate_pair(void)
{
    const char *text = "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC\\uD83D\\uDE00\\u007f\"";
    json_value *v = json_parse(text, strlen(text), NULL, 0);
    RB_CHECK(v && v->type == JSON_STRING);
    if (v && v->type == JSON_STRING) {
        const char expect[] = "\"\\/\b\f\n\r\t"
                              "\xC3\xA9"         /* U+00E9 */
                              "\xE2\x82\xAC"     /* U+20AC */
                              "\xF0\x9F\x98\x80" /* U+1F600 */
                              "\x7F";
        RB_CHECK(strcmp(v->string, expect) == 0);
    }
    json_free(v);
    /* Highest code point: U+10FFFF. */
    v = json_parse("\"\\uDBFF\\uDFFF\"", 14, NULL, 0);
    RB_CHECK(v && v->type == JSON_STRING && strcmp(v->string, "\xF4\x8F\xBF\xBF") == 0);
    json_free(v);
    RB_CHECK(refused("\"\\x\"", "invalid escape"));
    RB_CHECK(refused("\"\\u12G4\"", "\\u escape"));
    RB_CHECK(refused("\"\\u12\"", "\\u escape"));
}

static void test_lone_surrogate(void)
{
    char err[256];
    parse_error("[\"ab\\uD800\"]", err, sizeof err);
    RB_CHECK(strcmp(err, "line 1, column 5: unpaired high surrogate \\uD800") == 0);
    RB_CHECK(refused("\"\\uDC00\"", "low surrogate"));
    RB_CHECK(refused("\"\\uDE00\\uD83D\"", "low surrogate")); /* mis-ordered */
    RB_CHECK(refused("\"\\uD83Dx\"", "high surrogate"));
    RB_CHECK(refused("\"\\uD83D\\u0041\"", "high surrogate"));
    RB_CHECK(refused("\"\\uD83D\\uD83D\"", "high surrogate"));
    RB_CHECK(refused("\"\\u0000\"", "\\u0000"));
}

static void test_invalid_utf8_refused(void)
{
    RB_CHECK(refused_len("\"\xC0\x80\"", 4, "UTF-8"));         /* overlong NUL */
    RB_CHECK(refused_len("\"\xE0\x9F\xBF\"", 5, "UTF-8"));     /* overlong 3-byte */
    RB_CHECK(refused_len("\"\xF0\x8F\xBF\xBF\"", 6, "UTF-8")); /* overlong 4-byte */
    RB_CHECK(refused_len("\"\xED\xA0\x80\"", 5, "UTF-8"));     /* UTF-16 surrogate */
    RB_CHECK(refused_len("\"\xF4\x90\x80\x80\"", 6, "UTF-8")); /* > U+10FFFF */
    RB_CHECK(refused_len("\"\xF5\x80\x80\x80\"", 6, "UTF-8"));
    RB_CHECK(refused_len("\"\xE2\x82\"", 4, "UTF-8")); /* truncated */
    RB_CHECK(refused_len("\"\xE2\x82", 3, "UTF-8"));   /* truncated at the end */
    RB_CHECK(refused_len("\"\x80\"", 3, "UTF-8"));     /* stray continuation */
    RB_CHECK(refused_len("\"\xFF\"", 3, "UTF-8"));
    char err[256];
    json_value *v = json_parse("[\"ab\xC3\"]", 7, err, sizeof err);
    RB_CHECK(v == NULL && starts_with(err, "line 1, column 5: "));
    json_free(v);
    /* Outside strings any non-ASCII byte is refused. */
    RB_CHECK(refused_len("\xC3\xA9", 2, "expected a value"));
    /* Well-formed multi-byte UTF-8 passes through unchanged. */
    const char ok[] = "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\"";
    v = json_parse(ok, sizeof ok - 1, NULL, 0);
    RB_CHECK(v && v->type == JSON_STRING &&
             strcmp(v->string, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF") == 0);
    json_free(v);
}

static void test_control_char_in_string(void)
{
    char err[256];
    parse_error("{\"k\": \"a\tb\"}", err, sizeof err);
    RB_CHECK(strcmp(err, "line 1, column 9: control character 0x09 in string (must be escaped)") ==
             0);
    RB_CHECK(refused("\"a\nb\"", "control character"));
    RB_CHECK(refused("\"\x01\"", "control character"));
    RB_CHECK(refused("\"\x1F\"", "control character"));
    RB_CHECK(refused_len("\"a\0b\"", 5, "control character 0x00"));
    RB_CHECK(refused("\"abc", "unterminated string"));
    RB_CHECK(accepted("\"\x7F\"")); /* DEL is not a control character in JSON */
}

static void test_empty_input(void)
{
    char err[256];
    json_value *v = json_parse("", 0, err, sizeof err);
    RB_CHECK(v == NULL && strcmp(err, "line 1, column 1: empty input") == 0);
    v = json_parse(" \n\t\r\n ", 6, err, sizeof err);
    RB_CHECK(v == NULL && strcmp(err, "line 3, column 2: empty input") == 0);
    v = json_parse(NULL, 0, err, sizeof err);
    RB_CHECK(v == NULL && strstr(err, "empty input") != NULL);
    /* Only space, tab, CR and LF are whitespace. */
    RB_CHECK(refused("\f1", "expected a value"));
    RB_CHECK(refused("\v1", "expected a value"));
    RB_CHECK(refused("[1,\f2]", "expected a value"));
    /* The parser honours len and does not need a terminating NUL. */
    v = json_parse("[1]garbage", 3, NULL, 0);
    RB_CHECK(v != NULL && v->type == JSON_ARRAY && v->count == 1);
    json_free(v);
    v = json_parse("12345", 2, NULL, 0);
    RB_CHECK(v != NULL && v->type == JSON_NUMBER && v->number == 12.0);
    json_free(v);
}

static void test_object_set_replace_keeps_order(void)
{
    json_value *o = json_new_object();
    RB_CHECK(o != NULL);
    RB_CHECK(json_set_number(o, "a", 1) == 0);
    RB_CHECK(json_set_number(o, "b", 2) == 0);
    RB_CHECK(json_set_number(o, "c", 3) == 0);
    RB_CHECK(json_set_string(o, "b", "two") == 0);
    RB_CHECK(o->count == 3);
    RB_CHECK(writes_as(o, 0, "{\"a\":1,\"b\":\"two\",\"c\":3}"));
    json_value *arr = json_new_array();
    RB_CHECK(json_array_push(arr, json_new_number(4)) == 0);
    RB_CHECK(json_object_set(o, "a", arr) == 0);
    RB_CHECK(json_set_string(o, "d", NULL) == 0); /* NULL string: null */
    RB_CHECK(writes_as(o, 0, "{\"a\":[4],\"b\":\"two\",\"c\":3,\"d\":null}"));
    RB_CHECK(json_get(o, "a") == arr);

    /* Wrong container types fail and still take ownership of the value. */
    RB_CHECK(json_array_push(o, json_new_null()) == -1);
    RB_CHECK(json_object_set(arr, "k", json_new_null()) == -1);
    RB_CHECK(json_object_set(NULL, "k", json_new_null()) == -1);
    RB_CHECK(json_array_push(arr, NULL) == -1);
    RB_CHECK(arr->count == 1 && o->count == 4);

    /* Many members keep their insertion order. */
    json_value *big = json_new_object();
    char key[16];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "k%d", 99 - i);
        RB_CHECK(json_set_number(big, key, i) == 0);
    }
    RB_CHECK(big->count == 100 && strcmp(big->keys[0], "k99") == 0 &&
             strcmp(big->keys[99], "k0") == 0);
    json_value *k50 = json_get(big, "k50");
    RB_CHECK(k50 && k50->type == JSON_NUMBER && k50->number == 49.0);
    json_free(big);
    json_free(o);
}

static void test_get_missing(void)
{
    const char *text = "{\"a\": 1, \"list\": [1, 2]}";
    json_value *v = json_parse(text, strlen(text), NULL, 0);
    RB_CHECK(v != NULL);
    RB_CHECK(json_get(v, "missing") == NULL);
    RB_CHECK(json_get(v, "A") == NULL);
    json_value *a = json_get(v, "a");
    RB_CHECK(a && a->type == JSON_NUMBER && a->number == 1.0);
    json_value *list = json_get(v, "list");
    RB_CHECK(list && list->type == JSON_ARRAY);
    RB_CHECK(json_get(list, "a") == NULL); /* not an object */
    RB_CHECK(json_get(a, "a") == NULL);
    RB_CHECK(json_get(NULL, "a") == NULL);
    json_free(v);
    RB_CHECK(strcmp(json_type_name(JSON_NULL), "null") == 0);
    RB_CHECK(strcmp(json_type_name(JSON_BOOL), "boolean") == 0);
    RB_CHECK(strcmp(json_type_name(JSON_NUMBER), "number") == 0);
    RB_CHECK(strcmp(json_type_name(JSON_STRING), "string") == 0);
    RB_CHECK(strcmp(json_type_name(JSON_ARRAY), "array") == 0);
    RB_CHECK(strcmp(json_type_name(JSON_OBJECT), "object") == 0);
}

static void test_pretty_print_exact(void)
{
    const char *text = "{\"a\":1,\"b\":[true,null],\"c\":{},\"d\":[],\"e\":{\"f\":\"g\"}}";
    json_value *v = json_parse(text, strlen(text), NULL, 0);
    RB_CHECK(v != NULL);
    RB_CHECK(writes_as(v, 2,
                       "{\n"
                       "  \"a\": 1,\n"
                       "  \"b\": [\n"
                       "    true,\n"
                       "    null\n"
                       "  ],\n"
                       "  \"c\": {},\n"
                       "  \"d\": [],\n"
                       "  \"e\": {\n"
                       "    \"f\": \"g\"\n"
                       "  }\n"
                       "}\n"));
    RB_CHECK(writes_as(v, 0, "{\"a\":1,\"b\":[true,null],\"c\":{},\"d\":[],\"e\":{\"f\":\"g\"}}"));
    json_free(v);

    v = json_parse("[[1]]", 5, NULL, 0);
    RB_CHECK(writes_as(v, 4, "[\n    [\n        1\n    ]\n]\n"));
    json_free(v);
    v = json_new_array();
    RB_CHECK(writes_as(v, 2, "[]\n"));
    json_free(v);
    v = json_new_string("x");
    RB_CHECK(writes_as(v, 2, "\"x\"\n"));
    json_free(v);
}

static void test_string_escaping_on_write(void)
{
    json_value *v = json_new_string("q\"b\\s/\n\r\t\b\f\x01\x1F \xC3\xA9");
    RB_CHECK(writes_as(v, 0, "\"q\\\"b\\\\s/\\n\\r\\t\\b\\f\\u0001\\u001f \xC3\xA9\""));
    json_free(v);
    /* Keys are escaped the same way, and the written text reads back to the same string. */
    json_value *o = json_new_object();
    RB_CHECK(json_set_string(o, "k\"\n", "\x02") == 0);
    char *text = json_write(o, 0);
    RB_CHECK(text && strcmp(text, "{\"k\\\"\\n\":\"\\u0002\"}") == 0);
    json_value *back = text ? json_parse(text, strlen(text), NULL, 0) : NULL;
    json_value *val = json_get(back, "k\"\n");
    RB_CHECK(val && val->type == JSON_STRING && strcmp(val->string, "\x02") == 0);
    free(text);
    json_free(back);
    json_free(o);
}

static void test_write_file_atomic(void)
{
    char dir[64], path[128], err[512];
    RB_CHECK(make_tmpdir(dir, sizeof dir) == 0);
    snprintf(path, sizeof path, "%s/result.json", dir);

    json_value *v = json_new_object();
    RB_CHECK(json_set_string(v, "kernel", "stream_triad") == 0);
    RB_CHECK(json_set_number(v, "gbps", 3021.5) == 0);
    RB_CHECK(json_write_file(path, v, err, sizeof err) == 0);
    RB_CHECK(err[0] == '\0');

    json_value *back = json_parse_file(path, err, sizeof err);
    RB_CHECK(back != NULL);
    json_value *g = json_get(back, "gbps");
    RB_CHECK(g && g->type == JSON_NUMBER && g->number == 3021.5);
    json_free(back);
    RB_CHECK(count_entries(dir) == 1); /* no temporary file left behind */

    /* Overwriting replaces the content, again with no temporary left. */
    RB_CHECK(json_set_number(v, "gbps", 1.25) == 0);
    RB_CHECK(json_write_file(path, v, err, sizeof err) == 0);
    back = json_parse_file(path, err, sizeof err);
    g = json_get(back, "gbps");
    RB_CHECK(g && g->number == 1.25);
    json_free(back);
    RB_CHECK(count_entries(dir) == 1);

    /* The file is the indent-2 form with a final newline. */
    FILE *f = fopen(path, "rb");
    char content[256] = {0};
    if (f) {
        size_t n = fread(content, 1, sizeof content - 1, f);
        content[n] = '\0';
        fclose(f);
    }
    RB_CHECK(strcmp(content, "{\n  \"kernel\": \"stream_triad\",\n  \"gbps\": 1.25\n}\n") == 0);

    json_free(v);
    remove_tmpdir(dir);
}

static void test_write_file_fails_cleanly(void)
{
    char dir[64], path[160], err[512];
    RB_CHECK(make_tmpdir(dir, sizeof dir) == 0);
    snprintf(path, sizeof path, "%s/no_such_dir/result.json", dir);
    json_value *v = json_new_bool(1);
    RB_CHECK(json_write_file(path, v, err, sizeof err) == -1);
    RB_CHECK(starts_with(err, path) && strstr(err, "does not exist") != NULL);
    RB_CHECK(access(path, F_OK) != 0);
    RB_CHECK(count_entries(dir) == 0);
    /* A NULL err is allowed. */
    RB_CHECK(json_write_file(path, v, NULL, 0) == -1);

    /* A folder where the file should go is refused before anything is written. */
    char sub[96];
    snprintf(sub, sizeof sub, "%s/taken", dir);
    RB_CHECK(mkdir(sub, 0700) == 0);
    RB_CHECK(json_write_file(sub, v, err, sizeof err) == -1);
    RB_CHECK(starts_with(err, sub) && strstr(err, "is a folder") != NULL);
    RB_CHECK(count_entries(dir) == 1); /* only the folder itself */
    rmdir(sub);
    json_free(v);
    remove_tmpdir(dir);
}

static void test_parse_file_errors(void)
{
    char dir[64], path[128], expect[256], err[512];
    RB_CHECK(make_tmpdir(dir, sizeof dir) == 0);
    snprintf(path, sizeof path, "%s/missing.json", dir);
    RB_CHECK(json_parse_file(path, err, sizeof err) == NULL);
    snprintf(expect, sizeof expect, "%s: No such file or directory", path);
    RB_CHECK(strcmp(err, expect) == 0);

    /* A syntax error is prefixed with the path. */
    snprintf(path, sizeof path, "%s/bad.json", dir);
    FILE *f = fopen(path, "wb");
    RB_CHECK(f != NULL);
    if (f) {
        fputs("{\n  \"a\": [1,]\n}\n", f);
        fclose(f);
    }
    RB_CHECK(json_parse_file(path, err, sizeof err) == NULL);
    snprintf(expect, sizeof expect, "%s: line 2, column 10: trailing comma before ']'", path);
    RB_CHECK(strcmp(err, expect) == 0);

    /* A folder is not a readable JSON file. */
    RB_CHECK(json_parse_file(dir, err, sizeof err) == NULL);
    RB_CHECK(starts_with(err, dir) && strlen(err) > strlen(dir) + 2);
    remove_tmpdir(dir);
}

static void test_error_buffer_truncation(void)
{
    char err[8];
    memset(err, 'x', sizeof err);
    RB_CHECK(json_parse("[1,]", 4, err, sizeof err) == NULL);
    RB_CHECK(err[7] == '\0' && strcmp(err, "line 1,") == 0);
    char one[1] = {'x'};
    RB_CHECK(json_parse("[", 1, one, sizeof one) == NULL);
    RB_CHECK(one[0] == '\0');
    char untouched[4] = "abc";
    RB_CHECK(json_parse("[", 1, untouched, 0) == NULL);
    RB_CHECK(strcmp(untouched, "abc") == 0);
    RB_CHECK(json_parse("[", 1, NULL, 0) == NULL);
    RB_CHECK(json_parse("[", 1, NULL, 100) == NULL);
    /* Success clears a previous message. */
    char ok[64] = "stale";
    json_value *v = json_parse("[]", 2, ok, sizeof ok);
    RB_CHECK(v != NULL && ok[0] == '\0');
    json_free(v);
}


/* An object of 100,000 keys took 16 s (a linear search per key for duplicates). Now
 * expected constant time per key: the whole parse, under a second with a wide margin (it takes
 * a few tens of ms), and a duplicate at the very end is still found. */
static void test_many_keys_parse_fast(void)
{
    const int n = 100000;
    char *text = malloc((size_t)n * 24 + 16);
    RB_CHECK(text != NULL);
    if (!text)
        return;
    size_t len = 0;
    text[len++] = '{';
    for (int i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s\"key%07d\": %d", i ? ", " : "", i, i);
    size_t open_len = len;
    text[len++] = '}';
    char err[256];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    json_value *v = json_parse(text, len, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("    100000 keys parsed in %.3f s\n", s);
    RB_CHECK(v && v->count == (size_t)n);
    RB_CHECK(s < 1.0);
    json_value *key = json_get(v, "key0099999");
    RB_CHECK(key && key->number == 99999);
    json_value *c = json_clone(v);
    RB_CHECK(c && c->count == (size_t)n);
    json_free(c);
    json_free(v);
    len = open_len + (size_t)sprintf(text + open_len, ", \"key0000000\": 1}");
    RB_CHECK(refused_len(text, len, "duplicate key \"key0000000\""));
    free(text);
}

/* A UTF-8 byte-order mark is named as such, not "expected a value". */
static void test_byte_order_mark_named(void)
{
    RB_CHECK(refused("\xEF\xBB\xBF{\"a\": 1}", "line 1, column 1: a UTF-8 byte-order mark"));
    RB_CHECK(refused("\xEF\xBB\xBF", "byte-order mark"));
    RB_CHECK(accepted("{\"bom\": \"\xEF\xBB\xBF\"}")); /* inside a string it is a character */
}

/* json_parse_file reads at most JSON_MAX_FILE_BYTES: /dev/zero is refused, not read until
 * memory runs out; a file one byte over the cap is refused, one at the cap is read. */
static void test_parse_file_size_cap(void)
{
    char err[512];
    RB_CHECK(json_parse_file("/dev/zero", err, sizeof err) == NULL);
    RB_CHECK(strstr(err, "/dev/zero: larger than 64 MiB") != NULL);
    char dir[64], path[128];
    RB_CHECK(make_tmpdir(dir, sizeof dir) == 0);
    snprintf(path, sizeof path, "%s/big.json", dir);
    FILE *f = fopen(path, "wb");
    RB_CHECK(f != NULL);
    if (!f)
        return;
    /* ["aaa...a"] of exactly JSON_MAX_FILE_BYTES bytes (one value: little memory), then one
     * byte more */
    fputs("[\"", f);
    for (long i = 0; i < JSON_MAX_FILE_BYTES - 4; i++)
        fputc('a', f);
    fputs("\"]", f);
    fclose(f);
    json_value *v = json_parse_file(path, err, sizeof err);
    RB_CHECK(v != NULL);
    json_free(v);
    f = fopen(path, "ab");
    if (f) {
        fputc('\n', f);
        fclose(f);
    }
    RB_CHECK(json_parse_file(path, err, sizeof err) == NULL);
    RB_CHECK(strstr(err, "larger than 64 MiB") != NULL);
    unlink(path);
    remove_tmpdir(dir);
}

static const rbtest_case json_cases[] = {
    {"many_keys_parse_fast", test_many_keys_parse_fast},
    {"byte_order_mark_named", test_byte_order_mark_named},
    {"parse_file_size_cap", test_parse_file_size_cap},
    {"round_trip_nested", test_round_trip_nested},
    {"doubles_round_trip", test_doubles_round_trip},
    {"format_number_shortest", test_format_number_shortest},
    {"nan_inf_written_as_null", test_nan_inf_written_as_null},
    {"booleans_written", test_booleans_written},
    {"error_line_column", test_error_line_column},
    {"duplicate_key", test_duplicate_key},
    {"trailing_garbage", test_trailing_garbage},
    {"number_syntax", test_number_syntax},
    {"number_out_of_range", test_number_out_of_range},
    {"depth_limit", test_depth_limit},
    {"escapes_and_surrogate_pair", test_escapes_and_surrogate_pair},
    {"lone_surrogate", test_lone_surrogate},
    {"invalid_utf8_refused", test_invalid_utf8_refused},
    {"control_char_in_string", test_control_char_in_string},
    {"empty_input", test_empty_input},
    {"object_set_replace_keeps_order", test_object_set_replace_keeps_order},
    {"get_missing", test_get_missing},
    {"pretty_print_exact", test_pretty_print_exact},
    {"string_escaping_on_write", test_string_escaping_on_write},
    {"write_file_atomic", test_write_file_atomic},
    {"write_file_fails_cleanly", test_write_file_fails_cleanly},
    {"parse_file_errors", test_parse_file_errors},
    {"error_buffer_truncation", test_error_buffer_truncation},
};

RB_SUITE(json_suite, "json", json_cases);
