/* SPDX-License-Identifier: MIT */
/*
 * The points of a chart's frame, the arrows of their ladders and their labels. Every label is
 * placed by plot_labels.c clear of every text, point, leader, roof line and arrow placed before
 * it (the strict pass alone: a label never crosses a line); one that finds no such place
 * becomes a number beside its point, listed in the key under its panel, and a point where even
 * the number finds none has its tooltip alone: a number in the key always has its mark.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"
#include "svg.h"

/* a label moved with a leader goes up to LINES lines up or down */
#define LINES 12
/* room for a point's places: 8 beside it, 20 * LINES moved with a leader, 26 upright */
#define MAX_PLACES (8 + 20 * LINES + 26)

int rb_plot_in_frame(const rb_plot_data *d, const rb_plot_frame *f, const rb_plot_point *p)
{
    if (!p->plotted || p->panel != f->panel)
        return 0;
    if (f->panel != RB_PANEL_ROOFLINE || f->zoom < 0)
        return 1;
    return p->zoomed && d->families[d->pair_family[p->pair_index]].zoom == f->zoom;
}

/* Roofline points that the compute-bound chart shows again: drawn small, not labelled, no
 * arrows. */
static int overview_only(const rb_plot_frame *f, const rb_plot_point *p)
{
    return f->panel == RB_PANEL_ROOFLINE && f->zoom < 0 && p->zoomed;
}

/* A pair's colour in a frame: its family's on the roofline (up to RB_PLOT_COLOURS families meet
 * there), its own shade of it on the others (a few families, pairs told apart). */
static void frame_colour(const rb_plot_data *d, const rb_plot_frame *f, int pair, char *out,
                         size_t size)
{
    if (f->panel == RB_PANEL_ROOFLINE && f->zoom < 0)
        rb_fmt(out, size, "%s", rb_plot_pair_colour(d, pair));
    else
        rb_plot_pair_shade(d, pair, out, size);
}

static int frame_shade(const rb_plot_data *d, const rb_plot_frame *f, int pair)
{
    return f->panel == RB_PANEL_ROOFLINE && f->zoom < 0 ? 0 : d->pair_rank[pair] % RB_PLOT_SHADES;
}

static void arrow_id(int chart, int colour, int shade, char *out, size_t size)
{
    rb_fmt(out, size, "arrow-%d-%d-%d", chart, colour, shade);
}

void rb_plot_draw_arrowheads(rb_sbuf *b, const rb_plot_canvas *c)
{
    int any = 0;
    for (int i = 0; i < RB_PLOT_COLOURS * RB_PLOT_SHADES; i++) {
        if (!c->arrows[i])
            continue;
        char id[48], colour[16];
        if (!any++)
            rb_svg_defs_begin(b);
        arrow_id((int)c->chart, i / RB_PLOT_SHADES, i % RB_PLOT_SHADES, id, sizeof id);
        rb_plot_shade(rb_plot_colour(i / RB_PLOT_SHADES), i % RB_PLOT_SHADES, colour,
                      sizeof colour);
        rb_svg_arrow_marker(b, id, colour);
    }
    if (any)
        rb_svg_defs_end(b);
}

/* ---- points ---- */

static void point_title(const rb_plot_point *p, char *out, size_t size)
{
    char rate[64], eff[96], ai[32];
    rb_plot_rate_text(p, rate, sizeof rate);
    rb_plot_efficiency_text(p, eff, sizeof eff);
    rb_plot_num(p->x, ai, sizeof ai);
    if (p->panel == RB_PANEL_ROOFLINE)
        rb_fmt(out, size, "%s / %s (%s): %s at %s FLOP/byte, %s%s", p->pair, p->variant, p->role,
               rate, ai, eff, p->informational ? " (informational)" : "");
    else
        rb_fmt(out, size, "%s / %s (%s): %s, %s%s", p->pair, p->variant, p->role, rate, eff,
               p->informational ? " (informational)" : "");
}

static double point_r(const rb_plot_frame *f, const rb_plot_point *p)
{
    return overview_only(f, p) ? 3.2 : p->is_part ? RB_PLOT_POINT_R - 0.5 : RB_PLOT_POINT_R;
}

void rb_plot_draw_arrows(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f)
{
    const rb_plot_data *d = c->d;
    int prev = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!rb_plot_in_frame(d, f, p) || overview_only(f, p) || p->is_part)
            continue;
        if (prev >= 0 && d->points[prev].pair_index == p->pair_index) {
            double dx = c->px[i] - c->px[prev], dy = c->py[i] - c->py[prev], len = hypot(dx, dy);
            if (len > 2 * RB_PLOT_POINT_R + 8) {
                double ux = dx / len, uy = dy / len, gap = RB_PLOT_POINT_R + 2;
                char marker[48], colour[16];
                int family_colour = d->families[d->pair_family[p->pair_index]].colour;
                int shade = frame_shade(d, f, p->pair_index);
                arrow_id((int)c->chart, family_colour, shade, marker, sizeof marker);
                c->arrows[family_colour * RB_PLOT_SHADES + shade] = 1;
                frame_colour(d, f, p->pair_index, colour, sizeof colour);
                double x0 = c->px[prev] + ux * gap, y0 = c->py[prev] + uy * gap;
                double x1 = c->px[i] - ux * gap, y1 = c->py[i] - uy * gap;
                rb_plot_line(b, "arrow", x0, y0, x1, y1, colour, 1.2, NULL, marker);
                /* the arrowhead is wider than its line: a label keeps clear of both */
                rb_plot_labels_block(&f->labels, rb_plot_segment(x0, y0, x1, y1), 1);
                rb_plot_labels_block(&f->labels, rb_plot_rect(x1 - 4, y1 - 4, 8, 8), 1);
            }
        }
        prev = i;
    }
}

void rb_plot_draw_points(rb_sbuf *b, const rb_plot_canvas *c, const rb_plot_frame *f)
{
    const rb_plot_data *d = c->d;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!rb_plot_in_frame(d, f, p))
            continue;
        char title[400], colour[16];
        point_title(p, title, sizeof title);
        frame_colour(d, f, p->pair_index, colour, sizeof colour);
        rb_plot_draw_marker(b, c->px[i], c->py[i], point_r(f, p),
                            rb_plot_pair_marker(d, p->pair_index), colour, p->is_part,
                            overview_only(f, p) ? "pt-overview" : "pt", title);
    }
}

void rb_plot_block_points(rb_plot_canvas *c, rb_plot_frame *f)
{
    for (int i = 0; i < c->d->n_points; i++)
        if (rb_plot_in_frame(c->d, f, &c->d->points[i]))
            rb_plot_labels_block(
                &f->labels, rb_plot_marker_quad(c->px[i], c->py[i], point_r(f, &c->d->points[i])),
                0);
}

/* ---- places ---- */

/* Where a horizontal label may go: beside, above or below its point; then a line or more up
 * or down, on either side, with a leader. Returns how many are adjacent (the first ones). */
static int horizontal_places(double x, double y, double r, double size, rb_plot_place *out,
                             int *n_out)
{
    double mid = y + 0.33 * size, gap = r + 3, over = y - r - 2,
           under = y + r + 2 + RB_PLOT_EM_ASCENT * size;
    rb_plot_place adj[8] = {
        {x + gap, mid, "start", 0, 0, 0, 0, 0, 0}, {x - gap, mid, "end", 0, 0, 0, 0, 0, 0},
        {x + r, over, "start", 0, 0, 0, 0, 0, 0},  {x + r, under, "start", 0, 0, 0, 0, 0, 0},
        {x - r, over, "end", 0, 0, 0, 0, 0, 0},    {x - r, under, "end", 0, 0, 0, 0, 0, 0},
        {x, over - 1, "middle", 0, 0, 0, 0, 0, 0}, {x, under + 1, "middle", 0, 0, 0, 0, 0, 0},
    };
    int n = 0;
    for (int k = 0; k < 8; k++)
        out[n++] = adj[k];
    static const double out_px[5] = {12, 40, 75, 130, 200};
    for (int k = 1; k <= 5 * LINES; k++)
        for (int dir = -1; dir <= 1; dir += 2)
            for (int side = 1; side >= -1; side -= 2) {
                /* up to LINES lines up or down, near, then further out, four times */
                double ly = mid + dir * ((k - 1) % LINES + 1) * 1.3 * size;
                double lx = x + side * (gap + out_px[(k - 1) / LINES]);
                double tx = lx - side * 2, ty = ly - 0.33 * size;
                double dx = tx - x, dy = ty - y, len = hypot(dx, dy);
                out[n++] = (rb_plot_place){lx,
                                           ly,
                                           side > 0 ? "start" : "end",
                                           0,
                                           1,
                                           x + dx / len * (1.5 * r + 1),
                                           y + dy / len * (1.5 * r + 1),
                                           tx,
                                           ty};
            }
    *n_out = n;
    return 8;
}

/* Upright places for a side panel's label: just above or below its point, then further up or
 * down with a leader (past a roof line the point sits by), then the horizontal ones. */
static int upright_places(double x, double y, double r, double size, const rb_plot_box *area,
                          rb_plot_place *out)
{
    const double shift = 0.33 * size;
    int n = 0;
    out[n++] = (rb_plot_place){x + shift, y - r - 3, "start", -90, 0, 0, 0, 0, 0};
    out[n++] = (rb_plot_place){x + shift, y + r + 3, "end", -90, 0, 0, 0, 0, 0};
    for (int k = 1; k <= 12; k++) {
        double up = y - r - 3 - 6 * k, down = y + r + 3 + 6 * k;
        if (up > area->y)
            out[n++] = (rb_plot_place){x + shift, up, "start", -90, 1, x, y - r - 1, x, up + 1};
        if (down < area->y + area->h)
            out[n++] = (rb_plot_place){x + shift, down, "end", -90, 1, x, y + r + 1, x, down - 1};
    }
    int moved;
    horizontal_places(x, y, r, size, out + n, &moved);
    return n + moved;
}

/* The first free place for text (adjacent ones first), clear of every shape; -1: none. */
static int place_label(rb_plot_frame *f, const char *text, double size, const rb_plot_place *pl,
                       int n)
{
    return rb_plot_labels_place(&f->labels, text, size, pl, n, &f->area, 1);
}

static void draw_placed(rb_sbuf *b, const rb_plot_place *p, double size, const char *colour,
                        const char *text)
{
    if (p->leader)
        rb_plot_line(b, "leader", p->lx0, p->ly0, p->lx1, p->ly1, colour, 0.6, NULL, NULL);
    rb_plot_halo_begin(b, "label");
    rb_svg_text(b, p->x, p->y, size, p->anchor, colour, p->rotate_deg, text);
    rb_svg_group_end(b);
}

/* The points of group (n of them, a label's) whose label found no place: one number beside
 * the first, each listed in the key under it; nothing when even the number finds no place
 * (their tooltips name them). */
static void number_points(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f, const int *group,
                          int n_group, double r, const char *colour)
{
    char num[16];
    rb_fmt(num, sizeof num, "%d", c->n_numbers + 1);
    rb_plot_place pl[MAX_PLACES];
    int n;
    horizontal_places(c->px[group[0]], c->py[group[0]], r, RB_PLOT_POINT_PX, pl, &n);
    int k = place_label(f, num, RB_PLOT_POINT_PX, pl, n);
    if (k < 0)
        return;
    c->n_numbers++;
    for (int g = 0; g < n_group; g++) {
        c->key_point[c->n_keys] = group[g];
        c->key_num[c->n_keys++] = c->n_numbers;
    }
    draw_placed(b, &pl[k], RB_PLOT_POINT_PX, colour, num);
}

/* How many points of the frame want a label; over RB_PLOT_MAX_LABELS, a note says that none
 * has one, and 0 comes back. */
static int labels_wanted(rb_sbuf *b, const rb_plot_data *d, rb_plot_frame *f)
{
    int n = 0;
    for (int i = 0; i < d->n_points; i++)
        n += rb_plot_in_frame(d, f, &d->points[i]) && !overview_only(f, &d->points[i]);
    if (n <= RB_PLOT_MAX_LABELS)
        return n;
    char text[120];
    rb_fmt(text, sizeof text, "%d points: labels left out (hover a point for its name)", n);
    rb_plot_frame_note(b, f, text, RB_PLOT_LABEL_PX, "#555555");
    return 0;
}

/* The points of frame f drawn where i is (their markers mostly overlapping) with the same
 * variant, not labelled yet: i and those, in the data's order. How many. */
static int coincident(const rb_plot_canvas *c, const rb_plot_frame *f, const unsigned char *done,
                      int i, int *group)
{
    const rb_plot_data *d = c->d;
    int n = 0;
    for (int k = 0; k < d->n_points; k++) {
        const rb_plot_point *p = &d->points[k];
        if (k == i || (!done[k] && rb_plot_in_frame(d, f, p) && !overview_only(f, p) &&
                       hypot(c->px[k] - c->px[i], c->py[k] - c->py[i]) <= 0.6 * RB_PLOT_POINT_R &&
                       !strcmp(p->variant, d->points[i].variant)))
            group[n++] = k;
    }
    return n;
}

/* A label's text: "pair: variant" on a pair's first point of the roofline, "variant" after it
 * (and on zoom panels, whose captions name the pairs); points drawn at one place share one,
 * a family said once: "fused_elementwise, rmsnorm.h4k/h16k/h64k: optimized". */
static void label_text(const rb_plot_data *d, const rb_plot_frame *f, const int *group, int n,
                       int first_of_pair, char *out, size_t size)
{
    const rb_plot_point *p = &d->points[group[0]];
    if (f->zoom >= 0 || (n == 1 && !first_of_pair)) {
        rb_fmt(out, size, "%s", p->variant);
        return;
    }
    out[0] = '\0';
    for (int g = 0; g < n; g++) {
        const rb_plot_point *q = &d->points[group[g]];
        int fam = d->pair_family[q->pair_index];
        const char *name = q->pair, *sep = g ? ", " : "";
        size_t fam_len = strlen(d->families[fam].name);
        if (g && fam == d->pair_family[d->points[group[g - 1]].pair_index] &&
            !strncmp(name, d->families[fam].name, fam_len) && name[fam_len] == '.') {
            name += fam_len + 1;
            sep = "/";
        }
        size_t len = strlen(out);
        rb_fmt(out + len, size - len, "%s%s", sep, name);
    }
    size_t len = strlen(out);
    rb_fmt(out + len, size - len, ": %s", p->variant);
}

/* A point to label, and how crowded its neighbourhood is. */
typedef struct crowd_entry {
    int point, crowd;
} crowd_entry;

static int by_crowd(const void *a, const void *b)
{
    const crowd_entry *x = a, *y = b;
    return x->crowd != y->crowd ? y->crowd - x->crowd : x->point - y->point;
}

/* The points of frame f to label, the most crowded first (they have the fewest places left),
 * each with first[i] set when it is its pair's first in the frame (its label names the pair).
 * How many. */
static int label_order(const rb_plot_canvas *c, const rb_plot_frame *f, crowd_entry *order,
                       unsigned char *first)
{
    const rb_plot_data *d = c->d;
    int n = 0, last_pair = -1;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!rb_plot_in_frame(d, f, p) || overview_only(f, p))
            continue;
        first[i] = p->pair_index != last_pair;
        last_pair = p->pair_index;
        order[n++] = (crowd_entry){i, 0};
    }
    /* points drawn at one place first (one label for all, a long one), then by crowding */
    for (int a = 0; a < n; a++)
        for (int k = 0; k < n; k++) {
            int i = order[a].point, j = order[k].point;
            double far = hypot(c->px[i] - c->px[j], c->py[i] - c->py[j]);
            order[a].crowd += k != a && far < 50;
            order[a].crowd += k != a && far <= 0.6 * RB_PLOT_POINT_R &&
                                      !strcmp(d->points[i].variant, d->points[j].variant)
                                  ? 1000
                                  : 0;
        }
    qsort(order, (size_t)n, sizeof *order, by_crowd);
    return n;
}

/* The label of a group of points at one place: beside it only (adjacent), or anywhere, else its
 * number. 1 when it is labelled or numbered. */
static int label_group(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f, const int *group,
                       int n_group, int first_of_pair, int adjacent)
{
    const rb_plot_data *d = c->d;
    const rb_plot_point *p = &d->points[group[0]];
    char text[200], colour[16];
    label_text(d, f, group, n_group, first_of_pair, text, sizeof text);
    frame_colour(d, f, p->pair_index, colour, sizeof colour);
    rb_plot_place pl[MAX_PLACES];
    int n, n_adj = horizontal_places(c->px[group[0]], c->py[group[0]], point_r(f, p),
                                     RB_PLOT_POINT_PX, pl, &n);
    int k = place_label(f, text, RB_PLOT_POINT_PX, pl, adjacent ? n_adj : n);
    if (k >= 0)
        draw_placed(b, &pl[k], RB_PLOT_POINT_PX, colour, text);
    else if (!adjacent)
        number_points(b, c, f, group, n_group, point_r(f, p), colour);
    return k >= 0 || !adjacent;
}

void rb_plot_label_points(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f)
{
    const rb_plot_data *d = c->d;
    size_t n_all = (size_t)d->n_points + 1;
    unsigned char *done = calloc(n_all, 1), *first = calloc(n_all, 1);
    int *group = calloc(n_all, sizeof *group);
    crowd_entry *order = calloc(n_all, sizeof *order);
    int n = done && first && group && order && labels_wanted(b, d, f)
                ? label_order(c, f, order, first)
                : 0;
    /* every label beside its point where it can be, then the others, moved with a leader */
    for (int adjacent = 1; adjacent >= 0; adjacent--)
        for (int at = 0; at < n; at++) {
            int i = order[at].point;
            if (done[i])
                continue;
            int n_group = coincident(c, f, done, i, group);
            /* points at one place (a long label, the hardest to place) take any place first */
            if (label_group(b, c, f, group, n_group, first[group[0]], adjacent && n_group == 1))
                for (int g = 0; g < n_group; g++)
                    done[group[g]] = 1;
        }
    free(done);
    free(first);
    free(group);
    free(order);
}

void rb_plot_label_side_points(rb_sbuf *b, rb_plot_canvas *c, rb_plot_frame *f)
{
    const rb_plot_data *d = c->d;
    if (!labels_wanted(b, d, f))
        return;
    for (int i = 0; i < d->n_points; i++) {
        const rb_plot_point *p = &d->points[i];
        if (!rb_plot_in_frame(d, f, p))
            continue;
        double r = point_r(f, p);
        rb_plot_place pl[MAX_PLACES];
        int n = upright_places(c->px[i], c->py[i], r, RB_PLOT_POINT_PX, &f->area, pl);
        char colour[16];
        frame_colour(d, f, p->pair_index, colour, sizeof colour);
        int k = place_label(f, p->variant, RB_PLOT_POINT_PX, pl, n);
        if (k >= 0)
            draw_placed(b, &pl[k], RB_PLOT_POINT_PX, colour, p->variant);
        else
            number_points(b, c, f, &i, 1, r, colour);
    }
}

double rb_plot_label_side_pairs(rb_sbuf *b, const rb_plot_canvas *c, rb_plot_frame *f)
{
    double lowest = f->area.y + f->area.h;
    const rb_plot_data *d = c->d;
    rb_plot_box below = {f->area.x, f->area.y + f->area.h + 2, f->area.w + 60, 56};
    /* as the points' labels: past RB_PLOT_MAX_LABELS pairs none (each is placed against every
     * box placed before it: thousands of pairs made the chart quadratic) */
    int pairs = 0;
    for (int i = 0; i < d->n_points; i++)
        pairs += rb_plot_in_frame(d, f, &d->points[i]) &&
                 (i == 0 || d->points[i].pair_index != d->points[i - 1].pair_index);
    if (pairs > RB_PLOT_MAX_LABELS)
        return lowest;
    for (int i = 0; i < d->n_points;) {
        int first = i, start = -1, last = -1;
        for (; i < d->n_points && d->points[i].pair_index == d->points[first].pair_index; i++)
            if (rb_plot_in_frame(d, f, &d->points[i])) {
                start = start < 0 ? i : start;
                last = i;
            }
        if (last < 0)
            continue;
        double mid = (c->px[start] + c->px[last]) / 2;
        rb_plot_place pl[8];
        for (int k = 0; k < 4; k++) {
            pl[2 * k] = (rb_plot_place){mid, below.y + 12 + 12 * k, "middle", 0, 0, 0, 0, 0, 0};
            pl[2 * k + 1] =
                (rb_plot_place){c->px[start] - 6, below.y + 12 + 12 * k, "start", 0, 0, 0, 0, 0, 0};
        }
        const char *name = d->points[first].pair;
        int k = rb_plot_labels_place(&f->labels, name, RB_PLOT_POINT_PX, pl, 8, &below, 1);
        char colour[16];
        frame_colour(d, f, d->points[first].pair_index, colour, sizeof colour);
        if (k >= 0) {
            draw_placed(b, &pl[k], RB_PLOT_POINT_PX, colour, name);
            lowest = fmax(lowest, pl[k].y + RB_PLOT_EM_DESCENT * RB_PLOT_POINT_PX);
        }
    }
    return lowest;
}

void rb_plot_frame_note(rb_sbuf *b, rb_plot_frame *f, const char *text, double size,
                        const char *colour)
{
    const rb_plot_box *a = &f->area;
    /* in a corner of the panel, else just above its top right corner */
    rb_plot_place pl[5] = {{a->x + a->w - 6, a->y + 16, "end", 0, 0, 0, 0, 0, 0},
                           {a->x + 6, a->y + 16, "start", 0, 0, 0, 0, 0, 0},
                           {a->x + a->w - 6, a->y + a->h - 6, "end", 0, 0, 0, 0, 0, 0},
                           {a->x + 6, a->y + a->h - 6, "start", 0, 0, 0, 0, 0, 0},
                           {a->x + a->w, a->y - 5, "end", 0, 0, 0, 0, 0, 0}};
    int k = rb_plot_labels_place(&f->labels, text, size, pl, 4, a, 1);
    if (k < 0 && rb_plot_labels_place(&f->labels, text, size, pl + 4, 1, NULL, 1) == 0)
        k = 4;
    if (k >= 0)
        draw_placed(b, &pl[k], size, colour, text);
}

/* ---- the key ---- */

/* Cuts UTF-8 text after max characters (never inside one). */
static void cut_chars(char *s, int max)
{
    int chars = 0;
    for (char *p = s; *p; p++)
        if ((*p & 0xc0) != 0x80 && chars++ == max) {
            *p = '\0';
            return;
        }
}

double rb_plot_draw_key(rb_sbuf *b, rb_plot_canvas *c, double y)
{
    if (c->keys_drawn == c->n_keys)
        return y;
    rb_svg_text(b, 20, y, 11, "start", "#000000", 0,
                "Points whose label did not fit, numbered above:");
    y += 16;
    int first = c->keys_drawn, rows = (c->n_keys - first + 1) / 2;
    for (int k = first; k < c->n_keys; k++) {
        const rb_plot_point *p = &c->d->points[c->key_point[k]];
        char text[400], rate[64], eff[96];
        rb_plot_rate_text(p, rate, sizeof rate);
        rb_plot_efficiency_text(p, eff, sizeof eff);
        rb_fmt(text, sizeof text, "%2d %s / %s: %s, %s", c->key_num[k], p->pair, p->variant, rate,
               eff);
        int col = (k - first) / rows, row = (k - first) % rows;
        cut_chars(text, 86); /* its column's width at 11 px */
        rb_svg_text(b, 20 + col * 590, y + row * 15, RB_PLOT_LABEL_PX, "start", "#222222", 0, text);
    }
    c->keys_drawn = c->n_keys;
    return y + rows * 15 + 10;
}
