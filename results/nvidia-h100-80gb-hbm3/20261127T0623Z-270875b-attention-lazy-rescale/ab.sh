#!/usr/bin/env bash
# attention under compile-time options (the arguments, NAME=FLAGS), each in its own interleaved
# run at the full size, PyTorch SDPA (cuDNN) before and after in the same call.
set -u
O=$OUT; L=$O/ab.log; mkdir -p $O
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
timeout 150 python3 scripts/torch_sdpa.py > $O/torch1.log 2>&1; say "torch 1 exit $?"; grep -iE "cudnn|flash|clock" $O/torch1.log | head -20 | tee -a $L
FILTER='^attention$' SRC=kernels/attention.cu SIZES=full CHECK=${CHECK:-999x1021} ROUNDS=${ROUNDS:-2} \
  OUT=$O/v scripts/probes/gpu_variants.sh "$@"
say "variants exit $?"; cat $O/v/summary.log >> $L
timeout 150 python3 scripts/torch_sdpa.py > $O/torch2.log 2>&1; say "torch 2 exit $?"; grep -iE "cudnn|flash|clock" $O/torch2.log | head -20 | tee -a $L
say "$(nvidia-smi --query-gpu=temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
say done
