import Foundation
import UnderstudyImages

/// Issue 16: JPEG decode and encode of a 2048x1536 photo against libjpeg-turbo's own `djpeg`
/// and `cjpeg -quality 85`; a 4000x3000 PNG resized to 400 wide and encoded as WebP q80 against
/// `cwebp -resize 400 0 -q 80`; and a cached resize against a cold one.
///
/// As in ``ImageBenchmark``, the tools are timed as processes and `tool -version` alongside, and
/// targets are judged on the start-up-adjusted ratios. Ours is timed in-process. The resize
/// goes through a fresh ``ImageTranscoder`` per sample, from a file, as a stub server does.
struct JPEGResizeBenchmark {
    let rounds: Int

    func run(into report: inout Report) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("understudy-bench-jpeg-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        let photo = try ImageGenerator.generate(width: 2048, height: 1536, pattern: .photo)
        let jpeg = try photo.jpegData(quality: 85)
        try jpeg.write(to: URL(fileURLWithPath: path("in.jpg")))
        try Self.ppm(photo).write(to: URL(fileURLWithPath: path("in.ppm")))

        let large = try ImageGenerator.generate(width: 4000, height: 3000, pattern: .photo)
        let largePNG = try large.pngData()
        let largeURL = URL(fileURLWithPath: path("large.png"))
        try largePNG.write(to: largeURL)
        let resize = ImageResize(width: 400)

        let djpeg = ExternalCommand("djpeg", "-outfile", path("djpeg.ppm"), path("in.jpg"))
        let cjpeg = ExternalCommand("cjpeg", "-quality", "85", "-outfile", path("cjpeg.jpg"), path("in.ppm"))
        let cwebp = ExternalCommand("cwebp", "-quiet", "-resize", "400", "0", "-q", "80", path("large.png"), "-o", path("cwebp.webp"))
        let djpegStartup = ExternalCommand("djpeg", "-version")
        let cjpegStartup = ExternalCommand("cjpeg", "-version")
        let cwebpStartup = ExternalCommand("cwebp", "-version")

        var ourJPEG = Data()
        var ourResized = Data()
        let warm = ImageTranscoder()
        _ = try warm.renderSync(.file(largeURL), as: .webp(quality: 80), resize: resize)
        let hitBatch = 200

        let cases = [
            SideBySide.Case(name: "ours-decode") {
                try Stopwatch.time { blackHole(try RGBAImage(decoding: jpeg)) }
            },
            SideBySide.Case(name: "djpeg", sample: djpeg.run),
            SideBySide.Case(name: "djpeg-startup", sample: djpegStartup.run),
            SideBySide.Case(name: "ours-encode") {
                try Stopwatch.time { ourJPEG = try photo.jpegData(quality: 85) }
            },
            SideBySide.Case(name: "cjpeg", sample: cjpeg.run),
            SideBySide.Case(name: "cjpeg-startup", sample: cjpegStartup.run),
            SideBySide.Case(name: "ours-resize") {
                try Stopwatch.time {
                    ourResized = try ImageTranscoder().renderSync(.file(largeURL), as: .webp(quality: 80), resize: resize)
                }
            },
            SideBySide.Case(name: "cwebp-resize", sample: cwebp.run),
            SideBySide.Case(name: "cwebp-startup", sample: cwebpStartup.run),
            SideBySide.Case(name: "resize-hit") {
                try Stopwatch.time {
                    for _ in 0..<hitBatch {
                        blackHole(try warm.renderSync(.file(largeURL), as: .webp(quality: 80), resize: resize))
                    }
                } / Double(hitBatch)
            },
        ]
        let results = try SideBySide(cases: cases).run(rounds: rounds, warmup: 2)
        let asyncHit = try await asyncHitSamples(warm, largeURL, resize, batch: hitBatch)
        guard warm.statistics.resizes == 1 else {
            throw BenchmarkError("cached resizes did codec work: \(warm.statistics)")
        }

        let cjpegOut = try Data(contentsOf: URL(fileURLWithPath: path("cjpeg.jpg")))
        let cwebpOut = try Data(contentsOf: URL(fileURLWithPath: path("cwebp.webp")))
        let resizedImage = try RGBAImage(decoding: ourResized)

        func median(_ key: String) -> Double { results[key]!.median }
        func adjusted(_ tool: String) -> Double { median(tool) - median(tool.split(separator: "-")[0] + "-startup") }
        let decode = median("ours-decode")
        let encode = median("ours-encode")
        let resized = median("ours-resize")
        let hit = max(median("resize-hit"), asyncHit.median)

        Report.heading("Images: JPEG and resizing (issue 16)")
        print("""
            Inputs: the photo pattern at 2048x1536 (JPEG q85 \(jpeg.count) bytes, PPM for cjpeg) and at 4000x3000
            (PNG \(largePNG.count) bytes). Median of \(rounds) samples per case, interleaved round by round.
            Ours: in-process wall time; the resize through a fresh ImageTranscoder per sample, from the file.
            Tools: process wall time, output to a file.
            """)
        func row(_ label: String, _ key: String, _ note: String = "") -> [String] {
            [label, Report.duration(median(key)), Report.spread(results[key]!), note]
        }
        Report.table(header: ["case", "median", "p25 .. p75", "note"], rows: [
            row("ours JPEG decode (cold)", "ours-decode", "2048x1536 RGBA"),
            row("djpeg -outfile out.ppm in.jpg", "djpeg"),
            row("djpeg -version (start-up)", "djpeg-startup"),
            row("ours JPEG encode q85 (cold)", "ours-encode", "\(ourJPEG.count) B out"),
            row("cjpeg -quality 85 in.ppm", "cjpeg", "\(cjpegOut.count) B out"),
            row("cjpeg -version (start-up)", "cjpeg-startup"),
            row("ours 4000x3000 PNG -> 400w WebP q80 (cold)", "ours-resize", "\(resizedImage.width)x\(resizedImage.height), \(ourResized.count) B out"),
            row("cwebp -resize 400 0 -q 80 in.png", "cwebp-resize", "\(cwebpOut.count) B out"),
            row("cwebp -version (start-up)", "cwebp-startup"),
            row("ours cached resize (sync)", "resize-hit"),
            ["ours cached resize (async)", Report.duration(asyncHit.median), Report.spread(asyncHit), ""],
        ])
        print("")
        Report.table(header: ["ratio (ours / theirs)", "raw", "start-up adjusted"], rows: [
            ["JPEG decode vs djpeg", Report.ratio(decode / median("djpeg")), Report.ratio(decode / adjusted("djpeg"))],
            ["JPEG encode q85 vs cjpeg -quality 85", Report.ratio(encode / median("cjpeg")), Report.ratio(encode / adjusted("cjpeg"))],
            ["resize + WebP q80 vs cwebp -resize", Report.ratio(resized / median("cwebp-resize")), Report.ratio(resized / adjusted("cwebp-resize"))],
        ])
        print("cold resize / cached resize: \(Report.ratio(resized / hit)) (slower of sync/async hit)")
        print("")

        report.target(
            "cold JPEG decode no slower than djpeg",
            measured: "\(Report.ratio(decode / adjusted("djpeg"))) adjusted, \(Report.ratio(decode / median("djpeg"))) raw",
            passed: decode <= adjusted("djpeg")
        )
        report.target(
            "cold JPEG encode q85 no slower than cjpeg -quality 85",
            measured: "\(Report.ratio(encode / adjusted("cjpeg"))) adjusted, \(Report.ratio(encode / median("cjpeg"))) raw",
            passed: encode <= adjusted("cjpeg")
        )
        report.target(
            "cold resize 4000x3000 -> 400w + WebP q80 no slower than cwebp -resize 400 0 -q 80",
            measured: "\(Report.ratio(resized / adjusted("cwebp-resize"))) adjusted, \(Report.ratio(resized / median("cwebp-resize"))) raw",
            passed: resized <= adjusted("cwebp-resize")
        )
        report.target(
            "cached resize at least 100x faster than a cold one",
            measured: Report.ratio(resized / hit),
            passed: resized >= 100 * hit
        )
    }

    private func asyncHitSamples(_ transcoder: ImageTranscoder, _ url: URL, _ resize: ImageResize, batch: Int) async throws -> Samples {
        var samples = Samples()
        for round in 0..<(rounds + 3) {
            let start = Stopwatch.now()
            for _ in 0..<batch { blackHole(try await transcoder.render(.file(url), as: .webp(quality: 80), resize: resize)) }
            if round >= 3 { samples.append(Double(Stopwatch.now() - start) / Double(batch)) }
        }
        return samples
    }

    /// Binary PPM (P6), the input cjpeg 2.1 reads.
    static func ppm(_ image: RGBAImage) -> Data {
        var data = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        image.pixels.withUnsafeBufferPointer { source in
            for pixel in 0..<(image.width * image.height) {
                rgb[pixel * 3] = source[pixel * 4]
                rgb[pixel * 3 + 1] = source[pixel * 4 + 1]
                rgb[pixel * 3 + 2] = source[pixel * 4 + 2]
            }
        }
        data.append(contentsOf: rgb)
        return data
    }
}
