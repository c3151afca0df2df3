#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/gpu_fleet.sh     (one node of 2 or more GPUs; about 4 minutes on 4 with the build)
# roofbench_mpi's fleet checked on a GPU machine: one node posing as 2 nodes of 2 GPUs
# (on 4 GPUs RB_HOST_NAME_BY_RANK=nodeA,nodeA,nodeB,nodeB: the first half of the ranks nodeA), a rank a GPU.
#   1. build with MPI=1;
#   2. clean: a fleet run of representative pairs (FILTER below): it must flag nothing;
#   3. streamed: the same while a second process streams DRAM on GPU $SLOW_GPU (default 3) under
#      MPS (scripts/gpu_regress.sh's streamer: a quarter of the SMs copying 1 GiB buffers
#      without pause; never a clock or power change): that GPU's rank and only it must be
#      flagged, attributed to its platform. MPS serves that GPU alone (its daemon sees only it)
#      and only that GPU's rank joins it, through a wrapper, so the other ranks run as usual.
#      The collectives are left out of this run unless STREAM_NCCL=1 (NCCL between an MPS
#      client and plain processes is not something this script relies on).
# $OUT/summary.log says which ranks were flagged and why; everything else is in one archive.
# FILTER: copy, reduction, softmax, transpose (DRAM), sgemm at 16M (FP32), host_transfer (the
# pairs that take turns on the machine), p2p_copy (the first rank of each machine), and the
# all-reduce at 128 MiB and 1 GiB (the collectives and their slowest rank).
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT"
LOG=$OUT/summary.log
: > "$LOG"
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
M=build/$ARCH/roofbench_mpi
# one rank a GPU; the first half of the ranks pose as nodeA, the rest as nodeB
NP=${NP:-$(nvidia-smi -L | wc -l)}
SLOW_GPU=${SLOW_GPU:-$((NP - 1))}
hosts=$(for ((r = 0; r < NP; r++)); do [ $((2 * r)) -lt "$NP" ] && echo nodeA || echo nodeB; done | paste -sd,)
DRAM='copy_vectorized|reduction|softmax|transpose|sgemm@16M|host_transfer|p2p_copy'
FILTER=${FILTER:-^($DRAM|nccl_allreduce\.allreduce@(128M|1G))$}
STREAM_FILTER=${STREAM_FILTER:-^($DRAM)$}
[ "${STREAM_NCCL:-0}" = 1 ] && STREAM_FILTER=$FILTER
export NCCL_NVLS_ENABLE=0 RB_HOST_NAME_BY_RANK=$hosts
run_as_root=()
[ "$(id -u)" = 0 ] && run_as_root=(--allow-run-as-root)
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }

say "$(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1), $(nvidia-smi -L | wc -l) GPUs"
say "build MPI=1"
make -j"$(nproc)" ARCH="$ARCH" MPI=1 all > "$OUT/build.log" 2>&1 || {
    tail -n 30 "$OUT/build.log" | tee -a "$LOG"
    exit 1
}

# flagged NAME WANT: the fleet file's verdicts in a few lines (which ranks, which rows, why),
# then PASS or FAIL against WANT: -1, no rank flagged; r, rank r alone, attributed to its
# platform (every row, or every row on a memory roof). Outliers on informational rows (a pageable
# copy: the host sets its time) flag no rank, as roofbench_mpi counts them; they are listed.
flagged() {
    python3 - "$OUT/$1.json" "$2" <<'PY' | tee -a "$LOG"
import json, sys
f, want = json.load(open(sys.argv[1])), int(sys.argv[2])
gpus = f["gpus"]
print(f"  {len(gpus)} GPUs on {f.get('hosts')} hosts: " +
      ", ".join(f"rank {g['rank']} {g['host']} GPU {g['device_index']} "
                f"(DRAM {g['run'].get('platform', {}).get('dram_gbps') or 0:.0f} GB/s)" for g in gpus))
rank_of = {(g["host"], g["device_index"]): g["rank"] for g in gpus}
# an outlier on an informational row (its time is the host's) flags no GPU unless --gate all
gates = lambda o: not o.get("informational") or f.get("gate") == "all"
host_bound = [o for o in f.get("outliers", []) if not gates(o)]
by_rank = {}
for o in f.get("outliers", []):
    if gates(o):
        by_rank.setdefault(rank_of.get((o["host"], o["device_index"])), []).append(o)
print(f"  flagged ranks: {sorted(by_rank) or 'none'}; {len(host_bound)} host-bound outlier(s) "
      f"left out: " + (", ".join(f"rank {rank_of.get((o['host'], o['device_index']))} "
                                 f"{o['row']}/{o['variant']} x{o['ratio']:.3f}" for o in host_bound)
                       or "none"))
for r, os_ in sorted(by_rank.items()):
    kinds = sorted({o["attribution"] for o in os_})
    print(f"  rank {r}: {len(os_)} row(s), attribution {kinds}; e.g. {os_[0]['row']}/"
          f"{os_[0]['variant']} {os_[0]['roof']} at {os_[0]['ratio']:.3f} of {os_[0]['reference_kind']}"
          f" (threshold {100 * os_[0]['threshold']:.1f}%): {os_[0]['evidence']}")
for s in f.get("slowest_rank", []):
    print(f"  slowest rank of {s['row']}/{s['variant']}: {s['rank']} ({s['host']}), "
          f"{s['time_ms']:.4g} ms; all {[round(x, 4) if x else x for x in s['ranks_ms']]}")
memory = lambda o: o["roof"].startswith("dram") or o["roof"] in ("l2_gbps", "smem_gbps")
ok = (not by_rank) if want < 0 else (
    set(by_rank) == {want} and all(o["attribution"] == "platform" for o in by_rank[want] if memory(o))
    and any(memory(o) for o in by_rank[want]))
print(f"  check: {'PASS' if ok else 'FAIL'}: " +
      ("no rank flagged" if want < 0 else f"rank {want} alone flagged, its memory rows on its platform"))
PY
}

# fleet NAME WANT FILTER [launcher prefix...]: one fleet run of 4 ranks into $OUT/NAME.json,
# checked against WANT (flagged).
fleet() {
    local name=$1 want=$2 filter=$3 t0=$SECONDS
    shift 3
    say "fleet $name: --filter '$filter'"
    mpirun "${run_as_root[@]}" -np "$NP" -x NCCL_NVLS_ENABLE -x RB_HOST_NAME_BY_RANK "$@" "$M" \
        --filter "$filter" --json "$OUT/$name.json" > "$OUT/$name.log" 2>&1
    echo "fleet $name exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
    grep -E '^(fleet|  |exit|collectives|platform)' "$OUT/$name.log" | tee -a "$LOG"
    [ -f "$OUT/$name.json" ] && flagged "$name" "$want"
}

fleet clean -1 "$FILTER"

# The streamer on GPU $SLOW_GPU, under an MPS daemon that sees that GPU only.
export CUDA_MPS_LOG_DIRECTORY=/tmp/rb-fleet-mps-log
MPS_PIPE=/tmp/rb-fleet-mps
mkdir -p "$MPS_PIPE" "$CUDA_MPS_LOG_DIRECTORY"
if command -v nvidia-cuda-mps-control > /dev/null &&
    CUDA_VISIBLE_DEVICES=$SLOW_GPU CUDA_MPS_PIPE_DIRECTORY=$MPS_PIPE nvidia-cuda-mps-control -d; then
    say "MPS daemon for GPU $SLOW_GPU started"
    # a client of that daemon sees its GPU as device 0 (CUDA_VISIBLE_DEVICES=$SLOW_GPU here
    # names no device: the streamer found none)
    CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=$MPS_PIPE \
        CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 "$B" run --filter '^copy_vectorized$' \
        --samples 100000 --cap 3600 --timeout 3600 --expect none --no-ceilings \
        --json "$OUT/stream.json" > "$OUT/stream.log" 2>&1 &
    streamer=$!
    sleep 6
    kill -0 $streamer 2> /dev/null || say "the streamer is not running: $(tail -n 1 "$OUT/stream.log")"
    # rank $SLOW_GPU (the machine's 4th process takes GPU 3) joins the MPS server: it then sees
    # that GPU alone, as its device 0, beside the streamer
    wrap=$OUT/mps-wrap.sh
    printf '#!/bin/sh\n[ "$OMPI_COMM_WORLD_LOCAL_RANK" = %s ] && export CUDA_MPS_PIPE_DIRECTORY=%s\nexec "$@"\n' \
        "$SLOW_GPU" "$MPS_PIPE" > "$wrap"
    chmod +x "$wrap"
    fleet streamed "$SLOW_GPU" "$STREAM_FILTER" "$wrap"
    kill -INT $streamer 2> /dev/null
    wait $streamer 2> /dev/null
    echo quit | CUDA_MPS_PIPE_DIRECTORY=$MPS_PIPE nvidia-cuda-mps-control
    cat "$CUDA_MPS_LOG_DIRECTORY"/control.log > "$OUT/mps-control.log" 2> /dev/null
else
    say "MPS not available here: the streamed fleet was not run"
fi
say "done"
# The device tool returns few files: everything but the summary in one archive.
tar czf /tmp/rb-fleet.tgz -C "$OUT" --exclude summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -delete &&
    mv /tmp/rb-fleet.tgz "$OUT/fleet.tgz"
