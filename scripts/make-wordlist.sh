#!/bin/bash
# Rebuilds wordlists/words-en.txt from the PyPI symspellpy wheel's
# frequency_dictionary_en_82_765.txt ("word count" per line, counts from Google
# Books n-grams). Kept as is apart from dropping lines that are not "word count".
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pip download -q --no-deps 'symspellpy==6.10.1' -d "$work"
python3 -m zipfile -e "$work"/symspellpy-6.10.1-py3-none-any.whl "$work/x"
src="$work/x/symspellpy/frequency_dictionary_en_82_765.txt"
LC_ALL=C awk 'NF == 2 && $2 ~ /^[0-9]+$/ { print $1, $2 }' "$src" > "$here/wordlists/words-en.txt"
cp "$work/x/symspellpy-6.10.1.dist-info/licenses/LICENSE" "$here/wordlists/LICENSE-symspellpy.txt"
wc -l "$here/wordlists/words-en.txt"
