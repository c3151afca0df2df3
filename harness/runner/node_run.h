/* SPDX-License-Identifier: MIT */
/*
 * run --device all | N,M,...: the suite on each listed GPU of this host, as one node document
 * (model/node.h). Each part is an ordinary `run --device N` of this binary, exec'd with
 * --scope and --json into a scratch folder, its output in a log there:
 *   1. GPU-local pairs (--scope local): every listed GPU at once, one process per GPU, each
 *      seeing its GPU alone (CUDA_VISIBLE_DEVICES, as --device N does), each measuring its own
 *      platform reference first;
 *   2. host-shared pairs (--scope host): one GPU after the other, so that no two GPUs share the
 *      host's memory or its PCIe root while one is timed, each on its GPU's own CPUs (the
 *      PCI device's local_cpulist in sysfs: its NUMA node, where its pinned buffers then live);
 *   3. pairs that span GPUs (--scope span): once, seeing every listed GPU; their records go to
 *      the node's "collectives".
 * Each GPU's two parts are merged into its run document, judged against the single-GPU key's
 * expectation file as `run --device N` judges it; then the outliers. A progress line every
 * RB_NODE_PROGRESS_S seconds says where each GPU is.
 * Exit: the worst of the parts' (2 or 3 first, then 1: a failed pair, an invalid or regressed
 * variant on any GPU), and 1 when any GPU is an outlier (docs/node.md; on a host-bound,
 * informational row only with --gate all).
 */
#ifndef RB_NODE_RUN_H
#define RB_NODE_RUN_H

#include "model/cli.h"

#define RB_NODE_PROGRESS_S 30.0

/* visible: the GPUs the CUDA runtime shows (the probe's device_count). The exit code. */
int rb_node_run(const rb_options *o, int argc, char **argv, int visible);

#endif
