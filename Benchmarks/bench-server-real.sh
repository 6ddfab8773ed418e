#!/usr/bin/env bash
# Real-traffic rows of `make bench-server` (issue 27, SPEC section 17): traffic shaped like an
# image client's, not one request repeated, against `understudy serve` and nginx-light on the
# same files, the two servers alternating over several rounds.
#
#   feed     1,000 different 4 KB PNGs, one `file:` stub each (as a replayed HAR makes), every
#            connection asking for them in turn (wrk: a Lua script rotating the URL list, each
#            thread from its own start; h2load: the list as its input file, -i).
#   traced   one 4 KB PNG with a W3C `traceparent` header that differs on every request (wrk:
#            a Lua script). h2load cannot vary a header per request, so over h2 the row sends
#            a fixed `traceparent` and a query string that differs on every request
#            (`/4k.png?trace=N`, 100,000 distinct URIs from its input file): every HEADERS block
#            differs, as with a varying header, and both servers ignore the query for a file.
#   one      the same 4 KB PNG, one URL, every request alike (wrk: a Lua script too; h2load: a
#            list of that one URI): not real traffic, but the one-URL row measured in the same
#            rounds as the two above, so that how much faster one URL goes than the feed can be
#            set beside nginx's own figure from the same minutes. (The one-URL rows of
#            bench-server.sh run half an hour apart from these, and this VM's rates move by 15%
#            and more between runs.)
#
# Each at -c16 and -c64 over HTTP/1.1 (wrk -t2), HTTPS (wrk -t2, TLS 1.3) and h2 over TLS
# (h2load -t2 -m10, ALPN), both servers with one P-256 certificate (server/make_cert.sh). Target
# >= 0.8x nginx on every row, judged on the median of the rounds' ratios: each round runs the
# two servers back to back, so a slow phase of the machine (this VM's rates move by 15% and more
# from one run to the next) weighs on both halves of a pair alike. A ratio of the two servers'
# median rates could set one server's run from a slow round against the other's from a fast
# one (https traced c16: rounds 0.76x, 0.92x and 0.89x, medians 41,717 against 53,784 = 0.78x);
# over 84 rows of seven runs the two estimates differed by 0.000 on average. The ratio of the
# medians is printed too. For each row it also prints:
#   - CPU per request: the server's utime + stime over the run (nginx: master and workers)
#     divided by the requests the client completed, median over the rounds;
#   - understudy's RSS the moment the row's runs end (the most over the rounds: target < 64 MB),
#     and again after 1.5 s idle, once `serve` has given free heap back (for information).
#
#   BENCH_ROWS=real bash Benchmarks/bench-server.sh      # these rows only (bench-server.sh runs this)
#   BENCH_REAL_SETS="h1 h2tls" bash Benchmarks/bench-server-real.sh   # some transports only
#   BENCH_DURATION=3 BENCH_ROUNDS=1 bash Benchmarks/bench-server-real.sh   # a quick, noisier look
#
# Exit status: 0 when every target is met, 1 when one is missed, 2 when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

duration="${BENCH_DURATION:-10}"
rounds="${BENCH_ROUNDS:-3}"
warmup="${BENCH_WARMUP:-3}"
sets=(${BENCH_REAL_SETS:-h1 https h2tls})
cores="$(nproc)"

die() { echo "bench-server-real: $*" >&2; exit 2; }
for s in "${sets[@]}"; do
    case "$s" in h1|https|h2tls) ;; *) die "BENCH_REAL_SETS: unknown set '$s'; expected h1, https or h2tls" ;; esac
done

# --- Tools, installed only when missing ---------------------------------------------------------
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v h2load >/dev/null 2>&1 || missing+=(nghttp2-client)
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
source Benchmarks/scratch.sh bench-server-real
source Benchmarks/server/bench-files.sh
source Benchmarks/server/nginx.sh

source Benchmarks/server/real-traffic.sh
# nginx serves the same feed files from www/feed.
cp -r "$work/stubs/feed" "$work/nginx/www/feed"
bash Benchmarks/server/make_cert.sh "$work/tls"
chmod -R a+rX "$work"
chmod 644 "$work/tls/leaf-key.pem"   # nginx's workers may run as another user; a throwaway key

start_understudy serve "$work/stubs" --tls-port 0 --cert "$work/tls/leaf.pem" --key "$work/tls/leaf-key.pem"
tls_port="$(sed -n 's#.*and https://127\.0\.0\.1:\([0-9]*\).*#\1#p' "$work/understudy.log" | head -1)"
[ -n "$tls_port" ] || { cat "$work/understudy.log" >&2; die "understudy did not print its https listener"; }

# nginx: plain HTTP/1.1, HTTPS, and h2 over TLS, each on its own port.
nginx_version="$("$nginx_bin" -v 2>&1 | sed -n 's#.*nginx/\([0-9.]*\).*#\1#p')"
nginx_http="$(free_port)" nginx_https="$(free_port)" nginx_h2="$(free_port)"
if printf '%s\n1.25.1\n' "$nginx_version" | sort -V -C; then
    h2_listen="listen 127.0.0.1:$nginx_h2 ssl http2;"
else
    h2_listen="listen 127.0.0.1:$nginx_h2 ssl; http2 on;"
fi
h2_requests=""
printf '%s\n1.19.7\n' "$nginx_version" | sort -V -C && h2_requests="http2_max_requests 1000000;"
start_nginx "    ssl_certificate $work/tls/leaf.pem;
    ssl_certificate_key $work/tls/leaf-key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    $h2_requests
    http2_max_concurrent_streams 128;" "    server { listen 127.0.0.1:$nginx_http; root $work/nginx/www; }
    server { listen 127.0.0.1:$nginx_https ssl; root $work/nginx/www; }
    server { $h2_listen root $work/nginx/www; }"

# base_url SET SERVER: where SERVER answers SET's rows.
base_url() {
    case "$1/$2" in
        h1/understudy) echo "http://127.0.0.1:$understudy_port" ;;
        h1/nginx) echo "http://127.0.0.1:$nginx_http" ;;
        https/understudy | h2tls/understudy) echo "https://127.0.0.1:$tls_port" ;;
        https/nginx) echo "https://127.0.0.1:$nginx_https" ;;
        h2tls/nginx) echo "https://127.0.0.1:$nginx_h2" ;;
    esac
}
curl_for() { case "$1" in h1) echo "--http1.1" ;; https) echo "--http1.1 --cacert $work/tls/ca.pem" ;; h2tls) echo "--http2 --cacert $work/tls/ca.pem" ;; esac; }

for s in understudy nginx; do
    for _ in $(seq 300); do
        curl -sf $(curl_for h1) -o /dev/null "$(base_url h1 "$s")/feed/0999.png" && break
        sleep 0.1
    done
done
# The same bytes from both, over each transport.
for set in "${sets[@]}"; do
    for s in understudy nginx; do
        for f in 4k.png feed/0000.png feed/0999.png; do
            got="$(curl -sf $(curl_for "$set") -H 'traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' "$(base_url "$set" "$s")/$f?trace=1" | sha256sum)"
            if [ -f "$work/files/$f" ]; then want="$(sha256sum <"$work/files/$f")"; else want="$(sha256sum <"$work/stubs/$f")"; fi
            [ "$got" = "$want" ] || die "$s does not serve $f byte for byte over $set"
        done
        if [ "$set" = h2tls ]; then
            v="$(curl -sf $(curl_for h2tls) -o /dev/null -w '%{http_version}' "$(base_url h2tls "$s")/4k.png")"
            [ "$v" = 2 ] || die "$s answered over HTTP/$v, not h2"
        fi
    done
done

# h2load's inputs: URI lists, per server, as they hold the port (wrk's scripts are from real-traffic.sh).
for s in understudy nginx; do
    base="$(base_url h2tls "$s")"
    for ((n = 0; n < feed_size; n++)); do printf '%s/feed/%04d.png\n' "$base" "$n"; done >"$work/feed-$s.uris"
    awk -v b="$base" 'BEGIN { for (n = 1; n <= 100000; n++) printf "%s/4k.png?trace=%d\n", b, n }' >"$work/traced-$s.uris"
    echo "$base/4k.png" >"$work/one-$s.uris"
done

# CPU time (utime + stime, in clock ticks) of a server: understudy's process, or nginx's master
# and workers.
ticks_of() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
server_ticks() {
    local total=0 pid
    if [ "$1" = nginx ]; then
        for pid in "$nginx_pid" $(pgrep -P "$nginx_pid" || true); do total=$((total + $(ticks_of "$pid"))); done
    else
        total="$(ticks_of "$understudy_pid")"
    fi
    echo "$total"
}
hz="$(getconf CLK_TCK)"
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# One run; prints "requests/s<TAB>errors<TAB>requests done".
run_client() {
    local set="$1" shape="$2" server="$3" conns="$4" secs="$5" base out
    base="$(base_url "$set" "$server")"
    if [ "$set" = h2tls ]; then
        local header=()
        [ "$shape" = traced ] && header=(-H "traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        out="$(h2load -t2 -c"$conns" -m10 -D"$secs" --warm-up-time=1 "${header[@]}" -i "$work/$shape-$server.uris" 2>&1)" \
            || { echo "$out" >&2; die "h2load failed against $server"; }
        awk '/^finished in/ { gsub(",", ""); for (i = 1; i <= NF; i++) if ($(i + 1) == "req/s") rps = $i }
             /^requests:/ { gsub(",", ""); for (i = 1; i <= NF; i++) { if ($(i + 1) == "failed") f = $i; if ($(i + 1) == "errored") e = $i; if ($(i + 1) == "succeeded") ok = $i } }
             END { if (rps == "") exit 1; printf "%s\t%d\t%d\n", rps, f + e, ok }' <<<"$out" || { echo "$out" >&2; die "could not read h2load's output"; }
    else
        out="$(wrk -t2 -c"$conns" -d"${secs}s" -s "$work/$shape.lua" "$base/" 2>&1)" || { echo "$out" >&2; die "wrk failed against $server"; }
        awk '/^Requests\/sec:/ { rps = $2 }
             / requests in / { done = $1 }
             /Socket errors:/ { gsub(",", ""); for (i = 1; i <= NF; i++) if ($i ~ /^(connect|read|write|timeout)$/) e += $(i + 1) }
             /Non-2xx or 3xx responses:/ { e += $NF }
             END { if (rps == "") exit 1; printf "%s\t%d\t%d\n", rps, e, done }' <<<"$out" || { echo "$out" >&2; die "could not read wrk's output"; }
    fi
}

echo
echo "Real-traffic rows: understudy :$understudy_port and https :$tls_port (pid $understudy_pid), nginx $nginx_version" \
     ":$nginx_http, https :$nginx_https, h2 :$nginx_h2 ($cores workers)"
echo "feed = $feed_size different 4 KB PNGs, one stub each; traced = one 4 KB PNG, a traceparent differing per request" \
     "(h2: a query differing per request, fixed traceparent); one = that PNG, the same request every time"
echo "Load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg) on $cores cores"
echo "wrk -t2 / h2load -t2 -m10, -c{16,64} -d${duration}s, $rounds rounds, servers alternating; warm-up ${warmup}s a row each"
for set in "${sets[@]}"; do
    for shape in feed traced one; do
        for s in understudy nginx; do run_client "$set" "$shape" "$s" 64 "$warmup" >/dev/null; done
    done
done

results="$work/results-real.tsv"
: >"$results"
for round in $(seq "$rounds"); do
    order=(understudy nginx)
    if (( round % 2 == 0 )); then order=(nginx understudy); fi
    for set in "${sets[@]}"; do
        for shape in feed traced one; do
            for c in 16 64; do
                for s in "${order[@]}"; do
                    before="$(server_ticks "$s")"
                    line="$(run_client "$set" "$shape" "$s" "$c" "$duration")"
                    ticks=$(( $(server_ticks "$s") - before ))
                    rss=0 idle=0
                    if [ "$s" = understudy ]; then
                        rss="$(rss_kb "$understudy_pid")"
                        sleep 1.5
                        idle="$(rss_kb "$understudy_pid")"
                    fi
                    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$s" "$set" "$shape" "$c" "$line" "$ticks" "$rss" "$idle" >>"$results"
                    printf '  round %s  %-6s %-7s c%-3s %-10s %10.0f req/s\n' "$round" "$set" "$shape" "$c" "$s" "${line%%$'\t'*}"
                done
            done
        done
    done
done

echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
python3 - "$results" "$hz" <<'PY' || status=1
import statistics, sys
hz = int(sys.argv[2])
rows, errors = {}, 0
for line in open(sys.argv[1]):
    rnd, server, tset, shape, c, rps, failed, done, ticks, rss, idle = line.rstrip("\n").split("\t")
    by = rows.setdefault((tset, shape, int(c)), {}).setdefault(server, {"rps": [], "cpu": [], "rss": [], "idle": [], "by_round": {}})
    by["rps"].append(float(rps))
    by["by_round"][rnd] = float(rps)
    if int(done) > 0:
        by["cpu"].append(int(ticks) / hz / int(done) * 1e6)
    by["rss"].append(int(rss) / 1024)
    by["idle"].append(int(idle) / 1024)
    errors += int(failed)
print("Real traffic, median req/s   understudy      nginx  ratio  >= 0.8x   rounds (of medians)   CPU µs/req us / nginx   RSS MB at end / idle")
ok = True
order = {"h1": 0, "https": 1, "h2tls": 2}
for (tset, shape, c), by in sorted(rows.items(), key=lambda kv: (order[kv[0][0]], kv[0][1], kv[0][2])):
    u, n = by["understudy"], by["nginx"]
    ur, nr = statistics.median(u["rps"]), statistics.median(n["rps"])
    paired = [u["by_round"][r] / n["by_round"][r] for r in u["by_round"] if n["by_round"].get(r)]
    ratio = statistics.median(paired) if paired else 0
    spread = f"{min(paired):.2f}-{max(paired):.2f} ({ur / nr if nr else 0:.2f}x)" if paired else "-"
    uc = statistics.median(u["cpu"]) if u["cpu"] else 0
    nc = statistics.median(n["cpu"]) if n["cpu"] else 0
    rss, idle = max(u["rss"]), max(u["idle"])
    passed = ratio >= 0.8 and rss < 64
    ok &= passed
    print(f"  {tset:<6} {shape:<7} -c{c:<3} {ur:>10.0f} {nr:>10.0f}  {ratio:4.2f}x  {'PASS' if ratio >= 0.8 else 'FAIL'}"
          f"   {spread:<20}  {uc:6.1f} / {nc:5.1f}        {rss:5.1f}{'' if rss < 64 else ' FAIL'} / {idle:5.1f}")
# One URL against each real-traffic shape, per server: the median over the rounds of one's
# rate over the shape's in the same round. Ours may exceed nginx's by no more than nginx's own.
# The CPU a request of each beside it shows where a difference comes from.
gaps = []
for (tset, shape, c), by in sorted(rows.items(), key=lambda kv: (order[kv[0][0]], kv[0][2])):
    if shape != "one":
        continue
    for real in ("feed", "traced"):
        other = rows.get((tset, real, c))
        if not other:
            continue
        def gap(server):
            one, shaped = by[server]["by_round"], other[server]["by_round"]
            return statistics.median([one[r] / shaped[r] for r in one if shaped.get(r)])
        def cpu(row, server):
            return statistics.median(row[server]["cpu"]) if row[server]["cpu"] else 0
        cpus = (cpu(by, "understudy"), cpu(other, "understudy"), cpu(by, "nginx"), cpu(other, "nginx"))
        gaps.append((tset, c, real, gap("understudy"), gap("nginx"), cpus))
if gaps:
    print("One URL over a real shape, same rounds (median of the rounds' one/shape)   understudy   nginx"
          "   CPU µs/req one / shape: us, nginx")
    for tset, c, real, ours, theirs, cpus in gaps:
        verdict = "within nginx" if ours <= theirs + 0.005 else "over nginx by " + format(ours - theirs, ".2f")
        print(f"  {tset:<6} -c{c:<3} over {real:<7}                                  {ours:5.2f}x   {theirs:5.2f}x"
              f"  {verdict:<18} {cpus[0]:5.1f} / {cpus[1]:5.1f}, {cpus[2]:5.1f} / {cpus[3]:5.1f}")
if errors:
    print(f"socket errors, failed or non-2xx requests: {errors}")
    ok = False
print("ratio: the median of the rounds' ratios (each round runs both servers back to back); rounds: their range,")
print("and the ratio of the two median rates. RSS target < 64 MB at the end of every row (the most over its rounds, before the idle trim).")
sys.exit(0 if ok else 1)
PY
exit "$status"
