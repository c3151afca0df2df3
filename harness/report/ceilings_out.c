/* SPDX-License-Identifier: MIT */
#include "ceilings_out.h"

#include <math.h>
#include <string.h>

#include "table.h"

/* Where the width is short the samples, then the noise go under the row, then the roof key is
 * abbreviated (down to 10); how it was measured is the rest of the line, wrapped under it. */
enum { C_KEY, C_VALUE, C_UNIT, C_NOISE, C_SAMPLES, C_HOW, C_COUNT };
static const rb_table_col ceilings_cols[C_COUNT] = {
    {"roof", 17, 10, 3, RB_COL_LEFT | RB_COL_ABBREV},
    {"value", 10, 0, 0, 0},
    {"unit", 7, 0, 0, RB_COL_LEFT},
    {"noise", 6, 0, 2, 0},
    {"samples", 7, 0, 1, 0},
    {"measured at", 0, 20, 0, RB_COL_LEFT | RB_COL_REST},
};

static void ceilings_fit(rb_table *t, int width)
{
    rb_table_fit(t, ceilings_cols, C_COUNT, width, 4);
}

void rb_ceilings_head(rb_sbuf *b, int width)
{
    rb_table t;
    ceilings_fit(&t, width);
    rb_table_head(b, &t);
}

void rb_ceilings_row(rb_sbuf *b, int width, const char *key, double value,
                     const rb_ceiling_method *m)
{
    const char *unit = rb_ceiling_unit(key);
    char shown_key[96], v[32], noise[16], samples[16], how[400], size[200];
    rb_text_for_terminal(key, shown_key, sizeof shown_key);
    rb_fmt(v, sizeof v, "%.*f", !strcmp(unit, "GB/s") ? 1 : !strcmp(unit, "us") ? 3 : 2, value);
    rb_fmt(noise, sizeof noise, "%.1f%%", 100 * m->noise);
    rb_fmt(samples, sizeof samples, "%.0f", m->samples);
    rb_text_for_terminal(m->size, size, sizeof size);
    rb_fmt(how, sizeof how, "%s", size);
    if (isfinite(m->sm_clock_mhz)) {
        size_t len = strlen(how);
        rb_fmt(how + len, sizeof how - len, "; %.0f MHz", m->sm_clock_mhz);
    }
    if (isfinite(m->power_w)) {
        size_t len = strlen(how);
        rb_fmt(how + len, sizeof how - len, ", %.0f W", m->power_w);
    }
    const char *cells[C_COUNT] = {shown_key, v, unit, noise, samples, how};
    rb_table t;
    ceilings_fit(&t, width);
    rb_table_row(b, &t, cells);
}

void rb_ceilings_skip_row(rb_sbuf *b, int width, const char *key, const char *reason)
{
    char shown_key[96], why[600];
    rb_text_for_terminal(key, shown_key, sizeof shown_key);
    rb_text_for_terminal(reason, why, sizeof why);
    char how[640];
    rb_fmt(how, sizeof how, "skipped: %s", why);
    const char *cells[C_COUNT] = {shown_key, "-", "", "", "", how};
    rb_table t;
    ceilings_fit(&t, width);
    rb_table_row(b, &t, cells);
}
