/* SPDX-License-Identifier: MIT */
/*
 * Tier 1: the charts' layout. The placement engine (shapes, overlap by separating axes, strict
 * and loose passes, leaders, margin stacking); then whole charts of committed runs read back
 * from their SVG: no two texts overlap and no text covers a point, measured with the writer's
 * own font metrics (tests/browser_test.sh measures the same in a browser), at most
 * RB_PLOT_COLOURS colours a panel, numbers in one format, a speedup chart that fits a slide.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/report/plot.h"
#include "../harness/model/util.h"
#include "plot_charts.h"
#include "rbtest.h"

#define FIXTURE "tests/plot/roofs.json"
/* a full H100 run with every pair (its counts are checked below), the H100 and H200 reference
 * runs, and a run from before the roofs were recorded */
#define H100 "results/nvidia-h100-80gb-hbm3/20261126T0443Z-b092044-record-and-same/record.json"
#define H100_REFERENCE "results/nvidia-h100-80gb-hbm3/reference.json"
#define H200_REFERENCE "results/nvidia-h200/reference.json"
#define OLD "results/nvidia-h100-80gb-hbm3/20261125T120618Z-7100242.json"

/* ---- the engine ---- */

static void test_quads(void)
{
    rb_plot_quad a = rb_plot_rect(0, 0, 10, 10), b = rb_plot_rect(5, 5, 10, 10);
    rb_plot_quad touching = rb_plot_rect(10, 0, 10, 10), far = rb_plot_rect(30, 30, 1, 1);
    RB_CHECK(rb_plot_quads_overlap(&a, &b) && rb_plot_quads_overlap(&b, &a));
    RB_CHECK(!rb_plot_quads_overlap(&a, &touching)); /* sharing an edge is not overlapping */
    RB_CHECK(!rb_plot_quads_overlap(&a, &far));
    /* a label turned 45 degrees: its bounding box would cover the corner box, the label not */
    rb_plot_quad slant = rb_plot_text_quad("abcdefghijklmnop", 0, 0, 10, "start", -45);
    rb_plot_quad corner = rb_plot_rect(2, -60, 8, 8), on_it = rb_plot_rect(40, -45, 6, 6);
    RB_CHECK(!rb_plot_quads_overlap(&slant, &corner));
    RB_CHECK(rb_plot_quads_overlap(&slant, &on_it));
    /* segments: crossing, apart on one line, through a box */
    rb_plot_quad s1 = rb_plot_segment(0, 0, 10, 10), s2 = rb_plot_segment(0, 10, 10, 0);
    rb_plot_quad s3 = rb_plot_segment(20, 20, 30, 30), s4 = rb_plot_segment(-5, 5, 25, 5);
    RB_CHECK(rb_plot_quads_overlap(&s1, &s2));
    RB_CHECK(!rb_plot_quads_overlap(&s1, &s3));
    RB_CHECK(rb_plot_quads_overlap(&s4, &a) && !rb_plot_quads_overlap(&s4, &far));
}

static void test_text_metrics(void)
{
    RB_CHECK_NEAR(rb_plot_text_width("abcdefghij", 10), 61, 1e-9);
    RB_CHECK_NEAR(rb_plot_text_width("2.10 \xc2\xb5s", 10), 6.1 * 7, 1e-9); /* µ: 2 bytes */
    rb_plot_quad q = rb_plot_text_quad("abcd", 100, 50, 10, "end", 0);
    RB_CHECK_NEAR(q.x[0], 100 - 24.4, 1e-9);
    RB_CHECK_NEAR(q.x[1], 100, 1e-9);
    RB_CHECK(q.y[0] < 50 - 9 && q.y[2] > 50 + 2); /* above and below the baseline */
    /* turned -90 (reading upwards) about its anchor: as tall as it was wide, left of x */
    q = rb_plot_text_quad("abcd", 100, 50, 10, "start", -90);
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int k = 0; k < 4; k++) {
        x0 = fmin(x0, q.x[k]);
        x1 = fmax(x1, q.x[k]);
        y0 = fmin(y0, q.y[k]);
        y1 = fmax(y1, q.y[k]);
    }
    RB_CHECK_NEAR(y1 - y0, 24.4, 1e-6);
    RB_CHECK_NEAR(y1, 50, 1e-6);
    RB_CHECK(x0 < 100 - 9 && x1 > 100);
}

static void test_place_strict_then_loose(void)
{
    rb_plot_labels l = {0};
    rb_plot_box bounds = {0, 0, 400, 300};
    RB_CHECK(rb_plot_labels_block(&l, rb_plot_segment(0, 100, 400, 100), 1) == 0); /* a roof */
    rb_plot_place on_line = {10, 104, "start", 0, 0, 0, 0, 0, 0};
    rb_plot_place clear = {10, 150, "start", 0, 0, 0, 0, 0, 0};
    rb_plot_place both[2] = {on_line, clear};
    /* the strict pass skips the place across the roof line for the clear one */
    RB_CHECK(rb_plot_labels_place(&l, "label", 10, both, 2, &bounds, 0) == 1);
    /* crossing the line only when nothing else is free */
    RB_CHECK(rb_plot_labels_place(&l, "label", 10, &on_line, 1, &bounds, 1) == -1);
    RB_CHECK(rb_plot_labels_place(&l, "label", 10, &on_line, 1, &bounds, 0) == 0);
    /* placed labels are hard: the same place is not free again, in either pass */
    RB_CHECK(rb_plot_labels_place(&l, "label", 10, &clear, 1, &bounds, 0) == -1);
    /* a leader may not cross a placed label */
    rb_plot_place led = {200, 250, "start", 0, 1, 20, 130, 200, 245};
    RB_CHECK(rb_plot_labels_place(&l, "x", 10, &led, 1, &bounds, 0) == -1);
    led.lx0 = 150;
    led.ly0 = 200;
    RB_CHECK(rb_plot_labels_place(&l, "x", 10, &led, 1, &bounds, 0) == 0);
    /* outside the bounds: never */
    rb_plot_place out = {390, 20, "start", 0, 0, 0, 0, 0, 0};
    RB_CHECK(rb_plot_labels_place(&l, "label", 10, &out, 1, &bounds, 0) == -1);
    for (int i = 0; i < l.n; i++)
        for (int k = i + 1; k < l.n; k++)
            if (!l.soft[i] && !l.soft[k])
                RB_CHECK(!rb_plot_quads_overlap(&l.shapes[i], &l.shapes[k]));
    rb_plot_labels_free(&l);
}

static void test_crowding(void)
{
    rb_plot_labels l = {0};
    rb_plot_labels_block(&l, rb_plot_rect(100, 100, 5, 5), 0);
    rb_plot_labels_block(&l, rb_plot_segment(0, 0, 300, 300), 1); /* soft: not counted */
    rb_plot_quad near = rb_plot_rect(110, 100, 20, 10), far = rb_plot_rect(200, 10, 20, 10);
    RB_CHECK(rb_plot_labels_crowding(&l, &near, 10) == 1);
    RB_CHECK(rb_plot_labels_crowding(&l, &far, 10) == 0);
    rb_plot_labels_free(&l);
}

static void test_stack(void)
{
    /* three labels 12 px tall that all want y = 50, and one that wants 200 */
    double want[4] = {50, 200, 50, 50}, h[4] = {12, 12, 12, 12}, got[4];
    rb_plot_stack(want, h, got, 4, 0, 300);
    RB_CHECK_NEAR(got[1], 200, 1e-9); /* alone: where it wants */
    double a = fmin(got[0], fmin(got[2], got[3])), c = fmax(got[0], fmax(got[2], got[3]));
    RB_CHECK_NEAR(c - a, 24, 1e-9); /* packed 12 apart */
    for (int i = 0; i < 4; i++)
        for (int k = i + 1; k < 4; k++)
            RB_CHECK(fabs(got[i] - got[k]) >= 12 - 1e-9);
    /* pushed up from the bottom edge, not past it */
    double low[2] = {295, 299}, got2[2];
    rb_plot_stack(low, h, got2, 2, 0, 300);
    RB_CHECK(got2[0] + 6 <= 300 - 12 + 1e-9 && got2[1] + 6 <= 300 + 1e-9);
}

static void test_number_format(void)
{
    static const struct {
        double x;
        const char *want;
    } cases[] = {{1491.16, "1491"}, {1.3, "1.30"},      {1.38, "1.38"},    {0.104, "0.104"},
                 {13.29, "13.3"},   {99.97, "100"},     {0.7446, "0.745"}, {10, "10.0"},
                 {3021.4, "3021"},  {0.0004, "< 0.001"}};
    char out[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rb_plot_num(cases[i].x, out, sizeof out);
        if (strcmp(out, cases[i].want))
            printf("    rb_plot_num(%g) = '%s', want '%s'\n", cases[i].x, out, cases[i].want);
        RB_CHECK(!strcmp(out, cases[i].want));
    }
    rb_plot_num(NAN, out, sizeof out);
    RB_CHECK(!strcmp(out, "-"));
}

/* ---- whole charts, read back from their SVG ---- */

typedef struct svg_text {
    rb_plot_quad q;
    char text[160];
    double y;
} svg_text;

static const char *attr(const char *tag, const char *end, const char *name, char *out, size_t size)
{
    char key[40];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *p = strstr(tag, key);
    if (!p || p > end)
        return NULL;
    p += strlen(key);
    size_t n = strcspn(p, "\"");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p);
    return out;
}

static void unescape(char *s)
{
    static const char *const ent[][2] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}};
    for (char *p = s; *p; p++)
        for (size_t k = 0; k < 5; k++)
            if (!strncmp(p, ent[k][0], strlen(ent[k][0]))) {
                size_t n = strlen(ent[k][0]);
                *p = ent[k][1][0];
                memmove(p + 1, p + n, strlen(p + n) + 1);
                break;
            }
}

/* Every <text> of an SVG with the box the writer's metrics give it. */
static int read_texts(const char *svg, svg_text *out, int max)
{
    int n = 0;
    for (const char *p = strstr(svg, "<text "); p && n < max; p = strstr(p + 1, "<text ")) {
        const char *end = strchr(p, '>');
        char v[64], anchor[16] = "start";
        double x = atof(attr(p, end, "x", v, sizeof v) ? v : "0");
        double y = atof(attr(p, end, "y", v, sizeof v) ? v : "0");
        double size = atof(attr(p, end, "font-size", v, sizeof v) ? v : "10");
        attr(p, end, "text-anchor", anchor, sizeof anchor);
        double rot = 0;
        if (attr(p, end, "transform", v, sizeof v))
            rot = atof(v + strlen("rotate("));
        const char *close = strstr(end, "</text>");
        snprintf(out[n].text, sizeof out[n].text, "%.*s", (int)(close - end - 1), end + 1);
        unescape(out[n].text);
        out[n].q = rb_plot_text_quad(out[n].text, x, y, size, anchor, rot);
        out[n].y = y;
        n++;
    }
    return n;
}

/* The points' boxes: a little smaller than the writer keeps free around them. */
static int read_points(const char *svg, rb_plot_quad *out, int max)
{
    int n = 0;
    for (const char *p = strstr(svg, "<path d=\"M"); p && n < max;
         p = strstr(p + 1, "<path d=\"M")) {
        const char *end = strchr(p, '>');
        char cls[32];
        if (!attr(p, end, "class", cls, sizeof cls) || strncmp(cls, "pt", 2))
            continue;
        double x = atof(p + 10), y = atof(strchr(p + 10, ',') + 1);
        double r = strcmp(cls, "pt") ? 3.2 : 4.0;
        out[n++] = rb_plot_rect(x - 1.2 * r, y - 1.2 * r, 2.4 * r, 2.4 * r);
    }
    return n;
}

/* The lines of groups of class roof, arrow or leader: the lines no label may cross. */
static int read_lines(const char *svg, rb_plot_quad *out, int max)
{
    int n = 0;
    static const char *const groups[] = {"<g class=\"roof\">\n<line ", "<g class=\"arrow\">\n<line ",
                                         "<g class=\"leader\">\n<line "};
    for (size_t g = 0; g < 3; g++)
        for (const char *p = strstr(svg, groups[g]); p && n < max; p = strstr(p + 1, groups[g])) {
            const char *line = strstr(p, "<line "), *end = strchr(line, '>');
            char v[4][32];
            if (!attr(line, end, "x1", v[0], 32) || !attr(line, end, "y1", v[1], 32) ||
                !attr(line, end, "x2", v[2], 32) || !attr(line, end, "y2", v[3], 32))
                continue;
            out[n++] = rb_plot_segment(atof(v[0]), atof(v[1]), atof(v[2]), atof(v[3]));
        }
    return n;
}

/* Overlapping texts, texts over points and lines across texts, in an SVG (each printed). */
static int chart_problems(const char *svg, const char *what)
{
    enum { MAX = 4000 };
    svg_text *t = malloc(MAX * sizeof *t);
    rb_plot_quad *pts = malloc(MAX * sizeof *pts), *lines = malloc(MAX * sizeof *lines);
    int bad = 0;
    if (!t || !pts || !lines) {
        free(t);
        free(pts);
        free(lines);
        return -1;
    }
    int n = read_texts(svg, t, MAX), np = read_points(svg, pts, MAX);
    int nl = read_lines(svg, lines, MAX);
    for (int i = 0; i < n; i++) {
        for (int k = i + 1; k < n; k++)
            if (rb_plot_quads_overlap(&t[i].q, &t[k].q) && bad++ < 10)
                printf("    %s: \"%s\" overlaps \"%s\"\n", what, t[i].text, t[k].text);
        for (int k = 0; k < np; k++)
            if (rb_plot_quads_overlap(&t[i].q, &pts[k]) && bad++ < 10)
                printf("    %s: \"%s\" covers a point\n", what, t[i].text);
        for (int k = 0; k < nl; k++)
            if (rb_plot_quads_overlap(&t[i].q, &lines[k]) && bad++ < 10)
                printf("    %s: a line crosses \"%s\"\n", what, t[i].text);
    }
    free(t);
    free(pts);
    free(lines);
    return bad;
}

static int load_data(const char *path, json_value **doc, rb_plot_data *d)
{
    char err[300];
    *doc = json_parse_file(path, err, sizeof err);
    if (!*doc) {
        printf("    %s\n", err);
        return -1;
    }
    if (rb_plot_load(*doc, NULL, d, err, sizeof err) != 0) {
        printf("    %s\n", err);
        json_free(*doc);
        return -1;
    }
    return 0;
}

static void test_checker_sees_a_planted_overlap(void)
{
    const char *svg = "<svg><text x=\"10\" y=\"20\" font-size=\"9.0\" text-anchor=\"start\" "
                      "fill=\"#000\">library</text>\n<text x=\"30\" y=\"22\" font-size=\"9.0\" "
                      "text-anchor=\"start\" fill=\"#000\">optimized</text>\n"
                      "<text x=\"10\" y=\"60\" font-size=\"9.0\" text-anchor=\"start\" "
                      "fill=\"#000\">alone</text></svg>";
    RB_CHECK(chart_problems(svg, "planted") == 1);
    /* a roof line through a label */
    const char *struck = "<svg><text x=\"10\" y=\"20\" font-size=\"11.0\" text-anchor=\"start\" "
                         "fill=\"#000\">label</text>\n<g class=\"roof\">\n<line x1=\"0\" "
                         "y1=\"16\" x2=\"100\" y2=\"16\"/>\n</g></svg>";
    RB_CHECK(chart_problems(struck, "planted") == 1);
}

/* The charts of each committed run: not one overlap. */
static void test_committed_runs_have_no_overlap(void)
{
    static const char *const runs[] = {FIXTURE, H100, H100_REFERENCE, H200_REFERENCE, OLD};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        json_value *doc;
        rb_plot_data d;
        if (load_data(runs[r], &doc, &d) != 0) {
            RB_CHECK(0);
            continue;
        }
        for (int c = 0; c < RB_CHART_COUNT; c++) {
            if (!rb_plot_chart_used(&d, (rb_plot_chart)c))
                continue;
            char *svg = rb_plot_chart_svg(&d, (rb_plot_chart)c);
            RB_CHECK(svg && chart_problems(svg, runs[r]) == 0);
            free(svg);
        }
        char *speedup = rb_plot_speedup_svg(&d);
        RB_CHECK(speedup && chart_problems(speedup, runs[r]) == 0);
        free(speedup);
        rb_plot_free(&d);
        json_free(doc);
    }
}

/* The part of an SVG inside <g id="id"> ... its </g> (groups do not nest inside panels). */
static char *group_of(const char *svg, const char *id)
{
    char open[64];
    snprintf(open, sizeof open, "<g id=\"%s\">", id);
    const char *p = strstr(svg, open);
    if (!p)
        return NULL;
    const char *depth_end = p;
    int depth = 0;
    for (const char *q = p; *q; q++) {
        if (!strncmp(q, "<g", 2) && (q[2] == ' ' || q[2] == '>'))
            depth++;
        else if (!strncmp(q, "</g>", 4) && --depth == 0) {
            depth_end = q;
            break;
        }
    }
    size_t n = (size_t)(depth_end - p);
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, p, n);
        out[n] = '\0';
    }
    return out;
}

/* Distinct fills of the points in a part of a chart. */
static int point_colours(const char *part)
{
    char seen[64][16];
    int n = 0;
    for (const char *p = strstr(part, "<path d=\"M"); p; p = strstr(p + 1, "<path d=\"M")) {
        const char *end = strchr(p, '>');
        char cls[32], fill[16], stroke[16];
        if (!attr(p, end, "class", cls, sizeof cls) || strncmp(cls, "pt", 2) ||
            !attr(p, end, "fill", fill, sizeof fill))
            continue;
        /* a hollow part is drawn white inside a ring of its colour */
        if (!strcmp(fill, "#ffffff") && attr(p, end, "stroke", stroke, sizeof stroke))
            snprintf(fill, sizeof fill, "%s", stroke);
        int k = 0;
        while (k < n && strcmp(seen[k], fill))
            k++;
        if (k == n && n < 64)
            snprintf(seen[n++], sizeof seen[0], "%s", fill);
    }
    return n;
}

/* At most RB_PLOT_COLOURS colours a panel; families meeting on the main panel told apart. */
static void test_colours_per_panel(void)
{
    json_value *doc;
    rb_plot_data d;
    if (load_data(H100, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    char *svg = plot_all_charts(&d);
    int panels = 0;
    static const char *const ids[] = {"rb-main",   "rb-zoom-0", "rb-zoom-1", "rb-zoom-2",
                                      "rb-side-1", "rb-side-2", "rb-side-3"};
    for (size_t i = 0; svg && i < sizeof ids / sizeof ids[0]; i++) {
        char *part = group_of(svg, ids[i]);
        if (!part)
            continue;
        int n = point_colours(part);
        if (n > RB_PLOT_COLOURS || n < 1)
            printf("    %s: %d colours\n", ids[i], n);
        RB_CHECK(n >= 1 && n <= RB_PLOT_COLOURS);
        panels++;
        free(part);
    }
    RB_CHECK(panels == 7);
    /* on the main panel every family has its own colour */
    for (int f = 0; f < d.n_families; f++)
        for (int g = f + 1; g < d.n_families; g++) {
            int both = 0;
            for (int i = 0; i < d.n_points && both != 3; i++)
                if (d.points[i].plotted && d.points[i].panel == RB_PANEL_ROOFLINE)
                    both |= (d.pair_family[d.points[i].pair_index] == f) |
                            (d.pair_family[d.points[i].pair_index] == g) << 1;
            if (both == 3)
                RB_CHECK(d.families[f].colour != d.families[g].colour);
        }
    free(svg);
    rb_plot_free(&d);
    json_free(doc);
}

/* The shape of a marker from its path data (plot_draw.c): 0 circle (arcs), 1 square (h, v),
 * then by its vertices: 2 triangle up, 4 down, 3 diamond, 5 pentagon, 6 star, 7 plus; -1. */
static int marker_shape(const char *d, const char *end)
{
    int l = 0, arc = 0, h = 0;
    for (const char *p = d; p < end && *p != '"'; p++) {
        l += *p == 'l';
        arc |= *p == 'a';
        h |= *p == 'h';
    }
    if (arc)
        return 0;
    if (h)
        return 1;
    const char *m = strchr(d, 'm');
    double dy = m && strchr(m, ',') ? atof(strchr(m, ',') + 1) : 0;
    return l == 2 ? (dy < 0 ? 2 : 4) : l == 3 ? 3 : l == 4 ? 5 : l == 9 ? 6 : l == 11 ? 7 : -1;
}

/* Pairs of families that meet on a panel (the roofline, a zoom panel, a side panel) and look
 * alike: the same colour and shape, or the same shape where the panel's families are few enough
 * to each have their own (each printed). */
static int families_alike(const rb_plot_data *d, const char *what)
{
    int bad = 0;
    for (int panel = 0; panel < RB_PANEL_COUNT + RB_PLOT_MAX_ZOOMS; panel++) {
        unsigned char on[256] = {0};
        int n = 0;
        for (int i = 0; i < d->n_points; i++) {
            const rb_plot_point *p = &d->points[i];
            int f = d->pair_family[p->pair_index];
            int here = panel < RB_PANEL_COUNT ? p->plotted && p->panel == panel
                                              : p->zoomed && d->families[f].zoom == panel - RB_PANEL_COUNT;
            if (here && f < 256 && !on[f]++)
                n++;
        }
        for (int f = 0; f < d->n_families && f < 256; f++)
            for (int g = f + 1; g < d->n_families && g < 256; g++) {
                if (!on[f] || !on[g] || d->families[f].shape != d->families[g].shape)
                    continue;
                if ((d->families[f].colour == d->families[g].colour || n <= RB_PLOT_SHAPES) &&
                    bad++ < 5)
                    printf("    %s: panel %d: %s and %s look alike\n", what, panel,
                           d->families[f].name, d->families[g].name);
            }
    }
    return bad;
}

/* Families told apart by marker shape as well as colour, on every panel; each point drawn with
 * its family's marker, and the legend showing it. */
static void test_families_by_shape(void)
{
    json_value *doc;
    rb_plot_data d;
    if (load_data(H100, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    RB_CHECK(families_alike(&d, H100) == 0);
    char *svg = plot_all_charts(&d), *main_svg = rb_plot_chart_svg(&d, RB_CHART_ROOFLINE);
    int points = 0, wrong = 0;
    for (const char *p = svg ? strstr(svg, "<path d=\"M") : NULL; p;
         p = strstr(p + 1, "<path d=\"M")) {
        const char *end = strchr(p, '>'), *title = strstr(p, "<title>");
        char cls[32], pair[128];
        if (!attr(p, end, "class", cls, sizeof cls) || strcmp(cls, "pt") || !title)
            continue;
        snprintf(pair, sizeof pair, "%.*s", (int)strcspn(title + 7, " "), title + 7);
        int k = 0;
        while (k < d.n_pairs && strcmp(d.pairs[k], pair))
            k++;
        points++;
        /* (the collectives' markers are the collective's; this run has none over GPUs) */
        wrong += k == d.n_pairs || marker_shape(p + 9, end) != rb_plot_pair_marker(&d, k);
    }
    RB_CHECK(points > 100 && wrong == 0);
    /* the legend: each family of the roofline, its marker in its colour before its name */
    int listed = 0;
    for (int f = 0; main_svg && f < d.n_families; f++) {
        char key[96];
        snprintf(key, sizeof key, "\">%s", d.families[f].name);
        const char *text = NULL;
        for (const char *t = strstr(main_svg, key); t; t = strstr(t + 1, key))
            if (t[strlen(key)] == ':' || t[strlen(key)] == '<')
                text = t;
        if (!text)
            continue;
        const char *path = text;
        while (path > main_svg && strncmp(path, "<path d=\"", 9))
            path--;
        char fill[16] = "";
        attr(path, strchr(path, '>'), "fill", fill, sizeof fill);
        RB_CHECK(marker_shape(path + 9, strchr(path, '>')) == d.families[f].shape &&
                 !strcmp(fill, rb_plot_colour(d.families[f].colour)));
        listed++;
    }
    int on_main = 0;
    for (int f = 0; f < d.n_families; f++) {
        int here = 0;
        for (int i = 0; i < d.n_points && !here; i++)
            here = d.points[i].plotted && d.points[i].panel == RB_PANEL_ROOFLINE &&
                   d.pair_family[d.points[i].pair_index] == f;
        on_main += here;
    }
    RB_CHECK(listed == on_main && on_main >= 10);
    /* the check can fail: every family the same marker */
    for (int f = 0; f < d.n_families; f++)
        d.families[f].shape = 0;
    RB_CHECK(families_alike(&d, "planted") > 0);
    free(svg);
    free(main_svg);
    rb_plot_free(&d);
    json_free(doc);
}

/* The compute-bound region of the H100 run: hgemm and sgemm zoomed each, the small GEMM
 * families pooled; the main panel shows those points but labels none of them. */
static void test_zoom_panels(void)
{
    json_value *doc;
    rb_plot_data d;
    if (load_data(H100, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    RB_CHECK(d.n_zooms == 3);
    int zoomed = 0;
    for (int i = 0; i < d.n_points; i++) {
        const rb_plot_point *p = &d.points[i];
        zoomed += p->zoomed;
        RB_CHECK(!p->zoomed || (p->x >= RB_PLOT_ZOOM_AI && p->panel == RB_PANEL_ROOFLINE));
    }
    RB_CHECK(zoomed == 60); /* 21 sgemm, 26 hgemm, 13 pooled (streams_overlap's kernel too) */
    for (int f = 0; f < d.n_families; f++) {
        if (!strcmp(d.families[f].name, "hgemm"))
            RB_CHECK(d.families[f].zoom == 0);
        if (!strcmp(d.families[f].name, "sgemm"))
            RB_CHECK(d.families[f].zoom == 1);
        if (!strcmp(d.families[f].name, "gemm_epilogue"))
            RB_CHECK(d.families[f].zoom == 2);
    }
    char *svg = rb_plot_chart_svg(&d, RB_CHART_ROOFLINE);
    char *zooms = rb_plot_chart_svg(&d, RB_CHART_COMPUTE);
    /* the roofline's labels name no sgemm or hgemm variant; the compute-bound chart's do */
    RB_CHECK(svg && !strstr(svg, ">reg_2d_vec4<") && !strstr(svg, ">wgmma<"));
    RB_CHECK(zooms && strstr(zooms, ">reg_2d_vec4<") && strstr(zooms, ">wgmma<"));
    RB_CHECK(svg && strstr(svg, ">zoomed: the compute-bound chart<"));
    RB_CHECK(zooms && strstr(zooms, "id=\"rb-zoom-2\"") && !strstr(zooms, "id=\"rb-main\""));
    free(zooms);
    free(svg);
    rb_plot_free(&d);
    json_free(doc);
}

/* The full suite's speedup chart fits a slide, and its numbers read one way. */
static void test_speedup_chart_compact(void)
{
    json_value *doc;
    rb_plot_data d;
    if (load_data(H100, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    char *svg = rb_plot_speedup_svg(&d);
    const char *h = svg ? strstr(svg, "height=\"") : NULL;
    RB_CHECK(h && atoi(h + 8) <= 1200);
    if (h)
        printf("    speedup chart: %d px tall\n", atoi(h + 8));
    enum { TICKS_Y = 85 };
    regex_t speedup_re;
    RB_CHECK(regcomp(&speedup_re,
                     "^([0-9]\\.[0-9][0-9]|[0-9][0-9]\\.[0-9]|[1-9][0-9]{2,}|0\\.[0-9]{3})x$",
                     REG_EXTENDED | REG_NOSUB) == 0);
    enum { MAX = 2000 };
    svg_text *t = malloc(MAX * sizeof *t);
    int n = svg && t ? read_texts(svg, t, MAX) : 0, speedups = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(t[i].text);
        RB_CHECK(!strstr(t[i].text, "e+") && !strstr(t[i].text, "e-0"));
        /* a bar's speedup (the axis's ticks, whole decades, sit above the first row) */
        if (len > 1 && t[i].text[len - 1] == 'x' && t[i].text[0] >= '0' && t[i].text[0] <= '9' &&
            !strchr(t[i].text, ' ') && t[i].y > TICKS_Y) {
            speedups++;
            if (regexec(&speedup_re, t[i].text, 0, NULL, 0) != 0)
                printf("    speedup '%s' not in the chart's format\n", t[i].text);
            RB_CHECK(regexec(&speedup_re, t[i].text, 0, NULL, 0) == 0);
        }
    }
    RB_CHECK(speedups >= 60);
    regfree(&speedup_re);
    free(t);
    free(svg);
    rb_plot_free(&d);
    json_free(doc);
}

/* A file whose "roof" named the declared compute roof of memory-bound rows (softmax,
 * async_pipeline, tma_pipeline, reduction): each is named by, and shown in the unit of, the
 * DRAM roof its efficiency was taken against; the declared roof is kept beside it. */
static void test_binding_roof(void)
{
    json_value *doc;
    rb_plot_data d;
    if (load_data(H100, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    static const char *const pairs[] = {"softmax", "async_pipeline", "tma_pipeline"};
    for (size_t i = 0; i < 3; i++) {
        rb_plot_point *p = rb_plot_find_point(&d, pairs[i], "optimized");
        RB_CHECK(p && p->roof && !strcmp(p->roof, "dram_gbps"));
        RB_CHECK(p && p->declared_roof && !strcmp(p->declared_roof, "fp32_tflops"));
    }
    char text[96];
    rb_plot_efficiency_text(rb_plot_find_point(&d, "softmax", "optimized"), text, sizeof text);
    RB_CHECK(!strcmp(text, "98.9% of DRAM copy"));
    rb_plot_rate_text(rb_plot_find_point(&d, "reduction", "baseline"), text, sizeof text);
    RB_CHECK(!strcmp(text, "416 GB/s")); /* not 0.104 TFLOP/s */
    /* compute-bound rows keep their compute roof */
    rb_plot_point *sgemm = rb_plot_find_point(&d, "sgemm@16M", "optimized");
    RB_CHECK(sgemm && !strcmp(sgemm->roof, "fp32_tflops"));
    rb_plot_rate_text(sgemm, text, sizeof text);
    RB_CHECK(!strcmp(text, "45.6 TFLOP/s"));
    rb_plot_free(&d);
    json_free(doc);
}

/* Skipped rows: no point, no rate, no efficiency, no speedup, anywhere; never a zero. */
static void test_skipped_rows_are_not_zero(void)
{
    json_value *doc;
    rb_plot_data d;
    if (load_data(H100, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    rb_plot_point *p = rb_plot_find_point(&d, "hgemm.awkward@16M", "fp8_library");
    RB_CHECK(p && !p->plotted && !strcmp(p->verdict, "skipped"));
    RB_CHECK(p && isnan(p->efficiency) && isnan(p->speedup) && isnan(rb_plot_rate(p)));
    char *svg = plot_all_charts(&d), *speedup = rb_plot_speedup_svg(&d);
    char *html = rb_plot_html(&d);
    const char *row = html ? strstr(html, "<td data-v=\"hgemm.awkward@16M\">hgemm.awkward@16M</td>"
                                          "<td data-v=\"fp8_library\">")
                           : NULL;
    char line[1200] = "";
    if (row)
        snprintf(line, sizeof line, "%.*s", (int)strcspn(row, "\n"), row);
    RB_CHECK(line[0] && strstr(line, "v-skipped") && !strstr(line, ">0 ") &&
             !strstr(line, ">0.0%"));
    /* no row of its own in the speedup chart (its foot counts it), no point on any chart; the
     * report's "Not plotted" names it among its pair's skipped variants */
    RB_CHECK(speedup && !strstr(speedup, ">skipped<") &&
             strstr(speedup, " have no row: not timed (skipped, invalid)"));
    RB_CHECK(svg && !strstr(svg, "hgemm.awkward@16M / fp8_library"));
    const char *list = html ? strstr(html, "<li>skipped: ") : NULL;
    const char *foot = list ? strstr(list, "hgemm.awkward@16M (") : NULL;
    RB_CHECK(foot && foot < strstr(list, "</li>") &&
             strstr(foot, "fp8_library") < strchr(foot, ')'));
    free(svg);
    free(speedup);
    free(html);
    rb_plot_free(&d);
    json_free(doc);
}

/* The report counts and colours verdicts; informational rows, when the results mark them, are
 * counted apart and shown muted. */
static void test_report_verdicts(void)
{
    json_value *doc;
    rb_plot_data d;
    if (load_data(H100, &doc, &d) != 0) {
        RB_CHECK(0);
        return;
    }
    char *html = rb_plot_html(&d);
    RB_CHECK(html && strstr(html, "verdicts: <span class=\"badge v-pass\">107 pass</span>"
                                  "<span class=\"badge v-regressed\">1 regressed</span>"
                                  "<span class=\"badge v-skipped\">4 skipped</span></p>"));
    RB_CHECK(html && strstr(html, "<td class=\"verdict v-regressed\" data-v=\"regressed\">"));
    RB_CHECK(html && strstr(html, ".v-regressed, .v-slower, .v-invalid {"));
    RB_CHECK(html && !strstr(html, "informational verdicts") && !strstr(html, "(informational)"));
    free(html);
    /* two rows marked informational */
    rb_plot_find_point(&d, "cuda_graphs", "baseline")->informational = 1;
    rb_plot_find_point(&d, "host_transfer.h2d", "baseline")->informational = 1;
    html = rb_plot_html(&d);
    RB_CHECK(html && strstr(html, "gating verdicts: <span class=\"badge v-pass\">105 pass</span>"));
    RB_CHECK(html && strstr(html, "informational verdicts (host-bound rows: measured, not "
                                  "gating): <span class=\"badge v-pass\">2 pass</span></p>"));
    RB_CHECK(html && strstr(html, "<tr class=\"info\"><td data-v=\"cuda_graphs\">"));
    RB_CHECK(html && strstr(html, ">pass (informational)</td>"));
    free(html);
    rb_plot_free(&d);
    json_free(doc);
}

/* The fields the results writer adds beside a variant's roof: the rate and unit the table
 * shows, the figure a latency or link row is judged by (roof_rate), an inconsistency, the
 * reason of an informational row, how its roof was set. */
static void test_results_fields(void)
{
    const char *text =
        "{\"date\": \"d\", \"git\": \"g\", \"roofs\": {\"launch_us\": {\"kind\": \"latency\", "
        "\"measured\": 2.6}, \"bf16_tflops\": {\"kind\": \"compute\", \"measured\": 714}}, "
        "\"pairs\": [{\"name\": \"graphs\", \"flops\": 1e6, \"bytes\": 1e6, \"variants\": [{"
        "\"name\": \"baseline\", \"role\": \"baseline\", \"valid\": true, \"timed\": true, "
        "\"roof\": \"launch_us\", \"declared_roof\": \"launch_us\", \"roof_rate\": "
        "\"us_per_kernel\", \"extras\": {\"us_per_kernel\": 2.79}, \"rate\": 2.79, "
        "\"rate_unit\": \"us/launch\", \"informational\": true, \"host_bound_why\": \"the CPU "
        "launches each kernel\", \"time_ms\": {\"median\": 0.56}, \"vs_ceiling\": {\"ai\": 1, "
        "\"tflops\": 0.005, \"gbps\": 15, \"efficiency\": 0.93}, \"speedup\": 1, \"verdict\": "
        "\"pass\"}]}, {\"name\": \"gemm\", \"flops\": 1e12, \"bytes\": 1e9, \"variants\": [{"
        "\"name\": \"fast\", \"role\": \"optimized\", \"valid\": true, \"timed\": true, "
        "\"roof\": \"bf16_tflops\", \"declared_roof\": \"bf16_tflops\", \"rate\": 780, "
        "\"rate_unit\": \"TFLOP/s\", \"inconsistent\": true, \"roof_note\": \"raised to its "
        "sustained rate\", \"time_ms\": {\"median\": 1}, \"vs_ceiling\": {\"ai\": 1000, "
        "\"tflops\": 780, \"gbps\": 780, \"efficiency\": 1.0924}, \"speedup\": 5, "
        "\"verdict\": \"pass\"}]}]}";
    char err[300];
    json_value *doc = json_parse(text, strlen(text), err, sizeof err);
    rb_plot_data d;
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    if (!doc)
        return;
    char rate[64], eff[96];
    rb_plot_point *p = rb_plot_find_point(&d, "graphs", "baseline");
    RB_CHECK(p && p->panel == RB_PANEL_LATENCY && p->y == 2.79);
    rb_plot_rate_text(p, rate, sizeof rate);
    RB_CHECK(!strcmp(rate, "2.79 \xc2\xb5s per launch"));
    p = rb_plot_find_point(&d, "gemm", "fast");
    rb_plot_efficiency_text(p, eff, sizeof eff);
    RB_CHECK(!strcmp(eff, "inconsistent: 109.2% of BF16"));
    char *speedup = rb_plot_speedup_svg(&d);
    char *html = rb_plot_html(&d);
    RB_CHECK(html && strstr(html, ">109.2% inconsistent</td>"));
    RB_CHECK(html && strstr(html, "graphs/baseline: informational, host-bound: the CPU launches "
                                  "each kernel</li>"));
    RB_CHECK(html && strstr(html, "gemm/fast: roof: raised to its sustained rate</li>"));
    RB_CHECK(speedup && strstr(speedup, ">inconsistent: 109.2% of BF16<"));
    free(speedup);
    free(html);
    rb_plot_free(&d);
    json_free(doc);
}

/* A results document of one pair with n variants on the roofline: at one spot (all labels
 * fight for the same place), or spread over four decades. The second is informational. */
static json_value *grid_doc(int n, int one_spot)
{
    rb_sbuf b = {0};
    rb_sbuf_add(&b, "{\"date\": \"d\", \"git\": \"g\", \"roofs\": {\"fp32_tflops\": {\"kind\": "
                    "\"compute\", \"measured\": 60, \"peak\": 67}, \"dram_gbps\": {\"kind\": "
                    "\"bandwidth\", \"measured\": 3000, \"peak\": 3352}}, \"pairs\": [{\"name\": "
                    "\"grid\", \"flops\": 1e12, \"bytes\": 1e9, \"variants\": [");
    for (int i = 0; i < n; i++) {
        double ai = one_spot ? 10 : pow(10, -1 + 4.0 * i / n);
        double tflops = one_spot ? 5 : fmin(50, ai * 3) * (0.2 + 0.8 * ((i * 37) % 100) / 100.0);
        rb_sbuf_add(&b,
                    "%s{\"name\": \"variant_%d\", \"role\": \"%s\", \"valid\": true, \"timed\": "
                    "true, \"informational\": %s, \"roof\": \"fp32_tflops\", \"time_ms\": "
                    "{\"median\": 1}, \"vs_ceiling\": {\"ai\": %.6g, \"tflops\": %.6g, \"gbps\": "
                    "%.6g, \"efficiency\": 0.5}, \"speedup\": %.6g, \"verdict\": \"pass\"}",
                    i ? ", " : "", i, i ? "step" : "baseline", i == 1 ? "true" : "false", ai,
                    tflops, tflops * 1e3 / ai, 1.0 + i);
    }
    rb_sbuf_add(&b, "]}]}");
    char *text = rb_sbuf_take(&b), err[300];
    json_value *doc = text ? json_parse(text, strlen(text), err, sizeof err) : NULL;
    if (!doc)
        printf("    %s\n", text ? err : "out of memory");
    free(text);
    return doc;
}

/* Labels that cannot be placed are left out, never drawn over each other: 60 variants at one
 * spot get labels, numbers and a key as far as places go, their tooltips past that; 3000 spread
 * ones get no labels at all (tooltips name them). */
static void test_crowds_leave_labels_out(void)
{
    json_value *doc = grid_doc(60, 1);
    rb_plot_data d;
    char err[300];
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    if (!doc)
        return;
    RB_CHECK(rb_plot_find_point(&d, "grid", "variant_1")->informational == 1);
    char *svg = rb_plot_chart_svg(&d, RB_CHART_ROOFLINE);
    RB_CHECK(svg && chart_problems(svg, "60 at one spot") == 0);
    RB_CHECK(svg && strstr(svg, "Points whose label did not fit, numbered above:"));
    int labelled = 0, keyed = 0;
    char name[40];
    for (int i = 0; svg && i < 60; i++) {
        snprintf(name, sizeof name, ">%svariant_%d<", i ? "" : "grid: ", i);
        labelled += strstr(svg, name) != NULL;
        snprintf(name, sizeof name, " grid / variant_%d: ", i);
        keyed += strstr(svg, name) != NULL;
    }
    printf("    60 at one spot: %d labelled, %d numbered, %d by their tooltip alone\n", labelled,
           keyed, 60 - labelled - keyed);
    /* what finds no place clear of every text, point and line has its tooltip alone: never a
     * key entry without its number on the chart */
    RB_CHECK(labelled > 0 && keyed > 0 && labelled + keyed <= 60 && labelled + keyed >= 20);
    RB_CHECK(svg && strstr(svg, "(informational)</title>"));
    free(svg);
    rb_plot_free(&d);
    json_free(doc);

    doc = grid_doc(3000, 0);
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    if (!doc)
        return;
    svg = plot_all_charts(&d);
    /* 2250 on the roofline, 750 in the zoom panel of the compute-bound chart */
    RB_CHECK(svg && strstr(svg, ">2250 points: labels left out (hover a point for its name)<") &&
             strstr(svg, ">750 points: labels left out (hover a point for its name)<"));
    RB_CHECK(svg && !strstr(svg, ">variant_2<"));
    free(svg);
    for (int c = RB_CHART_ROOFLINE; c <= RB_CHART_COMPUTE; c++) {
        svg = rb_plot_chart_svg(&d, (rb_plot_chart)c);
        RB_CHECK(svg && chart_problems(svg, "3000 spread") == 0);
        free(svg);
    }
    rb_plot_free(&d);
    json_free(doc);
}

static const rbtest_case plot_layout_cases[] = {
    {"shapes overlap by separating axes", test_quads},
    {"text boxes: width, anchor, rotation", test_text_metrics},
    {"strict pass first, leaders, bounds", test_place_strict_then_loose},
    {"crowding counts the points near a place", test_crowding},
    {"margin labels stacked apart, in order", test_stack},
    {"numbers: three significant digits, no exponent", test_number_format},
    {"the overlap check catches a planted overlap", test_checker_sees_a_planted_overlap},
    {"committed runs: no text overlaps another or a point", test_committed_runs_have_no_overlap},
    {"at most 12 colours a panel", test_colours_per_panel},
    {"families told apart by shape as well as colour", test_families_by_shape},
    {"compute-bound region zoomed per family", test_zoom_panels},
    {"speedup chart: under 1200 px, one number format", test_speedup_chart_compact},
    {"memory-bound rows named by their DRAM roof", test_binding_roof},
    {"skipped rows never drawn or printed as zero", test_skipped_rows_are_not_zero},
    {"report counts and colours verdicts, informational apart", test_report_verdicts},
    {"crowded labels left out, numbered or all", test_crowds_leave_labels_out},
    {"rate, roof_rate, inconsistent, host_bound_why, roof_note", test_results_fields},
};

RB_SUITE(plot_layout_suite, "plot_layout", plot_layout_cases);
