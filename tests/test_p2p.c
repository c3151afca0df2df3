/* SPDX-License-Identifier: MIT */
/* Tests of the P2P matrix without a GPU (harness/report/p2p_table.h): synthetic matrices built
 * from the lines the measuring child sends, judged against roofs, and their tables. A planted
 * weak link is flagged and nothing else; a clean matrix flags nothing; missing and malformed
 * cells are handled. */
#include "../harness/model/json.h"
#include "../harness/model/node.h"
#include "../harness/report/p2p_table.h"
#include "../harness/report/plot.h"
#include "../harness/model/util.h"
#include "rbtest.h"
#include "xml_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const rbtest_suite p2p_suite;

static json_value *parse(const char *text)
{
    char err[200];
    json_value *v = json_parse(text, strlen(text), err, sizeof err);
    RB_CHECK(v != NULL);
    return v;
}

/* The child's first line for n GPUs. */
static void add_gpus(json_value *m, int n)
{
    char text[2000] = "{\"type\":\"p2p_gpus\",\"method\":{\"oneway\":\"o\",\"bidir\":\"b\","
                      "\"latency\":\"l\"},\"gpus\":[";
    for (int i = 0; i < n; i++) {
        size_t len = strlen(text);
        rb_fmt(
            text + len, sizeof text - len,
            "%s{\"index\":%d,\"name\":\"NVIDIA H100 80GB HBM3\",\"pci_bus_id\":\"0000:%02x:00.0\"}",
            i ? "," : "", i, 0x19 + i);
    }
    size_t len = strlen(text);
    rb_fmt(text + len, sizeof text - len, "]}");
    json_value *line = parse(text);
    char err[200] = "";
    RB_CHECK(rb_p2p_add_line(m, line, err, sizeof err) == 0);
    json_free(line);
}

static int add_cell(json_value *m, int src, int dst, int peer, const char *kind, double value,
                    double noise)
{
    char text[400], err[200] = "", v[32], z[32];
    json_format_number(value, v, sizeof v); /* NaN: null, as the writer makes it */
    json_format_number(noise, z, sizeof z);
    rb_fmt(text, sizeof text,
           "{\"type\":\"p2p_cell\",\"src\":%d,\"dst\":%d,\"peer_access\":%s,\"perf_rank\":0,"
           "\"kind\":\"%s\",\"value\":%s,\"noise\":%s,\"samples\":20}",
           src, dst, peer ? "true" : "false", kind, v, z);
    json_value *line = parse(text);
    int rc = rb_p2p_add_line(m, line, err, sizeof err);
    json_free(line);
    return rc;
}

/* A matrix of n GPUs as a healthy NV18 node reads: one way ~389 GB/s, both ways ~770, copy
 * latency ~2.4 us, load latency ~1.1 us, each with a little spread between pairs and 1-3% noise
 * within a cell. */
static json_value *clean_matrix(int n)
{
    json_value *m = rb_p2p_new();
    add_gpus(m, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j)
                continue;
            double wiggle = 0.003 * ((i * 7 + j * 3) % 5); /* up to 1.2% between pairs */
            RB_CHECK(add_cell(m, i, j, 1, "oneway", 389.0 * (1 - wiggle), 0.01) == 0);
            RB_CHECK(add_cell(m, i, j, 1, "latency", 2.4 * (1 + 2 * wiggle), 0.03) == 0);
            RB_CHECK(add_cell(m, i, j, 1, "load_latency", 1.1 * (1 + wiggle), 0.02) == 0);
            if (i < j)
                RB_CHECK(add_cell(m, i, j, 1, "bidir", 770.0 * (1 - wiggle), 0.01) == 0);
        }
    return m;
}

static json_value *roofs(const char *text)
{
    return parse(text);
}

static const json_value *cell(const json_value *m, int src, int dst)
{
    const json_value *cells = json_get(m, "cells");
    for (uint32_t i = 0; i < cells->count; i++)
        if (json_number_at(cells->items[i], "src") == src &&
            json_number_at(cells->items[i], "dst") == dst)
            return cells->items[i];
    return NULL;
}

static char *text_of(const json_value *m, int markdown)
{
    rb_sbuf b = {0};
    rb_p2p_text(&b, m, markdown);
    return rb_sbuf_take(&b);
}

/* Every ordered pair is a cell, the diagonal is not; both ways fills both cells. */
static void test_cells_of_every_ordered_pair(void)
{
    json_value *m = clean_matrix(4);
    RB_CHECK(json_get(m, "cells")->count == 12);
    RB_CHECK(cell(m, 2, 2) == NULL);
    RB_CHECK(json_number_at(json_get(cell(m, 3, 1), "bidir"), "gbps") ==
             json_number_at(json_get(cell(m, 1, 3), "bidir"), "gbps"));
    RB_CHECK(json_true_at(cell(m, 0, 3), "peer_access"));
    json_free(m);
}

/* A healthy node: nothing is weak, and each cell sits on its roof beside the datasheet. */
static void test_clean_matrix_flags_nothing(void)
{
    json_value *m = clean_matrix(4);
    json_value *ceil = roofs("{\"nvlink_gbps\":389.5,\"nvlink_bidir_gbps\":771}");
    json_value *peak = roofs("{\"nvlink_gbps\":450,\"nvlink_bidir_gbps\":900}");
    RB_CHECK(rb_p2p_judge(m, ceil, peak) == 0);
    RB_CHECK(rb_p2p_weak_count(m) == 0);
    const json_value *o = json_get(cell(m, 0, 1), "oneway");
    RB_CHECK(!strcmp(json_string_at(o, "roof", ""), "nvlink_gbps"));
    double gbps = json_number_at(o, "gbps");
    RB_CHECK(gbps > 380 && fabs(json_number_at(o, "of_peak") - gbps / 450) < 1e-12);
    RB_CHECK(fabs(json_number_at(o, "of_ceiling") - gbps / 389.5) < 1e-12);
    RB_CHECK(
        !strcmp(json_string_at(json_get(cell(m, 0, 1), "bidir"), "roof", ""), "nvlink_bidir_gbps"));
    RB_CHECK(json_number_at(json_get(json_get(m, "roofs"), "nvlink_bidir_gbps"), "peak") == 900);
    char *t = text_of(m, 0);
    RB_CHECK(t && !strstr(t, "<- weak") && strstr(t, "0 weak link measurements"));
    RB_CHECK(t && strstr(t, "on nvlink_gbps: ceiling 389.5 GB/s, datasheet 450.0 GB/s"));
    free(t);
    json_free(m);
    json_free(ceil);
    json_free(peak);
}

/* One link down of 18 (5.6% less) on 1 -> 2 one way, a slow 3 -> 0 copy latency and a slow
 * 2 -> 3 load latency: flagged, and only those. */
static void test_planted_weak_link_is_flagged(void)
{
    json_value *m = clean_matrix(4);
    RB_CHECK(add_cell(m, 1, 2, 1, "oneway", 389.0 * 17 / 18, 0.01) == 0);
    RB_CHECK(add_cell(m, 3, 0, 1, "latency", 2.4 * 1.4, 0.03) == 0);
    RB_CHECK(add_cell(m, 2, 3, 1, "load_latency", 1.1 * 1.3, 0.02) == 0);
    RB_CHECK(rb_p2p_judge(m, NULL, NULL) == 0);
    RB_CHECK(rb_p2p_weak_count(m) == 3);
    RB_CHECK(json_true_at(json_get(cell(m, 2, 3), "load_latency"), "weak"));
    RB_CHECK(!json_true_at(json_get(cell(m, 3, 0), "load_latency"), "weak"));
    RB_CHECK(json_true_at(json_get(cell(m, 1, 2), "oneway"), "weak"));
    RB_CHECK(!json_true_at(json_get(cell(m, 2, 1), "oneway"), "weak"));
    RB_CHECK(json_true_at(json_get(cell(m, 3, 0), "latency"), "weak"));
    RB_CHECK(json_number_at(json_get(cell(m, 1, 2), "oneway"), "threshold") == 0.02);
    /* no roofs known: no efficiency, said as not known */
    RB_CHECK(isnan(json_number_at(json_get(cell(m, 1, 2), "oneway"), "of_ceiling")));
    char *t = text_of(m, 0);
    if (getenv("RB_SHOW"))
        printf("%s", t);
    RB_CHECK(
        t &&
        strstr(t,
               "  1 -> 2  one way         367.4 GB/s  <- weak: 5.3% below the best pair's 387.8"));
    RB_CHECK(t && strstr(t, "3 -> 0  copy latency     3.36 us    <- weak: 39.2% above"));
    RB_CHECK(t && strstr(t, "2 -> 3  load latency     1.43 us    <- weak: 29.6% above"));
    RB_CHECK(t && strstr(t, "367.4!"));
    RB_CHECK(t && strstr(t, "ceiling (roofbench ceilings) not known"));
    free(t);
    char *md = text_of(m, 1);
    RB_CHECK(md && strstr(md, "| src \\\\ dst | 0 | 1 | 2 | 3 |") && strstr(md, "- 1 -> 2"));
    free(md);
    rb_sbuf h = {0};
    rb_p2p_html(&h, m);
    char *html = rb_sbuf_take(&h);
    RB_CHECK(html && strstr(html, "<td class=\"num v-regressed\"") &&
             strstr(html, "3 weak link measurements"));
    /* well-formed: the section wrapped in one element reads as XML */
    rb_sbuf w = {0};
    rb_sbuf_add(&w, "<div>%s</div>", html ? html : "");
    char *wrapped = rb_sbuf_take(&w);
    const char *problem = wrapped ? rb_test_xml_problem(wrapped) : "out of memory";
    if (problem)
        printf("    %s\n", problem);
    RB_CHECK(problem == NULL);
    free(wrapped);
    free(html);
    json_free(m);
}

/* Noisy cells widen the threshold, up to the 5% cap (one lost link of 18 is still caught);
 * 4% below the best with 3% noise is not weak, 6% below is. */
static void test_threshold_follows_the_noise(void)
{
    json_value *m = clean_matrix(3);
    RB_CHECK(add_cell(m, 0, 1, 1, "oneway", 389.0 * 0.96, 0.03) == 0);
    RB_CHECK(add_cell(m, 0, 2, 1, "oneway", 389.0 * 0.94, 0.03) == 0);
    RB_CHECK(rb_p2p_judge(m, NULL, NULL) == 0);
    const json_value *a = json_get(cell(m, 0, 1), "oneway"), *b = json_get(cell(m, 0, 2), "oneway");
    RB_CHECK(json_number_at(a, "threshold") == RB_P2P_BW_CAP && !json_true_at(a, "weak"));
    RB_CHECK(json_true_at(b, "weak"));
    RB_CHECK(rb_p2p_weak_count(m) == 1);
    json_free(m);
}

/* A pair without peer access is on the PCIe roofs, marked '*', and (far slower) weak; a
 * both-ways weak link is said once, not once per direction. */
static void test_no_peer_access(void)
{
    json_value *m = clean_matrix(3);
    RB_CHECK(add_cell(m, 0, 2, 0, "oneway", 21.0, 0.01) == 0);
    RB_CHECK(add_cell(m, 0, 2, 0, "bidir", 30.0, 0.01) == 0);
    json_value *ceil = roofs("{\"pcie_d2h_gbps\":52.4,\"pcie_duplex_gbps\":100}");
    RB_CHECK(rb_p2p_judge(m, ceil, NULL) == 0);
    const json_value *o = json_get(cell(m, 0, 2), "oneway");
    RB_CHECK(!strcmp(json_string_at(o, "roof", ""), "pcie_d2h_gbps"));
    RB_CHECK(fabs(json_number_at(o, "of_ceiling") - 21.0 / 52.4) < 1e-12);
    RB_CHECK(
        !strcmp(json_string_at(json_get(cell(m, 2, 0), "bidir"), "roof", ""), "pcie_duplex_gbps"));
    RB_CHECK(rb_p2p_weak_count(m) == 2); /* one way 0 -> 2, both ways 0 <-> 2 once */
    char *t = text_of(m, 0);
    RB_CHECK(t && strstr(t, "21.0*!") && strstr(t, "0 <-> 2  both ways"));
    RB_CHECK(t && !strstr(t, "2 <-> 0"));
    free(t);
    json_free(m);
    json_free(ceil);
}

/* A cell the child never reported is '-', neither best nor weak; one GPU has no pairs. */
static void test_missing_cells_and_one_gpu(void)
{
    json_value *m = rb_p2p_new();
    add_gpus(m, 3);
    RB_CHECK(add_cell(m, 0, 1, 1, "oneway", 389.0, 0.01) == 0);
    RB_CHECK(add_cell(m, 1, 0, 1, "oneway", 300.0, 0.01) == 0);
    RB_CHECK(rb_p2p_judge(m, NULL, NULL) == 0);
    RB_CHECK(rb_p2p_weak_count(m) == 1);
    RB_CHECK(json_get(cell(m, 2, 1), "oneway") == NULL);
    char *t = text_of(m, 0);
    RB_CHECK(t && strstr(t, "        0         -     389.0         -"));
    free(t);
    json_free(m);
    json_value *one = rb_p2p_new();
    add_gpus(one, 1);
    RB_CHECK(json_get(one, "cells")->count == 0);
    RB_CHECK(rb_p2p_judge(one, NULL, NULL) == 0 && rb_p2p_weak_count(one) == 0);
    t = text_of(one, 0);
    RB_CHECK(t && strstr(t, "one GPU: no pairs to measure"));
    free(t);
    json_free(one);
}

/* Malformed lines are refused with a reason: a pair out of range, the diagonal, an unknown
 * kind, a NaN or negative value; a line of another type is not the matrix's. */
static void test_malformed_lines(void)
{
    json_value *m = rb_p2p_new();
    add_gpus(m, 2);
    RB_CHECK(add_cell(m, 0, 2, 1, "oneway", 1.0, 0.0) == -1);
    RB_CHECK(add_cell(m, 1, 1, 1, "oneway", 1.0, 0.0) == -1);
    RB_CHECK(add_cell(m, -1, 0, 1, "oneway", 1.0, 0.0) == -1);
    RB_CHECK(add_cell(m, 0, 1, 1, "sideways", 1.0, 0.0) == -1);
    RB_CHECK(add_cell(m, 0, 1, 1, "oneway", NAN, 0.0) == -1);
    RB_CHECK(add_cell(m, 0, 1, 1, "oneway", -5.0, 0.0) == -1);
    RB_CHECK(add_cell(m, 0, 1, 1, "latency", 2.0, NAN) == -1);
    json_value *other = parse("{\"type\":\"error\",\"reason\":\"x\"}");
    char err[200] = "";
    RB_CHECK(rb_p2p_add_line(m, other, err, sizeof err) == 1);
    json_free(other);
    json_value *no_gpus = parse("{\"type\":\"p2p_gpus\"}");
    RB_CHECK(rb_p2p_add_line(m, no_gpus, err, sizeof err) == -1 && strstr(err, "gpus"));
    json_free(no_gpus);
    RB_CHECK(rb_p2p_judge(m, NULL, NULL) == 0 && rb_p2p_weak_count(m) == 0);
    json_free(m);
}

/* A results document that holds a p2p_matrix shows it in plot's HTML report, weak cell red. */
static void test_report_shows_the_matrix(void)
{
    json_value *m = clean_matrix(2);
    RB_CHECK(add_cell(m, 1, 0, 1, "oneway", 300.0, 0.01) == 0);
    RB_CHECK(rb_p2p_judge(m, NULL, NULL) == 0);
    json_value *doc = parse("{\"schema\":1,\"pairs\":[]}");
    RB_CHECK(json_object_set(doc, "p2p_matrix", m) == 0);
    rb_plot_data d;
    char err[200] = "";
    RB_CHECK(rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    json_free(doc); /* the data keeps its own copy */
    char *html = rb_plot_html(&d);
    RB_CHECK(html && strstr(html, "<h2>P2P matrix</h2>") && strstr(html, "v-regressed") &&
             strstr(html, "300.0!"));
    free(html);
    rb_plot_free(&d);
    json_value *plain = parse("{\"schema\":1,\"pairs\":[]}");
    RB_CHECK(rb_plot_load(plain, NULL, &d, err, sizeof err) == 0);
    html = rb_plot_html(&d);
    RB_CHECK(html && !strstr(html, "P2P matrix"));
    free(html);
    rb_plot_free(&d);
    json_free(plain);
}

/* A node document that holds a matrix shows it in its terminal report and its Markdown. */
static void test_node_shows_the_matrix(void)
{
    json_value *m = clean_matrix(2);
    RB_CHECK(add_cell(m, 0, 1, 1, "oneway", 300.0, 0.01) == 0);
    RB_CHECK(rb_p2p_judge(m, NULL, NULL) == 0);
    json_value *node = parse("{\"schema\":1,\"kind\":\"node\",\"hardware_key\":\"k-x2\","
                             "\"gpus\":[],\"outliers\":[]}");
    RB_CHECK(rb_node_set_p2p(node, m) == 0);
    RB_CHECK(rb_node_set_p2p(node, NULL) == -1);
    char *md = rb_node_markdown(node);
    RB_CHECK(md && strstr(md, "## P2P matrix: 2 GPUs") && strstr(md, "| 0 | - | 300.0! |"));
    free(md);
    FILE *f = tmpfile();
    RB_CHECK(f != NULL);
    if (f) {
        char text[8192] = "";
        rb_node_print(f, node, 10);
        rewind(f);
        size_t got = fread(text, 1, sizeof text - 1, f);
        text[got] = '\0';
        fclose(f);
        RB_CHECK(strstr(text, "one way, GB/s") && strstr(text, "<- weak"));
    }
    json_free(node);
}

static const rbtest_case p2p_cases[] = {
    {"a cell for every ordered pair", test_cells_of_every_ordered_pair},
    {"a clean matrix flags nothing", test_clean_matrix_flags_nothing},
    {"a planted weak link is flagged, only it", test_planted_weak_link_is_flagged},
    {"the threshold follows the noise up to 5%", test_threshold_follows_the_noise},
    {"no peer access: PCIe roofs, marked", test_no_peer_access},
    {"missing cells and one GPU", test_missing_cells_and_one_gpu},
    {"malformed lines are refused", test_malformed_lines},
    {"the HTML report shows the matrix", test_report_shows_the_matrix},
    {"a node document shows the matrix", test_node_shows_the_matrix},
};

RB_SUITE(p2p_suite, "p2p", p2p_cases);
