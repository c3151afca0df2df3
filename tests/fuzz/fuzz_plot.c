/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: plot (harness/report/plot*.c) on a results document. Properties:
 * - a document refused says why (rb_results_doc_check, rb_plot_load);
 * - every chart with points and the speedup chart are well-formed XML of characters XML
 *   allows, with finite coordinates (no "inf" or "nan" for an attribute), one point element per
 *   plotted variant over all of them;
 * - the HTML report is UTF-8 of characters XML allows, with one table row per variant (no name
 *   opens a row of its own) and every chart inside.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "plot.h"
#include "result.h"
#include "xml_check.h"

static void check_chart(const char *svg)
{
    const char *why = rb_test_text_problem(svg, 1);
    if (!why)
        why = rb_test_xml_problem(svg);
    if (why)
        fuzz_fail(__FILE__, __LINE__, why);
    FUZZ_REQUIRE(!strstr(svg, "inf\"") && !strstr(svg, "nan\""));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    json_value *doc = json_parse((const char *)data, size, err, sizeof err);
    if (!doc)
        return 0;
    rb_plot_data d;
    if (rb_results_doc_check(doc, err, sizeof err) != 0 ||
        rb_plot_load(doc, NULL, &d, err, sizeof err) != 0) {
        FUZZ_REQUIRE(err[0] != '\0');
        json_free(doc);
        return 0;
    }
    d.path = "fuzz.json";
    char *speedup = rb_plot_speedup_svg(&d);
    FUZZ_REQUIRE(speedup);
    check_chart(speedup);
    int plotted = 0, drawn = 0;
    for (int i = 0; i < d.n_points; i++)
        plotted += d.points[i].plotted;
    char *html = rb_plot_html(&d);
    FUZZ_REQUIRE(html && rb_test_text_problem(html, 1) == NULL);
    FUZZ_REQUIRE(fuzz_count(html, "<tr>") == d.n_points + 1); /* and the header's */
    FUZZ_REQUIRE(strstr(html, speedup));
    /* each chart with points well-formed and in the report; each plotted point on one */
    for (int c = 0; c < RB_CHART_COUNT; c++) {
        if (!rb_plot_chart_used(&d, (rb_plot_chart)c))
            continue;
        char *svg = rb_plot_chart_svg(&d, (rb_plot_chart)c);
        FUZZ_REQUIRE(svg);
        check_chart(svg);
        drawn += fuzz_count(svg, "class=\"pt\"");
        FUZZ_REQUIRE(strstr(html, svg));
        free(svg);
    }
    FUZZ_REQUIRE(drawn == plotted);
    free(html);
    free(speedup);
    rb_plot_free(&d);
    json_free(doc);
    return 0;
}
