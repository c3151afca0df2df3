/* SPDX-License-Identifier: MIT */
/*
 * Tier 1: charts a performance engineer puts on a slide, checked on the committed reference
 * runs themselves (not on a fixture): one chart a regime that has points, no other; every text
 * at least 11 px; the speedup chart under 1,200 px with no row that only says "skipped"; log
 * axes ticked at every decade and at each edge; collectives over several GPUs drawn as bus
 * bandwidth against size, and a single GPU's collectives kept off the link panel; no empty
 * panel; every number in a chart's key marked on the chart. Each check fails on a planted
 * defect.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/report/plot.h"
#include "../harness/model/util.h"
#include "plot_charts.h"
#include "rbtest.h"

#define MIN_TEXT_PX 11.0
#define H100_X4 "results/nvidia-h100-80gb-hbm3-x4/reference.json"
#define H100_ONE "results/nvidia-h100-80gb-hbm3/reference.json"

static const char *const references[] = {
    "results/nvidia-h100-80gb-hbm3/reference.json", "results/nvidia-h200/reference.json",
    "results/nvidia-h100-80gb-hbm3-x2/reference.json", H100_X4,
    "results/nvidia-h200-x2/reference.json"};
#define N_REFERENCES (sizeof references / sizeof references[0])

static int load_run(const char *path, json_value **doc, rb_plot_data *d)
{
    char err[300];
    *doc = json_parse_file(path, err, sizeof err);
    if (!*doc || rb_plot_load(*doc, NULL, d, err, sizeof err) != 0) {
        printf("    %s: %s\n", path, err);
        json_free(*doc);
        return -1;
    }
    return 0;
}

/* Texts of an SVG smaller than MIN_TEXT_PX (each printed, up to 5). */
static int small_texts(const char *svg, const char *what)
{
    int bad = 0;
    for (const char *p = strstr(svg, "font-size=\""); p; p = strstr(p + 1, "font-size=\"")) {
        double px = atof(p + strlen("font-size=\""));
        if (px < MIN_TEXT_PX && bad++ < 5)
            printf("    %s: a text at %.1f px\n", what, px);
    }
    return bad;
}

static int svg_height(const char *svg)
{
    const char *h = svg ? strstr(svg, "height=\"") : NULL;
    return h ? atoi(h + 8) : -1;
}

/* Rows of a speedup chart that say only why they have no bar. */
static int empty_rows(const char *svg)
{
    static const char *const words[] = {">skipped<", ">no speedup<", ">invalid<", ">not timed<"};
    int n = 0;
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        for (const char *p = strstr(svg, words[k]); p; p = strstr(p + 1, words[k]))
            n++;
    return n;
}

static void test_text_at_least_11px(void)
{
    const char *planted = "<svg><text x=\"1\" y=\"2\" font-size=\"12.0\">a</text>"
                          "<text x=\"1\" y=\"20\" font-size=\"10.0\">b</text></svg>";
    RB_CHECK(small_texts(planted, "planted") == 1);
    for (size_t r = 0; r < N_REFERENCES; r++) {
        json_value *doc;
        rb_plot_data d;
        if (load_run(references[r], &doc, &d) != 0) {
            RB_CHECK(0);
            continue;
        }
        char *svg = plot_all_charts(&d), *speedup = rb_plot_speedup_svg(&d);
        char *energy = rb_plot_has_energy(&d) ? rb_plot_energy_svg(&d) : NULL;
        char *html = rb_plot_html(&d);
        RB_CHECK(svg && small_texts(svg, references[r]) == 0);
        RB_CHECK(speedup && small_texts(speedup, references[r]) == 0);
        RB_CHECK(!energy || small_texts(energy, references[r]) == 0);
        RB_CHECK(html && small_texts(html, references[r]) == 0);
        free(svg);
        free(speedup);
        free(energy);
        free(html);
        rb_plot_free(&d);
        json_free(doc);
    }
}

static void test_speedup_chart_fits_on_reference_runs(void)
{
    RB_CHECK(empty_rows("<text>hgemm</text><text x=\"1\">skipped</text>") == 1);
    for (size_t r = 0; r < N_REFERENCES; r++) {
        json_value *doc;
        rb_plot_data d;
        if (load_run(references[r], &doc, &d) != 0) {
            RB_CHECK(0);
            continue;
        }
        char *svg = rb_plot_speedup_svg(&d);
        int h = svg_height(svg);
        printf("    %s: speedup chart %d px\n", references[r], h);
        RB_CHECK(h > 0 && h < 1200);
        RB_CHECK(svg && empty_rows(svg) == 0);
        /* the full single-GPU runs' sweep rows, their baseline not timed, against the library */
        if (svg && r < 2)
            RB_CHECK(strstr(svg, ">optimized vs library<") && strstr(svg, ">fp8 vs fp8_library<"));
        free(svg);
        rb_plot_free(&d);
        json_free(doc);
    }
}

/* 1 when ticks hold every whole decade of the axis and a tick within 5% of its span of each
 * edge. */
static int ticks_cover(const rb_plot_axis *a, const double *t, int n)
{
    double span = a->hi - a->lo;
    int lo = 0, hi = 0;
    for (int k = 0; k < n; k++) {
        lo |= log10(t[k]) - a->lo < 0.05 * span;
        hi |= a->hi - log10(t[k]) < 0.05 * span;
    }
    for (int e = (int)ceil(a->lo - 1e-9); e <= (int)floor(a->hi + 1e-9); e++) {
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= fabs(log10(t[k]) - e) < 1e-9;
        if (!seen)
            return 0;
    }
    return lo && hi;
}

static void test_ticks_at_decades_and_edges(void)
{
    /* the zoom panel's axis that showed only 2000, 3000 and 5000 */
    rb_plot_axis narrow = {log10(1450), log10(5800), 0, 800};
    const double planted[] = {2000, 3000, 5000};
    RB_CHECK(!ticks_cover(&narrow, planted, 3));
    double t[40];
    int n = rb_plot_axis_ticks(&narrow, t, 40);
    RB_CHECK(ticks_cover(&narrow, t, n));
    /* tick labels at the edges keep two digits: 1500 and 5800 */
    char s[32];
    rb_plot_tick_label(t[0], 0, s, sizeof s);
    RB_CHECK(!strcmp(s, "1500"));
    rb_plot_tick_label(t[n - 1], 0, s, sizeof s);
    RB_CHECK(!strcmp(s, "5800"));
    rb_plot_tick_label(1.7e15, 1, s, sizeof s);
    RB_CHECK(!strcmp(s, "1.7P"));
    /* across a decade: it is ticked, and both edges */
    rb_plot_axis across = {log10(380), log10(2300), 0, 400};
    n = rb_plot_axis_ticks(&across, t, 40);
    RB_CHECK(ticks_cover(&across, t, n));
    /* whole decades, wide: every one */
    rb_plot_axis wide = {-2, 4, 0, 800};
    n = rb_plot_axis_ticks(&wide, t, 40);
    RB_CHECK(n == 7 && ticks_cover(&wide, t, n));
    const double missing[] = {0.01, 1, 100, 10000};
    RB_CHECK(!ticks_cover(&wide, missing, 4));
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay ? strstr(hay, needle) : NULL; p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_collectives_by_size(void)
{
    json_value *doc;
    rb_plot_data d;
    if (load_run(H100_X4, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    int on_link = 0, on_collective = 0;
    for (int i = 0; i < d.n_points; i++) {
        const rb_plot_point *p = &d.points[i];
        if (strncmp(p->pair, "nccl_", 5))
            continue;
        on_link += p->panel == RB_PANEL_LINK;
        on_collective += p->plotted && p->panel == RB_PANEL_COLLECTIVE && p->x > 0;
    }
    RB_CHECK(on_link == 0 && on_collective == 90);
    char *svg = plot_all_charts(&d);
    /* nothing on its roofline: no roofline chart; one line per collective and variant */
    RB_CHECK(!rb_plot_chart_used(&d, RB_CHART_ROOFLINE) &&
             rb_plot_chart_used(&d, RB_CHART_COLLECTIVE));
    RB_CHECK(svg && !strstr(svg, "id=\"rb-main\"") && strstr(svg, "id=\"rb-collectives\""));
    RB_CHECK(count(svg, "<polyline") >= 9);
    RB_CHECK(svg && strstr(svg, ">allreduce: nccl_out_of_place<"));
    free(svg);
    rb_plot_free(&d);
    json_free(doc);

    /* one GPU: algbw 1416-1507 GB/s and busbw 0, not a link's figure */
    if (load_run(H100_ONE, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    int one_gpu = 0, plotted = 0;
    for (int i = 0; i < d.n_points; i++)
        if (!strncmp(d.points[i].pair, "nccl_", 5)) {
            one_gpu += d.points[i].one_gpu;
            plotted += d.points[i].plotted;
        }
    RB_CHECK(one_gpu >= 6 && plotted == 0);
    svg = plot_all_charts(&d);
    char *html = rb_plot_html(&d);
    RB_CHECK(html && strstr(html, "<li>one GPU, no link traffic: nccl_allreduce.allreduce@1G ("));
    RB_CHECK(svg && strstr(svg, "id=\"rb-main\"") && !strstr(svg, "id=\"rb-collectives\""));
    RB_CHECK(svg && !strstr(svg, "nccl_allreduce"));
    free(svg);
    free(html);
    rb_plot_free(&d);
    json_free(doc);
}

/* Panels with a plotted point, as a mask of charts: the roofline, the compute-bound region
 * (its zoomed points), and each side panel's. */
static unsigned regimes_with_points(const rb_plot_data *d)
{
    static const int chart_of[RB_PANEL_COUNT] = {RB_CHART_ROOFLINE, RB_CHART_BANDWIDTH,
                                                 RB_CHART_LINK, RB_CHART_LATENCY,
                                                 RB_CHART_COLLECTIVE};
    unsigned mask = 0;
    for (int i = 0; i < d->n_points; i++) {
        if (d->points[i].plotted)
            mask |= 1u << chart_of[d->points[i].panel];
        if (d->points[i].zoomed)
            mask |= 1u << RB_CHART_COMPUTE;
    }
    return mask;
}

/* Each regime with points has a chart of its own, and no other chart is written; each chart
 * holds points of its regime alone, a title of its own, and fits a slide (the compute-bound
 * chart is a column of small panels, one a family). */
static void test_one_chart_per_regime(void)
{
    for (size_t r = 0; r < N_REFERENCES; r++) {
        json_value *doc;
        rb_plot_data d;
        if (load_run(references[r], &doc, &d) != 0) {
            RB_CHECK(0);
            continue;
        }
        unsigned want = regimes_with_points(&d), got = rb_plot_charts_of(doc);
        printf("    %s: charts", references[r]);
        for (int c = 0; c < RB_CHART_COUNT; c++) {
            if (!(got >> c & 1))
                continue;
            char *svg = rb_plot_chart_svg(&d, (rb_plot_chart)c);
            int h = svg_height(svg);
            printf(" %s %d px", rb_plot_file_suffix(c), h);
            RB_CHECK(svg && count(svg, "class=\"pt\"") > 0 && count(svg, "<svg ") == 1);
            RB_CHECK(c == RB_CHART_COMPUTE || (h > 0 && h <= 1000));
            free(svg);
        }
        printf("\n");
        RB_CHECK(want != 0 && got == want);
        rb_plot_free(&d);
        json_free(doc);
    }
    /* the check can fail: a run with rows on the roofline alone has one chart, not the others */
    const char *text = "{\"pairs\": [{\"name\": \"g\", \"flops\": 1e9, \"bytes\": 1e6, \"variants\": "
                       "[{\"name\": \"v\", \"role\": \"baseline\", \"valid\": true, \"timed\": "
                       "true, \"vs_ceiling\": {\"ai\": 1000, \"tflops\": 1}}]}]}";
    char err[200];
    json_value *doc = json_parse(text, strlen(text), err, sizeof err);
    RB_CHECK(doc && rb_plot_charts_of(doc) == 1u << RB_CHART_ROOFLINE);
    json_free(doc);
}

/* The numbers of a chart's key ("Points whose label did not fit"): each must be a text of the
 * chart by itself (the mark beside its point). How many are not. */
static int unmarked_keys(const char *svg)
{
    const char *key = svg ? strstr(svg, ">Points whose label did not fit, numbered above:<") : NULL;
    int missing = 0;
    for (const char *p = key ? strstr(key, "<text ") : NULL; p; p = strstr(p + 1, "<text ")) {
        const char *t = strchr(p, '>') + 1;
        int num = atoi(t);
        if (num <= 0)
            continue;
        char mark[32];
        snprintf(mark, sizeof mark, ">%d</text>", num);
        /* a label's text (haloed, as the charts draw labels), not a tick's */
        static const char halo[] = "paint-order=\"stroke\">\n<text ";
        int marked = 0;
        for (const char *at = strstr(svg, mark); at && at < key && !marked;
             at = strstr(at + 1, mark)) {
            const char *open = at;
            while (open > svg && strncmp(open, "<text ", 6))
                open--;
            marked = open - svg >= (long)strlen(halo) - 6 &&
                     !strncmp(open - (strlen(halo) - 6), halo, strlen(halo));
        }
        if (!marked && missing++ < 5)
            printf("    key %d has no mark on its chart\n", num);
    }
    return missing;
}

static void test_keys_are_marked(void)
{
    /* 1 is marked; 2 is a tick's text, not a mark */
    const char *planted = "<svg><g paint-order=\"stroke\">\n<text x=\"1\">1</text></g><text "
                          "x=\"2\">2</text><text x=\"3\">Points whose label did not fit, "
                          "numbered above:</text><text x=\"4\"> 1 a / b: 1 GB/s</text><text "
                          "x=\"5\"> 2 c / d: 1 GB/s</text></svg>";
    RB_CHECK(unmarked_keys(planted) == 1);
    for (size_t r = 0; r < N_REFERENCES; r++) {
        json_value *doc;
        rb_plot_data d;
        if (load_run(references[r], &doc, &d) != 0) {
            RB_CHECK(0);
            continue;
        }
        for (int c = 0; c < RB_CHART_COUNT; c++) {
            if (!rb_plot_chart_used(&d, (rb_plot_chart)c))
                continue;
            char *svg = rb_plot_chart_svg(&d, (rb_plot_chart)c);
            RB_CHECK(svg && unmarked_keys(svg) == 0);
            free(svg);
        }
        rb_plot_free(&d);
        json_free(doc);
    }
}

static const rbtest_case plot_slide_cases[] = {
    {"one chart per regime that has points", test_one_chart_per_regime},
    {"every text of every chart at least 11 px", test_text_at_least_11px},
    {"every number in a chart's key marked on it", test_keys_are_marked},
    {"speedup chart under 1200 px on the reference runs", test_speedup_chart_fits_on_reference_runs},
    {"log axes ticked at every decade and each edge", test_ticks_at_decades_and_edges},
    {"collectives: busbw against size; one GPU off the links", test_collectives_by_size},
};

RB_SUITE(plot_slide_suite, "plot_slide", plot_slide_cases);
