#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR [RUNS=3] [CEILINGS=1] [TEST=1] [SKIP_BUILD=1] scripts/gpu_record.sh
# One machine's share of an expectation file recorded as a model (docs/expectations.md): the
# build, then RUNS full runs (default 3) of the suite, each written to
# $OUT/run-<GPU UUID's first 8 hex digits>-<i>.json. CEILINGS=1 first measures this GPU's roofs
# into the tree's expectation file (copied to $OUT); TEST=1 runs make test's GPU suites after the
# runs (their log in $OUT/test-gpu.log); SKIP_BUILD=1 uses the binaries already in build/ (built
# elsewhere from the same tree). Do this on two or more machines of the model, then
# merge every run into the file, on any machine:
#   build/sm_90/roofbench expectations --record DIR1/run-*.json DIR2/run-*.json
# A summary in $OUT/record.log. GIT_REV=<rev> names the revision where the tree has no .git.
# Never changes clocks or power limits.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
LOG=$OUT/record.log
export NCCL_NVLS_ENABLE=0
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -n 1)
short=$(echo "$uuid" | sed 's/^GPU-//' | cut -c1-8)
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,temperature.gpu,power.limit --format=csv,noheader | head -n 1)"
t0=$SECONDS
if [ "${SKIP_BUILD:-0}" = 1 ] && [ -x "$B" ] && [ -x build/$ARCH/rbtest ]; then
    say "build skipped (SKIP_BUILD=1): $($B --version | head -n 1)"
else
    make ARCH="$ARCH" all build/$ARCH/rbtest > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
    say "build exit 0 in $((SECONDS - t0)) s"
fi
if [ "${CEILINGS:-0}" = 1 ]; then
    t0=$SECONDS
    $B ceilings > "$OUT/ceilings.log" 2>&1
    say "ceilings exit $? in $((SECONDS - t0)) s"
    grep -E '^ *[a-z0-9_]+_(gbps|tflops|us) ' "$OUT/ceilings.log" >> "$LOG"
    file=$(sed -n 's/^.* ceilings written to \(.*\)$/\1/p' "$OUT/ceilings.log" | tail -n 1)
    [ -n "$file" ] && cp "$file" "$OUT/"
fi
for i in $(seq 1 "${RUNS:-3}"); do
    t0=$SECONDS
    $B run --json "$OUT/run-$short-$i.json" > "$OUT/run-$short-$i.log" 2>&1
    say "run $i exit $? in $((SECONDS - t0)) s"
    grep -E '^(platform|verdicts|contended)' "$OUT/run-$short-$i.log" >> "$LOG"
done
if [ "${TEST:-0}" = 1 ]; then
    t0=$SECONDS
    build/$ARCH/rbtest $B gpu > "$OUT/test-gpu.log" 2>&1
    say "GPU tests exit $? in $((SECONDS - t0)) s: $(tail -n 1 "$OUT/test-gpu.log")"
    grep -E 'FAIL|PASSED \(bad\)' "$OUT/test-gpu.log" | head -n 20 >> "$LOG"
fi
say "merge with: roofbench expectations --record $OUT/run-*.json (with the other machines' runs)"
# The runs' files and this summary stay; every other file goes into one archive (a GPU machine
# may bring back only a few files).
(cd "$OUT" && find . -maxdepth 1 -type f ! -name record.log ! -name 'run-*.json' ! -name logs.tgz |
    sed 's@^\./@@' > /tmp/rb-record-files && [ -s /tmp/rb-record-files ] &&
    tar czf logs.tgz -T /tmp/rb-record-files && xargs rm -f < /tmp/rb-record-files)
