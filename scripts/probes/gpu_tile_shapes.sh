#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/probes/gpu_tile_shapes.sh
# rmsnorm's cluster blocks and scan's tile size, each a compile-time choice, built three ways
# and run in turn twice (A B C A B C, so that a drift of the machine shows as A against A):
#   A  the tree's defaults (rmsnorm's cluster blocks of 512 threads, scan tiles of 4 vectors a
#      thread, 4096 elements)
#   B  rmsnorm's cluster blocks of 256 threads (h64k: 4 blocks a row, h256k: 16, the
#      non-portable cluster size) and scan tiles of 8 vectors a thread (8192 elements)
#   C  scan tiles of 16 vectors a thread (16384 elements)
# Summary (each run's rmsnorm and scan rows) in $OUT/summary.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
mkdir -p "$OUT"
LOG=$OUT/summary.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
declare -A FLAGS=([A]="" [B]="-DRMSNORM_CLUSTER_BLOCK=256 -DSCAN_ROWS=8" [C]="-DSCAN_ROWS=16")
for v in A B C; do
    say "build $v: ${FLAGS[$v]:-defaults}"
    make -j"$(nproc)" ARCH=sm_90 B=build/tile-$v NVCCFLAGS="${FLAGS[$v]}" all \
        > "$OUT/build-$v.log" 2>&1 || { tail -n 20 "$OUT/build-$v.log" | tee -a "$LOG"; exit 1; }
done
for round in 1 2; do
    for v in A B C; do
        say "round $round, $v"
        build/tile-$v/roofbench run --filter '^(rmsnorm|scan)$' --expect none \
            --json "$OUT/run-$v$round.json" > "$OUT/run-$v$round.log" 2>&1
        echo "exit $?" | tee -a "$LOG"
        grep -E '^\| (rmsnorm|scan)' "$OUT/run-$v$round.md" | cut -d'|' -f2-6 | tee -a "$LOG"
    done
done
tar czf /tmp/tiles.tgz -C "$OUT" --exclude summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -delete && mv /tmp/tiles.tgz "$OUT/tiles.tgz"
