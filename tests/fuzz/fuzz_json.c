/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the JSON reader (harness/model/json.c) and the readers of the child's result
 * records built on it (harness/model/result.c). Properties checked for every input:
 * - a refusal names its place: the message starts with "line L, column C: ";
 * - an accepted document survives the writer: written (one line and pretty) and read back it is
 *   equal to itself, and the writer's text reads back to the same text;
 * - json_clone gives an equal tree, and json_get finds every member of every object at its own
 *   position (keys are unique once parsed);
 * - rb_variant_from_json, rb_kernel_from_json and rb_extras_from_json take any object without
 *   undefined behaviour (ASan, UBSan).
 * The input is libFuzzer's buffer of exactly size bytes, not NUL-terminated, so any read past
 * the end is an ASan finding.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "result.h"

/* Every member of every object is found by its key, at its own position. */
static void check_lookup(const json_value *v)
{
    if (v->type != JSON_ARRAY && v->type != JSON_OBJECT)
        return;
    for (size_t i = 0; i < v->count; i++) {
        if (v->type == JSON_OBJECT)
            FUZZ_REQUIRE(json_get(v, v->keys[i]) == v->items[i]);
        check_lookup(v->items[i]);
    }
}

/* The result-record readers accept or refuse, never misbehave. */
static void read_records(const json_value *v)
{
    char err[256];
    rb_variant_result var;
    rb_kernel_result k;
    rb_extra extras[RB_MAX_EXTRAS];
    int n_extras = 0;
    if (v->type != JSON_OBJECT)
        return;
    if (rb_variant_from_json(v, &var, err, sizeof err) == 0)
        FUZZ_REQUIRE(var.n_extras >= 0 && var.n_extras <= RB_MAX_EXTRAS);
    (void)rb_kernel_from_json(v, &k, err, sizeof err);
    if (rb_extras_from_json(v, extras, &n_extras, err, sizeof err) == 0)
        FUZZ_REQUIRE(n_extras >= 0 && n_extras <= RB_MAX_EXTRAS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    json_value *v = json_parse((const char *)data, size, err, sizeof err);
    if (!v) {
        FUZZ_REQUIRE(strncmp(err, "line ", 5) == 0 && strstr(err, ", column ") != NULL);
        return 0;
    }
    fuzz_json_round_trip(v);
    json_value *copy = json_clone(v);
    FUZZ_REQUIRE(copy != NULL && fuzz_json_equal(v, copy));
    json_free(copy);
    check_lookup(v);
    read_records(v);
    json_free(v);
    return 0;
}
