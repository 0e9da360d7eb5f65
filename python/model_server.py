#!/usr/bin/env python3
"""A plain HTTP server on 127.0.0.1 for the tests of the face model's download: it serves one file whole and
in the ways a download goes wrong. Prints "port N" once it listens (port 0 asks for a free one).

  /good       the file
  /corrupt    the same size, one byte changed (another checksum)
  /cut        Content-Length of the whole file, half of it sent, then the connection closed
  /nolength   half of the file with no Content-Length, then closed (looks whole to the client)
  /big        the file and a kilobyte more
  /missing    404
  /sequence   what a user retrying meets: corrupt, then cut, then good ever after

Usage: model_server.py FILE [--port N]
"""
import http.server
import socketserver
import sys


def main():
    path = sys.argv[1]
    port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 0
    with open(path, "rb") as f:
        data = f.read()
    corrupt = bytearray(data)
    corrupt[len(corrupt) // 2] ^= 0xFF
    served = {"sequence": 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, body, length=None, cut=False):
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            if length is not None:
                self.send_header("Content-Length", str(length))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body[: len(body) // 2] if cut else body)
            self.wfile.flush()
            self.close_connection = True

        def do_GET(self):
            name = self.path.strip("/").split("/")[0]
            if name == "sequence":
                served["sequence"] += 1
                name = {1: "corrupt", 2: "cut"}.get(served["sequence"], "good")
            if name == "good":
                self.send(data, len(data))
            elif name == "corrupt":
                self.send(bytes(corrupt), len(corrupt))
            elif name == "cut":
                self.send(data, len(data), cut=True)
            elif name == "nolength":
                self.send(data[: len(data) // 2])
            elif name == "big":
                more = data + b"\0" * 1024
                self.send(more, len(more))
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    with Server(("127.0.0.1", port), Handler) as httpd:
        print(f"port {httpd.server_address[1]}", flush=True)
        httpd.serve_forever()


if __name__ == "__main__":
    main()
