/* SPDX-License-Identifier: MIT */
#include "table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int table_wide;

void rb_table_set_wide(int wide)
{
    table_wide = wide;
}

int rb_table_width(void)
{
    if (table_wide)
        return 0;
    const char *env = getenv("COLUMNS");
    char *end;
    long n = env && *env ? strtol(env, &end, 10) : 0;
    if (env && *env && *end == '\0' && n > 0 && n < 100000)
        return n < RB_TABLE_MIN_WIDTH ? RB_TABLE_MIN_WIDTH : (int)n;
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col < RB_TABLE_MIN_WIDTH ? RB_TABLE_MIN_WIDTH : ws.ws_col;
    return 80;
}

static int is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

int rb_table_text_cols(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += !is_cont((unsigned char)*s);
    return n;
}

/* The bytes of s's first `chars` characters. */
static size_t head_bytes(const char *s, int chars)
{
    size_t i = 0;
    for (int c = 0; s[i] && c < chars; c++)
        for (i++; s[i] && is_cont((unsigned char)s[i]); i++)
            ;
    return i;
}

void rb_table_abbrev(const char *s, int width, char *out, size_t out_size)
{
    int cols = rb_table_text_cols(s);
    if (cols <= width || width < 3) {
        rb_fmt(out, out_size, "%s", s);
        return;
    }
    /* the tail keeps what tells rows of one pair apart (the input, the @size) */
    int tail = (width - 1) / 2, head = width - 1 - tail;
    rb_fmt(out, out_size, "%.*s~%s", (int)head_bytes(s, head), s, s + head_bytes(s, cols - tail));
}

/* The least width of the rest column: its least, and never narrower than its head. */
static int rest_width(const rb_table_col *c)
{
    int head = rb_table_text_cols(c->head);
    return c->min_width > head ? c->min_width : head;
}

static int row_cols(const rb_table *t)
{
    int total = 0, count = 0;
    for (int i = 0; i < t->n; i++)
        if (!t->out[i]) {
            total += t->cols[i].flags & RB_COL_REST ? rest_width(&t->cols[i]) : t->w[i];
            count++;
        }
    return total + (count > 1 ? count - 1 : 0);
}

/* The next column to give up room, by rank (a name column's rank is when it is abbreviated;
 * rank 0 first): -1 when none is left. */
static int next_step(const rb_table *t, const int *done)
{
    int best = -1;
    for (int i = 0; i < t->n; i++) {
        const rb_table_col *c = &t->cols[i];
        int can = c->flags & RB_COL_ABBREV ? !done[i] : c->under > 0 && !t->out[i];
        if (can && (best < 0 || c->under < t->cols[best].under))
            best = i;
    }
    return best;
}

void rb_table_fit(rb_table *t, const rb_table_col *cols, int n, int width, int indent)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->n = n < RB_TABLE_MAX_COLS ? n : RB_TABLE_MAX_COLS;
    t->width = width;
    t->indent = indent;
    for (int i = 0; i < t->n; i++)
        t->w[i] = cols[i].width;
    if (width <= 0)
        return;
    int done[RB_TABLE_MAX_COLS] = {0};
    for (int i; row_cols(t) > width && (i = next_step(t, done)) >= 0;) {
        if (cols[i].flags & RB_COL_ABBREV) {
            /* (never narrower than its head) */
            int head = rb_table_text_cols(cols[i].head);
            int least = cols[i].min_width > head ? cols[i].min_width : head;
            int cut = row_cols(t) - width, room = t->w[i] - least;
            t->w[i] -= cut < room ? cut : room > 0 ? room : 0;
            done[i] = 1;
        } else {
            t->out[i] = 1;
        }
    }
    /* what the name columns gave that the columns gone under left free, back to them */
    for (int i = 0; i < t->n; i++)
        if ((cols[i].flags & RB_COL_ABBREV) && !t->out[i]) {
            int spare = width - row_cols(t), want = cols[i].width - t->w[i];
            t->w[i] += spare < want ? (spare > 0 ? spare : 0) : want;
        }
}

/* Appends text's words from column col, wrapped at width (0: none); a space before the first
 * word when `space` and it stays on the line. Returns nothing; ends without a newline. */
static void wrap_words(rb_sbuf *b, const char *text, int width, int col, int indent, int space)
{
    int words = space; /* a word already on the line: the next needs a space */
    int room = width - indent > 1 ? width - indent : 1;
    for (const char *s = text; *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        size_t bytes = strcspn(s, " ");
        char word[4096];
        rb_fmt(word, sizeof word, "%.*s", (int)bytes, s);
        s += bytes;
        for (const char *w = word; *w;) {
            int len = rb_table_text_cols(w);
            int over = width > 0 && (words ? col + 1 + len > width : col > indent && col + len > width);
            if (over) {
                rb_sbuf_add(b, "\n%*s", indent, "");
                col = indent;
                words = 0;
            }
            /* a word longer than any line: cut at the line's end */
            int take = width > 0 && len > width - col - (words ? 1 : 0) ? width - col - (words ? 1 : 0)
                                                                        : len;
            if (take < 1)
                take = len < room ? len : room;
            size_t nb = head_bytes(w, take);
            rb_sbuf_add(b, "%s%.*s", words ? " " : "", (int)nb, w);
            col += (words ? 1 : 0) + take;
            words = take == len;
            w += nb;
            if (*w) {
                rb_sbuf_add(b, "\n%*s", indent, "");
                col = indent;
                words = 0;
            }
        }
    }
}

void rb_table_wrap(rb_sbuf *b, const char *text, int width, int first_col, int indent)
{
    wrap_words(b, text, width, first_col, indent, 0);
    rb_sbuf_add(b, "\n");
}

/* Appends cell to line at column *col, padded to w (left or right), a space before it unless it
 * is the first. */
static void put_cell(rb_sbuf *line, int *col, const char *cell, int w, int left, int first)
{
    int pad = w - rb_table_text_cols(cell);
    pad = pad > 0 ? pad : 0;
    rb_sbuf_add(line, "%s%*s%s%*s", first ? "" : " ", left ? 0 : pad, "", cell, left ? pad : 0,
                "");
    *col += (first ? 0 : 1) + (w > rb_table_text_cols(cell) ? w : rb_table_text_cols(cell));
}

static void trim_and_add(rb_sbuf *b, char *text)
{
    size_t len = text ? strlen(text) : 0;
    while (len && text[len - 1] == ' ')
        text[--len] = '\0';
    rb_sbuf_add(b, "%s", text ? text : "");
}

void rb_table_head(rb_sbuf *b, const rb_table *t)
{
    const char *heads[RB_TABLE_MAX_COLS];
    for (int i = 0; i < t->n; i++)
        heads[i] = t->cols[i].head;
    rb_sbuf line = {0};
    int col = 0, first = 1;
    for (int i = 0; i < t->n; i++) {
        if (t->out[i])
            continue;
        int rest = (t->cols[i].flags & RB_COL_REST) != 0;
        put_cell(&line, &col, heads[i], rest ? 0 : t->w[i], t->cols[i].flags & RB_COL_LEFT, first);
        first = 0;
    }
    char *text = rb_sbuf_take(&line);
    trim_and_add(b, text);
    free(text);
    rb_sbuf_add(b, "\n");
}

/* The columns the row's line needs after column i: the later ones in the row, each with its
 * separator (the rest column at its least width). */
static int after(const rb_table *t, int i)
{
    int need = 0;
    for (int k = i + 1; k < t->n; k++)
        if (!t->out[k])
            need += 1 + (t->cols[k].flags & RB_COL_REST ? rest_width(&t->cols[k]) : t->w[k]);
    return need;
}

void rb_table_row(rb_sbuf *b, const rb_table *t, const char *const *cells)
{
    rb_sbuf line = {0}, under = {0};
    int col = 0, first = 1, n_under = 0;
    const char *rest = NULL;
    for (int i = 0; i < t->n; i++) {
        const rb_table_col *c = &t->cols[i];
        const char *cell = cells[i] ? cells[i] : "";
        char abbrev[1024];
        if (c->flags & RB_COL_REST) {
            rest = t->out[i] ? NULL : cell;
            if (!t->out[i])
                continue;
        }
        /* a name wider than its column pushes the row right where the line still fits */
        int fits_whole = col + (first ? 0 : 1) + rb_table_text_cols(cell) + after(t, i) <= t->width;
        if (!t->out[i] && (c->flags & RB_COL_ABBREV) && t->width > 0 && !fits_whole) {
            /* leading spaces (a variant under its group) stay; the name after them shrinks */
            int lead = (int)strspn(cell, " ");
            lead = lead < t->w[i] - 3 ? lead : 0;
            rb_fmt(abbrev, sizeof abbrev, "%*s", lead, "");
            rb_table_abbrev(cell + lead, t->w[i] - lead, abbrev + lead, sizeof abbrev - lead);
            cell = abbrev;
        }
        /* a cell wider than its column pushes the row right where the row still fits, else
         * it goes under */
        int wider = t->width > 0 && rb_table_text_cols(cell) > t->w[i] &&
                    col + (first ? 0 : 1) + rb_table_text_cols(cell) + after(t, i) > t->width;
        if (t->out[i] || wider) {
            if (cell[0] && strcmp(cell, "-"))
                rb_sbuf_add(&under, "%s%s %s", n_under++ ? ", " : "", c->head, cell);
            cell = "";
            if (t->out[i])
                continue;
        }
        put_cell(&line, &col, cell, t->w[i], c->flags & RB_COL_LEFT, first);
        first = 0;
    }
    char *text = rb_sbuf_take(&line);
    int used = text ? rb_table_text_cols(text) : 0;
    while (rest && *rest == ' ')
        rest++;
    /* the rest on the row's line when its first word fits there, else under the row */
    int on_line = rest && rest[0] && !first;
    if (on_line && t->width > 0) {
        char word[1024];
        rb_fmt(word, sizeof word, "%.*s", (int)strcspn(rest, " "), rest);
        on_line = used + 1 + rb_table_text_cols(word) <= t->width;
    }
    if (on_line)
        rb_sbuf_add(b, "%s", text ? text : ""); /* (the padding leads to the rest) */
    else
        trim_and_add(b, text);
    free(text);
    if (on_line) {
        wrap_words(b, rest, t->width, used, t->indent, 1);
    } else if (rest && rest[0]) {
        rb_sbuf_add(b, "%s%*s", first ? "" : "\n", first ? 0 : t->indent, "");
        wrap_words(b, rest, t->width, first ? 0 : t->indent, t->indent, 0);
    }
    rb_sbuf_add(b, "\n");
    char *below = rb_sbuf_take(&under);
    if (below && below[0]) {
        rb_sbuf_add(b, "%*s", t->indent, "");
        rb_table_wrap(b, below, t->width, t->indent, t->indent + 2);
    }
    free(below);
}

void rb_table_line(rb_sbuf *b, const char *line, int width, int indent)
{
    int lead = (int)strspn(line, " "); /* (its own indent stays) */
    if (width <= 0 || rb_table_text_cols(line) <= width) {
        rb_sbuf_add(b, "%s\n", line);
        return;
    }
    rb_sbuf_add(b, "%*s", lead, "");
    rb_table_wrap(b, line + lead, width, lead, indent);
}

void rb_table_say(FILE *f, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    rb_sbuf b = {.sink = f};
    rb_table_wrap(&b, line, rb_table_width(), 0, 4);
    rb_sbuf_flush(&b);
}
