#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR GIT_REV=<rev> [RUNS=3] [PLANT=1] scripts/probes/gpu_fresh_bench.sh
# What a new user meets on this GPU: the tree copied without its build (a fresh clone's files) to
# /tmp/rb-fresh, its build timed (`make`, as many jobs as make chooses), then `make bench
# ARCH=sm_90` RUNS times in a row there (each run's exit, verdicts line and wall time in
# $OUT/fresh.log, its results file beside it). PLANT=1 (first, so that a run cut short still
# brings it back) builds a second copy with the planted 10% slowdowns (-DRB_PLANT_SLOW10) and runs
# copy_vectorized judged against the committed expectation file: it must say `regressed` with the
# cause `code`. Never changes clocks or power limits.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
REV=${GIT_REV:?GIT_REV=<rev>}
mkdir -p "$OUT"
LOG=$OUT/fresh.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,temperature.gpu,power.limit --format=csv,noheader | head -n 1)"
fresh() { # folder: a copy of the tree's files, no build/, no results' runs
    rm -rf "$1" && mkdir -p "$1" &&
        tar cf - --exclude=./build --exclude=./.gl --exclude=./.whl . | tar xf - -C "$1"
}
fresh /tmp/rb-fresh
t0=$SECONDS
(cd /tmp/rb-fresh && make ARCH=sm_90 GIT_REV="$REV" all) > "$OUT/build.log" 2>&1
say "fresh build (make, its default jobs) exit $? in $((SECONDS - t0)) s"
if [ "${PLANT:-1}" = 1 ]; then
    fresh /tmp/rb-planted
    t0=$SECONDS
    (cd /tmp/rb-planted && make ARCH=sm_90 GIT_REV="$REV-planted" NVCCFLAGS=-DRB_PLANT_SLOW10 \
        CFLAGS=-DRB_PLANT_SLOW10 all) > "$OUT/planted-build.log" 2>&1
    say "planted build exit $? in $((SECONDS - t0)) s"
    (cd /tmp/rb-planted && build/sm_90/roofbench run --filter '^copy_vectorized$' \
        --json "$OUT/planted.json") > "$OUT/planted.log" 2>&1
    say "planted run exit $?"
    grep -E 'optimized|regressed|code' "$OUT/planted.log" | tee -a "$LOG"
fi
for i in $(seq 1 "${RUNS:-3}"); do
    t0=$SECONDS
    (cd /tmp/rb-fresh && make bench ARCH=sm_90 GIT_REV="$REV" BENCH_ARGS="--json $OUT/bench$i.json") \
        > "$OUT/bench$i.log" 2>&1
    say "make bench $i exit $? in $((SECONDS - t0)) s"
    grep -E '^(platform|verdicts|regressed|contended|exit)' "$OUT/bench$i.log" | tee -a "$LOG"
done
say done
# The device tool brings back at most 8 files: the logs and results go in one archive, the summary
# beside it.
(cd "$OUT" && tar czf results.tgz --exclude=results.tgz --exclude=fresh.log . &&
    find . -mindepth 1 ! -name results.tgz ! -name fresh.log -delete)
