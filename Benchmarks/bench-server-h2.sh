#!/usr/bin/env bash
# HTTP/2 rows of `make bench-server` (issue 14): h2load against `understudy serve` and
# nginx-light serving the same 4 KB and 100 KB PNG files over HTTP/2, `-c 16 -m 10` and
# `-c 64 -m 10`, the two servers alternating over several rounds. Prints the median req/s of
# each row side by side, the ratio, PASS/FAIL against the target (understudy >= 0.8x nginx)
# and understudy's RSS after the runs (target < 64 MB).
#
#   BENCH_ROWS=h2 bash Benchmarks/bench-server.sh          # these rows only (bench-server.sh runs this)
#   BENCH_H2_SCHEME=http bash Benchmarks/bench-server-h2.sh # the same, directly
#   BENCH_DURATION=3 BENCH_ROUNDS=1 ...                      # a quick, noisier look
#
# BENCH_H2_SCHEME selects the transport: `http` (default) is h2c with prior knowledge on the
# plain port, understudy's default and nginx's `listen ... http2` without `ssl`. `https` is
# HTTP/2 over TLS, h2 negotiated by ALPN, both servers with one P-256 certificate
# (Benchmarks/server/make_cert.sh) and TLS 1.3.
#
# Set-up it does itself on a fresh Debian machine, only when missing: apt `nghttp2-client`
# (h2load) and `nginx-light`. Each server runs on 127.0.0.1 at a free port and is stopped by
# PID on exit; nginx with worker_processes = cores (what our event loop group uses).
#
# Exit status: 0 when every target is met, 1 when one is missed, 2 when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scheme="${BENCH_H2_SCHEME:-http}"
duration="${BENCH_DURATION:-10}"
rounds="${BENCH_ROUNDS:-3}"
warmup="${BENCH_WARMUP:-3}"
cores="$(nproc)"
connections=(16 64)
streams=10
files=(4k.png 100k.png)

die() { echo "bench-server-h2: $*" >&2; exit 2; }
[ "$scheme" = http ] || [ "$scheme" = https ] || die "BENCH_H2_SCHEME must be http or https, not '$scheme'"

# --- Tools, installed only when missing ---------------------------------------------------------
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v h2load >/dev/null 2>&1 || missing+=(nghttp2-client)
{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || missing+=(nginx-light)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]}..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}"
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

source Benchmarks/understudy-binary.sh
source Benchmarks/scratch.sh bench-server-h2
source Benchmarks/server/bench-files.sh
source Benchmarks/server/nginx.sh

# understudy: h2c is on by default on the plain port; over TLS, h2 is offered by ALPN on the TLS
# listener, which serves the same P-256 certificate as nginx (Benchmarks/server/make_cert.sh).
if [ "$scheme" = https ]; then
    bash Benchmarks/server/make_cert.sh "$work/tls"
    chmod 644 "$work/tls/leaf-key.pem"   # nginx's workers may run as another user; a throwaway key
    start_understudy serve "$work/stubs" --tls-port 0 --cert "$work/tls/leaf.pem" --key "$work/tls/leaf-key.pem"
    understudy_port="$(sed -n 's#.*and https://127\.0\.0\.1:\([0-9]*\).*#\1#p' "$work/understudy.log" | head -1)"
    [ -n "$understudy_port" ] || { cat "$work/understudy.log" >&2; die "understudy did not print its https listener"; }
else
    start_understudy serve "$work/stubs"
fi

# nginx 1.25.1 and later turn HTTP/2 on with `http2 on;`; before, with `listen ... http2`
# (Debian 12 ships 1.22). Without `ssl` on the listener it speaks h2c with prior knowledge only.
nginx_port="$(free_port)"
nginx_version="$("$nginx_bin" -v 2>&1 | sed -n 's#.*nginx/\([0-9.]*\).*#\1#p')"
ssl=""
if [ "$scheme" = https ]; then
    ssl=" ssl"
    tls_directives="ssl_certificate $work/tls/leaf.pem; ssl_certificate_key $work/tls/leaf-key.pem; ssl_protocols TLSv1.2 TLSv1.3;"
else
    tls_directives=""
fi
if printf '%s\n1.25.1\n' "$nginx_version" | sort -V -C; then
    listen="listen 127.0.0.1:$nginx_port$ssl http2;"
else
    listen="listen 127.0.0.1:$nginx_port$ssl; http2 on;"
fi
# http2_max_requests went into keepalive_requests in 1.19.7; before that it is its own limit.
h2_requests=""
printf '%s\n1.19.7\n' "$nginx_version" | sort -V -C && h2_requests="http2_max_requests 1000000;"
start_nginx "    $h2_requests
    http2_max_concurrent_streams 128;" "    server {
        $listen
        $tls_directives
        root $work/nginx/www;
    }"

declare -A port=([understudy]="$understudy_port" [nginx]="$nginx_port")
url() { echo "$scheme://127.0.0.1:${port[$1]}/$2"; }
curl_h2=(--http2-prior-knowledge)
[ "$scheme" = https ] && curl_h2=(--http2 --cacert "$work/tls/ca.pem")

wait_ready() {
    local name="$1" pid="$2" log="$3"
    for _ in $(seq 300); do
        if curl -sf "${curl_h2[@]}" -o /dev/null "$(url "$name" 4k.png)"; then return 0; fi
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$name exited before it was ready"; }
        sleep 0.1
    done
    cat "$log" >&2
    die "$name not ready over HTTP/2 after 30 s"
}
wait_ready understudy "$understudy_pid" "$work/understudy.log"
wait_ready nginx "$nginx_pid" "$work/nginx/error.log"

# The same bytes from both, over HTTP/2.
for f in "${files[@]}"; do
    want="$(sha256sum <"$work/files/$f")"
    for s in understudy nginx; do
        version="$(curl -sf "${curl_h2[@]}" -o /dev/null -w '%{http_version}' "$(url "$s" "$f")")"
        [ "$version" = 2 ] || die "$s answered $f over HTTP/$version, not HTTP/2"
        got="$(curl -sf "${curl_h2[@]}" "$(url "$s" "$f")" | sha256sum)"
        [ "$got" = "$want" ] || die "$s does not serve $f byte for byte"
    done
done

# One h2load run; prints "requests/s<TAB>failed" (failed and errored requests).
run_h2load() {
    local target="$1" conns="$2" secs="$3" out rps failed
    out="$(h2load -t2 -c"$conns" -m"$streams" -D"$secs" --warm-up-time=1 "$target" 2>&1)" || { echo "$out" >&2; die "h2load failed on $target"; }
    rps="$(awk '/^finished in/ { gsub(",", ""); for (i = 1; i <= NF; i++) if ($(i + 1) == "req/s") print $i }' <<<"$out")"
    failed="$(awk '/^requests:/ { gsub(",", ""); for (i = 1; i <= NF; i++) { if ($(i + 1) == "failed") f = $i; if ($(i + 1) == "errored") e = $i } print f + e }' <<<"$out")"
    [ -n "$rps" ] || { echo "$out" >&2; die "could not read h2load's output for $target"; }
    printf '%s\t%s\n' "$rps" "${failed:-0}"
}

echo
echo "HTTP/2 ($scheme): understudy :$understudy_port (pid $understudy_pid), nginx $nginx_version :$nginx_port ($cores workers)"
echo "Load average before the runs: $(cut -d' ' -f1 /proc/loadavg) on $cores cores"
echo "h2load -t2 -c{16,64} -m$streams -D${duration}s, $rounds rounds, servers alternating; warm-up ${warmup}s a file each"
for s in understudy nginx; do
    for f in "${files[@]}"; do run_h2load "$(url "$s" "$f")" 64 "$warmup" >/dev/null; done
done

results="$work/results-h2.tsv"
: >"$results"
servers=(understudy nginx)
for round in $(seq "$rounds"); do
    order=("${servers[@]}")
    if (( round % 2 == 0 )); then order=(nginx understudy); fi
    for f in "${files[@]}"; do
        for c in "${connections[@]}"; do
            for s in "${order[@]}"; do
                line="$(run_h2load "$(url "$s" "$f")" "$c" "$duration")"
                printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$s" "$f" "$c" "$line" >>"$results"
                printf '  round %s  %-8s c%-3s %-10s %10.0f req/s\n' "$round" "$f" "$c" "$s" "${line%%$'\t'*}"
            done
        done
    done
done

echo
status=0
python3 - "$results" "$scheme" <<'PY' || status=1
import statistics, sys
rows = {}
failures = 0
for line in open(sys.argv[1]):
    _, server, f, c, rps, failed = line.split("\t")
    rows.setdefault((f, int(c)), {}).setdefault(server, []).append(float(rps))
    failures += int(failed)
print(f"HTTP/2 ({sys.argv[2]}), median req/s      understudy       nginx   ratio  target >= 0.8x")
ok = True
for (f, c), by in sorted(rows.items(), key=lambda kv: (kv[0][0] != "4k.png", kv[0][1])):
    u, n = statistics.median(by["understudy"]), statistics.median(by["nginx"])
    ratio = u / n if n else 0
    passed = ratio >= 0.8
    ok &= passed
    print(f"  {f:<9} -c{c:<3} -m10        {u:>10.0f}  {n:>10.0f}  {ratio:5.2f}x  {'PASS' if passed else 'FAIL'}")
if failures:
    print(f"failed or errored requests: {failures}")
    ok = False
sys.exit(0 if ok else 1)
PY

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
us_rss=$(rss_kb "$understudy_pid")
echo "RSS after the runs: understudy $(awk -v kb="$us_rss" 'BEGIN { printf "%.1f", kb / 1024 }') MB, target < 64 MB:" \
     "$([ "$us_rss" -lt $((64 * 1024)) ] && echo PASS || echo FAIL)"
[ "$us_rss" -lt $((64 * 1024)) ] || status=1
# For information, not judged: `serve` gives free heap back to the system after a second idle.
sleep 2
echo "  idle 2 s later: $(awk -v kb="$(rss_kb "$understudy_pid")" 'BEGIN { printf "%.1f", kb / 1024 }') MB"
exit "$status"
