#!/usr/bin/env bash
# Builds the Understudy benchmarks in release mode and runs them.
#
#   bash Benchmarks/run.sh              # everything (about a minute once built)
#   bash Benchmarks/run.sh matching     # issue 2 only
#   bash Benchmarks/run.sh images       # issue 3 only
#   bash Benchmarks/run.sh tls          # issue 13 only (a first leaf from the local CA)
#   bash Benchmarks/run.sh jpeg         # issue 16 only (JPEG, resizing)
#   bash Benchmarks/run.sh formats      # issue 25 only (AVIF, HEIC, GIF)
#   BENCH_ROUNDS_SCALE=0.2 bash Benchmarks/run.sh   # a quick, noisier look
#
# Exit status: 0 when every target is met, 1 when one is missed, 2 when a benchmark cannot run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# cwebp and dwebp, the tools we compare against, come from Debian/Ubuntu's `webp` package.
if ! command -v dwebp >/dev/null 2>&1 || ! command -v cwebp >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing webp (cwebp, dwebp)..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y webp
fi
# djpeg and cjpeg, libjpeg-turbo's own tools, come from `libjpeg-turbo-progs`.
if ! command -v djpeg >/dev/null 2>&1 || ! command -v cjpeg >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing libjpeg-turbo-progs (djpeg, cjpeg)..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y libjpeg-turbo-progs
fi

# avifenc/avifdec and heif-enc/heif-convert (issue 25) come from `libavif-bin` and `libheif-examples`;
# Pillow (the GIF row) from the package's .venv (`make test-deps`).
if ! command -v avifenc >/dev/null 2>&1 || ! command -v heif-enc >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing libavif-bin libheif-examples (avifenc, avifdec, heif-enc, heif-convert)..."
    $sudo apt-get -o DPkg::Lock::Timeout=900 update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y libavif-bin libheif-examples
fi
if [ -z "${UNDERSTUDY_PYTHON:-}" ] && ! .venv/bin/python -c "import PIL" >/dev/null 2>&1; then
    make test-deps
fi

swift build -c release --package-path Benchmarks
bin="$(swift build -c release --package-path Benchmarks --show-bin-path)"

# Also time our CLI as a process, but only a release build that already exists and has
# `transcode`; building it here would slow every run, and a debug build would mislead.
if [ -z "${UNDERSTUDY_CLI:-}" ] && [ -x .build/release/understudy ] \
    && .build/release/understudy transcode --help >/dev/null 2>&1; then
    export UNDERSTUDY_CLI="$root/.build/release/understudy"
fi

exec "$bin/UnderstudyBench" "$@"
