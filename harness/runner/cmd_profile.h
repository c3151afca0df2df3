/* SPDX-License-Identifier: MIT */
/* `roofbench profile`: `check` run under Nsight Compute, its capture read into the profile
 * document, the hierarchical roofline and the work-model check (docs/profile.md). */
#ifndef RB_CMD_PROFILE_H
#define RB_CMD_PROFILE_H

#include "jobs.h"
#include "model/cli.h"

/* Profiles jobs[0..n) (or, with operands, reads the captures o->inputs) and writes -o BASE's
 * files. Exit code: 0; 2 when ncu is missing or refused, a capture cannot be read, or an output
 * cannot be written (then nothing is written). argv: the command line, whose --filter, --size,
 * --device and --timeout the `check` under ncu is given. */
int rb_profile_cmd(const rb_options *o, const rb_job *jobs, int n, int argc, char **argv);

#endif
