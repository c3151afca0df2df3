/* SPDX-License-Identifier: MIT */
/*
 * Runs that know when the GPU was not theirs. NVML lists the compute processes on a GPU
 * (nvmlDeviceGetComputeRunningProcesses: a PID and its GPU memory each); any process that is not
 * the run's own makes every row timed while it was there `contended`, and the run with it. The
 * child reads the list before each row's first timed sample, every RB_CONTENTION_POLL_MS while
 * the row is timed, and after its last one (harness/runner/clock_sampler.c), and at its own
 * start, while nothing of the run is on the GPU (between pairs). No CUDA and no NVML here: the
 * decoding of NVML's arrays, who is whose and the JSON are tested on any machine.
 *
 * The run's own processes: this process, the run's root (the roofbench that forks the
 * children, NVML-less and CUDA-less itself), the children it started before this one, any
 * process whose parents, followed through /proc, lead to the root, and the root's own parents
 * (what started the run and waits on it: a shell, make, a test runner that holds a context of its
 * own, as rbtest does after its in-process GPU tests). A process beside the run, started by
 * anything else, is foreign. NVML may report the PIDs of
 * another PID namespace (a container on an older driver): then this process, which holds a
 * context, is not in the list, and with more than one process listed the others are named by
 * their PIDs as NVML gives them and "?" for a name (another namespace's PID says nothing here).
 *
 * In the results file:
 *   per contended variant: "contended": true, "contended_by": [{"pid": n, "name": "python3",
 *                          "used_memory_bytes": b | null}, ...]   (absent when clean)
 *   per run: "contention": {"checked": bool, "why": "..." (when not checked), "contended": bool,
 *                           "processes": [...] (every foreign one seen), "where": [...],
 *                           "utilization": [...]}
 */
#ifndef RB_CONTENTION_H
#define RB_CONTENTION_H

#include <stddef.h>

#include "json.h"

#define RB_CONTENTION_MAX 4         /* processes named per row (more are counted) */
#define RB_CONTENTION_POLL_MS 100   /* how often the list is read while a row is timed */
#define RB_CONTENTION_LISTED_MAX 64 /* processes read from NVML at once */
#define RB_OWN_KNOWN 32             /* earlier children of the run remembered */

/* NVML's process records (nvml.h is not on every toolkit install): nvmlProcessInfo_v1_t of the
 * unversioned call, {unsigned pid; unsigned long long usedGpuMemory;}, 16 bytes, and
 * nvmlProcessInfo_v2_t of the _v2 and _v3 calls, the same then {unsigned gpuInstanceId,
 * computeInstanceId;}, 24 bytes. usedGpuMemory is NVML_VALUE_NOT_AVAILABLE (all ones) when the
 * driver does not say. */
#define RB_NVML_PROCESS_V1_BYTES 16
#define RB_NVML_PROCESS_V2_BYTES 24

typedef struct rb_gpu_process {
    unsigned pid;
    char name[24];     /* /proc/<pid>/comm, "?" when not visible; "" until looked up */
    double used_bytes; /* GPU memory; NaN when NVML does not say */
} rb_gpu_process;

typedef struct rb_contention {
    int n;                /* processes named in p */
    int more;             /* foreign processes seen beyond RB_CONTENTION_MAX */
    int other_namespace;  /* NVML's PIDs are another namespace's: the names are unknown */
    double unlisted_util; /* > 0: the GPU was busy (utilization, %) with no process listed */
    rb_gpu_process p[RB_CONTENTION_MAX];
} rb_contention;

/* The records of count processes NVML wrote into buf, stride bytes apart (V1 or V2 bytes), into
 * out[0 .. min(count, max)); returns how many. Names are left empty. */
int rb_gpu_processes_decode(const unsigned char *buf, unsigned count, size_t stride,
                            rb_gpu_process *out, int max);

/* Who is the run's own (see above). parent_of and name_of read /proc (rb_own_init's) or, in the
 * tests, a planted process tree. */
typedef struct rb_own {
    int self, root;
    int known[RB_OWN_KNOWN];
    int n_known;
    int holds_context;         /* self has a CUDA context on the GPU: it must be listed */
    int (*parent_of)(int pid); /* -1 when unknown */
    void (*name_of)(int pid, char *out, size_t size); /* "?" when unknown */
} rb_own;

/* self = getpid(), root as given, /proc's readers, no known children. */
void rb_own_init(rb_own *o, int root, int holds_context);
/* 1 when pid is the run's own. */
int rb_own_is(const rb_own *o, int pid);

/* The processes of listed[0..n) that are not the run's own into out (which it resets), named
 * by own->name_of unless NVML's PIDs are another namespace's. Returns how many there are (0:
 * the GPU was the run's). */
int rb_contention_judge(const rb_gpu_process *listed, int n, const rb_own *own, rb_contention *out);

/* Empty. */
void rb_contention_init(rb_contention *c);
/* 1 when c names anything: a process, more of them, or a busy GPU with none listed. */
int rb_contention_any(const rb_contention *c);
/* Adds from's processes to into (by PID: one seen twice is one, its largest memory kept). */
void rb_contention_merge(rb_contention *into, const rb_contention *from);
/* "pid 4242 (python3, 2.0 GiB), pid 77 (?, memory not reported) and 2 more", or "the GPU 87%
 * busy with no process listed"; "" when empty. */
void rb_contention_text(const rb_contention *c, char *buf, size_t size);

/* Sets o[key] to c's processes as an array of {"pid", "name", "used_memory_bytes"} (with
 * "more" and "other_namespace" beside it in o as key_more, key_other_namespace when set, and
 * key_unlisted_utilization). 0, or -1 when out of memory. */
int rb_contention_to_json(const rb_contention *c, json_value *o, const char *key);
/* Reads o[key] (and its siblings) back; empty when absent. 0, or -1 with err for a malformed
 * one. */
int rb_contention_from_json(const json_value *o, const char *key, rb_contention *c, char *err,
                            size_t err_size);

/* One look at the GPU while nothing of the run is on it: at a run's start (its probe) and at
 * each pair's start (between pairs). */
typedef struct rb_gpu_check {
    int checked;               /* NVML's list could be read */
    char why[160];             /* why not */
    rb_contention seen;        /* the processes not the run's own */
    double gpu_util, mem_util; /* NVML's utilization, %; NaN: not read */
} rb_gpu_check;

void rb_gpu_check_init(rb_gpu_check *g);
/* {"checked": b, "why": s (unchecked), "contended_by": [...], "utilization_gpu_pct": x,
 * "utilization_memory_pct": y} into o's members. 0, or -1 when out of memory. */
int rb_gpu_check_to_json(const rb_gpu_check *g, json_value *o);
/* And back from such an object (unchecked when absent). 0, or -1 with err. */
int rb_gpu_check_from_json(const json_value *o, rb_gpu_check *g, char *err, size_t err_size);

/* Test hook (RB_TEST_GPU_PROCESSES, read where NVML's list would be): "PID:NAME:BYTES,..." with
 * PID a number, "self" or "root", NAME what /proc would say ("" : looked up) and BYTES a number
 * ("" or "-": not reported). Into out[0..max), *n of them. 0, or -1 for a malformed list. */
int rb_gpu_processes_parse(const char *spec, int self, int root, rb_gpu_process *out, int max,
                           int *n);

#endif
