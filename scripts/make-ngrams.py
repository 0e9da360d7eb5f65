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

Bigrams from books: with BOOK_UNIGRAMS and BOOK_BIGRAMS (symspellpy's Google
Books frequency_dictionary_en_82_765.txt and frequency_bigramdictionary_en_243_342.txt)
each bigram probability becomes (1 - BOOKS_WEIGHT) * P_cmu(w2|w1) + BOOKS_WEIGHT *
c(w1 w2) / c(w1). CMU's model is mostly spoken and news English ("<s> yeah"); the
books' pairs add written prose. P_cmu of a pair the ARPA lacks is what the predictor
backs off to, 0.5 * P(w2); every pair the books have is kept (they are all frequent).

Only n-grams that change a prediction are kept: both words must be in the
word list, and the n-gram must raise the word's probability clearly over the
lower order (the predictor backs off to that anyway). Probabilities are
written as log10 with two decimals.

Usage: make-ngrams.py ARPA_WITH_BIGRAMS WORDLIST OUT [BOOK_UNIGRAMS BOOK_BIGRAMS]
(run via make-ngrams.sh)
"""
import math
import os
import sys
from collections import defaultdict

import pocketsphinx

LM = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"
BIGRAM_MIN_LOGP = float(os.environ.get("BIGRAM_MIN_LOGP", "-3.0"))      # keep P(w2|w1) >= 10^-3
BIGRAM_MIN_LIFT = float(os.environ.get("BIGRAM_MIN_LIFT", "0.2"))       # and at least 10^0.2 = 1.6x its unigram probability
BIGRAMS_PER_WORD = int(os.environ.get("BIGRAMS_PER_WORD", "2000"))  # 150 / 300 / 2000 on Emma: 52.81 / 52.92 / 53.11
TRIGRAM_CONTEXTS = int(os.environ.get("TRIGRAM_CONTEXTS", "40000"))    # most probable (w1 w2) pairs to look at
TRIGRAM_CANDIDATES = 60     # successors of w2 tried for each context
TRIGRAM_MIN_LOGP = -2.5
TRIGRAM_MIN_LIFT = 0.3      # over the bigram estimate
TRIGRAMS_PER_CONTEXT = 25
MISSING_FACTOR = 0.5        # P_cmu of a pair CMU lacks: this times P(w2), as the predictor backs off
# Tried on Emma's first 3000 lines (N = 3, learning): 0.05 / 0.1 / 0.15 / 0.2 -> 53.16 / 53.11 / 53.08 / 53.02
# (CMU alone: 52.69); the first 600 lines: 0.1 / 0.2 / 0.3 / 0.5 / 0.7 -> 51.58 / 51.58 / 51.45 / 51.16 / 50.91.
BOOKS_WEIGHT = float(os.environ.get("BOOKS_WEIGHT", "0.1"))


def main():
    arpa, wordlist, out = sys.argv[1:4]
    books = sys.argv[4:6] if len(sys.argv) >= 6 else None
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

    # CMU's own bigrams stay the basis of the trigram search below; the mix is what gets written.
    mixed, from_books = mix_books(bi, uni, vocab, *books) if books else (bi, {})

    kept = {}
    for w1, succ in mixed.items():
        if w1 not in vocab and w1 != "<s>":
            continue
        book_pairs = from_books.get(w1, ())
        rows = [(p, w2) for w2, p in succ.items()
                if w2 in vocab and (w2 in book_pairs or p >= BIGRAM_MIN_LOGP and p - uni.get(w2, -99) >= BIGRAM_MIN_LIFT)]
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
        if books:
            f.write(f"# Bigrams mixed with Google Books bigram counts (symspellpy wheel, MIT; data CC BY 3.0), "
                    f"weight {BOOKS_WEIGHT}.\n")
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


def mix_books(bi, uni, vocab, unigram_file, bigram_file):
    """CMU bigrams mixed with Google Books bigram counts (log10 probabilities, per w1)."""
    book_uni = {}
    for line in open(unigram_file, encoding="utf-8"):
        f = line.split()
        if len(f) == 2 and f[1].isdigit():
            book_uni[f[0].lower()] = book_uni.get(f[0].lower(), 0) + int(f[1])
    book_bi = defaultdict(dict)
    for line in open(bigram_file, encoding="utf-8"):
        f = line.split()
        if len(f) != 3 or not f[2].isdigit():
            continue
        w1, w2 = f[0].lower(), f[1].lower()
        if w1 in vocab and w2 in vocab and w1 in uni and w2 in uni and book_uni.get(w1):
            book_bi[w1][w2] = book_bi[w1].get(w2, 0) + int(f[2])
    mixed = dict(bi)
    added = 0
    for w1, succ in book_bi.items():
        cmu = bi.get(w1, {})
        out = {}
        for w2 in set(cmu) | set(succ):
            p_cmu = 10 ** cmu[w2] if w2 in cmu else MISSING_FACTOR * 10 ** uni.get(w2, -99)
            p_book = min(1.0, succ.get(w2, 0) / book_uni[w1])
            out[w2] = math.log10((1 - BOOKS_WEIGHT) * p_cmu + BOOKS_WEIGHT * p_book)
            added += w2 not in cmu
        mixed[w1] = out
    print(f"books: {sum(len(s) for s in book_bi.values())} bigrams for {len(book_bi)} words, "
          f"{added} pairs new to CMU's", file=sys.stderr)
    return mixed, book_bi


if __name__ == "__main__":
    main()
