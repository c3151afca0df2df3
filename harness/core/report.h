/* SPDX-License-Identifier: MIT */
/* Turning measured pairs into roofline points, a table, a Markdown page and the results JSON. */
#ifndef RB_REPORT_H
#define RB_REPORT_H

#include <stdio.h>

#include "json.h"
#include "result.h"

/* Fills every variant's roofline points (against ceilings and peaks) and speedup over the
 * pair's baseline. A memory-bound variant at full size whose bandwidth exceeds the datasheet
 * DRAM peak is made invalid: its data did not come from DRAM. */
void rb_report_derive(rb_pair_result *pairs, int n, const rb_roofs *ceilings,
                      const rb_roofs *peaks);

/* The table: pair, variant, median ms, noise, GB/s or TFLOP/s, % of ceiling, % of peak,
 * speedup over baseline, verdict; then a line for each note. */
void rb_report_table(FILE *f, const rb_pair_result *pairs, int n);

/* The same as a Markdown page, with the environment's main facts above it. Caller frees. */
char *rb_report_markdown(const rb_pair_result *pairs, int n, const json_value *meta);

/* The results document: meta (owned) with "pairs" added. NULL when out of memory. */
json_value *rb_report_json(const rb_pair_result *pairs, int n, json_value *meta);

#endif
