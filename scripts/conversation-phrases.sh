#!/bin/bash
# Writes conversational phrase sets for `handsfree bench expand` and `handsfree bench typing --phrases` from a
# dialogue corpus nobody here wrote: the English part of chatterbot-corpus (PyPI, BSD 3-clause licence, by
# Gunther Cox and contributors: short dialogues, greetings, small talk), used here, never shipped.
#
#   conversation-typed.txt     the phrases to type or expand: the turns of every other dialogue, one a line,
#                              as "what the partner said<TAB>the reply" (the turn before it; empty at a start)
#   conversation-history.txt   the user's earlier sentences: the turns of the other dialogues, one a line, with
#                              every sentence that is also a typed phrase left out (never the phrase typed)
#   conversation-phrases.txt   the typed phrases alone, lowercased, letters and ' , . ? only (for bench typing)
#
# Usage: scripts/conversation-phrases.sh [OUT_DIR]   (default: a new temporary folder; its path is printed)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
py="$here/.venv/bin/python"
[ -x "$py" ] || py=python3
"$py" -m pip download --quiet --no-deps -d "$work" chatterbot-corpus==1.3.3 >/dev/null 2>&1 \
    || { echo "conversation-phrases: pip download chatterbot-corpus failed (no package index?)" >&2; exit 1; }
(cd "$work" && "$py" -m zipfile -e chatterbot_corpus-*.whl x)
"$py" - "$out" "$work"/x/chatterbot_corpus/data/english <<'PY'
import os, re, sys, yaml
out, folder = sys.argv[1:3]
dialogues = []
for name in sorted(os.listdir(folder)):
    if not name.endswith('.yml'):
        continue
    data = yaml.safe_load(open(os.path.join(folder, name), encoding='utf-8'))
    for conv in data.get('conversations', []):
        turns = [re.sub(r'\s+', ' ', str(t)).strip() for t in conv if isinstance(t, (str, int, float))]
        if turns:
            dialogues.append(turns)

def norm(s):
    return ' '.join(re.findall(r"[a-z0-9']+", s.lower()))

typed, history = [], []
for i, d in enumerate(dialogues):
    if i % 2 == 1:
        for k, t in enumerate(d):
            typed.append((d[k - 1] if k > 0 else '', t))
    else:
        history.extend(d)
typed_keys = {norm(t) for _, t in typed}
history = [h for h in history if norm(h) not in typed_keys]
with open(os.path.join(out, 'conversation-typed.txt'), 'w', encoding='utf-8') as f:
    for p, t in typed:
        f.write(p.replace('\t', ' ') + '\t' + t.replace('\t', ' ') + '\n')
with open(os.path.join(out, 'conversation-history.txt'), 'w', encoding='utf-8') as f:
    for h in history:
        f.write(h + '\n')
with open(os.path.join(out, 'conversation-phrases.txt'), 'w', encoding='utf-8') as f:
    for _, t in typed:
        s = t.lower().replace(';', ',').replace(':', ',').replace('!', '.').replace('"', '')
        s = re.sub(r'\s+', ' ', s).strip()
        if re.fullmatch(r"[a-z',.? ]+", s) and 3 <= len(s.split()) <= 12:
            f.write(s + '\n')
print(f"{len(dialogues)} dialogues: {len(typed)} typed turns, {len(history)} history lines", file=sys.stderr)
PY
echo "$out"
