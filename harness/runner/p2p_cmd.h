/* SPDX-License-Identifier: MIT */
/*
 * `roofbench p2p`: the P2P matrix of the visible GPUs (p2p_matrix.h measures it in a child),
 * printed as tables (harness/report/p2p_table.h), its roofs read from the expectation file's
 * ceilings and the datasheet, and with --json / --html written as a document:
 *
 *   {"schema": 1, "tool": "roofbench", "kind": "p2p", "date", "git", "command",
 *    "hardware_key", "expectations": <path or null>, "environment": {"start": {<probe>}},
 *    "p2p_matrix": {<p2p_table.h>}}
 */
#ifndef RB_P2P_CMD_H
#define RB_P2P_CMD_H

#include "model/cli.h"
#include "model/json.h"
#include "model/outputs.h"

/* Registers p2p's files in outs (--expect read, --json and --html written: their indexes in
 * index[0], index[1], -1 when not asked for or the standard output's) and checks them, before
 * any GPU work. 0, or -1 with one line in err (exit 2). */
int rb_p2p_files(const rb_options *o, rb_outputs *outs, int index[2], char *err, size_t err_size);

/* Measures, prints and writes, after the probe (env: its environment). Returns the exit code:
 * 0; 1 when a link is weak or the measurement failed; 2 when a file cannot be written; 130 /
 * 143 after an interrupt is the caller's (rb_runner_interrupted). */
int rb_p2p_run(const rb_options *o, int argc, char **argv, const json_value *env, rb_outputs *outs,
               const int index[2]);

#endif
