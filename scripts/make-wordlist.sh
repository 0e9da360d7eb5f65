#!/bin/bash
# Rebuilds wordlists/words-en.txt from the PyPI symspellpy wheel's
# frequency_dictionary_en_82_765.txt ("word count" per line, counts from Google
# Books n-grams) plus common contractions, then replaces the counts with CMU's
# unigram probabilities (scripts/mix-cmu-unigrams.py).
# Usage: KEEP_ARPA=/tmp/en-us.arpa scripts/make-ngrams.sh; scripts/make-wordlist.sh /tmp/en-us.arpa
set -euo pipefail
arpa="${1:?usage: make-wordlist.sh EN_US_ARPA (from KEEP_ARPA=... make-ngrams.sh)}"
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pip download -q --no-deps 'symspellpy==6.10.1' -d "$work"
python3 -m zipfile -e "$work"/symspellpy-6.10.1-py3-none-any.whl "$work/x"
src="$work/x/symspellpy/frequency_dictionary_en_82_765.txt"
LC_ALL=C awk 'NF == 2 && $2 ~ /^[0-9]+$/ { print $1, $2 }' "$src" > "$work/base.txt"
# Contractions (symspell has none), with a flat count; CMU's unigrams replace it below.
for w in "won't" "don't" "couldn't" "shouldn't" "wouldn't" "needn't" "mustn't" "she'll" "we'll" "he'll" "they'll" \
    "i'll" "i'm" "aren't" "could've" "didn't" "doesn't" "hadn't" "hasn't" "haven't" "he'd" "he's" "here's" "how'd" \
    "how'll" "how're" "i'd" "i've" "isn't" "it'd" "it'll" "it's" "let's" "might've" "o'clock" "she'd" "she's" \
    "should've" "somebody's" "someone's" "something's" "that's" "there's" "they'd" "they're" "they've" "wasn't" \
    "we'd" "we're" "we've" "weren't" "what's" "where's" "who'd" "who'll" "who're" "who's" "why'd" "why're" "why's" \
    "you'd" "you'll" "you're" "you've" covid hi; do echo "$w 300000"; done >> "$work/base.txt"
python3 "$here/scripts/mix-cmu-unigrams.py" "$work/base.txt" "$arpa" "$here/wordlists/words-en.txt"
cp "$work/x/symspellpy-6.10.1.dist-info/licenses/LICENSE" "$here/wordlists/LICENSE-symspellpy.txt"
wc -l "$here/wordlists/words-en.txt"
