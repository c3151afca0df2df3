/* SPDX-License-Identifier: MIT */
/*
 * The terminal's tables: the width they fit ($COLUMNS, else the terminal's, else 80; none under
 * --wide) and one layout for every table the commands print. A table is columns of a natural
 * width; where the row does not fit, columns give up room in the order of their `under` rank: a
 * name column is abbreviated down to its least width (head~tail, the same name always the same
 * way), another goes under the row, its cells as "head cell" pairs on a line beneath it (a cell
 * that says nothing, "" or "-", is left out). The last column may be the rest of the line,
 * wrapped under the row when long. Text between the
 * tables (headers, evidence, notes) is wrapped to the same width, a word longer than a line cut.
 * No CUDA; reads the terminal's size, writes nothing.
 */
#ifndef RB_TABLE_H
#define RB_TABLE_H

#include <stdio.h>

#include "util.h"

#define RB_TABLE_MAX_COLS 16

/* The least width a table is laid out for (a COLUMNS below it is taken as this). */
#define RB_TABLE_MIN_WIDTH 40

enum {
    RB_COL_LEFT = 1,   /* left-aligned (else right) */
    RB_COL_ABBREV = 2, /* a name: abbreviated to fit, down to min_width */
    RB_COL_REST = 4    /* the last column: the rest of the line, wrapped under the row */
};

typedef struct rb_table_col {
    const char *head;
    int width;     /* natural width (the widest cell expected) */
    int min_width; /* RB_COL_ABBREV, RB_COL_REST: the least it may shrink to */
    int under;     /* 0: always in the row; k > 0: the k-th to go under the row when it is full
                    * (of a name column: when it is abbreviated, 0 first) */
    unsigned flags;
} rb_table_col;

typedef struct rb_table {
    const rb_table_col *cols;
    int n;
    int width;                  /* the line's width; 0: no limit (--wide) */
    int indent;                 /* of the lines under a row */
    int w[RB_TABLE_MAX_COLS];   /* each column's width as laid out */
    int out[RB_TABLE_MAX_COLS]; /* 1: the column goes under the row */
} rb_table;

/* Under --wide (set once, by main): every table and text whole, no width. */
void rb_table_set_wide(int wide);

/* The width the terminal output fits: 0 under --wide, else $COLUMNS when it is a number (at
 * least RB_TABLE_MIN_WIDTH), else the terminal's when the standard output is one, else 80. */
int rb_table_width(void);

/* Columns on the terminal of UTF-8 text (one a character). */
int rb_table_text_cols(const char *s);

/* s in at most width columns: itself, or its head and tail joined by '~', cut between
 * characters, never inside one. */
void rb_table_abbrev(const char *s, int width, char *out, size_t out_size);

/* Lays n columns (at most RB_TABLE_MAX_COLS) out in width (0: no limit); lines under a row start
 * with `indent` spaces. */
void rb_table_fit(rb_table *t, const rb_table_col *cols, int n, int width, int indent);

/* The heads of the columns in the row. */
void rb_table_head(rb_sbuf *b, const rb_table *t);

/* One row: cells[i] the i-th column's text (NULL as ""), already shown for the terminal. A cell
 * wider than its column pushes the rest of the row right where the line still fits, else it goes
 * under the row too. */
void rb_table_row(rb_sbuf *b, const rb_table *t, const char *const *cells);

/* text wrapped at spaces to width (0: one line): the first line starts at column first_col
 * (what the caller wrote on it), the others with indent spaces; a word longer than a line is
 * cut. Ends with a newline. */
void rb_table_wrap(rb_sbuf *b, const char *text, int width, int first_col, int indent);

/* One line of text (no newline) added to b as it is when it fits width (0: no limit; its own
 * spacing kept, an aligned line stays aligned), else wrapped at its spaces (rb_table_wrap) after
 * its leading spaces, the lines after the first indented by indent. Ends with a newline. */
void rb_table_line(rb_sbuf *b, const char *line, int width, int indent);

/* A line of text on f (printf's format, no newline), wrapped at the terminal's width
 * (rb_table_width), continued lines indented by 4. */
void rb_table_say(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
