#!/usr/bin/env python3
"""Writes COUNT different valid PNGs of exactly SIZE bytes each, DIR/0000.png, DIR/0001.png, ...
(random-ish RGB pixels from a seed per file, padded with a tEXt chunk, as make_png.py does):
the "feed" of the real-traffic benchmark rows, one stub per file.

    python3 make_feed.py DIR COUNT SIZE
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_png import png  # noqa: E402


def main() -> None:
    out, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    # The largest square image that leaves room for the padding chunk whatever the seed: random
    # pixels hardly compress, so the sizes differ by a few bytes; keep a margin of 64.
    side = 1
    while len(png(side + 1, side + 1, random.Random(0))) <= size - 84:
        side += 1
    for n in range(count):
        data = png(side, side, random.Random(n))
        data = png(side, side, random.Random(n), padding=size - len(data))
        assert len(data) == size, (n, len(data), size)
        with open(os.path.join(out, f"{n:04d}.png"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
