#!/usr/bin/env bash
# Many slow clients at once (issue 28, SPEC 16): 500 connections, each downloading a 2 MB file
# on `slow-3g` (2 s latency, 400 kbit/s = 50,000 B/s) for 30 s, from `understudy serve
# --network slow-3g`, then the same 500 from nginx-light with `limit_rate 50000` (nginx has no
# latency, only the rate) and `sendfile_max_chunk 16k`: by default nginx sends up to a second's
# worth (50 KB) at once, which the profiles' contract forbids (no burst beyond one 16 KB slice),
# so nginx is held to the same largest burst. Understudy sends 16 KB slices too. The client is
# Benchmarks/server/slow_clients.py (asyncio, one process), which times every connection's
# body on its own.
#
# nginx runs twice: with `tcp_nopush off`, so that each chunk leaves when nginx writes it, as
# ours do (the target is against this run); and with `tcp_nopush on`, as in the other rows.
# With TCP_NOPUSH (TCP_CORK) Linux holds each 16 KB chunk in the corked socket until its
# 200 ms cork timer sends it: the first byte reaches the client about 0.2 s late, and the
# sending (including the loopback delivery to the client) runs from that timer's softirq,
# charged to whatever task is on the CPU then, mostly not to nginx. Both are printed.
#
# Targets: every connection within 15% of 50,000 B/s on understudy; understudy's CPU per
# delivered MB (time on a CPU over the run, from /proc/PID/schedstat) at most 2x nginx's
# (its master and workers, each chunk sent when written); understudy's RSS after the run under
# 64 MB.
#
#   bash Benchmarks/bench-server-slow.sh                    # about 2 minutes
#   BENCH_SLOW_SECONDS=10 BENCH_SLOW_CONNECTIONS=100 bash Benchmarks/bench-server-slow.sh   # a quick look
#   BENCH_ROWS=slow bash Benchmarks/bench-server.sh         # the same, as a row of the server benchmark
#
# Exit status: 0 when every target is met, 1 when one is missed, 2 when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds="${BENCH_SLOW_SECONDS:-30}"
conns="${BENCH_SLOW_CONNECTIONS:-500}"
rate=50000
cores="$(nproc)"

die() { echo "bench-server-slow: $*" >&2; exit 2; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || missing+=(nginx-light)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]}..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}"
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
# Each side holds 500 sockets, and the client too.
ulimit -n 4096 2>/dev/null || ulimit -n "$(ulimit -Hn)"

source Benchmarks/understudy-binary.sh
source Benchmarks/scratch.sh bench-server-slow
chmod 755 "$work"
mkdir -p "$work/stubs" "$work/nginx/www" "$work/nginx/tmp"
# Random bytes: what is measured is pacing, not what the body is.
head -c 2000000 /dev/urandom >"$work/stubs/big.bin"
cp "$work/stubs/big.bin" "$work/nginx/www/big.bin"
cat >"$work/stubs/bench.yaml" <<'YAML'
stubs:
  - name: big
    request: { method: GET, path: /big.bin }
    response: { file: big.bin }
YAML
chmod -R a+rX "$work"

source Benchmarks/server/nginx.sh
start_understudy serve "$work/stubs" --network slow-3g
nginx_port="$(free_port)"
nginx_corked_port="$(free_port)"
start_nginx "" "    server {
        listen 127.0.0.1:$nginx_port backlog=1024;
        root $work/nginx/www;
        limit_rate $rate;
        sendfile_max_chunk 16k;
        tcp_nopush off;
    }
    server {
        listen 127.0.0.1:$nginx_corked_port backlog=1024;
        root $work/nginx/www;
        limit_rate $rate;
        sendfile_max_chunk 16k;
    }"
for port in "$nginx_port" "$nginx_corked_port"; do
    for _ in $(seq 100); do curl -sf -o /dev/null -r 0-0 "http://127.0.0.1:$port/big.bin" && break; sleep 0.1; done
done

# cpu_ns PID...: nanoseconds these processes have run on a CPU, every thread of each (user and
# system; the first field of /proc/PID/task/TID/schedstat, finer than /proc/PID/stat's 10 ms ticks).
cpu_ns() {
    local total=0 pid task fields
    for pid in "$@"; do
        for task in /proc/"$pid"/task/*; do
            read -ra fields <"$task/schedstat" || continue
            total=$(( total + fields[0] ))
        done
    done
    echo "$total"
}
# nginx's master and its workers.
nginx_pids() { echo "$nginx_pid" $(ps -o pid= --ppid "$nginx_pid"); }

run() {
    local name="$1" port="$2" out="$work/$1.json" before after
    shift 2
    before="$(cpu_ns "$@")"
    python3 Benchmarks/server/slow_clients.py "$port" /big.bin "$conns" "$seconds" >"$out"
    after="$(cpu_ns "$@")"
    echo "$name $(( after - before ))" >>"$work/cpu.txt"
}

echo
echo "Slow clients: $conns connections on slow-3g ($rate B/s) for ${seconds}s; understudy :$understudy_port, nginx limit_rate :$nginx_port ($cores workers)"
: >"$work/cpu.txt"
run understudy "$understudy_port" "$understudy_pid"
rss_kb="$(awk '/^VmRSS:/ { print $2 }' "/proc/$understudy_pid/status")"
echo "  nginx processes measured: $(nginx_pids | wc -w)"
run nginx "$nginx_port" $(nginx_pids)
run nginx-corked "$nginx_corked_port" $(nginx_pids)

python3 - "$work" "$rate" "$rss_kb" <<'PY'
import json, statistics, sys
work, rate, rss_kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cpu = {line.split()[0]: int(line.split()[1]) / 1e9 for line in open(f"{work}/cpu.txt")}
ok = True
per_mb = {}
labels = {"understudy": "understudy", "nginx": "nginx (tcp_nopush off)", "nginx-corked": "nginx (tcp_nopush on)"}
for name in ("understudy", "nginx", "nginx-corked"):
    result = json.load(open(f"{work}/{name}.json"))
    rates = [c["rate"] for c in result["connections"] if c["rate"] is not None]
    ttfb = [c["ttfb"] for c in result["connections"] if c["ttfb"] is not None]
    mb = result["bytes"] / 1e6
    per_mb[name] = cpu[name] / mb if mb else float("inf")
    off = [r for r in rates if abs(r - rate) > 0.15 * rate]
    missing = len(result["connections"]) - len(rates) + result["errorCount"]
    print(f"  {labels[name]:<22} {len(rates)} connections timed, rate min {min(rates, default=0):,.0f} median {statistics.median(rates) if rates else 0:,.0f} "
          f"max {max(rates, default=0):,.0f} B/s; {len(off)} beyond 15%; {missing} failed; first byte median "
          f"{statistics.median(ttfb) if ttfb else 0:.2f} s; {mb:,.1f} MB in {cpu[name]:.3f} s CPU = {per_mb[name] * 1000:.1f} ms/MB")
    if result["errors"]:
        print("    errors:", result["errors"])
    if name == "understudy":
        passed = not off and missing == 0
        ok &= passed
        print(f"  every connection within 15% of {rate:,} B/s: {'PASS' if passed else 'FAIL'}")
ratio = per_mb["understudy"] / per_mb["nginx"] if per_mb["nginx"] else float("inf")
corked = per_mb["understudy"] / per_mb["nginx-corked"] if per_mb["nginx-corked"] else float("inf")
print(f"  CPU per delivered MB, understudy / nginx with tcp_nopush on: {corked:.2f}x (its chunks sent by the cork timer, outside its CPU time)")
print(f"  CPU per delivered MB, understudy / nginx sending each chunk when written: {ratio:.2f}x  target <= 2x  {'PASS' if ratio <= 2 else 'FAIL'}")
ok &= ratio <= 2
print(f"  understudy RSS after the run: {rss_kb / 1024:.1f} MB  target < 64 MB  {'PASS' if rss_kb < 64 * 1024 else 'FAIL'}")
ok &= rss_kb < 64 * 1024
sys.exit(0 if ok else 1)
PY
