#!/usr/bin/env python3
"""Soak test of `understudy serve`: CONNECTIONS keep-alive connections for SECONDS over a mix
of canned, JSON, generated, transcoded, negotiated, delayed, throttled and redirected stubs,
journal on. Loopback only; every connection stops by itself at the deadline, after finishing
the request it is on, so "requests sent" is exact.

The connections are shared among three ways in: plain HTTP on the plain port (60%), HTTPS on
the TLS listener (20%), and HTTPS through the plain port as a proxy, each connection opening
with `CONNECT img.soak.test:443` and going on inside the intercepted tunnel (20%). Both TLS
shares trust exactly the server's local CA (a fresh one in a temporary --ca-dir).

Passes (exit 0) when: no client saw an unexpected status, framing or body; the journal holds
(count + dropped) exactly the requests sent; RSS at the end is within 10% of RSS after the
first 10 s. Prints the figures either way.

usage: soak.py UNDERSTUDY_BIN STUBS_DIR [--seconds 60] [--connections 200] [--journal-limit 20000]
"""
import argparse
import asyncio
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import tempfile
import time

PNG = b"\x89PNG\r\n\x1a\n"

# (name, path, extra headers, expected status, expected body check)
def is_png(body): return body.startswith(PNG)
def is_webp(body): return body[:4] == b"RIFF" and body[8:12] == b"WEBP"
def is_json(body): return json.loads(body) == {"ok": True, "items": [1, 2, 3]}

MIX = [
    ("canned", "/canned.png", {}, 200, is_png),
    ("json", "/data.json", {}, 200, is_json),
    ("generated", "/generated.webp", {}, 200, is_webp),
    ("transcoded", "/transcoded.png", {}, 200, is_png),
    ("negotiated-webp", "/negotiated", {"Accept": "image/avif,image/webp,*/*;q=0.8"}, 200, is_webp),
    ("negotiated-png", "/negotiated", {"Accept": "image/png"}, 200, is_png),
    ("delayed", "/delayed.png", {}, 200, is_png),
    ("throttled", "/throttled.png", {}, 200, is_png),
    ("redirected", "/old.png", {}, 302, None),  # then follows Location to /canned.png
]


# How connections come in: (share name, fraction of the connections).
SHARES = [("http", 0.6), ("https", 0.2), ("connect", 0.2)]
CONNECT_HOST = "img.soak.test"


class Stats:
    def __init__(self):
        self.sent = 0
        self.by_kind = {name: 0 for name, *_ in MIX}
        self.by_share = {name: 0 for name, _ in SHARES}
        self.errors = []

    def error(self, text):
        if len(self.errors) < 20:
            self.errors.append(text)
        else:
            self.errors.append(None)


async def read_response(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if "content-length" not in headers:
        raise ValueError(f"no Content-Length in {lines[0]!r}")
    body = await reader.readexactly(int(headers["content-length"]))
    return status, headers, body


def share_of(number, connections):
    """The way in of connection `number`: the first 60% plain, then HTTPS, then CONNECT."""
    position, total = number / max(connections, 1), 0.0
    for name, fraction in SHARES:
        total += fraction
        if position < total:
            return name
    return SHARES[-1][0]


async def open_share(share, ports, tls):
    """A connection for `share`, and the Host header its requests carry."""
    if share == "http":
        reader, writer = await asyncio.open_connection("127.0.0.1", ports["http"])
        return reader, writer, f"127.0.0.1:{ports['http']}"
    if share == "https":
        reader, writer = await asyncio.open_connection("127.0.0.1", ports["https"], ssl=tls)
        return reader, writer, f"127.0.0.1:{ports['https']}"
    reader, writer = await asyncio.open_connection("127.0.0.1", ports["http"])
    writer.write(f"CONNECT {CONNECT_HOST}:443 HTTP/1.1\r\nHost: {CONNECT_HOST}:443\r\n\r\n".encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    if not head.startswith(b"HTTP/1.1 200"):
        raise ValueError(f"CONNECT answered {head[:40]!r}")
    await writer.start_tls(tls, server_hostname=CONNECT_HOST)
    return reader, writer, CONNECT_HOST


async def connection(number, share, ports, tls, deadline, stats):
    try:
        reader, writer, host = await asyncio.wait_for(open_share(share, ports, tls), 30)
    except Exception as error:
        stats.error(f"{share} connection {number}: {type(error).__name__}: {error}")
        return
    stats.by_share[share] += 1
    step = number  # each connection starts elsewhere in the mix
    try:
        while time.monotonic() < deadline:
            name, path, extra, expected, check = MIX[step % len(MIX)]
            step += 1
            lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "User-Agent: understudy-soak"]
            lines += [f"{k}: {v}" for k, v in extra.items()]
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
            stats.sent += 1
            try:
                status, headers, body = await asyncio.wait_for(read_response(reader), 30)
            except Exception as error:  # a dropped connection, bad framing, a hang
                stats.error(f"{name} {path}: {type(error).__name__}: {error}")
                return
            stats.by_kind[name] += 1
            if status != expected:
                stats.error(f"{name} {path}: status {status}, expected {expected}")
            elif check is not None and not check(body):
                stats.error(f"{name} {path}: unexpected body of {len(body)} bytes ({body[:16]!r})")
            elif expected == 302:
                location = headers.get("location", "")
                writer.write(f"GET {location} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
                stats.sent += 1
                status, _, body = await asyncio.wait_for(read_response(reader), 30)
                if status != 200 or not is_png(body):
                    stats.error(f"redirect target {location}: status {status}")
    finally:
        writer.close()


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def admin(port, path):
    import urllib.request
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/__admin/{path}", timeout=10) as response:
        return json.loads(response.read())


async def soak(ports, tls, pid, seconds, connections, stats):
    start = time.monotonic()
    deadline = start + seconds
    tasks = [
        asyncio.create_task(connection(n, share_of(n, connections), ports, tls, deadline, stats))
        for n in range(connections)
    ]
    await asyncio.sleep(min(10, seconds / 2))
    rss_early = rss_kb(pid)
    sent_early = stats.sent
    await asyncio.gather(*tasks)
    return rss_early, sent_early, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("stubs")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--journal-limit", type=int, default=20000)
    options = parser.parse_args()

    ca_dir = tempfile.mkdtemp(prefix="soak-ca.")
    server = subprocess.Popen(
        [options.binary, "serve", options.stubs, "--port", "0", "--tls-port", "0", "--ca-dir", ca_dir,
         "--intercept", CONNECT_HOST, "--log", "quiet", "--journal-limit", str(options.journal_limit)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        ready = server.stdout.readline()
        match = re.search(r"Understudy listening on http://127\.0\.0\.1:(\d+) and https://127\.0\.0\.1:(\d+)", ready)
        if not match:
            print(f"understudy did not start: {ready}{server.stdout.read()}", file=sys.stderr)
            return 2
        port = int(match.group(1))
        ports = {"http": port, "https": int(match.group(2))}
        tls = ssl.create_default_context(cafile=os.path.join(ca_dir, "ca.pem"))
        rss_start = rss_kb(server.pid)
        stats = Stats()
        rss_early, sent_early, elapsed = asyncio.run(soak(ports, tls, server.pid, options.seconds, options.connections, stats))
        rss_end = rss_kb(server.pid)
        health = admin(port, "health")
        journal = health["journal"]
        journaled = journal["count"] + journal["dropped"]
        growth = (rss_end - rss_early) / rss_early

        print(f"soak: {options.connections} keep-alive connections for {elapsed:.1f} s, journal limit {options.journal_limit}")
        print(f"  requests sent     {stats.sent} ({stats.sent / elapsed:.0f}/s)")
        for name, count in stats.by_kind.items():
            print(f"    {name:<17} {count}")
        print("  connections       " + ", ".join(f"{count} {name}" for name, count in stats.by_share.items()))
        unexpected = [e for e in stats.errors if e is not None]
        print(f"  client errors     {len([e for e in stats.errors])}")
        for error in unexpected:
            print(f"    {error}")
        print(f"  journal           {journal['count']} kept + {journal['dropped']} dropped = {journaled} (sent {stats.sent})")
        print(f"  RSS               start {rss_start / 1024:.1f} MB, after {min(10, options.seconds / 2):.0f} s {rss_early / 1024:.1f} MB"
              f" ({sent_early} requests), end {rss_end / 1024:.1f} MB: {growth * 100:+.1f}%")
        failures = []
        if stats.errors:
            failures.append(f"{len(stats.errors)} client errors")
        if journaled != stats.sent:
            failures.append(f"journal holds {journaled} requests, {stats.sent} were sent")
        if abs(growth) > 0.10:
            failures.append(f"RSS moved {growth * 100:+.1f}% after the first 10 s (limit 10%)")
        if server.poll() is not None:
            failures.append(f"understudy exited with {server.returncode}")
        print("PASS" if not failures else "FAIL: " + "; ".join(failures))
        return 0 if not failures else 1
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        subprocess.run(["rm", "-rf", ca_dir], check=False)


if __name__ == "__main__":
    sys.exit(main())
