/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 and 2: the SVG writer, the charts (one a regime with points) and the speedup chart,
 * the HTML report and the plot command. Where a known point must land is computed here by hand
 * and found in the SVG; every chart must be well-formed XML (a small checker below, so CI needs
 * no xmllint); names with <&>"' are escaped; a results file written before "roofs" existed still
 * plots; a regime with no point has no chart and no file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/report/plot.h"
#include "../harness/report/svg.h"
#include "../harness/runner/results.h"
#include "plot_charts.h"
#include "rbtest.h"
#include "xml_check.h"

#define FIXTURE "tests/plot/roofs.json"
/* a run committed before the results file had "roofs" or per-variant "roof" */
#define OLD_RESULTS "results/nvidia-h100-80gb-hbm3/20261125T120618Z-7100242.json"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static json_value *load(const char *path)
{
    char err[300];
    json_value *doc = json_parse_file(path, err, sizeof err);
    if (!doc)
        printf("    %s\n", err);
    return doc;
}

/* ---- tests ---- */

static void test_checker_catches_bad_xml(void)
{
    RB_CHECK(rb_test_xml_problem("<svg><g a=\"1\"><text>x &amp; y</text></g></svg>") == NULL);
    RB_CHECK(rb_test_xml_problem("<svg><g></svg>") != NULL);
    RB_CHECK(rb_test_xml_problem("<svg><text>a<b</text></svg>") != NULL);
    RB_CHECK(rb_test_xml_problem("<svg><text>a & b</text></svg>") != NULL);
    RB_CHECK(rb_test_xml_problem("<svg a=1/>") != NULL);
    RB_CHECK(rb_test_xml_problem("<svg t=\"a<b\"/>") != NULL);
    RB_CHECK(rb_test_xml_problem("<svg/><svg/>") != NULL);
}

static void test_escaping(void)
{
    rb_sbuf b = {0};
    rb_sbuf_escaped(&b, "a<b&c>\"d'e\x01" "f\tg");
    char *s = rb_sbuf_take(&b);
    RB_CHECK(s && !strcmp(s, "a&lt;b&amp;c&gt;&quot;d&#39;e f\tg"));
    free(s);
    rb_svg_begin(&b, 100, 50);
    rb_svg_circle(&b, 10, 20, 3, "red", "pt", "x<y & \"z\"");
    rb_svg_text(&b, 1, 2, 10, "start", "#000", -90, "<&>");
    rb_svg_end(&b);
    s = rb_sbuf_take(&b);
    RB_CHECK(s && rb_test_xml_problem(s) == NULL);
    RB_CHECK(s && strstr(s, "<title>x&lt;y &amp; &quot;z&quot;</title>"));
    RB_CHECK(s && strstr(s, "cx=\"10.00\" cy=\"20.00\""));
    free(s);
}

static void test_axis_mapping(void)
{
    rb_plot_axis x = {-1, 3, 100, 500}, y = {9, 15, 530, 70};
    RB_CHECK_NEAR(rb_plot_axis_map(&x, 0.1), 100, 1e-9);
    RB_CHECK_NEAR(rb_plot_axis_map(&x, 10), 300, 1e-9);
    RB_CHECK_NEAR(rb_plot_axis_map(&x, 1000), 500, 1e-9);
    RB_CHECK_NEAR(rb_plot_axis_map(&y, 1e12), 300, 1e-9); /* half-way up: y grows upwards */
    RB_CHECK_NEAR(rb_plot_axis_map(&y, 1e15), 70, 1e-9);
    rb_plot_axis a;
    rb_plot_axis_fit(&a, 0.5, 2000, 4, 0);
    RB_CHECK(a.lo == -1 && a.hi == 4);
    rb_plot_axis_fit(&a, 1, 10, 4, 0); /* a tenth of a decade of room each side, then widened */
    RB_CHECK(a.lo == -1 && a.hi == 3);
    rb_plot_axis_fit(&a, NAN, NAN, 3, 9);
    RB_CHECK(a.lo == 9 && a.hi == 12);
    rb_plot_axis_fit(&a, 1e-300, 1e10, 2, 0);
    RB_CHECK(a.hi == 11 && a.lo == 11 - RB_PLOT_MAX_DECADES);
}

static void test_labels_do_not_overlap(void)
{
    rb_plot_labels l = {0};
    rb_plot_box bounds = {0, 0, 400, 300};
    RB_CHECK(rb_plot_labels_block(&l, rb_plot_rect(95, 95, 10, 10), 0) == 0); /* a point */
    int placed = 0;
    for (int i = 0; i < 30; i++) {
        /* every label wants the same spot; the places move it down and up a line a time */
        rb_plot_place pl[21];
        for (int k = 0; k < 21; k++)
            pl[k] = (rb_plot_place){
                100, 100 + (k % 2 ? 1 : -1) * ((k + 1) / 2) * 14, "start", 0, 0, 0, 0, 0, 0};
        placed += rb_plot_labels_place(&l, "label", 10, pl, 21, &bounds, 0) >= 0;
    }
    /* baselines 100 + 14j, j = -10..10; inside the bounds (ascent 9.5, descent 3) j >= -6 (17),
     * less the two whose box would cover the point (95..105): y = 100 and 114 (from 104.5) */
    RB_CHECK(placed == 15);
    for (int i = 0; i < l.n; i++)
        for (int k = i + 1; k < l.n; k++)
            RB_CHECK(!rb_plot_quads_overlap(&l.shapes[i], &l.shapes[k]));
    rb_plot_place out = {390, 20, "start", 0, 0, 0, 0, 0, 0};
    RB_CHECK(rb_plot_labels_place(&l, "label", 10, &out, 1, &bounds, 0) == -1); /* outside */
    rb_plot_labels_free(&l);
}

static void test_panels_from_roof_keys(void)
{
    json_value *doc = load(FIXTURE);
    rb_plot_data d;
    char err[300];
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    if (!doc)
        return;
    RB_CHECK(d.have_roofs && d.n_points == 19 && d.n_pairs == 6);
    RB_CHECK(rb_plot_find_point(&d, "copy_vectorized", "library")->panel == RB_PANEL_BANDWIDTH);
    RB_CHECK(rb_plot_find_point(&d, "softmax", "optimized")->panel == RB_PANEL_ROOFLINE);
    RB_CHECK(rb_plot_find_point(&d, "gemm_precision", "bf16")->panel == RB_PANEL_ROOFLINE);
    RB_CHECK(rb_plot_find_point(&d, "host_transfer.h2d", "baseline")->panel == RB_PANEL_LINK);
    RB_CHECK(rb_plot_find_point(&d, "cuda_graphs", "graph")->panel == RB_PANEL_LATENCY);
    RB_CHECK_NEAR(rb_plot_find_point(&d, "cuda_graphs", "graph")->y, 1.23,
                  1e-12); /* its us_per_kernel */
    const rb_plot_roof *r = rb_plot_find_roof(&d, "bf16_tflops");
    RB_CHECK(r && r->kind == RB_PLOT_ROOF_COMPUTE && r->measured == 760 && r->peak == 989.4);
    r = rb_plot_find_roof(&d, "nvlink_gbps");
    RB_CHECK(r && isnan(r->measured) && isnan(r->peak));
    rb_plot_free(&d);
    json_free(doc);
}

/* The fixture's main panel by hand: AI from 0.625 (softmax) to 1365 (gemm_precision) and the
 * ridges (1978.9 TFLOP/s / 3352 GB/s = 590 FLOP/byte the largest) -> decades 0.1 .. 1e4;
 * FLOP/s from 0.498 T (sgemm's baseline) to the FP8 peak 1978.9 T -> 1e11 .. 1e16. The panel is
 * x 80..920, y 534..64 (plot_svg.c). Its compute-bound region holds 9 points: no zoom panel. */
static void test_known_point_lands_where_computed(void)
{
    json_value *doc = load(FIXTURE);
    rb_plot_data d;
    char err[300];
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    if (!doc)
        return;
    rb_plot_axis x, y;
    rb_plot_roofline_axes(&d, &x, &y);
    RB_CHECK(x.lo == -1 && x.hi == 4 && y.lo == 11 && y.hi == 16);
    RB_CHECK(d.n_zooms == 0);
    /* the fixture's regimes: the roofline, bandwidth, links, latency; no compute-bound chart
     * (no zoom), no collectives */
    static const int used[RB_CHART_COUNT] = {1, 0, 1, 1, 1, 0};
    for (int c = 0; c < RB_CHART_COUNT; c++)
        RB_CHECK(rb_plot_chart_used(&d, (rb_plot_chart)c) == used[c]);
    RB_CHECK(plot_charts_xml_problem(&d) == NULL);
    if (plot_charts_xml_problem(&d))
        printf("    %s\n", plot_charts_xml_problem(&d));
    char *svg = rb_plot_chart_svg(&d, RB_CHART_ROOFLINE), *all = plot_all_charts(&d);
    /* sgemm's optimized: AI = 137438953472 / 201326592 = 682.67 FLOP/byte, 45.72 TFLOP/s; its
     * marker's path starts at its centre */
    double cx = 80 + (log10(137438953472.0 / 201326592.0) + 1) / 5 * 840;
    double cy = 534 - (log10(45.72e12) - 11) / 5 * 470;
    char want[80];
    snprintf(want, sizeof want, "<path d=\"M%.2f,%.2fm", cx, cy);
    RB_CHECK(svg && strstr(svg, want));
    if (svg && !strstr(svg, want))
        printf("    no marker at %s\n", want);
    RB_CHECK_NEAR(cx, 724.15, 0.01);
    RB_CHECK_NEAR(cy, 283.95, 0.01);
    /* every variant, on one chart or another */
    RB_CHECK(all && count(all, "class=\"pt\"") == 19);
    RB_CHECK(svg && strstr(svg, "sgemm / optimized (optimized): 45.7 TFLOP/s at 683 FLOP/byte, "
                                "75.4% of FP32</title>"));
    /* the fixture's FP32 and FP64 peaks are equal: one line, one label */
    RB_CHECK(svg && strstr(svg, ">FP32 60.6 TFLOP/s<") &&
             strstr(svg, ">FP32/FP64 peak 66.9 TFLOP/s<"));
    RB_CHECK(all && strstr(all, ">launch 2.10 \xc2\xb5s<") && !strstr(svg, ">launch 2.10"));
    RB_CHECK(svg && strstr(svg, "stroke-dasharray"));
    RB_CHECK(all && count(all, "marker-end=\"url(#arrow-") >= 12);
    RB_CHECK(all && !strstr(all, "roofs unknown"));
    RB_CHECK(svg && strstr(svg, "roofbench roofline: NVIDIA H100 80GB HBM3, driver 580.159.04, "
                                "CUDA 13.0, 2026-11-25T12:06:18Z, git fixture"));
    /* each chart its own: one title, the arrowheads it uses defined in it */
    RB_CHECK(all && count(all, "<svg ") == 4 && count(all, ">roofbench latency: ") == 1);
    free(svg);
    free(all);
    char *speedup = rb_plot_speedup_svg(&d);
    RB_CHECK(speedup && rb_test_xml_problem(speedup) == NULL);
    /* a bar per rung: the 19 variants less 6 baselines */
    RB_CHECK(speedup && count(speedup, "class=\"bar\"") == 13);
    RB_CHECK(speedup && strstr(speedup, ">91.8x<") && strstr(speedup, ">75.4% of FP32<"));
    free(speedup);
    rb_plot_free(&d);
    json_free(doc);
}

static void test_filter(void)
{
    json_value *doc = load(FIXTURE);
    rb_plot_data d;
    char err[300];
    rb_filter f;
    RB_CHECK(rb_filter_compile(&f, "--filter", "^sgemm$", err, sizeof err) == 0);
    RB_CHECK(doc && rb_plot_load(doc, &f, &d, err, sizeof err) == 0);
    rb_filter_free(&f);
    if (!doc)
        return;
    RB_CHECK(d.n_points == 5 && d.n_pairs == 1);
    rb_plot_free(&d);
    RB_CHECK(rb_filter_compile(&f, "--filter", "(", err, sizeof err) == -1);
    json_free(doc);
}

/* A generated document: one pair with the characters XML reserves in its name. */
static void test_names_are_escaped(void)
{
    const char *text =
        "{\"date\": \"d\", \"git\": \"g\", \"pairs\": [{\"name\": \"a<b&c>\\\"d'e\", "
        "\"flops\": 0, \"bytes\": 8, \"link_bytes\": false, \"variants\": ["
        "{\"name\": \"x<y\", \"role\": \"baseline\", \"valid\": true, \"timed\": true, "
        "\"time_ms\": {\"median\": 1}, \"vs_ceiling\": {\"ai\": 0, \"gbps\": 8, \"tflops\": 0, "
        "\"efficiency\": null}, \"speedup\": 1, \"note\": \"1 < 2 & 3\"}]}]}";
    char err[300];
    json_value *doc = json_parse(text, strlen(text), err, sizeof err);
    rb_plot_data d;
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    if (!doc)
        return;
    char *svg = plot_all_charts(&d), *speedup = rb_plot_speedup_svg(&d);
    char *html = rb_plot_html(&d);
    RB_CHECK(plot_charts_xml_problem(&d) == NULL && speedup &&
             rb_test_xml_problem(speedup) == NULL);
    RB_CHECK(svg && strstr(svg, "a&lt;b&amp;c&gt;&quot;d&#39;e") && !strstr(svg, "a<b"));
    RB_CHECK(html && strstr(html, "a&lt;b&amp;c&gt;&quot;d&#39;e") && !strstr(html, "a<b"));
    RB_CHECK(html && strstr(html, "1 &lt; 2 &amp; 3") && !strstr(html, "x<y"));
    RB_CHECK(svg && strstr(svg, "roofs unknown"));
    free(svg);
    free(speedup);
    free(html);
    rb_plot_free(&d);
    json_free(doc);
}

/* A committed run from before "roofs" and "roof": every timed valid variant is plotted by the
 * fallbacks, and the chart says the roofs are unknown. */
static void test_old_results_file_plots(void)
{
    json_value *doc = load(OLD_RESULTS);
    rb_plot_data d;
    char err[300];
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    if (!doc)
        return;
    RB_CHECK(!d.have_roofs);
    RB_CHECK(rb_plot_find_point(&d, "copy_coalescing", "baseline")->panel == RB_PANEL_BANDWIDTH);
    RB_CHECK(rb_plot_find_point(&d, "host_transfer.h2d", "optimized")->panel == RB_PANEL_LINK);
    RB_CHECK(rb_plot_find_point(&d, "cuda_graphs", "graph")->panel == RB_PANEL_LATENCY);
    RB_CHECK(rb_plot_find_point(&d, "sgemm@4M", "library")->panel == RB_PANEL_ROOFLINE);
    int plotted = 0, skipped = 0, one_gpu = 0;
    for (int i = 0; i < d.n_points; i++) {
        plotted += d.points[i].plotted;
        skipped += !d.points[i].plotted && !strcmp(d.points[i].verdict, "skipped");
        one_gpu += d.points[i].one_gpu;
    }
    /* the nine in-place NCCL rows skipped; all 27 NCCL rows of this one-GPU run (busbw 0, no
     * byte over a link) kept off the link panel */
    RB_CHECK(skipped == 9 && one_gpu == 27 && plotted == d.n_points - 27);
    char *svg = plot_all_charts(&d), *speedup = rb_plot_speedup_svg(&d);
    char *html = rb_plot_html(&d);
    RB_CHECK(plot_charts_xml_problem(&d) == NULL && speedup &&
             rb_test_xml_problem(speedup) == NULL);
    RB_CHECK(svg && count(svg, "class=\"pt\"") == plotted);
    RB_CHECK(svg && strstr(svg, "roofs unknown"));
    /* what is on no chart, the report says: not in the charts (a slide has no wall of text) */
    RB_CHECK(svg && !strstr(svg, "skipped: ") && !strstr(svg, "no link traffic"));
    RB_CHECK(html && strstr(html, "<h2>Not plotted</h2>") && strstr(html, "<li>skipped: "));
    RB_CHECK(html && strstr(html, "<li>one GPU, no link traffic: "));
    free(svg);
    free(speedup);
    free(html);
    rb_plot_free(&d);
    json_free(doc);
}

static void test_html_is_self_contained(void)
{
    json_value *doc = load(FIXTURE);
    rb_plot_data d;
    char err[300];
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    if (!doc)
        return;
    char *html = rb_plot_html(&d);
    RB_CHECK(html && count(html, "class=\"pt\"") == 19 && count(html, "class=\"bar\"") == 13);
    /* each chart a figure of its own: the roofline, bandwidth, links, latency, speedups */
    RB_CHECK(html && count(html, "<div class=\"chart\">") == 5 &&
             strstr(html, "<h2>Roofline</h2>") && strstr(html, "<h2>Bandwidth</h2>") &&
             strstr(html, "<h2>Links</h2>") && strstr(html, "<h2>Latency</h2>") &&
             !strstr(html, "<h2>Compute-bound region</h2>") && !strstr(html, "<h2>Collectives</h2>"));
    /* ids are the document's: a chart's arrowheads named by the chart */
    RB_CHECK(html && strstr(html, "id=\"arrow-0-") && strstr(html, "id=\"arrow-2-"));
    RB_CHECK(html && count(html, "<tr>") == 19 + 1);
    RB_CHECK(html && strstr(html, "<script>") && strstr(html, "addEventListener('click'"));
    /* nothing fetched: no src, href or stylesheet link; the only URL is the SVG namespace */
    RB_CHECK(html && !strstr(html, "src=") && !strstr(html, "href=") && !strstr(html, "<link"));
    RB_CHECK(html && count(html, "http") == count(html, "http://www.w3.org/2000/svg"));
    free(html);
    rb_plot_free(&d);
    json_free(doc);
}

static void test_sibling_paths(void)
{
    char out[64];
    RB_CHECK(rb_plot_sibling("r/a.json", ".json", "-speedup.svg", out, sizeof out) == 0 &&
             !strcmp(out, "r/a-speedup.svg"));
    RB_CHECK(rb_plot_sibling("r/a", ".json", ".svg", out, sizeof out) == 0 &&
             !strcmp(out, "r/a.svg"));
    RB_CHECK(rb_plot_sibling("x.svg", ".svg", "-speedup.svg", out, sizeof out) == 0 &&
             !strcmp(out, "x-speedup.svg"));
    RB_CHECK(rb_plot_sibling("a-very-long-name-that-does-not-fit-in-sixteen.json", ".json",
                             ".svg", out, 16) == -1);
}

/* ---- the command ---- */

static int file_in(const char *dir, const char *name)
{
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static char *read_all(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = calloc(1, 1 << 20);
    if (s)
        s[fread(s, 1, (1 << 20) - 1, f)] = '\0';
    fclose(f);
    return s;
}

static void test_plot_command(void)
{
    char cwd[512], cmd[1200];
    if (!getcwd(cwd, sizeof cwd))
        return;
    const char *dir = rbtest_fresh_dir();
    snprintf(cmd, sizeof cmd, "cp '%s/" FIXTURE "' '%s/run.json'", cwd, dir);
    RB_CHECK(system(cmd) == 0);
    RB_CHECK(rbtest_run("plot run.json") == 0);
    /* a chart a regime with points, each a file; none for a regime without */
    RB_CHECK(strstr(rbtest_output(), "plot: run.svg, run-bandwidth.svg, run-links.svg, "
                                     "run-latency.svg, run-speedup.svg\n"));
    RB_CHECK(file_in(dir, "run.svg") && file_in(dir, "run-speedup.svg") && !file_in(dir, "run.html"));
    RB_CHECK(!file_in(dir, "run-compute.svg") && !file_in(dir, "run-collectives.svg"));
    static const char *const charts[] = {"run.svg", "run-bandwidth.svg", "run-links.svg",
                                         "run-latency.svg"};
    int points = 0;
    for (size_t k = 0; k < sizeof charts / sizeof charts[0]; k++) {
        char *svg = read_all(dir, charts[k]);
        RB_CHECK(svg && rb_test_xml_problem(svg) == NULL);
        points += svg ? count(svg, "class=\"pt\"") : 0;
        free(svg);
    }
    RB_CHECK(points == 19);
    /* a plot that has fewer regimes leaves no chart of the one before it under its names */
    RB_CHECK(rbtest_run("plot run.json -o out.svg") == 0 && file_in(dir, "out-links.svg"));
    RB_CHECK(rbtest_run("plot run.json -o out.svg --html report.html --filter '^sgemm$'") == 0);
    RB_CHECK(file_in(dir, "out.svg") && file_in(dir, "out-speedup.svg") &&
             file_in(dir, "report.html"));
    RB_CHECK(!file_in(dir, "out-links.svg") && !file_in(dir, "out-bandwidth.svg"));
    char *svg = read_all(dir, "out.svg");
    RB_CHECK(svg && count(svg, "class=\"pt\"") == 5);
    free(svg);
    /* errors: one line, exit 2, no file of the chart written */
    static const char *const bad[][2] = {
        {"plot", "plot needs a results file"},
        {"plot run.json other.json", "plot takes one results file"},
        {"plot run.json --cold", "--cold does not go with plot"},
        {"plot missing.json -o m.svg", "missing.json"},
        {"plot run.json -o run.json", "base name"},
        {"plot run.json -o m.png", "plot writes SVG"},
        {"plot run.json -o nodir/x.svg", "nodir"},
        {"plot run.json -o m.svg --filter '('", "--filter"},
        {"plot notjson.json -o m.svg", "notjson.json: line 1"},
        {"plot notresults.json -o m.svg", "not a roofbench results file"},
    };
    snprintf(cmd, sizeof cmd, "echo 'oops' > '%s/notjson.json' && echo '{\"a\": 1}' > "
                              "'%s/notresults.json'", dir, dir);
    RB_CHECK(system(cmd) == 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = rbtest_run(bad[i][0]);
        if (rc != 2 || !strstr(rbtest_output(), bad[i][1]))
            printf("    roofbench %s -> %d: %s", bad[i][0], rc, rbtest_output());
        RB_CHECK(rc == 2 && strstr(rbtest_output(), bad[i][1]));
        RB_CHECK(!file_in(dir, "m.svg") && !file_in(dir, "m-speedup.svg"));
    }
    RB_CHECK(!file_in(dir, "m.png"));
    /* -o BASE: BASE.svg, BASE-speedup.svg and, with --html alone, BASE.html */
    RB_CHECK(rbtest_run("plot run.json -o chart --html") == 0);
    RB_CHECK(file_in(dir, "chart.svg") && file_in(dir, "chart-speedup.svg") &&
             file_in(dir, "chart.html") && !file_in(dir, "chart"));
    RB_CHECK(rbtest_run("run -o x.svg") == 2);
    rbtest_remove_dir();
}

/* What run does after a run (rb_results_save): the charts and the report beside the results
 * file, linked from its Markdown twin. */
static void test_run_writes_charts_beside_results(void)
{
    json_value *doc = load(FIXTURE);
    const char *dir = rbtest_fresh_dir();
    if (!doc || !dir[0])
        return;
    char path[400];
    snprintf(path, sizeof path, "%s/run.json", dir);
    rb_options o;
    memset(&o, 0, sizeof o);
    o.json_path = path;
    rb_outputs *outs = rb_outputs_new(0);
    RB_CHECK(outs && rb_results_save(&o, "nvidia-h100-80gb-hbm3", doc, NULL, 0, outs) == 0);
    rb_outputs_free(outs);
    RB_CHECK(file_in(dir, "run.json") && file_in(dir, "run.md"));
    RB_CHECK(file_in(dir, "run.svg") && file_in(dir, "run-speedup.svg") &&
             file_in(dir, "run.html") && file_in(dir, "run-latency.svg"));
    RB_CHECK(!file_in(dir, "run-compute.svg") && !file_in(dir, "run-collectives.svg"));
    char *md = read_all(dir, "run.md"), *html = read_all(dir, "run.html");
    /* the Markdown links the charts written, and only those */
    RB_CHECK(md && strstr(md, "![roofline chart](run.svg)") &&
             strstr(md, "![bandwidth chart](run-bandwidth.svg)") &&
             strstr(md, "![latency chart](run-latency.svg)") && !strstr(md, "run-compute.svg") &&
             strstr(md, "![speedup chart](run-speedup.svg)") && strstr(md, "](run.html)"));
    RB_CHECK(html && count(html, "class=\"pt\"") == 19);
    free(md);
    free(html);
    json_free(doc);
    rbtest_remove_dir();
}

static const rbtest_case plot_cases[] = {
    {"xml checker catches malformed documents", test_checker_catches_bad_xml},
    {"svg text and attributes escaped", test_escaping},
    {"log axis mapping and decade fit", test_axis_mapping},
    {"greedy labels never overlap", test_labels_do_not_overlap},
    {"panel chosen from each variant's roof", test_panels_from_roof_keys},
    {"known point lands at computed cx/cy", test_known_point_lands_where_computed},
    {"--filter selects pairs", test_filter},
    {"names with <&>\"' escaped in charts and report", test_names_are_escaped},
    {"old results file (no roofs) plots", test_old_results_file_plots},
    {"html report self-contained", test_html_is_self_contained},
    {"chart paths beside the results file", test_sibling_paths},
    {"plot command: files, options, errors", test_plot_command},
    {"run writes the charts and report beside its results", test_run_writes_charts_beside_results},
};

RB_SUITE(plot_suite, "plot", plot_cases);
