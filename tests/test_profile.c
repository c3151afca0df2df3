/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 and 2 (no GPU): `roofbench profile` (harness/model/profile*.c, report/profile_out.c,
 * report/plot_hier.c, runner/cmd_profile.c). The parser against a real capture of ncu 2025.3.1 on
 * an H200 (tests/data/ncu_raw_h200.csv: `ncu --page raw --csv` of five pairs at full size, its
 * columns trimmed to those the profile reads and a few beside them, interleaved with roofbench's
 * own output as ncu printed it), the launches gathered into variants and jobs, the work-model
 * check, the document, the chart, and the command with a stand-in ncu: missing, refused, and
 * one that answers with the capture. Each check plants the defect it guards against.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/model/json.h"
#include "../harness/model/profile.h"
#include "../harness/model/util.h"
#include "../harness/report/profile_out.h"
#include "rbtest.h"
#include "xml_check.h"

static const char capture_path[] = "tests/data/ncu_raw_h200.csv";

static char *capture_text(void)
{
    return rbtest_read_file(capture_path);
}

static int parse_text(const char *text, rb_profile_capture *c, char *err, size_t size)
{
    return rb_profile_parse(text, strlen(text), c, err, size);
}

/* The launch of kernel in the n-th process that ran it (from 0), or NULL. */
static const rb_profile_launch *launch_of(const rb_profile_capture *c, const char *kernel, int n)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->launches[i].kernel, kernel) && n-- == 0)
            return &c->launches[i];
    return NULL;
}

/* Replaces the first occurrence of from in text (a copy, caller frees). */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        return NULL;
    size_t head = (size_t)(at - text), len = strlen(text) + strlen(to) + 1;
    char *out = malloc(len);
    if (!out)
        return NULL;
    snprintf(out, len, "%.*s%s%s", (int)head, text, to, at + strlen(from));
    return out;
}

static int near_rel(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b);
}

/* ---- the parser ---- */

static void parses_the_real_capture(void)
{
    char *text = capture_text(), err[300];
    rb_profile_capture c;
    RB_CHECK(text != NULL);
    if (!text)
        return;
    RB_CHECK(parse_text(text, &c, err, sizeof err) == 0);
    /* 29 kernel rows among ncu's ==PROF== lines and roofbench's own output */
    RB_CHECK(c.n == 29);
    RB_CHECK(!strcmp(c.device, "NVIDIA H200"));
    const rb_profile_launch *l = launch_of(&c, "copy_coalescing_baseline_kernel", 0);
    RB_CHECK(l != NULL);
    if (l) {
        RB_CHECK(l->process == 1771);
        /* "5,842,944" ns: thousands separators and the unit row */
        RB_CHECK_NEAR(l->v[RB_PM_TIME_S], 5.842944e-3, 1e-12);
        /* the section's rate times the duration: 464,680,117,420.26 byte/s x 5.842944 ms */
        RB_CHECK(near_rel(l->v[RB_PM_DRAM_BYTES], 464680117420.26 * 5.842944e-3, 1e-9));
        RB_CHECK_NEAR(l->v[RB_PM_REGISTERS], 18, 0);
        RB_CHECK_NEAR(l->v[RB_PM_OCCUPANCY_PCT], 85.65, 1e-9);
        RB_CHECK(isnan(l->v[RB_PM_L2_BYTES])); /* not in the capture: NaN, never 0 */
        RB_CHECK(l->n_stalls == 19);
    }
    /* the template arguments and parameters are not part of the name; ncu's tensor ops are
     * FLOPs: 2 x 8192^3 */
    l = launch_of(&c, "hgemm_fp8_optimized_kernel", 0);
    RB_CHECK(l && l->v[RB_PM_TENSOR_FP8_OPS] == 2.0 * 8192 * 8192 * 8192);
    l = launch_of(&c, "hgemm_optimized_kernel", 0);
    RB_CHECK(l && l->v[RB_PM_TENSOR_BF16_OPS] == 2.0 * 8192 * 8192 * 8192);
    RB_CHECK(l && l->v[RB_PM_REGISTERS] == 168);
    rb_profile_capture_free(&c);
    free(text);
}

/* The units row decides the scale: the same digits in microseconds are 1000 times longer. A
 * parser that ignored it (or assumed --print-units base) fails here. */
static void units_are_read_not_assumed(void)
{
    char *text = capture_text(), err[300];
    rb_profile_capture a, b;
    if (!text) {
        RB_CHECK(0);
        return;
    }
    /* the unit of gpu__time_duration.sum is the only "ns" of the unit row */
    char *planted = replaced(text, "\"ns\"", "\"usecond\"");
    RB_CHECK(planted != NULL);
    RB_CHECK(parse_text(text, &a, err, sizeof err) == 0);
    RB_CHECK(planted && parse_text(planted, &b, err, sizeof err) == 0);
    if (planted && a.n && b.n)
        RB_CHECK(near_rel(b.launches[0].v[RB_PM_TIME_S], 1000 * a.launches[0].v[RB_PM_TIME_S],
                          1e-12));
    rb_profile_capture_free(&b); /* parsed into again below */
    char *unknown = replaced(text, "\"ns\"", "\"fortnight\"");
    RB_CHECK(unknown && parse_text(unknown, &b, err, sizeof err) == -1 &&
             strstr(err, "fortnight"));
    rb_profile_capture_free(&a);
    free(planted);
    rb_profile_capture_free(&b);
    free(unknown);
    free(text);
}

/* What is not ncu's table is refused with one line: no header, a row cut short, no rows. */
static void malformed_captures_are_refused(void)
{
    char *text = capture_text(), err[300];
    rb_profile_capture c;
    if (!text) {
        RB_CHECK(0);
        return;
    }
    RB_CHECK(parse_text("==PROF== Connected to process 1\ncheck passed\n", &c, err, sizeof err) ==
             -1);
    RB_CHECK(strstr(err, "no ncu table") != NULL);
    /* a row cut short: the last field of the first kernel row dropped */
    const char *row = strstr(text, "\n\"0\",");
    RB_CHECK(row != NULL);
    if (row) {
        const char *end = strchr(row + 1, '\n');
        const char *last = end;
        while (last > row && *last != ',')
            last--;
        size_t len = strlen(text) + 1;
        char *cut = malloc(len);
        if (cut) {
            snprintf(cut, len, "%.*s%s", (int)(last - text), text, end);
            RB_CHECK(parse_text(cut, &c, err, sizeof err) == -1);
            RB_CHECK(strstr(err, "fields where ncu's header has") != NULL);
            free(cut);
        }
    }
    /* the header and units alone: no kernel was profiled */
    const char *first_row = strstr(text, "\n\"0\",");
    const char *header = strstr(text, "\"ID\",\"Process ID\"");
    if (first_row && header) {
        size_t len = (size_t)(first_row - header) + 2;
        char *only = malloc(len);
        if (only) {
            snprintf(only, len, "%.*s\n", (int)(first_row - header), header);
            RB_CHECK(parse_text(only, &c, err, sizeof err) == -1);
            RB_CHECK(strstr(err, "no kernel rows") != NULL);
            free(only);
        }
    }
    free(text);
}

/* Two captures one after the other (parts profiled apart by --filter) are one capture. */
static void appended_captures_merge(void)
{
    char *text = capture_text(), err[300];
    rb_profile_capture c;
    if (!text) {
        RB_CHECK(0);
        return;
    }
    size_t len = 2 * strlen(text) + 2;
    char *twice = malloc(len);
    RB_CHECK(twice != NULL);
    if (twice) {
        snprintf(twice, len, "%s\n%s", text, text);
        RB_CHECK(parse_text(twice, &c, err, sizeof err) == 0 && c.n == 58);
        rb_profile_capture_free(&c);
        free(twice);
    }
    free(text);
}

/* ---- variants, jobs and the work model ---- */

static const rb_profile_kernel_ref coalescing_kernels[] = {
    {"baseline", "copy_coalescing_baseline_kernel"},
    {"optimized", "copy_coalescing_optimized_kernel"}};
static const rb_profile_kernel_ref hgemm_kernels[] = {{"optimized", "hgemm_optimized_kernel"},
                                                      {"fp8", "hgemm_fp8_optimized_kernel"}};

/* copy_coalescing at full size (2^28 floats read and written once) and hgemm's four rows, as
 * bench/ declares them. */
static int capture_jobs(rb_profile_job *jobs)
{
    static const char *const rows[] = {"hgemm.square@64M", "hgemm.square@36M",
                                       "hgemm.square@16M", "hgemm.awkward@16M"};
    memset(jobs, 0, 5 * sizeof *jobs);
    jobs[0].pair = "copy_coalescing";
    jobs[0].row = "copy_coalescing";
    jobs[0].n_variants = 3;
    jobs[0].variants[0] = "baseline";
    jobs[0].variants[1] = "optimized";
    jobs[0].variants[2] = "library";
    for (int k = 0; k < 3; k++)
        jobs[0].bytes[k] = 2.0 * 268435456 * 4;
    jobs[0].kernels = coalescing_kernels;
    jobs[0].n_kernels = 2;
    jobs[0].pair_index = 0; /* the marks' pair indices (a windowed capture) */
    for (int j = 1; j < 5; j++) {
        jobs[j].pair = "hgemm";
        jobs[j].row = rows[j - 1];
        jobs[j].flops = 2.0 * 8192 * 8192 * 8192;
        jobs[j].n_variants = 2;
        jobs[j].variants[0] = "optimized";
        jobs[j].variants[1] = "fp8";
        jobs[j].bytes[0] = jobs[j].bytes[1] = 4e8;
        jobs[j].kernels = hgemm_kernels;
        jobs[j].n_kernels = 2;
        jobs[j].pair_index = 1;
        jobs[j].input = j == 4; /* square, square, square, awkward */
    }
    return 5;
}

static const rb_profile_variant *variant_named(const rb_profile *p, const char *row,
                                               const char *variant)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->variants[i].row, row) && !strcmp(p->variants[i].variant, variant))
            return &p->variants[i];
    return NULL;
}

static int build_from_capture(rb_profile *p, rb_profile_job *jobs)
{
    char *text = capture_text(), err[300];
    rb_profile_capture c;
    int n = capture_jobs(jobs);
    int rc = text && parse_text(text, &c, err, sizeof err) == 0 ? 0 : -1;
    if (rc == 0) {
        rc = rb_profile_build(&c, jobs, n, p);
        rb_profile_capture_free(&c);
    }
    free(text);
    return rc;
}

/* copy_coalescing's baseline wastes sectors: the counters see 1.26x its compulsory bytes, and
 * it is named; its optimized variant moves what it must. */
static void work_model_names_sector_waste(void)
{
    rb_profile p;
    rb_profile_job jobs[5];
    RB_CHECK(build_from_capture(&p, jobs) == 0);
    const rb_profile_variant *base = variant_named(&p, "copy_coalescing", "baseline");
    const rb_profile_variant *opt = variant_named(&p, "copy_coalescing", "optimized");
    const rb_profile_variant *lib = variant_named(&p, "copy_coalescing", "library");
    RB_CHECK(base && base->bytes_verdict == RB_PB_MORE);
    RB_CHECK(base && near_rel(rb_profile_dram_bytes(base) / base->declared_bytes, 1.264, 0.01));
    RB_CHECK(opt && opt->bytes_verdict == RB_PB_MATCHES);
    /* a library routine's kernels are not the pair's: not profiled, not checked */
    RB_CHECK(lib && !lib->profiled && lib->bytes_verdict == RB_PB_UNCHECKED);
    rb_sbuf b = {0};
    int n = rb_profile_findings(&b, &p, "");
    char *text = rb_sbuf_take(&b);
    RB_CHECK(text && strstr(text, "copy_coalescing/baseline: 2.715 GB from DRAM, declared "
                                  "2.147 GB (1.26x): moves more") != NULL);
    RB_CHECK(text && !strstr(text, "copy_coalescing/optimized"));
    free(text);
    /* the planted defect: a work model that declares the baseline's waste as compulsory
     * (1.3x the bytes) hides it */
    rb_profile_free(&p);
    jobs[0].bytes[0] *= 1.3;
    char *cap = capture_text(), err[300];
    rb_profile_capture c;
    if (cap && parse_text(cap, &c, err, sizeof err) == 0) {
        RB_CHECK(rb_profile_build(&c, jobs, 5, &p) == 0);
        base = variant_named(&p, "copy_coalescing", "baseline");
        RB_CHECK(base && base->bytes_verdict == RB_PB_MATCHES);
        rb_profile_capture_free(&c);
        rb_profile_free(&p);
    }
    free(cap);
    RB_CHECK(n >= 1);
}

/* The edges of the 10%: a synthetic launch 9% over, 11% over and 11% under. */
static void work_model_tolerance_edges(void)
{
    static const rb_profile_kernel_ref k[] = {{"baseline", "x_baseline_kernel"}};
    static const double ratios[] = {1.09, 1.11, 0.89, 0.91};
    static const rb_profile_bytes_verdict want[] = {RB_PB_MATCHES, RB_PB_MORE, RB_PB_LESS,
                                                    RB_PB_MATCHES};
    for (int i = 0; i < 4; i++) {
        rb_profile_launch l;
        memset(&l, 0, sizeof l);
        snprintf(l.kernel, sizeof l.kernel, "x_baseline_kernel");
        for (int m = 0; m < RB_PM_COUNT; m++)
            l.v[m] = NAN;
        l.v[RB_PM_DRAM_BYTES] = ratios[i] * 1e9;
        l.v[RB_PM_TIME_S] = 1e-3;
        rb_profile_capture c = {1, 1, &l, ""};
        rb_profile_job j;
        memset(&j, 0, sizeof j);
        j.pair = j.row = "x";
        j.n_variants = 1;
        j.variants[0] = "baseline";
        j.bytes[0] = 1e9;
        j.kernels = k;
        j.n_kernels = 1;
        rb_profile p;
        RB_CHECK(rb_profile_build(&c, &j, 1, &p) == 0);
        RB_CHECK(p.n == 1 && p.variants[0].bytes_verdict == want[i]);
        /* a pair whose bytes are a link's is never judged by DRAM bytes */
        rb_profile_free(&p);
        j.link_bytes = 1;
        RB_CHECK(rb_profile_build(&c, &j, 1, &p) == 0);
        RB_CHECK(p.variants[0].bytes_verdict == RB_PB_UNCHECKED);
        rb_profile_free(&p);
    }
}

/* hgemm's four rows run in four processes, each launching hgemm_optimized_kernel once: each
 * launch goes to its own row, in the order the processes came. The planted defect, every
 * launch given to the first job naming the kernel, would leave the later rows unprofiled. */
static void launches_go_to_their_own_job(void)
{
    rb_profile p;
    rb_profile_job jobs[5];
    RB_CHECK(build_from_capture(&p, jobs) == 0);
    static const char *const rows[] = {"hgemm.square@64M", "hgemm.square@36M",
                                       "hgemm.square@16M", "hgemm.awkward@16M"};
    static const double us[] = {1379.968, 583.328, 181.632, 205.056};
    for (int r = 0; r < 4; r++) {
        const rb_profile_variant *v = variant_named(&p, rows[r], "optimized");
        RB_CHECK(v && v->profiled && v->n_kernels == 1);
        RB_CHECK(v && near_rel(v->v[RB_PM_TIME_S], us[r] * 1e-6, 1e-9));
    }
    /* the 36M row does not run fp8: not profiled there */
    const rb_profile_variant *fp8 = variant_named(&p, "hgemm.square@36M", "fp8");
    RB_CHECK(fp8 && !fp8->profiled);
    /* the launches of kernels no variant names (the input fills, other pairs') are counted */
    RB_CHECK(p.unmatched > 0);
    /* stall reasons largest first, shares summing to one */
    const rb_profile_variant *v = variant_named(&p, "hgemm.square@64M", "optimized");
    double total = 0;
    for (int k = 0; v && k < v->n_stalls; k++) {
        total += rb_profile_stall_share(v, k);
        if (k)
            RB_CHECK(v->stalls[k].value <= v->stalls[k - 1].value);
    }
    RB_CHECK_NEAR(total, 1, 1e-9);
    RB_CHECK(v && !strcmp(v->stalls[0].reason, "barrier"));
    rb_profile_free(&p);
}

/* check runs each variant twice: a kernel's second launch in its process is left out, not
 * added (the planted defect: the baseline's row given twice in one table would double its
 * bytes and hide nothing, but call 2.5x waste 2.5x). */
static void a_second_launch_is_left_out(void)
{
    char *text = capture_text(), err[300];
    rb_profile_capture c;
    rb_profile_job jobs[5];
    rb_profile p;
    const char *row = text ? strstr(text, "\n\"0\",") : NULL;
    RB_CHECK(row != NULL);
    if (!row) {
        free(text);
        return;
    }
    const char *end = strchr(row + 1, '\n');
    size_t len = strlen(text) + (size_t)(end - row) + 1;
    char *twice = malloc(len);
    if (twice) {
        snprintf(twice, len, "%.*s%.*s%s", (int)(end - text), text, (int)(end - row), row, end);
        RB_CHECK(parse_text(twice, &c, err, sizeof err) == 0 && c.n == 30);
        RB_CHECK(rb_profile_build(&c, jobs, capture_jobs(jobs), &p) == 0);
        const rb_profile_variant *base = variant_named(&p, "copy_coalescing", "baseline");
        RB_CHECK(base && base->n_kernels == 1 && p.repeats == 1);
        RB_CHECK(base && near_rel(rb_profile_dram_bytes(base) / base->declared_bytes, 1.264, 0.01));
        rb_profile_free(&p);
        rb_profile_capture_free(&c);
        free(twice);
    }
    free(text);
}

/* A capture with profile windows (model/profile.h), as `check` under ncu with
 * --profile-from-start off takes it: in each process a mark (grid: variant + 1, pair + 1,
 * input + 1) before each variant's one run. What follows a mark is that variant's whatever its
 * name (cuBLASLt's kernel for hgemm's library variant) and however often it ran (a two-pass
 * kernel sums); a mark for a variant the row does not have leaves its launches unmatched; a
 * process without marks is matched by name as before, to a row no marked process has. A build
 * that ignored the marks would drop the library variants and count the second pass as a
 * repeat. */
static const char windowed_capture[] =
    "==PROF== Connected to process 10 (roofbench)\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"dram__bytes_read.sum\","
    "\"dram__bytes_write.sum\",\"gpu__time_duration.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"nsecond\"\n"
    "\"0\",\"10\",\"roofbench\",\"h\",\"rb_profile_mark_kernel()\",\"1\",\"7\",\"(1, 1, 1)\","
    "\"(1, 1, 1)\",\"0\",\"9.0\",\"0\",\"0\",\"1,000\"\n"
    "\"1\",\"10\",\"roofbench\",\"h\",\"copy_coalescing_baseline_kernel(const float *)\",\"1\","
    "\"7\",\"(256, 1, 1)\",\"(1048576, 1, 1)\",\"0\",\"9.0\",\"1,000\",\"500\",\"2,000\"\n"
    "\"2\",\"10\",\"roofbench\",\"h\",\"rb_profile_mark_kernel()\",\"1\",\"7\",\"(1, 1, 1)\","
    "\"(2, 1, 1)\",\"0\",\"9.0\",\"0\",\"0\",\"1,000\"\n"
    "\"3\",\"10\",\"roofbench\",\"h\",\"copy_coalescing_optimized_kernel(const float *)\",\"1\","
    "\"7\",\"(256, 1, 1)\",\"(4096, 1, 1)\",\"0\",\"9.0\",\"700\",\"300\",\"1,000\"\n"
    "\"4\",\"10\",\"roofbench\",\"h\",\"copy_coalescing_optimized_kernel(const float *)\",\"1\","
    "\"7\",\"(256, 1, 1)\",\"(4096, 1, 1)\",\"0\",\"9.0\",\"70\",\"30\",\"1,000\"\n"
    "\"5\",\"10\",\"roofbench\",\"h\",\"rb_profile_mark_kernel()\",\"1\",\"7\",\"(1, 1, 1)\","
    "\"(3, 1, 1)\",\"0\",\"9.0\",\"0\",\"0\",\"1,000\"\n"
    "\"6\",\"10\",\"roofbench\",\"h\",\"cudaMemcpyish_kernel\",\"1\",\"7\",\"(128, 1, 1)\","
    "\"(64, 1, 1)\",\"0\",\"9.0\",\"2,000\",\"2,000\",\"3,000\"\n"
    "\"7\",\"20\",\"roofbench\",\"h\",\"rb_profile_mark_kernel()\",\"1\",\"7\",\"(1, 1, 1)\","
    "\"(3, 2, 1)\",\"0\",\"9.0\",\"0\",\"0\",\"1,000\"\n"
    "\"8\",\"20\",\"roofbench\",\"h\",\"sm90_xmma_gemm_bf16bf16_bf16f32\",\"1\",\"7\","
    "\"(384, 1, 1)\",\"(132, 1, 1)\",\"0\",\"9.0\",\"400\",\"100\",\"5,000\"\n"
    "\"9\",\"20\",\"roofbench\",\"h\",\"rb_profile_mark_kernel()\",\"1\",\"7\",\"(1, 1, 1)\","
    "\"(9, 2, 1)\",\"0\",\"9.0\",\"0\",\"0\",\"1,000\"\n"
    "\"10\",\"20\",\"roofbench\",\"h\",\"hgemm_optimized_kernel\",\"1\",\"7\",\"(384, 1, 1)\","
    "\"(132, 1, 1)\",\"0\",\"9.0\",\"1\",\"1\",\"5,000\"\n"
    "\"11\",\"30\",\"roofbench\",\"h\",\"hgemm_fp8_optimized_kernel\",\"1\",\"7\",\"(384, 1, 1)\","
    "\"(132, 1, 1)\",\"0\",\"9.0\",\"60\",\"40\",\"5,000\"\n";

static void windows_give_launches_to_their_variant(void)
{
    rb_profile_capture c;
    rb_profile_job jobs[5];
    rb_profile p;
    char err[300];
    int n = capture_jobs(jobs);
    jobs[1].n_variants = 3; /* hgemm.square@64M: optimized, fp8, library */
    jobs[1].variants[2] = "library";
    RB_CHECK(parse_text(windowed_capture, &c, err, sizeof err) == 0 && c.n == 12);
    RB_CHECK(c.n == 12 && c.launches[0].grid[0] == 1 && c.launches[7].grid[1] == 2);
    RB_CHECK(rb_profile_build(&c, jobs, n, &p) == 0);
    RB_CHECK(p.windows == 5 && p.repeats == 0);
    const rb_profile_variant *v = variant_named(&p, "copy_coalescing", "baseline");
    RB_CHECK(v && v->n_kernels == 1 && rb_profile_dram_bytes(v) == 1500);
    v = variant_named(&p, "copy_coalescing", "optimized"); /* both passes, one name */
    RB_CHECK(v && v->n_kernels == 2 && v->n_names == 1 && rb_profile_dram_bytes(v) == 1100);
    v = variant_named(&p, "copy_coalescing", "library"); /* a name no table holds */
    RB_CHECK(v && v->profiled && rb_profile_dram_bytes(v) == 4000);
    RB_CHECK(v && !strcmp(v->kernels[0], "cudaMemcpyish_kernel"));
    /* process 20: hgemm (pair 1), square (input 0), its first row */
    v = variant_named(&p, "hgemm.square@64M", "library");
    RB_CHECK(v && v->profiled && rb_profile_dram_bytes(v) == 500);
    v = variant_named(&p, "hgemm.square@64M", "optimized"); /* no window of it */
    RB_CHECK(v && !v->profiled);
    /* the mark for a variant 9 the row has not: its launch is unmatched; process 30 has no
     * marks and is matched by its kernel's name to the first row no process has */
    RB_CHECK(p.unmatched == 1);
    v = variant_named(&p, "hgemm.square@36M", "fp8");
    RB_CHECK(v && v->profiled && rb_profile_dram_bytes(v) == 100);
    rb_profile_free(&p);
    rb_profile_capture_free(&c);
}

/* ---- the document and the chart ---- */

static rb_profile_roofs h200_roofs(void)
{
    rb_profile_roofs r;
    json_value *e = json_parse_file("expectations/nvidia-h200.json", NULL, 0);
    rb_profile_roofs_from(e, "expectations/nvidia-h200.json", &r);
    json_free(e);
    return r;
}

static void document_holds_the_schema(void)
{
    rb_profile p;
    rb_profile_job jobs[5];
    RB_CHECK(build_from_capture(&p, jobs) == 0);
    rb_profile_roofs r = h200_roofs();
    RB_CHECK(r.level_gbps[RB_LEVEL_DRAM] > 0 && r.level_gbps[RB_LEVEL_L2] > 0 &&
             r.level_gbps[RB_LEVEL_L1] > 0 && r.bf16_tflops > 0);
    rb_profile_meta m = {"abc1234", "2026-12-02T18:00:00Z", "full", "Version 2025.3.1.0", "x",
                         NAN};
    json_value *d = rb_profile_document(&p, &r, &m);
    char *text = d ? json_write(d, 2) : NULL;
    json_value *back = text ? json_parse(text, strlen(text), NULL, 0) : NULL;
    RB_CHECK(back != NULL);
    RB_CHECK(json_number_at(back, "schema") == 1);
    RB_CHECK(!strcmp(json_string_at(back, "kind", ""), "roofbench-profile"));
    RB_CHECK(!strcmp(json_string_at(back, "device", ""), "NVIDIA H200"));
    const json_value *vs = json_get(back, "variants");
    RB_CHECK(vs && vs->type == JSON_ARRAY && (int)vs->count == p.n);
    const json_value *v0 = vs && vs->count ? vs->items[0] : NULL;
    RB_CHECK(v0 && !strcmp(json_string_at(v0, "work_model", ""), "more"));
    const json_value *metrics = json_get(v0, "metrics");
    /* a metric the capture lacks is null, never 0 */
    const json_value *l2 = json_get(metrics, "l2_bytes");
    RB_CHECK(l2 && l2->type == JSON_NULL);
    const json_value *points = json_get(v0, "points");
    RB_CHECK(points && points->type == JSON_ARRAY && points->count == RB_LEVEL_COUNT);
    RB_CHECK(text && strstr(text, "\"per_issue\"") && strstr(text, "\"share\""));
    json_free(back);
    json_free(d);
    free(text);
    rb_profile_free(&p);
}

static int count_of(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* The chart: valid XML; one marker per level with bytes for every variant with FLOPs (hgemm's
 * seven profiled variants here: DRAM bytes only in this capture), none for the copies; a roof per
 * measured level. Without roofs (the planted defect: an expectation file not read) no roof is
 * drawn, and the labels say so. */
static void chart_draws_points_and_roofs(void)
{
    rb_profile p;
    rb_profile_job jobs[5];
    RB_CHECK(build_from_capture(&p, jobs) == 0);
    rb_profile_roofs r = h200_roofs(), none;
    rb_profile_roofs_none(&none);
    rb_sbuf b = {0}, c = {0};
    rb_plot_hier_svg(&b, &p, &r);
    rb_plot_hier_svg(&c, &p, &none);
    char *svg = rb_sbuf_take(&b), *bare = rb_sbuf_take(&c);
    RB_CHECK(svg && !rb_test_xml_problem(svg));
    RB_CHECK(svg && count_of(svg, "class=\"hier-point\"") == 7 + RB_LEVEL_COUNT);
    RB_CHECK(svg && strstr(svg, "DRAM 4275 GB/s") && strstr(svg, "L2 8333 GB/s") &&
             strstr(svg, "L1/shared 33116 GB/s"));
    RB_CHECK(svg && strstr(svg, "hgemm.square@64M/optimized") && !strstr(svg, "copy_coalescing/"));
    RB_CHECK(bare && !strstr(bare, "GB/s") && !strstr(bare, "BF16 "));
    free(svg);
    free(bare);
    rb_profile_free(&p);
}

static void tables_and_html_show_stalls(void)
{
    rb_profile p;
    rb_profile_job jobs[5];
    RB_CHECK(build_from_capture(&p, jobs) == 0);
    rb_profile_roofs r = h200_roofs();
    rb_sbuf t = {0}, m = {0}, h = {0};
    rb_profile_tables(&t, &p, &r, 0);
    rb_profile_tables(&m, &p, &r, 1);
    rb_profile_html(&h, &p, &r, "profile");
    char *text = rb_sbuf_take(&t), *md = rb_sbuf_take(&m), *html = rb_sbuf_take(&h);
    RB_CHECK(text && strstr(text, "barrier 56%"));
    RB_CHECK(text && strstr(text, "not profiled") && strstr(text, "copy_coalescing/library"));
    RB_CHECK(md && strstr(md, "| copy_coalescing/baseline |"));
    RB_CHECK(html && strstr(html, "class=\"hier-point\""));
    RB_CHECK(html && strstr(html, "Warp stall reasons") && strstr(html, "long_scoreboard"));
    free(text);
    free(md);
    free(html);
    rb_profile_free(&p);
}

/* ---- the command ---- */

/* A folder holding a stand-in ncu (a shell script), put first on PATH; CUDA_HOME unset. */
static char saved_path[8192];
static void with_fake_ncu(const char *dir, const char *script)
{
    char path[600];
    snprintf(path, sizeof path, "%s/ncu", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(script, f);
        fclose(f);
    }
    chmod(path, 0755);
    const char *old = getenv("PATH");
    snprintf(saved_path, sizeof saved_path, "%s", old ? old : "/usr/bin:/bin");
    char with[9000];
    snprintf(with, sizeof with, "%s:%s", dir, saved_path);
    setenv("PATH", with, 1);
    unsetenv("CUDA_HOME");
}

static void restore_path(void)
{
    setenv("PATH", saved_path, 1);
}

static int exists_in(const char *dir, const char *name)
{
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* No ncu: one line, exit 2, nothing written. */
static void without_ncu_exits_2(void)
{
    const char *dir = rbtest_fresh_dir();
    const char *old = getenv("PATH"), *home = getenv("CUDA_HOME");
    char keep_path[8192], keep_home[1024];
    snprintf(keep_path, sizeof keep_path, "%s", old ? old : "");
    snprintf(keep_home, sizeof keep_home, "%s", home ? home : "");
    setenv("PATH", "/nonexistent", 1);
    unsetenv("CUDA_HOME");
    int rc = rbtest_run("profile --filter '^copy_vectorized$' -o out/p");
    setenv("PATH", keep_path, 1);
    if (home)
        setenv("CUDA_HOME", keep_home, 1);
    RB_CHECK(rc == 2);
    RB_CHECK(strstr(rbtest_output(), "no ncu (Nsight Compute)") != NULL);
    RB_CHECK(!exists_in(dir, "out"));
    rbtest_remove_dir();
}

/* ncu refused the counters (a machine without counter access): its ==ERROR== line, exit 2,
 * nothing written. */
static void refused_counters_exit_2(void)
{
    const char *dir = rbtest_fresh_dir();
    with_fake_ncu(dir, "#!/bin/sh\n"
                       "[ \"$1\" = --version ] && { echo 'Version 2025.3.1.0'; exit 0; }\n"
                       "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to "
                       "access NVIDIA GPU Performance Counters on the target device 0.' >&2\n"
                       "exit 1\n");
    int rc = rbtest_run("profile --filter '^copy_vectorized$' -o out/p");
    restore_path();
    RB_CHECK(rc == 2);
    RB_CHECK(strstr(rbtest_output(), "may not read this GPU's performance counters") != NULL);
    RB_CHECK(strstr(rbtest_output(), "ERR_NVGPUCTRPERM") != NULL);
    RB_CHECK(!exists_in(dir, "out"));
    rbtest_remove_dir();
}

/* A stand-in ncu that records how it was called and answers --import with the real capture:
 * the command runs check under it with --clock-control none and children followed, and writes
 * the five files. */
static void profiles_through_ncu(void)
{
    const char *dir = rbtest_fresh_dir();
    char script[4096], cwd[1024];
    if (!getcwd(cwd, sizeof cwd)) {
        RB_CHECK(0);
        return;
    }
    snprintf(script, sizeof script,
             "#!/bin/sh\n"
             "[ \"$1\" = --version ] && { echo 'NVIDIA (R) Nsight Compute'; echo 'Version "
             "2025.3.1.0 (build 1)'; exit 0; }\n"
             "if [ \"$1\" = --import ]; then cat '%s/%s'; exit 0; fi\n"
             "echo \"$@\" RB_PROFILE_WINDOWS=$RB_PROFILE_WINDOWS > '%s/ncu_args'\n"
             "while [ $# -gt 0 ]; do [ \"$1\" = --export ] && : > \"$2\"; shift; done\n"
             "exit 0\n",
             cwd, capture_path, dir);
    with_fake_ncu(dir, script);
    int rc = rbtest_run("profile --filter '^(copy_coalescing|hgemm)$' -o out/p");
    restore_path();
    RB_CHECK(rc == 0);
    char args_path[600];
    snprintf(args_path, sizeof args_path, "%s/ncu_args", dir);
    char *args = rbtest_read_file(args_path);
    RB_CHECK(args && strstr(args, "--clock-control none --target-processes all"));
    /* one window per variant: ncu starts with profiling off, check opens the windows */
    RB_CHECK(args && strstr(args, "--profile-from-start off") && !strstr(args, "--kernel-name"));
    RB_CHECK(args && strstr(args, "RB_PROFILE_WINDOWS=1"));
    RB_CHECK(getenv("RB_PROFILE_WINDOWS") == NULL);
    RB_CHECK(args && strstr(args, " check --filter ^(copy_coalescing|hgemm)$"));
    RB_CHECK(args && strstr(args, "dram__bytes_read.sum") && strstr(args, "WarpStateStats"));
    free(args);
    static const char *const files[] = {"out/p.json", "out/p.md", "out/p.svg", "out/p.html",
                                        "out/p.ncu.csv"};
    for (int k = 0; k < 5; k++)
        RB_CHECK(exists_in(dir, files[k]));
    RB_CHECK(strstr(rbtest_output(), "copy_coalescing/baseline: 2.715 GB from DRAM") != NULL);
    RB_CHECK(strstr(rbtest_output(), "Version 2025.3.1.0") == NULL ||
             strstr(rbtest_output(), "wrote") != NULL);
    rbtest_remove_dir();
}

/* The captures as operands: no ncu, the same document; a capture that is not one is refused
 * with nothing written. */
static void profiles_from_captures(void)
{
    const char *dir = rbtest_fresh_dir();
    char args[1600], cwd[600];
    if (!getcwd(cwd, sizeof cwd)) {
        RB_CHECK(0);
        return;
    }
    snprintf(args, sizeof args, "profile --filter '^copy_coalescing$' -o p '%s/%s' '%s/%s'", cwd,
             capture_path, cwd, capture_path);
    RB_CHECK(rbtest_run(args) == 0);
    RB_CHECK(exists_in(dir, "p.json") && !exists_in(dir, "p.ncu.csv"));
    char path[600];
    snprintf(path, sizeof path, "%s/p.json", dir);
    json_value *d = json_parse_file(path, NULL, 0);
    const json_value *vs = json_get(d, "variants");
    /* the capture given twice: each variant's two launches gathered, as parts profiled apart
     * are */
    RB_CHECK(vs && vs->count == 3 && json_number_at(vs->items[0], "launches") == 2);
    json_free(d);
    snprintf(args, sizeof args, "profile --filter '^copy_coalescing$' -o q '%s/Makefile'", cwd);
    RB_CHECK(rbtest_run(args) == 2);
    RB_CHECK(strstr(rbtest_output(), "no ncu table") != NULL);
    RB_CHECK(!exists_in(dir, "q.json"));
    rbtest_remove_dir();
}

static const rbtest_case profile_cases[] = {
    {"parses_the_real_capture", parses_the_real_capture},
    {"units_are_read_not_assumed", units_are_read_not_assumed},
    {"malformed_captures_are_refused", malformed_captures_are_refused},
    {"appended_captures_merge", appended_captures_merge},
    {"work_model_names_sector_waste", work_model_names_sector_waste},
    {"work_model_tolerance_edges", work_model_tolerance_edges},
    {"launches_go_to_their_own_job", launches_go_to_their_own_job},
    {"a_second_launch_is_left_out", a_second_launch_is_left_out},
    {"windows_give_launches_to_their_variant", windows_give_launches_to_their_variant},
    {"document_holds_the_schema", document_holds_the_schema},
    {"chart_draws_points_and_roofs", chart_draws_points_and_roofs},
    {"tables_and_html_show_stalls", tables_and_html_show_stalls},
    {"without_ncu_exits_2", without_ncu_exits_2},
    {"refused_counters_exit_2", refused_counters_exit_2},
    {"profiles_through_ncu", profiles_through_ncu},
    {"profiles_from_captures", profiles_from_captures},
};
RB_SUITE(profile_suite, "profile", profile_cases);
