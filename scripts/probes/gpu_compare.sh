#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# compare's attribution checked on a GPU in one go (a GPU machine; logs and results land in $OUT):
#   A, B   two runs of the same build                 -> compare A B: every variant `same`
#   C      a build with a planted code change          -> compare A C: copy_vectorized/optimized
#          (make CFLAGS=-DRB_PLANT_SCALAR_COPY)           `slower`, attributed `code`
#   D      the normal build again, while a second process streams DRAM on the same GPU
#          (roofbench run --filter '^copy_vectorized$' --samples 100000 in the background)
#                                                       -> compare A D: memory-bound variants
#                                                          `slower`, attributed `platform`
# FILTER picks the pairs of every run (default: a memory-bound set, a cuBLASLt GEMM and the
# launch-bound graphs). Never changes clocks or power limits.
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
FILTER=${FILTER:-^(copy_vectorized|reduction|transpose|softmax|fused_elementwise|gemm_precision|cuda_graphs)$}
export NCCL_NVLS_ENABLE=0
say() { echo "== $(date -u +%T) $*"; }
run() { # name, extra args...
    local name=$1
    shift
    say "run $name"
    $B run --filter "$FILTER" --expect none --json "$OUT/$name.json" "$@" > "$OUT/$name.log" 2>&1
    echo "run $name exit $?"
    grep '^platform:' "$OUT/$name.log"
}
cmp() { # old, new
    say "compare $1 $2"
    $B compare "$OUT/$1.json" "$OUT/$2.json" --json "$OUT/cmp-$1-$2.json" --html "$OUT/cmp-$1-$2.html" \
        > "$OUT/cmp-$1-$2.txt" 2>&1
    echo "compare exit $?"
    cat "$OUT/cmp-$1-$2.txt"
}
say "build"
make -j"$(nproc)" ARCH="$ARCH" all > "$OUT/build.log" 2>&1 || { tail -n 20 "$OUT/build.log"; exit 1; }
run A
run B
cmp A B
say "build with the planted code change"
make -j"$(nproc)" ARCH="$ARCH" all CFLAGS=-DRB_PLANT_SCALAR_COPY > "$OUT/build-planted.log" 2>&1 ||
    { tail -n 20 "$OUT/build-planted.log"; exit 1; }
run C
cmp A C
say "build without it"
make -j"$(nproc)" ARCH="$ARCH" all > "$OUT/build2.log" 2>&1 || { tail -n 20 "$OUT/build2.log"; exit 1; }
say "a second process streams DRAM throughout run D"
$B run --filter '^copy_vectorized$' --samples 100000 --cap 3600 --timeout 3600 --expect none \
    --json "$OUT/stream.json" > "$OUT/stream.log" 2>&1 &
streamer=$!
sleep 8
run D
kill -INT $streamer 2> /dev/null
wait $streamer 2> /dev/null
cmp A D
say "done"
