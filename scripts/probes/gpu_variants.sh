#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR [SRC=kernels/hgemm.cu] [FILTER='^hgemm[.]square$'] [SIZES="8192x8192 4096x4096"]
#        [ROUNDS=2] [CHECK="999x1021 4096x4096"] [DEFECTS=PAIR] [CHECK_TIMEOUT=300] [RUN_TIMEOUT=600]
#        scripts/probes/gpu_variants.sh NAME=FLAGS ...
# One pair's kernels under compile-time options (e.g. hgemm's HGEMM_SM90_GROUP_M), each against
# its library row in its own interleaved loop. One full build, then per NAME only SRC is compiled
# again with FLAGS added and the suite relinked (the commands make would run, from `make -n -W
# SRC`), so a variant costs one object, not a build; each is validated by `check` at the CHECK
# sizes first. The runs go A B C A B C over SIZES, so a drift of the machine shows as A against
# A. Rows in $OUT/summary.log (every variant's rate and its bytes moved as a share of the run's
# DRAM copy roof, for any pair; optimized and fp8 against their library rows where the pair has
# them, with each one's clock), the runs' files in one archive. A pair without a library row
# (rmsnorm: FILTER='^rmsnorm' SRC=kernels/rmsnorm.cu SIZES=268435456 CHECK="smoke 4001x4095")
# is read from the first two. DEFECTS=PAIR also links each variant's rbtest and runs PAIR's
# planted defects under its flags (tests/test_gpu.c's planted_defects_fail_their_check alone).
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
SRC=${SRC:-kernels/hgemm.cu}
FILTER=${FILTER:-^hgemm[.]square$}
SIZES=${SIZES:-8192x8192 4096x4096}
CHECK=${CHECK:-999x1021 4096x4096}
obj=build/sm_90/${SRC%.cu}.o
ROUNDS=${ROUNDS:-2}
DEFECTS=${DEFECTS:-}
mkdir -p "$OUT"
LOG=$OUT/summary.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j"$(nproc)" ARCH=sm_90 all > "$OUT/build.log" 2>&1 || { tail -n 20 "$OUT/build.log"; exit 1; }
cmds=$(make -n -W "$SRC" ARCH=sm_90 build/sm_90/roofbench)
compile=$(grep -F " $SRC" <<< "$cmds" | grep -E '^[^ ]*nvcc ')
link=$(grep -E ' -o build/sm_90/roofbench( |$)' <<< "$cmds")
[ -n "$compile" ] && [ -n "$link" ] || { say "cannot find the compile and link commands"; exit 1; }
if [ -n "$DEFECTS" ]; then
    make -j"$(nproc)" ARCH=sm_90 build/sm_90/rbtest >> "$OUT/build.log" 2>&1 || exit 1
    tlink=$(make -n -W "$SRC" ARCH=sm_90 build/sm_90/rbtest | grep -E ' -o build/sm_90/rbtest( |$)')
    others=$(grep -oP '^\s+\{"\K[a-z_0-9]+(?=",)' tests/test_gpu.c |
        grep -vx planted_defects_fail_their_check | sed 's@^@-gpu/@')
fi
names=()
for c in "$@"; do
    n=${c%%=*} f=${c#*=}
    names+=("$n")
    d=build/variant-$n
    mkdir -p "$d"
    say "build $n: ${f:-defaults}"
    c1=${compile//$obj/$d/obj.o}
    c1=${c1//${obj%.o}.d/$d/obj.d}
    l1=${link//$obj/$d/obj.o}
    l1=${l1//-o build\/sm_90\/roofbench/-o $d\/roofbench}
    { eval "${c1/ -c / $f -Xptxas -v -c }" && eval "$l1"; } > "$OUT/build-$n.log" 2>&1 ||
        { tail -n 20 "$OUT/build-$n.log" | tee -a "$LOG"; exit 1; }
    grep -A2 -E 'optimized[a-z_]*_kernel' "$OUT/build-$n.log" | grep -E 'registers|spill' |
        tee -a "$LOG"
    for cs in $CHECK; do
        timeout "${CHECK_TIMEOUT:-300}" $d/roofbench check --filter "$FILTER" --size $cs > "$OUT/check-$n-$cs.log" 2>&1
        echo "check $cs: exit $?" | tee -a "$LOG"
    done
    if [ -n "$DEFECTS" ]; then
        t1=${tlink//$obj/$d/obj.o}
        t1=${t1//-o build\/sm_90\/rbtest/-o $d\/rbtest}
        # shellcheck disable=SC2086
        { eval "$t1" && RBTEST_PAIR=$DEFECTS timeout "${CHECK_TIMEOUT:-300}" $d/rbtest $d/roofbench gpu $others; } \
            > "$OUT/defects-$n.log" 2>&1
        echo "defects: exit $?, $(grep -c ': caught$' "$OUT/defects-$n.log") caught" | tee -a "$LOG"
    fi
done
for round in $(seq "$ROUNDS"); do
    for n in "${names[@]}"; do
        for s in $SIZES; do
            say "round $round, $n, $s"
            timeout "${RUN_TIMEOUT:-600}" build/variant-$n/roofbench run --filter "$FILTER" --size "$s" --expect none \
                --json "$OUT/run-$n-$s-$round.json" > "$OUT/run-$n-$s-$round.log" 2>&1
            echo "exit $?" | tee -a "$LOG"
            python3 - "$OUT/run-$n-$s-$round.json" << 'PY' | tee -a "$LOG"
import json, sys
d = json.load(open(sys.argv[1]))
copy = (d.get("platform") or {}).get("dram_gbps")
print("  platform dram %.0f GB/s" % (copy or float("nan")))
for p in d["pairs"]:
    v = {x["name"]: x for x in p["variants"]}
    for x in p["variants"]:
        r = "%.1f %s" % (x["rate"], x["rate_unit"]) if x.get("valid") and x.get("rate") else "invalid"
        gbps = (x.get("vs_ceiling") or {}).get("gbps")
        if r != "invalid" and gbps and copy and x.get("roof") == "dram_gbps":
            r += "  %.1f%% of the copy" % (100.0 * gbps / copy)
        print("  %-18s %-12s %s" % (p["name"], x["name"], r))
    def rate(name):
        x = v.get(name) or {}
        return x.get("rate") if x.get("valid") else None
    for top, lib in (("optimized", "library"), ("fp8", "fp8_library")):
        if top not in v or lib not in v:
            continue
        a, b = rate(top), rate(lib)
        if a and b:
            clk = [(v[x].get("clocks") or {}).get("sm_mhz_mean") for x in (top, lib)]
            print("  %-11s %7.1f vs %7.1f TFLOP/s  %.3fx  clocks %s" % (top, a, b, a / b, clk))
        else:
            print("  %-11s invalid or missing" % top)
PY
        done
    done
done
say done
tar czf /tmp/variants.tgz -C "$OUT" --exclude summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -delete && mv /tmp/variants.tgz "$OUT/variants.tgz"
