"""When a Moonshine model first shows text while an utterance is still being spoken, for `handsfree bench speech`.

The English Moonshine weights that install from a package (moonshine-cpp: Moonshine base, a model that reads a
whole stretch of audio, not a streaming one) are run as a live caption runs them: on all the audio heard so
far, again after each further 50 ms, a run starting when the audio is there and the last run has ended.

usage: moonshine_partial.py WAV START WORD [WAV START WORD ...]
  START: when the file's first word starts (seconds); WORD: that word, as the transcript has it.
Prints one JSON line per file: the audio time at which the first text and the first text starting with WORD
were shown (null: not within two seconds of START), and each run's compute time. Exit 3: moonshine-cpp is not
installed in this Python.
"""
import ctypes
import json
import sys
import time
import wave

try:
    import numpy as np
    import moonshine_cpp
except ImportError as e:
    print(f"moonshine_partial: {e} (scripts/python-env.sh moonshine installs it)", file=sys.stderr)
    sys.exit(3)

STEP = 0.05     # seconds of new audio between runs
HORIZON = 2.0   # seconds after the first word's start at most
# The model aborts the process (an ONNX shape error) on 50 ms of audio; 100 ms runs.
SHORTEST = 0.1


def main(argv):
    if len(argv) == 0 or len(argv) % 3 != 0:
        print(__doc__, file=sys.stderr)
        return 2
    # Every file is read and checked before the model loads (a second or more), so bad input is told at once.
    files = []
    for i in range(0, len(argv), 3):
        path, word = argv[i], argv[i + 2].lower()
        try:
            start = float(argv[i + 1])
            with wave.open(path) as w:
                if w.getframerate() != 16000 or w.getnchannels() != 1 or w.getsampwidth() != 2:
                    print(f"moonshine_partial: {path}: not 16 kHz mono 16-bit", file=sys.stderr)
                    return 1
                x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
        except (OSError, EOFError, ValueError, wave.Error) as e:
            print(f"moonshine_partial: {path}: {e}", file=sys.stderr)
            return 1
        if len(x) / 16000 < SHORTEST:
            print(f"moonshine_partial: {path}: shorter than {SHORTEST} s", file=sys.stderr)
            return 1
        files.append((path, start, word, x))

    model = moonshine_cpp.MoonshineModel()
    lib = moonshine_cpp.moonshine_lib

    def transcribe(samples):
        a = np.ascontiguousarray(samples, dtype=np.float32)
        out = ctypes.c_char_p(0)
        err = lib.moonshine_transcribe(model.model_handle, a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), a.size,
                                       ctypes.byref(out))
        if err != 0:
            raise RuntimeError(f"moonshine_transcribe failed with error {err}")
        text = out.value.decode("utf-8")
        lib.moonshine_free_text(out)
        return text

    def words(text):
        return [w.strip(".,?!;:\"'").lower() for w in text.split()]

    # The first run of a process pays for setting the model up: not part of any file's figure.
    transcribe(np.zeros(8000, dtype=np.float32))
    for path, start, word, x in files:
        length = len(x) / 16000
        clock, end = 0.0, SHORTEST
        first = right = None
        runs = []
        while right is None:
            clock = max(clock, end)
            t0 = time.perf_counter()
            shown = words(transcribe(x[: int(end * 16000)]))
            spent = time.perf_counter() - t0
            clock += spent
            runs.append(round(spent * 1000, 1))
            if shown and first is None:
                first = clock
            if shown and shown[0] == word:
                right = clock
            if end >= length or end > start + HORIZON:
                break
            end = min(length, max(end + STEP, clock))
        print(json.dumps({"file": path, "start": start, "first": first, "right": right, "runs_ms": runs}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
