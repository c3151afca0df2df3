/* SPDX-License-Identifier: MIT */
/*
 * Tier 2 (no GPU needed): where hgemm's steps 6-7 and FP8 put C in shared memory before their TMA
 * stores, through kernels/hgemm.cu's own offset functions (host and device alike). The TMA store
 * reads a 64 x 64 box of bf16 in the 128B swizzle: row r at 128 r bytes, its 16-byte chunk c at
 * chunk position c ^ (r % 8). A consumer warpgroup holds its 64 x 256 accumulator in the wgmma D
 * fragment: lane l of warp w, 8-column group j, half h has row 16 w + l / 4 + 8 h, columns
 * 8 j + 2 (l % 4) and + 1. Both epilogues must put every pair exactly where the box has it:
 * the st.shared.u32 one (hgemm_c_pair_offset, the default) and the stmatrix.x4 one
 * (-DHGEMM_SM90_STMATRIX=1), whose PTX semantics are modelled here: lane 8 q + r gives the
 * address of row r of matrix q, and word t of that row is register q of lane 4 r + t. A wrong
 * offset is a wrong C at every size, so the GPU check would catch it too, but only on a GPU and
 * only for a build with the option; this catches it anywhere. Planted: a stmatrix address
 * without the swizzle, one with its matrices in the other order, a pair offset whose row phase
 * is taken from the wrong lane bits.
 */
#include <stdint.h>
#include <string.h>

#include "kernels/hgemm.h"
#include "rbtest.h"

extern const rbtest_suite hgemm_epilogue_suite;

enum {
    BOXES = 4, /* the largest buffer (-DHGEMM_SM90_C_TILE=1): 64 x 256 */
    GROUPS = BOXES * 8,
    BUF_BYTES = BOXES * 64 * 128,
    WORDS = BUF_BYTES / 4
};

/* Byte offset of element (row, col) of the buffer, from the 128B swizzle's definition. */
static uint32_t swizzled(int row, int col)
{
    return (uint32_t)(col / 64) * 8192u + (uint32_t)row * 128u +
           (uint32_t)(((col % 64) / 8) ^ (row % 8)) * 16u + (uint32_t)(col % 8) * 2u;
}

/* Where the pair (warp, lane, group j, half h) belongs. */
static uint32_t pair_home(int warp, int lane, int j, int h)
{
    return swizzled(16 * warp + lane / 4 + 8 * h, 8 * j + 2 * (lane % 4));
}

typedef uint32_t (*pair_fn)(int warp, int lane, int jj, int h);
typedef uint32_t (*stsm_fn)(int warp, int lane, int jj);

/* Pairs the st.shared epilogue puts anywhere but home, plus words written other than once. */
static int pair_errors(pair_fn pair)
{
    static unsigned char written[WORDS];
    memset(written, 0, sizeof written);
    int errors = 0;
    for (int warp = 0; warp < 4; warp++)
        for (int lane = 0; lane < 32; lane++)
            for (int j = 0; j < GROUPS; j++)
                for (int h = 0; h < 2; h++) {
                    uint32_t at = pair(warp, lane, j, h);
                    errors += at != pair_home(warp, lane, j, h);
                    if (at % 4 == 0 && at < BUF_BYTES)
                        written[at / 4]++;
                }
    for (int w = 0; w < WORDS; w++)
        errors += written[w] != 1;
    return errors;
}

/* The same for the stmatrix epilogue: each x4 instruction (groups jj, jj + 1) as PTX defines it,
 * register q of every lane holding the pair (jj + q / 2, half q % 2) (kernels/hgemm.cu packs
 * d[4 jj + 2 q], d[4 jj + 2 q + 1] into it). */
static int stsm_errors(stsm_fn stsm)
{
    static unsigned char written[WORDS];
    memset(written, 0, sizeof written);
    int errors = 0;
    for (int warp = 0; warp < 4; warp++)
        for (int jj = 0; jj < GROUPS; jj += 2)
            for (int q = 0; q < 4; q++)
                for (int r = 0; r < 8; r++) {
                    uint32_t row_at = stsm(warp, 8 * q + r, jj);
                    errors += row_at % 16 != 0; /* stmatrix rows are 16-byte aligned */
                    for (int t = 0; t < 4; t++) {
                        uint32_t at = row_at + 4u * (uint32_t)t;
                        errors += at != pair_home(warp, 4 * r + t, jj + q / 2, q % 2);
                        if (at < BUF_BYTES)
                            written[at / 4]++;
                    }
                }
    for (int w = 0; w < WORDS; w++)
        errors += written[w] != 1;
    return errors;
}

static void test_pair_offsets_match_the_swizzle(void)
{
    RB_CHECK(pair_errors(hgemm_c_pair_offset) == 0);
}

static void test_stmatrix_offsets_match_the_swizzle(void)
{
    RB_CHECK(stsm_errors(hgemm_c_stsm_offset) == 0);
}

/* ---- planted defects ---- */

/* The rows in plain row-major order, as if the box were not swizzled. */
static uint32_t stsm_unswizzled(int warp, int lane, int jj)
{
    int q = lane / 8, row = warp * 16 + 8 * (q % 2) + lane % 8, g = jj + q / 2;
    return (uint32_t)(g / 8) * 8192u + (uint32_t)row * 128u + (uint32_t)(g % 8) * 16u;
}

/* Matrix q taken as group jj + q % 2, half q / 2: the registers' order read the other way. */
static uint32_t stsm_matrices_swapped(int warp, int lane, int jj)
{
    int q = lane / 8, row = warp * 16 + 8 * (q / 2) + lane % 8, g = jj + q % 2;
    return (uint32_t)(g / 8) * 8192u + (uint32_t)row * 128u + (uint32_t)((g % 8) ^ (row % 8)) * 16u;
}

/* The swizzle's row phase from lane % 8 instead of the pair's row (lane / 4). */
static uint32_t pair_wrong_phase(int warp, int lane, int jj, int h)
{
    uint32_t row = (uint32_t)(warp * 16 + lane / 4 + 8 * h);
    return (uint32_t)(jj / 8) * 8192u + row * 128u + (uint32_t)((jj % 8) ^ (lane % 8)) * 16u +
           4u * (uint32_t)(lane % 4);
}

static void test_planted_epilogue_defects_caught(void)
{
    RB_CHECK(stsm_errors(stsm_unswizzled) > 0);
    RB_CHECK(stsm_errors(stsm_matrices_swapped) > 0);
    RB_CHECK(pair_errors(pair_wrong_phase) > 0);
}

static const rbtest_case hgemm_epilogue_cases[] = {
    {"pair_offsets_match_the_swizzle", test_pair_offsets_match_the_swizzle},
    {"stmatrix_offsets_match_the_swizzle", test_stmatrix_offsets_match_the_swizzle},
    {"planted_epilogue_defects_caught", test_planted_epilogue_defects_caught},
};

RB_SUITE(hgemm_epilogue_suite, "hgemm_epilogue", hgemm_epilogue_cases);
