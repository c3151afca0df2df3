/* SPDX-License-Identifier: MIT */
/* roofbench plot: the charts and the HTML report of a results file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_plot.h"
#include "cmd.h"
#include "model/text.h"
#include "report/plot.h"

/* The charts (and with --html the report) of a results file: BASE.svg, BASE-<regime>.svg for
 * each regime with points (report/plot.h), BASE-speedup.svg and BASE.html (or --html
 * FILE.html), BASE from -o (a trailing .svg dropped) or the results file's name without .json.
 * Every output is checked before anything is read (none is the results file or another output,
 * as files); all are written or none. */
int rb_cmd_plot(const rb_options *o, rb_outputs *outs)
{
    char err[RB_PATH_BUF + 300], base[RB_PATH_BUF], html_beside[RB_PATH_BUF + 16];
    const char *from = o->plot_svg ? o->plot_svg : o->plot_input;
    const char *drop = o->plot_svg ? ".svg" : ".json";
    size_t len = strlen(from), cut = strlen(drop);
    if (len > cut && !strcmp(from + len - cut, drop))
        len -= cut;
    const char *html = o->plot_html;
    if (rb_fmt_fits(base, sizeof base, "%.*s", (int)len, from) != 0 ||
        rb_fmt_fits(html_beside, sizeof html_beside, "%s.html", base) != 0)
        return rb_cmd_usage_error("plot: an output path is too long");
    if (o->plot_html_beside)
        html = html_beside;
    rb_outputs_input(outs, o->plot_input, "the results file", 0);
    rb_plot_outs at;
    if (rb_plot_add_outputs(outs, base, 0, &at) != 0)
        return rb_cmd_usage_error("plot: an output path is too long");
    at.html = html ? rb_outputs_add(outs, html, "--html", 0) : -1;
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
    if (rb_plot_stage_taking(doc, o->plot_input, o->filter_re, outs, &at, err, sizeof err) != 0)
        return rb_cmd_usage_error(err);
    /* the files written, in order: the charts with points, the speedup chart, the report */
    rb_sbuf line = {0};
    for (int k = 0; k < RB_PLOT_FILES; k++)
        if (k == RB_PLOT_SPEEDUP || (at.written >> k & 1))
            rb_sbuf_add(&line, "%s%s",
                        line.len ? ", " : "plot: ", rb_outputs_path(outs, at.file[k]));
    if (html)
        rb_sbuf_add(&line, ", %s", html);
    char *text = rb_sbuf_take(&line), shown[8 * RB_PATH_BUF];
    rb_text_for_terminal(text ? text : "plot: out of memory", shown, sizeof shown);
    free(text);
    printf("%s\n", shown);
    return rb_cmd_commit_after_stdout(outs, 1);
}
