#!/usr/bin/env bash
# The hazard row of `make bench-server` (SPEC 20, issue 62): serving a hazard costs what
# serving a canned image costs. One `understudy serve --hazards` serves /hazards/orientation-6
# (kept once encoded) and, from a `file:` stub, /canned/orientation-6.jpg: the same bytes,
# written by `understudy hazards --write`. wrk asks each at -c16 and -c64, the two paths
# alternating over several rounds; prints the medians and the ratio. Target: the hazard at
# >= 0.9x the canned file on each row.
#
#   BENCH_ROWS=hazard bash Benchmarks/bench-server.sh          # this row only
#   BENCH_DURATION=3 BENCH_ROUNDS=1 bash Benchmarks/bench-server-hazard.sh   # a quick, noisier look
#
# Exit status: 0 when the target is met, 1 when it is missed, 2 when the benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

duration="${BENCH_DURATION:-10}"
rounds="${BENCH_ROUNDS:-3}"
warmup="${BENCH_WARMUP:-3}"
hazard="${BENCH_HAZARD:-orientation-6}"
target=0.9

die() { echo "bench-server-hazard: $*" >&2; exit 2; }

command -v wrk >/dev/null 2>&1 || {
    sudo=""; if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y wrk
}

source Benchmarks/understudy-binary.sh
source Benchmarks/scratch.sh bench-server-hazard

"$understudy" hazards --write "$work/hazards" >/dev/null
canned="$(ls "$work/hazards/$hazard".* | grep -v expected | head -1)"
[ -f "$canned" ] || die "understudy hazards --write wrote no file for $hazard"
mkdir -p "$work/stubs"
extension="${canned##*.}"
cp "$canned" "$work/stubs/canned.$extension"
cat >"$work/stubs/canned.yaml" <<YAML
stubs:
  - request: { path: /canned/$hazard.$extension }
    response: { file: canned.$extension }
YAML
start_understudy serve "$work/stubs" --hazards
base="http://127.0.0.1:$understudy_port"
paths=("/hazards/$hazard" "/canned/$hazard.$extension")
want="$(sha256sum <"$canned")"
for path in "${paths[@]}"; do
    [ "$(curl -sf "$base$path" | sha256sum)" = "$want" ] || die "$path does not answer the bytes of $canned"
done

run_wrk() {
    local out
    out="$(wrk -t2 -c"$2" -d"$3s" "$1")"
    awk '/^Requests\/sec:/ { print $2 }' <<<"$out"
}

echo "understudy serve --hazards :$understudy_port; $hazard, $(stat -c %s "$canned") bytes, as a hazard and as a file: stub"
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
printf '%-6s %14s %14s %8s\n' conns "hazard req/s" "canned req/s" ratio
for c in 16 64; do
    h="$(median <<<"${results["${paths[0]} $c"]}")"
    f="$(median <<<"${results["${paths[1]} $c"]}")"
    ratio="$(awk -v h="$h" -v f="$f" 'BEGIN { printf "%.2f", h / f }')"
    verdict=PASS
    if awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r < t) }'; then verdict=FAIL; status=1; fi
    printf '%-6s %14.0f %14.0f %7sx %s (target >= %sx)\n' "$c" "$h" "$f" "$ratio" "$verdict" "$target"
    echo "       rounds: hazard ${results["${paths[0]} $c"]}; canned ${results["${paths[1]} $c"]}"
done
exit "$status"
