#!/usr/bin/env bash
# make soak: understudy serve under 200 keep-alive connections for 60 s over a mix of stub
# kinds, 60% plain HTTP, 20% HTTPS on the TLS listener, 20% HTTPS through an intercepted
# CONNECT (Benchmarks/soak/soak.py says what passes). Loopback only, bounded, stops by itself.
#   SOAK_SECONDS=20 SOAK_CONNECTIONS=50 bash Benchmarks/soak.sh     # shorter
#   UNDERSTUDY_BIN=/path/to/understudy bash Benchmarks/soak.sh       # that binary, no build
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/understudy-binary.sh

work="$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/stubs"
python3 Benchmarks/server/make_png.py "$work/stubs/photo.png" 16384
"$understudy" transcode "$work/stubs/photo.png" "$work/stubs/photo.webp" --to webp --quality 80 >/dev/null
cat >"$work/stubs/soak.yaml" <<'YAML'
stubs:
  - name: canned
    request: { path: /canned.png }
    response: { file: photo.png }
  - name: json
    request: { path: /data.json }
    response: { json: { ok: true, items: [1, 2, 3] } }
  - name: generated
    request: { path: /generated.webp }
    response: { image: { generate: { width: 96, height: 64, pattern: gradient }, as: webp, quality: 70 } }
  - name: transcoded
    request: { path: /transcoded.png }
    response: { image: { file: photo.webp, as: png } }
  - name: negotiated
    request: { path: /negotiated }
    response: { image: { file: photo.png, as: negotiate } }
  - name: delayed
    request: { path: /delayed.png }
    response: { file: photo.png, delay: { uniform: [5ms, 40ms] } }
  - name: throttled
    request: { path: /throttled.png }
    response: { file: photo.png, bandwidth: "200KB/s" }
  - name: redirected
    request: { path: /old.png }
    response: { redirect: { to: /canned.png, status: 302 } }
YAML
python3 Benchmarks/soak/soak.py "$understudy" "$work/stubs" \
    --seconds "${SOAK_SECONDS:-60}" --connections "${SOAK_CONNECTIONS:-200}" --journal-limit "${SOAK_JOURNAL_LIMIT:-20000}"
