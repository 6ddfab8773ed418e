import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// What an image response is served as: the encodings spelled as `ImageFormat` and stub files
/// spell them, the source's own bytes, negotiation; and what this build can serve.
final class ServedImageFormatTests: XCTestCase {
    func testEveryEncodingIsSpelledAsImageFormatSpellsIt() {
        let pairs: [(ServedImageFormat, ImageFormat)] = [
            (.png, .png), (.webp, .webp), (.webp(quality: 42), .webp(quality: 42)), (.webpLossless, .webpLossless),
            (.jpeg, .jpeg), (.jpeg(quality: 70), .jpeg(quality: 70)), (.jpegProgressive, .jpegProgressive),
            (.jpegProgressive(quality: 70), .jpegProgressive(quality: 70)), (.avif, .avif),
            (.avif(quality: 30, speed: 4), .avif(quality: 30, speed: 4)), (.heic, .heic), (.heic(quality: 50), .heic(quality: 50)),
            (.gif, .gif),
        ]
        for (served, format) in pairs {
            XCTAssertEqual(served, .encoded(format), "\(format)")
            XCTAssertEqual(served.description, format.description)
        }
        XCTAssertEqual(ServedImageFormat.negotiated, .negotiated(among: [.webp, .png]))
        XCTAssertEqual(AcceptHeader.offeredImageKinds, ServedImageFormat.defaultNegotiatedKinds)
    }

    func testDescriptionsNameTheChoice() {
        XCTAssertEqual("\(ServedImageFormat.original)", "original")
        XCTAssertEqual("\(ServedImageFormat.negotiated)", "negotiated(webp,png)")
        XCTAssertEqual("\(ServedImageFormat.negotiated(among: [.avif, .jpeg]))", "negotiated(avif,jpeg)")
        XCTAssertEqual("\(ServedImageFormat.webp(quality: 150))", "webp(q=100)")
    }

    func testWhatThisBuildCanServe() {
        XCTAssertTrue(ServedImageFormat.original.canServe, "the source's own bytes need no encoder")
        XCTAssertTrue(ServedImageFormat.negotiated.canServe, "PNG is among the formats offered, and every build encodes PNG")
        for kind in ImageKind.allCases {
            XCTAssertEqual(ServedImageFormat.negotiated(among: [kind]).canServe, kind.canEncode, "\(kind)")
        }
        XCTAssertEqual(ServedImageFormat.negotiated(among: [.webp, .avif]).canServe, ImageKind.webp.canEncode || ImageKind.avif.canEncode)
        XCTAssertEqual(ServedImageFormat.avif.canServe, ImageKind.avif.canEncode)
        XCTAssertTrue(ServedImageFormat.png.canServe)
    }

    /// `.original`, the default, answers with the source's own bytes, typed by their signature.
    func testOriginalIsTheDefaultAndServesTheSourcesBytes() async throws {
        let png = try ImageGenerator.generate(width: 3, height: 2, pattern: .gradient).pngData()
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.path("/original"), response: .image(.data(png), as: .original))
        stubs.stub(.path("/default"), response: .image(.data(png)))
        for path in ["/original", "/default"] {
            let answer = try await stubs.answer("http://x.test\(path)", headers: ["Accept": "image/webp"])
            XCTAssertEqual(answer.body, png, path)
            XCTAssertEqual(answer.headers["Content-Type"], "image/png", path)
            XCTAssertNil(answer.headers["Vary"], path)
        }
        XCTAssertEqual(stubs.transcoder.statistics.codecCalls, 0)
    }
}
