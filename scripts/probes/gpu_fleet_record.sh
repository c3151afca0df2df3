#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR REC=DIR GIT_REV=REV [RUNS=2] [GEMV="NAME=FLAGS ..."] scripts/probes/gpu_fleet_record.sh
# One more machine's share of an expectation file recorded at an earlier revision: REC is a copy
# of the tree at GIT_REV (git worktree add --detach scratch/revX REV, carried to the GPU
# machine), so that its runs merge with runs other machines took of the same build
# (`expectations --record` takes runs of one revision only). In REC: the build and RUNS full runs
# (scripts/gpu_record.sh, into $OUT/rec). Then, where GEMV names variants, decode_gemv's
# compile-time options timed against each other (scripts/probes/gpu_variants.sh, into $OUT/gemv)
# on the same copy, after the runs: DECODE_GEMV_MMA_MIN_TOKENS is made overridable there first
# (as it is at later revisions; the default build's code is unchanged). Never changes clocks or
# power limits.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
OUT=${OUT:?OUT=DIR}
REC=${REC:?REC=DIR}
export GIT_REV=${GIT_REV:?GIT_REV=REV} NCCL_NVLS_ENABLE=0
case $REC in /*) ;; *) REC=$PWD/$REC ;; esac
(cd "$REC" && OUT=$OUT/rec RUNS=${RUNS:-2} scripts/gpu_record.sh)
[ -n "${GEMV:-}" ] || exit 0
h=$REC/kernels/decode_gemv.h
grep -q '^#ifndef DECODE_GEMV_MMA_MIN_TOKENS' "$h" ||
    sed -i 's/^#define DECODE_GEMV_MMA_MIN_TOKENS \([0-9]*\)$/#ifndef DECODE_GEMV_MMA_MIN_TOKENS\n#define DECODE_GEMV_MMA_MIN_TOKENS \1\n#endif/' "$h"
# shellcheck disable=SC2086
OUT=$OUT/gemv FILTER='^decode_gemv$' SRC=kernels/decode_gemv.cu SIZES=full \
    CHECK="smoke 999x1021 1004x2008" ROUNDS=2 "$REC/scripts/probes/gpu_variants.sh" $GEMV
