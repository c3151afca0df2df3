/* SPDX-License-Identifier: MIT */
/*
 * The P2P matrix, the GPU side: every ordered pair of the visible GPUs measured in a child
 * process (as `roofbench ceilings` is), one JSON line per measurement to the parent, which
 * builds the matrix (harness/report/p2p_table.h has the object, its judging and its tables).
 *
 * Per ordered pair src -> dst, as NVIDIA's p2pBandwidthLatencyTest and nvbandwidth measure it:
 * - one way: cudaMemcpyPeerAsync of RB_P2P_COPY_BYTES from src's memory to dst's, on a stream
 *   of src (the copy engine; a write over the link), back to back, timed by rb_measure;
 * - both ways (once per unordered pair): src -> dst on src's stream and dst -> src on dst's at
 *   once, forked and joined by events, the bytes of both counted;
 * - latency: RB_P2P_LATENCY_COPIES copies of RB_P2P_LATENCY_BYTES queued behind a latch
 *   (p2p_kernels.h) and timed as the copy engine runs them, per copy, over
 *   RB_P2P_LATENCY_SAMPLES samples (p2pBandwidthLatencyTest's latency);
 * - load latency (pairs with peer access): one thread of src chases RB_P2P_CHASE_STEPS
 *   dependent loads through a chain in dst's memory, per load, over RB_P2P_LATENCY_SAMPLES
 *   launches (nvbandwidth's SM latency).
 * Peer access is enabled for every pair that has it; a pair without is measured anyway (the
 * runtime stages the copy through the host) and said so in its cell.
 */
#ifndef RB_P2P_MATRIX_H
#define RB_P2P_MATRIX_H

#include <stddef.h>

#include "model/json.h"
#include "rb_cuda.h"

#define RB_P2P_COPY_BYTES ((size_t)256 << 20) /* the size nvlink_gbps has always used */
#define RB_P2P_LATENCY_BYTES 4
#define RB_P2P_LATENCY_COPIES 100
#define RB_P2P_LATENCY_SAMPLES 20
#define RB_P2P_CHASE_BYTES ((size_t)1 << 20) /* the chain: 128-byte steps, 8192 of them */
#define RB_P2P_CHASE_STRIDE 32               /* unsigned ints: one 128-byte line per load */
#define RB_P2P_CHASE_STEPS 2000
#define RB_P2P_MAX_GPUS 16

/* In the child: measures the matrix of the visible GPUs and reports it on fd (a p2p_gpus line,
 * then one p2p_cell line per measurement, as each is measured). Returns the exit status. */
int rb_p2p_child(int fd);

/* In the ceilings child (device 0 current, and current again on return): the link roofs,
 * nvlink_gbps (the best ordered pair's one-way copy) and nvlink_bidir_gbps (the best pair both
 * ways), measured as the matrix measures its cells, reported as ceiling lines on fd; skipped
 * (a ceiling_skip line each) with one GPU or when no pair has peer access. */
rb_status rb_p2p_link_ceilings(int fd);

/* In the parent: runs the child under a watchdog of timeout_s seconds and returns the matrix,
 * judged against ceilings and peaks (objects of roof keys, either NULL: rb_p2p_judge). NULL
 * with the reason in why when the measurement failed, timed out or was interrupted (the caller
 * asks rb_runner_interrupted()). */
json_value *rb_p2p_matrix_measure(double timeout_s, const json_value *ceilings,
                                  const json_value *peaks, char *why, size_t why_size);

#endif
