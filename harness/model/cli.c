/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <regex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "util.h"

static int need_value(int argc, char **argv, int i, char *err, size_t err_size)
{
    if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        rb_fmt(err, err_size, "%s needs a value", argv[i]);
        return -1;
    }
    return 0;
}

/* Which commands take which option: an option a command does not use is refused, so a user
 * who writes `list --cold` or `check --expect e.json` learns that it does nothing there. An
 * option that means something else for another command has an entry of its own for it (its
 * help is that command's). takes_value 2: an optional value, taken when the next argument ends
 * in value_suffix. */
enum {
    ON_LIST = 1,
    ON_RUN = 2,
    ON_CHECK = 4,
    ON_CEILINGS = 8,
    ON_PLOT = 16,
    ON_COMPARE = 32,
    ON_HISTORY = 64,
    ON_DOCS = 128,
    ON_P2P = 256,
    ON_EXPECT = 512,
    ON_PROFILE = 1024
};
typedef int (*cli_parse_fn)(const char *a, const char *v, rb_options *o, char *err,
                            size_t err_size);
typedef struct cli_option {
    const char *name;
    unsigned commands;
    int takes_value;
    const char *value; /* the value's name in the help ("REGEX") */
    const char *help;
    cli_parse_fn parse; /* an option with a value: reads v (the value) into o */
    size_t flag;        /* an option without: CLI_FLAG(field), the int of rb_options set to 1 */
} cli_option;
#define CLI_FLAG(field) (offsetof(rb_options, field) + 1)

/* The parsers of the options' values, below. */
static int parse_regex(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int parse_count_option(const char *a, const char *v, rb_options *o, char *err,
                              size_t err_size);
static int opt_size(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_timeout(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_cap(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_json(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_csv(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_results_dir(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_out_base(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_plot_base(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_html(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_baseline(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_device(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_gpu(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_gate(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_scope(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_why(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_key(const char *a, const char *v, rb_options *o, char *err, size_t err_size);
static int opt_expect(const char *a, const char *v, rb_options *o, char *err, size_t err_size);

static const cli_option cli_options[] = {
    {"--filter", ON_LIST | ON_RUN | ON_CHECK | ON_PLOT | ON_PROFILE, 1, "REGEX",
     "only pairs whose name, or whose <pair>.<input>@<size> row name, matches (POSIX extended "
     "regex): '^sgemm$' selects every size of sgemm",
     parse_regex, 0},
    {"--filter", ON_COMPARE | ON_HISTORY, 1, "REGEX",
     "only the rows whose <pair>.<input>@<size> row name, or whose pair/variant, matches (POSIX "
     "extended regex)",
     parse_regex, 0},
    {"--skip-variants", ON_CHECK, 1, "REGEX",
     "leave out the variants whose <row>/<variant> or <pair>/<variant> matches (POSIX extended "
     "regex): reported skipped, not run (make sanitize leaves out those a tool cannot follow)",
     parse_regex, 0},
    {"--size", ON_LIST | ON_RUN | ON_CHECK | ON_PROFILE, 1, "smoke|full|N|RxC",
     "problem size in elements: a count with an optional K, M, G, T (binary) suffix, or a shape "
     "ROWSxCOLS for two-dimensional pairs (see list); default full",
     opt_size, 0},
    {"--device", ON_RUN | ON_CHECK | ON_CEILINGS | ON_PROFILE, 1, "N|all|N,M,...",
     "the GPU to use (also -d, --devices): the N-th (from 0) of those the CUDA runtime shows, "
     "which CUDA_VISIBLE_DEVICES sets; default 0. The results record its index, UUID and PCI bus "
     "id; "
     "pairs that need several GPUs are skipped. run --device all (or a list, 0,2,3): the suite "
     "on each of these GPUs, GPU-local pairs on all at once, host-shared pairs one GPU at a "
     "time, pairs that span GPUs once across them; one node results file, with the GPUs that "
     "fell behind the others (docs/node.md)",
     opt_device, 0},
    {"--scope", ON_LIST | ON_RUN, 1, "all|local|host|span",
     "only the pairs of one kind: local (GPU-local), host (their time is the host's or PCIe's "
     "too: host transfers, streams, launches), span (several GPUs at once); default all",
     opt_scope, 0},
    {"--samples", ON_RUN, 1, "N",
     "exactly N timed samples, 1..100000 (default: adaptive, until the 95% interval of the "
     "median is within 1% of it, or the time cap)",
     parse_count_option, 0},
    {"--cap", ON_RUN, 1, "S",
     "time cap of the timed loop per variant, 0.01..3600 seconds (default 1)", opt_cap, 0},
    {"--cold", ON_RUN, 0, NULL, "flush L2 and reset persisting L2 before each single-launch sample",
     NULL, CLI_FLAG(cold)},
    {"--json", ON_RUN, 1, "FILE",
     "the results file, replaced if it exists (default results/<hardware-key>/<UTC>-<git>.json, "
     "never replaced: a second run in the same second writes <...>-2.json); - (or /dev/stdout): "
     "the results document on the standard output as well, the default file still written, "
     "everything else printed on the standard error",
     opt_json, 0},
    {"--json", ON_COMPARE, 1, "FILE",
     "also the comparison as JSON; - (or /dev/stdout): on the standard output, the report on the "
     "standard error",
     opt_json, 0},
    {"--json", ON_LIST, 0, NULL,
     "print the pairs as one JSON document (docs/list.schema.json) instead of the table", NULL,
     CLI_FLAG(list_json)},
    {"--json", ON_P2P, 1, "FILE",
     "also the matrix as a JSON document (its p2p_matrix object: docs/results-format.md), "
     "replaced if it exists; - (or /dev/stdout): on the standard output, the tables on the "
     "standard error",
     opt_json, 0},
    {"--html", ON_P2P, 1, "FILE.html",
     "also the matrix as a self-contained HTML page; - (or /dev/stdout): on the standard output",
     opt_html, 0},
    {"--md", ON_P2P, 0, NULL, "print the tables as Markdown instead of text", NULL,
     CLI_FLAG(compare_md)},
    {"--expect", ON_P2P, 1, "FILE|none",
     "the expectation file whose ceilings (nvlink_gbps, nvlink_bidir_gbps, pcie_*) are the "
     "cells' roofs (default expectations/<hardware-key>.json, when there is one); none: the "
     "datasheet figures alone",
     opt_expect, 0},
    {"--md", ON_COMPARE, 0, NULL,
     "print the comparison as Markdown (a pull-request comment) instead of the text report", NULL,
     CLI_FLAG(compare_md)},
    {"--csv", ON_COMPARE, 0, NULL, "print the comparison as CSV instead of the text report", NULL,
     CLI_FLAG(compare_csv)},
    {"--csv", ON_RUN, 1, "FILE",
     "the table as CSV (RFC 4180), one row per variant with its roof, replaced if it exists; - "
     "(or /dev/stdout): on the standard output, everything else on the standard error (one "
     "output at a time: not with --json -)",
     opt_csv, 0},
    {"--results-dir", ON_RUN, 1, "DIR", "folder for the default results file (default results)",
     opt_results_dir, 0},
    {"--wide", ON_LIST | ON_RUN | ON_CEILINGS | ON_COMPARE | ON_HISTORY | ON_P2P | ON_PROFILE, 0,
     NULL,
     "every table with its names and roof keys whole and the text unwrapped (by default the "
     "output fits $COLUMNS, else the terminal's width, else 80 columns)",
     NULL, CLI_FLAG(wide)},
    {"--gate", ON_RUN | ON_COMPARE, 1, "gating|all",
     "which verdicts set the exit code: gating (default) leaves out the informational rows, "
     "whose time the host sets (pageable copies, stream launches, host-staged baselines); all "
     "counts them too",
     opt_gate, 0},
    {"--expect", ON_RUN, 1, "FILE|none",
     "expectation file (default expectations/<hardware-key>.json); none: no verdicts", opt_expect,
     0},
    {"--expect", ON_CEILINGS, 1, "FILE",
     "the expectation file to write the ceilings into (default "
     "expectations/<hardware-key>.json)",
     opt_expect, 0},
    {"--expect", ON_COMPARE | ON_HISTORY, 1, "FILE|none",
     "the expectation file whose recorded run spreads set each variant's floor (default: the "
     "runs' GPU's, in the tree the binary was built from); none: no floors from a file",
     opt_expect, 0},
    {"--expect-any-device", ON_RUN | ON_CEILINGS, 0, NULL,
     "use an expectation file recorded on another GPU model (refused by default: its times and "
     "roofs are not this GPU's)",
     NULL, CLI_FLAG(expect_any_device)},
    {"--update-expectations", ON_RUN, 0, NULL,
     "rewrite the expectation file from this run: each variant's median, the spread of its "
     "medians over --repeat runs (from which its regression threshold comes) and each pair's "
     "wall time (for the progress line's estimate)",
     NULL, CLI_FLAG(update_expectations)},
    {"--repeat", ON_RUN, 1, "N",
     "with --update-expectations: run the pairs N times, 1..20 (default 3; 1 records no spread: "
     "the thresholds then fall back to the spread within one timed loop)",
     parse_count_option, 0},
    {"--quick", ON_CEILINGS, 0, NULL,
     "DRAM copy, FP32 FMA and launch latency only (a few seconds: a same-run platform "
     "reference)",
     NULL, CLI_FLAG(quick)},
    {"--links", ON_CEILINGS, 0, NULL,
     "the link roofs only: PCIe each way and both ways, NVLink one way and both ways (the "
     "best pair of GPUs, every pair timed; seconds)",
     NULL, CLI_FLAG(links)},
    {"--no-ceilings", ON_RUN, 0, NULL,
     "skip the platform reference a run measures first (ceilings --quick: DRAM copy, FP32, "
     "launch, and the DRAM read or write, L2 and PCIe roofs its rows are placed on; a few "
     "seconds); the results then say platform: none",
     NULL, CLI_FLAG(no_ceilings)},
    {"--nvtx", ON_RUN | ON_CHECK, 0, NULL, "NVTX ranges around each pair and variant", NULL,
     CLI_FLAG(nvtx)},
    {"--timeout", ON_RUN | ON_CHECK | ON_CEILINGS | ON_P2P | ON_PROFILE, 1, "S",
     "watchdog: a pair (or the measurement) running longer fails, 5..86400 seconds (default "
     "300)",
     opt_timeout, 0},
    {"--seed", ON_RUN | ON_CHECK, 1, "N", "seed of the random inputs (default 20261122)",
     parse_count_option, 0},
    {"-o", ON_PLOT, 1, "BASE",
     "write a chart for each regime with points (BASE.svg the roofline, BASE-compute.svg, "
     "-bandwidth.svg, -links.svg, -latency.svg, -collectives.svg) and BASE-speedup.svg (and "
     "BASE.html with --html); default: beside the results file, same name. A BASE ending in "
     ".svg is taken without it; another image name (x.png, x.pdf) is refused: plot writes SVG",
     opt_plot_base, 0},
    {"--html", ON_PLOT, 2, "[FILE.html]",
     "also the self-contained HTML report (charts and a sortable table): to FILE.html when "
     "given, else BASE.html",
     opt_html, 0},
    {"--html", ON_COMPARE, 1, "FILE.html",
     "also the comparison as a sortable HTML page; - (or /dev/stdout): on the standard output, "
     "the report on the standard error",
     opt_html, 0},
    {"--gpu", ON_PLOT | ON_COMPARE, 1, "N",
     "of a node or fleet results file (run --device all, roofbench_mpi): the run of its N-th "
     "GPU (gpus[N], from 0), with the node's collectives and its P2P matrix",
     opt_gpu, 0},
    {"-o", ON_HISTORY, 1, "BASE",
     "also write BASE.svg (a trend line per variant), BASE.md and BASE.json", opt_out_base, 0},
    {"--check", ON_DOCS, 0, NULL,
     "rewrite nothing; exit 1 when a generated block differs from what the reference runs give",
     NULL, CLI_FLAG(check)},
    {"--baseline", ON_RUN, 1, "OLD.json",
     "compare this run with OLD.json (as compare does) and exit 1 when a variant is slower for "
     "any cause but the platform; the file is read before any GPU work",
     opt_baseline, 0},
    {"--fail-on-platform", ON_RUN | ON_COMPARE, 0, NULL,
     "a slowdown the platform explains fails too (run: a regression against the expectations "
     "whose cause is platform, with its code unchanged, and with --baseline a slower row)",
     NULL, CLI_FLAG(fail_on_platform)},
    {"--mark-stale", ON_EXPECT, 0, NULL,
     "mark the rows --filter selects stale, with --why: their code changed since they were "
     "recorded and they cannot be recorded again now; a run then gives their variants the "
     "verdict stale (not gating). Recording the row again clears the mark",
     NULL, CLI_FLAG(mark_stale)},
    {"--record", ON_EXPECT, 0, NULL,
     "merge the results files of several full runs (RUN.json ..., e.g. 3 runs on each of 2 "
     "machines of one GPU model) into the expectation file, as --update-expectations merges "
     "its repeats: each variant's threshold then includes the spread between the machines",
     NULL, CLI_FLAG(record)},
    {"--check", ON_EXPECT, 0, NULL,
     "compare every row of the expectation files given (default expectations/*.json) with "
     "this build: kernel fingerprints, launch geometry and variants; exit 1 when an unmarked "
     "row differs",
     NULL, CLI_FLAG(check)},
    {"--filter", ON_EXPECT, 1, "REGEX",
     "with --mark-stale or --record: the rows whose <pair>.<input>@<size> row name, or whose "
     "pair's name, matches (POSIX extended regex, as run --filter); --record leaves the other "
     "rows as they were recorded",
     parse_regex, 0},
    {"--why", ON_EXPECT, 1, "TEXT",
     "with --mark-stale: why the rows are stale, one line (what changed, and when they are "
     "recorded again)",
     opt_why, 0},
    {"--expect", ON_EXPECT, 1, "FILE",
     "the expectation file (default for --record: expectations/<hardware-key>.json of the "
     "runs' GPU)",
     opt_expect, 0},
    {"-o", ON_PROFILE, 1, "BASE",
     "the profile's files: BASE.json (the document), BASE.md, BASE.svg (the hierarchical "
     "roofline), BASE.html and, when ncu ran, BASE.ncu.csv (its raw capture); required",
     opt_out_base, 0},
    {"--expect", ON_PROFILE, 1, "FILE|none",
     "the expectation file whose ceilings are the roofs (dram_gbps, l2_read_gbps, smem_gbps, "
     "the compute roofs; default expectations/<hardware-key>.json of the profiled GPU, when "
     "there is one); none: no roofs",
     opt_expect, 0},
    {"--key", ON_EXPECT, 1, "KEY",
     "with --mark-stale: the file is expectations/KEY.json (KEY a hardware key: nvidia-h200); "
     "no GPU is asked",
     opt_key, 0},
    {"--write-through-links", ON_RUN | ON_PLOT | ON_COMPARE, 0, NULL,
     "an output that is a symbolic link is written through it (by default it is refused, as "
     "are devices, FIFOs and an output that is an input)",
     NULL, CLI_FLAG(through_links)},
};
#define CLI_OPTIONS (sizeof cli_options / sizeof cli_options[0])

static const char *const command_names[] = {"help",    "--version", "list", "run",
                                            "check",   "ceilings",  "plot", "compare",
                                            "history", "docs",      "p2p",  "expectations",
                                            "profile"};

const char *rb_cli_command_name(rb_command c)
{
    return (unsigned)c <= RB_CMD_LAST ? command_names[c] : "?";
}

static unsigned command_bit(rb_command c)
{
    return c == RB_CMD_LIST           ? ON_LIST
           : c == RB_CMD_RUN          ? ON_RUN
           : c == RB_CMD_CHECK        ? ON_CHECK
           : c == RB_CMD_CEILINGS     ? ON_CEILINGS
           : c == RB_CMD_PLOT         ? ON_PLOT
           : c == RB_CMD_COMPARE      ? ON_COMPARE
           : c == RB_CMD_HISTORY      ? ON_HISTORY
           : c == RB_CMD_DOCS         ? ON_DOCS
           : c == RB_CMD_P2P          ? ON_P2P
           : c == RB_CMD_EXPECTATIONS ? ON_EXPECT
           : c == RB_CMD_PROFILE      ? ON_PROFILE
                                      : 0;
}

/* The option named a, or NULL with the refusal in err (unknown, or not for this command). */
static const cli_option *find_option(const char *a, rb_command cmd, char *err, size_t err_size)
{
    unsigned with_bits = 0;
    for (size_t k = 0; k < CLI_OPTIONS; k++) {
        const cli_option *opt = &cli_options[k];
        if (strcmp(a, opt->name) != 0)
            continue;
        if (opt->commands & command_bit(cmd))
            return opt;
        with_bits |= opt->commands;
    }
    if (!with_bits) {
        rb_fmt(err, err_size, "unknown option '%s' (try: roofbench %s --help)", a,
               command_names[cmd]);
        return NULL;
    }
    char with[96] = "";
    for (int c = RB_CMD_LIST; c <= RB_CMD_LAST; c++)
        if (with_bits & command_bit((rb_command)c)) {
            size_t len = strlen(with);
            rb_fmt(with + len, sizeof with - len, "%s%s", len ? ", " : "", command_names[c]);
        }
    rb_fmt(err, err_size, "%s does not go with %s: %s does nothing there (it goes with %s)", a,
           command_names[cmd], a, with);
    return NULL;
}

/* A command's name as typed: 0 with *out, or -1 (not a command; help and --version are not). */
static int command_of(const char *name, rb_command *out)
{
    for (int c = RB_CMD_LIST; c <= RB_CMD_LAST; c++)
        if (!strcmp(name, command_names[c])) {
            *out = (rb_command)c;
            return 0;
        }
    return -1;
}

/* argv[1] and, for `help CMD`, argv[2]. Returns the index of the first option, or -1. */
static int parse_command(int argc, char **argv, rb_options *o, char *err, size_t err_size)
{
    const char *cmd = argv[1];
    o->help_topic = RB_CMD_HELP;
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        o->command = RB_CMD_HELP;
        return argc;
    }
    if (!strcmp(cmd, "--version")) {
        o->command = RB_CMD_VERSION;
        return 2;
    }
    if (!strcmp(cmd, "help")) {
        o->command = RB_CMD_HELP;
        if (argc > 2 && command_of(argv[2], &o->help_topic) != 0) {
            rb_fmt(err, err_size,
                   "help: unknown command '%s' (commands: list, run, check, ceilings, plot, "
                   "compare, history, docs, p2p, expectations, profile)",
                   argv[2]);
            return -1;
        }
        if (argc > 3) {
            rb_fmt(err, err_size, "help takes one command, not '%s'", argv[3]);
            return -1;
        }
        return argc;
    }
    if (command_of(cmd, &o->command) != 0) {
        rb_fmt(err, err_size, "unknown command '%s' (try: roofbench --help)", cmd);
        return -1;
    }
    return 2;
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

/* The end of the bracket expression that opens at re[0] == '[' (the index of its ']'), or the
 * end of re when it is not closed (regcomp refuses that). */
static size_t bracket_end(const char *re)
{
    size_t i = 1;
    if (re[i] == '^')
        i++;
    if (re[i] == ']')
        i++; /* a ']' first is a member */
    for (; re[i] && re[i] != ']'; i++)
        if (re[i] == '[' && (re[i + 1] == ':' || re[i + 1] == '=' || re[i + 1] == '.')) {
            const char *close = strchr(re + i + 2, re[i + 1]);
            if (!close || close[1] != ']')
                return strlen(re);
            i = (size_t)(close - re) + 1;
        }
    return re[i] ? i : strlen(re);
}

/* What makes a --filter (or --skip-variants) slow beyond any use, said in why (0 when nothing):
 * a back-reference (\1 to \9, a glibc extension to POSIX extended regexes whose matching is
 * exponential), or bounded repetitions whose counts multiply past RB_FILTER_MAX_REPEAT (regcomp
 * unrolls each: ((a{1,100}){1,100}){1,100} is a million states, seconds to compile). */
#define RB_FILTER_MAX_REPEAT 10000
static int filter_problem(const char *re, char *why, size_t size)
{
    double product = 1;
    for (size_t i = 0; re[i]; i++) {
        if (re[i] == '[') {
            i = bracket_end(re + i) + i;
            if (!re[i])
                break;
        } else if (re[i] == '\\' && re[i + 1] >= '1' && re[i + 1] <= '9') {
            rb_fmt(why, size,
                   "\\%c is a back-reference, which POSIX extended regexes do not "
                   "have (and which can take minutes to match)",
                   re[i + 1]);
            return -1;
        } else if (re[i] == '\\' && re[i + 1]) {
            i++;
        } else if (re[i] == '{') {
            unsigned long lo = strtoul(re + i + 1, NULL, 10), hi = lo;
            const char *comma = strchr(re + i, ','), *close = strchr(re + i, '}');
            if (comma && close && comma < close && comma[1] != '}')
                hi = strtoul(comma + 1, NULL, 10);
            product *= (double)(hi > lo ? hi : lo) + 1;
        }
    }
    if (product > RB_FILTER_MAX_REPEAT) {
        rb_fmt(why, size, "its repetition counts multiply to more than %d (each one is unrolled)",
               RB_FILTER_MAX_REPEAT);
        return -1;
    }
    return 0;
}

int rb_filter_compile(rb_filter *f, const char *option, const char *text, char *err,
                      size_t err_size)
{
    char why[200];
    f->text = text;
    if (filter_problem(text, why, sizeof why) != 0) {
        rb_fmt(err, err_size, "%s '%s': %s", option, text, why);
        return -1;
    }
    int rc = regcomp(&f->re, text, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, &f->re, why, sizeof why);
        rb_fmt(err, err_size, "%s '%s': not a valid regular expression: %s", option, text, why);
        return -1;
    }
    return 0;
}

int rb_filter_match(const rb_filter *f, const char *s)
{
    return !f || regexec(&f->re, s, 0, NULL, 0) == 0;
}

void rb_filter_free(rb_filter *f)
{
    regfree(&f->re);
}

/* The filters of the last command line parsed: held here, so that options copied by value share
 * them and a test that parses many command lines frees each at the next. */
static rb_filter parsed_filter, parsed_skip;
static int have_parsed_filter, have_parsed_skip;

static void free_parsed_filters(void)
{
    if (have_parsed_filter)
        rb_filter_free(&parsed_filter);
    if (have_parsed_skip)
        rb_filter_free(&parsed_skip);
    have_parsed_filter = have_parsed_skip = 0;
}

/* --filter and --skip-variants: compiled once, here (rb_filter_compile). */
static int parse_regex(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    int is_filter = !strcmp(a, "--filter");
    rb_filter *f = is_filter ? &parsed_filter : &parsed_skip;
    if (rb_filter_compile(f, a, v, err, err_size) != 0)
        return -1;
    if (is_filter) {
        have_parsed_filter = 1;
        o->filter = v;
        o->filter_re = f;
    } else {
        have_parsed_skip = 1;
        o->skip_variants = v;
        o->skip_re = f;
    }
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

/* strcmp without case, for ASCII file name extensions. */
static int strcasecmp_ascii(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int x = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a, y = *b >= 'A' && *b <= 'Z' ? *b + 32 : *b;
        if (x != y)
            return x - y;
    }
    return *a - *b;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && !strcmp(s + n - k, suffix);
}

/* One GPU index of --device, v[0..len): 0..RB_DEVICE_MAX (whether there is such a GPU, the
 * probe says). */
static int parse_device_index(const char *v, size_t len, int *out, char *err, size_t err_size)
{
    char why[200], text[32];
    uint64_t n = 0;
    rb_fmt(text, sizeof text, "%.*s", (int)(len < 31 ? len : 31), v);
    /* rb_parse_count refuses 0, which is a GPU's index here */
    if (len >= sizeof text || strspn(text, "0123456789") != len || len == 0 ||
        (strcmp(text, "0") && rb_parse_count(text, &n, why, sizeof why) != 0)) {
        rb_fmt(err, err_size,
               "--device: '%s' is not a GPU index (0, 1, ...), all, or a list (0,2,3)", v);
        return -1;
    }
    if (n > RB_DEVICE_MAX) {
        rb_fmt(err, err_size, "--device: %s is out of range (0 to %d)", text, RB_DEVICE_MAX);
        return -1;
    }
    *out = (int)n;
    return 0;
}

/* --gpu N: a GPU of a node document, 0..RB_DEVICE_MAX (whether the document has it, the reader
 * says). */
static int parse_node_gpu(const char *v, rb_options *o, char *err, size_t err_size)
{
    size_t len = strlen(v);
    if (len == 0 || len > 4 || strspn(v, "0123456789") != len || atoi(v) > RB_DEVICE_MAX) {
        rb_fmt(err, err_size, "--gpu: '%s' is not a GPU of a node document (0 to %d)", v,
               RB_DEVICE_MAX);
        return -1;
    }
    o->node_gpu = atoi(v);
    return 0;
}

/* --device N, all, or a list N,M,... (each GPU once). */
static int parse_device(const char *v, rb_options *o, char *err, size_t err_size)
{
    if (!strcmp(v, "all")) {
        o->device_all = 1;
        return 0;
    }
    if (!strchr(v, ','))
        return parse_device_index(v, strlen(v), &o->device, err, err_size);
    for (const char *p = v;; p++) {
        size_t len = strcspn(p, ",");
        int d;
        if (parse_device_index(len ? p : v, len ? len : strlen(v), &d, err, err_size) != 0)
            return -1;
        for (int k = 0; k < o->n_devices; k++)
            if (o->devices[k] == d) {
                rb_fmt(err, err_size, "--device %s: GPU %d is listed twice", v, d);
                return -1;
            }
        o->devices[o->n_devices++] = d;
        p += len;
        if (!*p)
            return 0;
    }
}

static int parse_scope(const char *v, rb_options *o, char *err, size_t err_size)
{
    static const char *const names[] = {"all", "local", "host", "span"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(v, names[i])) {
            o->scope = (rb_scope)i;
            return 0;
        }
    rb_fmt(err, err_size, "--scope: '%s' is none of all, local, host, span", v);
    return -1;
}

static int parse_gate(const char *v, rb_options *o, char *err, size_t err_size)
{
    if (strcmp(v, "all") && strcmp(v, "gating")) {
        rb_fmt(err, err_size, "--gate: '%s': expected gating or all", v);
        return -1;
    }
    o->gate_all = !strcmp(v, "all");
    return 0;
}

/* "-" or /dev/stdout: a path that names the standard output. */
static int names_stdout(const char *v)
{
    return !strcmp(v, "-") || !strcmp(v, "/dev/stdout");
}

/* -o BASE of plot, history and profile names several files: "-" or /dev/stdout is refused (it
 * once made files named "-.svg" and "--speedup.svg"), never a base named "-". */
static int base_path(const char *a, const char *v, rb_options *o, const char **dst, char *err,
                     size_t err_size)
{
    const char *files = o->command == RB_CMD_PLOT
                            ? "BASE.svg, BASE-speedup.svg and, with --html, BASE.html"
                        : o->command == RB_CMD_HISTORY ? "BASE.svg, BASE.md and BASE.json"
                                                       : "BASE.json, BASE.md, BASE.svg, BASE.html";
    if (!names_stdout(v))
        return parse_path(a, v, dst, err, err_size);
    rb_fmt(err, err_size,
           "%s %s: %s writes several files named from BASE (%s); the standard output takes one "
           "document: give a base name",
           a, v, command_names[o->command], files);
    return -1;
}

/* plot -o BASE: a base name; BASE.svg is taken as BASE; a name that asks for another format is
 * refused, never written as SVG under that name. */
static int parse_plot_base(const char *v, rb_options *o, char *err, size_t err_size)
{
    static const char *const refused[] = {".png",  ".jpg",  ".jpeg", ".gif", ".pdf",
                                          ".eps",  ".ps",   ".webp", ".bmp", ".tif",
                                          ".tiff", ".html", ".json", ".md"};
    const char *slash = strrchr(v, '/'), *name = slash ? slash + 1 : v, *dot = strrchr(name, '.');
    for (size_t k = 0; dot && k < sizeof refused / sizeof refused[0]; k++)
        if (!strcasecmp_ascii(dot, refused[k])) {
            rb_fmt(err, err_size,
                   "-o %s: plot writes SVG files named after a base name (-o %.*s writes "
                   "%.*s.svg and %.*s-speedup.svg); give the base name",
                   v, (int)(dot - v), v, (int)(dot - v), v, (int)(dot - v), v);
            return -1;
        }
    if (!*name || !strcmp(name, ".svg")) {
        rb_fmt(err, err_size, "-o '%s': a base name is needed (-o out writes out.svg)", v);
        return -1;
    }
    return base_path("-o", v, o, &o->plot_svg, err, err_size);
}

/* The options' values (cli_options' parse): each reads v, the value of option a, into o. */
static int opt_size(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    (void)a;
    return parse_size_option(v, o, err, err_size);
}

static int opt_timeout(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    return parse_bounded_seconds(a, v, RB_TIMEOUT_MIN_S, RB_TIMEOUT_MAX_S, &o->timeout_s, err,
                                 err_size);
}

static int opt_cap(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    return parse_bounded_seconds(a, v, RB_CAP_MIN_S, RB_CAP_MAX_S, &o->cap_s, err, err_size);
}

int rb_cli_is_stdout(const char *path)
{
    return path && !strcmp(path, "-");
}

int rb_cli_writes_stdout(const rb_options *o)
{
    return rb_cli_is_stdout(o->json_path) || rb_cli_is_stdout(o->csv_path) ||
           rb_cli_is_stdout(o->plot_html);
}

/* "-" and /dev/stdout: the standard output, for an option that names one output (run's --json
 * and --csv, compare's and p2p's --json and --html), one output at a time; never a file named
 * "-". plot --html is a file: plot's charts are files, and its page one of them. */
static int stdout_path(const char *a, const char *v, rb_options *o, const char **dst, char *err,
                       size_t err_size)
{
    if (!names_stdout(v))
        return parse_path(a, v, dst, err, err_size);
    const char *taken = rb_cli_is_stdout(o->json_path)   ? "--json"
                        : rb_cli_is_stdout(o->csv_path)  ? "--csv"
                        : rb_cli_is_stdout(o->plot_html) ? "--html"
                                                         : NULL;
    if (o->command == RB_CMD_PLOT)
        rb_fmt(err, err_size,
               "%s %s: plot writes its files side by side (BASE.svg, BASE-speedup.svg and the "
               "page): give --html FILE.html",
               a, v);
    else if (taken)
        rb_fmt(err, err_size,
               "%s %s: %s - takes the standard output already: one output at a time goes there "
               "(give the other a file)",
               a, v, taken);
    if (o->command == RB_CMD_PLOT || taken)
        return -1;
    *dst = "-";
    return 0;
}

static int opt_json(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    return stdout_path(a, v, o, &o->json_path, err, err_size);
}

static int opt_csv(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    return stdout_path(a, v, o, &o->csv_path, err, err_size);
}

static int opt_results_dir(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    return parse_path(a, v, &o->results_dir, err, err_size);
}

static int opt_out_base(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    return base_path(a, v, o, &o->out_base, err, err_size);
}

static int opt_plot_base(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    (void)a;
    return parse_plot_base(v, o, err, err_size);
}

static int opt_html(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    return stdout_path(a, v, o, &o->plot_html, err, err_size);
}

static int opt_baseline(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    return parse_path(a, v, &o->baseline_path, err, err_size);
}

static int opt_device(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    (void)a;
    return parse_device(v, o, err, err_size);
}

static int opt_gpu(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    (void)a;
    return parse_node_gpu(v, o, err, err_size);
}

static int opt_gate(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    (void)a;
    return parse_gate(v, o, err, err_size);
}

static int opt_scope(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    (void)a;
    return parse_scope(v, o, err, err_size);
}

static int opt_why(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    (void)a;
    (void)err;
    (void)err_size;
    o->why = v;
    return 0;
}

static int opt_key(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    (void)a;
    o->key = v;
    if (rb_is_hardware_key(v))
        return 0;
    rb_fmt(err, err_size,
           "--key '%s' is not a hardware key (lower-case letters and digits "
           "joined by '-': nvidia-h200)",
           v);
    return -1;
}

static int opt_expect(const char *a, const char *v, rb_options *o, char *err, size_t err_size)
{
    if (names_stdout(v)) { /* (never a file named "-") */
        rb_fmt(err, err_size,
               "%s %s: an expectation file is read (and recorded into) where it lies: give its "
               "path, or none",
               a, v);
        return -1;
    }
    o->expect_none = !strcmp(v, "none");
    return parse_path(a, v, &o->expect_path, err, err_size);
}

/* --device all or a list: a node run, whose one file is the node document. */
static int node_options_ok(const rb_options *o, char *err, size_t err_size)
{
    const char *no = o->command != RB_CMD_RUN   ? "check and ceilings (give one GPU)"
                     : o->update_expectations   ? "--update-expectations (record with --device N)"
                     : o->baseline_path         ? "--baseline"
                     : o->csv_path              ? "--csv"
                     : o->scope != RB_SCOPE_ALL ? "--scope"
                                                : NULL;
    if (!no)
        return 0;
    rb_fmt(err, err_size, "--device all or a list of GPUs does not go with %s", no);
    return -1;
}

/* expectations: one of --mark-stale, --record, --check, with what it needs and nothing else. */
static int expectations_options_ok(const rb_options *o, char *err, size_t err_size)
{
    const char *no = NULL;
    if (o->mark_stale + o->record + o->check != 1)
        no = "expectations does one thing: --mark-stale, --record or --check";
    else if (o->mark_stale && (!o->filter || !o->why))
        no = "--mark-stale needs --filter REGEX (the rows) and --why TEXT (why they are stale)";
    else if (!o->mark_stale && (o->why || o->key))
        no = "--why and --key go with --mark-stale";
    else if (o->check && o->filter)
        no = "--filter goes with --mark-stale or --record";
    else if (o->mark_stale && !o->expect_path && !o->key)
        no = "--mark-stale needs the file: --expect FILE or --key KEY (no GPU is asked which)";
    else if (o->key && o->expect_path)
        no = "--expect FILE and --key KEY both name the file: give one";
    else if (o->expect_none)
        no = "expectations works on an expectation file, not --expect none";
    else if (o->mark_stale && o->n_inputs)
        no = "--mark-stale takes no operands (the rows are those --filter selects)";
    else if (o->record && !o->n_inputs)
        no = "--record needs the results files: roofbench expectations --record RUN.json ...";
    else if (o->check && o->expect_path)
        no = "--check takes the files as operands: roofbench expectations --check FILE...";
    if (!no)
        return 0;
    rb_fmt(err, err_size, "%s", no);
    return -1;
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

/* An operand of the command (plot's results file, compare's OLD and NEW, history's runs and
 * expectations' files): 1 when a is one and was taken, 0 when it is not one, -1 with err. */
static int parse_operand(const char *a, rb_options *o, char *err, size_t err_size)
{
    if (a[0] == '-')
        return 0;
    if (o->command == RB_CMD_PLOT) { /* plot's one operand: the results file */
        if (o->plot_input) {
            rb_fmt(err, err_size, "plot takes one results file, not '%s' and '%s'", o->plot_input,
                   a);
            return -1;
        }
        return parse_path("plot", a, &o->plot_input, err, err_size) == 0 ? 1 : -1;
    }
    if (o->command == RB_CMD_COMPARE) /* compare's two operands: OLD, then NEW */
        return parse_compare_operand(a, o, err, err_size) == 0 ? 1 : -1;
    if (o->command != RB_CMD_HISTORY && o->command != RB_CMD_EXPECTATIONS &&
        o->command != RB_CMD_PROFILE)
        return 0;
    if (o->n_inputs == RB_CLI_MAX_INPUTS) {
        rb_fmt(err, err_size, "%s takes at most %d operands%s", command_names[o->command],
               RB_CLI_MAX_INPUTS, o->command == RB_CMD_HISTORY ? ": give the folder" : "");
        return -1;
    }
    if (parse_path(command_names[o->command], a, &o->inputs[o->n_inputs], err, err_size) != 0)
        return -1;
    o->n_inputs++;
    return 1;
}

/* The other names an option answers to. */
static const char *const cli_aliases[][2] = {{"-d", "--device"}, {"--devices", "--device"}};

/* The option at argv[*i] (--name VALUE, --name=VALUE, or a flag), by the table: its value parsed
 * into o (*i moved past it) or its flag set. 0, or -1 with err. */
static int parse_option(int argc, char **argv, int *i, rb_options *o, unsigned char *seen,
                        char *err, size_t err_size)
{
    const char *a = argv[*i], *eq = strncmp(a, "--", 2) ? NULL : strchr(a, '='), *v = NULL;
    char name[64];
    rb_fmt(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    for (size_t k = 0; k < sizeof cli_aliases / sizeof cli_aliases[0]; k++)
        if (!strcmp(name, cli_aliases[k][0]))
            rb_fmt(name, sizeof name, "%s", cli_aliases[k][1]);
    const cli_option *opt = find_option(name, o->command, err, err_size);
    if (!opt)
        return -1;
    /* each option once: a second value would silently win over the first */
    if (seen[opt - cli_options]++) {
        rb_fmt(err, err_size, "%s is given twice (once is enough; which value was meant?)", name);
        return -1;
    }
    if (eq && !opt->takes_value) {
        rb_fmt(err, err_size, "%s takes no value, not '%s'", name, eq + 1);
        return -1;
    }
    if (!(opt->takes_value ? opt->parse != NULL : opt->flag != 0)) {
        /* a row of the table without its parser or flag: said, never a write through offset 0 */
        rb_fmt(err, err_size, "%s: the option table gives it no %s", name,
               opt->takes_value ? "parser" : "flag");
        return -1;
    }
    if (!opt->takes_value) {
        *(int *)((char *)o + opt->flag - 1) = 1;
        return 0;
    }
    if (eq) {
        v = eq + 1;
    } else if (opt->takes_value == 2) { /* plot --html [FILE.html] */
        if (*i + 1 < argc && (has_suffix(argv[*i + 1], ".html") || names_stdout(argv[*i + 1])))
            v = argv[++*i];
    } else if (need_value(argc, argv, *i, err, err_size) == 0) {
        v = argv[++*i];
    } else {
        return -1;
    }
    if (eq && !*v) {
        rb_fmt(err, err_size, "%s needs a value", name);
        return -1;
    }
    if (opt->takes_value == 2 && !v) {
        o->plot_html_beside = 1;
        return 0;
    }
    return opt->parse(name, v, o, err, err_size);
}

/* The operands a command needs, and the options that only go together. 0, or -1 with err. */
static int operands_ok(const rb_options *o, char *err, size_t err_size)
{
    const char *no = NULL;
    if (o->command == RB_CMD_PLOT && !o->plot_input)
        no = "plot needs a results file: roofbench plot RESULTS.json";
    else if (o->command == RB_CMD_COMPARE && !o->compare_new)
        no = "compare needs two results files: roofbench compare OLD.json NEW.json";
    else if (o->command == RB_CMD_COMPARE && o->compare_md && o->compare_csv)
        no = "compare prints one format: --md or --csv, not both";
    else if (o->command == RB_CMD_COMPARE && (o->compare_md || o->compare_csv) &&
             rb_cli_writes_stdout(o))
        no = "compare prints one document on the standard output: --json -, --html -, --md or "
             "--csv";
    else if (o->command == RB_CMD_HISTORY && o->n_inputs == 0)
        no = "history needs runs: roofbench history results/<hardware-key>/ (or results files)";
    else if (o->command == RB_CMD_PROFILE && !o->out_base)
        no = "profile needs -o BASE: the files it writes (BASE.json, BASE.svg, BASE.html, ...)";
    else if (o->repeat && !o->update_expectations)
        no = "--repeat goes with --update-expectations (the runs whose spread sets each "
             "variant's regression threshold)";
    else if (o->quick && o->links)
        no = "ceilings measures one set: --quick or --links, not both";
    if (!no)
        return 0;
    rb_fmt(err, err_size, "%s", no);
    return -1;
}

int rb_cli_parse(int argc, char **argv, rb_options *o, char *err, size_t err_size)
{
    free_parsed_filters();
    memset(o, 0, sizeof *o);
    o->timeout_s = 300;
    o->cap_s = 1.0;
    o->results_dir = "results";
    o->seed = 20261122;
    if (argc < 2) {
        rb_fmt(err, err_size, "no command given (try: roofbench --help)");
        return -1;
    }
    o->device = -1;
    o->node_gpu = -1;
    int first = parse_command(argc, argv, o, err, err_size);
    if (first < 0)
        return -1;
    if (o->command == RB_CMD_VERSION && argc > 2) {
        rb_fmt(err, err_size, "--version takes nothing more, not '%s'", argv[2]);
        return -1;
    }
    unsigned char seen[CLI_OPTIONS] = {0};
    for (int i = first; i < argc && o->command != RB_CMD_HELP; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            o->help_topic = o->command;
            o->command = RB_CMD_HELP;
            return 0;
        }
        int taken = parse_operand(argv[i], o, err, err_size);
        if (taken < 0 || (!taken && parse_option(argc, argv, &i, o, seen, err, err_size) != 0))
            return -1;
    }
    if (o->command == RB_CMD_HELP)
        return 0;
    if (o->command == RB_CMD_EXPECTATIONS && expectations_options_ok(o, err, err_size) != 0)
        return -1;
    if (operands_ok(o, err, err_size) != 0)
        return -1;
    if ((o->device_all || o->n_devices) && node_options_ok(o, err, err_size) != 0)
        return -1;
    if (o->update_expectations && !o->repeat)
        o->repeat = 3;
    if (o->update_expectations && o->expect_none) {
        rb_fmt(err, err_size, "--update-expectations needs an expectation file, not --expect none");
        return -1;
    }
    return 0;
}

/* ---- help ---- */

#define HELP_WIDTH 80
#define HELP_OPTION_COL 26

typedef struct command_help {
    rb_command command;
    const char *usage;   /* after "roofbench " */
    const char *summary; /* one line for the overview */
    const char *text;    /* what it does, for its own help */
} command_help;

static const command_help command_helps[] = {
    {RB_CMD_LIST, "list [options]", "the pairs, their variants, sizes and work",
     "Lists every pair: its variants, smoke and full sizes, what --size counts, and the work "
     "(flops, compulsory bytes) of a run at the selected size."},
    {RB_CMD_RUN, "run [options]",
     "validate, time, place on the roofline, judge and write the results",
     "Validates every variant (before and after timing), times it, places it on the roof that "
     "binds it, judges it against the expectation file of this GPU and writes "
     "results/<hardware-key>/<UTC>-<git>.json with its Markdown page, charts and HTML report. "
     "Exit 1 when a gating variant regressed or is invalid, or a pair failed."},
    {RB_CMD_CHECK, "check [options]", "validate every variant, no timing (the GPU tests)",
     "Runs every variant twice on poisoned outputs and checks both results against the "
     "reference. Exit 1 when one is wrong."},
    {RB_CMD_CEILINGS, "ceilings [options]", "measure the roofs of this GPU",
     "Measures every roof of this GPU (DRAM copy, read, write; L2; shared memory; FP32, FP64 "
     "FMA; TF32, BF16, FP16, FP8 tensor cores, sustained; host and peer links; launch and "
     "graph-node latency) and writes them into the expectation file's ceilings (up to a "
     "minute)."},
    {RB_CMD_PLOT, "plot RESULTS.json [options]", "draw the charts (and the report) of a run",
     "Draws the roofline chart and the speedup chart of a results file as SVG, and with --html "
     "the self-contained HTML report."},
    {RB_CMD_COMPARE, "compare OLD.json NEW.json [options]",
     "what changed between two runs, and why",
     "Compares two results files variant by variant: same, faster, slower, unclear or blind, and "
     "for each change its cause (platform, code, throttled, unexplained). The first line says "
     "which expectation file set the floors. Exit 1 when a variant is slower for any cause but "
     "the platform."},
    {RB_CMD_HISTORY, "history DIR|FILE... [options]", "every variant over the runs of one GPU",
     "Every variant's median over the runs of one GPU (a folder's *.json, e.g. "
     "results/<hardware-key>/, or the files), in date order: the step changes that stayed, and "
     "their cause."},
    {RB_CMD_DOCS, "docs [options]", "regenerate the docs' numbers from the reference runs",
     "Regenerates the numbers of README.md, docs/ and the kernel headers from "
     "results/<hardware-key>/reference.json (in the repository's root; make docs)."},
    {RB_CMD_EXPECTATIONS, "expectations --mark-stale|--record RUN...|--check [FILE...]",
     "mark rows stale, record from several runs, check the files against this build",
     "Works on the expectation files without a GPU. --mark-stale marks the rows --filter selects "
     "as stale, with --why and this build's revision (a run then judges them stale, not "
     "gating). --record merges the results files of several full runs, on one machine or "
     "several of one GPU model, into the file (the thresholds include the spread between "
     "machines) and prints the sensitivity table. --check compares every row with this build "
     "(kernel fingerprints, block size, dynamic shared memory, variants): exit 1 when a row "
     "differs and is not marked stale. Exit 2 when nothing was written: no row matched, a "
     "reason missing, a file invalid, a set of runs refused (the line says which file)."},
    {RB_CMD_PROFILE, "profile -o BASE [options] [NCU.csv ...]",
     "why each point sits where it does: Nsight Compute's counters",
     "Runs `check` under Nsight Compute (ncu, from CUDA_HOME/bin or PATH; --clock-control none, "
     "forked children followed) at the selected size, one launch of each kernel of each "
     "variant, and records per variant the DRAM, L2 and L1 bytes, shared-memory wavefronts and "
     "bank conflicts, FLOPs by pipe, achieved occupancy, registers and the top warp stall "
     "reasons: a hierarchical roofline (a point per level against the measured roofs) and a "
     "check of the declared work model (a variant whose DRAM bytes differ from its declared "
     "compulsory bytes by more than 10% is named). With NCU.csv operands (ncu --page raw --csv "
     "captures, e.g. BASE.ncu.csv of parts profiled apart by --filter) no GPU is used: the "
     "captures are merged into one document. Exit 2 when ncu is missing or cannot read the "
     "counters (nothing written)."},
    {RB_CMD_P2P, "p2p [options]", "the P2P matrix: every ordered pair of GPUs",
     "Measures every ordered pair of the visible GPUs: one-way and both-ways bandwidth of "
     "peer copies (256 MiB cudaMemcpyPeerAsync), the latency of a 4-byte copy and of a "
     "kernel's dependent loads over the link, each cell on "
     "its roof (nvlink_gbps, nvlink_bidir_gbps as `roofbench ceilings` measured them, beside "
     "the datasheet), and marks a weak link: a cell further from the matrix's best than the "
     "samples' spread allows (at most 5% for bandwidth). One GPU has no pairs: said, exit 0. "
     "Exit 1 when a link is weak or the measurement fails; well under a second per pair."},
};
#define COMMAND_HELPS (sizeof command_helps / sizeof command_helps[0])

static const char help_devices[] =
    "The GPUs: roofbench sees those the CUDA runtime shows, which CUDA_VISIBLE_DEVICES sets "
    "(CUDA_VISIBLE_DEVICES=1 roofbench run runs on the machine's second GPU, as --device 1 "
    "does). CUDA_DEVICE_ORDER decides their order.";

static const char help_exit[] =
    "Exit codes: 0 ok; 1 invalid result or regression; 2 usage, configuration or input error; "
    "3 no usable CUDA device; 130 / 143 interrupted by SIGINT (Ctrl-C) / SIGTERM (the running "
    "pair is ended, nothing is written), 128 + N by another signal N that ends a process "
    "(SIGHUP: 129).";

/* "  --name VALUE   help..." wrapped, the help from column HELP_OPTION_COL. */
static void help_option(rb_sbuf *b, const char *name, const char *value, const char *help)
{
    char head[64];
    rb_fmt(head, sizeof head, "  %s%s%s", name, value ? " " : "", value ? value : "");
    int col = (int)strlen(head);
    rb_sbuf_add(b, "%s", head);
    if (col + 1 >= HELP_OPTION_COL) {
        rb_sbuf_add(b, "\n%*s", HELP_OPTION_COL, "");
    } else {
        rb_sbuf_add(b, "%*s", HELP_OPTION_COL - col, "");
    }
    rb_text_wrap(b, help, HELP_WIDTH, HELP_OPTION_COL, HELP_OPTION_COL);
}

static void help_overview(rb_sbuf *b)
{
    rb_sbuf_add(b, "usage: roofbench COMMAND [options]\n"
                   "       roofbench help COMMAND | roofbench COMMAND --help | roofbench "
                   "--version\n\ncommands:\n");
    for (size_t k = 0; k < COMMAND_HELPS; k++)
        help_option(b, command_names[command_helps[k].command], NULL, command_helps[k].summary);
    rb_sbuf_add(b, "\n");
    help_option(b, "-h, --help", NULL, "this text; COMMAND --help: that command's options");
    help_option(b, "--version", NULL,
                "the build (git, architecture, CUDA it was built with) and the CUDA runtime and "
                "driver it runs on");
    rb_sbuf_add(b, "\n");
    rb_text_wrap(b, help_devices, HELP_WIDTH, 0, 0);
    rb_sbuf_add(b, "\n");
    rb_text_wrap(b, help_exit, HELP_WIDTH, 0, 0);
}

static void help_command(rb_sbuf *b, const command_help *h)
{
    rb_sbuf_add(b, "usage: roofbench %s\n\n", h->usage);
    rb_text_wrap(b, h->text, HELP_WIDTH, 0, 0);
    rb_sbuf_add(b, "\noptions:\n");
    unsigned bit = command_bit(h->command);
    for (size_t k = 0; k < CLI_OPTIONS; k++)
        if (cli_options[k].commands & bit)
            help_option(b, cli_options[k].name, cli_options[k].value, cli_options[k].help);
    help_option(b, "-h, --help", NULL, "this text");
    rb_sbuf_add(b, "\n");
    rb_text_wrap(b, "Paths (FILE, DIR) are at most 1024 bytes long.", HELP_WIDTH, 0, 0);
    if (h->command == RB_CMD_RUN || h->command == RB_CMD_CHECK || h->command == RB_CMD_CEILINGS ||
        h->command == RB_CMD_P2P || h->command == RB_CMD_PROFILE) {
        rb_sbuf_add(b, "\n");
        rb_text_wrap(b, help_devices, HELP_WIDTH, 0, 0);
    }
    rb_sbuf_add(b, "\n");
    rb_text_wrap(b, help_exit, HELP_WIDTH, 0, 0);
}

char *rb_cli_help(rb_command topic)
{
    rb_sbuf b = {0};
    const command_help *h = NULL;
    for (size_t k = 0; k < COMMAND_HELPS; k++)
        if (command_helps[k].command == topic)
            h = &command_helps[k];
    if (h)
        help_command(&b, h);
    else
        help_overview(&b);
    return rb_sbuf_take(&b);
}
