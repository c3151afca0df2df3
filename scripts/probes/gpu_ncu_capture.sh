#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR [FILTER=REGEX] scripts/probes/gpu_ncu_capture.sh
# Captures what `ncu --page raw --csv` prints for a few pairs' kernels at full size, with the
# sections a hierarchical roofline and a stall breakdown need (speed of light, the hierarchical
# rooflines, memory workload, warp states, occupancy, launch statistics, compute workload,
# instruction statistics): the real output the profile parser's tests are written against. One
# launch of each kernel, its first (ncu flushes the caches before it: --cache-control all), by
# `roofbench check --size full`. FILTER (default '^(copy_coalescing|histogram|hgemm)$') picks
# the pairs. Writes $OUT/ncu_raw.csv, $OUT/ncu_raw.err and $OUT/ncu_version.txt. ncu runs with
# --clock-control none: clocks are never changed.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
FILTER=${FILTER:-^(copy_coalescing|histogram|hgemm)$}
B=build/${ARCH:-sm_90}/roofbench
mkdir -p "$OUT"
ncu --version > "$OUT/ncu_version.txt" 2>&1
pairs=$(echo "$FILTER" | sed 's/^\^(//; s/)\$$//')
sections=""
for s in SpeedOfLight SpeedOfLight_HierarchicalSingleRooflineChart \
    SpeedOfLight_HierarchicalHalfRooflineChart SpeedOfLight_HierarchicalTensorRooflineChart \
    MemoryWorkloadAnalysis WarpStateStats Occupancy LaunchStats ComputeWorkloadAnalysis \
    InstructionStats; do
    sections="$sections --section $s"
done
t0=$SECONDS
# shellcheck disable=SC2086
ncu --clock-control none --target-processes all --kernel-id "::regex:^($pairs)_:1" $sections \
    --page raw --csv "$B" check --size full --filter "$FILTER" > "$OUT/ncu_raw.csv" 2> "$OUT/ncu_raw.err"
echo "ncu exit $? in $((SECONDS - t0)) s, $(wc -l < "$OUT/ncu_raw.csv") lines"
