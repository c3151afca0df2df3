#!/bin/sh
# SPDX-License-Identifier: MIT
# A stand-in for one part of `roofbench run --device all` on a machine without a GPU
# (tests/test_node.c, RB_TEST_FAULT=node:gpus=N with RB_TEST_NODE_EXE=this): writes the run
# document of its --scope on its --device to its --json, as roofbench would, and says its
# arguments in its log. FAKE_SLOW_GPU=k: GPU k's DRAM rows and platform DRAM 10% slower.
# FAKE_HOST_BOUND_SLOW_GPU=k: GPU k's pageable host_transfer.h2d baseline (informational: the
# host sets its time) 10% slower, nothing else.
# FAKE_FAIL_GPU=k: GPU k's part exits 1 (a regressed row) after writing its results.
# FAKE_BUS: the PCI bus id every GPU records (default 0000:1<k>:00.0, none of this machine's).
# An option roofbench would refuse as given twice (--device, -d, --devices; --json) exits 2.
# Usage: node_fake_part.sh run ... [--device N] --scope S --json FILE
device=-1 scope=all json= devices=0 jsons=0
while [ $# -gt 0 ]; do
    case "$1" in
    --device) device=$2; devices=$((devices + 1)); shift ;;
    -d | --devices | --device=* | --devices=*) devices=$((devices + 1)) ;;
    --scope) scope=$2; shift ;;
    --json) json=$2; jsons=$((jsons + 1)); shift ;;
    --json=*) jsons=$((jsons + 1)) ;;
    esac
    shift
done
# as roofbench refuses an option given twice: the node's own --device and --json reach a part
# once, the part's (the user's are the node's, never passed on)
if [ "$devices" -gt 1 ] || [ "$jsons" -gt 1 ]; then
    echo "roofbench: --device or --json is given twice (once is enough; which value was meant?)"
    exit 2
fi
echo "fake part: scope $scope device $device visible ${CUDA_VISIBLE_DEVICES:-unset} args ok"
echo "[1/1] fake"
slow=1 dram=3000
if [ "$device" = "${FAKE_SLOW_GPU:-x}" ]; then slow=1.1 dram=2727; fi
variant() { # name roof ms [more fields]
    printf '{"name": "%s", "role": "%s", "unit": "none", "valid": true, "timed": true, "roof": "%s", "time_ms": {"median": %s, "median_ci_lo": %s, "median_ci_hi": %s, "noise": 0.004, "samples": 50}, %s"verdict": "new"}' \
        "$1" "$1" "$2" "$3" "$3" "$3" "${4:-}"
}
host_slow=1
[ "$device" = "${FAKE_HOST_BOUND_SLOW_GPU:-x}" ] && host_slow=1.1
pageable_ms=$(awk -v s="$host_slow" -v d="$device" 'BEGIN { printf "%.6f", 20 * s * (1 + 0.001 * d) }')
case $scope in
local) ms=$(awk -v s="$slow" -v d="$device" 'BEGIN { printf "%.6f", 0.95 * s * (1 + 0.001 * d) }')
    pairs="{\"name\": \"copy_vectorized\", \"status\": \"ok\", \"variants\": [$(variant baseline dram_gbps "$ms")]}" ;;
host) pairs="{\"name\": \"host_transfer.h2d\", \"status\": \"ok\", \"variants\": [$(variant baseline pcie_h2d_gbps "$pageable_ms" '"informational": true, "host_bound_why": "pageable memory", '), $(variant optimized pcie_h2d_gbps 4.9)]}" ;;
span) pairs="{\"name\": \"nccl_allreduce.allreduce@1G\", \"status\": \"ok\", \"reason\": \"visible ${CUDA_VISIBLE_DEVICES:-unset}\", \"variants\": [$(variant optimized nvlink_gbps 3.3)]}" ;;
esac
d=$device; [ "$d" -lt 0 ] && d=0
cat > "$json" <<JSON
{"schema": 1, "tool": "roofbench", "date": "2026-11-26T17:00:00Z", "git": "fake", "command": "fake",
 "hardware_key": "nvidia-h100-80gb-hbm3", "expectations": null,
 "environment": {"start": {"host": "fakehost", "device_index": $d, "uuid": "GPU-fake-$d",
   "pci_bus_id": "${FAKE_BUS:-0000:1$d:00.0}", "hardware_key": "nvidia-h100-80gb-hbm3", "pcie_gen": 5,
   "pcie_width": 16, "ecc": true, "power_limit_w": 700, "scope": "$scope"},
   "end": {"scope": "$scope"}},
 "platform": {"source": "ceilings --quick at run start", "dram_gbps": $dram, "fp32_tflops": 60,
   "launch_us": 3.4, "methods": {"dram_gbps": {"noise": 0.003}}},
 "pairs": [$pairs]}
JSON
[ "$device" = "${FAKE_FAIL_GPU:-x}" ] && exit 1
exit 0
