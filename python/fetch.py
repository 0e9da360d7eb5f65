#!/usr/bin/env python3
"""Fetches one URL over HTTP or HTTPS and writes the body to standard output as it arrives; the shell checks,
counts and keeps it (setup's face model). The shell's binary does not link an HTTP client of its own: every
command would load one at start for a download done once.

Exit status: 0 the whole body was sent; 3 the server could not be reached; 4 it answered with another status
than 200 ("status CODE REASON" on standard error); 5 the transfer broke off. A one-line reason goes to standard
error in every case.

Usage: fetch.py URL [--timeout SECONDS]
"""
import http.client
import socket
import sys
import urllib.error
import urllib.request


def main():
    url = sys.argv[1]
    timeout = float(sys.argv[sys.argv.index("--timeout") + 1]) if "--timeout" in sys.argv else 30.0
    out = sys.stdout.buffer
    try:
        response = urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "handsfree-setup"}), timeout=timeout)
    except urllib.error.HTTPError as e:
        print(f"status {e.code} {e.reason}", file=sys.stderr)
        return 4
    except (urllib.error.URLError, socket.timeout, OSError, ValueError) as e:
        print(plain(getattr(e, "reason", e), timeout), file=sys.stderr)
        return 3
    if response.status != 200:
        print(f"status {response.status} {response.reason}", file=sys.stderr)
        return 4
    try:
        while True:
            chunk = response.read(1 << 16)
            if not chunk:
                break
            out.write(chunk)
            out.flush()
    except BrokenPipeError:
        # The shell stopped reading (more than the model's size): it says why.
        return 5
    except (http.client.IncompleteRead, socket.timeout, OSError) as e:
        print(plain(e, timeout), file=sys.stderr)
        return 5
    return 0


def plain(e, timeout):
    """A reason in words, without Python's class names and errno numbers."""
    if isinstance(e, http.client.IncompleteRead):
        return "the connection closed before the end"
    if isinstance(e, (socket.timeout, TimeoutError)):
        return f"nothing came for {timeout:g} s"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e)


if __name__ == "__main__":
    sys.exit(main())
