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
           "  ceilings              measure DRAM copy bandwidth and FP32 FMA rate and write them\n"
           "                        into the expectation file's ceilings\n"
           "\n"
           "options (run, check; --filter and --size also for list):\n"
           "  --filter REGEX        only pairs whose name matches (POSIX extended regex)\n"
           "  --size smoke|full|N|RxC  problem size in elements: a count with an optional K,\n"
           "                        M, G, T (binary) suffix, or a shape ROWSxCOLS for\n"
           "                        two-dimensional pairs (see list)\n"
           "  --samples N           exactly N timed samples (default: adaptive, until the\n"
           "                        noise (p90-p10)/median is under 1% or the time cap)\n"
           "  --cap S               time cap of the timed loop per variant, seconds (default 1)\n"
           "  --cold                flush L2 and reset persisting L2 before each single-launch\n"
           "                        sample\n"
           "  --json FILE           results file (default "
           "results/<hardware-key>/<UTC>-<git>.json)\n"
           "  --results-dir DIR     folder for the default results file (default results)\n"
           "  --expect FILE|none    expectation file (default expectations/<hardware-key>.json)\n"
           "  --update-expectations rewrite the expectation file from this run\n"
           "  --nvtx                NVTX ranges around each pair and variant (for nsys, ncu)\n"
           "  --timeout S           watchdog: a pair running longer fails (default 300)\n"
           "  --seed N              seed of the random inputs (default 20261122)\n"
           "  -h, --help            this text\n"
           "\n"
           "exit codes: 0 ok; 1 invalid result or regression; 2 usage, configuration or input\n"
           "error; 3 no usable CUDA device\n";
}

static int need_value(int argc, char **argv, int i, char *err, size_t err_size)
{
    if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        rb_fmt(err, err_size, "%s needs a value", argv[i]);
        return -1;
    }
    return 0;
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
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        o->command = RB_CMD_HELP;
        return 0;
    } else if (!strcmp(cmd, "list")) {
        o->command = RB_CMD_LIST;
    } else if (!strcmp(cmd, "run")) {
        o->command = RB_CMD_RUN;
    } else if (!strcmp(cmd, "check")) {
        o->command = RB_CMD_CHECK;
    } else if (!strcmp(cmd, "ceilings")) {
        o->command = RB_CMD_CEILINGS;
    } else {
        rb_fmt(err, err_size, "unknown command '%s' (try: roofbench --help)", cmd);
        return -1;
    }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        char why[200];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->command = RB_CMD_HELP;
            return 0;
        } else if (!strcmp(a, "--cold")) {
            o->cold = 1;
        } else if (!strcmp(a, "--nvtx")) {
            o->nvtx = 1;
        } else if (!strcmp(a, "--update-expectations")) {
            o->update_expectations = 1;
        } else if (!strcmp(a, "--filter")) {
            if (need_value(argc, argv, i, err, err_size))
                return -1;
            o->filter = argv[++i];
            regex_t re;
            int rc = regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB);
            if (rc != 0) {
                regerror(rc, &re, why, sizeof why);
                rb_fmt(err, err_size, "--filter '%s': %s", o->filter, why);
                return -1;
            }
            regfree(&re);
        } else if (!strcmp(a, "--size")) {
            if (need_value(argc, argv, i, err, err_size))
                return -1;
            const char *v = argv[++i];
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
        } else if (!strcmp(a, "--samples") || !strcmp(a, "--seed")) {
            if (need_value(argc, argv, i, err, err_size))
                return -1;
            uint64_t *dst = !strcmp(a, "--samples") ? &o->samples : &o->seed;
            if (rb_parse_count(argv[++i], dst, why, sizeof why) != 0) {
                rb_fmt(err, err_size, "%s: %s", a, why);
                return -1;
            }
            if (dst == &o->samples && o->samples > 100000) {
                rb_fmt(err, err_size, "--samples: at most 100000");
                return -1;
            }
        } else if (!strcmp(a, "--timeout") || !strcmp(a, "--cap")) {
            if (need_value(argc, argv, i, err, err_size))
                return -1;
            double *dst = !strcmp(a, "--timeout") ? &o->timeout_s : &o->cap_s;
            if (rb_parse_seconds(argv[++i], dst, why, sizeof why) != 0) {
                rb_fmt(err, err_size, "%s: %s", a, why);
                return -1;
            }
        } else if (!strcmp(a, "--json")) {
            if (need_value(argc, argv, i, err, err_size))
                return -1;
            o->json_path = argv[++i];
        } else if (!strcmp(a, "--results-dir")) {
            if (need_value(argc, argv, i, err, err_size))
                return -1;
            o->results_dir = argv[++i];
        } else if (!strcmp(a, "--expect")) {
            if (need_value(argc, argv, i, err, err_size))
                return -1;
            o->expect_path = argv[++i];
            o->expect_none = !strcmp(o->expect_path, "none");
        } else {
            rb_fmt(err, err_size, "unknown option '%s' (try: roofbench --help)", a);
            return -1;
        }
    }
    if (o->update_expectations && o->expect_none) {
        rb_fmt(err, err_size, "--update-expectations needs an expectation file, not --expect none");
        return -1;
    }
    if (o->update_expectations && o->command != RB_CMD_RUN) {
        rb_fmt(err, err_size, "--update-expectations goes with run");
        return -1;
    }
    return 0;
}
