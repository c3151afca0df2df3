/* SPDX-License-Identifier: MIT */
/* What `roofbench profile` shows of a profile (model/profile.h): the terminal tables, the Markdown
 * page, the HTML report and, in plot_hier.c, the hierarchical roofline chart. */
#ifndef RB_PROFILE_OUT_H
#define RB_PROFILE_OUT_H

#include "model/profile.h"

/* The tables: per variant the bytes at each level, shared-memory wavefronts and bank conflicts,
 * FLOPs by pipe, occupancy, registers and the top stall reasons; then each level's bandwidth
 * against its roof; then the work-model findings (a variant whose DRAM bytes differ from its
 * declared compulsory bytes by more than 10%, with both numbers) and the variants not profiled.
 * markdown: as Markdown tables, else text that fits the terminal (report/table.h: $COLUMNS, else
 * the terminal's width, else 80; whole under --wide). */
void rb_profile_tables(rb_sbuf *b, const rb_profile *p, const rb_profile_roofs *r, int markdown);

/* The work-model findings alone, one line each ("copy_coalescing/baseline: 4.29 GB from DRAM,
 * declared 1.07 GB (4.00x): moves more than its work model"); the number of them. */
int rb_profile_findings(rb_sbuf *b, const rb_profile *p, const char *indent);

/* The hierarchical roofline as SVG (report/plot_hier.c): each variant with FLOPs at its DRAM, L2
 * and L1 intensities (one marker shape per level, joined by a line) under the roofs of r. */
void rb_plot_hier_svg(rb_sbuf *b, const rb_profile *p, const rb_profile_roofs *r);

/* The self-contained HTML report: the chart, the tables (sortable) and every variant's stall
 * reasons with their shares. */
void rb_profile_html(rb_sbuf *b, const rb_profile *p, const rb_profile_roofs *r, const char *title);

#endif
