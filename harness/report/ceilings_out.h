/* SPDX-License-Identifier: MIT */
/*
 * `roofbench ceilings`'s table, a row printed as each roof is measured (a full measurement takes
 * up to a minute): the roof key, its value and unit, the noise and samples of its median, and
 * how it was measured (the size, the SM clock and power read), or why it was skipped; fitted to
 * a width (report/table.h: the terminal's; 0: every row whole on one line). The runner reads the
 * measuring child's lines into the typed method (model/ceiling_record.h); this file only lays
 * them out.
 */
#ifndef RB_CEILINGS_OUT_H
#define RB_CEILINGS_OUT_H

#include "ceiling_record.h"
#include "util.h"

/* The heads of the columns, once before the first row. */
void rb_ceilings_head(rb_sbuf *b, int width);

/* One measured roof: key, its value (in rb_ceiling_unit(key)) and its method. */
void rb_ceilings_row(rb_sbuf *b, int width, const char *key, double value,
                     const rb_ceiling_method *m);

/* A roof this machine does not have (fp8 before sm_89, a peer link with one GPU), and why. */
void rb_ceilings_skip_row(rb_sbuf *b, int width, const char *key, const char *reason);

#endif
