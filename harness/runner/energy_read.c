/* SPDX-License-Identifier: MIT */
#include "energy_read.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "model/util.h"
#include "env.h"

/* Between two polls: NVML's counter is a driver call, and a busy loop on it would only burn a
 * core to date an edge 50 us better. */
#define POLL_PAUSE_NS 50000L

static atomic_int counter_stuck; /* a pad saw no edge in RB_ENERGY_PAD_MAX_S: read no more */

static void *poll_thread(void *arg)
{
    rb_energy_poller *p = arg;
    const struct timespec pause = {0, POLL_PAUSE_NS};
    while (!atomic_load(&p->stop)) {
        unsigned long long mj = 0;
        if (rb_env_nvml_energy_mj(p->nvml, &mj) == 0) {
            double t = rb_now_s();
            pthread_mutex_lock(&p->lock);
            int over = rb_energy_edges_feed(&p->w, t, mj) || p->w.went_back;
            pthread_mutex_unlock(&p->lock);
            if (over)
                break;
        }
        nanosleep(&pause, NULL);
    }
    return NULL;
}

int rb_energy_poller_start(rb_energy_poller *p, void *nvml)
{
    memset(p, 0, sizeof *p);
    rb_energy_edges_init(&p->w);
    if (!nvml || atomic_load(&counter_stuck))
        return -1;
    p->nvml = nvml;
    atomic_init(&p->stop, 0);
    if (pthread_mutex_init(&p->lock, NULL) != 0)
        return -1;
    if (pthread_create(&p->thread, NULL, poll_thread, p) != 0) {
        pthread_mutex_destroy(&p->lock);
        return -1;
    }
    return 0;
}

/* The edges seen so far and whether the window is over (complete, or the counter went back). */
static int poller_over(rb_energy_poller *p, int *edges)
{
    pthread_mutex_lock(&p->lock);
    int over = p->w.done || p->w.went_back;
    *edges = p->w.edges;
    pthread_mutex_unlock(&p->lock);
    return over;
}

rb_status rb_energy_poller_pad(rb_energy_poller *p, rb_status (*run)(void *, cudaStream_t),
                               void *ctx, cudaStream_t stream, int launches, cudaEvent_t ev)
{
    pthread_mutex_lock(&p->lock);
    rb_energy_edges_end_after(&p->w, rb_now_s());
    int edges0 = p->w.edges, edges = edges0;
    pthread_mutex_unlock(&p->lock);
    double t0 = rb_now_s();
    while (!poller_over(p, &edges) && rb_now_s() - t0 < RB_ENERGY_PAD_MAX_S) {
        for (int k = 0; k < launches; k++)
            RB_TRY(run(ctx, stream));
        RB_CUDA(cudaEventRecord(ev, stream));
        RB_CUDA(cudaEventSynchronize(ev));
    }
    if (edges == edges0 && !poller_over(p, &edges))
        atomic_store(&counter_stuck, 1);
    return RB_OK;
}

void rb_energy_poller_stop(rb_energy_poller *p, rb_energy_edges *out)
{
    atomic_store(&p->stop, 1);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    *out = p->w;
}

#define PROBE_MAX_READINGS 20000

json_value *rb_energy_read_probe(int device, char *why, size_t why_size)
{
    static double t_s[PROBE_MAX_READINGS];
    static unsigned long long mj[PROBE_MAX_READINGS];
    void *nvml = NULL;
    if (rb_env_nvml_device(device, &nvml) != 0) {
        rb_fmt(why, why_size, "no NVML");
        return NULL;
    }
    const struct timespec pause = {0, POLL_PAUSE_NS};
    int n = 0, edges = 0;
    for (double t0 = rb_now_s(); n < PROBE_MAX_READINGS && edges < RB_ENERGY_PROBE_EDGES &&
                                 rb_now_s() - t0 < RB_ENERGY_PROBE_S;
         n++) {
        if (rb_env_nvml_energy_mj(nvml, &mj[n]) != 0) {
            rb_fmt(why, why_size, "no NVML total-energy counter");
            return NULL;
        }
        t_s[n] = rb_now_s();
        edges += n > 0 && mj[n] != mj[n - 1];
        nanosleep(&pause, NULL);
    }
    rb_energy_counter c;
    if (rb_energy_counter_from(t_s, mj, n, &c) != 0) {
        rb_fmt(why, why_size, "too few readings of the counter");
        return NULL;
    }
    /* NaN (an update period not seen) is written as null */
    json_value *o = json_new_object();
    if (!o || json_set_number(o, "update_ms", c.update_s * 1e3) ||
        json_set_number(o, "update_max_ms", c.update_max_s * 1e3) ||
        json_set_number(o, "edges", c.edges) || json_set_number(o, "readings", c.readings) ||
        json_set_number(o, "poll_us", c.poll_s * 1e6) || json_set_number(o, "idle_w", c.power_w)) {
        json_free(o);
        rb_fmt(why, why_size, "out of memory");
        return NULL;
    }
    return o;
}
