import Foundation
import Understudy
import UnderstudyImages
import UnderstudyXCTest
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A user's XCTest case: stub files and their fixtures from the test bundle, as an Xcode app's
/// test target has them (no Package.swift to find them from).
final class BundleFixtureTests: StubbedTestCase {
    override var stubFiles: StubFileLocation? { .bundle(.module, subdirectory: "Stubs") }

    func testStubFilesAndTheirImagesLoadFromTheTestBundle() async throws {
        let (feed, _) = try await session.data(from: URL(string: "https://api.example.com/feed")!)
        let json = try JSONSerialization.jsonObject(with: feed) as? [String: [[String: String]]]
        let imageURL = try XCTUnwrap(json?["items"]?.first?["image"].flatMap(URL.init(string:)))
        let (png, response) = try await session.data(from: imageURL)
        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "image/png")
        let image = try RGBAImage(decoding: png)
        XCTAssertEqual([image.width, image.height], [6, 4])
        XCTAssertEqual(Array(image.pixels[(5 * 4)..<(5 * 4 + 4)]), [200, 0, 120, 255], "the fixture's last pixel of the first row")
        XCTAssertRequested(stubs, .host("img.example.com") && .path("/cat.png"), times: 1)
    }

    /// Without the C codecs, a stub asking for WebP answers 500 saying so (a Swift stub) or is
    /// refused at load time naming the file and line (a stub file).
    func testWebPIsTheClearErrorWithoutTheCCodecs() async throws {
        XCTAssertFalse(ImageKind.webp.canEncode)
        stubs.stub(.path("/cat.webp"), named: "webp", response: .image(.generated(width: 8, height: 8, pattern: .checkerboard), as: .webp(quality: 80)))
        let (body, response) = try await session.data(from: URL(string: "https://img.example.com/cat.webp")!)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 500)
        XCTAssertEqual(String(decoding: body, as: UTF8.self), """
            cannot serve generated 8x8 checkerboard image as WebP at quality 80: cannot encode WebP on Linux without the SystemCodecs trait: \
            its codecs encode PNG only; serve a WebP file made with `understudy transcode` (format original), \
            or run `understudy serve` on a host whose codecs encode WebP
            """)
        XCTAssertThrowsError(try StubRegistry().load(from: Bundle.module, subdirectory: "WebPStubs")) { error in
            XCTAssertTrue("\(error)".hasSuffix("""
                /WebPStubs/webp.yaml:5: stubs[0].response.image.as: cannot encode WebP on Linux without the SystemCodecs trait: its codecs encode PNG only; \
                serve a WebP file made with `understudy transcode` (format original), or run `understudy serve` on a host whose codecs encode WebP
                """), "\(error)")
        }
        XCTAssertThrowsError(try StubRegistry().load(from: Bundle.module, subdirectory: "Missing")) { error in
            XCTAssertTrue("\(error)".contains("the bundle has no folder 'Missing'"), "\(error)")
        }
    }
}
