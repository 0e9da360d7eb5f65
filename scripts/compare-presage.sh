#!/bin/bash
# Prints keystroke savings of `handsfree ksr` and Debian's presage_simulator side by side,
# on the same public-domain text, for N = 3 and N = 5 suggestions.
#
# Text: Jane Austen, "Persuasion" (1818, public domain), the first $LINES lines (default 1000,
# chapters 1-4, about 10,000 words), as shipped in Debian's r-cran-janeaustenr package. The
# predictor's weights were tuned on "Emma" from the same package, never on this text.
#
# Needs: presage (Debian), a built handsfree (swift build -c release --product handsfree).
# Presage runs with its stock /etc/presage.xml (its n-gram database plus online learning into a
# fresh, empty user database), SUGGESTIONS set to N, and -i (case-insensitive matching, as ours).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
lines="${LINES_OF_TEXT:-1000}"
bin="${HANDSFREE:-$here/.build/release/handsfree}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

pkg=/usr/lib/R/site-library/janeaustenr
if [ ! -d "$pkg" ]; then
    (cd "$work" && apt-get download r-cran-janeaustenr >/dev/null 2>&1 && dpkg -x r-cran-janeaustenr_*.deb deb)
    pkg="$work/deb/usr/lib/R/site-library/janeaustenr"
fi
python3 "$here/scripts/extract-austen.py" "$pkg" Persuasion | head -n "$lines" > "$work/text.txt"
echo "text: Persuasion, first $lines lines, $(wc -w < "$work/text.txt") words"

for n in 3 5; do
    sed "s#<SUGGESTIONS>[0-9]*</SUGGESTIONS>#<SUGGESTIONS>$n</SUGGESTIONS>#" /etc/presage.xml > "$work/presage$n.xml"
    mkdir -p "$work/home$n"
    ours=$("$bin" ksr "$work/text.txt" -n "$n" --learn | awk '/^KSR:/ {k=$2} /^kn:/ {kn=$2} END {print kn, k}')
    ours_kn="${ours%% *}"; ours="${ours#* }"
    presage=$(HOME="$work/home$n" presage_simulator -i -q -c "$work/presage$n.xml" "$work/text.txt" | awk '/^KSR:/ {print $2} /^kn :/ {print $3}' | paste -sd' ')
    printf 'N=%d  handsfree KSR %s (kn %s)   presage KSR %s (kn %s)\n' "$n" "$ours" "$ours_kn" "${presage#* }" "${presage%% *}"
done
