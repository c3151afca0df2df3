#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the libFuzzer targets built by `make fuzz` (build/fuzz/fuzz_<target>), each for
# FUZZ_SECONDS (default 90), and prints per target the executions and the findings:
#   tests/fuzz/run.sh json expect
# FUZZ_JOBS targets (default: the number of cores) run at once, each a single process on its own
# core, so a target gets the same executions as alone while the targets take 1/FUZZ_JOBS of the
# wall time.
# Seed corpus, copied at run time into build/fuzz/corpus/<target>/ (kept between local runs, so
# a later run starts where the last one stopped): the repository's own JSON files
# (expectations/*.json, results/*/*.json) and the hand-made edge cases in tests/fuzz/seeds/.
# Inputs are capped at FUZZ_MAX_LEN bytes (default 65536): libFuzzer truncates larger seeds, and
# the results files (up to ~280 KB) would otherwise slow every execution tenfold.
# A finding (crash, sanitizer report, broken property, input slower than 10 s, 2 GB of memory)
# leaves its input in build/fuzz/findings/ and makes the script exit 1; reproduce it with
#   build/fuzz/fuzz_<target> build/fuzz/findings/<target>-crash-...
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SECONDS_EACH=${FUZZ_SECONDS:-90}
MAX_LEN=${FUZZ_MAX_LEN:-65536}
JOBS=${FUZZ_JOBS:-$(nproc)}
B=build/fuzz
mkdir -p "$B/findings"
for t in "$@"; do
    [ -x "$B/fuzz_$t" ] || { echo "fuzz: $B/fuzz_$t is missing (make fuzz)" >&2; exit 2; }
done

# One target: its log in $B/fuzz_$t.log, its executions, exit status and new findings in
# $B/fuzz_$t.result (read back below, in the order the targets were named).
fuzz_one() {
    local t=$1 corpus=$B/corpus/$1 stamp=$B/findings/.start-$1 rc
    mkdir -p "$corpus"
    for f in expectations/*.json results/*/*.json tests/fuzz/seeds/*; do
        [ -f "$f" ] && cp "$f" "$corpus/seed-$(echo "$f" | tr '/' '_')"
    done
    touch "$stamp"
    "$B/fuzz_$t" -max_total_time="$SECONDS_EACH" -max_len="$MAX_LEN" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -dict=tests/fuzz/json.dict \
        -artifact_prefix="$B/findings/$t-" "$corpus" > "$B/fuzz_$t.log" 2>&1
    rc=$?
    {
        echo "$rc"
        sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz_$t.log" | tail -n 1
        find "$B/findings" -type f -name "$t-*" -newer "$stamp"
    } > "$B/fuzz_$t.result"
}

running=0
for t in "$@"; do
    fuzz_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

status=0
total=0
for t in "$@"; do
    log=$B/fuzz_$t.log
    rc=$(sed -n 1p "$B/fuzz_$t.result")
    execs=$(sed -n 2p "$B/fuzz_$t.result")
    new_findings=$(sed -n '3,$p' "$B/fuzz_$t.result")
    findings=$(echo -n "$new_findings" | grep -c .)
    [ "${rc:-1}" -ne 0 ] && [ "$findings" -eq 0 ] && findings=1 # a failure that left no input is one too
    echo "fuzz_$t: ${execs:-0} executions in ${SECONDS_EACH} s, $findings findings (exit ${rc:-?}, log $log)"
    total=$(( total + ${execs:-0} ))
    if [ "$findings" -ne 0 ]; then
        status=1
        grep -m 5 -E "ERROR|runtime error|fuzz property broken|SUMMARY" "$log"
        # shellcheck disable=SC2086  # libFuzzer names its files crash-<sha1>: no spaces
        printf "  finding: %s\n" $new_findings
    fi
done
echo "fuzz: $total executions in all, $( [ $status = 0 ] && echo "no findings" || echo "FINDINGS (see above)")"
exit $status
