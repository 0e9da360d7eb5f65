#!/usr/bin/env python3
"""Count a conversational trigram model for initials expansion from chat dialogues.

Reads the BYU chit-chat dataset (`chitchat_dataset/dataset.json` of the PyPI wheel chitchat-dataset 0.9.0, MIT:
7,168 open-domain chat conversations between people, 258,145 messages) and writes an interpolated Kneser-Ney
trigram model (absolute discount D = 0.75 at every order) in back-off form, over the words of the predictor's
word list only (a word the list lacks ends the context, as an unknown word would).

Output lines (UTF-8, one n-gram a line, `#` comments at the top):
    1 WORD LOG10P LOG10BOW
    2 W1 W2 LOG10P LOG10BOW
    3 W1 W2 W3 LOG10P
    s LOG10P W1 W2 ...     a whole sentence said at least MIN_UTTERANCE times (2 to 12 listed words), P its share
                           of all the sentences
`<s>` is the sentence start and `</s>` the sentence end. P(w | u v) is the trigram's own line, else
BOW(u v) * P(w | v); P(w | v) the bigram's line, else BOW(v) * P(w) (a missing BOW is 1, i.e. 0 in log10).

Chat writes contractions without the apostrophe ("im", "dont", "thats"): a word the list lacks that becomes a
listed word with an apostrophe before its last letters ("i'm", "don't", "that's") is read as that word.
Trigrams and bigrams seen once are pruned (their probability mass goes to the back-off), to keep the file small.

Two fixed parts of the dataset are held out of the model (`held_out`): the conversations whose place in the sorted
list of conversation ids is 0 mod 10 (the test text of `bench expand`: scripts/chitchat-phrases.sh test) and 5 mod 10
(the tuning text: scripts/chitchat-phrases.sh tune), so that neither is scored by a model that has seen it.

Usage: make-conversation-ngrams.py DATASET_JSON WORDS_EN OUT
"""
import json
import math
import re
import sys
from collections import Counter, defaultdict

D = 0.75
MIN_TRIGRAM = 2
MIN_BIGRAM = 2
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

    c3, c2, c1 = Counter(), Counter(), Counter()
    tokens = 0
    for s in sentences:
        seq = ["<s>"] + s + ["</s>"]
        tokens += len(s)
        for i in range(1, len(seq)):
            if seq[i] is None:
                continue
            c1[seq[i]] += 1
            if seq[i - 1] is not None:
                c2[(seq[i - 1], seq[i])] += 1
                if i >= 2 and seq[i - 2] is not None:
                    c3[(seq[i - 2], seq[i - 1], seq[i])] += 1

    # Kneser-Ney continuation counts: in how many contexts a word (or pair) was seen.
    cont1 = Counter(w for (_, w) in c2)
    cont2 = Counter((v, w) for (_, v, w) in c3)
    cont1_total = sum(cont1.values())
    # Lower orders use continuation counts; the highest its raw counts.
    vocab_seen = [w for w in c1 if w != "<s>"]
    p1 = {}
    n1_uni = len(vocab_seen)
    floor = (D * len(cont1) / cont1_total) / (n1_uni + 1)
    for w in vocab_seen:
        p1[w] = max(cont1[w] - D, 0) / cont1_total + floor

    # Bigram level (continuation counts of pairs, as the middle order).
    ctx2_total, ctx2_types = Counter(), Counter()
    for (v, w), n in cont2.items():
        ctx2_total[v] += n
        ctx2_types[v] += 1
    # Contexts that start a sentence have no left context: their counts are the raw ones.
    for (v, w), n in c2.items():
        if v == "<s>":
            ctx2_total[v] += n
            ctx2_types[v] += 1

    def bigram_count(v, w):
        return c2[(v, w)] if v == "<s>" else cont2.get((v, w), 0)

    def p2(v, w):
        t = ctx2_total.get(v, 0)
        lower = p1.get(w, floor)
        if t == 0:
            return lower
        return max(bigram_count(v, w) - D, 0) / t + D * ctx2_types[v] / t * lower

    ctx3_total, ctx3_types = Counter(), Counter()
    for (u, v, w), n in c3.items():
        ctx3_total[(u, v)] += n
        ctx3_types[(u, v)] += 1

    def p3(u, v, w):
        t = ctx3_total.get((u, v), 0)
        lower = p2(v, w)
        if t == 0:
            return lower
        return max(c3[(u, v, w)] - D, 0) / t + D * ctx3_types[(u, v)] / t * lower

    kept3 = {k: p3(*k) for k, n in c3.items() if n >= MIN_TRIGRAM}
    kept2 = {k: p2(*k) for k, n in c2.items() if n >= MIN_BIGRAM or k[0] == "<s>"}
    # Back-off weights make the kept n-grams and the backed-off rest sum to one per context.
    by3 = defaultdict(list)
    for (u, v, w) in kept3:
        by3[(u, v)].append(w)
    bow2 = {}
    for (u, v), ws in by3.items():
        kept_mass = sum(kept3[(u, v, w)] for w in ws)
        lower_mass = sum(p2(v, w) for w in ws)
        bow2[(u, v)] = max(1e-9, 1 - kept_mass) / max(1e-9, 1 - lower_mass)
    by2 = defaultdict(list)
    for (v, w) in kept2:
        by2[v].append(w)
    bow1 = {}
    for v, ws in by2.items():
        kept_mass = sum(kept2[(v, w)] for w in ws)
        lower_mass = sum(p1.get(w, floor) for w in ws)
        bow1[v] = max(1e-9, 1 - kept_mass) / max(1e-9, 1 - lower_mass)

    with open(out, "w", encoding="utf-8") as o:
        o.write("# Conversational trigram model for initials expansion (made by scripts/make-conversation-ngrams.sh).\n")
        o.write("# Source: chitchat-dataset 0.9.0 (PyPI), the BYU PCC lab's Chit-Chat Challenge dialogues, MIT licence\n")
        o.write("# (c) 2019 Perception, Control and Cognition Lab; see wordlists/LICENSE-chitchat.txt.\n")
        o.write("# Held out (never counted): the conversations at places 0 and 5 mod 10 of the sorted ids (test and tuning texts).\n")
        o.write(f"# {len(sentences)} sentences, {tokens} words; interpolated Kneser-Ney, D = {D}, in back-off form.\n")
        o.write("# 1 WORD LOG10P LOG10BOW | 2 W1 W2 LOG10P LOG10BOW | 3 W1 W2 W3 LOG10P | s LOG10P W1 W2 ... (a whole sentence)\n")
        o.write(f"0 {math.log10(floor):.4f}\n")
        for w in sorted(p1):
            o.write(f"1 {w} {math.log10(p1[w]):.4f} {math.log10(bow1.get(w, 1.0)):.4f}\n")
        for (v, w) in sorted(kept2):
            o.write(f"2 {v} {w} {math.log10(kept2[(v, w)]):.4f} {math.log10(bow2.get((v, w), 1.0)):.4f}\n")
        for (u, v, w) in sorted(kept3):
            o.write(f"3 {u} {v} {w} {math.log10(kept3[(u, v, w)]):.4f}\n")
        for n, u in frequent:
            o.write(f"s {math.log10(n / len(sentences)):.4f} {' '.join(u)}\n")
    print(f"{len(sentences)} sentences, {tokens} words: {len(p1)} unigrams, {len(kept2)} bigrams, {len(kept3)} trigrams, {len(frequent)} sentences said {MIN_UTTERANCE}+ times",
          file=sys.stderr)


if __name__ == "__main__":
    main()
