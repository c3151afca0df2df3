#!/usr/bin/env bash
# rmsnorm's persistent kernel with the next row's prefetch at the loop's top against the default.
set -u
O=$OUT; L=$O/rms.log; mkdir -p $O
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
FILTER='^rmsnorm[.]h(64|256)k$' SRC=kernels/rmsnorm.cu SIZES=268435456 ROUNDS=3 \
  CHECK="smoke 4001x4095 4928x4096 4928x3126" DEFECTS=rmsnorm OUT=$O/v \
  scripts/probes/gpu_variants.sh base= early=-DRMSNORM_PREFETCH_EARLY=1
say "variants exit $?"; cat $O/v/summary.log >> $L
say done
