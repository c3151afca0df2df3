#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/gpu_p2p.sh   (a machine of 2 or more GPUs; ~1.5 min on 4 after the build)
# The P2P matrix and its roofs: the link ceilings (ceilings --links: PCIe, and NVLink one way
# and both ways, the best of every pair) into a fresh expectation file, then `roofbench p2p`
# against them (every ordered pair: one way, both ways, latency; weak links marked), the
# p2p_copy pair on the same roofs, and what one GPU says (no pairs, exit 0). The tables go to
# $OUT/summary.log; everything else into $OUT/p2p.tgz.
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:?OUT=DIR}
mkdir -p "$OUT"
export CUDA_DEVICE_ORDER=PCI_BUS_ID
B=build/sm_90/roofbench
LOG=$OUT/summary.log
E=$OUT/expect-links.json
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
n=$(nvidia-smi -L | wc -l)
say "$n GPUs: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
nvidia-smi topo -m > "$OUT/topo.txt" 2>&1
nvidia-smi nvlink --status > "$OUT/nvlink-status.txt" 2>&1
make -j"$(nproc)" ARCH=sm_90 $B > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }

say "ceilings --links (PCIe, NVLink one way and both ways)"
rm -f "$E"
$B ceilings --links --expect "$E" > "$OUT/ceilings-links.log" 2>&1
echo "exit $?" | tee -a "$LOG"
grep -E 'pcie|nvlink' "$OUT/ceilings-links.log" | tee -a "$LOG"

say "p2p (every ordered pair)"
t0=$(date +%s)
$B p2p --expect "$E" --json "$OUT/p2p.json" --html "$OUT/p2p.html" > "$OUT/p2p.txt" 2>&1
rc=$?
cat "$OUT/p2p.txt" >> "$LOG"
echo "exit $rc (0: no weak link; 1: a weak link or a failure), $(($(date +%s) - t0)) s" |
    tee -a "$LOG"

say "p2p_copy on the same roofs"
$B run --filter '^p2p_copy$' --expect "$E" --no-ceilings --json "$OUT/p2p_copy.json" \
    > "$OUT/p2p_copy.log" 2>&1
echo "exit $?" | tee -a "$LOG"
grep -E 'baseline|peer_read|optimized' "$OUT/p2p_copy.log" | tee -a "$LOG"

say "one GPU: p2p has no pairs (want exit 0 and the line)"
CUDA_VISIBLE_DEVICES=0 $B p2p --expect none > "$OUT/p2p-one-gpu.txt" 2>&1
echo "exit $?: $(grep -m1 'one GPU' "$OUT/p2p-one-gpu.txt")" | tee -a "$LOG"

tar czf /tmp/p2p.tgz -C "$OUT" --exclude summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -delete && mv /tmp/p2p.tgz "$OUT/p2p.tgz"
