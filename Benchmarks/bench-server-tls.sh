#!/usr/bin/env bash
# HTTPS rows of `make bench-server` (issue 13): wrk over TLS against `understudy serve
# --tls-port` and nginx-light, serving the same 4 KB and 100 KB PNG files with the same P-256
# certificate (Benchmarks/server/make_cert.sh), the two servers alternating over several rounds.
#
#   keep-alive   the 4 KB and 100 KB PNG at 16 and 64 connections; target >= 0.8x nginx
#   new conns    `Connection: close` on every request, so each is a new TCP connection and a
#                full TLS handshake: wrk never offers a session to resume (it sets no session on
#                its SSL objects) and nginx has its session cache and tickets off; target
#                >= 0.5x nginx. Its req/s is new TLS connections per second.
#
#   BENCH_ROWS=tls bash Benchmarks/bench-server.sh      # these rows only (bench-server.sh runs this)
#   BENCH_DURATION=3 BENCH_ROUNDS=1 bash Benchmarks/bench-server-tls.sh   # a quick, noisier look
#
# Both servers negotiate TLS 1.3 with OpenSSL's client (wrk, curl): the script prints the
# protocol, cipher suite and key-exchange group each one chose, so a difference shows. nginx
# runs worker_processes = cores (what our event loop group uses). Everything listens on
# 127.0.0.1 at free ports; both servers are stopped by PID on exit.
#
# Exit status: 0 when every target is met, 1 when one is missed, 2 when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

duration="${BENCH_DURATION:-10}"
rounds="${BENCH_ROUNDS:-3}"
warmup="${BENCH_WARMUP:-3}"
cores="$(nproc)"
files=(4k.png 100k.png)

die() { echo "bench-server-tls: $*" >&2; exit 2; }

# --- Tools, installed only when missing ---------------------------------------------------------
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || missing+=(nginx-light)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]}..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}"
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

source Benchmarks/understudy-binary.sh
source Benchmarks/scratch.sh bench-server-tls
source Benchmarks/server/bench-files.sh
source Benchmarks/server/nginx.sh
bash Benchmarks/server/make_cert.sh "$work/tls"
chmod -R a+rX "$work"
chmod 644 "$work/tls/leaf-key.pem"   # nginx's workers may run as another user; a throwaway key

start_understudy serve "$work/stubs" --tls-port 0 --cert "$work/tls/leaf.pem" --key "$work/tls/leaf-key.pem"
tls_port="$(sed -n 's#.*and https://127\.0\.0\.1:\([0-9]*\).*#\1#p' "$work/understudy.log" | head -1)"
[ -n "$tls_port" ] || { cat "$work/understudy.log" >&2; die "understudy did not print its https listener"; }

nginx_port="$(free_port)"
start_nginx "    ssl_certificate $work/tls/leaf.pem;
    ssl_certificate_key $work/tls/leaf-key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache off;
    ssl_session_tickets off;" "    server {
        listen 127.0.0.1:$nginx_port ssl;
        root $work/nginx/www;
    }"

declare -A port=([understudy]="$tls_port" [nginx]="$nginx_port")
url() { echo "https://127.0.0.1:${port[$1]}/$2"; }
wait_ready() {
    local name="$1" pid="$2" log="$3"
    for _ in $(seq 300); do
        if curl -sf --cacert "$work/tls/ca.pem" -o /dev/null "$(url "$name" 4k.png)"; then return 0; fi
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$name exited before it was ready"; }
        sleep 0.1
    done
    cat "$log" >&2
    die "$name not ready over HTTPS after 30 s"
}
wait_ready understudy "$understudy_pid" "$work/understudy.log"
wait_ready nginx "$nginx_pid" "$work/nginx/error.log"

# The same bytes from both, verified against the bench CA; and what each negotiates.
echo
echo "HTTPS: understudy :$tls_port (pid $understudy_pid), nginx $("$nginx_bin" -v 2>&1 | sed 's#.*/##') :$nginx_port ($cores workers), one P-256 certificate"
for s in understudy nginx; do
    for f in "${files[@]}"; do
        got="$(curl -sf --cacert "$work/tls/ca.pem" "$(url "$s" "$f")" | sha256sum)"
        [ "$got" = "$(sha256sum <"$work/files/$f")" ] || die "$s does not serve $f byte for byte over HTTPS"
    done
    session="$(openssl s_client -connect "127.0.0.1:${port[$s]}" -CAfile "$work/tls/ca.pem" </dev/null 2>/dev/null)"
    printf '  %-10s %s, %s, %s\n' "$s" \
        "$(sed -n 's/^New, \(TLSv[0-9.]*\), Cipher is \(.*\)/\1 \2/p' <<<"$session" | head -1)" \
        "$(sed -n 's/^Server Temp Key: \(.*\)/key exchange \1/p;s/^Negotiated TLS1.3 group: \(.*\)/group \1/p' <<<"$session" | head -1)" \
        "$(grep -q 'Verify return code: 0 (ok)' <<<"$session" && echo 'chain verified' || echo 'chain NOT verified')"
done
echo "Load average before the runs: $(cut -d' ' -f1 /proc/loadavg) on $cores cores"
echo "wrk -t2 -d${duration}s, $rounds rounds, servers alternating; warm-up ${warmup}s a row each"

# One wrk run; prints "requests/s<TAB>errors" (socket errors and non-2xx answers).
run_wrk() {
    local target="$1" conns="$2" secs="$3"
    shift 3
    local out
    out="$(wrk -t2 -c"$conns" -d"${secs}s" "$@" "$target" 2>&1)" || { echo "$out" >&2; die "wrk failed on $target"; }
    awk '/^Requests\/sec:/ { rps = $2 }
         /Socket errors:/ { gsub(",", ""); for (i = 1; i <= NF; i++) if ($i ~ /^(connect|read|write|timeout)$/) e += $(i + 1) }
         /Non-2xx or 3xx responses:/ { e += $NF }
         END { if (rps == "") exit 1; printf "%s\t%d\n", rps, e }' <<<"$out" || { echo "$out" >&2; die "could not read wrk's output for $target"; }
}

# Rows: label, file, connections, extra wrk arguments.
rows=("keep-alive|4k.png|16|" "keep-alive|4k.png|64|" "keep-alive|100k.png|16|" "keep-alive|100k.png|64|" "new-conns|4k.png|16|Connection: close")
row_args() { local header="${1##*|}"; [ -n "$header" ] && printf '%s\n' -H "$header"; true; }
for s in understudy nginx; do
    for row in "${rows[@]}"; do
        IFS='|' read -r label f c header <<<"$row"
        mapfile -t extra < <(row_args "$row")
        run_wrk "$(url "$s" "$f")" "$c" "$warmup" "${extra[@]}" >/dev/null
    done
done

results="$work/results-tls.tsv"
: >"$results"
servers=(understudy nginx)
for round in $(seq "$rounds"); do
    order=("${servers[@]}")
    if (( round % 2 == 0 )); then order=(nginx understudy); fi
    for row in "${rows[@]}"; do
        IFS='|' read -r label f c header <<<"$row"
        mapfile -t extra < <(row_args "$row")
        for s in "${order[@]}"; do
            line="$(run_wrk "$(url "$s" "$f")" "$c" "$duration" "${extra[@]}")"
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$s" "$label" "$f" "$c" "$line" >>"$results"
            printf '  round %s  %-10s %-8s c%-3s %-10s %10.0f req/s\n' "$round" "$label" "$f" "$c" "$s" "${line%%$'\t'*}"
        done
    done
done

echo
status=0
python3 - "$results" <<'PY' || status=1
import statistics, sys
rows, errors = {}, 0
for line in open(sys.argv[1]):
    _, server, label, f, c, rps, failed = line.rstrip("\n").split("\t")
    rows.setdefault((label, f, int(c)), {}).setdefault(server, []).append(float(rps))
    errors += int(failed)
targets = {"keep-alive": 0.8, "new-conns": 0.5}
print("HTTPS, median req/s                understudy       nginx   ratio  target")
ok = True
for (label, f, c), by in sorted(rows.items(), key=lambda kv: (kv[0][0] != "keep-alive", kv[0][1] != "4k.png", kv[0][2])):
    u, n = statistics.median(by["understudy"]), statistics.median(by["nginx"])
    ratio = u / n if n else 0
    passed = ratio >= targets[label]
    ok &= passed
    print(f"  {label:<10} {f:<9} -c{c:<3}   {u:>10.0f}  {n:>10.0f}  {ratio:5.2f}x  >= {targets[label]}x {'PASS' if passed else 'FAIL'}")
if errors:
    print(f"socket errors or non-2xx answers: {errors}")
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
