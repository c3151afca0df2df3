/* SPDX-License-Identifier: MIT */
/* roofbench plot: the charts and the HTML report of a results file. */
#include <stdio.h>
#include <string.h>

#include "cmd_plot.h"
#include "cmd.h"
#include "model/text.h"
#include "report/plot.h"

/* The charts (and with --html the report) of a results file: BASE.svg, BASE-speedup.svg and
 * BASE.html (or --html FILE.html), BASE from -o (a trailing .svg dropped) or the results file's
 * name without .json. Every output is checked before anything is read (none is the results
 * file or another output, as files); all are written or none. */
int rb_cmd_plot(const rb_options *o, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300], base[RB_PATH_BUF], svg[RB_PATH_BUF + 16],
        speedup[RB_PATH_BUF + 32], html_beside[RB_PATH_BUF + 16];
    const char *from = o->plot_svg ? o->plot_svg : o->plot_input;
    const char *drop = o->plot_svg ? ".svg" : ".json";
    size_t len = strlen(from), cut = strlen(drop);
    if (len > cut && !strcmp(from + len - cut, drop))
        len -= cut;
    const char *html = o->plot_html;
    if (rb_fmt_fits(base, sizeof base, "%.*s", (int)len, from) != 0 ||
        rb_fmt_fits(svg, sizeof svg, "%s.svg", base) != 0 ||
        rb_fmt_fits(speedup, sizeof speedup, "%s-speedup.svg", base) != 0 ||
        rb_fmt_fits(html_beside, sizeof html_beside, "%s.html", base) != 0)
        return rb_cmd_usage_error("plot: an output path is too long");
    if (o->plot_html_beside)
        html = html_beside;
    rb_outputs_input(outs, o->plot_input, "the results file", 0);
    int svg_i = rb_outputs_add(outs, svg, o->plot_svg ? "-o" : "the roofline chart", 0);
    int speedup_i = rb_outputs_add(outs, speedup, "the speedup chart", 0);
    int html_i = html ? rb_outputs_add(outs, html, "--html", 0) : -1;
    if (rb_outputs_check(outs, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    int node_read = 0;
    json_value *doc = rb_cmd_load_results_of(o->plot_input, o->node_gpu, &node_read);
    if (doc && rb_cmd_node_gpu_used(o, node_read) != 0) {
        json_free(doc);
        return EXIT_USAGE;
    }
    if (!doc)
        return EXIT_USAGE;
    int rc = rb_plot_stage_taking(doc, o->plot_input, o->filter_re, outs, svg_i, speedup_i, html_i,
                                  err, sizeof err);
    if (rc != 0)
        return rb_cmd_usage_error(err);
    char line[4 * RB_PATH_BUF], shown[4 * RB_PATH_BUF];
    rb_fmt(line, sizeof line, "plot: %s, %s%s%s", svg, speedup, html ? ", " : "", html ? html : "");
    rb_text_for_terminal(line, shown, sizeof shown);
    printf("%s\n", shown);
    return rb_cmd_commit_after_stdout(outs, 1);
}
