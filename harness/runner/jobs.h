/* SPDX-License-Identifier: MIT */
/*
 * The row groups a run takes (roofbench and roofbench_mpi alike): each pair of the registry on
 * each of its inputs, at the size the command line asks for (a full run of a pair with a sweep:
 * each size of it), named "<pair>[.<input>][@<size>]" and chosen by --filter.
 */
#ifndef RB_JOBS_H
#define RB_JOBS_H

#include <stddef.h>

#include "model/cli.h"
#include "pair.h"

/* One row group of a run: a pair on one of its inputs, at a resolved size. */
typedef struct rb_job {
    const rb_pair *pair;
    int input;
    char name[RB_NAME_MAX]; /* "<pair>" or "<pair>.<input>" */
    rb_size size;
    int swept; /* the size is one of the pair's sweep (a full run) */
} rb_job;

#define RB_MAX_JOBS 256

/* How p uses the GPUs (--scope): spanning GPUs when it needs several or runs one rank per GPU
 * (ext->min_gpus >= 2, ext->setup_rank), host-shared when it says so, else GPU-local. */
rb_scope rb_pair_scope(const rb_pair *p);

/* The jobs of the pairs keep() accepts (NULL: every pair) of --scope whose names match --filter,
 * with their sizes resolved; a size a pair cannot take is a usage error found before any GPU work.
 * 0, or -1 with one line in err (also when nothing matches). jobs: RB_MAX_JOBS entries. */
int rb_jobs_select(const rb_options *o, int (*keep)(const rb_pair *p), rb_job *jobs, int *n,
                   char *err, size_t err_size);

/* With one GPU (gpus: the machine's, or roofbench_mpi's ranks), a pair's sweep shrinks to its
 * sweep_one_gpu sizes, said on stdout once per pair. Returns the jobs kept, moved to the front
 * (0 when none is left). */
int rb_jobs_for_gpus(rb_job *jobs, int n, int gpus);

/* The platform probes (RB_PROBE_ bits, model/ceiling_record.h) that the roofs the variants of
 * jobs[0..n) are placed on call for: a run's platform reference measures those beside the
 * quick three, so that compare can hold each row against its own roof. */
unsigned rb_jobs_platform_probes(const rb_job *jobs, int n);

#endif
