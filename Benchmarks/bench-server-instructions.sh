#!/usr/bin/env bash
# The instructions row of `make bench-server`: user-space instructions per request, understudy
# against nginx-light, counted by valgrind's callgrind rather than timed. A count is the same
# for the same binary and traffic whatever else the machine does, and whatever its system
# calls cost, which the timed rows cannot say: there the kernel's share of a request (the same
# system calls for both servers) dilutes the user-space difference by a machine's own amount.
#
# Over HTTP/1.1, wrk -t1 -c16 sends the real-traffic rows' feed (1,000 different 4 KB PNGs, each
# asked for once before counting, so that every stub is rendered) and traced shapes
# (bench-server-real.sh). Each server runs under callgrind, alone: understudy as `serve` on
# NIO's usual loops, nginx with one worker and no master process. For each shape: a warm-up,
# then the counters are zeroed, wrk runs, and the counters are dumped; instructions per request
# are the dump's total over the requests wrk completed. Prints those, their ratio, and where
# understudy's instructions go by module (reference counting, our modules, NIO, the runtime).
# No target: this row says what the timed ratios are made of.
#
#   BENCH_ROWS=instructions bash Benchmarks/bench-server.sh      # this row only (about 2 minutes)
#   BENCH_DURATION=5 bash Benchmarks/bench-server-instructions.sh   # shorter counting runs
#
# Exit status: 0 when it ran, 2 when it cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

duration="${BENCH_DURATION:-10}"
die() { echo "bench-server-instructions: $*" >&2; exit 2; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
command -v objcopy >/dev/null 2>&1 || missing+=(binutils)
{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || missing+=(nginx-light)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]}..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}"
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

source Benchmarks/understudy-binary.sh
source Benchmarks/scratch.sh bench-server-instructions
source Benchmarks/server/bench-files.sh
source Benchmarks/server/nginx.sh
source Benchmarks/server/real-traffic.sh
cp -r "$work/stubs/feed" "$work/nginx/www/feed"
chmod -R a+rX "$work"

# valgrind cannot read the DWARF 5 that swiftc writes; the symbols stay for the breakdown.
objcopy --strip-debug "$understudy" "$work/understudy"
understudy="$work/understudy"

# count NAME PID PORT OUTFILE: one line per shape, "NAME<TAB>SHAPE<TAB>requests<TAB>instructions".
count() {
    local name="$1" pid="$2" port="$3" out="$4" shape requests
    for _ in $(seq 600); do curl -sf -o /dev/null "http://127.0.0.1:$port/feed/0999.png" && break; sleep 0.2; done
    python3 - "$port" "$feed_size" <<'PY' || die "$name did not serve every feed URL"
import http.client, sys
port, size = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
for n in range(size):
    connection.request("GET", "/feed/%04d.png" % n)
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"/feed/{n:04d}.png: {response.status}")
PY
    for shape in feed traced; do
        wrk -t1 -c16 -d3s -s "$work/$shape.lua" "http://127.0.0.1:$port/" >/dev/null
        callgrind_control -z "$pid" >/dev/null 2>&1
        requests="$(wrk -t1 -c16 -d"${duration}s" -s "$work/$shape.lua" "http://127.0.0.1:$port/" | awk '/ requests in / { print $1 }')"
        rm -f "$out".*
        callgrind_control -d "$shape" "$pid" >/dev/null 2>&1
        for _ in $(seq 100); do ls "$out".* >/dev/null 2>&1 && break; sleep 0.1; done
        sleep 1
        cp "$(ls "$out".* | head -1)" "$work/$name-$shape.callgrind"
        printf '%s\t%s\t%s\t%s\n' "$name" "$shape" "$requests" \
            "$(awk '/^summary:/ { print $2 }' "$work/$name-$shape.callgrind")"
    done
}

callgrind=(valgrind --quiet --tool=callgrind)
understudy_runner=("${callgrind[@]}" --callgrind-out-file="$work/understudy.cg")
understudy_wait=1200
start_understudy serve "$work/stubs"
count understudy "$understudy_pid" "$understudy_port" "$work/understudy.cg" >"$work/counts.tsv"
kill -TERM "$understudy_pid"; wait "$understudy_pid" 2>/dev/null || true

cores=1
nginx_port="$(free_port)"
nginx_main="master_process off;"
nginx_runner=("${callgrind[@]}" --callgrind-out-file="$work/nginx.cg")
start_nginx "" "    server { listen 127.0.0.1:$nginx_port; root $work/nginx/www; }"
count nginx "$nginx_pid" "$nginx_port" "$work/nginx.cg" >>"$work/counts.tsv"

echo
echo "User-space instructions per request (callgrind), HTTP/1.1, wrk -t1 -c16, ${duration} s a shape after a warm-up"
python3 Benchmarks/server/instructions.py "$work/counts.tsv" "$work"
