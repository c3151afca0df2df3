#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Holds the work models honest: ncu's measured DRAM bytes (and L2 sectors) for the first launch
# of every pair kernel at full size, next to nothing else; compare with each pair's declared
# bytes (roofbench list / the results file). Writes $OUT/ncu_bytes.csv.
#   scripts/ncu_bytes.sh [FILTER]
# ncu runs with --clock-control none: the harness never changes the GPU's clocks.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
mkdir -p "$OUT"
# Pair kernels are named <pair>_<variant>_kernel: select them by the registered pair names.
pairs=$($B list --filter "${1:-.}" | awk 'NR > 1 && /^[a-z]/ {print $1}' | paste -sd '|')
ncu --clock-control none --target-processes all --kernel-id "::regex:^($pairs)_:1" \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    --csv "$B" check --size full --filter "${1:-.}" > "$OUT/ncu_bytes.csv" 2> "$OUT/ncu_bytes.err"
echo "ncu exit $?; $(grep -c '"dram__bytes_read.sum"' "$OUT/ncu_bytes.csv") kernels profiled"
