#!/usr/bin/env bash
# WireMock-mapped image rows of `make bench-server` (SPEC sections 19 and 22): one WireMock
# mapping whose `bodyFileName` is chosen by a condition and a path segment
# (`images/{{#if (eq request.pathSegments.[0] 'images')}}{{request.pathSegments.[1]}}{{else}}...`),
# as mapping files choose images, over 1,000 different 4 KB PNGs in the root's
# `__files/images/`, served by `understudy serve --root-dir` and by WireMock 2.35.1 itself
# (`--root-dir --local-response-templating`) from the same root. wrk walks the 1,000 URLs in
# turn on every connection (a Lua script, each thread from its own start), at -c16 and -c64,
# the two servers alternating over several rounds. Target: understudy >= 4x WireMock on each.
#
# WireMock 2.35 renders a templated binary file as text, so the bytes it sends are not the PNG
# (its issue 2028); this compares the rates of the two answering the same requests from the same
# mapping, and checks that understudy's bytes are the files'.
#
#   BENCH_ROWS=wiremock bash Benchmarks/bench-server.sh          # these rows only
#   BENCH_DURATION=3 BENCH_ROUNDS=1 bash Benchmarks/bench-server-wiremock.sh   # a quick, noisier look
#
# WireMock's request journal is cleared before each of its runs, as in bench-server.sh (left
# alone it fills the heap). Exit status: 0 when every target is met, 1 when one is missed, 2
# when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

duration="${BENCH_DURATION:-10}"
rounds="${BENCH_ROUNDS:-3}"
warmup="${BENCH_WARMUP:-5}"
target=4

die() { echo "bench-server-wiremock: $*" >&2; exit 2; }

# --- Tools, installed only when missing ---------------------------------------------------------
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v curl >/dev/null 2>&1 || missing+=(curl)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]}..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}"
fi

venv="$root/Benchmarks/.venv-wiremock"
find_jar() {
    [ -d "$venv" ] || return 0
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

source Benchmarks/understudy-binary.sh
source Benchmarks/scratch.sh bench-server-wiremock

# --- The root: 1,000 PNGs and one templated mapping ---------------------------------------------
feed_size=1000
python3 Benchmarks/server/make_feed.py "$work/root/__files/images" "$feed_size" 4096
mkdir -p "$work/root/mappings"
cat >"$work/root/mappings/images.json" <<'JSON'
{ "request": { "method": "GET", "urlPathPattern": "/images/[0-9]+\\.png" },
  "response": { "status": 200,
                "bodyFileName": "images/{{#if (eq request.pathSegments.[0] 'images')}}{{request.pathSegments.[1]}}{{else}}0000.png{{/if}}",
                "headers": { "Content-Type": "image/png" }, "transformers": ["response-template"] } }
JSON
cat >"$work/images.lua" <<LUA
-- Every thread walks the 1,000 image URLs in turn, from its own start.
local paths, n = {}, 0
for i = 0, $((feed_size - 1)) do paths[#paths + 1] = string.format("/images/%04d.png", i) end
local started = 0
function setup(thread) started = started + 1; thread:set("start", started * 397) end
function init(args) n = tonumber(start) or 0 end
function request() n = n + 1; return wrk.format("GET", paths[(n % #paths) + 1]) end
LUA
chmod -R a+rX "$work"

start_understudy serve --root-dir "$work/root"
wiremock_port="$(free_port)"
java -jar "$jar" --bind-address 127.0.0.1 --port "$wiremock_port" --root-dir "$work/root" \
    --local-response-templating --max-request-journal-entries 1000 --disable-banner >"$work/wiremock.log" 2>&1 &
wiremock_pid=$!
pids+=("$wiremock_pid")
declare -A port=([understudy]="$understudy_port" [wiremock]="$wiremock_port")

for _ in $(seq 600); do
    curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$wiremock_port/images/0000.png" && break
    kill -0 "$wiremock_pid" 2>/dev/null || { cat "$work/wiremock.log" >&2; die "WireMock exited before it was ready"; }
    sleep 0.1
done
for f in 0000.png 0999.png; do
    want="$(sha256sum <"$work/root/__files/images/$f")"
    [ "$(curl -sf "http://127.0.0.1:$understudy_port/images/$f" | sha256sum)" = "$want" ] || die "understudy does not serve images/$f byte for byte"
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$wiremock_port/images/$f")" = 200 ] || die "WireMock does not answer 200 for images/$f"
done

run_wrk() {
    local server="$1" conns="$2" secs="$3" out rps errs
    if [ "$server" = wiremock ]; then
        curl -sf --max-time 30 -X DELETE -o /dev/null "http://127.0.0.1:$wiremock_port/__admin/requests" || die "cannot clear WireMock's journal"
    fi
    out="$(wrk -t2 -c"$conns" -d"${secs}s" -s "$work/images.lua" "http://127.0.0.1:${port[$server]}/")"
    rps="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")"
    errs="$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 } /Non-2xx or 3xx responses:/ { print $5 }' <<<"$out" | awk '{ s += $1 } END { print s + 0 }')"
    [ -n "$rps" ] || { echo "$out" >&2; die "could not read wrk's output for $server"; }
    printf '%s\t%s\n' "$rps" "$errs"
}

echo
echo "Servers: understudy :$understudy_port (pid $understudy_pid), WireMock 2.35.1 :$wiremock_port (request journal on, cleared before each run)"
echo "Row: one mapping, bodyFileName chosen by {{#if}} and a path segment, $feed_size different 4 KB PNGs; wrk -t2 -c{16,64} -d${duration}s, $rounds rounds"
for s in understudy wiremock; do
    secs="$warmup"
    if [ "$s" = wiremock ]; then secs=$((warmup * 2)); fi   # let the JIT compile the hot path
    run_wrk "$s" 64 "$secs" >/dev/null
done

results="$work/results.tsv"
: >"$results"
for round in $(seq "$rounds"); do
    order=(understudy wiremock)
    if (( round % 2 == 0 )); then order=(wiremock understudy); fi
    for c in 16 64; do
        for s in "${order[@]}"; do
            line="$(run_wrk "$s" "$c" "$duration")"
            printf '%s\t%s\t%s\t%s\n' "$round" "$s" "$c" "$line" >>"$results"
            printf '  round %s  templated-image c%-3s %-10s %10.0f req/s\n' "$round" "$c" "$s" "${line%%$'\t'*}"
        done
    done
done

echo
python3 - "$results" "$target" <<'PY'
import statistics, sys
from collections import defaultdict
rates, errors = defaultdict(list), defaultdict(int)
for line in open(sys.argv[1]):
    _round, server, conns, rps, errs = line.rstrip("\n").split("\t")
    rates[(int(conns), server)].append(float(rps))
    errors[(int(conns), server)] += int(errs)
target, status = float(sys.argv[2]), 0
print(f"{'row':<28}{'understudy':>12}{'WireMock':>12}{'ratio':>8}  target >= {target:g}x")
for conns in (16, 64):
    us, wm = statistics.median(rates[(conns, "understudy")]), statistics.median(rates[(conns, "wiremock")])
    ratio = us / wm if wm else float("inf")
    ok = ratio >= target and errors[(conns, "understudy")] == 0
    status = status or (0 if ok else 1)
    print(f"{'templated image c' + str(conns):<28}{us:>12.0f}{wm:>12.0f}{ratio:>7.1f}x  {'PASS' if ok else 'FAIL'}"
          + (f" (understudy errors: {errors[(conns, 'understudy')]})" if errors[(conns, "understudy")] else ""))
sys.exit(status)
PY
