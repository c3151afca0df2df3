#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/ncu_bytes.sh [FILTER] (OUT, ANALYZE=1)
# Holds the work models and the timing honest: ncu's measured DRAM bytes of every pair kernel at
# full size, next to the bytes the pair declares, for two launches of each kernel:
#   cold  its first launch (ncu flushes the caches before it: --cache-control all);
#   warm  every launch of `roofbench run --samples 3` after its first: the back-to-back launches
#         the harness warms up with and times, with the caches as the launch before left them
#         (--cache-control none). Only DRAM bytes and time are collected, which ncu gathers in
#         one pass, so no replay pass can warm the L2 for the next. Per kernel the median over
#         these launches is shown, of the launches that move at least 10% of the pair's declared
#         bytes (reduction's baseline launches itself again on its partial sums: those small
#         launches are left out, and counted in the last column).
# A warm launch that reads less from DRAM than declared found part of its input in L2, and its
# rate (declared bytes / time) overstates the bandwidth: every memory-bound variant's warm launch
# must move at least 98% of its declared bytes. More than declared is extra traffic of the
# variant itself (uncoalesced sectors, a re-read), which understates its rate: shown, not a fault.
# Writes $OUT/ncu_bytes.csv, $OUT/ncu_bytes_warm.csv (raw ncu) and $OUT/ncu_bytes.txt.
#   scripts/ncu_bytes.sh [FILTER]
# ANALYZE=1 skips the two ncu runs and compares the CSVs already in $OUT (copied back from a GPU
# machine, say).
# ncu runs with --clock-control none: the harness never changes the GPU's clocks. Kernels are
# found by name, <pair>_<variant>[_<part>]_kernel; library variants (cudaMemcpy, CUB) are not.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
FILTER=${1:-.}
mkdir -p "$OUT"
# Declared work per pair at full size: "pair GB".
# `list` prints the work's bytes with a unit (B, kB, MB, GB).
$B list --filter "$FILTER" | awk '
    /^[a-z]/ {p = $1}
    /^ +work:/ {
        v = $(NF - 1); u = $NF; sub(/[^A-Za-z]+$/, "", u)
        scale = u == "B" ? 1e-9 : u == "kB" ? 1e-6 : u == "MB" ? 1e-3 : 1
        print p, v * scale
    }' > "$OUT/declared.txt"
pairs=$(cut -d' ' -f1 "$OUT/declared.txt" | paste -sd '|')
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum

if [ "${ANALYZE:-0}" != 1 ]; then
ncu --clock-control none --target-processes all --kernel-id "::regex:^($pairs)_:1" \
    --metrics $metrics --csv "$B" check --size full --filter "$FILTER" \
    > "$OUT/ncu_bytes.csv" 2> "$OUT/ncu_bytes.err"
echo "ncu (cold, first launches) exit $?"
ncu --clock-control none --cache-control none --target-processes all \
    --kernel-name "regex:^($pairs)_" --metrics $metrics --csv \
    "$B" run --size full --samples 3 --expect none --json "$OUT/ncu_run.json" --filter "$FILTER" \
    > "$OUT/ncu_bytes_warm.csv" 2> "$OUT/ncu_bytes_warm.err"
echo "ncu (warm, every launch) exit $?"
fi

# Cold: DRAM bytes and time per kernel of its one profiled launch (first process that ran it:
# a kernel two pairs share is profiled in each): "kernel GB us".
per_kernel() {
    awk -v FS='","' '
        $13 == "dram__bytes_read.sum" || $13 == "dram__bytes_write.sum" || $13 == "gpu__time_duration.sum" {
            k = $5; sub(/\(.*/, "", k); sub(/^void /, "", k); sub(/<.*/, "", k)
            if (!(k in pid)) pid[k] = $2
            if (pid[k] != $2) next
            v = $15; gsub(/[",]/, "", v)
            if ($13 == "gpu__time_duration.sum") t[k] += v; else bytes[k] += v
            seen[k] = 1
        }
        END { for (k in seen) printf "%s %.6f %.1f\n", k, bytes[k] / 1e9, t[k] / 1e3 }' "$1"
}
# Warm: one line per launch, "kernel id GB us", in launch order (first process per kernel).
per_launch() {
    awk -v FS='","' '
        $13 == "dram__bytes_read.sum" || $13 == "dram__bytes_write.sum" || $13 == "gpu__time_duration.sum" {
            id = $1; gsub(/"/, "", id)
            k = $5; sub(/\(.*/, "", k); sub(/^void /, "", k); sub(/<.*/, "", k)
            if (!(k in pid)) pid[k] = $2
            if (pid[k] != $2) next
            v = $15; gsub(/[",]/, "", v)
            if (!(id in name)) { name[id] = k; order[++n] = id }
            if ($13 == "gpu__time_duration.sum") t[id] += v; else bytes[id] += v
        }
        END { for (i = 1; i <= n; i++) { id = order[i]; printf "%s %s %.6f %.1f\n", name[id], id, bytes[id] / 1e9, t[id] / 1e3 } }' "$1"
}
per_kernel "$OUT/ncu_bytes.csv" > "$OUT/cold.txt"
per_launch "$OUT/ncu_bytes_warm.csv" > "$OUT/warm_launches.txt"
# The median per kernel of its warm launches (all but its first) that move >= 10% of the
# declared bytes: "kernel GB us launches small".
awk '
    NR == FNR { gb[$1] = $2; next }
    {
        k = $1; best = ""
        for (p in gb) if (index(k, p "_") == 1 && length(p) > length(best)) best = p
        if (best == "" || !(k in first)) { first[k] = 1; next }
        if ($3 < 0.1 * gb[best]) { small[k]++; next }
        c = ++cnt[k]; b[k, c] = $3; t[k, c] = $4
    }
    END {
        for (k in first) {
            n = cnt[k] + 0
            if (n == 0) { printf "%s nan nan 0 %d\n", k, small[k]; continue }
            for (i = 1; i <= n; i++) { bb[i] = b[k, i]; tt[i] = t[k, i] }
            for (i = 2; i <= n; i++) for (j = i; j > 1 && bb[j - 1] > bb[j]; j--) { x = bb[j]; bb[j] = bb[j - 1]; bb[j - 1] = x }
            for (i = 2; i <= n; i++) for (j = i; j > 1 && tt[j - 1] > tt[j]; j--) { x = tt[j]; tt[j] = tt[j - 1]; tt[j - 1] = x }
            m = int((n + 1) / 2)
            printf "%s %.6f %.1f %d %d\n", k, bb[m], tt[m], n, small[k]
        }
    }' "$OUT/declared.txt" "$OUT/warm_launches.txt" > "$OUT/warm.txt"

{
    printf "%-44s %10s %10s %10s %7s %7s %9s %6s\n" "kernel" "declared" "cold GB" "warm GB" "cold" "warm" "warm us" "warm n"
    awk '
        FILENAME ~ /declared/ { gb[$1] = $2; next }
        FILENAME ~ /cold/ { cold[$1] = $2; next }
        { warm[$1] = $2; wt[$1] = $3; wn[$1] = $4 " " ($5 > 0 ? "+" $5 " small" : "") }
        END {
            for (k in warm) {
                if (warm[k] == "nan") continue
                best = ""
                for (p in gb) if (index(k, p "_") == 1 && length(p) > length(best)) best = p
                if (best == "" || gb[best] <= 0) continue
                c = (k in cold) ? cold[k] / gb[best] : 0
                w = warm[k] / gb[best]
                # <pair>_<variant>_...: the variant is the word after the pair name
                v = substr(k, length(best) + 2); sub(/_.*/, "", v)
                vw[best " " v] += warm[k]; vt[best " " v] += wt[k]
                printf "%-44s %10.4f %10.4f %10.4f %7.3f %7.3f %9.1f %6s\n", k, gb[best], (k in cold) ? cold[k] : 0, warm[k], c, w, wt[k], wn[k]
            }
            for (pv in vw) {
                split(pv, a, " ")
                r = vw[pv] / gb[a[1]]
                mark = r < 0.98 ? "  <- warm launch read < 98% of declared: rate overstated" : (r > 1.02 ? "  (moves more than declared)" : "  within 2%")
                printf "= %-42s %10.4f %10s %10.4f %7s %7.3f %9.1f%s\n", a[1] " " a[2] " (all kernels)", gb[a[1]], "", vw[pv], "", r, vt[pv], mark
            }
        }' "$OUT/declared.txt" "$OUT/cold.txt" "$OUT/warm.txt" | sort
} > "$OUT/ncu_bytes.txt"
cat "$OUT/ncu_bytes.txt"
