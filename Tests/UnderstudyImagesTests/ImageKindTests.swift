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

    func testImageFormatNamesTheKindItEncodes() {
        XCTAssertEqual(ImageFormat.png.kind, .png)
        XCTAssertEqual(ImageFormat.webp(quality: 60).kind, .webp)
        XCTAssertEqual(ImageFormat.webpLossless.kind, .webp)
        XCTAssertEqual(ImageFormat.jpegProgressive(quality: 70).kind, .jpeg)
        XCTAssertEqual(ImageFormat.avif(quality: 60, speed: 8).kind, .avif)
        XCTAssertEqual(ImageFormat.gif.kind, .gif)
        XCTAssertEqual(ImageFormat.webp(quality: 60).kind.mimeType, "image/webp")
        XCTAssertEqual(ImageFormat.png.kind.mimeType, "image/png")
        XCTAssertEqual("\(ImageFormat.webp(quality: 150))", "webp(q=100)")
        XCTAssertEqual("\(ImageFormat.avif(quality: -5, speed: 12))", "avif(q=0,s=10)")
    }
}
