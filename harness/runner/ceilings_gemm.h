/* SPDX-License-Identifier: MIT */
/*
 * The tensor-core roofs of `roofbench ceilings` (tf32, bf16, fp16, fp8 dense) through cuBLASLt,
 * measured sustained in the ceilings child and sent to the parent one line each as measured
 * (model/ceiling_record.h has the lines).
 */
#ifndef RB_CEILINGS_GEMM_H
#define RB_CEILINGS_GEMM_H

#include "env.h"
#include "rb_cuda.h"

/* Measures each precision and sends it on fd; one this GPU or cuBLASLt cannot run is sent as
 * skipped. */
rb_status rb_ceilings_tensor(int fd, const rb_device *dev);

#endif
