/* SPDX-License-Identifier: MIT */
/* roofbench history (cmd_history.c). */
#ifndef RB_CMD_HISTORY_H
#define RB_CMD_HISTORY_H

#include "model/cli.h"
#include "model/outputs.h"

/* history: everything read, built and staged, and the report printed, before anything is renamed
 * into place. The exit code. */
int rb_cmd_history(const rb_options *o, rb_outputs *outs);

#endif
