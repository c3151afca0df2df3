/* SPDX-License-Identifier: MIT */
/*
 * A results file read back into the records a run prints (rb_pair_result), so that its table
 * can be printed again as `run` printed it (rb_report_table): what the docs' sample shows, and
 * the Markdown twin make docs writes beside a reference run. The derived fields are taken as the
 * file recorded them (points, roof named and declared, notes, speedups, verdicts, the kernels'
 * resources), not computed again; a file written before a field existed reads as the table of
 * its day would have shown it (no declared roof: the named one).
 */
#ifndef RB_RESULT_READ_H
#define RB_RESULT_READ_H

#include <stddef.h>

#include "json.h"
#include "result.h"

/* The row groups of doc (a results document), with their variants and kernel records, into a
 * new array (*pairs, *n; caller frees). 0, or -1 with one line in err (not a results file, a
 * variant or kernel record it cannot read). */
int rb_results_read(const json_value *doc, rb_pair_result **pairs, int *n, char *err,
                    size_t err_size);

#endif
