#!/usr/bin/env python3
"""Writes a language pack's word data: words-LL.txt (frequencies) and ngrams-LL.txt (bigrams, trigrams).

Run by scripts/make-language-words.sh, which fetches the inputs from their packages (see languages/README.md):

  --wordfreq FILE   wordfreq's large_LL.msgpack.gz (PyPI wordfreq 3.1.1; data CC BY-SA 4.0)
  --hunspell FILE   forms to take spellings and capitals from: a .dic (its stems) or unmunch's output
  --hunspell-aff F  the .dic's affix file: libhunspell itself is asked whether a word is written lowercase
                    (for dictionaries unmunch cannot expand, as Dutch's FLAG long one)
  --text FILE       text the n-grams are counted in (Dasher's training text; GPL-2+), repeatable
  --presage FILE    presage's n-gram counts to add (libpresage-data's database_LL.db; GPL-2+), repeatable
  --elisions LIST   comma-separated elisions ("l',d',qu'"), as the pack's [words] elisions
  --words N         how many words to keep (the most frequent)

wordfreq casefolds its words ("straße" becomes "strasse", "España" "españa"); a word whose casefolded forms
in the hunspell dictionary are all capitalised ("Straße", "España") is written that way, so German nouns keep
their capital and ß, and names their capital. French and Italian elisions, which wordfreq lists without their
apostrophe ("l", "qu") or joined to the next word ("dell'anno"), become words of their own ("l'", "dell'").
The output is sorted by frequency and deterministic for the same inputs.
"""
import argparse
import collections
import gzip
import math
import re
import sqlite3
import sys
import unicodedata


def unpack_msgpack(b):
    """The subset of msgpack wordfreq's files use (arrays, maps, strings, small integers)."""
    pos = 0

    def rd():
        nonlocal pos
        t = b[pos]
        pos += 1
        if t <= 0x7f:
            return t
        if 0x80 <= t <= 0x8f:
            return {rd(): rd() for _ in range(t & 0x0f)}
        if 0x90 <= t <= 0x9f:
            return [rd() for _ in range(t & 0x0f)]
        if 0xa0 <= t <= 0xbf:
            n = t & 0x1f
            s = b[pos:pos + n].decode('utf-8')
            pos += n
            return s
        if t in (0xc0, 0xc2, 0xc3):
            return {0xc0: None, 0xc2: False, 0xc3: True}[t]
        if t in (0xd9, 0xda, 0xdb):
            w = {0xd9: 1, 0xda: 2, 0xdb: 4}[t]
            n = int.from_bytes(b[pos:pos + w], 'big')
            pos += w
            s = b[pos:pos + n].decode('utf-8')
            pos += n
            return s
        if t in (0xdc, 0xdd, 0xde, 0xdf):
            w = 2 if t in (0xdc, 0xde) else 4
            n = int.from_bytes(b[pos:pos + w], 'big')
            pos += w
            if t in (0xdc, 0xdd):
                return [rd() for _ in range(n)]
            return {rd(): rd() for _ in range(n)}
        if t in (0xcc, 0xcd, 0xce, 0xcf):
            w = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}[t]
            v = int.from_bytes(b[pos:pos + w], 'big')
            pos += w
            return v
        raise ValueError('msgpack type %#x not expected in a wordfreq file' % t)
    return rd()


WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*'?")


def wordfreq_counts(path):
    """word → frequency per 10^9 words, from wordfreq's cB format (bucket i holds words of frequency 10^(-i/100))."""
    data = unpack_msgpack(gzip.open(path).read())
    if not isinstance(data[0], dict) or data[0].get('format') != 'cB':
        sys.exit('%s: not a wordfreq cB file' % path)
    out = {}
    for i, bucket in enumerate(data[1:]):
        for w in bucket:
            out.setdefault(unicodedata.normalize('NFC', w), 10 ** (-i / 100) * 1e9)
    return out


def hunspell_forms(path):
    """casefolded word → its spellings in the dictionary (a .dic's stems, or unmunch's one form per line)."""
    forms = collections.defaultdict(set)
    with open(path, encoding='utf-8', errors='replace') as f:
        for n, line in enumerate(f):
            w = line.strip().split('/')[0].split('\t')[0].split(' ')[0]
            if (n == 0 and w.isdigit()) or not w or not WORD.fullmatch(w):
                continue
            forms[w.casefold()].add(unicodedata.normalize('NFC', w))
    return forms


def hunspell_checker(aff, dic):
    """(word → accepted?, word → its stems when an affix of a stem makes it, not a compound) over libhunspell, for
    the dictionary's every form: Dutch's "grote" (of "groot") or "bent" (of "ben") is no stem of nl.dic, where
    only the surname "Grote" and the name "Bent" are, and unmunch cannot expand its FLAG long affixes."""
    import ctypes
    lib = ctypes.CDLL('libhunspell-1.7.so.0')
    lib.Hunspell_create.restype = ctypes.c_void_p
    lib.Hunspell_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.Hunspell_spell.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lst = ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p))
    lib.Hunspell_analyze.argtypes = [ctypes.c_void_p, lst, ctypes.c_char_p]
    lib.Hunspell_free_list.argtypes = [ctypes.c_void_p, lst, ctypes.c_int]
    h = lib.Hunspell_create(aff.encode(), dic.encode())
    if not h:
        sys.exit('%s: libhunspell could not read it' % aff)

    def analyses(w):
        out = ctypes.POINTER(ctypes.c_char_p)()
        n = lib.Hunspell_analyze(h, ctypes.byref(out), w.encode('utf-8'))
        r = [out[i].decode('utf-8', 'replace') for i in range(n)]
        lib.Hunspell_free_list(h, ctypes.byref(out), n)
        return r

    def affixed(w):
        # " st:groot ts:AJe": a stem and its affix; a compound ("belastingdienst") also names its parts (pa:).
        return [a for a in analyses(w) if ' st:' in a and ' pa:' not in a]
    return (lambda w: lib.Hunspell_spell(h, w.encode('utf-8')) != 0), affixed


def text_cases(paths):
    """casefolded word → (times written lowercase, times capitalised) inside a sentence of the texts (not first)."""
    cases = collections.defaultdict(lambda: [0, 0])
    for path in paths:
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                for m in re.finditer(r"[^\W\d_][\w'’-]*", line):
                    before = line[:m.start()].rstrip()
                    if not before or before[-1] in '.!?:;"\'‘“(-–—':
                        continue
                    w = m.group()
                    if w == w.lower():
                        cases[w.casefold()][0] += 1
                    elif w == w.capitalize():
                        cases[w.casefold()][1] += 1
    return cases


def compound_form(w, forms, linking=('', 's', 'es', 'n', 'en', 'e')):
    """A German compound the dictionary lacks ("strassenbahn"), written as its parts are: capitalised when its
    last part is a noun ("Bahn"), with the first part's spelling ("Straßen"), so "Straßenbahn"; None when no
    split into a known first part (3 letters or more, a linking s, es, n, en or e allowed) and a noun of 4
    letters or more is found. The longest last part wins."""
    def noun(forms_of):
        return bool(forms_of) and all(f != f.lower() for f in forms_of)
    for i in range(3, len(w) - 3):
        head = forms.get(w[i:])
        if not head or all(f == f.lower() for f in head):
            continue
        # A last part that is also written lowercase ("bahn", "weise") makes a noun only after a noun
        # ("Straßenbahn", not "jederzeit"), and never at an adverb's ending ("beispielsweise", "keineswegs").
        mixed = not noun(head)
        if w.endswith(('weise', 'falls', 'wegs', 'massen', 'mals', 'seits', 'dings', 'halber', 'wärts')):
            continue
        first = w[:i]
        for link in linking:
            if link and not first.endswith(link):
                continue
            stem = first[:len(first) - len(link)] if link else first
            known = sorted(forms.get(stem, ()))
            if len(stem) >= 3 and known and (not mixed or noun(known)):
                cap = sorted(f for f in head if f != f.lower())[0]
                return (known[0].lower() + link + cap.lower()).capitalize()
    return None


def split_elisions(token, elisions):
    parts = []
    while True:
        i = token.find("'")
        if i > 0 and token[:i + 1] in elisions and i + 1 < len(token):
            parts.append(token[:i + 1])
            token = token[i + 1:]
            continue
        break
    parts.append(token)
    return parts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--language', required=True)
    ap.add_argument('--wordfreq', required=True)
    ap.add_argument('--hunspell')
    ap.add_argument('--hunspell-aff', help="the .dic's affix file: libhunspell says which words are written lowercase")
    ap.add_argument('--text', action='append', default=[])
    ap.add_argument('--presage', action='append', default=[], help="presage's n-gram database (libpresage-data), repeatable")
    ap.add_argument('--elisions', default='')
    ap.add_argument('--words', type=int, default=100000)
    ap.add_argument('--out-words', required=True)
    ap.add_argument('--out-ngrams', required=True)
    ap.add_argument('--discount', type=float, default=0.75)
    ap.add_argument('--backoff', type=float, default=0.5, help="the predictor's factor on a word's frequency where its bigram is not stored")
    ap.add_argument('--min-bigram', type=int, default=1, help='bigrams seen fewer times are left out')
    ap.add_argument('--min-trigram', type=int, default=2, help='trigrams seen fewer times are left out')
    ap.add_argument('--compounds', action='store_true',
                    help='a word the dictionary lacks is split into known parts for its spelling (German compounds)')
    ap.add_argument('--keep', default='', help="comma-separated elision bases that are words of their own (Italian 'un')")
    a = ap.parse_args()
    a.keep = {k for k in a.keep.split(',') if k}
    elisions = {e for e in a.elisions.split(',') if e}
    bases = {e[:-1] for e in elisions}

    freq = wordfreq_counts(a.wordfreq)
    counts = collections.Counter()
    for w, c in freq.items():
        if not WORD.fullmatch(w) or w.endswith("'"):
            continue
        parts = split_elisions(w, elisions)
        if len(parts) == 1 and w in bases and w not in a.keep:
            # "l", "qu", "dell": wordfreq's tokenizer dropped the apostrophe of an elision. A base that is a word
            # of its own (Italian "un") stays one, and its elided form comes from joined tokens ("un'altra").
            parts = [w + "'"]
        for p in parts:
            counts[p] += c
    # wordfreq counts misspellings without accents ("cancion" beside "canción"): a spelling without accents is
    # left out when one with them is ten times as common, since folding offers the accented word for it anyway.
    # Pairs that are both words ("esta" and "está", "si" and "sí") are near each other in count and both stay.
    def plain(w):
        return ''.join(ch for ch in unicodedata.normalize('NFD', w) if not unicodedata.combining(ch))
    best = {}
    for w, c in counts.items():
        k = plain(w)
        if w != k and c > best.get(k, 0):
            best[k] = c
    for w in [w for w in counts if w == plain(w) and best.get(w, 0) >= 10 * counts[w]]:
        del counts[w]
    top = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:a.words]]

    forms = hunspell_forms(a.hunspell) if a.hunspell else {}
    spell, affixed = hunspell_checker(a.hunspell_aff, a.hunspell) if a.hunspell_aff and a.hunspell else (None, None)
    cases = text_cases(a.text) if spell else {}
    shown = {}
    for w in top:
        cands = forms.get(w.casefold(), set())
        lower = sorted(f for f in cands if f == f.lower())
        if spell and w == w.lower():
            low, cap = cases.get(w, (0, 0))
            if cands and not lower and affixed(w) and (low > 0 or cap == 0):
                # An affix of a lowercase stem makes it ("grote" of "groot", "bent" of "ben"), whatever names are
                # written so ("Grote", "Bent"), unless the text writes it only capitalised ("Maarten", "Essen").
                shown[w] = w
                continue
            if not cands and not spell(w) and spell(w.capitalize()):
                # Only a capital makes it a word: an inflected name ("Nederlandse"), or the dictionary writes
                # ij as one letter ("Frankrĳk").
                shown[w] = w.capitalize()
                continue
        if lower:
            # A lowercase spelling exists ("sie", "essen"; "groß" for "gross"): the word is not a noun or a name.
            shown[w] = lower[0] if w not in lower else w
        elif cands:
            # Only capitalised spellings: a German noun or a name ("Straße", "España"); the commonest shape wins.
            shown[w] = sorted(cands, key=lambda f: (f != f.capitalize(), f))[0]
        else:
            shown[w] = (compound_form(w, forms) if a.compounds else None) or w
    with open(a.out_words, 'w', encoding='utf-8') as f:
        f.write('# %s word frequencies (word count, per 10^9 words): see README.md beside this file\n' % a.language)
        written = set()
        for w in top:
            form = shown[w]
            if form.lower() in written:
                continue
            written.add(form.lower())
            f.write('%s %d\n' % (form, max(1, round(counts[w]))))
    lexicon = {shown[w].lower() for w in top}
    # The text's spellings map to the list's: "strasse" (Swiss, or typed without ß) counts for "straße".
    folded = {}
    for w in top:
        folded.setdefault(w.casefold(), shown[w].lower())

    uni = collections.Counter()
    bi = collections.Counter()
    tri = collections.Counter()
    token_re = re.compile(r"[^\W_]+(?:['’][^\W_]+)*['’]?")
    for path in a.text:
        text = unicodedata.normalize('NFC', open(path, encoding='utf-8', errors='replace').read())
        for chunk in re.split(r'\n\s*\n|(?<=[.!?])\s+|\n', text):
            toks = ['<s>']
            for m in token_re.finditer(chunk):
                raw = m.group(0).replace('’', "'").lower()
                for p in split_elisions(raw, elisions):
                    if p.endswith("'") and p not in elisions:
                        p = p.rstrip("'")
                    if p:
                        toks.append(p if p in lexicon else folded.get(p.casefold(), p))
            for i, w in enumerate(toks):
                uni[w] += 1
                if i >= 1:
                    bi[(toks[i - 1], w)] += 1
                if i >= 2:
                    tri[(toks[i - 2], toks[i - 1], w)] += 1
    # Presage's n-gram counts (Debian's libpresage-data, an SQLite file per language): some words are stored in
    # Latin-1 among the UTF-8 ones, so a word that is not UTF-8 is read as Latin-1.
    def word(b):
        try:
            w = b.decode('utf-8')
        except UnicodeDecodeError:
            w = b.decode('latin-1')
        w = unicodedata.normalize('NFC', w).replace('’', "'").lower()
        return w if w in lexicon else folded.get(w.casefold(), w)
    for path in a.presage:
        db = sqlite3.connect('file:%s?mode=ro' % path, uri=True)
        db.text_factory = bytes
        for x, y, c in db.execute('SELECT word_1, word, count FROM _2_gram'):
            bi[(word(x), word(y))] += int(c)
        for x, y, z, c in db.execute('SELECT word_2, word_1, word, count FROM _3_gram'):
            tri[(word(x), word(y), word(z))] += int(c)
        for w, c in db.execute('SELECT word, count FROM _1_gram'):
            uni[word(w)] += int(c)
        db.close()
    ctx1 = collections.Counter()
    ctx2 = collections.Counter()
    for (x, _), c in bi.items():
        ctx1[x] += c
    for (x, y, _), c in tri.items():
        ctx2[(x, y)] += c

    def ok(w):
        return w == '<s>' or w in lexicon
    # Absolute discounting: a pair seen once in a small text does not outrank a word common everywhere. What is
    # added to the discounted count is what the predictor gives a word whose n-gram is not stored (for a bigram,
    # WordPredictor.backoff times its frequency; for a trigram, its bigram's estimate), so a stored n-gram never
    # scores below a missing one.
    total = sum(counts[w] for w in top)
    puni = {shown[w].lower(): counts[w] / total for w in top}
    nb = nt = 0
    pbi = {}
    with open(a.out_ngrams, 'w', encoding='utf-8') as f:
        f.write('# %s bigrams and trigrams (w1 w2 log10P, w1 w2 w3 log10P): see README.md beside this file\n' % a.language)
        for (x, y), c in sorted(bi.items()):
            if ok(x) and ok(y) and y != '<s>' and c >= a.min_bigram:
                p = min(1.0, (c - a.discount) / ctx1[x] + a.backoff * puni.get(y, 0))
                pbi[(x, y)] = p
                f.write('%s %s %.4f\n' % (x, y, math.log10(p)))
                nb += 1
        for (x, y, z), c in sorted(tri.items()):
            if c >= a.min_trigram and ok(x) and ok(y) and ok(z):
                p = min(1.0, (c - a.discount) / ctx2[(x, y)] + pbi.get((y, z), a.backoff * puni.get(z, 0)))
                f.write('%s %s %s %.4f\n' % (x, y, z, math.log10(p)))
                nt += 1
    print('%s: %d words, %d bigrams, %d trigrams from %d words of text'
          % (a.language, len(written), nb, nt, sum(uni.values()) - uni['<s>']), file=sys.stderr)


if __name__ == '__main__':
    main()
