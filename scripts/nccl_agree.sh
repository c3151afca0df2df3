#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/nccl_agree.sh   (2 or more GPUs; ROUNDS=3, SIZES='128M 1G', SAMPLES=5,
#                                        GPUS=N: the machine's first N GPUs only)
# roofbench's collectives side by side with nccl-tests, the tool they are checked against: on
# every GPU, for all-reduce, all-gather and reduce-scatter at each size, in and out of place,
# roofbench (nccl_allreduce filtered to those rows) and nccl-tests (scripts/nccl_tests.sh, built
# from its untracked checkout: `-g N -w 5 -n 20 -c 1 -b S -e S`), alternated ROUNDS times.
# roofbench takes SAMPLES samples of a row (--samples; each sample is 20 collectives, as one of
# nccl-tests' -n 20 timings), after its own warm-up. Writes
# $OUT/summary.log (the table of busbw for both and the median ratio roofbench / nccl-tests per
# row) and $OUT/nccl-agree.tgz (every run's output); exit 1 if any median ratio is below 0.99 or
# a row is missing, 2 on a usage or build error. NVLink multicast stays off (NCCL_NVLS_ENABLE=0)
# on both sides. About 3-3.5 minutes on 4 GPUs once built (each round: one roofbench run of 6
# rows, ~40-45 s, most of it NCCL's setup per row; 6 nccl-tests runs, ~25 s); the builds add ~1-2
# minutes the first time.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:?OUT=DIR}
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-128M 1G}
SAMPLES=${SAMPLES:-5}
mkdir -p "$OUT/runs"
export NCCL_NVLS_ENABLE=0 CUDA_DEVICE_ORDER=PCI_BUS_ID
B=build/sm_90/roofbench
LOG=$OUT/summary.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }

# bytes: 128M -> 134217728 (the binary suffixes roofbench and nccl-tests both take)
bytes() { numfmt --from=iec "$1"; }

n=$(nvidia-smi -L 2> /dev/null | wc -l)
[ "$n" -ge 2 ] || { echo "nccl_agree.sh: needs 2 or more GPUs, found $n" >&2; exit 2; }
if [ -n "${GPUS:-}" ]; then # the first GPUS GPUs of the machine, in PCI bus order
    case $GPUS in *[!0-9]* | '') echo "nccl_agree.sh: GPUS=$GPUS is not a count" >&2; exit 2 ;; esac
    [ "$GPUS" -ge 2 ] && [ "$GPUS" -le "$n" ] ||
        { echo "nccl_agree.sh: GPUS=$GPUS: this machine has $n GPUs" >&2; exit 2; }
    n=$GPUS
    CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((n - 1)))
    export CUDA_VISIBLE_DEVICES
fi
say "$n GPUs: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
make -j"$(nproc)" ARCH=sm_90 "$B" > "$OUT/runs/build.log" 2>&1 ||
    { tail -n 30 "$OUT/runs/build.log"; exit 2; }
NT=${NCCL_TESTS:-scratch/nccl-tests}
if [ ! -x "$NT/build/all_reduce_perf" ]; then
    scripts/nccl_tests.sh build > "$OUT/runs/nccl-tests-build.log" 2>&1 ||
        { tail -n 30 "$OUT/runs/nccl-tests-build.log"; exit 2; }
fi

# roofbench's rows of this run: nccl_allreduce.<coll>@<size> for each size
alts=$(echo "$SIZES" | tr ' ' '|')
filter="^nccl_allreduce[.](allreduce|allgather|reduce_scatter)@($alts)\$"
for r in $(seq 1 "$ROUNDS"); do
    say "round $r: roofbench"
    $B run --filter "$filter" --samples "$SAMPLES" --expect none --json "$OUT/runs/rb-$r.json" \
        > "$OUT/runs/rb-$r.log" 2>&1
    echo "roofbench exit $?" | tee -a "$LOG"
    for t in all_reduce all_gather reduce_scatter; do
        for s in $SIZES; do
            scripts/nccl_tests.sh run "$t" -g "$n" -w 5 -n 20 -c 1 -b "$s" -e "$s" \
                >> "$OUT/runs/nt-$t-$r.txt" 2>&1
            echo "round $r: nccl-tests $t $s: exit $?" | tee -a "$LOG"
        done
    done
done

python3 - "$OUT/runs" "$ROUNDS" $(for s in $SIZES; do bytes "$s"; done) << 'EOF' | tee -a "$LOG"
import json, os, statistics, sys

runs, rounds, sizes = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3:]]
colls = [("allreduce", "all_reduce"), ("allgather", "all_gather"),
         ("reduce_scatter", "reduce_scatter")]
places = [("out", "nccl_out_of_place", 7), ("in", "nccl_in_place", 11)]

def suffix(b):
    for unit, k in (("G", 30), ("M", 20), ("K", 10)):
        if b % (1 << k) == 0:
            return "%d%s" % (b >> k, unit)
    return str(b)

def roofbench(r):
    """{(coll, size, place): busbw} of round r's results file."""
    out = {}
    try:
        doc = json.load(open(os.path.join(runs, "rb-%d.json" % r)))
    except (OSError, ValueError):
        return out
    for p in doc.get("pairs", []):
        name = p.get("name", "")
        for coll, _ in colls:
            for s in sizes:
                if name != "nccl_allreduce.%s@%s" % (coll, suffix(s)):
                    continue
                for place, variant, _ in places:
                    for v in p.get("variants", []):
                        x = (v.get("extras") or {}).get("busbw_gbps")
                        if v.get("name") == variant and v.get("valid") and x is not None:
                            out[(coll, s, place)] = x
    return out

def nccl_tests(r):
    """{(coll, size, place): busbw} of round r's nccl-tests outputs (wrong elements: none)."""
    out = {}
    for coll, test in colls:
        try:
            lines = open(os.path.join(runs, "nt-%s-%d.txt" % (test, r))).read().splitlines()
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) < 13 or line.startswith("#") or not f[0].isdigit():
                continue
            for place, _, col in places:
                if int(f[0]) in sizes and f[col + 1] == "0":
                    out[(coll, int(f[0]), place)] = float(f[col])
    return out

rb = [roofbench(r) for r in range(1, rounds + 1)]
nt = [nccl_tests(r) for r in range(1, rounds + 1)]
print("| collective | size | place | roofbench busbw (GB/s) per round | nccl-tests busbw per "
      "round | median ratio |")
print("|---|---|---|---|---|---:|")
bad = 0
for coll, _ in colls:
    for s in sizes:
        for place, _, _ in places:
            key = (coll, s, place)
            a = [x.get(key) for x in rb]
            b = [x.get(key) for x in nt]
            ratios = [x / y for x, y in zip(a, b) if x is not None and y]
            med = statistics.median(ratios) if len(ratios) == rounds else None
            fmt = lambda v: " ".join("-" if x is None else "%.1f" % x for x in v)
            print("| %s | %s | %s | %s | %s | %s |" % (coll, suffix(s), place, fmt(a), fmt(b),
                  "missing" if med is None else "%.3f" % med))
            bad += med is None or med < 0.99
print("%d of %d rows below 0.99 or missing" % (bad, len(colls) * len(sizes) * len(places)))
sys.exit(1 if bad else 0)
EOF
rc=${PIPESTATUS[0]}
say "done: exit $rc"
tar czf "$OUT/nccl-agree.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
exit "$rc"
