import Foundation
import UnderstudyImages
import XCTest

final class ImageKindTests: XCTestCase {
    func testDetectsSignaturesAndNamesMediaTypes() throws {
        let image = try ImageGenerator.generate(width: 2, height: 2, pattern: .checkerboard)
        let cases: [(Data, ImageKind, String)] = [
            (try image.pngData(), .png, "image/png"),
            (try image.webPData(quality: 50), .webp, "image/webp"),
            (try image.webPLosslessData(), .webp, "image/webp"),
            (Data([0xFF, 0xD8, 0xFF, 0xDB, 0, 0]), .jpeg, "image/jpeg"),
            (Data("GIF87a".utf8), .gif, "image/gif"),
            (Data("GIF89a".utf8), .gif, "image/gif"),
        ]
        for (data, kind, mimeType) in cases {
            XCTAssertEqual(ImageKind.detect(data), kind)
            XCTAssertEqual(ImageKind.detect(data)?.mimeType, mimeType)
        }
    }

    func testRejectsLookalikes() {
        XCTAssertNil(ImageKind.detect(Data()))
        XCTAssertNil(ImageKind.detect(Data([0x89, 0x50, 0x4E, 0x47])))              // cut-off PNG signature
        XCTAssertNil(ImageKind.detect(Data("RIFF\0\0\0\0WAVE".utf8)))               // RIFF, not WebP
        XCTAssertNil(ImageKind.detect(Data("GIF88a".utf8)))
        XCTAssertNil(ImageKind.detect(Data("{\"a\": 1}".utf8)))
    }

    func testDetectsInASlice() throws {
        let png = try ImageGenerator.generate(width: 1, height: 1, pattern: .solid(.red)).pngData()
        let framed = Data("xx".utf8) + png
        XCTAssertEqual(ImageKind.detect(framed.dropFirst(2)), .png)
        XCTAssertEqual(try RGBAImage(decoding: framed.dropFirst(2)).pixels, [255, 0, 0, 255])
    }

    func testImageFormatNamesItsTranscodeTarget() {
        XCTAssertEqual(ImageFormat.png.transcodeTarget, .png)
        XCTAssertEqual(ImageFormat.webp(quality: 60).transcodeTarget, .webp(quality: 60))
        XCTAssertEqual(ImageFormat.webpLossless.transcodeTarget, .webpLossless)
        XCTAssertNil(ImageFormat.original.transcodeTarget)
        XCTAssertNil(ImageFormat.negotiated.transcodeTarget)
        XCTAssertEqual(TranscodeTarget.webp(quality: 60).mimeType, "image/webp")
        XCTAssertEqual(TranscodeTarget.png.mimeType, "image/png")
        XCTAssertEqual("\(TranscodeTarget.webp(quality: 150))", "webp(q=100)")
    }
}
