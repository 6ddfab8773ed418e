#!/usr/bin/env python3
"""Writes a valid PNG of exactly SIZE bytes: random-ish RGB pixels (so zlib cannot shrink them
much), padded to the exact size with a tEXt chunk. Deterministic for a given size.

    python3 make_png.py OUT.png SIZE
"""
import random
import struct
import sys
import zlib


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width: int, height: int, rng: random.Random, padding: int = 0) -> bytes:
    rows = bytearray()
    for _ in range(height):
        rows.append(0)  # filter: none
        rows.extend(rng.getrandbits(8) for _ in range(width * 3))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    text = b""
    if padding:
        # tEXt: keyword, NUL, Latin-1 text. 12 bytes of chunk framing + 8 of keyword and NUL.
        text = chunk(b"tEXt", b"Comment\x00" + b"x" * (padding - 12 - 8))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + text
            + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


def main() -> None:
    out, size = sys.argv[1], int(sys.argv[2])
    # The largest square image whose PNG leaves room for the padding chunk (at least 20 bytes).
    side = 1
    while len(png(side + 1, side + 1, random.Random(size))) <= size - 20:
        side += 1
    data = png(side, side, random.Random(size))
    data = png(side, side, random.Random(size), padding=size - len(data))
    assert len(data) == size, (len(data), size)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
