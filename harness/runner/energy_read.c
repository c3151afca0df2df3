/* SPDX-License-Identifier: MIT */
#include "energy_read.h"

#include <math.h>
#include <time.h>

#include "model/util.h"
#include "env.h"

/* Between two polls while an untimed sample runs: NVML's counter is a driver call, and a
 * busy loop on it would only burn a core to date an edge 50 us better. */
#define POLL_PAUSE_NS 50000L

static int counter_stuck; /* a pad saw no edge in RB_ENERGY_PAD_MAX_S: read no more */

int rb_energy_read_poll(void *nvml, rb_energy_edges *w)
{
    unsigned long long mj = 0;
    if (!nvml || rb_env_nvml_energy_mj(nvml, &mj) != 0)
        return -1;
    rb_energy_edges_feed(w, rb_now_s(), mj);
    return 0;
}

/* Waits for ev, polling the counter meanwhile. */
static rb_status poll_until(cudaEvent_t ev, void *nvml, rb_energy_edges *w)
{
    const struct timespec pause = {0, POLL_PAUSE_NS};
    cudaError_t q;
    while ((q = cudaEventQuery(ev)) == cudaErrorNotReady) {
        rb_energy_read_poll(nvml, w);
        nanosleep(&pause, NULL);
    }
    RB_CUDA(q);
    rb_energy_read_poll(nvml, w);
    return RB_OK;
}

rb_status rb_energy_read_pad(rb_status (*run)(void *, cudaStream_t), void *ctx,
                             cudaStream_t stream, int launches, cudaEvent_t ev, void *nvml,
                             rb_energy_edges *w)
{
    if (!nvml || counter_stuck)
        return RB_OK;
    rb_energy_edges_end_after(w, rb_now_s());
    int edges = w->edges;
    double t0 = rb_now_s();
    while (!w->done && !w->went_back && rb_now_s() - t0 < RB_ENERGY_PAD_MAX_S) {
        for (int k = 0; k < launches; k++)
            RB_TRY(run(ctx, stream));
        RB_CUDA(cudaEventRecord(ev, stream));
        RB_TRY(poll_until(ev, nvml, w));
    }
    if (w->edges == edges && !w->done)
        counter_stuck = 1;
    return RB_OK;
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
