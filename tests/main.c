/* SPDX-License-Identifier: MIT */
/*
 * The test runner: tier 1 (CPU only: json, core, expect), tier 2 (nvcc-built, no GPU needed:
 * registry, binary) and tier 3 (gpu: runs only where a GPU is usable, skipped elsewhere).
 * Usage: rbtest ROOFBENCH_BINARY [SUITE | -SUITE | -SUITE/TEST ...]: SUITE runs that suite (none
 * named: every suite), -SUITE and -SUITE/TEST leave one out (make test SANITIZE=1 leaves out the
 * suites that check only files the plain run checks). A name that matches nothing exits 2. Last
 * line: "N passed, N failed, N skipped", then what was skipped for want of a tool or a GPU, in
 * brackets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbtest.h"

extern const rbtest_suite json_suite, core_suite, expect_suite, ceilings_suite, plot_suite,
    autotune_suite, registry_suite, codegen_suite, launch_suite, nccl_suite, runcmp_suite,
    binary_suite, gpu_suite, clocks_suite, docs_suite, layout_suite, robust_suite;
extern const rbtest_suite floors_suite, history_suite, docs_gen_suite, output_suite;
extern const rbtest_suite plot_layout_suite, p2p_suite;
extern const rbtest_suite node_suite, ring_suite, fleet_suite, runner_suite;
extern const rbtest_suite hgemm_epilogue_suite, platform_cmp_suite, stale_suite, strict_suite;
extern const rbtest_suite energy_suite, contention_suite, contract_suite, profile_suite;
extern const rbtest_suite plot_slide_suite, doc_images_suite, cli_suite, habits_suite;
extern const rbtest_suite width_suite;

const char *rbtest_binary = "build/sm_90/roofbench";
const char *rbtest_self = "rbtest";

static int failed_asserts, skipped;
static char skip_reason[200];

void rbtest_fail(const char *file, int line, const char *what)
{
    failed_asserts++;
    printf("    FAIL %s:%d: %s\n", file, line, what);
}

void rbtest_skip(const char *why)
{
    skipped = 1;
    snprintf(skip_reason, sizeof skip_reason, "%s", why);
}

char *rbtest_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 < cap)
            continue;
        char *more = realloc(text, cap * 2);
        if (!more)
            free(text);
        text = more;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!text || bad) {
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

int rbtest_wanted(const char *suite, const char *test, int nargs, char *const args[])
{
    int named = 0, chosen = 0;
    size_t len = strlen(suite);
    for (int i = 0; i < nargs; i++) {
        const char *arg = args[i];
        if (arg[0] != '-') {
            named = 1;
            chosen |= !strcmp(arg, suite);
        } else if (!strncmp(arg + 1, suite, len) &&
                   (arg[1 + len] == '\0' ||
                    (arg[1 + len] == '/' && test && !strcmp(arg + 2 + len, test)))) {
            return 0;
        }
    }
    return !named || chosen;
}

/* 1 when an argument leaves the suite out by name (not merely unselected). */
static int named_out(const char *suite, int nargs, char *const args[])
{
    for (int i = 0; i < nargs; i++)
        if (args[i][0] == '-' && !strcmp(args[i] + 1, suite))
            return 1;
    return 0;
}

/* The first argument that names no suite (or no test of its suite), NULL when all do. */
static const char *unknown_name(const rbtest_suite *const suites[], size_t count, int nargs,
                                char *const args[])
{
    for (int i = 0; i < nargs; i++) {
        const char *name = args[i] + (args[i][0] == '-');
        const char *slash = args[i][0] == '-' ? strchr(name, '/') : NULL;
        size_t len = slash ? (size_t)(slash - name) : strlen(name);
        int found = 0;
        for (size_t s = 0; s < count && !found; s++) {
            if (strlen(suites[s]->name) != len || strncmp(suites[s]->name, name, len))
                continue;
            for (size_t c = 0; slash && c < suites[s]->count && !found; c++)
                found = !strcmp(suites[s]->cases[c].name, slash + 1);
            found |= !slash;
        }
        if (!found)
            return args[i];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const rbtest_suite *suites[] = {
        &json_suite,         &core_suite,     &expect_suite,   &ceilings_suite,
        &clocks_suite,       &plot_suite,     &autotune_suite, &registry_suite,
        &codegen_suite,      &launch_suite,   &nccl_suite,     &runcmp_suite,
        &platform_cmp_suite, &floors_suite,   &history_suite,  &binary_suite,
        &docs_suite,         &docs_gen_suite, &layout_suite,   &output_suite,
        &plot_layout_suite,  &robust_suite,   &p2p_suite,      &node_suite,
        &ring_suite,         &fleet_suite,    &runner_suite,   &hgemm_epilogue_suite,
        &stale_suite,        &strict_suite,   &energy_suite,   &contention_suite,
        &contract_suite,     &profile_suite,  &plot_slide_suite, &doc_images_suite,
        &cli_suite,          &habits_suite,   &width_suite,    &gpu_suite};
    size_t count = sizeof suites / sizeof suites[0];
    int passed = 0, failed = 0, skips = 0, codegen_skips = 0, gpu_skips = 0, left_out = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* The suites read whole names (compare's, history's, the run table's at its natural
     * widths): the width of the terminal the tests run in must not decide them. The width suite
     * sets its own. */
    setenv("COLUMNS", "1000", 1);
    if (argc > 0)
        rbtest_self = argv[0];
    if (argc > 1)
        rbtest_binary = argv[1];
    int nargs = argc > 2 ? argc - 2 : 0;
    char *const *args = argv + 2;
    const char *unknown = unknown_name(suites, count, nargs, args);
    if (unknown) {
        fprintf(stderr, "rbtest: '%s' names no suite or test\n", unknown);
        return 2;
    }
    for (size_t s = 0; s < count; s++) {
        const rbtest_suite *suite = suites[s];
        if (!rbtest_wanted(suite->name, NULL, nargs, args)) {
            left_out += (int)suite->count * named_out(suite->name, nargs, args);
            continue;
        }
        printf("%s (%zu tests)\n", suite->name, suite->count);
        /* RBTEST_CASE=<name>: that case alone (a GPU check of one thing on a lent machine) */
        const char *only = getenv("RBTEST_CASE");
        for (size_t i = 0; i < suite->count; i++) {
            if (only && *only && strcmp(only, suite->cases[i].name))
                continue;
            if (!rbtest_wanted(suite->name, suite->cases[i].name, nargs, args)) {
                left_out++;
                continue;
            }
            failed_asserts = 0;
            skipped = 0;
            suite->cases[i].fn();
            if (failed_asserts) {
                failed++;
                printf("  FAILED  %s\n", suite->cases[i].name);
            } else if (skipped) {
                skips++;
                codegen_skips +=
                    !strcmp(suite->name, "codegen") && strstr(skip_reason, "cuobjdump");
                gpu_skips += !strcmp(suite->name, "gpu");
                printf("  skipped %s: %s\n", suite->cases[i].name, skip_reason);
            } else {
                passed++;
                printf("  ok      %s\n", suite->cases[i].name);
            }
        }
    }
    /* Skips are said where they are counted: the README lists the codegen checks, and a reader
     * of the summary alone must not take them as run. The last line stays "N passed, N failed,
     * N skipped" followed by the reasons in brackets. */
    if (codegen_skips)
        printf("codegen checks skipped: cuobjdump not found. It is part of the CUDA Toolkit "
               "(package cuda-cuobjdump-<major>-<minor>, e.g. cuda-cuobjdump-13-0): put it on "
               "PATH or set RB_CUOBJDUMP=/path/to/cuobjdump; RB_REQUIRE_CODEGEN=1 makes its "
               "absence a failure\n");
    /* Said before the summary, so a reader of the log does not take a short run for a full one */
    if (left_out) {
        printf("left out on request (%d tests):", left_out);
        for (int i = 0; i < nargs; i++)
            if (args[i][0] == '-')
                printf(" %s", args[i] + 1);
        printf("\n");
    }
    char why[160] = "", codegen[64] = "", gpu[64] = "";
    if (codegen_skips)
        snprintf(codegen, sizeof codegen, "%d codegen checks: no cuobjdump", codegen_skips);
    if (gpu_skips)
        snprintf(gpu, sizeof gpu, "%d GPU tests: no usable GPU", gpu_skips);
    if (codegen_skips || gpu_skips)
        snprintf(why, sizeof why, " (%s%s%s)", codegen, codegen_skips && gpu_skips ? "; " : "",
                 gpu);
    printf("%d passed, %d failed, %d skipped%s\n", passed, failed, skips, why);
    return failed ? 1 : 0;
}
