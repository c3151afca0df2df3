/* SPDX-License-Identifier: MIT */
/*
 * `roofbench list`'s table: a line per pair (name, least compute capability, smoke and full size,
 * what the size counts, variants) and the lines under it (its pattern, its work, its inputs),
 * fitted to the terminal's width (report/table.h). The runner fills the rows from the registry;
 * this file only lays them out.
 */
#ifndef RB_LIST_OUT_H
#define RB_LIST_OUT_H

#include <stdio.h>

typedef struct rb_list_row {
    const char *name, *min_cc, *smoke, *full, *counts, *variants;
    const char *details; /* the lines under the row, each ending in '\n' */
} rb_list_row;

/* The table of n rows, then a "not built: NAME" line for each of not_built (NULL-ended). */
void rb_list_print(FILE *f, const rb_list_row *rows, int n, const char *const *not_built);

#endif
