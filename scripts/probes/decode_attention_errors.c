/* SPDX-License-Identifier: MIT */
/*
 * decode_attention's error model (a host replay, no GPU): one KV head's group of 8 query heads
 * over one sequence, q, K and V ~N(0, 1) in bf16 (bench/decode_attention.c's inputs: Box-Muller on
 * model/random.h's streams), the reference in fp64, and the kernels' arithmetic replayed in fp32:
 * chunks of `chunk` pages (one block each; chunk >= the pages: the baseline), in each 4 warps of
 * 16 keys a page with their own online softmax (running max, l summed from the fp32 weights, P
 * rounded to bf16 before P V), the warps merged, the chunks merged, O rounded to bf16. DROP=1 in
 * the environment replays the planted defect split_dropped_in_merge (the last chunk left out of
 * the merge). Prints the normwise error over the heads and sequences replayed and the largest
 * error of one (sequence, head) row. The fp32 sums run in key order, not the mma's: the same size
 * of error, not the same bits.
 *   cc -O2 -std=c11 -Iharness scripts/probes/decode_attention_errors.c -lm -o /tmp/dec_errors
 *   /tmp/dec_errors LEN CHUNK_PAGES SEQUENCES [SEED]      e.g. 1021 16 500
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/random.h"

#define D 128
#define GROUP 8
#define PAGE 64
#define WARPS 4
#define MAX_CHUNKS 4096

static float bf16_round(float x)
{
    unsigned u;
    memcpy(&u, &x, 4);
    u += 0x7fffu + ((u >> 16) & 1u); /* to nearest, ties to even (no NaN here) */
    u &= 0xffff0000u;
    memcpy(&x, &u, 4);
    return x;
}

static float normal_bf16(uint64_t seed, uint64_t i)
{
    const float u1 = fabsf(rb_uniform_f32(seed, 2 * i)), u2 = rb_uniform_f32(seed, 2 * i + 1);
    return bf16_round(sqrtf(-2.0f * logf(u1)) * cosf(3.14159265358979f * u2));
}

typedef struct state {
    float m, l, o[D];
} state;

/* One warp's keys of pages [p0, p1) for query row q: the kernel's online softmax in fp32. */
static void warp_state(const float *q, const float *k, const float *v, int len, int p0, int p1,
                       int warp, state *s)
{
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    s->m = -INFINITY;
    s->l = 0.0f;
    memset(s->o, 0, sizeof s->o);
    for (int p = p0; p < p1; p++) {
        const int key0 = p * PAGE + 16 * warp;
        float x[16], mx = -INFINITY;
        for (int j = 0; j < 16; j++) {
            float dot = 0.0f;
            if (key0 + j < len)
                for (int c = 0; c < D; c++)
                    dot += q[c] * k[(size_t)(key0 + j) * D + c];
            x[j] = key0 + j < len ? dot * scale_log2 : -INFINITY;
            mx = fmaxf(mx, x[j]);
        }
        const float m_new = fmaxf(s->m, mx), base = m_new == -INFINITY ? 0.0f : m_new;
        const float alpha = exp2f(s->m - base);
        s->m = m_new;
        s->l *= alpha;
        for (int c = 0; c < D; c++)
            s->o[c] *= alpha;
        for (int j = 0; j < 16; j++) {
            const float w = exp2f(x[j] - base);
            s->l += w;
            if (key0 + j < len)
                for (int c = 0; c < D; c++)
                    s->o[c] += bf16_round(w) * v[(size_t)(key0 + j) * D + c];
        }
    }
}

/* States merged: m the largest, l and o rescaled to it. */
static void merge(const state *in, int n, state *out)
{
    out->m = -INFINITY;
    for (int i = 0; i < n; i++)
        out->m = fmaxf(out->m, in[i].m);
    out->l = 0.0f;
    memset(out->o, 0, sizeof out->o);
    for (int i = 0; i < n; i++) {
        const float w = exp2f(in[i].m - out->m);
        out->l += w * in[i].l;
        for (int c = 0; c < D; c++)
            out->o[c] += w * in[i].o[c];
    }
}

int main(int argc, char **argv)
{
    if (argc < 4 || !strcmp(argv[1], "-h")) {
        printf("usage: %s LEN CHUNK_PAGES SEQUENCES [SEED]   (DROP=1: the dropped-split defect)\n",
               argv[0]);
        return argc > 1 && !strcmp(argv[1], "-h") ? 0 : 2;
    }
    const int len = atoi(argv[1]), chunk = atoi(argv[2]), seqs = atoi(argv[3]);
    const uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 5;
    const int pages = (len + PAGE - 1) / PAGE, chunks = chunk > 0 ? (pages + chunk - 1) / chunk : 0;
    const int drop = getenv("DROP") && chunks > 1;
    float *q = malloc(GROUP * D * sizeof *q), *k = malloc((size_t)len * D * sizeof *k);
    float *v = malloc((size_t)len * D * sizeof *v);
    double *w = malloc((size_t)len * sizeof *w);
    state *parts = malloc(MAX_CHUNKS * sizeof *parts);
    if (len < 1 || chunk < 1 || seqs < 1 || chunks > MAX_CHUNKS || !q || !k || !v || !w || !parts)
        return 2;
    double err2 = 0.0, ref2 = 0.0, worst = 0.0;
    for (int sq = 0; sq < seqs; sq++) {
        const uint64_t base = seed + 3 * (uint64_t)sq;
        for (int i = 0; i < GROUP * D; i++)
            q[i] = normal_bf16(base, (uint64_t)i);
        for (size_t i = 0; i < (size_t)len * D; i++) {
            k[i] = normal_bf16(base + 1, i);
            v[i] = normal_bf16(base + 2, i);
        }
        for (int h = 0; h < GROUP; h++) {
            const float *qh = q + h * D;
            double mx = -INFINITY, sum = 0.0, ref[D] = {0};
            for (int t = 0; t < len; t++) {
                double dot = 0.0;
                for (int c = 0; c < D; c++)
                    dot += (double)qh[c] * k[(size_t)t * D + c];
                w[t] = dot / sqrt((double)D);
                mx = w[t] > mx ? w[t] : mx;
            }
            for (int t = 0; t < len; t++) {
                w[t] = exp(w[t] - mx);
                sum += w[t];
            }
            for (int t = 0; t < len; t++)
                for (int c = 0; c < D; c++)
                    ref[c] += w[t] * v[(size_t)t * D + c];
            for (int ch = 0; ch < chunks; ch++) {
                state warps[WARPS];
                const int p1 = (ch + 1) * chunk < pages ? (ch + 1) * chunk : pages;
                for (int wp = 0; wp < WARPS; wp++)
                    warp_state(qh, k, v, len, ch * chunk, p1, wp, &warps[wp]);
                merge(warps, WARPS, &parts[ch]);
            }
            state all;
            merge(parts, chunks - drop, &all);
            double he = 0.0, hr = 0.0;
            for (int c = 0; c < D; c++) {
                const double r = ref[c] / sum, o = bf16_round(all.o[c] / all.l);
                he += (o - r) * (o - r);
                hr += r * r;
            }
            err2 += he;
            ref2 += hr;
            worst = sqrt(he / hr) > worst ? sqrt(he / hr) : worst;
        }
    }
    printf("len %d, chunks of %d pages (%d)%s, %d rows: normwise %.3e, worst row %.3e\n", len,
           chunk, chunks, drop ? ", last dropped" : "", seqs * GROUP, sqrt(err2 / ref2), worst);
    free(q);
    free(k);
    free(v);
    free(w);
    free(parts);
    return 0;
}
