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

echo "understudy serve --hazards :$understudy_port; $hazard, $(stat -c %s "$canned") bytes, as a hazard and as a file: stub"
source Benchmarks/paired-paths.sh
paired_paths hazard "$base${paths[0]}" canned "$base${paths[1]}"
exit "$status"
