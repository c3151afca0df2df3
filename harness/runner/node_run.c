/* SPDX-License-Identifier: MIT */
/* run --device all | N,M,...: the parts, the merge and the node document (node_run.h). */
#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG through <sys/prctl.h> */
#include "node_run.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/node.h"
#include "model/text.h"
#include "model/util.h"
#include "report/plot.h"
#include "cmd.h"
#include "env.h"
#include "jobs.h"
#include "results.h"

#define NODE_MAX (RB_DEVICE_MAX + 1)

/* One exec'd part: a `run` of some pairs on one GPU (or, spanning, on all). */
typedef struct node_part {
    char label[32]; /* "GPU 2", "4 GPUs" */
    char cpus[256]; /* the CPUs it runs on ("": any), as sysfs lists them ("0-23,48-71") */
    char json[RB_PATH_BUF], log[RB_PATH_BUF];
    pid_t pid;
    int rc; /* its exit status; -1: killed or not started */
    double t0_s, wall_s;
} node_part;

typedef struct node_plan {
    const rb_options *o;
    int argc;
    char **argv;
    int gpus[NODE_MAX], n;
    char dir[RB_PATH_BUF]; /* the scratch folder */
    int jobs[4];           /* row groups selected per scope (0: none) */
} node_plan;

/* The row groups --scope s selects with the run's filter and size (0: none or an error). */
static int node_count(const rb_options *o, rb_scope s)
{
    static rb_job jobs[RB_MAX_JOBS];
    rb_options x = *o;
    char err[300];
    int n = 0;
    x.scope = s;
    return rb_jobs_select(&x, NULL, jobs, &n, err, sizeof err) == 0 ? n : 0;
}

/* Whether a is the node's own option: --device (also -d, --devices), --json or --results-dir;
 * *value: its value is the next argument (not --name=VALUE). */
static int node_own_option(const char *a, int *value)
{
    static const char *const own[] = {"--device", "-d", "--devices", "--json", "--results-dir"};
    for (size_t k = 0; k < sizeof own / sizeof own[0]; k++) {
        size_t len = strlen(own[k]);
        if (!strncmp(a, own[k], len) && (a[len] == '\0' || (a[len] == '=' && a[1] == '-'))) {
            *value = a[len] == '\0';
            return 1;
        }
    }
    return 0;
}

/* The options of the user's command line that every part takes as they are: all but the node's
 * own (node_own_option), into out (NULL-terminated). */
static int node_child_args(const node_plan *p, const char **out, int max)
{
    int k = 0;
    out[k++] = p->argv[0];
    for (int i = 1; i < p->argc && k < max - 12; i++) {
        int value = 0;
        if (node_own_option(p->argv[i], &value)) {
            i += value;
            continue;
        }
        out[k++] = p->argv[i];
    }
    out[k] = NULL;
    return k;
}

static int node_has_arg(const node_plan *p, const char *name)
{
    for (int i = 1; i < p->argc; i++)
        if (!strcmp(p->argv[i], name))
            return 1;
    return 0;
}

/* This binary; under the test hook RB_TEST_FAULT=node:..., RB_TEST_NODE_EXE (a stand-in that
 * writes the part's results without a GPU: tests/node_fake_part.sh). */
static const char *node_exe(void)
{
    const char *fault = getenv("RB_TEST_FAULT"), *exe = getenv("RB_TEST_NODE_EXE");
    return fault && !strncmp(fault, "node:", 5) && exe && *exe ? exe : "/proc/self/exe";
}

/* The CPUs next to GPU bus (its PCI bus id, "0000:1B:00.0") as the kernel lists them
 * (/sys/bus/pci/devices/<id>/local_cpulist: "0-23,48-71"), into out; "" when unknown. */
static void node_local_cpus(const char *bus, char *out, size_t size)
{
    char path[128], id[32];
    out[0] = '\0';
    if (!bus || strlen(bus) >= sizeof id || strchr(bus, '/'))
        return;
    for (size_t i = 0; i <= strlen(bus); i++)
        id[i] = (char)tolower((unsigned char)bus[i]);
    rb_fmt(path, sizeof path, "/sys/bus/pci/devices/%s/local_cpulist", id);
    FILE *f = fopen(path, "r");
    if (f && fgets(out, (int)size, f))
        out[strcspn(out, "\n")] = '\0';
    else
        out[0] = '\0';
    if (f)
        fclose(f);
}

/* Runs this process on the CPUs of list ("0-23,48-71"; "" or unreadable: as it is). */
static void node_pin(const char *list)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    int any = 0;
    for (const char *p = list; *p;) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p)
            return;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        for (long c = lo; c <= hi && c >= 0 && c < CPU_SETSIZE; c++, any = 1)
            CPU_SET((int)c, &set);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return;
    }
    if (any)
        sched_setaffinity(0, sizeof set, &set);
}

/* Starts a part: this binary with args, its stdout and stderr into part->log, seeing the
 * GPUs `visible` (CUDA_VISIBLE_DEVICES; NULL: as it is). 0, or -1 with errno. */
static int node_spawn(node_part *part, const char *const *args, const char *visible)
{
    fflush(stdout);
    fflush(stderr);
    part->t0_s = rb_now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* a part outlives no parent: a SIGTERM to the node run ends its parts too */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        FILE *f = fopen(part->log, "w");
        if (!f || dup2(fileno(f), 1) < 0 || dup2(fileno(f), 2) < 0)
            _exit(2);
        if (visible && setenv("CUDA_VISIBLE_DEVICES", visible, 1) != 0)
            _exit(2);
        node_pin(part->cpus);
        execv(node_exe(), (char *const *)args);
        fprintf(stderr, "roofbench: cannot run %s: %s\n", node_exe(), strerror(errno));
        _exit(2);
    }
    part->pid = pid;
    part->rc = -1;
    return 0;
}

/* Where a part is: the last "[i/n] row" line of its log ("" when none yet). */
static void node_where(const node_part *part, char *out, size_t size)
{
    char buf[4096];
    out[0] = '\0';
    FILE *f = fopen(part->log, "r");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    fseek(f, end > (long)sizeof buf - 1 ? end - (long)sizeof buf + 1 : 0, SEEK_SET);
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] == '[' && strchr(line, '/') && strchr(line, ']'))
            rb_text_for_terminal(line, out, size < 60 ? size : 60);
}

/* Waits for parts[0..n), a progress line every RB_NODE_PROGRESS_S seconds. */
static void node_wait(node_part *parts, int n, const char *phase)
{
    int left = n;
    double t0 = rb_now_s(), next = t0 + RB_NODE_PROGRESS_S;
    while (left > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        for (int i = 0; pid > 0 && i < n; i++)
            if (parts[i].pid == pid) {
                parts[i].rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                parts[i].wall_s = rb_now_s() - parts[i].t0_s;
                parts[i].pid = 0;
                left--;
                printf("node: %s: %s done in %.0f s (exit %d)\n", phase, parts[i].label,
                       parts[i].wall_s, parts[i].rc);
            }
        if (pid > 0)
            continue;
        if (pid < 0 && errno == ECHILD)
            break;
        if (rb_now_s() >= next) {
            printf("node: %s, %.0f s:", phase, rb_now_s() - t0);
            for (int i = 0; i < n; i++) {
                char where[64];
                if (!parts[i].pid)
                    continue;
                node_where(&parts[i], where, sizeof where);
                printf(" %s %s;", parts[i].label, where[0] ? where : "(starting)");
            }
            printf("\n");
            next += RB_NODE_PROGRESS_S;
        }
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* The part of GPU gpus[g] (g < 0: every listed GPU) for scope, its files named. */
static void node_name(const node_plan *p, node_part *part, int g, const char *scope)
{
    memset(part, 0, sizeof *part);
    if (g >= 0)
        rb_fmt(part->label, sizeof part->label, "GPU %d", p->gpus[g]);
    else
        rb_fmt(part->label, sizeof part->label, "%d GPUs", p->n);
    rb_fmt(part->json, sizeof part->json, "%s/%s-%d.json", p->dir, scope, g);
    rb_fmt(part->log, sizeof part->log, "%s/%s-%d.log", p->dir, scope, g);
    part->rc = -1;
}

/* A host-shared part runs on its GPU's own CPUs (its NUMA node: a pinned buffer's pages are
 * then local to the GPU's PCIe root, as on every other GPU), known from the GPU-local part's
 * pci_bus_id. */
static void node_host_cpus(const node_plan *p, int g, node_part *part)
{
    char err[RB_PATH_BUF + 200], path[RB_PATH_BUF];
    rb_fmt(path, sizeof path, "%s/local-%d.json", p->dir, g);
    json_value *doc = access(path, F_OK) == 0 ? json_parse_file(path, err, sizeof err) : NULL;
    const json_value *start = json_get(json_get(doc, "environment"), "start");
    node_local_cpus(json_string_at(start, "pci_bus_id", NULL), part->cpus, sizeof part->cpus);
    json_free(doc);
}

/* Runs the parts of scope: on every GPU at once (together), one after the other, or once
 * across all (g = -1). */
static void node_phase(const node_plan *p, node_part *parts, const char *scope, int together)
{
    const char *args[128];
    char dev[16];
    int span = !strcmp(scope, "span");
    for (int g = 0; g < (span ? 1 : p->n); g++) {
        node_part *part = &parts[g];
        node_name(p, part, span ? -1 : g, scope);
        int k = node_child_args(p, args, 120);
        args[k++] = "--scope";
        args[k++] = scope;
        if (!span) {
            rb_fmt(dev, sizeof dev, "%d", p->gpus[g]);
            args[k++] = "--device";
            args[k++] = dev;
        }
        /* the platform is measured once, beside the GPU-local pairs, when they run */
        if (strcmp(scope, "local") && p->jobs[RB_SCOPE_LOCAL] && !node_has_arg(p, "--no-ceilings"))
            args[k++] = "--no-ceilings";
        args[k++] = "--json";
        args[k++] = part->json;
        args[k] = NULL;
        char visible[512] = "", pick[64];
        for (int i = 0; span && i < p->n; i++)
            if (rb_text_visible_pick(getenv("CUDA_VISIBLE_DEVICES"), p->gpus[i], pick,
                                     sizeof pick) == 0)
                rb_fmt(visible + strlen(visible), sizeof visible - strlen(visible), "%s%s",
                       i ? "," : "", pick);
        if (!strcmp(scope, "host"))
            node_host_cpus(p, g, part);
        printf("node: %s pairs on %s%s%s%s (log %s)\n", scope, part->label,
               part->cpus[0] ? " (CPUs " : "", part->cpus, part->cpus[0] ? ": its own)" : "",
               part->log);
        if (node_spawn(part, args, span ? visible : NULL) != 0)
            printf("node: %s: cannot start: %s\n", part->label, strerror(errno));
        else if (!together)
            node_wait(part, 1, scope);
    }
    if (together)
        node_wait(parts, p->n, scope);
}

/* The pair records of b appended to a's, in the registry's order of pairs (each pair's rows in
 * the order they ran); b's environment.end is the GPU's last. */
static int node_merge(json_value *a, json_value *b)
{
    const char *order[256];
    int n = 0;
    for (int r = 0; rb_registry[r] && n < (int)(sizeof order / sizeof order[0]); r++)
        order[n++] = rb_registry[r]->name;
    return rb_results_merge(a, b, order, n);
}

static json_value *node_read(const node_part *part)
{
    char err[RB_PATH_BUF + 200];
    if (!part->json[0] || access(part->json, F_OK) != 0)
        return NULL;
    json_value *doc = json_parse_file(part->json, err, sizeof err);
    if (!doc)
        printf("node: %s: %s\n", part->label, err);
    return doc;
}

/* GPU g's run document: its GPU-local and host-shared parts, merged; NULL when neither ran. */
static json_value *node_gpu_run(const node_plan *p, const node_part *local, const node_part *host)
{
    json_value *a = node_read(local), *b = node_read(host);
    if (a && b && node_merge(a, b) != 0) {
        json_free(a);
        a = NULL;
    }
    if (!a) {
        a = b;
        b = NULL;
    }
    json_free(b);
    char command[2048];
    rb_results_command(p->argc, p->argv, command, sizeof command);
    if (a)
        json_set_string(a, "command", command);
    return a;
}

/* The exit of the parts: 2 or 3 (usage, no GPU) first, then 1 (a failure, a regression, a part
 * that crashed), else 0. */
static int node_worst(const node_part *parts, int n, int worst)
{
    for (int i = 0; i < n; i++) {
        int rc = parts[i].rc;
        if (!parts[i].label[0])
            continue;
        if ((rc == 2 || rc == 3) && worst != 2)
            worst = rc;
        else if (rc != 0 && worst == 0)
            worst = 1;
    }
    return worst;
}

/* The node's files: --json FILE (and FILE's .md), or results/<node key>/<UTC>-<git>-node.json
 * (no --json, or --json -: the document then also on the standard output). */
static int node_save(const node_plan *p, const json_value *node)
{
    char json_path[RB_PATH_BUF], md_path[RB_PATH_BUF + 8], stamp[32], err[RB_PATH_BUF + 300];
    rb_utc_stamp(stamp, sizeof stamp);
    const char *key = json_string_at(node, "hardware_key", "unknown-gpu");
    int to_stdout = rb_cli_is_stdout(p->o->json_path);
    if (p->o->json_path && !to_stdout)
        rb_fmt(json_path, sizeof json_path, "%s", p->o->json_path);
    else if (!rb_is_hardware_key(key) ||
             rb_results_default_path(json_path, sizeof json_path, p->o->results_dir, key, stamp,
                                     rb_git_rev, "-node") != 0) {
        printf("roofbench: the node's results path cannot be made\n");
        return -1;
    }
    size_t len = strlen(json_path);
    int ext = len > 5 && !strcmp(json_path + len - 5, ".json");
    rb_fmt(md_path, sizeof md_path, "%.*s.md", (int)(ext ? len - 5 : len), json_path);
    if (rb_node_write(node, json_path, md_path, p->o->through_links, err, sizeof err) != 0) {
        fprintf(stderr, "roofbench: %s\n", err);
        return -1;
    }
    printf("node results: %s, %s\n", json_path, md_path);
    if (to_stdout)
        rb_cmd_print_json_document(node);
    return 0;
}

static void node_remove_part(const node_part *part)
{
    static const char *const ext[] = {".json", ".md", ".html"};
    size_t len = strlen(part->json);
    if (!part->label[0] || len < 5)
        return;
    remove(part->log);
    for (int k = 0; k < 3 + RB_PLOT_FILES; k++) {
        char f[RB_PATH_BUF + 32];
        rb_fmt(f, sizeof f, "%.*s%s", (int)(len - 5), part->json,
               k < 3 ? ext[k] : rb_plot_file_suffix(k - 3));
        remove(f);
    }
}

/* The scratch folder removed, or kept (said) when a part failed: its logs say why. */
static void node_cleanup(const node_plan *p, const node_part *local, const node_part *host,
                         const node_part *span, int keep)
{
    if (keep) {
        printf("node: the parts' logs and files are kept in %s\n", p->dir);
        return;
    }
    for (int i = 0; i < p->n; i++) {
        node_remove_part(&local[i]);
        node_remove_part(&host[i]);
    }
    node_remove_part(span);
    rmdir(p->dir);
}

/* The GPUs of the run into p->gpus; 0, or -1 with the line printed. */
static int node_gpus(const rb_options *o, int visible, node_plan *p)
{
    p->n = o->device_all ? visible : o->n_devices;
    for (int i = 0; i < p->n; i++) {
        p->gpus[i] = o->device_all ? i : o->devices[i];
        if (p->gpus[i] >= visible) {
            fprintf(stderr,
                    "roofbench: --device: GPU %d is not there: the CUDA runtime shows %d GPU%s "
                    "(CUDA_VISIBLE_DEVICES decides which)\n",
                    p->gpus[i], visible, visible == 1 ? "" : "s");
            return -1;
        }
    }
    return p->n > 0 ? 0 : -1;
}

static json_value *node_expect(const json_value *run)
{
    char err[RB_PATH_BUF + 200];
    const char *path = json_string_at(run, "expectations", NULL);
    return path ? json_parse_file(path, err, sizeof err) : NULL;
}

/* The node document from the parts, printed and written; the exit code. */
static int node_finish(const node_plan *p, node_part *local, node_part *host, node_part *span,
                       int rc)
{
    static json_value *runs[NODE_MAX];
    char err[400] = "";
    int n = 0;
    for (int g = 0; g < p->n; g++) {
        runs[n] = node_gpu_run(p, &local[g], &host[g]);
        if (runs[n])
            n++;
        else
            printf("node: GPU %d: no results (see its log)\n", p->gpus[g]);
    }
    if (n == 0) {
        node_cleanup(p, local, host, span, 1);
        return rc ? rc : 1;
    }
    json_value *expect = node_expect(runs[0]);
    json_value *node = rb_node_build("roofbench", "node", runs, n, expect, err, sizeof err);
    json_free(expect);
    json_value *collectives = node ? node_read(&span[0]) : NULL;
    if (collectives) {
        json_value *pairs = rb_results_pairs_copy(collectives);
        if (pairs)
            rb_node_set_collectives(node, pairs);
        json_free(collectives);
    }
    if (node && rb_node_set_gate_all(node, p->o->gate_all) != 0) {
        json_free(node);
        node = NULL;
        rb_fmt(err, sizeof err, "the node document: out of memory");
    }
    if (!node) {
        fprintf(stderr, "roofbench: %s\n", err);
        node_cleanup(p, local, host, span, 1);
        return rc ? rc : 1;
    }
    printf("\n");
    rb_node_print(stdout, node, 20);
    int outliers = rb_node_outlier_count(node);
    int saved = node_save(p, node);
    json_free(node);
    /* a part that failed keeps the logs; a regression or an outlier is in the node's files */
    node_cleanup(p, local, host, span, (rc != 0 && rc != 1) || saved != 0);
    if ((saved != 0 || outliers) && rc == 0)
        rc = 1;
    if (rc)
        printf("exit %d: %s\n", rc,
               outliers && rc == 1 ? "outlier GPU(s), or a failed, invalid or regressed row"
                                   : "a part failed, or a row is invalid or regressed (its log)");
    return rc;
}

int rb_node_run(const rb_options *o, int argc, char **argv, int visible)
{
    static node_plan p;
    static node_part local[NODE_MAX], host[NODE_MAX], span[1];
    memset(&p, 0, sizeof p);
    p.o = o;
    p.argc = argc;
    p.argv = argv;
    if (node_gpus(o, visible, &p) != 0)
        return 2;
    for (int s = RB_SCOPE_LOCAL; s <= RB_SCOPE_SPAN; s++)
        p.jobs[s] = node_count(o, (rb_scope)s);
    if (p.n < 2)
        p.jobs[RB_SCOPE_SPAN] = 0;
    const char *tmp = getenv("TMPDIR");
    rb_fmt(p.dir, sizeof p.dir, "%s/rb-node-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(p.dir)) {
        fprintf(stderr, "roofbench: %s: %s\n", p.dir, strerror(errno));
        return 2;
    }
    printf("node: %d GPU%s; %d GPU-local row groups on all at once, %d host-shared one GPU at "
           "a time, %d spanning the GPUs once\n",
           p.n, p.n == 1 ? "" : "s", p.jobs[RB_SCOPE_LOCAL], p.jobs[RB_SCOPE_HOST],
           p.jobs[RB_SCOPE_SPAN]);
    memset(local, 0, sizeof local);
    memset(host, 0, sizeof host);
    memset(span, 0, sizeof span);
    if (p.jobs[RB_SCOPE_LOCAL])
        node_phase(&p, local, "local", 1);
    if (p.jobs[RB_SCOPE_HOST])
        node_phase(&p, host, "host", 0);
    if (p.jobs[RB_SCOPE_SPAN])
        node_phase(&p, span, "span", 0);
    int rc = node_worst(local, p.n, 0);
    rc = node_worst(host, p.n, rc);
    rc = node_worst(span, 1, rc);
    return node_finish(&p, local, host, span, rc);
}
