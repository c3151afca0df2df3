/* SPDX-License-Identifier: MIT */
/*
 * roofbench's HTML pages (plot's report, compare's page) share one look: the page head with its
 * stylesheet, verdicts coloured the same way everywhere (pass/same green, improved/faster
 * darker green, regressed/slower/invalid red, unclear amber, blind violet, new blue,
 * missing/skipped grey, informational rows muted), verdict counts as coloured badges, and
 * tables sorted by a click on a header with a few lines of inline script. Self-contained: no
 * network, no library.
 */
#ifndef RB_HTML_TABLE_H
#define RB_HTML_TABLE_H

#include "svg.h"

/* The stylesheet (goes inside a <style> element). */
extern const char rb_html_table_css[];
/* A <script> element: clicking a header of any table.rb sorts its rows by that column (again:
 * the other way); numeric columns (th class="num") by their cells' data-v, missing numbers
 * last. Put it after the tables. */
extern const char rb_html_sort_script[];

/* <!DOCTYPE html> ... <body><h1>title</h1> (title escaped; also the page's <title>). */
void rb_html_page_begin(rb_sbuf *b, const char *title);
/* The sort script, </body></html>. */
void rb_html_page_end(rb_sbuf *b);

/* The class of a verdict or change word: "v-pass", "v-not-compared" (lower case, runs of other
 * characters as '-'). */
void rb_html_verdict_class(const char *verdict, char *out, size_t out_size);
/* <td class="verdict v-<verdict>"> holding shown (escaped), sorted by it. */
void rb_html_cell_verdict(rb_sbuf *b, const char *verdict, const char *shown);
/* <p class="counts">label: <badge>N name</badge> ...</p>: one badge per nonzero count, in the
 * verdict's colour; "label: none" when all are zero. */
void rb_html_counts(rb_sbuf *b, const char *label, const char *const *names, const int *counts,
                    int n);

/* <td> holding text (escaped), sorted by the same text. */
void rb_html_cell_text(rb_sbuf *b, const char *text);
/* A numeric <td>: its value x for sorting, shown with fmt applied to x * scale; "-" (sorted
 * last) when x is not finite. */
void rb_html_cell_number(rb_sbuf *b, double x, const char *fmt, double scale);

#endif
