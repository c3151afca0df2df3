#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""usage: scripts/agree.py RUN1.json RUN2.json [--within 0.02]

Do two runs of the same build agree? For every variant timed in both results files: the ratio
of the medians, flagged when it is off by more than --within (default 2%). Variants that run at a
power cap (tensor-core units: tf32, bf16, fp16, fp8) drift with the board's clock and temperature
and are listed apart. A diagnostic for the rule that two back-to-back runs agree within 2% (the
harness's own `compare` is the tool for users); standard library only. Where both runs recorded
the 95% confidence interval of each median (median_ci_lo/hi), a flagged variant says whether the
intervals overlap ("within sampling": more samples would narrow the gap) or not
("shifted": each run knew its median, and the machine or process state moved between them).

    scripts/agree.py RUN1.json RUN2.json [--within 0.02]
Exit 0 when every variant that is not power-capped agrees, 1 otherwise."""
import json
import sys

POWER_CAPPED_UNITS = {"tf32", "bf16", "fp16", "fp8"}


def medians(path):
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for pair in doc.get("pairs", []):
        for v in pair.get("variants", []):
            t = v.get("time_ms") or {}
            if v.get("timed") and v.get("valid") and t.get("median"):
                ci = (t.get("median_ci_lo"), t.get("median_ci_hi"))
                out[(pair["name"], v["name"])] = (t["median"], t.get("noise"), v.get("unit", ""), ci)
    return doc, out


def pop_option(argv, name, default):
    """The float after `name` in argv (both removed), or default."""
    if name not in argv:
        return default
    i = argv.index(name)
    value = float(argv[i + 1])
    del argv[i:i + 2]
    return value


def main(argv):
    if "-h" in argv[1:] or "--help" in argv[1:]:
        print(__doc__)
        return 0
    within = pop_option(argv, "--within", 0.02)
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    doc1, a = medians(argv[1])
    doc2, b = medians(argv[2])
    print(f"{argv[1]} (git {doc1.get('git')}) vs {argv[2]} (git {doc2.get('git')}), within {within:.1%}")
    worst, bad, capped = 0.0, [], []
    for key in sorted(set(a) & set(b)):
        m1, n1, unit, ci1 = a[key]
        m2, n2, _, ci2 = b[key]
        r = m2 / m1
        line = f"  {key[0]:34s} {key[1]:18s} {m1:11.4f} {m2:11.4f} ms  x{r:.4f}  noise {n1:.3f}/{n2:.3f}"
        if None not in ci1 + ci2:
            overlap = ci1[0] <= ci2[1] and ci2[0] <= ci1[1]
            line += f"  95% of median +-{(ci1[1] - ci1[0]) / 2 / m1:.2%}/+-{(ci2[1] - ci2[0]) / 2 / m2:.2%}"
            line += " (within sampling)" if overlap else " (shifted)"
        if unit in POWER_CAPPED_UNITS:
            capped.append(line + f"  ({unit}, power-capped)")
            continue
        worst = max(worst, abs(r - 1))
        if abs(r - 1) > within:
            bad.append(line)
    only = sorted(set(a) ^ set(b))
    print(f"{len(set(a) & set(b))} variants in both; largest change of those not power-capped: {worst:.2%}")
    for line in bad:
        print("OFF " + line)
    for line in capped:
        print("CAP " + line)
    for key in only:
        print(f"  only in one run: {key[0]} {key[1]}")
    print(f"{len(bad)} variants off by more than {within:.0%} (not counting {len(capped)} power-capped)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
