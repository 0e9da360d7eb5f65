#!/usr/bin/env bash
# Runs every test: installs missing Debian packages, builds the binary the end-to-end tests drive, then
# runs the Swift test suites (unit, real-recording, loopback-socket, PocketSphinx, ALSA and tmux tests).
# Ends with one line `tests: N passed, N failed, N skipped` counted from Swift Testing's xUnit results (from
# its console output if there are none), so a test skipped for a missing resource shows in CI; the exit
# status is swift test's.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build --product handsfree

log=$(mktemp)
results=$(mktemp -d)
trap 'rm -rf "$log" "$results"' EXIT
set +e
# Results are counted from the xUnit file Swift Testing writes (RESULTS-swift-testing.xml): in some runs the
# console lost the result lines of a batch of tests that were reported together, while the run itself passed.
swift test --xunit-output "$results/results.xml" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
xml="$results/results-swift-testing.xml"
if [[ -s "$xml" ]] && counts=$(python3 - "$xml" <<'PY'
import sys, xml.etree.ElementTree as ET
# One <testcase> per test function (a parameterised one once, as in Swift Testing's own total); a skipped one
# holds <skipped>, a failed one at least one <failure>.
p = f = s = 0
for c in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if c.find("skipped") is not None: s += 1
    elif c.find("failure") is not None or c.find("error") is not None: f += 1
    else: p += 1
print(p, f, s)
PY
); then
    read -r passed failed skipped <<<"$counts"
    echo "tests: $passed passed, $failed failed, $skipped skipped"
    exit "$status"
fi

# Swift Testing prints one line per test function (a parameterised one counts once, as in its own total):
#   ✔ Test name() passed after …   ✘ Test name() failed after …   ➜ Test name() skipped: "reason"
# Colour codes are dropped first; "Test run …" is the total, not a test.
plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
count() { grep -cE "$1" <<<"$plain" || true; }
passed=$(grep -E '^✔ Test .* passed after ' <<<"$plain" | grep -cv '^✔ Test run with ' || true)
failed=$(grep -E '^✘ Test .* failed after ' <<<"$plain" | grep -cv '^✘ Test run with ' || true)
skipped=$(count '^➜ Test .* skipped')
total=$(sed -nE 's/^.* Test run with ([0-9]+) tests? .*/\1/p' <<<"$plain" | tail -1)
if [[ -n "$total" && "$total" -ne $((passed + failed + skipped)) ]]; then
    echo "warning: Swift Testing ran $total tests but $((passed + failed + skipped)) results were counted" >&2
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
