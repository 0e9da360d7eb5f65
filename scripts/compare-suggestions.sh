#!/usr/bin/env bash
# Checks that two builds of handsfree suggest exactly the same words: every prefix of every word of English's
# everyday phrases and `bench predict`'s sentences, of each language pack's test text (its first sentences), and
# odd inputs (capitals, apostrophes, elisions, accents, digits), through `handsfree predict --stdin -n 8`, without
# and with learning as it goes (the user's words, pairs and phrases, then scored beside the listed ones).
# For a change meant to make prediction faster, not different:
#   scripts/compare-suggestions.sh OLD/handsfree NEW/handsfree
# N (default 8) is the number of suggestions asked for; the rankings kept for the busiest contexts (`BestLists`) serve
# three or fewer, so a change to them is checked with N=3 and N=1 as well.
set -euo pipefail
old=${1:?usage: compare-suggestions.sh OLD_HANDSFREE NEW_HANDSFREE [LANGUAGES]}
new=${2:?usage: compare-suggestions.sh OLD_HANDSFREE NEW_HANDSFREE [LANGUAGES]}
langs=${3:-en es fr de it pt nl}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every prefix of every word of each line (as typed: the words so far, then the letters of the next one).
prefixes() {
    python3 -c '
import sys
for line in sys.stdin:
    words = line.split()
    typed = ""
    for w in words:
        for k in range(len(w) + 1):
            print(typed + w[:k])
        typed += w + " "
    print(typed)
'
}

# The first sentences of a pack's test text (as `bench language` picks them: 6 to 15 words), up to 60.
test_sentences() {
    python3 - "$1" <<'PY'
import gzip, re, sys
path = sys.argv[1]
raw = (gzip.open if path.endswith(".gz") else open)(path, "rb").read(60000)
n = 0
for s in re.split(r"[\n.?!]", raw.decode("utf-8", "ignore")):
    w = s.split()
    if 6 <= len(w) <= 15 and all(re.fullmatch(r"[\w'’-]+", x) for x in w):
        print(" ".join(w)); n += 1
        if n == 60: break
PY
}

odd() {
    cat <<'ODD'
I
I w
The d
THE QU
McD
said H
said Em
emma'
emma's
mother'
don't kn
l'h
L'
qu'est-ce
jusqu'au
cancion
canción
strasse
Straße
über
À
123
it's 5 o'cl
a c
a
the
, and
Hello. how
Mr. Kn
"quoted wo
x
zz
qqqq
ODD
}

status=0
for lang in $langs; do
    inputs="$work/inputs-$lang.txt"
    if [ "$lang" = en ]; then
        grep -v '^#' "$here/wordlists/phrases-en.txt" | prefixes > "$inputs"
        printf '%s\n' "I would like a cup of tea with milk please" "Can you open the window in the living room" \
            "The doctor said that my breathing is much better today" "Please call my daughter and tell her I am fine" \
            "What time does the television programme start tonight" | prefixes >> "$inputs"
    else
        : > "$inputs"
    fi
    file=$(sed -n 's/^file = "\(.*\)"/\1/p' "$here/languages/$lang/pack.toml" | head -1)
    [ -z "$file" ] && file=$(sed -n 's/^files = \["\([^"]*\)".*/\1/p' "$here/languages/$lang/pack.toml" | head -1)
    if [ -n "$file" ] && [ -r "$file" ]; then test_sentences "$file" | prefixes >> "$inputs"; else echo "$lang: no test text ($file), phrases and odd inputs only"; fi
    odd >> "$inputs"
    for mode in plain learn; do
        args=(predict --stdin -n "${N:-8}" --language "$lang")
        if [ $mode = learn ]; then args+=(--learn --user-file "$work/user-$lang-old.txt"); else args+=(--user-file none); fi
        "$old" "${args[@]}" < "$inputs" > "$work/old-$lang-$mode.txt"
        if [ $mode = learn ]; then args[${#args[@]}-1]="$work/user-$lang-new.txt"; fi
        "$new" "${args[@]}" < "$inputs" > "$work/new-$lang-$mode.txt"
        if cmp -s "$work/old-$lang-$mode.txt" "$work/new-$lang-$mode.txt"; then
            echo "$lang $mode: same suggestions for $(wc -l < "$inputs") inputs"
        else
            echo "$lang $mode: DIFFERENT suggestions:"
            paste -d '|' "$inputs" "$work/old-$lang-$mode.txt" "$work/new-$lang-$mode.txt" | awk -F'|' '$2 != $3' | head -20
            status=1
        fi
    done
done
exit $status
