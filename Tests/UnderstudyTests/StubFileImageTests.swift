import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// `image:` and `transcode:` in stub files: what loads, how it answers, and the exact lines
/// `understudy check` prints for each mistake.
final class StubFileImageTests: XCTestCase {
    private var sandbox: StubFileSandbox!

    override func setUpWithError() throws {
        sandbox = try StubFileSandbox()
    }

    override func tearDown() {
        sandbox = nil
    }

    /// A 16x8 gradient, written as `images/g.png` and `images/g.webp` (lossless).
    private func writeImages() throws -> RGBAImage {
        let image = try ImageGenerator.generate(width: 16, height: 8, pattern: .gradient)
        try sandbox.write("images/g.png", image.pngData())
        try sandbox.write("images/g.webp", image.webPLosslessData())
        return image
    }

    private func assertIssues(_ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        try sandbox.write("a.yaml", text)
        XCTAssertEqual(sandbox.issues(), expected, file: file, line: line)
    }

    private func registry(_ text: String) throws -> StubRegistry {
        try sandbox.write("a.yaml", text)
        let registry = StubRegistry(transcoder: ImageTranscoder())
        try registry.load(from: sandbox.stubs)
        return registry
    }

    // MARK: - Loading and answering

    func testImageFileAsPNGServesTheDecodedPixels() async throws {
        let image = try writeImages()
        let stubs = try registry("stubs:\n  - response:\n      image: { file: images/g.webp, as: png }\n")
        let response = try await stubs.answer("http://x.test/a.webp")
        XCTAssertEqual(response.headers["Content-Type"], "image/png")
        XCTAssertEqual(response.headers["Content-Length"], String(response.body.count))
        XCTAssertEqual(try RGBAImage(decoding: response.body), image)
    }

    func testImageAsWebPTakesTheQualityAndDefaultsTo80() async throws {
        _ = try writeImages()
        let stubs = try registry("""
            stubs:
              - request: { path: /q10 }
                response: { image: { file: images/g.png, as: webp, quality: 10 } }
              - request: { path: /default }
                response: { image: { file: images/g.png, as: webp } }
            """)
        let low = try await stubs.answer("http://x.test/q10")
        let standard = try await stubs.answer("http://x.test/default")
        let source = try RGBAImage(decoding: Data(contentsOf: sandbox.stubs.appendingPathComponent("images/g.png")))
        XCTAssertEqual(low.body, try source.webPData(quality: 10))
        XCTAssertEqual(standard.body, try source.webPData(quality: 80))
        XCTAssertEqual(standard.headers["Content-Type"], "image/webp")
    }

    func testOriginalIsTheDefaultAndServesTheFileAsItIs() async throws {
        _ = try writeImages()
        let stubs = try registry("stubs:\n  - response: { image: { file: images/g.webp } }\n")
        let response = try await stubs.answer("http://x.test/")
        XCTAssertEqual(response.body, try Data(contentsOf: sandbox.stubs.appendingPathComponent("images/g.webp")))
        XCTAssertEqual(response.headers["Content-Type"], "image/webp")
    }

    func testGeneratedSolidColourAndDefaultPatterns() async throws {
        let stubs = try registry("""
            stubs:
              - request: { path: /solid }
                response: { image: { generate: { width: 3, height: 2, pattern: solid, color: "#ff8800" }, as: png } }
              - request: { path: /named }
                response: { image: { generate: { width: 2, height: 2, color: blue } } }
              - request: { path: /board }
                response: { image: { generate: { width: 16, height: 16 }, as: webp-lossless } }
            """)
        let solid = try RGBAImage(decoding: try await stubs.answer("http://x.test/solid").body)
        XCTAssertEqual(solid, try RGBAImage(width: 3, height: 2, pixels: Array(repeating: [0xFF, 0x88, 0x00, 0xFF], count: 6).flatMap { $0 }))
        let named = try await stubs.answer("http://x.test/named")
        XCTAssertEqual(named.headers["Content-Type"], "image/png", "a generated image's original form is PNG")
        XCTAssertEqual(try RGBAImage(decoding: named.body).pixels, Array(repeating: [0, 0, 255, 255], count: 4).flatMap { $0 })
        let board = try await stubs.answer("http://x.test/board")
        XCTAssertEqual(board.headers["Content-Type"], "image/webp")
        XCTAssertEqual(try RGBAImage(decoding: board.body), try ImageGenerator.generate(width: 16, height: 16, pattern: .checkerboard))
    }

    func testTranscodeOfACannedFileAndOfBase64() async throws {
        let image = try writeImages()
        let base64 = try image.webPLosslessData().base64EncodedString()
        let stubs = try registry("""
            stubs:
              - request: { path: /file }
                response: { file: images/g.webp, transcode: png }
              - request: { path: /base64 }
                response: { base64: "\(base64)", transcode: negotiate }
            """)
        let file = try await stubs.answer("http://x.test/file")
        XCTAssertEqual(file.headers["Content-Type"], "image/png")
        XCTAssertEqual(try RGBAImage(decoding: file.body), image)
        let negotiated = try await stubs.answer("http://x.test/base64", headers: ["Accept": "image/png"])
        XCTAssertEqual(negotiated.headers["Content-Type"], "image/png")
        XCTAssertEqual(negotiated.headers["Vary"], "Accept")
        XCTAssertEqual(try RGBAImage(decoding: negotiated.body), image)
    }

    func testNegotiateInAFile() async throws {
        _ = try writeImages()
        let stubs = try registry("stubs:\n  - response: { image: { file: images/g.png, as: negotiate } }\n")
        let webp = try await stubs.answer("http://x.test/", headers: ["Accept": "image/webp,*/*;q=0.8"])
        XCTAssertEqual(webp.headers["Content-Type"], "image/webp")
        let refused = try await stubs.answer("http://x.test/", headers: ["Accept": "text/html"])
        XCTAssertEqual(refused.status, 406)
        XCTAssertEqual(refused.headers["Vary"], "Accept")
    }

    // MARK: - Errors

    func testUnknownImageFormat() throws {
        _ = try writeImages()
        try assertIssues("stubs:\n  - response:\n      image: { file: images/g.png, as: jxl }\n", [
            "Stubs/a.yaml:3: stubs[0].response.image.as: unknown image format 'jxl'; expected one of png, webp, webp-lossless, jpeg, jpeg-progressive, avif, heic, gif, original, negotiate",
        ])
    }

    func testQualityOutOfRangeAndOnTheWrongFormat() throws {
        _ = try writeImages()
        try assertIssues("""
            stubs:
              - response:
                  image: { file: images/g.png, as: webp, quality: 101 }
              - response:
                  image: { file: images/g.png, as: png, quality: 50 }
              - response:
                  image: { file: images/g.png, as: webp, quality: high }
            """, [
            "Stubs/a.yaml:3: stubs[0].response.image.quality: quality 101 is out of range; expected an integer from 0 to 100",
            "Stubs/a.yaml:5: stubs[1].response.image.quality: quality applies only to as: webp, jpeg, jpeg-progressive, avif or heic; found as: png",
            "Stubs/a.yaml:7: stubs[2].response.image.quality: expected an integer from 0 to 100, found string 'high'",
        ])
    }

    func testWidthAndHeightMustBePositiveIntegers() throws {
        try assertIssues("""
            stubs:
              - response:
                  image: { generate: { width: 0, height: "64" } }
              - response:
                  image: { generate: { width: 64 } }
            """, [
            "Stubs/a.yaml:3: stubs[0].response.image.generate.width: expected a positive integer, found integer 0",
            "Stubs/a.yaml:3: stubs[0].response.image.generate.height: expected a positive integer, found string '64'",
            "Stubs/a.yaml:5: stubs[1].response.image.generate: missing key 'height'; expected a positive integer",
        ])
    }

    func testOverThePixelLimitIsRefusedBeforeDrawing() throws {
        try assertIssues("""
            stubs:
              - response:
                  image: { generate: { width: 10000, height: 10000, pattern: gradient }, as: png }
              - response:
                  image: { generate: { width: 9223372036854775807, height: 2 } }
            """, [
            "Stubs/a.yaml:3: stubs[0].response.image.generate: a 10000x10000 image is 100000000 pixels, over the limit of 67108864 (64 Mpx); expected a smaller width or height",
            "Stubs/a.yaml:5: stubs[1].response.image.generate: a 9223372036854775807x2 image is more than 9223372036854775807 pixels, over the limit of 67108864 (64 Mpx); expected a smaller width or height",
        ])
    }

    func testUnknownPatternAndColour() throws {
        try assertIssues("""
            stubs:
              - response:
                  image: { generate: { width: 8, height: 8, pattern: stripes } }
              - response:
                  image: { generate: { width: 8, height: 8, pattern: solid, color: mauve } }
              - response:
                  image: { generate: { width: 8, height: 8, pattern: solid } }
              - response:
                  image: { generate: { width: 8, height: 8, pattern: gradient, color: red } }
            """, [
            "Stubs/a.yaml:3: stubs[0].response.image.generate.pattern: unknown pattern 'stripes'; expected one of checkerboard, gradient, solid, photo",
            "Stubs/a.yaml:5: stubs[1].response.image.generate.color: invalid colour 'mauve': expected #rrggbb, #rrggbbaa or one of black, blue, gray, green, grey, red, transparent, white",
            "Stubs/a.yaml:7: stubs[2].response.image.generate: pattern solid needs a 'color'; expected #rrggbb, #rrggbbaa or a colour name",
            "Stubs/a.yaml:9: stubs[3].response.image.generate.color: 'color' applies only to pattern solid; found pattern gradient",
        ])
    }

    func testImageNeedsExactlyOneSource() throws {
        _ = try writeImages()
        try assertIssues("""
            stubs:
              - response:
                  image: { as: png }
              - response:
                  image: { file: images/g.png, generate: { width: 1, height: 1 } }
              - response:
                  image: images/g.png
              - response:
                  image: { file: images/g.png, size: 3 }
            """, [
            "Stubs/a.yaml:3: stubs[0].response.image: missing the image source; expected 'file' (a path), 'base64' (the bytes) or 'generate' ({width, height, pattern})",
            "Stubs/a.yaml:5: stubs[1].response.image.generate: found both 'file' and 'generate'; expected exactly one of them",
            "Stubs/a.yaml:7: stubs[2].response.image: expected {file: path, as: format}, {base64: bytes, as: format} or {generate: {width, height, pattern}, as: format}, found string 'images/g.png'",
            "Stubs/a.yaml:9: stubs[3].response.image.size: unknown key 'size'; expected one of file, base64, generate, as, quality, speed, formats, resize, damage, orientation, colour, depth, palette, interlaced, declaredSize, loop, metadata",
        ])
    }

    func testCorruptAndTruncatedImageFilesAreLoadErrorsNamingTheFile() throws {
        let png = try ImageGenerator.generate(width: 32, height: 32, pattern: .gradient).pngData()
        try sandbox.write("images/cut.png", png.prefix(60))
        try sandbox.write("images/notes.png", Data("hello, world".utf8))
        try sandbox.write("images/photo.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]))
        try assertIssues("""
            stubs:
              - response:
                  image: { file: images/cut.png, as: webp }
              - response:
                  image: { file: images/notes.png }
              - response:
                  image: { file: images/photo.jpg, as: png }
              - response:
                  image: { file: images/photo.jpg }
              - response:
                  image: { file: images/missing.png }
            """, [
            "Stubs/a.yaml:3: stubs[0].response.image.file: cannot use image file 'images/cut.png': truncated PNG: the data ends after 60 bytes, before the image is complete",
            "Stubs/a.yaml:5: stubs[1].response.image.file: cannot use image file 'images/notes.png': not an image: the data (12 bytes) starts with 68 65 6C 6C 6F 2C 20 77, which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC",
            "Stubs/a.yaml:7: stubs[2].response.image.file: cannot use image file 'images/photo.jpg': truncated JPEG: the data ends after 6 bytes, before the image is complete",
            "Stubs/a.yaml:11: stubs[4].response.image.file: file 'images/missing.png' does not exist; expected a file at Stubs/images/missing.png",
        ])
    }

    func testTranscodeFormsAndBodies() throws {
        _ = try writeImages()
        try sandbox.write("notes.txt", "just text")
        try assertIssues("""
            stubs:
              - response: { file: images/g.png, transcode: jxl }
              - response: { body: hello, transcode: png }
              - response: { file: notes.txt, transcode: webp }
              - response: { base64: "aGVsbG8=", transcode: png }
              - response: { image: { file: images/g.png }, transcode: png }
              - response: { status: 204, transcode: png }
              - response: { redirect: /b.png, transcode: png }
            """, [
            "Stubs/a.yaml:2: stubs[0].response.transcode: unknown transcode format 'jxl'; expected one of png, webp, webp-lossless, jpeg, jpeg-progressive, avif, heic, gif, negotiate",
            "Stubs/a.yaml:3: stubs[1].response.transcode: transcode needs an image body; found 'body', expected one of file, base64, forward",
            "Stubs/a.yaml:4: stubs[2].response.transcode: cannot transcode file 'notes.txt': not an image: the data (9 bytes) starts with 6A 75 73 74 20 74 65 78, which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC",
            "Stubs/a.yaml:5: stubs[3].response.transcode: cannot transcode the base64 body: not an image: the data (5 bytes) starts with 68 65 6C 6C 6F, which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC",
            "Stubs/a.yaml:6: stubs[4].response.transcode: transcode does not combine with 'image'; expected image.as to choose the format",
            "Stubs/a.yaml:7: stubs[5].response.transcode: transcode needs an image body; expected one of file, base64, forward beside it",
            "Stubs/a.yaml:8: stubs[6].response.transcode: transcode needs an image body; found 'redirect', expected one of file, base64, forward",
        ])
    }

    func testTranscodeOfAForwardLoads() throws {
        let stubs = try registry("stubs:\n  - response: { forward: { to: 'http://127.0.0.1:9' }, transcode: png }\n")
        XCTAssertEqual(stubs.stubs.count, 1)
    }
}
