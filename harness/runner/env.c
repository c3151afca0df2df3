/* SPDX-License-Identifier: MIT */
#include "env.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* cublasLt.h declares cublasLtLoggerForceDisable() without a prototype (CUDA 13.0); nccl.h
 * ncclGroupStart() and others. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#include <cublas_api.h>
#ifdef RB_HAVE_NCCL
#include <nccl.h>
#endif
#pragma GCC diagnostic pop

#include "model/fingerprint.h"
#include "model/text.h"
#include "model/util.h"
#include "platform.h"

/* Sets key to the value read by ok ? x : null. */
static int set_reading(json_value *o, const char *key, int ok, double x)
{
    return json_set_number(o, key, ok ? x : NAN);
}

/* One NVML reading: calls read, then records the value or null. Kept as a separate step so
 * the value is never read before the call that fills it. */
static int set_nvml(json_value *o, const char *key, rb_nvml_ret rc, unsigned v, double scale)
{
    return set_reading(o, key, rc == 0, v * scale);
}

static const char *const reason_names[] = {
    "gpu_idle",   "applications_clocks", "sw_power_cap",   "hw_slowdown",    "sync_boost",
    "sw_thermal", "hw_thermal",          "hw_power_brake", "display_clocks",
};

static json_value *nvml_state(int device)
{
    json_value *o = json_new_object();
    rb_nvml_device h;
    if (!o)
        return NULL;
    const rb_nvml_api *nvml = rb_nvml_handle(device, &h);
    if (!nvml) {
        json_set_string(o, "unavailable", rb_nvml_why());
        return o;
    }
    unsigned v = 0;
    int bad = 0;
    rb_nvml_ret rc;
    const rb_nvml_ret missing = -1;
    rc = nvml->clock ? nvml->clock(h, RB_NVML_CLOCK_SM, &v) : missing;
    bad |= set_nvml(o, "sm_clock_mhz", rc, v, 1);
    rc = nvml->clock ? nvml->clock(h, RB_NVML_CLOCK_MEM, &v) : missing;
    bad |= set_nvml(o, "mem_clock_mhz", rc, v, 1);
    rc = nvml->max_clock ? nvml->max_clock(h, RB_NVML_CLOCK_SM, &v) : missing;
    bad |= set_nvml(o, "sm_clock_max_mhz", rc, v, 1);
    rc = nvml->temperature ? nvml->temperature(h, RB_NVML_TEMPERATURE_GPU, &v) : missing;
    bad |= set_nvml(o, "temperature_c", rc, v, 1);
    rc = nvml->power ? nvml->power(h, &v) : missing;
    bad |= set_nvml(o, "power_w", rc, v, 1e-3);
    rc = nvml->power_limit ? nvml->power_limit(h, &v) : missing;
    bad |= set_nvml(o, "power_limit_w", rc, v, 1e-3);
    int pm = 0;
    rc = nvml->persistence ? nvml->persistence(h, &pm) : missing;
    bad |= set_nvml(o, "persistence_mode", rc, (unsigned)pm, 1);
    rc = nvml->pcie_gen ? nvml->pcie_gen(h, &v) : missing;
    bad |= set_nvml(o, "pcie_gen", rc, v, 1);
    rc = nvml->pcie_width ? nvml->pcie_width(h, &v) : missing;
    bad |= set_nvml(o, "pcie_width", rc, v, 1);
    unsigned long long r = 0;
    if (nvml->reasons && !nvml->reasons(h, &r)) {
        json_value *list = json_new_array();
        for (unsigned b = 0; list && b < sizeof reason_names / sizeof reason_names[0]; b++)
            if (r & (1ull << b))
                bad |= json_array_push(list, json_new_string(reason_names[b]));
        bad |= json_object_set(o, "clock_event_reasons", list);
    }
    if (bad) {
        json_free(o);
        return NULL;
    }
    return o;
}

/* ---- CUDA ---- */

rb_status rb_env_device_count(int *count, char *why, size_t why_size)
{
    cudaError_t e = cudaGetDeviceCount(count);
    /* Without a driver the runtime says "driver version is insufficient" (error 35), which sends
     * a user looking for a driver upgrade on a machine that has no driver or GPU at all: only a
     * driver that loads is too old. */
    void *driver = e == cudaErrorInsufficientDriver ? dlopen("libcuda.so.1", RTLD_LAZY) : NULL;
    if (e == cudaErrorInsufficientDriver && !driver) {
        rb_fmt(why, why_size,
               "no usable CUDA device: no NVIDIA driver or GPU was found (libcuda.so.1 does "
               "not load; cudaGetDeviceCount returned %d)",
               (int)e);
        return RB_ERR_UNSUPPORTED;
    }
    if (driver)
        dlclose(driver);
    if (e == cudaErrorNoDevice) {
        rb_fmt(why, why_size, "no usable CUDA device: the NVIDIA driver sees no GPU (%s)",
               cudaGetErrorString(e));
        return RB_ERR_UNSUPPORTED;
    }
    if (e != cudaSuccess) {
        rb_fmt(why, why_size, "no usable CUDA device: cudaGetDeviceCount returned %d (%s)", (int)e,
               cudaGetErrorString(e));
        return RB_ERR_UNSUPPORTED;
    }
    if (*count == 0) {
        rb_fmt(why, why_size, "%s", "no usable CUDA device: none visible");
        return RB_ERR_UNSUPPORTED;
    }
    return RB_OK;
}

rb_status rb_env_device(int device, rb_device *d)
{
    struct cudaDeviceProp p;
    RB_CUDA(cudaGetDeviceProperties(&p, device));
    memset(d, 0, sizeof *d);
    rb_fmt(d->name, sizeof d->name, "%s", p.name);
    d->cc = p.major * 10 + p.minor;
    d->sms = p.multiProcessorCount;
    d->l2_bytes = (size_t)p.l2CacheSize;
    d->persisting_l2_max_bytes = (size_t)p.persistingL2CacheMaxSize;
    d->global_mem_bytes = p.totalGlobalMem;
    return RB_OK;
}

static int attr(enum cudaDeviceAttr a, int device)
{
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : -1;
}

/* The user's settings that change what is measured: NCCL_* (the collectives' algorithm,
 * protocol, NVLink multicast), CUDA_* (visible devices, launch blocking, module loading),
 * NVIDIA_TF32_OVERRIDE and CUBLAS_* (math modes). Recorded, never changed. */
static json_value *env_variables(void)
{
    extern char **environ;
    static const char *const prefixes[] = {"NCCL_", "CUDA_", "NVIDIA_TF32_OVERRIDE=", "CUBLAS",
                                           "CUBLASLT_"};
    json_value *o = json_new_object();
    for (char **e = environ; o && e && *e; e++) {
        const char *eq = strchr(*e, '=');
        int wanted = 0;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
            wanted |= strncmp(*e, prefixes[i], strlen(prefixes[i])) == 0;
        if (!wanted || !eq || eq - *e >= 128)
            continue;
        char name[128];
        rb_fmt(name, sizeof name, "%.*s", (int)(eq - *e), *e);
        if (json_set_string(o, name, eq + 1)) {
            json_free(o);
            return NULL;
        }
    }
    return o;
}

/* key: a bool, or null when unknown. */
static int set_flag(json_value *o, const char *key, int known, int b)
{
    return known ? json_set_bool(o, key, b) : json_object_set(o, key, json_new_null());
}

/* The library versions a run links: cuBLAS as "major.minor.patch" (cublasGetProperty),
 * cuBLASLt as the number cublasLtGetVersion returns (130100 for 13.1.0), NCCL as ncclGetVersion's
 * number (22703 for 2.27.3) when the build has NCCL; null when unknown. None needs the GPU. */
static int library_versions(json_value *o)
{
    int major = 0, minor = 0, patch = 0;
    char buf[48];
    int bad = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS) {
        rb_fmt(buf, sizeof buf, "%d.%d.%d", major, minor, patch);
        bad |= json_set_string(o, "cublas_version", buf);
    } else {
        bad |= json_set_string(o, "cublas_version", NULL);
    }
    size_t lt = cublasLtGetVersion();
    bad |= set_reading(o, "cublaslt_version", lt > 0, (double)lt);
    int nccl = 0;
#ifdef RB_HAVE_NCCL
    if (ncclGetVersion(&nccl) != ncclSuccess)
        nccl = 0;
#endif
    bad |= set_reading(o, "nccl_version", nccl > 0, nccl);
    return bad;
}

/* The settings an upgrade or an administrator can change under a run, each null when unknown
 * (no NVML, or the driver does not say): power limit, ECC, persistence, the PCIe link as it is
 * now, MIG, the maximum SM clock and the memory clock now. The harness never changes them. */
static int platform_settings(json_value *o, int device, const struct cudaDeviceProp *p)
{
    rb_nvml_device h;
    const rb_nvml_api *nvml = rb_nvml_handle(device, &h);
    int have = nvml != NULL, bad = 0;
    const rb_nvml_ret missing = -1, not_supported = 3; /* NVML_ERROR_NOT_SUPPORTED */
    unsigned v = 0, mig = 0, mig_pending = 0;
    int ecc = 0, ecc_pending = 0, pm = 0;
    rb_nvml_ret rc = have && nvml->power_limit ? nvml->power_limit(h, &v) : missing;
    bad |= set_nvml(o, "power_limit_w", rc, v, 1e-3);
    rc = have && nvml->ecc ? nvml->ecc(h, &ecc, &ecc_pending) : missing;
    /* without NVML, the runtime's view of ECC */
    bad |= set_flag(o, "ecc", 1, rc == 0 ? ecc != 0 : p->ECCEnabled != 0);
    rc = have && nvml->persistence ? nvml->persistence(h, &pm) : missing;
    bad |= set_flag(o, "persistence_mode", rc == 0, pm != 0);
    rc = have && nvml->pcie_gen ? nvml->pcie_gen(h, &v) : missing;
    bad |= set_nvml(o, "pcie_gen", rc, v, 1);
    rc = have && nvml->pcie_width ? nvml->pcie_width(h, &v) : missing;
    bad |= set_nvml(o, "pcie_width", rc, v, 1);
    /* A GPU without MIG answers "not supported": MIG is off there. */
    rc = have && nvml->mig ? nvml->mig(h, &mig, &mig_pending) : missing;
    bad |= set_flag(o, "mig", rc == 0 || rc == not_supported, rc == 0 && mig != 0);
    /* NVML's, else the runtime's attributes (kHz) */
    int sm_khz = attr(cudaDevAttrClockRate, device), mem_khz = attr(cudaDevAttrMemoryClockRate, device);
    rc = have && nvml->max_clock ? nvml->max_clock(h, RB_NVML_CLOCK_SM, &v) : missing;
    bad |= set_reading(o, "sm_clock_max_mhz", rc == 0 || sm_khz > 0, rc == 0 ? v : sm_khz * 1e-3);
    rc = have && nvml->clock ? nvml->clock(h, RB_NVML_CLOCK_MEM, &v) : missing;
    bad |= set_reading(o, "mem_clock_mhz", rc == 0 || mem_khz > 0, rc == 0 ? v : mem_khz * 1e-3);
    return bad;
}

/* Which GPU this is: its index among the visible ones, how many there are, its UUID and its PCI
 * bus id (the last two name it whatever CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER say). */
static int device_identity(json_value *o, int device, int visible, const struct cudaDeviceProp *p)
{
    char uuid[48], bus[32];
    rb_text_uuid((const unsigned char *)p->uuid.bytes, uuid, sizeof uuid);
    int bad = json_set_number(o, "device_index", device) |
              json_set_number(o, "visible_devices", visible) | json_set_string(o, "uuid", uuid);
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess)
        bad |= json_set_string(o, "pci_bus_id", bus);
    else
        bad |= json_set_string(o, "pci_bus_id", NULL);
    return bad;
}

/* Whether this build has its kernels' codegen fingerprints (a build without cuobjdump has
 * none: its results carry no sass_hash, and a compare cannot attribute a change to the code). */
static int codegen_state(json_value *o)
{
    int have = rb_fingerprints_missing[0] == '\0';
    int bad = json_set_bool(o, "codegen_fingerprints", have);
    if (!have)
        bad |= json_set_string(o, "codegen_fingerprints_why", rb_fingerprints_missing);
    return bad;
}

json_value *rb_env_collect(int device, int alone)
{
    struct cudaDeviceProp p;
    int driver = 0, runtime = 0;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess || cudaDriverGetVersion(&driver) ||
        cudaRuntimeGetVersion(&runtime))
        return NULL;
    json_value *o = json_new_object();
    char buf[64], key[300];
    int visible = 0;
    cudaGetDeviceCount(&visible);
    int count = alone ? 1 : visible;
    rb_machine_key(p.name, count, key, sizeof key);
    rb_fmt(buf, sizeof buf, "%d.%d", p.major, p.minor);
    int bad = !o || json_set_string(o, "device", p.name) ||
              json_set_string(o, "hardware_key", key) || json_set_string(o, "cc", buf);
    bad |= json_set_number(o, "sms", p.multiProcessorCount);
    bad |= json_set_number(o, "l2_bytes", p.l2CacheSize);
    bad |= json_set_number(o, "persisting_l2_max_bytes", p.persistingL2CacheMaxSize);
    bad |= json_set_number(o, "global_mem_bytes", (double)p.totalGlobalMem);
    bad |= json_set_number(o, "smem_per_block_optin_bytes", (double)p.sharedMemPerBlockOptin);
    /* The attribute API, not cudaDeviceProp's clock fields (removed in CUDA 13). */
    int mem_khz = attr(cudaDevAttrMemoryClockRate, device);
    int bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, device);
    int sm_khz = attr(cudaDevAttrClockRate, device);
    bad |= set_reading(o, "sm_clock_max_khz", sm_khz > 0, sm_khz);
    bad |= set_reading(o, "mem_clock_khz", mem_khz > 0, mem_khz);
    bad |= set_reading(o, "mem_bus_bits", bus_bits > 0, bus_bits);
    bad |= set_reading(o, "dram_theoretical_gbps", mem_khz > 0 && bus_bits > 0,
                       2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9);
    bad |= json_set_number(o, "device_count", count);
    bad |= device_identity(o, device, visible, &p);
    char host[256];
    rb_host_name(host, sizeof host);
    bad |= json_set_string(o, "host", host);
    rb_fmt(buf, sizeof buf, "%d.%d", driver / 1000, driver % 1000 / 10);
    bad |= json_set_string(o, "cuda_driver", buf);
    rb_fmt(buf, sizeof buf, "%d.%d", runtime / 1000, runtime % 1000 / 10);
    bad |= json_set_string(o, "cuda_runtime", buf);
    char drv[96] = "";
    rb_nvml_device h;
    const rb_nvml_api *nvml = rb_nvml_handle(device, &h);
    if (nvml && nvml->driver && nvml->driver(drv, sizeof drv) == 0)
        bad |= json_set_string(o, "driver", drv);
    else
        bad |= json_set_string(o, "driver", NULL);
    bad |= library_versions(o);
    bad |= platform_settings(o, device, &p);
    bad |= json_object_set(o, "nvml", nvml_state(device));
    bad |= json_object_set(o, "variables", env_variables());
    bad |= json_set_string(o, "git", rb_git_rev);
    bad |= json_set_string(o, "build_arch", rb_build_arch);
    bad |= json_set_string(o, "build_nvcc", rb_build_nvcc[0] ? rb_build_nvcc : NULL);
    bad |= codegen_state(o);
    if (bad) {
        json_free(o);
        return NULL;
    }
    return o;
}

void rb_env_version_text(char *buf, size_t size)
{
    int runtime = 0, driver = 0;
    char drv[96] = "", fp[200];
    cudaRuntimeGetVersion(&runtime);
    /* 0 when no driver is installed (the development machines) */
    if (cudaDriverGetVersion(&driver) != cudaSuccess)
        driver = 0;
    rb_nvml_device h;
    const rb_nvml_api *nvml = driver > 0 ? rb_nvml_handle(0, &h) : NULL;
    if (!nvml || !nvml->driver || nvml->driver(drv, sizeof drv) != 0)
        drv[0] = '\0';
    if (rb_fingerprints_missing[0])
        rb_fmt(fp, sizeof fp, "none (%s)", rb_fingerprints_missing);
    else
        rb_fmt(fp, sizeof fp, "yes");
    char drv_text[160];
    if (driver > 0)
        rb_fmt(drv_text, sizeof drv_text, "driver %s%s(CUDA %d.%d)", drv, drv[0] ? " " : "",
               driver / 1000, driver % 1000 / 10);
    else
        rb_fmt(drv_text, sizeof drv_text, "no NVIDIA driver found");
    rb_fmt(buf, size,
           "roofbench %s\n"
           "build: %s, built with CUDA %d.%d, codegen fingerprints: %s\n"
           "runs on: CUDA runtime %d.%d, %s\n",
           rb_git_rev, rb_build_arch, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, fp,
           runtime / 1000, runtime % 1000 / 10, drv_text);
}
