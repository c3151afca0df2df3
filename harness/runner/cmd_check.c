/* SPDX-License-Identifier: MIT */
/* roofbench check: every variant validated, no timing; and the pairs' children, one after the
 * other, that check and run share. */
#include <math.h>
#include <stdio.h>

#include "cmd_check.h"
#include "child.h"
#include "cmd.h"
#include "progress.h"
#include "results.h"
#include "runner.h"

typedef struct pair_job {
    const rb_pair *pair;
    const char *name;
    rb_child_opts opts;
    rb_pair_result *result;
    char error[300];
} pair_job;

static int pair_child(void *arg, int fd)
{
    pair_job *j = arg;
    return rb_child_pair(j->pair, &j->opts, fd);
}

static void on_pair_line(void *arg, const json_value *line)
{
    pair_job *j = arg;
    rb_results_line(j->result, line);
}

/* The pairs' children, one after the other, with the progress on stderr (progress.h; the
 * estimate from expected_s[i], pair i's recorded wall time, NaN or a NULL array when none). */
void rb_cmd_run_pairs(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *results,
                      const double *expected_s)
{
    double actual_s[RB_MAX_JOBS] = {0};
    rb_progress_start(n, expected_s);
    for (int i = 0; i < n; i++) {
        const rb_pair *p = jobs[i].pair;
        rb_pair_result *r = &results[i];
        rb_results_begin(r, &jobs[i]);
        pair_job job = {.pair = p, .name = jobs[i].name, .result = r};
        rb_results_child_opts(&jobs[i], o, &job.opts);
        rb_progress_hide();
        if (r->rows > 1)
            printf("[%d/%d] %s: %llu x %llu %s\n", i + 1, n, jobs[i].name,
                   (unsigned long long)r->rows, (unsigned long long)r->cols, p->size_unit);
        else
            printf("[%d/%d] %s: %llu %s\n", i + 1, n, jobs[i].name, (unsigned long long)r->size,
                   p->size_unit);
        fflush(stdout);
        rb_progress_pair(i, jobs[i].name, actual_s);
        double t0 = rb_now_s();
        char why[300];
        int rc = rb_run_child(pair_child, &job, o->timeout_s, on_pair_line, &job, why, sizeof why);
        r->wall_s = actual_s[i] = rb_now_s() - t0;
        rb_progress_hide();
        if (rb_runner_interrupted())
            break;
        if (rc != 0 && r->status != RB_PAIR_FAILED) {
            r->status = RB_PAIR_FAILED;
            if (rc < 0)
                rb_fmt(r->reason, sizeof r->reason, "%s", why);
            else
                rb_fmt(r->reason, sizeof r->reason, "child exited with status %d", rc);
        }
        if (r->status == RB_PAIR_FAILED)
            printf("      FAILED: %s\n", r->reason);
        else if (r->status == RB_PAIR_SKIPPED)
            printf("      skipped: %s\n", r->reason);
        if (isfinite(r->setup_s))
            printf("      (%.1f s, of which setup %.1f s)\n", r->wall_s, r->setup_s);
        else
            printf("      (%.1f s)\n", r->wall_s);
        fflush(stdout);
    }
    rb_progress_end();
}

int rb_cmd_check(const rb_job *jobs, int n, const rb_options *o, rb_pair_result *results)
{
    rb_cmd_run_pairs(jobs, n, o, results, NULL);
    if (rb_runner_interrupted())
        return rb_cmd_interrupted_exit();
    int bad = 0;
    printf("\n%-18s %-12s %12s %12s %10s  %s\n", "pair", "variant", "err before", "err after",
           "tolerance", "result");
    for (int i = 0; i < n; i++) {
        const rb_pair_result *r = &results[i];
        if (r->status == RB_PAIR_SKIPPED) {
            printf("%-18s skipped: %s\n", r->name, r->reason);
            continue;
        }
        bad += r->status == RB_PAIR_FAILED || r->n_variants != jobs[i].pair->n_variants;
        for (int k = 0; k < r->n_variants; k++) {
            const rb_variant_result *v = &r->v[k];
            bad += !v->valid && !v->skipped;
            printf("%-18s %-12s %12.3g %12.3g %10.3g  %s\n", k ? "" : r->name, v->name,
                   v->rel_err_before, v->rel_err_after, v->tolerance,
                   v->skipped ? v->note
                   : v->valid ? "ok"
                              : "INVALID");
        }
        if (r->status == RB_PAIR_FAILED)
            printf("%-18s FAILED: %s\n", r->name, r->reason);
    }
    printf("%s\n", bad ? "check FAILED" : "check passed");
    return bad ? EXIT_FAIL : EXIT_OK;
}
