/* SPDX-License-Identifier: MIT */
/*
 * compare across machines (harness/model/runcmp.c) on synthetic pairs of results files shaped as
 * two H200 runs are: each row held against the platform reference of its own roof (the PCIe
 * probes a run takes for its link-bound rows), informational rows gated as `run` gates them
 * (only with --gate all), and the evidence of a slowdown no roof explains naming the roof it was
 * held against.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/model/runcmp.h"
#include "rbtest.h"

/* One variant of a synthetic run: its row group, name, roof, median (ms), efficiency against
 * its measured roof (vs_ceiling), and whether the host sets its time (informational). */
typedef struct row_spec {
    const char *pair, *variant, *roof;
    double median_ms, efficiency;
    int informational;
} row_spec;

/* The rows of a one-H200 full run that these tests need: host_transfer's pinned (optimized) and
 * pageable (baseline, informational) copies, streams_overlap's pinned copies, and the two rows
 * a cross-machine compare called unexplained with no roof named. */
static const row_spec h200_rows[] = {
    {"host_transfer.h2d", "baseline", "pcie_h2d_gbps", 116.1, 0.13, 1},
    {"host_transfer.h2d", "optimized", "pcie_h2d_gbps", 4.87, 0.99, 0},
    {"host_transfer.d2h", "baseline", "pcie_d2h_gbps", 67.9, 0.23, 1},
    {"host_transfer.d2h", "optimized", "pcie_d2h_gbps", 4.85, 0.99, 0},
    {"streams_overlap", "h2d", "pcie_h2d_gbps", 4.9, 0.98, 0},
    {"streams_overlap", "d2h", "pcie_d2h_gbps", 4.9, 0.98, 0},
    {"streams_overlap", "duplex", "pcie_duplex_gbps", 5.3, 0.97, 0},
    {"streams_overlap", "optimized", "pcie_duplex_gbps", 5.6, 0.92, 0},
    {"transpose", "baseline", "dram_gbps", 2.142, 0.117, 0},
    {"sgemm@16M", "coalesced", "fp32_tflops", 23.90, 0.094, 0},
};
#define N_ROWS (sizeof h200_rows / sizeof h200_rows[0])

/* A run: each row's median times factor(row) (NULL: 1), and the platform reference (pcie < 0:
 * the quick three alone, as a run without link-bound rows, or an older build, records it). */
typedef struct run_spec {
    double dram_gbps, pcie_h2d_gbps;
    double (*factor)(const row_spec *r);
} run_spec;

/* fmt appended to buf (size bytes in all). */
__attribute__((format(printf, 3, 4))) static void add(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

static void add_platform(char *t, size_t size, const run_spec *s)
{
    add(t, size,
        "\"platform\": {\"source\": \"ceilings --quick at run start\", \"dram_gbps\": %.17g, "
        "\"fp32_tflops\": 60.65, \"launch_us\": 4.47",
        s->dram_gbps);
    if (s->pcie_h2d_gbps > 0) /* the PCIe probes; d2h and duplex moved as h2d did */
        add(t, size,
            ", \"pcie_h2d_gbps\": %.17g, \"pcie_d2h_gbps\": %.17g, \"pcie_duplex_gbps\": %.17g",
            s->pcie_h2d_gbps, s->pcie_h2d_gbps * 1.003, s->pcie_h2d_gbps * 1.84);
    add(t, size,
        ", \"methods\": {\"dram_gbps\": {\"noise\": 0.002}, \"pcie_h2d_gbps\": {\"noise\": "
        "0.001}}},");
}

static void add_variant(char *t, size_t size, const row_spec *r, double median)
{
    /* a tight interval (a steady loop), 50 samples */
    add(t, size,
        "{\"name\": \"%s\", \"valid\": true, \"timed\": true, \"roof\": \"%s\", \"time_ms\": "
        "{\"median\": %.17g, \"median_ci_lo\": %.17g, \"median_ci_hi\": %.17g, \"noise\": 0.004, "
        "\"samples\": 50}, \"sm_clock_mhz\": 1980, \"vs_ceiling\": {\"efficiency\": %.17g}%s}",
        r->variant, r->roof, median, median * 0.999, median * 1.001, r->efficiency,
        r->informational ? ", \"informational\": true, \"host_bound_why\": \"a pageable copy: "
                           "the host's memcpy into a staging buffer sets its time\""
                         : "");
}

static json_value *make_run(const run_spec *s)
{
    static char t[16384];
    char err[200];
    t[0] = '\0';
    add(t, sizeof t,
        "{\"git\": \"8626872\", \"date\": \"d\", \"size\": \"full\", \"hardware_key\": "
        "\"nvidia-h200\", \"environment\": {\"start\": {\"driver\": \"580.159.04\"}}, ");
    add_platform(t, sizeof t, s);
    add(t, sizeof t,
        " \"roofs\": {\"dram_gbps\": {\"measured\": 4270}, \"fp32_tflops\": {\"measured\": 60.8},"
        " \"pcie_h2d_gbps\": {\"measured\": 55.47}, \"pcie_d2h_gbps\": {\"measured\": 55.6},"
        " \"pcie_duplex_gbps\": {\"measured\": 102}}, \"pairs\": [");
    for (size_t i = 0; i < N_ROWS; i++) {
        const row_spec *r = &h200_rows[i];
        int first = i == 0 || strcmp(h200_rows[i - 1].pair, r->pair);
        int last = i + 1 == N_ROWS || strcmp(h200_rows[i + 1].pair, r->pair);
        if (first)
            add(t, sizeof t, "%s{\"name\": \"%s\", \"size\": 1024, \"variants\": [", i ? ", " : "",
                r->pair);
        else
            add(t, sizeof t, ", ");
        add_variant(t, sizeof t, r, r->median_ms * (s->factor ? s->factor(r) : 1.0));
        if (last)
            add(t, sizeof t, "]}");
    }
    add(t, sizeof t, "]}");
    json_value *d = json_parse(t, strlen(t), err, sizeof err);
    if (!d)
        printf("    synthetic run: %s\n", err);
    return d;
}

static const rb_runcmp_row *row_of(const rb_runcmp *c, const char *pair, const char *variant)
{
    for (int i = 0; i < c->n_rows; i++)
        if (!strcmp(c->rows[i].pair, pair) && !strcmp(c->rows[i].variant, variant))
            return &c->rows[i];
    return NULL;
}

static int build(const run_spec *a, const run_spec *b, rb_runcmp *c)
{
    json_value *x = make_run(a), *y = make_run(b);
    char err[200];
    int rc = x && y ? rb_runcmp_build(x, y, c, err, sizeof err) : -1;
    if (rc != 0)
        memset(c, 0, sizeof *c);
    json_free(x);
    json_free(y);
    return rc;
}

static int is_pinned_link_row(const row_spec *r)
{
    return !strncmp(r->roof, "pcie_", 5) && !r->informational;
}

/* The second machine's PCIe link is 6% slower: its pinned rows take 6% longer. */
static double slower_link(const row_spec *r)
{
    return is_pinned_link_row(r) ? 1.06 : 1.0;
}

static void put(const char *dir, const char *name, const json_value *doc)
{
    char path[400], err[300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!doc || json_write_file(path, doc, err, sizeof err) != 0)
        printf("    %s: %s\n", name, doc ? err : "no document");
}

static void put_run(const char *dir, const char *name, const run_spec *s)
{
    json_value *d = make_run(s);
    put(dir, name, d);
    json_free(d);
}

/* Pinned PCIe rows 6% slower with the platform's PCIe reference 6% lower: platform, exit 0; the
 * same rows with an unchanged reference: unexplained, exit 1 (a slower link the reference does
 * not see is no excuse); an OLD run without the probes (an older build): its roofs.measured,
 * the same in both files, explains nothing, and the evidence says the reference was missing. */
static void test_slower_pcie_link_is_platform(void)
{
    const run_spec card1 = {4258, 55.47, NULL}, card2 = {4255, 55.47 / 1.06, slower_link};
    rb_runcmp c;
    RB_CHECK(build(&card1, &card2, &c) == 0);
    for (size_t i = 0; i < N_ROWS; i++) {
        const row_spec *r = &h200_rows[i];
        const rb_runcmp_row *x = row_of(&c, r->pair, r->variant);
        if (!x || !is_pinned_link_row(r))
            continue;
        if (x->change != RB_CHANGE_SLOWER || x->cause != RB_CAUSE_PLATFORM)
            printf("    %s/%s: %s %s: %s\n", r->pair, r->variant, rb_change_name(x->change),
                   rb_cause_name(x->cause), x->evidence);
        RB_CHECK(x->change == RB_CHANGE_SLOWER && x->cause == RB_CAUSE_PLATFORM);
        RB_CHECK(strstr(x->evidence, " roof (platform reference) ") != NULL);
    }
    const rb_runcmp_row *h2d = row_of(&c, "host_transfer.h2d", "optimized");
    RB_CHECK(h2d &&
             strstr(h2d->evidence, "pcie_h2d_gbps roof (platform reference) 55.47 -> 52.33"));
    RB_CHECK(rb_runcmp_failing(&c, 0) == 0);
    rb_runcmp_free(&c);

    const run_spec same_link = {4255, 55.47, slower_link};
    RB_CHECK(build(&card1, &same_link, &c) == 0);
    h2d = row_of(&c, "host_transfer.h2d", "optimized");
    RB_CHECK(h2d && h2d->change == RB_CHANGE_SLOWER && h2d->cause == RB_CAUSE_UNEXPLAINED);
    RB_CHECK(h2d && strstr(h2d->evidence, "(pcie_h2d_gbps 55.47 -> 55.47 (platform reference): "
                                          "time x1.000 expected; the variant at 99% of it)"));
    RB_CHECK(rb_runcmp_failing(&c, 0) == 6); /* every pinned link row */
    rb_runcmp_free(&c);

    const run_spec old_build = {4258, -1, NULL};
    RB_CHECK(build(&old_build, &card2, &c) == 0);
    h2d = row_of(&c, "host_transfer.h2d", "optimized");
    RB_CHECK(h2d && h2d->cause == RB_CAUSE_UNEXPLAINED &&
             strstr(h2d->evidence, "(roofs.measured: no platform reference of it in OLD)"));
    rb_runcmp_free(&c);

    /* the binary: exit 0 with the probes, 1 without */
    const char *dir = rbtest_fresh_dir();
    put_run(dir, "card1.json", &card1);
    put_run(dir, "card2.json", &card2);
    put_run(dir, "same_link.json", &same_link);
    int rc = rbtest_run("compare card1.json card2.json --expect none");
    if (rc != 0)
        printf("%s", rbtest_output());
    RB_CHECK(rc == 0 && strstr(rbtest_output(), "platform.pcie_h2d_gbps"));
    RB_CHECK(rbtest_run("compare card1.json same_link.json --expect none") == 1);
    RB_CHECK(strstr(rbtest_output(), "exit 1: 6 variant(s) slower"));
    rbtest_remove_dir();
}

/* The pageable baselines 40% slower (the second host's memcpy): printed and compared, marked
 * informational, and failing only with --gate all, as run treats them. */
static double slower_host(const row_spec *r)
{
    return r->informational ? 1.4 : 1.0;
}

static void test_informational_rows_gate_like_run(void)
{
    const run_spec card1 = {4258, 55.47, NULL}, card2 = {4255, 55.47, slower_host};
    rb_runcmp c;
    RB_CHECK(build(&card1, &card2, &c) == 0);
    const rb_runcmp_row *b = row_of(&c, "host_transfer.h2d", "baseline");
    const rb_runcmp_row *o = row_of(&c, "host_transfer.h2d", "optimized");
    RB_CHECK(b && b->informational && b->change == RB_CHANGE_SLOWER);
    RB_CHECK(o && !o->informational && o->change == RB_CHANGE_SAME);
    RB_CHECK(rb_runcmp_failing(&c, 0) == 0 && rb_runcmp_failing(&c, 1) == 0);
    c.gate_all = 1;
    RB_CHECK(rb_runcmp_failing(&c, 0) == 2); /* both pageable baselines */
    rb_runcmp_free(&c);

    const char *dir = rbtest_fresh_dir();
    put_run(dir, "card1.json", &card1);
    put_run(dir, "card2.json", &card2);
    int rc = rbtest_run("compare card1.json card2.json --expect none --json c.json");
    const char *out = rbtest_output();
    if (rc != 0)
        printf("%s", out);
    RB_CHECK(rc == 0 && !strstr(out, "exit 1"));
    RB_CHECK(strstr(out, "slower   unexplained informational\n"));
    RB_CHECK(strstr(out, "informational (the host sets their time): 2 row(s), 2 slower; not "
                         "gating unless --gate all"));
    char path[400], err[300];
    snprintf(path, sizeof path, "%s/c.json", dir);
    json_value *j = json_parse_file(path, err, sizeof err);
    RB_CHECK(j && json_number_at(j, "failing") == 0 &&
             !strcmp(json_string_at(j, "gate", ""), "gating"));
    const json_value *vs = json_get(j, "variants");
    int marked = 0;
    for (size_t i = 0; vs && i < vs->count; i++)
        marked += json_true_at(vs->items[i], "informational");
    RB_CHECK(marked == 2);
    json_free(j);
    RB_CHECK(rbtest_run("compare card1.json card2.json --expect none --gate all") == 1);
    RB_CHECK(strstr(rbtest_output(), "exit 1: 2 variant(s) slower") &&
             strstr(rbtest_output(), "2 slower; gating (--gate all)"));
    RB_CHECK(rbtest_run("compare card1.json card2.json --gate some") == 2);
    rbtest_remove_dir();
}

/* The reproduction: transpose/baseline +3.3% and sgemm@16M/coalesced +2.4% on a second H200
 * whose DRAM copy and FP32 roofs did not move. Both run far below the roof they are named by (12%
 * of dram_gbps, 9% of fp32_tflops): their time is set by something no roof of the platform
 * reference measures, so no move of that roof can explain them, and compare said only "no roof
 * moved to match", naming neither the roof it held them against nor how far below it they ran.
 * The evidence now names both; the verdict stays unexplained (the cross-machine spread of such
 * rows belongs in the floor, from expectations recorded on several machines). */
static double far_below(const row_spec *r)
{
    return !strcmp(r->pair, "transpose") ? 1.033 : !strcmp(r->pair, "sgemm@16M") ? 1.024 : 1.0;
}

static void test_far_below_roof_names_the_roof(void)
{
    const run_spec card1 = {4258, 55.47, NULL}, card2 = {4255, 55.47, far_below};
    rb_runcmp c;
    RB_CHECK(build(&card1, &card2, &c) == 0);
    const rb_runcmp_row *t = row_of(&c, "transpose", "baseline");
    const rb_runcmp_row *s = row_of(&c, "sgemm@16M", "coalesced");
    RB_CHECK(t && t->change == RB_CHANGE_SLOWER && t->cause == RB_CAUSE_UNEXPLAINED);
    RB_CHECK(s && s->change == RB_CHANGE_SLOWER && s->cause == RB_CAUSE_UNEXPLAINED);
    if (t)
        printf("    %s\n", t->evidence);
    RB_CHECK(t && strstr(t->evidence, "no roof moved to match (dram_gbps 4258 -> 4255 (platform "
                                      "reference): time x1.001 expected; the variant at 12% of "
                                      "it)"));
    RB_CHECK(s && strstr(s->evidence, "(fp32_tflops 60.65 -> 60.65 (platform reference): time "
                                      "x1.000 expected; the variant at 9% of it)"));
    RB_CHECK(rb_runcmp_failing(&c, 0) == 2);
    rb_runcmp_free(&c);
}

static const rbtest_case platform_cmp_cases[] = {
    {"slower_pcie_link_is_platform", test_slower_pcie_link_is_platform},
    {"informational_rows_gate_like_run", test_informational_rows_gate_like_run},
    {"far_below_roof_names_the_roof", test_far_below_roof_names_the_roof},
};

RB_SUITE(platform_cmp_suite, "platform_cmp", platform_cmp_cases);
