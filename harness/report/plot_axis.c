/* SPDX-License-Identifier: MIT */
/* The charts' logarithmic axes: fitting a range, mapping values to pixels, ticks and their
 * labels. */
#include <math.h>
#include <string.h>

#include "plot.h"
#include "util.h"

double rb_plot_axis_map(const rb_plot_axis *a, double v)
{
    return a->px_lo + (log10(v) - a->lo) / (a->hi - a->lo) * (a->px_hi - a->px_lo);
}

void rb_plot_axis_fit(rb_plot_axis *a, double vmin, double vmax, int min_decades, int fallback_lo)
{
    if (!(vmin > 0 && isfinite(vmin)) || !(vmax > 0 && isfinite(vmax))) {
        a->lo = fallback_lo;
        a->hi = fallback_lo + min_decades;
        return;
    }
    /* a tenth of a decade of room, so a point or a roof is never drawn on the frame */
    int lo = (int)floor(log10(vmin) - 0.1), hi = (int)ceil(log10(vmax) + 0.1);
    if (hi <= lo)
        hi = lo + 1;
    while (hi - lo < min_decades) {
        /* widen on both sides, the top first */
        hi++;
        if (hi - lo < min_decades)
            lo--;
    }
    if (hi - lo > RB_PLOT_MAX_DECADES)
        lo = hi - RB_PLOT_MAX_DECADES;
    a->lo = lo;
    a->hi = hi;
}

void rb_plot_axis_fit_tight(rb_plot_axis *a, double vmin, double vmax, double margin_decades,
                            double min_decades)
{
    if (!(vmin > 0 && isfinite(vmin)) || !(vmax > 0 && isfinite(vmax))) {
        a->lo = 0;
        a->hi = min_decades > 1 ? min_decades : 1;
        return;
    }
    double lo = log10(vmin) - margin_decades, hi = log10(vmax) + margin_decades;
    if (hi - lo < min_decades) {
        double mid = (lo + hi) / 2;
        lo = mid - min_decades / 2;
        hi = mid + min_decades / 2;
    }
    a->lo = lo;
    a->hi = hi;
}

/* v rounded to two significant digits, towards the inside of an axis (up at its low edge,
 * down at its high one). */
static double edge_value(double log_v, int up)
{
    double v = pow(10, log_v), unit = pow(10, floor(log_v) - 1);
    return (up ? ceil(v / unit - 1e-9) : floor(v / unit + 1e-9)) * unit;
}

int rb_plot_axis_ticks(const rb_plot_axis *a, double *ticks, int max)
{
    static const double decade[] = {1}, wide[] = {1, 2, 5}, narrow[] = {1, 2, 3, 5};
    double span = a->hi - a->lo, keep = 0.07 * span; /* room between an edge's tick and others */
    const double *m = span >= 2.5 ? decade : span >= 0.8 ? wide : narrow;
    int nm = span >= 2.5 ? 1 : span >= 0.8 ? 3 : 4, n = 0;
    /* an edge that is not a whole decade gets a tick of its own (unless a decade is as near),
     * so a reader sees where the range starts and ends */
    int lo_edge = fabs(a->lo - round(a->lo)) > 1e-9, hi_edge = fabs(a->hi - round(a->hi)) > 1e-9;
    for (int e = (int)floor(a->lo); e <= (int)ceil(a->hi); e++) {
        if (e - a->lo >= -1e-9 && e - a->lo < keep)
            lo_edge = 0;
        if (a->hi - e >= -1e-9 && a->hi - e < keep)
            hi_edge = 0;
    }
    if (lo_edge && n < max)
        ticks[n++] = edge_value(a->lo, 1);
    for (int e = (int)floor(a->lo) - 1; e <= (int)ceil(a->hi) && n < max; e++)
        for (int k = 0; k < nm && n < max; k++) {
            double v = m[k] * pow(10, e), lv = log10(v);
            if (lv < a->lo - 1e-9 || lv > a->hi + 1e-9)
                continue;
            /* every decade is ticked; a 2, 3 or 5 that would crowd an edge's tick is not */
            if (k > 0 && ((lo_edge && lv - a->lo < keep) || (hi_edge && a->hi - lv < keep)))
                continue;
            ticks[n++] = v;
        }
    if (hi_edge && n < max)
        ticks[n++] = edge_value(a->hi, 0);
    return n;
}

/* Prints m with at most two significant digits and no trailing zeros ("2", "1.7", "0.05"). */
static void short_number(double m, int e, char *out, size_t out_size)
{
    int decimals = e >= 1 ? 0 : 1 - e;
    rb_fmt(out, out_size, "%.*f", decimals, m);
    if (strchr(out, '.')) {
        size_t n = strlen(out);
        while (n && out[n - 1] == '0')
            out[--n] = '\0';
        if (n && out[n - 1] == '.')
            out[--n] = '\0';
    }
}

void rb_plot_tick_label(double v, int si, char *out, size_t out_size)
{
    static const char prefixes[] = " kMGTPE";
    int e = (int)floor(log10(v) + 1e-9);
    if (si && e >= 0 && e < 21) {
        int k = e / 3;
        short_number(v / pow(10, 3 * k), e - 3 * k, out, out_size);
        size_t n = strlen(out);
        if (k && n + 1 < out_size) {
            out[n] = prefixes[k];
            out[n + 1] = '\0';
        }
    } else if (e >= -3 && e <= 5) {
        short_number(v, e, out, out_size);
    } else {
        char m[16];
        short_number(v / pow(10, e), 0, m, sizeof m);
        rb_fmt(out, out_size, "%se%d", m, e);
    }
}
