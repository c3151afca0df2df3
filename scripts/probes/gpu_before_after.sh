#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR BASE=DIR BASE_REV=REV GIT_REV=REV [THEN="command"] scripts/probes/gpu_before_after.sh
# A restructuring's before and after on one GPU: BASE is a copy of the tree at BASE_REV (git
# worktree add --detach scratch/base BASE_REV, carried to the GPU machine), the checkout itself is
# GIT_REV. Both are built at once (the build times are not the figure here), then one full run
# of each in turn, after then before, on the same card (after.json, before.json and their logs),
# each judged against its own tree's expectation file. `roofbench compare` of the two is done
# where the files come back (the after tree's compare reads both). THEN, if given, runs last in
# the checkout with the build there (a second measurement that can use what is left of the
# call: ELAPSED_S says how many seconds this script has taken; it packs what it writes into one
# file). Never changes clocks or power limits.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
BASE=${BASE:?BASE=DIR}
BASE_REV=${BASE_REV:?BASE_REV=REV}
REV=${GIT_REV:?GIT_REV=REV}
case $BASE in /*) ;; *) BASE=$PWD/$BASE ;; esac
export NCCL_NVLS_ENABLE=0
mkdir -p "$OUT"
LOG=$OUT/before-after.log
say() { echo "== $(date -u +%T) +${SECONDS}s $*" | tee -a "$LOG"; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,temperature.gpu,power.limit --format=csv,noheader | head -n 1)"
j=$(nproc)
make -j"$j" ARCH=sm_90 GIT_REV="$REV" all > "$OUT/build-after.log" 2>&1 &
a=$!
(cd "$BASE" && make -j"$j" ARCH=sm_90 GIT_REV="$BASE_REV" all) > "$OUT/build-before.log" 2>&1 &
b=$!
wait $a
say "after ($REV) build exit $?"
wait $b
say "before ($BASE_REV) build exit $?"
build/sm_90/roofbench run --json "$OUT/after.json" > "$OUT/after.log" 2>&1
say "after run exit $?: $(grep -E '^verdicts' "$OUT/after.log")"
(cd "$BASE" && build/sm_90/roofbench run --json "$OUT/before.json") > "$OUT/before.log" 2>&1
say "before run exit $?: $(grep -E '^verdicts' "$OUT/before.log")"
if [ -n "${THEN:-}" ]; then
    say "then: $THEN"
    ELAPSED_S=$SECONDS bash -c "$THEN" >> "$LOG" 2>&1
    say "then exit $?"
fi
say done
# The device tool brings back at most 8 files: the builds' and runs' logs go in one archive.
(cd "$OUT" && tar czf logs.tgz build-after.log build-before.log after.log before.log &&
    rm -f build-after.log build-before.log after.log before.log)
