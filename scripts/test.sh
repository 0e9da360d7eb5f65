#!/usr/bin/env bash
# Runs every test: installs missing Debian packages, builds the binary the end-to-end tests drive, then
# runs the Swift test suites (unit, real-recording, loopback-socket, PocketSphinx, ALSA and tmux tests).
# Ends with one line `tests: N passed, N failed, N skipped` counted from Swift Testing's output, so a test
# skipped for a missing resource shows in CI; the exit status is swift test's.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build --product handsfree

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
swift test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

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
