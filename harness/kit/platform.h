/* SPDX-License-Identifier: MIT */
/*
 * What a pair, or the runner, may ask of the machine beyond the CUDA runtime: NVML's readings
 * (loaded with dlopen: its header is not on every toolkit install), the PCIe link, the user's
 * environment variables. Read only: nothing here changes a setting of the GPU.
 */
#ifndef RB_PLATFORM_H
#define RB_PLATFORM_H

#include <stddef.h>

/* ---- NVML, the few entry points roofbench reads, declared by hand ---- */

typedef int rb_nvml_ret; /* 0: success */
typedef struct rb_nvml_device_st *rb_nvml_device;

typedef struct rb_nvml_api {
    rb_nvml_ret (*clock)(rb_nvml_device, int, unsigned *);
    rb_nvml_ret (*max_clock)(rb_nvml_device, int, unsigned *);
    rb_nvml_ret (*temperature)(rb_nvml_device, int, unsigned *);
    rb_nvml_ret (*power)(rb_nvml_device, unsigned *);
    rb_nvml_ret (*power_limit)(rb_nvml_device, unsigned *);
    rb_nvml_ret (*reasons)(rb_nvml_device, unsigned long long *);
    rb_nvml_ret (*persistence)(rb_nvml_device, int *);
    rb_nvml_ret (*pcie_gen)(rb_nvml_device, unsigned *);
    rb_nvml_ret (*pcie_width)(rb_nvml_device, unsigned *);
    rb_nvml_ret (*ecc)(rb_nvml_device, int *, int *);
    rb_nvml_ret (*mig)(rb_nvml_device, unsigned *, unsigned *);
    rb_nvml_ret (*driver)(char *, unsigned);
    /* nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver loaded (Volta on) */
    rb_nvml_ret (*energy)(rb_nvml_device, unsigned long long *);
    /* nvmlDeviceGetUtilizationRates: {unsigned gpu, memory;} in % over the driver's last
     * sample period */
    rb_nvml_ret (*utilization)(rb_nvml_device, unsigned *);
    /* nvmlDeviceGetComputeRunningProcesses_v3 or _v2 (process_bytes 24), else the unversioned
     * call (16): (device, in: room / out: count, records) */
    rb_nvml_ret (*processes)(rb_nvml_device, unsigned *, void *);
    size_t process_bytes;
} rb_nvml_api;

enum { RB_NVML_CLOCK_SM = 1, RB_NVML_CLOCK_MEM = 2, RB_NVML_TEMPERATURE_GPU = 0 };

/* NVML's entry points and CUDA device `device`'s handle (found by its PCI bus id); NULL when
 * NVML is absent or has no such device: rb_nvml_why() then says why. Any entry point may be
 * NULL (an older driver). */
const rb_nvml_api *rb_nvml_handle(int device, rb_nvml_device *h);
const char *rb_nvml_why(void);

/* The device's host link as NVML reports it now: 0 with *gen (1..6) and *width (lanes), or -1
 * (NVML absent, or the driver does not report the link, as in some virtual machines). */
int rb_env_pcie_link(int device, int *gen, int *width);

/* The theoretical rate of a PCIe link, one direction, GB/s (line code included: 8b/10b up to
 * gen 2, 128b/130b from gen 3; gen 6's FLIT overhead is ignored). NaN for an unknown gen. */
double rb_pcie_gbps(int gen, int width);

/* SM clock in MHz now, NaN when NVML is unavailable. */
double rb_env_sm_clock_mhz(int device);
/* Board power in W now (NVML's reading, averaged by the driver over a short window), NaN when
 * NVML is unavailable. */
double rb_env_power_w(int device);

/* For the clock sampler: NVML's handle of device, resolved on the calling thread (it asks the
 * CUDA runtime for the PCI bus id); 0, or -1 without NVML. The handle is then read from any
 * thread (NVML is thread-safe) and calls no CUDA. */
int rb_env_nvml_device(int device, void **handle);
/* One sample: the SM clock in MHz (NaN when unread) and the clock-event reason bits
 * (nvmlDeviceGetCurrentClocksEventReasons, or the older ...ThrottleReasons: the same bits);
 * *have_reasons 0 when they could not be read. */
void rb_env_nvml_clock_sample(void *handle, double *sm_mhz, int *have_reasons,
                              unsigned long long *reasons);

/* NVML's total-energy counter of the handle's GPU (rb_env_nvml_device) in millijoules: 0, or -1
 * (no NVML, no counter on this GPU or driver). Calls no CUDA. */
int rb_env_nvml_energy_mj(void *handle, unsigned long long *mj);
/* NVML's utilization of the GPU (%, over the driver's last sample period): 0, or -1. */
int rb_env_nvml_utilization(void *handle, unsigned *gpu, unsigned *memory);
/* The compute processes on the handle's GPU (model/contention.h: PIDs and memory, names left
 * empty), at most max of them into out, *n how many: 0, or -1 when NVML cannot list them.
 * Test hook: RB_TEST_GPU_PROCESSES (rb_gpu_processes_parse's list) stands for NVML's list,
 * "self" this process and "root" its parent. Calls no CUDA. */
struct rb_gpu_process;
int rb_env_nvml_processes(void *handle, struct rb_gpu_process *out, int max, int *n);

/* " NAME=value" for each environment variable whose name starts with prefix, in environment
 * order, into out (truncated to out_size); "" when none. */
void rb_env_list(const char *prefix, char *out, size_t out_size);

#endif
