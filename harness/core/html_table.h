/* SPDX-License-Identifier: MIT */
/*
 * The sortable table of roofbench's HTML pages (plot's report, compare's page): one style, one
 * small inline script, and the cells it sorts by. Self-contained: no network, no library.
 */
#ifndef RB_HTML_TABLE_H
#define RB_HTML_TABLE_H

#include "svg.h"

/* CSS rules for table.rb (goes inside a <style> element). */
extern const char rb_html_table_css[];
/* A <script> element: clicking a header of any table.rb sorts its rows by that column (again:
 * the other way); numeric columns (th class="num") by their cells' data-v, missing numbers
 * last. Put it after the tables. */
extern const char rb_html_sort_script[];

/* <td> holding text (escaped), sorted by the same text. */
void rb_html_cell_text(rb_sbuf *b, const char *text);
/* A numeric <td>: its value x for sorting, shown with fmt applied to x * scale; "-" (sorted
 * last) when x is not finite. */
void rb_html_cell_number(rb_sbuf *b, double x, const char *fmt, double scale);

#endif
