/* SPDX-License-Identifier: MIT */
/*
 * Codegen fingerprints: what code a run timed. At build time the Makefile runs
 * build/<arch>/fingerprint (harness/tools/fingerprint.c) over every kernels/<pair>.o; it reads
 * `cuobjdump -sass` and writes build/<arch>/fingerprints.c, a table with one entry per function:
 * an FNV-1a 64 hash of its instruction stream and how often each opcode occurs. The child looks
 * a pair's kernels up there (by the names in the pair's rb_kernel_info table) and reports
 * `sass_hash` and `sass_counts` beside their registers and shared memory, so a compare of two runs
 * can tell a kernel whose code changed from one whose machine did.
 *
 * What the hash covers: each instruction's predicate, opcode and operands, whitespace collapsed;
 * not the addresses, the encodings (which carry the scheduling bits) or the comments, and not the
 * names of symbols an operand refers to (`(_ZN..._INTERNAL_<hash>...)`, which change with the
 * file's path), so the same source built twice hashes the same. Branch targets are offsets
 * inside the function and stay in. These functions only parse text (no CUDA).
 */
#ifndef RB_FINGERPRINT_H
#define RB_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "codegen.h"
#include "result.h"

/* An opcode ("LDG.E.EF.128") and how often it occurs in one function. */
typedef struct rb_sass_op {
    const char *op;
    int n;
} rb_sass_op;

typedef struct rb_fingerprint {
    const char *pair;     /* the object it came from: kernels/<pair>.o */
    const char *function; /* as cuobjdump names it (mangled) */
    const char *name;     /* as rb_kernel_info names it ("sgemm_optimized_kernel<true>"), or the
                             mangled name where rb_sass_demangle does not know the form */
    uint64_t hash;        /* FNV-1a 64 of the normalised instruction stream */
    int instructions;
    int n_ops;
    const rb_sass_op *ops; /* every opcode of the function, sorted */
} rb_fingerprint;

/* The build's table (build/<arch>/fingerprints.c), ended by an entry with pair NULL; empty when
 * cuobjdump was not found at build time, and then rb_fingerprints_missing says so ("" else). */
extern const rb_fingerprint rb_fingerprints[];
extern const char rb_fingerprints_missing[];

/* The entry of `table` for kernel `name` of `pair`, or NULL. */
const rb_fingerprint *rb_fingerprint_find(const rb_fingerprint *table, const char *pair,
                                          const char *name);
/* Instructions of f whose opcode is `instruction` or starts with it and '.' (the codegen rules'
 * matching, harness/model/codegen.h). */
int rb_fingerprint_count(const rb_fingerprint *f, const char *instruction);
/* sass_counts of a kernel whose pair has `rules` (ended by a rule with kernel NULL, at most
 * RB_MAX_CODEGEN): each instruction the rules name, once, with its count in f (whichever kernel
 * the rule is for: a baseline's 0 16-byte loads says something too), then "instructions", f's
 * total. Returns the number of entries written to out (at most max). */
int rb_fingerprint_counts(const rb_fingerprint *f, const rb_codegen_rule *rules, rb_extra *out,
                          int max);
/* The hash as 16 lower-case hex digits. */
void rb_fingerprint_hex(uint64_t hash, char out[17]);

/* The source-level name of a kernel's mangled name: "_Z25transpose_baseline_kernelPKfPfmmj" ->
 * "transpose_baseline_kernel", "_Z24softmax_optimized_kernelILi4ELi8EEvPKfPfm" ->
 * "softmax_optimized_kernel<4, 8>" (bool, int and unsigned template arguments). 0, or -1 for
 * any other form (namespaces, type arguments), with the mangled name copied into out. */
int rb_sass_demangle(const char *mangled, char *out, size_t size);

/* ---- parsing a listing (the build tool, the tests) ---- */

typedef struct rb_sass_function {
    char *function, *name; /* malloc'd */
    uint64_t hash;
    int instructions;
    int n_ops;
    rb_sass_op *ops; /* malloc'd, each op malloc'd; sorted by opcode */
} rb_sass_function;

/* Every function of a `cuobjdump -sass` listing, in order, into a malloc'd *out (free with
 * rb_sass_functions_free). Their number, or -1 when out of memory. */
int rb_sass_functions(const char *sass, rb_sass_function **out);
void rb_sass_functions_free(rb_sass_function *f, int n);

#endif
