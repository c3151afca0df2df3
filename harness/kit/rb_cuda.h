/* SPDX-License-Identifier: MIT */
/*
 * Errors propagate as a status up to main, each level printing file:line (the nccl-tests way);
 * nothing below main calls exit. The first message is kept so that a child process can put
 * the reason of a failure into its result record.
 */
#ifndef RB_CUDA_H
#define RB_CUDA_H

#include <cuda_runtime_api.h>

typedef enum rb_status {
    RB_OK = 0,
    RB_ERR_CUDA,       /* a CUDA call failed: the context may be unusable */
    RB_ERR_ALLOC,      /* host or device memory */
    RB_ERR_INPUT,      /* bad size or configuration */
    RB_ERR_UNSUPPORTED /* this GPU cannot run it */
} rb_status;

/* Prints "file:line: expr: msg" to stderr and keeps the first message of the process. */
void rb_error_at(const char *file, int line, const char *expr, const char *msg);
/* A skip, not an error (this machine cannot run it: RB_ERR_UNSUPPORTED follows): keeps msg as
 * the first message when there is none yet, and prints nothing, so an expected skip reaches the
 * reader as one line, the parent's, with its reason (file and line are for the call's shape). */
void rb_skip_at(const char *file, int line, const char *expr, const char *msg);
/* The first message recorded by rb_error_at ("" if none). */
const char *rb_first_error(void);
/* Forgets the recorded message: after a variant was skipped (RB_ERR_UNSUPPORTED), which is not
 * an error, so a later failure reports its own message. */
void rb_error_clear(void);

#define RB_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t rb_e_ = (call);                                                                \
        if (rb_e_ != cudaSuccess) {                                                                \
            rb_error_at(__FILE__, __LINE__, #call, cudaGetErrorString(rb_e_));                     \
            return RB_ERR_CUDA;                                                                    \
        }                                                                                          \
    } while (0)

/* A status other than RB_OK returns; an error prints its file:line on the way up, a skip
 * (RB_ERR_UNSUPPORTED) passes through silently with its reason kept (rb_skip_at). */
#define RB_TRY(call)                                                                               \
    do {                                                                                           \
        rb_status rb_s_ = (call);                                                                  \
        if (rb_s_ == RB_ERR_UNSUPPORTED) {                                                         \
            rb_skip_at(__FILE__, __LINE__, #call, "not supported on this machine");                \
            return rb_s_;                                                                          \
        }                                                                                          \
        if (rb_s_ != RB_OK) {                                                                      \
            rb_error_at(__FILE__, __LINE__, #call, "failed");                                      \
            return rb_s_;                                                                          \
        }                                                                                          \
    } while (0)

#endif
