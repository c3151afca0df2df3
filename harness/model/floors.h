/* SPDX-License-Identifier: MIT */
/*
 * Which expectation file sets the floors of compare and history, found the same way from any
 * folder: the file given with --expect, none with --expect none, else
 * <repository>/expectations/<hardware-key>.json, where <repository> is the tree the binary was
 * built from (rb_floors_source_root) and <hardware-key> is the key the results record, checked
 * to be a slug (rb_is_hardware_key) before it names a path. The folder the command runs in plays
 * no part: the same files give the same floors, and the same output, from anywhere.
 */
#ifndef RB_FLOORS_H
#define RB_FLOORS_H

#include <stddef.h>

#include "expect.h"
#include "util.h"

typedef struct rb_floors {
    int have;                         /* an expectation file was loaded into expect */
    rb_expect expect;                 /* its validated document */
    char path[RB_PATH_BUF];           /* the file's canonical path (realpath), when have */
    char why_none[RB_PATH_BUF + 200]; /* when !have: why no file set the floors */
} rb_floors;

/* The repository the binary was built from: built_root (the folder the Makefile compiled in)
 * when it holds expectations/ and a Makefile, else the folder two above the running binary's
 * own (<root>/build/<arch>/roofbench) when that does. Canonical path into out; 0, or -1 when
 * neither holds (out is then ""). */
int rb_floors_source_root(const char *built_root, char *out, size_t out_size);

/* Resolves and loads the floors of runs whose hardware keys are keys[0..n_keys) (an entry may
 * be NULL: the run names none). expect_path: --expect FILE (NULL: none given); expect_none:
 * --expect none; source_root: rb_floors_source_root's answer ("" or NULL: unknown). A file
 * that is given but cannot be used, or a found file that is not a valid expectation file, is an
 * error: -1 with one line in err (exit 2). Otherwise 0, with f->have or f->why_none set. */
int rb_floors_resolve(const char *expect_path, int expect_none, const char *const *keys, int n_keys,
                      const char *source_root, rb_floors *f, char *err, size_t err_size);
void rb_floors_free(rb_floors *f);

/* The first line of compare's and history's output, without its newline: which file set the
 * floors (n_from_runs variants judged with the spread of its recorded runs) or why none did. */
void rb_floors_line(const rb_floors *f, int n_from_runs, char *buf, size_t size);

#endif
