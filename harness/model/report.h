/* SPDX-License-Identifier: MIT */
/* Turning measured pairs into roofline points and the results JSON (report.c, the model), and
 * into a table, a Markdown page, CSV and the summary lines (report/report_table.c shows them). */
#ifndef RB_REPORT_H
#define RB_REPORT_H

#include <stdio.h>

#include "json.h"
#include "result.h"
#include "result_read.h"

/* Fills every variant's roofline points on its own roof (v->roof; a record without one gets the
 * derived roof), against ceilings and peaks, names the roof that binds it (named_roof), and its
 * speedup over the pair's baseline. A measured roof is the best that any code we have reaches
 * in its regime: a valid variant timed sustained (as the compute roofs are measured) at its
 * pair's full size that runs faster than its compute roof's ceiling raises that ceiling to its
 * rate for this run (ceilings->measured keeps the value measured, raised_by names it, its note
 * says so) and every point is placed again. Then a point above 100% of its measured roof gets
 * roof_note: within its noise plus the roof's, the reason printed beside it; beyond that, a
 * measurement inconsistency (inconsistent set), not a result. A variant on a DRAM or compute
 * roof at full size whose bandwidth exceeds the datasheet DRAM peak is made invalid: its data
 * did not come from DRAM. */
void rb_report_derive(rb_pair_result *pairs, int n, rb_roofs *ceilings, const rb_roofs *peaks);

/* "bf16_tflops: 812.0 (hgemm.square@64M/optimized, sustained, this run; roofbench ceilings
 * measured 714.2)" for a roof the run raised; "" for one it did not. */
void rb_report_raised_method(const rb_roofs *ceilings, rb_roof r, char *buf, size_t size);

/* The bytes of v's work model: its own (rb_variant_result.bytes), else its pair's. */
double rb_report_bytes(const rb_pair_result *p, const rb_variant_result *v);

/* Who else used the run's GPU (model/contention.h): start is what its first probe saw (NULL:
 * not looked), then each pair's start and each row's timed samples. *all gets every process
 * seen, where (may be NULL) the places ("before the run, reduction (at its start),
 * reduction/baseline", cut to where_size). Returns 1 when the run was contended. */
int rb_report_contention(const rb_gpu_check *start, const rb_pair_result *pairs, int n,
                         rb_contention *all, char *where, size_t where_size);
/* The run's "contention" object: {"checked", "why" (not checked), "contended", "processes",
 * "where", "before_run": {"utilization_gpu_pct", ...}}. NULL when out of memory. */
json_value *rb_report_contention_json(const rb_gpu_check *start, const rb_pair_result *pairs,
                                      int n);
/* The lines a run prints under its summary about energy and contention, once each: the rows
 * left without energy by reason ("energy: 3 rows not measured: ..."), and the processes that
 * shared the GPU. Nothing when there is nothing to say. */
void rb_report_energy_and_contention(FILE *f, const rb_gpu_check *start,
                                     const rb_pair_result *pairs, int n);

/* The value of the extra named `name` of v; NaN when v has none of that name. */
double rb_report_extra(const rb_variant_result *v, const char *name);

/* The rate a row shows (see report.c): its value, unrounded, and unit ("GB/s", "TFLOP/s",
 * "us/launch"; NaN and "" when the variant was not timed). */
void rb_report_rate(const rb_pair_result *p, const rb_variant_result *v, double *value,
                    const char **unit);

/* The table (report_table.c), RB_TEXT_WIDTH columns wide unless wide: each row group on a line
 * of its own, then one line per variant: median ms (the digits its noise supports), noise, rate,
 * % of its measured roof (marked * when above 100% within the noise; "incons" for a
 * measurement inconsistency), % of its datasheet peak, speedup over baseline, verdict (in
 * brackets on an informational row), how it was timed (S sustained, Si sustained in turn, i
 * interleaved, c cold) and the roof that binds it (without its unit's suffix unless wide; a
 * median marked RB_THROTTLED_MARK when timed under slowdown); a variant not timed says why
 * (skipped, invalid, missing) where its rate would be. Then a legend, the notes and the
 * figures beside the time, and the roofs this run raised. Fitted to the terminal's width, at
 * most RB_TEXT_WIDTH (report/table.h: names abbreviated, columns moved under their row, the text
 * wrapped), unless wide; the collectives' rows again in nccl-tests' columns under the table; the
 * variants a sweep does not time at a row's size (RB_NOT_AT_SIZE_NOTE) "not at size", one note a
 * row group, counted apart from the skipped. */
void rb_report_table(FILE *f, const rb_pair_result *pairs, int n, int wide);
/* The same fitted to width columns (0: as wide), whatever the terminal's (the docs' samples). */
void rb_report_table_at(FILE *f, const rb_pair_result *pairs, int n, int width);

/* The mark beside the median of a variant timed under thermal or hardware slowdown (its clocks'
 * reasons: model/clocks.h's throttled rule); the reasons and clocks follow in the notes. A
 * power cap alone is not marked: tensor-core GEMMs run power-capped by design. */
#define RB_THROTTLED_MARK "!"
/* 1 when v was timed and its clocks say throttled. */
int rb_report_throttled(const rb_variant_result *v);
/* "timed under hw_thermal, power_cap (SM clock mean 1520, min 1410 MHz over 85 samples)" */
void rb_report_throttle_note(const rb_variant_result *v, char *buf, size_t size);

/* The verdict summary, one line: "verdicts: 40 pass, 1 regressed; 2 variants timed under
 * thermal or hardware slowdown (marked !, counted apart: 1 pass, 1 regressed); informational
 * (host-bound, not gating unless --gate all): 5 pass, 1 regressed; 5 power-capped (expected
 * for tensor-core GEMMs, not marked)". The throttled and the informational ones are not in the
 * first counts (those are the gating verdicts). */
void rb_report_summary_text(const rb_pair_result *pairs, int n, char *buf, size_t size);
/* The same, printed wrapped at the terminal's width, at most RB_TEXT_WIDTH (its first line
 * starts "verdicts:"). */
void rb_report_summary(FILE *f, const rb_pair_result *pairs, int n);

/* The same as a Markdown page, with the environment's main facts above it: those of run (its
 * facts alone are read, rb_results_meta_read; NULL: none known). Caller frees. */
char *rb_report_markdown(const rb_pair_result *pairs, int n, const rb_results_doc *run);

/* The CSV of the table (RFC 4180, CRLF line ends): one row per variant with the table's columns
 * and the roof; numbers unrounded. Caller frees; NULL when out of memory. */
char *rb_report_csv(const rb_pair_result *pairs, int n);

/* "roofs" of the results file: {"<key>": {"kind": ..., "measured": x|null, "peak": x|null}} for
 * every roof key; a roof the run raised also has "ceiling" (what roofbench ceilings measured),
 * "raised_by" and "method" (rb_report_raised_method). NULL when out of memory. */
json_value *rb_report_roofs_json(const rb_roofs *ceilings, const rb_roofs *peaks);

/* The results document: meta (owned) with "roofs" (the roofs the run was placed against) and
 * "pairs" added. NULL when out of memory. */
json_value *rb_report_json(const rb_pair_result *pairs, int n, const rb_roofs *ceilings,
                           const rb_roofs *peaks, json_value *meta);
/* The cause and evidence of each regressed or improved variant of pairs[0..n) (model/runcmp.h's
 * attribution) into its object in doc (rb_report_json of the same pairs, in the same order). */
void rb_report_json_causes(json_value *doc, const rb_pair_result *pairs, int n);

#endif
