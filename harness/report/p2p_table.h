/* SPDX-License-Identifier: MIT */
/*
 * The P2P matrix without CUDA (so it is tested on any machine): the object `roofbench p2p`
 * writes, built from the measuring child's lines, each cell placed on its roof, the weak links
 * marked, and its tables for the terminal, Markdown and the HTML report.
 *
 *   "p2p_matrix": {
 *     "gpus":  [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "0000:19:00.0"}, ...],
 *     "method": {"copy_bytes": N, "latency_bytes": 4, "latency_copies": 100,
 *                "oneway": "<one line>", "bidir": "<one line>", "latency": "<one line>",
 *                "load_latency": "<one line>"},
 *     "roofs": {"nvlink_gbps": {"ceiling": x | null, "peak": y | null}, "nvlink_bidir_gbps": ..,
 *               "pcie_d2h_gbps": .., "pcie_duplex_gbps": ..},
 *     "cells": [{"src": 0, "dst": 1, "peer_access": true, "perf_rank": 0,
 *                "oneway":  {"gbps": x, "noise": n, "samples": k, "roof": "nvlink_gbps",
 *                            "of_ceiling": x / ceiling | null, "of_peak": x / peak | null,
 *                            "best": b, "threshold": t, "weak": false},
 *                "bidir":   {the same, both directions' bytes counted},
 *                "latency": {"us": x, "noise": n, "samples": k, "best": b, "threshold": t,
 *                            "weak": false},
 *                "load_latency": {the same as latency: a kernel's dependent loads, per load;
 *                                 only where there is peer access}}, ...]
 *   }
 *
 * One cell per ordered pair (src != dst), in row order; the diagonal is not a cell (a GPU's copy
 * to itself is the dram_gbps roof). A measurement missing (the child ended early, a value that
 * was not finite) is left out of its cell, and a cell without it is never weak nor best. "bidir"
 * is measured once per unordered pair, and src -> dst and dst -> src hold the same value.
 */
#ifndef RB_P2P_TABLE_H
#define RB_P2P_TABLE_H

#include <stddef.h>

#include "json.h"
#include "util.h"

/* Weak link: a bandwidth cell more than t below the best cell of the same kind (one way, both
 * ways), a latency cell more than t above the lowest. t = RB_P2P_NOISE_FACTOR x the larger
 * sample spread ((p90 - p10) / median) of the two cells, within [floor, cap]: a difference the
 * samples' own spread can make is not a weak link. The bandwidth cap, 5%, is below one lost
 * NVLink of 18 (1/18 = 5.6% of the bandwidth): a pair that trains one link down stands out.
 * Its floor, 2%, is the spread seen between healthy pairs of one node. A latency of a few
 * microseconds (a copy engine's start dominates it) varies more from run to run: 10% to 25%. */
#define RB_P2P_NOISE_FACTOR 2.0
#define RB_P2P_BW_FLOOR 0.02
#define RB_P2P_BW_CAP 0.05
#define RB_P2P_LAT_FLOOR 0.10
#define RB_P2P_LAT_CAP 0.25

/* An empty matrix object (no GPUs, no cells). NULL when out of memory. */
json_value *rb_p2p_new(void);

/* Adds one line of the measuring child to the matrix:
 *   {"type": "p2p_gpus", "gpus": [...], "method": {...}}   first; creates the cells
 *   {"type": "p2p_cell", "src", "dst", "peer_access", "perf_rank",
 *    "kind": "oneway" | "bidir" | "latency" | "load_latency", "value", "noise", "samples"}
 * (bidir: src < dst, written into both cells). Other types are not this function's (1 is
 * returned and nothing changes). 0 when added, -1 with the reason in err when the line is
 * malformed (an index out of range, a kind unknown, a value not a positive number). */
int rb_p2p_add_line(json_value *matrix, const json_value *line, char *err, size_t err_size);

/* Places every cell on its roof and marks the weak links (in place): roofs from ceilings and
 * peaks (objects of roof keys to numbers, as in an expectation file; either may be NULL). A
 * cell with peer access is on nvlink_gbps (one way) and nvlink_bidir_gbps (both ways); one
 * without is staged through the host, on pcie_d2h_gbps and pcie_duplex_gbps. 0, or -1 when
 * out of memory. */
int rb_p2p_judge(json_value *matrix, const json_value *ceilings, const json_value *peaks);

/* How many measurements of the matrix are weak (after rb_p2p_judge). */
int rb_p2p_weak_count(const json_value *matrix);

/* The tables: one matrix per kind (rows src, columns dst, a weak cell marked with '!'), the
 * roof of each kind with its ceiling and datasheet figure and the range of the cells against
 * them, then one line per weak measurement ("1 -> 2  one way 371.2 GB/s  <- weak: 4.6% below
 * the best pair's 389.2, threshold 2.0%"). markdown: the same as Markdown tables. */
void rb_p2p_text(rb_sbuf *b, const json_value *matrix, int markdown);

/* The same as an HTML section (<h2>, a table per kind, weak cells coloured as a regression),
 * for the report of a document that holds a "p2p_matrix". */
void rb_p2p_html(rb_sbuf *b, const json_value *matrix);

#endif
