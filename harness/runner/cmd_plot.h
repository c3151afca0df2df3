/* SPDX-License-Identifier: MIT */
/* roofbench plot (cmd_plot.c). */
#ifndef RB_CMD_PLOT_H
#define RB_CMD_PLOT_H

#include "model/cli.h"
#include "model/outputs.h"

/* The charts (and with --html the report) of a results file; all are written or none. The exit
 * code. */
int rb_cmd_plot(const rb_options *o, rb_outputs *outs);

#endif
