/* SPDX-License-Identifier: MIT */
#include "fuzz_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "fuzz property broken: %s (%s:%d)\n", what, file, line);
    abort();
}

int fuzz_json_equal(const json_value *a, const json_value *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case JSON_NULL: return 1;
    case JSON_BOOL: return a->boolean == b->boolean;
    case JSON_NUMBER: return a->number == b->number && !signbit(a->number) == !signbit(b->number);
    case JSON_STRING: return strcmp(a->string, b->string) == 0;
    case JSON_ARRAY:
    case JSON_OBJECT:
        if (a->count != b->count)
            return 0;
        for (size_t i = 0; i < a->count; i++) {
            if (a->type == JSON_OBJECT && strcmp(a->keys[i], b->keys[i]) != 0)
                return 0;
            if (!fuzz_json_equal(a->items[i], b->items[i]))
                return 0;
        }
        return 1;
    }
    return 0;
}

/* One indent: write, re-read, compare, write again and compare the texts. */
static void round_trip_indent(const json_value *v, int indent)
{
    char err[512];
    char *text = json_write(v, indent);
    FUZZ_REQUIRE(text != NULL);
    json_value *back = json_parse(text, strlen(text), err, sizeof err);
    if (!back)
        fprintf(stderr, "re-reading the writer's text failed: %s\n", err);
    FUZZ_REQUIRE(back != NULL);
    FUZZ_REQUIRE(fuzz_json_equal(v, back));
    char *again = json_write(back, indent);
    FUZZ_REQUIRE(again != NULL);
    FUZZ_REQUIRE(strcmp(text, again) == 0);
    free(again);
    free(text);
    json_free(back);
}

void fuzz_json_round_trip(const json_value *v)
{
    round_trip_indent(v, 0);
    round_trip_indent(v, 2);
}

int fuzz_count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}
