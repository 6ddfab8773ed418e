# Sourced by the benchmark scripts: sets $understudy to the release binary to measure.
# UNDERSTUDY_BIN=path measures that binary instead of building (e.g. to compare two builds).
# The binary links the Swift runtime and Foundation statically, as a server binary is shipped:
# the process maps only the parts it uses (about 5 MB less resident than with the shared
# libraries, at the same speed). Nothing else builds this package in release mode, so the
# flag does not make two builds take turns in .build.
#
# It is linked as a position-dependent executable exporting no symbols of its own (`-no-pie`,
# `--no-export-dynamic`): SwiftPM links executables exporting every symbol (for `@testable`),
# and a PIE of this size carries 3 MB of relocations that the loader reads and applies at every
# start, writing into 3 MB of Swift metadata. Both stayed resident: 6 MB of the 64 MB the
# server may hold after a real-traffic row (36.9 to 30.6 MB idle, 53.8 to 47.5 MB after 1,000
# URLs over HTTP/1.1), at the same speed. Nothing the server does looks its own symbols up.
#
# It is compiled without Swift's run-time exclusivity checks (`-enforce-exclusivity=unchecked`,
# every module, NIO's too): each access to a class's stored `var` that the optimizer cannot
# prove alone is otherwise registered in a thread-local access set and looked up there, on
# every request, most of them in NIO's channel and handler contexts. The debug builds
# (`make test`, `swift run`) and the ThreadSanitizer build keep the checks, and catch an
# overlapping access there; the compile-time checks stay on everywhere. What they cost:
# Benchmarks/README.md, "Without run-time exclusivity checks".
if [ -n "${UNDERSTUDY_BIN:-}" ]; then
    understudy="$UNDERSTUDY_BIN"
else
    echo "Building understudy (release)..."
    release=(-c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -Xswiftc -Xclang-linker -Xswiftc -no-pie -Xlinker --no-export-dynamic)
    swift build "${release[@]}" --product understudy >/dev/null
    understudy="$(swift build "${release[@]}" --show-bin-path)/understudy"
fi
if [ ! -x "$understudy" ]; then
    echo "error: no executable understudy at $understudy" >&2
    exit 1
fi
