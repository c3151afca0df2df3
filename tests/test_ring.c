/* SPDX-License-Identifier: MIT */
/*
 * Tier 2 (no GPU needed): nccl_allreduce's ring baseline, its plan run on the CPU. The plan
 * (nccl_allreduce_ring_move, bench/nccl_allreduce.c) is what the GPU path enqueues, move by move;
 * here each move is applied to host arrays in the same order (step, slice, rank), and every
 * rank's output must equal the sums of the inputs, for every collective, 1 to 8 ranks and odd
 * counts (not divisible by the ranks nor the slices, smaller than either). Two realistic
 * defects, planted in the simulation, must be caught: a partition that drops the odd tail (floor
 * division) and a pipeline that never drains its last slice. Also the nccl-tests formulas the
 * pair reports (busbw from algbw).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbtest.h"

extern const rbtest_suite ring_suite;

#ifdef RB_HAVE_NCCL
#include "../kernels/nccl_allreduce.h"

double nccl_allreduce_bus_factor(int coll, int ranks);

enum { AR = 0, AG = 1, RS = 2 };
enum { DEFECT_NONE, DEFECT_FLOOR_TAIL, DEFECT_UNDRAINED };

/* The buffers of one simulated collective: rank r's send and recv (NaN: unwritten). */
typedef struct sim {
    int coll, n;
    size_t c, n_send, n_recv;
    double *send[8], *recv[8];
} sim;

/* One rank's input value: distinct small integers, so every sum is exact in double. */
static double sim_input(int rank, size_t i)
{
    return (double)(rank + 1) * 1000.0 + (double)(i % 997);
}

static int sim_init(sim *s, int coll, int n, size_t c)
{
    memset(s, 0, sizeof *s);
    s->coll = coll;
    s->n = n;
    s->c = c;
    s->n_send = coll == RS ? (size_t)n * c : c;
    s->n_recv = coll == AR ? c : (size_t)n * c;
    for (int r = 0; r < n; r++) {
        s->send[r] = malloc(s->n_send * sizeof(double));
        s->recv[r] = malloc(s->n_recv * sizeof(double));
        if (!s->send[r] || !s->recv[r])
            return -1;
        for (size_t i = 0; i < s->n_send; i++)
            s->send[r][i] = sim_input(r, i);
        for (size_t i = 0; i < s->n_recv; i++)
            s->recv[r][i] = NAN; /* the harness's poison */
    }
    return 0;
}

static void sim_free(sim *s)
{
    for (int r = 0; r < s->n; r++) {
        free(s->send[r]);
        free(s->recv[r]);
    }
}

/* The floor-division plan a ring written for divisible sizes would have: every segment and
 * slice n / parts long, the remainder never moved. */
static void floor_move(const sim *s, int slices, nccl_allreduce_move *m)
{
    size_t seg = s->coll == AR ? s->c / (size_t)s->n : s->c;
    size_t slice = seg / (size_t)slices;
    if (m->len > slice)
        m->len = slice;
}

/* Applies every move of the plan in the GPU path's order; the planted defect alters it. */
static void sim_run(sim *s, int slices, int defect)
{
    int steps = nccl_allreduce_ring_steps(s->coll, s->n);
    for (int step = -1; step < steps; step++)
        for (int p = 0; p < slices; p++)
            for (int r = 0; r < s->n; r++) {
                nccl_allreduce_move m;
                if (!nccl_allreduce_ring_move(s->coll, s->n, s->c, slices, r, step, p, &m))
                    continue;
                if (defect == DEFECT_FLOOR_TAIL)
                    floor_move(s, slices, &m);
                if (defect == DEFECT_UNDRAINED && step == steps - 1 && p == slices - 1)
                    m.len = 0;
                const double *src = (m.src_send ? s->send : s->recv)[m.src_rank] + m.src;
                RB_CHECK(m.dst + m.len <= s->n_recv);
                RB_CHECK(m.src + m.len <= (m.src_send ? s->n_send : s->n_recv));
                RB_CHECK(!m.reduce || m.local + m.len <= s->n_send);
                for (size_t i = 0; i < m.len; i++)
                    s->recv[r][m.dst + i] = src[i] + (m.reduce ? s->send[r][m.local + i] : 0.0);
            }
}

/* Wrong output elements over all ranks (NaN counts as wrong). */
static size_t sim_wrong(const sim *s)
{
    size_t wrong = 0, n_out = s->coll == AG ? (size_t)s->n * s->c : s->c;
    for (int r = 0; r < s->n; r++) {
        const double *out = s->recv[r] + (s->coll == RS ? (size_t)r * s->c : 0);
        for (size_t j = 0; j < n_out; j++) {
            double want = 0.0;
            if (s->coll == AG) {
                want = sim_input((int)(j / s->c), j % s->c);
            } else {
                size_t i = s->coll == RS ? (size_t)r * s->c + j : j;
                for (int q = 0; q < s->n; q++)
                    want += sim_input(q, i);
            }
            wrong += !(out[j] == want);
        }
    }
    return wrong;
}

/* One collective simulated: the wrong elements, or (size_t)-1 when it could not allocate. */
static size_t simulate(int coll, int n, size_t c, size_t slice_min, int defect)
{
    sim s;
    size_t wrong = (size_t)-1;
    int slices = nccl_allreduce_ring_slices(coll, n, c, slice_min);
    if (sim_init(&s, coll, n, c) == 0) {
        sim_run(&s, slices, defect);
        wrong = sim_wrong(&s);
    }
    sim_free(&s);
    return wrong;
}

static void test_part_covers_odd_counts(void)
{
    const size_t counts[] = {0, 1, 3, 7, 8, 1000003};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        for (int parts = 1; parts <= 9; parts++) {
            size_t next = 0, off, len, lo = (size_t)-1, hi = 0;
            for (int i = 0; i < parts; i++) {
                nccl_allreduce_part(counts[k], parts, i, &off, &len);
                RB_CHECK(off == next); /* contiguous, in order, no overlap */
                next = off + len;
                lo = len < lo ? len : lo;
                hi = len > hi ? len : hi;
            }
            RB_CHECK(next == counts[k]); /* the odd tail is covered */
            RB_CHECK(hi - lo <= 1);      /* balanced */
        }
    size_t off, len;
    nccl_allreduce_part(10, 4, 3, &off, &len); /* 3 3 2 2 */
    RB_CHECK(off == 8 && len == 2);
}

static void test_steps_and_slices(void)
{
    RB_CHECK(nccl_allreduce_ring_steps(AR, 1) == 0 && nccl_allreduce_ring_steps(AR, 2) == 2);
    RB_CHECK(nccl_allreduce_ring_steps(AR, 8) == 14 && nccl_allreduce_ring_steps(AG, 8) == 7);
    RB_CHECK(nccl_allreduce_ring_steps(RS, 4) == 3);
    /* 1 GiB all-reduce on 4 GPUs: segments of 2^26 floats, 8 slices of 8 MiB; 8 B: one */
    RB_CHECK(nccl_allreduce_ring_slices(AR, 4, 1u << 28, 1u << 21) == 8);
    RB_CHECK(nccl_allreduce_ring_slices(AR, 4, 2, 1u << 21) == 1);
    RB_CHECK(nccl_allreduce_ring_slices(AG, 4, 3u << 21, 1u << 21) == 3);
    RB_CHECK(nccl_allreduce_ring_slices(RS, 2, (3u << 21) + 1, 1u << 21) == 4);
    RB_CHECK(nccl_allreduce_ring_slices(AR, 1, 0, 1u << 21) == 1);
}

/* Every collective, 1 to 8 ranks, counts that divide by nothing, slices of 1 to 8 elements. */
static void test_ring_plan_correct_at_odd_sizes(void)
{
    const size_t counts[] = {1, 2, 5, 13, 257, 1009};
    const size_t slice_min[] = {1, 3, 1u << 21};
    int bad = 0;
    for (int coll = AR; coll <= RS; coll++)
        for (int n = 1; n <= 8; n++)
            for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
                for (size_t q = 0; q < sizeof slice_min / sizeof slice_min[0]; q++) {
                    size_t wrong = simulate(coll, n, counts[k], slice_min[q], DEFECT_NONE);
                    if (wrong != 0 && bad++ < 5)
                        printf("    coll %d, %d ranks, count %zu, slice_min %zu: %zu wrong\n", coll,
                               n, counts[k], slice_min[q], wrong);
                }
    RB_CHECK(bad == 0);
}

/* The planted defects: a floor-division partition loses the odd tail (and only there: at counts
 * every part divides, it is right), a pipeline that does not drain loses its last slice. */
static void test_planted_ring_defects_caught(void)
{
    for (int coll = AR; coll <= RS; coll++)
        for (int n = 1; n <= 8; n++) {
            RB_CHECK(simulate(coll, n, 1009, 3, DEFECT_UNDRAINED) > 0);
            if (coll == AR && n > 1) /* one slice: the segments' tail (the halves have none) */
                RB_CHECK(simulate(coll, n, 1009, 1u << 21, DEFECT_FLOOR_TAIL) > 0);
            RB_CHECK(simulate(coll, n, 1009, 4, DEFECT_FLOOR_TAIL) > 0);
            /* 8! = 40320: every segment and slice divides, nothing is lost */
            RB_CHECK(simulate(coll, n, 40320, 5, DEFECT_FLOOR_TAIL) == 0);
        }
}

/* nccl-tests' columns as the pair reports them: busbw = algbw x 2(n-1)/n for the all-reduce and
 * (n-1)/n for the halves, algbw = S / time; 128 MiB all-gather on 4 GPUs in 0.4 ms. */
static void test_busbw_from_algbw(void)
{
    double size = 134217728.0, algbw = size / 0.4e-3 / 1e9;
    RB_CHECK_NEAR(algbw, 335.54, 0.01);
    RB_CHECK_NEAR(algbw * nccl_allreduce_bus_factor(AG, 4), 251.66, 0.01);
    RB_CHECK_NEAR(algbw * nccl_allreduce_bus_factor(AR, 4), 503.32, 0.01);
    RB_CHECK_NEAR(algbw * nccl_allreduce_bus_factor(RS, 2), 167.77, 0.01);
}

static const rbtest_case ring_cases[] = {
    {"part_covers_odd_counts", test_part_covers_odd_counts},
    {"steps_and_slices", test_steps_and_slices},
    {"ring_plan_correct_at_odd_sizes", test_ring_plan_correct_at_odd_sizes},
    {"planted_ring_defects_caught", test_planted_ring_defects_caught},
    {"busbw_from_algbw", test_busbw_from_algbw},
};
#else
static void test_no_nccl(void)
{
    rbtest_skip("nccl_allreduce is not in this build (no NCCL)");
}

static const rbtest_case ring_cases[] = {{"ring_plan", test_no_nccl}};
#endif

RB_SUITE(ring_suite, "ring", ring_cases);
