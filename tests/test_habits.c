/* SPDX-License-Identifier: MIT */
/*
 * The Unix habits of the command line (tier 1 and 2, no GPU): --opt=value wherever --opt VALUE
 * is taken; '-' (or /dev/stdout) for the standard output wherever an option names one output
 * (run's --json and --csv, compare's and p2p's --json and --html), the document alone there and
 * everything else on stderr, one output at a time, refused for an -o BASE of several files; -d
 * and --devices for --device (a node run's parts get them once); list --json, valid against
 * docs/list.schema.json; no absolute path of this machine in compare --md's output; a change of one
 * run shown as '-' by history, not "+nan%"; every script of scripts/ and scripts/probes/ says its
 * usage on -h and exits 0 (a script that ignores -h would start its GPU work). Each check fails on
 * a plant.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/model/cli.h"
#include "../harness/model/json.h"
#include "../harness/model/result_read.h"
#include "../harness/runner/cmd.h"
#include "../harness/runner/results.h"
#include "rbtest.h"

static int parse(const char *line, rb_options *o, char *err, size_t err_size)
{
    static char buf[1024];
    char *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    return rb_cli_parse(argc, argv, o, err, err_size);
}

static void test_opt_equals_value_everywhere(void)
{
    rb_options o;
    char err[600];
    RB_CHECK(parse("roofbench run --device=1 --timeout=60 --json=x.json", &o, err, sizeof err) ==
             0);
    RB_CHECK(o.device == 1 && o.timeout_s == 60 && o.json_path && !strcmp(o.json_path, "x.json"));
    RB_CHECK(parse("roofbench list --filter=^sgemm$ --size=smoke", &o, err, sizeof err) == 0);
    RB_CHECK(o.filter && !strcmp(o.filter, "^sgemm$") && o.filter_re &&
             rb_filter_match(o.filter_re, "sgemm") && o.size_kind == RB_SIZE_SMOKE);
    RB_CHECK(parse("roofbench compare a.json b.json --json=c.json --gate=all", &o, err,
                   sizeof err) == 0);
    RB_CHECK(o.json_path && !strcmp(o.json_path, "c.json") && o.gate_all);
    RB_CHECK(parse("roofbench plot r.json --html=page.html", &o, err, sizeof err) == 0);
    RB_CHECK(o.plot_html && !strcmp(o.plot_html, "page.html") && !o.plot_html_beside);
    /* a value that holds '=' keeps it */
    RB_CHECK(parse("roofbench list --filter=a=b", &o, err, sizeof err) == 0 &&
             !strcmp(o.filter, "a=b"));
    /* refused: a flag given a value, an empty value, an unknown name, the same option twice */
    RB_CHECK(parse("roofbench run --cold=1", &o, err, sizeof err) == -1 &&
             strstr(err, "--cold takes no value"));
    RB_CHECK(parse("roofbench list --size=", &o, err, sizeof err) == -1 &&
             strstr(err, "--size needs a value"));
    RB_CHECK(parse("roofbench list --nosuch=3", &o, err, sizeof err) == -1 &&
             strstr(err, "unknown option '--nosuch'"));
    RB_CHECK(parse("roofbench run --device=0 --device 1", &o, err, sizeof err) == -1 &&
             strstr(err, "given twice"));
    RB_CHECK(parse("roofbench list --filter=(", &o, err, sizeof err) == -1 &&
             strstr(err, "--filter"));
    /* the binary: once "unknown option '--device=0'", exit 2; now a run that asks for a GPU */
    rbtest_fresh_dir();
    RB_CHECK(rbtest_run("list --filter=^sgemm$") == 0 && strstr(rbtest_output(), "sgemm"));
    RB_CHECK(rbtest_run("list --nosuch=1") == 2);
    rbtest_remove_dir();
}

static void test_device_aliases(void)
{
    rb_options o;
    char err[600];
    RB_CHECK(parse("roofbench run -d 1", &o, err, sizeof err) == 0 && o.device == 1);
    RB_CHECK(parse("roofbench check --devices 2", &o, err, sizeof err) == 0 && o.device == 2);
    RB_CHECK(parse("roofbench run --devices=0,1", &o, err, sizeof err) == 0 && o.n_devices == 2);
    /* one option under three names: twice is still twice */
    RB_CHECK(parse("roofbench run -d 0 --device 1", &o, err, sizeof err) == -1 &&
             strstr(err, "--device is given twice"));
    RB_CHECK(parse("roofbench list -d 0", &o, err, sizeof err) == -1 &&
             strstr(err, "--device does not go with list"));
}

/* ---- list --json against its schema ---- */

/* A small JSON Schema checker, the keywords docs/list.schema.json uses: type (a name),
 * required, properties, additionalProperties (false or a schema), items, minItems, minimum.
 * 0, or -1 with the first mismatch and its place said in why. */
static int schema_check(const json_value *s, const json_value *v, const char *at, char *why,
                        size_t size);

static int type_ok(const char *type, const json_value *v)
{
    if (!strcmp(type, "integer"))
        return v->type == JSON_NUMBER && v->number == (double)(long long)v->number;
    return !strcmp(type, json_type_name((json_type)v->type)) ||
           (!strcmp(type, "boolean") && v->type == JSON_BOOL) ||
           (!strcmp(type, "number") && v->type == JSON_NUMBER);
}

static int object_check(const json_value *s, const json_value *v, const char *at, char *why,
                        size_t size)
{
    const json_value *req = json_get(s, "required"), *props = json_get(s, "properties");
    const json_value *extra = json_get(s, "additionalProperties");
    char place[512];
    for (uint32_t i = 0; req && i < req->count; i++)
        if (!json_get(v, req->items[i]->string)) {
            snprintf(why, size, "%s: no \"%s\"", at, req->items[i]->string);
            return -1;
        }
    for (uint32_t i = 0; i < v->count; i++) {
        const json_value *sub = props ? json_get(props, v->keys[i]) : NULL;
        snprintf(place, sizeof place, "%s.%s", at, v->keys[i]);
        if (!sub && extra && extra->type == JSON_BOOL && !extra->boolean) {
            snprintf(why, size, "%s: not a property of the schema", place);
            return -1;
        }
        if (!sub && extra && extra->type == JSON_OBJECT)
            sub = extra;
        if (sub && schema_check(sub, v->items[i], place, why, size) != 0)
            return -1;
    }
    return 0;
}

static int schema_check(const json_value *s, const json_value *v, const char *at, char *why,
                        size_t size)
{
    const char *type = json_string_at(s, "type", NULL);
    const json_value *items = json_get(s, "items"), *min = json_get(s, "minimum");
    const json_value *min_items = json_get(s, "minItems");
    char place[512];
    if (type && !type_ok(type, v)) {
        snprintf(why, size, "%s: not of type %s", at, type);
        return -1;
    }
    if (min && v->type == JSON_NUMBER && !(v->number >= min->number)) {
        snprintf(why, size, "%s: below its minimum %g", at, min->number);
        return -1;
    }
    if (v->type == JSON_OBJECT)
        return object_check(s, v, at, why, size);
    if (v->type != JSON_ARRAY)
        return 0;
    if (min_items && v->count < min_items->number) {
        snprintf(why, size, "%s: fewer than %g items", at, min_items->number);
        return -1;
    }
    for (uint32_t i = 0; items && i < v->count; i++) {
        snprintf(place, sizeof place, "%s[%u]", at, i);
        if (schema_check(items, v->items[i], place, why, size) != 0)
            return -1;
    }
    return 0;
}

/* The absolute path of the binary under test. */
static void binary_path(char *out, size_t size)
{
    char cwd[800];
    if (rbtest_binary[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, size, "%s", rbtest_binary);
    else
        snprintf(out, size, "%s/%s", cwd, rbtest_binary);
}

/* The standard output alone of `roofbench ARGS` run in dir (stderr dropped), malloc'd; *rc its
 * exit status. */
static char *stdout_of(const char *dir, const char *args, int *rc)
{
    char bin[1024], cmd[4096];
    binary_path(bin, sizeof bin);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>/dev/null", dir, bin, args);
    FILE *p = popen(cmd, "r");
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    for (int c; p && m && (c = fgetc(p)) != EOF;)
        fputc(c, m);
    if (m)
        fclose(m);
    int status = p ? pclose(p) : -1;
    *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return text;
}

static void test_list_json_matches_its_schema(void)
{
    char err[400], why[600] = "", cwd[800];
    json_value *schema = json_parse_file("docs/list.schema.json", err, sizeof err);
    RB_CHECK(schema != NULL && getcwd(cwd, sizeof cwd) != NULL);
    const char *sizes[] = {"list --json", "list --json --size smoke"};
    for (int k = 0; schema && k < 2; k++) {
        int rc;
        char *out = stdout_of(cwd, sizes[k], &rc);
        json_value *doc = out ? json_parse(out, strlen(out), err, sizeof err) : NULL;
        RB_CHECK(rc == 0 && doc != NULL);
        int bad = doc ? schema_check(schema, doc, "$", why, sizeof why) : -1;
        if (bad)
            printf("    %s: %s\n", sizes[k], why);
        RB_CHECK(bad == 0);
        /* plants: a pair without its rows, a size that is a string, a field the schema lacks */
        const json_value *pairs = json_get(doc, "pairs");
        json_value *first = pairs && pairs->count ? pairs->items[0] : NULL;
        if (k == 0 && first) {
            json_value *rows = json_clone(json_get(first, "rows"));
            json_object_set(first, "rows", json_new_number(1));
            RB_CHECK(schema_check(schema, doc, "$", why, sizeof why) == -1 && strstr(why, "rows"));
            json_object_set(first, "rows", rows);
            json_object_set(first, "full_size", json_new_string("1M"));
            RB_CHECK(schema_check(schema, doc, "$", why, sizeof why) == -1 &&
                     strstr(why, "full_size"));
            json_set_number(first, "full_size", 1);
            json_set_bool(doc, "surprise", 1);
            RB_CHECK(schema_check(schema, doc, "$", why, sizeof why) == -1 &&
                     strstr(why, "surprise"));
        }
        json_free(doc);
        free(out);
    }
    json_free(schema);
}

/* ---- compare --md and history ---- */

static int copy_file(const char *from, const char *to)
{
    char *text = rbtest_read_file(from);
    FILE *f = text ? fopen(to, "w") : NULL;
    int ok = f && fputs(text, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    free(text);
    return ok ? 0 : -1;
}

#define HABITS_OLD "results/nvidia-h100-80gb-hbm3/20261122T032108Z-8d68b70.json"
#define HABITS_NEW "results/nvidia-h100-80gb-hbm3/20261122T042722Z-6bfc0b1.json"

static void test_compare_md_names_no_absolute_path(void)
{
    char root[800], a[1200], b[1200];
    const char *dir = rbtest_fresh_dir();
    RB_CHECK(getcwd(root, sizeof root) != NULL);
    snprintf(a, sizeof a, "%s/old.json", dir);
    snprintf(b, sizeof b, "%s/new.json", dir);
    RB_CHECK(copy_file(HABITS_OLD, a) == 0 && copy_file(HABITS_NEW, b) == 0);
    int rc;
    char *out = stdout_of(dir, "compare old.json new.json --md", &rc);
    RB_CHECK(out && (rc == 0 || rc == 1));
    /* the floors' expectation file is the checkout's: named from its root */
    RB_CHECK(out && strstr(out, "floors: expectations/nvidia-h100-80gb-hbm3.json"));
    if (out && (strstr(out, root) || strstr(out, dir)))
        printf("    compare --md names a path of this machine:\n%.400s\n", out);
    RB_CHECK(out && !strstr(out, root) && !strstr(out, dir));
    free(out);
    /* the text report (not pasted anywhere) still names the file it read in full */
    out = stdout_of(dir, "compare old.json new.json", &rc);
    RB_CHECK(out && strstr(out, root));
    free(out);
    rbtest_remove_dir();
}

/* The standard output and the standard error of `roofbench ARGS` run in dir, apart (each
 * malloc'd, "" when empty), with env before it (NULL: none); the exit status. */
static int split_run(const char *dir, const char *env, const char *args, char **out, char **err)
{
    char bin[1024], cmd[4096], o_path[1200], e_path[1200];
    binary_path(bin, sizeof bin);
    snprintf(o_path, sizeof o_path, "%s/.stdout", dir);
    snprintf(e_path, sizeof e_path, "%s/.stderr", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s >'%s' 2>'%s' </dev/null", dir, env ? env : "",
             bin, args, o_path, e_path);
    int status = system(cmd);
    *out = rbtest_read_file(o_path);
    *err = rbtest_read_file(e_path);
    remove(o_path);
    remove(e_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The files and folders in dir, not counting the dot-files split_run uses. */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* compare --json - (or /dev/stdout) and --html -: the comparison or its page on stdout, whole
 * and alone (JSON that parses; a page from its doctype to its end), the report on stderr, no
 * file named "-"; with --md (itself a document on stdout) refused. A human line on stdout (the
 * defect: the report printed there, as when the standard output is not kept for the document)
 * fails the parse and the report's check. */
static void test_dash_is_the_standard_output(void)
{
    char a[1200], b[1200], dash[1200], err[300];
    const char *dir = rbtest_fresh_dir();
    snprintf(a, sizeof a, "%s/old.json", dir);
    snprintf(b, sizeof b, "%s/new.json", dir);
    snprintf(dash, sizeof dash, "%s/-", dir);
    RB_CHECK(copy_file(HABITS_OLD, a) == 0 && copy_file(HABITS_NEW, b) == 0);
    static const char *const forms[] = {"compare old.json new.json --json -",
                                        "compare old.json new.json --json=/dev/stdout"};
    for (int k = 0; k < 2; k++) {
        char *out, *text;
        int rc = split_run(dir, NULL, forms[k], &out, &text);
        json_value *doc = out ? json_parse(out, strlen(out), err, sizeof err) : NULL;
        if (!doc)
            printf("    %s: stdout is not JSON: %s\n%.200s\n", forms[k], err, out ? out : "");
        RB_CHECK((rc == 0 || rc == 1) && doc && json_get(doc, "variants"));
        RB_CHECK(text && strstr(text, "compare: OLD old.json")); /* the report: on stderr */
        json_free(doc);
        free(out);
        free(text);
    }
    char *out, *text;
    int rc = split_run(dir, NULL, "compare old.json new.json --html -", &out, &text);
    RB_CHECK((rc == 0 || rc == 1) && out && !strncmp(out, "<!DOCTYPE html>", 15));
    RB_CHECK(out && strlen(out) > 8 && !strcmp(out + strlen(out) - 8, "</html>\n"));
    RB_CHECK(text && strstr(text, "compare: OLD old.json") && out && !strstr(out, "compare: OLD"));
    free(out);
    free(text);
    rc = split_run(dir, NULL, "compare old.json new.json --json - --md", &out, &text);
    RB_CHECK(rc == 2 && out && !*out && text && strstr(text, "one document"));
    free(out);
    free(text);
    struct stat st;
    RB_CHECK(stat(dash, &st) != 0); /* no file named "-" */
    rbtest_remove_dir();
}

/* One output at a time on the standard output: two are refused (exit 2, one line naming the
 * first, nothing on stdout, nothing written), whichever two and in either spelling; the parser
 * refuses them before any file or GPU is touched. */
static void test_one_output_on_stdout(void)
{
    rb_options o;
    char err[600];
    static const char *const two[] = {
        "roofbench run --json - --csv -",          "roofbench run --csv /dev/stdout --json=-",
        "roofbench compare a b --json - --html -", "roofbench p2p --html - --json /dev/stdout",
        "roofbench compare a b --html=- --json=-",
    };
    for (size_t k = 0; k < sizeof two / sizeof two[0]; k++) {
        int rc = parse(two[k], &o, err, sizeof err);
        if (rc == 0 || !strstr(err, "takes the standard output already"))
            printf("    %s: %s\n", two[k], rc == 0 ? "accepted" : err);
        RB_CHECK(rc == -1 && strstr(err, "takes the standard output already"));
    }
    /* one is taken, as "-" (never a file of that name) */
    RB_CHECK(parse("roofbench run --csv /dev/stdout --json r.json", &o, err, sizeof err) == 0);
    RB_CHECK(rb_cli_is_stdout(o.csv_path) && !rb_cli_is_stdout(o.json_path) &&
             rb_cli_writes_stdout(&o));
    RB_CHECK(parse("roofbench p2p --html=-", &o, err, sizeof err) == 0 &&
             rb_cli_is_stdout(o.plot_html));
    RB_CHECK(parse("roofbench run --json r.json --csv t.csv", &o, err, sizeof err) == 0 &&
             !rb_cli_writes_stdout(&o));
    const char *dir = rbtest_fresh_dir();
    char *out, *text;
    int rc = split_run(dir, NULL, "run --json - --csv - --expect none", &out, &text);
    RB_CHECK(rc == 2 && out && !*out && text && strstr(text, "--json - takes the standard"));
    RB_CHECK(entries_in(dir) == 0); /* no results folder, no file named "-" */
    free(out);
    free(text);
    rbtest_remove_dir();
}

/* -o BASE names several files (plot, history, profile), plot's page is one of plot's files and an
 * expectation file is recorded into where it lies: "-" and /dev/stdout are refused there (exit 2,
 * nothing written), never a base or a file named "-" ("-.svg" and "--speedup.svg", the issue
 * saw). */
static void test_dash_refused_for_several_files(void)
{
    char a[1200];
    const char *dir = rbtest_fresh_dir();
    snprintf(a, sizeof a, "%s/one.json", dir);
    RB_CHECK(copy_file(HABITS_OLD, a) == 0);
    static const char *const refused[][2] = {
        {"plot one.json -o -", "plot writes several files"},
        {"plot one.json -o /dev/stdout", "plot writes several files"},
        {"plot one.json --html -", "give --html FILE.html"},
        {"plot one.json --html=/dev/stdout", "give --html FILE.html"},
        {"history one.json -o -", "BASE.svg, BASE.md and BASE.json"},
        {"profile -o -", "profile writes several files"},
        {"ceilings --expect -", "an expectation file is read"},
        {"run --update-expectations --expect=/dev/stdout", "an expectation file is read"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        char *out, *text;
        int rc = split_run(dir, NULL, refused[k][0], &out, &text);
        if (rc != 2 || !text || !strstr(text, refused[k][1]))
            printf("    %s: exit %d: %s\n", refused[k][0], rc, text ? text : "");
        RB_CHECK(rc == 2 && out && !*out && text && strstr(text, refused[k][1]));
        free(out);
        free(text);
    }
    RB_CHECK(entries_in(dir) == 1); /* one.json alone */
    rbtest_remove_dir();
}

/* What run does with --json - or --csv - after a run (rb_results_save, then rb_results_print onto
 * the document stream), in a child whose descriptors 1 and 2 are files: stdout holds the document
 * alone, the human lines (a table, the "results:" line) are on stderr, and the results file is
 * written under its default name as ever, the same document. keep_stdout 0 is the planted defect:
 * the standard output not kept for the document, the human lines on it too. 0 when the child
 * wrote both, with their texts in *out and *err. */
static int run_save_in_child(const char *dir, const char *json, const char *csv, int keep_stdout,
                             char **out, char **err_text)
{
    char o_path[1200], e_path[1200], results_dir[1200];
    snprintf(o_path, sizeof o_path, "%s/.stdout", dir);
    snprintf(e_path, sizeof e_path, "%s/.stderr", dir);
    snprintf(results_dir, sizeof results_dir, "%s/results", dir);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char err[300];
        json_value *doc = json_parse_file("tests/plot/roofs.json", err, sizeof err);
        rb_pair_result *p = NULL;
        int n = 0;
        FILE *o_file = fopen(o_path, "w"), *e_file = fopen(e_path, "w");
        if (!doc || rb_results_read(doc, &p, &n, err, sizeof err) != 0 || !o_file || !e_file ||
            dup2(fileno(o_file), 1) < 0 || dup2(fileno(e_file), 2) < 0)
            _exit(90);
        if (keep_stdout && rb_cmd_stdout_for_document() != 0)
            _exit(91);
        rb_options o;
        memset(&o, 0, sizeof o);
        o.json_path = json;
        o.csv_path = csv;
        o.results_dir = results_dir;
        printf("copy_vectorized  baseline  0.95 ms  (the run's table)\n");
        rb_outputs *outs = rb_outputs_new(0);
        int rc = outs && rb_results_save(&o, "nvidia-h100-80gb-hbm3", doc, p, n, outs) == 0 &&
                         rb_results_print(&o, doc, p, n, rb_cmd_document()) == 0
                     ? 0
                     : 92;
        fflush(stdout);
        fflush(rb_cmd_document());
        _exit(rc);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    *out = rbtest_read_file(o_path);
    *err_text = rbtest_read_file(e_path);
    remove(o_path);
    remove(e_path);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && *out && *err_text ? 0 : -1;
}

/* The one file under dir/results/nvidia-h100-80gb-hbm3 whose name ends with suffix, read;
 * NULL when there is not exactly one. */
static char *default_results(const char *dir, const char *suffix)
{
    char folder[1200], path[1600];
    snprintf(folder, sizeof folder, "%s/results/nvidia-h100-80gb-hbm3", dir);
    DIR *d = opendir(folder);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (len > sl && !strcmp(e->d_name + len - sl, suffix) && !strstr(e->d_name, "speedup")) {
            snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
            found++;
        }
    }
    if (d)
        closedir(d);
    return found == 1 ? rbtest_read_file(path) : NULL;
}

static void test_run_json_dash_holds_the_document(void)
{
    char err[300], *out = NULL, *text = NULL;
    const char *dir = rbtest_fresh_dir();
    RB_CHECK(run_save_in_child(dir, "-", NULL, 1, &out, &text) == 0);
    json_value *doc = out ? json_parse(out, strlen(out), err, sizeof err) : NULL;
    if (!doc)
        printf("    run --json -: stdout is not the document: %s\n%.300s\n", err, out ? out : "");
    RB_CHECK(doc && json_get(doc, "pairs") && json_get(doc, "environment"));
    RB_CHECK(text && strstr(text, "(the run's table)") && strstr(text, "results: "));
    char *file = default_results(dir, ".json");
    RB_CHECK(file && out && !strcmp(file, out)); /* the default file: the same document */
    free(file);
    file = default_results(dir, ".md"); /* and its twins beside it */
    RB_CHECK(file != NULL);
    free(file);
    json_free(doc);
    free(out);
    free(text);
    rbtest_remove_dir();

    /* --csv -: the CSV alone on stdout, the results file under its default name */
    dir = rbtest_fresh_dir();
    RB_CHECK(run_save_in_child(dir, NULL, "-", 1, &out, &text) == 0);
    RB_CHECK(out && !strncmp(out, "pair,", 5) && !strstr(out, "the run's table"));
    RB_CHECK(text && strstr(text, "table: on the standard output"));
    file = default_results(dir, ".json");
    RB_CHECK(file != NULL);
    free(file);
    free(out);
    free(text);
    rbtest_remove_dir();

    /* the planted defect: the standard output not kept, the table on it too: no document */
    dir = rbtest_fresh_dir();
    RB_CHECK(run_save_in_child(dir, "-", NULL, 0, &out, &text) == 0);
    doc = out ? json_parse(out, strlen(out), err, sizeof err) : NULL;
    RB_CHECK(out && !doc && strstr(out, "(the run's table)"));
    json_free(doc);
    free(out);
    free(text);
    rbtest_remove_dir();
}

/* The commands that need a GPU, on the binary: with --json - (or --csv -) the standard output
 * holds nothing but the document. Without a GPU every line (the no-GPU line) is on stderr and
 * stdout is empty; on a GPU machine a smoke run's document parses. */
static void test_run_dash_on_the_binary(void)
{
    static const char *const forms[] = {
        "run --json - --expect none --filter ^copy_vectorized$ --size smoke --no-ceilings",
        "run --csv - --expect none --filter ^copy_vectorized$ --size smoke --no-ceilings",
        "p2p --json - --expect none",
    };
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        const char *dir = rbtest_fresh_dir();
        char *out, *text, err[300];
        int rc = split_run(dir, NULL, forms[k], &out, &text);
        if (rbtest_gpu_count() == 0) {
            RB_CHECK(rc == 3 && out && !*out && text && strstr(text, "no usable CUDA device"));
        } else if (k == 1) {
            RB_CHECK((rc == 0 || rc == 1) && out && !strncmp(out, "pair,", 5));
        } else {
            json_value *doc = out ? json_parse(out, strlen(out), err, sizeof err) : NULL;
            if (!doc)
                printf("    %s: stdout is not JSON: %s\n%.300s\n", forms[k], err, out ? out : "");
            RB_CHECK((rc == 0 || rc == 1) && doc);
            json_free(doc);
        }
        struct stat st;
        char dash[1300];
        snprintf(dash, sizeof dash, "%s/-", dir);
        RB_CHECK(stat(dash, &st) != 0);
        free(out);
        free(text);
        rbtest_remove_dir();
    }
}

/* run --device all --json - on posed GPUs (RB_TEST_FAULT=node:gpus=2, each part the stand-in
 * tests/node_fake_part.sh): the node document on stdout alone, the phases and the table on
 * stderr, the node file under its default name the same document; and the node's own options in
 * any spelling (-d all, --devices=0,1, --json=FILE) never reach its parts twice (the stand-in
 * refuses them twice, as roofbench does: a part that fails). */
static void test_node_run_json_dash(void)
{
    char env[2400], cwd[1024], err[300], scratch[1100];
    const char *dir = rbtest_fresh_dir();
    snprintf(scratch, sizeof scratch, "%s/tmp", dir); /* (the node's scratch folders) */
    RB_CHECK(getcwd(cwd, sizeof cwd) != NULL && mkdir(scratch, 0755) == 0);
    snprintf(env, sizeof env,
             "RB_TEST_FAULT=node:gpus=2 RB_TEST_NODE_EXE='%s/tests/node_fake_part.sh' "
             "RB_HOST_NAME=fakehost TMPDIR='%s'",
             cwd, scratch);
    char *out, *text;
    int rc = split_run(dir, env, "run --device all --json -", &out, &text);
    json_value *doc = out ? json_parse(out, strlen(out), err, sizeof err) : NULL;
    if (!doc)
        printf("    node run --json -: stdout is not JSON: %s\n%.300s\n", err, out ? out : "");
    RB_CHECK(rc == 0 && doc && !strcmp(json_string_at(doc, "kind", ""), "node"));
    RB_CHECK(text && strstr(text, "node results: results/nvidia-h100-80gb-hbm3-x2/") &&
             strstr(text, "GPU (host:index"));
    char folder[1200], path[1600] = "";
    snprintf(folder, sizeof folder, "%s/results/nvidia-h100-80gb-hbm3-x2", dir);
    DIR *d = opendir(folder);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, "-node.json"))
            snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
    if (d)
        closedir(d);
    char *file = path[0] ? rbtest_read_file(path) : NULL;
    RB_CHECK(file && out && !strcmp(file, out));
    free(file);
    json_free(doc);
    free(out);
    free(text);
    static const char *const spellings[] = {"run -d all --json=node.json",
                                            "run --devices=0,1 --json node.json"};
    for (int k = 0; k < 2; k++) {
        rc = split_run(dir, env, spellings[k], &out, &text);
        if (rc != 0)
            printf("    %s: exit %d\n%.400s\n", spellings[k], rc, text ? text : "");
        RB_CHECK(rc == 0);
        free(out);
        free(text);
    }
    rbtest_remove_dir();
}

static void test_history_of_one_run_says_dash(void)
{
    char a[1200];
    const char *dir = rbtest_fresh_dir();
    snprintf(a, sizeof a, "%s/one.json", dir);
    RB_CHECK(copy_file(HABITS_OLD, a) == 0);
    int rc;
    char *out = stdout_of(dir, "history one.json --expect none", &rc);
    RB_CHECK(out && rc == 0);
    if (out && strstr(out, "nan"))
        printf("    history of one run:\n%.600s\n", out);
    RB_CHECK(out && !strstr(out, "nan") && !strstr(out, "NaN"));
    /* a series of one run: its change is '-', its verdict single */
    int dashes = 0; /* a "single" whose cell before it (spaces between) is "-" */
    for (const char *p = out; p && (p = strstr(p, " single")) != NULL; p++) {
        const char *q = p;
        while (q > out && q[-1] == ' ')
            q--;
        dashes += q - out >= 2 && q[-1] == '-' && q[-2] == ' ';
    }
    RB_CHECK(dashes > 0);
    free(out);
    rbtest_remove_dir();
}

/* ---- every script's -h ---- */

/* Runs script -h (20 s at most): 0 when it exits 0 and says "usage", else -1 with why. */
static int says_usage(const char *script, char *why, size_t size)
{
    char cmd[1200], log[] = "/tmp/rbtest-usage-XXXXXX";
    int fd = mkstemp(log);
    if (fd < 0) {
        snprintf(why, size, "no temporary file");
        return -1;
    }
    close(fd);
    snprintf(cmd, sizeof cmd, "timeout 20 '%s' -h </dev/null >'%s' 2>&1", script, log);
    int status = system(cmd), rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    char *out = rbtest_read_file(log);
    int usage = out && (strstr(out, "usage") || strstr(out, "Usage"));
    free(out);
    remove(log);
    if (rc == 0 && usage)
        return 0;
    snprintf(why, size, "%s -h: exit %d%s", script, rc,
             rc == 124 ? " (still running after 20 s: it ignored -h)"
             : usage   ? ""
                       : ", no usage");
    return -1;
}

static void test_every_script_says_usage_on_h(void)
{
    static const char *const dirs[] = {"scripts", "scripts/probes"};
    char why[1400];
    int n = 0;
    for (int d = 0; d < 2; d++) {
        DIR *dp = opendir(dirs[d]);
        for (struct dirent *e; dp && (e = readdir(dp)) != NULL;) {
            char path[1024];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR))
                continue;
            n++;
            int bad = says_usage(path, why, sizeof why);
            if (bad)
                printf("    %s\n", why);
            RB_CHECK(bad == 0);
        }
        if (dp)
            closedir(dp);
    }
    RB_CHECK(n >= 30);
}

/* The checker fails a script that needs its environment before it reads -h (gpu_p2p.sh as it
 * was: exit 1) and one that says nothing of its usage. */
static void test_usage_checker_catches_a_planted_script(void)
{
    char dir[600], path[700], why[1400];
    snprintf(dir, sizeof dir, "%s", rbtest_fresh_dir());
    snprintf(path, sizeof path, "%s/planted.sh", dir);
    static const char *const bodies[] = {
        "#!/usr/bin/env bash\n# usage: OUT=DIR planted.sh\nset -u\nOUT=${OUT:?OUT=DIR}\n",
        "#!/usr/bin/env bash\n# does things\nexit 0\n"};
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(path, "w");
        RB_CHECK(f && fputs(bodies[k], f) >= 0 && fclose(f) == 0 && chmod(path, 0755) == 0);
        char *env_out = getenv("OUT");
        unsetenv("OUT");
        RB_CHECK(says_usage(path, why, sizeof why) == -1);
        if (env_out)
            setenv("OUT", env_out, 1);
    }
    remove(path);
    rbtest_remove_dir();
}

static const rbtest_case habits_cases[] = {
    {"opt_equals_value_everywhere", test_opt_equals_value_everywhere},
    {"device_aliases", test_device_aliases},
    {"list_json_matches_its_schema", test_list_json_matches_its_schema},
    {"compare_md_names_no_absolute_path", test_compare_md_names_no_absolute_path},
    {"dash_is_the_standard_output", test_dash_is_the_standard_output},
    {"one_output_on_stdout", test_one_output_on_stdout},
    {"dash_refused_for_several_files", test_dash_refused_for_several_files},
    {"run_json_dash_holds_the_document", test_run_json_dash_holds_the_document},
    {"run_dash_on_the_binary", test_run_dash_on_the_binary},
    {"node_run_json_dash", test_node_run_json_dash},
    {"history_of_one_run_says_dash", test_history_of_one_run_says_dash},
    {"every_script_says_usage_on_h", test_every_script_says_usage_on_h},
    {"usage_checker_catches_a_planted_script", test_usage_checker_catches_a_planted_script},
};

RB_SUITE(habits_suite, "habits", habits_cases);
