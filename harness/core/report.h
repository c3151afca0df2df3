/* SPDX-License-Identifier: MIT */
/* Turning measured pairs into roofline points, a table, a Markdown page and the results JSON. */
#ifndef RB_REPORT_H
#define RB_REPORT_H

#include <stdio.h>

#include "json.h"
#include "result.h"

/* Fills every variant's roofline points on its own roof (v->roof; a record without one gets the
 * derived roof), against ceilings and peaks, and its speedup over the pair's baseline. A point
 * above 100% of its measured roof gets roof_note, the reason printed beside it. A variant on a
 * DRAM or compute roof at full size whose bandwidth exceeds the datasheet DRAM peak is made
 * invalid: its data did not come from DRAM. */
void rb_report_derive(rb_pair_result *pairs, int n, const rb_roofs *ceilings,
                      const rb_roofs *peaks);

/* The table: pair, variant, median ms, noise, GB/s, TFLOP/s or us/launch, % of its measured
 * roof (marked * when above 100%), % of its datasheet peak, speedup over baseline, verdict, the
 * roof (a median marked RB_THROTTLED_MARK when timed under slowdown); then a line for each
 * note. */
void rb_report_table(FILE *f, const rb_pair_result *pairs, int n);

/* The mark beside the median of a variant timed under thermal or hardware slowdown (its clocks'
 * reasons: core/clocks.h's throttled rule); the reasons and clocks follow in the notes. A
 * power cap alone is not marked: tensor-core GEMMs run power-capped by design. */
#define RB_THROTTLED_MARK "!"
/* 1 when v was timed and its clocks say throttled. */
int rb_report_throttled(const rb_variant_result *v);

/* The verdict summary, one line: "verdicts: 40 pass, 1 regressed; 2 variants timed under
 * thermal or hardware slowdown (marked !, counted apart: 1 pass, 1 regressed); 5
 * power-capped (expected for tensor-core GEMMs, not marked)". The throttled ones are not in
 * the first counts. */
void rb_report_summary_text(const rb_pair_result *pairs, int n, char *buf, size_t size);
/* The same, printed with a newline. */
void rb_report_summary(FILE *f, const rb_pair_result *pairs, int n);

/* The same as a Markdown page, with the environment's main facts above it. Caller frees. */
char *rb_report_markdown(const rb_pair_result *pairs, int n, const json_value *meta);

/* The CSV of the table (RFC 4180, CRLF line ends): one row per variant with the table's columns
 * and the roof; numbers unrounded. Caller frees; NULL when out of memory. */
char *rb_report_csv(const rb_pair_result *pairs, int n);

/* "roofs" of the results file: {"<key>": {"kind": ..., "measured": x|null, "peak": x|null}} for
 * every roof key. NULL when out of memory. */
json_value *rb_report_roofs_json(const rb_roofs *ceilings, const rb_roofs *peaks);

/* The results document: meta (owned) with "roofs" (the roofs the run was placed against) and
 * "pairs" added. NULL when out of memory. */
json_value *rb_report_json(const rb_pair_result *pairs, int n, const rb_roofs *ceilings,
                           const rb_roofs *peaks, json_value *meta);

#endif
