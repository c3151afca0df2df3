#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hgemm on a GPU machine: build, validate every step at awkward and small shapes,
# then the full run (8192^3, 6144^3 and 4096^3 square, the awkward shape, all steps interleaved
# with cuBLASLt); logs and results in $OUT. HGEMM_TIMEOUT bounds each roofbench command (a hung
# pipeline).
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-out}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT"
LOG=$OUT/summary.log
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
T=${HGEMM_TIMEOUT:-120}
export RB_AUTOTUNE_CACHE=${RB_AUTOTUNE_CACHE:-$OUT/gemm_autotune.json}
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
say "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.limit --format=csv,noheader | head -n 1)"
say build
make -j"$(nproc)" ARCH="$ARCH" all > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
for size in 999x1021 256x256 1x8 4096x4096; do
    say "check $size"
    timeout $((T + 30)) $B check --filter '^hgemm' --size $size --timeout $T > "$OUT/check-$size.log" 2>&1
    echo "exit $?" | tee -a "$LOG"
    grep -vE '^\[|^      \(' "$OUT/check-$size.log" | tail -n 24 >> "$LOG"
done
if [ "${FULL:-1}" = 1 ]; then
    say "run full"
    timeout $((4 * T + 60)) $B run --filter '^hgemm' --expect none --timeout $((2 * T)) --json "$OUT/hgemm.json" > "$OUT/run.log" 2>&1
    echo "exit $?" | tee -a "$LOG"
    sed -n '/^pair /,$p' "$OUT/run.log" >> "$LOG"
fi
say done
tar czf /tmp/rb-hgemm.tgz -C "$OUT" --exclude summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -delete && mv /tmp/rb-hgemm.tgz "$OUT/hgemm.tgz"
