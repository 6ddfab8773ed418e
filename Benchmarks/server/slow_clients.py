#!/usr/bin/env python3
"""Many slow clients at once: opens CONNS connections to 127.0.0.1:PORT, each asking for PATH
once (Connection: close), and reads for SECONDS. Prints one JSON object: each connection's
rate (body bytes after its first body byte, over the time since it), its time to first byte,
and the body bytes delivered in all. Connections open in batches of 50 a few ms apart, so the
listen backlog never drops a SYN (a dropped SYN costs a one-second retry, not a slow network).

    python3 slow_clients.py PORT PATH CONNS SECONDS
"""
import asyncio
import json
import sys
import time


async def client(port, path, seconds, results, started):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sent = time.monotonic()
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    head = b""
    body = 0
    first_byte = first_body = last = None
    deadline = started + seconds
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                data = await asyncio.wait_for(reader.read(65536), remaining)
            except asyncio.TimeoutError:
                break
            if not data:
                break
            now = time.monotonic()
            if first_byte is None:
                first_byte = now
            if head is not None:
                head += data
                end = head.find(b"\r\n\r\n")
                if end < 0:
                    continue
                data = head[end + 4:]
                head = None
                if not data:
                    continue
            if first_body is None:
                first_body, first_size = now, len(data)
            body += len(data)
            last = now
    finally:
        writer.close()
    rate = None
    if first_body is not None and last is not None and last > first_body:
        rate = (body - first_size) / (last - first_body)
    results.append({"rate": rate, "ttfb": None if first_byte is None else first_byte - sent, "bytes": body})


async def main():
    port, path, conns, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    results = []
    started = time.monotonic()
    tasks = []
    for index in range(conns):
        tasks.append(asyncio.create_task(client(port, path, seconds, results, started)))
        if index % 50 == 49:
            await asyncio.sleep(0.02)
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    errors = [repr(o) for o in outcomes if isinstance(o, BaseException)]
    print(json.dumps({"connections": results, "errors": errors[:5], "errorCount": len(errors),
                      "bytes": sum(r["bytes"] for r in results)}))


asyncio.run(main())
