"""Whisper's decoder levers on Asterisk's recorded prompts (issue 45; docs/speech-languages.md, "Decoder levers").

Reads `bench speech --speech asterisk`'s sample (the same usable prompts, the same seed-45 shuffle, read at 16 kHz
through sox) and decodes each prompt as python/whisper_worker.py does (multilingual base int8, 2 threads, the
fitted window, the 12 + 10/s token cap, the temperature fallback within an 8 s budget, the 30 s redo of an
implausible text), once per setting in turn, so that every setting sees the same load (paired); the fallback's
sampling is seeded the same for each decode, so settings differ by the lever, not by the dice. One JSON line per
decode (text, errors as the bench counts them with Whisper's BasicTextNormalizer, wall and CPU ms).

    .venv/bin/python scripts/whisper-levers.py --lang es --limit 40 --settings shell,beam5,pad --out es.jsonl
    .venv/bin/python scripts/whisper-levers.py --report es.jsonl

A study beside the bench, not the bench: figures for the shell come from `handsfree bench speech`.
"""
import argparse, gzip, json, os, re, statistics, subprocess, sys, time, unicodedata
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np
import whisper_worker as ww
from faster_whisper import WhisperModel
import ctranslate2

M64 = (1 << 64) - 1


def shuffled(a, seed=45):
    a = list(a)
    state = [seed]

    def nxt():
        state[0] = (state[0] + 0x9E3779B97F4A7C15) & M64
        z = state[0]
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)
    for i in range(len(a) - 1, 0, -1):
        j = nxt() % (i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def usable(t):
    if not any(c.isalpha() for c in t):
        return False
    for c in t:
        cat = unicodedata.category(c)
        if cat[0] == "N" or cat in ("Sc", "Sm") or c in "[]()#*@/_":
            return False
    if "\ufffd" in t or "..." in t or "…" in t or "www" in t.lower():
        return False
    for i, c in enumerate(t):
        if c == "?":
            rest = t[i + 1:].lstrip(" ")
            if rest and rest[0].isalpha() and rest[0].islower():
                return False
    return True


def recordings(lang):
    body = gzip.open(f"/usr/share/doc/asterisk-core-sounds-{lang}/core-sounds-{lang}.txt.gz", "rt", encoding="utf-8", errors="replace").read()
    out = []
    for raw in body.splitlines():
        line = raw.strip(" \t\ufeff")
        if line.startswith(";") or ":" not in line:
            continue
        key, text = line.split(":", 1)
        key = key.strip(); text = text.strip().strip('"')
        if not key or " " in key or key.split("/")[0] in ("digits", "letters", "phonetic") or not usable(text):
            continue
        p = f"/usr/share/asterisk/sounds/{lang}/{key}.wav"
        if os.path.exists(p):
            out.append((p, text))
    return sorted(out)


def read(path, effect=None):
    cmd = ["sox", path, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", "-"]
    if effect:
        cmd = ["sox", path, "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", "-"] + effect
    data = subprocess.run(cmd, capture_output=True, check=True).stdout
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0


def sample(lang, limit):
    out = []
    for p, t in shuffled(recordings(lang)):
        if len(out) >= limit:
            break
        a = read(p)
        words = len([w for w in re.split(r"[^\w'’]+", t) if w and not w.isdigit()])
        if words > 5.0 * len(a) / 16000 or len(a) / 16000 > 30:
            continue
        out.append((p, t))
    return out


def norm(s, lang):
    s = unicodedata.normalize("NFKC", s).lower()
    s = re.sub(r"[<\[][^>\]]*[>\]]", "", s)
    s = re.sub(r"\(([^)]+?)\)", "", s)
    s = "".join(" " if unicodedata.category(c)[0] in "MSP" else c for c in s)
    if lang == "es":
        s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
    return s.split()


def edits(r, h):
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
            prev, d[j] = d[j], cur
    return d[len(h)]


SETTINGS = {
    "shell": {},
    "beam5": {"beam_size": 5},
    "beam5_pat2": {"beam_size": 5, "patience": 2.0},
    "beam5_lp": {"beam_size": 5, "length_penalty": 1.0},
    "noblank": {"suppress_blank": False},
    "norep3": {"no_repeat_ngram_size": 3},
    "rep1.1": {"repetition_penalty": 1.1},
    "timestamps": {"without_timestamps": False},
    "nofallback": {"temperature": 0.0},
    "win30": {"_window": 30.0},
    "win15": {"_window": 15.0},
    "lead0.3": {"_lead": 0.3},
    "trail0.5": {"_trail": 0.5},
    "pad": {"_lead": 0.3, "_trail": 0.5},
    "beam5_pad": {"beam_size": 5, "_lead": 0.3, "_trail": 0.5},
    "fill": {"_fill": True},
    "fill_beam5": {"_fill": True, "beam_size": 5},
    "sox_v": {"_sox": ["rate", "-v", "16000"]},
    "sox_q": {"_sox": ["rate", "-q", "16000"]},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", default="fr")
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--settings", default="shell")
    ap.add_argument("--out")
    ap.add_argument("--report", nargs="*")
    a = ap.parse_args()
    if a.report:
        for f in a.report:
            table(f)
        return
    if not a.out:
        ap.error("--out FILE (or --report FILE...)")
    names = a.settings.split(",")
    path, files = ww.base_files()
    model = WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=2, files=files)
    window = ww.fit_window(10.0)
    deadline = ww.bound_fallback(model)
    list(model.transcribe(np.zeros(16000, dtype=np.float32), language=a.lang, beam_size=1, without_timestamps=True,
                          condition_on_previous_text=False)[0])
    utts = sample(a.lang, a.limit)[a.skip:]
    out = open(a.out, "a")
    for p, ref in utts:
        base_audio = read(p)
        for name in names:
            s = dict(SETTINGS[name])
            minwin = s.pop("_window", 10.0)
            lead = s.pop("_lead", 0.0); trail = s.pop("_trail", 0.0)
            sox = s.pop("_sox", None)
            fill = s.pop("_fill", False)
            audio = read(p, sox) if sox else base_audio
            if lead or trail:
                audio = np.concatenate([np.zeros(int(lead * 16000), np.float32), audio, np.zeros(int(trail * 16000), np.float32)])
            kw = dict(beam_size=1, condition_on_previous_text=False, vad_filter=False, without_timestamps=True,
                      temperature=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
            kw.update(s)
            ctranslate2.set_random_seed(1234)
            seconds = len(audio) / 16000
            cap = int(12 + 10 * seconds)
            start = time.monotonic(); cpu0 = time.process_time()
            deadline[0] = start + 8.0

            def decode(frames):
                window[0] = frames
                segs, _ = model.transcribe(audio, language=a.lang, max_new_tokens=cap, **kw)
                return " ".join(x.text.strip() for x in segs).strip()
            frames = ww.window_frames(len(audio), minwin)
            if fill:
                # zeros up to the window, so the features there are silence's, not faster-whisper's 0-padding
                audio = np.concatenate([audio, np.zeros(max(0, frames * 160 - len(audio)), np.float32)])
            text = decode(frames)
            redo = False
            if ww.implausible(text, seconds) and time.monotonic() < deadline[0]:
                text = decode(ww.FULL_FRAMES); redo = True
            ms = (time.monotonic() - start) * 1000
            r, h = norm(ref, a.lang), norm(text, a.lang)
            out.write(json.dumps({"path": p, "setting": name, "ref": ref, "hyp": text, "ms": round(ms), "cpu_ms": round((time.process_time() - cpu0) * 1000),
                                  "errors": edits(r, h), "words": len(r), "redo": redo}, ensure_ascii=False) + "\n")
            out.flush()
    out.write(json.dumps({"load": os.getloadavg()}) + "\n")



def load(f):
    rows, load = [], None
    for line in open(f):
        d = json.loads(line)
        if "load" in d:
            load = d["load"]
        else:
            rows.append(d)
    return rows, load


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0


def table(f):
    rows, ld = load(f)
    by = {}
    for r in rows:
        by.setdefault(r["setting"], {})[r["path"]] = r
    base = by["shell"]
    print(f"{f}: load at end {ld}")
    for s, d in by.items():
        common = set(d) & set(base)
        rs = [d[p] for p in common]
        e = sum(r["errors"] for r in rs); w = sum(r["words"] for r in rs)
        e6 = sum(r["errors"] for r in rs if r["words"] >= 6); w6 = sum(r["words"] for r in rs if r["words"] >= 6)
        ms = [r["ms"] for r in rs]
        cpu = [r.get("cpu_ms", 0) for r in rs]
        ratio = statistics.median(d[p]["ms"] / max(1, base[p]["ms"]) for p in common)
        better = sum(d[p]["errors"] < base[p]["errors"] for p in common)
        worse = sum(d[p]["errors"] > base[p]["errors"] for p in common)
        print(f"  {s:12s} n={len(common):3d} WER {100*e/w:5.1f} % ({e}/{w})  >=6w {100*e6/max(1,w6):5.1f} %  p50 {pct(ms,.5):5d} ms  p90 {pct(ms,.9):5d} ms  cpu p50 {pct(cpu,.5):5d} p90 {pct(cpu,.9):5d}  "
              f"time/shell median x{ratio:.2f}  utts better {better} worse {worse}  redo {sum(r['redo'] for r in rs)}")


if __name__ == "__main__":
    main()
