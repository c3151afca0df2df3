/* SPDX-License-Identifier: MIT */
/* roofbench compare (cmd_compare.c). */
#ifndef RB_CMD_COMPARE_H
#define RB_CMD_COMPARE_H

#include "model/cli.h"
#include "model/outputs.h"

/* compare OLD NEW: everything read and built before anything is written. The exit code. */
int rb_cmd_compare(const rb_options *o, rb_outputs *outs);

#endif
