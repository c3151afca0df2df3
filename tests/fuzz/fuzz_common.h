/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the libFuzzer targets (tests/fuzz/fuzz_*.c, built by `make fuzz`).
 * A broken property calls FUZZ_REQUIRE, which prints what broke and aborts: libFuzzer reports
 * an abort as a crash and saves the input that caused it.
 */
#ifndef RB_FUZZ_COMMON_H
#define RB_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* Prints "fuzz property broken: <what> (file:line)" and aborts. */
void fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));

#define FUZZ_REQUIRE(cond)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail(__FILE__, __LINE__, #cond);                                                  \
    } while (0)

/* Deep equality: same types, same numbers (bit for bit up to NaN, which parsing never yields,
 * and with -0 distinct from 0), same strings, same items, same keys in the same order. */
int fuzz_json_equal(const json_value *a, const json_value *b);

/* Writes v (one line, then pretty-printed), reads each text back and requires a document equal
 * to v whose own text is byte-identical: the writer's output is a fixed point of the reader. */
void fuzz_json_round_trip(const json_value *v);

/* How many times needle occurs in hay (without overlap). */
int fuzz_count(const char *hay, const char *needle);

/* libFuzzer's entry point (declared here so -Wmissing-prototypes holds). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
