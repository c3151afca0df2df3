#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/probes/gpu_h200_tune.sh
# One call's tuning of the memory kernels on the GPU present: the build, `roofbench ceilings`
# (into the tree's expectation file, copied to $OUT), then scripts/probes/gpu_variants.sh over
# the compile-time options of transpose (the 16-byte tile's height), histogram (the prefetch,
# the block) and tma_pipeline (stages, rows per thread, blocks per SM), each variant validated at
# the odd sizes and its planted defects run, then timed twice in turn. Each part's summary in
# $OUT/<part>/summary.log.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
mkdir -p "$OUT"
LOG=$OUT/tune.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
t0=$SECONDS
make -j"$(nproc)" ARCH=sm_90 all build/sm_90/rbtest > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
say "build $((SECONDS - t0)) s"
t0=$SECONDS
build/sm_90/roofbench ceilings > "$OUT/ceilings.log" 2>&1
say "ceilings exit $? in $((SECONDS - t0)) s"
grep -E '^ *(dram|l2|smem|fp32|bf16|fp8|launch|graph|pcie)' "$OUT/ceilings.log" | tee -a "$LOG"
cp expectations/nvidia-h200.json "$OUT/"
OUT=$OUT/transpose SRC=kernels/transpose.cu FILTER='^transpose$' SIZES=8192x16384 \
    CHECK="999x1021 1004x2008" DEFECTS=transpose scripts/probes/gpu_variants.sh \
    v64= v32='-DTRANSPOSE_VROWS=32' v128='-DTRANSPOSE_VROWS=128' > /dev/null 2>&1
say "transpose"; grep -vE '^ *platform' "$OUT/transpose/summary.log" | tee -a "$LOG" > /dev/null
OUT=$OUT/histogram SRC=kernels/histogram.cu FILTER='^histogram$' SIZES=268435456 \
    CHECK="1000003 smoke" DEFECTS=histogram scripts/probes/gpu_variants.sh \
    pf= nopf='-DHISTOGRAM_PREFETCH=0' b1024='-DHISTOGRAM_BLOCK=1024' > /dev/null 2>&1
say "histogram"; cat "$OUT/histogram/summary.log" >> "$LOG"
OUT=$OUT/tma SRC=kernels/tma_pipeline.cu FILTER='^tma_pipeline$' SIZES=16384x16384 \
    CHECK="999x1021 1004x2008" scripts/probes/gpu_variants.sh \
    base= s4='-DTMA_PIPELINE_STAGES=4' v16='-DTMA_PIPELINE_ROWS_PER_THREAD=16' \
    v16b2='-DTMA_PIPELINE_ROWS_PER_THREAD=16 -DTMA_PIPELINE_BLOCKS_PER_SM=2' > /dev/null 2>&1
say "tma_pipeline"; cat "$OUT/tma/summary.log" >> "$LOG"
say done
