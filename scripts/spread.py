#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The spread of every variant's median over several runs of the same build (back-to-back
`make bench` runs, scripts/gpu_session.sh bench): for each run, its exit verdicts (gating and
informational apart, as the run's summary counts them); then the informational rows, each with
its spread (max - min) / median over the runs (what docs/ lists beside them), and the gating rows
whose spread is largest. Standard library only.

    scripts/spread.py RUN.json RUN.json... [--top N]
Exit 0 when no run has a gating regressed, improved or invalid verdict, 1 otherwise."""
import json
import statistics
import sys

BAD = {"regressed", "improved", "invalid"}


def load(path):
    with open(path) as f:
        return json.load(f)


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print("usage: " + __doc__.split("\n\n")[1].strip() + "\n\n" + __doc__)
        return 0
    top = 10
    if "--top" in argv:
        i = argv.index("--top")
        top = int(argv[i + 1])
        del argv[i:i + 2]
    paths = argv[1:]
    if len(paths) < 2:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    medians, informational, failing = {}, set(), 0
    for path in paths:
        counts = {"gating": {}, "informational": {}}
        for pair in load(path).get("pairs", []):
            for v in pair.get("variants", []):
                key = "%s/%s" % (pair["name"], v["name"])
                kind = "informational" if v.get("informational") else "gating"
                if kind == "informational":
                    informational.add(key)
                verdict = v.get("verdict", "-")
                counts[kind][verdict] = counts[kind].get(verdict, 0) + 1
                if kind == "gating" and verdict in BAD:
                    failing += 1
                    print("%s: %s %s" % (path, key, verdict))
                t = v.get("time_ms") or {}
                if v.get("timed") and v.get("valid") and t.get("median"):
                    medians.setdefault(key, []).append(t["median"])
        print("%s: gating %s; informational %s" % (
            path, ", ".join("%d %s" % (n, k) for k, n in sorted(counts["gating"].items())),
            ", ".join("%d %s" % (n, k) for k, n in sorted(counts["informational"].items()))
            or "none"))
    spread = {k: (max(m) - min(m)) / statistics.median(m) for k, m in medians.items() if len(m) > 1}
    print("informational rows over %d runs (spread = (max - min) / median):" % len(paths))
    for key in sorted(informational):
        m = medians.get(key, [])
        print("  %-48s %3d runs  spread %6.1f%%  median %.4g ms" % (
            key, len(m), 100 * spread.get(key, float("nan")),
            statistics.median(m) if m else float("nan")))
    print("the %d gating rows of largest spread:" % top)
    gating = sorted((k for k in spread if k not in informational), key=lambda k: -spread[k])
    for key in gating[:top]:
        print("  %-48s spread %6.1f%%" % (key, 100 * spread[key]))
    print("%d gating verdict(s) regressed, improved or invalid over %d runs" % (failing, len(paths)))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
