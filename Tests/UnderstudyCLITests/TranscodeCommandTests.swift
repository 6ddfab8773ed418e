import Foundation
import Understudy
import UnderstudyImages
@testable import UnderstudyCLI
import XCTest

/// `understudy transcode IN OUT [--to png|webp|jpeg] [--quality Q] [--lossless] [--progressive]`: the library job,
/// the argument parsing, and the built binary.
final class TranscodeCommandTests: XCTestCase {
    private var base: URL!
    private var source: RGBAImage!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-transcode-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        source = try ImageGenerator.photoLike(width: 40, height: 24, opaque: false)
        try source.pngData().write(to: file("in.png"))
        try source.webPLosslessData().write(to: file("in.webp"))
        try source.pngData().prefix(70).write(to: file("cut.png"))
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46]).write(to: file("photo.jpg"))
        try Data("hello there".utf8).write(to: file("notes.png"))
        try Data("GIF89a\u{1}\0\u{1}\0".utf8).write(to: file("anim.gif"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: base)
    }

    private func file(_ name: String) -> URL {
        URL(fileURLWithPath: name, relativeTo: base)
    }

    private func job(
        _ input: String, _ output: String, to format: String? = nil, quality: Int? = nil, lossless: Bool = false, progressive: Bool = false,
        speed: Int? = nil
    ) throws -> ImageFileTranscode {
        try ImageFileTranscode(
            input: file(input), output: file(output), format: format, quality: quality, lossless: lossless, progressive: progressive, speed: speed
        )
    }

    private func failure(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: - Library

    func testTargetFromTheExtensionAndTheFlags() throws {
        XCTAssertEqual(try job("in.webp", "out.png").target, .png)
        XCTAssertEqual(try job("in.png", "out.WEBP").target, .webp(quality: 80))
        XCTAssertEqual(try job("in.png", "out.webp", quality: 30).target, .webp(quality: 30))
        XCTAssertEqual(try job("in.png", "out.webp", lossless: true).target, .webpLossless)
        XCTAssertEqual(try job("in.png", "out.bin", to: "webp").target, .webp(quality: 80))
        XCTAssertEqual(try job("in.webp", "out.webp", to: "PNG").target, .png, "--to wins over the extension")
        XCTAssertEqual(try job("in.png", "out.jpg").target, .jpeg(quality: 85))
        XCTAssertEqual(try job("in.png", "out.JPEG", quality: 40).target, .jpeg(quality: 40))
        XCTAssertEqual(try job("in.png", "out.bin", to: "jpeg", progressive: true).target, .jpegProgressive(quality: 85))
        XCTAssertEqual(try job("in.png", "out.png", to: "jpg").target, .jpeg(quality: 85))
    }

    func testToJPEGBaselineAndProgressiveAndFromJPEG() throws {
        let report = try job("in.png", "out.jpg", quality: 90).run()
        let written = try Data(contentsOf: file("out.jpg"))
        XCTAssertEqual(written, try source.jpegData(quality: 90))
        XCTAssertEqual("\(report)", "out.jpg: JPEG at quality 90, 40x24, \(written.count) bytes (from PNG, \(report.inputBytes) bytes)")
        let progressive = try job("in.webp", "p.jpg", progressive: true).run()
        XCTAssertEqual(try Data(contentsOf: file("p.jpg")), try source.jpegData(quality: 85, progressive: true))
        XCTAssertTrue("\(progressive)".hasPrefix("p.jpg: progressive JPEG at quality 85, 40x24, "), "\(progressive)")
        let back = try job("out.jpg", "back.png").run()
        XCTAssertEqual(try RGBAImage(decoding: Data(contentsOf: file("back.png"))), try RGBAImage(decoding: written))
        XCTAssertTrue("\(back)".hasSuffix("(from JPEG, \(written.count) bytes)"), "\(back)")
    }

    func testWebPToPNGIsPixelExactAndReported() throws {
        let report = try job("in.webp", "out.png").run()
        let written = try Data(contentsOf: file("out.png"))
        XCTAssertEqual(ImageKind.detect(written), .png)
        XCTAssertEqual(try RGBAImage(decoding: written), source)
        XCTAssertEqual(report.outputBytes, written.count)
        XCTAssertEqual("\(report)", "out.png: PNG, 40x24, \(written.count) bytes (from WebP, \(report.inputBytes) bytes)")
    }

    func testPNGToLossyAndLosslessWebP() throws {
        _ = try job("in.png", "lossy.webp", quality: 60).run()
        XCTAssertEqual(try Data(contentsOf: file("lossy.webp")), try source.webPData(quality: 60))
        _ = try job("in.png", "exact.webp", lossless: true).run()
        XCTAssertEqual(try RGBAImage(decoding: Data(contentsOf: file("exact.webp"))), source)
    }

    func testUsageErrorsNameTheFlag() {
        XCTAssertEqual(failure { try self.job("in.png", "out.bmp") },
                       "OUT 'out.bmp' ends in '.bmp'; expected .png, .webp, .jpg, .jpeg, .avif, .heic or .gif, or give --to png|webp|jpeg|avif|heic|gif")
        XCTAssertEqual(failure { try self.job("in.png", "out") },
                       "OUT 'out' has no extension; expected .png, .webp, .jpg, .jpeg, .avif, .heic or .gif, or give --to png|webp|jpeg|avif|heic|gif")
        XCTAssertEqual(failure { try self.job("in.png", "out.png", to: "jxl") }, "--to: unknown format 'jxl'; expected png, webp, jpeg, avif, heic or gif")
        XCTAssertEqual(failure { try self.job("in.png", "out.jpg", quality: 0) },
                       "--quality 0 is out of range for JPEG; expected an integer from 1 to 100")
        XCTAssertEqual(failure { try self.job("in.png", "out.webp", progressive: true) },
                       "--progressive applies only to JPEG output; found --to webp")
        XCTAssertEqual(failure { try self.job("in.png", "out.jpg", lossless: true) },
                       "--lossless applies only to WebP output; JPEG is always lossy")
        XCTAssertEqual(failure { try self.job("in.png", "out.webp", quality: 101) },
                       "--quality 101 is out of range; expected an integer from 0 to 100")
        XCTAssertEqual(failure { try self.job("in.webp", "out.png", quality: 50) }, "--quality applies only to WebP, JPEG, AVIF and HEIC output; PNG is lossless")
        XCTAssertEqual(failure { try self.job("in.webp", "out.png", lossless: true) },
                       "--lossless applies only to WebP output; PNG is always lossless")
        XCTAssertEqual(failure { try self.job("in.png", "out.webp", quality: 50, lossless: true) },
                       "--quality and --lossless exclude each other; give one of them")
    }

    func testInputErrorsNameTheFile() {
        XCTAssertEqual(failure { try self.job("absent.png", "out.webp").run() }, "cannot read IN 'absent.png': no such file")
        XCTAssertEqual(failure { try self.job("cut.png", "out.webp").run() },
                       "IN 'cut.png' cannot be decoded: truncated PNG: the data ends after 70 bytes, before the image is complete")
        XCTAssertEqual(failure { try self.job("notes.png", "out.webp").run() },
                       "IN 'notes.png' cannot be decoded: not an image: the data (11 bytes) starts with 68 65 6C 6C 6F 20 74 68, which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC")
        XCTAssertEqual(failure { try self.job("photo.jpg", "out.png").run() },
                       "IN 'photo.jpg' cannot be decoded: truncated JPEG: the data ends after 8 bytes, before the image is complete")
        XCTAssertEqual(failure { try self.job("anim.gif", "out.png").run() },
                       "IN 'anim.gif' cannot be decoded: truncated GIF: the data ends after 10 bytes, before the image is complete (giflib: No screen descriptor detected, 104)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.webp").path), "nothing is written on failure")
    }

    func testAVIFHEICAndGIFOutputAndInput() throws {
        let source = try ImageGenerator.photoLike(width: 40, height: 30, seed: 2)
        try source.pngData().write(to: file("photo.png"))
        let avif = try UnderstudyCommand.Transcode.parse([file("photo.png").path, file("p.avif").path, "--quality", "70", "--speed", "10"])
        XCTAssertEqual(try avif.job().target, .avif(quality: 70, speed: 10))
        let report = try avif.job().run()
        XCTAssertTrue(report.description.hasSuffix("p.avif: AVIF at quality 70, speed 10, 40x30, \(report.outputBytes) bytes (from PNG, \(report.inputBytes) bytes)"), report.description)
        XCTAssertEqual(try Data(contentsOf: file("p.avif")), try source.avifData(quality: 70, speed: 10))
        XCTAssertEqual(try UnderstudyCommand.Transcode.parse(["a.png", "b.heic"]).job().target, .heic(quality: 60))
        XCTAssertEqual(try UnderstudyCommand.Transcode.parse(["a.png", "b.out", "--to", "avif"]).job().target, .avif(quality: 60, speed: 8))
        XCTAssertEqual(try UnderstudyCommand.Transcode.parse(["a.png", "b.gif"]).job().target, .gif)
        // AVIF in, HEIC and GIF out, and back.
        _ = try job("p.avif", "p.heic").run()
        _ = try job("p.heic", "p.gif").run()
        _ = try job("p.gif", "back.png").run()
        let back = try RGBAImage(decoding: Data(contentsOf: file("back.png")))
        XCTAssertEqual([back.width, back.height], [40, 30])
        XCTAssertEqual(ImageKind.detect(try Data(contentsOf: file("p.heic"))), .heic)
        XCTAssertEqual(failure { try self.job("in.png", "out.webp", speed: 5) }, "--speed 5 applies only to AVIF output; found --to webp")
        XCTAssertEqual(failure { try self.job("in.png", "out.avif", speed: 11) }, "--speed 11 is out of range; expected an integer from 0 (slowest) to 10 (fastest)")
        XCTAssertEqual(failure { try self.job("in.png", "out.gif", quality: 50) }, "--quality applies only to WebP, JPEG, AVIF and HEIC output; GIF has no quality setting")
        XCTAssertEqual(failure { try self.job("in.png", "out.heic", lossless: true) }, "--lossless applies only to WebP output; HEIC is always lossy")
    }

    func testArgumentParsing() throws {
        let command = try UnderstudyCommand.Transcode.parse(["a.png", "b.bin", "--quality", "5", "--to", "webp"])
        XCTAssertEqual(command.input, "a.png")
        XCTAssertEqual(command.output, "b.bin")
        XCTAssertEqual(command.format, "webp")
        XCTAssertEqual(command.quality, 5)
        XCTAssertFalse(command.lossless)
        XCTAssertEqual(try command.job().target, .webp(quality: 5))
        XCTAssertEqual(try UnderstudyCommand.Transcode.parse(["a.png", "b.webp", "--lossless"]).job().target, .webpLossless)
        XCTAssertThrowsError(try UnderstudyCommand.Transcode.parse(["a.webp", "b.bmp"])) { error in
            XCTAssertEqual(UnderstudyCommand.Transcode.message(for: error),
                           "OUT 'b.bmp' ends in '.bmp'; expected .png, .webp, .jpg, .jpeg, .avif, .heic or .gif, or give --to png|webp|jpeg|avif|heic|gif")
        }
        let jpeg = try UnderstudyCommand.Transcode.parse(["a.png", "b.out", "--to", "jpeg", "--progressive", "--quality", "70"])
        XCTAssertTrue(jpeg.progressive)
        XCTAssertEqual(try jpeg.job().target, .jpegProgressive(quality: 70))
        XCTAssertThrowsError(try UnderstudyCommand.Transcode.parse(["only-one.png"]))
    }

    // MARK: - The binary

    private func run(_ arguments: [String]) throws -> UnderstudyRun {
        try runUnderstudy(arguments, in: base)
    }

    func testBinaryWritesTheFileAndPrintsWhatItWrote() throws {
        let result = try run(["transcode", "in.webp", "out.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = try Data(contentsOf: file("out.png"))
        XCTAssertEqual(try RGBAImage(decoding: written), source)
        XCTAssertTrue(result.stdout.hasPrefix("out.png: PNG, 40x24, \(written.count) bytes (from WebP, "), result.stdout)
        let jpeg = try run(["transcode", "in.png", "out.bin", "--to", "jpeg", "--progressive"])
        XCTAssertEqual(jpeg.status, 0, jpeg.stderr)
        XCTAssertEqual(try Data(contentsOf: file("out.bin")), try source.jpegData(quality: 85, progressive: true))
    }

    func testBinaryExits1ForACorruptInputAnd64ForABadFlag() throws {
        let corrupt = try run(["transcode", "cut.png", "out.webp"])
        XCTAssertEqual(corrupt.status, 1)
        XCTAssertEqual(corrupt.stderr, "Error: IN 'cut.png' cannot be decoded: truncated PNG: the data ends after 70 bytes, before the image is complete\n")
        let flag = try run(["transcode", "in.png", "out.webp", "--quality", "300"])
        XCTAssertEqual(flag.status, 64)
        XCTAssertTrue(flag.stderr.hasPrefix("Error: --quality 300 is out of range; expected an integer from 0 to 100\n"), flag.stderr)
    }
}
