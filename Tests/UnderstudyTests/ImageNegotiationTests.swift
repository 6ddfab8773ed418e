import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// `.negotiated` / `as: negotiate`: WebP when the Accept header admits it with a q at least
/// PNG's, else PNG when admitted, else 406 listing the formats on offer; always `Vary: Accept`.
final class ImageNegotiationTests: XCTestCase {
    static let chromium = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
    static let safari = "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"
    static let firefox = "image/avif,image/webp,*/*"

    /// Accept header (nil: none sent) and the Content-Type served, or 406.
    static let cases: [(accept: String?, expected: String)] = [
        (chromium, "image/webp"),
        (safari, "image/webp"),
        (firefox, "image/webp"),
        ("*/*", "image/webp"),
        (nil, "image/webp"),
        ("image/*", "image/webp"),
        ("image/png", "image/png"),
        ("image/webp", "image/webp"),
        ("image/webp;q=0", "406"),
        ("image/webp;q=0,image/*", "image/png"),
        ("image/png;q=0.5,image/webp;q=0.4", "image/png"),
        ("image/png;q=0.5,image/webp;q=0.5", "image/webp"),
        ("image/*;q=0.8,image/webp;q=0", "image/png"),
        ("image/png,*/*;q=0", "image/png"),
        ("*/*;q=0", "406"),
        ("text/html", "406"),
        ("text/html,application/xhtml+xml", "406"),
        ("IMAGE/WEBP;Q=0.9, Image/PNG", "image/png"),
    ]

    private func registry(serving format: ServedImageFormat = .negotiated) -> StubRegistry {
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .image(.generated(width: 8, height: 8, pattern: .checkerboard), as: format))
        return stubs
    }

    func testEachAcceptHeaderGetsTheExpectedFormatAndVaryAccept() async throws {
        let stubs = registry()
        let board = try ImageGenerator.generate(width: 8, height: 8, pattern: .checkerboard)
        for (accept, expected) in Self.cases {
            let headers: HeaderFields = accept.map { ["Accept": $0] } ?? [:]
            let response = try await stubs.answer("http://img.test/a", headers: headers)
            let label = accept ?? "(none)"
            XCTAssertEqual(response.headers["Vary"], "Accept", label)
            XCTAssertEqual(response.headers["Content-Length"], String(response.body.count), label)
            if expected == "406" {
                XCTAssertEqual(response.status, 406, label)
                XCTAssertEqual(response.headers["Content-Type"], "text/plain; charset=utf-8", label)
                XCTAssertTrue(response.text.contains("formats on offer: image/webp, image/png"), "\(label): \(response.text)")
            } else {
                XCTAssertEqual(response.status, 200, label)
                XCTAssertEqual(response.headers["Content-Type"], expected, label)
                XCTAssertEqual(ImageKind.detect(response.body)?.mimeType, expected, "\(label): the bytes are what the header says")
                XCTAssertEqual(try RGBAImage(decoding: response.body), board, "\(label): lossless either way")
            }
        }
    }

    func testTheNegotiatedKindAgreesWithTheResponses() {
        for (accept, expected) in Self.cases {
            XCTAssertEqual(AcceptHeader(accept).negotiatedImageKind?.mimeType ?? "406", expected, accept ?? "(none)")
        }
    }

    func testNotAcceptableBodyNamesTheHeaderAndTheOffer() async throws {
        let response = try await registry().answer("http://img.test/a", headers: ["Accept": "text/html"])
        XCTAssertEqual(response.text, "406 Not Acceptable: the Accept header \"text/html\" admits none of the formats on offer: image/webp, image/png\n")
        XCTAssertEqual(response.stubName, response.headers["X-Understudy-Stub"])
    }

    func testSourceAlreadyInTheChosenFormatIsServedAsItIs() async throws {
        let lossy = try ImageGenerator.photoLike(width: 32, height: 32).webPData(quality: 50)
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .image(.data(lossy), as: .negotiated))
        let webp = try await stubs.answer("http://img.test/a", headers: ["Accept": Self.chromium])
        XCTAssertEqual(webp.body, lossy, "a lossy WebP stays the same bytes")
        XCTAssertEqual(stubs.transcoder.statistics.codecCalls, 0)
        let png = try await stubs.answer("http://img.test/a", headers: ["Accept": "image/png"])
        XCTAssertEqual(png.headers["Content-Type"], "image/png")
        XCTAssertEqual(try RGBAImage(decoding: png.body), try RGBAImage(decoding: lossy))
    }

    func testExplicitFormatsDoNotVary() async throws {
        let response = try await registry(serving: .png).answer("http://img.test/a", headers: ["Accept": "text/html"])
        XCTAssertEqual(response.status, 200, "only .negotiated looks at Accept")
        XCTAssertEqual(response.headers["Content-Type"], "image/png")
        XCTAssertNil(response.headers["Vary"])
    }

    func testVaryGivenByTheStubKeepsAccept() async throws {
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .image(.generated(width: 2, height: 2, pattern: .gradient), as: .negotiated)
            .headers(["Cache-Control": "max-age=60"]))
        let response = try await stubs.answer("http://img.test/a")
        XCTAssertEqual(response.headers["Vary"], "Accept")
        XCTAssertEqual(response.headers["Cache-Control"], "max-age=60")
    }
}
