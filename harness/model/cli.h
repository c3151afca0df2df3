/* SPDX-License-Identifier: MIT */
/* Command-line parsing: no CUDA, so every usage error is found before a GPU is touched. */
#ifndef RB_CLI_H
#define RB_CLI_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef enum rb_command {
    RB_CMD_HELP,    /* the help of help_topic (RB_CMD_HELP: the overview) */
    RB_CMD_VERSION, /* --version: the build and the CUDA it runs on */
    RB_CMD_LIST,
    RB_CMD_RUN,      /* validate, time, compare, write results */
    RB_CMD_CHECK,    /* validate every variant, no timing (the GPU tests) */
    RB_CMD_CEILINGS, /* measure the ceilings into the expectation file */
    RB_CMD_PLOT,     /* draw the charts (and the HTML report) of a results file */
    RB_CMD_COMPARE,  /* compare two results files: what changed, and why */
    /* every variant over a GPU's runs: steps, and why */
    RB_CMD_HISTORY,
    RB_CMD_DOCS, /* regenerate (or --check) the docs' blocks from the reference runs */
    RB_CMD_P2P,  /* the P2P matrix of the visible GPUs */
    /* the expectation files without a GPU: mark rows stale, record from several runs' results,
     * check the files against this build */
    RB_CMD_EXPECTATIONS,
    /* one launch of each variant under Nsight Compute: bytes per level, FLOPs by pipe, stalls */
    RB_CMD_PROFILE,
    RB_CMD_LAST = RB_CMD_PROFILE
} rb_command;

/* history's operands: folders of results files, or the files themselves. */
#define RB_CLI_MAX_INPUTS 512

typedef enum rb_size_kind { RB_SIZE_FULL, RB_SIZE_SMOKE, RB_SIZE_N } rb_size_kind;

/* --scope: the pairs of one kind of GPU use (a node run runs each kind its own way). */
typedef enum rb_scope {
    RB_SCOPE_ALL,   /* every pair (default) */
    RB_SCOPE_LOCAL, /* GPU-local: neither host-shared nor spanning GPUs */
    RB_SCOPE_HOST,  /* host-shared: their time is the host's or the PCIe link's too */
    RB_SCOPE_SPAN   /* spanning GPUs: several GPUs at once (NCCL collectives, peer copies) */
} rb_scope;

/* The largest --device index accepted on the command line (the probe then checks it against
 * the GPUs there are). */
#define RB_DEVICE_MAX 63

/* A --filter or --skip-variants: a POSIX extended regex compiled once, here (rb_filter_compile,
 * called by rb_cli_parse and by the docs' generated blocks), with one message for a bad one;
 * every command and the model match with it and none compiles its own. */
typedef struct rb_filter {
    const char *text; /* as given, for the messages that quote it */
    regex_t re;
} rb_filter;

/* Compiles text into *f: refused (one line in err, naming option) when it is not a valid POSIX
 * extended regex or could take minutes (a back-reference, repetitions that multiply past
 * 10000). 0, or -1 with f holding nothing to free. */
int rb_filter_compile(rb_filter *f, const char *option, const char *text, char *err,
                      size_t err_size);

/* Whether f selects s; a NULL f selects everything. */
int rb_filter_match(const rb_filter *f, const char *s);

void rb_filter_free(rb_filter *f);

typedef struct rb_options {
    rb_command command;
    const char *filter; /* POSIX extended regex on pair names; NULL: all */
    /* --filter and --skip-variants compiled (NULL: not given); valid until the next
     * rb_cli_parse, which holds them */
    const rb_filter *filter_re, *skip_re;
    /* check --skip-variants: POSIX extended regex on "<row>/<variant>" and "<pair>/<variant>":
     * the variants it matches are reported skipped, not run; NULL: none */
    const char *skip_variants;
    rb_size_kind size_kind;
    rb_size size;     /* RB_SIZE_N: n, or rows x cols */
    uint64_t samples; /* 0: adaptive (until noise < noise_target or the time cap) */
    int cold;
    /* run: NULL: results/<hardware-key>/<UTC>-<git>.json; compare, p2p: the comparison or
     * the matrix as JSON (NULL: none). "-" (also from /dev/stdout) here, in csv_path or in
     * plot_html: the standard output (rb_cli_is_stdout) */
    const char *json_path;
    const char *csv_path;    /* --csv: the table as CSV; NULL: none */
    const char *expect_path; /* NULL: expectations/<hardware-key>.json */
    int expect_none;
    int update_expectations;
    uint64_t repeat; /* --update-expectations: runs of the pairs (default 3); 0 otherwise */
    int expect_any_device; /* use an expectation file recorded on another GPU model */
    int nvtx;
    int quick;        /* ceilings: DRAM copy, FP32 and launch only */
    int links;        /* ceilings: PCIe and NVLink only */
    int no_ceilings;  /* run: no quick ceilings at the start (the results' platform: none) */
    double timeout_s; /* watchdog per pair */
    double cap_s;     /* time cap of the timed loop, per variant */
    const char *results_dir;
    uint64_t seed;
    const char *plot_input; /* plot: the results file */
    const char *plot_svg;   /* plot -o BASE (a trailing .svg is dropped by plot); NULL: the
                               results file's name without .json */
    const char *plot_html;  /* plot --html FILE.html, compare, p2p --html FILE: NULL: no page */
    const char *compare_old, *compare_new; /* compare's two results files */
    const char *baseline_path; /* run --baseline: compare the run with this results file */
    int fail_on_platform;      /* compare, run --baseline: a platform slowdown fails too */

    /* compare --md / --csv: stdout in that format */
    int compare_md, compare_csv; /* compare_md: p2p --md too */
    /* history -o BASE: BASE.svg, BASE.md, BASE.json; NULL: none. profile -o BASE: its
     * document BASE.json, BASE.md, BASE.svg, BASE.html (and BASE.ncu.csv, the capture) */
    const char *out_base;
    /* history's operands; expectations --record's results files, --check's expectation files;
     * profile's captured ncu CSVs */
    int n_inputs;
    const char *inputs[RB_CLI_MAX_INPUTS];
    int check; /* docs --check: rewrite nothing, fail when a block is stale;
                  expectations --check: the files against this build */
    /* expectations: --mark-stale (the rows --filter selects, with --why) or --record (the
     * operands are results files); --key KEY names expectations/KEY.json */
    int mark_stale, record;
    const char *why, *key;
    rb_command help_topic;     /* RB_CMD_HELP: the command whose help to print (HELP: all) */
    int plot_html_beside;      /* plot --html without a FILE.html: <base>.html */
    int device;                /* --device N: the N-th GPU the CUDA runtime shows; -1: none */
    /* --device all | N,M,...: run on each of these GPUs (a node run, runner/node_run.c);
     * device_all: every GPU the runtime shows, else devices[0..n_devices) in the order given */
    int device_all, n_devices;
    int devices[RB_DEVICE_MAX + 1];
    rb_scope scope;            /* --scope: which pairs, by how they use the GPUs */
    int wide;                  /* --wide: every table with full names, no wrapping */
    int list_json;             /* list --json: the pairs as JSON on stdout */
    int gate_all;              /* run --gate all: informational rows gate the exit code too */
    int through_links;         /* an output that is a symbolic link: write to its target */
    /* plot, compare --gpu N: of a node document, the run of gpus[N]; -1: none */
    int node_gpu;
} rb_options;

/* The ranges --timeout and --cap accept, in seconds. */
#define RB_TIMEOUT_MIN_S 5.0
#define RB_TIMEOUT_MAX_S 86400.0
#define RB_CAP_MIN_S 0.01
#define RB_CAP_MAX_S 3600.0

/* Parses argv. Refuses an option the command does not use, an option given twice (which one
 * was meant?), a path longer than RB_PATH_MAX, two outputs on the standard output, "-" for
 * an -o BASE that names several files, and --timeout or --cap out of range. Returns 0, or -1
 * with one line in err (exit 2). `roofbench help CMD` and `roofbench CMD --help` give
 * RB_CMD_HELP with help_topic CMD; `roofbench --help`, `-h` and `help` alone the overview. */
int rb_cli_parse(int argc, char **argv, rb_options *o, char *err, size_t err_size);

/* Whether an output path is the standard output: "-" (what the parser makes of "-" and
 * /dev/stdout; never a file named "-"). */
int rb_cli_is_stdout(const char *path);

/* Whether one of the command's outputs (--json, --csv, --html) is the standard output: then
 * it is the only one (rb_cli_parse refuses two), it holds that document alone, and everything
 * printed for a person goes to the standard error. */
int rb_cli_writes_stdout(const rb_options *o);

/* The help of one command (its usage, what it does, its options and only those), or with
 * RB_CMD_HELP the overview (every command in a line, the global options, the environment, the
 * exit codes). Lines fit 80 columns. Caller frees; NULL when out of memory. */
char *rb_cli_help(rb_command topic);

/* The command's name as typed ("run"); "help" for RB_CMD_HELP. */
const char *rb_cli_command_name(rb_command c);

#endif
