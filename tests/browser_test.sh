#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTML report in a real browser: headless Chromium (Debian's chromium-headless-shell) opens
# the report of the fixture tests/plot/roofs.json. The DOM it built must hold one plotted point
# (an SVG element of class "pt") per variant of the fixture, and the report's own script, which
# counts them in the browser, must say the same; its screenshot must not be blank.
# Prints one line, "ok ..." or "FAIL ..." (exit 1), or "skipped ..." (exit 0) when run by hand
# on a machine without Chromium where it cannot be installed (not root). Under CI (CI=true) a
# Chromium that cannot be found or installed is a failure, never a skip.
# Usage: tests/browser_test.sh [ROOFBENCH_BINARY]   (default build/sm_90/roofbench)
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/sm_90/roofbench}
fixture=tests/plot/roofs.json

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
            chromium-headless-shell; } > /tmp/rb-chromium-install.log 2>&1 ||
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

tmp=$(mktemp -d /tmp/rb-browser-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp "$fixture" "$tmp/run.json"
"$bin" plot "$tmp/run.json" --html "$tmp/report.html" > "$tmp/plot.log" 2>&1 ||
    fail "roofbench plot: $(cat "$tmp/plot.log")"

# Each variant record of the fixture has exactly one "role".
expected=$(grep -c '"role":' "$fixture")
# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
flags=(--no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1800)
timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$tmp/report.html" \
    > "$tmp/dom.html" 2> "$tmp/chromium.log" || fail "--dump-dom: $(tail -n 3 "$tmp/chromium.log")"
in_dom=$(grep -o 'class="pt"' "$tmp/dom.html" | wc -l)
counted=$(grep -o '<p id="rb-points">[0-9]* points plotted' "$tmp/dom.html" | grep -o '[0-9][0-9]*')
[ "$in_dom" -eq "$expected" ] || fail "$in_dom points in the DOM, the fixture has $expected variants"
[ "${counted:-x}" = "$expected" ] ||
    fail "the report's script counted '${counted:-nothing}' points, the fixture has $expected variants"

timeout 120 "$chromium" "${flags[@]}" --screenshot="$tmp/shot.png" "file://$tmp/report.html" \
    > /dev/null 2>> "$tmp/chromium.log" || fail "--screenshot: $(tail -n 3 "$tmp/chromium.log")"
[ -s "$tmp/shot.png" ] || fail "no screenshot written"
# Not blank: a white page compresses to a few kB; the charts give well over 50 kB. And, decoded,
# the picture has more than a handful of distinct colours (python3's standard library).
bytes=$(wc -c < "$tmp/shot.png")
[ "$bytes" -gt 50000 ] || fail "the screenshot is $bytes bytes: blank?"
colours=$(python3 - "$tmp/shot.png" << 'PY'
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
# the filter bytes aside, sample every 7th row's bytes as pixels (filters keep runs of one colour)
seen = set()
for row in range(0, height, 7):
    line = raw[row * stride + 1:(row + 1) * stride]
    for x in range(0, len(line), channels):
        seen.add(line[x:x + channels])
print(len(seen))
PY
) || fail "could not read the screenshot back"
[ "$colours" -gt 8 ] || fail "the screenshot has $colours distinct colours: blank?"
echo "ok browser test: $in_dom points in the DOM (the fixture has $expected variants), screenshot $bytes bytes, $colours colours sampled"
