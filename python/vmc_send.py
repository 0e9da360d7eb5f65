"""Sends VMC protocol frames with python-osc, as a face tracker such as VSeeFace or Waidayo does.

Usage: vmc_send.py PORT [--frames N] [--jaw-open-from K] [--loose]
Each frame sets JawOpen (1.0 from frame K on, else 0.05), Blink_L/Blink_R 0 and the head bone, then applies.
--loose sends each message as its own datagram instead of one bundle per frame.
"""
import argparse
import time

from pythonosc import osc_bundle_builder, osc_message_builder, udp_client

p = argparse.ArgumentParser()
p.add_argument("port", type=int)
p.add_argument("--frames", type=int, default=60)
p.add_argument("--jaw-open-from", type=int, default=-1)
p.add_argument("--loose", action="store_true")
p.add_argument("--fps", type=float, default=60)
a = p.parse_args()

client = udp_client.SimpleUDPClient("127.0.0.1", a.port)
for k in range(a.frames):
    jaw = 1.0 if 0 <= a.jaw_open_from <= k else 0.05
    messages = [
        ("/VMC/Ext/Blend/Val", ["JawOpen", jaw]),
        ("/VMC/Ext/Blend/Val", ["Blink_L", 0.0]),
        ("/VMC/Ext/Blend/Val", ["Blink_R", 0.0]),
        ("/VMC/Ext/Bone/Pos", ["Head", 0.0, 1.5, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ("/VMC/Ext/Blend/Apply", []),
    ]
    if a.loose:
        for address, args in messages:
            client.send_message(address, args)
    else:
        bundle = osc_bundle_builder.OscBundleBuilder(osc_bundle_builder.IMMEDIATELY)
        for address, args in messages:
            m = osc_message_builder.OscMessageBuilder(address=address)
            for v in args:
                m.add_arg(v)
            bundle.add_content(m.build())
        client.send(bundle.build())
    time.sleep(1 / a.fps)
