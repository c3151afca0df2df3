/* SPDX-License-Identifier: MIT */
/*
 * The command line's shape, checked on the source tree (tier 1): --filter and --skip-variants
 * are compiled in one place, the CLI layer (harness/model/cli.c: rb_filter_compile), so no other
 * file of the harness calls regcomp; main.c is a dispatcher (each command lives in its own
 * harness/runner/cmd_*.c), under 200 lines; and no function of harness/ is longer than 80 lines,
 * so each can be read at once. Each check is shown to fail on a planted defect.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/model/cli.h"
#include "rbtest.h"

#define CLI_MAX_FILES 512
#define CLI_NAME 128
#define CLI_MAX_LINES 80 /* the longest function body, in lines between its braces */
#define CLI_MAIN_LINES 200

/* The files under harness/'s folders whose names end in .c, .h or .cu, sorted. */
static int harness_sources(char out[][CLI_NAME], int max, const char *ends)
{
    static const char *const folders[] = {"harness/kit", "harness/model", "harness/report",
                                          "harness/runner", "harness/tools"};
    int n = 0;
    for (size_t f = 0; f < sizeof folders / sizeof folders[0]; f++) {
        DIR *d = opendir(folders[f]);
        for (struct dirent *e; d && (e = readdir(d)) != NULL && n < max;) {
            const char *dot = strrchr(e->d_name, '.');
            char want[8];
            if (!dot || snprintf(want, sizeof want, "%s ", dot) >= (int)sizeof want ||
                !strstr(ends, want))
                continue;
            if (snprintf(out[n], CLI_NAME, "%s/%s", folders[f], e->d_name) < CLI_NAME)
                n++;
        }
        if (d)
            closedir(d);
    }
    qsort(out, (size_t)n, CLI_NAME, (int (*)(const void *, const void *))strcmp);
    return n;
}

/* text with its comments and the contents of its string and character literals blanked (the
 * line breaks kept), so that a call named in a comment or a message is not a call. */
static void blank_comments(char *text)
{
    for (char *p = text; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *end = strstr(p + 2, "*/");
            char *stop = end ? end + 2 : p + strlen(p);
            for (; p < stop; p++)
                if (*p != '\n')
                    *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++)
                *p = ' ';
            p--;
        } else if (*p == '"' || *p == '\'') {
            char quote = *p++;
            for (; *p && *p != quote && *p != '\n'; p++) {
                if (*p == '\\' && p[1])
                    *p++ = ' ';
                *p = ' ';
            }
            if (!*p)
                break;
        }
    }
}

/* How many calls of regcomp the source text makes (comments and strings aside). */
static int regcomp_calls(const char *text)
{
    char *t = strdup(text);
    int n = 0;
    if (!t)
        return -1;
    blank_comments(t);
    for (const char *p = t; (p = strstr(p, "regcomp")) != NULL; p += 7) {
        const char *q = p + 7;
        while (*q == ' ' || *q == '\t' || *q == '\n')
            q++;
        int word_start =
            p == t || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                        (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
        n += word_start && *q == '(';
    }
    free(t);
    return n;
}

static void test_no_regcomp_outside_the_cli_layer(void)
{
    static char files[CLI_MAX_FILES][CLI_NAME];
    int n = harness_sources(files, CLI_MAX_FILES, ".c .h .cu ");
    int in_cli = 0;
    RB_CHECK(n > 100);
    for (int i = 0; i < n; i++) {
        char *text = rbtest_read_file(files[i]);
        int calls = text ? regcomp_calls(text) : -1;
        free(text);
        if (!strcmp(files[i], "harness/model/cli.c")) {
            in_cli = calls;
            continue;
        }
        if (calls != 0)
            printf("    %s: %d call(s) of regcomp: compile with rb_filter_compile (model/cli.h)\n",
                   files[i], calls);
        RB_CHECK(calls == 0);
    }
    RB_CHECK(in_cli == 1); /* rb_filter_compile's */
}

static void test_regcomp_finder_catches_a_planted_call(void)
{
    /* jobs.c as it was: its own compile of --filter beside the CLI's */
    const char *planted = "    regex_t re;\n"
                          "    if (o->filter && regcomp (&re, o->filter, REG_EXTENDED) != 0)\n";
    RB_CHECK(regcomp_calls(planted) == 1);
    RB_CHECK(regcomp_calls("x = regcomp(&re, \"a\", 0); y = regcomp(&r2, s, 0);") == 2);
    /* named in a comment, a message or another identifier: no call */
    RB_CHECK(regcomp_calls("/* regcomp(&re) refuses it */ f(\"regcomp(\"); my_regcomp(x);") == 0);
    RB_CHECK(regcomp_calls("// regcomp(x)\n") == 0);
}

/* The line count of text. */
static int lines_of(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n + (*text && text[strlen(text) - 1] != '\n');
}

static void test_main_is_a_dispatcher(void)
{
    char *text = rbtest_read_file("harness/runner/main.c");
    RB_CHECK(text != NULL);
    if (!text)
        return;
    int n = lines_of(text);
    if (n >= CLI_MAIN_LINES)
        printf("    harness/runner/main.c: %d lines: a command's code goes in its cmd_*.c\n", n);
    RB_CHECK(n > 0 && n < CLI_MAIN_LINES);
    free(text);
    /* each command in its own file */
    static const char *const commands[] = {"run",     "check",   "list", "ceilings",
                                           "compare", "history", "plot"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char path[96];
        snprintf(path, sizeof path, "harness/runner/cmd_%s.c", commands[i]);
        char *cmd = rbtest_read_file(path);
        if (!cmd)
            printf("    %s: missing\n", path);
        RB_CHECK(cmd != NULL);
        free(cmd);
    }
}

static void test_line_counter_catches_a_long_main(void)
{
    size_t size = CLI_MAIN_LINES * 2 + 1;
    char *planted = malloc(size);
    RB_CHECK(planted != NULL);
    if (!planted)
        return;
    for (int i = 0; i < CLI_MAIN_LINES; i++)
        memcpy(planted + 2 * i, ";\n", 2);
    planted[size - 1] = '\0';
    RB_CHECK(lines_of(planted) == CLI_MAIN_LINES); /* not under 200: refused */
    planted[2 * (CLI_MAIN_LINES - 1)] = '\0';
    RB_CHECK(lines_of(planted) == CLI_MAIN_LINES - 1);
    RB_CHECK(lines_of("a\nb") == 2);
    free(planted);
}

/* The functions of a C source longer than max body lines (the lines between a '{' alone at the
 * start of a line, which opens a function in the house style, and the next '}' at the start of
 * a line), each said as "file:line name (N lines)" into out; the number of them. */
static int long_functions(const char *file, const char *text, int max, char *out, size_t size)
{
    int n = 0, line = 1, open_line = 0;
    const char *sig = NULL, *open = NULL;
    for (const char *p = text; *p; line++) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!open && len > 0 && p[0] != ' ' && p[0] != '\t' && p[0] != '{' && p[0] != '}' &&
            p[0] != '#' && memchr(p, '(', len))
            sig = p; /* the last line that may start a signature */
        if (!open && len == 1 && p[0] == '{') {
            open = p;
            open_line = line;
        } else if (open && p[0] == '}') {
            int body = line - open_line - 1;
            if (body > max) {
                char name[80] = "?";
                if (sig) {
                    const char *paren = strchr(sig, '('), *start = paren;
                    while (start > sig &&
                           (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
                            (start[-1] >= 'A' && start[-1] <= 'Z') ||
                            (start[-1] >= '0' && start[-1] <= '9')))
                        start--;
                    snprintf(name, sizeof name, "%.*s", (int)(paren - start), start);
                }
                size_t used = strlen(out);
                snprintf(out + used, size - used, "    %s:%d %s (%d lines)\n", file, open_line,
                         name, body);
                n++;
            }
            open = NULL;
            sig = NULL;
        }
        p = end ? end + 1 : p + len;
    }
    return n;
}

static void test_functions_fit_80_lines(void)
{
    static char files[CLI_MAX_FILES][CLI_NAME];
    int n = harness_sources(files, CLI_MAX_FILES, ".c ");
    static char said[16384];
    int longer = 0;
    said[0] = '\0';
    RB_CHECK(n > 80);
    for (int i = 0; i < n; i++) {
        char *text = rbtest_read_file(files[i]);
        RB_CHECK(text != NULL);
        if (text)
            longer += long_functions(files[i], text, CLI_MAX_LINES, said, sizeof said);
        free(text);
    }
    if (longer)
        printf("    functions longer than %d lines (split them):\n%s", CLI_MAX_LINES, said);
    RB_CHECK(longer == 0);
}

/* A planted function of 81 body lines is found, with its name and line; one of 80 is not. */
static void test_length_finder_catches_a_planted_long_function(void)
{
    size_t size = 200 * 16;
    char *text = malloc(size), said[400] = "";
    RB_CHECK(text != NULL);
    if (!text)
        return;
    for (int body = CLI_MAX_LINES; body <= CLI_MAX_LINES + 1; body++) {
        size_t len = (size_t)snprintf(text, size,
                                      "static const int table[] = {\n    1,\n};\n\n"
                                      "static int planted(const char *a,\n"
                                      "                   int b)\n{\n");
        for (int i = 0; i < body; i++)
            len += (size_t)snprintf(text + len, size - len, "    b++;\n");
        snprintf(text + len, size - len, "}\n\nint after(void)\n{\n    return 0;\n}\n");
        said[0] = '\0';
        int found = long_functions("planted.c", text, CLI_MAX_LINES, said, sizeof said);
        RB_CHECK(found == (body > CLI_MAX_LINES));
        if (body > CLI_MAX_LINES)
            RB_CHECK(strstr(said, "planted.c:7 planted (81 lines)") != NULL);
    }
    free(text);
}

/* Every option a command's help lists has its parser or its flag in the option table (a row
 * added without them is refused by name, never written through): each parses for its command
 * without the table's complaint. */
static void test_every_option_has_its_action(void)
{
    int checked = 0;
    for (int c = RB_CMD_LIST; c <= RB_CMD_LAST; c++) {
        char *help = rb_cli_help((rb_command)c);
        RB_CHECK(help != NULL);
        for (const char *line = help; line && *line;) {
            const char *end = strchr(line, '\n');
            char opt[64];
            if (sscanf(line, "  %63s", opt) == 1 && opt[0] == '-' && line[2] == '-') {
                char cmd[32], value[] = "x.html", err[600] = "";
                snprintf(cmd, sizeof cmd, "%s", rb_cli_command_name((rb_command)c));
                char *argv[] = {"roofbench", cmd, opt, value, NULL};
                rb_options o;
                rb_cli_parse(4, argv, &o, err, sizeof err);
                if (strstr(err, "option table"))
                    printf("    %s %s: %s\n", cmd, opt, err);
                RB_CHECK(!strstr(err, "option table"));
                checked++;
            }
            line = end ? end + 1 : NULL;
        }
        free(help);
    }
    RB_CHECK(checked > 40);
}

static const rbtest_case cli_cases[] = {
    {"no_regcomp_outside_the_cli_layer", test_no_regcomp_outside_the_cli_layer},
    {"every_option_has_its_action", test_every_option_has_its_action},
    {"regcomp_finder_catches_a_planted_call", test_regcomp_finder_catches_a_planted_call},
    {"main_is_a_dispatcher", test_main_is_a_dispatcher},
    {"line_counter_catches_a_long_main", test_line_counter_catches_a_long_main},
    {"functions_fit_80_lines", test_functions_fit_80_lines},
    {"length_finder_catches_a_planted_long_function",
     test_length_finder_catches_a_planted_long_function},
};

const rbtest_suite cli_suite = {"cli", cli_cases, sizeof cli_cases / sizeof cli_cases[0]};
