/* SPDX-License-Identifier: MIT */
/*
 * Runs a function in a child process and hands each JSON line it reports to a callback, with a
 * watchdog: a child that outlives its time is killed. The parent never touches CUDA, so it can
 * fork any number of children (CUDA contexts do not survive fork).
 */
#ifndef RB_RUNNER_H
#define RB_RUNNER_H

#include <stddef.h>

#include "core/json.h"

typedef int (*rb_child_fn)(void *arg, int fd);
typedef void (*rb_line_fn)(void *arg, const json_value *line);

/* Returns the child's exit status (0..255), or -1 when it was killed or crashed; then why holds
 * the reason ("timed out after 300 s (killed by the watchdog)", "crashed: Segmentation fault"). */
int rb_run_child(rb_child_fn fn, void *fn_arg, double timeout_s, rb_line_fn on_line, void *line_arg,
                 char *why, size_t why_size);

#endif
