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

size_t rb_utf8_seq(const char *text, size_t avail)
{
    const unsigned char *s = (const unsigned char *)text;
    unsigned char c = s[0], lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
    size_t n;
    if (avail == 0)
        return 0;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* overlong below U+0800 */
        hi = c == 0xED ? 0x9F : 0xBF; /* U+D800..U+DFFF are surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        lo = c == 0xF0 ? 0x90 : 0x80; /* overlong below U+10000 */
        hi = c == 0xF4 ? 0x8F : 0xBF; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

size_t rb_utf8_cut(const char *s, size_t max_bytes)
{
    size_t at = 0;
    while (s[at]) {
        size_t left = strnlen(s + at, 4), n = rb_utf8_seq(s + at, left);
        n = n ? n : 1; /* an invalid byte is a unit of its own */
        if (at + n > max_bytes)
            break;
        at += n;
    }
    return at;
}

/* A text vsnprintf cut at size - 1 bytes may end inside a character: back to its start. */
static void cut_tail(char *buf, size_t size, int written)
{
    if (written < 0 || (size_t)written < size)
        return;
    size_t len = size - 1, start = len;
    while (start > 0 && len - start < 3 && ((unsigned char)buf[start - 1] & 0xC0) == 0x80)
        start--;
    if (start > 0 && (unsigned char)buf[start - 1] >= 0xC0) {
        start--;
        if (rb_utf8_seq(buf + start, len - start) == 0)
            buf[start] = '\0'; /* the last character was cut */
    }
}

void rb_fmt(char *buf, size_t size, const char *fmt, ...)
{
    if (!buf || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    cut_tail(buf, size, n);
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

uint64_t rb_isqrt(uint64_t n)
{
    uint64_t r = (uint64_t)sqrt((double)n);
    /* floor(sqrt) exactly whatever the double rounding; r stays below 2^32, so neither r * r
     * nor (r + 1) * (r + 1) can overflow (a loop on (r + 1)^2 <= n never ended at n near 2^64) */
    if (r > UINT32_MAX)
        r = UINT32_MAX;
    while (r > 0 && r * r > n)
        r--;
    while (r < UINT32_MAX && (r + 1) * (r + 1) <= n)
        r++;
    return r;
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

void rb_host_name(char *out, size_t out_size)
{
    const char *name = getenv("RB_HOST_NAME");
    char buf[256];
    if (!name || !*name) {
        name = gethostname(buf, sizeof buf) == 0 ? buf : "unknown-host";
        buf[sizeof buf - 1] = '\0'; /* POSIX leaves a cut name unterminated */
    }
    rb_fmt(out, out_size, "%s", name);
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

void rb_test_stall(const char *phase)
{
    const char *f = getenv("RB_TEST_FAULT");
    if (!f || strncmp(f, "stall:", 6) != 0 || strcmp(f + 6, phase) != 0)
        return;
    /* a parent busy with its own work, checking no flag */
    volatile unsigned long spins = 0;
    for (;;)
        spins++;
}

void rb_test_report_memory(void)
{
    const char *f = getenv("RB_TEST_FAULT");
    char line[256];
    if (!f || strcmp(f, "report:memory") != 0)
        return;
    FILE *st = fopen("/proc/self/status", "r");
    long kb = -1;
    while (st && fgets(line, sizeof line, st))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    if (st)
        fclose(st);
    fprintf(stderr, "memory: peak %ld kB\n", kb);
}

void rb_text_for_terminal(const char *s, char *out, size_t out_size)
{
    size_t at = 0;
    if (out_size == 0)
        return;
    for (size_t i = 0; s[i];) {
        char piece[8];
        size_t n = rb_utf8_seq(s + i, strnlen(s + i, 4));
        unsigned char c = (unsigned char)s[i];
        /* C0, DEL and C1 (U+0080..U+009F) controls and invalid bytes: shown, not obeyed */
        int c1 = n == 2 && c == 0xC2 && (unsigned char)s[i + 1] < 0xA0;
        if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F)) || c1) {
            rb_fmt(piece, sizeof piece, "\\x%02X", c1 ? (unsigned char)s[i + 1] : c);
            n = n ? n : 1;
        } else {
            rb_fmt(piece, sizeof piece, "%.*s", (int)n, s + i);
        }
        size_t k = strlen(piece);
        if (at + k + 1 > out_size)
            break;
        memcpy(out + at, piece, k);
        at += k;
        i += n;
    }
    out[at] = '\0';
}

double rb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A sink's buffer written out once it holds RB_SBUF_SPILL_BYTES. */
static void sbuf_spill(rb_sbuf *b, int all)
{
    if (!b->sink || b->oom || (!all && b->len < RB_SBUF_SPILL_BYTES))
        return;
    if (b->len && fwrite(b->s, 1, b->len, b->sink) != b->len)
        b->oom = 1;
    b->len = 0;
}

/* Room for n more bytes and a NUL: 0, or -1 (oom set). */
static int sbuf_room(rb_sbuf *b, size_t n)
{
    if (b->oom)
        return -1;
    if (b->s && b->len + n < b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap <= b->len + n)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
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
            sbuf_spill(b, 0);
            return;
        }
        if (sbuf_room(b, (size_t)k) != 0)
            return;
    }
}

void rb_sbuf_put(rb_sbuf *b, const char *s, size_t n)
{
    if (sbuf_room(b, n) != 0)
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    sbuf_spill(b, 0);
}

void rb_sbuf_copy(rb_sbuf *b, FILE *from)
{
    char chunk[16384];
    size_t n;
    while (!b->oom && (n = fread(chunk, 1, sizeof chunk, from)) > 0)
        rb_sbuf_put(b, chunk, n);
    if (ferror(from))
        b->oom = 1;
}

char *rb_sbuf_take(rb_sbuf *b)
{
    char *s = b->oom ? NULL : b->s;
    if (b->oom)
        free(b->s);
    else if (!s)
        s = calloc(1, 1);
    else if (b->cap > b->len + 1 + 4096) { /* (a finished text keeps no doubling's slack) */
        char *fit = realloc(s, b->len + 1);
        s = fit ? fit : s;
    }
    memset(b, 0, sizeof *b);
    return s;
}

int rb_sbuf_flush(rb_sbuf *b)
{
    sbuf_spill(b, 1);
    int rc = b->oom ? -1 : 0;
    rb_sbuf_free(b);
    return rc;
}

void rb_sbuf_free(rb_sbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

/* The next character of s for a text a person reads (CSV, Markdown): its length in *n, or a
 * replacement into rep (NUL-terminated; "" when the character is kept): U+FFFD for a byte that is
 * not UTF-8, C0 controls but TAB, CR and LF, DEL and C1 controls. */
static void shown_char(const char *s, size_t *n, char rep[4])
{
    unsigned char c = (unsigned char)*s;
    *n = rb_utf8_seq(s, strnlen(s, 4));
    rep[0] = '\0';
    if (*n == 0) {
        *n = 1;
        memcpy(rep, "\xef\xbf\xbd", 4);
    } else if ((*n == 1 && ((c < 0x20 && !strchr("\t\r\n", c)) || c == 0x7f)) ||
               (*n == 2 && c == 0xc2 && (unsigned char)s[1] < 0xa0)) {
        memcpy(rep, "\xef\xbf\xbd", 4);
    }
}

void rb_csv_field(rb_sbuf *b, const char *s, int last)
{
    int quoted = strpbrk(s, ",\"\r\n") != NULL;
    if (quoted)
        rb_sbuf_add(b, "\"");
    for (const char *c = s; *c;) {
        char rep[4];
        size_t n;
        shown_char(c, &n, rep);
        if (rep[0])
            rb_sbuf_add(b, "%s", rep); /* (CSV reaches a terminal too: compare --csv) */
        else if (*c == '"')
            rb_sbuf_add(b, "\"\"");
        else
            rb_sbuf_put(b, c, n);
        c += n;
    }
    if (quoted)
        rb_sbuf_add(b, "\"");
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
    while (s && *s) {
        unsigned char ch = (unsigned char)*s;
        char rep[4];
        size_t n;
        shown_char(s, &n, rep);
        if (n == 1 && (ch < 0x20 || ch == 0x7f))
            rb_sbuf_add(b, " ");
        else if (rep[0])
            rb_sbuf_add(b, "%s", rep);
        else if (ch == '<')
            rb_sbuf_add(b, "&lt;");
        else if (ch == '>')
            rb_sbuf_add(b, "&gt;");
        else if (ch == '&')
            rb_sbuf_add(b, "&amp;");
        else if (n == 1 && strchr("|\\`*[]", ch))
            rb_sbuf_add(b, "\\%c", ch);
        else
            rb_sbuf_put(b, s, n);
        s += n;
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
