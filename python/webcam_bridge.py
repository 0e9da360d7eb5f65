"""The webcam bridge: MediaPipe Face Landmarker on a camera or a video file, sent as HandsFree Shell frames.

Started and supervised by `handsfree webcam`; it can also be run by hand:

    webcam_bridge.py --model face_landmarker_with_blendshapes.task (--device /dev/video0 | --video FILE)
                     (--send udp://127.0.0.1:PORT | --out FILE.ndjson) [--max-frames N]

Each frame becomes one line of the shell's native NDJSON: {"t": seconds, "face": true, "blend": {ARKit name:
score, ...}, "head": {"yaw", "pitch", "roll"}} in radians from MediaPipe's facial transformation matrix (roll > 0
tilts the head toward the subject's right shoulder, as the tests check on video; yaw and pitch keep the matrix's
own signs, which calibration maps to the screen), or {"t": ..., "face": false}. With
--video every frame is processed as fast as the CPU allows and stamped with the video's own time, so the
output is the same on every run; with --device frames are stamped with the monotonic clock as captured.
The last line on standard error says how many frames were processed and at what rate.

Exit codes: 0 done, 2 bad arguments or input that cannot be opened, 3 a Python package is missing.
"""
import argparse
import json
import math
import os
import signal
import socket
import sys
import time

# The command that installs what is missing: the binary passes its own installation's (HANDSFREE_PYTHON_ENV).
INSTALL = os.environ.get("HANDSFREE_PYTHON_ENV", "scripts/python-env.sh")


def fail(code, message):
    print(f"webcam bridge: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def parse_args():
    p = argparse.ArgumentParser(description="MediaPipe Face Landmarker → HandsFree Shell frames")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--device", help="camera device, e.g. /dev/video0 (or its index)")
    src.add_argument("--video", help="a video file, processed frame by frame at full speed")
    dst = p.add_mutually_exclusive_group(required=True)
    dst.add_argument("--send", help="udp://127.0.0.1:PORT: one NDJSON datagram per frame")
    dst.add_argument("--out", help="FILE.ndjson ('-' for standard output)")
    p.add_argument("--model", required=True, help="face_landmarker_with_blendshapes.task")
    p.add_argument("--max-frames", type=int, default=0, help="stop after this many frames (0: no limit)")
    return p.parse_args()


def head_pose(m):
    """Yaw, pitch and roll in radians from MediaPipe's 4×4 facial transformation matrix (rotation part)."""
    r = [[float(m[i][j]) for j in range(3)] for i in range(3)]
    yaw = math.atan2(r[0][2], r[2][2])
    pitch = math.asin(max(-1.0, min(1.0, -r[1][2])))
    roll = math.atan2(r[1][0], r[1][1])
    # MediaPipe's face looks toward the camera along +z with y up; a chin-down nod turns +z toward -y.
    return {"yaw": round(yaw, 5), "pitch": round(-pitch, 5), "roll": round(roll, 5)}


def open_destination(args):
    if args.out:
        f = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
        return lambda line: f.write(line + "\n"), f.close if f is not sys.stdout else f.flush
    url = args.send
    if not url.startswith("udp://"):
        fail(2, f"--send {url}: expected udp://HOST:PORT")
    host, _, port = url[len("udp://"):].rpartition(":")
    try:
        address = (host or "127.0.0.1", int(port))
    except ValueError:
        fail(2, f"--send {url}: the port is not a number")
    sock = socket.socket(socket.AF_INET6 if ":" in address[0] else socket.AF_INET, socket.SOCK_DGRAM)

    def send(line):
        try:
            sock.sendto(line.encode(), address)
        except OSError as e:
            # The shell may not be listening yet, or restarting: frames are live, so drop and go on.
            print(f"webcam bridge: cannot send to {url}: {e}", file=sys.stderr, flush=True)

    return send, sock.close


def main():
    args = parse_args()
    if not os.path.isfile(args.model):
        fail(2, f"no model file {args.model}: get face_landmarker_with_blendshapes.task (Apache-2.0, "
                "from MediaPipe's model page or ../shared/data/models/) and pass --model PATH")
    # MediaPipe's C++ logging would otherwise fill the user's terminal at start.
    os.environ.setdefault("GLOG_minloglevel", "2")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        import cv2
        import mediapipe as mp
        from mediapipe.tasks import python as mp_python
        from mediapipe.tasks.python import vision
    except ImportError as e:
        fail(3, f"{e.name or e} is not installed for {sys.executable}: run " + INSTALL + " webcam")

    if args.video:
        if not os.path.isfile(args.video):
            fail(2, f"no video file {args.video}")
        cap = cv2.VideoCapture(args.video)
        what = args.video
    else:
        device = int(args.device) if args.device.isdigit() else args.device
        cap = cv2.VideoCapture(device)
        what = args.device
    if not cap.isOpened():
        fail(2, f"cannot open {what}" + ("" if args.video else " (is a camera connected, and may this user read it? "
                                          "ls -l /dev/video*; the user must be in the 'video' group)"))

    options = vision.FaceLandmarkerOptions(
        base_options=mp_python.BaseOptions(model_asset_path=args.model),
        running_mode=vision.RunningMode.VIDEO,
        num_faces=1,
        output_face_blendshapes=True,
        output_facial_transformation_matrixes=True,
    )
    landmarker = vision.FaceLandmarker.create_from_options(options)
    emit, close = open_destination(args)
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    frames = faces = 0
    last_ms = -1
    started = time.monotonic()
    while not stop:
        ok, bgr = cap.read()
        if not ok:
            if args.video:
                break
            fail(2, f"{what} stopped delivering frames")
        if args.video:
            t = frames / fps
        else:
            t = time.monotonic()
        # MediaPipe's video mode needs strictly increasing whole milliseconds.
        ms = max(int(round(t * 1000)), last_ms + 1)
        last_ms = ms
        rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        result = landmarker.detect_for_video(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb), ms)
        line = {"t": round(t, 6), "face": False}
        if result.face_blendshapes:
            faces += 1
            line["face"] = True
            line["blend"] = {c.category_name: round(float(c.score), 5)
                             for c in result.face_blendshapes[0] if not c.category_name.startswith("_")}
            if result.facial_transformation_matrixes:
                line["head"] = head_pose(result.facial_transformation_matrixes[0])
        emit(json.dumps(line, separators=(",", ":")))
        frames += 1
        if args.max_frames and frames >= args.max_frames:
            break
    close()
    landmarker.close()
    cap.release()
    elapsed = max(time.monotonic() - started, 1e-9)
    print(f"webcam bridge: {frames} frames ({faces} with a face) in {elapsed:.2f} s, {frames / elapsed:.1f} frames/s",
          file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
