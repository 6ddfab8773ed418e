#!/usr/bin/env bash
# HAR replay: `understudy replay` against mitmproxy's server replay of the same 1,000-entry HAR
# of image responses (PNG and lossy WebP, about 2 KB to 100 KB, each at its own URL). Issue 5,
# "Benchmark"; SPEC section 7.
#
#   bash Benchmarks/bench-har.sh              # about 3 minutes: load times, then 3 rounds of 2 x 10 s
#   BENCH_DURATION=3 BENCH_ROUNDS=1 bash Benchmarks/bench-har.sh      # a quick, noisier look
#   UNDERSTUDY_BIN=/path/to/understudy bash Benchmarks/bench-har.sh   # that binary, no build
#
# (a) Load time: from process start to the ready line of `understudy replay images.har`, minus
#     the same for an empty HAR (the process's own start-up), medians of BENCH_LOAD_ROUNDS (5)
#     alternating runs. Target < 1 s.
# (b) Throughput: wrk -t2 -c16 cycling over the 1,000 URLs (Benchmarks/har/paths.lua, with the
#     Accept header the HAR recorded) against
#       understudy  `understudy replay images.har --log quiet` (release build; default match key
#                   method + URL + Accept; the journal on, as always)
#       mitmproxy   `mitmdump --mode reverse:http://127.0.0.1:1 --server-replay images.har` with
#                   server_replay_reuse (answer a flow more than once), server_replay_extra=kill
#                   (never go upstream: port 1 is closed anyway), server_replay_ignore_host/port
#                   (the HAR holds images.example.com; the request arrives for 127.0.0.1),
#                   connection_strategy=lazy, -q.
#     Both are checked first to answer every URL with 200 and the recorded bytes
#     (Benchmarks/har/check_replay.py). Rounds alternate who goes first; medians and the ratio
#     are printed, target understudy >= 10x mitmproxy. wrk shares the 2 cores with the server
#     under test, alike for both: the ratio is what this compares, not absolute figures.
#
# Set-up it does itself when missing: apt `wrk` and `curl`; the project's .venv with Pillow
# (to draw the images) and mitmproxy, as `make test-deps` makes it.
#
# Exit status: 0 when both targets are met, 1 when one is missed, 2 when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

duration="${BENCH_DURATION:-10}"
rounds="${BENCH_ROUNDS:-3}"
load_rounds="${BENCH_LOAD_ROUNDS:-5}"
warmup="${BENCH_WARMUP:-3}"
entries="${BENCH_ENTRIES:-1000}"
cores="$(nproc)"

die() { echo "bench-har: $*" >&2; exit 2; }

# --- Tools, installed only when missing ---------------------------------------------------------
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v curl >/dev/null 2>&1 || missing+=(curl)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]}..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}"
fi
venv="$root/.venv"
if ! "$venv/bin/python" -c "import PIL" >/dev/null 2>&1 || [ ! -x "$venv/bin/mitmdump" ]; then
    echo "Creating $venv with Pillow and mitmproxy..."
    python3 -m venv "$venv" && "$venv/bin/pip" install --quiet 'Pillow>=10' 'mitmproxy>=10.1'
fi
python="$venv/bin/python"
mitmdump="$venv/bin/mitmdump"
mitm_version="$("$mitmdump" --version 2>/dev/null | awk '/^Mitmproxy:/ { print $2 }')"

source Benchmarks/understudy-binary.sh

# --- The HAR and the two servers --------------------------------------------------------------
source Benchmarks/scratch.sh bench-har

echo "Drawing the images and writing the HAR..."
har_summary="$("$python" Benchmarks/har/make_har.py "$work" "$entries")" || die "cannot write the HAR"
har="$work/images.har"

echo "Timing the load ($load_rounds rounds)..."
load_report="$("$python" Benchmarks/har/load_time.py "$understudy" "$har" "$work/empty.har" "$load_rounds")" || die "cannot time the load"
load_ms="$(awk -F'\t' '/^LOAD_MS/ { print $2 }' <<<"$load_report")"

start_understudy replay "$har"

mitm_port="$(free_port)"
mitm_started="$(date +%s.%N)"
"$mitmdump" --mode reverse:http://127.0.0.1:1 --listen-host 127.0.0.1 --listen-port "$mitm_port" \
    --server-replay "$har" --set server_replay_reuse=true --set server_replay_extra=kill \
    --set server_replay_ignore_host=true --set server_replay_ignore_port=true \
    --set connection_strategy=lazy -q >"$work/mitmproxy.log" 2>&1 &
mitm_pid=$!
pids+=("$mitm_pid")
first_path="$(head -1 "$work/paths.txt")"
for _ in $(seq 1200); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Accept: image/avif,image/webp,image/apng,image/*,*/*;q=0.8' \
        "http://127.0.0.1:$mitm_port$first_path" 2>/dev/null)" = 200 ]; then break; fi
    kill -0 "$mitm_pid" 2>/dev/null || { cat "$work/mitmproxy.log" >&2; die "mitmdump exited"; }
    sleep 0.1
done
mitm_ready="$(awk -v a="$mitm_started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"

declare -A port=([understudy]="$understudy_port" [mitmproxy]="$mitm_port")
for s in understudy mitmproxy; do
    "$python" Benchmarks/har/check_replay.py "http://127.0.0.1:${port[$s]}" "$har" "$s" || die "$s does not replay the HAR"
done

# One wrk run; prints "requests/s<TAB>errors" (socket errors plus non-2xx/3xx responses).
run_wrk() {
    local s="$1" secs="$2" out rps errs
    out="$(wrk -t2 -c16 -d"${secs}s" -s Benchmarks/har/paths.lua "http://127.0.0.1:${port[$s]}" -- "$work/paths.txt")"
    rps="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")"
    errs="$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 } /Non-2xx or 3xx responses:/ { print $5 }' <<<"$out" | awk '{ s += $1 } END { print s + 0 }')"
    [ -n "$rps" ] || { echo "$out" >&2; die "could not read wrk's output for $s"; }
    printf '%s\t%s\n' "$rps" "$errs"
}

echo
if [ -n "${UNDERSTUDY_BIN:-}" ]; then echo "Understudy binary: $understudy"; else echo "Understudy at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$( [ -n "$(git -C "$root" status --porcelain -- Sources Package.swift 2>/dev/null)" ] && echo ' with uncommitted changes in Sources/')"; fi
echo "HAR: $har_summary"
echo "Servers: understudy replay :$understudy_port (pid $understudy_pid), mitmdump $mitm_version server replay :$mitm_port (pid $mitm_pid, answered ${mitm_ready}s after start)"
load="$(cut -d' ' -f1 /proc/loadavg)"
echo "Load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg) on $cores cores"
if awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l > c / 2) }'; then
    echo "warning: the machine is busy (load $load): both servers share the cores with it, so the figures are noisy" >&2
fi
echo
echo "(a) $load_report" | grep -v '^LOAD_MS' | sed '2,$s/^/    /'
echo
echo "(b) wrk -t2 -c16 -d${duration}s over the $entries URLs, $rounds rounds, servers alternating; warm-up ${warmup}s each"
for s in understudy mitmproxy; do run_wrk "$s" "$warmup" >/dev/null; done

results="$work/results.tsv"
: >"$results"
servers=(understudy mitmproxy)
for round in $(seq "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order=(understudy mitmproxy); else order=(mitmproxy understudy); fi
    for s in "${order[@]}"; do
        line="$(run_wrk "$s" "$duration")"
        printf '%s\t%s\t%s\n' "$round" "$s" "$line" >>"$results"
        printf '  round %s  %-10s %10.0f req/s  %s errors\n' "$round" "$s" "${line%%$'\t'*}" "${line##*$'\t'}"
    done
done
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
us="$(awk -F'\t' '$2 == "understudy" { print $3 }' "$results" | median)"
mitm="$(awk -F'\t' '$2 == "mitmproxy" { print $3 }' "$results" | median)"
errors="$(awk -F'\t' '{ s += $4 } END { print s + 0 }' "$results")"
ratio="$(awk -v a="$us" -v b="$mitm" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')"
status=0
printf 'median req/s: understudy %.0f, mitmproxy %.0f: %sx (target >= 10x): %s\n' "$us" "$mitm" "$ratio" \
    "$(awk -v r="$ratio" 'BEGIN { print (r >= 10 ? "PASS" : "FAIL") }')"
awk -v r="$ratio" 'BEGIN { exit !(r >= 10) }' || status=1
printf 'HAR load time: %.0f ms (target < 1000 ms): %s\n' "$load_ms" "$(awk -v m="$load_ms" 'BEGIN { print (m < 1000 ? "PASS" : "FAIL") }')"
awk -v m="$load_ms" 'BEGIN { exit !(m < 1000) }' || status=1
if [ "$errors" -gt 0 ]; then
    echo "wrk counted $errors errors or non-2xx answers: the figures above are not clean" >&2
    status=1
fi
exit "$status"
