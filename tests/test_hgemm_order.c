/* SPDX-License-Identifier: MIT */
/*
 * Tier 2 (no GPU needed): the tile orders of hgemm's persistent steps (6-7 and fp8), run on the
 * CPU through kernels/hgemm.cu's own functions (hgemm_cluster_tile, compiled by nvcc for host and
 * device alike). A persistent kernel computes exactly the tiles its order names, so an order that
 * names a tile twice or misses one is a wrong C: every order must be a permutation of the grid,
 * at square, tall, wide, odd and single-tile grids. The Hilbert order must be the t-th grid cell
 * met along the curve over the covering power-of-two square (fast.cu's host table, rebuilt here
 * by walking the curve), and on a power-of-two grid its consecutive tiles are neighbours and each
 * aligned run of 4^j tiles is a 2^j x 2^j square (the L2 locality it exists for). Planted: an
 * order that walks the curve without skipping the cells outside the grid, a grouped order whose
 * last group is taken as full, and a Hilbert order with rows and columns swapped; the permutation
 * check must catch each.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/hgemm.h"
#include "rbtest.h"

extern const rbtest_suite hgemm_order_suite;

typedef void (*order_fn)(int t, int tiles_m, int tiles_n, int *tm, int *tn);

static void grouped(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    hgemm_cluster_tile(HGEMM_ORDER_GROUPED, t, tiles_m, tiles_n, tm, tn);
}

static void hilbert(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    hgemm_cluster_tile(HGEMM_ORDER_HILBERT, t, tiles_m, tiles_n, tm, tn);
}

/* The Hilbert curve's cell d of an n x n square (n a power of two), in the Wikipedia form that
 * fast.cu's d2xy copies: written here from the definition, independently of kernels/hgemm.cu. */
static void ref_d2xy(int n, int d, int *x, int *y)
{
    *x = *y = 0;
    for (int s = 1; s < n; s *= 2, d /= 4) {
        int rx = 1 & (d / 2), ry = 1 & (d ^ rx);
        if (ry == 0) {
            if (rx == 1) {
                *x = s - 1 - *x;
                *y = s - 1 - *y;
            }
            int swap = *x;
            *x = *y;
            *y = swap;
        }
        *x += s * rx;
        *y += s * ry;
    }
}

static int covering_side(int tiles_m, int tiles_n)
{
    int side = 1;
    while (side < tiles_m || side < tiles_n)
        side *= 2;
    return side;
}

/* Grid problems of an order: tiles named outside the grid, named twice, or never named. */
static int order_problems(order_fn f, int tiles_m, int tiles_n)
{
    int tiles = tiles_m * tiles_n, bad = 0;
    unsigned char *seen = calloc((size_t)tiles, 1);
    if (!seen)
        return -1;
    for (int t = 0; t < tiles; t++) {
        int tm = -1, tn = -1;
        f(t, tiles_m, tiles_n, &tm, &tn);
        if (tm < 0 || tm >= tiles_m || tn < 0 || tn >= tiles_n)
            bad++;
        else if (seen[tm * tiles_n + tn]++)
            bad++;
    }
    for (int i = 0; i < tiles; i++)
        bad += !seen[i];
    free(seen);
    return bad;
}

static const int shapes[][2] = {{1, 1},   {1, 8},   {8, 1},   {4, 4},  {2, 3},  {3, 20},  {12, 4},
                                {16, 16}, {24, 24}, {32, 32}, {5, 37}, {64, 2}, {17, 33}, {100, 3}};
enum { SHAPES = sizeof shapes / sizeof shapes[0] };

static void test_orders_are_permutations(void)
{
    for (int i = 0; i < SHAPES; i++) {
        int g = order_problems(grouped, shapes[i][0], shapes[i][1]);
        int h = order_problems(hilbert, shapes[i][0], shapes[i][1]);
        if (g || h)
            printf("    %d x %d: grouped %d, hilbert %d problems\n", shapes[i][0], shapes[i][1], g,
                   h);
        RB_CHECK(g == 0 && h == 0);
    }
}

/* The kernel's order against the curve walked cell by cell, the cells outside the grid skipped. */
static void test_hilbert_matches_curve_walk(void)
{
    for (int i = 0; i < SHAPES; i++) {
        int tiles_m = shapes[i][0], tiles_n = shapes[i][1], side = covering_side(tiles_m, tiles_n);
        int t = 0, wrong = 0;
        for (int d = 0; d < side * side; d++) {
            int x, y, tm = -1, tn = -1;
            ref_d2xy(side, d, &x, &y);
            if (x >= tiles_m || y >= tiles_n)
                continue;
            hilbert(t++, tiles_m, tiles_n, &tm, &tn);
            wrong += tm != x || tn != y;
        }
        if (wrong || t != tiles_m * tiles_n)
            printf("    %d x %d: %d tiles differ from the walk\n", tiles_m, tiles_n, wrong);
        RB_CHECK(wrong == 0 && t == tiles_m * tiles_n);
    }
}

/* On a 32 x 32 grid (8192^3): every step of the order moves to an edge neighbour, and each
 * aligned run of 64 tiles (a wave of 64 clusters) covers an 8 x 8 square. */
static void test_hilbert_is_local(void)
{
    int far = 0, loose = 0;
    for (int w = 0; w < 16; w++) {
        int m0 = 32, m1 = -1, n0 = 32, n1 = -1, pm = -1, pn = -1;
        for (int t = 64 * w; t < 64 * (w + 1); t++) {
            int tm, tn;
            hilbert(t, 32, 32, &tm, &tn);
            if (t > 0 && abs(tm - pm) + abs(tn - pn) != 1 && t % 64 != 0)
                far++;
            m0 = tm < m0 ? tm : m0, m1 = tm > m1 ? tm : m1;
            n0 = tn < n0 ? tn : n0, n1 = tn > n1 ? tn : n1;
            pm = tm, pn = tn;
        }
        loose += m1 - m0 != 7 || n1 - n0 != 7;
    }
    RB_CHECK(far == 0 && loose == 0);
}

/* Realistic defects, each a few characters away from a right order. */
static void defect_unclipped_walk(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    ref_d2xy(covering_side(tiles_m, tiles_n), t, tm, tn); /* cells outside not skipped */
}

static void defect_full_last_group(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    (void)tiles_m;
    const int group = 8; /* HGEMM_SM90_GROUP_M's default, rows taken as 8 in every group */
    *tm = t / (group * tiles_n) * group + t % (group * tiles_n) % group;
    *tn = t % (group * tiles_n) / group;
}

static void defect_swapped(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    hilbert(t, tiles_m, tiles_n, tn, tm);
}

static void test_planted_order_defects_caught(void)
{
    RB_CHECK(order_problems(defect_unclipped_walk, 24, 24) > 0);
    RB_CHECK(order_problems(defect_unclipped_walk, 3, 20) > 0);
    RB_CHECK(order_problems(defect_full_last_group, 12, 4) > 0);
    RB_CHECK(order_problems(defect_swapped, 3, 20) > 0);
    /* and each is right where its defect cannot show: the check is not merely always failing */
    RB_CHECK(order_problems(defect_unclipped_walk, 16, 16) == 0);
    RB_CHECK(order_problems(defect_full_last_group, 16, 4) == 0);
    RB_CHECK(order_problems(defect_swapped, 16, 16) == 0);
}

static const rbtest_case hgemm_order_cases[] = {
    {"orders_are_permutations", test_orders_are_permutations},
    {"hilbert_matches_curve_walk", test_hilbert_matches_curve_walk},
    {"hilbert_is_local", test_hilbert_is_local},
    {"planted_order_defects_caught", test_planted_order_defects_caught},
};

RB_SUITE(hgemm_order_suite, "hgemm_order", hgemm_order_cases);
