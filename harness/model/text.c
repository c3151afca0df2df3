/* SPDX-License-Identifier: MIT */
#include "text.h"

#include <math.h>
#include <string.h>

void rb_text_wrap(rb_sbuf *b, const char *text, int width, int first_col, int indent)
{
    int col = first_col, words = 0; /* words: of text on the current line */
    for (const char *s = text; *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        int len = (int)strcspn(s, " ");
        /* A word that does not fit starts the next line; one too long for any line stays whole
         * on a line of its own. */
        int over = words ? col + 1 + len > width : col > indent && col + len > width;
        if (over) {
            rb_sbuf_add(b, "\n%*s", indent, "");
            col = indent;
            words = 0;
        }
        rb_sbuf_add(b, "%s%.*s", words ? " " : "", len, s);
        col += (words ? 1 : 0) + len;
        words++;
        s += len;
    }
    rb_sbuf_add(b, "\n");
}

void rb_text_abbrev(const char *s, int width, char *out, size_t out_size)
{
    int len = (int)strlen(s);
    if (len <= width || width < 3) {
        rb_fmt(out, out_size, "%s", s);
        return;
    }
    /* the tail keeps what tells rows of one pair apart (the input, the @size) */
    int tail = (width - 1) / 2, head = width - 1 - tail;
    rb_fmt(out, out_size, "%.*s~%s", head, s, s + len - tail);
}

int rb_text_sig_digits(double noise)
{
    if (!(noise >= 0) || !isfinite(noise))
        return 4;
    if (noise < 1e-5)
        return 6;
    int d = (int)ceil(-log10(noise)) + 1;
    return d < 2 ? 2 : d > 6 ? 6 : d;
}

void rb_text_number(double x, double noise, char *out, size_t out_size)
{
    rb_text_number_max(x, noise, 6, out, out_size);
}

void rb_text_number_max(double x, double noise, int max_sig, char *out, size_t out_size)
{
    if (isnan(x)) {
        rb_fmt(out, out_size, "-");
        return;
    }
    if (x == 0 || !isfinite(x)) {
        rb_fmt(out, out_size, "%g", x);
        return;
    }
    int sig = rb_text_sig_digits(noise);
    sig = sig < max_sig ? sig : max_sig < 1 ? 1 : max_sig;
    int decimals = sig - 1 - (int)floor(log10(fabs(x)));
    if (decimals >= 0) {
        rb_fmt(out, out_size, "%.*f", decimals, x);
        return;
    }
    double unit = pow(10.0, -decimals);
    rb_fmt(out, out_size, "%.0f", round(x / unit) * unit);
}

void rb_text_version(double code, char *out, size_t out_size)
{
    if (!(code > 0 && code < 1e9) || code != floor(code)) {
        rb_fmt(out, out_size, "-");
        return;
    }
    long c = (long)code;
    rb_fmt(out, out_size, "%ld.%ld.%ld", c / 10000, c / 100 % 100, c % 100);
}

void rb_text_duration(double s, char *out, size_t out_size)
{
    if (!(s >= 0) || !isfinite(s) || s > 1e8) {
        rb_fmt(out, out_size, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        rb_fmt(out, out_size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        rb_fmt(out, out_size, "%ld:%02ld", t / 60, t % 60);
}

void rb_text_uuid(const unsigned char bytes[16], char *out, size_t out_size)
{
    char hex[33];
    for (int i = 0; i < 16; i++)
        rb_fmt(hex + 2 * i, 3, "%02x", bytes[i]);
    rb_fmt(out, out_size, "GPU-%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16,
           hex + 20);
}

int rb_text_visible_pick(const char *current, int index, char *out, size_t out_size)
{
    if (index < 0)
        return -1;
    if (!current) {
        rb_fmt(out, out_size, "%d", index);
        return 0;
    }
    const char *s = current;
    for (int i = 0; i < index; i++) {
        s = strchr(s, ',');
        if (!s)
            return -1;
        s++;
    }
    int len = (int)strcspn(s, ",");
    if (len == 0)
        return -1;
    rb_fmt(out, out_size, "%.*s", len, s);
    return 0;
}
