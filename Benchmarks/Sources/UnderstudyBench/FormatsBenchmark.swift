import Foundation
import UnderstudyImages

/// Issue 25: AVIF, HEIC and GIF. Cold encode of a 1024x768 `photo` against the libraries' own
/// tools at the same settings (AVIF against `avifenc` with libaom at the same quantizer and
/// speed, one thread, 4:2:0; HEIC against `heif-enc -q 60`; GIF against Pillow's adaptive
/// palette), decode against `avifdec` and `heif-convert`, and a cached AVIF transcode against a
/// cold one.
///
/// As in ``JPEGResizeBenchmark``, the tools are timed as processes with their start-up (`-h` or
/// `--version`, Python importing Pillow) timed alongside, and targets are judged on the
/// start-up-adjusted ratios. The tools read and write PNG where we hold pixels in memory; that
/// is the work a caller of the tool pays, and the rows say so.
struct FormatsBenchmark {
    let rounds: Int
    let python: String

    func run(into report: inout Report) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("understudy-bench-formats-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        let quality = 60, speed = 8
        // libavif 1.x's mapping of quality to quantizer, which our 0.11 shim uses too.
        let quantizer = String(((100 - quality) * 63 + 50) / 100)
        let photo = try ImageGenerator.generate(width: 1024, height: 768, pattern: .photo)
        let png = try photo.pngData()
        let pngURL = URL(fileURLWithPath: path("in.png"))
        try png.write(to: pngURL)
        let avif = try photo.avifData(quality: quality, speed: speed)
        try avif.write(to: URL(fileURLWithPath: path("in.avif")))
        let heic = try photo.heicData(quality: quality)
        try heic.write(to: URL(fileURLWithPath: path("in.heic")))

        let avifenc = ExternalCommand(
            "avifenc", "-c", "aom", "-j", "1", "-s", String(speed), "-y", "420", "-r", "full",
            "--min", quantizer, "--max", quantizer, "--minalpha", quantizer, "--maxalpha", quantizer, path("in.png"), path("avifenc.avif")
        )
        let avifdec = ExternalCommand("avifdec", "-j", "1", "--png-compress", "1", path("in.avif"), path("avifdec.png"))
        let heifEnc = ExternalCommand("heif-enc", "-q", String(quality), "-o", path("heif-enc.heic"), path("in.png"))
        let heifConvert = ExternalCommand("heif-convert", path("in.heic"), path("heif-convert.png"))
        let pillowGIF = ExternalCommand(
            python, "-c", "import sys\nfrom PIL import Image\nImage.open(sys.argv[1]).save(sys.argv[2])", path("in.png"), path("pillow.gif")
        )
        let startups: [String: ExternalCommand] = [
            "avifenc": ExternalCommand("avifenc", "--version"),
            "avifdec": ExternalCommand("avifdec", "--version"),
            "heif-enc": ExternalCommand("heif-enc", "-h"),
            "heif-convert": ExternalCommand("heif-convert", "-h"),
            "pillow": ExternalCommand(python, "-c", "from PIL import Image"),
        ]

        var ourAVIF = Data(), ourHEIC = Data(), ourGIF = Data()
        let warm = ImageTranscoder()
        _ = try warm.renderSync(.file(pngURL), as: .avif(quality: quality, speed: speed))
        let hitBatch = 2000

        var cases = [
            SideBySide.Case(name: "ours-avif-encode") { try Stopwatch.time { ourAVIF = try photo.avifData(quality: quality, speed: speed) } },
            SideBySide.Case(name: "avifenc", sample: avifenc.run),
            SideBySide.Case(name: "ours-avif-decode") { try Stopwatch.time { blackHole(try RGBAImage(decoding: avif)) } },
            SideBySide.Case(name: "avifdec", sample: avifdec.run),
            SideBySide.Case(name: "ours-heic-encode") { try Stopwatch.time { ourHEIC = try photo.heicData(quality: quality) } },
            SideBySide.Case(name: "heif-enc", sample: heifEnc.run),
            SideBySide.Case(name: "ours-heic-decode") { try Stopwatch.time { blackHole(try RGBAImage(decoding: heic)) } },
            SideBySide.Case(name: "heif-convert", sample: heifConvert.run),
            SideBySide.Case(name: "ours-gif-encode") { try Stopwatch.time { ourGIF = try photo.gifData() } },
            SideBySide.Case(name: "pillow", sample: pillowGIF.run),
            SideBySide.Case(name: "avif-cold") {
                try Stopwatch.time { blackHole(try ImageTranscoder().renderSync(.file(pngURL), as: .avif(quality: quality, speed: speed))) }
            },
            SideBySide.Case(name: "avif-hit") {
                try Stopwatch.time {
                    for _ in 0..<hitBatch { blackHole(try warm.renderSync(.file(pngURL), as: .avif(quality: quality, speed: speed))) }
                } / Double(hitBatch)
            },
        ]
        for (tool, command) in startups.sorted(by: { $0.key < $1.key }) {
            cases.append(SideBySide.Case(name: "\(tool)-startup", sample: command.run))
        }
        let results = try SideBySide(cases: cases).run(rounds: rounds, warmup: 1)
        guard warm.statistics.encodes == 1 else {
            throw BenchmarkError("cached AVIF transcodes did codec work: \(warm.statistics)")
        }

        func median(_ key: String) -> Double { results[key]!.median }
        func adjusted(_ tool: String) -> Double { median(tool) - median(tool + "-startup") }
        func size(_ file: String) -> Int { (try? Data(contentsOf: URL(fileURLWithPath: path(file))).count) ?? 0 }
        func psnr(_ data: Data) -> String {
            guard let decoded = try? RGBAImage(decoding: data) else { return "?" }
            var squared = 0.0
            for index in stride(from: 0, to: decoded.pixels.count, by: 4) {
                for channel in 0..<3 {
                    let difference = Double(decoded.pixels[index + channel]) - Double(photo.pixels[index + channel])
                    squared += difference * difference
                }
            }
            let mse = squared / Double(decoded.width * decoded.height * 3)
            return String(format: "%.1f dB", 10 * log10(255 * 255 / mse))
        }
        func fileData(_ name: String) -> Data { (try? Data(contentsOf: URL(fileURLWithPath: path(name)))) ?? Data() }

        Report.heading("Images: AVIF, HEIC and GIF (issue 25)")
        print("""
            Input: the photo pattern at 1024x768 (PNG \(png.count) bytes for the tools). AVIF: quality \(quality) = quantizer \(quantizer),
            speed \(speed), 8-bit 4:2:0 full range, one thread, the AV1 encoder libavif chooses first (libaom; `avifenc -c aom`),
            decoding with dav1d (libavif's first decoder). Median of \(rounds) samples per case, interleaved round by round.
            """)
        func row(_ label: String, _ key: String, _ note: String = "") -> [String] {
            [label, Report.duration(median(key)), Report.spread(results[key]!), note]
        }
        Report.table(header: ["case", "median", "p25 .. p75", "note"], rows: [
            row("ours AVIF encode q\(quality) s\(speed) (cold)", "ours-avif-encode", "\(ourAVIF.count) B, \(psnr(ourAVIF))"),
            row("avifenc -c aom -s \(speed) --min/--max \(quantizer) in.png", "avifenc", "\(size("avifenc.avif")) B, \(psnr(fileData("avifenc.avif")))"),
            row("avifenc --version (start-up)", "avifenc-startup"),
            row("ours AVIF decode", "ours-avif-decode", "to RGBA in memory"),
            row("avifdec in.avif out.png", "avifdec", "to a PNG file (zlib level 1)"),
            row("avifdec --version (start-up)", "avifdec-startup"),
            row("ours HEIC encode q\(quality) (cold)", "ours-heic-encode", "\(ourHEIC.count) B, \(psnr(ourHEIC))"),
            row("heif-enc -q \(quality) in.png", "heif-enc", "\(size("heif-enc.heic")) B, \(psnr(fileData("heif-enc.heic")))"),
            row("heif-enc -h (start-up)", "heif-enc-startup"),
            row("ours HEIC decode", "ours-heic-decode", "to RGBA in memory"),
            row("heif-convert in.heic out.png", "heif-convert", "to a PNG file"),
            row("heif-convert -h (start-up)", "heif-convert-startup"),
            row("ours GIF encode (median cut)", "ours-gif-encode", "\(ourGIF.count) B, \(psnr(ourGIF))"),
            row("Pillow Image.save(gif) (adaptive)", "pillow", "\(size("pillow.gif")) B, \(psnr(fileData("pillow.gif")))"),
            row("python -c 'from PIL import Image' (start-up)", "pillow-startup"),
            row("ours AVIF transcode, cold (fresh transcoder)", "avif-cold"),
            row("ours AVIF transcode, cached", "avif-hit"),
        ])
        print("")
        let pairs: [(String, String, String)] = [
            ("AVIF encode vs avifenc", "ours-avif-encode", "avifenc"),
            ("AVIF decode vs avifdec", "ours-avif-decode", "avifdec"),
            ("HEIC encode vs heif-enc", "ours-heic-encode", "heif-enc"),
            ("HEIC decode vs heif-convert", "ours-heic-decode", "heif-convert"),
            ("GIF encode vs Pillow", "ours-gif-encode", "pillow"),
        ]
        Report.table(header: ["ratio (ours / theirs)", "raw", "start-up adjusted"], rows: pairs.map { label, ours, theirs in
            [label, Report.ratio(median(ours) / median(theirs)), Report.ratio(median(ours) / adjusted(theirs))]
        })
        let cold = median("avif-cold"), hit = median("avif-hit")
        print("cold AVIF transcode / cached: \(Report.ratio(cold / hit))")
        print("")
        for (label, ours, theirs) in pairs {
            report.target(
                "\(label) at most 1.0x",
                measured: "\(Report.ratio(median(ours) / adjusted(theirs))) adjusted, \(Report.ratio(median(ours) / median(theirs))) raw",
                passed: median(ours) <= adjusted(theirs)
            )
        }
        report.target("cached AVIF transcode at least 1,000x faster than cold", measured: Report.ratio(cold / hit), passed: cold >= 1000 * hit)
    }
}
