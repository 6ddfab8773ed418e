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

echo "understudy serve --seed 1 :$understudy_port; photo.jpg, $(stat -c %s "$image") bytes, plain and with '$chance'"
source Benchmarks/paired-paths.sh
paired_paths chance "$base${paths[0]}" plain "$base${paths[1]}"
exit "$status"
