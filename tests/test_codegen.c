/* SPDX-License-Identifier: MIT */
/*
 * Codegen checks. Tier 1: the SASS and resource-usage parsers on listings written here by hand.
 * Tier 2: every pair's declared instructions and zero spills, read with cuobjdump from the
 * objects the build produced (no GPU needed). cuobjdump comes with a full CUDA Toolkit; where it
 * is missing these tests skip, unless RB_REQUIRE_CODEGEN=1 (as in CI, which installs it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/model/codegen.h"
#include "../harness/model/fingerprint.h"
#include "../harness/model/util.h"
#include "../harness/runner/env.h"
#include "../harness/kit/pair.h"
#include "rbtest.h"

extern const rbtest_suite codegen_suite;

static const char sass[] =
    "\t\tFunction : _Z24demo_optimized_kernelPKfPf\n"
    "\t.headerflags\t@\"EF_CUDA_SM90\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */\n"
    "        /*0010*/              @!P0 LDG.E.EF.128 R8, desc[UR6][R4.64] ;\n"
    "        /*0020*/                   UTMALDG.2D [UR4], [UR12] ;\n"
    "        /*0030*/                   EXIT ;\n"
    "\t\tFunction : _Z23demo_baseline_kernelPKfPf\n"
    "        /*0000*/                   LDG.E R3, desc[UR4][R2.64] ;\n"
    "        /*0010*/                   STG.E desc[UR4][R4.64], R3 ;\n";

static void test_sass_rule_found(void)
{
    RB_CHECK(rb_sass_has(sass, "demo_optimized_kernel", "LDG.E.EF.128") == 1);
    RB_CHECK(rb_sass_has(sass, "demo_optimized_kernel", "UTMALDG") == 1); /* prefix + '.' */
    RB_CHECK(rb_sass_has(sass, "demo_baseline_kernel", "STG.E") == 1);
}

/* The acceptance case: an expected instruction that is missing makes the check fail. */
static void test_sass_rule_missing_fails(void)
{
    RB_CHECK(rb_sass_has(sass, "demo_baseline_kernel", "LDG.E.EF.128") == 0);
    RB_CHECK(rb_sass_has(sass, "demo_optimized_kernel", "HGMMA") == 0);
    RB_CHECK(rb_sass_has(sass, "demo_optimized_kernel", "LDG.E.EF") == 1);
    RB_CHECK(rb_sass_has(sass, "demo_optimized_kernel", "LDG.E.E") == 0); /* not a '.' boundary */
    RB_CHECK(rb_sass_has(sass, "no_such_kernel", "EXIT") == -1);
}

static void test_sass_rule_scoped_to_function(void)
{
    /* LDG.E (plain) appears only in the baseline, UTMALDG only in the optimized kernel. */
    RB_CHECK(rb_sass_has(sass, "demo_optimized_kernel", "STG.E") == 0);
    RB_CHECK(rb_sass_has(sass, "demo_baseline_kernel", "UTMALDG") == 0);
}

static const char res[] =
    " Function _Z24demo_optimized_kernelPKfPf:\n"
    "  REG:40 STACK:0 SHARED:1088 LOCAL:0 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
    " Function _Z25demo_optimized_kernel_bigPKfPf:\n"
    "  REG:255 STACK:48 SHARED:0 LOCAL:48 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
    " Function _Z23demo_baseline_kernelPKfPf:\n"
    "  REG:12 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0\n";

static void test_spills_detected(void)
{
    char why[300] = "";
    RB_CHECK(rb_res_spills(res, "demo_optimized_kernel", why, sizeof why) == 1);
    RB_CHECK(strstr(why, "demo_optimized_kernel_big") && strstr(why, "48 bytes of stack"));
    RB_CHECK(rb_res_spills(res, "demo_baseline_kernel", why, sizeof why) == 0);
    RB_CHECK(rb_res_spills(res, "absent_kernel", why, sizeof why) == -1);
}

/* ---- codegen fingerprints (harness/model/fingerprint.h) ---- */

static void test_demangle(void)
{
    char out[200];
    RB_CHECK(rb_sass_demangle("_Z25transpose_baseline_kernelPKfPfmmj", out, sizeof out) == 0 &&
             !strcmp(out, "transpose_baseline_kernel"));
    RB_CHECK(rb_sass_demangle("_Z22sgemm_optimized_kernelILb1EEvPKfS1_Pfiii", out, sizeof out) ==
                 0 &&
             !strcmp(out, "sgemm_optimized_kernel<true>"));
    RB_CHECK(rb_sass_demangle("_Z24softmax_optimized_kernelILi4ELi8EEvPKfPfm", out, sizeof out) ==
                 0 &&
             !strcmp(out, "softmax_optimized_kernel<4, 8>"));
    RB_CHECK(rb_sass_demangle("_Z3fooILin2ELj7EEvv", out, sizeof out) == 0 &&
             !strcmp(out, "foo<-2, 7u>"));
    /* forms it does not know keep the mangled name */
    RB_CHECK(rb_sass_demangle("_ZN3cub11EmptyKernelIvEEvv", out, sizeof out) == -1 &&
             !strcmp(out, "_ZN3cub11EmptyKernelIvEEvv"));
    RB_CHECK(rb_sass_demangle("_Z3fooIfEvv", out, sizeof out) == -1); /* a type argument */
    RB_CHECK(rb_sass_demangle("_Z99short", out, sizeof out) == -1);   /* length beyond the end */
    RB_CHECK(rb_sass_demangle("plain_c_name", out, sizeof out) == -1 &&
             !strcmp(out, "plain_c_name"));
}

/* The demo listing again, as a rebuild would print it: other addresses, encodings, spacing and
 * symbol names; and once with one operand changed. */
static const char sass_rebuilt[] =
    "\t\tFunction : _Z24demo_optimized_kernelPKfPf\n"
    "\t.headerflags\t@\"EF_CUDA_SM90\"\n"
    "        /*0100*/     LDC R1, c[0x0][0x28] ;   /* 0x1111111111111111 */\n"
    "                                             /* 0x2222222222222222 */\n"
    "        /*0110*/  @!P0   LDG.E.EF.128 R8, desc[UR6][R4.64] ;\n"
    "        /*0120*/                   UTMALDG.2D [UR4], [UR12] ;\n"
    "        /*0130*/                   EXIT ;\n"
    "\t\tFunction : _Z23demo_baseline_kernelPKfPf\n"
    "        /*0000*/                   LDG.E R3, desc[UR4][R2.64] ;\n"
    "        /*0010*/                   STG.E desc[UR4][R4.64], R3 ;\n";

/* (the demo listing's mangled names are not exact: the lengths are not the names') */
static const rb_sass_function *function_named(const rb_sass_function *f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strstr(f[i].function, name))
            return &f[i];
    return NULL;
}

static void test_fingerprint_parse_and_stability(void)
{
    rb_sass_function *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    int na = rb_sass_functions(sass, &a), nb = rb_sass_functions(sass_rebuilt, &b);
    RB_CHECK(na == 2 && nb == 2);
    const rb_sass_function *opt = function_named(a, na, "demo_optimized_kernel");
    const rb_sass_function *base = function_named(a, na, "demo_baseline_kernel");
    RB_CHECK(opt && base && !strcmp(opt->function, "_Z24demo_optimized_kernelPKfPf"));
    RB_CHECK(opt && !strcmp(opt->name, "demo_optimized_kernelPKf")); /* 24 characters */
    if (!opt || !base || nb != 2) {
        rb_sass_functions_free(a, na);
        rb_sass_functions_free(b, nb);
        return;
    }
    RB_CHECK(opt->instructions == 4 && base->instructions == 2);
    RB_CHECK(opt->n_ops == 4 && !strcmp(opt->ops[0].op, "EXIT")); /* sorted */
    RB_CHECK(opt->hash != base->hash);
    RB_CHECK(b[0].hash == opt->hash && b[1].hash == base->hash); /* stable across a rebuild */
    /* a symbol's name is left out (it carries the file's path in _INTERNAL_<hash>) ... */
    int nc = rb_sass_functions(
        "Function : _Z1fv\n /*0000*/ CALL.REL.NOINC `(_ZN17_INTERNAL_1a2b_gv) ;\n", &c);
    int nd = rb_sass_functions(
        "Function : _Z1fv\n /*0000*/ CALL.REL.NOINC `(_ZN17_INTERNAL_9f8e_gv) ;\n", &d);
    RB_CHECK(nc == 1 && nd == 1 && c[0].hash == d[0].hash && c[0].instructions == 1);
    rb_sass_functions_free(c, nc);
    rb_sass_functions_free(d, nd);
    /* ... but an operand, a predicate or an opcode is not */
    static const char *const changed[] = {
        "Function : _Z1fv\n /*0000*/ LDG.E.EF.128 R8, desc[UR6][R4.64] ;\n",
        "Function : _Z1fv\n /*0000*/ @!P0 LDG.E.EF.128 R8, desc[UR6][R6.64] ;\n",
        "Function : _Z1fv\n /*0000*/ @!P1 LDG.E.EF.128 R8, desc[UR6][R4.64] ;\n",
        "Function : _Z1fv\n /*0000*/ @!P0 LDG.E.EF R8, desc[UR6][R4.64] ;\n"};
    uint64_t base_hash = 0;
    rb_sass_function *e = NULL;
    int ne = rb_sass_functions(
        "Function : _Z1fv\n /*0000*/ @!P0 LDG.E.EF.128 R8, desc[UR6][R4.64] ;\n", &e);
    RB_CHECK(ne == 1);
    base_hash = ne == 1 ? e[0].hash : 0;
    rb_sass_functions_free(e, ne);
    for (size_t i = 0; i < sizeof changed / sizeof changed[0]; i++) {
        ne = rb_sass_functions(changed[i], &e);
        RB_CHECK(ne == 1 && e[0].hash != base_hash);
        rb_sass_functions_free(e, ne);
    }
    rb_sass_functions_free(a, na);
    rb_sass_functions_free(b, nb);
}

static void test_fingerprint_counts(void)
{
    static const rb_sass_op ops[] = {{"EXIT", 1}, {"LDG.E", 2}, {"LDG.E.EF.128", 3}, {"STG.E", 4}};
    const rb_fingerprint f = {"demo", "_Z1fv", "f", 0x0123456789abcdefull, 10, 4, ops};
    const rb_fingerprint table[] = {f, {NULL, NULL, NULL, 0, 0, 0, NULL}};
    RB_CHECK(rb_fingerprint_find(table, "demo", "f") == &table[0]);
    RB_CHECK(rb_fingerprint_find(table, "other", "f") == NULL);
    RB_CHECK(rb_fingerprint_find(table, "demo", "g") == NULL);
    RB_CHECK(rb_fingerprint_count(&f, "LDG.E") == 5); /* LDG.E and LDG.E.EF.128 */
    RB_CHECK(rb_fingerprint_count(&f, "LDG.E.EF.128") == 3);
    RB_CHECK(rb_fingerprint_count(&f, "LDG.E.E") == 0); /* not a '.' boundary */
    rb_codegen_rule rules[RB_MAX_CODEGEN] = {
        {"demo_optimized_kernel", "LDG.E.EF.128", 0},
        {"demo_baseline_kernel", "LDG.E.EF.128", 0}, /* named twice: counted once */
        {"demo_optimized_kernel", "HGMMA", 90}};
    rb_extra out[RB_MAX_EXTRAS];
    int n = rb_fingerprint_counts(&f, rules, out, RB_MAX_EXTRAS);
    RB_CHECK(n == 3);
    RB_CHECK(!strcmp(out[0].name, "LDG.E.EF.128") && out[0].value == 3);
    RB_CHECK(!strcmp(out[1].name, "HGMMA") && out[1].value == 0);
    RB_CHECK(!strcmp(out[2].name, "instructions") && out[2].value == 10);
    char hex[17];
    rb_fingerprint_hex(f.hash, hex);
    RB_CHECK(!strcmp(hex, "0123456789abcdef"));
}

/* The kernel record with and without a fingerprint, as the results write it and read it back. */
static void test_fingerprint_kernel_json(void)
{
    rb_kernel_result k, back;
    char err[200];
    memset(&k, 0, sizeof k);
    snprintf(k.variant, sizeof k.variant, "optimized");
    snprintf(k.name, sizeof k.name, "demo_optimized_kernel");
    json_value *o = rb_kernel_to_json(&k);
    RB_CHECK(o && !json_get(o, "sass_hash") && !json_get(o, "sass_counts")); /* absent */
    json_free(o);
    snprintf(k.sass_hash, sizeof k.sass_hash, "00ff00ff00ff00ff");
    k.n_sass_counts = 2;
    snprintf(k.sass_counts[0].name, sizeof k.sass_counts[0].name, "LDG.E.EF.128");
    k.sass_counts[0].value = 3;
    snprintf(k.sass_counts[1].name, sizeof k.sass_counts[1].name, "instructions");
    k.sass_counts[1].value = 72;
    o = rb_kernel_to_json(&k);
    const json_value *h = o ? json_get(o, "sass_hash") : NULL;
    const json_value *c = o ? json_get(o, "sass_counts") : NULL;
    RB_CHECK(h && h->type == JSON_STRING && !strcmp(h->string, "00ff00ff00ff00ff"));
    RB_CHECK(c && c->type == JSON_OBJECT && c->count == 2 &&
             json_get(c, "instructions")->number == 72);
    RB_CHECK(o && rb_kernel_from_json(o, &back, err, sizeof err) == 0);
    RB_CHECK(!strcmp(back.sass_hash, k.sass_hash) && back.n_sass_counts == 2 &&
             back.sass_counts[0].value == 3);
    RB_CHECK(json_set_string(o, "sass_hash", "not-hex") == 0 &&
             rb_kernel_from_json(o, &back, err, sizeof err) == -1);
    json_free(o);
}

/* library_algo on a variant: the contract's shape, absent when the pair reports none. */
static void test_library_algo_json(void)
{
    rb_variant_result v, back;
    char err[200];
    rb_variant_result_init(&v, "optimized", RB_ROLE_OPTIMIZED, RB_UNIT_BF16, 5e-3);
    json_value *o = rb_variant_to_json(&v);
    RB_CHECK(o && !json_get(o, "library_algo"));
    json_free(o);
    rb_library_algo a = {1, "cublasLt", 66, 30, 21, 1, 0, 1, 0, 3};
    v.library_algo = a;
    o = rb_variant_to_json(&v);
    const json_value *j = o ? json_get(o, "library_algo") : NULL;
    RB_CHECK(j && j->type == JSON_OBJECT && j->count == 9);
    static const char *const keys[] = {"kind",    "algo_id",       "tile",
                                       "stages",  "splitk",        "reduction_scheme",
                                       "swizzle", "custom_option", "candidate_index"};
    for (size_t i = 0; j && i < j->count && i < 9; i++)
        RB_CHECK(!strcmp(j->keys[i], keys[i]));
    RB_CHECK(j && !strcmp(json_get(j, "kind")->string, "cublasLt") &&
             json_get(j, "algo_id")->number == 66 && json_get(j, "tile")->number == 30 &&
             json_get(j, "stages")->number == 21 && json_get(j, "swizzle")->number == 1 &&
             json_get(j, "candidate_index")->number == 3);
    RB_CHECK(o && rb_variant_from_json(o, &back, err, sizeof err) == 0);
    RB_CHECK(back.library_algo.present && back.library_algo.algo_id == 66 &&
             back.library_algo.candidate_index == 3 && !strcmp(back.library_algo.kind, "cublasLt"));
    /* a record that names an algorithm must say all of it */
    json_value *bad = o ? json_clone(json_get(o, "library_algo")) : NULL;
    RB_CHECK(bad && json_set_string(bad, "tile", "big") == 0 &&
             rb_library_algo_from_json(bad, &back.library_algo, err, sizeof err) == -1 &&
             strstr(err, "tile"));
    json_free(bad);
    json_free(o);
}

/* ---- tier 2: the built objects ---- */

static char tool[1024];

/* cuobjdump: $RB_CUOBJDUMP, else the toolkit's, else PATH. 0 when none is found. */
static int find_cuobjdump(void)
{
    const char *env = getenv("RB_CUOBJDUMP"), *home = getenv("CUDA_HOME");
    if (env && access(env, X_OK) == 0) {
        snprintf(tool, sizeof tool, "%s", env);
        return 1;
    }
    snprintf(tool, sizeof tool, "%s/bin/cuobjdump", home ? home : "/usr/local/cuda");
    if (access(tool, X_OK) == 0)
        return 1;
    snprintf(tool, sizeof tool, "cuobjdump");
    return system("command -v cuobjdump > /dev/null 2>&1") == 0;
}

static int have_tool(void)
{
    if (find_cuobjdump())
        return 1;
    const char *req = getenv("RB_REQUIRE_CODEGEN");
    if (req && strcmp(req, "1") == 0)
        RB_CHECK(!"cuobjdump not found, and RB_REQUIRE_CODEGEN=1");
    else
        rbtest_skip("cuobjdump not found (set RB_CUOBJDUMP; a full CUDA Toolkit has it)");
    return 0;
}

/* Output of "cuobjdump MODE OBJECT" (malloc'd), NULL on failure. */
static char *dump(const char *mode, const char *object)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "'%s' %s '%s' 2>&1", tool, mode, object);
    int rc;
    char *buf = rb_command_output(cmd, &rc);
    if (!buf)
        return NULL;
    if (rc != 0) {
        printf("    %s failed: %.300s\n", cmd, buf);
        free(buf);
        return NULL;
    }
    return buf;
}

/* build/<arch>/kernels/<pair>.o, beside the binary under test. */
static void object_path(const char *pair, char *out, size_t size)
{
    const char *slash = strrchr(rbtest_binary, '/');
    int dir = slash ? (int)(slash - rbtest_binary) : 1;
    snprintf(out, size, "%.*s/kernels/%s.o", dir, slash ? rbtest_binary : ".", pair);
}

static int build_cc(void)
{
    return atoi(rb_build_arch + 3); /* "sm_90" -> 90 */
}

static void test_every_pair_has_its_instructions(void)
{
    if (!have_tool())
        return;
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        const int min_cc = rb_pair_ext_of(p)->min_cc;
        if (!p->codegen[0].kernel || (min_cc && build_cc() < min_cc))
            continue;
        char obj[1024];
        object_path(p->name, obj, sizeof obj);
        char *s = dump("-sass", obj);
        RB_CHECK(s != NULL);
        for (int k = 0; s && k < RB_MAX_CODEGEN && p->codegen[k].kernel; k++) {
            if (build_cc() < p->codegen[k].min_cc)
                continue;
            int has = rb_sass_has(s, p->codegen[k].kernel, p->codegen[k].instruction);
            if (has != 1)
                printf("    %s: %s %s %s\n", p->name, p->codegen[k].kernel,
                       has < 0 ? "not found in" : "lacks",
                       has < 0 ? obj : p->codegen[k].instruction);
            RB_CHECK(has == 1);
        }
        free(s);
    }
}

static void test_optimized_kernels_do_not_spill(void)
{
    if (!have_tool())
        return;
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        char obj[1024], prefix[RB_NAME_MAX + 16], why[400] = "";
        object_path(p->name, obj, sizeof obj);
        snprintf(prefix, sizeof prefix, "%s_optimized", p->name);
        char *r = dump("-res-usage", obj);
        RB_CHECK(r != NULL);
        int bad = r ? rb_res_spills(r, prefix, why, sizeof why) : -1;
        /* An optimized variant that is a library call (gemm_epilogue's fused cuBLASLt
         * epilogue) runs no kernel of ours; then no codegen rule may name one either. */
        int names_own = 0;
        for (int k = 0; k < RB_MAX_CODEGEN && p->codegen[k].kernel; k++)
            names_own |= strstr(p->codegen[k].kernel, prefix) != NULL;
        if (bad < 0 && names_own)
            printf("    %s: no kernel named %s* in %s\n", p->name, prefix, obj);
        else if (bad > 0)
            printf("    %s: %s\n", p->name, why);
        RB_CHECK(r != NULL && (bad == 0 || (bad < 0 && !names_own)));
        free(r);
    }
}

/* The fingerprint of a kernel counts each instruction its pair's rules name, once, plus the
 * total, in RB_MAX_EXTRAS slots (rb_fingerprint_counts): every pair's distinct instructions must
 * fit, or the last would silently go uncounted. No cuobjdump needed. */
static void test_codegen_rules_fit_sass_counts(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        int distinct = 0;
        for (int k = 0; k < RB_MAX_CODEGEN && p->codegen[k].kernel; k++) {
            int seen = 0;
            for (int j = 0; j < k; j++)
                seen |= strcmp(p->codegen[j].instruction, p->codegen[k].instruction) == 0;
            distinct += !seen;
        }
        if (distinct + 1 > RB_MAX_EXTRAS)
            printf("    %s: %d distinct instructions, %d fit\n", p->name, distinct,
                   RB_MAX_EXTRAS - 1);
        RB_CHECK(distinct + 1 <= RB_MAX_EXTRAS);
    }
}

/* hgemm holds every kernel of its ladder, not only the optimized one, to zero local memory: a
 * spill in a step would make the step's time a story about spills. */
static void test_hgemm_kernels_do_not_spill(void)
{
    if (!have_tool())
        return;
    char obj[1024], why[400] = "";
    object_path("hgemm", obj, sizeof obj);
    char *r = dump("-res-usage", obj);
    RB_CHECK(r != NULL);
    int bad = r ? rb_res_spills(r, "hgemm_", why, sizeof why) : -1;
    if (bad != 0)
        printf("    hgemm: %s\n", bad < 0 ? "no hgemm_* kernel in the object" : why);
    RB_CHECK(bad == 0);
    free(r);
}

/* The real-object counterpart of test_sass_rule_missing_fails: the scalar baseline copy has no
 * 16-byte loads, so a rule asking for them there fails. */
static void test_real_object_missing_instruction_fails(void)
{
    if (!have_tool())
        return;
    char obj[1024];
    object_path("copy_vectorized", obj, sizeof obj);
    char *s = dump("-sass", obj);
    RB_CHECK(s != NULL);
    if (!s)
        return;
    RB_CHECK(rb_sass_has(s, "copy_vectorized_baseline_kernel", "LDG.E.EF.128") == 0);
    RB_CHECK(rb_sass_has(s, "copy_vectorized_optimized_kernel", "LDG.E.EF.128") == 1);
    free(s);
}

/* The fingerprint table the build embedded has every kernel every pair reports. */
static void test_fingerprint_table_complete(void)
{
    if (!have_tool())
        return;
    if (rb_fingerprints_missing[0])
        printf("    %s: rebuild with cuobjdump where these tests find it (%s)\n",
               rb_fingerprints_missing, tool);
    RB_CHECK(rb_fingerprints_missing[0] == '\0' && rb_fingerprints[0].pair != NULL);
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        if (rb_pair_ext_of(p)->min_cc && build_cc() < rb_pair_ext_of(p)->min_cc)
            continue;
        for (int k = 0; p->kernels && p->kernels[k].name; k++) {
            const rb_fingerprint *f =
                rb_fingerprint_find(rb_fingerprints, p->name, p->kernels[k].name);
            if (!f)
                printf("    %s: no fingerprint for %s\n", p->name, p->kernels[k].name);
            RB_CHECK(f != NULL && f->instructions > 0);
        }
    }
}

/* The embedded table is what the objects hold now: each function's hash and count recomputed
 * from cuobjdump of the built object (a stale table would report code the run did not time). */
static void test_fingerprint_table_matches_objects(void)
{
    if (!have_tool())
        return;
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        char obj[1024];
        object_path(p->name, obj, sizeof obj);
        char *s = dump("-sass", obj);
        RB_CHECK(s != NULL);
        rb_sass_function *fs = NULL;
        int n = s ? rb_sass_functions(s, &fs) : -1;
        RB_CHECK(n >= 0);
        for (int k = 0; k < n; k++) {
            const rb_fingerprint *f = NULL;
            for (const rb_fingerprint *t = rb_fingerprints; t->pair && !f; t++)
                if (!strcmp(t->pair, p->name) && !strcmp(t->function, fs[k].function))
                    f = t;
            if (!f || f->hash != fs[k].hash)
                printf("    %s: %s differs from the embedded fingerprint\n", p->name, fs[k].name);
            RB_CHECK(f && f->hash == fs[k].hash && f->instructions == fs[k].instructions &&
                     f->n_ops == fs[k].n_ops);
        }
        rb_sass_functions_free(fs, n);
        free(s);
    }
}

/* nvcc: $RB_NVCC, else the toolkit's. 0 when none is found. */
static int find_nvcc(char *out, size_t size)
{
    const char *env = getenv("RB_NVCC"), *home = getenv("CUDA_HOME");
    if (env && access(env, X_OK) == 0)
        return snprintf(out, size, "%s", env), 1;
    snprintf(out, size, "%s/bin/nvcc", home ? home : "/usr/local/cuda");
    return access(out, X_OK) == 0;
}

/* The fingerprint of fp_demo_kernel in a tiny .cu compiled into dir with extra flags; 0 on
 * failure. */
static uint64_t demo_hash(const char *nvcc, const char *dir, const char *flags)
{
    static const char source[] =
        "__global__ void fp_demo_kernel(const float *in, float *out, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "#ifdef FP_PLANT\n"
        "    if (i < n) out[i] = in[i] * 3.0f;\n"
        "#else\n"
        "    if (i < n) out[i] = in[i] + 3.0f;\n"
        "#endif\n"
        "}\n";
    char path[512], obj[512], cmd[2048];
    snprintf(path, sizeof path, "%s/demo.cu", dir);
    snprintf(obj, sizeof obj, "%s/demo.cubin", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs(source, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' -O3 -arch=%s %s -cubin '%s' -o '%s' > /dev/null 2>&1", nvcc,
             rb_build_arch, flags, path, obj);
    if (system(cmd) != 0) {
        printf("    failed: %s\n", cmd);
        return 0;
    }
    char *s = dump("-sass", obj);
    rb_sass_function *fs = NULL;
    int n = s ? rb_sass_functions(s, &fs) : -1;
    uint64_t h = n == 1 && !strcmp(fs[0].name, "fp_demo_kernel") ? fs[0].hash : 0;
    rb_sass_functions_free(fs, n);
    free(s);
    return h;
}

/* The same source built twice (in two folders: the path must not matter) hashes the same; a
 * planted change of one operation (an add made a multiply) changes the hash. */
static void test_fingerprint_rebuild_and_plant(void)
{
    char nvcc[1024];
    if (!have_tool())
        return;
    if (!find_nvcc(nvcc, sizeof nvcc)) {
        RB_CHECK(!"nvcc not found (set RB_NVCC or CUDA_HOME)");
        return;
    }
    char dir[2][256];
    for (int i = 0; i < 2; i++)
        snprintf(dir[i], sizeof dir[i], "%s", rbtest_fresh_dir());
    uint64_t a = demo_hash(nvcc, dir[0], ""), b = demo_hash(nvcc, dir[1], "");
    uint64_t planted = demo_hash(nvcc, dir[1], "-DFP_PLANT");
    RB_CHECK(a != 0 && a == b);
    RB_CHECK(planted != 0 && planted != a);
    for (int i = 0; i < 2; i++) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir[i]);
        if (strncmp(dir[i], "/tmp/rbtest-", 12) == 0 && system(cmd) != 0)
            printf("    could not remove %s\n", dir[i]);
    }
}

/* Without cuobjdump the codegen checks skip, and the summary says so, with where to get it (the
 * README lists these checks: a reader of "N passed, 0 failed" alone must not take them as run).
 * Runs this test binary again on the codegen suite with cuobjdump out of reach. */
static void test_summary_names_skipped_codegen_checks(void)
{
    if (getenv("RB_TEST_INNER"))
        return; /* the inner run: nothing to do here */
    if (system("PATH=/usr/bin:/bin command -v cuobjdump > /dev/null 2>&1") == 0) {
        rbtest_skip("cuobjdump is in /usr/bin or /bin: it cannot be put out of reach");
        return;
    }
    char self[1024], cmd[3000], text[8192] = "";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    RB_CHECK(n > 0);
    if (n <= 0)
        return;
    self[n] = '\0';
    snprintf(cmd, sizeof cmd,
             "env -u RB_CUOBJDUMP -u RB_REQUIRE_CODEGEN RB_TEST_INNER=1 CUDA_HOME=/nonexistent "
             "PATH=/usr/bin:/bin '%s' '%s' codegen 2>&1",
             self, rbtest_binary);
    FILE *f = popen(cmd, "r");
    RB_CHECK(f != NULL);
    if (!f)
        return;
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    pclose(f);
    const char *last = text + (len > 1 ? len - 2 : 0);
    while (last > text && last[-1] != '\n')
        last--;
    if (!strstr(last, "skipped (7 codegen checks: no cuobjdump)"))
        printf("    the inner run ended with: %s", last);
    RB_CHECK(strstr(last, " passed, 0 failed, 7 skipped (7 codegen checks: no cuobjdump)") != NULL);
    RB_CHECK(strstr(text, "codegen checks skipped: cuobjdump not found") != NULL);
    RB_CHECK(strstr(text, "cuda-cuobjdump-") != NULL && strstr(text, "RB_CUOBJDUMP") != NULL);
}

static const rbtest_case codegen_cases[] = {
    {"sass_rule_found", test_sass_rule_found},
    {"sass_rule_missing_fails", test_sass_rule_missing_fails},
    {"sass_rule_scoped_to_function", test_sass_rule_scoped_to_function},
    {"spills_detected", test_spills_detected},
    {"every_pair_has_its_instructions", test_every_pair_has_its_instructions},
    {"optimized_kernels_do_not_spill", test_optimized_kernels_do_not_spill},
    {"codegen_rules_fit_sass_counts", test_codegen_rules_fit_sass_counts},
    {"hgemm_kernels_do_not_spill", test_hgemm_kernels_do_not_spill},
    {"real_object_missing_instruction_fails", test_real_object_missing_instruction_fails},
    {"demangle", test_demangle},
    {"fingerprint_parse_and_stability", test_fingerprint_parse_and_stability},
    {"fingerprint_counts", test_fingerprint_counts},
    {"fingerprint_kernel_json", test_fingerprint_kernel_json},
    {"library_algo_json", test_library_algo_json},
    {"fingerprint_table_complete", test_fingerprint_table_complete},
    {"fingerprint_table_matches_objects", test_fingerprint_table_matches_objects},
    {"fingerprint_rebuild_and_plant", test_fingerprint_rebuild_and_plant},
    {"summary_names_skipped_codegen_checks", test_summary_names_skipped_codegen_checks},
};

RB_SUITE(codegen_suite, "codegen", codegen_cases);
