"""Makes a short real video of a still face for the webcam bridge's tests.

Usage: make_face_video.py OUT.avi [--seconds 3] [--fps 30]

The face is scikit-image's `astronaut` photo (Eileen Collins, NASA, public domain). It moves as a seated user
might: small shifts, and the head tilting to one side and back (roll up to ±8° around the face), so the bridge
runs on real video decoding, a real face and a real model, and its head roll can be checked.
"""
import argparse
import math

import cv2
from skimage import data

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--seconds", type=float, default=3)
p.add_argument("--fps", type=float, default=30)
a = p.parse_args()

image = cv2.cvtColor(data.astronaut(), cv2.COLOR_RGB2BGR)
h, w = image.shape[:2]
centre = (w * 0.46, h * 0.26)  # the face, roughly
writer = cv2.VideoWriter(a.out, cv2.VideoWriter_fourcc(*"MJPG"), a.fps, (w, h))
if not writer.isOpened():
    raise SystemExit(f"cannot write {a.out}")
n = int(a.seconds * a.fps)
for k in range(n):
    phase = k / max(1, n - 1)
    angle = 8 * math.sin(2 * math.pi * phase)  # degrees, counter-clockwise in the image
    m = cv2.getRotationMatrix2D(centre, angle, 1.0)
    m[0, 2] += 6 * math.sin(4 * math.pi * phase)
    m[1, 2] += 4 * math.cos(2 * math.pi * phase)
    writer.write(cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REPLICATE))
writer.release()
print(f"{a.out}: {n} frames at {a.fps} fps")
