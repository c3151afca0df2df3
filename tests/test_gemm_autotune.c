/* SPDX-License-Identifier: MIT */
/* Tier 1 (no GPU): the cuBLASLt tuning cache and selection rule (harness/kit/gemm_tune.c):
 * the path rules, a round trip, a missing file, a corrupt file, a wrong schema, a stale
 * cuBLASLt version, and a noisy win that must not replace the heuristic's first choice; and the
 * GEMM pairs' shared rules (harness/kit/gemm_ref.h): the square shape, the rows the CPU checks, the
 * bf16 widening. */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/model/json.h"
#include "../harness/kit/gemm_ref.h"
#include "../harness/kit/gemm_tune.h"
#include "rbtest.h"

extern const rbtest_suite autotune_suite;

enum { HIT = 1, MISS = 0, STALE = -1, CORRUPT = -2 }; /* the lookup's results */

static char dir[64], cache[128];
static const uint64_t words[8] = {0,
                                  ~(uint64_t)0,
                                  (uint64_t)1 << 63,
                                  0x0123456789abcdefull,
                                  0xfedcba9876543210ull,
                                  ((uint64_t)1 << 53) | 1, /* not representable as a double */
                                  42,
                                  0x00000000ffffffffull};
static const double times[4] = {1.0, 0.9, INFINITY, 0.95};

/* A fresh folder with the cache path in it (not created). 0 when mkdtemp failed. */
static int fresh(void)
{
    snprintf(dir, sizeof dir, "/tmp/rbautotune.XXXXXX");
    if (!mkdtemp(dir)) {
        rbtest_skip("mkdtemp failed");
        return 0;
    }
    snprintf(cache, sizeof cache, "%s/sub/dir/gemm_autotune.json", dir);
    return 1;
}

static void cleanup(void)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (strncmp(dir, "/tmp/rbautotune.", 16) == 0 && system(cmd) != 0)
        printf("    could not remove %s\n", dir);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    RB_CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int lookup(const char *key, uint64_t version, char *why, size_t why_size)
{
    uint64_t got[8];
    int index = -1, candidates = -1;
    double gain;
    return rb_tune_cache_lookup(cache, key, version, got, &index, &candidates, &gain, why,
                                      why_size);
}

static void test_path_rules(void)
{
    char p[256];
    RB_CHECK(rb_tune_cache_path(p, sizeof p, "/x/c.json", "/xdg", "/home/u") == 0);
    RB_CHECK(strcmp(p, "/x/c.json") == 0);
    RB_CHECK(rb_tune_cache_path(p, sizeof p, "", "/xdg", "/home/u") == 0);
    RB_CHECK(strcmp(p, "/xdg/roofbench/gemm_autotune.json") == 0);
    RB_CHECK(rb_tune_cache_path(p, sizeof p, NULL, "relative", "/home/u") == 0);
    RB_CHECK(strcmp(p, "/home/u/.cache/roofbench/gemm_autotune.json") == 0);
    RB_CHECK(rb_tune_cache_path(p, sizeof p, NULL, NULL, "/home/u") == 0);
    RB_CHECK(strcmp(p, "/home/u/.cache/roofbench/gemm_autotune.json") == 0);
    RB_CHECK(rb_tune_cache_path(p, sizeof p, NULL, "", "") == -1);
    RB_CHECK(rb_tune_cache_path(p, 8, "/a/long/path.json", NULL, NULL) == -1);
}

static void test_key_names_everything(void)
{
    char k1[512], k2[512];
    rb_tune_cache_key(k1, sizeof k1, "NVIDIA H100 80GB HBM3", 90, 4000, 3000, 5727);
    rb_tune_cache_key(k2, sizeof k2, "NVIDIA H100 80GB HBM3", 90, 4000, 3000, 5728);
    RB_CHECK(strstr(k1, "NVIDIA H100 80GB HBM3") && strstr(k1, "9.0") &&
             strstr(k1, "M=4000 N=3000 K=5727") && strstr(k1, "bf16") && strstr(k1, "TN"));
    RB_CHECK(strcmp(k1, k2) != 0);
    rb_tune_cache_key(k2, sizeof k2, "NVIDIA H200", 90, 4000, 3000, 5727);
    RB_CHECK(strcmp(k1, k2) != 0);
}

static void test_round_trip_and_missing_file(void)
{
    char why[600], err[600];
    uint64_t got[8];
    int index = -1, candidates = -1;
    double gain = 0;
    if (!fresh())
        return;
    RB_CHECK(lookup("k", 130100, why, sizeof why) == MISS); /* no file at all */
    RB_CHECK(strstr(why, "no cache file") != NULL);
    RB_CHECK(rb_tune_cache_store(cache, "k", 130100, words, 3, 4, times, err, sizeof err) ==
             0); /* creates sub/dir */
    RB_CHECK(rb_tune_cache_lookup(cache, "k", 130100, got, &index, &candidates, &gain, why,
                                        sizeof why) == HIT);
    RB_CHECK(memcmp(got, words, sizeof got) == 0);
    RB_CHECK(index == 3 && candidates == 4);
    RB_CHECK_NEAR(gain, 1.0 / 0.95, 1e-12);
    /* a second key is added beside the first; the first is replaced in place */
    RB_CHECK(rb_tune_cache_store(cache, "k2", 130100, words, 0, 1, times, err, sizeof err) ==
             0);
    RB_CHECK(rb_tune_cache_store(cache, "k", 130100, words, 1, 2, times, err, sizeof err) ==
             0);
    RB_CHECK(rb_tune_cache_lookup(cache, "k", 130100, got, &index, &candidates, &gain, why,
                                        sizeof why) == HIT);
    RB_CHECK(index == 1 && candidates == 2);
    RB_CHECK(lookup("k2", 130100, why, sizeof why) == HIT);
    RB_CHECK(lookup("other", 130100, why, sizeof why) == MISS); /* a valid file, no entry */
    /* the failed candidate's time is written as null, and the file is strict JSON */
    json_value *v = json_parse_file(cache, err, sizeof err);
    RB_CHECK(v != NULL);
    const json_value *t = json_get(json_get(json_get(v, "entries"), "k2"), "median_ms");
    RB_CHECK(t && t->count == 1);
    json_free(v);
    /* the atomic write leaves no temporary file behind */
    char sub[200];
    snprintf(sub, sizeof sub, "%s/sub/dir", dir);
    DIR *d = opendir(sub);
    int files = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        files += e->d_name[0] != '.';
    if (d)
        closedir(d);
    RB_CHECK(files == 1);
    cleanup();
}

static void test_null_time_for_failed_candidate(void)
{
    char err[600];
    if (!fresh())
        return;
    RB_CHECK(rb_tune_cache_store(cache, "k", 7, words, 1, 4, times, err, sizeof err) == 0);
    json_value *v = json_parse_file(cache, err, sizeof err);
    const json_value *t = json_get(json_get(json_get(v, "entries"), "k"), "median_ms");
    RB_CHECK(t && t->count == 4 && t->items[2]->type == JSON_NULL);
    RB_CHECK(t && t->items[1]->type == JSON_NUMBER && t->items[1]->number == 0.9);
    json_free(v);
    cleanup();
}

static void test_corrupt_file_detected_and_rebuilt(void)
{
    char why[600], err[600];
    if (!fresh())
        return;
    RB_CHECK(rb_tune_cache_store(cache, "k", 1, words, 0, 1, times, err, sizeof err) == 0);
    write_text(cache, "{\"schema\": 1, \"entries\": {\"k\": {\"cublaslt_version\": 1,");
    RB_CHECK(lookup("k", 1, why, sizeof why) == CORRUPT);
    RB_CHECK(strstr(why, cache) && strstr(why, "line 1"));
    write_text(cache, "");
    RB_CHECK(lookup("k", 1, why, sizeof why) == CORRUPT);
    write_text(cache, "\x01\x02garbage");
    RB_CHECK(lookup("k", 1, why, sizeof why) == CORRUPT);
    /* storing rebuilds the file from scratch, and it is then read back */
    RB_CHECK(rb_tune_cache_store(cache, "k", 1, words, 0, 1, times, err, sizeof err) == 0);
    RB_CHECK(lookup("k", 1, why, sizeof why) == HIT);
    cleanup();
}

/* A valid file with one thing changed: every one is refused as corrupt, naming the problem. */
static void test_wrong_schema_refused(void)
{
    static const char *const head = "{\"schema\": 1, \"entries\": {\"k\": ";
    static const char *const good_algo = "[\"0x0000000000000000\", \"0x0000000000000001\", "
                                         "\"0x0000000000000002\", \"0x0000000000000003\", "
                                         "\"0x0000000000000004\", \"0x0000000000000005\", "
                                         "\"0x0000000000000006\", \"0x0000000000000007\"]";
    struct {
        const char *text, *needle;
    } cases[] = {
        {"[]", "exactly \"schema\" and \"entries\""},
        {"{\"schema\": 2, \"entries\": {}}", "schema: expected 1"},
        {"{\"schema\": 1, \"entries\": []}", "entries: expected an object"},
        {"{\"schema\": 1, \"entries\": {}, \"more\": 1}", "exactly"},
        {"ENTRY{\"cublaslt_version\": 1, \"algo\": ALGO, \"candidate_index\": 0, "
         "\"candidates\": 1, \"median_ms\": [1.0], \"recorded\": \"x\", \"extra\": 1}}}",
         "unknown key \"extra\""},
        {"ENTRY{\"cublaslt_version\": 1, \"algo\": ALGO, \"candidate_index\": 0, "
         "\"candidates\": 1, \"median_ms\": [1.0]}}}",
         "missing \"recorded\""},
        {"ENTRY{\"cublaslt_version\": -1, \"algo\": ALGO, \"candidate_index\": 0, "
         "\"candidates\": 1, \"median_ms\": [1.0], \"recorded\": \"x\"}}}",
         "cublaslt_version"},
        {"ENTRY{\"cublaslt_version\": 1, \"algo\": [\"0x0\"], \"candidate_index\": 0, "
         "\"candidates\": 1, \"median_ms\": [1.0], \"recorded\": \"x\"}}}",
         "algo: expected an array of 8 words"},
        {"ENTRY{\"cublaslt_version\": 1, \"algo\": [\"0x000000000000000g\", "
         "\"0x0000000000000001\", "
         "\"0x0000000000000002\", \"0x0000000000000003\", \"0x0000000000000004\", "
         "\"0x0000000000000005\", \"0x0000000000000006\", \"0x0000000000000007\"], "
         "\"candidate_index\": 0, \"candidates\": 1, \"median_ms\": [1.0], \"recorded\": \"x\"}}}",
         "algo[0]"},
        {"ENTRY{\"cublaslt_version\": 1, \"algo\": ALGO, \"candidate_index\": 1, "
         "\"candidates\": 1, \"median_ms\": [1.0], \"recorded\": \"x\"}}}",
         "candidate_index"},
        {"ENTRY{\"cublaslt_version\": 1, \"algo\": ALGO, \"candidate_index\": 0, "
         "\"candidates\": 2.5, \"median_ms\": [1.0], \"recorded\": \"x\"}}}",
         "candidates"},
        {"ENTRY{\"cublaslt_version\": 1, \"algo\": ALGO, \"candidate_index\": 0, "
         "\"candidates\": 2, \"median_ms\": [1.0], \"recorded\": \"x\"}}}",
         "median_ms"},
        {"ENTRY{\"cublaslt_version\": 1, \"algo\": ALGO, \"candidate_index\": 0, "
         "\"candidates\": 1, \"median_ms\": [\"fast\"], \"recorded\": \"x\"}}}",
         "median_ms[0]"},
        {"ENTRY\"not an object\"}}", "expected an object, got string"},
    };
    char why[600], text[2000];
    if (!fresh())
        return;
    char sub[200];
    snprintf(sub, sizeof sub, "mkdir -p '%s/sub/dir'", dir);
    RB_CHECK(system(sub) == 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* ENTRY stands for the file's head up to the entry, ALGO for 8 good words */
        const char *t = cases[i].text;
        text[0] = '\0';
        if (strncmp(t, "ENTRY", 5) == 0) {
            strcat(text, head);
            t += 5;
        }
        const char *algo = strstr(t, "ALGO");
        if (algo) {
            strncat(text, t, (size_t)(algo - t));
            strcat(text, good_algo);
            strcat(text, algo + 4);
        } else {
            strcat(text, t);
        }
        write_text(cache, text);
        int rc = lookup("k", 1, why, sizeof why);
        if (rc != CORRUPT || !strstr(why, cases[i].needle))
            printf("    case %zu: %d, %s\n", i, rc, why);
        RB_CHECK(rc == CORRUPT);
        RB_CHECK(strstr(why, cases[i].needle) != NULL);
    }
    /* the template itself, with nothing changed, is accepted */
    snprintf(text, sizeof text,
             "%s{\"cublaslt_version\": 1, \"algo\": %s, \"candidate_index\": 0, \"candidates\": 1, "
             "\"median_ms\": [null], \"recorded\": \"x\"}}}",
             head, good_algo);
    write_text(cache, text);
    RB_CHECK(lookup("k", 1, why, sizeof why) == HIT);
    cleanup();
}

static void test_stale_version_detected_and_replaced(void)
{
    char why[600], err[600];
    if (!fresh())
        return;
    RB_CHECK(rb_tune_cache_store(cache, "k", 120900, words, 2, 4, times, err, sizeof err) ==
             0);
    RB_CHECK(lookup("k", 130100, why, sizeof why) == STALE);
    RB_CHECK(strstr(why, "120900") && strstr(why, "130100"));
    RB_CHECK(rb_tune_cache_store(cache, "k", 130100, words, 2, 4, times, err, sizeof err) ==
             0);
    RB_CHECK(lookup("k", 130100, why, sizeof why) == HIT);
    RB_CHECK(lookup("k", 120900, why, sizeof why) == STALE); /* one entry per key */
    cleanup();
}

static void test_unwritable_cache_is_an_error_not_a_crash(void)
{
    char err[600];
    RB_CHECK(rb_tune_cache_store("/proc/no/such/dir/c.json", "k", 1, words, 0, 1, times, err,
                                       sizeof err) == -1);
    RB_CHECK(err[0] != '\0');
    RB_CHECK(rb_tune_cache_store("/tmp/x.json", "k", 1, words, 1, 1, times, err,
                                       sizeof err) == -1); /* index out of range */
}

/* times[i * reps + r] */
static void test_selection_rule(void)
{
    double gain;
    /* candidate 2 is 10% faster in every round, candidate 1 5%: 2 wins */
    const double clear[3 * 5] = {1.0,  1.1,  0.9, 1.0,  1.2,  0.95, 1.045, 0.855,
                                 0.95, 1.14, 0.9, 0.99, 0.81, 0.9,  1.08};
    RB_CHECK(rb_tune_select(clear, 3, 5, 0.02, &gain) == 2);
    RB_CHECK_NEAR(gain, 1.0 / 0.9, 1e-12);
    /* a lower median but a win in only some rounds (noise): the first choice stays */
    const double noisy[2 * 5] = {1.0, 1.0, 1.0, 1.0, 1.0, 0.85, 0.9, 1.05, 0.88, 1.1};
    RB_CHECK(rb_tune_select(noisy, 2, 5, 0.02, &gain) == 0);
    RB_CHECK(gain == 1.0);
    /* a consistent 1% win is below the 2% threshold */
    const double small[2 * 3] = {1.0, 1.0, 1.0, 0.99, 0.99, 0.99};
    RB_CHECK(rb_tune_select(small, 2, 3, 0.02, &gain) == 0);
    /* a clock change between rounds cancels in the paired ratios: 5% better every round */
    const double drift[2 * 4] = {1.0, 1.5, 1.0, 1.5, 0.95, 1.425, 0.95, 1.425};
    RB_CHECK(rb_tune_select(drift, 2, 4, 0.02, &gain) == 1);
    /* a candidate that failed in a round (INFINITY) or gave NaN is never chosen */
    const double failed[3 * 2] = {1.0, 1.0, 0.5, INFINITY, 0.5, NAN};
    RB_CHECK(rb_tune_select(failed, 3, 2, 0.02, &gain) == 0);
    /* the first candidate failed: the fastest that ran */
    const double first_failed[3 * 2] = {INFINITY, INFINITY, 2.0, 2.0, 1.5, 1.5};
    RB_CHECK(rb_tune_select(first_failed, 3, 2, 0.02, &gain) == 2);
    RB_CHECK(isnan(gain));
    /* one candidate, or bad arguments: 0 */
    RB_CHECK(rb_tune_select(clear, 1, 5, 0.02, &gain) == 0);
    RB_CHECK(rb_tune_select(clear, 3, 0, 0.02, &gain) == 0);
}

/* --size N gives the largest square within N (floor(sqrt) exact, also where the double square root
 * rounds up); RxC is kept; anything out of 1 .. max_dim or inconsistent is refused with the rule. */
static void test_gemm_square_shape_rule(void)
{
    const char *rule = "needs 1 <= M, N <= 2^30";
    char why[64] = "";
    rb_size s = {1000001, 0, 0};
    RB_CHECK(rb_gemm_square_shape(&s, 1u << 30, rule, why, sizeof why) == 0);
    RB_CHECK(s.rows == 1000 && s.cols == 1000 && s.n == 1000000);
    s = (rb_size){6144u * 6144u, 0, 0}; /* hgemm's middle size: exactly 6144^2 */
    RB_CHECK(rb_gemm_square_shape(&s, 1u << 20, rule, why, sizeof why) == 0);
    RB_CHECK(s.rows == 6144 && s.cols == 6144 && s.n == 6144u * 6144u);
    s = (rb_size){6144u * 6144u - 1, 0, 0}; /* one less: the square below, 6143^2 */
    RB_CHECK(rb_gemm_square_shape(&s, 1u << 20, rule, why, sizeof why) == 0);
    RB_CHECK(s.rows == 6143 && s.cols == 6143 && s.n == 6143u * 6143u);
    uint64_t r = (1ull << 27) + 2; /* r^2 - 1 (> 2^54) as a double rounds to r^2: sqrt gives r */
    s = (rb_size){r * r - 1, 0, 0};
    RB_CHECK(rb_gemm_square_shape(&s, 1u << 30, rule, why, sizeof why) == 0);
    RB_CHECK(s.rows == r - 1 && s.cols == r - 1 && s.n == (r - 1) * (r - 1));
    s = (rb_size){15, 3, 5};
    RB_CHECK(rb_gemm_square_shape(&s, 1u << 30, rule, why, sizeof why) == 0);
    RB_CHECK(s.rows == 3 && s.cols == 5 && s.n == 15);
    s = (rb_size){0, 0, 0};
    RB_CHECK(rb_gemm_square_shape(&s, 1u << 30, rule, why, sizeof why) == -1);
    RB_CHECK(strcmp(why, rule) == 0);
    s = (rb_size){32, 2, 16};
    RB_CHECK(rb_gemm_square_shape(&s, 8, rule, why, sizeof why) == -1);
    s = (rb_size){16, 2, 5};
    RB_CHECK(rb_gemm_square_shape(&s, 1u << 30, rule, why, sizeof why) == -1);
}

/* Every row in one block when small, else rows 0, M/2, M-1 one at a time; bf16 widening exact. */
static void test_gemm_rows_and_bf16(void)
{
    rb_gemm_rows all = rb_gemm_rows_to_check(10, 1), few = rb_gemm_rows_to_check(10, 0);
    RB_CHECK(all.n_blocks == 1 && all.per == 10 && all.first[0] == 0);
    RB_CHECK(few.n_blocks == 3 && few.per == 1);
    RB_CHECK(few.first[0] == 0 && few.first[1] == 5 && few.first[2] == 9);
    RB_CHECK(rb_bf16_to_double(0x3F80) == 1.0 && rb_bf16_to_double(0xC040) == -3.0);
    RB_CHECK(rb_bf16_to_double(0x3F81) == 1.0 + 0x1p-7);
    RB_CHECK(isnan(rb_bf16_to_double(0xFFFF)));
}

static const rbtest_case autotune_cases[] = {
    {"path_rules", test_path_rules},
    {"key_names_everything", test_key_names_everything},
    {"round_trip_and_missing_file", test_round_trip_and_missing_file},
    {"null_time_for_failed_candidate", test_null_time_for_failed_candidate},
    {"corrupt_file_detected_and_rebuilt", test_corrupt_file_detected_and_rebuilt},
    {"wrong_schema_refused", test_wrong_schema_refused},
    {"stale_version_detected_and_replaced", test_stale_version_detected_and_replaced},
    {"unwritable_cache_is_an_error_not_a_crash", test_unwritable_cache_is_an_error_not_a_crash},
    {"selection_rule", test_selection_rule},
    {"gemm_square_shape_rule", test_gemm_square_shape_rule},
    {"gemm_rows_and_bf16", test_gemm_rows_and_bf16},
};

RB_SUITE(autotune_suite, "autotune", autotune_cases);
