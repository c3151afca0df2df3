/* SPDX-License-Identifier: MIT */
/*
 * Runs a function in a child process and hands each JSON line it reports to a callback, with a
 * watchdog: a child that outlives its time is killed. The parent never touches CUDA, so it can
 * fork any number of children (CUDA contexts do not survive fork).
 */
#ifndef RB_RUNNER_H
#define RB_RUNNER_H

#include <stddef.h>

#include "model/json.h"

typedef int (*rb_child_fn)(void *arg, int fd);
typedef void (*rb_line_fn)(void *arg, const json_value *line);

/* Returns the child's exit status (0..255), or -1 when it was killed or crashed; then why holds
 * the reason ("timed out after 300 s (killed by the watchdog)", "crashed: Segmentation fault").
 * After SIGINT or SIGTERM (rb_runner_catch_interrupts), the child is killed at once (within
 * 100 ms) and waited for, and -2 is returned ("interrupted by Interrupt"); no child is started
 * once a signal has arrived. */
int rb_run_child(rb_child_fn fn, void *fn_arg, double timeout_s, rb_line_fn on_line, void *line_arg,
                 char *why, size_t why_size);

/* Catches SIGINT and SIGTERM, and the other signals whose default action ends the process
 * (SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ;
 * those the process was started ignoring, nohup's SIGHUP, stay ignored). While a child runs
 * they are recorded and end the child; the caller asks rb_runner_interrupted() after each child
 * and stops. Anywhere else the process ends at once by the signal (one line said, its
 * temporary files removed: model/outputs.h), so no phase of the parent's own work can outlast a
 * Ctrl-C or a closed terminal, nor leave a temporary behind. */
void rb_runner_catch_interrupts(void);
/* The caught signals back to their default action (a child process's). */
void rb_runner_default_signals(void);
/* The signal that arrived (SIGINT, SIGTERM, ...), or 0. */
int rb_runner_interrupted(void);
/* "SIGINT", "SIGHUP", ... for a caught signal; "a signal" for another. */
const char *rb_runner_signal_name(int sig);

/* The PIDs of the children this process started so far (the last max of them, oldest first)
 * into pids; returns how many. A child reads its parent's list as it was when it was forked:
 * the run's earlier children, which are the run's own should NVML still list one
 * (model/contention.h). */
int rb_runner_children(int *pids, int max);

#endif
