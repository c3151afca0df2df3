/* SPDX-License-Identifier: MIT */
/* The files plot writes beside a results file: one chart a regime that has points, the speedup
 * chart, their names, and the Markdown that links them. */
#include <string.h>

#include "outputs.h"
#include "plot.h"
#include "util.h"

static const struct {
    const char *suffix, *what, *heading;
} files[RB_PLOT_FILES] = {
    {".svg", "the roofline chart", "Roofline"},
    {"-compute.svg", "the compute-bound chart", "Compute-bound region"},
    {"-bandwidth.svg", "the bandwidth chart", "Bandwidth"},
    {"-links.svg", "the links chart", "Links"},
    {"-latency.svg", "the latency chart", "Latency"},
    {"-collectives.svg", "the collectives chart", "Collectives"},
    {"-speedup.svg", "the speedup chart", "Speedups"},
};

const char *rb_plot_file_suffix(int k)
{
    return k >= 0 && k < RB_PLOT_FILES ? files[k].suffix : "";
}

const char *rb_plot_file_what(int k)
{
    return k >= 0 && k < RB_PLOT_FILES ? files[k].what : "";
}

const char *rb_plot_chart_heading(rb_plot_chart c)
{
    return (int)c >= 0 && c < RB_CHART_COUNT ? files[c].heading : "";
}

static int panel_used(const rb_plot_data *d, rb_plot_panel panel)
{
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].plotted && d->points[i].panel == panel)
            return 1;
    return 0;
}

int rb_plot_chart_used(const rb_plot_data *d, rb_plot_chart c)
{
    static const rb_plot_panel panel[RB_CHART_COUNT] = {RB_PANEL_ROOFLINE,  RB_PANEL_ROOFLINE,
                                                        RB_PANEL_BANDWIDTH, RB_PANEL_LINK,
                                                        RB_PANEL_LATENCY,   RB_PANEL_COLLECTIVE};
    if (c == RB_CHART_COMPUTE)
        return d->n_zooms > 0;
    if (c == RB_CHART_ROOFLINE) {
        /* no point at all: the roofline, for its roofs */
        int any = 0;
        for (int p = 0; p < RB_PANEL_COUNT && !any; p++)
            any = panel_used(d, (rb_plot_panel)p);
        return !any || panel_used(d, RB_PANEL_ROOFLINE);
    }
    return (int)c > 0 && c < RB_CHART_COUNT && panel_used(d, panel[c]);
}

unsigned rb_plot_charts_of(const json_value *doc)
{
    rb_plot_data d;
    char err[200];
    if (rb_plot_load(doc, NULL, &d, err, sizeof err) != 0)
        return 0;
    unsigned mask = 0;
    for (int c = 0; c < RB_CHART_COUNT; c++)
        mask |= (unsigned)rb_plot_chart_used(&d, (rb_plot_chart)c) << c;
    rb_plot_free(&d);
    return mask;
}

void rb_plot_charts_markdown(rb_sbuf *b, unsigned mask, const char *stem)
{
    rb_sbuf_add(b, "## Charts\n\n");
    for (int c = 0; c < RB_CHART_COUNT; c++)
        if (mask >> c & 1)
            rb_sbuf_add(b, "![%s](%s%s)\n\n", files[c].what + 4, stem, files[c].suffix);
    rb_sbuf_add(b,
                "![%s](%s%s)\n\n[HTML report](%s.html): the charts and the table (sortable) in "
                "one file.\n",
                files[RB_PLOT_SPEEDUP].what + 4, stem, files[RB_PLOT_SPEEDUP].suffix, stem);
}

int rb_plot_add_outputs(rb_outputs *outs, const char *base, unsigned flags, rb_plot_outs *at)
{
    for (int k = 0; k < RB_PLOT_FILES; k++) {
        char path[RB_PATH_BUF + 32];
        if (rb_fmt_fits(path, sizeof path, "%s%s", base, files[k].suffix) != 0)
            return -1;
        unsigned optional = k < RB_CHART_COUNT ? RB_OUT_OPTIONAL : 0;
        if ((at->file[k] = rb_outputs_add(outs, path, files[k].what, flags | optional)) < 0)
            return -1;
    }
    at->written = 0;
    return 0;
}
