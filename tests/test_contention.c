/* SPDX-License-Identifier: MIT */
/*
 * Tier 1 (no GPU): runs that know when the GPU was not theirs (harness/model/contention.c).
 * NVML's process records of both sizes, who is the run's own in a planted process tree, PIDs of
 * another namespace, the test hook's list; and what a contended row does everywhere: its
 * verdict (never regressed ... unexplained), the run's exit, --update-expectations refusing
 * it with nothing written, compare's cause contended, the results and the table. Each check
 * plants the defect it guards against: a foreign process among the run's own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/model/contention.h"
#include "../harness/model/expect.h"
#include "../harness/model/expect_record.h"
#include "../harness/model/report.h"
#include "../harness/model/result.h"
#include "../harness/model/runcmp.h"
#include "rbtest.h"

/* ---- NVML's records ---- */

/* nvml.h's layouts, as the driver writes them */
typedef struct v1_record {
    unsigned pid;
    unsigned long long used;
} v1_record;
typedef struct v2_record {
    unsigned pid;
    unsigned long long used;
    unsigned gpu_instance, compute_instance;
} v2_record;

static void test_decode_both_record_sizes(void)
{
    RB_CHECK(sizeof(v1_record) == RB_NVML_PROCESS_V1_BYTES);
    RB_CHECK(sizeof(v2_record) == RB_NVML_PROCESS_V2_BYTES);
    v1_record a[2] = {{4242, 2147483648ull}, {77, ~0ull}};
    v2_record b[3] = {
        {4242, 2147483648ull, ~0u, ~0u}, {77, 512ull << 20, ~0u, ~0u}, {9, ~0ull, 1, 2}};
    rb_gpu_process out[4];
    int n = rb_gpu_processes_decode((const unsigned char *)a, 2, sizeof a[0], out, 4);
    RB_CHECK(n == 2 && out[0].pid == 4242 && out[0].used_bytes == 2147483648.0);
    RB_CHECK(out[1].pid == 77 && isnan(out[1].used_bytes)); /* NVML_VALUE_NOT_AVAILABLE */
    n = rb_gpu_processes_decode((const unsigned char *)b, 3, sizeof b[0], out, 4);
    RB_CHECK(n == 3 && out[1].pid == 77 && out[1].used_bytes == 512.0 * (1 << 20) &&
             out[2].pid == 9 && isnan(out[2].used_bytes));
    /* planted: the 24-byte records read as 16-byte ones name a process that is not there */
    n = rb_gpu_processes_decode((const unsigned char *)b, 3, RB_NVML_PROCESS_V1_BYTES, out, 4);
    RB_CHECK(n == 3 && out[1].pid != 77);
    /* max, and a size that is neither */
    RB_CHECK(rb_gpu_processes_decode((const unsigned char *)b, 3, sizeof b[0], out, 2) == 2);
    RB_CHECK(rb_gpu_processes_decode((const unsigned char *)b, 3, 20, out, 4) == 0);
}

/* ---- who is whose: a planted process tree ---- */

/* 100 the run's root, started by 50; 101 this child; 102 an earlier child (gone from /proc); 103
 * a helper of this child; 200 a python process under a shell 199; 1 init */
static int planted_parent(int pid)
{
    switch (pid) {
    case 101: return 100;
    case 103: return 101;
    case 200: return 199;
    case 199: return 1;
    case 100: return 50;
    case 50: return 1;
    default: return -1;
    }
}

static void planted_name(int pid, char *out, size_t size)
{
    snprintf(out, size, "%s", pid == 200 ? "python3" : pid == 199 ? "bash" : "?");
}

static rb_own planted_own(int holds_context)
{
    rb_own o;
    rb_own_init(&o, 100, holds_context);
    o.self = 101;
    o.known[o.n_known++] = 102;
    o.parent_of = planted_parent;
    o.name_of = planted_name;
    return o;
}

static rb_gpu_process proc(unsigned pid, double bytes)
{
    rb_gpu_process p = {.pid = pid, .used_bytes = bytes};
    return p;
}

static void test_own_and_foreign(void)
{
    rb_own own = planted_own(1);
    RB_CHECK(rb_own_is(&own, 101) && rb_own_is(&own, 100) && rb_own_is(&own, 102) &&
             rb_own_is(&own, 103));
    RB_CHECK(!rb_own_is(&own, 200) && !rb_own_is(&own, 199) && !rb_own_is(&own, 1));
    /* what started the run (50, the root's parent: a test runner with a context) is its own */
    RB_CHECK(rb_own_is(&own, 50));
    rb_contention c;
    rb_gpu_process clean[3] = {proc(101, 1e9), proc(102, NAN), proc(103, 1e6)};
    RB_CHECK(rb_contention_judge(clean, 3, &own, &c) == 0 && !rb_contention_any(&c));
    /* planted: a python process beside ours */
    rb_gpu_process shared[2] = {proc(101, 1e9), proc(200, 2147483648.0)};
    RB_CHECK(rb_contention_judge(shared, 2, &own, &c) == 1 && rb_contention_any(&c));
    char text[300];
    rb_contention_text(&c, text, sizeof text);
    RB_CHECK(!strcmp(text, "pid 200 (python3, 2.0 GiB)"));
    /* a process /proc does not show: "?" for its name, its memory as NVML says */
    rb_gpu_process hidden[2] = {proc(101, 1e9), proc(31337, NAN)};
    rb_contention_judge(hidden, 2, &own, &c);
    rb_contention_text(&c, text, sizeof text);
    RB_CHECK(!strcmp(text, "pid 31337 (?, memory not reported)"));
    /* the real /proc: this process and its parent are the run's own, init is not */
    rb_own real;
    rb_own_init(&real, (int)getppid(), 0);
    RB_CHECK(rb_own_is(&real, (int)getpid()) && rb_own_is(&real, (int)getppid()) &&
             !rb_own_is(&real, 1));
}

static void test_other_namespace(void)
{
    rb_own own = planted_own(1);
    rb_contention c;
    /* holding a context, not listed, nothing of ours listed: PIDs of another namespace. One
     * entry is this process */
    rb_gpu_process one[1] = {proc(880011, 1e9)};
    RB_CHECK(rb_contention_judge(one, 1, &own, &c) == 0 && !rb_contention_any(&c));
    /* two: the GPU is shared, named as NVML gives them, no names */
    rb_gpu_process two[2] = {proc(880011, 1e9), proc(880012, 3e9)};
    RB_CHECK(rb_contention_judge(two, 2, &own, &c) == 2 && c.other_namespace);
    char text[400];
    rb_contention_text(&c, text, sizeof text);
    RB_CHECK(strstr(text, "pid 880012 (?, 2.8 GiB)") && strstr(text, "another namespace"));
    /* not holding a context (between pairs): any entry is another's */
    own.holds_context = 0;
    RB_CHECK(rb_contention_judge(one, 1, &own, &c) == 1 && !c.other_namespace);
}

static void test_hook_list(void)
{
    rb_gpu_process p[8];
    int n = 0;
    RB_CHECK(rb_gpu_processes_parse("self:roofbench:1e9,4242:python3:2147483648,root::-", 101, 100,
                                    p, 8, &n) == 0);
    RB_CHECK(n == 3 && p[0].pid == 101 && p[1].pid == 4242 && !strcmp(p[1].name, "python3") &&
             p[1].used_bytes == 2147483648.0 && p[2].pid == 100 && isnan(p[2].used_bytes));
    RB_CHECK(rb_gpu_processes_parse("", 1, 1, p, 8, &n) == 0 && n == 0);
    static const char *const bad[] = {"4242",  "4242:x",  "x:y:1", "-3:a:1",
                                      "1:a:b", "1:a:1:2", "1:a:-5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        RB_CHECK(rb_gpu_processes_parse(bad[i], 1, 1, p, 8, &n) == -1);
    RB_CHECK(rb_gpu_processes_parse("1:a:1,2:b:2", 1, 1, p, 1, &n) == -1); /* more than max */
    /* the hook's names stand for /proc's: judged as NVML's list would be */
    rb_own own = planted_own(1);
    RB_CHECK(rb_gpu_processes_parse("self:roofbench:1e9,4242:python3:1073741824", 101, 100, p, 8,
                                    &n) == 0);
    rb_contention c;
    RB_CHECK(rb_contention_judge(p, n, &own, &c) == 1 && c.p[0].pid == 4242 &&
             !strcmp(c.p[0].name, "python3"));
}

static void test_merge_text_and_json(void)
{
    rb_contention a, b;
    rb_contention_init(&a);
    rb_contention_init(&b);
    a.n = 1;
    a.p[0] = proc(200, 1e9);
    snprintf(a.p[0].name, sizeof a.p[0].name, "python3");
    b.n = 2;
    b.p[0] = proc(200, 2e9); /* the same process, more memory later */
    b.p[1] = proc(300, NAN);
    rb_contention_merge(&a, &b);
    RB_CHECK(a.n == 2 && a.p[0].used_bytes == 2e9 && !strcmp(a.p[0].name, "python3"));
    for (unsigned pid = 400; pid < 404; pid++) {
        rb_contention one;
        rb_contention_init(&one);
        one.n = 1;
        one.p[0] = proc(pid, 1);
        rb_contention_merge(&a, &one);
    }
    RB_CHECK(a.n == RB_CONTENTION_MAX && a.more == 2);
    char text[400];
    rb_contention_text(&a, text, sizeof text);
    RB_CHECK(strstr(text, " and 2 more"));
    json_value *o = json_new_object();
    RB_CHECK(rb_contention_to_json(&a, o, "contended_by") == 0);
    rb_contention back;
    char err[200];
    RB_CHECK(rb_contention_from_json(o, "contended_by", &back, err, sizeof err) == 0);
    RB_CHECK(back.n == a.n && back.more == 2 && back.p[0].pid == 200 &&
             !strcmp(back.p[0].name, "python3") && isnan(back.p[1].used_bytes));
    json_free(o);
    const char *bad = "{\"contended_by\": [{\"pid\": -1}]}";
    json_value *d = json_parse(bad, strlen(bad), err, sizeof err);
    RB_CHECK(d && rb_contention_from_json(d, "contended_by", &back, err, sizeof err) == -1);
    json_free(d);
    /* a busy GPU with nothing listed */
    rb_contention_init(&a);
    a.unlisted_util = 87;
    RB_CHECK(rb_contention_any(&a));
    rb_contention_text(&a, text, sizeof text);
    RB_CHECK(!strcmp(text, "the GPU 87% busy with no process listed"));
}

/* ---- what a contended row does ---- */

static void timed(rb_pair_result *p, const char *name, double median_ms)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->size = p->full_size = 1024;
    p->rows = 1;
    p->bytes = 8192;
    p->idle_gpu_util = p->idle_mem_util = NAN;
    rb_variant_result *v = &p->v[p->n_variants++];
    rb_variant_result_init(v, "baseline", RB_ROLE_BASELINE, RB_UNIT_NONE, 1e-6);
    v->valid = v->timed = 1;
    v->rel_err_before = v->rel_err_after = 0;
    v->time_ms.median = v->time_ms.min = v->time_ms.max = v->time_ms.p10 = v->time_ms.p90 =
        median_ms;
    v->time_ms.ci_lo = v->time_ms.ci_hi = median_ms;
    v->time_ms.noise = 0.001;
    v->time_ms.n = 100;
}

static void plant_python(rb_contention *c)
{
    rb_contention_init(c);
    c->n = 1;
    c->p[0] = proc(4242, 2147483648.0);
    snprintf(c->p[0].name, sizeof c->p[0].name, "python3");
}

static json_value *expectations(void)
{
    const char *text =
        "{\"schema\": 1, \"hardware\": {\"name\": \"NVIDIA H200\"}, \"peaks\": {},"
        " \"ceilings\": {}, \"pairs\": {\"reduction\": {\"size\": 1024, \"variants\":"
        " {\"baseline\": {\"median_ms\": 1.0, \"noise\": 0.001}}}}}";
    char err[200];
    return json_parse(text, strlen(text), err, sizeof err);
}

static void test_contended_verdict_fails_the_run(void)
{
    rb_expect e = {0};
    e.doc = expectations();
    rb_pair_result p[2];
    timed(&p[0], "reduction", 1.974); /* +97.4%, as on the shared H200 */
    plant_python(&p[0].v[0].contended_by);
    RB_CHECK(rb_expect_apply(&e, p, 1) == 1);
    const rb_variant_result *v = &p[0].v[0];
    RB_CHECK(v->verdict == RB_VERDICT_CONTENDED &&
             !strcmp(rb_verdict_name(v->verdict), "contended"));
    RB_CHECK(!strcmp(v->cause, "contended") && strstr(v->evidence, "pid 4242 (python3, 2.0 GiB)"));
    RB_CHECK(strstr(v->evidence, "+97.4% against the expectation, which would read regressed"));
    RB_CHECK(rb_expect_failing(p, 1, 0, 0) == 1);
    /* the same time on a GPU of its own: regressed, as ever (the control) */
    timed(&p[1], "reduction", 1.974);
    RB_CHECK(rb_expect_apply(&e, &p[1], 1) == 1 && p[1].v[0].verdict == RB_VERDICT_REGRESSED);
    /* contended and within its threshold: still contended, still failing (no trusted pass) */
    timed(&p[0], "reduction", 1.0);
    plant_python(&p[0].v[0].contended_by);
    RB_CHECK(rb_expect_apply(&e, p, 1) == 1 && p[0].v[0].verdict == RB_VERDICT_CONTENDED);
    /* with no expectation: contended, not new */
    RB_CHECK(rb_expect_apply(NULL, p, 1) == 1 && p[0].v[0].verdict == RB_VERDICT_CONTENDED);
    /* an invalid result stays invalid */
    p[0].v[0].valid = 0;
    rb_expect_apply(&e, p, 1);
    RB_CHECK(p[0].v[0].verdict == RB_VERDICT_INVALID);
    json_free(e.doc);
}

static void test_update_expectations_refuses_contended(void)
{
    json_value *before = expectations(), *doc = json_clone(before);
    char *text_before = json_write(doc, 0);
    rb_pair_result p[1], earlier[1];
    timed(&p[0], "reduction", 1.0);
    plant_python(&p[0].v[0].contended_by);
    char err[600];
    RB_CHECK(rb_expect_update(&doc, p, 1, NULL, NULL, NULL, err, sizeof err) == -1);
    RB_CHECK(strstr(err, "not recording expectations") && strstr(err, "pid 4242") &&
             strstr(err, "nothing written"));
    char *text_after = json_write(doc, 0);
    RB_CHECK(text_before && text_after && !strcmp(text_before, text_after)); /* untouched */
    free(text_after);
    /* seen only at a pair's start, between pairs */
    timed(&p[0], "reduction", 1.0);
    plant_python(&p[0].contended_at_start);
    RB_CHECK(rb_expect_update(&doc, p, 1, NULL, NULL, NULL, err, sizeof err) == -1);
    /* in an earlier run of --repeat */
    timed(&p[0], "reduction", 1.0);
    timed(&earlier[0], "reduction", 1.0);
    plant_python(&earlier[0].v[0].contended_by);
    const rb_pair_result *runs[1] = {earlier};
    RB_CHECK(rb_expect_update_runs(&doc, p, 1, runs, 1, NULL, NULL, NULL, NULL, err, sizeof err) ==
             -1);
    text_after = json_write(doc, 0);
    RB_CHECK(text_after && !strcmp(text_before, text_after));
    free(text_after);
    /* the control: a clean run records */
    timed(&earlier[0], "reduction", 1.0);
    RB_CHECK(rb_expect_update_runs(&doc, p, 1, runs, 1, NULL, NULL, NULL, json_new_object(), err,
                                   sizeof err) == 0);
    free(text_before);
    json_free(doc);
    json_free(before);
}

/* A results document of pair "reduction" (variant "baseline", median ms), contended by pid
 * 4242 when asked; a platform reference of the DRAM roof given. */
static json_value *run_doc(double median, int contended, double dram_gbps)
{
    char text[2000], err[200];
    snprintf(text, sizeof text,
             "{\"git\": \"g\", \"date\": \"d\", \"platform\": {\"dram_gbps\": %.17g},"
             " \"roofs\": {\"dram_gbps\": {\"measured\": %.17g}},"
             " \"contention\": {\"checked\": true, \"contended\": %s},"
             " \"pairs\": [{\"name\": \"reduction\", \"size\": 1024, \"kernels\": [],"
             " \"variants\": [{\"name\": \"baseline\", \"valid\": true, \"timed\": true,"
             " \"roof\": \"dram_gbps\", \"time_ms\": {\"median\": %.17g, \"median_ci_lo\": %.17g,"
             " \"median_ci_hi\": %.17g, \"noise\": 0.01, \"samples\": 50}%s}]}]}",
             dram_gbps, dram_gbps, contended ? "true" : "false", median, median * 0.998,
             median * 1.002,
             contended ? ", \"contended\": true, \"contended_by\": [{\"pid\": 4242, \"name\":"
                         " \"python3\", \"used_memory_bytes\": 2147483648}]"
                       : "");
    return json_parse(text, strlen(text), err, sizeof err);
}

static void test_compare_attributes_contended(void)
{
    rb_runcmp c;
    char err[200];
    json_value *clean = run_doc(1.0, 0, 4239), *shared = run_doc(1.974, 1, 4239);
    RB_CHECK(rb_runcmp_build(clean, shared, &c, err, sizeof err) == 0 && c.n_rows == 1);
    const rb_runcmp_row *r = &c.rows[0];
    RB_CHECK(r->change == RB_CHANGE_SLOWER && r->cause == RB_CAUSE_CONTENDED && r->contended);
    RB_CHECK(!strcmp(rb_cause_name(r->cause), "contended"));
    RB_CHECK(strstr(r->evidence, "NEW timed it while pid 4242 (python3, 2.0 GiB) used the GPU"));
    RB_CHECK(rb_runcmp_failing(&c, 0) == 1 && rb_runcmp_contended(&c) == 1);
    /* the environment diff says the run was shared */
    int said = 0;
    for (int i = 0; i < c.n_env; i++)
        said |= !strcmp(c.env[i].key, "contention.contended");
    RB_CHECK(said);
    json_value *out = rb_runcmp_json(&c, "clean.json", "contended.json", 0);
    const json_value *row = json_get(out, "variants")->items[0];
    RB_CHECK(!strcmp(json_string_at(row, "attribution", ""), "contended") &&
             json_true_at(row, "contended"));
    json_free(out);
    rb_runcmp_free(&c);
    /* contended comes first: a platform reference that moved with the co-runner explains
     * nothing here */
    json_free(shared);
    shared = run_doc(1.974, 1, 4239 / 1.974);
    RB_CHECK(rb_runcmp_build(clean, shared, &c, err, sizeof err) == 0);
    RB_CHECK(c.rows[0].cause == RB_CAUSE_CONTENDED);
    rb_runcmp_free(&c);
    /* the control: the same slowdown between two clean runs is unexplained */
    json_free(shared);
    shared = run_doc(1.974, 0, 4239);
    RB_CHECK(rb_runcmp_build(clean, shared, &c, err, sizeof err) == 0);
    RB_CHECK(c.rows[0].cause == RB_CAUSE_UNEXPLAINED && rb_runcmp_contended(&c) == 0);
    rb_runcmp_free(&c);
    /* the contended run as OLD: a faster NEW is contended too, and fails nothing */
    json_free(shared);
    shared = run_doc(1.974, 1, 4239);
    RB_CHECK(rb_runcmp_build(shared, clean, &c, err, sizeof err) == 0);
    RB_CHECK(c.rows[0].change == RB_CHANGE_FASTER && c.rows[0].cause == RB_CAUSE_CONTENDED &&
             rb_runcmp_failing(&c, 0) == 0);
    rb_runcmp_free(&c);
    json_free(shared);
    json_free(clean);
}

static void test_results_table_and_run_record(void)
{
    rb_pair_result p[2];
    timed(&p[0], "reduction", 1.974);
    timed(&p[1], "softmax", 1.0);
    plant_python(&p[0].v[0].contended_by);
    plant_python(&p[1].contended_at_start);
    rb_expect_apply(NULL, p, 2);
    /* the variant's record carries the processes, and reads back contended */
    json_value *o = rb_variant_to_json(&p[0].v[0]);
    RB_CHECK(json_true_at(o, "contended") && json_get(o, "contended_by"));
    rb_variant_result back;
    char err[200];
    RB_CHECK(rb_variant_from_json(o, &back, err, sizeof err) == 0 && rb_variant_contended(&back) &&
             back.contended_by.p[0].pid == 4242);
    json_free(o);
    /* a file that says contended and names nobody is still contended */
    const char *bare = "{\"name\": \"x\", \"role\": \"baseline\", \"unit\": \"none\","
                       " \"time_ms\": {}, \"contended\": true}";
    json_value *d = json_parse(bare, strlen(bare), err, sizeof err);
    RB_CHECK(d && rb_variant_from_json(d, &back, err, sizeof err) == 0 &&
             rb_variant_contended(&back));
    json_free(d);
    /* the run's record: where and who */
    rb_gpu_check start;
    rb_gpu_check_init(&start);
    start.checked = 1;
    json_value *run = rb_report_contention_json(&start, p, 2);
    RB_CHECK(run && json_true_at(run, "checked") && json_true_at(run, "contended"));
    RB_CHECK(
        !strcmp(json_string_at(run, "where", ""), "reduction/baseline, softmax (at its start)"));
    RB_CHECK(json_get(run, "processes") && json_get(run, "processes")->count == 1);
    json_free(run);
    /* the table's note, the summary's count and the line under it */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rb_report_table(f, p, 2, 0);
    rb_report_summary(f, p, 2);
    rb_report_energy_and_contention(f, &start, p, 2);
    fclose(f);
    RB_CHECK(text && strstr(text, "contended: reduction/baseline: pid 4242 (python3, 2.0 GiB)"));
    const char *first = text ? strstr(text, "contended: reduction/baseline:") : NULL;
    RB_CHECK(first && !strstr(first + 1, "contended: reduction/baseline:")); /* said once */
    RB_CHECK(text && strstr(text, "verdicts: 1 new, 1 contended"));
    RB_CHECK(text && strstr(text, "contended: pid 4242 (python3, 2.0 GiB) used the GPU during"));
    free(text);
    /* a run that could not look says so once */
    snprintf(start.why, sizeof start.why, "libnvidia-ml.so.1 not loadable");
    start.checked = 0;
    timed(&p[0], "reduction", 1.0);
    f = open_memstream(&text, &len);
    rb_report_energy_and_contention(f, &start, p, 1);
    fclose(f);
    RB_CHECK(text && strstr(text, "contention: not checked (libnvidia-ml.so.1 not loadable)"));
    free(text);
}

static void test_gpu_check_record(void)
{
    rb_gpu_check g, back;
    rb_gpu_check_init(&g);
    g.checked = 1;
    g.gpu_util = 87;
    g.mem_util = 60;
    plant_python(&g.seen);
    json_value *o = json_new_object();
    char err[200];
    RB_CHECK(rb_gpu_check_to_json(&g, o) == 0);
    RB_CHECK(rb_gpu_check_from_json(o, &back, err, sizeof err) == 0);
    RB_CHECK(back.checked && back.gpu_util == 87 && back.mem_util == 60 && back.seen.n == 1 &&
             back.seen.p[0].pid == 4242);
    json_free(o);
    /* unchecked: the reason travels, no utilization is made up */
    rb_gpu_check_init(&g);
    snprintf(g.why, sizeof g.why, "no NVML");
    o = json_new_object();
    RB_CHECK(rb_gpu_check_to_json(&g, o) == 0 && !json_get(o, "utilization_gpu_pct"));
    RB_CHECK(rb_gpu_check_from_json(o, &back, err, sizeof err) == 0 && !back.checked &&
             !strcmp(back.why, "no NVML") && isnan(back.gpu_util));
    json_free(o);
}

/* A run's results document of reduction (median ms), contended by pid 4242 when asked: as run
 * writes it, its contention object beside its pairs. */
static json_value *recorded_run(double ms, int contended)
{
    const char *meta =
        "{\"schema\": 1, \"tool\": \"roofbench\", \"date\": \"2026-12-01T10:00:00Z\","
        " \"git\": \"abc1234\", \"size\": \"full\", \"hardware_key\": \"nvidia-h200\","
        " \"environment\": {\"start\": {\"device\": \"NVIDIA H200\", \"cc\": \"9.0\","
        " \"sms\": 132, \"uuid\": \"GPU-aaaa\", \"build_arch\": \"sm_90\","
        " \"build_nvcc\": \"13.0\"}}}";
    char err[200];
    rb_pair_result p;
    timed(&p, "reduction", ms);
    p.wall_s = 1.0;
    if (contended)
        plant_python(&p.v[0].contended_by);
    rb_gpu_check start;
    rb_gpu_check_init(&start);
    start.checked = 1;
    json_value *m = json_parse(meta, strlen(meta), err, sizeof err);
    json_object_set(m, "contention", rb_report_contention_json(&start, &p, 1));
    rb_roofs none;
    rb_roofs_unknown(&none);
    return rb_report_json(&p, 1, &none, &none, m);
}

static void test_record_refuses_contended_runs(void)
{
    json_value *docs[3];
    rb_record_run runs[3] = {{"a.json", NULL}, {"b.json", NULL}, {"c.json", NULL}};
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < 3; r++) {
            docs[r] = recorded_run(1.0 + 0.01 * r, pass == 1 && r == 1);
            runs[r].doc = docs[r];
        }
        json_value *doc = expectations(), *copy = json_clone(doc);
        rb_pair_result *rows = NULL;
        int n = 0;
        char err[600] = "";
        int rc = rb_expect_record_runs(&doc, runs, 3, &rows, &n, err, sizeof err);
        char *a = json_write(doc, 0), *b = json_write(copy, 0);
        if (pass == 0) { /* the control: three clean runs record */
            RB_CHECK(rc == 0 && n == 1);
            if (rc != 0)
                printf("    %s\n", err);
        } else { /* planted: the second shared its GPU */
            RB_CHECK(rc == -1 && a && b && !strcmp(a, b));
            RB_CHECK(strstr(err, "b.json: contended: pid 4242 (python3, 2.0 GiB) used the GPU") &&
                     strstr(err, "reduction/baseline") && strstr(err, "not recorded"));
        }
        free(a);
        free(b);
        free(rows);
        json_free(doc);
        json_free(copy);
        for (int r = 0; r < 3; r++)
            json_free(docs[r]);
    }
}

static const rbtest_case contention_cases[] = {
    {"decode_both_record_sizes", test_decode_both_record_sizes},
    {"own_and_foreign", test_own_and_foreign},
    {"other_namespace", test_other_namespace},
    {"hook_list", test_hook_list},
    {"merge_text_and_json", test_merge_text_and_json},
    {"contended_verdict_fails_the_run", test_contended_verdict_fails_the_run},
    {"update_expectations_refuses_contended", test_update_expectations_refuses_contended},
    {"record_refuses_contended_runs", test_record_refuses_contended_runs},
    {"compare_attributes_contended", test_compare_attributes_contended},
    {"results_table_and_run_record", test_results_table_and_run_record},
    {"gpu_check_record", test_gpu_check_record},
};

RB_SUITE(contention_suite, "contention", contention_cases);
