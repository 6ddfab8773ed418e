import Foundation
import Understudy
import UnderstudyHAR
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionConfiguration.recording(into:)`: real requests journaled in-process, and the HAR
/// replaying in-process and over the wire with the same answers.
final class InProcessRecordingTests: XCTestCase {
    private struct Seen: Equatable {
        let status: Int
        let contentType: String?
        let body: Data
        let url: String
    }

    private func fetch(_ session: URLSession, _ url: URL) async throws -> Seen {
        let (data, response) = try await session.data(from: url)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        return Seen(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"), body: data, url: http.url?.path ?? "")
    }

    func testRecordedInProcessSessionReplaysInProcessAndOverTheWire() async throws {
        try requireEncoding(.webp)
        let upstream = StubRegistry()
        upstream.stub(.path("/cat.png"), named: "cat", response: .data(onePixelPNG))
        upstream.stub(.path("/cat.webp"), named: "webp", response: .data(try lossyWebP()))
        upstream.stub(.path("/data.json"), named: "json", response: .json(["id": 7]))
        upstream.stub(.path("/old"), named: "old", response: .redirect(to: "/older", status: 301))
        upstream.stub(.path("/older"), named: "older", response: .redirect(to: "/cat.png", status: 302))
        upstream.stub(.path("/missing"), named: "missing", response: .text("nothing here").status(404))
        upstream.stub(.path("/boom"), named: "boom", response: .text("it broke").status(500))
        let paths = ["/cat.png", "/cat.webp", "/data.json", "/old", "/missing", "/boom"]

        try await withServer(upstream) { server in
            let recorder = StubRegistry()
            let recording = URLSession(configuration: .recording(into: recorder))
            var recorded: [Seen] = []
            for path in paths {
                recorded.append(try await fetch(recording, URL(string: server.baseURL.absoluteString + path)!))
            }
            XCTAssertEqual(recorded[1].body, try lossyWebP())
            XCTAssertEqual(recorded[1].contentType, "image/webp")
            XCTAssertEqual(recorded[3].body, onePixelPNG, "the redirect chain was followed")
            XCTAssertEqual(recorded[3].url, "/cat.png")
            XCTAssertEqual(recorded.map(\.status), [200, 200, 200, 200, 404, 500])

            let har = recorder.journal.har()
            XCTAssertEqual(har.log.entries.map(\.response.status), [200, 200, 200, 301, 302, 200, 404, 500])
            XCTAssertEqual(har.log.entries.map { $0.understudy?.transport }, Array(repeating: "inProcess", count: 8))
            XCTAssertEqual(har.log.entries[1].response.content.encoding, "base64")
            XCTAssertEqual(har.log.entries[1].response.content.data, try lossyWebP())
            XCTAssertEqual(har.log.entries[0].response.content.encoding, "base64")
            XCTAssertEqual(har.log.entries[0].response.content.data, onePixelPNG)
            let data = try har.encoded()

            // In-process replay, the upstream's URLs as recorded.
            let inProcess = StubRegistry()
            try inProcess.load(har: data)
            let replaying = URLSession(configuration: .stubbed(by: inProcess))
            for (path, expected) in zip(paths, recorded) {
                let seen = try await fetch(replaying, URL(string: server.baseURL.absoluteString + path)!)
                XCTAssertEqual(seen, expected, path)
            }

            // Over the wire, from another server: same statuses, types and bytes. URLSession's
            // requests carried no Accept header (the key's third part), so curl sends none either.
            let wire = StubRegistry()
            try wire.load(har: data)
            try await withServer(wire) { replayServer in
                for (path, expected) in zip(paths, recorded) {
                    let seen = try curlGet(URL(string: replayServer.baseURL.absoluteString + path)!, follow: true, headers: ["Accept:"])
                    XCTAssertEqual(seen.status, expected.status, path)
                    XCTAssertEqual(seen.headers["Content-Type"], expected.contentType, path)
                    XCTAssertEqual(seen.body, expected.body, path)
                }
            }
        }
    }
}
