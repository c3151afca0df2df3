/* SPDX-License-Identifier: MIT */
#include "list_out.h"

#include <string.h>

#include "table.h"
#include "util.h"

/* Where the width is short what the size counts goes under the row (as a count longer than its
 * column does anyway), then the least compute capability, then the pair's name is abbreviated
 * (down to 12). */
enum { L_NAME, L_CC, L_SMOKE, L_FULL, L_COUNTS, L_VARIANTS, L_COUNT };
static const rb_table_col list_cols[L_COUNT] = {
    {"pair", 18, 12, 3, RB_COL_LEFT | RB_COL_ABBREV},
    {"min cc", 6, 0, 2, RB_COL_LEFT},
    {"smoke size", 10, 0, 0, RB_COL_LEFT},
    {"full size", 10, 0, 0, RB_COL_LEFT},
    {"size counts", 16, 0, 1, RB_COL_LEFT},
    {"variants", 0, 16, 0, RB_COL_LEFT | RB_COL_REST},
};

/* The lines under a row: 21 columns in, wrapped, continued 4 further in. */
#define DETAIL_INDENT 21

/* The indent of the lines under a row: 21, or 4 where the width is short. */
static int detail_indent(int width)
{
    return width > 0 && width < 2 * DETAIL_INDENT + 20 ? 4 : DETAIL_INDENT;
}

static void details(rb_sbuf *b, int width, const char *text)
{
    int indent = detail_indent(width);
    for (const char *s = text; *s;) {
        size_t len = strcspn(s, "\n");
        char line[2048];
        rb_fmt(line, sizeof line, "%.*s", (int)len, s);
        int lead = (int)strspn(line, " "); /* a line's own indent (a sweep's second line) */
        rb_sbuf_add(b, "%*s", indent + lead, "");
        rb_table_wrap(b, line + lead, width, indent + lead, indent + lead + 4);
        s += len + (s[len] == '\n');
    }
}

void rb_list_print(FILE *f, const rb_list_row *rows, int n, const char *const *not_built)
{
    int width = rb_table_width();
    rb_sbuf b = {.sink = f};
    rb_table t;
    rb_table_fit(&t, list_cols, L_COUNT, width, detail_indent(width));
    rb_table_head(&b, &t);
    details(&b, width,
            "work of a run at the selected size (default full; a sweep when full size says so): "
            "size or shape, GFLOP, bytes of compulsory DRAM traffic\n");
    for (int i = 0; i < n; i++) {
        const rb_list_row *r = &rows[i];
        const char *cells[L_COUNT] = {r->name, r->min_cc, r->smoke, r->full, r->counts,
                                      r->variants};
        rb_table_row(&b, &t, cells);
        details(&b, width, r->details ? r->details : "");
    }
    for (int i = 0; not_built && not_built[i]; i++)
        rb_sbuf_add(&b, "not built: %s\n", not_built[i]);
    if (rb_sbuf_flush(&b) != 0 && !ferror(f))
        fprintf(stderr, "roofbench: list: out of memory\n");
}
