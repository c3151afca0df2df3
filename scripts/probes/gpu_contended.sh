#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/probes/gpu_contended.sh [-h]      (on a GPU machine; OUT=DIR, default gpu-out)
#
# A run that shares its GPU, and the same run alone. A co-runner streams DRAM in another process
# (roofbench run --filter '^copy_vectorized$' --samples 2000, again and again, in the
# background); meanwhile
#   contended  roofbench run --filter "$FILTER" --json $OUT/contended.json
# then the co-runner is stopped and, on an idle GPU,
#   clean      roofbench run --filter "$FILTER" --json $OUT/clean.json
#   compare    roofbench compare $OUT/clean.json $OUT/contended.json
# Expected: the contended run names the co-runner's PID, every row timed while it was there says
# contended (never regressed ... unexplained), the run exits 1 with that reason; the clean run
# passes; compare attributes the rows that slowed to contended. Every step's exit code and the
# verdict lines go to $OUT/contended.log (each step's whole output beside it). FILTER (default
# '^(copy_vectorized|reduction|softmax)$') picks the pairs. Nothing is installed; clocks and
# power limits are never changed.
set -uo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
if [ $# -gt 0 ]; then
    echo "usage: scripts/probes/gpu_contended.sh [-h]   (OUT=DIR FILTER=REGEX ARCH=sm_90)" >&2
    exit 2
fi
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
FILTER=${FILTER:-^(copy_vectorized|reduction|softmax)$}
LOG=$OUT/contended.log
export NCCL_NVLS_ENABLE=0
: > "$LOG"
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
# The lines a reader of the verdicts wants: the contention lines, the verdict and exit lines,
# compare's rows and causes.
verdicts() {
    grep -E '^(contended|contention|verdicts|exit 1|of which|baseline)|contended|regressed|unexplained|slower|^energy:' \
        "$1" | head -n 80 >> "$LOG"
}
step() { # name, command...
    local name=$1
    shift
    say "$name: $*"
    "$@" > "$OUT/$name.out" 2>&1
    local rc=$?
    echo "$name exit $rc" | tee -a "$LOG"
    verdicts "$OUT/$name.out"
    return 0
}

say "build"
make -j"$(nproc)" ARCH="$ARCH" all > "$OUT/build.log" 2>&1 || { tail -n 20 "$OUT/build.log"; exit 1; }

# The co-runner: a second roofbench streaming DRAM, started again as soon as it ends, until it is
# told to stop (its own runs see the measured run as a co-runner too: their exit codes are kept
# apart and judge nothing).
corunner() {
    local i=0 child=
    trap '[ -n "$child" ] && kill -INT "$child" 2> /dev/null; wait; exit 0' INT TERM
    while :; do
        i=$((i + 1))
        "$B" run --filter '^copy_vectorized$' --samples 2000 --expect none --no-ceilings \
            --json "$OUT/corunner-$i.json" > "$OUT/corunner-$i.out" 2>&1 &
        child=$!
        wait "$child"
        echo "co-runner run $i exit $?" >> "$OUT/corunner.log"
    done
}
say "start the co-runner"
: > "$OUT/corunner.log"
corunner &
co=$!
sleep 10 # past its probe and setup: streaming when the measured run looks
step contended "$B" run --filter "$FILTER" --json "$OUT/contended.json"
say "stop the co-runner (pid $co)"
kill -TERM "$co" 2> /dev/null
wait "$co" 2> /dev/null
cat "$OUT/corunner.log" >> "$LOG"
sleep 3 # the driver's utilization reaches back up to a second
step clean "$B" run --filter "$FILTER" --json "$OUT/clean.json"
step compare "$B" compare "$OUT/clean.json" "$OUT/contended.json" --json "$OUT/compare.json"
say "done: $LOG"
# The device tool brings back at most 8 files: everything but the log in one archive.
(cd "$OUT" && tar czf contended.tgz --exclude=contended.tgz --exclude=contended.log -- * &&
    find . -mindepth 1 ! -name contended.tgz ! -name contended.log -delete)
