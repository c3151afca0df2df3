#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One GPU call that does what the machine it lands on is for (a call for an H200 may get an H100):
#   scripts/gpu_session.sh suite|same-build|plant-hgemm
#   H100, suite: scripts/gpu_run.sh's GPU tests (every planted defect), two back-to-back full
#         runs judged against the committed expectations, their agreement and compare, and the
#         --cold run (no ncu, no chain diagnostic);
#   H100, same-build: two full runs of the same build judged against the committed
#         expectations, and compare of the two with the expectations' floors (issue 12);
#   H100, plant-hgemm: gemm_precision's planted cuBLASLt slowdown judged against the committed
#         expectations (issue 12), hgemm's full run (8192^3 and 4096^3, square and awkward) and
#         ncu of the awkward shape's wgmma and tma steps (issue 13);
#   H200: the ceilings and a full run (hgemm included) recorded as the H200's expectations,
#         then a second full run judged against them (issues 11 and 13).
# Logs and results in $OUT (one archive + summary.log).
set -uo pipefail
TASK=${1:-same-build}
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
case $GPU/$TASK in
*H200*) ;;
*/suite) rm -rf "$OUT/f"; exec env TEST=1 CHAIN=0 NCU=0 RUNS=2 OUT="$OUT" scripts/gpu_run.sh ;;
esac
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
    say "second full run, judged against the expectations just recorded"
    timeout 200 $B run --json "$OUT/f/h200-run2.json" > "$OUT/f/h200-run2.log" 2>&1
    echo "exit $?" | tee -a "$LOG"
    grep -E '^(platform|verdicts|regressed|improved|exit)' "$OUT/f/h200-run2.log" | tee -a "$LOG"
    cp expectations/*.json "$OUT/f/" 2> /dev/null
    ;;
*)
    case $TASK in
    same-build)
        for i in 1 2; do
            say "full run $i of the same build, judged against the committed expectations"
            timeout 200 $B run --json "$OUT/f/same$i.json" > "$OUT/f/same$i.log" 2>&1
            echo "exit $?" | tee -a "$LOG"
            grep -E '^(platform|verdicts|regressed|improved|exit)' "$OUT/f/same$i.log" | tee -a "$LOG"
        done
        say "compare the two (floors from the committed expectations)"
        $B compare "$OUT/f/same1.json" "$OUT/f/same2.json" --json "$OUT/f/cmp-same.json" > "$OUT/f/cmp-same.txt" 2>&1
        echo "exit $?" | tee -a "$LOG"
        grep -E '^(floors|verdicts|exit)' "$OUT/f/cmp-same.txt" | tee -a "$LOG"
        grep -E ' (slower|faster|unclear) ' "$OUT/f/cmp-same.txt" | tee -a "$LOG"
        ;;
    plant-hgemm)
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
    *) echo "unknown task $TASK (suite, same-build, plant-hgemm)"; exit 2 ;;
    esac
    ;;
esac
say done
tar czf /tmp/rb-f.tgz -C "$OUT" f && rm -rf "$OUT/f" && mv /tmp/rb-f.tgz "$OUT/f.tgz"
