/* SPDX-License-Identifier: MIT */
/*
 * Which expectation file sets compare's and history's floors (harness/model/floors.c): found from
 * the results' hardware key in the tree the binary was built from, never from the folder the
 * command runs in, and never through a key that is not a slug. And the binary: the same two
 * committed files give byte-identical output from the repository root and from /tmp, with or
 * without --expect naming the same file.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/model/floors.h"
#include "../harness/model/json.h"
#include "rbtest.h"

static void test_hardware_key_slugs(void)
{
    static const char *const good[] = {"nvidia-h100-80gb-hbm3", "nvidia-h200-x2", "unknown-gpu",
                                       "a", "h100"};
    static const char *const bad[] = {"",   "../etc", "a/b", "A100", "a--b",   "-a",
                                      "a-", "a b",    "a\n", "..",   "a.json", "a\x1b[2J"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        RB_CHECK(rb_is_hardware_key(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        RB_CHECK(!rb_is_hardware_key(bad[i]));
    char long_key[200];
    memset(long_key, 'a', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    RB_CHECK(!rb_is_hardware_key(long_key));
    RB_CHECK(!rb_is_hardware_key(NULL));
}

static void put_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A tree with expectations/k1.json (valid) and expectations/bad.json (not an expectation
 * file), and a Makefile; its canonical path into root. */
static const char *fake_tree(char *root, size_t size)
{
    static const char *const valid = "{\"schema\": 1, \"hardware\": {\"name\": \"k1\"}, "
                                     "\"peaks\": {}, \"ceilings\": {}, \"pairs\": {}}";
    const char *dir = rbtest_fresh_dir();
    char path[400];
    snprintf(path, sizeof path, "%s/expectations", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/expectations/k1.json", dir);
    put_text(path, valid);
    snprintf(path, sizeof path, "%s/expectations/bad.json", dir);
    put_text(path, "{\"schema\": 1}");
    snprintf(path, sizeof path, "%s/Makefile", dir);
    put_text(path, "all:\n");
    char *real = realpath(dir, NULL);
    snprintf(root, size, "%s", real ? real : "");
    free(real);
    return dir;
}

static void test_resolve(void)
{
    char root[600], want[700], err[600], line[2000];
    fake_tree(root, sizeof root);
    rb_floors f;
    const char *k1[2] = {"k1", "k1"};
    RB_CHECK(rb_floors_resolve(NULL, 0, k1, 2, root, &f, err, sizeof err) == 0);
    snprintf(want, sizeof want, "%s/expectations/k1.json", root);
    RB_CHECK(f.have && !strcmp(f.path, want));
    rb_floors_line(&f, 3, line, sizeof line);
    RB_CHECK(!strncmp(line, "floors: ", 8) && strstr(line, want) && strstr(line, "set 3 var"));
    rb_floors_free(&f);
    /* the same file through --expect, given by a path with a detour: the same canonical path */
    char given[800];
    snprintf(given, sizeof given, "%s/expectations/../expectations/k1.json", root);
    RB_CHECK(rb_floors_resolve(given, 0, k1, 2, NULL, &f, err, sizeof err) == 0);
    RB_CHECK(f.have && !strcmp(f.path, want));
    rb_floors_free(&f);
    /* a key that is a path: never followed, though expectations/../expectations/k1.json exists */
    const char *hostile[1] = {"../expectations/k1"};
    RB_CHECK(rb_floors_resolve(NULL, 0, hostile, 1, root, &f, err, sizeof err) == 0);
    RB_CHECK(!f.have && strstr(f.why_none, "not a valid key"));
    const char *escape[1] = {"k1\x1b]0;x\a"};
    RB_CHECK(rb_floors_resolve(NULL, 0, escape, 1, root, &f, err, sizeof err) == 0);
    RB_CHECK(!f.have && !strchr(f.why_none, '\x1b') && !strchr(f.why_none, '\a'));
    const char *two[2] = {"k1", "k2"};
    RB_CHECK(rb_floors_resolve(NULL, 0, two, 2, root, &f, err, sizeof err) == 0);
    RB_CHECK(!f.have && strstr(f.why_none, "two GPUs, k1 and k2"));
    const char *none[2] = {"k1", NULL};
    RB_CHECK(rb_floors_resolve(NULL, 0, none, 2, root, &f, err, sizeof err) == 0);
    RB_CHECK(!f.have && strstr(f.why_none, "names no hardware key"));
    const char *k3[1] = {"k3"};
    RB_CHECK(rb_floors_resolve(NULL, 0, k3, 1, root, &f, err, sizeof err) == 0);
    RB_CHECK(!f.have && strstr(f.why_none, "expectations/k3.json does not exist"));
    RB_CHECK(rb_floors_resolve(NULL, 0, k1, 2, "", &f, err, sizeof err) == 0);
    RB_CHECK(!f.have && strstr(f.why_none, "was not found"));
    RB_CHECK(rb_floors_resolve("x.json", 1, k1, 2, root, &f, err, sizeof err) == 0);
    RB_CHECK(!f.have && !strcmp(f.why_none, "--expect none"));
    rb_floors_line(&f, 0, line, sizeof line);
    RB_CHECK(!strcmp(line, "floors: none (--expect none): timed-loop spreads only, at least 2%"));
    /* a file found or given that is not an expectation file is an error, not "none" */
    const char *bad[1] = {"bad"};
    RB_CHECK(rb_floors_resolve(NULL, 0, bad, 1, root, &f, err, sizeof err) == -1);
    RB_CHECK(rb_floors_resolve("/nonexistent.json", 0, k1, 2, root, &f, err, sizeof err) == -1);
    RB_CHECK(strstr(err, "/nonexistent.json") != NULL);
    rbtest_remove_dir();
}

static void test_source_root(void)
{
    char root[600], here[600], found[2000];
    fake_tree(root, sizeof root);
    RB_CHECK(rb_floors_source_root(root, found, sizeof found) == 0 && !strcmp(found, root));
    rbtest_remove_dir();
    /* the compiled-in folder gone: the tree holding the running binary (rbtest, in
     * <root>/build/<arch>/, run from the root) */
    char *real = realpath(".", NULL);
    snprintf(here, sizeof here, "%s", real ? real : "");
    free(real);
    RB_CHECK(rb_floors_source_root("/nonexistent", found, sizeof found) == 0);
    RB_CHECK(!strcmp(found, here));
    if (strcmp(found, here))
        printf("    found %s, run from %s\n", found, here);
}

/* The binary's stdout and stderr when run in dir with args; exit status into *rc. */
static char *run_in(const char *dir, const char *args, int *rc)
{
    char bin[1200], cmd[4000];
    char *cwd = realpath(".", NULL);
    if (rbtest_binary[0] == '/')
        snprintf(bin, sizeof bin, "%s", rbtest_binary);
    else
        snprintf(bin, sizeof bin, "%s/%s", cwd ? cwd : ".", rbtest_binary);
    free(cwd);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1 < /dev/null", dir, bin, args);
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    while (p && out) {
        if (len + 4096 > cap) {
            char *more = realloc(out, cap *= 2);
            if (!more) {
                free(out);
                out = NULL;
                break;
            }
            out = more;
        }
        size_t n = fread(out + len, 1, 4096, p);
        if (n == 0)
            break;
        len += n;
    }
    int status = p ? pclose(p) : -1;
    *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (out)
        out[len] = '\0';
    return out;
}

/* The issue this answers: the same two committed files gave 108 same from the repository root
 * and 105 same, 1 faster, 2 unclear from /tmp, and nothing said the expectation file had not been
 * found. */
static void test_compare_same_from_any_folder(void)
{
    char *root = realpath(".", NULL), args[3000], with[4400], expect[1200];
    if (!root)
        return;
    snprintf(args, sizeof args,
             "compare %s/results/nvidia-h100-80gb-hbm3/20261125T124752Z-8429b07.json "
             "%s/results/nvidia-h100-80gb-hbm3/20261125T124911Z-8429b07.json",
             root, root);
    snprintf(expect, sizeof expect, "%s/expectations/nvidia-h100-80gb-hbm3.json", root);
    int rc[5];
    char *at_root = run_in(root, args, &rc[0]);
    char *at_tmp = run_in("/tmp", args, &rc[1]);
    snprintf(with, sizeof with, "%s --expect %s", args, expect);
    char *with_expect = run_in("/tmp", with, &rc[2]);
    snprintf(with, sizeof with, "%s --expect expectations/nvidia-h100-80gb-hbm3.json", args);
    char *relative = run_in(root, with, &rc[3]);
    snprintf(with, sizeof with, "%s --expect none", args);
    char *none = run_in("/tmp", with, &rc[4]);
    RB_CHECK(at_root && at_tmp && with_expect && relative && none);
    if (at_root && at_tmp && with_expect && relative && none) {
        char first[1400];
        snprintf(first, sizeof first, "floors: %s (its recorded run spreads set ", expect);
        RB_CHECK(!strncmp(at_root, first, strlen(first)));
        RB_CHECK(!strcmp(at_root, at_tmp));
        RB_CHECK(!strcmp(at_root, with_expect));
        RB_CHECK(!strcmp(at_root, relative));
        RB_CHECK(rc[0] == rc[1] && rc[0] == rc[2] && rc[0] == rc[3]);
        /* cuda_graphs' stream-launch baseline: a floor of twice its recorded runs' spread, over
         * 10%: blind (the numbers are the committed file's) */
        double spread = NAN, runs = NAN;
        json_value *doc = json_parse_file(expect, NULL, 0);
        const json_value *cg = json_get(
            json_get(json_get(json_get(doc, "pairs"), "cuda_graphs"), "variants"), "baseline");
        spread = json_number_at(cg, "run_spread");
        runs = json_number_at(cg, "runs");
        char floor_col[64], why[200];
        snprintf(floor_col, sizeof floor_col, "%.1f%%  blind", 200 * spread);
        snprintf(why, sizeof why, "blind: floor %.1f%% (2 x the %.1f%% spread of its %.0f recorded",
                 200 * spread, 100 * spread, runs);
        RB_CHECK(2 * spread > 0.10);
        RB_CHECK(strstr(at_root, "\ncuda_graphs/baseline ") && strstr(at_root, floor_col) &&
                 strstr(at_root, why));
        json_free(doc);
        /* without the file: said so, and other floors */
        RB_CHECK(!strncmp(none, "floors: none (--expect none)", 28) && strcmp(none, at_root));
        if (strcmp(at_root, at_tmp))
            printf("    from the root:\n%.600s\n    from /tmp:\n%.600s\n", at_root, at_tmp);
    }
    free(at_root);
    free(at_tmp);
    free(with_expect);
    free(relative);
    free(none);
    free(root);
}

static const rbtest_case floors_cases[] = {
    {"hardware_key_slugs", test_hardware_key_slugs},
    {"resolve", test_resolve},
    {"source_root", test_source_root},
    {"compare_same_from_any_folder", test_compare_same_from_any_folder},
};

RB_SUITE(floors_suite, "floors", floors_cases);
