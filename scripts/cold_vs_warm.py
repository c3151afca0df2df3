#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""usage: scripts/cold_vs_warm.py COLD.json WARM.json [--floor 0.01]

Is a --cold run's rate at or above the warm run's, less noise? For every variant timed in both
results files (same build, same GPU): cold median / warm median, flagged when the cold time is
longer by more than the noise, taken as the sum of the two medians' 95% half-intervals
(median_ci_lo/hi) and at least --floor (default 1%, the harness's noise target). --cold flushes
L2 by reading a buffer twice its size before each timed launch, which leaves clean lines: a
memory-bound kernel that streams more than L2 then pays nothing for the flush, so its cold rate
should be its warm rate. A cold rate well below the warm one means the flush costs the timed
kernel something (write-backs), or the warm launches found part of their input in L2.

    scripts/cold_vs_warm.py COLD.json WARM.json [--floor 0.01]
Exit 0 when no variant is flagged, 1 otherwise."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agree import medians, pop_option  # noqa: E402  (the same reading of a results file)


def half_width(median, ci):
    lo, hi = ci
    return (hi - lo) / 2 / median if lo is not None and hi is not None else 0.0


def main(argv):
    if "-h" in argv[1:] or "--help" in argv[1:]:
        print(__doc__)
        return 0
    floor = pop_option(argv, "--floor", 0.01)
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    cold_doc, cold = medians(argv[1])
    warm_doc, warm = medians(argv[2])
    if not cold_doc.get("cold"):
        print(f"{argv[1]} is not a --cold run", file=sys.stderr)
        return 2
    print(f"cold {argv[1]} (git {cold_doc.get('git')}) vs warm {argv[2]} (git {warm_doc.get('git')})")
    print(f"  {'pair':20s} {'variant':12s} {'cold ms':>10s} {'warm ms':>10s}  cold/warm  allowed")
    flagged = 0
    for key in sorted(set(cold) & set(warm)):
        mc, _, _, cic = cold[key]
        mw, _, _, ciw = warm[key]
        allowed = max(floor, half_width(mc, cic) + half_width(mw, ciw))
        r = mc / mw
        bad = r > 1 + allowed
        flagged += bad
        print(f"  {key[0]:20s} {key[1]:12s} {mc:10.4f} {mw:10.4f}  x{r:.4f}  +{allowed:.2%}"
              f"{'  COLD SLOWER' if bad else ''}")
    n = len(set(cold) & set(warm))
    print(f"{n - flagged} of {n} variants: cold rate at or above the warm one less noise")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
