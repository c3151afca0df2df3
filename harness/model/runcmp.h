/* SPDX-License-Identifier: MIT */
/*
 * Run against run: `roofbench compare OLD.json NEW.json` and `run --baseline OLD.json`.
 * Reads two results documents, pairs their variants by pair and variant name, and says for each
 * whether it got faster or slower, and why.
 *
 * Verdict (README, "After an upgrade"): each run's median comes with a distribution-free 95%
 * interval (order statistics, rb_median_ci_ranks: from time_ms.samples when that holds the sample
 * times, else the run's recorded median_ci_lo / median_ci_hi, computed the same way). The ratio
 * new / old of the medians then lies in [new_lo / old_hi, new_hi / old_lo] with probability at
 * least 0.95^2 = 90% (the runs are independent). With the floor f (rb_runcmp_floor):
 *   same     the interval holds 1, or lies within [1/(1+f), 1+f]: no change worth the name;
 *   slower   the whole interval lies above 1+f;  faster: the whole interval below 1/(1+f);
 *   unclear  it excludes 1 but crosses a floor: changed, by less or more than f, unknown;
 *   blind    same or unclear with a floor above RB_RUNCMP_BLIND_FLOOR: a change of that size
 *            could hide in it, so the row cannot say "same" (the evidence says where the floor
 *            came from). Counted apart; slower and faster stand whatever the floor.
 *
 * Each row says its change in cycles (time x mean SM clock) beside its change in time, and its
 * change in energy per launch where both runs measured it (model/energy.h).
 *
 * Attribution of each faster / slower variant, the first that holds, with one line of evidence:
 *   contended   either run timed it while a process not that run's own used the GPU
 *               (model/contention.h): a measurement on a shared GPU, not a code regression;
 *   platform    its roof moved the same way in the two runs, and the time ratio over the ratio
 *               the roof predicts lies within the tolerance (the floor, or the roof's measured
 *               noise when larger). Roofs: the runs' "platform" reference of the row's own roof
 *               (the quick three, DRAM copy, FP32 and launch, and the probes a run took for its
 *               rows: DRAM read or write, L2, PCIe) when both runs have it, else each file's
 *               roofs.<key>.measured. Or,
 *               with both runs' platform references, the DRAM and FP32 roofs both moved the
 *               same way, at least one beyond the tolerance, and the time ratio lies between
 *               their two predictions (a kernel using both: a co-tenant taking SMs and DRAM);
 *   code        a kernel of the variant changed: sass_hash, registers, static, dynamic or
 *               local memory, a kernel added or gone, or its library_algo;
 *   throttled   the change is within the floor in cycle space (time x the row's mean SM clock,
 *               nvbench's robust compare) but not in time: the clock moved, the kernel did not;
 *               where a run's mean clock is unknown, the slower run was throttled (thermal or
 *               hardware slowdown);
 *   unexplained none of these; the evidence names the roof held against the time and how it
 *               moved, and how far below it the variant ran (a variant far below its roof is
 *               set by something no roof of the platform reference measures).
 */
#ifndef RB_RUNCMP_H
#define RB_RUNCMP_H


#include <stdio.h>

#include "cli.h"
#include "expect.h"
#include "json.h"
#include "result.h"
#include "result_read.h"
#include "arena.h"
#include "util.h"

/* The smallest change called one: 2% (README says why). */
#define RB_RUNCMP_MIN_FLOOR 0.02
/* A floor above this hides a 10% change: the row is blind. */
#define RB_RUNCMP_BLIND_FLOOR 0.10

typedef enum rb_change {
    RB_CHANGE_SAME,
    RB_CHANGE_FASTER,
    RB_CHANGE_SLOWER,
    RB_CHANGE_UNCLEAR,
    RB_CHANGE_BLIND,
    RB_CHANGE_NOT_COMPARED /* in one run only, invalid or untimed in one, or sizes differ */
} rb_change;

typedef enum rb_cause {
    RB_CAUSE_NONE, /* same, unclear, not compared */
    RB_CAUSE_PLATFORM,
    RB_CAUSE_CODE,
    RB_CAUSE_THROTTLED,
    RB_CAUSE_UNEXPLAINED,
    RB_CAUSE_CONTENDED /* either run timed it on a shared GPU (model/contention.h) */
} rb_cause;

const char *rb_change_name(rb_change c);
const char *rb_cause_name(rb_cause c);

/* A row's texts point into its comparison's pool (rb_runcmp.strings; history's), or into an
 * rb_runcmp_text while it is judged: a kept row is about a hundred bytes and its text, so that
 * tens of thousands of them fit beside the documents they came from. */
typedef struct rb_runcmp_row {
    const char *pair, *variant, *roof; /* roof "" when none */
    double old_ms, new_ms;     /* medians; NaN when absent */
    double ratio;              /* new / old median time: above 1 is slower */
    double ratio_lo, ratio_hi; /* its 90% interval; NaN when a run has no interval */
    double floor;              /* the floor this variant was judged with */
    /* new / old in cycle space: the time ratio x new / old mean SM clock (rb_runcmp_cycle_mhz);
     * NaN when a run's clock is unknown */
    double cycles_ratio;
    double energy_ratio;       /* new / old joules per launch; NaN unless both runs measured it */
    int contended;             /* either run's variant was timed on a shared GPU */
    int floor_from_runs;       /* it is 2 x the expectations' run_spread (rb_runcmp_build_expect) */
    /* cause throttled: the slower run's variant ran under a throttle reason (hw or sw slowdown,
     * thermal), not only at a lower clock the cycles explain */
    int slowdown;
    int code_changed; /* a kernel of the variant or its library_algo differs between the runs */
    rb_change change;
    rb_cause cause;
    /* A row whose time the host sets (either run's variant is informational: host_bound_why):
     * compared and printed, but its slowdown sets the exit code only with --gate all (run's
     * rule, model/expect.h's rb_expect_failing). */
    int informational;
    const char *evidence; /* the cause's evidence, or why the row was not compared; "" none */
} rb_runcmp_row;

/* The texts of a row being judged, cut as shown (a name to 63 bytes, a roof to 31, the
 * evidence to 399): rb_runcmp_judge and rb_runcmp_attribute point the row's texts here. */
typedef struct rb_runcmp_text {
    char pair[64], variant[64], roof[32], evidence[400];
} rb_runcmp_text;

/* Moves the row's texts into pool (model/arena.h). 0, or -1 when out of memory. */
int rb_runcmp_keep(rb_strpool *pool, rb_runcmp_row *row);

/* One fact of the environment (or platform reference) that differs between the runs. */
typedef struct rb_runcmp_env {
    char *key;
    char *old_value, *new_value; /* "(absent)" when a run lacks it */
} rb_runcmp_env;

typedef struct rb_runcmp {
    int n_rows;
    rb_runcmp_row *rows; /* sorted: largest slowdown first, not compared last */
    int n_env, n_env_same;
    rb_runcmp_env *env;
    int counts[RB_CHANGE_NOT_COMPARED + 1];
    char old_git[64], new_git[64], old_date[64], new_date[64];
    const json_value *expect; /* during rb_runcmp_build_expect only */
    int floors_from_runs;     /* rows whose floor came from the expectations' runs */

    /* kernels with a sass_hash in each run */
    int old_fingerprints, new_fingerprints;
    /* the caller's line (model/floors.h), printed first; NULL: none */
    const char *floors_line;
    /* rb_runcmp_filter's regex (NULL: every row), and the rows it left out */
    const char *filter;
    int n_filtered_out;
    /* --gate all: an informational row's slowdown fails the comparison too (0 after a build:
     * the caller sets it) */
    int gate_all;
    rb_strpool strings; /* the rows' texts */
} rb_runcmp;

/* The mean SM clock a variant was timed at, for cycle space: clocks.sm_mhz_mean when it rests
 * on RB_EXPECT_MIN_CLOCK_READINGS readings or more (an expectation's entry, which keeps the
 * median of its runs' means without a count, counts as known); NaN otherwise. */
double rb_runcmp_cycle_mhz(const rb_results_cmp_variant *variant);

/* The floor of a variant whose two runs spread (p90 - p10) / median by noise_old, noise_new within
 * their timed loops: max(RB_RUNCMP_MIN_FLOOR, half the larger). NaN spreads are ignored. */
double rb_runcmp_floor(double noise_old, double noise_new);

/* The verdict of a ratio interval against a floor (see above). */
rb_change rb_runcmp_verdict(double lo, double hi, double floor);

/* The attribution of one changed variant into row->cause and row->evidence (text's): row's
 * variant, roof, ratio, ratio_lo, ratio_hi, floor and change (faster or slower) are set, its
 * texts text's. od / nd are the documents
 * (their "platform"), op / np the pairs (their "kernels") and ov / nv the variants (their
 * library_algo, clocks and throttled). run uses it for a verdict against the expectation file,
 * whose pair entries record platform and kernels, and whose variants library_algo and clocks,
 * in the same shape. */
void rb_runcmp_attribute(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                         const rb_results_cmp_pair *op, const rb_results_cmp_pair *np,
                         const rb_results_cmp_variant *ov, const rb_results_cmp_variant *nv,
                         rb_runcmp_row *row, rb_runcmp_text *text);

/* One variant of two runs into row (its texts in text): verdict, floor and, for a change, its
 * attribution. od / nd
 * the documents, op / np the pair records (either NULL: the pair is in one run only), ov / nv
 * the variant records (either NULL: in one run only), expected the expectation file's entry
 * for the variant (rb_expect_variant_at; NULL: none). compare builds each row with it, history
 * each step. */
void rb_runcmp_judge(const rb_results_cmp_doc *od, const rb_results_cmp_doc *nd,
                     const rb_results_cmp_pair *op, const rb_results_cmp_pair *np,
                     const rb_results_cmp_variant *ov, const rb_results_cmp_variant *nv,
                     const rb_expected *expected, rb_runcmp_row *row, rb_runcmp_text *text);
/* The number of kernels of a results document that carry a SASS fingerprint (sass_hash). None:
 * the build had no cuobjdump, and a code change that keeps a kernel's registers and memory
 * sizes cannot be named. */
int rb_runcmp_fingerprints(const rb_results_cmp_doc *doc);
#define RB_RUNCMP_NO_FINGERPRINT "no SASS fingerprint (built without cuobjdump)"
/* "code attribution unavailable: ..." when a run of c has no fingerprint; "" otherwise. A
 * change of registers, memory sizes or library algorithm is still named. */
void rb_runcmp_code_note(const rb_runcmp *c, char *buf, size_t size);

/* run's regressed and improved verdicts (model/expect.h), attributed as compare attributes a
 * change: the cause and its evidence into each such variant of results[0..n) (cause, evidence)
 * and into its object in doc (the run's results document, rb_report_json of the same results, in
 * the same order). expect: the validated expectation document (NULL: nothing is done). */
void rb_runcmp_attribute_verdicts(const json_value *expect, json_value *doc,
                                  rb_pair_result *results, int n);

/* Compares two results documents. 0, or -1 with one line in err (a document that is not a
 * results file, out of memory). */
int rb_runcmp_build(const json_value *old_doc, const json_value *new_doc, rb_runcmp *c,
                    char *err, size_t err_size);
/* The same, with an expectation document (validated; NULL: none): a variant whose expectation
 * was recorded from RB_EXPECT_MIN_RUNS or more runs at the same size is judged with a floor of at
 * least 2 x their spread (run_spread), as run's verdict is: what varies between runs of one build
 * is not a change. */
int rb_runcmp_build_expect(const json_value *old_doc, const json_value *new_doc,
                           const json_value *expect, rb_runcmp *c, char *err, size_t err_size);
void rb_runcmp_free(rb_runcmp *c);

/* The rule, said under every report. */
#define RB_RUNCMP_RULE                                                                             \
    "ratio = new / old median time, its 90% interval from each run's 95% interval of the "         \
    "median; floor = max(2%, half the larger p10-p90 spread of the two timed loops, and 2 x "      \
    "the spread of the expectations' recorded runs where they have one); blind: same or "          \
    "unclear with a floor above 10%; cycles = time x mean SM clock; energy = joules per launch"

/* The number of variants that make the comparison fail: slower, attributed to anything but the
 * platform (fail_on_platform: to anything), and gating (an informational row only with
 * c->gate_all). A contended one fails it too: a shared GPU's time is no time to pass, and the
 * line that says so names the cause (rb_runcmp_contended). */
int rb_runcmp_failing(const rb_runcmp *c, int fail_on_platform);
/* Of those, the ones attributed to contended. */
int rb_runcmp_contended(const rb_runcmp *c);

/* Keeps the rows whose pair (its row name "<pair>.<input>@<size>", or the pair's own name
 * before the first '.' or '@') or "pair/variant" matches f (model/cli.h), and counts them
 * again. */
void rb_runcmp_filter(rb_runcmp *c, const rb_filter *f);
/* 1 when a row of pair and variant is selected by f (NULL: every row). */
int rb_runcmp_selected(const rb_filter *f, const char *pair, const char *variant);

/* The report: the environment diff, the verdict counts and the table. */
void rb_runcmp_print(FILE *f, const rb_runcmp *c, const char *old_path, const char *new_path);
/* The same fitted to width columns (0: every name whole; rb_runcmp_print: the terminal's). */
void rb_runcmp_print_at(FILE *f, const rb_runcmp *c, const char *old_path, const char *new_path,
                        int width);
/* The comparison as a JSON document; NULL when out of memory. */
json_value *rb_runcmp_json(const rb_runcmp *c, const char *old_path, const char *new_path,
                           int fail_on_platform);
/* The same document's text (json_write, indent 2) added to b a row at a time: with a sink, the
 * memory of a row, not of the document. */
void rb_runcmp_json_to(rb_sbuf *b, const rb_runcmp *c, const char *old_path, const char *new_path,
                       int fail_on_platform);
/* A self-contained HTML page (sortable table); caller frees, NULL when out of memory. */
char *rb_runcmp_html(const rb_runcmp *c, const char *old_path, const char *new_path);
/* The same page added to b (a sink's: written out as it is made). */
void rb_runcmp_html_to(rb_sbuf *b, const rb_runcmp *c, const char *old_path, const char *new_path);
/* Markdown for a pull-request comment (runcmp_table.c): the floors line, the runs, the counts,
 * the changed rows as a table and the rest folded under <details>. Caller frees; NULL: out of
 * memory. */
char *rb_runcmp_markdown(const rb_runcmp *c, const char *old_path, const char *new_path);
/* CSV (RFC 4180), one row per variant with its floor's source. Caller frees; NULL: OOM. */
char *rb_runcmp_csv(const rb_runcmp *c);
/* The same texts added to b (a sink's: written out as they are made). */
void rb_runcmp_markdown_to(rb_sbuf *b, const rb_runcmp *c, const char *old_path,
                           const char *new_path);
void rb_runcmp_csv_to(rb_sbuf *b, const rb_runcmp *c);

#endif
