/* SPDX-License-Identifier: MIT */
/*
 * The HTML report of a run (one self-contained file: the charts inline, the table sortable with
 * a few lines of inline script, no network needed), and the files plot writes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_table.h"
#include "plot.h"
#include "svg.h"
#include "util.h"

/* Filled with the number of points the browser drew (tests/browser_test.sh). */
static const char points_script[] =
    "<script>\n"
    "document.getElementById('rb-points').textContent =\n"
    "  document.querySelectorAll('svg .pt').length + ' points plotted';\n"
    "</script>\n";

static void table_row(rb_sbuf *b, const rb_plot_point *p)
{
    char rate[64], roof[64];
    rb_plot_rate_text(p, rate, sizeof rate);
    rb_plot_roof_name(p->roof ? p->roof : "-", roof, sizeof roof);
    rb_sbuf_add(b, "<tr>");
    rb_html_cell_text(b, p->pair);
    rb_html_cell_text(b, p->variant);
    rb_html_cell_text(b, p->role);
    rb_html_cell_text(b, roof);
    rb_html_cell_number(b, p->median_ms, "%.4f", 1);
    rb_html_cell_number(b, p->noise, "%.1f%%", 100);
    double rate_value = p->panel == RB_PANEL_ROOFLINE ? p->tflops : p->y;
    if (p->plotted || isfinite(rate_value))
        rb_sbuf_add(b, "<td class=\"num\" data-v=\"%.17g\">%s</td>", rate_value,
                    isfinite(rate_value) ? rate : "-");
    else
        rb_sbuf_add(b, "<td class=\"num\" data-v=\"\">-</td>");
    rb_html_cell_number(b, p->efficiency, "%.1f%%", 100);
    rb_html_cell_number(b, p->peak_efficiency, "%.1f%%", 100);
    rb_html_cell_number(b, p->speedup, "%.2fx", 1);
    rb_html_cell_text(b, p->verdict);
    rb_sbuf_add(b, "</tr>\n");
}

char *rb_plot_html(const rb_plot_data *d, const char *roofline_svg, const char *speedup_svg)
{
    rb_sbuf b = {0};
    char title[600];
    rb_fmt(title, sizeof title, "roofbench: %s, driver %s, CUDA %s, %s, git %s", d->device,
           d->driver, d->cuda, d->date, d->git);
    rb_sbuf_add(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<title>");
    rb_sbuf_escaped(&b, title);
    rb_sbuf_add(&b,
                "</title>\n<style>\n"
                "body { font-family: sans-serif; margin: 1.5em; color: #111; }\n"
                "%s"
                ".chart { overflow-x: auto; }\n"
                "</style>\n</head>\n<body>\n<h1>",
                rb_html_table_css);
    rb_sbuf_escaped(&b, title);
    rb_sbuf_add(&b, "</h1>\n");
    if (d->path[0]) {
        rb_sbuf_add(&b, "<p>results file: <code>");
        rb_sbuf_escaped(&b, d->path);
        rb_sbuf_add(&b, "</code></p>\n");
    }
    /* filled by the script with the number of points the browser drew (tests/browser_test.sh) */
    rb_sbuf_add(&b, "<p id=\"rb-points\"></p>\n");
    rb_sbuf_add(&b, "<h2>Roofline</h2>\n<div class=\"chart\">\n%s</div>\n", roofline_svg);
    rb_sbuf_add(&b, "<h2>Speedups</h2>\n<div class=\"chart\">\n%s</div>\n", speedup_svg);
    rb_sbuf_add(&b, "<h2>Table</h2>\n<p>Click a column's header to sort by it.</p>\n"
                    "<table class=\"rb\">\n<thead><tr><th>pair</th><th>variant</th><th>role</th>"
                    "<th>roof</th><th class=\"num\">median ms</th><th class=\"num\">noise</th>"
                    "<th class=\"num\">rate</th><th class=\"num\">%% of roof</th>"
                    "<th class=\"num\">%% of peak</th><th class=\"num\">speedup</th>"
                    "<th>verdict</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < d->n_points; i++)
        table_row(&b, &d->points[i]);
    rb_sbuf_add(&b, "</tbody>\n</table>\n");
    int notes = 0;
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].note[0]) {
            rb_sbuf_add(&b, "%s<li>", notes++ ? "" : "<h2>Notes</h2>\n<ul>\n");
            rb_sbuf_escaped(&b, d->points[i].pair);
            rb_sbuf_add(&b, "/");
            rb_sbuf_escaped(&b, d->points[i].variant);
            rb_sbuf_add(&b, ": ");
            rb_sbuf_escaped(&b, d->points[i].note);
            rb_sbuf_add(&b, "</li>\n");
        }
    if (notes)
        rb_sbuf_add(&b, "</ul>\n");
    rb_sbuf_add(&b, "%s%s</body>\n</html>\n", rb_html_sort_script, points_script);
    return rb_sbuf_take(&b);
}

int rb_plot_write(const json_value *doc, const char *source_path, const char *filter,
                  const char *svg_path, const char *speedup_path, const char *html_path, char *err,
                  size_t err_size)
{
    rb_plot_data d;
    char why[300];
    if (rb_plot_load(doc, filter, &d, why, sizeof why) != 0) {
        rb_fmt(err, err_size, "%s: %s", source_path, why);
        return -1;
    }
    d.path = source_path;
    char *svg = rb_plot_roofline_svg(&d), *speedup = rb_plot_speedup_svg(&d);
    char *html = svg && speedup && html_path ? rb_plot_html(&d, svg, speedup) : NULL;
    int rc = -1;
    if (!svg || !speedup || (html_path && !html))
        rb_fmt(err, err_size, "%s: out of memory", svg_path);
    else if (rb_write_file_atomic(svg_path, svg, err, err_size) == 0 &&
             rb_write_file_atomic(speedup_path, speedup, err, err_size) == 0 &&
             (!html_path || rb_write_file_atomic(html_path, html, err, err_size) == 0))
        rc = 0;
    free(svg);
    free(speedup);
    free(html);
    rb_plot_free(&d);
    return rc;
}
