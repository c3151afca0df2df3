#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/probes/gpu_nccl_rs_protocols.sh   (a node of 2 or more GPUs)
# Why NCCL's reduce-scatter trails the pair's ring of peer loads on 2 GPUs: nccl-tests'
# reduce_scatter and all_reduce at 1 GiB (-w 5 -n 20) with NCCL's own choice, then with each
# protocol and more channels forced, and NCCL_DEBUG's tuning lines (the algorithm, protocol and
# channels it picked). Summary in $OUT/summary.log.
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
n=$(nvidia-smi -L | wc -l)
scripts/nccl_tests.sh build > "$OUT/build.log" 2>&1 || { tail "$OUT/build.log"; exit 1; }
row() { # label, env..., then the test name last
    local label=$1 t=${@: -1}
    env "${@:2:$#-2}" scripts/nccl_tests.sh run "$t" -g "$n" -b 1G -e 1G -w 5 -n 20 -c 1 \
        > "$OUT/$t-$label.txt" 2>&1
    printf '%-16s %-14s %s\n' "$label" "$t" \
        "$(grep -E '^ +1073741824 ' "$OUT/$t-$label.txt" | awk '{print "busbw out", $8, "in", $12}')" |
        tee -a "$OUT/summary.log"
}
for t in reduce_scatter all_reduce; do
    row default NCCL_DEBUG=WARN $t
    row simple NCCL_PROTO=Simple $t
    row ll128 NCCL_PROTO=LL128 $t
    row channels32 NCCL_MIN_NCHANNELS=32 $t
done
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING,INIT scripts/nccl_tests.sh run reduce_scatter -g "$n" \
    -b 1G -e 1G -w 1 -n 2 -c 0 > "$OUT/rs-debug.txt" 2>&1
grep -iE "channel|algo|proto" "$OUT/rs-debug.txt" | grep -v "^#" | head -n 12 >> "$OUT/summary.log"
