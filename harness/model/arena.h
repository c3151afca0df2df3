/* SPDX-License-Identifier: MIT */
/*
 * Memory in large blocks, freed together: no allocation, header or slack per item. An rb_arena
 * holds a parsed JSON document's values (json.c); an rb_strpool the texts of the tens of
 * thousands of rows compare and history keep, and of the points plot draws, after their
 * documents are gone, each a little more than its text. A string the pool met lately (a
 * variant's name, a roof, an evidence line that repeats) is kept once: a direct-mapped cache of
 * the last ones finds it. A zeroed rb_arena or rb_strpool is an empty one.
 */
#ifndef RB_ARENA_H
#define RB_ARENA_H

#include <stddef.h>

typedef struct rb_arena_block rb_arena_block;

typedef struct rb_arena {
    rb_arena_block *blocks;
    size_t block_bytes; /* 0: 64 KiB; an item of more than a quarter of it has a block its own */
} rb_arena;

/* n bytes aligned to align (a power of two, at most 16), valid until rb_arena_free; NULL when
 * out of memory. */
void *rb_arena_alloc(rb_arena *a, size_t n, size_t align);
void rb_arena_free(rb_arena *a);

#define RB_STRPOOL_CACHE 1024

typedef struct rb_strpool {
    rb_arena arena;
    const char *recent[RB_STRPOOL_CACHE];
} rb_strpool;

/* The pool's copy of s (the one it has, when it met s lately), valid until rb_strpool_free;
 * NULL when out of memory. */
const char *rb_strpool_add(rb_strpool *p, const char *s);
void rb_strpool_free(rb_strpool *p);

#endif
