#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/gpu_run.sh [record] (OUT, FILTER, RUNS, NCU, TEST, ... below)
# Everything a GPU machine session needs, in one go: build, GPU tests, and the suite; logs and
# result files land in $OUT (default: ./gpu-out) as one archive plus a summary log; then ncu's
# measured DRAM bytes of every pair kernel (NCU=0 skips it) and a --cold --nvtx run.
#
#   scripts/gpu_run.sh [record]   record: measure ceilings and rewrite the expectation file from
#                                 the first full run; without it the expectation file is only read
# Each full run is timed without the build, and each pair's wall and setup time is listed. Two back-
# to-back runs are made and their medians compared by scripts/agree.py (RUNS=1: one). Extra
# arguments for `roofbench run` can be passed in RUN_ARGS; FILTER limits the full runs to the pairs
# that match (a --filter regular expression), FILTER2 the second run alone (the NCCL sweep: three
# sizes on one GPU, ten on several); NCU=0 skips the ncu passes, TEST=0 the GPU tests, CEILINGS=0
# the ceilings of a record run (the file's stay), CHAIN=0 the cuda_graphs chain diagnostic (Hopper
# only); BF16=1 adds the sustained sweep of cuBLASLt's bf16 candidates
# (scripts/probes/gemm_bf16_sustained.c, about a minute) after everything else; TORCH=1 PyTorch
# eager's fused_elementwise yardstick (scripts/probes/torch_eager_fused.py), PIPES=1 ncu's detailed
# sections of async_pipeline's kernels; COLD_FILTER picks the pairs of the --cold run; L2_REPLAY=0
# skips l2_persistence's ncu application replay, NCU_TIMEOUT bounds ncu_bytes.sh; COLD=0 skips the
# --cold run.
# SANITIZE=1 adds compute-sanitizer's four tools over every pair (scripts/sanitize.sh, up to
# SANITIZE_TIMEOUT s per tool and size; SANITIZE_TOOLS picks tools; SANITIZE_PARALLEL=1 runs
# the four at once): logs into the archive.
# GIT_REV=<rev> names the commit the results record, where the copy of the tree on the GPU
# machine carries a .git that is not the one it was committed in.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
# SANITIZE=1 means compute-sanitizer here; make would read it as its ASan build (build/*-san).
RUN_SANITIZE=${SANITIZE:-0}
unset SANITIZE
OUT=${OUT:-gpu-out}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
FINAL=$OUT
OUT=$FINAL/logs   # everything but the summary goes into one archive (the device tool returns 8 files)
mkdir -p "$OUT"
LOG=$FINAL/summary.log
: > "$LOG"
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
export NCCL_NVLS_ENABLE=0   # never NVLink multicast on shared machines
# gemm_autotune's tuning cache goes into the archive: the second run shows it reused.
export RB_AUTOTUNE_CACHE=${RB_AUTOTUNE_CACHE:-$OUT/gemm_autotune.json}

ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
say "$(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | head -n 1)"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,TEMPERATURE > "$OUT/smi-start.txt" 2>&1
say "build"
make -j"$(nproc)" ARCH="$ARCH" all "build/$ARCH/rbtest" > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
grep -c "warning:" "$OUT/build.log" | sed 's/^/warnings: /' | tee -a "$LOG"

if [ "${TEST:-1}" = 1 ]; then
    say "make test (GPU tier included)"
    make test ARCH="$ARCH" > "$OUT/test.log" 2>&1
    echo "test exit $?: $(tail -n 1 "$OUT/test.log")" | tee -a "$LOG"
    grep -E "FAIL|skipped" "$OUT/test.log" | tee -a "$LOG"
fi

if [ "${CHAIN:-1}" = 1 ]; then
    say "cuda_graphs: per-kernel cost in 1000-node chains (scripts/probes/cuda_graphs_chain.cu)"
    make --no-print-directory ARCH="$ARCH" diagnostics > "$OUT/chain.log" 2>&1 &&
        "build/$ARCH/cuda_graphs_chain" >> "$OUT/chain.log" 2>&1
    tee -a "$LOG" < "$OUT/chain.log"
fi

if [ "${1:-}" = record ]; then
    if [ "${CEILINGS:-1}" = 1 ]; then
        say "ceilings"
        start=$(date +%s.%N)
        $B ceilings 2>&1 | tee -a "$LOG"
        echo "ceilings exit ${PIPESTATUS[0]}, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s" | tee -a "$LOG"
        # --quick into a copy: the same-run platform reference, timed (it must take under 5 s)
        quick=$OUT/quick-expectations.json
        cp "$(sed -n 's/^[0-9]* ceilings written to \(.*\)$/\1/p' "$LOG" | tail -n 1)" "$quick" 2> /dev/null
        start=$(date +%s.%N)
        $B ceilings --quick --expect "$quick" > "$OUT/ceilings_quick.log" 2>&1
        echo "ceilings --quick exit $?, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s" | tee -a "$LOG"
    fi
    RECORD=--update-expectations
fi

for i in $(seq 1 "${RUNS:-2}"); do
    F=${FILTER:-}
    [ $i = 2 ] && F=${FILTER2:-$F}
    say "full run $i${F:+ (--filter $F)}"
    start=$(date +%s.%N)
    make --no-print-directory bench ARCH="$ARCH" BENCH_ARGS="${RECORD:-} ${F:+--filter '$F'} ${RUN_ARGS:-}" > "$OUT/run$i.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    echo "run $i exit $rc, $(awk "BEGIN{printf \"%.1f\", $end - $start}") s without the build" | tee -a "$LOG"
    sed -n '/^pair /,$p' "$OUT/run$i.log" | tee -a "$LOG"
    grep -E '^\[[0-9]+/[0-9]+\]|^ +\([0-9.]+ s' "$OUT/run$i.log" | paste - - |
        sed -E 's/^\[[0-9/]+\] ([^:]+):.*\(([0-9.]+) s(, of which setup ([0-9.]+) s)?\).*/  \1 \2 s (setup \4 s)/' >> "$LOG"
    RECORD=
done

if [ "${RUNS:-2}" -ge 2 ] && command -v python3 > /dev/null; then
    r1=$(sed -n 's/^results: \([^ ]*\) .*/\1/p' "$OUT/run1.log")
    r2=$(sed -n 's/^results: \([^ ]*\) .*/\1/p' "$OUT/run2.log")
    say "do the two runs agree within 2%? (scripts/agree.py)"
    [ -n "$r1" ] && [ -n "$r2" ] && python3 scripts/agree.py "$r1" "$r2" | tee -a "$LOG"
    say "compare the two runs (roofbench compare, floors from the expectations' recorded runs)"
    if [ -n "$r1" ] && [ -n "$r2" ]; then
        $B compare "$r1" "$r2" --json "$OUT/compare.json" > "$OUT/compare.txt" 2>&1
        echo "compare exit $?" | tee -a "$LOG"
        grep -E '^(floors|verdicts)| (slower|faster|unclear) ' "$OUT/compare.txt" | tee -a "$LOG"
    fi
fi

if [ "${NCU:-1}" = 1 ]; then
    say "ncu: measured DRAM bytes of every pair kernel"
    OUT=$OUT timeout "${NCU_TIMEOUT:-600}" scripts/ncu_bytes.sh | tee -a "$LOG"
fi
if [ "${NCU:-1}" = 1 ] && [ "${L2_REPLAY:-1}" = 1 ]; then
    say "l2_persistence under ncu with application replay (the persisting-L2 state survives between passes)"
    timeout 300 ncu --csv --replay-mode application --clock-control none --cache-control none \
        --kernel-id "::regex:^l2_persistence_(baseline|optimized)_kernel:2" \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum \
        $B check --filter '^l2_persistence$' --size full > "$OUT/l2_app_replay.csv" 2> "$OUT/l2_app_replay.err"
    grep '"l2_persistence_' "$OUT/l2_app_replay.csv" | awk -F'","' '{k = $5; sub(/\(.*/, "", k); print k, $13, $15}' | tee -a "$LOG"
fi

# --cold over the memory-bound pairs: each rate should be at or above the warm run's minus noise
# (scripts/cold_vs_warm.py COLD.json WARM.json compares them).
COLD_FILTER=${COLD_FILTER:-^(copy_coalescing|copy_vectorized|fused_elementwise|histogram|reduction|softmax|transpose|tma_pipeline|async_pipeline)$}
if [ "${COLD:-1}" = 1 ]; then
    say "cold and nvtx paths (--filter '$COLD_FILTER')"
    $B run --cold --nvtx --filter "$COLD_FILTER" --expect none --json "$OUT/cold.json" > "$OUT/cold.log" 2>&1
    echo "cold run exit $?" | tee -a "$LOG"
    sed -n '/^pair /,$p' "$OUT/cold.log" | tee -a "$LOG"
fi

if [ "${TORCH:-0}" = 1 ]; then
    say "PyTorch eager gelu(x + b) + r on fused_elementwise's full shape (scripts/probes/torch_eager_fused.py)"
    python3 scripts/probes/torch_eager_fused.py 2>&1 | tee "$OUT/torch_eager_fused.txt" | tee -a "$LOG"
fi

if [ "${PIPES:-0}" = 1 ]; then
    say "async_pipeline's two kernels under ncu --set detailed (pipes, shared memory, stalls)"
    for v in baseline optimized; do
        timeout 120 ncu --set detailed --clock-control none --kernel-name "regex:^async_pipeline_${v}_kernel" \
            --launch-count 1 $B check --filter '^async_pipeline$' --size full \
            > "$OUT/async_pipeline_${v}_ncu.txt" 2>&1
        echo "ncu exit $?: $OUT/async_pipeline_${v}_ncu.txt" | tee -a "$LOG"
    done
fi

if [ "${BF16:-0}" = 1 ]; then
    say "gemm_precision's BF16 problem: cuBLASLt's candidates sustained (scripts/probes/gemm_bf16_sustained.c)"
    make --no-print-directory ARCH="$ARCH" diagnostics > "$OUT/bf16.log" 2>&1 &&
        "build/$ARCH/gemm_bf16_sustained" 16 >> "$OUT/bf16.log" 2>&1
    tee -a "$LOG" < "$OUT/bf16.log"
fi

if [ "$RUN_SANITIZE" = 1 ]; then
    say "compute-sanitizer: ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck} over every pair (scripts/sanitize.sh)"
    SANITIZE_OUT=$OUT/sanitize scripts/sanitize.sh "$B" 2>&1 | tee -a "$LOG"
fi

nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,TEMPERATURE > "$OUT/smi-end.txt" 2>&1
cp "$OUT/ncu_bytes.txt" "$FINAL/" 2>/dev/null
tar czf "$FINAL/results.tgz" results expectations -C "$FINAL" logs 2>/dev/null
say "done: $FINAL"
