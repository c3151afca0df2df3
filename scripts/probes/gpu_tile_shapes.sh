#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR [FILTER=REGEX] scripts/probes/gpu_tile_shapes.sh NAME=FLAGS ...
# Compile-time shapes of a pair's kernels, one build each (NAME=FLAGS: nvcc's -D options, e.g.
# r16='-DSCAN_OPT_ROWS=16'), run in turn twice (A B C A B C, so that a drift of the machine
# shows as A against A) over the pairs FILTER matches (default scan). Each run's rows in
# $OUT/summary.log, the runs' files in one archive. It chose scan's tile: tiles of 16 vectors a
# thread beat 4 and 8 (docs/notes/scan.md); and it showed that rmsnorm's cluster blocks of 256
# and 1024 threads (-DRMSNORM_CLUSTER_BLOCK, an option of the trees it ran, since removed) were
# no better than 512 (docs/notes/rmsnorm.md).
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
FILTER=${FILTER:-^scan$}
mkdir -p "$OUT"
LOG=$OUT/summary.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
names=()
for c in "$@"; do
    n=${c%%=*} f=${c#*=}
    names+=("$n")
    say "build $n: ${f:-defaults}"
    make -j"$(nproc)" ARCH=sm_90 B=build/shape-$n NVCCFLAGS="$f" all > "$OUT/build-$n.log" 2>&1 ||
        { tail -n 20 "$OUT/build-$n.log" | tee -a "$LOG"; exit 1; }
done
for round in 1 2; do
    for n in "${names[@]}"; do
        say "round $round, $n"
        build/shape-$n/roofbench run --filter "$FILTER" --expect none \
            --json "$OUT/run-$n-$round.json" > "$OUT/run-$n-$round.log" 2>&1
        echo "exit $?" | tee -a "$LOG"
        python3 - "$OUT/run-$n-$round.json" << 'PY' | tee -a "$LOG"
import json, sys
d = json.load(open(sys.argv[1]))
print("  platform dram %.0f GB/s" % (d.get("platform") or {}).get("dram_gbps", float("nan")))
for p in d["pairs"]:
    for v in p["variants"]:
        r = "%.0f %s" % (v["rate"], v["rate_unit"]) if v.get("valid") and v.get("rate") else "invalid"
        print("  %-14s %-10s %s" % (p["name"], v["name"], r))
PY
    done
done
tar czf /tmp/shapes.tgz -C "$OUT" --exclude summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -delete && mv /tmp/shapes.tgz "$OUT/shapes.tgz"
