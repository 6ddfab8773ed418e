"""Writes the replay benchmark's HAR: N image responses (PNG and lossy WebP, a few KB to about
100 KB), each at its own URL, as a browser would have recorded them; plus the list of paths
for wrk and an empty HAR (the start-up baseline).

    make_har.py OUT_DIR [N]

Needs Pillow (the project's .venv has it). The images are noise of sizes spread log-uniformly
so the bodies do not compress and their lengths cover the range; the same seed gives the same
files.
"""
import base64
import io
import json
import math
import os
import random
import sys

from PIL import Image

ACCEPT = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"


def image_bytes(rng, kind, target):
    # Random RGB noise costs about 3 bytes a pixel as PNG; lossy WebP of noise at q=80 about 1.
    per_pixel = 3.05 if kind == "png" else 1.1
    side = max(8, int(math.sqrt(target / per_pixel)))
    img = Image.frombytes("RGB", (side, side), rng.randbytes(side * side * 3))
    out = io.BytesIO()
    if kind == "png":
        img.save(out, "PNG", compress_level=1)
    else:
        img.save(out, "WEBP", quality=80)
    return out.getvalue()


def entry(path, kind, body):
    mime = "image/png" if kind == "png" else "image/webp"
    return {
        "startedDateTime": "2026-11-22T12:00:00.000Z",
        "time": 12.5,
        "request": {
            "method": "GET", "url": "http://images.example.com" + path, "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Host", "value": "images.example.com"}, {"name": "Accept", "value": ACCEPT}],
            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0,
        },
        "response": {
            "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": "Content-Type", "value": mime},
                {"name": "Content-Length", "value": str(len(body))},
                {"name": "Cache-Control", "value": "public, max-age=86400"},
            ],
            "cookies": [],
            "content": {"size": len(body), "mimeType": mime, "text": base64.b64encode(body).decode(), "encoding": "base64"},
            "redirectURL": "", "headersSize": -1, "bodySize": len(body),
        },
        "cache": {},
        "timings": {"send": 0.1, "wait": 12.0, "receive": 0.4},
    }


def har(entries):
    return {"log": {"version": "1.2", "creator": {"name": "understudy-bench", "version": "1"}, "entries": entries}}


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    rng = random.Random(20261122)
    entries, paths, sizes = [], [], []
    for n in range(count):
        kind = "webp" if n % 2 else "png"
        target = int(math.exp(rng.uniform(math.log(2_000), math.log(100_000))))
        body = image_bytes(rng, kind, target)
        path = "/img/%04d.%s" % (n, kind)
        entries.append(entry(path, kind, body))
        paths.append(path)
        sizes.append(len(body))
    with open(os.path.join(out, "images.har"), "w") as f:
        json.dump(har(entries), f)
    with open(os.path.join(out, "empty.har"), "w") as f:
        json.dump(har([]), f)
    with open(os.path.join(out, "paths.txt"), "w") as f:
        f.write("\n".join(paths) + "\n")
    sizes.sort()
    print("%d entries, bodies %d..%d bytes (median %d), %d PNG + %d WebP, HAR %.1f MB" % (
        count, sizes[0], sizes[-1], sizes[len(sizes) // 2], (count + 1) // 2, count // 2,
        os.path.getsize(os.path.join(out, "images.har")) / 1e6))


if __name__ == "__main__":
    main()
