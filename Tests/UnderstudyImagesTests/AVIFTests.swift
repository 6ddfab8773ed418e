import Foundation
import UnderstudyImages
import XCTest

/// AVIF through libavif: what avifdec and Pillow read from what we write (size, PSNR against the
/// source, alpha), and what we read from what avifenc writes at 8, 10 and 12 bits.
final class AVIFTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    /// avifdec's decoding (8-bit PNG), read back with our PNG decoder.
    private func avifdec(_ path: String, index: Int = 0) throws -> RGBAImage {
        let out = scratch.path(UUID().uuidString + ".png")
        try Tools.check("avifdec", ["--index", "\(index)", path, out])
        return try RGBAImage(decoding: Data(contentsOf: URL(fileURLWithPath: out)))
    }

    func testEncodedAVIFIsReadByAvifdecAndPillowAtItsSizeAboveAPSNRFloorWithAlphaKept() throws {
        let image = try ImageGenerator.photoLike(width: 200, height: 150, seed: 3, opaque: false)
        let avif = try image.avifData(quality: 60, speed: 8)
        XCTAssertEqual(ImageKind.detect(avif), .avif)
        let path = try scratch.write(avif, "photo.avif")
        let decoded = try avifdec(path)
        XCTAssertEqual([decoded.width, decoded.height], [200, 150])
        XCTAssertGreaterThanOrEqual(Pixels.psnr(decoded.pixels, image.pixels), 30, "quality 60 on the photo pattern")
        let alphaError = zip(Pixels.alpha(decoded.pixels), Pixels.alpha(image.pixels)).map { abs(Int($0) - Int($1)) }.max() ?? 255
        XCTAssertLessThanOrEqual(alphaError, 12, "the alpha ramp is kept")
        let info = try Tools.pillow("""
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1]); im.load()
            print(im.format, im.size[0], im.size[1], im.mode)
            """, [path]).stdout
        XCTAssertEqual(info, "AVIF 200 150 RGBA\n")
        // Our decoder and avifdec agree (both libavif, but through our RGB conversion settings).
        XCTAssertGreaterThanOrEqual(Pixels.psnr(try RGBAImage(decoding: avif).pixels, decoded.pixels), 45)
    }

    func testOpaqueImagesHaveNoAlphaAndQualityAndSpeedAreApplied() throws {
        let image = try ImageGenerator.photoLike(width: 160, height: 120, seed: 4)
        let low = try image.avifData(quality: 20, speed: 10)
        let high = try image.avifData(quality: 90, speed: 10)
        XCTAssertLessThan(low.count, high.count, "quality 20 is smaller than 90")
        let lowPath = try scratch.write(low, "low.avif")
        let highPath = try scratch.write(high, "high.avif")
        XCTAssertLessThan(Pixels.psnr(try avifdec(lowPath).pixels, image.pixels), Pixels.psnr(try avifdec(highPath).pixels, image.pixels))
        let info = try Tools.check("avifdec", ["--info", highPath]).stdout
        XCTAssertTrue(Self.field("Alpha", in: info) == "Absent", info)
        let translucent = try scratch.write(ImageGenerator.photoLike(width: 16, height: 16, opaque: false).avifData(), "alpha.avif")
        XCTAssertNotEqual(Self.field("Alpha", in: try Tools.check("avifdec", ["--info", translucent]).stdout), "Absent")
        XCTAssertTrue(Pixels.alpha(try RGBAImage(decoding: high).pixels).allSatisfy { $0 == 255 })
    }

    func testAvifencsEightTenAndTwelveBitFilesDecodeToTheSource() throws {
        let image = try ImageGenerator.photoLike(width: 96, height: 64, seed: 6, opaque: false)
        let png = try scratch.write(image.pngData(), "source.png")
        for depth in [8, 10, 12] {
            let out = scratch.path("d\(depth).avif")
            try Tools.check("avifenc", ["-d", "\(depth)", "-y", "444", "-s", "10", "--min", "0", "--max", "4", "--minalpha", "0", "--maxalpha", "0", png, out])
            let info = try Tools.check("avifdec", ["--info", out]).stdout
            XCTAssertEqual(Self.field("Bit Depth", in: info), "\(depth)", info)
            let decoded = try RGBAImage(decoding: Data(contentsOf: URL(fileURLWithPath: out)))
            XCTAssertEqual([decoded.width, decoded.height], [96, 64])
            XCTAssertGreaterThanOrEqual(Pixels.psnr(decoded.pixels, image.pixels), 38, "\(depth)-bit")
            XCTAssertEqual(Pixels.alpha(decoded.pixels), Pixels.alpha(image.pixels), "\(depth)-bit: lossless alpha")
        }
    }

    func testAnimatedAVIFHasItsFramesAtTheirDurations() throws {
        let source = ImageSource.animated(width: 64, height: 48, pattern: .checkerboard, frames: 6, frameDuration: .milliseconds(150))
        let avif = try ImageTranscoder().renderSync(source, as: .avif(quality: 90, speed: 10))
        XCTAssertEqual(ImageKind.detect(avif), .avif)
        XCTAssertEqual(String(decoding: avif[8..<12], as: UTF8.self), "avis", "an image sequence's major brand")
        let path = try scratch.write(avif, "anim.avif")
        let info = try Tools.check("avifdec", ["--info", path]).stdout
        XCTAssertTrue(info.contains("1000 timescales per second, 0.90 seconds (900 timescales), 6 frames"), info)
        XCTAssertEqual(info.components(separatedBy: "[duration 0.15 (150 timescales)] [64x48]").count - 1, 6, info)
        let frames = try RGBAImage.frames(decoding: avif)
        let expected = try ImageGenerator.frames(width: 64, height: 48, pattern: .checkerboard, count: 6)
        XCTAssertEqual(frames.count, 6)
        for (index, frame) in frames.enumerated() {
            XCTAssertGreaterThanOrEqual(Pixels.psnr(frame.pixels, expected[index].pixels), 30, "frame \(index)")
            XCTAssertGreaterThanOrEqual(Pixels.psnr(try avifdec(path, index: index).pixels, expected[index].pixels), 30, "avifdec frame \(index)")
        }
        XCTAssertEqual(try Tools.pillow("import sys\nfrom PIL import Image\nprint(Image.open(sys.argv[1]).n_frames)", [path]).stdout, "6\n")
    }

    func testDamagedAndAbsurdAVIFsAreDocumentedErrors() throws {
        let avif = try ImageGenerator.photoLike(width: 64, height: 64).avifData(quality: 50, speed: 10)
        XCTAssertThrowsError(try RGBAImage(decoding: avif.prefix(avif.count / 2))) { error in
            XCTAssertEqual((error as? ImageError)?.code, .truncated, "\(error)")
        }
        XCTAssertThrowsError(try RGBAImage(decoding: avif, pixelLimit: 4000)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge, "\(error)")
            XCTAssertEqual("\(error)", "image of 64x64 = 4096 pixels is over the limit of 4000 pixels; raise pixelLimit to allow it")
        }
        // An `ispe` (image spatial extent) claiming 100000 x 100000 is refused from the header.
        var bytes = [UInt8](avif)
        let ispe = try XCTUnwrap(Self.find("ispe", in: bytes))
        for offset in (ispe + 8)..<(ispe + 16) { bytes[offset] = 0 }
        bytes[ispe + 9] = 0x01; bytes[ispe + 10] = 0x86; bytes[ispe + 11] = 0xA0  // width 100000
        bytes[ispe + 13] = 0x01; bytes[ispe + 14] = 0x86; bytes[ispe + 15] = 0xA0  // height 100000
        XCTAssertThrowsError(try RGBAImage(decoding: Data(bytes))) { error in
            let code = (error as? ImageError)?.code
            XCTAssertTrue(code == .tooLarge || code == .corrupt, "\(error)")
        }
    }

    /// The value of a ` * Name : value` line of `avifdec --info`.
    static func field(_ name: String, in info: String) -> String? {
        for line in info.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == "* \(name)" { return parts[1] }
        }
        return nil
    }

    static func find(_ tag: String, in bytes: [UInt8]) -> Int? {
        let tag = Array(tag.utf8)
        guard bytes.count >= tag.count else { return nil }
        return (0...(bytes.count - tag.count)).first { bytes[$0..<$0 + tag.count].elementsEqual(tag) }
    }
}
