/* SPDX-License-Identifier: MIT */
/*
 * Tier 1, no browser: the pictures in docs/img show the runs they say. tests/browser_test.sh
 * --shots (make docs, where headless Chromium is installed) writes each picture with a PNG tEXt
 * chunk "roofbench-run" = "<results file> git <its revision>"; a picture without one, of a run
 * that is gone, or of a revision the run's file no longer has (the reference was recorded again
 * and the picture not remade) fails, naming the picture and both revisions. Every picture that
 * docs/charts.md shows exists and is stamped.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/model/json.h"
#include "../harness/model/util.h"
#include "rbtest.h"

#define IMG_DIR "docs/img"

static unsigned long be32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

/* The "roofbench-run" text of a PNG's bytes into out: 0, or -1 (not a PNG, or no stamp). */
static int png_stamp(const unsigned char *data, size_t n, char *out, size_t out_size)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const char key[] = "roofbench-run";
    if (n < 8 || memcmp(data, sig, 8))
        return -1;
    for (size_t pos = 8; pos + 12 <= n;) {
        unsigned long len = be32(data + pos);
        if (len > n - pos - 12)
            return -1;
        const unsigned char *body = data + pos + 8;
        if (!memcmp(data + pos + 4, "tEXt", 4) && len > sizeof key &&
            !memcmp(body, key, sizeof key)) {
            size_t text = len - sizeof key;
            rb_fmt(out, out_size, "%.*s", (int)text, (const char *)body + sizeof key);
            return 0;
        }
        if (!memcmp(data + pos + 4, "IEND", 4))
            return -1;
        pos += 12 + len;
    }
    return -1;
}

/* NULL when the stamp names a results file whose revision is the stamp's; else why not. */
static const char *stamp_problem(const char *stamp, char *why, size_t why_size)
{
    char path[512];
    const char *sep = strstr(stamp, " git ");
    if (!sep || (size_t)(sep - stamp) >= sizeof path) {
        rb_fmt(why, why_size, "stamp '%s' is not '<results file> git <revision>'", stamp);
        return why;
    }
    rb_fmt(path, sizeof path, "%.*s", (int)(sep - stamp), stamp);
    char err[300];
    json_value *doc = json_parse_file(path, err, sizeof err);
    if (!doc) {
        rb_fmt(why, why_size, "its run %s cannot be read: %s", path, err);
        return why;
    }
    const char *git = json_string_at(doc, "git", "?");
    const char *problem = NULL;
    if (strcmp(git, sep + 5)) {
        rb_fmt(why, why_size, "shows %s at git %s, which is now git %s (make docs)", path,
               sep + 5, git);
        problem = why;
    }
    json_free(doc);
    return problem;
}

/* The problem of one picture file, or NULL. */
static const char *image_problem(const char *path, char *why, size_t why_size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    size_t n = 0;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)size)))
        n = fread(data, 1, (size_t)size, f);
    if (f)
        fclose(f);
    char stamp[600];
    const char *problem = NULL;
    if (!data || n != (size_t)size) {
        rb_fmt(why, why_size, "cannot be read");
        problem = why;
    } else if (png_stamp(data, n, stamp, sizeof stamp) != 0) {
        rb_fmt(why, why_size, "has no roofbench-run stamp (remake it: make docs)");
        problem = why;
    } else {
        problem = stamp_problem(stamp, why, why_size);
    }
    free(data);
    return problem;
}

/* A PNG of one chunk of text, with the stamp given (NULL: none). */
static size_t planted_png(unsigned char *out, const char *stamp)
{
    static const unsigned char head[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                         0,    0,   0,   13,  'I',  'H',  'D',  'R',
                                         0,    0,   0,   1,   0,    0,    0,    1,
                                         8,    2,   0,   0,   0,    0,    0,    0,
                                         0};
    size_t n = sizeof head;
    memcpy(out, head, n);
    if (stamp) {
        size_t len = strlen("roofbench-run") + 1 + strlen(stamp);
        unsigned char l[4] = {0, 0, (unsigned char)(len >> 8), (unsigned char)len};
        memcpy(out + n, l, 4);
        memcpy(out + n + 4, "tEXt", 4);
        memcpy(out + n + 8, "roofbench-run", 14);
        memcpy(out + n + 22, stamp, strlen(stamp));
        n += 8 + len + 4; /* the CRC's bytes: not read */
    }
    memcpy(out + n, "\0\0\0\0IEND\0\0\0\0", 12);
    return n + 12;
}

static void test_stamp_reader_and_planted_defects(void)
{
    unsigned char png[700];
    char text[600], why[700];
    size_t n = planted_png(png, NULL);
    RB_CHECK(png_stamp(png, n, text, sizeof text) == -1);
    n = planted_png(png, "results/nvidia-h100-80gb-hbm3/reference.json git 0000000");
    RB_CHECK(png_stamp(png, n, text, sizeof text) == 0);
    /* a picture of an older recording of the run: refused, naming both revisions */
    const char *p = stamp_problem(text, why, sizeof why);
    RB_CHECK(p && strstr(p, "git 0000000, which is now git"));
    if (p)
        printf("    planted: %s\n", p);
    RB_CHECK(stamp_problem("results/nvidia-h100-80gb-hbm3/gone.json git 1234567", why,
                           sizeof why) != NULL);
    RB_CHECK(stamp_problem("no revision", why, sizeof why) != NULL);
}

static void test_docs_img_is_of_the_current_runs(void)
{
    DIR *dir = opendir(IMG_DIR);
    RB_CHECK(dir != NULL);
    int pictures = 0;
    for (struct dirent *e; dir && (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".png"))
            continue;
        char path[600], why[700];
        rb_fmt(path, sizeof path, "%s/%s", IMG_DIR, e->d_name);
        const char *p = image_problem(path, why, sizeof why);
        if (p)
            printf("    %s: %s\n", path, p);
        RB_CHECK(p == NULL);
        pictures++;
    }
    if (dir)
        closedir(dir);
    RB_CHECK(pictures >= 4);
    /* each picture docs/charts.md shows is there */
    char *md = rbtest_read_file("docs/charts.md");
    RB_CHECK(md != NULL);
    for (const char *m = md ? strstr(md, "](img/") : NULL; m; m = strstr(m + 1, "](img/")) {
        char path[300];
        rb_fmt(path, sizeof path, "docs/%.*s", (int)strcspn(m + 2, ")"), m + 2);
        FILE *f = fopen(path, "rb");
        if (!f)
            printf("    docs/charts.md shows %s, which is not there\n", path);
        RB_CHECK(f != NULL);
        if (f)
            fclose(f);
    }
    free(md);
}

static const rbtest_case doc_images_cases[] = {
    {"the stamp is read, and a stale or missing one refused", test_stamp_reader_and_planted_defects},
    {"docs/img shows the reference runs as they are", test_docs_img_is_of_the_current_runs},
};

RB_SUITE(doc_images_suite, "doc_images", doc_images_cases);
