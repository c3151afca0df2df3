/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 (no GPU): energy per operation (harness/model/energy.c) on synthetic counter readings,
 * a counter that does not advance among them (null, never 0 J); its fields in the results, the
 * table's lines and compare's energy change; and cycle space (time x mean SM clock) in compare
 * and history, which decides the throttled cause (harness/model/runcmp.c). Then NVML's counter
 * read on its edges and the sanity bound on a row's mean power, on synthetic counter traces: a
 * counter that steps every U with the energy drawn since its last step, in whole millijoules,
 * as an H200's does. Each check plants the defect it guards against: two readings at arbitrary
 * times around a 101 ms loop (the reading before the edges, which put a row of the H200's clean
 * run above its 700 W limit), edges dated too loosely, a counter that went back or never moved,
 * a counter in joules where NVML documents millijoules, a probe polled too slowly to see the
 * update period.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/model/energy.h"
#include "../harness/model/history.h"
#include "../harness/report/plot.h"
#include "../harness/model/report.h"
#include "../harness/model/result.h"
#include "../harness/model/runcmp.h"
#include "rbtest.h"
#include "xml_check.h"

/* ---- the arithmetic ---- */

static void test_arithmetic_on_synthetic_readings(void)
{
    rb_energy e;
    rb_energy_init(&e);
    /* 61 J over 100 ms (610 W) for 100 launches: 0.61 J a launch */
    rb_energy_add_window(&e, 1, 5000000ull, 5061000ull, 0.1, 100);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_OK);
    RB_CHECK_NEAR(e.joules, 61.0, 1e-9);
    RB_CHECK_NEAR(rb_energy_j_per_launch(&e), 0.61, 1e-12);
    RB_CHECK_NEAR(rb_energy_mean_w(&e), 610.0, 1e-9);
    /* 1 TFLOP and 2 GB a launch: 1639 GFLOP/J, 3.28 GB/J */
    RB_CHECK_NEAR(rb_energy_giga_per_j(&e, 1e12), 1e12 / 0.61 * 1e-9, 1e-6);
    RB_CHECK_NEAR(rb_energy_giga_per_j(&e, 2e9), 2e9 / 0.61 * 1e-9, 1e-9);
    RB_CHECK(isnan(rb_energy_giga_per_j(&e, 0))); /* no such work: no rate */
    /* sustained windows add up: two of 0.5 s, 300 J and 310 J, 1000 launches each */
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 1000, 301000, 0.5, 1000);
    rb_energy_add_window(&e, 1, 900000, 1210000, 0.5, 1000);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_OK && e.windows == 2);
    RB_CHECK_NEAR(rb_energy_j_per_launch(&e), 610.0 / 2000, 1e-12);
    RB_CHECK_NEAR(rb_energy_mean_w(&e), 610.0, 1e-9);
    /* the counter's resolution is 1 mJ: one count is 200% uncertain, no figure (it was one) */
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 7, 8, 0.2, 1);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_UNCERTAIN && isnan(rb_energy_mean_w(&e)));
    /* 2 mJ of rounding in 41 mJ (4.9%) is still one */
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 7, 48, 0.2, 1);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_OK && e.joules == 41e-3);
    RB_CHECK_NEAR(rb_energy_uncertainty(&e), 2.0 / 41, 1e-12);
}

static void test_counter_that_does_not_advance_is_null(void)
{
    rb_energy e;
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 5000000ull, 5000000ull, 0.25, 100);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_STALLED);
    RB_CHECK(isnan(rb_energy_j_per_launch(&e)) && isnan(rb_energy_mean_w(&e)));
    RB_CHECK(e.joules == 0 && e.launches == 0); /* nothing kept to be mistaken for 0 J */
    json_value *o = json_new_object();
    RB_CHECK(rb_energy_to_json(&e, o) == 0);
    const json_value *x = json_get(o, "energy");
    RB_CHECK(x && x->type == JSON_NULL); /* null, not {"joules": 0} */
    RB_CHECK(!strcmp(json_string_at(o, "energy_why", ""), "stalled"));
    rb_energy back;
    char err[200];
    RB_CHECK(rb_energy_from_json(o, &back, err, sizeof err) == 0 &&
             back.state == RB_ENERGY_STALLED);
    json_free(o);
    /* one stalled window of two makes the row stalled, whatever the other measured */
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 1000, 301000, 0.5, 1000);
    rb_energy_add_window(&e, 1, 301000, 301000, 0.5, 1000);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_STALLED);
    /* a counter that went back (a driver reloaded in between) */
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 9000, 10, 0.5, 10);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_STALLED);
}

static void test_short_unavailable_and_reasons(void)
{
    rb_energy e;
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 0, 30000, 0.05, 50); /* 50 ms: under the 100 ms window */
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_SHORT);
    /* a short window whose counter did not move is short, not stalled: U may exceed it */
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 10, 10, 0.02, 20);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_SHORT);
    /* exactly the minimum counts */
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 0, 40000, RB_ENERGY_MIN_WINDOW_S, 100);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_OK);
    /* a reading that failed */
    rb_energy_init(&e);
    rb_energy_add_window(&e, 1, 0, 40000, 0.5, 100);
    rb_energy_add_window(&e, 0, 0, 0, 0.5, 100);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_UNAVAILABLE);
    /* every reason has a word that reads back and a sentence */
    for (int s = RB_ENERGY_SHORT; s < RB_ENERGY_STATE_COUNT; s++) {
        rb_energy_state back;
        RB_CHECK(rb_energy_why((rb_energy_state)s)[0] && rb_energy_why_text((rb_energy_state)s)[0]);
        RB_CHECK(rb_energy_why_from_name(rb_energy_why((rb_energy_state)s), &back) == 0 &&
                 back == (rb_energy_state)s);
    }
    rb_energy_state none;
    RB_CHECK(rb_energy_why_from_name("ok", &none) == -1);
}

/* ---- in the results ---- */

static void timed_pair(rb_pair_result *p, const char *name, double flops, double bytes)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->size = p->full_size = 1 << 20;
    p->rows = 1;
    p->flops = flops;
    p->bytes = bytes;
    p->idle_gpu_util = p->idle_mem_util = NAN;
    rb_variant_result *v = &p->v[p->n_variants++];
    rb_variant_result_init(v, "optimized", RB_ROLE_OPTIMIZED,
                           flops > 0 ? RB_UNIT_FP32 : RB_UNIT_NONE, 1e-6);
    v->valid = v->timed = 1;
    v->time_ms.median = v->time_ms.min = v->time_ms.max = v->time_ms.p10 = v->time_ms.p90 = 1.0;
    v->time_ms.noise = 0.001;
    v->time_ms.n = 100;
}

static void test_variant_json_round_trip(void)
{
    rb_pair_result p;
    timed_pair(&p, "gemm", 1e12, 2e9);
    rb_variant_result *v = &p.v[0];
    rb_energy_add_window(&v->energy, 1, 5000000ull, 5061000ull, 0.1, 100);
    rb_energy_finish(&v->energy);
    json_value *o = rb_variant_to_json(v);
    const json_value *x = json_get(o, "energy");
    RB_CHECK(x && x->type == JSON_OBJECT);
    RB_CHECK_NEAR(json_number_at(x, "joules_per_launch"), 0.61, 1e-12);
    RB_CHECK_NEAR(json_number_at(x, "mean_power_w"), 610.0, 1e-9);
    RB_CHECK(json_number_at(x, "windows") == 1 && !json_get(o, "energy_why"));
    rb_variant_result back;
    char err[200];
    RB_CHECK(rb_variant_from_json(o, &back, err, sizeof err) == 0);
    RB_CHECK(back.energy.state == RB_ENERGY_OK && back.energy.joules == 61.0 &&
             back.energy.launches == 100 && back.energy.window_s == 0.1);
    json_free(o);
    /* not timed: no energy field at all */
    rb_variant_result_init(&back, "baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 0);
    o = rb_variant_to_json(&back);
    RB_CHECK(o && !json_get(o, "energy") && !json_get(o, "energy_why"));
    json_free(o);
    /* malformed records are refused with a reason */
    static const char *const bad[] = {
        "{\"energy\": {\"joules\": 0, \"window_s\": 1, \"launches\": 1}}",
        "{\"energy\": {\"joules\": 1, \"window_s\": -1, \"launches\": 1}}",
        "{\"energy\": {\"joules\": 1, \"window_s\": 1}}",
        "{\"energy\": 3}",
        "{\"energy\": null, \"energy_why\": \"because\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_value *d = json_parse(bad[i], strlen(bad[i]), err, sizeof err);
        rb_energy e;
        err[0] = '\0';
        RB_CHECK(d && rb_energy_from_json(d, &e, err, sizeof err) == -1 && err[0]);
        json_free(d);
    }
}

static void test_results_rates_table_and_lines(void)
{
    rb_pair_result p[3];
    timed_pair(&p[0], "gemm", 1e12, 2e9);
    rb_energy_add_window(&p[0].v[0].energy, 1, 5000000ull, 5061000ull, 0.1, 100);
    rb_energy_finish(&p[0].v[0].energy);
    timed_pair(&p[1], "copy", 0, 2e9); /* a memory pair: GB/J only */
    rb_energy_add_window(&p[1].v[0].energy, 1, 0, 50000, 0.1, 100);
    rb_energy_finish(&p[1].v[0].energy);
    timed_pair(&p[2], "tiny", 0, 1e6);
    rb_energy_add_window(&p[2].v[0].energy, 1, 0, 5, 0.01, 10);
    rb_energy_finish(&p[2].v[0].energy);
    rb_roofs ceilings, peaks;
    rb_roofs_unknown(&ceilings);
    rb_roofs_unknown(&peaks);
    rb_report_derive(p, 3, &ceilings, &peaks);
    json_value *doc = rb_report_json(p, 3, &ceilings, &peaks, json_new_object());
    const json_value *pairs = json_get(doc, "pairs");
    const json_value *e0 = json_get(json_get(pairs->items[0], "variants")->items[0], "energy");
    const json_value *e1 = json_get(json_get(pairs->items[1], "variants")->items[0], "energy");
    RB_CHECK_NEAR(json_number_at(e0, "gflop_per_j"), 1e12 / 0.61 * 1e-9, 1e-6);
    RB_CHECK_NEAR(json_number_at(e0, "gb_per_j"), 2e9 / 0.61 * 1e-9, 1e-9);
    RB_CHECK(!json_get(e1, "gflop_per_j") && json_number_at(e1, "gb_per_j") == 4.0);
    json_free(doc);
    /* the table's energy lines, and the reason a row has none said once */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rb_report_table(f, p, 3, 0);
    rb_report_energy_and_contention(f, NULL, p, 3);
    fclose(f);
    /* a row on a compute roof says GFLOP/J; its bytes per joule are in the results */
    RB_CHECK(text && strstr(text, "energy: gemm/optimized: 0.61 J/launch, 610 W mean, 1639 "
                                  "GFLOP/J\n"));
    RB_CHECK(text && strstr(text, "energy: copy/optimized: 0.5 J/launch, 500 W mean, 4 GB/J"));
    RB_CHECK(text && !strstr(text, "energy: tiny/"));
    RB_CHECK(text && strstr(text, "energy: 1 row not measured: its timed samples add up to less "
                                  "than 100 ms"));
    free(text);
    /* no NVML at all: one line, not one per row */
    for (int i = 0; i < 3; i++)
        rb_energy_none(&p[i].v[0].energy, RB_ENERGY_UNAVAILABLE);
    f = open_memstream(&text, &len);
    rb_report_energy_and_contention(f, NULL, p, 3);
    fclose(f);
    RB_CHECK(text && !strcmp(text, "energy: not measured (no NVML total-energy counter)\n"));
    free(text);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *at = hay ? strstr(hay, needle) : NULL; at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static void test_energy_roofline_chart(void)
{
    rb_pair_result p[3];
    timed_pair(&p[0], "gemm", 1e12, 2e9); /* 500 FLOP/byte at 1639 GFLOP/J */
    rb_energy_add_window(&p[0].v[0].energy, 1, 5000000ull, 5061000ull, 0.1, 100);
    rb_energy_finish(&p[0].v[0].energy);
    timed_pair(&p[1], "copy", 0, 2e9); /* 4 GB/J */
    rb_energy_add_window(&p[1].v[0].energy, 1, 0, 50000, 0.1, 100);
    rb_energy_finish(&p[1].v[0].energy);
    timed_pair(&p[2], "scale", 0, 2e9); /* no energy: in neither part */
    rb_roofs ceilings, peaks;
    rb_roofs_unknown(&ceilings);
    rb_roofs_unknown(&peaks);
    ceilings.value[RB_ROOF_FP32] = 60;
    ceilings.value[RB_ROOF_DRAM] = 4000;
    rb_report_derive(p, 3, &ceilings, &peaks);
    json_value *doc = rb_report_json(p, 3, &ceilings, &peaks, json_new_object());
    rb_plot_data d;
    char err[300];
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    json_free(doc);
    RB_CHECK(rb_plot_has_energy(&d));
    char *svg = rb_plot_energy_svg(&d);
    RB_CHECK(svg && rb_test_xml_problem(svg) == NULL);
    RB_CHECK(count_of(svg, "class=\"point\"") == 1 && count_of(svg, "class=\"bar\"") == 1);
    RB_CHECK(svg && strstr(svg, "gemm/optimized: 1639 GFLOP/J at 500 FLOP/byte") &&
             strstr(svg, "copy/optimized: 4.00 GB/J") && !strstr(svg, "scale/"));
    /* the bound of this run's best rows: 4 GB/J moved (0.25 nJ a byte), and the GEMM's 0.61 pJ
     * a FLOP less its bytes' 0.5 pJ a FLOP at 500 FLOP/byte: 0.11 pJ, 9091 GFLOP/J */
    RB_CHECK(svg && strstr(svg, "this run&#39;s best: 4.00 GB/J moved, 9091 GFLOP/J computed"));
    if (getenv("RB_TEST_SHOW_SVG"))
        fputs(svg, stdout);
    free(svg);
    char *html = rb_plot_html(&d);
    RB_CHECK(html && strstr(html, "<h2>Energy roofline</h2>"));
    free(html);
    rb_plot_free(&d);
    /* no energy anywhere: no chart, no heading */
    rb_energy_none(&p[0].v[0].energy, RB_ENERGY_UNAVAILABLE);
    rb_energy_none(&p[1].v[0].energy, RB_ENERGY_UNAVAILABLE);
    doc = rb_report_json(p, 3, &ceilings, &peaks, json_new_object());
    RB_CHECK(doc && rb_plot_load(doc, NULL, &d, err, sizeof err) == 0);
    json_free(doc);
    RB_CHECK(!rb_plot_has_energy(&d));
    html = rb_plot_html(&d);
    RB_CHECK(html && !strstr(html, "Energy roofline"));
    free(html);
    rb_plot_free(&d);
}

/* ---- compare: energy and cycle space ---- */

/* A results document of one pair "p", one variant "v": its median (95% interval +-0.2%), its
 * mean SM clock over `samples` readings (0: no clocks), its joules per launch (0: none),
 * throttled or not. */
static json_value *one_row(double median, double mhz, int samples, double joules, int throttled)
{
    char clocks[200] = "", energy[200] = "", text[2000], err[200];
    if (samples > 0)
        snprintf(clocks, sizeof clocks,
                 ", \"clocks\": {\"sm_mhz_mean\": %.17g, \"sm_mhz_min\": %.17g, \"samples\": %d,"
                 " \"reasons\": [%s]}, \"throttled\": %s",
                 mhz, mhz, samples, throttled ? "\"hw_thermal\"" : "",
                 throttled ? "true" : "false");
    if (joules > 0)
        snprintf(energy, sizeof energy,
                 ", \"energy\": {\"joules\": %.17g, \"window_s\": 1, \"launches\": 100,"
                 " \"joules_per_launch\": %.17g, \"mean_power_w\": %.17g}",
                 100 * joules, joules, 100 * joules);
    snprintf(text, sizeof text,
             "{\"git\": \"g\", \"date\": \"d\", \"roofs\": {}, \"pairs\": [{\"name\": \"p\","
             " \"size\": 1024, \"kernels\": [], \"variants\": [{\"name\": \"v\", \"valid\": true,"
             " \"timed\": true, \"roof\": \"dram_gbps\", \"time_ms\": {\"median\": %.17g,"
             " \"median_ci_lo\": %.17g, \"median_ci_hi\": %.17g, \"noise\": 0.01,"
             " \"samples\": 50}%s%s}]}]}",
             median, median * 0.998, median * 1.002, clocks, energy);
    json_value *d = json_parse(text, strlen(text), err, sizeof err);
    if (!d)
        printf("    synthetic document: %s\n", err);
    return d;
}

/* The one row of old against new (both freed); c must be freed. */
static const rb_runcmp_row *compare_two(json_value *a, json_value *b, rb_runcmp *c)
{
    char err[200];
    int rc = a && b ? rb_runcmp_build(a, b, c, err, sizeof err) : -1;
    json_free(a);
    json_free(b);
    if (rc != 0 || c->n_rows != 1) {
        memset(c, 0, sizeof *c);
        return NULL;
    }
    return &c->rows[0];
}

static char *printed(const rb_runcmp *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rb_runcmp_print(f, c, "OLD.json", "NEW.json");
    fclose(f);
    return text;
}

static void test_compare_shows_energy_beside_time(void)
{
    rb_runcmp c;
    const rb_runcmp_row *r =
        compare_two(one_row(1.0, 1980, 100, 0.5, 0), one_row(1.1, 1980, 100, 0.6, 0), &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER);
    RB_CHECK(r && fabs(r->energy_ratio - 1.2) < 1e-12);
    char *text = printed(&c);
    RB_CHECK(text && strstr(text, "p/v") && strstr(text, "+10.0%") && strstr(text, "+20.0%"));
    RB_CHECK(text && strstr(text, " energy "));
    free(text);
    json_value *doc = rb_runcmp_json(&c, "OLD.json", "NEW.json", 0);
    const json_value *row = json_get(doc, "variants")->items[0];
    RB_CHECK(fabs(json_number_at(row, "energy_ratio") - 1.2) < 1e-12);
    json_free(doc);
    char *csv = rb_runcmp_csv(&c);
    RB_CHECK(csv && strstr(csv, "p,v,dram_gbps,1,1.1,10,10,20,"));
    if (csv && !strstr(csv, "p,v,dram_gbps,1,1.1,10,10,20,"))
        printf("%s", csv);
    free(csv);
    rb_runcmp_free(&c);
    /* one run without energy: no change shown, nothing made up */
    r = compare_two(one_row(1.0, 1980, 100, 0, 0), one_row(1.1, 1980, 100, 0.6, 0), &c);
    RB_CHECK(r && isnan(r->energy_ratio));
    rb_runcmp_free(&c);
}

static void test_cycle_space_decides_throttled(void)
{
    rb_runcmp c;
    /* the clock fell 1980 -> 1700 MHz and the time rose by as much: the same in cycles,
     * throttled, though no throttle reason was recorded */
    const rb_runcmp_row *r =
        compare_two(one_row(1.0, 1980, 100, 0, 0), one_row(1980.0 / 1700.0, 1700, 100, 0, 0), &c);
    RB_CHECK(r && r->change == RB_CHANGE_SLOWER && r->cause == RB_CAUSE_THROTTLED);
    RB_CHECK(r && fabs(r->cycles_ratio - 1.0) < 1e-12);
    RB_CHECK(r && strstr(r->evidence, "cycles x1.000, within the 2.0% floor"));
    char *text = printed(&c);
    RB_CHECK(text && strstr(text, " cycles ") && strstr(text, "+16.5%   +0.0%"));
    if (text && !strstr(text, "+16.5%   +0.0%"))
        printf("%s", text);
    free(text);
    rb_runcmp_free(&c);
    /* planted: the same slowdown at an unchanged clock moved in cycles too: not throttled */
    r = compare_two(one_row(1.0, 1980, 100, 0, 0), one_row(1980.0 / 1700.0, 1980, 100, 0, 0), &c);
    RB_CHECK(r && r->cause == RB_CAUSE_UNEXPLAINED && strstr(r->evidence, "cycles x1.165"));
    rb_runcmp_free(&c);
    /* throttled by its reasons, but the cycles moved beyond the floor: the cycles decide */
    r = compare_two(one_row(1.0, 1980, 100, 0, 0), one_row(1.3, 1900, 100, 0, 1), &c);
    RB_CHECK(r && r->cause == RB_CAUSE_UNEXPLAINED);
    rb_runcmp_free(&c);
    /* too few clock readings for a mean to say anything: the reasons decide, as before */
    r = compare_two(one_row(1.0, 1980, 5, 0, 0), one_row(1.3, 1900, 5, 0, 1), &c);
    RB_CHECK(r && isnan(r->cycles_ratio) && r->cause == RB_CAUSE_THROTTLED);
    RB_CHECK(r && strstr(r->evidence, "cycles unknown"));
    rb_runcmp_free(&c);
    /* a change within the floor in time but not in cycles is no change: same */
    r = compare_two(one_row(1.0, 1980, 100, 0, 0), one_row(1.0, 1700, 100, 0, 0), &c);
    RB_CHECK(r && r->change == RB_CHANGE_SAME && fabs(r->cycles_ratio - 1700.0 / 1980) < 1e-12);
    rb_runcmp_free(&c);
}

static void test_history_prints_cycles(void)
{
    char dir[] = "/tmp/rb_energy_history_XXXXXX";
    RB_CHECK(mkdtemp(dir) != NULL);
    /* three runs: a step at the second (the clock fell), confirmed by the third */
    const double median[3] = {1.0, 1980.0 / 1700.0, 1980.0 / 1700.0};
    const double mhz[3] = {1980, 1700, 1700};
    for (int i = 0; i < 3; i++) {
        json_value *d = one_row(median[i], mhz[i], 100, 0, 0);
        char date[40], path[200];
        snprintf(date, sizeof date, "2026-12-0%dT00:00:00Z", i + 1);
        json_set_string(d, "date", date);
        json_set_string(d, "hardware_key", "nvidia-h200");
        snprintf(path, sizeof path, "%s/2026120%dT000000Z-g%d.json", dir, i + 1, i);
        char err[300];
        RB_CHECK(json_write_file(path, d, err, sizeof err) == 0);
        json_free(d);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "%s history %s --expect none > %s/out.txt 2>&1", rbtest_binary, dir,
             dir);
    int rc = system(cmd);
    char out[300];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    char *text = rbtest_read_file(out);
    RB_CHECK(rc == 0 && text && strstr(text, "slower x1.165") && strstr(text, "(cycles x1.000)") &&
             strstr(text, "throttled"));
    if (text && !strstr(text, "(cycles x1.000)"))
        printf("%s", text);
    free(text);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    RB_CHECK(system(cmd) == 0);
}

/* ---- the counter's edges and the power bound ---- */

/* A synthetic counter: a step every period_s (one at phase_s), each adding the energy the board
 * drew since the step before, load_w from on_s to off_s and idle_w otherwise; mj_per_j 1000
 * (NVML's millijoules) or 1 (a counter in joules, a defect). */
typedef struct trace {
    double period_s, phase_s, idle_w, load_w, on_s, off_s, mj_per_j;
} trace;

/* Joules drawn from t = -10 s to t. */
static double drawn_j(const trace *c, double t)
{
    double on = fmax(0.0, fmin(t, c->off_s) - c->on_s);
    return c->idle_w * (t + 10.0) + (c->load_w - c->idle_w) * on;
}

static unsigned long long counter_mj(const trace *c, double t)
{
    double last_step = c->phase_s + floor((t - c->phase_s) / c->period_s) * c->period_s;
    return (unsigned long long)(drawn_j(c, last_step) * c->mj_per_j);
}

/* Readings every every_s from from_s to to_s, fed to w until its window is complete. */
static void feed(rb_energy_edges *w, const trace *c, double from_s, double to_s, double every_s)
{
    for (double t = from_s; t <= to_s + 1e-12; t += every_s)
        if (rb_energy_edges_feed(w, t, counter_mj(c, t)))
            return;
}

/* A row read the way the child reads it: every 1.05 ms between the ~1 ms timed samples from 0
 * to loop_s (every loop_every_s), then every 0.1 ms while untimed samples run after them. */
static void read_row(rb_energy *e, const trace *c, double loop_s, double loop_every_s,
                     double launches)
{
    rb_energy_edges w;
    rb_energy_edges_init(&w);
    feed(&w, c, 0.0, loop_s, loop_every_s);
    rb_energy_edges_end_after(&w, loop_s);
    feed(&w, c, loop_s, loop_s + 1.0, 1e-4);
    rb_energy_init(e);
    rb_energy_add_edges(e, 1, &w, loop_s, launches);
    rb_energy_finish(e);
}

/* The H200's clean run: reduction/optimized, 415 launches in a 101 ms loop at ~535 W, on a
 * counter that steps every 100 ms. Read at the loop's two ends the window caught two steps. */
static void test_coarse_counter_old_reading_above_limit(void)
{
    const trace c = {0.1, 0.0005, 84.0, 535.0, -0.3, 2.0, 1000.0};
    double loop_s = 0.101;
    unsigned long long before = counter_mj(&c, 0.0), after = counter_mj(&c, loop_s);
    double old_w = (double)(after - before) * 1e-3 / loop_s;
    RB_CHECK(old_w > 700.0); /* the defect: twice the board's draw, above its 700 W limit */
    rb_energy old;
    rb_energy_init(&old);
    rb_energy_add_window(&old, 1, before, after, loop_s, 415);
    rb_energy_finish(&old);
    rb_energy_bound(&old, 0.9 * 84.0, 700.0);
    RB_CHECK(old.state == RB_ENERGY_ABOVE_LIMIT && isnan(rb_energy_mean_w(&old)));
    RB_CHECK_NEAR(old.rejected_w, old_w, 1e-9);
    /* on the edges: the board's own 535 W, within the window's uncertainty */
    rb_energy e;
    read_row(&e, &c, loop_s, 1.05e-3, 415);
    rb_energy_bound(&e, 0.9 * 84.0, 700.0);
    RB_CHECK(e.state == RB_ENERGY_OK);
    double u = rb_energy_uncertainty(&e);
    RB_CHECK(u > 0 && u <= RB_ENERGY_MAX_UNCERTAINTY);
    RB_CHECK(fabs(rb_energy_mean_w(&e) / 535.0 - 1) <= fmax(u, 0.01));
    RB_CHECK(fabs(rb_energy_j_per_launch(&e) / (535.0 * loop_s / 415) - 1) <= fmax(u, 0.01));
    if (e.state == RB_ENERGY_OK)
        printf("    two readings: %.0f W; on the edges: %.1f W (+-%.1f%%) over %.3f s\n", old_w,
               rb_energy_mean_w(&e), 100 * u, e.window_s);
}

/* Every update period and phase: the edges give the load's power; the two ends may not. */
static void test_edges_hold_at_every_period_and_phase(void)
{
    const double periods[] = {0.001, 0.02, 0.05, 0.1, 0.25};
    int naive_wrong = 0;
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 10; k++) {
            const trace c = {periods[i], periods[i] * k / 10.0 + 1e-4, 84.0, 450.0, -0.3, 3.0,
                             1000.0};
            rb_energy e;
            read_row(&e, &c, 0.12, 1.05e-3, 100);
            RB_CHECK(e.state == RB_ENERGY_OK);
            RB_CHECK(fabs(rb_energy_mean_w(&e) / 450.0 - 1) <= 0.03);
            double naive =
                (double)(counter_mj(&c, 0.12) - counter_mj(&c, 0.0)) * 1e-3 / 0.12 / 450.0;
            naive_wrong += fabs(naive - 1) > 0.1;
        }
    RB_CHECK(naive_wrong >= 10); /* the coarse periods fool the two readings */
}

/* A counter whose steps are samples of the board's power rather than its integral: each 100 ms
 * step adds 450 or 850 W's worth in turn (a mean of 650). One step alone would read either; read
 * from a poller thread every 3.5 ms (one NVML read on an H200), the window holds at least two
 * steps and their spread is its uncertainty: far above 5%, so no figure. A steady counter read
 * the same way is a figure within 5%. */
static unsigned long long wobbly_mj(double t)
{
    long k = (long)floor(t / 0.1);
    double j = 0.0;
    for (long i = -100; i < k; i++)
        j += (i % 2 ? 850.0 : 450.0) * 0.1;
    return (unsigned long long)(j * 1000.0);
}

static void test_step_spread_is_uncertainty(void)
{
    rb_energy_edges w;
    rb_energy_edges_init(&w);
    for (double t = 0.0002; t <= 0.15; t += 3.5e-3)
        rb_energy_edges_feed(&w, t, wobbly_mj(t));
    rb_energy_edges_end_after(&w, 0.15);
    for (double t = 0.15; t <= 1.2 && !w.done; t += 3.5e-3)
        rb_energy_edges_feed(&w, t, wobbly_mj(t));
    RB_CHECK(w.done && w.steps >= RB_ENERGY_EDGE_MIN_STEPS);
    rb_energy e;
    rb_energy_init(&e);
    rb_energy_add_edges(&e, 1, &w, 0.15, 100);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_UNCERTAIN);
    /* the plant's control: the same reads of a steady 650 W counter */
    const trace c = {0.1, 0.0, 84.0, 650.0, -0.3, 3.0, 1000.0};
    rb_energy_edges_init(&w);
    for (double t = 0.0002; t <= 0.15; t += 3.5e-3)
        rb_energy_edges_feed(&w, t, counter_mj(&c, t));
    rb_energy_edges_end_after(&w, 0.15);
    for (double t = 0.15; t <= 1.2 && !w.done; t += 3.5e-3)
        rb_energy_edges_feed(&w, t, counter_mj(&c, t));
    rb_energy_init(&e);
    rb_energy_add_edges(&e, 1, &w, 0.15, 100);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_OK && rb_energy_uncertainty(&e) <= RB_ENERGY_MAX_UNCERTAINTY);
    RB_CHECK(fabs(rb_energy_mean_w(&e) / 650.0 - 1) <= 0.05);
}

/* A slow variant (one 50 ms launch a sample): edges between its samples are dated to 25 ms, so
 * none bounds the window; it starts and ends among the untimed samples, polled as they run. */
static void test_loose_edges_are_not_used(void)
{
    const trace c = {0.1, 0.03, 84.0, 600.0, -0.3, 3.0, 1000.0};
    rb_energy_edges w;
    rb_energy_edges_init(&w);
    feed(&w, &c, 0.0, 0.4, 0.05);
    RB_CHECK(w.edges >= 3 && !w.started); /* seen, but too loosely dated to use */
    rb_energy e;
    read_row(&e, &c, 0.4, 0.05, 8);
    RB_CHECK(e.state == RB_ENERGY_OK && rb_energy_uncertainty(&e) < 0.01);
    RB_CHECK(fabs(rb_energy_mean_w(&e) / 600.0 - 1) <= 0.01);
    /* the window ends no earlier than the last timed sample, and spans at least 100 ms */
    rb_energy_edges_init(&w);
    feed(&w, &c, 0.0, 0.5, 1e-4);
    RB_CHECK(w.started && !w.done); /* no end named yet: the timed samples are still running */
    rb_energy_edges_end_after(&w, 0.5);
    feed(&w, &c, 0.5, 1.0, 1e-4);
    RB_CHECK(w.done && w.end_s >= 0.5 && w.end_s - w.start_s >= RB_ENERGY_EDGE_MIN_WINDOW_S);
}

/* No window: a counter that never moved, one that went back, no readings at all. */
static void test_no_window_is_null_never_zero(void)
{
    const trace frozen = {1e9, 0.0, 84.0, 500.0, -0.3, 3.0, 1000.0};
    rb_energy e;
    read_row(&e, &frozen, 0.2, 1.05e-3, 100);
    RB_CHECK(e.state == RB_ENERGY_STALLED && e.joules == 0);
    rb_energy_edges w;
    rb_energy_edges_init(&w);
    const trace c = {0.01, 0.0, 84.0, 500.0, -0.3, 3.0, 1000.0};
    feed(&w, &c, 0.0, 0.05, 1e-3);
    rb_energy_edges_feed(&w, 0.051, 5); /* a driver reload: the counter starts again */
    rb_energy_edges_end_after(&w, 0.06);
    feed(&w, &c, 0.06, 0.5, 1e-3);
    RB_CHECK(w.went_back && !w.done);
    rb_energy_init(&e);
    rb_energy_add_edges(&e, 1, &w, 0.2, 100);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_STALLED);
    rb_energy_init(&e);
    rb_energy_add_edges(&e, 0, &w, 0.2, 100);
    rb_energy_finish(&e);
    RB_CHECK(e.state == RB_ENERGY_UNAVAILABLE);
    /* a loop under 100 ms is short, whatever its edges */
    read_row(&e, &c, 0.05, 1.05e-3, 100);
    RB_CHECK(e.state == RB_ENERGY_SHORT);
}

/* A counter in joules where NVML documents millijoules reads 0.5 W: below idle, no figure. */
static void test_power_bound_below_idle_and_in_results(void)
{
    const trace joules = {0.1, 0.02, 84.0, 535.0, -0.3, 3.0, 1.0};
    rb_energy e;
    read_row(&e, &joules, 0.2, 1.05e-3, 100);
    RB_CHECK(e.state == RB_ENERGY_OK); /* 107 counts in the window: 2% of rounding */
    rb_energy_bound(&e, 0.9 * 84.0, 700.0);
    RB_CHECK(e.state == RB_ENERGY_BELOW_IDLE && e.rejected_w < 1.0);
    /* ten times coarser still: 10.7 counts, 19% rounding: uncertain before any bound */
    const trace coarser = {0.1, 0.02, 84.0, 535.0, -0.3, 3.0, 0.1};
    read_row(&e, &coarser, 0.2, 1.05e-3, 100);
    RB_CHECK(e.state == RB_ENERGY_UNCERTAIN);
    /* no bound known (no NVML limit, no probe): nothing rejected */
    const trace c = {0.1, 0.02, 84.0, 535.0, -0.3, 3.0, 1000.0};
    read_row(&e, &c, 0.2, 1.05e-3, 100);
    rb_energy_bound(&e, NAN, NAN);
    RB_CHECK(e.state == RB_ENERGY_OK);
    /* in the results: null, the reason and the power it would have printed; read back */
    rb_pair_result p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "reduction");
    p.idle_gpu_util = p.idle_mem_util = NAN;
    rb_variant_result *v = &p.v[p.n_variants++];
    rb_variant_result_init(v, "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_NONE, 1e-6);
    v->valid = v->timed = 1;
    rb_energy_init(&v->energy);
    rb_energy_add_window(&v->energy, 1, 0, 108396, 0.101, 415);
    rb_energy_finish(&v->energy);
    rb_energy_bound(&v->energy, 75.0, 700.0);
    json_value *o = json_new_object();
    RB_CHECK(rb_energy_to_json(&v->energy, o) == 0);
    const json_value *x = json_get(o, "energy");
    RB_CHECK(x && x->type == JSON_NULL &&
             !strcmp(json_string_at(o, "energy_why", ""), "above_limit"));
    RB_CHECK_NEAR(json_number_at(o, "energy_rejected_w"), 108.396 / 0.101, 1e-9);
    rb_energy back;
    char err[200];
    RB_CHECK(rb_energy_from_json(o, &back, err, sizeof err) == 0 &&
             back.state == RB_ENERGY_ABOVE_LIMIT && back.rejected_w == v->energy.rejected_w);
    json_free(o);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rb_report_energy_and_contention(f, NULL, &p, 1);
    fclose(f);
    RB_CHECK(text && strstr(text, "energy: reduction/optimized read 1073 W mean: not printed "
                                  "(above_limit)"));
    RB_CHECK(text && strstr(text, "energy: 1 row not measured: its mean power came out above"));
    free(text);
}

/* A measured row's uncertainty is in its energy object and reads back. */
static void test_uncertainty_round_trip(void)
{
    const trace c = {0.1, 0.0005, 84.0, 535.0, -0.3, 2.0, 1000.0};
    rb_energy e, back;
    read_row(&e, &c, 0.101, 1.05e-3, 415);
    json_value *o = json_new_object();
    RB_CHECK(rb_energy_to_json(&e, o) == 0);
    double u = json_number_at(json_get(o, "energy"), "uncertainty");
    RB_CHECK(u > 0 && u <= RB_ENERGY_MAX_UNCERTAINTY);
    char err[200];
    RB_CHECK(rb_energy_from_json(o, &back, err, sizeof err) == 0 && back.state == RB_ENERGY_OK);
    RB_CHECK_NEAR(rb_energy_uncertainty(&back), u, 1e-12);
    RB_CHECK_NEAR(rb_energy_mean_w(&back), rb_energy_mean_w(&e), 1e-9);
    json_free(o);
}

/* The probe: the idle counter polled every 0.1 ms, or every 3.5 ms (one NVML read on an H200),
 * gives its update period and the idle power; polled every 7 ms (too slow to date an edge) it
 * gives no period. */
static void test_probe_measures_update_period(void)
{
    const double periods[] = {0.02, 0.1};
    static double t[7000];
    static unsigned long long mj[7000];
    for (int i = 0; i < 2; i++) {
        const trace c = {periods[i], 0.013, 84.0, 84.0, 0.0, 0.0, 1000.0};
        int n = 0;
        for (double s = 0; s < 0.6 && n < 7000; s += 1e-4, n++) {
            t[n] = s;
            mj[n] = counter_mj(&c, s);
        }
        rb_energy_counter k;
        RB_CHECK(rb_energy_counter_from(t, mj, n, &k) == 0);
        RB_CHECK_NEAR(k.update_s, periods[i], 2e-4);
        RB_CHECK(k.update_max_s < periods[i] + 2e-4);
        RB_CHECK(fabs(k.power_w / 84.0 - 1) < 0.01);
        RB_CHECK_NEAR(k.poll_s, 1e-4, 1e-6);
        n = 0;
        for (double s = 0; s < 0.6; s += 3.5e-3, n++) {
            t[n] = s;
            mj[n] = counter_mj(&c, s);
        }
        RB_CHECK(rb_energy_counter_from(t, mj, n, &k) == 0);
        RB_CHECK_NEAR(k.update_s, periods[i], 3.6e-3);
        RB_CHECK(fabs(k.power_w / 84.0 - 1) < 0.05);
        n = 0;
        for (double s = 0; s < 0.6; s += 7e-3, n++) {
            t[n] = s;
            mj[n] = counter_mj(&c, s);
        }
        RB_CHECK(rb_energy_counter_from(t, mj, n, &k) == 0);
        RB_CHECK(k.edges >= 5 && isnan(k.update_s) && isnan(k.power_w));
    }
    rb_energy_counter k;
    RB_CHECK(rb_energy_counter_from(t, mj, 1, &k) == -1);
}

static const rbtest_case energy_cases[] = {
    {"arithmetic_on_synthetic_readings", test_arithmetic_on_synthetic_readings},
    {"counter_that_does_not_advance_is_null", test_counter_that_does_not_advance_is_null},
    {"short_unavailable_and_reasons", test_short_unavailable_and_reasons},
    {"variant_json_round_trip", test_variant_json_round_trip},
    {"results_rates_table_and_lines", test_results_rates_table_and_lines},
    {"energy_roofline_chart", test_energy_roofline_chart},
    {"compare_shows_energy_beside_time", test_compare_shows_energy_beside_time},
    {"cycle_space_decides_throttled", test_cycle_space_decides_throttled},
    {"history_prints_cycles", test_history_prints_cycles},
    {"coarse_counter_old_reading_above_limit", test_coarse_counter_old_reading_above_limit},
    {"edges_hold_at_every_period_and_phase", test_edges_hold_at_every_period_and_phase},
    {"step_spread_is_uncertainty", test_step_spread_is_uncertainty},
    {"loose_edges_are_not_used", test_loose_edges_are_not_used},
    {"no_window_is_null_never_zero", test_no_window_is_null_never_zero},
    {"power_bound_below_idle_and_in_results", test_power_bound_below_idle_and_in_results},
    {"uncertainty_round_trip", test_uncertainty_round_trip},
    {"probe_measures_update_period", test_probe_measures_update_period},
};

RB_SUITE(energy_suite, "energy", energy_cases);
