#!/usr/bin/env bash
# wrk on loopback against `understudy serve`, nginx-light and WireMock standalone, serving the
# same two PNG files (exactly 4 KB and 100 KB), alternating the servers over several rounds.
# Prints the median req/s of each per (file, connections), the ratios, PASS/FAIL against the
# targets (understudy >= 0.8x nginx and >= 3x WireMock on every row) and understudy's RSS after
# the runs (target < 64 MB). Issue 4, "Benchmark"; SPEC section 7.
#
# Two more rows compare only with nginx (issue 15, SPEC section 11): conditional GETs of the
# 100 KB PNG answered 304 (wrk sends If-None-Match with each server's own ETag, read from a first
# response: nginx's `"mtime-size"` differs from our digest) and single-range GETs answered 206
# (`Range: bytes=10000-75535`, 64 KiB). Target >= 0.8x nginx on each. nginx answers these rows
# from a second server block with `tcp_nopush off`: with TCP_CORK on, every keep-alive 206 of
# its waited ~40 ms for a delayed ACK (about 370 req/s at -c16), which measures nothing useful.
#
#   bash Benchmarks/bench-server.sh             # about 25 minutes: every set, 3 rounds of 10 s runs
#   BENCH_DURATION=3 BENCH_ROUNDS=1 bash Benchmarks/bench-server.sh   # a quick, noisier look
#   BENCH_ROWS="304 206" bash Benchmarks/bench-server.sh               # only those rows (no WireMock)
#   UNDERSTUDY_BIN=/path/to/understudy bash Benchmarks/bench-server.sh # that binary, no build
#   BENCH_ROWS=h1 bash Benchmarks/bench-server.sh     # only the HTTP/1.1 rows (wrk, WireMock)
#   BENCH_ROWS=tls bash Benchmarks/bench-server.sh    # HTTPS keep-alive and new TLS connections (bench-server-tls.sh)
#   BENCH_ROWS=h2 bash Benchmarks/bench-server.sh     # h2load over h2c and over TLS (bench-server-h2.sh)
#   BENCH_ROWS=real bash Benchmarks/bench-server.sh   # real-traffic rows: 1,000 URLs, a varying header (bench-server-real.sh)
#   BENCH_ROWS=instructions bash Benchmarks/bench-server.sh   # user-space instructions per request vs nginx, by callgrind (bench-server-instructions.sh)
#   BENCH_ROWS=slow bash Benchmarks/bench-server.sh   # 500 slow-3g clients for 30 s vs nginx limit_rate (bench-server-slow.sh)
#   BENCH_ROWS=wiremock bash Benchmarks/bench-server.sh   # a templated WireMock bodyFileName over 1,000 PNGs vs WireMock (bench-server-wiremock.sh)
#   BENCH_ROWS=hazard bash Benchmarks/bench-server.sh     # a hazard vs the same bytes from a file: stub (bench-server-hazard.sh)
#   BENCH_ROWS=chance bash Benchmarks/bench-server.sh     # a stub with a fault left to chance vs the plain stub (bench-server-chance.sh)
# BENCH_ROWS is a comma- or space-separated list, default `h1,tls,h2,real,instructions,slow,wiremock,hazard,chance`: h1 is
# get, 304 and 206 below; tls the HTTPS rows; h2 both HTTP/2 sets (h2c and h2tls pick one); real
# the real-traffic rows of issue 27; instructions what a request costs in user space, counted
# rather than timed; slow the many slow clients of issue 28; wiremock the
# WireMock-mapped image rows of issue 39; hazard a hazard beside a canned image (issue 62);
# chance a stub with `chance:` beside the plain one (issue 64).
#
# Set-up it does itself on a fresh Debian machine, only when missing: apt `wrk` and
# `nginx-light` (and a Java 17 runtime), a venv in Benchmarks/.venv-wiremock with the PyPI
# package `wiremock`, which ships WireMock's standalone jar (we use its 2.35.1).
#
# The servers, all on 127.0.0.1 at free ports, each started here and stopped by PID on exit:
#   understudy  `understudy serve DIR --log quiet` (release build), `file:` stubs; the journal is
#               always on (default --journal-limit 100000). NIO's singleton group: 1 thread a core.
#   nginx       nginx-light, worker_processes = cores (what our event loop group uses), keep-alive
#               on (keepalive_requests raised so wrk's connections stay open, as ours do),
#               sendfile on, access_log off, daemon off, its pid and error log in the temp dir.
#   wiremock    `java -jar wiremock-standalone-2.35.1.jar --root-dir DIR` with __files + mappings;
#               its request journal left on (the default; `--no-request-journal` turns it off),
#               bounded with `--max-request-journal-entries 1000`. That journal keeps every
#               response body: unbounded, it filled the default heap (1/4 of RAM) within one
#               10 s run of the 100 KB file (about 15,000 req/s) even when cleared before each
#               run, and WireMock then spun in full GCs at 150% CPU, never answering the next
#               DELETE /__admin/requests, which hung the whole benchmark. Each run still pays
#               for journaling, and the journal is still cleared before each WireMock run.
#               Its JIT is warmed up on each file first.
# wrk runs `-t2 -c16` and `-t2 -c64` on the same machine as the servers (keep-alive is its
# default), so the client takes its share of the cores for every server alike: the ratios are
# what this compares, not absolute figures. Each run waits until the machine is quiet (under 10%
# busy, at most 15 s): the JVM keeps working for a while after a run. The order of the servers
# is rotated each round (and, for three, reversed every other round), so none always goes first
# or follows the same one.
#
# Exit status: 0 when every target is met, 1 when one is missed, 2 when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# BENCH_ROWS, comma- or space-separated: h1 (= get 304 206), get, 304, 206, tls (HTTPS
# keep-alive and new connections, Benchmarks/bench-server-tls.sh), h2 (= h2c h2tls: HTTP/2 with
# prior knowledge on the plain port and over TLS, Benchmarks/bench-server-h2.sh). Default: all.
requested=" $(echo "${BENCH_ROWS:-h1,tls,h2,real,instructions,slow,wiremock,hazard,chance}" | tr ',' ' ') "
h1_rows=""
other_rows=""
for token in $requested; do
    case "$token" in
        h1) h1_rows="$h1_rows get 304 206" ;;
        get|304|206) h1_rows="$h1_rows $token" ;;
        tls|h2c|h2tls|instructions|slow|wiremock|hazard|chance) other_rows="$other_rows $token" ;;
        h2) other_rows="$other_rows h2c h2tls" ;;
        # Real-traffic rows (issue 27): 1,000 distinct URLs, and a header differing per request.
        real) other_rows="$other_rows real" ;;
        *) echo "bench-server: BENCH_ROWS: unknown row '$token'; expected h1, get, 304, 206, tls, h2, h2c, h2tls, real, instructions, slow, wiremock, hazard or chance" >&2; exit 2 ;;
    esac
done

# The TLS and HTTP/2 sets, each its own script and servers, after the HTTP/1.1 rows; the exit
# status is the worst of all (2: could not run, 1: a target missed).
run_other_rows() {
    local status="$1" token code
    for token in $other_rows; do
        echo
        code=0
        case "$token" in
            tls) bash Benchmarks/bench-server-tls.sh || code=$? ;;
            h2c) BENCH_H2_SCHEME=http bash Benchmarks/bench-server-h2.sh || code=$? ;;
            h2tls) BENCH_H2_SCHEME=https bash Benchmarks/bench-server-h2.sh || code=$? ;;
            real) bash Benchmarks/bench-server-real.sh || code=$? ;;
            instructions) bash Benchmarks/bench-server-instructions.sh || code=$? ;;
            slow) bash Benchmarks/bench-server-slow.sh || code=$? ;;
            wiremock) bash Benchmarks/bench-server-wiremock.sh || code=$? ;;
            hazard) bash Benchmarks/bench-server-hazard.sh || code=$? ;;
            chance) bash Benchmarks/bench-server-chance.sh || code=$? ;;
        esac
        if (( code == 2 )); then status=2; elif (( code != 0 && status == 0 )); then status=1; fi
    done
    return "$status"
}
if [ -z "$h1_rows" ]; then
    # Built once here, so that each script measures the same binary without building it again.
    source Benchmarks/understudy-binary.sh
    export UNDERSTUDY_BIN="$understudy"
    status=0
    run_other_rows 0 || status=$?
    exit "$status"
fi

duration="${BENCH_DURATION:-10}"
rounds="${BENCH_ROUNDS:-3}"
warmup="${BENCH_WARMUP:-5}"
cores="$(nproc)"
connections=(16 64)
files=(4k.png 100k.png)
# Rows: `get` (both files, against nginx and WireMock), `304` and `206` (the 100 KB PNG, nginx).
read -ra h1_list <<<"$h1_rows"
wants_row() { [[ " ${h1_list[*]} " == *" $1 "* ]]; }
range_header="Range: bytes=10000-75535"

die() { echo "bench-server: $*" >&2; exit 2; }

# --- Tools, installed only when missing ---------------------------------------------------------
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || missing+=(nginx-light)
if wants_row get; then command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless); fi
command -v curl >/dev/null 2>&1 || missing+=(curl)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]}..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}"
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

if wants_row get; then
venv="$root/Benchmarks/.venv-wiremock"
find_jar() {
    # Nothing to find before the venv exists; under `set -euo pipefail` find's failure on a
    # missing directory would end the script silently (a fresh clone has no venv yet).
    [ -d "$venv" ] || return 0
    # Prefer 2.35.1 when the package ships more than one.
    find "$venv" -name 'wiremock-standalone*.jar' 2>/dev/null | awk '/-2\.35\.1\.jar$/ { print "0 " $0; next } { print "1 " $0 }' \
        | sort | head -1 | cut -d' ' -f2-
}
jar="$(find_jar)"
if [ -z "$jar" ]; then
    echo "Creating $venv with the PyPI package wiremock (ships WireMock's standalone jar)..."
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet wiremock
    jar="$(find_jar)"
fi
[ -n "$jar" ] && [ -f "$jar" ] || die "no wiremock-standalone*.jar in $venv"
# The version as the jar itself states it (its admin API description), not only its file name.
wiremock_version="$(python3 - "$jar" <<'EOF2'
import re, sys, zipfile
try:
    text = zipfile.ZipFile(sys.argv[1]).read("swagger/wiremock-admin-api.yaml").decode()
    m = re.search(r"^  version: *(\S+)", text, re.M)
    print(m.group(1) if m else "unknown")
except Exception:
    print("unknown")
EOF2
)"
[ "$wiremock_version" = "2.35.1" ] || echo "warning: WireMock jar is $wiremock_version, not 2.35.1" >&2
else
    wiremock_version="(not run)"
fi

source Benchmarks/understudy-binary.sh

# --- The files and the three servers' roots ---------------------------------------------------
source Benchmarks/scratch.sh bench-server
source Benchmarks/server/bench-files.sh
source Benchmarks/server/nginx.sh
mkdir -p "$work/wiremock/__files" "$work/wiremock/mappings"
for f in "${files[@]}"; do
    cp "$work/files/$f" "$work/wiremock/__files/$f"
    cat >"$work/wiremock/mappings/${f%.png}.json" <<EOF
{ "request": { "method": "GET", "url": "/$f" },
  "response": { "status": 200, "bodyFileName": "$f", "headers": { "Content-Type": "image/png" } } }
EOF
done
chmod -R a+rX "$work"

# Waits until URL answers 200, or dies after SECONDS naming the server and its log.
wait_ready() {
    local name="$1" url="$2" seconds="$3" pid="$4" log="$5"
    for _ in $(seq $((seconds * 10))); do
        if curl -sf --max-time 5 -o /dev/null "$url"; then return 0; fi
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$name exited before it was ready"; }
        sleep 0.1
    done
    cat "$log" >&2
    die "$name not ready after ${seconds}s"
}

# understudy: --port 0 picks a free port and prints it in the ready line.
start_understudy serve "$work/stubs"

nginx_port="$(free_port)"
nginx_uncorked_port="$(free_port)"
start_nginx "    etag on;" "    server {
        listen 127.0.0.1:$nginx_port;
        root $work/nginx/www;
    }
    server {
        listen 127.0.0.1:$nginx_uncorked_port;
        root $work/nginx/www;
        tcp_nopush off;
    }"

servers=(understudy nginx)
wiremock_port=0
wiremock_pid=0
if wants_row get; then
    wiremock_port="$(free_port)"
    java -jar "$jar" --bind-address 127.0.0.1 --port "$wiremock_port" --root-dir "$work/wiremock" \
        --max-request-journal-entries 1000 --disable-banner >"$work/wiremock.log" 2>&1 &
    wiremock_pid=$!
    pids+=("$wiremock_pid")
    servers+=(wiremock)
fi

declare -A port=([understudy]="$understudy_port" [nginx]="$nginx_port" [wiremock]="$wiremock_port")
# The URL a row asks SERVER for: nginx answers the 304 and 206 rows from its uncorked server.
row_url() {
    local label="$1" server="$2" p="${port[$2]}"
    if [[ "$label" == */* && "$server" == nginx ]]; then p="$nginx_uncorked_port"; fi
    echo "http://127.0.0.1:$p/${label%%/*}"
}
wait_ready understudy "http://127.0.0.1:$understudy_port/4k.png" 30 "$understudy_pid" "$work/understudy.log"
wait_ready nginx "http://127.0.0.1:$nginx_port/4k.png" 30 "$nginx_pid" "$work/nginx/error.log"
if wants_row get; then wait_ready wiremock "http://127.0.0.1:$wiremock_port/4k.png" 60 "$wiremock_pid" "$work/wiremock.log"; fi

# The same bytes from every server.
for f in "${files[@]}"; do
    want="$(sha256sum <"$work/files/$f")"
    for s in "${servers[@]}"; do
        got="$(curl -sf "http://127.0.0.1:${port[$s]}/$f" | sha256sum)"
        [ "$got" = "$want" ] || die "$s does not serve $f byte for byte"
    done
done

# Each server's own ETag for the 100 KB PNG, and the same 304 and 206 from both.
declare -A etag
want_range="$(head -c 75536 "$work/files/100k.png" | tail -c 65536 | sha256sum)"
for s in understudy nginx; do
    # Only the 304 and 206 rows need validators and ranges (an older build, measured with
    # BENCH_ROWS=get for a before-and-after, has neither).
    wants_row 304 || wants_row 206 || { etag[$s]="-"; continue; }
    base="$(row_url "100k.png/304" "$s")"
    etag[$s]="$(curl -sf -o /dev/null -D - "$base" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')"
    [ -n "${etag[$s]}" ] || die "$s sends no ETag for 100k.png"
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: ${etag[$s]}" "$base")" = 304 ] || die "$s does not answer 304 to its own ETag"
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "$range_header" "$base")" = 206 ] || die "$s does not answer 206 to a range"
    [ "$(curl -s -H "$range_header" "$base" | sha256sum)" = "$want_range" ] || die "$s does not serve the range byte for byte"
done

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
nginx_rss_kb() {
    local total=0 pid
    for pid in "$nginx_pid" $(pgrep -P "$nginx_pid" || true); do total=$((total + $(rss_kb "$pid"))); done
    echo "$total"
}

# One wrk run; prints "requests/s<TAB>errors" (socket errors plus non-2xx/3xx responses).
run_wrk() {
    local url="$1" conns="$2" secs="$3" header="${4:-}" out rps errs
    local extra=()
    if [ -n "$header" ]; then extra=(-H "$header"); fi
    if [[ "$url" == "http://127.0.0.1:$wiremock_port/"* ]]; then
        curl -sf --max-time 30 -X DELETE -o /dev/null "http://127.0.0.1:$wiremock_port/__admin/requests" || die "cannot clear WireMock's journal (no answer within 30 s)"
    fi
    out="$(wrk -t2 -c"$conns" -d"${secs}s" "${extra[@]}" "$url")"
    rps="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")"
    errs="$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 } /Non-2xx or 3xx responses:/ { print $5 }' <<<"$out" | awk '{ s += $1 } END { print s + 0 }')"
    [ -n "$rps" ] || { echo "$out" >&2; die "could not read wrk's output for $url"; }
    printf '%s\t%s\n' "$rps" "$errs"
}

echo
echo "Servers: understudy :$understudy_port (pid $understudy_pid), nginx :$nginx_port and uncorked :$nginx_uncorked_port ($cores workers)," \
     "WireMock $wiremock_version :$wiremock_port (request journal on, at most 1,000 entries)"
echo "Rows: ${h1_list[*]}; ETags: understudy ${etag[understudy]}, nginx ${etag[nginx]}"
if [ -n "${UNDERSTUDY_BIN:-}" ]; then echo "Understudy binary: $understudy"; else echo "Understudy at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$( [ -n "$(git -C "$root" status --porcelain -- Sources Package.swift 2>/dev/null)" ] && echo ' with uncommitted changes in Sources/')"; fi
echo "Files: 4k.png $(stat -c %s "$work/files/4k.png") bytes, 100k.png $(stat -c %s "$work/files/100k.png") bytes"
load="$(cut -d' ' -f1 /proc/loadavg)"
echo "Load average before the runs: $load on $cores cores"
if awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l > c / 2) }'; then
    echo "warning: the machine is busy (load $load): every server shares the cores with it, so the figures are noisy" >&2
fi
echo "wrk -t2 -c{16,64} -d${duration}s, $rounds rounds, servers alternating, each run once the machine is quiet; warm-up ${warmup}s a file each"
echo

for s in "${servers[@]}"; do
    for f in "${files[@]}"; do
        secs="$warmup"
        if [ "$s" = wiremock ]; then secs=$((warmup * 2)); fi   # let the JIT compile the hot path
        run_wrk "http://127.0.0.1:${port[$s]}/$f" 64 "$secs" >/dev/null
    done
done

# The share of all cores busy over the next half second, in percent (from /proc/stat).
busy_percent() {
    local a b idle total=0 i
    read -ra a < <(head -1 /proc/stat)
    sleep 0.5
    read -ra b < <(head -1 /proc/stat)
    idle=$(( (b[4] + b[5]) - (a[4] + a[5]) ))
    for i in 1 2 3 4 5 6 7 8; do total=$(( total + b[i] - a[i] )); done
    echo $(( total > 0 ? 100 * (total - idle) / total : 0 ))
}

# Waits until the machine is quiet (under 10% of the cores busy for half a second; at most
# 15 s) and prints the seconds waited. WireMock's JVM goes on compiling and collecting after a
# run, and without this the server measured next paid for it.
settle() {
    local halves=0
    while [ "$(busy_percent)" -ge 10 ] && [ "$halves" -lt 30 ]; do halves=$((halves + 1)); done
    awk -v h="$halves" 'BEGIN { printf "%.1f", h / 2 }'
}

results="$work/results.tsv"
: >"$results"
declare -A settled_after=([understudy]=0 [nginx]=0 [wiremock]=0)
previous=""
# The measured rows: label, path and the header wrk sends (each server's own ETag for 304).
measured=()
if wants_row get; then measured+=("4k.png" "100k.png"); fi
if wants_row 304; then measured+=("100k.png/304"); fi
if wants_row 206; then measured+=("100k.png/206"); fi
header_for() {
    case "$1" in
        */304) echo "If-None-Match: ${etag[$2]}" ;;
        */206) echo "$range_header" ;;
        *) echo "" ;;
    esac
}
for round in $(seq "$rounds"); do
    for label in "${measured[@]}"; do
        # WireMock only on the plain GET rows; the others compare with nginx alone.
        row_servers=(understudy nginx)
        if [[ "$label" != */* ]] && wants_row get; then row_servers+=(wiremock); fi
        n=${#row_servers[@]}
        # Rotated each round, and reversed every other round, so that no server always runs right
        # after the same one (rotating alone kept understudy after WireMock, nginx after understudy).
        # With two servers a rotation is a reversal, and both together would undo each other
        # (understudy first in every round of the 304 and 206 rows): those only rotate.
        shift_by=$(( (round - 1) % n ))
        order=("${row_servers[@]:$shift_by}" "${row_servers[@]:0:$shift_by}")
        if (( n > 2 && round % 2 == 0 )); then
            reversed=()
            for (( i = n - 1; i >= 0; i-- )); do reversed+=("${order[$i]}"); done
            order=("${reversed[@]}")
        fi
        for c in "${connections[@]}"; do
            for s in "${order[@]}"; do
                waited="$(settle)"
                if [ -n "$previous" ] && awk -v w="$waited" -v m="${settled_after[$previous]}" 'BEGIN { exit !(w > m) }'; then
                    settled_after[$previous]="$waited"
                fi
                line="$(run_wrk "$(row_url "$label" "$s")" "$c" "$duration" "$(header_for "$label" "$s")")"
                previous="$s"
                printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$s" "$label" "$c" "$line" >>"$results"
                printf '  round %s  %-13s c%-3s %-10s %10.0f req/s\n' "$round" "$label" "$c" "$s" "${line%%$'\t'*}"
            done
        done
    done
done

echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Each run started on a quiet machine; the longest wait for quiet after a run of" \
     "understudy ${settled_after[understudy]} s, nginx ${settled_after[nginx]} s, WireMock ${settled_after[wiremock]} s"
echo
status=0
python3 Benchmarks/server/report.py "$results" || status=1

us_rss=$(rss_kb "$understudy_pid")
us_hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$understudy_pid/status")
mb() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }
echo
echo "RSS after the runs: understudy $(mb "$us_rss") MB (peak $(mb "$us_hwm") MB), target < 64 MB:" \
     "$([ "$us_rss" -lt $((64 * 1024)) ] && echo PASS || echo FAIL)"
echo "  for comparison: nginx $(mb "$(nginx_rss_kb)") MB (master + $cores workers)$(wants_row get && echo ", WireMock $(mb "$(rss_kb "$wiremock_pid")") MB")"
[ "$us_rss" -lt $((64 * 1024)) ] || status=1

if [ -n "$other_rows" ]; then
    # The other sets start servers of their own: these rows' understudy, nginx and WireMock
    # (4 GB resident) stop first instead of idling through the rest of the run.
    cleanup
    pids=()
    export UNDERSTUDY_BIN="$understudy"
    run_other_rows "$status" || status=$?
fi
exit "$status"
