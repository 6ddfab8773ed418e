import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// `.image(_:as:)`, `.transcoded(to:)` and `.forward(transcode:)` rendered through a registry.
final class ImageResponseTests: XCTestCase {
    private func failure(_ stubs: StubRegistry, _ url: String, headers: HeaderFields = [:]) async -> (PreparedResponse, String)? {
        let request = StubRequest(method: "GET", url: URL(string: url)!, headers: headers)
        return await stubs.respond(to: request).failure
    }

    func testWebPFileServedAsPNGHasPixelsTypeAndLength() async throws {
        let source = try ImageGenerator.photoLike(width: 24, height: 16, opaque: false)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cat-\(UUID().uuidString).webp")
        try source.webPLosslessData().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.pathExtension("webp"), named: "webp-as-png") { _ in .image(.file(file), as: .png) }
        let response = try await stubs.answer("http://img.test/cat.webp")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "image/png", "from the bytes, not the .webp name")
        XCTAssertEqual(response.headers["Content-Length"], String(response.body.count))
        XCTAssertEqual(response.headers["X-Understudy-Stub"], "webp-as-png")
        XCTAssertEqual(try RGBAImage(decoding: response.body), source, "lossless all the way, alpha included")
    }

    func testCorruptSourceInAClosureStubIsA500SayingWhy() async throws {
        let png = try ImageGenerator.generate(width: 16, height: 16, pattern: .gradient).pngData()
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.path("/cut.png"), named: "cut") { _ in .image(.data(png.prefix(40)), as: .webpLossless) }
        stubs.stub(.path("/text"), named: "text") { _ in .image(.data(Data("hello".utf8)), as: .png) }
        stubs.stub(.path("/missing"), named: "missing") { _ in .image(.file(URL(fileURLWithPath: "/nonexistent/a.png")), as: .png) }

        let cut = await failure(stubs, "http://img.test/cut.png")
        XCTAssertEqual(cut?.0.status, 500)
        XCTAssertEqual(cut?.1, "cannot serve image data (40 bytes) as lossless WebP: truncated PNG: the data ends after 40 bytes, before the image is complete")
        XCTAssertEqual(cut.map { String(decoding: $0.0.body, as: UTF8.self) }, cut?.1)
        XCTAssertEqual(cut?.0.headers["X-Understudy-Stub"], "cut")

        let text = await failure(stubs, "http://img.test/text")
        XCTAssertEqual(text?.1, "cannot serve image data (5 bytes) as PNG: not an image: the data (5 bytes) starts with 68 65 6C 6C 6F, which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC")
        let missing = await failure(stubs, "http://img.test/missing")
        XCTAssertEqual(missing?.1, "cannot serve image file /nonexistent/a.png as PNG: cannot read image file /nonexistent/a.png: no such file")
    }

    func testTooLargeGeneratedImageIsA500BeforeAnyAllocation() async throws {
        let stubs = StubRegistry(transcoder: ImageTranscoder(pixelLimit: 100))
        stubs.stub(.any, response: .image(.generated(width: 11, height: 10, pattern: .checkerboard), as: .png))
        let result = await failure(stubs, "http://img.test/big")
        XCTAssertEqual(result?.0.status, 500)
        XCTAssertEqual(result?.1, "cannot serve generated 11x10 checkerboard image as PNG: image of 11x10 = 110 pixels is over the limit of 100 pixels; raise pixelLimit to allow it")
        XCTAssertEqual(stubs.transcoder.statistics.generations, 0)
    }

    func testSecondIdenticalRequestDoesNoCodecWork() async throws {
        let webp = try ImageGenerator.photoLike(width: 64, height: 64).webPData(quality: 80)
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .data(webp).transcoded(to: .png))
        let first = try await stubs.answer("http://img.test/a.webp")
        let afterFirst = stubs.transcoder.statistics
        XCTAssertEqual(afterFirst.codecCalls, 2, "one decode, one encode")
        let second = try await stubs.answer("http://img.test/a.webp")
        XCTAssertEqual(second.body, first.body)
        XCTAssertEqual(stubs.transcoder.statistics.codecCalls, afterFirst.codecCalls)
        XCTAssertEqual(stubs.transcoder.statistics.hits, afterFirst.hits + 1)
    }

    func testRegistriesShareTheDefaultTranscoder() {
        XCTAssertTrue(StubRegistry().transcoder === ImageTranscoder.shared)
        XCTAssertEqual(ImageTranscoder.shared.capacity, 64 * 1024 * 1024)
    }

    func testContextTranscoderWinsOverTheRegistrys() async throws {
        let own = ImageTranscoder()
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .image(.generated(width: 4, height: 4, pattern: .gradient), as: .webpLossless))
        let request = StubRequest(method: "GET", url: URL(string: "http://img.test/")!, headers: [:])
        // The transports render with the registry's; a context given to the registry wins.
        guard case .pending(let match) = stubs.resolveImmediately(request),
              case .response = await stubs.render(match, for: request, context: RenderContext(transcoder: own))
        else {
            return XCTFail("no response")
        }
        XCTAssertEqual(own.statistics.encodes, 1)
        XCTAssertEqual(stubs.transcoder.statistics.encodes, 0)
    }

    func testTranscodedCannedNonImageIsA500() async throws {
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .text("plain words").transcoded(to: .png))
        let result = await failure(stubs, "http://img.test/a")
        XCTAssertEqual(result?.0.status, 500)
        XCTAssertEqual(result?.1, "cannot transcode the body (11 bytes) to PNG: it is not an image; expected PNG, WebP, JPEG, GIF, AVIF or HEIC bytes")
    }

    func testOriginalContentTypeComesFromTheBytes() async throws {
        let png = try ImageGenerator.generate(width: 2, height: 2, pattern: .checkerboard).pngData()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("misnamed-\(UUID().uuidString).webp")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.path("/file"), response: .image(.file(file)))
        stubs.stub(.path("/gif"), response: .image(.data(Data("GIF89a....".utf8))))
        let fromFile = try await stubs.answer("http://img.test/file")
        XCTAssertEqual(fromFile.headers["Content-Type"], "image/png")
        XCTAssertEqual(fromFile.body, png)
        let gif = try await stubs.answer("http://img.test/gif")
        XCTAssertEqual(gif.headers["Content-Type"], "image/gif")
        XCTAssertEqual(MediaType.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0])), "image/jpeg")
        XCTAssertNil(MediaType.sniff(Data("RIFF....WAVE".utf8)))
    }

    func testTranscodedReplacesAnImagesFormat() async throws {
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .image(.generated(width: 4, height: 4, pattern: .gradient), as: .png).transcoded(to: .webpLossless))
        let response = try await stubs.answer("http://img.test/a")
        XCTAssertEqual(response.headers["Content-Type"], "image/webp")
    }

    // MARK: - Forward

    private struct FixedUpstream: UpstreamFetcher {
        let response: UpstreamResponse
        func fetch(_ request: StubRequest) async throws -> UpstreamResponse { response }
    }

    private func forward(_ body: Data, type: String, transcode: ServedImageFormat?, accept: String? = nil) async -> StubAnswer {
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .forward(to: URL(string: "http://upstream.test"), transcode: transcode))
        let upstream = FixedUpstream(response: UpstreamResponse(
            status: 200, headers: ["Content-Type": type, "Content-Length": String(body.count), "ETag": "\"v1\""], body: body
        ))
        let headers: HeaderFields = accept.map { ["Accept": $0] } ?? [:]
        return await stubs.respond(to: StubRequest(method: "GET", url: URL(string: "http://img.test/a.webp")!, headers: headers), upstream: upstream)
    }

    func testForwardedWebPIsTranscodedToPNG() async throws {
        let image = try ImageGenerator.photoLike(width: 20, height: 20)
        guard let response = await forward(try image.webPLosslessData(), type: "image/webp", transcode: .png).stubResponse else {
            return XCTFail("no response")
        }
        XCTAssertEqual(response.headers["Content-Type"], "image/png")
        XCTAssertEqual(response.headers["Content-Length"], String(response.body.count))
        XCTAssertEqual(response.headers["ETag"], "\"v1\"")
        XCTAssertEqual(try RGBAImage(decoding: response.body), image)
    }

    func testForwardedNonImagePassesThroughUnchanged() async throws {
        let html = Data("<html>gone</html>".utf8)
        guard let response = await forward(html, type: "text/html", transcode: .negotiated, accept: "image/png").stubResponse else {
            return XCTFail("no response")
        }
        XCTAssertEqual(response.body, html)
        XCTAssertEqual(response.headers["Content-Type"], "text/html")
        XCTAssertNil(response.headers["Vary"])
    }

    func testForwardedNegotiation() async throws {
        let png = try ImageGenerator.generate(width: 4, height: 4, pattern: .checkerboard).pngData()
        guard let webp = await forward(png, type: "image/png", transcode: .negotiated, accept: ImageNegotiationTests.chromium).stubResponse,
              let refused = await forward(png, type: "image/png", transcode: .negotiated, accept: "text/html").stubResponse
        else { return XCTFail("no response") }
        XCTAssertEqual(webp.headers["Content-Type"], "image/webp")
        XCTAssertEqual(webp.headers["Vary"], "Accept")
        XCTAssertEqual(refused.status, 406)
    }

    func testForwardedCorruptImageIsA502() async throws {
        let png = try ImageGenerator.generate(width: 16, height: 16, pattern: .checkerboard).pngData()
        guard let (response, message) = await forward(png.prefix(50), type: "image/png", transcode: .webpLossless).failure else {
            return XCTFail("expected a failure")
        }
        XCTAssertEqual(response.status, 502)
        XCTAssertEqual(message, "cannot serve the image/png body from http://upstream.test/a.webp as lossless WebP: truncated PNG: the data ends after 50 bytes, before the image is complete")
    }
}
