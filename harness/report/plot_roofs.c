/* SPDX-License-Identifier: MIT */
/*
 * The roofs of the roofline chart's panels and their labels. Roofs whose values lie within 6%
 * of each other (DRAM copy, read and write; BF16 and FP16) are drawn each but labelled once,
 * "DRAM copy 3022, read 3171, write 3280, peak 3352 GB/s", so their labels cannot collide;
 * datasheet peaks of equal value are drawn and named once ("BF16/FP16 peak 989"). Slanted
 * memory roofs are labelled along their bundle inside the panel, flat roofs in the panel's
 * right margin, stacked in the order of their lines, with a leader where a label had to move.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

#define MAX_ITEMS 48
/* roofs closer than this ratio share one label */
#define SAME_LABEL 1.06

int rb_plot_roof_on_main(const rb_plot_roof *r)
{
    return r->kind == RB_PLOT_ROOF_COMPUTE ||
           (r->kind == RB_PLOT_ROOF_BANDWIDTH && strncmp(r->key, "pcie_", 5) &&
            strncmp(r->key, "nvlink_", 7));
}

static double roof_value(const rb_plot_roof *r, int peak)
{
    return peak ? r->peak : r->measured;
}

double rb_plot_top_roof(const rb_plot_data *d, rb_plot_roof_kind kind, int peak)
{
    double top = NAN;
    for (int i = 0; i < d->n_roofs; i++) {
        double v = roof_value(&d->roofs[i], peak);
        if (d->roofs[i].kind == kind && rb_plot_roof_on_main(&d->roofs[i]) && v > 0 && !(v <= top))
            top = v;
    }
    return top;
}

static int on_side_panel(const rb_plot_roof *r, rb_plot_panel panel)
{
    int link = !strncmp(r->key, "pcie_", 5) || !strncmp(r->key, "nvlink_", 7);
    return panel == RB_PANEL_LATENCY ? r->kind == RB_PLOT_ROOF_LATENCY
           : panel == RB_PANEL_LINK  ? r->kind == RB_PLOT_ROOF_BANDWIDTH && link
           : panel == RB_PANEL_COLLECTIVE
               ? r->kind == RB_PLOT_ROOF_BANDWIDTH && !strncmp(r->key, "nvlink_", 7)
           : panel == RB_PANEL_BANDWIDTH ? r->kind == RB_PLOT_ROOF_BANDWIDTH && !link
                                         : 0;
}

/* The roofs a frame shows: the main panel all of its kind; a zoom panel the compute roofs its
 * points are judged against, flat across it (the main panel shows where memory roofs meet
 * them). */
static int frame_shows(const rb_plot_data *d, const rb_plot_frame *f, const rb_plot_roof *r)
{
    if (f->panel != RB_PANEL_ROOFLINE)
        return on_side_panel(r, f->panel);
    if (!rb_plot_roof_on_main(r))
        return 0;
    if (f->zoom < 0)
        return 1;
    if (r->kind != RB_PLOT_ROOF_COMPUTE)
        return 0;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (p->zoomed && d->families[d->pair_family[p->pair_index]].zoom == f->zoom && p->roof &&
            !strcmp(p->roof, r->key))
            return 1;
    }
    return 0;
}

void rb_plot_side_roof_range(const rb_plot_data *d, rb_plot_panel panel, double *lo, double *hi)
{
    for (int i = 0; i < d->n_roofs; i++)
        if (on_side_panel(&d->roofs[i], panel)) {
            rb_plot_widen(lo, hi, d->roofs[i].measured);
            rb_plot_widen(lo, hi, d->roofs[i].peak);
        }
}

/* ---- one line per roof, one label per group of close ones ---- */

typedef struct roof_item {
    const rb_plot_roof *r;
    int peak;
    double v;
    char name[48];
} roof_item;

static size_t first_word(const char *s)
{
    return strcspn(s, " ");
}

/* Adds r's measured or peak value to items, a peak equal to one already there merged into it:
 * "DRAM" for DRAM copy, read and write, "BF16/FP16" for two names. */
static int add_item(roof_item *items, int n, const rb_plot_roof *r, int peak)
{
    double v = roof_value(r, peak);
    if (!(v > 0) || n == MAX_ITEMS)
        return n;
    char name[48];
    rb_plot_roof_name(r->key, name, sizeof name);
    for (int k = 0; peak && k < n; k++)
        if (items[k].peak && items[k].v == v && items[k].r->kind == r->kind) {
            size_t w = first_word(items[k].name);
            if (w == first_word(name) && !strncmp(items[k].name, name, w))
                items[k].name[w] = '\0';
            else if (!strstr(items[k].name, name))
                rb_fmt(items[k].name + strlen(items[k].name),
                       sizeof items[k].name - strlen(items[k].name), "/%s", name);
            return n;
        }
    items[n] = (roof_item){r, peak, v, ""};
    rb_fmt(items[n].name, sizeof items[n].name, "%s", name);
    return n + 1;
}

static int by_item_value(const void *a, const void *b)
{
    const roof_item *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

/* The frame's roofs of one kind (compute or not), measured and peaks, by value. */
static int collect(const rb_plot_data *d, const rb_plot_frame *f, int compute, roof_item *items)
{
    int n = 0;
    for (int peak = 0; peak < 2; peak++)
        for (int i = 0; i < d->n_roofs; i++) {
            const rb_plot_roof *r = &d->roofs[i];
            if (frame_shows(d, f, r) && (r->kind == RB_PLOT_ROOF_COMPUTE) == compute)
                n = add_item(items, n, r, peak);
        }
    qsort(items, (size_t)n, sizeof *items, by_item_value);
    return n;
}

/* The end of the group that starts at items[k]: the first item not within SAME_LABEL. */
static int group_end(const roof_item *items, int n, int k)
{
    int e = k + 1;
    while (e < n && items[e].v <= items[e - 1].v * SAME_LABEL)
        e++;
    return e;
}

/* "DRAM copy 3022, read 3171, peak 3352 GB/s": a name's first word is said once. */
static void group_text(const roof_item *items, int k, int e, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = k; i < e; i++) {
        const char *name = items[i].name;
        size_t w = first_word(name);
        if (i > k && w == first_word(items[i - 1].name) && !strncmp(name, items[i - 1].name, w))
            name += w + (name[w] == ' ');
        char v[32];
        rb_plot_num(items[i].v, v, sizeof v);
        rb_fmt(out + len, size - len, "%s%s%s%s%s", i > k ? ", " : "", name,
               items[i].peak ? (name[0] ? " peak" : "peak") : "",
               name[0] || items[i].peak ? " " : "", v);
        len = strlen(out);
    }
    rb_plot_roof_kind kind = items[k].r->kind;
    rb_fmt(out + len, size - len, " %s",
           kind == RB_PLOT_ROOF_COMPUTE   ? "TFLOP/s"
           : kind == RB_PLOT_ROOF_LATENCY ? "\xc2\xb5s"
                                          : "GB/s");
}

static const char *group_colour(const roof_item *items, int k, int e)
{
    for (int i = k; i < e; i++)
        if (!items[i].peak)
            return "#111111";
    return "#5a5a5a";
}

static void roof_line(rb_sbuf *b, rb_plot_frame *f, const roof_item *it, double x0, double y0,
                      double x1, double y1)
{
    rb_plot_line(b, "roof", x0, y0, x1, y1,
                 it->peak ? RB_PLOT_PEAK_COLOUR : RB_PLOT_MEASURED_COLOUR, it->peak ? 1.2 : 1.8,
                 it->peak ? RB_PLOT_PEAK_DASH : NULL, NULL);
    rb_plot_labels_block(&f->labels, rb_plot_segment(x0, y0, x1, y1), 1);
}

/* ---- labels in the right margin ---- */

typedef struct margin_label {
    char lines[3][96];
    int n_lines;
    double line_y, want, got; /* the roof's pixel row; the label's middle, wished and given */
    const char *colour;
} margin_label;

/* Breaks text after ", " into lines that fit width px (at most 3). */
static void break_lines(margin_label *m, const char *text, double width)
{
    int max_chars = (int)(width / rb_plot_text_width("x", RB_PLOT_LABEL_PX));
    m->n_lines = 0;
    while (*text && m->n_lines < 3) {
        int n = (int)strlen(text);
        if (n > max_chars && m->n_lines < 2) {
            int cut = max_chars;
            while (cut > 0 && strncmp(text + cut, ", ", 2))
                cut--;
            n = cut > 0 ? cut + 1 : max_chars;
        }
        rb_fmt(m->lines[m->n_lines++], sizeof m->lines[0], "%.*s", n, text);
        text += n;
        while (*text == ' ')
            text++;
    }
}

static void draw_margin_labels(rb_sbuf *b, rb_plot_frame *f, margin_label *m, int n)
{
    double want[MAX_ITEMS], height[MAX_ITEMS], got[MAX_ITEMS];
    const double line_h = 1.3 * RB_PLOT_LABEL_PX;
    for (int i = 0; i < n; i++) {
        want[i] = m[i].want;
        height[i] = m[i].n_lines * line_h + 2;
    }
    rb_plot_stack(want, height, got, n, f->area.y - 8, f->area.y + f->area.h + 8);
    for (int i = 0; i < n; i++) {
        double top = got[i] - height[i] / 2 + 1, x = f->margin_x;
        if (fabs(got[i] - m[i].line_y) > 2)
            rb_plot_line(b, "leader", f->area.x + f->area.w + 1, m[i].line_y, x - 2, got[i],
                         "#999999", 0.6, NULL, NULL);
        for (int k = 0; k < m[i].n_lines; k++) {
            double base = top + k * line_h + RB_PLOT_EM_ASCENT * RB_PLOT_LABEL_PX;
            rb_plot_halo_begin(b, "roof-label");
            rb_svg_text(b, x, base, RB_PLOT_LABEL_PX, "start", m[i].colour, 0, m[i].lines[k]);
            rb_svg_group_end(b);
            rb_plot_labels_block(
                &f->labels, rb_plot_text_quad(m[i].lines[k], x, base, RB_PLOT_LABEL_PX, "start", 0),
                0);
        }
    }
}

/* Flat roofs: item i from px0[i] (NaN: not visible) to the area's right edge at py[i], one
 * margin label per group of the visible ones. */
static void draw_flat_items(rb_sbuf *b, rb_plot_frame *f, roof_item *items, int n,
                            const double *px0, const double *py)
{
    roof_item vis[MAX_ITEMS];
    double vis_y[MAX_ITEMS];
    int nv = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(px0[i])) {
            roof_line(b, f, &items[i], px0[i], py[i], f->area.x + f->area.w, py[i]);
            vis_y[nv] = py[i];
            vis[nv++] = items[i];
        }
    margin_label m[MAX_ITEMS];
    int nm = 0;
    for (int k = 0, e; k < nv; k = e) {
        e = group_end(vis, nv, k);
        char text[300];
        group_text(vis, k, e, text, sizeof text);
        break_lines(&m[nm], text, f->margin_w);
        double sum = 0;
        for (int i = k; i < e; i++)
            sum += vis_y[i];
        m[nm].line_y = m[nm].want = sum / (e - k);
        m[nm++].colour = group_colour(vis, k, e);
    }
    draw_margin_labels(b, f, m, nm);
}

void rb_plot_draw_flat_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f)
{
    roof_item items[MAX_ITEMS];
    double px0[MAX_ITEMS], py[MAX_ITEMS];
    int n = collect(d, f, 0, items);
    for (int i = 0; i < n; i++) {
        double lv = log10(items[i].v);
        px0[i] = lv >= f->y.lo && lv <= f->y.hi ? f->area.x : NAN;
        py[i] = rb_plot_axis_map(&f->y, items[i].v);
    }
    draw_flat_items(b, f, items, n, px0, py);
}

/* Compute roofs: flat, from where each meets the highest memory roof of its kind (measured or
 * datasheet) to the right edge. */
static void draw_compute_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f)
{
    roof_item items[MAX_ITEMS];
    double px0[MAX_ITEMS], py[MAX_ITEMS];
    int n = collect(d, f, 1, items);
    for (int i = 0; i < n; i++) {
        double ly = log10(items[i].v * 1e12);
        double top_m = rb_plot_top_roof(d, RB_PLOT_ROOF_BANDWIDTH, items[i].peak);
        double lx0 = top_m > 0 && f->zoom < 0 ? fmax(f->x.lo, ly - log10(top_m * 1e9)) : f->x.lo;
        int shown = ly >= f->y.lo && ly <= f->y.hi && lx0 < f->x.hi;
        px0[i] = shown ? rb_plot_axis_map(&f->x, pow(10, lx0)) : NAN;
        py[i] = rb_plot_axis_map(&f->y, pow(10, ly));
    }
    draw_flat_items(b, f, items, n, px0, py);
}

/* The visible part of a memory roof of v GB/s, up to where it meets the highest compute roof
 * of its kind; 0 when none of it is inside the frame. */
static int slant_segment(const rb_plot_data *d, const rb_plot_frame *f, const roof_item *it,
                         double *seg)
{
    double lbw = log10(it->v * 1e9), top_c = rb_plot_top_roof(d, RB_PLOT_ROOF_COMPUTE, it->peak);
    double lx0 = f->x.lo, lx1 = top_c > 0 ? log10(top_c * 1e12) - lbw : f->x.hi;
    lx1 = fmin(fmin(lx1, f->x.hi), f->y.hi - lbw);
    lx0 = fmax(lx0, f->y.lo - lbw);
    if (!(lx0 < lx1))
        return 0;
    seg[0] = rb_plot_axis_map(&f->x, pow(10, lx0));
    seg[1] = rb_plot_axis_map(&f->y, pow(10, lbw + lx0));
    seg[2] = rb_plot_axis_map(&f->x, pow(10, lx1));
    seg[3] = rb_plot_axis_map(&f->y, pow(10, lbw + lx1));
    return 1;
}

/* Places along a segment, the text's baseline offset px to its side (up: -1 above, 1 below),
 * only where the whole text lies along the segment. */
static int along(const double *seg, double offset, double w, rb_plot_place *out, int max)
{
    double dx = seg[2] - seg[0], dy = seg[3] - seg[1], len = hypot(dx, dy);
    double c = dx / len, s = dy / len, deg = atan2(dy, dx) * 180 / 3.14159265358979323846;
    int n = 0;
    for (double t = 0.03; t < 1 && n < max; t += 0.04) {
        if (t * len + w > len - 4)
            break;
        out[n] = (rb_plot_place){seg[0] + t * dx - offset * s,
                                 seg[1] + t * dy + offset * c,
                                 "start",
                                 deg,
                                 0,
                                 0,
                                 0,
                                 0,
                                 0};
        n++;
    }
    return n;
}

/* Orders places from the least crowded (fewest points near them) to the most, keeping the order
 * of equals: a roof's label goes where it leaves the points' labels most room. */
static void sort_by_crowding(const rb_plot_labels *l, const char *text, rb_plot_place *pl, int n)
{
    int crowd[720];
    n = n > 720 ? 720 : n;
    for (int i = 0; i < n; i++) {
        rb_plot_quad q = rb_plot_text_quad(text, pl[i].x, pl[i].y, RB_PLOT_LABEL_PX, pl[i].anchor,
                                           pl[i].rotate_deg);
        crowd[i] = rb_plot_labels_crowding(l, &q, 24);
    }
    for (int i = 1; i < n; i++) {
        rb_plot_place p = pl[i];
        int c = crowd[i], k = i;
        for (; k > 0 && crowd[k - 1] > c; k--) {
            pl[k] = pl[k - 1];
            crowd[k] = crowd[k - 1];
        }
        pl[k] = p;
        crowd[k] = c;
    }
}

/* Level places with a leader, for a bundle whose slant is crowded: right of and below a point
 * of the lowest line, or left of and above one of the highest, a line or more away. */
static int level_places(const double *low, const double *high, rb_plot_place *out, int max)
{
    int n = 0;
    for (double t = 0.02; t < 0.95; t += 0.04)
        for (int k = 1; k <= 10 && n + 2 <= max; k++) {
            double x = low[0] + t * (low[2] - low[0]), y = low[1] + t * (low[3] - low[1]);
            double by = y + 4 + k * 1.3 * RB_PLOT_LABEL_PX;
            out[n++] = (rb_plot_place){
                x + 8, by, "start", 0, 1, x + 1, y + 2, x + 7, by - 0.6 * RB_PLOT_LABEL_PX};
            x = high[0] + t * (high[2] - high[0]);
            y = high[1] + t * (high[3] - high[1]);
            by = y - 4 - (k - 1) * 1.3 * RB_PLOT_LABEL_PX;
            out[n++] = (rb_plot_place){
                x - 8, by, "end", 0, 1, x - 1, y - 2, x - 7, by - 0.3 * RB_PLOT_LABEL_PX};
        }
    return n;
}

/* A bundle's label along it: above the highest line or below the lowest, just off them or a
 * little further (clear of the points that sit on the lines), where fewest points are near;
 * else level, with a leader. Never across a line or an arrow: a bundle with no such place has
 * no label. */
static void label_memory_group(rb_sbuf *b, rb_plot_frame *f, const roof_item *items, int k, int e,
                               double (*seg)[4])
{
    char text[300];
    group_text(items, k, e, text, sizeof text);
    double w = rb_plot_text_width(text, RB_PLOT_LABEL_PX);
    static const double off[5] = {3, 9, 15, 21, 27};
    rb_plot_place places[720];
    int n = 0;
    for (int i = 0; i < 5; i++) {
        n += along(seg[e - 1], -off[i], w, places + n, 300 - n);
        n += along(seg[k], off[i] + RB_PLOT_EM_ASCENT * RB_PLOT_LABEL_PX, w, places + n, 300 - n);
    }
    sort_by_crowding(&f->labels, text, places, n);
    int n_along = n;
    n += level_places(seg[k], seg[e - 1], places + n, 720 - n);
    sort_by_crowding(&f->labels, text, places + n_along, n - n_along);
    int at = rb_plot_labels_place(&f->labels, text, RB_PLOT_LABEL_PX, places, n, &f->area, 1);
    if (at < 0)
        return;
    if (places[at].leader)
        rb_plot_line(b, "leader", places[at].lx0, places[at].ly0, places[at].lx1, places[at].ly1,
                     "#888888", 0.6, NULL, NULL);
    rb_plot_halo_begin(b, "roof-label");
    rb_svg_text(b, places[at].x, places[at].y, RB_PLOT_LABEL_PX, places[at].anchor,
                group_colour(items, k, e), places[at].rotate_deg, text);
    rb_svg_group_end(b);
}

/* Memory roofs: slanted, up to where each meets the highest compute roof of its kind. Lines
 * first (labels: 0), their labels after the points' (labels: 1), which have fewer places to
 * go. */
static void memory_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f, int labels)
{
    roof_item items[MAX_ITEMS], vis[MAX_ITEMS];
    double seg[MAX_ITEMS][4];
    int n = collect(d, f, 0, items), nv = 0;
    for (int i = 0; i < n; i++)
        if (slant_segment(d, f, &items[i], seg[nv]))
            vis[nv++] = items[i];
    for (int k = 0, e; k < nv; k = e) {
        e = group_end(vis, nv, k);
        if (labels)
            label_memory_group(b, f, vis, k, e, seg);
        else
            for (int i = k; i < e; i++)
                roof_line(b, f, &vis[i], seg[i][0], seg[i][1], seg[i][2], seg[i][3]);
    }
}

void rb_plot_draw_roofline_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f)
{
    draw_compute_roofs(b, d, f);
    memory_roofs(b, d, f, 0);
}

void rb_plot_label_memory_roofs(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f)
{
    memory_roofs(b, d, f, 1);
}
