/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void rb_fmt(char *buf, size_t size, const char *fmt, ...)
{
    if (!buf || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

int rb_fmt_fits(char *buf, size_t size, const char *fmt, ...)
{
    if (!buf || size == 0)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size) {
        buf[0] = '\0';
        return -1;
    }
    return 0;
}

void rb_hardware_key(const char *device_name, char *out, size_t out_size)
{
    size_t n = 0;
    int pending_dash = 0;
    if (out_size == 0)
        return;
    for (const char *p = device_name ? device_name : ""; *p && n + 1 < out_size; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c)) {
            if (pending_dash && n > 0) {
                if (n + 2 >= out_size)
                    break; /* no room for "-x": stop at a word boundary */
                out[n++] = '-';
            }
            pending_dash = 0;
            out[n++] = (char)tolower(c);
        } else {
            pending_dash = 1;
        }
    }
    out[n] = '\0';
    if (n == 0)
        rb_fmt(out, out_size, "%s", "unknown-gpu");
}

void rb_machine_key(const char *device_name, int gpus, char *out, size_t out_size)
{
    char key[256];
    rb_hardware_key(device_name, key, sizeof key);
    if (gpus > 1)
        rb_fmt(out, out_size, "%s-x%d", key, gpus);
    else
        rb_fmt(out, out_size, "%s", key);
}

void rb_hardware_key_single(const char *key, char *out, size_t out_size)
{
    rb_fmt(out, out_size, "%s", key);
    char *x = strrchr(out, '-');
    if (!x || x[1] != 'x' || !x[2])
        return;
    for (const char *d = x + 2; *d; d++)
        if (!isdigit((unsigned char)*d))
            return;
    *x = '\0';
}

int rb_is_hardware_key(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0 || n > 128 || key[0] == '-' || key[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (!(islower(c) || isdigit(c) || (c == '-' && key[i + 1] != '-')))
            return 0;
    }
    return 1;
}

void rb_format_count(uint64_t n, char *out, size_t out_size)
{
    static const char suffix[] = "KMGT";
    int k = -1;
    while (k < 3 && n >= 1024 && n % 1024 == 0) {
        n /= 1024;
        k++;
    }
    if (k < 0)
        rb_fmt(out, out_size, "%llu", (unsigned long long)n);
    else
        rb_fmt(out, out_size, "%llu%c", (unsigned long long)n, suffix[k]);
}

int rb_parse_count(const char *s, uint64_t *out, char *err, size_t err_size)
{
    uint64_t v = 0;
    const char *p = s;
    if (!s || !isdigit((unsigned char)*s)) {
        rb_fmt(err, err_size, "'%s' is not a count (digits with an optional K, M, G or T)",
               s ? s : "");
        return -1;
    }
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            rb_fmt(err, err_size, "'%s' is too large", s);
            return -1;
        }
        v = v * 10 + d;
    }
    unsigned shift = 0;
    switch (*p) {
    case '\0': break;
    case 'K':
        shift = 10;
        p++;
        break;
    case 'M':
        shift = 20;
        p++;
        break;
    case 'G':
        shift = 30;
        p++;
        break;
    case 'T':
        shift = 40;
        p++;
        break;
    default: break;
    }
    if (*p != '\0') {
        rb_fmt(err, err_size, "'%s' is not a count (digits with an optional K, M, G or T)", s);
        return -1;
    }
    if (shift && v > (UINT64_MAX >> shift)) {
        rb_fmt(err, err_size, "'%s' is too large", s);
        return -1;
    }
    v <<= shift;
    if (v == 0) {
        rb_fmt(err, err_size, "'%s' must be at least 1", s);
        return -1;
    }
    *out = v;
    return 0;
}

int rb_parse_size(const char *s, rb_size *out, char *err, size_t err_size)
{
    const char *x = s ? strchr(s, 'x') : NULL;
    out->rows = out->cols = 0;
    if (!x)
        return rb_parse_count(s, &out->n, err, err_size);
    char left[64];
    size_t len = (size_t)(x - s);
    if (len == 0 || len >= sizeof left) {
        rb_fmt(err, err_size, "'%s' is not RxC (two counts)", s);
        return -1;
    }
    memcpy(left, s, len);
    left[len] = '\0';
    if (rb_parse_count(left, &out->rows, err, err_size) != 0 ||
        rb_parse_count(x + 1, &out->cols, err, err_size) != 0)
        return -1;
    if (out->rows > UINT64_MAX / out->cols) {
        rb_fmt(err, err_size, "'%s' is too large", s);
        return -1;
    }
    out->n = out->rows * out->cols;
    return 0;
}

int rb_parse_seconds(const char *s, double *out, char *err, size_t err_size)
{
    char *end = NULL;
    /* Decimal only: strtod would also take hex ("0x10"), "inf" and "nan". */
    if (!s || !(isdigit((unsigned char)*s) || *s == '.') ||
        strspn(s, "0123456789.eE+-") != strlen(s)) {
        rb_fmt(err, err_size, "'%s' is not a number of seconds", s ? s : "");
        return -1;
    }
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !(v > 0) || !isfinite(v)) {
        rb_fmt(err, err_size, "'%s' is not a positive number of seconds", s);
        return -1;
    }
    *out = v;
    return 0;
}

int rb_mkdirs(const char *path, char *err, size_t err_size)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        rb_fmt(err, err_size, "%s: bad folder name", path);
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            rb_fmt(err, err_size, "%s: %s", buf, strerror(errno));
            return -1;
        }
        buf[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rb_fmt(err, err_size, "%s: not a folder", path);
        return -1;
    }
    return 0;
}

int rb_dir_writable(const char *dir, char *err, size_t err_size)
{
    /* A folder that does not exist yet is writable when its nearest existing ancestor is:
     * the check creates nothing that outlives it. */
    char at[4096], probe[4200];
    struct stat st;
    rb_fmt(at, sizeof at, "%s", dir[0] ? dir : ".");
    while (stat(at, &st) != 0) {
        char *slash = strrchr(at, '/');
        if (!slash) {
            rb_fmt(at, sizeof at, ".");
            break;
        }
        if (slash == at)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    if (stat(at, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rb_fmt(err, err_size, "%s: cannot write there: %s is not a folder", dir, at);
        return -1;
    }
    rb_fmt(probe, sizeof probe, "%s/.rb-write-probe.%ld", at, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        rb_fmt(err, err_size, "%s: cannot write there: %s", dir, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(probe);
    return 0;
}

int rb_output_file_ok(const char *path, int make_dirs, char *err, size_t err_size)
{
    char dir[RB_PATH_BUF];
    struct stat st;
    if (strlen(path) > RB_PATH_MAX) {
        rb_fmt(err, err_size, "%.60s...: the path is %zu bytes long; at most %d", path,
               strlen(path), RB_PATH_MAX);
        return -1;
    }
    if (path[0] == '\0' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) ||
        path[strlen(path) - 1] == '/') {
        rb_fmt(err, err_size, "%s: is a folder, not a file name", path);
        return -1;
    }
    rb_fmt(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        rb_fmt(dir, sizeof dir, ".");
    else
        slash[slash == dir ? 1 : 0] = '\0'; /* "/x.json": the folder is "/" */
    if (!make_dirs && stat(dir, &st) != 0) {
        rb_fmt(err, err_size, "%s: cannot write there: the folder %s does not exist", path, dir);
        return -1;
    }
    if (!make_dirs && !S_ISDIR(st.st_mode)) {
        rb_fmt(err, err_size, "%s: cannot write there: %s is not a folder", path, dir);
        return -1;
    }
    return rb_dir_writable(dir, err, err_size);
}

int rb_write_file_new(const char *path, const char *text, char *err, size_t err_size)
{
    char tmp[RB_PATH_BUF + 64];
    if (rb_fmt_fits(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) != 0) {
        rb_fmt(err, err_size, "%.60s...: path too long", path);
        return -1;
    }
    if (rb_write_file_atomic(tmp, text, err, err_size) != 0)
        return -1;
    int rc = link(tmp, path) == 0 ? 0 : errno == EEXIST ? 1 : -1;
    int saved = errno;
    unlink(tmp);
    if (rc < 0)
        rb_fmt(err, err_size, "%s: %s", path, strerror(saved));
    return rc;
}

int rb_write_results_new(const char *base, const char *json_text, const char *md_text,
                         char *json_path, size_t path_size, char *err, size_t err_size)
{
    char md_path[RB_PATH_BUF + 16];
    struct stat st;
    for (int k = 1; k <= 1000; k++) {
        char suffix[16] = "";
        if (k > 1)
            rb_fmt(suffix, sizeof suffix, "-%d", k);
        if (rb_fmt_fits(json_path, path_size, "%s%s.json", base, suffix) != 0 ||
            rb_fmt_fits(md_path, sizeof md_path, "%s%s.md", base, suffix) != 0) {
            rb_fmt(err, err_size, "%.60s...: path too long", base);
            return -1;
        }
        if (stat(md_path, &st) == 0)
            continue;
        int rc = rb_write_file_new(json_path, json_text, err, err_size);
        if (rc == 1)
            continue;
        if (rc < 0)
            return -1;
        rc = rb_write_file_new(md_path, md_text, err, err_size);
        if (rc == 1)
            rb_fmt(err, err_size, "%s: appeared while writing; not replaced", md_path);
        return rc == 0 ? 0 : -1;
    }
    rb_fmt(err, err_size, "%s.json: 1000 results files of that name exist", base);
    return -1;
}

int rb_write_file_atomic(const char *path, const char *text, char *err, size_t err_size)
{
    char tmp[4200];
    rb_fmt(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        rb_fmt(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t len = strlen(text);
    int ok = fwrite(text, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok || rename(tmp, path) != 0) {
        if (ok)
            saved = errno;
        unlink(tmp);
        rb_fmt(err, err_size, "%s: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

void rb_utc_stamp(char *out, size_t out_size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, out_size, "%Y%m%dT%H%M%SZ", &tm);
}

void rb_utc_iso(char *out, size_t out_size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, out_size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double rb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void rb_sbuf_add(rb_sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->len + (size_t)k)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

char *rb_sbuf_take(rb_sbuf *b)
{
    char *s = b->oom ? NULL : b->s;
    if (b->oom)
        free(b->s);
    else if (!s)
        s = calloc(1, 1);
    memset(b, 0, sizeof *b);
    return s;
}

void rb_sbuf_free(rb_sbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

void rb_csv_field(rb_sbuf *b, const char *s, int last)
{
    if (strpbrk(s, ",\"\r\n")) {
        rb_sbuf_add(b, "\"");
        for (const char *c = s; *c; c++) {
            if (*c == '"')
                rb_sbuf_add(b, "\"");
            rb_sbuf_add(b, "%c", *c);
        }
        rb_sbuf_add(b, "\"");
    } else {
        rb_sbuf_add(b, "%s", s);
    }
    rb_sbuf_add(b, last ? "\r\n" : ",");
}

void rb_csv_number(rb_sbuf *b, double x, double scale)
{
    char cell[40] = "";
    if (isfinite(x))
        rb_fmt(cell, sizeof cell, "%.10g", x * scale);
    rb_csv_field(b, cell, 0);
}

void rb_md_text(rb_sbuf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20 || ch == 0x7f)
            rb_sbuf_add(b, " ");
        else if (ch == '<')
            rb_sbuf_add(b, "&lt;");
        else if (ch == '>')
            rb_sbuf_add(b, "&gt;");
        else if (ch == '&')
            rb_sbuf_add(b, "&amp;");
        else if (strchr("|\\`*[]", ch))
            rb_sbuf_add(b, "\\%c", ch);
        else
            rb_sbuf_add(b, "%c", ch);
    }
}

char *rb_command_output(const char *cmd, int *status)
{
    *status = -1;
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 == cap) {
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
    *status = pclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}
