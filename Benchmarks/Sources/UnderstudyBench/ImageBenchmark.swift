import Foundation
import UnderstudyImages

/// Issue 3: our transcodes of a 512x512 photo-like image against libwebp's own command-line
/// tools on the same files, and a cache hit against a cold transcode.
///
/// The tools are timed as processes (spawn to exit), so their times include process start-up;
/// `tool -version` is timed alongside to show that start-up, and the table gives ratios
/// against both the raw and the start-up-adjusted times. Ours is timed in-process, with a
/// fresh `ImageTranscoder` per sample so nothing comes from a cache.
struct ImageBenchmark {
    let rounds: Int
    /// The `understudy` executable, when one with a `transcode` subcommand is built; timed as a
    /// process like the libwebp tools.
    let cli: String?

    func run(into report: inout Report) async throws {
        let side = 512
        let image = try ImageGenerator.photoLike(width: side, height: side, seed: 1)
        let png = try image.pngData()
        let webp = try image.webPData(quality: 80)

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("understudy-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inWebP = directory.appendingPathComponent("in.webp").path
        let inPNG = directory.appendingPathComponent("in.png").path
        let dwebpOut = directory.appendingPathComponent("dwebp.png").path
        let cwebpOut = directory.appendingPathComponent("cwebp.webp").path
        let cliOut = directory.appendingPathComponent("cli.png").path
        try webp.write(to: URL(fileURLWithPath: inWebP))
        try png.write(to: URL(fileURLWithPath: inPNG))

        // dwebp 1.2.4 rejects `-png`; PNG is its default output.
        let dwebp = ExternalCommand("dwebp", "-quiet", inWebP, "-o", dwebpOut)
        let cwebp = ExternalCommand("cwebp", "-quiet", "-q", "80", inPNG, "-o", cwebpOut)
        let dwebpStartup = ExternalCommand("dwebp", "-version")
        let cwebpStartup = ExternalCommand("cwebp", "-version")

        var ourPNG = Data()
        var ourWebP = Data()
        let warm = ImageTranscoder()
        _ = try warm.transcodeSync(webp, to: .png)
        let hitBatch = 200

        var cases = [
            SideBySide.Case(name: "ours-webp-png") {
                try Stopwatch.time { ourPNG = try ImageTranscoder().transcodeSync(webp, to: .png) }
            },
            SideBySide.Case(name: "dwebp", sample: dwebp.run),
            SideBySide.Case(name: "dwebp-startup", sample: dwebpStartup.run),
            SideBySide.Case(name: "ours-png-webp") {
                try Stopwatch.time { ourWebP = try ImageTranscoder().transcodeSync(png, to: .webp(quality: 80)) }
            },
            SideBySide.Case(name: "cwebp", sample: cwebp.run),
            SideBySide.Case(name: "cwebp-startup", sample: cwebpStartup.run),
            SideBySide.Case(name: "hit") {
                try Stopwatch.time {
                    for _ in 0..<hitBatch { blackHole(try warm.transcodeSync(webp, to: .png)) }
                } / Double(hitBatch)
            },
        ]
        if let cli {
            let command = ExternalCommand(cli, "transcode", inWebP, cliOut, "--to", "png")
            let startup = ExternalCommand(cli, "--help")
            cases.append(SideBySide.Case(name: "cli-webp-png", sample: command.run))
            cases.append(SideBySide.Case(name: "cli-startup", sample: startup.run))
        }
        let results = try SideBySide(cases: cases).run(rounds: rounds, warmup: 3)
        let asyncHit = try await asyncHitSamples(warm, webp, batch: hitBatch)

        let statistics = warm.statistics
        guard statistics.decodes == 1, statistics.encodes == 1 else {
            throw BenchmarkError("cache hits did codec work: \(statistics)")
        }
        let dwebpPNG = try Data(contentsOf: URL(fileURLWithPath: dwebpOut))
        let cwebpWebP = try Data(contentsOf: URL(fileURLWithPath: cwebpOut))

        func median(_ key: String) -> Double { results[key]!.median }
        let oursWebPToPNG = median("ours-webp-png")
        let oursPNGToWebP = median("ours-png-webp")
        let dwebpAdjusted = median("dwebp") - median("dwebp-startup")
        let cwebpAdjusted = median("cwebp") - median("cwebp-startup")
        let hit = median("hit")

        Report.heading("Images: 512x512 photo-like image (issue 3)")
        print("""
            Input: ImageGenerator.photoLike(512x512, seed 1): PNG \(png.count) bytes, WebP q80 \(webp.count) bytes.
            Median of \(rounds) samples per case, cases interleaved round by round. Ours: in-process wall time,
            fresh ImageTranscoder per sample (includes the source digest). Tools: process wall time, output to a file.
            """)
        func row(_ label: String, _ key: String, _ note: String = "") -> [String] {
            [label, Report.duration(median(key)), Report.spread(results[key]!), note]
        }
        var rows = [
            row("ours WebP -> PNG (cold)", "ours-webp-png", "\(ourPNG.count) B out"),
            row("dwebp in.webp -o out.png", "dwebp", "\(dwebpPNG.count) B out"),
            row("dwebp -version (start-up)", "dwebp-startup"),
            ["dwebp minus start-up", Report.duration(dwebpAdjusted), "", ""],
            row("ours PNG -> WebP q80 (cold)", "ours-png-webp", "\(ourWebP.count) B out"),
            row("cwebp -q 80 in.png -o out.webp", "cwebp", "\(cwebpWebP.count) B out"),
            row("cwebp -version (start-up)", "cwebp-startup"),
            ["cwebp minus start-up", Report.duration(cwebpAdjusted), "", ""],
            row("ours cache hit WebP -> PNG (sync)", "hit"),
            ["ours cache hit WebP -> PNG (async)", Report.duration(asyncHit.median), Report.spread(asyncHit), ""],
        ]
        if cli != nil {
            rows.append(row("understudy transcode (process)", "cli-webp-png"))
            rows.append(row("understudy --help (start-up)", "cli-startup"))
        }
        Report.table(header: ["case", "median", "p25 .. p75", "note"], rows: rows)

        print("")
        Report.table(header: ["ratio (ours / theirs)", "raw", "start-up adjusted"], rows: [
            ["WebP -> PNG vs dwebp", Report.ratio(oursWebPToPNG / median("dwebp")), Report.ratio(oursWebPToPNG / dwebpAdjusted)],
            ["PNG -> WebP q80 vs cwebp", Report.ratio(oursPNGToWebP / median("cwebp")), Report.ratio(oursPNGToWebP / cwebpAdjusted)],
        ] + (cli == nil ? [] : [[
            "understudy transcode (process) vs dwebp", Report.ratio(median("cli-webp-png") / median("dwebp")),
            Report.ratio((median("cli-webp-png") - median("cli-startup")) / dwebpAdjusted),
        ]]))
        print("cold WebP -> PNG / cache hit:  \(Report.ratio(oursWebPToPNG / hit)) (sync), \(Report.ratio(oursWebPToPNG / asyncHit.median)) (async)")
        if cli == nil { print("(understudy CLI with `transcode` not built; process comparison skipped)") }
        print("Targets are judged on the start-up-adjusted ratios, the stricter of the two.")
        print("")

        report.target(
            "cold WebP -> PNG at most half of dwebp's time",
            measured: "\(Report.ratio(oursWebPToPNG / dwebpAdjusted)) adjusted, \(Report.ratio(oursWebPToPNG / median("dwebp"))) raw",
            passed: oursWebPToPNG <= 0.5 * dwebpAdjusted
        )
        report.target(
            "cold PNG -> WebP q80 no slower than cwebp -q 80",
            measured: "\(Report.ratio(oursPNGToWebP / cwebpAdjusted)) adjusted, \(Report.ratio(oursPNGToWebP / median("cwebp"))) raw",
            passed: oursPNGToWebP <= cwebpAdjusted
        )
        let slowerHit = max(hit, asyncHit.median)
        report.target(
            "cache hit at least 100x faster than a cold transcode",
            measured: "\(Report.ratio(oursWebPToPNG / slowerHit)) (slower of sync/async hit)",
            passed: oursWebPToPNG >= 100 * slowerHit
        )
    }

    /// Cache hits through the async API, the one the transports use.
    private func asyncHitSamples(_ transcoder: ImageTranscoder, _ webp: Data, batch: Int) async throws -> Samples {
        var samples = Samples()
        for round in 0..<(rounds + 3) {
            let start = Stopwatch.now()
            for _ in 0..<batch { blackHole(try await transcoder.transcode(webp, to: .png)) }
            if round >= 3 { samples.append(Double(Stopwatch.now() - start) / Double(batch)) }
        }
        return samples
    }
}
