/* SPDX-License-Identifier: MIT */
/*
 * The environment of a run: what the CUDA runtime says of the device, and what NVML says of
 * its clocks, temperature, power and throttle reasons. NVML is loaded with dlopen (its header
 * is not on every toolkit install); without it those fields are null and the reason is kept.
 * The harness only reads these settings, never changes them.
 */
#ifndef RB_ENV_H
#define RB_ENV_H

#include "core/json.h"
#include "rb_cuda.h"

/* Device facts used by the harness itself. */
typedef struct rb_device {
    char name[256];
    int cc; /* compute capability x 10 */
    int sms;
    size_t l2_bytes;
    size_t persisting_l2_max_bytes;
    size_t global_mem_bytes;
} rb_device;

/* Number of devices; on failure *why holds one line ("no usable CUDA device: ..."). */
rb_status rb_env_device_count(int *count, char *why, size_t why_size);
rb_status rb_env_device(int device, rb_device *d);

/* The whole environment of device as a JSON object (CUDA + NVML + build). NULL on failure. */
json_value *rb_env_collect(int device);

/* The device's host link as NVML reports it now: 0 with *gen (1..6) and *width (lanes), or -1
 * (NVML absent, or the driver does not report the link, as in some virtual machines). */
int rb_env_pcie_link(int device, int *gen, int *width);

/* The theoretical rate of a PCIe link, one direction, GB/s (line code included: 8b/10b up to
 * gen 2, 128b/130b from gen 3; gen 6's FLIT overhead is ignored). NaN for an unknown gen. */
double rb_pcie_gbps(int gen, int width);

/* " NAME=value" for each environment variable whose name starts with prefix, in environment
 * order, into out (truncated to out_size); "" when none. */
void rb_env_list(const char *prefix, char *out, size_t out_size);

/* SM clock in MHz now, NaN when NVML is unavailable. */
double rb_env_sm_clock_mhz(int device);
/* Board power in W now (NVML's reading, averaged by the driver over a short window), NaN when
 * NVML is unavailable. */
double rb_env_power_w(int device);

/* For the clock sampler (clock_sampler.h): NVML's handle of device, resolved on the calling
 * thread (it asks the CUDA runtime for the PCI bus id); 0, or -1 without NVML. The handle is
 * then read from any thread (NVML is thread-safe) and calls no CUDA. */
int rb_env_nvml_device(int device, void **handle);
/* One sample: the SM clock in MHz (NaN when unread) and the clock-event reason bits
 * (nvmlDeviceGetCurrentClocksEventReasons, or the older ...ThrottleReasons: the same bits);
 * *have_reasons 0 when they could not be read. */
void rb_env_nvml_clock_sample(void *handle, double *sm_mhz, int *have_reasons,
                              unsigned long long *reasons);

/* Build facts, from the generated version file. */
extern const char rb_git_rev[];
extern const char rb_build_arch[];

#endif
