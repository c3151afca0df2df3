#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The charts and the report in a real browser: headless Chromium (Debian's
# chromium-headless-shell) opens the report of the fixture tests/plot/roofs.json and of committed
# H100, H200 and pre-roofs runs and of the 4-GPU H100 run, and tests/plot/overlap_check.js
# measures every text of every chart (one a regime with points) with the browser's own layout
# (getBBox and getCTM, not the writer's width estimate). Each report must have no two texts that
# overlap (labels, roof labels, ticks, legend), no text over a plotted point or outside its chart,
# no line (leader, roof, arrow) across a text, and one plotted point per variant that has a rate.
# First it shows that the check can fail: a copy of a report with two labels moved onto each
# other, one whose labels render larger than the layout assumed, and one with a roof line drawn
# through a label must each be refused.
# Screenshots are looked at for blankness; with --shots DIR those of the H100 reference run (its
# roofline chart, its compute-bound chart, the speedup chart, the report's table) and of the
# 4-GPU run (its collectives chart) are written to DIR, each chart whole.
# Prints "ok ..." or "FAIL ..." (exit 1), or "skipped ..." (exit 0) when run by hand on a
# machine without Chromium where it cannot be installed (not root). Under CI (CI=true) a Chromium
# that cannot be found or installed is a failure, never a skip.
# Usage: tests/browser_test.sh [ROOFBENCH_BINARY] [--shots DIR]  (default build/sm_90/roofbench)
set -uo pipefail
cd "$(dirname "$0")/.."
bin=build/sm_90/roofbench
shots=
while [ $# -gt 0 ]; do
    case $1 in
    --shots) shots=${2:?--shots needs a folder}; shift 2 ;;
    *) bin=$1; shift ;;
    esac
done
fixture=tests/plot/roofs.json
# the H100 and H200 reference runs (full runs with every pair), another full H100 run, and one
# from before the roofs were recorded
h100=results/nvidia-h100-80gb-hbm3/reference.json
h200=results/nvidia-h200/reference.json
record=results/nvidia-h100-80gb-hbm3/20261126T0443Z-b092044-record-and-same/record.json
old=results/nvidia-h100-80gb-hbm3/20261125T120618Z-7100242.json
# a 4-GPU node's collectives (bus bandwidth against size), and a 2-GPU H200 run's, from before
# the collectives recorded their size (placed by their work model's bytes)
x4=results/nvidia-h100-80gb-hbm3-x4/reference.json
h200x2=results/nvidia-h200-x2/reference.json

fail() {
    echo "FAIL browser test: $*"
    exit 1
}

find_chromium() {
    for c in chromium-headless-shell chromium; do
        if command -v "$c" > /dev/null; then
            command -v "$c"
            return 0
        fi
    done
    return 1
}

chromium=$(find_chromium)
if [ -z "$chromium" ]; then
    if [ "$(id -u)" = 0 ]; then
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            chromium-headless-shell fonts-dejavu-core; } > /tmp/rb-chromium-install.log 2>&1 ||
            fail "apt-get install chromium-headless-shell failed (/tmp/rb-chromium-install.log)"
        chromium=$(find_chromium) || fail "chromium-headless-shell installed but not on PATH"
    elif [ "${CI:-}" = true ]; then
        fail "no chromium-headless-shell, and not root to install it"
    else
        echo "skipped browser test: no chromium-headless-shell (apt-get install chromium-headless-shell as root)"
        exit 0
    fi
fi
[ -x "$bin" ] || fail "$bin not built"
command -v python3 > /dev/null || fail "python3 not found"

tmp=$(mktemp -d /tmp/rb-browser-XXXXXX)
[ -n "${RB_KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
flags=(--no-sandbox --disable-gpu --hide-scrollbars)

# check.html: the report with the check script run after it; prints the check's lines.
check() {
    python3 - "$1" "$tmp/check.html" tests/plot/overlap_check.js << 'PY' || return 1
import sys
page, out, script = sys.argv[1:4]
html = open(page, encoding="utf-8").read()
js = open(script, encoding="utf-8").read()
at = html.rindex("</body>")
open(out, "w", encoding="utf-8").write(html[:at] + "<script>\n" + js + "</script>\n" + html[at:])
PY
    timeout 120 "$chromium" "${flags[@]}" --window-size=1280,1000 --dump-dom \
        "file://$tmp/check.html" > "$tmp/dom.html" 2> "$tmp/chromium.log" ||
        { echo "--dump-dom: $(tail -n 3 "$tmp/chromium.log")"; return 1; }
    python3 - "$tmp/dom.html" << 'PY'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
found = re.findall(r'<pre id="rb-check">(.*?)</pre>', dom, re.S)
print(html.unescape(found[-1]) if found else "no check output")
PY
}

# report RESULTS NAME: the charts and report of a results file, in $tmp/NAME.*
report() {
    "$bin" plot "$1" -o "$tmp/$2.svg" --html "$tmp/$2.html" > "$tmp/plot.log" 2>&1 ||
        fail "roofbench plot $1: $(cat "$tmp/plot.log")"
}

# verify NAME EXPECTED_POINTS (empty: the rows with a rate): the check finds nothing wrong; its
# summary goes to $summary (not a subshell: fail must end the script).
verify() {
    out=$(check "$tmp/$1.html") || fail "$1: $out"
    summary=$(echo "$out" | head -n 1)
    case $summary in summary*) ;; *) fail "$1: the check did not run: $out" ;; esac
    bad=$(echo "$out" |
        grep -E '^(overlap|text over|outside|leader across|roof line across|line across)' |
        head -n 12)
    [ -z "$bad" ] || fail "$1: $summary
$bad"
    points=$(echo "$summary" | sed 's/.* points=\([0-9]*\).*/\1/')
    rated=$(echo "$summary" | sed 's/.* rated_rows=\([0-9]*\).*/\1/')
    want=${2:-$rated}
    [ "$points" -eq "$want" ] || fail "$1: $points points drawn, $want variants with a rate"
}

# Planted defects: the check must refuse them.
report "$fixture" fixture
python3 - "$tmp/fixture.html" "$tmp/moved.html" "$tmp/larger.html" "$tmp/struck.html" << 'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
# two point labels (11 px) of the roofline chart moved onto each other: the second takes the
# first one's place
labels = list(re.finditer(r'(?<=paint-order="stroke">\n)<text x="([-0-9.]+)" y="([-0-9.]+)" '
                          r'font-size="11.0"', page))
first, second = labels[0], labels[1]
moved = (page[:second.start()] + '<text x="%s" y="%s" font-size="11.0"' % first.groups() +
         page[second.end():])
open(sys.argv[2], "w", encoding="utf-8").write(moved)
# the labels rendered larger than the writer's estimate (a font wider than the layout assumed)
open(sys.argv[3], "w", encoding="utf-8").write(page.replace('font-size="11.0"', 'font-size="15.0"'))
# a roof line drawn through the first point label
x, y = (float(v) for v in first.groups())
struck = (page[:first.start()] + '<g class="roof">\n<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" '
          'stroke="#222222" stroke-width="1.8"/>\n</g>\n' % (x - 20, y - 4, x + 60, y - 4) +
          page[first.start():])
open(sys.argv[4], "w", encoding="utf-8").write(struck)
PY
for planted in moved larger struck; do
    out=$(check "$tmp/$planted.html") || fail "$planted: $out"
    want='^overlap'
    [ "$planted" = struck ] && want='^(roof line|line) across'
    echo "$out" | grep -Eq "$want" || fail "planted defect '$planted' not caught: $(echo "$out" | head -n 1)"
done

expected=$(grep -c '"role":' "$fixture")
verify fixture "$expected"
lines=("fixture: ${summary#summary }")
for name in h100 h200 record old x4 h200x2; do
    report "${!name}" "$name"
    verify "$name"
    lines+=("$name: ${summary#summary }")
done

# Screenshots: not blank (a white page compresses to a few kB; more than a handful of colours).
not_blank() {
    [ -s "$1" ] || fail "no screenshot $1"
    python3 - "$1" << 'PY' || fail "$1: blank screenshot"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, width, height, kind = 8, b"", 0, 0, 0
while pos < len(data):
    n, tag = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if tag == b"IHDR":
        width, height, depth, kind = struct.unpack(">IIBB", body[:10])
    elif tag == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
channels = {2: 3, 6: 4}.get(kind, 3)
stride = width * channels + 1
seen = set()
for row in range(0, height, 7):
    line = raw[row * stride + 1:(row + 1) * stride]
    for x in range(0, len(line), channels):
        seen.add(line[x:x + channels])
sys.exit(0 if len(data) > 20000 and len(seen) > 8 else 1)
PY
}

# crop SVG X Y W H OUT: a part of a chart, through a page that shows it shifted.
crop() {
    echo "<html><body style='margin:0'><div style='width:${4}px;height:${5}px;overflow:hidden'><img src='file://$1' style='display:block;margin:-${3}px 0 0 -${2}px'></div></body></html>" > "$tmp/crop.html"
    timeout 120 "$chromium" "${flags[@]}" --window-size="$4,$5" --screenshot="$6" \
        "file://$tmp/crop.html" > /dev/null 2>> "$tmp/chromium.log" || fail "--screenshot $6"
    not_blank "$6"
}

svg_size() { # the width and height of an SVG
    grep -o 'width="[0-9]*" height="[0-9]*"' "$1" | head -n 1 | tr -dc '0-9 ' | sed 's/  */ /g'
}

whole() { # SVG OUT: a chart whole
    [ -s "$1" ] || fail "no chart $1"
    read -r sw sh <<< "$(svg_size "$1")"
    crop "$1" 0 0 "$sw" "$sh" "$2"
}

# the report without its charts (they have their own pictures), its table sorted by verdict,
# the other way round (by two clicks on the header): the coloured verdicts and the sorting
python3 - "$tmp/h100.html" "$tmp/table.html" << 'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
at = page.rindex("</body>")
extra = ("<style>.chart, h2:not(#rb-table), ul.unplotted { display: none; }</style>\n<script>\n"
         "var th = Array.prototype.slice.call(document.querySelectorAll('table.rb th'))"
         ".filter(function (h) { return h.textContent === 'verdict'; })[0];\n"
         "th.click(); th.click();\n"
         "document.querySelector('p.counts').style.display = 'none';\n</script>\n")
open(sys.argv[2], "w", encoding="utf-8").write(page[:at] + extra + page[at:])
PY
timeout 120 "$chromium" "${flags[@]}" --window-size=1280,900 --screenshot="$tmp/report.png" \
    "file://$tmp/table.html" > /dev/null 2>> "$tmp/chromium.log" || fail "--screenshot"
not_blank "$tmp/report.png"
whole "$tmp/h100-speedup.svg" "$tmp/speedup.png"
whole "$tmp/h100.svg" "$tmp/roofline.png"
whole "$tmp/h100-compute.svg" "$tmp/gemm.png"
whole "$tmp/x4-collectives.svg" "$tmp/collectives.png"

# stamp PNG RUN OUT: the picture with the run it shows in a tEXt chunk ("roofbench-run": the
# run's path and its git revision), which tests/test_doc_images.c compares with the run's file.
stamp() {
    python3 - "$1" "$2" "$3" << 'PY' || fail "stamp $3"
import json, struct, sys, zlib
src, run, out = sys.argv[1:4]
data = open(src, "rb").read()
git = json.load(open(run, encoding="utf-8")).get("git", "?")
body = b"roofbench-run\0" + ("%s git %s" % (run, git)).encode()
text = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
ihdr_end = 8 + 12 + struct.unpack(">I", data[8:12])[0]
open(out, "wb").write(data[:ihdr_end] + text + data[ihdr_end:])
PY
}
if [ -n "$shots" ]; then
    mkdir -p "$shots"
    stamp "$tmp/roofline.png" "$h100" "$shots/roofline-h100.png"
    stamp "$tmp/gemm.png" "$h100" "$shots/roofline-gemm-h100.png"
    stamp "$tmp/speedup.png" "$h100" "$shots/speedup-h100.png"
    stamp "$tmp/report.png" "$h100" "$shots/report-h100.png"
    stamp "$tmp/collectives.png" "$x4" "$shots/collectives-h100-x4.png"
fi
echo "ok browser test: 3 planted defects caught; no overlap, no text over a point or outside its chart, no line across a text in ${#lines[@]} reports; screenshots not blank"
printf '  %s\n' "${lines[@]}"
