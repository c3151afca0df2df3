/* SPDX-License-Identifier: MIT */
/*
 * The results of one run over several GPUs, as one document (no CUDA): `run --device all` on a
 * node ("kind": "node") or roofbench_mpi over ranks ("kind": "fleet"). Each GPU's part is the
 * ordinary single-GPU run document, unchanged; the node adds who each GPU is, the pairs that
 * span GPUs and the GPUs that fell behind the others (outliers), each with its evidence.
 *
 * {"schema": 1, "tool": "roofbench" | "roofbench_mpi", "kind": "node" | "fleet",
 *  "hardware_key": "nvidia-h100-80gb-hbm3-x4", "gate": "gating" | "all",
 *  "gpus": [{"host": "...", "rank": n | null, "device_index": n, "uuid": "GPU-...",
 *            "pci_bus_id": "0000:..", "run": {a run document}}, ...],
 *  "collectives": [pair records of the pairs that span GPUs, as in a run document],
 *  "outliers": [{"host", "device_index", "uuid", "pair", "row", "variant", "roof", "value",
 *                "reference", "reference_kind", "ratio", "threshold", "attribution",
 *                "evidence", "informational": true (only on a host-bound row)}, ...]}
 *
 * Who a GPU is comes from its run's environment.start: host, device_index, uuid, pci_bus_id and,
 * under MPI, rank (absent: null).
 *
 * Outliers (docs/node.md): every valid timed variant of every row group, on each GPU, against
 * the GPUs of the same single-GPU hardware key that timed it too:
 * - 3 or more such GPUs: against their median time ("node_median");
 * - 2: against the expectation's median ("expectation"; the expect document given, else the
 *   variant's expected_ms in its run), and it must be slower than the other GPU by as much too,
 *   so a slowdown of the whole node stays a regression, not an outlier; with no expectation,
 *   against the other GPU ("other_gpu");
 * - 1: not judged (its verdict against the expectation says it all).
 * value and reference are median times in ms, ratio = value / reference; flagged when ratio >
 * 1 + threshold. The threshold is the row's regression threshold (model/expect.h: from the
 * recorded run-to-run spread, else its noise), at most RB_NODE_MAX_THRESHOLD for rows on a
 * memory or compute roof (fleet tools flag a GPU 5% behind; link and latency rows keep theirs).
 *
 * Gating, as a run's verdicts (model/expect.h: rb_expect_failing): an outlier on an
 * informational variant (host_bound_why: a pageable copy, a launch-bound row; its time is the
 * host's, not the GPU's) is recorded with "informational": true and counts (exit code, the
 * "flagged" column, "outlier" lines) only when the node's "gate" is "all" (--gate all); else it
 * is reported as host-bound, not flagged. The pinned rows on the same link still gate.
 *
 * Attribution, the first that holds, from the flagged GPU's own evidence against the others':
 *   platform     its platform reference (the run's "platform" quick ceilings: dram_gbps for a
 *                memory roof, fp32_tflops for compute, launch_us for latency) is slow by a
 *                similar amount: beyond RB_NODE_PLATFORM_MIN and its noise, and the time ratio
 *                within the threshold of the ratio it predicts or between half and twice it;
 *                or DRAM and FP32 both slow and the time ratio between their predictions;
 *   thermal      a thermal reason (thermal, sw_thermal, hw_thermal, hw_slowdown) during the
 *                row's timed loop, or in the run's clock-event reasons at start or end;
 *   power        a power reason (power_cap, hw_power_brake) during the row with a mean SM
 *                clock below the others', or a power limit below the others';
 *   pcie         its PCIe generation or width below the others' (rows on a PCIe roof, or whose
 *                time the host sets);
 *   ecc          its ECC state differs from the others';
 *   unexplained  none of these.
 */
#ifndef RB_NODE_H
#define RB_NODE_H

#include <stddef.h>
#include <stdio.h>

#include "json.h"
#include "node_doc.h"

typedef struct rb_outputs rb_outputs;

#define RB_NODE_MAX_THRESHOLD 0.05

/* The node document from runs[0..n) (n >= 1), one run document per GPU, with the outliers
 * computed. expect: the single-GPU expectation document the runs were judged against (NULL:
 * none; each run's recorded expected_ms is used). The runs are moved into the document (also
 * on failure, when they are freed; runs[i] is set to NULL either way). NULL with one line in err
 * (a run that is not a run document, out of memory). */
json_value *rb_node_build(const char *tool, const char *kind, json_value **runs, int n,
                          const json_value *expect, char *err, size_t err_size);
/* Sets the node's "collectives" to pairs (an array of pair records; owned). 0, or -1. */
int rb_node_set_collectives(json_value *node, json_value *pairs);
/* Sets the node's "p2p_matrix" (report/p2p_table.h: rb_p2p_matrix_measure's, owned); the
 * terminal report and the Markdown then show its tables. 0, or -1. */
int rb_node_set_p2p(json_value *node, json_value *matrix);
/* The outliers of runs[0..n) (run documents; not owned) as a new array. NULL when out of
 * memory. */
json_value *rb_node_outliers(const json_value *const *runs, int n, const json_value *expect);
/* Sets the node's "gate": "all" (gate_all: --gate all) or "gating" (what rb_node_build
 * writes). 0, or -1 when out of memory. (Its outliers are counted by model/node_doc.h.) */
int rb_node_set_gate_all(json_value *node, int gate_all);

/* The terminal report of a node: one line per GPU (who it is, its platform reference, how many
 * of its rows regressed and were flagged, and the attribution of most of its outliers: counting
 * outliers only), then the outliers ("outlier ..." lines, counting ones only), then the
 * host-bound ones that do not count ("host-bound ..." lines), at most max_outliers lines in all
 * (the rest counted; the Markdown has them all). */
void rb_node_print(FILE *f, const json_value *node, int max_outliers);
/* The same of a document already read (model/node_doc.h), and its Markdown below. */
void rb_node_doc_print(FILE *f, const rb_node_doc *d, int max_outliers);
/* The Markdown twin: the same summary, every outlier, then each GPU's full table. Caller
 * frees; NULL when out of memory or a run cannot be read. */
char *rb_node_markdown(const json_value *node);
char *rb_node_doc_markdown(const rb_node_doc *d);

/* Stages the node's JSON into output json_i and its Markdown into md_i (-1: none) of a set the
 * caller checks and commits. 0, or -1 with one line in err. */
int rb_node_stage(rb_outputs *o, int json_i, int md_i, const json_value *node, char *err,
                  size_t err_size);
/* Writes the node's JSON to json_path and its Markdown to md_path (NULL: none) as one set
 * through model/outputs.h (folders made). 0, or -1 with one line in err, nothing left behind. */
int rb_node_write(const json_value *node, const char *json_path, const char *md_path,
                  int through_links, char *err, size_t err_size);

#endif
