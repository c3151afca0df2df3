#!/usr/bin/env bash
# Call 5: hgemm step 7 with fast.cu kernel 12's choices as options (gpu_variants.sh).
set -u
O=$OUT; L=$O/call5.log
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
SIZES="8192x8192 6144x6144 4096x4096" ROUNDS=2 CHECK="999x1021 4096x4096 1x8 3000x776 520x5000" \
  CHECK_TIMEOUT=90 RUN_TIMEOUT=150 OUT=$O/hg scripts/probes/gpu_variants.sh \
  base= c64='-DHGEMM_SM90_MAX_CLUSTERS=64' s3='-DHGEMM_SM90_STAGES_OPT=3' \
  c64hil='-DHGEMM_SM90_MAX_CLUSTERS=64 -DHGEMM_SM90_HILBERT=1'
say "hgemm variants exit $?"
grep -E "^== |check|optimized  |fp8  " $O/hg/summary.log | tee -a $L
say done
