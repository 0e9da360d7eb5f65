#!/bin/bash
# Rebuilds the word data of the language packs (languages/LL/words-LL.txt and ngrams-LL.txt) from the packages
# they come from (sources and licences: languages/README.md):
#   wordfreq 3.1.1 (PyPI wheel, its data CC BY-SA 4.0): word frequencies
#   Debian's hunspell-es, hunspell-fr-classical, hunspell-de-de, hunspell-it, hunspell-pt-br, hunspell-nl: spellings and capitals
#   (German through hunspell-tools' unmunch, so inflected nouns keep their capital too)
#   Debian's dasher-data: the training text each language's bigrams and trigrams are counted in
#   Debian's libpresage-data: presage's Spanish n-gram counts (of Don Quijote), added to Dasher's for Spanish
# Usage: scripts/make-language-words.sh [LL…]   (default: es fr de it pt nl)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
langs=("$@")
[[ ${#langs[@]} -gt 0 ]] || langs=(es fr de it pt nl)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 -m pip download --quiet --no-deps --only-binary :all: -d . wordfreq==3.1.1 \
    || { echo "make-language-words: pip download wordfreq==3.1.1 failed (no PyPI?)" >&2; exit 1; }
python3 -m zipfile -e wordfreq-3.1.1-py3-none-any.whl wheel
apt-get download dasher-data hunspell-es hunspell-fr-classical hunspell-de-de hunspell-it hunspell-pt-br hunspell-nl libpresage-data \
        hunspell-tools libhunspell-1.7-0 >/dev/null 2>&1 \
    || { echo "make-language-words: apt-get download of the dictionaries and dasher-data failed (no package source?)" >&2; exit 1; }
for d in *.deb; do dpkg -x "$d" x; done
h=x/usr/share/hunspell
dasher=x/usr/share/dasher
# German: the dictionary's words that stand alone (not flagged as only inside compounds, o, or needing an
# affix, h), with every inflected form, so "Straßen" is known as a noun as "Straße" is.
awk 'NR==1 || !/\/[^ \t]*[oh]/' "$h/de_DE.dic" > de-standalone.dic
LD_LIBRARY_PATH="$work/x/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" x/usr/bin/unmunch de-standalone.dic "$h/de_DE.aff" > de-forms.txt 2>/dev/null
make() {
    local l=$1; shift
    python3 "$here/scripts/make-language-words.py" --language "$l" --wordfreq "wheel/wordfreq/data/large_$l.msgpack.gz" \
        --out-words "$here/languages/$l/words-$l.txt" --out-ngrams "$here/languages/$l/ngrams-$l.txt" "$@"
}
for l in "${langs[@]}"; do
    case $l in
        # Spanish: Dasher's text and presage's counts of Don Quijote (KSR 38.5% with Dasher's alone, 40.4% with both);
        # Italian's presage counts (L'innocente) lowered its KSR (40.1% to 39.9%), so they are not used.
        es) make es --hunspell "$h/es_ES.dic" --text "$dasher/training_spanish_ES.txt" --presage x/usr/share/presage/database_es.db ;;
        fr) make fr --hunspell "$h/fr.dic" --text "$dasher/training_french_FR.txt" \
                --elisions "l',d',j',m',n',s',t',c',qu',jusqu',lorsqu',puisqu',quoiqu'" ;;
        de) make de --hunspell de-forms.txt --text "$dasher/training_german_DE.txt" --compounds ;;
        it) make it --hunspell "$h/it_IT.dic" --text "$dasher/training_italian_IT.txt" --keep un \
                --elisions "l',dell',all',dall',nell',sull',coll',un',quest',quell',d',c',m',t',s',v',anch',com',dov',cos',nient',tutt',bell',sant',senz'" ;;
        pt) make pt --hunspell "$h/pt_BR.dic" --text "$dasher/training_portuguese_BR.txt" ;;
        # The sixth language, made to show that one is data only.
        # Dutch: libhunspell says which words are lowercase ("grote", "bent"), as nl.dic's stems alone capitalised
        # them after the names they share (unmunch cannot expand its FLAG long affixes).
        nl) LD_LIBRARY_PATH="$work/x/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" \
              make nl --hunspell "$h/nl.dic" --hunspell-aff "$h/nl.aff" --text "$dasher/training_dutch_NL.txt" ;;
        *) echo "make-language-words: no recipe for '$l' (known: es fr de it pt nl)" >&2; exit 2 ;;
    esac
done
