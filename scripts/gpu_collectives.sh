#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/gpu_collectives.sh   (a machine of 2 or more GPUs)
# The collectives' GPU checks, then their agreement with nccl-tests: nccl_allreduce's planted
# defects caught (NCCL's swapped buckets, the ring's undrained pipeline) and every variant valid
# at odd counts (tests/test_gpu.c), then scripts/nccl_agree.sh (OUT=$OUT/agree). Summary in
# $OUT/summary.log, the rest in $OUT/collectives.tgz; exit 1 when a check fails or a median
# ratio is below 0.99. About 4 minutes on 4 GPUs (~30 s of checks, ~3-3.5 min of agreement)
# once built; the first build adds a few minutes.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:?OUT=DIR}
mkdir -p "$OUT/checks"
export NCCL_NVLS_ENABLE=0 CUDA_DEVICE_ORDER=PCI_BUS_ID
LOG=$OUT/summary.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
make -j"$(nproc)" ARCH=sm_90 build/sm_90/roofbench build/sm_90/rbtest > "$OUT/checks/build.log" \
    2>&1 || { tail -n 30 "$OUT/checks/build.log"; exit 2; }
rc=0
for c in planted_defects_fail_their_check nccl_ring_valid_at_odd_counts; do
    RBTEST_PAIR=nccl_allreduce RBTEST_CASE=$c build/sm_90/rbtest build/sm_90/roofbench gpu \
        > "$OUT/checks/$c.log" 2>&1
    st=$?
    say "$c: exit $st: $(tail -n 1 "$OUT/checks/$c.log")"
    grep -E 'caught|PASSED \(bad\)' "$OUT/checks/$c.log" | tee -a "$LOG"
    [ $st -eq 0 ] || rc=1
done
OUT=$OUT/agree scripts/nccl_agree.sh > /dev/null 2>&1
st=$?
cat "$OUT/agree/summary.log" >> "$LOG"
[ $st -eq 0 ] || rc=1
say "done: exit $rc"
tar czf "$OUT/collectives.tgz" -C "$OUT" checks agree && rm -rf "$OUT/checks" "$OUT/agree"
exit $rc
