/* SPDX-License-Identifier: MIT */
/*
 * rbtest: the project's own tiny test runner (no third-party framework: the GPU nodes build with
 * the CUDA Toolkit alone). A suite is a static table of {name, function}; RB_CHECK records a
 * failure with file:line and the test goes on, so one run reports every broken assertion.
 * tests/main.c runs every suite and ends with the line "N passed, N failed".
 */
#ifndef RB_TEST_H
#define RB_TEST_H

#include <stddef.h>

typedef struct rbtest_case {
    const char *name;
    void (*fn)(void);
} rbtest_case;

typedef struct rbtest_suite {
    const char *name;
    const rbtest_case *cases;
    size_t count;
} rbtest_suite;

/* Records a failed assertion of the running test. */
void rbtest_fail(const char *file, int line, const char *what);
/* Marks the running test as skipped (counted apart, not as passed), with a reason. */
void rbtest_skip(const char *why);

/* The whole file at path, NUL-terminated, malloc'd (the caller frees it); NULL when it cannot be
 * read. */
char *rbtest_read_file(const char *path);

/* Whether the runner's arguments after the binary (SUITE selects a suite; -SUITE and -SUITE/TEST
 * leave one out) want `test` of `suite`; test NULL asks about the suite as a whole, which
 * -SUITE/TEST does not leave out. */
int rbtest_wanted(const char *suite, const char *test, int nargs, char *const args[]);

/* Path of the roofbench binary under test (the runner's first argument). */
extern const char *rbtest_binary;
/* How the runner itself was started (its argv[0]), for tests of the runner. */
extern const char *rbtest_self;
/* Number of usable CUDA devices (0 on a machine without a GPU). */
int rbtest_gpu_count(void);

/* Running the binary from a fresh temporary folder (tests/test_binary.c): rbtest_run returns its
 * exit status (-1 when it did not exit normally) and keeps stdout+stderr for rbtest_output. */
const char *rbtest_fresh_dir(void);
void rbtest_remove_dir(void);
int rbtest_run(const char *args);
const char *rbtest_output(void);

#define RB_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (!(cond))                                                                               \
            rbtest_fail(__FILE__, __LINE__, #cond);                                                \
    } while (0)

/* Doubles equal within an absolute tolerance; NaN never passes. */
#define RB_CHECK_NEAR(a, b, tol)                                                                   \
    do {                                                                                           \
        double rb_a_ = (a), rb_b_ = (b);                                                           \
        if (!(rb_a_ - rb_b_ <= (tol) && rb_b_ - rb_a_ <= (tol)))                                   \
            rbtest_fail(__FILE__, __LINE__, #a " ~= " #b);                                         \
    } while (0)

#define RB_SUITE(var, label, table)                                                                \
    const rbtest_suite var = {label, table, sizeof(table) / sizeof(table[0])}

#endif
