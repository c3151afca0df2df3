/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/text.h"
#include "model/util.h"

double rb_progress_eta_s(const double *expected_s, const double *actual_s, int n, int done)
{
    double known_sum = 0.0, scale_actual = 0.0, scale_expected = 0.0, actual_sum = 0.0;
    int known = 0;
    for (int i = 0; expected_s && i < n; i++)
        if (expected_s[i] > 0) {
            known_sum += expected_s[i];
            known++;
        }
    for (int i = 0; i < done; i++) {
        actual_sum += actual_s[i];
        if (expected_s && expected_s[i] > 0 && actual_s[i] > 0) {
            scale_actual += actual_s[i];
            scale_expected += expected_s[i];
        }
    }
    double stand_in = known ? known_sum / known : done > 0 ? actual_sum / done : NAN;
    if (isnan(stand_in))
        return NAN;
    double scale = scale_expected > 0 ? scale_actual / scale_expected : 1.0;
    scale = fmin(2.0, fmax(0.5, scale));
    double left = 0.0;
    for (int i = done; i < n; i++)
        left += expected_s && expected_s[i] > 0 ? expected_s[i] : stand_in;
    return left * scale;
}

static struct {
    int n, in_place, drawn;
    const double *expected_s;
    double t0;
    char line[160];
} progress;

/* In place only where the line cannot be torn by the run's own output reaching the terminal
 * later: stderr a terminal, and stdout the same terminal (our prints hide and redraw it) or a
 * file. Through a pipe (| tee) the output arrives whenever tee writes it. */
static int can_draw_in_place(void)
{
    struct stat st;
    if (!isatty(STDERR_FILENO))
        return 0;
    return isatty(STDOUT_FILENO) || (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode));
}

void rb_progress_start(int n, const double *expected_s)
{
    progress.n = n;
    progress.expected_s = expected_s;
    progress.in_place = can_draw_in_place();
    progress.drawn = 0;
    progress.t0 = rb_now_s();
}

void rb_progress_pair(int i, const char *name, const double *actual_s)
{
    char elapsed[32], left[32], label[48];
    double eta = rb_progress_eta_s(progress.expected_s, actual_s, progress.n, i);
    rb_text_duration(rb_now_s() - progress.t0, elapsed, sizeof elapsed);
    rb_text_duration(eta, left, sizeof left);
    rb_text_abbrev(name, 40, label, sizeof label);
    rb_fmt(progress.line, sizeof progress.line, "[%d/%d] %s  %s elapsed%s%s%s", i + 1, progress.n,
           label, elapsed, isnan(eta) ? "" : ", about ", isnan(eta) ? "" : left,
           isnan(eta) ? "" : " left");
    if (progress.in_place) {
        rb_progress_show();
    } else {
        fprintf(stderr, "progress: %s\n", progress.line);
        fflush(stderr);
    }
}

void rb_progress_hide(void)
{
    if (!progress.drawn)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    progress.drawn = 0;
}

void rb_progress_show(void)
{
    if (!progress.in_place || !progress.line[0])
        return;
    fflush(stdout);
    fprintf(stderr, "\r\033[K%s", progress.line);
    fflush(stderr);
    progress.drawn = 1;
}

void rb_progress_end(void)
{
    rb_progress_hide();
    progress.line[0] = '\0';
    progress.in_place = 0;
}
