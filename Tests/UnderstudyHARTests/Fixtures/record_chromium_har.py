"""Loads a page in headless Chromium and writes what its network did as HAR, built from the
DevTools protocol's Network events the way DevTools' own exporter builds its entries
(front_end/models/har/Log.ts; bodies added as "Save all as HAR with content" does: base64 for
anything not text). Chromium has no command-line switch that writes a HAR, so this is the
DevTools exporter's logic on the same events, not DevTools itself.

    record_chromium_har.py CHROMIUM URL OUT.har

Talks to Chromium over --remote-debugging-pipe (file descriptors 3 and 4, NUL-terminated JSON),
so it needs nothing beyond the standard library. Gives up after 60 s.
"""
import base64
import datetime
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

TEXT_TYPES = ("text/", "application/json", "application/javascript", "application/xml", "image/svg+xml")


class Pipe:
    def __init__(self, write_fd, read_fd):
        self.write_fd, self.read_fd = write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        return self.next_id

    def read_message(self, deadline, wait=None):
        """The next message; with `wait`, None when nothing came within that many seconds."""
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium stopped answering")
            ready, _, _ = select.select([self.read_fd], [], [], min(wait or 1, max(deadline - time.monotonic(), 0)))
            if not ready:
                if wait is not None:
                    return None
                continue
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=None, deadline=None):
        wanted = self.send(method, params, session)
        while True:
            message = self.read_message(deadline or time.monotonic() + 30)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)


def iso(wall_time):
    return datetime.datetime.fromtimestamp(wall_time, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def name_values(headers):
    return [{"name": name, "value": value} for name, value in headers.items()]


def timings(response, end_timestamp):
    # Log.ts _buildTimings, for a request with timing info.
    timing = response.get("timing")
    result = {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0,
              "_blocked_queueing": -1}
    if not timing:
        return result
    starts = [t for t in (timing["dnsStart"], timing["connectStart"], timing["sendStart"]) if t >= 0]
    blocked_start = min(starts) if starts else 0
    result["blocked"] = blocked_start
    dns_end = timing["dnsEnd"] if timing["dnsEnd"] >= 0 else -1
    result["dns"] = dns_end - (blocked_start if timing["dnsEnd"] >= 0 else 0)
    ssl_end = timing["sslEnd"] if timing["sslEnd"] > 0 else -1
    result["ssl"] = ssl_end - (timing["sslStart"] if timing["sslEnd"] > 0 else 0)
    connect_end = timing["connectEnd"] if timing["connectEnd"] >= 0 else -1
    connect_start = min([t for t in (dns_end, blocked_start) if t >= 0] or [0]) if timing["connectEnd"] >= 0 else 0
    result["connect"] = connect_end - connect_start
    send_start = max(connect_end, dns_end, blocked_start) if timing["sendEnd"] >= 0 else 0
    send_end = timing["sendEnd"] if timing["sendEnd"] >= 0 else 0
    result["send"] = max(send_end - send_start, 0)
    highest = max(send_end, connect_end, ssl_end, dns_end, blocked_start, 0)
    wait_end = timing["receiveHeadersEnd"]
    result["wait"] = max(wait_end - highest, 0)
    result["receive"] = max((end_timestamp - timing["requestTime"]) * 1000 - wait_end, 0) if end_timestamp else 0
    return result


def entry(hop, response, body, page_id):
    request = hop["request"]
    url = request["url"].split("#", 1)[0]
    protocol = response.get("protocol", "http/1.1")
    http_version = "HTTP/1.1" if protocol == "http/1.1" else protocol
    request_headers = hop.get("extraRequestHeaders") or request.get("headers", {})
    if protocol in ("h2", "http/2.0"):
        http_version = "http/2.0"
    headers_text = response.get("headersText") or ""
    content = {"size": len(body[0]) if body else 0, "mimeType": response.get("mimeType") or "x-unknown"}
    if body is not None:
        data, mime = body
        if data and (mime.startswith(TEXT_TYPES)):
            try:
                content["text"] = data.decode("utf-8")
            except UnicodeDecodeError:
                content["text"], content["encoding"] = base64.b64encode(data).decode(), "base64"
        elif data:
            content["text"], content["encoding"] = base64.b64encode(data).decode(), "base64"
    entry_timings = timings(response, hop.get("endTimestamp"))
    total = sum(max(entry_timings[k], 0) for k in ("blocked", "dns", "connect", "send", "wait", "receive"))
    transfer = hop.get("encodedDataLength", 0)
    result = {
        "_connectionId": str(response.get("connectionId", 0)),
        "_initiator": hop.get("initiator", {"type": "other"}),
        "_priority": request.get("initialPriority", "High"),
        "_resourceType": hop.get("type", "Other").lower(),
        "cache": {},
        "connection": str(response.get("connectionId", 0)),
        "pageref": page_id,
        "request": {
            "method": request["method"], "url": url, "httpVersion": http_version,
            "headers": name_values(request_headers),
            "queryString": [{"name": n, "value": v} for n, v in urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query, keep_blank_values=True)],
            "cookies": [], "headersSize": -1, "bodySize": 0,
        },
        "response": {
            "status": response["status"], "statusText": response.get("statusText", ""), "httpVersion": http_version,
            "headers": name_values(hop.get("extraResponseHeaders") or response.get("headers", {})),
            "cookies": [], "content": content,
            "redirectURL": next((v for n, v in response.get("headers", {}).items() if n.lower() == "location"), ""),
            "headersSize": len(headers_text) if headers_text else -1,
            "bodySize": (transfer - len(headers_text)) if headers_text else -1,
            "_transferSize": transfer, "_error": None, "_fetchedViaServiceWorker": response.get("fromServiceWorker", False),
        },
        "serverIPAddress": response.get("remoteIPAddress", "").strip("[]"),
        "startedDateTime": iso(hop["wallTime"]),
        "time": total,
        "timings": entry_timings,
    }
    return result


def main():
    chromium, page_url, out = sys.argv[1], sys.argv[2], sys.argv[3]
    # A process started from a Dispatch thread inherits blocked signals; Chromium must not.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    deadline = time.monotonic() + 60
    to_chromium_r, to_chromium_w = os.pipe()
    from_chromium_r, from_chromium_w = os.pipe()

    def wire_fds():
        # Copies first: the pipes may themselves be 3 and 4, and dup2 onto itself would keep
        # their close-on-exec flag.
        reader, writer = os.dup(to_chromium_r), os.dup(from_chromium_w)
        os.dup2(reader, 3)
        os.dup2(writer, 4)

    profile = tempfile.mkdtemp(prefix="har-chromium-")
    process = subprocess.Popen(
        [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--disable-component-update",
         "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        close_fds=False, preexec_fn=wire_fds)
    os.close(to_chromium_r)
    os.close(from_chromium_w)
    pipe = Pipe(to_chromium_w, from_chromium_r)
    try:
        version = pipe.call("Browser.getVersion", deadline=deadline)
        target = pipe.call("Target.createTarget", {"url": "about:blank"}, deadline=deadline)["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True}, deadline=deadline)["sessionId"]
        pipe.call("Network.enable", session=session, deadline=deadline)
        pipe.call("Page.enable", session=session, deadline=deadline)
        pipe.call("Network.setCacheDisabled", {"cacheDisabled": True}, session=session, deadline=deadline)
        navigation_start = time.time()
        pipe.call("Page.navigate", {"url": page_url}, session=session, deadline=deadline)

        hops = []          # one per request and redirect hop, in the order they were sent
        current = {}       # requestId -> its latest hop
        # ExtraInfo events (the headers as sent and received) may come before or after the
        # event they belong to: the n-th of a request id belongs to its n-th hop.
        extra_requests, extra_responses = {}, {}
        loaded_at = content_loaded_at = None
        last_activity = time.monotonic()
        while True:
            pending = [h for h in current.values() if not h.get("done")]
            if loaded_at and not pending and time.monotonic() - last_activity > 0.5:
                break
            message = pipe.read_message(deadline, wait=0.1)
            if message and "method" in message:
                pipe.events.append(message)
            while pipe.events:
                event = pipe.events.pop(0)
                method, params = event["method"], event.get("params", {})
                request_id = params.get("requestId")
                if method == "Page.loadEventFired":
                    loaded_at = params["timestamp"]
                elif method == "Page.domContentEventFired":
                    content_loaded_at = params["timestamp"]
                elif method == "Network.requestWillBeSent":
                    last_activity = time.monotonic()
                    previous = current.get(request_id)
                    if previous and "redirectResponse" in params:
                        previous.update(response=params["redirectResponse"], done=True, redirected=True, endTimestamp=params["timestamp"])
                    hop = {"requestId": request_id, "request": params["request"], "wallTime": params["wallTime"],
                           "timestamp": params["timestamp"], "initiator": params.get("initiator"), "type": params.get("type", "Other"),
                           "index": sum(1 for h in hops if h["requestId"] == request_id)}
                    current[request_id] = hop
                    hops.append(hop)
                elif method == "Network.requestWillBeSentExtraInfo":
                    extra_requests.setdefault(request_id, []).append(params["headers"])
                elif method == "Network.responseReceivedExtraInfo":
                    extra_responses.setdefault(request_id, []).append(params)
                elif method == "Network.responseReceived":
                    last_activity = time.monotonic()
                    current[request_id]["response"] = params["response"]
                    current[request_id]["type"] = params.get("type", current[request_id]["type"])
                elif method in ("Network.loadingFinished", "Network.loadingFailed"):
                    last_activity = time.monotonic()
                    hop = current[request_id]
                    hop.update(done=True, failed=method == "Network.loadingFailed", endTimestamp=params["timestamp"],
                               encodedDataLength=params.get("encodedDataLength", 0))
        for hop in hops:
            sent = extra_requests.get(hop["requestId"], [])
            received = extra_responses.get(hop["requestId"], [])
            if hop["index"] < len(sent):
                hop["extraRequestHeaders"] = sent[hop["index"]]
            if hop["index"] < len(received):
                hop["extraResponseHeaders"] = received[hop["index"]]["headers"]
                if "response" in hop and received[hop["index"]].get("headersText"):
                    hop["response"]["headersText"] = received[hop["index"]]["headersText"]

        entries = []
        for hop in hops:
            if "response" not in hop or hop.get("failed") or hop["request"]["url"].startswith("data:"):
                continue
            body = None
            if not hop.get("redirected"):
                result = pipe.call("Network.getResponseBody", {"requestId": hop["requestId"]}, session=session, deadline=deadline)
                data = base64.b64decode(result["body"]) if result["base64Encoded"] else result["body"].encode()
                body = (data, hop["response"].get("mimeType", ""))
            entries.append(entry(hop, hop["response"], body, "page_1"))

        first = hops[0] if hops else {"timestamp": 0}
        page = {
            "startedDateTime": iso(navigation_start), "id": "page_1", "title": page_url,
            "pageTimings": {
                "onContentLoad": (content_loaded_at - first["timestamp"]) * 1000 if content_loaded_at else -1,
                "onLoad": (loaded_at - first["timestamp"]) * 1000 if loaded_at else -1,
            },
        }
        product = version.get("product", "Chrome/unknown")
        har = {"log": {
            "version": "1.2",
            "creator": {"name": "record_chromium_har.py (DevTools HAR format)", "version": product.split("/")[-1]},
            "browser": {"name": "Chromium", "version": product.split("/")[-1]},
            "pages": [page], "entries": entries,
        }}
        with open(out, "w") as f:
            json.dump(har, f, indent=2)
        try:
            pipe.call("Browser.close", deadline=time.monotonic() + 5)
        except Exception:
            pass
    finally:
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
