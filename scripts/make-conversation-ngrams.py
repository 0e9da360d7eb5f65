#!/usr/bin/env python3
"""Count a conversational 4-gram model for initials expansion from chat dialogues.

Reads the BYU chit-chat dataset (`chitchat_dataset/dataset.json` of the PyPI wheel chitchat-dataset 0.9.0, MIT:
7,168 open-domain chat conversations between people, 258,145 messages) and writes an interpolated Kneser-Ney
model of ORDER words (4; environment ORDER=3 for a trigram model) with modified discounts (Chen and Goodman's D1,
D2, D3+ for n-grams seen once, twice, three times or more, from each order's counts of counts; MODIFIED=0: one
D = 0.75 at every order, as the trigram model of earlier rounds, which ORDER=3 MODIFIED=0 makes again byte for
byte) in back-off form, over the words of the predictor's word list only (a word the list lacks ends the context,
as an unknown word would).

Output lines (UTF-8, one n-gram a line, `#` comments at the top):
    1 WORD LOG10P LOG10BOW
    2 W1 W2 LOG10P LOG10BOW
    3 W1 W2 W3 LOG10P LOG10BOW     (LOG10BOW only below the highest order)
    4 W1 W2 W3 W4 LOG10P
    s LOG10P W1 W2 ...     a whole sentence said at least MIN_UTTERANCE times (2 to 12 listed words), P its share
                           of all the sentences
`<s>` is the sentence start and `</s>` the sentence end. P(w | t u v) is the 4-gram's own line, else
BOW(t u v) * P(w | u v); P(w | u v) the trigram's line, else BOW(u v) * P(w | v); P(w | v) the bigram's line,
else BOW(v) * P(w) (a missing BOW is 1, i.e. 0 in log10).

Chat writes contractions without the apostrophe ("im", "dont", "thats"): a word the list lacks that becomes a
listed word with an apostrophe before its last letters ("i'm", "don't", "that's") is read as that word.
N-grams of two words and more seen once are pruned (their probability mass goes to the back-off), to keep the file small.

Two fixed parts of the dataset are held out of the model (`held_out`): the conversations whose place in the sorted
list of conversation ids is 0 mod 10 (the test text of `bench expand`: scripts/chitchat-phrases.sh test) and 5 mod 10
(the tuning text: scripts/chitchat-phrases.sh tune), so that neither is scored by a model that has seen it.

Usage: make-conversation-ngrams.py DATASET_JSON WORDS_EN OUT
"""
import json
import math
import os
import re
import sys
from collections import Counter, defaultdict

D = 0.75
MIN_COUNT = 2
ORDER = int(os.environ.get("ORDER", "4"))
MODIFIED = os.environ.get("MODIFIED", "0") == "1"
MIN_UTTERANCE = 8
TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")
SENTENCE = re.compile(r"[.!?]+|\n")


def held_out(place):
    """Whether the conversation at `place` in the sorted ids is a test (0 mod 10) or tuning (5 mod 10) one."""
    return place % 10 in (0, 5)


def split_of(place):
    return "test" if place % 10 == 0 else "tune" if place % 10 == 5 else "model"


def main():
    dataset, words_file, out = sys.argv[1:4]
    vocab = set()
    for line in open(words_file, encoding="utf-8"):
        p = line.split()
        if p:
            vocab.add(p[0].lower())

    def word(t):
        if t in vocab:
            return t
        for k in (1, 2):  # im -> i'm, dont -> don't, youre -> you're, ive -> i've
            if len(t) > k:
                w = t[:-k] + "'" + t[-k:]
                if w in vocab:
                    return w
        return None

    data = json.load(open(dataset, encoding="utf-8"))
    sentences = []
    for place, key in enumerate(sorted(data)):
        if held_out(place):
            continue
        convo = data[key]
        for turn in convo.get("messages", []):
            for msg in turn:
                text = str(msg.get("text", "")).lower().replace("\u2019", "'")
                for s in SENTENCE.split(text):
                    toks = TOKEN.findall(s)
                    if toks:
                        sentences.append([word(t) for t in toks])

    # The sentences people say again and again ("how are you doing", "what do you do for fun"), offered whole.
    utterances = Counter(tuple(s) for s in sentences if 2 <= len(s) <= 12 and None not in s
                         and len(set(s)) * 2 > len(s))  # not "a a a a a a" (a dataset filler)
    frequent = sorted(((n, u) for u, n in utterances.items() if n >= MIN_UTTERANCE), key=lambda x: (-x[0], x[1]))

    # Raw counts of every order (an n-gram with a word the list lacks is not counted).
    raw = {n: Counter() for n in range(1, ORDER + 1)}
    tokens = 0
    for s in sentences:
        seq = ["<s>"] + s + ["</s>"]
        tokens += len(s)
        for i in range(1, len(seq)):
            for n in range(1, ORDER + 1):
                if i - n + 1 < 0:
                    break
                g = tuple(seq[i - n + 1:i + 1])
                if None in g:
                    break
                raw[n][g] += 1

    # Kneser-Ney counts: the highest order its raw counts; a lower order the number of words seen before the n-gram
    # (continuation counts), except n-grams at the sentence's start, which nothing precedes (their raw counts).
    kn = {ORDER: raw[ORDER]}
    for n in range(ORDER - 1, 0, -1):
        cont = Counter(g[1:] for g in raw[n + 1])
        kn[n] = Counter({g: (c if g[0] == "<s>" else cont.get(g, 0)) for g, c in raw[n].items() if g != ("<s>",)})
        if n > 1:  # a word is listed even where only an unknown word came before it (at the floor)
            kn[n] = Counter({g: c for g, c in kn[n].items() if c > 0})

    # Discounts by order: D = 0.75 everywhere, or (MODIFIED) Chen and Goodman's three, D1, D2, D3+, from the counts of
    # n-grams seen once to four times.
    def discounts(counts):
        if not MODIFIED:
            return (D, D, D)
        nk = Counter(c for c in counts.values() if c <= 4)
        n1, n2, n3, n4 = (max(nk[k], 1) for k in (1, 2, 3, 4))
        y = n1 / (n1 + 2 * n2)
        return (1 - 2 * y * n2 / n1, 2 - 3 * y * n3 / n2, 3 - 4 * y * n4 / n3)
    disc = {n: discounts(kn[n]) for n in range(1, ORDER + 1)}

    def dis(n, c):
        return 0 if c <= 0 else disc[n][min(c, 3) - 1]

    # Per context: the total count and the discounted mass set aside for the lower order.
    total, spare = {}, {}
    for n in range(2, ORDER + 1):
        t, sp = Counter(), Counter()
        for g, c in kn[n].items():
            t[g[:-1]] += c
            sp[g[:-1]] += dis(n, c)
        total[n], spare[n] = t, sp

    uni_total = sum(kn[1].values())
    vocab_seen = [g[0] for g in kn[1]]
    floor = (sum(dis(1, c) for c in kn[1].values()) / uni_total) / (len(vocab_seen) + 1)
    p1 = {w: max(kn[1][(w,)] - dis(1, kn[1][(w,)]), 0) / uni_total + floor for w in vocab_seen}

    memo = {}

    def p(g):
        """Interpolated Kneser-Ney P(g[-1] | g[:-1])."""
        if len(g) == 1:
            return p1.get(g[0], floor)
        if g in memo:
            return memo[g]
        n = len(g)
        lower = p(g[1:])
        t = total[n].get(g[:-1], 0)
        if t == 0:
            v = lower
        else:
            c = kn[n].get(g, 0)
            v = max(c - dis(n, c), 0) / t + spare[n][g[:-1]] / t * lower
        memo[g] = v
        return v

    # Kept: every n-gram of order 2 and up seen at least MIN_COUNT times (bigrams at the start always); the rest's
    # mass goes to the back-off.
    kept = {n: {g: p(g) for g, c in raw[n].items() if c >= MIN_COUNT or (n == 2 and g[0] == "<s>")} for n in range(2, ORDER + 1)}
    kept[1] = {(w,): p1[w] for w in p1}
    # Back-off weights, lowest order first, so each context's kept n-grams and its backed-off rest sum to one as the
    # back-off form computes the rest (with the weights of the orders below).
    bows = {}

    def backed(g):
        """P(g[-1] | g[:-1]) as the back-off form gives it (kept lines and the weights computed so far)."""
        if len(g) == 1:
            return p1.get(g[0], floor)
        n = len(g)
        if g in kept[n]:
            return kept[n][g]
        return bows.get(g[:-1], 1.0) * backed(g[1:])

    for n in range(2, ORDER + 1):
        by = defaultdict(list)
        for g in kept[n]:
            by[g[:-1]].append(g)
        for ctx, gs in by.items():
            kept_mass = sum(kept[n][g] for g in gs)
            lower_mass = sum(backed(g[1:]) for g in gs)
            bows[ctx] = max(1e-9, 1 - kept_mass) / max(1e-9, 1 - lower_mass)

    with open(out, "w", encoding="utf-8") as o:
        name = "trigram" if ORDER == 3 else f"{ORDER}-gram"
        o.write(f"# Conversational {name} model for initials expansion (made by scripts/make-conversation-ngrams.sh).\n")
        o.write("# Source: chitchat-dataset 0.9.0 (PyPI), the BYU PCC lab's Chit-Chat Challenge dialogues, MIT licence\n")
        o.write("# (c) 2019 Perception, Control and Cognition Lab; see wordlists/LICENSE-chitchat.txt.\n")
        o.write("# Held out (never counted): the conversations at places 0 and 5 mod 10 of the sorted ids (test and tuning texts).\n")
        kind = "modified (D1, D2, D3+ by order: " + ", ".join("/".join(f"{d:.3f}" for d in disc[n]) for n in range(1, ORDER + 1)) + ")" if MODIFIED else f"D = {D}"
        o.write(f"# {len(sentences)} sentences, {tokens} words; interpolated Kneser-Ney, {kind}, in back-off form.\n")
        legend = ["1 WORD LOG10P LOG10BOW", "2 W1 W2 LOG10P LOG10BOW", "3 W1 W2 W3 LOG10P LOG10BOW", "4 W1 W2 W3 W4 LOG10P"][:ORDER]
        legend[-1] = legend[-1].removesuffix(" LOG10BOW")
        o.write(f"# {' | '.join(legend)} | s LOG10P W1 W2 ... (a whole sentence)\n")
        o.write(f"0 {math.log10(floor):.4f}\n")
        for n in range(1, ORDER + 1):
            for g in sorted(kept[n]):
                line = f"{n} {' '.join(g)} {math.log10(kept[n][g]):.4f}"
                if n < ORDER:
                    line += f" {math.log10(bows.get(g, 1.0)):.4f}"
                o.write(line + "\n")
        for n, u in frequent:
            o.write(f"s {math.log10(n / len(sentences)):.4f} {' '.join(u)}\n")
    counts = ", ".join(f"{len(kept[n])} {n}-grams" for n in range(1, ORDER + 1))
    print(f"{len(sentences)} sentences, {tokens} words: {counts}, {len(frequent)} sentences said {MIN_UTTERANCE}+ times",
          file=sys.stderr)


if __name__ == "__main__":
    main()
