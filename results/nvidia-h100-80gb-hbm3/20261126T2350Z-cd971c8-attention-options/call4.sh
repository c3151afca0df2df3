#!/usr/bin/env bash
# Call 4: attention's FA3 options (gpu_variants.sh), then hgemm's kernel-12 options if time allows.
set -u
O=$OUT; L=$O/call4.log
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
FILTER='^attention' SRC=kernels/attention.cu SIZES="full" CHECK="smoke 8x1021" ROUNDS=2 \
  CHECK_TIMEOUT=90 RUN_TIMEOUT=150 OUT=$O/att scripts/probes/gpu_variants.sh \
  base= pp='-DATT90_PINGPONG=1' ov='-DATT90_OVERLAP=1' both='-DATT90_PINGPONG=1 -DATT90_OVERLAP=1'
say "attention variants exit $?"
grep -E "^== |attention.*optimized|check|exit" $O/att/summary.log | tee -a $L
say done
