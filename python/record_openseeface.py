"""Runs a real OpenSeeFace tracker on a video file and records the UDP datagrams it sends, byte for byte.

Usage: record_openseeface.py OPENSEEFACE_DIR VIDEO OUT.bin [--python PY] [--model 0] [--max-datagrams N]
                             [--idle 5] [-- EXTRA facetracker.py ARGUMENTS]

OPENSEEFACE_DIR is a checkout of https://github.com/emilianavt/OpenSeeFace (BSD-2); this script only starts
its facetracker.py with PY (an interpreter with onnxruntime, numpy, pillow and opencv < 5) and contains none of
its code. A socket on 127.0.0.1 (a free port) receives every datagram; they are written to OUT.bin back to back,
in arrival order. With one face (facetracker's default, --faces 1) each datagram is exactly 1,785 bytes, which
this script checks, so the file splits on that size. Recording stops when the tracker exits, after
--max-datagrams, or after --idle seconds without a datagram once one has arrived (reading a file, the tracker
runs unpaced and may not exit at the end of input); the tracker started here is then stopped.

Exit codes: 0 recorded, 1 no datagram or a datagram of an unexpected size, 2 bad arguments.
"""
import argparse
import os
import socket
import subprocess
import sys
import time

FACE_SIZE = 1785

p = argparse.ArgumentParser()
p.add_argument("openseeface")
p.add_argument("video")
p.add_argument("out")
p.add_argument("--python", default=sys.executable)
p.add_argument("--model", type=int, default=0)
p.add_argument("--max-datagrams", type=int, default=120)
p.add_argument("--idle", type=float, default=5)
# Everything after "--" goes to facetracker.py unchanged.
argv = sys.argv[1:]
extra = argv[argv.index("--") + 1:] if "--" in argv else []
a = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)

tracker_py = os.path.join(a.openseeface, "facetracker.py")
if not os.path.isfile(tracker_py) or not os.path.isfile(a.video):
    print(f"record: need {tracker_py} and {a.video}", file=sys.stderr)
    sys.exit(2)

sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 0))
sock.settimeout(0.2)
port = sock.getsockname()[1]
cmd = [a.python, tracker_py, "-c", os.path.abspath(a.video), "--model", str(a.model),
       "-i", "127.0.0.1", "-p", str(port), "--silent", "1"] + extra
print("record: " + " ".join(cmd), file=sys.stderr, flush=True)
tracker = subprocess.Popen(cmd, cwd=a.openseeface)

datagrams = []
last = None
try:
    while len(datagrams) < a.max_datagrams:
        try:
            d, _ = sock.recvfrom(65536)
            datagrams.append(d)
            last = time.monotonic()
            continue
        except socket.timeout:
            pass
        if tracker.poll() is not None:
            break
        if last is not None and time.monotonic() - last > a.idle:
            break
finally:
    if tracker.poll() is None:
        tracker.terminate()
        try:
            tracker.wait(5)
        except subprocess.TimeoutExpired:
            tracker.kill()
            tracker.wait()
    sock.close()

sizes = sorted({len(d) for d in datagrams})
print(f"record: {len(datagrams)} datagrams, sizes {sizes}, tracker exit {tracker.returncode}", file=sys.stderr)
if not datagrams or sizes != [FACE_SIZE]:
    sys.exit(1)
with open(a.out, "wb") as f:
    for d in datagrams:
        f.write(d)
print(f"record: wrote {a.out} ({sum(map(len, datagrams))} bytes)", file=sys.stderr)
