#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The host-bound rows (cuda_graphs' stream baseline, host_transfer's pageable copies) did
# not repeat within 2% between two runs of one build (3-9%). Is it where the process runs? This
# probe runs those pairs REPEAT (3) times in each of three placements, the placements taking
# turns so that a drift of the machine hits all of them alike:
#   none   wherever the scheduler puts the threads (roofbench before this probe)
#   numa   taskset to the CPUs local to the GPU (sysfs local_cpulist of its PCI device)
#   core   taskset to one of those CPUs
# and prints each variant's spread of medians, (max - min) / median, per placement. Then, for
# the roofs, the ceilings and two runs of gemm_precision (timed sustained) in the same call, and
# one of hgemm at 8192^3 (per-variant clocks of an interleaved loop).
# Writes under $OUT: probe.log (the summary), topology.txt, probe.tgz (every run's JSON and log).
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-out}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$OUT/runs"
ARCH=sm_90
B=build/$ARCH/roofbench
REPEAT=${REPEAT:-3}
LOG=$OUT/probe.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }

t0=$SECONDS
make -j"$(nproc)" ARCH=$ARCH all > "$OUT/runs/build.log" 2>&1 || { tail -n 30 "$OUT/runs/build.log"; exit 1; }
say "built in $((SECONDS - t0)) s"

bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -n 1 | tr 'A-F' 'a-f')
dev=/sys/bus/pci/devices/${bus#0000}
[ -e "$dev" ] || dev=/sys/bus/pci/devices/${bus:4}
local_cpus=$(cat "$dev/local_cpulist" 2> /dev/null || echo "0-$(($(nproc) - 1))")
one_cpu=${local_cpus%%[-,]*}
{
    echo "GPU $bus: sysfs $dev, numa_node $(cat "$dev/numa_node" 2> /dev/null), local_cpulist $local_cpus"
    lscpu
    echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null)"
    echo "THP defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2> /dev/null)"
    nvidia-smi topo -m
    cat /proc/cmdline
} > "$OUT/topology.txt" 2>&1
say "GPU $bus local CPUs $local_cpus; one CPU: $one_cpu"

for r in $(seq 1 "$REPEAT"); do
    for place in none numa core; do
        case $place in
        none) pre=() ;;
        numa) pre=(taskset -c "$local_cpus") ;;
        core) pre=(taskset -c "$one_cpu") ;;
        esac
        "${pre[@]}" $B run --filter '^(cuda_graphs|host_transfer)$' --no-ceilings --expect none \
            --json "$OUT/runs/$place-$r.json" > "$OUT/runs/$place-$r.log" 2>&1
        say "$place run $r exit $?"
    done
done
python3 - "$OUT/runs" "$REPEAT" << 'EOF' | tee -a "$LOG"
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
rows = {}
for place in ("none", "numa", "core"):
    for r in range(1, n + 1):
        try:
            doc = json.load(open(f"{d}/{place}-{r}.json"))
        except Exception as e:
            print(f"{place}-{r}: {e}")
            continue
        for p in doc["pairs"]:
            for v in p.get("variants", []):
                t = v.get("time_ms", {}).get("median")
                if t:
                    rows.setdefault((p["name"], v["name"]), {}).setdefault(place, []).append(t)
print(f"{'variant':40s} " + " ".join(f"{p:>22s}" for p in ("none", "numa", "core")))
for (pair, var), by in sorted(rows.items()):
    cells = []
    for place in ("none", "numa", "core"):
        x = sorted(by.get(place, []))
        if not x:
            cells.append(f"{'-':>22s}")
            continue
        med = x[len(x) // 2]
        cells.append(f"{med:10.4f} ms {100 * (x[-1] - x[0]) / med:6.2f}%")
    print(f"{pair + '/' + var:40s} " + " ".join(cells))
EOF

say "ceilings, then gemm_precision twice and hgemm at 8192^3"
t0=$SECONDS
$B ceilings > "$OUT/runs/ceilings.log" 2>&1
echo "ceilings exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
grep -E '^ *(bf16|tf32|fp8)_tflops' "$OUT/runs/ceilings.log" | tee -a "$LOG"
for r in 1 2; do
    $B run --filter '^gemm_precision$' --no-ceilings --json "$OUT/runs/gp-$r.json" \
        > "$OUT/runs/gp-$r.log" 2>&1
    say "gemm_precision run $r exit $?"
done
$B run --filter '^hgemm$' --size 64M --no-ceilings --json "$OUT/runs/hgemm.json" \
    > "$OUT/runs/hgemm.log" 2>&1
say "hgemm exit $?"
python3 - "$OUT/runs" << 'EOF' | tee -a "$LOG"
import json, sys
d = sys.argv[1]
for f in ("gp-1", "gp-2", "hgemm"):
    try:
        doc = json.load(open(f"{d}/{f}.json"))
    except Exception as e:
        print(f, e)
        continue
    for p in doc["pairs"]:
        for v in p.get("variants", []):
            c = v.get("clocks", {})
            t = v.get("time_ms", {})
            print(f"{f:6s} {p['name']:18s} {v['name']:12s} {t.get('median') or 0:9.4f} ms "
                  f"{v.get('vs_ceiling', {}).get('tflops', 0) or 0:8.1f} TFLOP/s "
                  f"samples {t.get('samples', 0):5} x {t.get('launches_per_sample', 0):4} "
                  f"clock {c.get('sm_mhz_mean') or 0:6.0f} MHz ({c.get('samples', 0)} readings) "
                  f"%ceil {100 * (v.get('vs_ceiling', {}).get('efficiency', 0) or 0):.1f}")
EOF
tar czf "$OUT/probe.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
