#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Why do the host-bound variants not reproduce to 2% between runs (kernels/host_transfer.cu,
# cuda_graphs.cu, streams_overlap.cu, nccl_allreduce.cu: Reproducibility)? Each probe runs a pair
# twice back to back and compares the runs with scripts/agree.py, whose "(shifted)" means each run
# knew its median and the two medians still differ:
#   1. host_transfer at 1 GiB (its full size) and at 64 MiB: does a smaller pageable buffer,
#      with 10x more samples in the same time, give a median that holds between runs?
#   2. cuda_graphs with its process left to the scheduler and pinned to one core (taskset): is
#      the launch-bound baseline's shift between runs the thread moving between cores?
#   3. nccl_allreduce's 8 B rows on one GPU, the same question for NCCL's host work.
# About two minutes on an H100. Results and logs go to $OUT (default ./repro-out).
#   scripts/probes/repro_probe.sh [ARCH]
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
ARCH=${1:-sm_90}
B=build/$ARCH/roofbench
OUT=${OUT:-repro-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
[ -x "$B" ] || make -j"$(nproc)" ARCH="$ARCH" all > "$OUT/build.log" 2>&1 || exit 1

# twice NAME PREFIX ARGS...: two runs of `roofbench run ARGS`, then agree.py on them.
twice() {
    local name=$1 prefix=$2
    shift 2
    for i in 1 2; do
        $prefix $B run --expect none --json "$OUT/$name-$i.json" "$@" > "$OUT/$name-$i.log" 2>&1
    done
    echo "== $name: $prefix $B run $*"
    python3 scripts/agree.py "$OUT/$name-1.json" "$OUT/$name-2.json" | grep -v '^CAP'
}

twice host_transfer-1G "" --filter '^host_transfer' --size 256M
twice host_transfer-64M "" --filter '^host_transfer' --size 16M
twice cuda_graphs-free "" --filter '^cuda_graphs$'
twice cuda_graphs-core2 "taskset -c 2" --filter '^cuda_graphs$'
twice nccl-8B "" --filter '^nccl_allreduce[.].*@8$'
twice nccl-8B-core2 "taskset -c 2" --filter '^nccl_allreduce[.].*@8$'
