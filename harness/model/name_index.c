/* SPDX-License-Identifier: MIT */
#include "name_index.h"

#include <stdlib.h>
#include <string.h>

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of name: where it is, or the empty slot where it would go. */
static size_t slot_of(const rb_name_index *ix, const char *name)
{
    size_t mask = ix->cap - 1, j = name_hash(name) & mask;
    while (ix->names[j] && strcmp(ix->names[j], name) != 0)
        j = (j + 1) & mask;
    return j;
}

static int grow(rb_name_index *ix)
{
    size_t cap = ix->cap ? 2 * ix->cap : 16;
    rb_name_index bigger = {calloc(cap, sizeof *bigger.names), calloc(cap, sizeof *bigger.values),
                            cap, ix->n};
    if (!bigger.names || !bigger.values) {
        free(bigger.names);
        free(bigger.values);
        return -1;
    }
    for (size_t i = 0; i < ix->cap; i++)
        if (ix->names[i]) {
            size_t j = slot_of(&bigger, ix->names[i]);
            bigger.names[j] = ix->names[i];
            bigger.values[j] = ix->values[i];
        }
    free(ix->names);
    free(ix->values);
    *ix = bigger;
    return 0;
}

int rb_name_index_put(rb_name_index *ix, const char *name, int value)
{
    if (2 * (ix->n + 1) > ix->cap && grow(ix) != 0)
        return -1;
    size_t j = slot_of(ix, name);
    if (ix->names[j])
        return 1;
    ix->names[j] = name;
    ix->values[j] = value;
    ix->n++;
    return 0;
}

int rb_name_index_get(const rb_name_index *ix, const char *name)
{
    if (ix->cap == 0)
        return -1;
    size_t j = slot_of(ix, name);
    return ix->names[j] ? ix->values[j] : -1;
}

void rb_name_index_free(rb_name_index *ix)
{
    free(ix->names);
    free(ix->values);
    memset(ix, 0, sizeof *ix);
}
