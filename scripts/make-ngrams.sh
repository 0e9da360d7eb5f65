#!/bin/bash
# Rebuilds wordlists/ngrams-en.txt from Debian's pocketsphinx-en-us model, with Google Books
# bigram counts (symspellpy's wheel) mixed into its bigrams.
# Needs: apt-get install pocketsphinx-en-us gcc python3-venv; PyPI pocketsphinx (5.x) in a venv.
# Why not sphinx_lm_convert: Debian's build aborts on an assertion while writing
# the bigrams as ARPA (see make-ngrams.py), so the PyPI bindings are used.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q 'pocketsphinx==5.1.1'

# A crash on the trigrams would lose stdio's buffered bigrams; flush them first.
cat > "$work/flush.c" <<'C'
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static void on_crash(int s) { fflush(NULL); _exit(128 + s); }
__attribute__((constructor)) static void init(void) { signal(SIGSEGV, on_crash); signal(SIGABRT, on_crash); }
C
cc -shared -fPIC -o "$work/flush.so" "$work/flush.c"
LD_PRELOAD="$work/flush.so" "$work/venv/bin/python" -c "
import pocketsphinx as p
m = p.NGramModel.readfile('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
m.write('$work/en-us.arpa', p.NGramModel.str_to_type('arpa'))
" || true   # expected to crash after the bigrams
grep -q '^\\2-grams:' "$work/en-us.arpa" || { echo "no bigrams in ARPA output" >&2; exit 1; }

# The unigram section feeds make-wordlist.sh (CMU unigram counts); keep it if asked.
if [ -n "${KEEP_ARPA:-}" ]; then cp "$work/en-us.arpa" "$KEEP_ARPA"; fi

# Google Books unigram and bigram counts from the symspellpy wheel (MIT), mixed into CMU's bigrams.
"$work/venv/bin/pip" download -q --no-deps 'symspellpy==6.10.1' -d "$work"
python3 -m zipfile -e "$work"/symspellpy-6.10.1-py3-none-any.whl "$work/sym"

"$work/venv/bin/python" "$here/scripts/make-ngrams.py" "$work/en-us.arpa" \
    "$here/wordlists/words-en.txt" "$here/wordlists/ngrams-en.txt" \
    "$work/sym/symspellpy/frequency_dictionary_en_82_765.txt" \
    "$work/sym/symspellpy/frequency_bigramdictionary_en_243_342.txt"
