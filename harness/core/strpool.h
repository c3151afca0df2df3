/* SPDX-License-Identifier: MIT */
/*
 * A pool of strings kept for a while, packed end to end in large blocks (no allocation, header
 * or slack per string) and freed together: the names and evidence of the tens of thousands of
 * rows compare and history keep after their documents are gone take little more than their
 * text. A string met lately (a variant's name, a roof, an evidence line that repeats) is kept
 * once: a direct-mapped cache of the last ones finds it. A zeroed rb_strpool is an empty one.
 */
#ifndef RB_STRPOOL_H
#define RB_STRPOOL_H

#include <stddef.h>

#define RB_STRPOOL_CACHE 1024

typedef struct rb_strpool_block rb_strpool_block;

typedef struct rb_strpool {
    rb_strpool_block *blocks;
    const char *recent[RB_STRPOOL_CACHE];
} rb_strpool;

/* The pool's copy of s (the one it has, when it met s lately), valid until rb_strpool_free;
 * NULL when out of memory. */
const char *rb_strpool_add(rb_strpool *p, const char *s);
void rb_strpool_free(rb_strpool *p);

#endif
