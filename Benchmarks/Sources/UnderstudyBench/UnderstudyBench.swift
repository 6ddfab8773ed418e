import Foundation

/// `UnderstudyBench [matching] [images] [tls] [jpeg] [formats]`: runs the benchmarks of issues 2, 3, 13, 16 and 25 (all when no
/// name is given), prints tables and a PASS/FAIL line per target, and exits 1 when any target
/// fails. Always build in release mode (`bash Benchmarks/run.sh`).
///
/// Environment: `UNDERSTUDY_CLI` names an `understudy` executable to also time as a process;
/// `BENCH_ROUNDS_SCALE` multiplies the sample counts (e.g. 0.2 for a quick look).
@main
struct UnderstudyBench {
    static func main() async {
        let arguments = Set(CommandLine.arguments.dropFirst())
        let environment = ProcessInfo.processInfo.environment
        let scale = environment["BENCH_ROUNDS_SCALE"].flatMap(Double.init) ?? 1
        func rounds(_ base: Int) -> Int { max(5, Int(Double(base) * scale)) }
        var report = Report()
        do {
            // Other work on the machine inflates the larger working sets most; say how busy it was.
            if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
                let cores = ProcessInfo.processInfo.activeProcessorCount
                print("Load average (1, 5, 15 min) at start: \(load.split(separator: " ").prefix(3).joined(separator: " ")) on \(cores) cores")
            }
            #if DEBUG
            print("warning: debug build; figures are meaningless. Use `swift build -c release`.")
            #endif
            if arguments.isEmpty || arguments.contains("matching") {
                try MatchingBenchmark(rounds: rounds(201)).run(into: &report)
            }
            if arguments.isEmpty || arguments.contains("images") {
                for tool in ["dwebp", "cwebp"] where !ExternalCommand.exists(tool) {
                    throw BenchmarkError("`\(tool)` not found; install the `webp` package (Benchmarks/run.sh does)")
                }
                let cli = environment["UNDERSTUDY_CLI"].flatMap { $0.isEmpty ? nil : $0 }
                try await ImageBenchmark(rounds: rounds(41), cli: cli).run(into: &report)
            }
            if arguments.isEmpty || arguments.contains("tls") {
                try TLSBenchmark(rounds: rounds(201)).run(into: &report)
            }
            if arguments.isEmpty || arguments.contains("jpeg") {
                for tool in ["djpeg", "cjpeg", "cwebp"] where !ExternalCommand.exists(tool) {
                    throw BenchmarkError("`\(tool)` not found; install the `libjpeg-turbo-progs` and `webp` packages (Benchmarks/run.sh does)")
                }
                try await JPEGResizeBenchmark(rounds: rounds(21)).run(into: &report)
            }
            if arguments.isEmpty || arguments.contains("formats") {
                for tool in ["avifenc", "avifdec", "heif-enc", "heif-convert"] where !ExternalCommand.exists(tool) {
                    throw BenchmarkError("`\(tool)` not found; install the `libavif-bin` and `libheif-examples` packages (Benchmarks/run.sh does)")
                }
                let python = environment["UNDERSTUDY_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? ".venv/bin/python"
                try await FormatsBenchmark(rounds: rounds(11), python: python).run(into: &report)
            }
        } catch {
            print("error: \(error)")
            exit(2)
        }
        print("")
        if report.failures.isEmpty {
            print("All targets met.")
        } else {
            print("\(report.failures.count) target(s) missed: \(report.failures.joined(separator: "; "))")
            exit(1)
        }
    }
}
