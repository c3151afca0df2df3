/* SPDX-License-Identifier: MIT */
#include "gpu_check.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/util.h"
#include "env.h"
#include "runner.h"

void rb_gpu_check_own(rb_own *o, int holds_context)
{
    rb_own_init(o, (int)getppid(), holds_context);
    o->n_known = rb_runner_children(o->known, RB_OWN_KNOWN);
}

int rb_gpu_check_list(void *handle, const rb_own *own, rb_contention *out)
{
    rb_gpu_process listed[RB_CONTENTION_LISTED_MAX];
    int n = 0;
    rb_contention_init(out);
    if (rb_env_nvml_processes(handle, listed, RB_CONTENTION_LISTED_MAX, &n) != 0)
        return -1;
    rb_contention_judge(listed, n, own, out);
    return 0;
}

static int read_utilization(void *handle, rb_gpu_check *g)
{
    unsigned gpu = 0, mem = 0;
    if (rb_env_nvml_utilization(handle, &gpu, &mem) != 0)
        return -1;
    g->gpu_util = gpu;
    g->mem_util = mem;
    return 0;
}

void rb_gpu_check_idle(int device, int settle, int holds_context, rb_gpu_check *g)
{
    void *handle = NULL;
    rb_own own;
    rb_gpu_check_init(g);
    rb_gpu_check_own(&own, holds_context);
    if (rb_env_nvml_device(device, &handle) != 0) {
        rb_fmt(g->why, sizeof g->why, "%s", rb_nvml_why());
        return;
    }
    if (rb_gpu_check_list(handle, &own, &g->seen) != 0) {
        rb_fmt(g->why, sizeof g->why, "NVML cannot list the GPU's compute processes");
        return;
    }
    g->checked = 1;
    if (read_utilization(handle, g) != 0 || !settle || rb_contention_any(&g->seen) ||
        !(g->gpu_util > 0))
        return;
    const struct timespec wait = {(time_t)RB_GPU_CHECK_SETTLE_S,
                                  (long)(fmod(RB_GPU_CHECK_SETTLE_S, 1.0) * 1e9)};
    nanosleep(&wait, NULL);
    double first = g->gpu_util;
    if (rb_gpu_check_list(handle, &own, &g->seen) != 0 || read_utilization(handle, g) != 0)
        return;
    if (!rb_contention_any(&g->seen) && g->gpu_util > 0)
        g->seen.unlisted_util = fmin(first, g->gpu_util);
}
