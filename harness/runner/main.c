/* SPDX-License-Identifier: MIT */
/*
 * roofbench: the driver. Parses the command line, checks every input it can before touching a
 * GPU (so a usage or file error costs nothing and writes nothing), then runs each pair in its
 * own child process, judges the results against the expectation file and writes them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "cmd_ceilings.h"
#include "cmd_check.h"
#include "cmd_compare.h"
#include "cmd_history.h"
#include "cmd_list.h"
#include "cmd_plot.h"
#include "cmd_profile.h"
#include "cmd_probe.h"
#include "cmd_run.h"
#include "env.h"
#include "expect_cmd.h"
#include "jobs.h"
#include "node_run.h"
#include "p2p_cmd.h"
#include "report/docs.h"
#include "report/table.h"
#include "runner.h"

/* p2p: its files checked before the probe, as every command's. */
static int cmd_p2p(const rb_options *o, int argc, char **argv, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300];
    int index[2];
    if (rb_p2p_files(o, outs, index, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    rb_probe_state ps;
    int rc = rb_cmd_probe(&ps, o->timeout_s);
    if (rc != 0)
        return rc;
    rc = rb_p2p_run(o, argc, argv, ps.env, outs, index);
    json_free(ps.env);
    return rb_runner_interrupted() ? rb_cmd_interrupted_exit() : rc;
}

/* run --device all | N,M,...: how many GPUs there are (the probe), then the node run. */
static int node_body(const rb_options *o, int argc, char **argv)
{
    /* Test hook (tests/test_node.c): RB_TEST_FAULT=node:gpus=N poses as N GPUs, no probe */
    const char *fault = getenv("RB_TEST_FAULT");
    int fake = 0;
    if (fault && sscanf(fault, "node:gpus=%d", &fake) == 1 && fake > 0)
        return rb_node_run(o, argc, argv, fake);
    rb_probe_state ps;
    int rc = rb_cmd_probe(&ps, o->timeout_s);
    if (rc != 0)
        return rc;
    const json_value *count = json_get(ps.env, "device_count");
    int visible = count && count->type == JSON_NUMBER ? (int)count->number : 0;
    json_free(ps.env);
    return rb_node_run(o, argc, argv, visible);
}

static int dispatch(int argc, char **argv, const rb_options *o)
{
    char err[600];
    rb_test_stall("start");
    if (o->command == RB_CMD_HELP) {
        char *help = rb_cli_help(o->help_topic);
        if (!help)
            return rb_cmd_usage_error("out of memory");
        fputs(help, stdout);
        free(help);
        return EXIT_OK;
    }
    if (o->command == RB_CMD_VERSION) {
        char text[600];
        rb_env_version_text(text, sizeof text);
        fputs(text, stdout);
        return EXIT_OK;
    }
    rb_cmd_use_device(o->device);
    if (o->command == RB_CMD_PLOT)
        return rb_cmd_with_outputs(o, o->through_links, rb_cmd_plot);
    if (o->command == RB_CMD_COMPARE)
        return rb_cmd_with_outputs(o, o->through_links, rb_cmd_compare);
    if (o->command == RB_CMD_HISTORY)
        return rb_cmd_with_outputs(o, 0, rb_cmd_history);
    if (o->command == RB_CMD_DOCS)
        return rb_docs_main(".", o->check, stdout, stderr);
    if (o->command == RB_CMD_CEILINGS)
        return rb_cmd_ceilings(o);
    if (o->command == RB_CMD_EXPECTATIONS)
        return rb_expect_cmd(o);
    if (o->command == RB_CMD_P2P) {
        rb_outputs *outs = rb_outputs_new(0);
        int rc = outs ? cmd_p2p(o, argc, argv, outs) : rb_cmd_usage_error("out of memory");
        rb_outputs_free(outs);
        return rc;
    }
    static rb_job jobs[RB_MAX_JOBS];
    int n = 0;
    if (rb_jobs_select(o, NULL, jobs, &n, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    if (o->command == RB_CMD_RUN && (o->device_all || o->n_devices))
        return node_body(o, argc, argv);
    if (o->command == RB_CMD_LIST)
        return o->list_json ? rb_cmd_list_json(jobs, n) : rb_cmd_list(jobs, n);
    if (o->command == RB_CMD_PROFILE)
        return rb_profile_cmd(o, jobs, n, argc, argv);
    rb_pair_result *results = calloc((size_t)n, sizeof *results);
    if (!results)
        return rb_cmd_usage_error("out of memory");
    int rc;
    if (o->command == RB_CMD_CHECK) {
        rb_probe_state ps;
        rc = rb_cmd_probe(&ps, o->timeout_s);
        if (rc == 0)
            rc = rb_cmd_select_device();
        if (rc == 0 && (n = rb_cmd_keep_one_gpu_sizes(jobs, n, ps.env)) == 0)
            rc = rb_cmd_usage_error("every size selected is one a one-GPU machine leaves out");
        json_free(ps.env);
        if (rc == 0)
            rc = rb_cmd_check(jobs, n, o, results);
    } else {
        /* the baseline is read before any GPU work: a bad one costs nothing */
        json_value *baseline = o->baseline_path ? rb_cmd_load_results(o->baseline_path) : NULL;
        rc = o->baseline_path && !baseline ? EXIT_USAGE
                                           : rb_cmd_run(jobs, n, o, argc, argv, results, baseline);
        json_free(baseline);
    }
    free(results);
    return rc;
}

int main(int argc, char **argv)
{
    rb_options o;
    char err[600];
    rb_cmd_hold_standard_descriptors();
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* SIGINT, SIGTERM, SIGHUP and the other signals that end a process end every command
     * promptly: a running child is ended and the run stops (rb_cmd_interrupted_exit); in the
     * parent's own work the process ends at once, its temporary files removed (runner.h). */
    rb_runner_catch_interrupts();
    if (rb_cli_parse(argc, argv, &o, err, sizeof err) != 0)
        return rb_cmd_stdout_checked(rb_cmd_usage_error(err));
    rb_table_set_wide(o.wide);
    /* --json -, --csv -, --html -: the standard output holds that document alone */
    if (rb_cli_writes_stdout(&o) && rb_cmd_stdout_for_document() != 0)
        return EXIT_USAGE;
    int rc = rb_cmd_stdout_checked(dispatch(argc, argv, &o));
    rb_test_report_memory();
    return rc;
}
