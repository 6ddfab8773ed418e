import UnderstudyImages
import Foundation
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// AVIF, HEIC and GIF as a URLSession client gets them, in-process and from the server: the
/// same stubs give the same bytes and Content-Type over both transports.
final class URLSessionAVIFHEICGIFTests: XCTestCase {
    private func registry() -> StubRegistry {
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.path("/p.avif"), named: "avif", response: .image(.generated(width: 24, height: 16, pattern: .photo), as: .avif(quality: 60, speed: 10)))
        stubs.stub(.path("/p.heic"), named: "heic", response: .image(.generated(width: 24, height: 16, pattern: .photo), as: .heic(quality: 60)))
        stubs.stub(.path("/spin.gif"), named: "gif", response: .image(
            .animated(width: 24, height: 16, pattern: .checkerboard, frames: 3, frameDuration: .milliseconds(100)), as: .gif
        ))
        stubs.stub(.path("/negotiated"), named: "negotiated", response: .image(
            .generated(width: 24, height: 16, pattern: .photo), as: .negotiated(among: [.heic, .avif, .webp, .png])
        ))
        return stubs
    }

    private func fetch(_ session: URLSession, _ url: URL, accept: String? = nil) async throws -> (Data, String?) {
        var request = URLRequest(url: url)
        if let accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
        let (data, response) = try await session.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 200)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Length"), String(data.count))
        return (data, http.value(forHTTPHeaderField: "Content-Type"))
    }

    func testBothTransportsServeTheSameBytesAndTypes() async throws {
        try requireEncoding(.avif, .heic, .gif)
        let local = registry()
        let inProcess = URLSession(configuration: .stubbed(by: local))
        let served = registry()
        let server = try await StubServer.start(serving: served)
        do {
            let wire = URLSession(configuration: .ephemeral)
            let cases: [(String, String?, String)] = [
                ("/p.avif", nil, "image/avif"), ("/p.heic", nil, "image/heic"), ("/spin.gif", nil, "image/gif"),
                ("/negotiated", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "image/avif"),
                ("/negotiated", "image/*", "image/heic"),
            ]
            for (path, accept, type) in cases {
                // The same URL both ways: the in-process session's requests never leave the process.
                let address = server.baseURL.appendingPathComponent(String(path.dropFirst()))
                let (local, localType) = try await fetch(inProcess, address, accept: accept)
                let (remote, remoteType) = try await fetch(wire, address, accept: accept)
                XCTAssertEqual(localType, type, path)
                XCTAssertEqual(remoteType, type, path)
                XCTAssertEqual(local, remote, "\(path): the same encoder, the same bytes")
                XCTAssertEqual(ImageKind.detect(local)?.mimeType, type, path)
                let image = try RGBAImage(decoding: local)
                XCTAssertEqual([image.width, image.height], [24, 16], path)
            }
            XCTAssertEqual(local.journal.count, cases.count, "the in-process registry answered each in-process request")
            XCTAssertEqual(served.journal.count, cases.count, "the server answered each request over the wire")
            let (gif, _) = try await fetch(wire, server.baseURL.appendingPathComponent("spin.gif"))
            XCTAssertEqual(try RGBAImage.frames(decoding: gif).count, 3)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }
}
