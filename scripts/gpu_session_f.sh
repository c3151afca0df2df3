#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One GPU call that does what the machine it lands on is for (a call for an H200 may get an H100):
#   H100: gemm_precision's planted cuBLASLt slowdown judged against the committed expectations
#         (issue 12), hgemm's full run at 8192^3 and 4096^3 (square and awkward), and ncu of the
#         awkward shape's wgmma and tma steps (issue 13);
#   H200: the ceilings, a full run recorded as the H200's expectations (issue 11), hgemm's run.
# Logs and results in $OUT (one archive + summary.log).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT/f"
LOG=$OUT/summary.log
ARCH=sm_90
B=build/$ARCH/roofbench
export NCCL_NVLS_ENABLE=0 RB_AUTOTUNE_CACHE=$OUT/f/gemm_autotune.json
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
say "$GPU, $(nvidia-smi --query-gpu=driver_version,clocks.sm,temperature.gpu,power.limit --format=csv,noheader | head -n 1)"
make -j"$(nproc)" ARCH=$ARCH all > "$OUT/f/build.log" 2>&1 || { tail -n 30 "$OUT/f/build.log"; exit 1; }
hgemm_run() {
    say "hgemm full run"
    timeout 240 $B run --filter '^hgemm$' --expect none --timeout 200 --json "$OUT/f/hgemm.json" > "$OUT/f/hgemm.log" 2>&1
    echo "exit $?" | tee -a "$LOG"
    sed -n '/^pair /,$p' "$OUT/f/hgemm.log" | grep -v '^note' >> "$LOG"
}
case $GPU in
*H200*)
    say ceilings
    timeout 120 $B ceilings > "$OUT/f/ceilings.log" 2>&1
    echo "exit $?" | tee -a "$LOG"
    cat "$OUT/f/ceilings.log" >> "$LOG"
    say "full run, recorded (--repeat 1)"
    timeout 300 $B run --update-expectations --repeat 1 --json "$OUT/f/h200-run.json" > "$OUT/f/h200-run.log" 2>&1
    echo "exit $?" | tee -a "$LOG"
    sed -n '/^pair /,$p' "$OUT/f/h200-run.log" >> "$LOG"
    cp expectations/*.json "$OUT/f/" 2> /dev/null
    hgemm_run
    ;;
*)
    make -j"$(nproc)" ARCH=$ARCH all NVCCFLAGS=-DRB_PLANT_SLOW10 CFLAGS=-DRB_PLANT_SLOW10 B=build/plant > "$OUT/f/build-plant.log" 2>&1 || { tail -n 30 "$OUT/f/build-plant.log"; exit 1; }
    say "planted gemm_precision judged against the committed expectations"
    timeout 120 build/plant/roofbench run --filter '^gemm_precision$' --json "$OUT/f/planted-gp.json" > "$OUT/f/planted-gp.log" 2>&1
    echo "exit $?" | tee -a "$LOG"
    grep -E 'planted|regressed|improved|verdicts' "$OUT/f/planted-gp.log" | tee -a "$LOG"
    hgemm_run
    say "ncu: awkward shape, steps wgmma and tma"
    timeout 150 ncu --clock-control none --target-processes all \
        --kernel-name "regex:hgemm_(wgmma|tma)_kernel" --launch-count 2 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
        --csv $B check --filter '^hgemm[.]awkward' --size 8192x8192 > "$OUT/f/ncu-awkward.csv" 2> "$OUT/f/ncu.err"
    echo "ncu exit $?" | tee -a "$LOG"
    ;;
esac
say done
tar czf /tmp/rb-f.tgz -C "$OUT" f && rm -rf "$OUT/f" && mv /tmp/rb-f.tgz "$OUT/f.tgz"
