#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/gpu_session.sh record|judge|rerecord REGEX|suite|bench (OUT, REPEAT, RUNS, ...)
# One GPU machine session's work, for whichever GPU it has:
#   scripts/gpu_session.sh record   build; the ceilings (timed, and --quick timed) and the tree's
#                                   expectation file for this GPU recorded from REPEAT (3) full
#                                   runs (scripts/gpu_regress.sh record): a new GPU's file, or
#                                   the re-recording of one
#   scripts/gpu_session.sh judge    build; CEILINGS=1 first measures the ceilings into the tree's
#                                   file (so they share the call with gemm_precision's steps);
#                                   two full runs of the same build judged against the tree's
#                                   file, their compare and 2% agreement (gpu_regress.sh same);
#                                   then make test with its GPU tier (TEST=0 skips it) and ncu's
#                                   tensor-pipe figures of hgemm's steps at 8192^3 (NCU=0 skips)
#   scripts/gpu_session.sh rerecord REGEX
#                                   after a change to the pairs REGEX matches: build; make test
#                                   with its GPU tier; ncu of hgemm's steps where NCU=1; their
#                                   rows of the tree's expectation file recorded again (REPEAT
#                                   runs, gpu_regress.sh record with FILTER); then a full run
#                                   judged against the file
#   scripts/gpu_session.sh suite    scripts/gpu_run.sh's GPU tests, two full runs, --cold run
#   scripts/gpu_session.sh bench    build; RUNS (5: one session) back-to-back `make bench`
#                                   runs judged against the tree's file, each run's exit, its
#                                   verdicts line and its wall time in the summary; then every
#                                   informational row's spread over the runs and the gating rows
#                                   of largest spread (scripts/spread.py; over two calls' runs:
#                                   scripts/spread.py A/bench*.json B/bench*.json, unpacked)
# Logs and results land in $OUT: a summary and an archive per part (a session may bring back
# only a few files). Never changes clocks or power limits.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
TASK=${1:-judge}
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT"
ARCH=sm_90
B=build/$ARCH/roofbench
export NCCL_NVLS_ENABLE=0
LOG=$OUT/session.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
gpu_test() { # make test with its GPU tier: the summary gets its last line and what failed
    say "make test (GPU tier included)"
    make test ARCH=$ARCH > "$OUT/test.log" 2>&1
    echo "test exit $?: $(tail -n 1 "$OUT/test.log")" | tee -a "$LOG"
    grep -E "FAIL|not caught" "$OUT/test.log" | tee -a "$LOG"
}
hgemm_ncu() { # ncu of hgemm's steps: its log in the archive, the last lines in the summary
    say "ncu: hgemm's steps at 8192^3, tensor pipes (metric names as this ncu lists them)"
    OUT=$OUT scripts/probes/gpu_hgemm_ncu.sh > "$OUT/ncu-run.log" 2>&1
    tail -n 2 "$OUT/ncu-run.log" | tee -a "$LOG"
}
say "$TASK on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.limit --format=csv,noheader | head -n 1)"

case $TASK in
record)
    OUT=$OUT/regress CEILINGS=1 SAME=0 scripts/gpu_regress.sh record
    ;;
judge)
    if [ "${CEILINGS:-0}" = 1 ]; then
        make -j"$(nproc)" ARCH=$ARCH all > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
        say ceilings
        t0=$SECONDS
        $B ceilings > "$OUT/ceilings.log" 2>&1
        echo "ceilings exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
        grep -E '^ *(bf16|tf32|fp8)_tflops' "$OUT/ceilings.log" | tee -a "$LOG"
        cp expectations/*.json "$OUT/"
    fi
    OUT=$OUT/regress scripts/gpu_regress.sh same
    grep -E '^(run |verdicts|regressed|improved|floors|[0-9]+ variants|OFF|compare exit)' \
        "$OUT/regress/summary.log" | tee -a "$LOG"
    [ "${TEST:-1}" = 1 ] && gpu_test
    [ "${NCU:-1}" = 1 ] && hgemm_ncu
    # the device tool returns at most 8 files: all but the summaries in one archive
    tar czf /tmp/rb-judge.tgz -C "$OUT" --exclude ./regress --exclude ./session.log . &&
        find "$OUT" -maxdepth 1 -type f ! -name session.log -delete &&
        mv /tmp/rb-judge.tgz "$OUT/judge.tgz"
    ;;
rerecord)
    make -j"$(nproc)" ARCH=$ARCH all > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
    gpu_test
    [ "${NCU:-0}" = 1 ] && hgemm_ncu
    OUT=$OUT/regress FILTER=${2:?the pairs to record again, a --filter regex} SAME=0 \
        scripts/gpu_regress.sh record
    tail -n 3 "$OUT/regress/summary.log" | tee -a "$LOG"
    say "full run judged against the file"
    t0=$SECONDS
    $B run --json "$OUT/full.json" > "$OUT/full.log" 2>&1
    echo "full run exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
    grep -E '^(platform|verdicts|regressed|improved)' "$OUT/full.log" | tee -a "$LOG"
    cp expectations/*.json "$OUT/"
    tar czf /tmp/rb-rerecord.tgz -C "$OUT" --exclude ./regress --exclude ./session.log . &&
        find "$OUT" -maxdepth 1 -type f ! -name session.log -delete &&
        mv /tmp/rb-rerecord.tgz "$OUT/rerecord.tgz"
    ;;
suite)
    exec env TEST=1 CHAIN=0 NCU=0 RUNS=2 OUT="$OUT" scripts/gpu_run.sh
    ;;
bench)
    make -j"$(nproc)" ARCH=$ARCH all > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
    tail -n 1 "$OUT/build.log" | tee -a "$LOG"
    for i in $(seq 1 "${RUNS:-5}"); do
        say "make bench, run $i"
        t0=$SECONDS
        make bench ARCH=$ARCH BENCH_ARGS="--json $OUT/bench$i.json" > "$OUT/bench$i.log" 2>&1
        echo "bench $i exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
        # the verdicts line and its continuation (wrapped at 100 columns), the changes, the exit
        awk '/^(verdicts|regressed|improved|exit)/ {p = 1; print; next} p && /^    / {print; next}
             {p = 0}' "$OUT/bench$i.log" | tee -a "$LOG"
    done
    python3 scripts/spread.py "$OUT"/bench*.json | tee "$OUT/spread.txt" | tee -a "$LOG"
    tar czf /tmp/rb-bench.tgz -C "$OUT" --exclude ./session.log --exclude ./spread.txt . &&
        find "$OUT" -maxdepth 1 -type f ! -name session.log ! -name spread.txt -delete &&
        mv /tmp/rb-bench.tgz "$OUT/bench.tgz"
    ;;
*)
    echo "unknown task $TASK (record, judge, rerecord, suite, bench)"
    exit 2
    ;;
esac
say done
