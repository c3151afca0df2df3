/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <regex.h>
#include <string.h>

#include "util.h"

const char *rb_cli_usage(void)
{
    return "usage: roofbench COMMAND [options]\n"
           "\n"
           "commands:\n"
           "  list                  the pairs, their variants and sizes\n"
           "  run                   validate, time and place every variant on the roofline,\n"
           "                        compare with the expectation file, write the results\n"
           "  check                 validate every variant (no timing): the GPU tests\n"
           "  ceilings              measure every roof of this GPU (DRAM copy, read, write; L2;\n"
           "                        shared memory; FP32, FP64 FMA; TF32, BF16, FP16, FP8 tensor\n"
           "                        cores; host and peer links; launch and graph-node latency)\n"
           "                        and write them into the expectation file's ceilings\n"
           "  plot RESULTS.json     draw the roofline chart (RESULTS.svg) and the speedup chart\n"
           "                        (RESULTS-speedup.svg) of a results file\n"
           "  compare OLD.json NEW.json  compare two results files variant by variant: same,\n"
           "                        faster, slower or unclear, and for each change its cause\n"
           "                        (platform, code, throttled, unexplained); exit 1 when a\n"
           "                        variant is slower for any cause but the platform\n"
           "  history DIR|FILE...   every variant's median over the runs of one GPU (a folder's\n"
           "                        *.json, e.g. results/<hardware-key>/, or the files), in\n"
           "                        date order: step changes that stayed, and their cause\n"
           "  docs                  regenerate the numbers of README.md, docs/ and the kernel\n"
           "                        headers from results/<hardware-key>/reference.json (in the\n"
           "                        repository's root; make docs)\n"
           "\n"
           "options (the commands each one goes with in brackets; any other use is refused):\n"
           "  --filter REGEX        [list run check plot compare history] only pairs whose\n"
           "                        name, or whose <pair>.<input>@<size> row name, matches\n"
           "                        (POSIX extended regex): '^sgemm$' selects every size of\n"
           "                        sgemm; compare, history: or whose pair/variant matches\n"
           "  --size smoke|full|N|RxC  [list run check] problem size in elements: a count with\n"
           "                        an optional K, M, G, T (binary) suffix, or a shape ROWSxCOLS\n"
           "                        for two-dimensional pairs (see list)\n"
           "  --samples N           [run] exactly N timed samples, 1..100000 (default:\n"
           "                        adaptive, until the 95% interval of the median is within\n"
           "                        1% of it, or the time cap)\n"
           "  --cap S               [run] time cap of the timed loop per variant, 0.01..3600\n"
           "                        seconds (default 1)\n"
           "  --cold                [run] flush L2 and reset persisting L2 before each\n"
           "                        single-launch sample\n"
           "  --json FILE           [run compare] compare: the comparison as JSON; run: the\n"
           "                        results file, replaced if it exists (default\n"
           "                        results/<hardware-key>/<UTC>-<git>.json, never replaced:\n"
           "                        a second run in the same second writes <...>-2.json)\n"
           "  --csv FILE            [run] the table as CSV (RFC 4180), one row per variant with\n"
           "                        its roof, replaced if it exists\n"
           "  --results-dir DIR     [run] folder for the default results file (default results)\n"
           "  --expect FILE|none    [run ceilings compare history] expectation file (default\n"
           "                        expectations/<hardware-key>.json; compare, history: the\n"
           "                        runs' GPU's, in the tree the binary was built from, whose\n"
           "                        recorded run spreads set each variant's floor)\n"
           "  --expect-any-device   [run ceilings] use an expectation file recorded on another\n"
           "                        GPU model (refused by default: its times and roofs are not\n"
           "                        this GPU's)\n"
           "  --update-expectations [run] rewrite the expectation file from this run: each\n"
           "                        variant's median, and the spread of its medians over\n"
           "                        --repeat runs, from which its regression threshold comes\n"
           "  --repeat N            [run] with --update-expectations: run the pairs N times,\n"
           "                        1..20 (default 3; 1 records no spread: the thresholds\n"
           "                        then fall back to the spread within one timed loop)\n"
           "  --quick               [ceilings] DRAM copy, FP32 FMA and launch latency only (a few\n"
           "                        seconds: a same-run platform reference)\n"
           "  --no-ceilings         [run] skip the platform reference a run measures first\n"
           "                        (ceilings --quick: DRAM copy, FP32, launch; under 5 s);\n"
           "                        the results then say platform: none\n"
           "  --nvtx                [run check] NVTX ranges around each pair and variant\n"
           "  --timeout S           [run check ceilings] watchdog: a pair running longer fails,\n"
           "                        5..86400 seconds (default 300)\n"
           "  --seed N              [run check] seed of the random inputs (default 20261122)\n"
           "  -o FILE.svg           [plot] the roofline chart's file (default: beside the\n"
           "                        results file, same name, .svg); the speedup chart goes to\n"
           "                        FILE-speedup.svg\n"
           "  --html FILE.html      [plot compare] also the self-contained HTML report (plot:\n"
           "                        charts and a sortable table, run writes one beside every\n"
           "                        results file; compare: the sortable comparison)\n"
           "  --baseline OLD.json   [run] compare this run with OLD.json (as compare does) and\n"
           "                        exit 1 when a variant is slower for any cause but the\n"
           "                        platform; the file is read before any GPU work\n"
           "  --fail-on-platform    [run compare] a slowdown the platform explains fails too\n"
           "  --md, --csv           [compare] print the comparison as Markdown (a pull-request\n"
           "                        comment) or as CSV instead of the text report\n"
           "  -o BASE               [history] also write BASE.svg (a trend line per variant),\n"
           "                        BASE.md and BASE.json\n"
           "  --check               [docs] rewrite nothing; exit 1 when a generated block differs\n"
           "                        from what the reference runs give\n"
           "  paths (FILE, DIR) are at most 1024 bytes long\n"
           "  -h, --help            this text\n"
           "\n"
           "exit codes: 0 ok; 1 invalid result or regression; 2 usage, configuration or input\n"
           "error; 3 no usable CUDA device; 130 / 143 interrupted by SIGINT (Ctrl-C) /\n"
           "SIGTERM (the running pair is ended, nothing is written)\n";
}

static int need_value(int argc, char **argv, int i, char *err, size_t err_size)
{
    if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        rb_fmt(err, err_size, "%s needs a value", argv[i]);
        return -1;
    }
    return 0;
}

/* Which commands take which option: an option a command does not use is refused, so a user
 * who writes `list --cold` or `check --expect e.json` learns that it does nothing there. */
enum {
    ON_LIST = 1,
    ON_RUN = 2,
    ON_CHECK = 4,
    ON_CEILINGS = 8,
    ON_PLOT = 16,
    ON_COMPARE = 32,
    ON_HISTORY = 64,
    ON_DOCS = 128
};
typedef struct cli_option {
    const char *name;
    unsigned commands;
    int takes_value;
} cli_option;

static const cli_option cli_options[] = {
    {"--filter", ON_LIST | ON_RUN | ON_CHECK | ON_PLOT | ON_COMPARE | ON_HISTORY, 1},
    {"--size", ON_LIST | ON_RUN | ON_CHECK, 1},
    {"--samples", ON_RUN, 1},
    {"--cap", ON_RUN, 1},
    {"--cold", ON_RUN, 0},
    {"--json", ON_RUN | ON_COMPARE, 1},
    {"--csv", ON_RUN, 1},
    {"--csv", ON_COMPARE, 0},
    {"--md", ON_COMPARE, 0},
    {"--results-dir", ON_RUN, 1},
    {"--expect", ON_RUN | ON_CEILINGS | ON_COMPARE | ON_HISTORY, 1},
    {"--expect-any-device", ON_RUN | ON_CEILINGS, 0},
    {"--update-expectations", ON_RUN, 0},
    {"--repeat", ON_RUN, 1},
    {"--quick", ON_CEILINGS, 0},
    {"--no-ceilings", ON_RUN, 0},
    {"--nvtx", ON_RUN | ON_CHECK, 0},
    {"--timeout", ON_RUN | ON_CHECK | ON_CEILINGS, 1},
    {"--seed", ON_RUN | ON_CHECK, 1},
    {"-o", ON_PLOT | ON_HISTORY, 1},
    {"--html", ON_PLOT | ON_COMPARE, 1},
    {"--baseline", ON_RUN, 1},
    {"--fail-on-platform", ON_RUN | ON_COMPARE, 0},
    {"--check", ON_DOCS, 0},
};

static const char *const command_names[] = {"help", "list",    "run",     "check", "ceilings",
                                            "plot", "compare", "history", "docs"};

static unsigned command_bit(rb_command c)
{
    return c == RB_CMD_LIST       ? ON_LIST
           : c == RB_CMD_RUN      ? ON_RUN
           : c == RB_CMD_CHECK    ? ON_CHECK
           : c == RB_CMD_CEILINGS ? ON_CEILINGS
           : c == RB_CMD_PLOT     ? ON_PLOT
           : c == RB_CMD_COMPARE  ? ON_COMPARE
           : c == RB_CMD_HISTORY  ? ON_HISTORY
           : c == RB_CMD_DOCS     ? ON_DOCS
                                  : 0;
}

/* The option named a, or NULL with the refusal in err (unknown, or not for this command). An
 * option may have an entry per command (run's --csv FILE, compare's --csv switch). */
static const cli_option *find_option(const char *a, rb_command cmd, char *err, size_t err_size)
{
    unsigned goes_with = 0;
    for (size_t k = 0; k < sizeof cli_options / sizeof cli_options[0]; k++) {
        const cli_option *opt = &cli_options[k];
        if (strcmp(a, opt->name) != 0)
            continue;
        if (opt->commands & command_bit(cmd))
            return opt;
        goes_with |= opt->commands;
    }
    if (!goes_with) {
        rb_fmt(err, err_size, "unknown option '%s' (try: roofbench --help)", a);
        return NULL;
    }
    char with[96] = "";
    for (int c = RB_CMD_LIST; c <= RB_CMD_DOCS; c++)
        if (goes_with & command_bit((rb_command)c)) {
            size_t len = strlen(with);
            rb_fmt(with + len, sizeof with - len, "%s%s", len ? ", " : "", command_names[c]);
        }
    rb_fmt(err, err_size, "%s does not go with %s: %s does nothing there (it goes with %s)", a,
           command_names[cmd], a, with);
    return NULL;
}

static int parse_command(const char *cmd, rb_options *o, char *err, size_t err_size)
{
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help"))
        o->command = RB_CMD_HELP;
    else if (!strcmp(cmd, "list"))
        o->command = RB_CMD_LIST;
    else if (!strcmp(cmd, "run"))
        o->command = RB_CMD_RUN;
    else if (!strcmp(cmd, "check"))
        o->command = RB_CMD_CHECK;
    else if (!strcmp(cmd, "ceilings"))
        o->command = RB_CMD_CEILINGS;
    else if (!strcmp(cmd, "plot"))
        o->command = RB_CMD_PLOT;
    else if (!strcmp(cmd, "compare"))
        o->command = RB_CMD_COMPARE;
    else if (!strcmp(cmd, "history"))
        o->command = RB_CMD_HISTORY;
    else if (!strcmp(cmd, "docs"))
        o->command = RB_CMD_DOCS;
    else {
        rb_fmt(err, err_size, "unknown command '%s' (try: roofbench --help)", cmd);
        return -1;
    }
    return 0;
}

static int parse_path(const char *a, const char *v, const char **dst, char *err, size_t err_size)
{
    size_t len = strlen(v);
    if (len > RB_PATH_MAX) {
        rb_fmt(err, err_size, "%s: the path is %zu bytes long; at most %d", a, len, RB_PATH_MAX);
        return -1;
    }
    *dst = v;
    return 0;
}

/* Seconds within [lo, hi]: --timeout and --cap (a double converted to an int or a poll timeout
 * must be in range, and a watchdog of a microsecond would report a sound GPU as broken). */
static int parse_bounded_seconds(const char *a, const char *v, double lo, double hi, double *dst,
                                 char *err, size_t err_size)
{
    char why[200];
    if (rb_parse_seconds(v, dst, why, sizeof why) != 0) {
        rb_fmt(err, err_size, "%s: %s", a, why);
        return -1;
    }
    if (!(*dst >= lo && *dst <= hi)) {
        rb_fmt(err, err_size, "%s: '%s' is out of range (%g to %g seconds)", a, v, lo, hi);
        return -1;
    }
    return 0;
}

static int parse_size_option(const char *v, rb_options *o, char *err, size_t err_size)
{
    char why[200];
    if (!strcmp(v, "smoke")) {
        o->size_kind = RB_SIZE_SMOKE;
    } else if (!strcmp(v, "full")) {
        o->size_kind = RB_SIZE_FULL;
    } else if (rb_parse_size(v, &o->size, why, sizeof why) == 0) {
        o->size_kind = RB_SIZE_N;
    } else {
        rb_fmt(err, err_size, "--size: %s; or smoke, full", why);
        return -1;
    }
    return 0;
}

static int parse_filter(const char *v, rb_options *o, char *err, size_t err_size)
{
    char why[200];
    regex_t re;
    o->filter = v;
    int rc = regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, &re, why, sizeof why);
        rb_fmt(err, err_size, "--filter '%s': %s", o->filter, why);
        return -1;
    }
    regfree(&re);
    return 0;
}

static int parse_count_option(const char *a, const char *v, rb_options *o, char *err,
                              size_t err_size)
{
    char why[200];
    uint64_t *dst = !strcmp(a, "--samples")  ? &o->samples
                    : !strcmp(a, "--repeat") ? &o->repeat
                                             : &o->seed;
    if (rb_parse_count(v, dst, why, sizeof why) != 0) {
        rb_fmt(err, err_size, "%s: %s", a, why);
        return -1;
    }
    if (dst == &o->samples && o->samples > 100000) {
        rb_fmt(err, err_size, "--samples: at most 100000");
        return -1;
    }
    if (dst == &o->repeat && !(o->repeat >= 1 && o->repeat <= 20)) {
        rb_fmt(err, err_size, "--repeat: 1 to 20 runs");
        return -1;
    }
    return 0;
}

/* One option that takes a value v. */
static int parse_value(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    if (!strcmp(a, "--filter"))
        return parse_filter(v, o, err, err_size);
    if (!strcmp(a, "--size"))
        return parse_size_option(v, o, err, err_size);
    if (!strcmp(a, "--samples") || !strcmp(a, "--seed") || !strcmp(a, "--repeat"))
        return parse_count_option(a, v, o, err, err_size);
    if (!strcmp(a, "--timeout"))
        return parse_bounded_seconds(a, v, RB_TIMEOUT_MIN_S, RB_TIMEOUT_MAX_S, &o->timeout_s, err,
                                     err_size);
    if (!strcmp(a, "--cap"))
        return parse_bounded_seconds(a, v, RB_CAP_MIN_S, RB_CAP_MAX_S, &o->cap_s, err, err_size);
    if (!strcmp(a, "--json"))
        return parse_path(a, v, &o->json_path, err, err_size);
    if (!strcmp(a, "--csv"))
        return parse_path(a, v, &o->csv_path, err, err_size);
    if (!strcmp(a, "--results-dir"))
        return parse_path(a, v, &o->results_dir, err, err_size);
    if (!strcmp(a, "-o"))
        return parse_path(a, v, o->command == RB_CMD_HISTORY ? &o->out_base : &o->plot_svg, err,
                          err_size);
    if (!strcmp(a, "--html"))
        return parse_path(a, v, &o->plot_html, err, err_size);
    if (!strcmp(a, "--baseline"))
        return parse_path(a, v, &o->baseline_path, err, err_size);
    o->expect_none = !strcmp(v, "none");
    return parse_path(a, v, &o->expect_path, err, err_size); /* --expect */
}

static int parse_compare_operand(const char *a, rb_options *o, char *err, size_t err_size)
{
    if (o->compare_new) {
        rb_fmt(err, err_size, "compare takes two results files, OLD and NEW; '%s' is a third", a);
        return -1;
    }
    return parse_path("compare", a, o->compare_old ? &o->compare_new : &o->compare_old, err,
                      err_size);
}

int rb_cli_parse(int argc, char **argv, rb_options *o, char *err, size_t err_size)
{
    memset(o, 0, sizeof *o);
    o->timeout_s = 300;
    o->cap_s = 1.0;
    o->results_dir = "results";
    o->seed = 20261122;
    if (argc < 2) {
        rb_fmt(err, err_size, "no command given (try: roofbench --help)");
        return -1;
    }
    if (parse_command(argv[1], o, err, err_size) != 0)
        return -1;
    for (int i = 2; i < argc && o->command != RB_CMD_HELP; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->command = RB_CMD_HELP;
            return 0;
        }
        /* plot's one operand: the results file */
        if (o->command == RB_CMD_PLOT && a[0] != '-') {
            if (o->plot_input) {
                rb_fmt(err, err_size, "plot takes one results file, not '%s' and '%s'",
                       o->plot_input, a);
                return -1;
            }
            if (parse_path("plot", a, &o->plot_input, err, err_size) != 0)
                return -1;
            continue;
        }
        /* compare's two operands: OLD, then NEW */
        if (o->command == RB_CMD_COMPARE && a[0] != '-') {
            if (parse_compare_operand(a, o, err, err_size) != 0)
                return -1;
            continue;
        }
        if (o->command == RB_CMD_HISTORY && a[0] != '-') {
            if (o->n_inputs == RB_CLI_MAX_INPUTS) {
                rb_fmt(err, err_size, "history takes at most %d operands: give the folder",
                       RB_CLI_MAX_INPUTS);
                return -1;
            }
            if (parse_path("history", a, &o->inputs[o->n_inputs], err, err_size) != 0)
                return -1;
            o->n_inputs++;
            continue;
        }
        const cli_option *opt = find_option(a, o->command, err, err_size);
        if (!opt)
            return -1;
        if (opt->takes_value) {
            if (need_value(argc, argv, i, err, err_size) ||
                parse_value(a, argv[i + 1], o, err, err_size))
                return -1;
            i++;
        } else if (!strcmp(a, "--cold")) {
            o->cold = 1;
        } else if (!strcmp(a, "--nvtx")) {
            o->nvtx = 1;
        } else if (!strcmp(a, "--expect-any-device")) {
            o->expect_any_device = 1;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--no-ceilings")) {
            o->no_ceilings = 1;
        } else if (!strcmp(a, "--fail-on-platform")) {
            o->fail_on_platform = 1;
        } else if (!strcmp(a, "--md")) {
            o->compare_md = 1;
        } else if (!strcmp(a, "--csv")) {
            o->compare_csv = 1;
        } else if (!strcmp(a, "--check")) {
            o->check = 1;
        } else {
            o->update_expectations = 1;
        }
    }
    if (o->command == RB_CMD_PLOT && !o->plot_input) {
        rb_fmt(err, err_size, "plot needs a results file: roofbench plot RESULTS.json");
        return -1;
    }
    if (o->command == RB_CMD_COMPARE && !o->compare_new) {
        rb_fmt(err, err_size, "compare needs two results files: roofbench compare OLD.json "
                              "NEW.json");
        return -1;
    }
    if (o->command == RB_CMD_COMPARE && o->compare_md && o->compare_csv) {
        rb_fmt(err, err_size, "compare prints one format: --md or --csv, not both");
        return -1;
    }
    if (o->command == RB_CMD_HISTORY && o->n_inputs == 0) {
        rb_fmt(err, err_size,
               "history needs runs: roofbench history results/<hardware-key>/ (or "
               "results files)");
        return -1;
    }
    if (o->command == RB_CMD_RUN && o->fail_on_platform && !o->baseline_path) {
        rb_fmt(err, err_size, "--fail-on-platform goes with --baseline OLD.json in run");
        return -1;
    }
    if (o->repeat && !o->update_expectations) {
        rb_fmt(err, err_size,
               "--repeat goes with --update-expectations (the runs whose spread "
               "sets each variant's regression threshold)");
        return -1;
    }
    if (o->update_expectations && !o->repeat)
        o->repeat = 3;
    if (o->update_expectations && o->expect_none) {
        rb_fmt(err, err_size, "--update-expectations needs an expectation file, not --expect none");
        return -1;
    }
    return 0;
}
