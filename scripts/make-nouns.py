#!/usr/bin/env python3
"""Derive wordlists/nouns-en.txt: the listed words that take a generated possessive ("mother's").

A word qualifies when WordNet 3.0 says it is mostly a noun: in the sense-tagged counts
(cntlist.rev) its noun senses outnumber its adjective and adverb senses together and at least
half its verb senses; or, for a word with no tagged senses, when it is a noun and neither an
adjective nor an adverb. So "mother", "world", "house" qualify and "funny", "big", "nice", "far"
(nouns only as a joke, a city, ...) do not.

Usage: make-nouns.py WORDNET_DICT_DIR WORDS_EN_TXT OUT   (scripts/make-nouns.sh runs it)
"""
import sys
from collections import defaultdict

wn, words_path, out_path = sys.argv[1:4]
POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
tagged = defaultdict(lambda: defaultdict(int))
with open(f"{wn}/cntlist.rev", encoding="utf-8") as f:
    for line in f:
        key, _, cnt = line.split()
        lemma, rest = key.split("%", 1)
        tagged[lemma][POS[rest[0]]] += int(cnt)

def lemmas(pos):
    s = set()
    with open(f"{wn}/index.{pos}", encoding="utf-8") as f:
        for line in f:
            if not line.startswith("  "):
                s.add(line.split(" ", 1)[0])
    return s

nouns, adjs, advs = lemmas("noun"), lemmas("adj"), lemmas("adv")
# Inflected plural nouns are not lemmas in the index ("mothers"); their possessive is "mothers'" and
# is left to the user, as are words with an apostrophe.
def qualifies(w):
    if "'" in w or w.endswith("s") or len(w) < 3:
        return False
    t = tagged.get(w)
    if t and sum(t.values()) > 0:
        return t["n"] > t["a"] + t["r"] and 2 * t["n"] >= t["v"]
    return w in nouns and w not in adjs and w not in advs

count = 0
with open(words_path, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
    out.write("# Words of words-en.txt that take a generated possessive: mostly nouns by WordNet 3.0.\n")
    out.write("# Made by scripts/make-nouns.sh; sources and licence in wordlists/README.md.\n")
    for line in f:
        w = line.split()[0]
        if qualifies(w):
            out.write(w + "\n"); count += 1
print(f"{count} words", file=sys.stderr)
