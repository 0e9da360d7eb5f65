#!/bin/bash
# Writes phrase sets for `handsfree bench typing --phrases` from texts nobody here wrote, to check that the
# shipped phrase set (wordlists/phrases-en.txt, written for the project) does not flatter the figures:
#
#   dasher-phrases.txt      40 sentences of Dasher's English training text (Debian's dasher-data, GPL:
#                           used here, never shipped), modern mixed English: news, sayings, dialogue
#   persuasion-phrases.txt  40 sentences of Jane Austen's Persuasion (1818, public domain, from Debian's
#                           r-cran-janeaustenr), 19th-century prose full of names
#
# Sentences of 5-12 words, lowercased, ";:" as commas and "!" as "."; those with other characters are left
# out. Dasher's are taken evenly spaced through the file, Persuasion's from its start.
# Usage: scripts/other-phrases.sh [OUT_DIR]   (default: a new temporary folder; its path is printed)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download dasher-data r-cran-janeaustenr >/dev/null 2>&1 \
    || { echo "other-phrases: apt-get download dasher-data r-cran-janeaustenr failed (no package source?)" >&2; exit 1; }
for d in *.deb; do dpkg -x "$d" x; done
python3 "$here/scripts/extract-austen.py" x/usr/lib/R/site-library/janeaustenr Persuasion > persuasion.txt
python3 - "$out" x/usr/share/dasher/training_english_GB.txt persuasion.txt <<'PY'
import re, sys
out, dasher, persuasion = sys.argv[1:4]

def sentences(text, by_line):
    chunks = text.split('\n') if by_line else [re.sub(r'\s+', ' ', text)]
    for chunk in chunks:
        for s in re.split(r'(?<=[.?!])\s+', chunk):
            s = s.lower().replace(';', ',').replace(':', ',').replace('!', '.').replace('"', '').replace('_', '')
            s = re.sub(r'\s*-+\s*', ' ', s)
            s = re.sub(r'\s+', ' ', s).strip()
            if re.fullmatch(r"[a-z',.? ]+", s) and 5 <= len(s.split()) <= 12:
                yield s

d = list(sentences(open(dasher, encoding='utf-8', errors='replace').read(), True))
step = len(d) // 40
picked = [d[i * step + step // 2] for i in range(40)]
open(f'{out}/dasher-phrases.txt', 'w').write('\n'.join(picked) + '\n')
p = list(sentences(open(persuasion, encoding='utf-8').read(), False))[:40]
open(f'{out}/persuasion-phrases.txt', 'w').write('\n'.join(p) + '\n')
PY
echo "$out"
