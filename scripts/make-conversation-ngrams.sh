#!/bin/bash
# Rebuilds wordlists/conversation-en.txt, the conversational 4-gram model initials expansion mixes in, and adds to
# wordlists/words-en.txt the everyday words CMU's model has and symspell's list lacks ("favorite", "mom", "ok").
# Both from the BYU chit-chat dialogues: the PyPI wheel chitchat-dataset 0.9.0 (MIT, licence copied to
# wordlists/LICENSE-chitchat.txt). Needs Debian's pocketsphinx-en-us (en-us.lm.bin) and hunspell-en-us.
# The model leaves out the conversations held out as test and tuning texts (scripts/chitchat-phrases.sh).
# Usage: scripts/make-conversation-ngrams.sh
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
py="$here/.venv/bin/python"
[ -x "$py" ] || py=python3
"$py" -m pip download --quiet --no-deps -d "$work" chitchat-dataset==0.9.0 >/dev/null
"$py" -m zipfile -e "$work"/chitchat_dataset-0.9.0-py3-none-any.whl "$work/x"
data="$work/x/chitchat_dataset/dataset.json"
cp "$work/x/chitchat_dataset-0.9.0.dist-info/LICENSE" "$here/wordlists/LICENSE-chitchat.txt"
python3 "$here/scripts/add-lm-words.py" "$here/wordlists/words-en.txt" /usr/share/pocketsphinx/model/en-us/en-us.lm.bin "$data"
python3 "$here/scripts/make-conversation-ngrams.py" "$data" "$here/wordlists/words-en.txt" "$here/wordlists/conversation-en.txt"
