#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# roofbench_mpi (make MPI=1) on a machine without a GPU: what it must do before any GPU work,
# under mpirun with 1 and 2 ranks. Each usage error is one line from rank 0 and exit 2; --help
# exits 0; a results file that cannot be written is refused before the CUDA probe; with no GPU
# every rank says so and the job exits 3. On a machine with a GPU that case is skipped, and one
# rank's results file is compared with roofbench run's instead (same_schema).
# Usage: tests/mpi_smoke.sh build/sm_90/roofbench_mpi
# Last line: "N passed, N failed, N skipped", like the unit tests.
set -u
bin=${1:?usage: tests/mpi_smoke.sh build/<arch>/roofbench_mpi}
if ! command -v mpirun > /dev/null; then
    echo "0 passed, 0 failed, 1 skipped (no mpirun)"
    exit 0
fi
run_as_root=()
[ "$(id -u)" = 0 ] && run_as_root=(--allow-run-as-root)
passed=0 failed=0 skipped=0
dir=$(mktemp -d /tmp/rb-mpi-smoke-XXXXXX)
trap 'rm -rf "$dir"' EXIT

# result NAME OK DETAIL: counts the case, printing DETAIL (indented) when it failed.
result() {
    if [ "$2" = 1 ]; then
        echo "  ok      $1"
        passed=$((passed + 1))
    else
        echo "  FAILED  $1"
        sed 's/^/    | /' <<< "$3" | head -20
        failed=$((failed + 1))
    fi
}

# expect NAME RANKS EXIT_CODE GREP_PATTERN ARGS...: the exit code, and a line matching the
# pattern in stdout+stderr (mpirun's own banners around a non-zero exit are ignored).
expect() {
    local name=$1 ranks=$2 want=$3 pattern=$4
    shift 4
    local out rc
    out=$(cd "$dir" && timeout 120 mpirun "${run_as_root[@]}" --oversubscribe -np "$ranks" \
        "$bin_abs" "$@" 2>&1)
    rc=$?
    local ok=0
    [ "$rc" = "$want" ] && grep -qE -- "$pattern" <<< "$out" && ok=1
    result "$name" "$ok" "exit $rc (want $want), output:
$out"
}
bin_abs=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

echo "mpi_smoke ($bin)"
expect help 1 0 '^usage: mpirun -np N roofbench_mpi' --help
expect unknown_filter 2 2 "^roofbench_mpi: no pair matches --filter 'nosuch'" --filter nosuch
expect one_process_pair 2 2 "selects only pairs that run in one process" --filter '^sgemm$'
expect timeout_refused 1 2 '^roofbench_mpi: --timeout: roofbench_mpi has no watchdog' --timeout 10
expect expect_refused 1 2 'has no expectation file' --expect e.json
expect update_refused 1 2 'has no expectation file' --update-expectations
expect bad_size 1 2 '^roofbench_mpi: --size' --size 12x
expect samples_zero 1 2 '^roofbench_mpi: --samples' --samples 0
expect unwritable_json 2 2 'does not exist' --size smoke --json "$dir/no/such/folder/r.json"
# one line per usage error, from rank 0 only
out=$(cd "$dir" && mpirun "${run_as_root[@]}" --oversubscribe -np 2 "$bin_abs" --filter nosuch 2>&1)
once=0
[ "$(grep -c '^roofbench_mpi:' <<< "$out")" = 1 ] && once=1
result usage_error_said_once "$once" "$out"
# With a GPU: one rank runs nccl_allreduce at smoke size, and its results file has the key
# paths, rows, variants and verdict kinds of `roofbench run`'s on the same pair (the roofbench
# binary beside roofbench_mpi), with "ranks" the only key added.
same_schema() {
    local run_bin
    run_bin=$(dirname "$bin_abs")/roofbench
    if (cd "$dir" && timeout 600 mpirun "${run_as_root[@]}" -np 1 "$bin_abs" --size smoke \
            --samples 10 --json mpi.json > mpi.log 2>&1) &&
        (cd "$dir" && timeout 600 "$run_bin" run --filter '^nccl_allreduce$' --size smoke \
            --samples 10 --expect none --json run.json > run.log 2>&1) &&
        python3 - "$dir/mpi.json" "$dir/run.json" <<'PY'
import json, sys
mpi, run = (json.load(open(f)) for f in sys.argv[1:3])
def paths(v, at=""):
    if isinstance(v, dict):
        return set().union(*[paths(x, at + "/" + k) for k, x in v.items()] or [{at}])
    if isinstance(v, list):
        return set().union(*[paths(x, at + "[]") for x in v] or [{at}])
    return {at}
# environment holds what the machine reports (NVML readings may differ between two reads)
strip = lambda ps: {p for p in ps if not p.startswith("/environment/")}
extra, missing = strip(paths(mpi)) - strip(paths(run)), strip(paths(run)) - strip(paths(mpi))
rows = lambda d: [(p["name"], p["status"], [(v["name"], v["verdict"], v["valid"], v["skipped"])
                                           for v in p["variants"]]) for p in d["pairs"]]
ok = extra == {"/ranks"} and not missing and rows(mpi) == rows(run) and mpi["tool"] == "roofbench_mpi"
if not ok:
    print("extra", sorted(extra), "missing", sorted(missing))
    print("mpi", rows(mpi)); print("run", rows(run))
sys.exit(0 if ok else 1)
PY
    then
        result same_schema_as_roofbench_run 1 ""
    else
        result same_schema_as_roofbench_run 0 "logs kept: $dir/mpi.log, $dir/run.log
$(tail -n 20 "$dir/mpi.log" "$dir/run.log" 2> /dev/null)"
        trap - EXIT
    fi
}

if nvidia-smi -L > /dev/null 2>&1; then
    echo "  skipped no_gpu_exit_3: this machine has a GPU"
    skipped=$((skipped + 1))
    same_schema
else
    expect no_gpu_exit_3 2 3 'rank 1: no usable CUDA device: no NVIDIA driver or GPU' --size smoke
    # nothing was written
    empty=0
    [ -z "$(ls -A "$dir")" ] && empty=1
    result no_gpu_writes_nothing "$empty" "$(ls -A "$dir")"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
