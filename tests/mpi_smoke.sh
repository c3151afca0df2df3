#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# roofbench_mpi (make MPI=1) on a machine without a GPU: what it must do before any GPU work,
# under mpirun with 1, 2 and 4 ranks. Each usage error is one line from rank 0 and exit 2;
# --help exits 0; a results file that cannot be written is refused before the CUDA probe; with
# no GPU every rank says so and the job exits 3. On a machine with a GPU that case is skipped,
# and one rank's results file is compared with roofbench run's instead (same_schema).
# The gather, with synthetic runs instead of GPUs (RB_TEST_SYNTHETIC_RUN): 4 ranks posing as 2
# hosts (RB_HOST_NAME_BY_RANK), one of them made slower, must give one fleet file of 4 GPUs on
# 2 hosts in which that rank and only it is flagged, attributed to its platform, and named the
# slowest rank of each collective; 2 ranks give a file of 2. A rank slower only on the pageable
# copies (informational rows) is flagged by no one and the job exits 0, unless --gate all (exit
# 1). Needs python3 (as same_schema).
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
    local rc
    out=$(cd "$dir" && timeout 120 mpirun "${run_as_root[@]}" --oversubscribe -np "$ranks" \
        "$bin_abs" "$@" 2>&1)
    rc=$?
    local ok=0
    [ "$rc" = "$want" ] && grep -qE -- "$pattern" <<< "$out" && ok=1
    result "$name" "$ok" "exit $rc (want $want), output:
$out"
}
bin_abs=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
root=$(cd "$(dirname "$0")/.." && pwd)

echo "mpi_smoke ($bin)"
expect help 1 0 '^usage: mpirun -np N roofbench_mpi' --help
export RB_HOST_NAME_BY_RANK= RB_TEST_SYNTHETIC_RUN=
expect unknown_filter 2 2 "^roofbench_mpi: no pair matches --filter 'nosuch'" --filter nosuch
RB_HOST_NAME_BY_RANK=solo expect host_list_short 2 2 \
    '^roofbench_mpi: RB_HOST_NAME_BY_RANK names 1 host for 2 ranks' --size smoke
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
# With a GPU: one rank runs copy_vectorized and nccl_allreduce at smoke size; the fleet file's
# one GPU has the run document of `roofbench run` on copy_vectorized (the key paths, rows,
# variants and verdict kinds of the roofbench binary beside roofbench_mpi), its collectives
# nccl_allreduce's rows, and the rank's own time of each collective variant (slowest_rank) is
# the collective's median (one rank: its own samples are the slowest rank's).
same_schema() {
    local run_bin
    run_bin=$(dirname "$bin_abs")/roofbench
    if (cd "$dir" && timeout 600 mpirun "${run_as_root[@]}" -np 1 "$bin_abs" --size smoke \
            --filter '^(copy_vectorized|nccl_allreduce)$' --samples 10 --json mpi.json \
            > mpi.log 2>&1) &&
        (cd "$dir" && timeout 600 "$run_bin" run --filter '^(copy_vectorized|nccl_allreduce)$' \
            --size smoke --samples 10 --expect none --json run.json > run.log 2>&1) &&
        python3 - "$dir/mpi.json" "$dir/run.json" <<'PY'
import json, sys
fleet, run = (json.load(open(f)) for f in sys.argv[1:3])
mpi = fleet["gpus"][0]["run"]
def paths(v, at=""):
    if isinstance(v, dict):
        return set().union(*[paths(x, at + "/" + k) for k, x in v.items()] or [{at}])
    if isinstance(v, list):
        return set().union(*[paths(x, at + "[]") for x in v] or [{at}])
    return {at}
# environment holds what the machine reports (NVML readings may differ between two reads)
strip = lambda ps: {p for p in ps if not p.startswith("/environment/")}
extra, missing = strip(paths(mpi)) - strip(paths(run)), strip(paths(run)) - strip(paths(mpi))
row = lambda p: (p["name"], p["status"], [(v["name"], v["verdict"], v["valid"], v["skipped"])
                                          for v in p["variants"]])
rows = [row(p) for p in mpi["pairs"] + fleet["collectives"]]
medians = {(p["name"], v["name"]): v["time_ms"]["median"] for p in fleet["collectives"]
           for v in p["variants"] if v.get("timed")}
own = {(s["row"], s["variant"]): s["ranks_ms"][0] for s in fleet["slowest_rank"]}
ok = (not extra and not missing and rows == [row(p) for p in run["pairs"]] and
      mpi["tool"] == "roofbench_mpi" and fleet["kind"] == "fleet" and medians and
      own.keys() == medians.keys() and all(abs(own[k] - medians[k]) <= 1e-9 * medians[k]
                                          for k in medians))
if not ok:
    print("extra", sorted(extra), "missing", sorted(missing))
    print("mpi", rows); print("run", [row(p) for p in run["pairs"]])
    print("own", own); print("medians", medians)
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
    # every rank says so, once
    for n in 2 4; do
        expect no_gpu_exit_3_ranks_$n $n 3 "rank $((n - 1)): no usable CUDA device: no NVIDIA" \
            --size smoke
        said=$(grep -c '^roofbench_mpi: rank [0-9]*: no usable CUDA device' <<< "$out")
        ok=0
        [ "$said" = "$n" ] && ok=1
        result no_gpu_every_rank_says_so_$n "$ok" "$said lines of $n:
$out"
    done
    # nothing was written
    empty=0
    [ -z "$(ls -A "$dir")" ] && empty=1
    result no_gpu_writes_nothing "$empty" "$(ls -A "$dir")"
fi

# ---- the gather, with synthetic runs ----
# rank<r>.json: a few pairs of a committed H100 run (one collective among them), each rank's a
# little apart; the slow rank's times and rates 20% worse and its platform DRAM roof as well (a
# GPU sharing its memory bandwidth with another process). MODE host: the host transfers too, and
# the slow rank's informational rows alone (the pageable copies, whose time the host sets) twice
# as slow: their thresholds come from their recorded run-to-run spread, which the host sets too
# (52% and 70% in the H100 file: a 20% slowdown is inside them).
make_runs() { # make_runs DIR SLOW_RANK|-1 RANKS [MODE]
    python3 - "$1" "$2" "$3" "$root/results/nvidia-h100-80gb-hbm3/reference.json" "${4:-gpu}" <<'PY'
import copy, json, sys
out, slow, ranks, src = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.load(open(sys.argv[4]))
host = sys.argv[5] == "host"
keep = {"copy_vectorized", "reduction", "softmax", "transpose", "nccl_allreduce.allreduce@1G"}
if host:
    keep |= {"host_transfer.h2d", "host_transfer.d2h"}
src["pairs"] = [p for p in src["pairs"] if p["name"] in keep]
def scale(doc, s, only_host_bound=False):
    for v in (v for p in doc["pairs"] for v in p["variants"]):
        if only_host_bound and not v.get("informational"):
            continue
        for k, x in (v.get("time_ms") or {}).items():
            if k not in ("noise", "samples", "launches_per_sample") and isinstance(x, float):
                v["time_ms"][k] = x * s
        for obj, keys in ((v, ("rate",)), (v.get("extras") or {}, ("algbw_gbps", "busbw_gbps")),
                          (v.get("vs_ceiling") or {}, ("gbps", "tflops", "efficiency")),
                          (v.get("vs_peak") or {}, ("gbps", "tflops", "efficiency"))):
            for k in keys:
                if isinstance(obj.get(k), float):
                    obj[k] /= s
for r in range(ranks):
    d = copy.deepcopy(src)
    s = 1 + 0.002 * r
    scale(d, s)
    d["platform"]["dram_gbps"] /= s
    if r == slow:
        scale(d, (2.0 if host else 1.2) / s, host)
        if not host:
            d["platform"]["dram_gbps"] *= s / 1.2
    json.dump(d, open(f"{out}/rank{r}.json", "w"))
PY
}

# check_fleet NAME FILE RANKS HOSTS SLOW_RANK|-1: the fleet file's shape and verdicts.
check_fleet() {
    local check
    check=$(python3 - "$2" "$3" "$4" "$5" <<'PY' 2>&1
import json, sys
f, ranks, hosts, slow = json.load(open(sys.argv[1])), *map(int, sys.argv[2:5])
bad = []
want = lambda ok, what: ok or bad.append(what)
want(f.get("tool") == "roofbench_mpi" and f.get("kind") == "fleet", "tool/kind")
gpus = f.get("gpus", [])
want(len(gpus) == ranks and [g.get("rank") for g in gpus] == list(range(ranks)), "gpus by rank")
want(len({g.get("host") for g in gpus}) == hosts and f.get("hosts") == hosts, "hosts")
want(len({g.get("uuid") for g in gpus}) == ranks, "a UUID per GPU")
want(all(g.get("run", {}).get("pairs") for g in gpus), "each GPU's run")
want(all(not p["name"].startswith("nccl_allreduce") for g in gpus for p in g["run"]["pairs"]),
     "collectives out of the GPUs' runs")
want([p["name"] for p in f.get("collectives", [])] == ["nccl_allreduce.allreduce@1G"], "collectives")
sr = f.get("slowest_rank", [])
want(len(sr) >= 2 and all(len(e.get("ranks_ms", [])) == ranks for e in sr), "slowest_rank entries")
if slow >= 0:
    want(all(e.get("rank") == slow and e.get("host") == gpus[slow]["host"] for e in sr),
         f"slowest rank {slow}")
flagged = {(o.get("host"), o.get("device_index")) for o in f.get("outliers", [])}
expect = {(gpus[slow]["host"], gpus[slow]["device_index"])} if slow >= 0 else set()
want(flagged == expect, f"flagged {sorted(flagged)}, want {sorted(expect)}")
want(all(o.get("attribution") == "platform" for o in f.get("outliers", [])), "attribution")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
    )
    result "$1" $(($? == 0)) "$check"
}

# fleet NAME RANKS HOSTS_LIST SLOW_RANK: a synthetic fleet run and its file checked.
fleet() {
    local name=$1 n=$2 hosts=$3 slow=$4 d="$dir/$1"
    # the expectation file a fleet of fewer than 3 GPUs is judged against, found from the folder
    mkdir -p "$d/expectations"
    cp "$root/expectations/nvidia-h100-80gb-hbm3.json" "$d/expectations/"
    make_runs "$d" "$slow" "$n"
    out=$(cd "$d" && RB_HOST_NAME_BY_RANK=$hosts RB_TEST_SYNTHETIC_RUN="$d/rank%r.json" \
        timeout 60 mpirun "${run_as_root[@]}" --oversubscribe -np "$n" "$bin_abs" \
        --json "$d/fleet.json" 2>&1)
    local rc=$? want=0
    [ "$slow" -ge 0 ] && want=1
    result "${name}_exit_$want" $((rc == want)) "exit $rc, output:
$out"
    if [ -f "$d/fleet.json" ] && [ -f "$d/fleet.md" ]; then
        check_fleet "${name}_file" "$d/fleet.json" "$n" "$(tr , '\n' <<< "$hosts" | sort -u | wc -l)" \
            "$slow"
    else
        result "${name}_file" 0 "no fleet.json and fleet.md: $out"
    fi
}
# host_bound_fleet NAME WANT_EXIT [ARGS...]: 4 ranks, rank 2's pageable copies alone 20% slower:
# the fleet file records their outliers as informational, on rank 2 only; they flag no GPU
# (exit 0, "host-bound" lines) unless --gate all (exit 1, "outlier" lines).
host_bound_fleet() {
    local name=$1 want=$2 d="$dir/$1"
    shift 2
    mkdir -p "$d/expectations"
    cp "$root/expectations/nvidia-h100-80gb-hbm3.json" "$d/expectations/"
    make_runs "$d" 2 4 host
    out=$(cd "$d" && RB_HOST_NAME_BY_RANK=a,a,b,b RB_TEST_SYNTHETIC_RUN="$d/rank%r.json" \
        timeout 60 mpirun "${run_as_root[@]}" --oversubscribe -np 4 "$bin_abs" \
        --json "$d/fleet.json" "$@" 2>&1)
    local rc=$? line='^host-bound b:0 host_transfer'
    [ "$want" = 1 ] && line='^outlier b:0 host_transfer'
    result "${name}_exit_$want" $((rc == want)) "exit $rc, output:
$out"
    local check
    check=$(python3 - "$d/fleet.json" "$want" <<'PY' 2>&1
import json, sys
f, want = json.load(open(sys.argv[1])), int(sys.argv[2])
o = f.get("outliers", [])
ok = (o and all(x.get("informational") and x.get("rank") == 2 and
                x.get("row", "").startswith("host_transfer.") for x in o) and
      f.get("gate") == ("all" if want else "gating"))
print("" if ok else f"gate {f.get('gate')}, outliers {[(x.get('rank'), x.get('row'), x.get('variant'), x.get('informational')) for x in o]}")
sys.exit(0 if ok else 1)
PY
    )
    result "${name}_file" $(($? == 0 && $(grep -cE "$line" <<< "$out") > 0)) "$check
$out"
}

if command -v python3 > /dev/null; then
    host_bound_fleet fleet_host_bound_rows_flag_no_gpu 0
    host_bound_fleet fleet_host_bound_rows_gate_all 1 --gate all
    fleet fleet_4_ranks_2_hosts_rank_3_slow 4 nodeA,nodeA,nodeB,nodeB 3
    fleet fleet_4_ranks_clean 4 nodeA,nodeA,nodeB,nodeB -1
    fleet fleet_2_ranks_rank_0_slow 2 n0,n1 0
    # a rank whose file is missing: every rank exits 2, no file
    RB_HOST_NAME_BY_RANK=a,a RB_TEST_SYNTHETIC_RUN="$dir/none%r.json" \
        expect synthetic_missing 2 2 'RB_TEST_SYNTHETIC_RUN: .*none0.json' --json "$dir/x.json"
else
    echo "  skipped fleet_*: no python3"
    skipped=$((skipped + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
