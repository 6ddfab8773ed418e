import Foundation
import UnderstudyImages
import XCTest

/// Our encoders: round trips, quality, alpha, and output read back by independent decoders.
final class EncodingTests: XCTestCase {
    func testPNGToLosslessWebPToPNGIsPixelExact() throws {
        let source = try ImageGenerator.photoLike(width: 120, height: 90, seed: 11, opaque: false)
        let png = try source.pngData()
        let webp = try RGBAImage(decoding: png).webPLosslessData()
        XCTAssertEqual(ImageKind.detect(webp), .webp)
        let back = try RGBAImage(decoding: RGBAImage(decoding: webp).pngData())
        XCTAssertEqual(back, source)
    }

    func testLosslessWebPKeepsColoursUnderFullyTransparentPixels() throws {
        let pixels: [UInt8] = [10, 20, 30, 0, 200, 100, 50, 0, 1, 2, 3, 255, 255, 255, 255, 0]
        let source = try RGBAImage(width: 2, height: 2, pixels: pixels)
        XCTAssertEqual(try RGBAImage(decoding: source.webPLosslessData()), source)
    }

    func testLossyWebPAtQuality80OfAPhotoIsAbove30dB() throws {
        let source = try ImageGenerator.photoLike(width: 256, height: 192, seed: 12)
        let webp = try source.webPData(quality: 80)
        let decoded = try RGBAImage(decoding: webp)
        XCTAssertEqual([decoded.width, decoded.height], [256, 192])
        XCTAssertGreaterThanOrEqual(Pixels.psnr(decoded.pixels, source.pixels), 30)
        // Lossy really is lossy, and quality buys size.
        XCTAssertLessThan(webp.count, try source.webPLosslessData().count / 2)
        XCTAssertLessThan(try source.webPData(quality: 10).count, webp.count)
    }

    func testAlphaSurvivesEveryEncoding() throws {
        let source = try ImageGenerator.photoLike(width: 64, height: 48, seed: 13, opaque: false)
        XCTAssertFalse(source.isOpaque)
        for target in [ImageFormat.png, .webpLossless, .webp(quality: 75)] {
            let decoded = try RGBAImage(decoding: source.encoded(as: target))
            XCTAssertEqual(Pixels.alpha(decoded.pixels), Pixels.alpha(source.pixels), "\(target)")
        }
    }

    func testOpaqueImagesAreWrittenAsRGBAndTranslucentAsRGBA() throws {
        let opaque = try ImageGenerator.generate(width: 8, height: 8, pattern: .gradient).pngData()
        let translucent = try ImageGenerator.generate(width: 8, height: 8, pattern: .solid(.transparent)).pngData()
        XCTAssertEqual(Pixels.pngHeader(opaque).colorType, 2)
        XCTAssertEqual(Pixels.pngHeader(translucent).colorType, 6)
        XCTAssertEqual(Pixels.pngHeader(opaque).bitDepth, 8)
    }

    func testPNGOutputPassesPngcheckAndPillowReadsTheSamePixels() throws {
        let scratch = try Scratch()
        for (name, source) in [
            ("opaque", try ImageGenerator.photoLike(width: 70, height: 50, seed: 14)),
            ("alpha", try ImageGenerator.photoLike(width: 70, height: 50, seed: 15, opaque: false)),
        ] {
            let path = try scratch.write(source.pngData(), "\(name).png")
            let check = try Tools.check("pngcheck", [path])
            XCTAssertTrue(check.stdout.hasPrefix("OK: \(path) (70x50, \(name == "opaque" ? "24-bit RGB" : "32-bit RGB+alpha"), non-interlaced"), check.stdout)
            try Tools.pillow(
                "import sys; from PIL import Image; im = Image.open(sys.argv[1]); print(im.size); open(sys.argv[2], 'wb').write(im.convert('RGBA').tobytes())",
                [path, scratch.path("\(name).rgba")]
            )
            XCTAssertEqual([UInt8](try scratch.read("\(name).rgba")), source.pixels, name)
        }
    }

    func testWebPOutputIsReadByDwebpAndPillow() throws {
        let scratch = try Scratch()
        let source = try ImageGenerator.photoLike(width: 66, height: 34, seed: 16, opaque: false)
        let lossless = try scratch.write(source.webPLosslessData(), "lossless.webp")
        let lossyData = try source.webPData(quality: 80)
        let lossy = try scratch.write(lossyData, "lossy.webp")

        try Tools.check("dwebp", ["-quiet", lossless, "-pam", "-o", scratch.path("lossless.pam")])
        let pam = try XCTUnwrap(Pixels.readPAM(scratch.read("lossless.pam")))
        XCTAssertEqual([pam.width, pam.height], [66, 34])
        XCTAssertEqual(pam.pixels, source.pixels)

        try Tools.check("dwebp", ["-quiet", lossy, "-pam", "-o", scratch.path("lossy.pam")])
        let lossyPAM = try XCTUnwrap(Pixels.readPAM(scratch.read("lossy.pam")))
        XCTAssertEqual([lossyPAM.width, lossyPAM.height], [66, 34])
        XCTAssertEqual(lossyPAM.pixels, try RGBAImage(decoding: lossyData).pixels)

        let pillow = try Tools.pillow(
            "import sys; from PIL import Image; im = Image.open(sys.argv[1]); print(im.format, im.size[0], im.size[1], im.mode); open(sys.argv[2], 'wb').write(im.convert('RGBA').tobytes())",
            [lossless, scratch.path("pillow.rgba")]
        )
        XCTAssertEqual(pillow.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "WEBP 66 34 RGBA")
        XCTAssertEqual([UInt8](try scratch.read("pillow.rgba")), source.pixels)
    }

    func testWebPRefusesImagesBeyondItsDimensionLimit() throws {
        let wide = try ImageGenerator.generate(width: 16384, height: 1, pattern: .solid(.red))
        XCTAssertThrowsError(try wide.webPData(quality: 80)) { error in
            XCTAssertEqual(
                "\(error)",
                "cannot encode a 16384x1 image as WebP: WebP allows at most 16383x16383 pixels; use PNG"
            )
        }
        // PNG has no such limit.
        XCTAssertEqual(try RGBAImage(decoding: wide.pngData()), wide)
    }
}
