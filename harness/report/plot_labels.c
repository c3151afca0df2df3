/* SPDX-License-Identifier: MIT */
/*
 * Label placement for the charts: shapes (rectangles, rotated or not, and segments), an overlap
 * test by separating axes, greedy placement over candidate places with a strict and a loose
 * pass, and stacking of margin labels. The text metrics are those of the charts' monospace font
 * as a browser lays it out (tests/browser_test.sh measures them there).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_draw.h"

/* shapes that share less than this (px) do not overlap: touching is fine */
#define HAIR 0.25

rb_plot_quad rb_plot_rect(double x, double y, double w, double h)
{
    rb_plot_quad q = {{x, x + w, x + w, x}, {y, y, y + h, y + h}, 4};
    return q;
}

rb_plot_quad rb_plot_segment(double x0, double y0, double x1, double y1)
{
    rb_plot_quad q = {{x0, x1, x1, x0}, {y0, y1, y1, y0}, 2};
    return q;
}

double rb_plot_text_width(const char *text, double size)
{
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        chars += (*p & 0xc0) != 0x80; /* UTF-8: count the first byte of each character */
    return RB_PLOT_EM_WIDTH * size * (double)chars;
}

rb_plot_quad rb_plot_text_quad(const char *text, double x, double y, double size,
                               const char *anchor, double rotate_deg)
{
    double w = rb_plot_text_width(text, size);
    double x0 = !strcmp(anchor, "end") ? -w : !strcmp(anchor, "middle") ? -w / 2 : 0;
    double lx[4] = {x0, x0 + w, x0 + w, x0},
           ly[4] = {-RB_PLOT_EM_ASCENT * size, -RB_PLOT_EM_ASCENT * size, RB_PLOT_EM_DESCENT * size,
                    RB_PLOT_EM_DESCENT * size};
    double a = rotate_deg * 3.14159265358979323846 / 180, c = cos(a), s = sin(a);
    rb_plot_quad q;
    q.n = 4;
    for (int k = 0; k < 4; k++) {
        q.x[k] = x + lx[k] * c - ly[k] * s;
        q.y[k] = y + lx[k] * s + ly[k] * c;
    }
    return q;
}

/* 1 when the projections of a and b on the axis (ax, ay) (unit length) leave a gap, or
 * overlap by no more than a hair. */
static int apart_on(const rb_plot_quad *a, const rb_plot_quad *b, double ax, double ay)
{
    double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
    for (int k = 0; k < a->n; k++) {
        double p = a->x[k] * ax + a->y[k] * ay;
        amin = fmin(amin, p);
        amax = fmax(amax, p);
    }
    for (int k = 0; k < b->n; k++) {
        double p = b->x[k] * ax + b->y[k] * ay;
        bmin = fmin(bmin, p);
        bmax = fmax(bmax, p);
    }
    return amax <= bmin + HAIR || bmax <= amin + HAIR;
}

/* Separated along one of q's edge normals, or (a segment) along its own direction. */
static int apart_by_edges(const rb_plot_quad *q, const rb_plot_quad *a, const rb_plot_quad *b)
{
    int edges = q->n == 2 ? 1 : 4;
    for (int k = 0; k < edges; k++) {
        double dx = q->x[(k + 1) % q->n] - q->x[k], dy = q->y[(k + 1) % q->n] - q->y[k];
        double len = hypot(dx, dy);
        if (len == 0)
            continue;
        if (apart_on(a, b, -dy / len, dx / len))
            return 1;
        if (q->n == 2 && apart_on(a, b, dx / len, dy / len))
            return 1;
    }
    return 0;
}

int rb_plot_quads_overlap(const rb_plot_quad *a, const rb_plot_quad *b)
{
    /* convex shapes are apart exactly when some edge normal separates them; a zero-length
     * segment is a point, separated along either axis */
    if (apart_on(a, b, 1, 0) || apart_on(a, b, 0, 1))
        return 0;
    return !apart_by_edges(a, a, b) && !apart_by_edges(b, a, b);
}

static rb_plot_box box_of(const rb_plot_quad *q)
{
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int k = 0; k < q->n; k++) {
        x0 = fmin(x0, q->x[k]);
        x1 = fmax(x1, q->x[k]);
        y0 = fmin(y0, q->y[k]);
        y1 = fmax(y1, q->y[k]);
    }
    return (rb_plot_box){x0, y0, x1 - x0, y1 - y0};
}

/* The boxes share more than a hair: the quads may overlap. */
static int boxes_meet(const rb_plot_box *a, const rb_plot_box *b)
{
    return a->x + a->w > b->x + HAIR && b->x + b->w > a->x + HAIR && a->y + a->h > b->y + HAIR &&
           b->y + b->h > a->y + HAIR;
}

int rb_plot_labels_block(rb_plot_labels *l, rb_plot_quad q, int soft)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        rb_plot_quad *s = realloc(l->shapes, (size_t)cap * sizeof *s);
        if (!s)
            return -1;
        l->shapes = s;
        rb_plot_box *b = realloc(l->bounds, (size_t)cap * sizeof *b);
        if (!b)
            return -1;
        l->bounds = b;
        unsigned char *f = realloc(l->soft, (size_t)cap);
        if (!f)
            return -1;
        l->soft = f;
        l->cap = cap;
    }
    l->shapes[l->n] = q;
    l->bounds[l->n] = box_of(&q);
    l->soft[l->n++] = (unsigned char)(soft == RB_PLOT_LEADER ? RB_PLOT_LEADER : soft != 0);
    return 0;
}

static int inside(const rb_plot_quad *q, const rb_plot_box *b)
{
    for (int k = 0; b && k < q->n; k++)
        if (q->x[k] < b->x || q->x[k] > b->x + b->w || q->y[k] < b->y || q->y[k] > b->y + b->h)
            return 0;
    return 1;
}

/* 1 when q lies inside bounds and overlaps no shape of a kind in kinds (bit k: soft value k). */
static int free_of(const rb_plot_labels *l, const rb_plot_quad *q, unsigned kinds,
                   const rb_plot_box *bounds)
{
    if (!inside(q, bounds))
        return 0;
    rb_plot_box box = box_of(q);
    for (int k = 0; k < l->n; k++)
        if ((kinds >> l->soft[k] & 1) && boxes_meet(&box, &l->bounds[k]) &&
            rb_plot_quads_overlap(q, &l->shapes[k]))
            return 0;
    return 1;
}

int rb_plot_labels_free_at(const rb_plot_labels *l, const rb_plot_quad *q, int strict,
                           const rb_plot_box *bounds)
{
    return free_of(l, q, strict ? 7u : 5u, bounds);
}

/* q grown by pad on every side (a rectangle along its own edges; a segment into a box). */
static rb_plot_quad grown(const rb_plot_quad *q, double pad)
{
    rb_plot_quad g = *q;
    if (q->n == 2) {
        double dx = q->x[1] - q->x[0], dy = q->y[1] - q->y[0], len = hypot(dx, dy);
        double ux = len > 0 ? dx / len : 1, uy = len > 0 ? dy / len : 0;
        double ax[4] = {q->x[0], q->x[1], q->x[1], q->x[0]},
               ay[4] = {q->y[0], q->y[1], q->y[1], q->y[0]};
        static const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
        for (int k = 0; k < 4; k++) {
            g.x[k] = ax[k] + pad * (su[k] * ux - sv[k] * uy);
            g.y[k] = ay[k] + pad * (su[k] * uy + sv[k] * ux);
        }
        g.n = 4;
        return g;
    }
    double ux = q->x[1] - q->x[0], uy = q->y[1] - q->y[0], vx = q->x[3] - q->x[0],
           vy = q->y[3] - q->y[0], lu = hypot(ux, uy), lv = hypot(vx, vy);
    ux = lu > 0 ? ux / lu : 1;
    uy = lu > 0 ? uy / lu : 0;
    vx = lv > 0 ? vx / lv : -uy;
    vy = lv > 0 ? vy / lv : ux;
    static const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
    for (int k = 0; k < 4; k++) {
        g.x[k] = q->x[k] + pad * (su[k] * ux + sv[k] * vx);
        g.y[k] = q->y[k] + pad * (su[k] * uy + sv[k] * vy);
    }
    return g;
}

int rb_plot_labels_crowding(const rb_plot_labels *l, const rb_plot_quad *q, double pad)
{
    rb_plot_quad g = grown(q, pad);
    rb_plot_box box = box_of(&g);
    int n = 0;
    /* past a crowd of RB_PLOT_CROWD, more makes no difference to where a label goes */
    for (int k = 0; k < l->n && n < RB_PLOT_CROWD; k++)
        n += !l->soft[k] && boxes_meet(&box, &l->bounds[k]) &&
             rb_plot_quads_overlap(&g, &l->shapes[k]);
    return n;
}

int rb_plot_labels_place(rb_plot_labels *l, const char *text, double size,
                         const rb_plot_place *places, int n, const rb_plot_box *bounds,
                         int strict_only)
{
    for (int strict = 1; strict >= (strict_only ? 1 : 0); strict--)
        for (int i = 0; i < n; i++) {
            const rb_plot_place *p = &places[i];
            rb_plot_quad q = rb_plot_text_quad(text, p->x, p->y, size, p->anchor, p->rotate_deg);
            rb_plot_quad lead = rb_plot_segment(p->lx0, p->ly0, p->lx1, p->ly1);
            /* a leader may cross a soft block (a roof line: a thin grey line across a line reads
             * as a leader) and another leader, never a hard one (a text, a point) */
            if (!rb_plot_labels_free_at(l, &q, strict, bounds) ||
                (p->leader && !free_of(l, &lead, 1u, NULL)))
                continue;
            if (rb_plot_labels_block(l, q, 0) != 0 ||
                (p->leader && rb_plot_labels_block(l, lead, RB_PLOT_LEADER) != 0))
                return -1;
            return i;
        }
    return -1;
}

void rb_plot_labels_free(rb_plot_labels *l)
{
    free(l->shapes);
    free(l->bounds);
    free(l->soft);
    memset(l, 0, sizeof *l);
}

static int by_value(const void *a, const void *b)
{
    double x = **(const double *const *)a, y = **(const double *const *)b;
    return (x > y) - (x < y);
}

void rb_plot_stack(const double *wanted, const double *height, double *got, int n, double lo,
                   double hi)
{
    const double **order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    double *y = calloc((size_t)(n > 0 ? n : 1), sizeof *y);
    if (!order || !y) {
        for (int i = 0; i < n; i++)
            got[i] = wanted[i];
        free(order);
        free(y);
        return;
    }
    for (int i = 0; i < n; i++)
        order[i] = &wanted[i];
    qsort(order, (size_t)n, sizeof *order, by_value);
#define H(k) height[order[k] - wanted]
    /* down from the top, each clear of the one before; then up from the bottom, if the last
     * ran past hi; then down again, so that none goes above lo (too many: they run past hi) */
    for (int k = 0; k < n; k++)
        y[k] = fmax(fmax(*order[k], lo + H(k) / 2), k ? y[k - 1] + (H(k - 1) + H(k)) / 2 : lo);
    for (int k = n - 1; k >= 0; k--)
        y[k] = fmin(y[k], k == n - 1 ? hi - H(k) / 2 : y[k + 1] - (H(k) + H(k + 1)) / 2);
    for (int k = 0; k < n; k++)
        y[k] = fmax(y[k], k ? y[k - 1] + (H(k - 1) + H(k)) / 2 : lo + H(k) / 2);
#undef H
    for (int k = 0; k < n; k++)
        got[order[k] - wanted] = y[k];
    free(y);
    free(order);
}
