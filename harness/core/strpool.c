/* SPDX-License-Identifier: MIT */
#include "strpool.h"

#include <stdlib.h>
#include <string.h>

/* 64 KiB a block; a string longer than a quarter of that has a block of its own. */
#define RB_STRPOOL_BLOCK_BYTES ((size_t)64 << 10)

struct rb_strpool_block {
    rb_strpool_block *next;
    size_t used, cap;
    char text[];
};

static size_t text_hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

/* n bytes in the pool (a new block when the current one is full), or NULL. */
static char *pool_bytes(rb_strpool *p, size_t n)
{
    rb_strpool_block *b = p->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > RB_STRPOOL_BLOCK_BYTES / 4 ? n : RB_STRPOOL_BLOCK_BYTES;
        rb_strpool_block *fresh = malloc(sizeof *fresh + cap);
        if (!fresh)
            return NULL;
        fresh->used = 0;
        fresh->cap = cap;
        if (b && n > RB_STRPOOL_BLOCK_BYTES / 4) { /* a long one: keep filling the current */
            fresh->next = b->next;
            b->next = fresh;
        } else {
            fresh->next = b;
            p->blocks = fresh;
        }
        b = fresh;
    }
    char *at = b->text + b->used;
    b->used += n;
    return at;
}

const char *rb_strpool_add(rb_strpool *p, const char *s)
{
    size_t n = strlen(s);
    const char **seen = &p->recent[text_hash(s, n) & (RB_STRPOOL_CACHE - 1)];
    if (*seen && !strcmp(*seen, s))
        return *seen;
    char *copy = pool_bytes(p, n + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, n + 1);
    *seen = copy;
    return copy;
}

void rb_strpool_free(rb_strpool *p)
{
    while (p->blocks) {
        rb_strpool_block *next = p->blocks->next;
        free(p->blocks);
        p->blocks = next;
    }
    memset(p, 0, sizeof *p);
}
