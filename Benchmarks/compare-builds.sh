#!/usr/bin/env bash
# Two builds of understudy side by side on traffic shaped like an image client's: does a change
# make the server faster in wall time, not only in instructions?
#
#   bash Benchmarks/compare-builds.sh BASE_BINARY NEW_BINARY [feed|traced|h2feed] [PAIRS]
#
# Callgrind's counts are stable, but on this request path they do not always predict time,
# which atomic reference counting and the kernel's loopback write dominate (Benchmarks/README.md
# has a change that took 15% of the instructions and none of the time). This script measures
# time instead, as fairly as a noisy VM allows:
#   - both servers serve the same stubs (real-traffic.sh: 1,000 feed URLs, and /4k.png for the
#     traced shape) and run at once, each on its own port;
#   - both are pinned to CPU 0 and wrk (-t2 -c64; COMPARE_CONNECTIONS=16 for -c16) to CPU 1, so each server has one core to
#     itself while measured and the client never takes it (on one core, nothing is pinned);
#     `h2feed` asks for the feed's URLs over h2c instead, with h2load (-t1 -c64 -m10, its URI
#     list as input), which exercises the HTTP/2 request path;
#   - PAIRS pairs of 3 s runs (default 10), alternating which server goes first, each pair back
#     to back; a slow phase of the machine then hits both halves of a pair alike;
#   - both servers are started afresh every 2 pairs, so that no one process's luck (where its
#     heap and tables landed) decides the result.
# It prints each pair (req/s and the server's CPU µs per request, utime + stime over requests),
# then the medians of the paired ratios NEW/BASE. It sets no target and exits 0 unless it
# cannot run (2). One binary against itself, 10 pairs, lands between 0.95x and 1.07x here: use
# 30 pairs or more to tell differences under 5%.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

die() { echo "compare-builds: $*" >&2; exit 2; }
[ "$#" -ge 2 ] || die "usage: bash Benchmarks/compare-builds.sh BASE_BINARY NEW_BINARY [feed|traced|h2feed] [PAIRS]"
base_bin="$1" new_bin="$2" shape="${3:-feed}" pairs="${4:-10}"
for b in "$base_bin" "$new_bin"; do [ -x "$b" ] || die "no executable understudy at '$b'"; done
case "$shape" in feed|traced|h2feed) ;; *) die "shape '$shape': expected feed, traced or h2feed" ;; esac
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || die "PAIRS '$pairs': expected a positive whole number"
conns="${COMPARE_CONNECTIONS:-64}"
[[ "$conns" =~ ^[1-9][0-9]*$ ]] || die "COMPARE_CONNECTIONS '$conns': expected a positive whole number of connections"

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v curl >/dev/null 2>&1 || missing+=(curl)
[ "$shape" != h2feed ] || command -v h2load >/dev/null 2>&1 || missing+=(nghttp2-client)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]}..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}"
fi

source Benchmarks/scratch.sh compare-builds
source Benchmarks/server/bench-files.sh
source Benchmarks/server/real-traffic.sh

server_cpu="" client_cpu=()
if [ "$(nproc)" -ge 2 ]; then server_cpu=0; client_cpu=(taskset -c 1); fi

# run PID PORT SECONDS: prints "req/s<TAB>CPU µs per request".
hz="$(getconf CLK_TCK)"
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
run() {
    local before after out
    before="$(ticks "$1")"
    if [ "$shape" = h2feed ]; then
        for ((n = 0; n < feed_size; n++)); do printf 'http://127.0.0.1:%s/feed/%04d.png\n' "$2" "$n"; done >"$work/uris-$2"
        out="$("${client_cpu[@]}" h2load -t1 -c"$conns" -m10 -D"$3" -i "$work/uris-$2" 2>&1)" || { echo "$out" >&2; die "h2load failed"; }
        after="$(ticks "$1")"
        awk -v t="$((after - before))" -v hz="$hz" '
            /^finished in/ { rps = $4 } /^requests:/ { n = $8; if ($10 + $12 > 0) bad = 1 }
            END { if (rps == "" || n == 0) exit 1; if (bad) exit 3; printf "%s\t%.2f\n", rps, t / hz * 1e6 / n }' <<<"$out" \
            || { echo "$out" >&2; die "h2load saw failed or errored requests, or printed nothing to read"; }
        return
    fi
    out="$("${client_cpu[@]}" wrk -t2 -c"$conns" -d"$3s" -s "$work/$shape.lua" "http://127.0.0.1:$2/" 2>&1)" \
        || { echo "$out" >&2; die "wrk failed"; }
    after="$(ticks "$1")"
    awk -v t="$((after - before))" -v hz="$hz" '
        /^Requests\/sec:/ { rps = $2 } / requests in / { n = $1 }
        /Non-2xx or 3xx responses:|Socket errors:/ { bad = 1 }
        END { if (rps == "" || n == 0) exit 1; if (bad) exit 3; printf "%s\t%.2f\n", rps, t / hz * 1e6 / n }' <<<"$out" \
        || { echo "$out" >&2; die "wrk saw errors, or printed nothing to read"; }
}

# start_both: (re)starts both servers, as the other benchmarks start one, pins all their threads,
# checks that each serves the stub files byte for byte, and warms each up for 2 s.
base_pid="" new_pid=""
start_both() {
    local pid port f
    # The pair before stops first, and leaves $pids: a PID ended here is never signalled again.
    for pid in $base_pid $new_pid; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    pids=()
    understudy="$base_bin"; start_understudy serve "$work/stubs"
    base_pid="$understudy_pid" base_port="$understudy_port"
    understudy="$new_bin"; start_understudy serve "$work/stubs"
    new_pid="$understudy_pid" new_port="$understudy_port"
    for pid in "$base_pid" "$new_pid"; do
        [ -z "$server_cpu" ] || taskset -a -p -c "$server_cpu" "$pid" >/dev/null
    done
    for port in "$base_port" "$new_port"; do
        for f in 4k.png feed/0000.png feed/0999.png; do
            [ "$(curl -sf "http://127.0.0.1:$port/$f" | sha256sum)" = "$(sha256sum <"$work/stubs/$f")" ] \
                || die "the server on :$port does not serve $f byte for byte"
        done
    done
    run "$base_pid" "$base_port" 2 >/dev/null
    run "$new_pid" "$new_port" 2 >/dev/null
}

client="wrk -t2 -c$conns -d3s"; [ "$shape" != h2feed ] || client="h2load -t1 -c$conns -m10 -D3"
echo "compare-builds: $shape, $client, $pairs pairs, both servers started afresh every 2 pairs;" \
    "servers on CPU ${server_cpu:-any}, the client on CPU ${client_cpu[2]:-any}"
echo "  base: $base_bin"
echo "  new:  $new_bin"
printf '  %-5s %12s %12s %14s %14s\n' pair "base req/s" "new req/s" "base µs/req" "new µs/req"
results="$work/pairs.tsv"
: >"$results"
for ((i = 1; i <= pairs; i++)); do
    ((i % 2 == 0)) || start_both
    if ((i % 2)); then
        b="$(run "$base_pid" "$base_port" 3)"; n="$(run "$new_pid" "$new_port" 3)"
    else
        n="$(run "$new_pid" "$new_port" 3)"; b="$(run "$base_pid" "$base_port" 3)"
    fi
    printf '%s\t%s\n' "$b" "$n" >>"$results"
    IFS=$'\t' read -r br bc nr nc <<<"$b	$n"
    printf '  %-5s %12.0f %12.0f %14s %14s\n' "$i" "$br" "$nr" "$bc" "$nc"
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [list(map(float, line.split("\t"))) for line in open(sys.argv[1]) if line.strip()]
rps = statistics.median(n / b for b, _, n, _ in rows)
cpu = statistics.median(nc / bc for _, bc, _, nc in rows)
print(f"median of paired ratios, new / base: req/s {rps:.3f}x, CPU per request {cpu:.3f}x")
PY
