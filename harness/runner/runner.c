/* SPDX-License-Identifier: MIT */
#include "runner.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/outputs.h"
#include "model/util.h"

static volatile sig_atomic_t interrupt_signal, waiting_for_child;

#define RB_RUNNER_KEEP_PIDS 32
static int started[RB_RUNNER_KEEP_PIDS], n_started; /* a ring of the last ones */

int rb_runner_children(int *pids, int max)
{
    int have = n_started < RB_RUNNER_KEEP_PIDS ? n_started : RB_RUNNER_KEEP_PIDS;
    int n = have < max ? have : max;
    for (int i = 0; i < n; i++)
        pids[i] = started[(n_started - n + i) % RB_RUNNER_KEEP_PIDS];
    return n;
}

/* The signals whose default action ends the process and that a handler can catch: a closed
 * terminal or dropped ssh session (SIGHUP), a job scheduler's warning or time limit (SIGUSR1,
 * SIGUSR2, SIGALRM, SIGXCPU), a pipe closed early, a file grown too large. Each ends any command
 * as SIGINT and SIGTERM do. */
static const int caught[] = {SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGUSR1, SIGUSR2,
                             SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ};
#define N_CAUGHT ((int)(sizeof caught / sizeof caught[0]))

const char *rb_runner_signal_name(int sig)
{
    static const char *const names[N_CAUGHT] = {"SIGINT",    "SIGTERM", "SIGHUP",  "SIGQUIT",
                                                "SIGUSR1",   "SIGUSR2", "SIGALRM", "SIGPIPE",
                                                "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGXFSZ"};
    for (int i = 0; i < N_CAUGHT; i++)
        if (caught[i] == sig)
            return names[i];
    return "a signal";
}

/* While a child runs, the signal is recorded and rb_run_child ends the child and returns; in
 * the parent's own work (reading, comparing, drawing, selecting pairs: any loop, however long)
 * the process ends at once, as the default action would, without a temporary file left. */
static void on_interrupt(int sig)
{
    static const char head[] = "roofbench: interrupted by ";
    const char *name = rb_runner_signal_name(sig);
    interrupt_signal = sig;
    if (waiting_for_child)
        return;
    rb_outputs_remove_temporaries();
    if (sig != SIGPIPE) { /* (list | head: the reader had what it wanted, as by default) */
        (void)!write(STDERR_FILENO, head, sizeof head - 1);
        (void)!write(STDERR_FILENO, name, strlen(name));
        (void)!write(STDERR_FILENO, "\n", 1);
    }
    signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    raise(sig);
}

void rb_runner_catch_interrupts(void)
{
    struct sigaction sa, before;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* no SA_RESTART: poll and waitpid return EINTR */
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_CAUGHT; i++) {
        /* a signal the process was started ignoring (nohup's SIGHUP) stays ignored */
        if (sigaction(caught[i], NULL, &before) == 0 && before.sa_handler == SIG_IGN &&
            caught[i] != SIGINT && caught[i] != SIGTERM)
            continue;
        sigaction(caught[i], &sa, NULL);
    }
}

void rb_runner_default_signals(void)
{
    for (int i = 0; i < N_CAUGHT; i++) {
        struct sigaction now;
        if (sigaction(caught[i], NULL, &now) == 0 && now.sa_handler == on_interrupt)
            signal(caught[i], SIG_DFL);
    }
}

int rb_runner_interrupted(void)
{
    return interrupt_signal;
}

/* Splits what arrived into lines and parses each; an unparsable line is reported as such. */
static void deliver_lines(char *buf, size_t *len, rb_line_fn on_line, void *line_arg)
{
    size_t start = 0;
    for (size_t i = 0; i < *len; i++) {
        if (buf[i] != '\n')
            continue;
        char err[200];
        json_value *v = json_parse(buf + start, i - start, err, sizeof err);
        if (v) {
            on_line(line_arg, v);
            json_free(v);
        } else {
            fprintf(stderr, "roofbench: unreadable report from a child: %s\n", err);
        }
        start = i + 1;
    }
    memmove(buf, buf + start, *len - start);
    *len -= start;
}

/* Reads a child's report lines from fd into on_line until the child closes it, timeout_s pass
 * or a signal is caught. 1 when the time ran out, else 0. */
static int read_child_lines(int fd, double timeout_s, rb_line_fn on_line, void *line_arg)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    double deadline = rb_now_s() + timeout_s;
    int timed_out = 0;
    for (;;) {
        double left = deadline - rb_now_s();
        if (interrupt_signal)
            break;
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        /* At most 100 ms per wait: a signal that lands just before poll is seen in time. */
        struct pollfd pfd = {fd, POLLIN, 0};
        int rc = poll(&pfd, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0)
            continue;
        if (len + 4096 > cap) {
            char *bigger = buf ? realloc(buf, cap * 2) : NULL;
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t k = buf ? read(fd, buf + len, cap - len) : -1;
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
        deliver_lines(buf, &len, on_line, line_arg);
    }
    free(buf);
    return timed_out;
}

int rb_run_child(rb_child_fn fn, void *fn_arg, double timeout_s, rb_line_fn on_line, void *line_arg,
                 char *why, size_t why_size)
{
    int fds[2];
    why[0] = '\0';
    if (interrupt_signal) {
        rb_fmt(why, why_size, "interrupted by %s", strsignal(interrupt_signal));
        return -2;
    }
    fflush(stdout);
    fflush(stderr);
    if (pipe(fds) != 0) {
        rb_fmt(why, why_size, "pipe: %s", strerror(errno));
        return -1;
    }
    waiting_for_child = 1; /* from before the fork: the child is never left running alone */
    pid_t pid = fork();
    if (pid < 0) {
        waiting_for_child = 0;
        rb_fmt(why, why_size, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        rb_runner_default_signals(); /* a terminal's Ctrl-C ends the child with the parent */
        int rc = fn(fn_arg, fds[1]);
        close(fds[1]);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    started[n_started++ % RB_RUNNER_KEEP_PIDS] = (int)pid;
    close(fds[1]);
    int timed_out = read_child_lines(fds[0], timeout_s, on_line, line_arg);
    int interrupted = interrupt_signal;
    if (timed_out || interrupted)
        kill(pid, SIGKILL);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    waiting_for_child = 0;
    if (interrupted || interrupt_signal) {
        interrupted = interrupted ? interrupted : interrupt_signal;
        rb_fmt(why, why_size, "interrupted by %s", strsignal(interrupted));
        return -2;
    }
    if (timed_out) {
        rb_fmt(why, why_size, "timed out after %g s (killed by the watchdog)", timeout_s);
        return -1;
    }
    if (WIFSIGNALED(status)) {
        rb_fmt(why, why_size, "crashed: %s", strsignal(WTERMSIG(status)));
        return -1;
    }
    return WEXITSTATUS(status);
}
