#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (with AddressSanitizer), runs each for FUZZ_SECONDS
# (default 300), one at a time, and prints the executions per target. Everything a run writes
# (the growing corpus, crash-*, leak-*, timeout-* and the logs) lands in $FUZZ_BUILD/
# (.build-fuzz by default), which git ignores; the seeds in Fuzz/Corpus/<target>/ are only read.
# Usage: Fuzz/run.sh [TARGET ...]   (default: every target)
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-300}
build=${FUZZ_BUILD:-.build-fuzz}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(FuzzStubFileYAML FuzzStubFileJSON FuzzHAR FuzzWebP FuzzPNG FuzzJPEG FuzzAVIF FuzzHEIC FuzzGIF)
fi
# swiftc honours only its last -sanitize= flag, and SwiftPM passes --sanitize values one flag
# each: without the combined flag last, Swift code gets AddressSanitizer but no coverage.
flags=(--package-path Fuzz --build-path "$build" --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
mkdir -p "$build"
echo "== building the fuzz targets (log: $build/fuzz-build.log)"
# gold warns once per ASan helper symbol it cannot export; harmless, and hundreds of lines.
if ! swift build "${flags[@]}" >"$build/fuzz-build.log" 2>&1; then
    grep -v "Cannot export local symbol '__asan" "$build/fuzz-build.log" | tail -40
    exit 1
fi
binaries=$(swift build "${flags[@]}" --show-bin-path)

failed=()
summary=()
for target in "${targets[@]}"; do
    work="$build/fuzz/$target"
    mkdir -p "$work/corpus" "$work/artifacts"
    echo "== $target: $seconds s (log: $work/log.txt)"
    # detect_leaks: LeakSanitizer after each input that allocated more than it freed.
    ASAN_OPTIONS=detect_leaks=1 "$binaries/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
        "$work/corpus" "Fuzz/Corpus/$target" >"$work/log.txt" 2>&1
    status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt" | tail -1)
    corpus=$(find "$work/corpus" -type f | wc -l)
    if [ $status -ne 0 ]; then
        failed+=("$target")
        tail -40 "$work/log.txt"
        summary+=("$target: FAILED (exit $status) after ${executions:-?} executions; see $work/artifacts/")
    else
        summary+=("$target: ${executions:-?} executions in $seconds s, no crash, leak or hang; working corpus $corpus inputs")
    fi
done

echo
printf '%s\n' "${summary[@]}"
[ ${#failed[@]} -eq 0 ]
