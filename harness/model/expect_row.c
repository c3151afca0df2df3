/* SPDX-License-Identifier: MIT */
#include "expect_row.h"

#include <stdlib.h>
#include <string.h>

int rb_expect_n_rows(const json_value *doc)
{
    const json_value *pairs = json_get(doc, "pairs");
    return pairs && pairs->type == JSON_OBJECT ? (int)pairs->count : 0;
}

json_value *rb_expect_rows_object(json_value *doc)
{
    json_value *pairs = json_get(doc, "pairs");
    return pairs && pairs->type == JSON_OBJECT ? pairs : NULL;
}

const char *rb_expect_sm(const json_value *doc)
{
    return json_string_at(json_get(doc, "hardware"), "sm", "");
}

/* The keys of object o into a new array (*n of them); NULL with *n 0 when none. */
static const char **keys_of(const json_value *o, int *n, int *bad)
{
    *n = 0;
    if (!o || o->type != JSON_OBJECT || o->count == 0)
        return NULL;
    const char **keys = malloc(o->count * sizeof *keys);
    *bad |= !keys;
    for (size_t i = 0; keys && i < o->count; i++)
        keys[(*n)++] = o->keys[i];
    return keys;
}

int rb_expect_row_of(const json_value *entry, const char *name, rb_expect_row *r)
{
    const json_value *rec = json_get(entry, "recorded"), *mark = json_get(entry, "stale");
    const json_value *ks = json_get(entry, "kernels");
    int bad = 0;
    memset(r, 0, sizeof *r);
    r->name = name;
    r->nvcc = json_string_at(rec, "nvcc", NULL);
    r->has_nvcc = json_get(rec, "nvcc") != NULL;
    r->arch = json_string_at(rec, "arch", NULL);
    r->cuda = json_string_at(rec, "cuda", NULL);
    r->git = json_string_at(rec, "git", NULL);
    r->date = json_string_at(rec, "date", NULL);
    r->stale = mark != NULL;
    r->stale_git = json_string_at(mark, "git", NULL);
    r->stale_date = json_string_at(mark, "date", NULL);
    r->stale_why = json_string_at(mark, "why", NULL);
    r->variants = keys_of(json_get(entry, "variants"), &r->n_variants, &bad);
    r->skipped = keys_of(json_get(entry, "skipped"), &r->n_skipped, &bad);
    size_t n = ks && ks->type == JSON_ARRAY ? ks->count : 0;
    if (n && !(r->kernels = malloc(n * sizeof *r->kernels)))
        bad = 1;
    for (size_t i = 0; !bad && i < n; i++) {
        rb_expect_row_kernel *k = &r->kernels[r->n_kernels++];
        k->variant = json_string_at(ks->items[i], "variant", NULL);
        k->name = json_string_at(ks->items[i], "name", NULL);
        k->sass_hash = json_string_at(ks->items[i], "sass_hash", NULL);
        k->block_threads = json_number_at(ks->items[i], "block_threads");
        k->dyn_smem = json_number_at(ks->items[i], "dyn_smem_bytes");
    }
    if (bad)
        rb_expect_row_free(r);
    return bad ? -1 : 0;
}

int rb_expect_row_read(const json_value *doc, int i, rb_expect_row *r)
{
    const json_value *pairs = json_get(doc, "pairs");
    return rb_expect_row_of(pairs->items[i], pairs->keys[i], r);
}

int rb_expect_row_find(const json_value *doc, const char *name, rb_expect_row *r)
{
    const json_value *pairs = json_get(doc, "pairs");
    for (size_t i = 0; pairs && pairs->type == JSON_OBJECT && i < pairs->count; i++)
        if (!strcmp(pairs->keys[i], name))
            return rb_expect_row_of(pairs->items[i], pairs->keys[i], r) == 0 ? 1 : -1;
    memset(r, 0, sizeof *r);
    return 0;
}

void rb_expect_row_free(rb_expect_row *r)
{
    free(r->variants);
    free(r->skipped);
    free(r->kernels);
    memset(r, 0, sizeof *r);
}

static int name_in(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

int rb_expect_row_holds(const rb_expect_row *r, const char *variant)
{
    return name_in(r->variants, r->n_variants, variant);
}

int rb_expect_row_skips(const rb_expect_row *r, const char *variant)
{
    return name_in(r->skipped, r->n_skipped, variant);
}

int rb_expect_row_as_results(const json_value *doc, const char *row, rb_results_cmp_doc *d,
                             rb_results_cmp_pair *p)
{
    const json_value *ep = json_get(json_get(doc, "pairs"), row);
    const json_value *vs = json_get(ep, "variants");
    size_t n = vs && vs->type == JSON_OBJECT ? vs->count : 0;
    memset(p, 0, sizeof *p);
    if (!ep)
        return 0;
    p->name = row;
    p->size = json_number_at(ep, "size");
    p->v = rb_arena_alloc(&d->arena, (n ? n : 1) * sizeof *p->v, 8);
    if (!p->v || (json_get(ep, "platform") &&
                  rb_results_cmp_platform_read(json_get(ep, "platform"), d) != 0))
        return -1;
    for (size_t k = 0; k < n; k++) {
        rb_results_cmp_variant *v = &p->v[p->n_variants++];
        if (rb_results_cmp_variant_read(vs->items[k], v, d) != 0)
            return -1;
        v->name = vs->keys[k];
    }
    return rb_results_cmp_kernels_read(json_get(ep, "kernels"), &p->kernels, &p->n_kernels, d);
}
