#!/usr/bin/env bash
# Creates the project's Python venv (.venv at the repo root) and installs the PyPI packages of each GROUP
# named, from python/requirements-GROUP.txt. Safe to run again. The Swift binary and tests find the venv at
# .venv/bin/python.
#
#   scripts/python-env.sh test        python-osc, the real VMC sender the tests use
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/python-env.sh GROUP… (groups: $(ls python/requirements-*.txt | sed 's/.*requirements-//; s/\.txt//' | tr '\n' ' '))" >&2; exit 2; }
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv || { echo "python-env: cannot create .venv: install python3-venv (scripts/install-deps.sh does)" >&2; exit 1; }
fi
for g in "$@"; do
  req="python/requirements-$g.txt"
  [ -f "$req" ] || { echo "python-env: no $req" >&2; exit 1; }
  .venv/bin/pip install -q --disable-pip-version-check -r "$req"
  echo "python-env: installed $req into .venv"
done
