# Sourced by the benchmark scripts: sets $understudy to the release binary to measure.
# UNDERSTUDY_BIN=path measures that binary instead of building (e.g. to compare two builds).
# The binary links the Swift runtime and Foundation statically, as a server binary is shipped:
# the process maps only the parts it uses (about 5 MB less resident than with the shared
# libraries, at the same speed). Nothing else builds this package in release mode, so the
# flag does not make two builds take turns in .build.
if [ -n "${UNDERSTUDY_BIN:-}" ]; then
    understudy="$UNDERSTUDY_BIN"
else
    echo "Building understudy (release)..."
    swift build -c release --static-swift-stdlib --product understudy >/dev/null
    understudy="$(swift build -c release --static-swift-stdlib --show-bin-path)/understudy"
fi
if [ ! -x "$understudy" ]; then
    echo "error: no executable understudy at $understudy" >&2
    exit 1
fi
