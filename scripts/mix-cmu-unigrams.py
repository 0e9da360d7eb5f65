#!/usr/bin/env python3
"""Replace the word list's web-like counts with CMU Sphinx's unigram probabilities.

Why: symspell's counts (Google Books + web-like ranking: "search", "site" top the
"s" words) rank badly for conversation and prose; CMU's en-us model ranks "so",
"said", "she" first, and its bigrams/trigrams (ngrams-en.txt) were estimated
against these unigrams, so the backed-off scores are consistent. Measured on
Emma (tuning text): KSR 50.36 -> 50.77 at N=3.

Words CMU lacks keep their symspell probability times MISSING_FACTOR (they are
rarer in running text than the web counts suggest). Counts are written as
round(P * 1e12), at least 1, in the input's order (the loader sorts anyway).

Usage: mix-cmu-unigrams.py BASE_WORDLIST ARPA OUT
  BASE_WORDLIST  symspell list + contractions (old words-en.txt layout)
  ARPA           CMU en-us ARPA text with the unigram section (make-ngrams.sh)
"""
import sys

MISSING_FACTOR = 0.3


def main():
    base, arpa, out = sys.argv[1:4]
    uni = {}
    section = False
    for line in open(arpa, encoding="utf-8", errors="replace"):
        if line.startswith("\\1-grams"):
            section = True
            continue
        if line.startswith("\\2-grams"):
            break
        f = line.rstrip("\n").split("\t")
        if section and len(f) >= 2 and f[1] not in ("<s>", "</s>"):
            try:
                uni[f[1]] = float(f[0])
            except ValueError:
                pass
    words = []
    for line in open(base, encoding="utf-8"):
        p = line.split()
        if len(p) == 2:
            words.append((p[0], float(p[1])))
    total = sum(c for _, c in words)
    with open(out, "w", encoding="utf-8") as o:
        for w, c in words:
            p = 10 ** uni[w] if w in uni else MISSING_FACTOR * c / total
            o.write(f"{w} {max(1, round(p * 1e12))}\n")


if __name__ == "__main__":
    main()
