/* SPDX-License-Identifier: MIT */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

#define RB_ARENA_DEFAULT_BYTES ((size_t)64 << 10)

struct rb_arena_block {
    rb_arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char bytes[];
};

void *rb_arena_alloc(rb_arena *a, size_t n, size_t align)
{
    size_t block = a->block_bytes ? a->block_bytes : RB_ARENA_DEFAULT_BYTES;
    rb_arena_block *b = a->blocks;
    size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
    if (!b || at > b->cap || b->cap - at < n) {
        size_t cap = n > block / 4 ? n : block;
        rb_arena_block *fresh = malloc(sizeof *fresh + cap);
        if (!fresh)
            return NULL;
        fresh->used = 0;
        fresh->cap = cap;
        if (b && n > block / 4) { /* a big item: keep filling the current block */
            fresh->next = b->next;
            b->next = fresh;
        } else {
            fresh->next = b;
            a->blocks = fresh;
        }
        b = fresh;
        at = 0;
    }
    b->used = at + n;
    return b->bytes + at;
}

void rb_arena_free(rb_arena *a)
{
    while (a->blocks) {
        rb_arena_block *next = a->blocks->next;
        free(a->blocks);
        a->blocks = next;
    }
}

static size_t text_hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

const char *rb_strpool_add(rb_strpool *p, const char *s)
{
    size_t n = strlen(s);
    const char **seen = &p->recent[text_hash(s, n) & (RB_STRPOOL_CACHE - 1)];
    if (*seen && !strcmp(*seen, s))
        return *seen;
    char *copy = rb_arena_alloc(&p->arena, n + 1, 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, n + 1);
    *seen = copy;
    return copy;
}

void rb_strpool_free(rb_strpool *p)
{
    rb_arena_free(&p->arena);
    memset(p, 0, sizeof *p);
}
