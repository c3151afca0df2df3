/* SPDX-License-Identifier: MIT */
#include "contention.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int rb_gpu_processes_decode(const unsigned char *buf, unsigned count, size_t stride,
                            rb_gpu_process *out, int max)
{
    if (stride != RB_NVML_PROCESS_V1_BYTES && stride != RB_NVML_PROCESS_V2_BYTES)
        return 0;
    int n = 0;
    for (unsigned i = 0; i < count && n < max; i++) {
        const unsigned char *r = buf + (size_t)i * stride;
        unsigned pid;
        unsigned long long used;
        /* both layouts: the pid at 0, the memory at 8 (after the pid's padding) */
        memcpy(&pid, r, sizeof pid);
        memcpy(&used, r + 8, sizeof used);
        out[n].pid = pid;
        out[n].name[0] = '\0';
        out[n].used_bytes = used == ~0ull ? NAN : (double)used;
        n++;
    }
    return n;
}

/* ---- who is whose ---- */

/* The parent of pid from /proc/<pid>/stat (its fourth field, after the name in parentheses,
 * which may hold spaces and parentheses itself); -1 when not visible. */
static int proc_parent_of(int pid)
{
    char path[64], line[512];
    rb_fmt(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t len = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[len] = '\0';
    const char *close = strrchr(line, ')');
    int ppid = -1;
    char state;
    if (!close || sscanf(close + 1, " %c %d", &state, &ppid) != 2)
        return -1;
    return ppid;
}

static void proc_name_of(int pid, char *out, size_t size)
{
    char path[64];
    rb_fmt(path, sizeof path, "/proc/%d/comm", pid);
    FILE *f = fopen(path, "r");
    size_t len = f ? fread(out, 1, size - 1, f) : 0;
    if (f)
        fclose(f);
    out[len] = '\0';
    out[strcspn(out, "\n")] = '\0';
    if (!out[0])
        rb_fmt(out, size, "?");
}

void rb_own_init(rb_own *o, int root, int holds_context)
{
    memset(o, 0, sizeof *o);
    o->self = (int)getpid();
    o->root = root;
    o->holds_context = holds_context;
    o->parent_of = proc_parent_of;
    o->name_of = proc_name_of;
}

int rb_own_is(const rb_own *o, int pid)
{
    if (pid == o->self || (o->root > 1 && pid == o->root))
        return 1;
    for (int i = 0; i < o->n_known; i++)
        if (pid == o->known[i])
            return 1;
    /* a descendant of the root (a helper a pair starts): its parents lead there */
    int at = pid;
    for (int depth = 0; o->parent_of && o->root > 1 && depth < 32; depth++) {
        at = o->parent_of(at);
        if (at <= 1)
            break;
        if (at == o->root)
            return 1;
    }
    /* an ancestor of the root (the shell, make, a test runner: what started the run waits on it) */
    at = o->root;
    for (int depth = 0; o->parent_of && o->root > 1 && depth < 32; depth++) {
        at = o->parent_of(at);
        if (at <= 1)
            return 0;
        if (at == pid)
            return 1;
    }
    return 0;
}

void rb_contention_init(rb_contention *c)
{
    memset(c, 0, sizeof *c);
}

int rb_contention_any(const rb_contention *c)
{
    return c->n > 0 || c->more > 0 || c->unlisted_util > 0;
}

/* Adds one process to c (merged by PID). */
static void add_process(rb_contention *c, const rb_gpu_process *p)
{
    for (int i = 0; i < c->n; i++)
        if (c->p[i].pid == p->pid) {
            if (!(c->p[i].used_bytes >= p->used_bytes) && !isnan(p->used_bytes))
                c->p[i].used_bytes = p->used_bytes;
            if ((!c->p[i].name[0] || !strcmp(c->p[i].name, "?")) && p->name[0])
                rb_fmt(c->p[i].name, sizeof c->p[i].name, "%s", p->name);
            return;
        }
    if (c->n < RB_CONTENTION_MAX)
        c->p[c->n++] = *p;
    else
        c->more++;
}

int rb_contention_judge(const rb_gpu_process *listed, int n, const rb_own *own, rb_contention *out)
{
    rb_contention_init(out);
    int self_listed = 0, any_own = 0;
    for (int i = 0; i < n; i++) {
        self_listed |= (int)listed[i].pid == own->self;
        any_own |= rb_own_is(own, (int)listed[i].pid);
    }
    /* Holding a context and not listed, nor anything of ours: the PIDs are another namespace's.
     * One of them is this process; with more than one, the GPU is shared. */
    if (own->holds_context && n > 0 && !self_listed && !any_own) {
        if (n == 1)
            return 0;
        out->other_namespace = 1;
        for (int i = 0; i < n; i++) {
            rb_gpu_process p = listed[i];
            rb_fmt(p.name, sizeof p.name, "?");
            add_process(out, &p);
        }
        return out->n + out->more;
    }
    for (int i = 0; i < n; i++) {
        if (rb_own_is(own, (int)listed[i].pid))
            continue;
        rb_gpu_process p = listed[i];
        if (!p.name[0] && own->name_of)
            own->name_of((int)p.pid, p.name, sizeof p.name);
        if (!p.name[0])
            rb_fmt(p.name, sizeof p.name, "?");
        add_process(out, &p);
    }
    return out->n + out->more;
}

void rb_contention_merge(rb_contention *into, const rb_contention *from)
{
    for (int i = 0; i < from->n; i++)
        add_process(into, &from->p[i]);
    into->more += from->more;
    into->other_namespace |= from->other_namespace;
    if (from->unlisted_util > into->unlisted_util)
        into->unlisted_util = from->unlisted_util;
}

/* "2.0 GiB", "512 MiB", "memory not reported" */
static void memory_text(double bytes, char *buf, size_t size)
{
    if (isnan(bytes))
        rb_fmt(buf, size, "memory not reported");
    else if (bytes >= 1024.0 * 1024 * 1024)
        rb_fmt(buf, size, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    else
        rb_fmt(buf, size, "%.0f MiB", bytes / (1024.0 * 1024));
}

void rb_contention_text(const rb_contention *c, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < c->n; i++) {
        char mem[40];
        size_t len = strlen(buf);
        memory_text(c->p[i].used_bytes, mem, sizeof mem);
        rb_fmt(buf + len, size - len, "%spid %u (%s, %s)", i ? ", " : "", c->p[i].pid,
               c->p[i].name[0] ? c->p[i].name : "?", mem);
    }
    size_t len = strlen(buf);
    if (c->more)
        rb_fmt(buf + len, size - len, " and %d more", c->more);
    len = strlen(buf);
    if (c->other_namespace)
        rb_fmt(buf + len, size - len,
               " (NVML's PIDs of another namespace: one of them is roofbench's)");
    len = strlen(buf);
    if (c->unlisted_util > 0)
        rb_fmt(buf + len, size - len, "%sthe GPU %.0f%% busy with no process listed",
               len ? "; " : "", c->unlisted_util);
}

/* ---- JSON ---- */

int rb_contention_to_json(const rb_contention *c, json_value *o, const char *key)
{
    char k[80];
    json_value *a = json_new_array();
    for (int i = 0; a && i < c->n; i++) {
        json_value *p = json_new_object();
        if (!p || json_set_number(p, "pid", c->p[i].pid) ||
            json_set_string(p, "name", c->p[i].name[0] ? c->p[i].name : "?") ||
            json_set_number(p, "used_memory_bytes", c->p[i].used_bytes)) {
            json_free(p);
            json_free(a);
            return -1;
        }
        if (json_array_push(a, p)) { /* frees p when it fails */
            json_free(a);
            return -1;
        }
    }
    if (!a || json_object_set(o, key, a))
        return -1;
    int bad = 0;
    if (c->more) {
        rb_fmt(k, sizeof k, "%s_more", key);
        bad |= json_set_number(o, k, c->more);
    }
    if (c->other_namespace) {
        rb_fmt(k, sizeof k, "%s_other_namespace", key);
        bad |= json_set_bool(o, k, 1);
    }
    if (c->unlisted_util > 0) {
        rb_fmt(k, sizeof k, "%s_unlisted_utilization", key);
        bad |= json_set_number(o, k, c->unlisted_util);
    }
    return bad ? -1 : 0;
}

int rb_contention_from_json(const json_value *o, const char *key, rb_contention *c, char *err,
                            size_t err_size)
{
    char k[80];
    rb_contention_init(c);
    const json_value *a = json_get(o, key);
    if (!a)
        return 0;
    if (a->type != JSON_ARRAY) {
        rb_fmt(err, err_size, "%s: an array of processes expected", key);
        return -1;
    }
    for (size_t i = 0; i < a->count; i++) {
        const json_value *p = a->items[i];
        double pid = json_number_at(p, "pid");
        if (!(pid >= 0 && pid <= 4294967295.0) || pid != floor(pid)) {
            rb_fmt(err, err_size, "%s[%zu]: pid is not a process id", key, i);
            return -1;
        }
        rb_gpu_process g = {.pid = (unsigned)pid};
        rb_fmt(g.name, sizeof g.name, "%s", json_string_at(p, "name", "?"));
        g.used_bytes = json_number_at(p, "used_memory_bytes");
        add_process(c, &g);
    }
    rb_fmt(k, sizeof k, "%s_more", key);
    double more = json_number_at(o, k);
    c->more += more >= 1 && more <= 1e6 ? (int)more : 0;
    rb_fmt(k, sizeof k, "%s_other_namespace", key);
    c->other_namespace = json_true_at(o, k);
    rb_fmt(k, sizeof k, "%s_unlisted_utilization", key);
    double util = json_number_at(o, k);
    c->unlisted_util = util > 0 && util <= 100 ? util : 0;
    return 0;
}

/* ---- a look at an idle GPU ---- */

void rb_gpu_check_init(rb_gpu_check *g)
{
    memset(g, 0, sizeof *g);
    g->gpu_util = g->mem_util = NAN;
}

int rb_gpu_check_to_json(const rb_gpu_check *g, json_value *o)
{
    int bad = json_set_bool(o, "checked", g->checked);
    if (!g->checked)
        bad |= json_set_string(o, "why", g->why[0] ? g->why : "not read");
    bad |= rb_contention_to_json(&g->seen, o, "contended_by");
    if (!isnan(g->gpu_util))
        bad |= json_set_number(o, "utilization_gpu_pct", g->gpu_util) |
               json_set_number(o, "utilization_memory_pct", g->mem_util);
    return bad ? -1 : 0;
}

int rb_gpu_check_from_json(const json_value *o, rb_gpu_check *g, char *err, size_t err_size)
{
    rb_gpu_check_init(g);
    if (!o)
        return 0;
    g->checked = json_true_at(o, "checked");
    rb_fmt(g->why, sizeof g->why, "%s", json_string_at(o, "why", ""));
    g->gpu_util = json_number_at(o, "utilization_gpu_pct");
    g->mem_util = json_number_at(o, "utilization_memory_pct");
    return rb_contention_from_json(o, "contended_by", &g->seen, err, err_size);
}

/* ---- the test hook ---- */

int rb_gpu_processes_parse(const char *spec, int self, int root, rb_gpu_process *out, int max,
                           int *n)
{
    *n = 0;
    const char *at = spec;
    while (at && *at) {
        size_t len = strcspn(at, ",");
        char item[128], *fields[3] = {NULL, NULL, NULL};
        if (len >= sizeof item || *n >= max)
            return -1;
        memcpy(item, at, len);
        item[len] = '\0';
        char *s = item;
        for (int f = 0; f < 3; f++) {
            fields[f] = s;
            char *colon = s ? strchr(s, ':') : NULL;
            if (colon)
                *colon = '\0';
            s = colon ? colon + 1 : NULL;
        }
        if (!fields[1] || !fields[2] || s)
            return -1;
        char *end;
        long pid = !strcmp(fields[0], "self")   ? self
                   : !strcmp(fields[0], "root") ? root
                                                : strtol(fields[0], &end, 10);
        if (strcmp(fields[0], "self") && strcmp(fields[0], "root") &&
            (end == fields[0] || *end || pid <= 0 || pid > 4194304))
            return -1;
        rb_gpu_process *p = &out[(*n)++];
        p->pid = (unsigned)pid;
        rb_fmt(p->name, sizeof p->name, "%s", fields[1]);
        p->used_bytes = NAN;
        if (fields[2][0] && strcmp(fields[2], "-")) {
            p->used_bytes = strtod(fields[2], &end);
            if (end == fields[2] || *end || !(p->used_bytes >= 0))
                return -1;
        }
        at += len;
        if (*at == ',')
            at++;
    }
    return 0;
}
