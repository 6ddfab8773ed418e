# Sourced by the benchmark scripts: sets $understudy to the release binary to measure.
# UNDERSTUDY_BIN=path measures that binary instead of building (e.g. to compare two builds).
if [ -n "${UNDERSTUDY_BIN:-}" ]; then
    understudy="$UNDERSTUDY_BIN"
else
    echo "Building understudy (release)..."
    swift build -c release --product understudy >/dev/null
    understudy="$(swift build -c release --show-bin-path)/understudy"
fi
if [ ! -x "$understudy" ]; then
    echo "error: no executable understudy at $understudy" >&2
    exit 1
fi
