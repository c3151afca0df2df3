/* SPDX-License-Identifier: MIT */
/* Tier 2: the registry of pairs is consistent (no GPU needed). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/model/ceiling_record.h"
#include "../harness/model/cli.h"
#include "../harness/runner/jobs.h"
#include "../harness/runner/results.h"
#include "../harness/kit/pair.h"
#include "rbtest.h"

extern const rbtest_suite registry_suite;

/* Largest L2 among the GPUs we measure on (H200: 60 MB): memory-bound full sizes must be >= 4x
 * it so that no timed pass is served from cache. */
#define LARGEST_L2_BYTES (60.0 * 1024 * 1024)

/* A pair's smoke or full size, resolved as the harness resolves it. */
static rb_size resolved(const rb_pair *p, uint64_t n)
{
    rb_size want = {n, 0, 0}, got = {0, 0, 0};
    char why[200];
    if (rb_pair_resolve_size(p, &want, &got, why, sizeof why) != 0)
        printf("    %s: size %llu refused: %s\n", p->name, (unsigned long long)n, why);
    return got;
}

static int count_pairs(void)
{
    int n = 0;
    while (rb_registry[n])
        n++;
    return n;
}

static void test_registry_not_empty_and_names_unique(void)
{
    int n = count_pairs();
    RB_CHECK(n >= 2);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            RB_CHECK(strcmp(rb_registry[i]->name, rb_registry[j]->name) != 0);
}

static void test_names_are_identifiers(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const char *s = rb_registry[i]->name;
        RB_CHECK(s && islower((unsigned char)s[0]));
        for (; s && *s; s++)
            RB_CHECK(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_');
        RB_CHECK(rb_registry[i]->pattern && strlen(rb_registry[i]->pattern) > 10);
        RB_CHECK(rb_registry[i]->size_unit && rb_registry[i]->size_unit[0]);
    }
}

static void test_no_null_callbacks(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        RB_CHECK(p->flops && p->bytes && p->setup && p->output && p->check && p->teardown &&
                 p->selftest);
        RB_CHECK(p->n_variants >= 2 && p->n_variants <= RB_MAX_VARIANTS);
        for (int k = 0; k < p->n_variants && k < RB_MAX_VARIANTS; k++) {
            RB_CHECK(p->variants[k].name && p->variants[k].name[0]);
            RB_CHECK(p->variants[k].run != NULL);
        }
    }
}

/* Every pair plants at least one realistic defect for the GPU tests (rb_defect), each judged by
 * one of its variants. */
static void test_every_pair_plants_a_defect(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        int n = 0;
        for (; n < RB_MAX_DEFECTS && p->defects[n].name; n++) {
            const rb_defect *d = &p->defects[n];
            RB_CHECK(d->run != NULL && d->name[0]);
            RB_CHECK(d->variant >= 0 && d->variant < p->n_variants);
            /* its inputs are the pair's (a bit past them would name none) */
            const int inputs = p->n_inputs ? p->n_inputs : 1;
            RB_CHECK(inputs >= 32 || (d->inputs >> inputs) == 0);
        }
        if (n == 0)
            printf("    %s: no planted defect\n", p->name);
        RB_CHECK(n >= 1);
    }
}

static void test_variants_well_formed(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        int baselines = 0, optimized = 0;
        for (int k = 0; k < p->n_variants; k++) {
            const rb_variant_def *v = &p->variants[k];
            baselines += v->role == RB_ROLE_BASELINE;
            optimized += v->role == RB_ROLE_OPTIMIZED;
            RB_CHECK(v->tolerance >= 0 && isfinite(v->tolerance) && v->tolerance < 0.2);
            RB_CHECK((unsigned)v->unit < RB_UNIT_COUNT);
            for (int j = k + 1; j < p->n_variants; j++)
                RB_CHECK(strcmp(v->name, p->variants[j].name) != 0);
        }
        RB_CHECK(baselines == 1);
        RB_CHECK(optimized == 1);
        RB_CHECK(p->variants[0].role == RB_ROLE_BASELINE); /* the table reads in order */
    }
}

/* Every variant's roof is a roof key (for every input); a link pair's variants are on a link
 * or a compute roof (never the DRAM roof derived for data movement: their bytes cross a link); a
 * latency roof names the extra that holds its microseconds per launch; the roofs the pairs were
 * given on purpose stay where the README says they are. */
static void test_variant_roofs_declared(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        rb_size size = {p->smoke_size, 1, p->smoke_size};
        if (rb_pair_ext_of(p)->shape) {
            char why[200];
            rb_size want = {p->smoke_size, 0, 0};
            if (rb_pair_resolve_size(p, &want, &size, why, sizeof why) != 0)
                continue;
        }
        for (int in = 0; in < (p->n_inputs ? p->n_inputs : 1); in++)
            for (int k = 0; k < p->n_variants; k++) {
                const rb_variant_def *v = &p->variants[k];
                rb_roof roof;
                int ok = rb_pair_variant_roof(p, k, in, p->flops(&size), &roof) == 0;
                RB_CHECK(ok);
                if (!ok) {
                    printf("    (%s/%s: '%s' is not a roof key)\n", p->name, v->name,
                           v->roof ? v->roof : rb_pair_ext_of(p)->input_roofs[in]);
                    continue;
                }
                if (rb_pair_ext_of(p)->link_bytes)
                    RB_CHECK(rb_roof_is_link(roof) || rb_roof_kind_of(roof) != RB_KIND_BANDWIDTH);
                if (rb_roof_kind_of(roof) == RB_KIND_LATENCY)
                    RB_CHECK(v->roof_rate != NULL && rb_pair_ext_of(p)->extras != NULL);
            }
    }
    static const struct {
        const char *pair, *variant;
        int input;
        const char *roof;
    } declared[] = {
        {"reduction", "optimized", 0, "dram_read_gbps"},
        {"histogram", "library", 1, "dram_read_gbps"},
        {"fused_elementwise", "optimized", 0, "dram_read_gbps"},
        {"l2_persistence", "optimized", 0, "dram_gbps"},
        {"copy_vectorized", "optimized", 0, "dram_gbps"},
        {"sgemm", "optimized", 0, "fp32_tflops"},
        {"gemm_precision", "bf16", 0, "bf16_tflops"},
        {"gemm_precision", "optimized", 0, "fp8_tflops"},
        {"host_transfer", "baseline", 0, "pcie_h2d_gbps"},
        {"host_transfer", "optimized", 1, "pcie_d2h_gbps"},
        {"streams_overlap", "optimized", 0, "pcie_duplex_gbps"},
        {"streams_overlap", "kernel", 0, "fp32_tflops"},
        {"p2p_copy", "optimized", 0, "nvlink_gbps"},
        {"nccl_allreduce", "nccl_out_of_place", 0, "nvlink_gbps"},
        {"cuda_graphs", "baseline", 0, "launch_us"},
        {"cuda_graphs", "optimized", 0, "graph_node_us"},
    };
    for (size_t d = 0; d < sizeof declared / sizeof declared[0]; d++) {
        const rb_pair *p = NULL;
        for (int i = 0; rb_registry[i]; i++)
            if (!strcmp(rb_registry[i]->name, declared[d].pair))
                p = rb_registry[i];
        if (!p)
            continue; /* left out of this build (no NCCL) */
        int found = 0;
        for (int k = 0; k < p->n_variants; k++) {
            rb_roof roof;
            if (strcmp(p->variants[k].name, declared[d].variant) != 0)
                continue;
            found = 1;
            rb_size size = {p->smoke_size, 1, p->smoke_size};
            if (rb_pair_ext_of(p)->shape) {
                char why[200];
                rb_size want = {p->smoke_size, 0, 0};
                rb_pair_resolve_size(p, &want, &size, why, sizeof why);
            }
            RB_CHECK(rb_pair_variant_roof(p, k, declared[d].input, p->flops(&size), &roof) == 0 &&
                     !strcmp(rb_roof_key(roof), declared[d].roof));
        }
        RB_CHECK(found);
    }
}

/* The rows of p a full run on one GPU takes for input `in`: its one-GPU sweep, else its sweep,
 * else one. */
static int one_gpu_sizes(const rb_pair *p, int in)
{
    const rb_pair_ext *e = rb_pair_ext_of(p);
    const uint64_t *sweep = e->sweep_one_gpu                              ? e->sweep_one_gpu
                            : in < RB_MAX_INPUTS && e->input_sweep[in] ? e->input_sweep[in]
                                                                       : e->sweep;
    int n = 0;
    while (sweep && sweep[n])
        n++;
    return n ? n : 1;
}

/* Informational rows (rb_variant_def.host_bound_why): each declared one passes the check (a
 * reason, not the pair's answer, a link or latency roof on every input it applies to); planted
 * declarations on a kernel-bound row and on the pair's answer are refused; and a full run on
 * one GPU (the H100's) has these rows and no others, at most 6. */
static void test_informational_rows(void)
{
    char why[300];
    int rows = 0;
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        for (int k = 0; k < p->n_variants; k++) {
            int ok = rb_pair_informational_check(p, k, why, sizeof why) == 0;
            RB_CHECK(ok);
            if (!ok)
                printf("    %s\n", why);
            int inputs = rb_pair_ext_of(p)->min_gpus <= 1 ? (p->n_inputs ? p->n_inputs : 1) : 0;
            for (int in = 0; in < inputs; in++)
                if (rb_pair_host_bound(p, k, in))
                    rows += one_gpu_sizes(p, in);
        }
    }
    RB_CHECK(rows <= 6);
    RB_CHECK(rows == 3); /* host_transfer x2, cuda_graphs (nccl's ring is a GPU kernel: gating) */
    /* Planted: a GPU-bound row declared informational is refused, with the reason. */
    for (int i = 0; rb_registry[i]; i++) {
        if (strcmp(rb_registry[i]->name, "sgemm") && strcmp(rb_registry[i]->name, "host_transfer"))
            continue;
        rb_pair fake = *rb_registry[i];
        int base = 0, opt = -1;
        for (int k = 0; k < fake.n_variants; k++)
            if (fake.variants[k].role == RB_ROLE_OPTIMIZED)
                opt = k;
        fake.variants[base].host_bound_why =
            "planted: a long enough reason that names no host-bound cause at all";
        if (!strcmp(fake.name, "sgemm")) { /* on fp32_tflops: a kernel bounds it */
            RB_CHECK(rb_pair_informational_check(&fake, base, why, sizeof why) == -1);
            RB_CHECK(strstr(why, "fp32_tflops") && strstr(why, "never informational"));
        } else { /* a link roof, but the pair's answer */
            RB_CHECK(rb_pair_informational_check(&fake, base, why, sizeof why) == 0);
            fake.variants[opt].host_bound_why = fake.variants[base].host_bound_why;
            RB_CHECK(rb_pair_informational_check(&fake, opt, why, sizeof why) == -1);
            RB_CHECK(strstr(why, "optimized") != NULL);
            fake.variants[base].host_bound_why = "staged";
            RB_CHECK(rb_pair_informational_check(&fake, base, why, sizeof why) == -1);
        }
    }
}

static void test_work_model_positive_and_growing(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        rb_size smoke = resolved(p, p->smoke_size), full = resolved(p, p->full_size);
        RB_CHECK(p->smoke_size >= 1 && p->smoke_size < p->full_size);
        RB_CHECK(smoke.n >= 1 && smoke.n == smoke.rows * smoke.cols);
        RB_CHECK(full.n > smoke.n && full.n == full.rows * full.cols);
        RB_CHECK(p->bytes(&smoke) > 0);
        RB_CHECK(p->bytes(&full) > p->bytes(&smoke));
        RB_CHECK(p->flops(&smoke) >= 0);
        RB_CHECK(p->flops(&full) >= p->flops(&smoke));
        RB_CHECK(isfinite(p->flops(&full)) && isfinite(p->bytes(&full)));
    }
}

/* Pairs whose point is a working set that stays in cache, so that what is timed is launch
 * overhead, not memory traffic (cuda_graphs: ~200 kernels on 16 KB vectors). rb_pair has no
 * field to say so yet; until it has, they are named here. */
static int small_by_design(const char *pair)
{
    static const char *const pairs[] = {"cuda_graphs", NULL};
    for (int i = 0; pairs[i]; i++)
        if (!strcmp(pair, pairs[i]))
            return 1;
    return 0;
}

static void test_memory_bound_sizes_exceed_l2(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        if (small_by_design(p->name))
            continue;
        rb_size full = resolved(p, p->full_size);
        double ai = p->flops(&full) / p->bytes(&full);
        if (ai < 10) { /* memory-bound on every GPU we know */
            if (!(p->bytes(&full) >= 4 * LARGEST_L2_BYTES))
                printf("    %s: full size moves %.0f MB, under 4x L2\n", p->name,
                       p->bytes(&full) / 1e6);
            RB_CHECK(p->bytes(&full) >= 4 * LARGEST_L2_BYTES);
        }
    }
}

static void test_cpu_references_pass_hand_computed_cases(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        char why[200] = "";
        int rc = rb_registry[i]->selftest(why, sizeof why);
        if (rc != 0)
            printf("    %s: %s\n", rb_registry[i]->name, why);
        RB_CHECK(rc == 0);
    }
}

/* A pair's input with a sweep of its own (rb_pair_ext.input_sweep) takes only those sizes in a full
 * run; the other inputs the pair's sweep: hgemm's square at 8192, 6144 and 4096, its awkward
 * shape at 4096 scale alone. */
/* The jobs of hgemm's full run into jobs[0..*n): 0, or -1 (the test skipped) when this build has
 * no hgemm. */
static int hgemm_full_run(rb_job *jobs, int *n)
{
    int have = 0;
    for (int i = 0; rb_registry[i]; i++)
        have |= !strcmp(rb_registry[i]->name, "hgemm");
    if (!have) {
        rbtest_skip("hgemm is not in this build");
        return -1;
    }
    rb_options o;
    char err[300];
    char *full[] = {"roofbench", "run", "--filter", "^hgemm$", NULL};
    *n = -1;
    RB_CHECK(rb_cli_parse(4, full, &o, err, sizeof err) == 0);
    RB_CHECK(rb_jobs_select(&o, NULL, jobs, n, err, sizeof err) == 0);
    return 0;
}

static void test_input_sweep_overrides_pair_sweep(void)
{
    static rb_job jobs[RB_MAX_JOBS];
    rb_options o;
    char err[300];
    int n = -1;
    if (hgemm_full_run(jobs, &n) != 0)
        return;
    RB_CHECK(n == 4);
    if (n != 4)
        return;
    RB_CHECK(!strcmp(jobs[0].name, "hgemm.square@64M") && jobs[0].size.n == 1u << 26);
    RB_CHECK(!strcmp(jobs[1].name, "hgemm.square@36M") && jobs[1].size.n == 6144u * 6144u &&
             jobs[1].size.rows == 6144 && jobs[1].size.cols == 6144);
    RB_CHECK(!strcmp(jobs[2].name, "hgemm.square@16M") && jobs[2].size.n == 1u << 24);
    RB_CHECK(!strcmp(jobs[3].name, "hgemm.awkward@16M") && jobs[3].input == 1 &&
             jobs[3].size.n == 1u << 24);
    /* --size picks one size for every input, the awkward shape's too */
    char *sized[] = {"roofbench", "run", "--filter", "hgemm.awkward", "--size", "67108864", NULL};
    RB_CHECK(rb_cli_parse(6, sized, &o, err, sizeof err) == 0);
    RB_CHECK(rb_jobs_select(&o, NULL, jobs, &n, err, sizeof err) == 0);
    RB_CHECK(n == 1 && !strcmp(jobs[0].name, "hgemm.awkward") && jobs[0].size.n == 1u << 26);
}

/* A pair that times only some variants at its sweep's smaller sizes still times at each of
 * those rows an optimized and a library variant (the rows exist for them), names only variants
 * it has, says why, and sustains its rows. */
static void test_swept_variants_declared(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        if (!rb_pair_ext_of(p)->swept_variants)
            continue;
        const rb_pair_ext *e = rb_pair_ext_of(p);
        RB_CHECK(e->timing.sustain_s > 0 && e->sweep && e->swept_why &&
                 strlen(e->swept_why) > 20 && p->n_variants <= 32);
        for (int in = 0; in < (p->n_inputs ? p->n_inputs : 1); in++) {
            const uint64_t *sizes = e->input_sweep[in] ? e->input_sweep[in] : e->sweep;
            for (int s = 0; sizes[s]; s++) {
                if (sizes[s] >= p->full_size)
                    continue;
                unsigned mask = rb_pair_ext_of(p)->swept_variants(in, sizes[s]);
                RB_CHECK(p->n_variants == 32 || mask >> p->n_variants == 0);
                int optimized = 0, library = 0, has_library = 0;
                for (int k = 0; k < p->n_variants; k++) {
                    rb_role role = p->variants[k].role;
                    has_library |= role == RB_ROLE_LIBRARY;
                    optimized |= role == RB_ROLE_OPTIMIZED && (mask & 1u << k);
                    library |= role == RB_ROLE_LIBRARY && (mask & 1u << k);
                }
                RB_CHECK(optimized && (library || !has_library));
            }
        }
    }
}

/* Every row of hgemm's full run is timed sustained; below the full size only its top steps and
 * the library (FP8 at 4096^3 and the awkward shape, not at 6144^3); a size asked for with --size
 * is not a row of the sweep. */
static void test_swept_rows_sustained(void)
{
    static rb_job jobs[RB_MAX_JOBS];
    int n = -1;
    if (hgemm_full_run(jobs, &n) != 0 || n < 1)
        return;
    const rb_pair *p = jobs[0].pair;
    int step = -1, top = -1, fp8 = -1, fp8_lib = -1;
    for (int k = 0; k < p->n_variants; k++) {
        if (!strcmp(p->variants[k].name, "mma_sync"))
            step = k;
        if (!strcmp(p->variants[k].name, "fp8"))
            fp8 = k;
        if (!strcmp(p->variants[k].name, "fp8_library"))
            fp8_lib = k;
        if (p->variants[k].role == RB_ROLE_OPTIMIZED)
            top = k;
    }
    RB_CHECK(n == 4 && step >= 0 && top >= 0 && fp8 >= 0 && fp8_lib >= 0);
    for (int j = 0; j < n && step >= 0 && top >= 0 && fp8 >= 0 && fp8_lib >= 0; j++) {
        uint64_t size = jobs[j].size.n;
        int in = jobs[j].input;
        RB_CHECK(jobs[j].swept && rb_pair_sustains(p, size, jobs[j].swept));
        RB_CHECK(rb_pair_swept_skips(p, step, in, size, 1) == (size < p->full_size));
        RB_CHECK(!rb_pair_swept_skips(p, top, in, size, 1));
        RB_CHECK(rb_pair_swept_skips(p, fp8, in, size, 1) == (size == 6144u * 6144u));
        RB_CHECK(rb_pair_swept_skips(p, fp8_lib, in, size, 1) == (size == 6144u * 6144u));
    }
    /* --size 36M: one size, not a row of the sweep: every variant, not sustained */
    RB_CHECK(!rb_pair_sustains(p, 6144u * 6144u, 0) &&
             !rb_pair_swept_skips(p, step, 0, 6144u * 6144u, 0));
    RB_CHECK(!rb_pair_sustains(p, p->smoke_size, 0) && rb_pair_sustains(p, p->full_size, 0));
}

static void test_inputs_named(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        RB_CHECK(p->n_inputs >= 0 && p->n_inputs <= RB_MAX_INPUTS);
        for (int k = 0; k < p->n_inputs; k++) {
            RB_CHECK(p->inputs[k] && p->inputs[k][0]);
            for (int j = k + 1; j < p->n_inputs; j++)
                RB_CHECK(strcmp(p->inputs[k], p->inputs[j]) != 0);
        }
    }
}

static void test_odd_sizes_resolve(void)
{
    /* Every pair takes the odd sizes the GPU tests use: 1000003 elements and 999 x 1021. */
    rb_size odd = {1000003, 0, 0}, shaped = {999 * 1021, 999, 1021}, got;
    char why[200];
    for (int i = 0; rb_registry[i]; i++) {
        const rb_pair *p = rb_registry[i];
        RB_CHECK(rb_pair_resolve_size(p, &odd, &got, why, sizeof why) == 0);
        RB_CHECK(got.n == got.rows * got.cols && got.n <= odd.n && got.n > 0);
        RB_CHECK(rb_pair_resolve_size(p, &shaped, &got, why, sizeof why) == 0);
        RB_CHECK(got.n == 999 * 1021);
    }
}

/* ---- kernel resource tables (harness/kit/kernel_info.h) ---- */

#define KERNEL_NAME_MAX sizeof(((rb_kernel_result *)NULL)->name) /* as the results hold it */
#define MAX_SOURCE_KERNELS 64
#define MAX_TABLE_ENTRIES 64 /* a table longer than this lacks its terminator */

typedef char kernel_name[KERNEL_NAME_MAX];

static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* src with comments, string and character literals blanked out (malloc'd; NULL when out of
 * memory), so that only code is searched. */
static char *code_only(const char *src)
{
    size_t n = strlen(src);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    memcpy(out, src, n + 1);
    for (size_t i = 0; i < n; i++) {
        size_t end = i;
        if (src[i] == '/' && src[i + 1] == '*') {
            const char *close = strstr(src + i + 2, "*/");
            end = close ? (size_t)(close - src) + 2 : n;
        } else if (src[i] == '/' && src[i + 1] == '/') {
            const char *eol = strchr(src + i, '\n');
            end = eol ? (size_t)(eol - src) : n;
        } else if (src[i] == '"' || src[i] == '\'') {
            for (end = i + 1; end < n && src[end] != src[i] && src[end] != '\n'; end++)
                if (src[end] == '\\' && end + 1 < n)
                    end++;
            end = end < n ? end + 1 : n;
        }
        for (size_t k = i; k < end; k++)
            if (out[k] != '\n')
                out[k] = ' ';
        if (end > i)
            i = end - 1;
    }
    return out;
}

/* The __global__ functions of CUDA source text, in order: after each `__global__` keyword, the
 * first identifier followed by '(' other than __launch_bounds__ (whose arguments are skipped).
 * Returns how many names were stored in names[0 .. max-1]; -1 when out of memory. */
static int source_kernels(const char *src, kernel_name *names, int max)
{
    char *code = code_only(src);
    if (!code)
        return -1;
    int count = 0;
    for (const char *p = strstr(code, "__global__"); p && count < max;
         p = strstr(p, "__global__")) {
        if (p > code && is_ident(p[-1])) {
            p += 10;
            continue;
        }
        p += 10;
        if (is_ident(*p))
            continue; /* a longer identifier */
        while (*p) {
            while (*p && !is_ident(*p))
                p++;
            const char *id = p;
            while (is_ident(*p))
                p++;
            size_t len = (size_t)(p - id);
            const char *q = p;
            while (isspace((unsigned char)*q))
                q++;
            if (len == 17 && strncmp(id, "__launch_bounds__", 17) == 0 && *q == '(') {
                int depth = 0; /* skip its parenthesized arguments */
                for (; *q && !(*q == ')' && depth == 1); q++)
                    depth += (*q == '(') - (*q == ')');
                p = *q ? q + 1 : q;
            } else if (len > 0 && *q == '(') {
                snprintf(names[count++], KERNEL_NAME_MAX, "%.*s", (int)len, id);
                break;
            }
        }
    }
    free(code);
    return count;
}

/* The variant of p that a kernel is named after, <pair>_<variant> or <pair>_<variant>_...
 * (the longest such variant), or NULL. */
static const char *named_variant(const rb_pair *p, const char *kernel)
{
    size_t pn = strlen(p->name);
    const char *best = NULL;
    if (strncmp(kernel, p->name, pn) != 0 || kernel[pn] != '_')
        return NULL;
    const char *rest = kernel + pn + 1;
    for (int k = 0; k < p->n_variants; k++) {
        const char *v = p->variants[k].name;
        size_t vn = strlen(v);
        if (strncmp(rest, v, vn) == 0 && (rest[vn] == '\0' || rest[vn] == '_') &&
            (!best || vn > strlen(best)))
            best = v;
    }
    return best;
}

/* An entry's kernel name without template arguments: "softmax_optimized_kernel<4, 4>" names
 * the kernel softmax_optimized_kernel. 1 when name is that kernel. */
static int names_kernel(const char *name, const char *kernel)
{
    size_t n = strcspn(name, "<");
    return strlen(kernel) == n && strncmp(name, kernel, n) == 0;
}

/* Problems of one pair's table alone: entries without a name or function, a block size out of
 * 1..1024, dynamic shared memory beyond any GPU's 227 KB, a variant the pair does not have, the
 * same function twice for one variant, too many entries for the results. The first is described
 * in why; returns how many. */
static int table_problems(const rb_pair *p, char *why, size_t why_size)
{
    int bad = 0, n = 0;
    for (; p->kernels && n < MAX_TABLE_ENTRIES && p->kernels[n].func; n++) {
        const rb_kernel_info *k = &p->kernels[n];
        const char *problem = NULL;
        int known = 0;
        for (int v = 0; v < p->n_variants; v++)
            known |= k->variant && strcmp(k->variant, p->variants[v].name) == 0;
        if (!k->name || !k->name[0] || strlen(k->name) >= KERNEL_NAME_MAX)
            problem = "no name, or one too long for the results";
        else if (!(k->block_threads >= 1 && k->block_threads <= 1024))
            problem = "block_threads out of 1..1024";
        else if (k->dyn_smem > 227 * 1024)
            problem = "dyn_smem above 227 KB";
        else if (!known)
            problem = "a variant the pair does not have";
        for (int j = 0; !problem && j < n; j++)
            if (p->kernels[j].func == k->func && p->kernels[j].variant &&
                strcmp(p->kernels[j].variant, k->variant) == 0)
                problem = "the same kernel twice for one variant";
        if (problem && bad++ == 0)
            rb_fmt(why, why_size, "%s: kernels[%d] (%s): %s", p->name, n,
                   k->name ? k->name : "NULL", problem);
    }
    if (n >= MAX_TABLE_ENTRIES || n > RB_MAX_KERNELS) {
        if (bad++ == 0)
            rb_fmt(why, why_size, "%s: %d kernels (the results hold %d) or no {0} at the end",
                   p->name, n, RB_MAX_KERNELS);
    }
    return bad;
}

/* Kernels of the pair's source named after one of its variants (<pair>_optimized_kernel,
 * transpose_tiled_kernel, ...) that its table does not list under that variant. The first is
 * described in why; returns how many, -1 when out of memory. */
static int table_misses(const rb_pair *p, const char *src, char *why, size_t why_size)
{
    kernel_name names[MAX_SOURCE_KERNELS];
    int count = source_kernels(src, names, MAX_SOURCE_KERNELS), misses = 0;
    for (int i = 0; i < count; i++) {
        const char *variant = named_variant(p, names[i]);
        int listed = 0;
        for (int k = 0; variant && p->kernels && k < MAX_TABLE_ENTRIES && p->kernels[k].func; k++)
            listed |= p->kernels[k].name && p->kernels[k].variant &&
                      names_kernel(p->kernels[k].name, names[i]) &&
                      strcmp(p->kernels[k].variant, variant) == 0;
        if (variant && !listed && misses++ == 0)
            rb_fmt(why, why_size, "%s: %s is not in its kernels table under \"%s\"", p->name,
                   names[i], variant);
    }
    return count < 0 ? -1 : misses;
}

/* The text of a file (malloc'd), NULL when it cannot be read. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1)) != NULL) {
        size_t got = fread(buf, 1, (size_t)size, f);
        buf[got] = '\0';
    }
    fclose(f);
    return buf;
}

/* kernels/<pair>.cu of the source tree: from the working folder (make test runs in the
 * repository root), else two folders above the binary under test (build/<arch>/roofbench). */
static char *read_pair_source(const char *pair)
{
    char path[1200];
    snprintf(path, sizeof path, "kernels/%s.cu", pair);
    char *text = read_text(path);
    const char *slash = strrchr(rbtest_binary, '/');
    if (!text && slash) {
        snprintf(path, sizeof path, "%.*s/../../kernels/%s.cu", (int)(slash - rbtest_binary),
                 rbtest_binary, pair);
        text = read_text(path);
    }
    if (!text)
        printf("    %s: cannot read kernels/%s.cu (run the tests from the repository root)\n", pair,
               pair);
    return text;
}

/* Stand-ins for the tests of the checks themselves: any distinct non-NULL addresses. */
static const char fake_kernel_a, fake_kernel_b;

static const char fake_source[] =
    "/* demo: a comment that names __global__ void demo_baseline_fake(int) */\n"
    "static __global__ void __launch_bounds__(256, (2048 / 256))\n"
    "    demo_optimized_kernel(const float *x) { (void)\"__global__ demo_tiled(\"; }\n"
    "template <int V> static __global__ void demo_optimized_finish_kernel(float *y);\n"
    "static __global__ void demo_reference_kernel(float *y) {} // __global__ demo_tiled_x(\n"
    "__device__ void demo_baseline_helper(void);\n"
    "static __global__\n"
    "void demo_baseline_kernel(int n);\n";

static void test_source_kernels_parsed(void)
{
    kernel_name names[8];
    int n = source_kernels(fake_source, names, 8);
    RB_CHECK(n == 4);
    RB_CHECK(n >= 4 && strcmp(names[0], "demo_optimized_kernel") == 0);
    RB_CHECK(n >= 4 && strcmp(names[1], "demo_optimized_finish_kernel") == 0);
    RB_CHECK(n >= 4 && strcmp(names[2], "demo_reference_kernel") == 0);
    RB_CHECK(n >= 4 && strcmp(names[3], "demo_baseline_kernel") == 0);
    RB_CHECK(names_kernel("softmax_optimized_kernel<4, 4>", "softmax_optimized_kernel"));
    RB_CHECK(!names_kernel("softmax_optimized_kernel", "softmax_optimized"));
}

/* The acceptance case: a table that misses a kernel named after a variant, or has a bad entry,
 * fails the checks. */
static void test_kernel_table_checks_can_fail(void)
{
    static const rb_kernel_info complete[] = {
        {"baseline", "demo_baseline_kernel", &fake_kernel_a, 256, 0, NULL},
        {"optimized", "demo_optimized_kernel", &fake_kernel_b, 256, 0, NULL},
        {"optimized", "demo_optimized_finish_kernel<1>", &fake_kernel_a, 1024, 0, NULL},
        {0}};
    static const rb_kernel_info no_finish[] = {
        {"baseline", "demo_baseline_kernel", &fake_kernel_a, 256, 0, NULL},
        {"optimized", "demo_optimized_kernel", &fake_kernel_b, 256, 0, NULL},
        {0}};
    static const rb_kernel_info wrong_variant[] = {
        {"baseline", "demo_baseline_kernel", &fake_kernel_a, 256, 0, NULL},
        {"baseline", "demo_optimized_kernel", &fake_kernel_b, 256, 0, NULL},
        {"optimized", "demo_optimized_finish_kernel", &fake_kernel_a, 1024, 0, NULL},
        {0}};
    static const rb_kernel_info bad_block[] = {
        {"optimized", "demo_optimized_kernel", &fake_kernel_b, 2048, 0, NULL}, {0}};
    static const rb_kernel_info bad_variant[] = {
        {"reference", "demo_optimized_kernel", &fake_kernel_b, 256, 0, NULL}, {0}};
    static const rb_kernel_info twice[] = {
        {"optimized", "demo_optimized_kernel", &fake_kernel_b, 256, 0, NULL},
        {"optimized", "demo_optimized_kernel", &fake_kernel_b, 256, 0, NULL},
        {0}};
    rb_pair p = {.name = "demo", .n_variants = 3};
    p.variants[0].name = "baseline";
    p.variants[1].name = "optimized";
    p.variants[2].name = "library";
    char why[300] = "";

    p.kernels = complete;
    RB_CHECK(table_problems(&p, why, sizeof why) == 0);
    RB_CHECK(table_misses(&p, fake_source, why, sizeof why) == 0);
    p.kernels = no_finish;
    RB_CHECK(table_misses(&p, fake_source, why, sizeof why) == 1);
    RB_CHECK(strstr(why, "demo_optimized_finish_kernel") != NULL);
    p.kernels = wrong_variant;
    RB_CHECK(table_misses(&p, fake_source, why, sizeof why) == 1);
    p.kernels = NULL;
    RB_CHECK(table_misses(&p, fake_source, why, sizeof why) == 3);
    p.kernels = bad_block;
    RB_CHECK(table_problems(&p, why, sizeof why) == 1 && strstr(why, "block_threads"));
    p.kernels = bad_variant;
    RB_CHECK(table_problems(&p, why, sizeof why) == 1 && strstr(why, "variant"));
    p.kernels = twice;
    RB_CHECK(table_problems(&p, why, sizeof why) == 1 && strstr(why, "twice"));
    RB_CHECK(named_variant(&p, "demo_optimized_finish_kernel") == p.variants[1].name);
    RB_CHECK(named_variant(&p, "demo_reference_kernel") == NULL);
    RB_CHECK(named_variant(&p, "demos_baseline_kernel") == NULL);
}

static void test_kernel_tables_well_formed(void)
{
    for (int i = 0; rb_registry[i]; i++) {
        char why[300] = "";
        int bad = table_problems(rb_registry[i], why, sizeof why);
        if (bad)
            printf("    %s\n", why);
        RB_CHECK(bad == 0);
    }
    /* One function, one name, across every pair's table. */
    for (int i = 0; rb_registry[i]; i++)
        for (int j = 0; rb_registry[i]->kernels && rb_registry[i]->kernels[j].func; j++)
            for (int a = 0; rb_registry[a]; a++)
                for (int b = 0; rb_registry[a]->kernels && rb_registry[a]->kernels[b].func; b++) {
                    const rb_kernel_info *x = &rb_registry[i]->kernels[j],
                                         *y = &rb_registry[a]->kernels[b];
                    RB_CHECK(x->func != y->func ||
                             (x->name && y->name && !strcmp(x->name, y->name)));
                }
}

/* Every kernel of kernels/<pair>.cu named after a variant is listed under it (so every pair
 * whose optimized variant is a kernel of ours lists it), and every listed kernel is a __global__
 * function of its own pair's source or of another pair's (a kernel two pairs share). */
static void test_kernel_tables_cover_sources(void)
{
    int n = count_pairs();
    char **src = calloc((size_t)n, sizeof *src);
    RB_CHECK(src != NULL);
    if (!src)
        return;
    for (int i = 0; i < n; i++) {
        src[i] = read_pair_source(rb_registry[i]->name);
        RB_CHECK(src[i] != NULL);
    }
    for (int i = 0; i < n; i++) {
        const rb_pair *p = rb_registry[i];
        char why[300] = "";
        int misses = src[i] ? table_misses(p, src[i], why, sizeof why) : 0;
        if (misses)
            printf("    %s\n", misses < 0 ? "out of memory" : why);
        RB_CHECK(misses == 0);
        for (int k = 0; p->kernels && k < MAX_TABLE_ENTRIES && p->kernels[k].func; k++) {
            int found = 0;
            for (int s = -1; s < n && !found; s++) { /* its own source first */
                const char *text = src[s < 0 ? i : s];
                kernel_name names[MAX_SOURCE_KERNELS];
                int count = text ? source_kernels(text, names, MAX_SOURCE_KERNELS) : 0;
                for (int m = 0; m < count && !found; m++)
                    found = p->kernels[k].name && names_kernel(p->kernels[k].name, names[m]);
            }
            if (!found)
                printf("    %s: kernels[%d] names %s, no __global__ function of kernels/*.cu\n",
                       p->name, k, p->kernels[k].name ? p->kernels[k].name : "NULL");
            RB_CHECK(found);
        }
    }
    for (int i = 0; i < n; i++)
        free(src[i]);
    free(src);
}

/* The probes a run's platform reference takes follow the roofs of the rows it selects: the
 * pinned and pageable copies and the overlapped streams are link-bound (PCIe), reduction,
 * histogram and fused_elementwise read-bound (DRAM read); a copy, a GEMM or a launch-bound row
 * needs none beyond the quick three. The roof-to-probe map itself, and a roof with no probe. */
static unsigned probes_of(const char *filter)
{
    static rb_job jobs[RB_MAX_JOBS];
    rb_options o;
    char err[300];
    char *argv[] = {"roofbench", "run", "--filter", (char *)filter, NULL};
    int n = 0;
    if (rb_cli_parse(4, argv, &o, err, sizeof err) != 0 ||
        rb_jobs_select(&o, NULL, jobs, &n, err, sizeof err) != 0) {
        printf("    %s: %s\n", filter, err);
        return ~0u;
    }
    return rb_jobs_platform_probes(jobs, n);
}

static void test_platform_probes_follow_roofs(void)
{
    RB_CHECK(rb_platform_probe_of("pcie_h2d_gbps") == RB_PROBE_PCIE);
    RB_CHECK(rb_platform_probe_of("pcie_duplex_gbps") == RB_PROBE_PCIE);
    RB_CHECK(rb_platform_probe_of("l2_read_gbps") == RB_PROBE_L2);
    RB_CHECK(rb_platform_probe_of("dram_read_gbps") == RB_PROBE_DRAM_READ);
    RB_CHECK(rb_platform_probe_of("dram_write_gbps") == RB_PROBE_DRAM_WRITE);
    static const char *const none[] = {"dram_gbps",   "fp32_tflops", "launch_us",     "smem_gbps",
                                       "bf16_tflops", "nvlink_gbps", "graph_node_us", "x"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        RB_CHECK(rb_platform_probe_of(none[i]) == 0);
    RB_CHECK(rb_platform_probe_of(NULL) == 0);
    char text[80];
    rb_platform_probes_text(RB_PROBE_DRAM_READ | RB_PROBE_PCIE, text, sizeof text);
    RB_CHECK(!strcmp(text, "DRAM read, PCIe"));
    RB_CHECK(probes_of("^host_transfer$") == RB_PROBE_PCIE);
    RB_CHECK(probes_of("^streams_overlap$") == RB_PROBE_PCIE);
    RB_CHECK(probes_of("^(reduction|histogram|fused_elementwise)$") == RB_PROBE_DRAM_READ);
    RB_CHECK(probes_of("^(copy_vectorized|transpose|sgemm|cuda_graphs)$") == 0);
    RB_CHECK(probes_of("^(copy_vectorized|host_transfer|reduction)$") ==
             (RB_PROBE_PCIE | RB_PROBE_DRAM_READ));
}

/* check --skip-variants: the variants whose <row>/<variant> or <pair>/<variant> matches, as a
 * mask the child reads (a row's own input only where the regex names the row). */
static void test_skip_variants_mask(void)
{
    static rb_job jobs[RB_MAX_JOBS];
    rb_options o;
    char err[300];
    int n = 0;
    char *argv[] = {"roofbench",   "check",           "--filter",
                    "^attention$", "--skip-variants", "^attention[.]d64/optimized$|/flash_mma$",
                    NULL};
    RB_CHECK(rb_cli_parse(6, argv, &o, err, sizeof err) == 0);
    RB_CHECK(rb_jobs_select(&o, NULL, jobs, &n, err, sizeof err) == 0 && n == 4);
    for (int i = 0; i < n && n == 4; i++) {
        const rb_pair *p = jobs[i].pair;
        unsigned want = 0;
        for (int k = 0; k < p->n_variants; k++)
            if (!strcmp(p->variants[k].name, "flash_mma") ||
                (!strcmp(jobs[i].name, "attention.d64") &&
                 !strcmp(p->variants[k].name, "optimized")))
                want |= 1u << k;
        RB_CHECK(rb_results_skip_mask(&jobs[i], &o) == want);
    }
    o.skip_variants = NULL;
    o.skip_re = NULL;
    RB_CHECK(n > 0 && rb_results_skip_mask(&jobs[0], &o) == 0);
    char *bad[] = {"roofbench", "check", "--skip-variants", "(", NULL};
    RB_CHECK(rb_cli_parse(4, bad, &o, err, sizeof err) != 0 && strstr(err, "--skip-variants"));
    char *not_run[] = {"roofbench", "run", "--skip-variants", "x", NULL};
    RB_CHECK(rb_cli_parse(4, not_run, &o, err, sizeof err) != 0);
}

static const rbtest_case registry_cases[] = {
    {"variant_roofs_declared", test_variant_roofs_declared},
    {"platform_probes_follow_roofs", test_platform_probes_follow_roofs},
    {"skip_variants_mask", test_skip_variants_mask},
    {"informational_rows", test_informational_rows},
    {"every_pair_plants_a_defect", test_every_pair_plants_a_defect},
    {"inputs_named", test_inputs_named},
    {"swept_variants_declared", test_swept_variants_declared},
    {"swept_rows_sustained", test_swept_rows_sustained},
    {"input_sweep_overrides_pair_sweep", test_input_sweep_overrides_pair_sweep},
    {"odd_sizes_resolve", test_odd_sizes_resolve},
    {"registry_not_empty_and_names_unique", test_registry_not_empty_and_names_unique},
    {"names_are_identifiers", test_names_are_identifiers},
    {"no_null_callbacks", test_no_null_callbacks},
    {"variants_well_formed", test_variants_well_formed},
    {"work_model_positive_and_growing", test_work_model_positive_and_growing},
    {"memory_bound_sizes_exceed_l2", test_memory_bound_sizes_exceed_l2},
    {"cpu_references_pass_hand_computed_cases", test_cpu_references_pass_hand_computed_cases},
    {"source_kernels_parsed", test_source_kernels_parsed},
    {"kernel_table_checks_can_fail", test_kernel_table_checks_can_fail},
    {"kernel_tables_well_formed", test_kernel_tables_well_formed},
    {"kernel_tables_cover_sources", test_kernel_tables_cover_sources},
};

RB_SUITE(registry_suite, "registry", registry_cases);
