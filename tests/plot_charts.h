/* SPDX-License-Identifier: MIT */
/* For the plot tests: every chart of a run that has points, drawn one after the other (each its
 * own SVG document), to search them all at once; and the first XML problem among them. */
#ifndef RB_TEST_PLOT_CHARTS_H
#define RB_TEST_PLOT_CHARTS_H

#include <stdlib.h>
#include <string.h>

#include "../harness/report/plot.h"
#include "xml_check.h"

/* The charts rb_plot_chart_used says plot writes, concatenated; NULL when out of memory. */
static inline char *plot_all_charts(const rb_plot_data *d)
{
    rb_sbuf b = {0};
    for (int c = 0; c < RB_CHART_COUNT; c++) {
        if (!rb_plot_chart_used(d, (rb_plot_chart)c))
            continue;
        char *svg = rb_plot_chart_svg(d, (rb_plot_chart)c);
        if (!svg) {
            rb_sbuf_free(&b);
            return NULL;
        }
        rb_sbuf_add(&b, "%s", svg);
        free(svg);
    }
    return rb_sbuf_take(&b);
}

/* NULL when every chart plot writes is well-formed XML, else the first problem. */
static inline const char *plot_charts_xml_problem(const rb_plot_data *d)
{
    const char *why = NULL;
    for (int c = 0; c < RB_CHART_COUNT && !why; c++) {
        if (!rb_plot_chart_used(d, (rb_plot_chart)c))
            continue;
        char *svg = rb_plot_chart_svg(d, (rb_plot_chart)c);
        why = svg ? rb_test_xml_problem(svg) : "out of memory";
        free(svg);
    }
    return why;
}

#endif
