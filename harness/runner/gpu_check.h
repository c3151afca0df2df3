/* SPDX-License-Identifier: MIT */
/*
 * The child's looks at who else is on its GPU (model/contention.h): NVML's compute processes
 * judged against the run's own (this process, its parent, the parent's earlier children and
 * their descendants), and NVML's utilization while nothing of the run is on the GPU. NVML only,
 * never CUDA, once the handle is known: the clock sampler reads the list from its thread while
 * a row is timed.
 */
#ifndef RB_GPU_CHECK_H
#define RB_GPU_CHECK_H

#include "model/contention.h"

/* The run's own as this child knows it: itself, its parent (the run's root), the children the
 * parent started before it; holds_context: this process has a CUDA context on the GPU. */
void rb_gpu_check_own(rb_own *o, int holds_context);

/* The processes on the handle's GPU (rb_env_nvml_device) that are not own's, into out: 0, or
 * -1 when NVML cannot list them (out empty). */
int rb_gpu_check_list(void *handle, const rb_own *own, rb_contention *out);

/* A look at device (a CUDA device index) before this child puts anything on it, into g: its
 * processes and utilization. Call it before any CUDA call that makes a context (it asks the
 * runtime for the device's PCI bus id alone): with no context of its own on the GPU, every
 * process listed is another's, whatever PID namespace NVML reports (holds_context: a process
 * that has one, a rank of roofbench_mpi between its pairs). settle: a GPU busy with no process
 * listed is looked at again after RB_GPU_CHECK_SETTLE_S (the driver's utilization covers up to
 * a second before it: a run that just ended) and is reported as unlisted only when still busy;
 * without settle, the utilization is recorded and not judged. */
#define RB_GPU_CHECK_SETTLE_S 1.0
void rb_gpu_check_idle(int device, int settle, int holds_context, rb_gpu_check *g);

#endif
