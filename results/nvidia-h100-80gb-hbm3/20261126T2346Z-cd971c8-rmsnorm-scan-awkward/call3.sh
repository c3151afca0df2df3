#!/usr/bin/env bash
# Call 3: rmsnorm's persistent options and scan's tile shapes (gpu_variants.sh), then cuBLASLt at
# the awkward shape (gemm_awkward_lt).
set -u
O=$OUT; L=$O/call3.log
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all diagnostics > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
say built
timeout 60 build/sm_90/gemm_awkward_lt > $O/awkward.log 2>&1; say "awkward exit $?"
FILTER='^rmsnorm' SRC=kernels/rmsnorm.cu SIZES="268435456" CHECK="smoke 67108864 4001x4095" ROUNDS=2 \
  DEFECTS=rmsnorm CHECK_TIMEOUT=90 RUN_TIMEOUT=120 OUT=$O/rms scripts/probes/gpu_variants.sh \
  base= persist='-DRMSNORM_PERSIST=1' persist2='-DRMSNORM_PERSIST=2'
say "rmsnorm variants exit $?"
grep -E "rmsnorm.h(64|256)k|check|defects|exit" $O/rms/summary.log | tail -40 | tee -a $L
FILTER='^scan' SRC=kernels/scan.cu SIZES="1073741824" CHECK="smoke 1000003" ROUNDS=2 \
  CHECK_TIMEOUT=90 RUN_TIMEOUT=120 OUT=$O/scan scripts/probes/gpu_variants.sh \
  base= r12b3='-DSCAN_OPT_ROWS=12 -DSCAN_OPT_MIN_BLOCKS=3' r20b2='-DSCAN_OPT_ROWS=20 -DSCAN_OPT_MIN_BLOCKS=2' \
  r10b3='-DSCAN_OPT_ROWS=10 -DSCAN_OPT_MIN_BLOCKS=3'
say "scan variants exit $?"
say done
