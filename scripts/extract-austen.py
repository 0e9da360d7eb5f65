#!/usr/bin/env python3
"""Extract one novel as plain text from Debian's r-cran-janeaustenr package.

The package stores each novel as an R character vector (one element per line
of the Project Gutenberg text) inside an R lazy-load database (data/Rdata.rdb).
Each object there is a 4-byte big-endian length followed by a zlib stream of R's
XDR serialisation; this reads the strings out without needing R.

Usage: extract-austen.py PACKAGE_DIR TITLE > novel.txt
  PACKAGE_DIR  e.g. /usr/lib/R/site-library/janeaustenr (installed) or an
               unpacked .deb's copy of it
  TITLE        the novel's title line, e.g. Persuasion, Emma, "Pride and Prejudice"
"""
import struct
import sys
import zlib


def objects(rdb):
    pos = 0
    while pos + 4 <= len(rdb):
        d = zlib.decompressobj()
        try:
            data = d.decompress(rdb[pos + 4:])
        except zlib.error:
            pos += 1
            continue
        yield data
        pos = len(rdb) - len(d.unused_data)


def strings(data):
    """Returns the elements of a serialised top-level character vector, or None."""
    # XDR format: b'X\n', version, writer version, min reader version
    if not data.startswith(b"X\n"):
        return None
    pos = 2 + 12
    version = struct.unpack(">i", data[2:6])[0]
    if version == 3:
        n = struct.unpack(">i", data[pos:pos + 4])[0]
        pos += 4 + n  # native encoding name
    flags = struct.unpack(">i", data[pos:pos + 4])[0]
    if flags & 0xFF != 16:  # STRSXP
        return None
    pos += 4
    count = struct.unpack(">i", data[pos:pos + 4])[0]
    pos += 4
    out = []
    for _ in range(count):
        pos += 4  # CHARSXP flags
        n = struct.unpack(">i", data[pos:pos + 4])[0]
        pos += 4
        if n < 0:  # NA_STRING
            out.append("")
            continue
        out.append(data[pos:pos + n].decode("utf-8"))
        pos += n
    return out


def main():
    pkg, title = sys.argv[1], sys.argv[2]
    rdb = open(f"{pkg}/data/Rdata.rdb", "rb").read()
    for data in objects(rdb):
        lines = strings(data)
        # Each vector starts with the novel's title line.
        if lines and lines[0].strip().lower() == title.lower():
            sys.stdout.write("\n".join(lines) + "\n")
            return
    sys.exit(f"no novel titled {title!r} in {pkg}")


if __name__ == "__main__":
    main()
