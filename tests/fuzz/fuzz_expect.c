/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the expectation loader (harness/model/expect.c). rb_expect_load is
 * json_parse_file + rb_expect_validate + rb_expect_roofs; this target runs the same steps on the
 * fuzzer's text (no file in between) and then uses an accepted document the way a run does:
 * - a refusal says why (a non-empty message);
 * - the roofs of an accepted file are positive or unknown (NaN), never zero, negative or Inf;
 * - rb_expect_apply on results that match the file exactly (same pair names, sizes, shapes and
 *   medians) judges every variant pass, appends the variants the results lack as "missing",
 *   never more than RB_MAX_VARIANTS, and reports no failing variant;
 * - rb_expect_update with those results writes a document that validates again and survives
 *   the writer (written, read back, equal, validated).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "fuzz_common.h"
#include "util.h"

/* At most this many of the file's pairs are turned into results (each is ~10 KB). */
#define FUZZ_PAIRS 3
/* 2^53: larger sizes are not exact integers in a double; the results never hold them. */
#define FUZZ_MAX_SIZE 9007199254740992.0

static rb_pair_result fuzz_pairs[FUZZ_PAIRS];

/* A result for the file's pair entry (name, entry) that matches it: its size, its shape when the
 * shape is "RxC" in rb_parse_size's syntax, one variant per expected variant (up to the limit,
 * short names only) timed exactly at the expected median. 0, or -1 when the entry cannot be a
 * run's result (name too long, size not an exact positive integer). */
static int make_result(const char *name, const json_value *entry, rb_pair_result *p)
{
    const json_value *size = json_get(entry, "size"), *shape = json_get(entry, "shape");
    const json_value *vs = json_get(entry, "variants");
    memset(p, 0, sizeof *p);
    if (strlen(name) >= sizeof p->name || !(size->number >= 1 && size->number <= FUZZ_MAX_SIZE) ||
        size->number != floor(size->number))
        return -1;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->size = p->full_size = (uint64_t)size->number;
    p->rows = 1;
    p->cols = p->size;
    rb_size s;
    char err[128];
    if (shape && rb_parse_size(shape->string, &s, err, sizeof err) == 0 && s.rows > 1) {
        p->rows = s.rows;
        p->cols = s.cols;
    }
    p->status = RB_PAIR_OK;
    for (size_t k = 0; k < vs->count && p->n_variants < RB_MAX_VARIANTS - 1; k++) {
        if (strlen(vs->keys[k]) >= RB_NAME_MAX)
            continue;
        rb_variant_result *v = &p->v[p->n_variants++];
        rb_variant_result_init(v, vs->keys[k], RB_ROLE_STEP, RB_UNIT_NONE, NAN);
        v->valid = v->timed = 1;
        v->time_ms.median = json_get(vs->items[k], "median_ms")->number;
        v->time_ms.noise = json_get(vs->items[k], "noise")->number;
    }
    return 0;
}

/* Results for the first pairs of the file; returns how many. */
static int make_results(const json_value *doc)
{
    const json_value *all = json_get(doc, "pairs");
    int n = 0;
    for (size_t i = 0; i < all->count && n < FUZZ_PAIRS; i++)
        if (make_result(all->keys[i], all->items[i], &fuzz_pairs[n]) == 0)
            n++;
    return n;
}

/* Does the file's entry for p apply to it (same size, same shape text)? The oracle for apply. */
static int entry_applies(const json_value *doc, const rb_pair_result *p)
{
    const json_value *entry = json_get(json_get(doc, "pairs"), p->name);
    const json_value *shape = json_get(entry, "shape");
    char mine[64] = "";
    if (p->rows > 1)
        snprintf(mine, sizeof mine, "%llux%llu", (unsigned long long)p->rows,
                 (unsigned long long)p->cols);
    return json_get(entry, "size")->number == (double)p->size &&
           strcmp(shape ? shape->string : "", mine) == 0;
}

static void check_apply(const rb_expect *e)
{
    int n = make_results(e->doc);
    int before[FUZZ_PAIRS];
    for (int i = 0; i < n; i++)
        before[i] = fuzz_pairs[i].n_variants;
    FUZZ_REQUIRE(rb_expect_apply(e, fuzz_pairs, n) == 0);
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &fuzz_pairs[i];
        int applies = entry_applies(e->doc, p);
        FUZZ_REQUIRE(p->n_variants <= RB_MAX_VARIANTS);
        FUZZ_REQUIRE(applies || p->n_variants == before[i]);
        for (int k = 0; k < p->n_variants; k++) {
            const rb_variant_result *v = &p->v[k];
            if (k >= before[i])
                FUZZ_REQUIRE(v->verdict == RB_VERDICT_MISSING && v->expected_ms > 0);
            else
                FUZZ_REQUIRE(v->verdict == (applies ? RB_VERDICT_PASS : RB_VERDICT_NEW));
        }
    }
}

static void check_update(const rb_expect *e)
{
    char err[512];
    int n = make_results(e->doc);
    json_value *doc = json_clone(e->doc), *prov = json_new_object();
    FUZZ_REQUIRE(doc != NULL && prov != NULL && json_set_string(prov, "git", "fuzz") == 0);
    if (rb_expect_update(&doc, fuzz_pairs, n, NULL, NULL, prov, err, sizeof err) != 0)
        fuzz_fail(__FILE__, __LINE__, err);
    if (rb_expect_validate(doc, err, sizeof err) != 0)
        fuzz_fail(__FILE__, __LINE__, err); /* a recorded file must load again */
    fuzz_json_round_trip(doc);
    json_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    json_value *doc = json_parse((const char *)data, size, err, sizeof err);
    if (!doc)
        return 0;
    if (rb_expect_validate(doc, err, sizeof err) != 0) {
        FUZZ_REQUIRE(err[0] != '\0');
        json_free(doc);
        return 0;
    }
    rb_expect e = {.doc = doc};
    rb_expect_roofs(json_get(doc, "peaks"), &e.peaks);
    rb_expect_roofs(json_get(doc, "ceilings"), &e.ceilings);
    const rb_roofs *roofs[] = {&e.peaks, &e.ceilings};
    for (int r = 0; r < 2; r++) {
        for (int k = 0; k < RB_ROOF_COUNT; k++)
            FUZZ_REQUIRE(isnan(roofs[r]->value[k]) ||
                         (roofs[r]->value[k] > 0 && !isinf(roofs[r]->value[k])));
    }
    check_apply(&e);
    check_update(&e);
    rb_expect_free(&e);
    return 0;
}
