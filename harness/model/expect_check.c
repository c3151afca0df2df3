/* SPDX-License-Identifier: MIT */
#include "expect_check.h"

#include <stdlib.h>
#include <string.h>

#include "expect_stale.h"
#include "util.h"

void rb_expect_row_build(const json_value *doc, const rb_expect_row *r, char *nvcc,
                         size_t nvcc_size, char *arch, size_t arch_size)
{
    rb_fmt(nvcc, nvcc_size, "%s", r->nvcc ? r->nvcc : r->cuda ? r->cuda : "");
    if (r->arch) {
        rb_fmt(arch, arch_size, "%s", r->arch);
        return;
    }
    /* hardware.sm "9.0" -> "sm_90" */
    const char *sm = rb_expect_sm(doc);
    char digits[16] = "";
    size_t k = 0;
    for (size_t i = 0; sm[i] && k + 1 < sizeof digits; i++)
        if (sm[i] != '.')
            digits[k++] = sm[i];
    digits[k] = '\0';
    rb_fmt(arch, arch_size, k ? "sm_%s" : "%s", digits);
}

static const rb_build_row *build_row(const rb_build *b, const char *name)
{
    for (int i = 0; i < b->n_rows; i++)
        if (!strcmp(b->rows[i].name, name))
            return &b->rows[i];
    return NULL;
}

static int has_variant(const rb_build_row *r, const char *v)
{
    for (int k = 0; k < r->n_variants; k++)
        if (!strcmp(r->variants[k], v))
            return 1;
    return 0;
}

static const rb_build_kernel *build_kernel(const rb_build_row *r, const char *variant,
                                           const char *name)
{
    for (int k = 0; k < r->n_kernels; k++)
        if (!strcmp(r->kernels[k].variant, variant) && !strcmp(r->kernels[k].name, name))
            return &r->kernels[k];
    return NULL;
}

/* What one row's check found: its differences, as lines, and how many; and what it could not
 * compare, as lists of names (a note each). */
typedef struct row_findings {
    rb_sbuf diffs;
    int n_diffs;
    char unheld[400];          /* variants the build times, not held by an older row */
    char unrecorded[600];      /* kernels of the build an older row keeps no record of */
    char unfingerprinted[600]; /* kernels recorded without a sass_hash */
} row_findings;

static void list_add(char *list, size_t size, const char *name, const char *variant)
{
    size_t len = strlen(list);
    if (variant)
        rb_fmt(list + len, size - len, "%s%s (%s)", len ? ", " : "", name, variant);
    else
        rb_fmt(list + len, size - len, "%s%s", len ? ", " : "", name);
}

static void kernel_record_diff(const rb_expect_row_kernel *k, const rb_build_kernel *bk,
                               const char *git, row_findings *f)
{
    const char *name = k->name ? k->name : "?", *v = k->variant ? k->variant : "?";
    const char *hash = k->sass_hash;
    double threads = k->block_threads, smem = k->dyn_smem;
    if (hash && bk->sass_hash[0] && strcmp(hash, bk->sass_hash)) {
        rb_sbuf_add(&f->diffs, "kernel %s (%s): sass_hash %s recorded at %s, %s in this build\n",
                    name, v, hash, git, bk->sass_hash);
        f->n_diffs++;
    } else if (!hash) {
        list_add(f->unfingerprinted, sizeof f->unfingerprinted, name, v);
    }
    if (threads >= 0 && threads != bk->block_threads) {
        rb_sbuf_add(&f->diffs, "kernel %s (%s): block_threads %.0f recorded, %d in this build\n",
                    name, v, threads, bk->block_threads);
        f->n_diffs++;
    }
    if (smem >= 0 && smem != bk->dyn_smem) {
        rb_sbuf_add(&f->diffs, "kernel %s (%s): dyn_smem_bytes %.0f recorded, %.0f in this build\n",
                    name, v, smem, bk->dyn_smem);
        f->n_diffs++;
    }
}

/* The row's kernel records against the build's: each recorded one must be there and the same;
 * each of the build's must be recorded, where the row keeps kernel records at all (or was
 * recorded when every row kept them: one with its skipped variants said). */
static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static void kernels_diff(const rb_expect_row *r, const rb_build_row *br, int said_skips,
                         row_findings *f)
{
    const char *git = r->git ? r->git : "?";
    int n = r->n_kernels;
    for (int i = 0; i < n; i++) {
        const rb_expect_row_kernel *k = &r->kernels[i];
        const char *v = or_empty(k->variant), *name = or_empty(k->name);
        const rb_build_kernel *bk = build_kernel(br, v, name);
        if (bk) {
            kernel_record_diff(k, bk, git, f);
            continue;
        }
        rb_sbuf_add(&f->diffs, "kernel %s (%s): recorded at %s, not in this build's kernel table\n",
                    name, v, git);
        f->n_diffs++;
    }
    for (int j = 0; j < br->n_kernels; j++) {
        const rb_build_kernel *bk = &br->kernels[j];
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = !strcmp(or_empty(r->kernels[i].variant), bk->variant) &&
                    !strcmp(or_empty(r->kernels[i].name), bk->name);
        /* (the kernel of a variant the row does not hold: said with that variant) */
        if (found || (!rb_expect_row_holds(r, bk->variant) && !n && !said_skips))
            continue;
        if (n || said_skips) {
            rb_sbuf_add(&f->diffs, "kernel %s (%s): in this build's kernel table, not recorded\n",
                        bk->name, bk->variant);
            f->n_diffs++;
        } else {
            list_add(f->unrecorded, sizeof f->unrecorded, bk->name, bk->variant);
        }
    }
}

/* The row's variants against those the build times at that row. */
static void variants_diff(const rb_expect_row *r, const rb_build_row *br, int said_skips,
                          row_findings *f)
{
    for (int i = 0; i < r->n_variants; i++)
        if (!has_variant(br, r->variants[i])) {
            rb_sbuf_add(&f->diffs,
                        "variant %s: recorded, but this build does not time it at this row "
                        "(removed, renamed, or skipped at this size)\n",
                        r->variants[i]);
            f->n_diffs++;
        }
    for (int k = 0; k < br->n_variants; k++) {
        const char *v = br->variants[k];
        if (rb_expect_row_holds(r, v) || rb_expect_row_skips(r, v))
            continue;
        if (said_skips) {
            rb_sbuf_add(&f->diffs, "variant %s: this build times it, the row does not hold it\n",
                        v);
            f->n_diffs++;
        } else {
            list_add(f->unheld, sizeof f->unheld, v, NULL);
        }
    }
}

/* Each line of text, prefixed. */
static void put_lines(FILE *out, const char *prefix, const char *text)
{
    for (const char *s = text; s && *s;) {
        size_t len = strcspn(s, "\n");
        fprintf(out, "%s%.*s\n", prefix, (int)len, s);
        s += len + (s[len] == '\n');
    }
}

/* What the row's check could not compare, a line each. */
static void report_notes(FILE *out, const char *path, const char *row, const row_findings *f)
{
    if (f->unheld[0])
        fprintf(out,
                "note %s: %s: timed by this build, not held by the row, which predates the "
                "record of skipped variants (skipped where it was recorded, or added since: a "
                "run judges them new): %s\n",
                path, row, f->unheld);
    if (f->unrecorded[0])
        fprintf(out,
                "note %s: %s: the row keeps no kernel records (recorded before they were kept): "
                "not compared: %s\n",
                path, row, f->unrecorded);
    if (f->unfingerprinted[0])
        fprintf(out, "note %s: %s: recorded without fingerprints: code not compared: %s\n", path,
                row, f->unfingerprinted);
}

static void report_row(FILE *out, const char *path, const rb_expect_row *r, row_findings *f,
                       rb_check_counts *c)
{
    const char *row = r->name;
    char prefix[400];
    char *diffs = rb_sbuf_take(&f->diffs);
    if (r->stale) {
        c->stale++;
        rb_fmt(prefix, sizeof prefix, "stale %s: %s: ", path, row);
        fprintf(out, "%smarked at %s (%s): %s%s\n", prefix, r->stale_git ? r->stale_git : "?",
                r->stale_date ? r->stale_date : "?", or_empty(r->stale_why),
                f->n_diffs ? ""
                           : "; it matches this build now (record it again to clear the mark)");
    } else if (f->n_diffs) {
        c->differ++;
        rb_fmt(prefix, sizeof prefix, "FAIL %s: %s: ", path, row);
    } else {
        c->matched++;
    }
    put_lines(out, prefix, diffs);
    report_notes(out, path, row, f);
    free(diffs);
}

/* Why the build left out the pair of row (rb_build.missing), or NULL. */
static const char *pair_left_out(const rb_build *b, const char *row)
{
    char pair[RB_NAME_MAX];
    rb_expect_row_pair(row, pair, sizeof pair);
    size_t len = strlen(pair);
    for (int i = 0; b->missing && b->missing[i]; i++)
        if (!strncmp(b->missing[i], pair, len) && b->missing[i][len] == ':')
            return b->missing[i] + len + 1 + (b->missing[i][len + 1] == ' ');
    return NULL;
}

/* One row of the file: compared, or said why not. */
static void check_row(const json_value *doc, const char *path, const rb_expect_row *r,
                      const rb_build *b, FILE *out, rb_check_counts *c)
{
    const char *row = r->name;
    char nvcc[64], arch[64];
    rb_expect_row_build(doc, r, nvcc, sizeof nvcc, arch, sizeof arch);
    if (strcmp(nvcc, b->nvcc) || strcmp(arch, b->arch)) {
        c->other++;
        fprintf(out,
                "skip %s: %s: recorded with nvcc %s for %s, this build is nvcc %s for %s: "
                "another toolkit or architecture compiles every kernel anew (not compared)\n",
                path, row, nvcc[0] ? nvcc : "?", arch[0] ? arch : "?", b->nvcc, b->arch);
        return;
    }
    const char *left_out = pair_left_out(b, row);
    if (left_out) {
        c->other++;
        fprintf(out, "skip %s: %s: not compared: this build left the pair out (%s)\n", path, row,
                left_out);
        return;
    }
    row_findings f;
    memset(&f, 0, sizeof f);
    const rb_build_row *br = build_row(b, row);
    if (!br) {
        rb_sbuf_add(&f.diffs, "not a row of this build's full run (a pair, input or size "
                              "renamed or removed)\n");
        f.n_diffs++;
    } else {
        variants_diff(r, br, r->has_nvcc, &f);
        kernels_diff(r, br, r->has_nvcc, &f);
    }
    report_row(out, path, r, &f, c);
}

int rb_expect_check_doc(const json_value *doc, const char *path, const rb_build *b, FILE *out,
                        rb_check_counts *c)
{
    rb_expect_row r;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < rb_expect_n_rows(doc); i++) {
        c->rows++;
        if (rb_expect_row_read(doc, i, &r) != 0) {
            fprintf(out, "%s: out of memory\n", path);
            c->differ++;
            continue;
        }
        check_row(doc, path, &r, b, out, c);
        rb_expect_row_free(&r);
    }
    for (int i = 0; i < b->n_rows; i++) {
        c->build_only += rb_expect_row_find(doc, b->rows[i].name, &r) == 0;
        rb_expect_row_free(&r);
    }
    fprintf(out,
            "%s: %d row(s): %d match this build, %d differ unmarked, %d marked stale, %d not "
            "compared (another toolkit or architecture, or a pair not built); %d row(s) of this "
            "build's full run not in the file (a run judges them new)\n",
            path, c->rows, c->matched, c->differ, c->stale, c->other, c->build_only);
    return c->differ;
}
