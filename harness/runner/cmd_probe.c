/* SPDX-License-Identifier: MIT */
/* The probe child (the GPU's environment, who else is on it), the GPU a command uses
 * (--device N), and what results and expectation files record of the GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_probe.h"
#include "child.h"
#include "cmd.h"
#include "env.h"
#include "model/text.h"
#include "runner.h"

static void on_probe_line(void *arg, const json_value *line)
{
    rb_probe_state *s = arg;
    const json_value *type = json_get(line, "type"), *reason = json_get(line, "reason");
    if (!type || type->type != JSON_STRING)
        return;
    if (!strcmp(type->string, "env")) {
        json_free(s->env);
        s->env = json_clone(json_get(line, "env"));
    } else if (!strcmp(type->string, "gpu_check")) {
        char err[200];
        if (rb_gpu_check_from_json(line, &s->check, err, sizeof err) != 0)
            fprintf(stderr, "roofbench: the probe's look at the GPU: %s\n", err);
    } else if (!strcmp(type->string, "error")) {
        rb_fmt(s->error, sizeof s->error, "%s",
               reason && reason->type == JSON_STRING ? reason->string : "unknown error");
        s->no_device = json_true_at(line, "no_device");
        s->usage = json_true_at(line, "usage");
    }
}

/* The next probe looks at who else is on the GPU (a run's first: rb_child_probe's look). */
static int probe_looks;

static int probe_child(void *arg, int fd)
{
    return rb_child_probe(fd, *(const int *)arg, probe_looks);
}

/* --device N: the GPU the run uses, and whether the children see it alone yet (select_device). */
static int selected_device = -1, device_restricted;

void rb_cmd_use_device(int device)
{
    selected_device = device;
}

void rb_cmd_probe_looks(int looks)
{
    probe_looks = looks;
}

/* Runs the probe: 0 with s->env set, or the exit code to end with (message printed). */
int rb_cmd_probe(rb_probe_state *s, double timeout_s)
{
    char why[300];
    memset(s, 0, sizeof *s);
    rb_gpu_check_init(&s->check);
    /* once restricted, the selected GPU is device 0 of the children's */
    int device = device_restricted ? 0 : selected_device;
    int rc = rb_run_child(probe_child, &device, timeout_s, on_probe_line, s, why, sizeof why);
    if (rb_runner_interrupted()) {
        json_free(s->env);
        s->env = NULL;
        return rb_cmd_interrupted_exit();
    }
    if (s->usage) {
        fprintf(stderr, "roofbench: %s\n", s->error);
        json_free(s->env);
        s->env = NULL;
        return EXIT_USAGE;
    }
    if (s->no_device || rc == EXIT_NO_GPU) {
        fprintf(stderr, "roofbench: %s\n", s->error[0] ? s->error : "no usable CUDA device");
        return EXIT_NO_GPU;
    }
    if (rc != 0 || !s->env) {
        fprintf(stderr, "roofbench: cannot read the GPU's environment: %s\n",
                s->error[0] ? s->error
                : why[0]    ? why
                            : "no report");
        return EXIT_NO_GPU;
    }
    if (device_restricted) /* the index is the user's, not the child's */
        json_set_number(s->env, "device_index", selected_device);
    return 0;
}

/* --device N, after the first probe named the GPU: every later child sees that GPU alone, as
 * its device 0 (CUDA_VISIBLE_DEVICES set to the N-th entry of the user's list, or N), so the
 * pairs, the ceilings and the clock readings need no device number of their own. The parent
 * never initialises CUDA, so setting the variable here reaches every child it forks. 0, or the
 * exit code (message printed). */
int rb_cmd_select_device(void)
{
    char pick[256];
    if (selected_device < 0 || device_restricted)
        return 0;
    if (rb_text_visible_pick(getenv("CUDA_VISIBLE_DEVICES"), selected_device, pick, sizeof pick) !=
            0 ||
        setenv("CUDA_VISIBLE_DEVICES", pick, 1) != 0) {
        fprintf(stderr, "roofbench: --device %d: CUDA_VISIBLE_DEVICES has no entry %d\n",
                selected_device, selected_device);
        return EXIT_USAGE;
    }
    device_restricted = 1;
    return 0;
}

/* On a machine with one GPU, a pair's sweep shrinks to its sweep_one_gpu sizes
 * (rb_jobs_for_gpus). Returns the jobs kept; 0 when none is left. */
int rb_cmd_keep_one_gpu_sizes(rb_job *jobs, int n, const json_value *env)
{
    const json_value *count = json_get(env, "device_count");
    return rb_jobs_for_gpus(jobs, n, count && count->type == JSON_NUMBER ? (int)count->number : 0);
}

const char *rb_cmd_env_str(const json_value *env, const char *key)
{
    const json_value *x = json_get(env, key);
    return x && x->type == JSON_STRING ? x->string : "?";
}

json_value *rb_cmd_provenance(const rb_options *o, const json_value *env)
{
    char date[32];
    rb_utc_iso(date, sizeof date);
    json_value *p = json_new_object();
    if (!p || json_set_string(p, "git", rb_git_rev) ||
        json_set_string(p, "driver", rb_cmd_env_str(env, "driver")) ||
        json_set_string(p, "cuda", rb_cmd_env_str(env, "cuda_runtime")) ||
        json_set_string(p, "date", date) ||
        json_set_string(p, "size", o->size_kind == RB_SIZE_FULL ? "full" : "custom")) {
        json_free(p);
        return NULL;
    }
    return p;
}

json_value *rb_cmd_hardware(const json_value *env)
{
    json_value *h = json_new_object();
    const json_value *sms = json_get(env, "sms");
    if (!h || json_set_string(h, "name", rb_cmd_env_str(env, "device")) ||
        json_set_string(h, "sm", rb_cmd_env_str(env, "cc")) ||
        json_set_number(h, "sms", sms && sms->type == JSON_NUMBER ? sms->number : NAN)) {
        json_free(h);
        return NULL;
    }
    return h;
}

/* An expectation file of another GPU model is refused unless --expect-any-device: 0, or the
 * exit code with the line printed. */
int rb_cmd_check_expect_device(const rb_options *o, const rb_expect *e, const char *path,
                               const json_value *env)
{
    char err[400];
    if (o->expect_any_device ||
        rb_expect_same_device(e->doc, rb_cmd_env_str(env, "device"), err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "roofbench: %s: %s\n", path, err);
    return EXIT_USAGE;
}
