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

#include "../harness/core/codegen.h"
#include "../harness/env.h"
#include "../harness/pair.h"
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
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 4096 > cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t k = fread(buf + len, 1, cap - len - 1, f);
        if (k == 0)
            break;
        len += k;
    }
    int rc = pclose(f);
    if (buf)
        buf[len] = '\0';
    if (rc != 0) {
        printf("    %s failed: %.300s\n", cmd, buf ? buf : "");
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
        if (!p->codegen[0].kernel || (p->min_cc && build_cc() < p->min_cc))
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
        else if (bad > 0 && !p->spills_why)
            printf("    %s: %s\n", p->name, why);
        RB_CHECK(r != NULL && (bad == 0 || (bad < 0 && !names_own) || (bad > 0 && p->spills_why)));
        free(r);
    }
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
    if (!strstr(last, "skipped (3 codegen checks: no cuobjdump)"))
        printf("    the inner run ended with: %s", last);
    RB_CHECK(strstr(last, " passed, 0 failed, 3 skipped (3 codegen checks: no cuobjdump)") != NULL);
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
    {"real_object_missing_instruction_fails", test_real_object_missing_instruction_fails},
    {"summary_names_skipped_codegen_checks", test_summary_names_skipped_codegen_checks},
};

RB_SUITE(codegen_suite, "codegen", codegen_cases);
