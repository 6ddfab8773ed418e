import Foundation
import Understudy
import UnderstudyImages
import UnderstudyTestSupport
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Image responses as a real URLSession client sees them.
final class URLSessionImageTests: XCTestCase {
    private func get(_ session: URLSession, _ address: String, accept: String? = nil) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url(address))
        if let accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
        let (data, response) = try await session.data(for: request)
        return (data, try XCTUnwrap(response as? HTTPURLResponse))
    }

    func testWebPServedAsPNGDecodesToTheSourcePixels() async throws {
        try requireEncoding(.webp)
        let source = try ImageGenerator.photoLike(width: 48, height: 32, opaque: false)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cat-\(UUID().uuidString).webp")
        try source.webPLosslessData().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.host("img.example.com") && .pathExtension("webp"), named: "webp-as-png") { _ in
            .image(.file(file), as: .png)
        }
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (data, http) = try await get(session, "https://img.example.com/cats/1.webp")
        XCTAssertEqual(http.statusCode, 200)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "image/png")
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Length"), String(data.count))
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Understudy-Stub"), "webp-as-png")
        XCTAssertEqual(ImageKind.detect(data), .png)
        XCTAssertEqual(try RGBAImage(decoding: data), source)
        XCTAssertEqual(stubs.journal.interactions.first?.bodyBytesSent, data.count)
    }

    func testGeneratedCheckerboardHasTheRightPixels() async throws {
        try requireEncoding(.webp)
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.path("/board.webp"), response: .image(.generated(width: 16, height: 16, pattern: .checkerboard), as: .webpLossless))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (data, http) = try await get(session, "http://img.example.com/board.webp")
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "image/webp")
        let image = try RGBAImage(decoding: data)
        XCTAssertEqual(image.width, 16)
        XCTAssertEqual(image.height, 16)
        // 2-pixel squares, white at the top left.
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(image.pixels[(y * 16 + x) * 4..<(y * 16 + x) * 4 + 4]) }
        XCTAssertEqual(pixel(0, 0), [255, 255, 255, 255])
        XCTAssertEqual(pixel(1, 1), [255, 255, 255, 255])
        XCTAssertEqual(pixel(2, 0), [0, 0, 0, 255])
        XCTAssertEqual(pixel(0, 2), [0, 0, 0, 255])
        XCTAssertEqual(pixel(15, 15), [255, 255, 255, 255])
        XCTAssertEqual(image, try ImageGenerator.generate(width: 16, height: 16, pattern: .checkerboard))
    }

    func testNegotiationFollowsTheClientsAcceptHeader() async throws {
        try requireEncoding(.webp)
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .image(.generated(width: 8, height: 8, pattern: .gradient), as: .negotiated))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let chromium = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
        let (webp, webpHTTP) = try await get(session, "http://img.example.com/a", accept: chromium)
        XCTAssertEqual(webpHTTP.value(forHTTPHeaderField: "Content-Type"), "image/webp")
        XCTAssertEqual(webpHTTP.value(forHTTPHeaderField: "Vary"), "Accept")
        XCTAssertEqual(ImageKind.detect(webp), .webp)
        let (png, pngHTTP) = try await get(session, "http://img.example.com/a", accept: "image/png")
        XCTAssertEqual(pngHTTP.value(forHTTPHeaderField: "Content-Type"), "image/png")
        XCTAssertEqual(try RGBAImage(decoding: png), try RGBAImage(decoding: webp))
        let (text, refused) = try await get(session, "http://img.example.com/a", accept: "text/html")
        XCTAssertEqual(refused.statusCode, 406)
        XCTAssertEqual(refused.value(forHTTPHeaderField: "Vary"), "Accept")
        XCTAssertTrue(String(decoding: text, as: UTF8.self).hasSuffix("formats on offer: image/webp, image/png\n"))
    }

    func testCorruptClosureStubImageIsA500WithTheReason() async throws {
        let png = try ImageGenerator.generate(width: 16, height: 16, pattern: .gradient).pngData()
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.path("/broken.png"), named: "broken") { _ in .image(.data(png.prefix(45)), as: .webp(quality: 80)) }
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (data, http) = try await get(session, "http://img.example.com/broken.png")
        XCTAssertEqual(http.statusCode, 500)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(String(decoding: data, as: UTF8.self),
                       "cannot serve image data (45 bytes) as WebP at quality 80: truncated PNG: the data ends after 45 bytes, before the image is complete")
        XCTAssertEqual(stubs.journal.interactions.first?.status, 500)
    }

    func testSecondIdenticalRequestIsServedFromTheCache() async throws {
        try requireEncoding(.webp)
        let webp = try ImageGenerator.photoLike(width: 96, height: 64).webPData(quality: 75)
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.pathExtension("webp"), response: .data(webp).transcoded(to: .png))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (first, _) = try await get(session, "http://img.example.com/photo.webp")
        let before = stubs.transcoder.statistics
        XCTAssertEqual(before.codecCalls, 2)
        let (second, http) = try await get(session, "http://img.example.com/photo.webp")
        XCTAssertEqual(second, first)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Length"), String(first.count))
        XCTAssertEqual(stubs.transcoder.statistics.codecCalls, before.codecCalls, "a cache hit does no codec work")
        XCTAssertEqual(stubs.transcoder.statistics.hits, before.hits + 1)
    }

    func testForwardTranscodesAnUpstreamWebPToPNG() async throws {
        try requireEncoding(.webp)
        let source = try ImageGenerator.photoLike(width: 40, height: 30)
        let webp = try source.webPLosslessData()
        let upstream = try LocalUpstream(files: ["cat.webp": webp, "notes.txt": Data("plain".utf8)])
        defer { upstream.stop() }
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.host("img.example.com"), named: "fwd-png", response: .forward(to: upstream.baseURL, transcode: .png))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (data, http) = try await get(session, "http://img.example.com/cat.webp")
        XCTAssertEqual(http.statusCode, 200)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "image/png")
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Length"), String(data.count))
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Understudy-Stub"), "fwd-png")
        XCTAssertEqual(try RGBAImage(decoding: data), source)
        let (text, textHTTP) = try await get(session, "http://img.example.com/notes.txt")
        XCTAssertEqual(String(decoding: text, as: UTF8.self), "plain", "a body that is not an image passes through")
        XCTAssertEqual(textHTTP.value(forHTTPHeaderField: "Content-Type"), "text/plain")
    }
}
