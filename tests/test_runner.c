/* SPDX-License-Identifier: MIT */
/*
 * Tier 1: the runner's own selection (tests/main.c), which make test SANITIZE=1 relies on to
 * leave out the suites that only re-check files: a suite left out by name takes no other suite
 * with it (docs is not docs_gen), a test left out keeps the rest of its suite, and the plain run
 * (no arguments) runs everything. And the binary's refusal of a name that matches nothing, so a
 * stale list of suites to leave out fails loudly instead of running everything unnoticed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rbtest.h"

extern const rbtest_suite runner_suite;

#define RB_NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_no_arguments_run_everything(void)
{
    RB_CHECK(rbtest_wanted("codegen", NULL, 0, NULL));
    RB_CHECK(rbtest_wanted("codegen", "every_pair_has_its_instructions", 0, NULL));
}

static void test_selection_by_name(void)
{
    char *args[] = {"json", "core"};
    RB_CHECK(rbtest_wanted("json", NULL, RB_NARGS(args), args));
    RB_CHECK(rbtest_wanted("core", "stats_median", RB_NARGS(args), args));
    RB_CHECK(!rbtest_wanted("codegen", NULL, RB_NARGS(args), args));
    /* a name is not a prefix: "json" does not select a suite "json_extra" */
    RB_CHECK(!rbtest_wanted("json_extra", NULL, RB_NARGS(args), args));
}

static void test_leaving_out_a_suite_keeps_its_neighbours(void)
{
    char *args[] = {"-docs", "-codegen"};
    RB_CHECK(!rbtest_wanted("docs", NULL, RB_NARGS(args), args));
    RB_CHECK(!rbtest_wanted("docs", "no_tracker_references", RB_NARGS(args), args));
    RB_CHECK(!rbtest_wanted("codegen", NULL, RB_NARGS(args), args));
    /* the planted defect a prefix comparison would have: -docs taking docs_gen along */
    RB_CHECK(rbtest_wanted("docs_gen", NULL, RB_NARGS(args), args));
    RB_CHECK(rbtest_wanted("docs_gen", "render_rows", RB_NARGS(args), args));
    /* leaving out only: every other suite runs */
    RB_CHECK(rbtest_wanted("json", NULL, RB_NARGS(args), args));
}

static void test_leaving_out_one_test(void)
{
    char *args[] = {"-codegen/fingerprint_rebuild_and_plant"};
    RB_CHECK(rbtest_wanted("codegen", NULL, RB_NARGS(args), args));
    RB_CHECK(!rbtest_wanted("codegen", "fingerprint_rebuild_and_plant", RB_NARGS(args), args));
    RB_CHECK(rbtest_wanted("codegen", "sass_rule_found", RB_NARGS(args), args));
    /* a test of the same name in another suite stays */
    RB_CHECK(rbtest_wanted("docs", "fingerprint_rebuild_and_plant", RB_NARGS(args), args));
    /* nor does a test whose name only starts with the one left out */
    RB_CHECK(rbtest_wanted("codegen", "fingerprint_rebuild", RB_NARGS(args), args));
}

/* The runner as a user runs it: this rbtest with a suite name that does not exist, then with a
 * test name that does not. */
static void test_unknown_names_exit_2(void)
{
    char cmd[1400];
    const char *rbtest = rbtest_self;
    snprintf(cmd, sizeof cmd, "'%s' '%s' -no_such_suite > /dev/null 2>&1", rbtest, rbtest_binary);
    int status = system(cmd);
    RB_CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 2);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -runner/no_such_test > /dev/null 2>&1", rbtest,
             rbtest_binary);
    status = system(cmd);
    RB_CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 2);
    /* and a name that exists runs: the refusal above is about the name, not the runner */
    snprintf(cmd, sizeof cmd, "'%s' '%s' runner -runner/unknown_names_exit_2 > /dev/null 2>&1",
             rbtest, rbtest_binary);
    status = system(cmd);
    RB_CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static const rbtest_case runner_cases[] = {
    {"no_arguments_run_everything", test_no_arguments_run_everything},
    {"selection_by_name", test_selection_by_name},
    {"leaving_out_a_suite_keeps_its_neighbours", test_leaving_out_a_suite_keeps_its_neighbours},
    {"leaving_out_one_test", test_leaving_out_one_test},
    {"unknown_names_exit_2", test_unknown_names_exit_2},
};

RB_SUITE(runner_suite, "runner", runner_cases);
