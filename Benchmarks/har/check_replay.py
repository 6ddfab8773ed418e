"""Checks that a replay server answers every entry of the benchmark HAR with 200 and the
recorded bytes, before it is timed.

    check_replay.py BASE_URL HAR NAME
"""
import base64
import http.client
import json
import sys
import urllib.parse

base, har_path, name = sys.argv[1], sys.argv[2], sys.argv[3]
target = urllib.parse.urlsplit(base)
entries = json.load(open(har_path))["log"]["entries"]
connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
bad = []
for entry in entries:
    url = urllib.parse.urlsplit(entry["request"]["url"])
    path = url.path + ("?" + url.query if url.query else "")
    accept = next(h["value"] for h in entry["request"]["headers"] if h["name"].lower() == "accept")
    connection.request("GET", path, headers={"Accept": accept})
    response = connection.getresponse()
    body = response.read()
    want = base64.b64decode(entry["response"]["content"]["text"])
    if response.status != 200 or body != want:
        bad.append("%s: %d, %d bytes (want 200, %d bytes)" % (path, response.status, len(body), len(want)))
if bad:
    print("%s does not replay the HAR: %d of %d wrong, e.g. %s" % (name, len(bad), len(entries), "; ".join(bad[:3])), file=sys.stderr)
    sys.exit(1)
print("%s answers all %d entries with 200 and the recorded bytes" % (name, len(entries)))
