#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/sanitize.sh ROOFBENCH | --preflight | --parse TOOL LOG | --analyze LOG | --self-test
# compute-sanitizer over every pair (make sanitize runs it; a GPU machine only):
#   scripts/sanitize.sh ROOFBENCH        run the tools, write the logs and the summary
#   scripts/sanitize.sh --preflight      only check that a GPU and compute-sanitizer are there
#   scripts/sanitize.sh --parse TOOL LOG print "errors warnings summaries library_api internal" of a log
#   scripts/sanitize.sh --analyze LOG    what one roofbench check under a tool left unchecked
#   scripts/sanitize.sh --self-test      the parser against the sample logs in tests/sanitize/
#
# Each tool of SANITIZE_TOOLS (default: memcheck racecheck synccheck initcheck) runs
# `roofbench check --size S` for each size of SANITIZE_SIZES (default: smoke 10007, an odd
# prime size whose tails no block shape divides; small, since the tools slow kernels 10-100x
# and a pair like async_pipeline counts rows of 4 KB) and appends to one log per tool,
# $SANITIZE_OUT/<tool>.log (default build/sanitize/). The harness runs every pair in a forked
# child process, so compute-sanitizer follows children (--target-processes all); each process
# prints its own summary line. $SANITIZE_OUT/summary.txt counts the errors per tool; the script
# exits 1 when any tool reports an error, a run fails or times out, or a log has no summary
# line at all (a clean result is a summary that says 0, never the absence of one).
#
# The tool's own failure is not a hazard: an "Internal Sanitizer Error" (racecheck on the H200's
# TMA/wgmma kernels: "The Sanitizer failed to handle a hardware exception") is counted apart,
# with the API errors it leaves behind in its process, and the variant it happened in (the
# pair's child then fails on the sticky error) is named in the summary, "not checked: <tool>
# cannot handle <what> (<row>/<variant>, ...)". The row is then checked again with
# `--skip-variants` leaving out that variant and the ones already checked, until no variant is
# left, so every other kernel stays checked; such a run fails nothing. A real hazard or error (a
# race, an out-of-bounds access, a wrong result) still fails the run, in the same process too.
#
# Time: every run (one tool, one size) is killed after SANITIZE_TIMEOUT seconds (default 600)
# and counts as failed; roofbench's own per-pair watchdog gets the same limit. racecheck skips
# the library kernels (cuBLAS/cuBLASLt, CUTLASS, NCCL; SANITIZE_RACECHECK_EXCLUDE): hazards
# inside NVIDIA's kernels are not ours to fix and their shared-memory tracking takes hours.
# memcheck, synccheck and initcheck keep them, since a wrong leading dimension or an unwritten
# input of ours shows up inside a library kernel. SANITIZE_FILTER limits the pairs (a --filter
# regular expression); SANITIZE_ARGS adds options for every tool (e.g. --leak-check full);
# SANITIZE_PARALLEL=1 runs the tools, and each tool's sizes, at the same time.
# SANITIZE_PAIR_SIZES ("TOOL:PAIR=SIZE,SIZE ..."; default synccheck:attention=67x256,1x1021)
# checks a pair under one tool at its own sizes instead of SANITIZE_SIZES: synccheck tracks every
# barrier of attention's flash kernels, and at smoke size (2 heads of 8192) it did not finish in
# the time it was given on the H200; 67 heads of 256 (on 132 SMs, 132 whole query tiles and 2 split ones: both paths
# of the optimized kernel and the merge) and 1 head of 1021 (a tail no tile divides) run every
# kernel of its four inputs with 30 to 130 times fewer scores. SANITIZE_UNHANDLED_<TOOL> (a --skip-variants regex, e.g.
# SANITIZE_UNHANDLED_RACECHECK='^hgemm[^/]*/wgmma$') leaves out variants known to stop a tool,
# named "not checked" like the ones found.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.." || exit 2
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
OUT=${SANITIZE_OUT:-build/sanitize}
TOOLS=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
SIZES=${SANITIZE_SIZES:-smoke 10007}
TIMEOUT_S=${SANITIZE_TIMEOUT:-600}
RACECHECK_EXCLUDE=${SANITIZE_RACECHECK_EXCLUDE:-kns=cublas,kns=xmma,kns=cutlass,kns=nvjet,kns=gemv,kns=splitKreduce,kns=nccl}
# racecheck looks at shared memory only, and three pairs have none of their own: every kernel of
# gemm_autotune, gemm_epilogue and gemm_precision is cuBLASLt's, or an elementwise pass of ours
# without shared memory. racecheck skips them (SANITIZE_RACECHECK_SKIP): under it, cuBLASLt's
# Hopper kernels of those pairs end in "Internal Sanitizer Error: The Sanitizer failed to handle
# a hardware exception" (H100, compute-sanitizer 2025.3.1) although --kernel-name-exclude names
# them, and the sticky error then fails the pair. memcheck, synccheck and initcheck keep them.
RACECHECK_SKIP=${SANITIZE_RACECHECK_SKIP-gemm_autotune gemm_epilogue gemm_precision}
PAIR_SIZES=${SANITIZE_PAIR_SIZES-synccheck:attention=67x256,1x1021}
MAX_ROUNDS=16 # checks of one row again, past a variant the tool cannot handle each time
export NCCL_NVLS_ENABLE=0 # never NVLink multicast on shared machines

# "errors warnings summaries library_api internal" of one tool's log. compute-sanitizer ends
# each process's report with "========= ERROR SUMMARY: N error(s)"; racecheck instead with
# "========= RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)". Only lines with the
# tool's "========= " prefix count, so the program's own output cannot fake one.
# An API error ("Program hit cudaError... on CUDA API call to ...") is counted in the process's
# summary, but when the first host frame after the driver (libcuda) lies in one of the toolkit's
# libraries (NCCL, cuBLAS, cuBLASLt) the call was the library's own, handled inside it: NCCL
# asks cudaFuncGetAttributes about each of its kernels and gets "no kernel image" for those not
# built for this GPU. Those are taken out of the errors and reported as library_api; an API
# error from roofbench's own code (a frame "in roofbench") stays an error.
# An "========= Internal Sanitizer Error: ..." is the tool's own failure, which its process's
# summary counts as an error (a hazard, for racecheck): each is taken out of that summary's
# count, with the API errors of roofbench's code that follow it in the process (the sticky
# error it leaves), and reported as internal. The count left is never below the reports of
# real errors in the process ("Error: Race reported", "Invalid ...", "Barrier error",
# "Uninitialized ..."), so a real hazard beside a tool failure still counts.
parse_log() {
    local tool=$1 log=$2
    awk -v tool="$tool" '
        function close_api() {
            if (api && lib) { e_lib++; r_lib++ }
            else if (api && (e_int || r_int)) { e_after++ }
            api = 0
        }
        function max(a, b) { return a > b ? a : b }
        /^========= Internal Sanitizer Error:/ { close_api(); e_int++; r_int++; next }
        /^========= (Error: |Invalid |Barrier error|Uninitialized )/ { e_real++ }
        /^========= Error: / { r_race++ }
        /^========= Program hit .* on CUDA API call to / { close_api(); api = 1; lib = 0; decided = 0; next }
        api && !decided && /^=========  +Host Frame:/ {
            if ($0 ~ /in [^ ]*libcuda\.so/) next
            decided = 1
            if ($0 ~ /in [^ ]*lib(nccl|cublas|cublasLt)\.so/) lib = 1
            next
        }
        api && /^=========  +in [^ ]*libcuda\.so/ { next }   # a frame whose library is on the next line
        api && !decided && /^=========  +in / {
            decided = 1
            if ($0 ~ /lib(nccl|cublas|cublasLt)\.so/) lib = 1
            next
        }
        /^========= ERROR SUMMARY: [0-9]+ errors?/ {
            close_api(); n = $4 - e_lib
            if (e_int) { internal_e += e_int; n = max(n - e_int - e_after, e_real) }
            err += n; lib_api += e_lib; n_err++
            e_lib = e_int = e_after = e_real = 0
        }
        /^========= RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?, [0-9]+ warnings?\)/ {
            close_api(); n = substr($7, 2) + 0
            if (r_int) { internal_r += r_int; n = max(n - r_int, r_race) }
            race_err += n; race_warn += $9; n_race++
            r_lib = r_int = r_race = 0
        }
        END {
            close_api()
            if (tool == "racecheck" && n_race > 0)
                print race_err + 0, race_warn + 0, n_race + 0, 0, internal_r + r_int
            else
                print err + 0, 0, n_err + 0, lib_api + 0, internal_e + e_int
        }' "$log"
}

# What one `roofbench check` under a tool (one log part, up to its "#### exit N") says of each
# row, one line each:
#   internal ROW VARIANT WHAT   the tool failed in ROW's child; VARIANT is the one whose failure
#                               it named ("FAILED: <variant>: ..."), "?" when none; WHAT is
#                               what the tool could not handle
#   done ROW VARIANT            a variant the check's table reports (ok, invalid or skipped)
#   bad ROW VARIANT|-           a wrong result or a failed pair the tool's failure does not explain
# The row of a child is the parent's "[i/n] ROW: ..." line printed before it.
analyze_part() {
    awk '
        /^\[[0-9]+\/[0-9]+\] [^ ]+: / { row = $2; sub(/:$/, "", row); pending = 0; next }
        /^========= Internal Sanitizer Error:/ {
            what = $0; sub(/^========= Internal Sanitizer Error: */, "", what)
            if (what ~ /failed to handle /) sub(/.*failed to handle /, "", what)
            sub(/[.]$/, "", what)
            n_int[row]++; pending = 1; pending_what = what
            next
        }
        pending && /^      FAILED: / {
            v = $2
            if (v !~ /^[A-Za-z0-9_]+:$/) v = "?:"
            sub(/:$/, "", v)
            print "internal", row, v, pending_what; culprit[row "/" v] = 1; reported[row] = 1
            pending = 0; next
        }
        pending && /^      \([0-9.]+ s/ {
            print "internal", row, "?", pending_what; reported[row] = 1; pending = 0; next
        }
        /^pair +variant +err before +err after/ { table = 1; next }
        table && /^check (passed|FAILED)/ { table = 0; next }
        table && /^[^ ]/ && $2 == "FAILED:" { if (!n_int[$1]) print "bad", $1, "-"; next }
        table && /^[^ ]/ && $2 == "skipped:" { next }
        table && NF >= 5 {
            if ($0 ~ /^[^ ]/) { trow = $1; v = $2; res = $6 } else { v = $1; res = $5 }
            print "done", trow, v
            if (res == "INVALID" && !culprit[trow "/" v]) print "bad", trow, v
        }
        END { if (pending) print "internal", row, "?", pending_what }' "$1"
}

# The sample logs: the first line of each, "# TOOL ERRORS WARNINGS SUMMARIES [LIBRARY_API
# [INTERNAL]]", is what parse_log must read; further "# analyze: ..." lines, when there are
# some, what analyze_part must say, in order.
self_test() {
    local dir=tests/sanitize fails=0 f want got
    for f in "$dir"/*.log; do
        read -r _ tool e w n l i < "$f"
        want="$e $w $n ${l:-0} ${i:-0}"
        got=$(parse_log "$tool" "$f")
        if [ "$got" = "$want" ]; then
            echo "ok   $f: $got"
        else
            echo "FAIL $f: parsed '$got', expected '$want'"
            fails=$((fails + 1))
        fi
        want=$(sed -n 's/^# analyze: //p' "$f")
        [ -z "$want" ] && continue
        got=$(analyze_part "$f")
        if [ "$got" = "$want" ]; then
            echo "ok   $f: analyzed as expected"
        else
            printf 'FAIL %s: analyzed\n%s\nexpected\n%s\n' "$f" "$got" "$want"
            fails=$((fails + 1))
        fi
    done
    flow_test || fails=$((fails + 1))
    [ $fails = 0 ] && echo "sanitize parser: every sample parsed as expected" && return 0
    return 1
}

# The whole script on stand-ins (tests/sanitize/fake/: nvidia-smi, compute-sanitizer, and a
# roofbench whose check prints the tools' reports): flow_case NAME WANT_EXIT NEEDLE... [-- ENV...]
flow_case() {
    local name=$1 want=$2 out rc n fails=0 fake=$PWD/tests/sanitize/fake
    shift 2
    local needles=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do needles+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    out=$(mktemp -d)
    env PATH="$fake:$PATH" COMPUTE_SANITIZER="$fake/compute-sanitizer" SANITIZE_OUT="$out" \
        SANITIZE_SIZES=smoke SANITIZE_FILTER= SANITIZE_PARALLEL= "$@" "$SELF" "$fake/roofbench" \
        > "$out/stdout" 2>&1
    rc=$?
    [ "$rc" = "$want" ] || { echo "FAIL flow $name: exit $rc, expected $want"; fails=1; }
    for n in "${needles[@]}"; do
        grep -qF -- "$n" "$out"/*.log "$out/stdout" ||
            { echo "FAIL flow $name: no '$n' in its output or logs"; fails=1; }
    done
    [ $fails = 0 ] && echo "ok   flow $name: exit $rc" || sed 's/^/     | /' "$out/stdout"
    rm -rf "$out"
    return $fails
}

flow_test() {
    local fails=0 unhandled="FAKE_UNHANDLED=attention/optimized hgemm/wgmma hgemm/tma"
    # the tool fails on three variants: named, not failing, the rest of each pair checked
    flow_case tool_failures 0 "racecheck 0 errors" ": clean" \
        "not checked: racecheck cannot handle a hardware exception (attention.d128/optimized, attention.d64/optimized, hgemm.square/tma, hgemm.square/wgmma)" \
        "--skip-variants '^hgemm[.]square/(mma_sync|tma|wgmma)\$'" \
        "                   library             1e-07        1e-07       0.01  ok" \
        -- SANITIZE_TOOLS=racecheck "$unhandled" || fails=1
    # a real race beside them still fails the run, in the same process as a tool failure too
    flow_case race 1 "racecheck 1 errors" ": ERRORS" \
        -- SANITIZE_TOOLS=racecheck "$unhandled" FAKE_RACE=hgemm/mma_sync || fails=1
    # a wrong result is a failure whatever the tool did
    flow_case wrong_result 1 ": roofbench FAILED at smoke" \
        -- SANITIZE_TOOLS="memcheck racecheck" "$unhandled" FAKE_WRONG=histogram/optimized || fails=1
    # synccheck checks attention at its own sizes, the others at SANITIZE_SIZES
    flow_case own_sizes 0 "--size smoke --filter '^(hgemm|histogram)\$'" \
        "--size 67x256 --filter '^attention\$'" "--size 1x1021 --filter '^attention\$'" \
        "attention checked at its own sizes: 67x256,1x1021" -- SANITIZE_TOOLS=synccheck || fails=1
    return $fails
}

preflight() {
    if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
        echo "sanitize: no NVIDIA GPU on this machine (nvidia-smi -L lists none); make sanitize" \
            "runs compute-sanitizer on a GPU machine" >&2
        return 2
    fi
    SAN=${COMPUTE_SANITIZER:-$CUDA_HOME/bin/compute-sanitizer}
    [ -x "$SAN" ] || SAN=$(command -v compute-sanitizer) || {
        echo "sanitize: compute-sanitizer not found ($CUDA_HOME/bin, PATH);" \
            "set COMPUTE_SANITIZER=/path/to/compute-sanitizer" >&2
        return 2
    }
}

case "${1:-}" in
--parse) parse_log "$2" "$3"; exit ;;
--analyze) analyze_part "$2"; exit ;;
--self-test) self_test; exit ;;
--preflight) preflight; exit ;;
"" | -*) echo "usage: scripts/sanitize.sh ROOFBENCH | --preflight | --parse TOOL LOG | --analyze LOG | --self-test" >&2; exit 2 ;;
esac
BIN=$1
preflight || exit
[ -x "$BIN" ] || { echo "sanitize: $BIN is not built (make sanitize builds it)" >&2; exit 2; }
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
echo "compute-sanitizer ($("$SAN" --version | tail -n 1)) on $(nvidia-smi -L | head -n 1)," \
    "sizes: $SIZES, timeout ${TIMEOUT_S} s per run" | tee "$SUMMARY"

# The pairs `list` names (those SANITIZE_FILTER selects), one a line, and the variants of one.
PAIRS=$("$BIN" list ${SANITIZE_FILTER:+--filter "$SANITIZE_FILTER"} | awk 'NR > 2 && /^[a-z]/ {print $1}')
variants_of() {
    "$BIN" list --filter "^$1\$" |
        awk 'NR == 3 { if (match($0, /([A-Za-z0-9_]+, )+[A-Za-z0-9_]+$/)) print substr($0, RSTART) }' |
        tr -d ',' | tr ' ' '\n'
}
# The pairs tool leaves out of its main runs: those it skips, those it checks at their own sizes.
own_sizes() { # tool -> "pair sizes" lines
    local e
    for e in $PAIR_SIZES; do
        [ "${e%%:*}" = "$1" ] && e=${e#*:} && echo "${e%%=*} ${e#*=}"
    done
}
left_out() {
    [ "$1" = racecheck ] && tr ' ' '\n' <<< "$RACECHECK_SKIP"
    own_sizes "$1" | awk '{print $1}'
}
# The main runs' --filter: SANITIZE_FILTER as given when it selects none of the pairs left out,
# else every selected pair but those.
main_filter() {
    local out kept
    out=$(left_out "$1" | grep -v '^$')
    kept=$(grep -vxF -f <(echo "${out:-^$}") <<< "$PAIRS" | paste -sd '|')
    if [ -n "${SANITIZE_FILTER:-}" ] && ! grep -qxF -f <(echo "${out:-^$}") <<< "$PAIRS"; then
        echo "$SANITIZE_FILTER"
    elif [ -n "$kept" ]; then
        echo "^($kept)\$"
    fi
}

# One check under tool, appended to log: run_one TOOL SIZE FILTER SKIP LOG NOTE; prints
# roofbench's exit status (124: timeout).
run_one() {
    local tool=$1 size=$2 filter=$3 skip=$4 log=$5 note=${6:-}
    local extra=()
    [ "$tool" = racecheck ] && [ -n "$RACECHECK_EXCLUDE" ] &&
        extra+=(--kernel-name-exclude "$RACECHECK_EXCLUDE")
    echo "#### $tool, roofbench check --size $size --filter '$filter'${skip:+ --skip-variants '$skip'}$note, $(date -u +%FT%TZ)" >> "$log"
    # shellcheck disable=SC2086  # SANITIZE_ARGS is a list of options
    timeout -k 30 "$TIMEOUT_S" "$SAN" --tool "$tool" --target-processes all "${extra[@]}" \
        ${SANITIZE_ARGS:-} "$BIN" check --size "$size" --timeout "$TIMEOUT_S" \
        --filter "$filter" ${skip:+--skip-variants "$skip"} >> "$log" 2>&1
    local rc=$?
    echo "#### exit $rc" >> "$log"
    echo $rc
}

# SANITIZE_UNHANDLED_<TOOL>: the variants known to stop the tool, a --skip-variants regex.
unhandled_of() {
    local var=SANITIZE_UNHANDLED_${1^^}
    echo "${!var:-}"
}

# The variants of row (pair[.input]) that no check of it has reported yet (in done).
left_of() {
    local row=$1 done=$2 v
    variants_of "${row%%[.@]*}" | while read -r v; do
        grep -qxF "$row/$v" "$done" || echo "$v"
    done
}

# A check and, for each row in which the tool failed on a variant it named, checks of what the
# failure left unchecked: each time without the variants done and the ones the tool could not
# handle, until none is left or a check of the row adds nothing. Appends to log; writes to
# "$log.status" one line per check, "RC explained|clean|failed", and to "$log.unhandled"
# "ROW/VARIANT WHAT" lines. check_all TOOL SIZE FILTER LOG
check_all() {
    local tool=$1 size=$2 filter=$3 log=$4 part=$4.part rc row r skip static pending=""
    local before
    static=$(unhandled_of "$tool")
    : > "$log.status"
    : > "$log.unhandled"
    : > "$log.done"
    rc=$(: > "$part"; run_one "$tool" "$size" "$filter" "$static" "$part")
    for _ in $(seq 0 "$MAX_ROUNDS"); do
        analyze_part "$part" > "$part.a"
        cat "$part" >> "$log"
        awk '$1 == "done" {print $2 "/" $3}' "$part.a" >> "$log.done"
        awk '$1 == "internal" {w = $4; for (i = 5; i <= NF; i++) w = w " " $i; print $2 "/" $3, w}' \
            "$part.a" >> "$log.unhandled"
        echo "$rc $(check_status "$rc" "$part.a")" >> "$log.status"
        # a check of one row that reported nothing new: the tool stops before any variant
        [ -n "${row:-}" ] && [ "$(grep -c "^$row/" "$log.done")" = "$before" ] &&
            pending=$(grep -vxF "$row" <<< "$pending")
        pending=$({ echo "$pending"; awk '$1 == "internal" && $3 != "?" {print $2}' "$part.a"; } |
            grep -v '^$' | awk '!seen[$0]++')
        row=""
        for r in $pending; do
            [ -n "$(left_of "$r" "$log.done")" ] && row=$r && break
            pending=$(grep -vxF "$r" <<< "$pending")
        done
        [ -z "$row" ] && break
        before=$(grep -c "^$row/" "$log.done")
        skip="^${row//./[.]}/($(grep "^$row/" "$log.done" | sed 's|.*/||' | sort -u | paste -sd '|'))\$"
        [ -n "$static" ] && skip="$skip|$static"
        rc=$(: > "$part"; run_one "$tool" "$size" "^${row//./[.]}\$" "$skip" "$part" \
            " (again: what the tool left unchecked)")
    done
    rm -f "$part" "$part.a" "$log.done"
}

# One check's outcome from its exit status and analysis: clean (it passed), explained (the tool
# failed, and nothing else did) or failed (a wrong result, a failed pair or a timeout the tool's
# failure does not explain).
check_status() {
    local rc=$1 a=$2
    if [ "$rc" = 124 ] || [ "$rc" = 137 ] || grep -q '^bad' "$a"; then
        echo failed
    elif grep -q '^internal' "$a"; then
        echo explained
    elif [ "$rc" != 0 ]; then
        echo failed
    else
        echo clean
    fi
}

# One tool over every size, and the pairs it checks at their own sizes: its log, and its line
# of the summary in $OUT/<tool>.line. With SANITIZE_PARALLEL=1 the sizes run at the same time
# too (one log part each, joined in order).
run_tool() {
    local tool=$1 log=$OUT/$1.log start parts=() p filter pair sizes s
    start=$(date +%s)
    filter=$(main_filter "$tool")
    for s in $SIZES; do
        [ -n "$filter" ] && parts+=("$log.$s|$s|$filter")
    done
    while read -r pair sizes; do
        { [ -n "$pair" ] && grep -qxF "$pair" <<< "$PAIRS"; } || continue
        for s in ${sizes//,/ }; do parts+=("$log.$pair.$s|$s|^$pair\$"); done
    done <<< "$(own_sizes "$tool")"
    for p in "${parts[@]}"; do
        IFS='|' read -r f s filter <<< "$p"
        if [ "${SANITIZE_PARALLEL:-0}" = 1 ]; then
            check_all "$tool" "$s" "$filter" "$f" &
        else
            check_all "$tool" "$s" "$filter" "$f"
        fi
    done
    wait
    : > "$log"
    : > "$log.unhandled"
    local codes="" problems="" verdict rc st
    for p in "${parts[@]}"; do
        IFS='|' read -r f s _ <<< "$p"
        cat "$f" >> "$log"
        cat "$f.unhandled" >> "$log.unhandled"
        while read -r rc st; do
            codes="$codes $s:$rc$([ "$st" = explained ] && echo '*')"
            [ "$st" != failed ] && continue
            case "$rc" in
            124 | 137) problems="$problems, TIMED OUT at $s" ;;
            *) problems="$problems, roofbench FAILED at $s" ;;
            esac
        done < "$f.status"
        rm -f "$f" "$f.status" "$f.unhandled"
    done
    summarize "$tool" "$log" "$codes" "$problems" "$start" > "$OUT/$tool.line"
    rm -f "$log.unhandled"
    return 0
}

# The tool's summary lines: the counts and the verdict, then what it did not check and why.
summarize() {
    local tool=$1 log=$2 codes=$3 problems=$4 start=$5 errors warnings summaries library_api internal
    read -r errors warnings summaries library_api internal <<< "$(parse_log "$tool" "$log")"
    [ "$summaries" = 0 ] && problems="$problems, NO SUMMARY LINE"
    [ "$errors" != 0 ] && problems="$problems, ERRORS"
    local verdict=${problems#, }
    printf '%-9s %s errors, %s warnings, %s process summaries, exit%s, %s s: %s\n' "$tool" \
        "$errors" "$warnings" "$summaries" "$codes" "$(($(date +%s) - start))" "${verdict:-clean}"
    [ "$library_api" != 0 ] && echo "          (+ $library_api API errors inside NCCL/cuBLAS, handled there: not counted)"
    [ "$internal" != 0 ] && echo "          (+ $internal Internal Sanitizer Errors, the tool's own: not counted as hazards; exit N*: a check that failed on them alone)"
    local skipped
    skipped=$(tr ' ' '\n' <<< "$RACECHECK_SKIP" | grep -xF -f <(echo "$PAIRS") | paste -sd ',' |
        sed 's/,/, /g')
    [ "$tool" = racecheck ] && [ -n "$skipped" ] &&
        echo "          not checked: racecheck cannot handle cuBLASLt's Hopper kernels ($skipped)"
    local static
    static=$(unhandled_of "$tool")
    [ -n "$static" ] && echo "          not checked: left out by SANITIZE_UNHANDLED_${tool^^} ($static)"
    sort -u "$log.unhandled" | awk -v tool="$tool" '
        { w = $2; for (i = 3; i <= NF; i++) w = w " " $i; v = $1
          sub(/\/\?$/, ": the variant it stopped on unnamed", v); k[w] = k[w] (k[w] ? ", " : "") v }
        END { for (w in k) printf "          not checked: %s cannot handle %s (%s)\n", tool, w, k[w] }'
    while read -r pair sizes; do
        [ -n "$pair" ] && grep -qxF "$pair" <<< "$PAIRS" &&
            echo "          $pair checked at its own sizes: $sizes (SANITIZE_PAIR_SIZES)"
    done <<< "$(own_sizes "$tool")"
}

# SANITIZE_PARALLEL=1 runs the tools at the same time (one process each on the same GPU; the
# wall time is the slowest tool's, not their sum); the summary keeps the tools' order.
for tool in $TOOLS; do
    if [ "${SANITIZE_PARALLEL:-0}" = 1 ]; then
        run_tool "$tool" &
    else
        run_tool "$tool"
        cat "$OUT/$tool.line"
    fi
done
wait
status=0
for tool in $TOOLS; do
    [ "${SANITIZE_PARALLEL:-0}" = 1 ] && cat "$OUT/$tool.line"
    head -n 1 "$OUT/$tool.line" | grep -q ': clean$' || status=1
    cat "$OUT/$tool.line" >> "$SUMMARY"
    rm -f "$OUT/$tool.line"
done
echo "logs: $OUT/<tool>.log; $([ $status = 0 ] && echo "no errors" || echo "FAILED")" | tee -a "$SUMMARY"
exit $status
