#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/probes/gpu_decode_attention.sh [-h]
# decode_attention's first GPU session, in one call: the build, `check` at the smoke, the GPU
# tests' odd (999x1021), the defects' (3x8192) and the full size, one full `run` (its results
# and the table), the pair's planted defects by the GPU test tier (rbtest's gpu suite), and
# PyTorch SDPA on the same shapes (scripts/torch_decode.py; skipped without torch). Everything
# under $OUT/decode_attention, packed into $OUT/decode_attention.tgz; a line per step in
# $OUT/decode_attention/summary.log.
set -uo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
D=$OUT/decode_attention
mkdir -p "$D"
LOG=$D/summary.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
step() { # name, command...: runs it into $D/name.log, says its status
    local name=$1
    shift
    "$@" > "$D/$name.log" 2>&1
    say "$name: exit $?"
}
say "$(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -n 1)"
step build make -j"$(nproc)" ARCH=sm_90 all build/sm_90/rbtest
for size in smoke 999x1021 3x8192 full; do
    step "check_$size" build/sm_90/roofbench check --filter '^decode_attention$' --size "$size"
done
step run build/sm_90/roofbench run --filter '^decode_attention$' --json "$D/run.json"
# tests/test_gpu.c's planted-defect test alone, on this pair alone (RBTEST_PAIR)
others=$(grep -oP '^\s+\{"\K[a-z_0-9]+(?=",)' tests/test_gpu.c |
    grep -vx planted_defects_fail_their_check | sed 's@^@-gpu/@')
# shellcheck disable=SC2086
step defects env RBTEST_PAIR=decode_attention build/sm_90/rbtest build/sm_90/roofbench gpu $others
if python3 -c 'import torch' 2> /dev/null; then
    step torch python3 scripts/torch_decode.py
else
    say "torch: not installed, skipped"
fi
tar -czf "$OUT/decode_attention.tgz" -C "$OUT" decode_attention
say "packed $OUT/decode_attention.tgz"
