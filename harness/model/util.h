/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the harness: hardware-key slugs, strict number parsing, files, time. */
#ifndef RB_UTIL_H
#define RB_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* The longest path (bytes) the command line accepts; every buffer that holds a path built from
 * one has room for RB_PATH_MAX plus what is appended to it (RB_PATH_BUF), and a path that would
 * not fit is refused, never truncated. */
#define RB_PATH_MAX 1024
#define RB_PATH_BUF (RB_PATH_MAX + 512)

/* The length of the well-formed UTF-8 character at text (at most avail bytes there): 1 to 4,
 * or 0 when it is not one (a stray continuation, overlong, a surrogate, above U+10FFFF, cut
 * short). */
size_t rb_utf8_seq(const char *text, size_t avail);
/* The longest prefix of s of at most max_bytes bytes that ends on a character boundary (an
 * invalid byte counts as a character of its own). */
size_t rb_utf8_cut(const char *s, size_t max_bytes);

/* s for a terminal: C0, DEL and C1 control characters and invalid UTF-8 bytes shown as \xNN,
 * so a name cannot move the cursor, forge a line or change colours; cut to fit out. */
void rb_text_for_terminal(const char *s, char *out, size_t out_size);

/* Test hook: with RB_TEST_FAULT=stall:<phase>, the process spins here forever (a slow phase of
 * its own work, for the signal tests); otherwise returns at once. */
void rb_test_stall(const char *phase);
/* Test hook: with RB_TEST_FAULT=report:memory, prints the process's peak resident set so far
 * (VmHWM) to stderr as "memory: peak N kB"; otherwise does nothing. Called at the end of main,
 * before the libraries' exit handlers (which touch their own pages) run. */
void rb_test_report_memory(void);

/* Formats into a fixed buffer, always NUL-terminated; a text too long is cut on a character
 * boundary, never inside a UTF-8 character. */
void rb_fmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* rb_fmt that refuses to truncate: 0, or -1 when the text did not fit (buf then holds "").
 * For paths: a truncated path names another file. */
int rb_fmt_fits(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* hardware-key: the device name lower-cased, each run of non-alphanumerics turned into one '-',
 * no leading or trailing '-' ("NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"). An empty
 * result becomes "unknown-gpu". */
void rb_hardware_key(const char *device_name, char *out, size_t out_size);

/* The hardware key of a machine with gpus visible GPUs of that name: rb_hardware_key, plus
 * "-x<gpus>" when there are several ("nvidia-h200-x2"), so a 2-GPU machine keeps its own
 * expectations. rb_hardware_key_single() strips that suffix again (datasheet look-ups). */
void rb_machine_key(const char *device_name, int gpus, char *out, size_t out_size);
void rb_hardware_key_single(const char *key, char *out, size_t out_size);
/* 1 when key is a hardware key as rb_machine_key writes it: lower-case letters and digits in
 * runs joined by single '-', at most 128 bytes. A key read from a file is checked with this
 * before it names a path (no '/', no "..", nothing a shell or a terminal reads). */
int rb_is_hardware_key(const char *key);

/* Formats a count the way rb_parse_count reads it, with the largest binary suffix that divides
 * it exactly: 1073741824 -> "1G", 1536 -> "1536", 3072 -> "3K". */
void rb_format_count(uint64_t n, char *out, size_t out_size);

/* Parses a count: decimal digits with an optional binary suffix K, M, G or T (x 1024^k),
 * e.g. "256M" = 268435456. Refuses empty strings, signs, spaces, other suffixes, zero and
 * values that overflow 64 bits. Returns 0 or -1 with a message in err. */
int rb_parse_count(const char *s, uint64_t *out, char *err, size_t err_size);

/* A problem size: n elements, and for two-dimensional pairs the shape rows x cols
 * (n = rows * cols). Zero rows and cols: no shape requested. */
typedef struct rb_size {
    uint64_t n, rows, cols;
} rb_size;

/* Parses "N" (a count as above) or "RxC" (two counts, e.g. "32768x4095"; n = R * C, refused
 * when it overflows). Returns 0 or -1 with a message in err. */
int rb_parse_size(const char *s, rb_size *out, char *err, size_t err_size);

/* floor(sqrt(n)) exactly, for every n (no overflow near 2^64). */
uint64_t rb_isqrt(uint64_t n);

/* The most elements a problem size may have (2^40: 4 TiB of fp32, beyond any GPU's memory).
 * Every size is refused above it before a shape rule or a pair sees it, so no product of a
 * size with an element size or a count of buffers can overflow 64 bits. */
#define RB_MAX_ELEMENTS (1ull << 40)

/* Parses a positive decimal number of seconds ("30", "2.5"); refuses garbage, NaN, <= 0. */
int rb_parse_seconds(const char *s, double *out, char *err, size_t err_size);

/* mkdir -p. Returns 0 or -1 with "PATH: reason" in err. */
int rb_mkdirs(const char *path, char *err, size_t err_size);

/* The name a run records for its host: RB_HOST_NAME when set (one machine posing as several
 * nodes of a fleet), else gethostname's, else "unknown-host". */
void rb_host_name(char *out, size_t out_size);

/* "20261122T031502Z" (UTC, ISO 8601 basic). */
void rb_utc_stamp(char *out, size_t out_size);
/* "2026-11-22T03:15:02Z" */
void rb_utc_iso(char *out, size_t out_size);
/* Seconds since an arbitrary point, monotonic. */
double rb_now_s(void);

/* Runs cmd through the shell (popen) and returns all it wrote to stdout (malloc'd, NUL
 * terminated), with its exit status in *status (pclose's); NULL when it cannot be started or
 * memory runs out. */
char *rb_command_output(const char *cmd, int *status);

/* A growing string. Once an allocation fails, oom is set and every later add does nothing, so
 * a writer checks once at the end (rb_sbuf_take). With a sink, the text goes out to it as it
 * grows (s keeps the last RB_SBUF_SPILL_BYTES or so), so a text of any size takes that much
 * memory; a write that fails sets oom too, and rb_sbuf_flush ends it. */
typedef struct rb_sbuf {
    char *s;
    size_t len, cap;
    int oom;
    FILE *sink;
} rb_sbuf;
#define RB_SBUF_SPILL_BYTES ((size_t)64 << 10)

void rb_sbuf_add(rb_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* n bytes of s as they are. */
void rb_sbuf_put(rb_sbuf *b, const char *s, size_t n);
/* The rest of the stream from, from where it stands. */
void rb_sbuf_copy(rb_sbuf *b, FILE *from);
/* The string (caller frees), or NULL when an allocation failed; b is left empty. */
char *rb_sbuf_take(rb_sbuf *b);
/* A sink's text: what b holds written out, b left empty. 0, or -1 when an allocation or a write
 * failed on the way. */
int rb_sbuf_flush(rb_sbuf *b);
void rb_sbuf_free(rb_sbuf *b);

/* One RFC 4180 CSV field: quoted (quotes doubled) when it holds a comma, a quote, CR or LF;
 * then "," or, for the last field of a row, CRLF. A byte that is not UTF-8 and a control
 * character other than TAB, CR and LF (ESC, DEL, C1) become U+FFFD: a CSV reaches a terminal
 * too (compare --csv). */
void rb_csv_field(rb_sbuf *b, const char *s, int last);
/* A number field, x * scale with 10 significant digits; empty (a spreadsheet's blank) when not
 * finite. */
void rb_csv_number(rb_sbuf *b, double x, double scale);
/* Markdown text that cannot break a table cell or open markup: | \ ` * [ ] backslash-escaped,
 * < > & as entities, C0 control characters (newlines too) and DEL as spaces, C1 controls and
 * bytes that are not UTF-8 as U+FFFD. */
void rb_md_text(rb_sbuf *b, const char *s);

#endif
