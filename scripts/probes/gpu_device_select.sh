#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/probes/gpu_device_select.sh   (a machine of 2 or more GPUs)
# --device on a multi-GPU machine: a run and ceilings --quick on the second GPU, whose results
# must record the index, UUID and PCI bus id nvidia-smi gives for that GPU (in PCI bus order,
# the order CUDA_DEVICE_ORDER=PCI_BUS_ID gives the runtime); an index past the last GPU must be
# exit 2. Then what the multi-GPU work needs to know of the machine: the link topology and one
# nccl-tests all-reduce (scripts/nccl_tests.sh) beside roofbench's. Summary in $OUT/summary.log.
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
mkdir -p "$OUT/d1"
export NCCL_NVLS_ENABLE=0 CUDA_DEVICE_ORDER=PCI_BUS_ID
B=build/sm_90/roofbench
LOG=$OUT/summary.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
n=$(nvidia-smi -L | wc -l)
say "$n GPUs: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
nvidia-smi topo -m > "$OUT/topo.txt" 2>&1
make -j"$(nproc)" ARCH=sm_90 all > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
(scripts/nccl_tests.sh build > "$OUT/nccl-tests-build.log" 2>&1 &)

say "run --device 1"
$B run --filter '^copy_vectorized$' --device 1 --json "$OUT/d1/run.json" > "$OUT/d1/run.log" 2>&1
echo "exit $?" | tee -a "$LOG"
want=$(nvidia-smi -i 1 --query-gpu=uuid,pci.bus_id --format=csv,noheader)
got=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["environment"]["start"]
print(e.get("device_index"), e.get("uuid"), e.get("pci_bus_id"))' "$OUT/d1/run.json")
echo "nvidia-smi -i 1: $want" | tee -a "$LOG"
echo "results:         $got" | tee -a "$LOG"

say "run --device $n (one past the last)"
$B run --filter '^copy_vectorized$' --device "$n" > "$OUT/d-past.log" 2>&1
echo "exit $? (want 2): $(tail -n 1 "$OUT/d-past.log")" | tee -a "$LOG"

say "ceilings --quick --device 1"
cp expectations/nvidia-h100-80gb-hbm3.json /tmp/e.json 2> /dev/null || echo '{}' > /tmp/e.json
$B ceilings --quick --device 1 --expect /tmp/e.json > "$OUT/d1/ceilings.log" 2>&1
echo "exit $?: $(grep -c . "$OUT/d1/ceilings.log") lines" | tee -a "$LOG"
cp /tmp/e.json "$OUT/d1/ceilings-expect.json"

say "nccl all-reduce, roofbench then nccl-tests"
$B run --filter '^nccl_allreduce$' --json "$OUT/nccl-run.json" > "$OUT/nccl-run.log" 2>&1
echo "exit $?" | tee -a "$LOG"
while pgrep -f nccl_tests.sh > /dev/null; do sleep 1; done
tail -n 1 "$OUT/nccl-tests-build.log" | tee -a "$LOG"
for t in all_reduce all_gather reduce_scatter; do
    scripts/nccl_tests.sh run $t -g "$n" -b 128M -e 1G -f 8 -w 5 -n 20 -c 1 > "$OUT/nt-$t.txt" 2>&1
    grep -E '^ +[0-9]+ ' "$OUT/nt-$t.txt" | tee -a "$LOG"
done
tar czf /tmp/sel.tgz -C "$OUT" . && find "$OUT" -mindepth 1 ! -name summary.log -delete &&
    mv /tmp/sel.tgz "$OUT/device-select.tgz"
