#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR REC=DIR GIT_REV=REV [ROUNDS=3] [FILTER=REGEX] [FULL_UNLESS="uuid8 ..."] scripts/probes/gpu_energy_perturb.sh
# Does reading the energy counter move the times it sits beside? REC (a copy of the tree at
# GIT_REV, carried) is built twice: as it is, and with the energy poller switched off in
# harness/runner/measure.c (no NVML energy reads beside the timed samples, no untimed pad after
# them: the timing of 62a8d66, before the poller). The two builds then time FILTER's rows in
# turn, ROUNDS times (A B A B ...), judged against nothing; $OUT/summary.log has each row's
# median per build and round. Then, unless this GPU's UUID starts with one of FULL_UNLESS, one
# full run of REC's build as it is (run-<uuid8>-1.json, for `expectations --record` with other
# machines' runs of GIT_REV). Never changes clocks or power limits.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
OUT=${OUT:?OUT=DIR}
REC=${REC:?REC=DIR}
export GIT_REV=${GIT_REV:?GIT_REV=REV} NCCL_NVLS_ENABLE=0
case $REC in /*) ;; *) REC=$PWD/$REC ;; esac
FILTER=${FILTER:-^(transpose|attention[.]d128|copy_coalescing)$}
mkdir -p "$OUT/w"
LOG=$OUT/summary.log
say() { echo "== $(date -u +%T) +${SECONDS}s $*" | tee -a "$LOG"; }
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -n 1)
short=$(echo "$uuid" | sed 's/^GPU-//' | cut -c1-8)
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
(cd "$REC" && make ARCH=sm_90 all) > "$OUT/w/build.log" 2>&1
say "build exit $?"
Q=/tmp/rb-noenergy
rm -rf $Q && mkdir -p $Q && (cd "$REC" && tar cf - --exclude=./build .) | tar xf - -C $Q
sed -i 's/int have = reads_edges(o, nvml, \(n\|1\)) && rb_energy_poller_start(&poller, nvml) == 0;/int have = 0; (void)reads_edges; (void)nvml;/' \
    $Q/harness/runner/measure.c
say "poller off: $(grep -c 'int have = 0;' $Q/harness/runner/measure.c) of 2 places"
(cd $Q && make ARCH=sm_90 GIT_REV="$GIT_REV-noenergy" all) > "$OUT/w/build-noenergy.log" 2>&1
say "build without the poller exit $?"
for r in $(seq "${ROUNDS:-3}"); do
    for b in asis noenergy; do
        bin=$REC/build/sm_90/roofbench
        [ $b = noenergy ] && bin=$Q/build/sm_90/roofbench
        $bin run --filter "$FILTER" --expect none --json "$OUT/w/$b-$r.json" > "$OUT/w/$b-$r.log" 2>&1
        say "round $r $b exit $?"
        python3 - "$OUT/w/$b-$r.json" << 'PY' | tee -a "$LOG"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["pairs"]:
    for v in p["variants"]:
        t = (v.get("time_ms") or {}).get("median")
        c = (v.get("clocks") or {}).get("sm_mhz_mean")
        e = (v.get("energy") or {}).get("mean_power_w")
        if t:
            print("  %-22s %-12s %9.4f ms  %6s MHz  %s W" % (p["name"], v["name"], t,
                  "%.0f" % c if c else "-", "%.0f" % e if e else "-"))
PY
    done
done
case " ${FULL_UNLESS:-} " in
*" $short "*) say "full run left out: $short is already in the recording" ;;
*)
    $REC/build/sm_90/roofbench run --json "$OUT/run-$short-1.json" > "$OUT/w/run-$short-1.log" 2>&1
    say "full run exit $?: $(grep -E '^verdicts' "$OUT/w/run-$short-1.log")" ;;
esac
say done
tar czf "$OUT/logs.tgz" -C "$OUT" w && rm -rf "$OUT/w"
