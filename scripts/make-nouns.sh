#!/bin/bash
# Rebuilds wordlists/nouns-en.txt (the words that get a generated possessive, "mother's") from
# WordNet 3.0 as Debian's wordnet-base package ships it; see scripts/make-nouns.py for the rule.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download wordnet-base >/dev/null && dpkg -x wordnet-base_*.deb x)
python3 "$here/scripts/make-nouns.py" "$work/x/usr/share/wordnet" "$here/wordlists/words-en.txt" "$here/wordlists/nouns-en.txt"
