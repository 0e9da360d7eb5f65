#!/usr/bin/env bash
# Runs every test: installs missing Debian packages, builds the binary the end-to-end tests drive, then
# runs the Swift test suites (unit, real-recording, loopback-socket, PocketSphinx, ALSA and tmux tests).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build --product handsfree
swift test "$@"
