/* SPDX-License-Identifier: MIT */
/*
 * A map from names to small integers (a position in an array), found in constant expected time:
 * what keeps compare, plot and the results checks linear in their input when a file holds
 * thousands of pairs or variants. The names are borrowed: they must outlive the index. A zeroed
 * rb_name_index is an empty one.
 */
#ifndef RB_NAME_INDEX_H
#define RB_NAME_INDEX_H

#include <stddef.h>

typedef struct rb_name_index {
    const char **names; /* NULL: an empty slot */
    int *values;
    size_t cap, n; /* cap: a power of two, at least twice n */
} rb_name_index;

/* Adds name -> value: 0 added, 1 the name was there already (its value kept), -1 out of memory. */
int rb_name_index_put(rb_name_index *ix, const char *name, int value);
/* The value of name, or -1 when it is not there. */
int rb_name_index_get(const rb_name_index *ix, const char *name);
void rb_name_index_free(rb_name_index *ix);

#endif
