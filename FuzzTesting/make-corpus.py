#!/usr/bin/env python3
"""Writes the seed corpora in Corpus/ from the real recordings in ../../shared/data (see Corpus/README.md).

Small slices only: a few KB per file, a handful of files per target. Run from anywhere; it overwrites.
"""
import gzip, os, struct, sys

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)
data = os.path.join(os.path.dirname(repo), "shared", "data")
face = os.path.join(data, "face")
corpus = os.path.join(here, "Corpus")

def put(target, name, content):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(content if isinstance(content, bytes) else content.encode())

def csv_lines(name):
    with open(os.path.join(face, name), encoding="utf-8") as f:
        return f.read().splitlines()

# Live Link Face CSV: the header and a few rows from each take (face-lost rows from apfel.csv).
takes = {n: csv_lines(n) for n in ["alex_rom_4.csv", "S07-001.csv", "apfel.csv"]}
for n, lines in takes.items():
    stem = n.rsplit(".", 1)[0]
    put("FuzzLiveLinkCSV", f"{stem}-start.csv", "\n".join(lines[:4]) + "\n")
    put("FuzzLiveLinkCSV", f"{stem}-middle.csv", "\n".join([lines[0]] + lines[1000:1003]) + "\n")
apfel = takes["apfel.csv"]
lost = next(i for i, l in enumerate(apfel) if l.endswith(",0"))
put("FuzzLiveLinkCSV", "apfel-face-lost.csv", "\n".join([apfel[0]] + apfel[lost - 1:lost + 3]) + "\n")

# NDJSON: the same real rows in the native format (timecode frames at 60 per second, as the decoder reads them).
def ndjson(header, row):
    cols = header.split(","); vals = row.split(",")
    h, m, s, ff = (float(x) for x in vals[0].split(":"))
    t = h * 3600 + m * 60 + s + ff / 60
    if len(vals) == 2:
        return '{"t": %r, "face": false}' % t
    blend, eyes, head = [], {}, {}
    for c, v in zip(cols[2:], vals[2:]):
        name = c[0].lower() + c[1:]
        if c.startswith("Head"):
            head[c[4:].lower()] = v
        elif c in ("LeftEyeYaw", "LeftEyePitch", "RightEyeYaw", "RightEyePitch"):
            eyes[name] = v
        elif c.endswith("Roll"):
            continue
        elif float(v) != 0:
            blend.append('"%s": %s' % (name, v))
    out = '{"t": %r, "face": true, "blend": {%s}' % (t, ", ".join(blend))
    out += ', "eyes": {%s}' % ", ".join('"%s": %s' % kv for kv in eyes.items())
    out += ', "head": {%s}' % ", ".join('"%s": %s' % kv for kv in head.items())
    return out + "}"

for n, lines in takes.items():
    stem = n.rsplit(".", 1)[0]
    put("FuzzNDJSON", f"{stem}.ndjson", "\n".join(ndjson(lines[0], r) for r in lines[500:503]) + "\n")
put("FuzzNDJSON", "apfel-face-lost.ndjson", "\n".join(ndjson(apfel[0], r) for r in apfel[lost - 1:lost + 2]) + "\n")
put("FuzzNDJSON", "gaze.ndjson", '{"t": 1.25, "face": true, "blend": {"jawOpen": 0.62}, "gaze": [0.4, 0.72]}\n'
    '{"t": 1.267, "face": false}\n{"t": 1.283, "gaze": null, "eyes": null, "head": null}\n')

# Live Link Face UDP: real packets from LLV_dao.gesichter, one datagram per file, and a run of
# u16be-length-prefixed datagrams as the fuzz target reads them.
with open(os.path.join(face, "LLV_dao.gesichter"), "rb") as f:
    raw = gzip.decompress(f.read())
count = struct.unpack(">I", raw[1:5])[0]
packets, i = [], 5
for _ in range(count):
    (n,) = struct.unpack(">I", raw[i:i + 4]); packets.append(raw[i + 4:i + 4 + n]); i += 4 + n
for k in (0, 60, 120):
    put("FuzzLiveLinkUDP", f"dao-packet-{k}.bin", packets[k])
put("FuzzLiveLinkUDP", "dao-packets-90-93.bin", b"".join(struct.pack(">H", len(p)) + p for p in packets[90:94]))
short = next((p for p in packets if len(p) < 100), None)
if short:
    put("FuzzLiveLinkUDP", "dao-no-face.bin", short)

# .gesichter: small real containers, plus the other formats (the target reads whole files as `replay` does).
def container(ps):
    body = bytes([6]) + struct.pack(">I", len(ps)) + b"".join(struct.pack(">I", len(p)) + p for p in ps)
    return gzip.compress(body, mtime=0)
put("FuzzGesichter", "dao-0-4.gesichter", container(packets[0:5]))
put("FuzzGesichter", "dao-100-109.gesichter", container(packets[100:110]))
put("FuzzGesichter", "dao-170-179.gesichter", container(packets[170:180]))
put("FuzzGesichter", "dao-packet-30.bin", packets[30])
put("FuzzGesichter", "alex-start.csv", "\n".join(takes["alex_rom_4.csv"][:3]) + "\n")
put("FuzzGesichter", "S07-001.ndjson", "\n".join(ndjson(takes["S07-001.csv"][0], r) for r in takes["S07-001.csv"][10:12]) + "\n")

# Config and keymaps: the project's shipped files.
for rel in ["config/gestures.toml", "keymaps/default.toml", "keymaps/dwell.toml", "keymaps/no-wink.toml"]:
    with open(os.path.join(repo, rel), "rb") as f:
        put("FuzzConfig", rel.replace("/", "-"), f.read())
put("FuzzConfig", "override.txt", "gesture.activate.press=0.55")

# Predictor: real English sentences (the LibriVox transcripts) and typing in progress.
with open(os.path.join(data, "speech", "pocketsphinx-test", "librivox", "transcription"), encoding="utf-8") as f:
    for k, line in enumerate(f.read().splitlines()[:5]):
        put("FuzzPredictor", f"librivox-{k}.txt", line.rsplit("(", 1)[0].strip().lower())
put("FuzzPredictor", "typing.txt", "Hello th")
put("FuzzPredictor", "apostrophe.txt", "I don't kn")
print("wrote", corpus, file=sys.stderr)
