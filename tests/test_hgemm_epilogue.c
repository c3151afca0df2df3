/* SPDX-License-Identifier: MIT */
/*
 * Tier 2 (no GPU needed): where hgemm's steps 6-7 and FP8 put C in shared memory before their TMA
 * stores, through kernels/hgemm.cu's own offset function (host and device alike). The TMA store
 * reads a 64 x 64 box of bf16 in the 128B swizzle: row r at 128 r bytes, its 16-byte chunk c at
 * chunk position c ^ (r % 8). A consumer warpgroup holds its 64 x 256 accumulator in the wgmma D
 * fragment: lane l of warp w, 8-column group j, half h has row 16 w + l / 4 + 8 h, columns
 * 8 j + 2 (l % 4) and + 1. The epilogue writes one pass of 128 columns (two boxes) at a time
 * with st.shared.u32, and must put every pair exactly where the boxes have it. A wrong offset is
 * a wrong C at every size, so the GPU check would catch it too, but only on a GPU; this catches
 * it anywhere. Planted: a pair offset whose row phase is taken from the wrong lane bits, one
 * that puts both boxes' columns into the first.
 */
#include <stdint.h>
#include <string.h>

#include "kernels/hgemm.h"
#include "rbtest.h"

extern const rbtest_suite hgemm_epilogue_suite;

enum {
    BOXES = 2, /* one pass: 64 x 128 */
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

/* Pairs the epilogue puts anywhere but home, plus words written other than once. */
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

static void test_pair_offsets_match_the_swizzle(void)
{
    RB_CHECK(pair_errors(hgemm_c_pair_offset) == 0);
}

/* ---- planted defects ---- */

/* The swizzle's row phase from lane % 8 instead of the pair's row (lane / 4). */
static uint32_t pair_wrong_phase(int warp, int lane, int jj, int h)
{
    uint32_t row = (uint32_t)(warp * 16 + lane / 4 + 8 * h);
    return (uint32_t)(jj / 8) * 8192u + row * 128u + (uint32_t)((jj % 8) ^ (lane % 8)) * 16u +
           4u * (uint32_t)(lane % 4);
}

/* The group's box left out: columns 64-127 land on top of columns 0-63. */
static uint32_t pair_one_box(int warp, int lane, int jj, int h)
{
    uint32_t row = (uint32_t)(warp * 16 + lane / 4 + 8 * h);
    return row * 128u + (uint32_t)((jj % 8) ^ (lane / 4)) * 16u + 4u * (uint32_t)(lane % 4);
}

static void test_planted_epilogue_defects_caught(void)
{
    RB_CHECK(pair_errors(pair_wrong_phase) > 0);
    RB_CHECK(pair_errors(pair_one_box) > 0);
}

static const rbtest_case hgemm_epilogue_cases[] = {
    {"pair_offsets_match_the_swizzle", test_pair_offsets_match_the_swizzle},
    {"planted_epilogue_defects_caught", test_planted_epilogue_defects_caught},
};

RB_SUITE(hgemm_epilogue_suite, "hgemm_epilogue", hgemm_epilogue_cases);
