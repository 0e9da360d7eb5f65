#!/usr/bin/env python3
"""Derive wordlists/ngrams-en.txt from CMU Sphinx's US English trigram model.

Source model: /usr/share/pocketsphinx/model/en-us/en-us.lm.bin from Debian's
pocketsphinx-en-us package (CMU, BSD-2-clause). The model is a binary trie;
Debian's sphinx_lm_convert (sphinxbase-utils) aborts on an assertion when
writing it as ARPA text (ngram_model_trie_write_arpa, raw_ngram_idx check), so
this script uses the PyPI `pocketsphinx` 5.x bindings instead:

  * bigrams: NGramModel.write(..., 'arpa') gets through all unigrams and
    bigrams and then crashes on the trigrams; the LD_PRELOAD helper built by
    scripts/make-ngrams.sh flushes stdio on the crash so the bigrams survive.
  * trigrams: NGramModel.prob([w3, w2, w1]) = log P(w3 | w1 w2) is queried for
    frequent contexts and their likely successors; a value that differs from
    the back-off estimate bow(w1 w2) + log P(w3 | w2) means a real trigram.

Only n-grams that change a prediction are kept: both words must be in the
word list, and the n-gram must raise the word's probability clearly over the
lower order (the predictor backs off to that anyway). Probabilities are
written as log10 with two decimals.

Usage: make-ngrams.py ARPA_WITH_BIGRAMS WORDLIST OUT   (run via make-ngrams.sh)
"""
import math
import sys
from collections import defaultdict

import pocketsphinx

LM = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"
BIGRAM_MIN_LOGP = -3.0      # keep P(w2|w1) >= 10^-3
BIGRAM_MIN_LIFT = 0.2       # and at least 10^0.2 = 1.6x its unigram probability
BIGRAMS_PER_WORD = 150
TRIGRAM_CONTEXTS = 40000    # most probable (w1 w2) pairs to look at
TRIGRAM_CANDIDATES = 60     # successors of w2 tried for each context
TRIGRAM_MIN_LOGP = -2.5
TRIGRAM_MIN_LIFT = 0.3      # over the bigram estimate
TRIGRAMS_PER_CONTEXT = 25


def main():
    arpa, wordlist, out = sys.argv[1:4]
    vocab = set()
    for line in open(wordlist, encoding="utf-8"):
        parts = line.split()
        if len(parts) == 2:
            vocab.add(parts[0])

    uni, bow1 = {}, {}
    bi = defaultdict(dict)     # w1 -> {w2: logp}
    bow2 = {}
    section = 0
    for line in open(arpa, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("\\1-grams"):
            section = 1
            continue
        if line.startswith("\\2-grams"):
            section = 2
            continue
        if line.startswith("\\"):
            section = 0
            continue
        f = line.split("\t")
        if section == 1 and len(f) >= 2:
            uni[f[1]] = float(f[0])
            bow1[f[1]] = float(f[2]) if len(f) > 2 else 0.0
        elif section == 2 and len(f) >= 3:
            words = f[1].split(" ") if len(f) == 3 and " " in f[1] else f[1:3]
            if len(words) != 2:
                continue
            w1, w2 = words
            bi[w1][w2] = float(f[0])
            if len(f) > 3:
                bow2[(w1, w2)] = float(f[3])

    kept = {}
    for w1, succ in bi.items():
        if w1 not in vocab and w1 != "<s>":
            continue
        rows = [(p, w2) for w2, p in succ.items()
                if w2 in vocab and p >= BIGRAM_MIN_LOGP and p - uni.get(w2, -99) >= BIGRAM_MIN_LIFT]
        rows.sort(reverse=True)
        if rows:
            kept[w1] = rows[:BIGRAMS_PER_WORD]

    # Contexts for trigrams: the most probable word pairs.
    pairs = []
    for w1, succ in bi.items():
        if w1 not in vocab or w1 not in uni:
            continue
        for w2, p in succ.items():
            if w2 in vocab:
                pairs.append((uni[w1] + p, w1, w2))
    pairs.sort(reverse=True)
    pairs = pairs[:TRIGRAM_CONTEXTS]

    model = pocketsphinx.NGramModel.readfile(LM)
    to_log10 = math.log10(1.0001)
    tri = {}
    best_successors = {}
    for _, w1, w2 in pairs:
        if w2 not in best_successors:
            best_successors[w2] = sorted(((p, w3) for w3, p in bi.get(w2, {}).items() if w3 in vocab),
                                         reverse=True)[:TRIGRAM_CANDIDATES]
        succ = best_successors[w2]
        bow = bow2.get((w1, w2), 0.0)
        rows = []
        for p2, w3 in succ[:TRIGRAM_CANDIDATES]:
            p3 = model.prob([w3, w2, w1]) * to_log10
            backoff = bow + p2
            if abs(p3 - backoff) > 0.02 and p3 >= TRIGRAM_MIN_LOGP and p3 - p2 >= TRIGRAM_MIN_LIFT:
                rows.append((p3, w3))
        rows.sort(reverse=True)
        if rows:
            tri[(w1, w2)] = rows[:TRIGRAMS_PER_CONTEXT]

    with open(out, "w", encoding="utf-8") as f:
        f.write("# HandsFree Shell n-gram file, derived from CMU Sphinx en-us.lm.bin "
                "(Debian pocketsphinx-en-us, BSD-2-clause) by scripts/make-ngrams.sh.\n")
        f.write("# Lines: w1 w2 log10P(w2|w1)  or  w1 w2 w3 log10P(w3|w1 w2). <s> = sentence start.\n")
        nb = nt = 0
        for w1 in sorted(kept):
            for p, w2 in kept[w1]:
                f.write(f"{w1} {w2} {p:.2f}\n")
                nb += 1
        for (w1, w2) in sorted(tri):
            for p, w3 in tri[(w1, w2)]:
                f.write(f"{w1} {w2} {w3} {p:.2f}\n")
                nt += 1
    print(f"wrote {nb} bigrams and {nt} trigrams to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
