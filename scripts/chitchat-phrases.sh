#!/bin/bash
# Writes a test text of real human conversation for `handsfree bench expand` from the part of the BYU chit-chat
# dialogues (PyPI chitchat-dataset 0.9.0, MIT) that wordlists/conversation-en.txt is made WITHOUT
# (scripts/make-conversation-ngrams.py, held_out): the conversations at places 0 mod 10 of the sorted ids ("test")
# or 5 mod 10 ("tune": the one to tune weights on; never tune on "test"). People wrote these to each other, unlike
# chatterbot-corpus (scripts/conversation-phrases.sh), which is a chatbot's script.
#
#   chitchat-SPLIT-typed.txt     the sentences to expand, one a line, as "what the partner said<TAB>the sentence"
#                                (the partner's last turn; empty at a start), from every other conversation of the
#                                split, until MAX phrases of 3-8 words are written
#   chitchat-SPLIT-history.txt   the user's earlier sentences: those of the split's other conversations, with every
#                                sentence that is also a typed one left out (never the phrase typed)
#
# A message is cut into sentences at . ! ? and new lines. Chat's apostrophe-less contractions are written as the
# word list's ("im" -> "I'm", "dont" -> "don't"), as the model reads them: the user means "I'm" and is offered it.
#
# Usage: scripts/chitchat-phrases.sh test|tune [OUT_DIR] [MAX]   (default: a new temporary folder, 1200)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
split="${1:?usage: chitchat-phrases.sh test|tune [OUT_DIR] [MAX]}"
[ "$split" = test ] || [ "$split" = tune ] || { echo "chitchat-phrases: split must be test or tune, not '$split'" >&2; exit 2; }
out="${2:-$(mktemp -d)}"
max="${3:-1200}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
py="$here/.venv/bin/python"
[ -x "$py" ] || py=python3
"$py" -m pip download --quiet --no-deps -d "$work" chitchat-dataset==0.9.0 >/dev/null 2>&1 \
    || { echo "chitchat-phrases: pip download chitchat-dataset failed (no package index?)" >&2; exit 1; }
(cd "$work" && "$py" -m zipfile -e chitchat_dataset-*.whl x)
"$py" - "$out" "$work/x/chitchat_dataset/dataset.json" "$here/wordlists/words-en.txt" "$split" "$max" <<'PY'
import json, os, re, sys
out, dataset, words_file, split, limit = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
want = 0 if split == 'test' else 5
vocab = set()
for line in open(words_file, encoding='utf-8'):
    p = line.split()
    if p:
        vocab.add(p[0].lower())

def contraction(m):
    t = m.group(0)
    low = t.lower()
    if low in vocab:
        return t
    for k in (1, 2):  # as scripts/make-conversation-ngrams.py reads them
        if len(low) > k and low[:-k] + "'" + low[-k:] in vocab:
            w = t[:-k] + "'" + t[-k:]
            return "I'm" if low == 'im' else w
    return t

def clean(s):
    s = re.sub(r'\s+', ' ', s.replace('\u2019', "'").replace('\t', ' ')).strip()
    return re.sub(r"[A-Za-z]+", contraction, s)

def nwords(s):
    return len(re.findall(r"[a-z0-9]+(?:'[a-z]+)*", s.lower()))

data = json.load(open(dataset, encoding='utf-8'))
convos = [data[k] for place, k in enumerate(sorted(data)) if place % 10 == want]
typed, history, counted = [], [], 0
for i, c in enumerate(convos):
    turns = [' '.join(str(m.get('text', '')) for m in turn) for turn in c.get('messages', [])]
    if i % 2 == 1 and counted < limit:
        for k, t in enumerate(turns):
            partner = clean(turns[k - 1]) if k > 0 else ''
            for s in re.split(r'[.!?]+|\n', t):
                s = clean(s)
                if s:
                    typed.append((partner, s))
                    counted += 3 <= nwords(s) <= 8
    elif i % 2 == 0:
        for t in turns:
            history += [clean(s) for s in re.split(r'[.!?]+|\n', t) if clean(s)]

def norm(s):
    return ' '.join(re.findall(r"[a-z0-9']+", s.lower()))

keys = {norm(t) for _, t in typed}
history = [h for h in history if norm(h) not in keys]
with open(os.path.join(out, f'chitchat-{split}-typed.txt'), 'w', encoding='utf-8') as f:
    for p, t in typed:
        f.write(p + '\t' + t + '\n')
with open(os.path.join(out, f'chitchat-{split}-history.txt'), 'w', encoding='utf-8') as f:
    for h in history:
        f.write(h + '\n')
print(f"{split}: {len(convos)} conversations; typed {len(typed)} sentences ({counted} of 3-8 words), history {len(history)} lines",
      file=sys.stderr)
PY
echo "$out"
