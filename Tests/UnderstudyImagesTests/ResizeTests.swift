import Foundation
import UnderstudyImages
import XCTest

/// `ImageResize`: the sizes each fit gives, and resampling that averages (as Pillow's BOX
/// filter does) rather than picking pixels.
final class ResizeTests: XCTestCase {
    func testSizesForEachFit() {
        func size(_ resize: ImageResize, _ width: Int = 1600, _ height: Int = 1200) -> String {
            let out = resize.outputSize(width: width, height: height)
            return "\(out.width)x\(out.height)"
        }
        XCTAssertEqual(size(ImageResize(width: 320)), "320x240")
        XCTAssertEqual(size(ImageResize(height: 300)), "400x300")
        XCTAssertEqual(size(ImageResize(width: 320, fit: .cover)), "320x240", "one side alone keeps the aspect ratio whatever the fit")
        XCTAssertEqual(size(ImageResize(width: 320, height: 320)), "320x240", "contain")
        XCTAssertEqual(size(ImageResize(width: 320, height: 320, fit: .cover)), "320x320")
        XCTAssertEqual(size(ImageResize(width: 320, height: 320, fit: .fill)), "320x320")
        XCTAssertEqual(size(ImageResize(width: 100, height: 400)), "100x75")
        XCTAssertEqual(size(ImageResize(width: 3200)), "3200x2400", "enlarging is allowed")
        XCTAssertEqual(size(ImageResize(width: 1), 1000, 1), "1x1", "never below 1 pixel")
        XCTAssertEqual(size(ImageResize()), "1600x1200")
    }

    func testShrinkingAveragesEverySourcePixel() throws {
        // One-pixel black and white stripes: averaging gives grey; picking pixels would give
        // black or white.
        var pixels: [UInt8] = []
        for _ in 0..<64 { for x in 0..<64 { pixels += x % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] } }
        let stripes = try RGBAImage(width: 64, height: 64, pixels: pixels)
        let small = try stripes.resized(ImageResize(width: 16))
        XCTAssertEqual(small.width, 16)
        XCTAssertEqual(small.height, 16)
        for index in stride(from: 0, to: small.pixels.count, by: 4) {
            XCTAssertTrue((120...135).contains(small.pixels[index]), "pixel \(index / 4) is \(small.pixels[index]), expected mid-grey")
        }
    }

    func testMatchesPillowsBoxFilterOnAPhoto() throws {
        let scratch = try Scratch()
        let photo = try ImageGenerator.photoLike(width: 800, height: 600, seed: 9)
        let small = try photo.resized(ImageResize(width: 200))
        let source = try scratch.write(photo.pngData(), "photo.png")
        let ours = try scratch.write(small.pngData(), "ours.png")
        let script = """
            import sys
            from PIL import Image, ImageChops, ImageStat
            a = Image.open(sys.argv[1]).convert('RGB').resize((200, 150), Image.BOX)
            b = Image.open(sys.argv[2]).convert('RGB')
            print(b.size[0], b.size[1], '%.3f' % max(ImageStat.Stat(ImageChops.difference(a, b)).mean))
            """
        let fields = try Tools.pillow(script, [source, ours]).stdout.split(separator: " ")
        XCTAssertEqual(fields.prefix(2), ["200", "150"])
        let meanDifference = try XCTUnwrap(Double(fields[2].trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertLessThan(meanDifference, 1.5, "mean difference from Pillow's area average, per channel")
    }

    func testCoverCropsTheCentre() throws {
        // Red, green, blue thirds side by side; a square cover keeps the green middle.
        var pixels: [UInt8] = []
        for _ in 0..<30 {
            for x in 0..<90 { pixels += x < 30 ? [255, 0, 0, 255] : x < 60 ? [0, 255, 0, 255] : [0, 0, 255, 255] }
        }
        let bands = try RGBAImage(width: 90, height: 30, pixels: pixels)
        let square = try bands.resized(ImageResize(width: 10, height: 10, fit: .cover))
        XCTAssertEqual(square.width, 10)
        XCTAssertEqual(square.height, 10)
        XCTAssertEqual(Array(square.pixels[0..<4]), [0, 255, 0, 255])
        XCTAssertEqual(Array(square.pixels[(square.pixels.count - 4)...]), [0, 255, 0, 255])
        let filled = try bands.resized(ImageResize(width: 9, height: 9, fit: .fill))
        XCTAssertEqual(Array(filled.pixels[0..<4]), [255, 0, 0, 255], "fill keeps everything, stretched")
    }

    func testTransparentPixelsDoNotBleedTheirColour() throws {
        // Left half transparent red, right half opaque blue: the averaged edge is blue, not purple.
        var pixels: [UInt8] = []
        for _ in 0..<4 { for x in 0..<4 { pixels += x < 2 ? [255, 0, 0, 0] : [0, 0, 255, 255] } }
        let image = try RGBAImage(width: 4, height: 4, pixels: pixels)
        let one = try image.resized(ImageResize(width: 1, height: 1, fit: .fill))
        XCTAssertLessThan(one.pixels[0], 10, "red from invisible pixels")
        XCTAssertGreaterThan(one.pixels[2], 240)
        XCTAssertTrue((120...135).contains(one.pixels[3]), "half covered")
    }

    func testOversizeAndZeroSizesAreInvalidResizes() throws {
        let image = try ImageGenerator.generate(width: 16, height: 12, pattern: .gradient)
        XCTAssertThrowsError(try image.resized(ImageResize(width: 40_000), pixelLimit: 1_000_000)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .invalidResize)
            XCTAssertEqual("\(error)", "cannot resize a 16x12 image to 40000x30000 (40000x? contain): the result is over the limit of 1000000 pixels")
        }
        XCTAssertThrowsError(try image.resized(ImageResize(height: 0))) { error in
            XCTAssertEqual("\(error)", "cannot resize to a height of 0: expected at least 1 pixel")
        }
    }

    func testTranscodedResizesOfEachSourceFormatMatchResizingTheDecodedImage() throws {
        // The transcoder decodes straight into libwebp's layout for a resize; the pixels must be
        // those of decoding to RGBA and resizing that, alpha and crop included.
        let image = try ImageGenerator.photoLike(width: 120, height: 80, seed: 6, opaque: false)
        let sources: [(String, Data)] = [
            ("png", try image.pngData()), ("lossless webp", try image.webPLosslessData()),
            ("lossy webp", try image.webPData(quality: 70)), ("jpeg", try image.jpegData(quality: 90)),
            ("animated webp", try ImageTranscoder().renderSync(
                .animated(width: 120, height: 80, pattern: .gradient, frames: 3, frameDuration: .milliseconds(10)), as: .webpLossless)),
        ]
        for (name, data) in sources {
            for resize in [ImageResize(width: 30), ImageResize(width: 40, height: 40, fit: .cover), ImageResize(width: 500, height: 20, fit: .fill)] {
                let served = try ImageTranscoder().transcodeSync(data, to: .png, resize: resize)
                let expected = try RGBAImage(decoding: data).resized(resize)
                XCTAssertEqual(try RGBAImage(decoding: served), expected, "\(name) \(resize)")
            }
        }
    }

    func testResizedTranscodesAreCachedWithTheirSize() throws {
        let transcoder = ImageTranscoder()
        let png = try ImageGenerator.photoLike(width: 400, height: 300).pngData()
        let small = try transcoder.transcodeSync(png, to: .webp(quality: 80), resize: ImageResize(width: 100))
        XCTAssertEqual(try RGBAImage(decoding: small).width, 100)
        XCTAssertEqual(try transcoder.transcodeSync(png, to: .webp(quality: 80), resize: ImageResize(width: 100)), small)
        let other = try transcoder.transcodeSync(png, to: .webp(quality: 80), resize: ImageResize(width: 50))
        XCTAssertEqual(try RGBAImage(decoding: other).width, 50)
        let statistics = transcoder.statistics
        XCTAssertEqual(statistics.hits, 1)
        XCTAssertEqual(statistics.resizes, 2)
        XCTAssertEqual(statistics.decodes, 2)
    }
}
