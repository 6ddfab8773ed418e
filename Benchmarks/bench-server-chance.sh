#!/usr/bin/env bash
# The chance row of `make bench-server` (SPEC 21, issue 64): what a request costs when its stub
# leaves something to `chance:`. One `understudy serve --seed 1` serves Stubs/images/photo.jpg
# from two `file:` stubs: /plain.jpg as it is, /chance.jpg with `BENCH_CHANCE` beside it (by
# default a connection-reset fault with chance 0.0001, drawn on every request and striking about
# one in ten thousand: wrk reconnects after it). wrk asks each at -c16 and -c64, the two paths
# alternating over several rounds; prints the medians and the ratio. Target: the stub with a
# chance at >= 0.9x the plain one on each row.
#
#   BENCH_ROWS=chance bash Benchmarks/bench-server.sh          # this row only
#   BENCH_DURATION=1 BENCH_ROUNDS=1 BENCH_WARMUP=1 bash Benchmarks/bench-server-chance.sh   # a smoke test
#   BENCH_CHANCE='delay: { fixed: 0ms, chance: 0.5 }' bash Benchmarks/bench-server-chance.sh
#
# Exit status: 0 when the target is met, 1 when it is missed, 2 when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

duration="${BENCH_DURATION:-10}"
rounds="${BENCH_ROUNDS:-3}"
warmup="${BENCH_WARMUP:-3}"
chance="${BENCH_CHANCE:-fault: { name: connection-reset, chance: 0.0001 \}}"
target=0.9

die() { echo "bench-server-chance: $*" >&2; exit 2; }

command -v wrk >/dev/null 2>&1 || {
    sudo=""; if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y wrk
}

source Benchmarks/understudy-binary.sh
source Benchmarks/scratch.sh bench-server-chance

image="$root/Stubs/images/photo.jpg"
mkdir -p "$work/stubs"
cp "$image" "$work/stubs/photo.jpg"
cat >"$work/stubs/chance.yaml" <<YAML
stubs:
  - request: { path: /plain.jpg }
    response: { file: photo.jpg }
  - request: { path: /chance.jpg }
    response: { file: photo.jpg, $chance }
YAML
start_understudy serve "$work/stubs" --seed 1
base="http://127.0.0.1:$understudy_port"
paths=("/chance.jpg" "/plain.jpg")
want="$(sha256sum <"$image")"
for path in "${paths[@]}"; do
    [ "$(curl -sf "$base$path" | sha256sum)" = "$want" ] || die "$path does not answer the bytes of $image"
done

run_wrk() {
    local out
    out="$(wrk -t2 -c"$2" -d"$3s" "$1")"
    awk '/^Requests\/sec:/ { print $2 }' <<<"$out"
}

echo "understudy serve --seed 1 :$understudy_port; photo.jpg, $(stat -c %s "$image") bytes, plain and with '$chance'"
echo "wrk -t2 -c{16,64} -d${duration}s, $rounds rounds, the two paths alternating; warm-up ${warmup}s each"
for path in "${paths[@]}"; do run_wrk "$base$path" 64 "$warmup" >/dev/null; done

declare -A results
for round in $(seq "$rounds"); do
    order=("${paths[@]}")
    if (( round % 2 == 0 )); then order=("${paths[1]}" "${paths[0]}"); fi
    for c in 16 64; do
        for path in "${order[@]}"; do
            results["$path $c"]+="$(run_wrk "$base$path" "$c" "$duration") "
        done
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
status=0
printf '%-6s %14s %14s %8s\n' conns "chance req/s" "plain req/s" ratio
for c in 16 64; do
    h="$(median <<<"${results["${paths[0]} $c"]}")"
    f="$(median <<<"${results["${paths[1]} $c"]}")"
    ratio="$(awk -v h="$h" -v f="$f" 'BEGIN { printf "%.2f", h / f }')"
    verdict=PASS
    if awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r < t) }'; then verdict=FAIL; status=1; fi
    printf '%-6s %14.0f %14.0f %7sx %s (target >= %sx)\n' "$c" "$h" "$f" "$ratio" "$verdict" "$target"
    echo "       rounds: chance ${results["${paths[0]} $c"]}; plain ${results["${paths[1]} $c"]}"
done
exit "$status"
