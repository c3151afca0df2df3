#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the libFuzzer targets built by `make fuzz` (build/fuzz/fuzz_<target>), each for
# FUZZ_SECONDS (default 90), and prints per target the executions and the findings:
#   tests/fuzz/run.sh json expect
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
B=build/fuzz
mkdir -p "$B/findings"
status=0
total=0
for t in "$@"; do
    bin=$B/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz: $bin is missing (make fuzz)" >&2; exit 2; }
    corpus=$B/corpus/$t
    mkdir -p "$corpus"
    for f in expectations/*.json results/*/*.json tests/fuzz/seeds/*; do
        [ -f "$f" ] && cp "$f" "$corpus/seed-$(echo "$f" | tr '/' '_')"
    done
    log=$B/fuzz_$t.log
    stamp=$B/findings/.start-$t
    touch "$stamp"
    "$bin" -max_total_time="$SECONDS_EACH" -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -dict=tests/fuzz/json.dict -artifact_prefix="$B/findings/$t-" \
        "$corpus" > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    new_findings=$(find "$B/findings" -type f -name "$t-*" -newer "$stamp")
    findings=$(echo -n "$new_findings" | grep -c .)
    [ "$rc" -ne 0 ] && [ "$findings" -eq 0 ] && findings=1 # a failure that left no input is one too
    echo "fuzz_$t: ${execs:-0} executions in ${SECONDS_EACH} s, $findings findings (exit $rc, log $log)"
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
