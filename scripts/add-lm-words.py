#!/usr/bin/env python3
"""Add to words-en.txt the everyday words that CMU's model has and symspell's list lacks.

symspell's list (the source of words-en.txt) leaves out common US and spoken words: "favorite", "theater",
"mom", "ok", "oh", "math", "tv", "how's" (its British "favourite" and "theatre" are there). CMU's US English
model (`en-us.lm.bin` of Debian's pocketsphinx-en-us, BSD-2-clause), whose unigrams already give the list's
counts, has them. A word is added when CMU's model has it and people chatting use it: at least MIN_USES times
in the chit-chat dialogues (chitchat-dataset 0.9.0, MIT), and the US English Hunspell dictionary (Debian's
hunspell-en-us, SCOWL, permissive licence; read through libhunspell) accepts it written lowercase (so names such as
"BYU" or "Siri", chat spellings such as "alot" and fragments such as "th" stay out); possessives ("mom's") are
left to the predictor's own rule; a two-letter word needs 500 uses (Hunspell may know it in capitals: "OK"). Its count is CMU's unigram probability times 10^12, as every listed word's.

Usage: add-lm-words.py WORDS_EN EN_US_LM_BIN DATASET_JSON [HUNSPELL_AFF HUNSPELL_DIC]
  (rewrites WORDS_EN, appending the words at its end; default dictionary /usr/share/hunspell/en_US.{aff,dic})
"""
import json
import re
import struct
import sys
from collections import Counter

MIN_USES = 20
MIN_SHORT_USES = 500
TO_LOG10 = 0.0000434272768626696


def trie_unigrams(path):
    """The words of a PocketSphinx trie model with their log10 unigram probabilities (layout: LMTrie.swift)."""
    b = open(path, "rb").read()
    header = b"Trie Language Model"
    if not b.startswith(header):
        sys.exit(f"{path}: not a PocketSphinx trie model")
    pos = len(header) + 1
    n1, n2, n3 = struct.unpack_from("<III", b, pos)
    pos += 12 + 4 + 3 * 65536 * 4
    uni = [struct.unpack_from("<f", b, pos + i * 12)[0] * TO_LOG10 for i in range(n1)]
    pos += (n1 + 1) * 12
    word_bits, next_bits = n1.bit_length(), n3.bit_length()
    pos += ((1 + n2) * (word_bits + 32 + next_bits) + 7) // 8 + 8
    pos += ((1 + n3) * (word_bits + 16) + 7) // 8 + 8
    pos += 4
    words = b[pos:].split(b"\0")[:n1]
    return {w.decode("utf-8", "replace"): uni[i] for i, w in enumerate(words)}


def hunspell(aff, dic):
    """word -> whether libhunspell accepts it as written."""
    import ctypes
    lib = ctypes.CDLL("libhunspell-1.7.so.0")
    lib.Hunspell_create.restype = ctypes.c_void_p
    lib.Hunspell_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.Hunspell_spell.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    h = lib.Hunspell_create(aff.encode(), dic.encode())
    if not h:
        sys.exit(f"{aff}: libhunspell could not read it")
    return lambda w: lib.Hunspell_spell(h, w.encode("utf-8")) != 0


def main():
    words_file, lm, dataset = sys.argv[1:4]
    aff = sys.argv[4] if len(sys.argv) > 4 else "/usr/share/hunspell/en_US.aff"
    dic = sys.argv[5] if len(sys.argv) > 5 else "/usr/share/hunspell/en_US.dic"
    accepted = hunspell(aff, dic)
    lines = open(words_file, encoding="utf-8").read().splitlines()
    listed = {l.split()[0] for l in lines if l.split()}
    model = trie_unigrams(lm)
    uses = Counter()
    token = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
    for convo in json.load(open(dataset, encoding="utf-8")).values():
        for turn in convo.get("messages", []):
            for msg in turn:
                for t in token.findall(str(msg.get("text", "")).replace("\u2019", "'")):
                    uses[t.lower()] += 1

    added = []
    for w, n in uses.most_common():
        if n < MIN_USES:
            break
        if w in listed or w not in model or w.endswith("'s"):
            continue
        # Two-letter words are mostly abbreviations and fragments ("ed", "wo", "dr"): only the chat's most used
        # ("oh", "ok", "ha"), which Hunspell may know in capitals ("OK").
        if len(w) < 2 or (len(w) == 2 and (n < MIN_SHORT_USES or not (accepted(w) or accepted(w.upper())))) or (len(w) > 2 and not accepted(w)):
            continue
        added.append(w)
    with open(words_file, "w", encoding="utf-8") as o:
        for l in lines:
            o.write(l + "\n")
        for w in added:
            o.write(f"{w} {max(1, round(10 ** model[w] * 1e12))}\n")
    print(f"added {len(added)} words: {' '.join(added)}", file=sys.stderr)


if __name__ == "__main__":
    main()
