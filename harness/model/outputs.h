/* SPDX-License-Identifier: MIT */
/*
 * The files a command writes, as one set (no CUDA). A command registers its inputs and its
 * outputs, checks them all before any work, stages each output's text in a temporary file and
 * commits the set: every output is renamed into place only when all of them were written, and
 * on any failure none is left behind.
 *
 * The check (rb_outputs_check), before anything is written:
 * - an output is never an input, nor another output, as a file: device and inode where the file
 *   exists (links followed), else the real path of its folder plus its name;
 * - an output that exists is a regular file: a device, FIFO, socket or folder is refused, and so
 *   is a symbolic link unless the set was made to write through links (the link's target is
 *   then replaced, the link kept);
 * - its folder exists (or, RB_OUT_MAKE_DIRS, its nearest existing ancestor) and files can be
 *   created there; each name the command creates fits NAME_MAX and the path PATH_MAX.
 * Staging: a temporary made by mkstemp (O_CREAT | O_EXCL: never a planted link) in the target's
 * folder, named .rb-XXXXXX whatever the target's name, with the mode of the file it replaces
 * (a new file: 0666 less the umask), written and synced. Commit: the outputs' folders locked
 * (flock, in a fixed order) when there are two outputs or more, so that two commands writing the
 * same names commit one after the other and the files left are one command's; SIGINT, SIGTERM,
 * SIGHUP and every other signal whose default action ends the process held back while the
 * temporaries are renamed (an RB_OUT_NEW output is linked instead, so an existing file of that
 * name is never replaced), then each folder synced. A signal that ends the process before that
 * removes the temporaries (rb_outputs_remove_temporaries, from the handler).
 *
 * Test hooks, through the environment: RB_TEST_FAULT=outputs:enospc@K makes the K-th output
 * staged in the process fail as a full disk would; RB_TEST_FAULT=stall:rename stops the commit,
 * spinning, after every temporary is written and before the first rename;
 * RB_TEST_FAULT=slow:commit waits half a second after each rename.
 */
#ifndef RB_OUTPUTS_H
#define RB_OUTPUTS_H

#include <stddef.h>
#include <stdio.h>

typedef struct rb_outputs rb_outputs;
typedef struct rb_sbuf rb_sbuf; /* util.h */

enum {
    RB_OUT_MAKE_DIRS = 1,      /* the folder may not exist yet: it is made at commit */
    RB_OUT_NEW = 2,            /* never replace a file of that name (commit returns 1) */
    RB_OUT_REPLACES_INPUT = 4, /* may be an input registered as replaceable (an update) */
    /* may be left unstaged: then the set has no such file (one of that name, left by an
     * earlier command, is removed at commit: a chart with no points) */
    RB_OUT_OPTIONAL = 8,
};

/* An empty set; through_links: an output that is a symbolic link is written through (its
 * target replaced) instead of refused. NULL when out of memory. */
rb_outputs *rb_outputs_new(int through_links);
/* Frees the set, removing every temporary it staged and did not commit. */
void rb_outputs_free(rb_outputs *o);

/* Registers an input (what names it in messages: "OLD", "--expect"); replaceable: an output
 * flagged RB_OUT_REPLACES_INPUT may be this file. A missing input is not an error here. 0, or
 * -1 when out of memory. */
int rb_outputs_input(rb_outputs *o, const char *path, const char *what, int replaceable);
/* Registers an output; its index, or -1 when the set is full. */
int rb_outputs_add(rb_outputs *o, const char *path, const char *what, unsigned flags);
int rb_outputs_count(const rb_outputs *o);
const char *rb_outputs_path(const rb_outputs *o, int index);
/* Forgets the outputs from index on (their temporaries removed): a retry under another name. */
void rb_outputs_drop_from(rb_outputs *o, int index);

/* The checks above, for every output. 0, or -1 with one line in err naming the path. */
int rb_outputs_check(rb_outputs *o, char *err, size_t err_size);
/* Writes parts[0..n) one after the other into output index's temporary (checking the set
 * first if it was not). 0, or -1 with "PATH: reason" in err (the temporary removed). */
int rb_outputs_stage(rb_outputs *o, int index, const char *const *parts, int n_parts, char *err,
                     size_t err_size);
int rb_outputs_stage_text(rb_outputs *o, int index, const char *text, char *err, size_t err_size);
/* Staging in pieces, for a text too large to hold: rb_outputs_open makes output index's
 * temporary (as rb_outputs_stage does) and returns a stream onto it; rb_outputs_close flushes,
 * syncs and closes it. 0, or -1 with "PATH: reason" in err (the temporary removed; a write that
 * failed on the way, a full disk, fails here). An output still open is not staged. */
FILE *rb_outputs_open(rb_outputs *o, int index, char *err, size_t err_size);
int rb_outputs_close(rb_outputs *o, int index, FILE *stream, char *err, size_t err_size);
/* Output index staged from what make(b, ctx) adds to b, an rb_sbuf (util.h) whose sink is the
 * output's temporary: a text of any size in the memory of a piece of it. 0, or -1 with "PATH:
 * reason" (or "PATH: out of memory") in err. */
int rb_outputs_stage_made(rb_outputs *o, int index, void (*make)(rb_sbuf *b, const void *ctx),
                          const void *ctx, char *err, size_t err_size);
/* The text staged for output index, to read again (a report that holds a chart); NULL when it
 * is not staged or cannot be opened. The caller closes it. */
FILE *rb_outputs_read(const rb_outputs *o, int index);
/* A scratch file beside output index (its folder, made if it must be: the disk the output goes
 * to), already unlinked: read and write, gone when closed. NULL with "PATH: reason" in err. */
FILE *rb_outputs_scratch(rb_outputs *o, int index, char *err, size_t err_size);
/* 1 when output index is staged (written and closed), ready to commit. */
int rb_outputs_staged(const rb_outputs *o, int index);
/* Renames every staged output into place. 0; 1 when an RB_OUT_NEW name exists by now (nothing
 * was renamed; the temporaries are kept for a retry under another name); -1 with one line in
 * err (an output not staged and not RB_OUT_OPTIONAL, a folder that cannot be made, a rename
 * that failed: the outputs not yet renamed are removed). An RB_OUT_OPTIONAL output left
 * unstaged is removed where it exists as a regular file. */
int rb_outputs_commit(rb_outputs *o, char *err, size_t err_size);

/* Unlinks every temporary of every set of the process: async-signal-safe, for a handler that
 * ends the process. */
void rb_outputs_remove_temporaries(void);

/* Files can be created in dir, or in its nearest existing ancestor when dir does not exist yet
 * (a probe made and removed; no folder made). 0, or -1 with one line in err. */
int rb_dir_writable(const char *dir, char *err, size_t err_size);

/* Takes the lock of path: a POSIX record lock on <path>.lock (made, with its folder, when
 * missing), waited for with one line printed when another process holds it. Held until
 * rb_unlock or the process ends. A descriptor, or -1 with one line in err. */
int rb_lock_beside(const char *path, char *err, size_t err_size);
void rb_unlock(int fd);

/* One output, checked, staged and committed (the same mechanism): 0, or -1 with "PATH: reason"
 * in err and nothing left behind. */
int rb_write_file_atomic(const char *path, const char *text, char *err, size_t err_size);
/* The check alone for one output, before any work (make_dirs: RB_OUT_MAKE_DIRS). */
int rb_output_file_ok(const char *path, int make_dirs, char *err, size_t err_size);

#endif
