import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import UnderstudyTestSupport
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a build without a format's encoder does, as a user meets it: a stub file asking for
/// the format is refused at load time with its file, line, the format, the platform and what to
/// do instead; a Swift stub answers 500 with the same words. With the C codecs the same stubs
/// serve the format. Both branches run in CI (`make test` and `make test-portable`).
final class PortableCodecTests: XCTestCase {
    func testAStubFileAskingForAFormatTheBuildCannotEncodeIsRefusedWhereItSaysSo() throws {
        let directory = try makeTemporaryDirectory("portable-codecs")
        try """
        stubs:
          - request: { path: /a.png }
            response:
              image: { generate: { width: 8, height: 8 }, as: png }
          - request: { path: /a.webp }
            response:
              image: { generate: { width: 8, height: 8 }, as: webp }
          - request: { path: /b.avif }
            response:
              base64: \(try ImageGenerator.generate(width: 4, height: 4, pattern: .checkerboard).pngData().base64EncodedString())
              transcode: avif
        """.write(to: directory.appendingPathComponent("formats.yaml"), atomically: true, encoding: .utf8)
        let stubs = StubRegistry()
        if ImageKind.webp.canEncode, ImageKind.avif.canEncode {
            XCTAssertNoThrow(try stubs.load(from: directory))
            XCTAssertEqual(stubs.stubs.count, 3)
            return
        }
        XCTAssertThrowsError(try stubs.load(from: directory)) { error in
            let platform = expectedCodecPlatform
            XCTAssertEqual("\(error)", """
                \(directory.path)/formats.yaml:7: stubs[1].response.image.as: cannot encode WebP on \(platform): its codecs \(expectedEncodableFormats); \
                serve a WebP file made with `understudy transcode` (format original), or run `understudy serve` on a host whose codecs encode WebP
                \(directory.path)/formats.yaml:11: stubs[2].response.transcode: cannot encode AVIF on \(platform): its codecs \(expectedEncodableFormats); \
                serve an AVIF file made with `understudy transcode` (format original), or run `understudy serve` on a host whose codecs encode AVIF
                """)
        }
        XCTAssertEqual(stubs.stubs.count, 0, "nothing is loaded from a file with an issue")
    }

    func testASwiftStubAskingForAFormatTheBuildCannotEncodeAnswers500SayingWhy() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/a.heic"), named: "heic", response: .image(.generated(width: 8, height: 8, pattern: .gradient), as: .heic(quality: 60)))
        try await withServer(stubs) { server in
            let (body, response) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("a.heic"))
            let status = (response as? HTTPURLResponse)?.statusCode
            if ImageKind.heic.canEncode {
                XCTAssertEqual(status, 200)
                XCTAssertEqual(ImageKind.detect(body), .heic)
            } else {
                XCTAssertEqual(status, 500)
                XCTAssertEqual(String(decoding: body, as: UTF8.self), """
                    cannot serve generated 8x8 gradient image as HEIC at quality 60: cannot encode HEIC on \(expectedCodecPlatform): \
                    its codecs \(expectedEncodableFormats); serve a HEIC file made with `understudy transcode` (format original), \
                    or run `understudy serve` on a host whose codecs encode HEIC
                    """)
                XCTAssertEqual(stubs.journal.interactions.first?.stubName, "heic")
            }
        }
    }
}
