/* SPDX-License-Identifier: MIT */
/*
 * `roofbench ceilings`, the GPU side: measures every roof of the machine in the child process
 * (ceilings.c: memory, FMA, host and peer links, launch latency; ceilings_gemm.h: the tensor
 * cores through cuBLASLt) and reports each as it is measured, one JSON line per roof
 * (harness/model/ceiling_record.h has the lines and what the parent does with them).
 */
#ifndef RB_CEILINGS_H
#define RB_CEILINGS_H

#include "model/ceiling_record.h"
#include "env.h"
#include "rb_cuda.h"

/* What to measure: every roof; the quick three (DRAM copy, FP32 FMA, launch latency: a few
 * seconds); the links only (PCIe each way and both, NVLink one way and both: seconds). */
typedef enum rb_ceilings_mode { RB_CEILINGS_FULL, RB_CEILINGS_QUICK, RB_CEILINGS_LINKS } rb_ceilings_mode;

/* Measures the roofs of the current device (a child's device 0, a roofbench_mpi rank's own
 * GPU; for the NVLink roofs, every pair of the visible GPUs) and reports them on fd. probes
 * (RB_PROBE_ bits, model/ceiling_record.h): with RB_CEILINGS_QUICK, the roofs measured beside
 * the quick three (a run's platform reference); ignored otherwise. Returns the exit status of
 * the child (0: every roof was measured or reported as skipped). */
int rb_ceilings_child(int fd, rb_ceilings_mode mode, unsigned probes);

#endif
