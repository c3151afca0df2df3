/* SPDX-License-Identifier: MIT */
#include "platform.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "model/contention.h"
#include "model/util.h"

/* ---- NVML through dlopen: the few entry points we read, declared by hand ---- */

/* The loaded library: its entry points (platform.h's) and the two only the loader needs. */
typedef struct nvml_api {
    rb_nvml_api api;
    int loaded;
    char why[160];
    rb_nvml_ret (*init)(void);
    rb_nvml_ret (*by_pci)(const char *, rb_nvml_device *);
} nvml_api;

static nvml_api nvml;

static void *nvml_sym(void *lib, const char *name, const char *fallback)
{
    void *f = dlsym(lib, name);
    return f || !fallback ? f : dlsym(lib, fallback);
}

static nvml_api *nvml_load(void)
{
    if (nvml.loaded)
        return nvml.loaded > 0 ? &nvml : NULL;
    nvml.loaded = -1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        rb_fmt(nvml.why, sizeof nvml.why, "libnvidia-ml.so.1 not loadable: %s", dlerror());
        return NULL;
    }
    *(void **)&nvml.init = nvml_sym(lib, "nvmlInit_v2", NULL);
    *(void **)&nvml.by_pci = nvml_sym(lib, "nvmlDeviceGetHandleByPciBusId_v2", NULL);
    *(void **)&nvml.api.clock = nvml_sym(lib, "nvmlDeviceGetClockInfo", NULL);
    *(void **)&nvml.api.max_clock = nvml_sym(lib, "nvmlDeviceGetMaxClockInfo", NULL);
    *(void **)&nvml.api.temperature = nvml_sym(lib, "nvmlDeviceGetTemperature", NULL);
    *(void **)&nvml.api.power = nvml_sym(lib, "nvmlDeviceGetPowerUsage", NULL);
    *(void **)&nvml.api.power_limit = nvml_sym(lib, "nvmlDeviceGetEnforcedPowerLimit", NULL);
    *(void **)&nvml.api.reasons = nvml_sym(lib, "nvmlDeviceGetCurrentClocksEventReasons",
                                       "nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&nvml.api.persistence = nvml_sym(lib, "nvmlDeviceGetPersistenceMode", NULL);
    *(void **)&nvml.api.pcie_gen = nvml_sym(lib, "nvmlDeviceGetCurrPcieLinkGeneration", NULL);
    *(void **)&nvml.api.pcie_width = nvml_sym(lib, "nvmlDeviceGetCurrPcieLinkWidth", NULL);
    *(void **)&nvml.api.ecc = nvml_sym(lib, "nvmlDeviceGetEccMode", NULL);
    *(void **)&nvml.api.mig = nvml_sym(lib, "nvmlDeviceGetMigMode", NULL);
    *(void **)&nvml.api.driver = nvml_sym(lib, "nvmlSystemGetDriverVersion", NULL);
    *(void **)&nvml.api.energy = nvml_sym(lib, "nvmlDeviceGetTotalEnergyConsumption", NULL);
    *(void **)&nvml.api.utilization = nvml_sym(lib, "nvmlDeviceGetUtilizationRates", NULL);
    /* _v3 and _v2 fill the 24-byte nvmlProcessInfo_v2_t, the first call the 16-byte v1 */
    *(void **)&nvml.api.processes = nvml_sym(lib, "nvmlDeviceGetComputeRunningProcesses_v3",
                                             "nvmlDeviceGetComputeRunningProcesses_v2");
    nvml.api.process_bytes = RB_NVML_PROCESS_V2_BYTES;
    if (!nvml.api.processes) {
        *(void **)&nvml.api.processes = nvml_sym(lib, "nvmlDeviceGetComputeRunningProcesses", NULL);
        nvml.api.process_bytes = RB_NVML_PROCESS_V1_BYTES;
    }
    if (!nvml.init || !nvml.by_pci) {
        rb_fmt(nvml.why, sizeof nvml.why, "%s", "libnvidia-ml.so.1 lacks nvmlInit_v2");
        return NULL;
    }
    if (nvml.init() != 0) {
        rb_fmt(nvml.why, sizeof nvml.why, "%s", "nvmlInit_v2 failed");
        return NULL;
    }
    nvml.loaded = 1;
    return &nvml;
}

const rb_nvml_api *rb_nvml_handle(int device, rb_nvml_device *h)
{
    char bus[64];
    if (!nvml_load())
        return NULL;
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) {
        rb_fmt(nvml.why, sizeof nvml.why, "no PCI bus id for CUDA device %d", device);
        return NULL;
    }
    if (nvml.by_pci(bus, h) != 0) {
        rb_fmt(nvml.why, sizeof nvml.why, "NVML has no device at PCI bus id %s", bus);
        return NULL;
    }
    return &nvml.api;
}

const char *rb_nvml_why(void)
{
    return nvml.why[0] ? nvml.why : "NVML not loaded";
}

int rb_env_pcie_link(int device, int *gen, int *width)
{
    rb_nvml_device h;
    unsigned g = 0, w = 0;
    if (!rb_nvml_handle(device, &h) || !nvml.api.pcie_gen || !nvml.api.pcie_width ||
        nvml.api.pcie_gen(h, &g) != 0 || nvml.api.pcie_width(h, &w) != 0 || g == 0 || w == 0)
        return -1;
    *gen = (int)g;
    *width = (int)w;
    return 0;
}

double rb_pcie_gbps(int gen, int width)
{
    static const double gt_per_s[] = {0, 2.5, 5, 8, 16, 32, 64};
    if (gen < 1 || gen > 6 || width < 1)
        return NAN;
    double code = gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
    return gt_per_s[gen] * code * width / 8.0;
}

double rb_env_sm_clock_mhz(int device)
{
    rb_nvml_device h;
    unsigned v = 0;
    if (!rb_nvml_handle(device, &h) || !nvml.api.clock || nvml.api.clock(h, RB_NVML_CLOCK_SM, &v) != 0)
        return NAN;
    return v;
}

double rb_env_power_w(int device)
{
    rb_nvml_device h;
    unsigned mw = 0;
    if (!rb_nvml_handle(device, &h) || !nvml.api.power || nvml.api.power(h, &mw) != 0)
        return NAN;
    return mw * 1e-3;
}

int rb_env_nvml_device(int device, void **handle)
{
    rb_nvml_device h;
    if (!rb_nvml_handle(device, &h))
        return -1;
    *handle = h;
    return 0;
}

void rb_env_nvml_clock_sample(void *handle, double *sm_mhz, int *have_reasons,
                              unsigned long long *reasons)
{
    unsigned v = 0;
    *sm_mhz = nvml.api.clock && nvml.api.clock(handle, RB_NVML_CLOCK_SM, &v) == 0 ? (double)v : NAN;
    *reasons = 0;
    *have_reasons = nvml.api.reasons && nvml.api.reasons(handle, reasons) == 0;
}

int rb_env_nvml_energy_mj(void *handle, unsigned long long *mj)
{
    return nvml.loaded > 0 && nvml.api.energy && nvml.api.energy(handle, mj) == 0 ? 0 : -1;
}

int rb_env_nvml_utilization(void *handle, unsigned *gpu, unsigned *memory)
{
    unsigned u[2] = {0, 0};
    if (nvml.loaded <= 0 || !nvml.api.utilization || nvml.api.utilization(handle, u) != 0)
        return -1;
    *gpu = u[0];
    *memory = u[1];
    return 0;
}

int rb_env_nvml_processes(void *handle, struct rb_gpu_process *out, int max, int *n)
{
    enum { insufficient_size = 7 }; /* NVML_ERROR_INSUFFICIENT_SIZE */
    const char *planted = getenv("RB_TEST_GPU_PROCESSES");
    *n = 0;
    if (planted)
        return rb_gpu_processes_parse(planted, (int)getpid(), (int)getppid(), out, max, n);
    if (nvml.loaded <= 0 || !nvml.api.processes)
        return -1;
    /* 8-byte aligned room for the records; a longer list is read again into a larger one */
    unsigned long long room[RB_CONTENTION_LISTED_MAX * RB_NVML_PROCESS_V2_BYTES / 8];
    size_t bytes = nvml.api.process_bytes;
    unsigned count = (unsigned)(sizeof room / bytes);
    void *records = room;
    rb_nvml_ret rc = nvml.api.processes(handle, &count, records);
    if (rc == insufficient_size && count < 100000) {
        count += 8; /* room for processes that start meanwhile */
        records = malloc((size_t)count * bytes);
        rc = records ? nvml.api.processes(handle, &count, records) : -1;
    }
    if (rc == 0)
        *n = rb_gpu_processes_decode(records, count, bytes, out, max);
    if (records != room)
        free(records);
    return rc == 0 ? 0 : -1;
}

void rb_env_list(const char *prefix, char *out, size_t out_size)
{
    extern char **environ;
    size_t prefix_len = strlen(prefix);
    out[0] = '\0';
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, prefix, prefix_len)) {
            size_t len = strlen(out);
            rb_fmt(out + len, out_size - len, " %s", *e);
        }
}
