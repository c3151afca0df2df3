/* SPDX-License-Identifier: MIT */
/*
 * The Unix habits of the command line (tier 1 and 2, no GPU): --opt=value wherever --opt VALUE
 * is taken; compare --json - (or /dev/stdout) on stdout with the report on stderr; -d and --devices
 * for --device; list --json, valid against docs/list.schema.json; no absolute path of this machine
 * in compare --md's output; a change of one run shown as '-' by history, not "+nan%"; every script
 * of scripts/ and scripts/probes/ says its usage on -h and exits 0 (a script that ignores -h would
 * start its GPU work). Each check fails on a plant.
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

/* compare --json - (or /dev/stdout): the comparison on stdout, parseable, the report on stderr,
 * no file named "-"; where the standard output cannot take an output yet (run's --json and
 * --csv write files beside them), a refusal, never a file named "-". */
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
        int rc;
        char *out = stdout_of(dir, forms[k], &rc);
        json_value *doc = out ? json_parse(out, strlen(out), err, sizeof err) : NULL;
        if (!doc)
            printf("    %s: stdout is not JSON: %s\n%.200s\n", forms[k], err, out ? out : "");
        RB_CHECK((rc == 0 || rc == 1) && doc && json_get(doc, "variants"));
        json_free(doc);
        free(out);
    }
    int rc;
    char *out = stdout_of(dir, "compare old.json new.json --json - --md", &rc);
    RB_CHECK(rc == 2 && out && !*out);
    free(out);
    out = stdout_of(dir, "run --json - --expect none", &rc);
    RB_CHECK(rc == 2);
    free(out);
    out = stdout_of(dir, "run --csv /dev/stdout --expect none", &rc);
    RB_CHECK(rc == 2);
    free(out);
    struct stat st;
    RB_CHECK(stat(dash, &st) != 0); /* no file named "-" */
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
    {"history_of_one_run_says_dash", test_history_of_one_run_says_dash},
    {"every_script_says_usage_on_h", test_every_script_says_usage_on_h},
    {"usage_checker_catches_a_planted_script", test_usage_checker_catches_a_planted_script},
};

RB_SUITE(habits_suite, "habits", habits_cases);
