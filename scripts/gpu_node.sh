#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/gpu_node.sh   (a node of 2 or more GPUs; ~4 min on 4 H100s, the build
#                                      included)
# `run --device all` checked on a node, never changing a clock or a power limit:
#   1. clean: every GPU, a representative filter (below), no MPS: the node must flag nothing;
#   2. planted: a second process streaming DRAM on GPU $SLOW_GPU alone (default 1) under MPS
#      (a quarter of the SMs, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25, copying 1 GiB buffers
#      throughout: copy_vectorized with 100000 samples), while the node runs its GPU-local pairs
#      with every GPU an MPS client, so that all are measured alike: that GPU, and only it, must
#      be flagged, attributed to its platform.
# FILTER: the clean run's pairs (default: memory-bound, compute, a tensor GEMM, the host-shared
# launch and transfer rows and the spanning all-reduce at 1 GiB: every phase of a node run, about
# a minute); PLANT_FILTER: the planted run's (default: its GPU-local pairs). FULL=1: the clean
# run takes every pair at full size instead (about 4 minutes more on 4 GPUs).
# The summary ($OUT/summary.log) says which GPUs were flagged, with what attribution; everything
# else goes into $OUT/node.tgz.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:?OUT=DIR}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT"
export CUDA_DEVICE_ORDER=PCI_BUS_ID NCCL_NVLS_ENABLE=0
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
LOG=$OUT/summary.log
K=${SLOW_GPU:-1}
LOCAL='^(copy_vectorized|softmax|reduction|transpose|fused_elementwise|scan\.fp32|rmsnorm\.h16k|histogram\.uniform|sgemm@4M|hgemm\.awkward@16M)$'
EVERY_PHASE="${LOCAL%)\$}"'|cuda_graphs|host_transfer\.h2d|nccl_allreduce\.allreduce@1G)$'
FILTER=${FILTER:-$EVERY_PHASE}
PLANT_FILTER=${PLANT_FILTER:-$LOCAL}
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
# What a node run said: its exit, its GPU table, and each flagged GPU with its attributions.
summary() { # name
    local f=$OUT/$1.log
    grep -E '^(node [a-z0-9-]+:|GPU \(host|[^ ]+:[0-9]+ [0-9a-fA-F:.]+ GPU-|exit|node results)' "$f" |
        tee -a "$LOG"
    # counted from the node file, not the terminal (which prints the first 20 outliers)
    python3 - "$OUT/$1.json" << 'PY' | tee -a "$LOG"
import collections, json, sys
try:
    node = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(f"no node file: {e}")
gate_all = node.get("gate") == "all"
by_gpu, host_bound = collections.defaultdict(collections.Counter), 0
for o in node.get("outliers", []):
    if o.get("informational") and not gate_all:
        host_bound += 1  # the host sets the row's time: reported, not flagged
    else:
        by_gpu[o["device_index"]][o["attribution"]] += 1
if not by_gpu:
    print("flagged GPUs: none")
for g, c in sorted(by_gpu.items()):
    print(f"flagged GPU {g}: {sum(c.values())} rows ("
          + ", ".join(f"{a} {n}" for a, n in c.most_common()) + ")")
print(f"host-bound outliers left out: {host_bound}")
PY
    grep -E '^outlier ' "$f" | head -n 12 >> "$LOG"
    grep -E '^host-bound ' "$f" | head -n 4 >> "$LOG"
}
noderun() { # name, extra run arguments...
    local name=$1 t0=$SECONDS
    shift
    say "run --device all $name: $*"
    "$B" run --device all --json "$OUT/$name.json" "$@" > "$OUT/$name.log" 2>&1
    echo "$name: exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
    summary "$name"
}

n=$(nvidia-smi -L | wc -l)
say "$n GPUs: $(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader | head -n 1)"
nvidia-smi --query-gpu=index,pci.bus_id,clocks.sm,temperature.gpu,pcie.link.gen.current,pcie.link.width.current \
    --format=csv > "$OUT/gpus.csv" 2>&1
make -j"$(nproc)" ARCH="$ARCH" "$B" > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
say "built"

if [ "${FULL:-0}" = 1 ]; then
    noderun clean
else
    noderun clean --filter "$FILTER"
fi

# MPS lets the streamer's kernels run beside ours (without it two processes time-slice the
# GPU: every kernel waits, memory-bound or not, which is not a DRAM roof moving). The daemon
# serves every GPU, so that every part of the node run is an MPS client alike.
export CUDA_MPS_PIPE_DIRECTORY=/tmp/rb-node-mps CUDA_MPS_LOG_DIRECTORY=/tmp/rb-node-mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if command -v nvidia-cuda-mps-control > /dev/null && nvidia-cuda-mps-control -d; then
    say "MPS daemon started; the DRAM streamer on GPU $K alone"
    CUDA_VISIBLE_DEVICES=$K CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 "$B" run \
        --filter '^copy_vectorized$' --samples 100000 --cap 3600 --timeout 3600 --expect none \
        --no-ceilings --json "$OUT/stream.json" > "$OUT/stream.log" 2>&1 &
    streamer=$!
    sleep 8
    noderun planted --filter "$PLANT_FILTER"
    kill -INT $streamer 2> /dev/null
    wait $streamer 2> /dev/null
    echo quit | nvidia-cuda-mps-control
    cat "$CUDA_MPS_LOG_DIRECTORY"/control.log > "$OUT/mps-control.log" 2> /dev/null
    say "expected: flagged GPU $K alone, attributions platform"
else
    say "MPS not available here: the planted slow GPU was not run"
fi
say "done"
tar czf /tmp/rb-node.tgz -C "$OUT" --exclude summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -delete && mv /tmp/rb-node.tgz "$OUT/node.tgz"
