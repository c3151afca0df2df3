#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR GIT_REV=REV [BUDGET_S=300] [RUNS=3] [TESTS=1] [FULL=0] [TORCH=1] scripts/probes/gpu_decode_record.sh
# One machine's share of the decode pairs' first H200 rows, in one call, each step started only
# while BUDGET_S allows it (a line says what was left out): the build; `check` of decode_gemv and
# decode_attention at full size; RUNS runs of the two pairs (run-<GPU UUID's first 8>-<i>.json,
# merged with another machine's by `roofbench expectations --record`); TESTS=1 the GPU test tier
# (every pair valid at smoke, odd and partial sizes, every planted defect caught); FULL=1 one full
# run of the suite judged against the tree's file (full-<uuid>.json); TORCH=1 PyTorch's GEMV and
# SDPA on the same shapes. Everything under $OUT/w, packed into $OUT/decode.tgz, with
# $OUT/summary.log. GIT_REV names the revision (a copy of the tree may carry a stale .git).
# Never changes clocks or power limits.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
W=$OUT/w
mkdir -p "$W"
LOG=$OUT/summary.log
B=build/sm_90/roofbench
BUDGET_S=${BUDGET_S:-300}
say() { echo "== $(date -u +%T) +${SECONDS}s $*" | tee -a "$LOG"; }
left() { [ $((BUDGET_S - SECONDS)) -gt "$1" ] || { say "left out (under $1 s left): $2"; return 1; }; }
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -n 1)
short=$(echo "$uuid" | sed 's/^GPU-//' | cut -c1-8)
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j"$(nproc)" ARCH=sm_90 GIT_REV="${GIT_REV:-unknown}" all build/sm_90/rbtest > "$W/build.log" 2>&1
say "build exit $?: $($B --version | head -n 1)"
$B check --filter '^decode_(gemv|attention)$' > "$W/check.log" 2>&1
say "check full exit $?"
for i in $(seq 1 "${RUNS:-3}"); do
    left 40 "decode run $i" || break
    $B run --filter '^decode_(gemv|attention)$' --json "$W/run-$short-$i.json" > "$W/run-$short-$i.log" 2>&1
    say "decode run $i exit $?: $(grep -E '^verdicts' "$W/run-$short-$i.log")"
done
if [ "${TESTS:-1}" = 1 ] && left 150 "GPU tests"; then
    build/sm_90/rbtest $B gpu > "$W/test-gpu.log" 2>&1
    say "GPU tests exit $?: $(tail -n 1 "$W/test-gpu.log")"
    grep -E 'FAIL' "$W/test-gpu.log" | head -n 20 >> "$LOG"
fi
if [ "${FULL:-0}" = 1 ] && left 170 "full run"; then
    $B run --json "$W/full-$short.json" > "$W/full-$short.log" 2>&1
    say "full run exit $?: $(grep -E '^(verdicts|platform)' "$W/full-$short.log" | tr '\n' ' ')"
fi
if [ "${TORCH:-1}" = 1 ]; then
    left 40 "torch_gemv" && { python3 scripts/torch_gemv.py > "$W/torch_gemv.log" 2>&1; say "torch_gemv exit $?"; }
    left 40 "torch_decode" && { python3 scripts/torch_decode.py > "$W/torch_decode.log" 2>&1; say "torch_decode exit $?"; }
fi
cp "$LOG" "$W/"
tar czf "$OUT/decode.tgz" -C "$W" .
say "packed $OUT/decode.tgz"
