#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/gpu_multi.sh PART...   (a node of 2 or more GPUs)
# One multi-GPU machine session: the build once, then each PART's script in turn, its files in
# $OUT/PART/ (a summary and one archive each, so a session of four parts brings back 8 files):
#   collectives  scripts/gpu_collectives.sh  (the ring's checks, agreement with nccl-tests)
#   p2p          scripts/gpu_p2p.sh          (the link ceilings and the P2P matrix)
#   node         scripts/gpu_node.sh         (run --device all, clean and with a slow GPU)
#   fleet        scripts/gpu_fleet.sh        (roofbench_mpi over every GPU, posing as 2 nodes)
# The first line of $OUT/session.log names the machine; each part's exit and wall time follow.
case "${1:-}" in -h | --help | "") sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:?OUT=DIR}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
LOG=$OUT/session.log
echo "== $(date -u +%FT%TZ) $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name,driver_version \
    --format=csv,noheader | head -n 1)" | tee -a "$LOG"
nvidia-smi topo -m >> "$LOG" 2>&1
t0=$SECONDS
make -j"$(nproc)" ARCH=sm_90 all > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s" | tee -a "$LOG"
rm -f "$OUT/build.log"
rc=0
for part in "$@"; do
    t0=$SECONDS
    OUT=$OUT/$part bash "scripts/gpu_$part.sh"
    r=$?
    [ $r = 0 ] || rc=1
    echo "== $part: exit $r, $((SECONDS - t0)) s" | tee -a "$LOG"
done
exit $rc
