/* SPDX-License-Identifier: MIT */
/*
 * attention's error model, per query row (a host replay, no GPU): the inputs of bench/attention.c
 * (attention_fill: Q, K = bf16(2u), V = bf16(u), u uniform in (-1, 1), zero-mean), the reference
 * in fp64, and the roundings of each variant replayed in fp32 on the host:
 *   flash (flash_mma, optimized): S in fp32, the online softmax over 64-key tiles in fp32, P
 *     rounded to bf16 before P V (fp32 accumulation), O rounded to bf16;
 *   baseline: S rounded to bf16 (the bf16 GEMM's output), the softmax in fp32, P rounded to bf16,
 *     P V in fp32, O rounded to bf16;
 *   causal_diagonal_slip (the planted defect, as the baseline): the baseline whose causal mask
 *     lets each query row see one key past the diagonal (key i + 1 for row i).
 * Prints per case the normwise error over the heads replayed and the largest error of one query
 * row, ||o_i - ref_i|| / ||ref_i||. The fp32 sums run in key order, not in the mma's order: the
 * same size of error, not the same bits.
 *   cc -O2 -std=c11 -Iharness scripts/probes/attention_row_errors.c -lm -o /tmp/attention_rows
 *   /tmp/attention_rows S D CAUSAL HEADS [SEED]      e.g. 1021 128 1 2 5
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/random.h"

static float bf16_round(float x)
{
    unsigned u;
    memcpy(&u, &x, 4);
    u += 0x7fffu + ((u >> 16) & 1u); /* to nearest, ties to even (no NaN here) */
    u &= 0xffff0000u;
    memcpy(&x, &u, 4);
    return x;
}

typedef struct errs {
    double e2, r2, worst_row;
} errs;

static void add_row(errs *e, const double *ref, const float *got, int d)
{
    double e2 = 0, r2 = 0;
    for (int c = 0; c < d; c++) {
        e2 += (got[c] - ref[c]) * (got[c] - ref[c]);
        r2 += ref[c] * ref[c];
    }
    e->e2 += e2;
    e->r2 += r2;
    if (!(sqrt(e2 / r2) <= e->worst_row))
        e->worst_row = sqrt(e2 / r2);
}

/* One head: row i of each variant against the fp64 reference. */
static void head(const float *q, const float *k, const float *v, int s, int d, int causal,
                 errs out[3])
{
    const float scale = 1.0f / sqrtf((float)d), log2e = 1.4426950408889634f;
    double *sd = malloc((size_t)s * sizeof *sd), *ref = malloc((size_t)d * sizeof *ref);
    float *sf = malloc((size_t)s * sizeof *sf), *o = malloc((size_t)d * sizeof *o);
    float *acc = malloc((size_t)d * sizeof *acc);
    for (int i = 0; i < s; i++) {
        const float *qi = q + (size_t)i * d;
        const int keys = causal ? i + 1 : s, slip = causal && i + 2 <= s ? i + 2 : keys;
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < slip; j++) {
            double a = 0;
            float af = 0;
            for (int c = 0; c < d; c++) {
                a += (double)qi[c] * k[(size_t)j * d + c];
                af += qi[c] * k[(size_t)j * d + c];
            }
            sd[j] = a * scale;
            sf[j] = af;
            if (j < keys)
                mx = fmax(mx, sd[j]);
        }
        for (int c = 0; c < d; c++)
            ref[c] = 0;
        for (int j = 0; j < keys; j++) {
            double p = exp(sd[j] - mx);
            sum += p;
            for (int c = 0; c < d; c++)
                ref[c] += p * v[(size_t)j * d + c];
        }
        for (int c = 0; c < d; c++)
            ref[c] /= sum;
        /* flash: 64-key tiles, running max m and sum l in fp32, P in bf16 for P V */
        float m = -INFINITY, l = 0;
        for (int c = 0; c < d; c++)
            acc[c] = 0;
        for (int j0 = 0; j0 < keys; j0 += 64) {
            const int j1 = j0 + 64 < keys ? j0 + 64 : keys;
            float tm = m;
            for (int j = j0; j < j1; j++)
                tm = fmaxf(tm, sf[j] * scale * log2e);
            const float alpha = exp2f(m - tm);
            l *= alpha;
            for (int c = 0; c < d; c++)
                acc[c] *= alpha;
            m = tm;
            for (int j = j0; j < j1; j++) {
                const float p = exp2f(sf[j] * scale * log2e - m), pb = bf16_round(p);
                l += p;
                for (int c = 0; c < d; c++)
                    acc[c] += pb * v[(size_t)j * d + c];
            }
        }
        for (int c = 0; c < d; c++)
            o[c] = bf16_round(acc[c] / l);
        add_row(&out[0], ref, o, d);
        /* baseline (and the defect: its mask one key late) */
        for (int which = 1; which < 3; which++) {
            const int n = which == 1 ? keys : slip;
            float bm = -INFINITY, bs = 0;
            for (int j = 0; j < n; j++)
                bm = fmaxf(bm, bf16_round(sf[j]) * scale * log2e);
            for (int j = 0; j < n; j++)
                bs += exp2f(bf16_round(sf[j]) * scale * log2e - bm);
            for (int c = 0; c < d; c++)
                acc[c] = 0;
            for (int j = 0; j < n; j++) {
                const float p = bf16_round(exp2f(bf16_round(sf[j]) * scale * log2e - bm) / bs);
                for (int c = 0; c < d; c++)
                    acc[c] += p * v[(size_t)j * d + c];
            }
            for (int c = 0; c < d; c++)
                o[c] = bf16_round(acc[c]);
            add_row(&out[which], ref, o, d);
        }
    }
    free(sd);
    free(ref);
    free(sf);
    free(o);
    free(acc);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s S D CAUSAL HEADS [SEED]\n", argv[0]);
        return 2;
    }
    const int s = atoi(argv[1]), d = atoi(argv[2]), causal = atoi(argv[3]), heads = atoi(argv[4]);
    const uint64_t seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 5;
    const size_t n = (size_t)s * d;
    float *q = malloc(n * 4), *k = malloc(n * 4), *v = malloc(n * 4);
    errs e[3];
    memset(e, 0, sizeof e);
    for (int h = 0; h < heads; h++) {
        const size_t at = (size_t)h * n; /* head h's elements of a bh x s x d tensor */
        for (size_t i = 0; i < n; i++) {
            q[i] = bf16_round(2.0f * rb_uniform_f32(seed, at + i));
            k[i] = bf16_round(2.0f * rb_uniform_f32(seed + 1, at + i));
            v[i] = bf16_round(rb_uniform_f32(seed + 2, at + i));
        }
        head(q, k, v, s, d, causal, e);
    }
    static const char *const names[3] = {"flash", "baseline", "causal_diagonal_slip"};
    for (int w = 0; w < 3; w++)
        printf("s %d d %d causal %d heads %d %-21s normwise %.3e worst row %.3e\n", s, d, causal,
               heads, names[w], sqrt(e[w].e2 / e[w].r2), e[w].worst_row);
    free(q);
    free(k);
    free(v);
    return 0;
}
