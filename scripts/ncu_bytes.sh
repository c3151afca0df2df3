#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Holds the work models honest: ncu's measured DRAM bytes for the first launch of every pair
# kernel at full size (roofbench check, first input of each pair), next to the bytes the pair
# declares. Writes $OUT/ncu_bytes.csv (raw ncu) and $OUT/ncu_bytes.txt (the comparison); an
# optimized kernel whose measured bytes differ from the declared ones by more than 10% is marked.
#   scripts/ncu_bytes.sh [FILTER]
# ncu runs with --clock-control none: the harness never changes the GPU's clocks.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
FILTER=${1:-.}
mkdir -p "$OUT"
# Declared work per pair at full size: "pair GB".
$B list --filter "$FILTER" | awk '/^[a-z]/ {p = $1} /^ +work:/ {print p, $(NF - 1)}' > "$OUT/declared.txt"
pairs=$(cut -d' ' -f1 "$OUT/declared.txt" | paste -sd '|')
# Pair kernels are named <pair>_<variant>_kernel.
ncu --clock-control none --target-processes all --kernel-id "::regex:^($pairs)_:1" \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    --csv "$B" check --size full --filter "$FILTER" > "$OUT/ncu_bytes.csv" 2> "$OUT/ncu_bytes.err"
echo "ncu exit $?"
printf "%-44s %12s %12s %8s %10s\n" "kernel (first launch)" "DRAM GB" "declared GB" "ratio" "time us" > "$OUT/ncu_bytes.txt"
awk -v FS='","' '
    NR == FNR { declared[$0] = 1; split($0, d, " "); gb[d[1]] = d[2]; next }
    $13 == "dram__bytes_read.sum" || $13 == "dram__bytes_write.sum" || $13 == "gpu__time_duration.sum" {
        k = $5; sub(/\(.*/, "", k); sub(/^void /, "", k); sub(/<.*/, "", k)
        # A kernel shared by two pairs (tma_pipeline reuses the async_pipeline kernel) is profiled in each
        # process of a pair: keep the first process only.
        if (!(k in pid)) pid[k] = $2
        if (pid[k] != $2) next
        v = $15; gsub(/[",]/, "", v)
        if ($13 == "gpu__time_duration.sum") t[k] += v; else bytes[k] += v
        seen[k] = 1
    }
    END {
        for (k in seen) {
            best = ""
            for (p in gb) if (index(k, p "_") == 1 && length(p) > length(best)) best = p
            ratio = best != "" && gb[best] > 0 ? bytes[k] / 1e9 / gb[best] : 0
            mark = ""
            printf "%-44s %12.4f %12.4f %8.3f %10.1f%s\n", k, bytes[k] / 1e9, gb[best], ratio, t[k] / 1e3, mark
            if (k ~ /_optimized/) { opt[best] += bytes[k]; optt[best] += t[k] }
        }
        # The acceptance figure: all kernels of the optimized variant of a pair together.
        for (p in opt) {
            ratio = opt[p] / 1e9 / gb[p]
            mark = (ratio < 0.9 || ratio > 1.1) ? "  <- off by >10%" : "  within 10%"
            printf "%-44s %12.4f %12.4f %8.3f %10.1f%s\n", "= " p " optimized (all kernels)", opt[p] / 1e9, gb[p], ratio, optt[p] / 1e3, mark
        }
    }' "$OUT/declared.txt" "$OUT/ncu_bytes.csv" | sort >> "$OUT/ncu_bytes.txt"
cat "$OUT/ncu_bytes.txt"
