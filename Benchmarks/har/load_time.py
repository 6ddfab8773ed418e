"""Times `understudy replay` from process start to its ready line, for the benchmark HAR and
for an empty HAR (the process's own start-up), alternating; prints the medians and the
difference, which is what loading the HAR costs.

    load_time.py UNDERSTUDY_BIN HAR EMPTY_HAR ROUNDS
"""
import os
import signal
import statistics
import subprocess
import sys
import time

binary, har, empty, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def time_to_ready(path):
    start = time.perf_counter()
    process = subprocess.Popen([binary, "replay", path, "--port", "0", "--log", "quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = process.stdout.readline()
    elapsed = time.perf_counter() - start
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if not line.startswith(b"Understudy listening on"):
        sys.exit("replay %s printed no ready line: %r %r" % (path, line, process.stderr.read()))
    return elapsed


loaded, baseline = [], []
for _ in range(rounds):
    loaded.append(time_to_ready(har))
    baseline.append(time_to_ready(empty))
full, bare = statistics.median(loaded), statistics.median(baseline)
print("start to ready line, median of %d: %.0f ms with the HAR (%.1f MB), %.0f ms with an empty HAR" % (
    rounds, full * 1000, os.path.getsize(har) / 1e6, bare * 1000))
load_ms = round((full - bare) * 1000)
print("HAR load time: %d ms (target < 1000 ms): %s" % (load_ms, "PASS" if load_ms < 1000 else "FAIL"))
print("LOAD_MS\t%d" % load_ms)
