#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/gpu_regress.sh record|same|both|same+planted|planted (OUT, FILTER, REPEAT, ...)
# The regression detector checked on a GPU machine, each phase under 10 minutes; logs, results
# and the expectation files land in $OUT.
#
#   scripts/gpu_regress.sh record    build; record the tree's expectation file (the one roofbench
#                                    picks for this GPU) from REPEAT full runs (default 3: run
#                                    --update-expectations --repeat N), with the sensitivity table;
#                                    CEILINGS=1 first measures the ceilings into it (roofbench
#                                    ceilings, then --quick into a copy, each timed);
#                                    the file is copied into $OUT; SAME=1 adds a run of the same
#                                    build judged against it and compared with the last recorded
#   scripts/gpu_regress.sh same      two full runs of the same build judged against the tree's
#                                    expectations, and compare of the two (every variant same)
#                                    and scripts/agree.py's 2% agreement of the two
#   scripts/gpu_regress.sh both      record, then planted with OLD=$OUT/record.json
#   scripts/gpu_regress.sh same+planted
#                                    same, then planted with OLD=$OUT/same2.json
#   FILTER=<regex>                   the pairs of the recorded, same and planted runs
#                                    (PLANT_FILTER: of the planted run alone)
#   scripts/gpu_regress.sh planted   OLD=<a results file of the normal build>: the build with the
#                                    planted 10% slowdowns (-DRB_PLANT_SLOW10: copy_vectorized/
#                                    optimized, gemm_precision's bf16 step given a tenth more rows,
#                                    NCCL all-reduce at 1 GiB) judged against
#                                    the tree's expectations (EXPECT=<file> another) and compared
#                                    with OLD; then (STREAM=1, the default) the DRAM-streamer
#                                    comparison under MPS (a second process streaming DRAM
#                                    throughout, never a clock or power change)
# Never changes clocks or power limits.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
PHASE=${1:-record}
OUT=${OUT:-gpu-out}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT"
LOG=$OUT/summary.log
: >> "$LOG"
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
export NCCL_NVLS_ENABLE=0
export RB_AUTOTUNE_CACHE=${RB_AUTOTUNE_CACHE:-$OUT/gemm_autotune.json}
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
build() { # extra make arguments
    say "build $*"
    make -j"$(nproc)" ARCH="$ARCH" all "$@" > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
}
judged() { # name, roofbench binary, run arguments...
    local name=$1 bin=$2
    shift 2
    say "run $name: $*"
    local t0=$SECONDS
    "$bin" run --json "$OUT/$name.json" "$@" > "$OUT/$name.log" 2>&1
    echo "run $name exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
    grep -E '^(platform|verdicts|regressed|improved|expectations|exit)' "$OUT/$name.log" | tee -a "$LOG"
}
cmp() { # old json, new json, name
    say "compare $3"
    "${CMP_BIN:-$B}" compare "$1" "$2" --json "$OUT/cmp-$3.json" --html "$OUT/cmp-$3.html" > "$OUT/cmp-$3.txt" 2>&1
    echo "compare exit $?" | tee -a "$LOG"
    cat "$OUT/cmp-$3.txt" >> "$LOG"
}
timed() { # name, command...: its output in $OUT/name.log (and the summary), its exit and seconds
    local name=$1 t0
    shift
    say "$name: $*"
    t0=$(date +%s.%N)
    "$@" > "$OUT/$name.log" 2>&1
    echo "$name exit $?, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" | tee -a "$LOG"
    cat "$OUT/$name.log" >> "$LOG"
}
say "$(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.limit --format=csv,noheader | head -n 1)"

EXPECT_ARG=${EXPECT:+--expect $EXPECT}
if [ "$PHASE" = record ] || [ "$PHASE" = both ]; then
    build
    if [ "${CEILINGS:-0}" = 1 ]; then
        timed ceilings "$B" ceilings
        file=$(sed -n 's/^[0-9]* ceilings written to \(.*\)$/\1/p' "$OUT/ceilings.log" | tail -n 1)
        [ -n "$file" ] && cp "$file" "$OUT/quick-expectations.json" &&
            timed ceilings-quick "$B" ceilings --quick --expect "$OUT/quick-expectations.json"
    fi
    judged record "$B" --update-expectations --repeat "${REPEAT:-3}" ${FILTER:+--filter "$FILTER"}
    cp expectations/*.json "$OUT/"
    sed -n '/regression thresholds:/,$p' "$OUT/record.log" > "$OUT/sensitivity.txt"
    tail -n 1 "$OUT/sensitivity.txt" | tee -a "$LOG"
    if [ "${SAME:-1}" = 1 ]; then
        judged same "$B" ${FILTER:+--filter "$FILTER"}
        cmp "$OUT/record.json" "$OUT/same.json" same-build
    fi
    OLD=${OLD:-$OUT/record.json}
fi
if [ "$PHASE" = same ] || [ "$PHASE" = same+planted ]; then
    build
    judged same1 "$B" $EXPECT_ARG ${FILTER:+--filter "$FILTER"}
    judged same2 "$B" $EXPECT_ARG ${FILTER:+--filter "$FILTER"}
    cmp "$OUT/same1.json" "$OUT/same2.json" same-build
    if command -v python3 > /dev/null; then
        say "do the two runs agree within 2%? (scripts/agree.py)"
        python3 scripts/agree.py "$OUT/same1.json" "$OUT/same2.json" | tee -a "$LOG"
    fi
    OLD=${OLD:-$OUT/same2.json}
fi
if [ "$PHASE" = planted ] || [ "$PHASE" = both ] || [ "$PHASE" = same+planted ]; then
    build NVCCFLAGS=-DRB_PLANT_SLOW10 CFLAGS=-DRB_PLANT_SLOW10 B=build/plant
    PF=${PLANT_FILTER:-${FILTER:-}}
    judged planted build/plant/roofbench $EXPECT_ARG ${PF:+--filter "$PF"}
    # the normal build's binary may not exist yet on a fresh machine: compare with the planted one
    CMP_BIN=build/plant/roofbench cmp "${OLD:?OLD=results of the normal build}" "$OUT/planted.json" planted
    if [ "${STREAM:-1}" = 1 ]; then
        build
        # MPS lets the streamer's kernels run beside ours (without it two processes time-slice
        # the GPU: every long kernel waits, memory-bound or not, which is not a DRAM roof moving)
        export CUDA_MPS_PIPE_DIRECTORY=/tmp/rb-mps CUDA_MPS_LOG_DIRECTORY=/tmp/rb-mps-log
        mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
        if command -v nvidia-cuda-mps-control > /dev/null && nvidia-cuda-mps-control -d; then
            say "MPS daemon started"
            SF=${STREAM_FILTER:-^(copy_vectorized|reduction|transpose|softmax|fused_elementwise|gemm_precision|cuda_graphs)$}
            judged quiet "$B" --filter "$SF" --expect none
            # the streamer: a quarter of the SMs (MPS's active-thread limit) copying 1 GiB
            # buffers without pause, enough to take a share of DRAM from every kernel of ours
            CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 $B run --filter '^copy_vectorized$' --samples 100000 \
                --cap 3600 --timeout 3600 --expect none --no-ceilings --json "$OUT/stream.json" \
                > "$OUT/stream.log" 2>&1 &
            streamer=$!
            sleep 6
            judged streamed "$B" --filter "$SF" --expect none
            kill -INT $streamer 2> /dev/null
            wait $streamer 2> /dev/null
            cmp "$OUT/quiet.json" "$OUT/streamed.json" streamer
            echo quit | nvidia-cuda-mps-control
            cat "$CUDA_MPS_LOG_DIRECTORY"/control.log > "$OUT/mps-control.log" 2> /dev/null
        else
            say "MPS not available here: the streamer comparison was not made"
        fi
    fi
fi
say "done"
# The device tool returns at most 8 files: everything but the summary and the sensitivity table
# in one archive.
tar czf /tmp/rb-regress.tgz -C "$OUT" --exclude summary.log --exclude sensitivity.txt . &&
    find "$OUT" -mindepth 1 ! -name summary.log ! -name sensitivity.txt -delete &&
    mv /tmp/rb-regress.tgz "$OUT/regress-${PHASE//+/-}.tgz"
