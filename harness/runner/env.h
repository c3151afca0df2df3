/* SPDX-License-Identifier: MIT */
/*
 * The environment of a run: what the CUDA runtime says of the device, and what NVML says of
 * its clocks, temperature, power and throttle reasons (through the kit's platform.h); without
 * NVML those fields are null and the reason is kept.
 * The harness only reads these settings, never changes them.
 */
#ifndef RB_ENV_H
#define RB_ENV_H

#include "model/json.h"
#include "platform.h"
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

/* The whole environment of device as a JSON object (CUDA + NVML + build): with its index, the
 * number of visible GPUs, its UUID and PCI bus id, and whether the build has codegen
 * fingerprints (codegen_fingerprints, with codegen_fingerprints_why when not). alone: the run
 * uses this one GPU of several (--device), so its hardware key and device_count are a single
 * GPU's. NULL on failure. */
json_value *rb_env_collect(int device, int alone);

/* `roofbench --version`: the git revision, the build architecture, the CUDA it was built with
 * and whether it has codegen fingerprints, then the CUDA runtime and the driver it runs on
 * ("no NVIDIA driver found" without one). Three lines. Needs no GPU. */
void rb_env_version_text(char *buf, size_t size);

/* Build facts, from the generated version file. */
extern const char rb_git_rev[];
extern const char rb_build_arch[];
/* The release of the nvcc that compiled the kernels ("13.0", from `nvcc --version`; "" when it
 * could not be read): with the architecture, what decides their machine code (an expectation
 * row recorded by another release is not compared with this build's fingerprints). */
extern const char rb_build_nvcc[];
/* The folder the Makefile built this binary in: the repository whose expectations/ compare and
 * history read (model/floors.h). */
extern const char rb_source_root[];

#endif
