#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/probes/gpu_profile.sh [-h]      (on a GPU machine; OUT=DIR, default gpu-out)
#
# `roofbench profile` of the whole suite at full size, within one call of BUDGET_S seconds
# (default 560): the pairs in parts of PART pairs (default 4), each part its own
#   roofbench profile --filter '^(p1|p2|...)$' -o $OUT/parts/NN
# (ncu on check, --clock-control none, one window per variant; ALONE=REGEX: pairs profiled last,
# each in a part of its own, default cuda_graphs and nccl_allreduce), the parts' captures merged
#   roofbench profile -o $OUT/profile $OUT/parts/*.ncu.csv
# into one document (profile.json, .md, .svg, .html). A part that would start with less than
# 90 s left is not started: the log says which pairs were left, and a second call with
# FILTER=REGEX profiles them (merge both calls' parts with the last command). Each part's time
# goes to $OUT/profile.log, with ncu's version and the total. Everything is packed into
# $OUT/profile.tgz. SKIP_BUILD=1 uses the build there is. Clocks are never changed.
set -uo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
if [ $# -gt 0 ]; then
    echo "usage: scripts/probes/gpu_profile.sh [-h]   (OUT=DIR FILTER=REGEX PART=N BUDGET_S=S ALONE=REGEX)" >&2
    exit 2
fi
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-out}
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
PART=${PART:-4}
BUDGET_S=${BUDGET_S:-560}
FILTER=${FILTER:-.}
mkdir -p "$OUT/parts"
LOG=$OUT/profile.log
: > "$LOG"
say() { echo "== $(date -u +%T) +$((SECONDS))s $*" | tee -a "$LOG"; }
pack() { tar -czf "$OUT/profile.tgz" -C "$OUT" profile.log parts $(cd "$OUT" && ls profile.json profile.md profile.svg profile.html 2>/dev/null); }
trap pack EXIT
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    say "build"
    make -j"$(nproc)" ARCH="$ARCH" all > "$OUT/parts/build.log" 2>&1 || { say "build failed"; exit 1; }
fi
ncu_bin=$(command -v ncu || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ncu")
say "ncu: $("$ncu_bin" --version 2>&1 | grep Version)"
# A smoke-size part first: a metric this ncu does not know, or no counter access, shows in a
# few seconds (its ==ERROR== line in the log) instead of in every part.
"$B" profile --filter '^copy_vectorized$' --size smoke -o "$OUT/parts/smoke" > "$OUT/parts/smoke.log" 2>&1
rc=$?
say "smoke part: exit $rc"
if [ "$rc" != 0 ]; then
    grep -E 'ERROR|roofbench:' "$OUT/parts/smoke.log" | head -5 | tee -a "$LOG"
    exit 1
fi
rm -f "$OUT/parts/smoke.ncu.csv"
# The pairs of one GPU (those needing several are skipped by check on one GPU anyway).
# The pairs whose run() launches hundreds of kernels (cuda_graphs: 808 in its four windows, each
# replayed by ncu for its counters, ~230 s; nccl_allreduce: 90 windows) go last, each alone.
ALONE=${ALONE:-^(cuda_graphs|nccl_allreduce)\$}
listed=$($B list --filter "$FILTER" | awk '/^[a-z]/ && $1 != "pair" {print $1}')
pairs="$(echo "$listed" | grep -Ev "$ALONE") $(echo "$listed" | grep -E "$ALONE")"
set -- $pairs
n=0
while [ $# -gt 0 ]; do
    group=""
    for _ in $(seq "$PART"); do
        [ $# -gt 0 ] || break
        if echo "$1" | grep -Eq "$ALONE"; then
            [ -z "$group" ] && { group=$1; shift; }
            break
        fi
        group="${group:+$group|}$1"
        shift
    done
    n=$((n + 1))
    left=$((BUDGET_S - SECONDS))
    if [ "$left" -lt 90 ]; then
        say "not started (${left}s left): $group $*"
        break
    fi
    part=$(printf '%s/parts/%02d' "$OUT" "$n")
    t0=$SECONDS
    timeout $((left - 30)) "$B" profile --filter "^($group)\$" -o "$part" > "$part.log" 2>&1
    say "part $n ($group): exit $? in $((SECONDS - t0)) s"
    grep -E 'moves (more|less)' "$part.log" | tee -a "$LOG"
done
t0=$SECONDS
"$B" profile -o "$OUT/profile" "$OUT"/parts/*.ncu.csv > "$OUT/parts/merge.log" 2>&1
say "merged $(ls "$OUT"/parts/*.ncu.csv 2>/dev/null | wc -l) parts: exit $? in $((SECONDS - t0)) s"
grep -A40 '^work model' "$OUT/parts/merge.log" | tee -a "$LOG"
say "total $SECONDS s"
