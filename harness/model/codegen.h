/* SPDX-License-Identifier: MIT */
/*
 * Codegen checks: a compiler or CUDA upgrade can silently change generated code (a 16-byte load
 * split into four, a TMA path gone, new spills). A pair declares the SASS instructions its
 * optimized kernels must contain; the tests read `cuobjdump -sass` and `cuobjdump -res-usage`
 * of the built objects and check them. These functions only parse text (no CUDA).
 */
#ifndef RB_CODEGEN_H
#define RB_CODEGEN_H

#include <stddef.h>

/* Rules per pair: hgemm names two to four instructions in each of its eight kernels. */
#define RB_MAX_CODEGEN 28

/* In some function whose (mangled) name contains `kernel`, an instruction whose opcode is
 * `instruction` or starts with it followed by '.' ("UTMALDG" matches "UTMALDG.2D"); checked in
 * builds for compute capability min_cc (x 10) and later only (0: every build). */
typedef struct rb_codegen_rule {
    const char *kernel;
    const char *instruction;
    int min_cc;
} rb_codegen_rule;

/* The opcode of one SASS line line[0..end) (an address comment, an optional @predicate, the
 * opcode: "LDG.E.EF.128"), its length into *len; NULL when the line holds no instruction. */
const char *rb_sass_opcode(const char *line, const char *end, size_t *len);
/* The first `text` within line[0..end), or NULL. Listings are searched line by line with this,
 * not strstr, which would scan on through the rest of the listing at every line (quadratic in its
 * length, and far slower under ASan, which measures the whole rest first). */
const char *rb_sass_find(const char *line, const char *end, const char *text);
/* Whether opcode op[0..len) is `instruction` or starts with it followed by '.'. */
int rb_sass_opcode_matches(const char *op, size_t len, const char *instruction);

/* 1 when the listing has the instruction in a matching function, 0 when a matching function
 * lacks it, -1 when no function matches `kernel`. */
int rb_sass_has(const char *sass, const char *kernel, const char *instruction);

/* Functions of a `cuobjdump -res-usage` listing whose name contains `kernel` and that use a
 * stack frame or local memory (spills, or arrays indexed at run time): their number, the first
 * named in why; -1 when no function matches. */
int rb_res_spills(const char *res_usage, const char *kernel, char *why, size_t why_size);

#endif
