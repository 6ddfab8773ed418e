import Foundation
import Understudy
import UnderstudyHAR
import UnderstudyImages
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HARs in Chromium DevTools' format replay, over the wire and in-process: a fixture, and a
/// page load recorded from headless Chromium on the spot.
///
/// `Fixtures/chromium-devtools.har` is written by hand in the shape DevTools' exporter
/// (`front_end/models/har/Log.ts`, "Save all as HAR with content") gives a page load over
/// HTTP/2: creator `WebInspector`, `pages` with `pageTimings`, `_initiator`, `_priority`,
/// `_resourceType`, `_connectionId`, `_transferSize`, `_error: null`, `_fetchedViaServiceWorker`,
/// timings with -1 for phases that did not happen and `_blocked_queueing`/`_worker*`,
/// `http/2.0` with `:authority`/`:method`/`:path`/`:scheme` request headers, lower-case
/// header names, `statusText` empty, `headersSize`/`bodySize` -1, decoded bodies whose
/// `content-encoding` header no longer applies, images base64. One entry is HTTP/1.1 (with
/// `Connection`/`Keep-Alive`), and one lists `:status` among its response headers as older
/// Chromium versions did. The images are a real PNG and a real lossy WebP (made with Pillow).
final class ChromiumHARTests: XCTestCase {
    /// What the fixture says one entry's answer is, read with JSONSerialization rather than our model.
    private struct Recorded {
        let pathAndQuery: String
        let accept: String
        let status: Int
        let contentType: String?
        let location: String?
        let body: Data
    }

    private var fixture: URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("chromium-devtools.har")
    }

    private func recorded() throws -> [Recorded] {
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any])
        let entries = try XCTUnwrap((json["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        return try entries.map { entry in
            let request = try XCTUnwrap(entry["request"] as? [String: Any])
            let response = try XCTUnwrap(entry["response"] as? [String: Any])
            let url = try XCTUnwrap(URLComponents(string: try XCTUnwrap(request["url"] as? String)))
            let header = { (headers: Any?, name: String) -> String? in
                (headers as? [[String: String]])?.first { $0["name"]?.lowercased() == name }?["value"]
            }
            let content = try XCTUnwrap(response["content"] as? [String: Any])
            let text = content["text"] as? String ?? ""
            let body = content["encoding"] as? String == "base64" ? try XCTUnwrap(Data(base64Encoded: text)) : Data(text.utf8)
            return Recorded(
                pathAndQuery: url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? ""),
                accept: try XCTUnwrap(header(request["headers"], "accept")), status: try XCTUnwrap(response["status"] as? Int),
                contentType: header(response["headers"], "content-type"), location: header(response["headers"], "location"), body: body
            )
        }
    }

    func testTheFixtureReadsWithItsChromiumFieldsKept() throws {
        let har = try HARDocument(contentsOf: fixture)
        XCTAssertEqual(har.log.creator.name, "WebInspector")
        XCTAssertEqual(har.log.pages?.map(\.id), ["page_1"])
        XCTAssertEqual(har.log.entries.count, 7)
        XCTAssertEqual(har.log.entries[1].extras["_resourceType"], .string("image"))
        XCTAssertEqual(har.log.entries[1].response.extras["_error"], .null)
        XCTAssertEqual(har.log.entries[2].timings.dns, -1)
        XCTAssertEqual(har.log.entries[1].request.headers.first?.name, ":authority")
        // Written back, the Chromium fields are still there.
        let again = try HARDocument(data: try har.encoded())
        XCTAssertEqual(again, har)
    }

    func testReplaysOverTheWireWithoutPseudoHeadersOrStaleFraming() async throws {
        let expected = try recorded()
        XCTAssertEqual(expected.filter { $0.body.starts(with: [0x89, 0x50, 0x4E, 0x47]) }.count, 2, "two PNGs")
        XCTAssertTrue(expected.contains { $0.body.count > 16 && $0.body[8..<16] == Data("WEBPVP8 ".utf8) }, "a lossy WebP")
        let stubs = StubRegistry()
        XCTAssertEqual(try stubs.load(har: fixture).count, 7)
        try await withServer(stubs) { server in
            for want in expected {
                let got = try curlGet(URL(string: server.baseURL.absoluteString + want.pathAndQuery)!, headers: ["Accept: \(want.accept)"])
                XCTAssertEqual(got.status, want.status, want.pathAndQuery)
                XCTAssertEqual(got.body, want.body, want.pathAndQuery)
                XCTAssertEqual(got.headers["Content-Type"], want.contentType, want.pathAndQuery)
                XCTAssertEqual(got.headers["Location"], want.location, want.pathAndQuery)
                XCTAssertEqual(got.headers.values(for: "Content-Length"), [String(want.body.count)], want.pathAndQuery)
                let names = got.headers.map { $0.name.lowercased() }
                XCTAssertFalse(names.contains { $0.hasPrefix(":") }, "\(want.pathAndQuery): \(names)")
                XCTAssertFalse(names.contains("content-encoding"), "\(want.pathAndQuery): the HAR body is decoded")
                XCTAssertFalse(names.contains("keep-alive"), want.pathAndQuery)
            }
            // The default key includes Accept: another client's Accept is not the browser's request...
            let otherAccept = try curlGet(URL(string: server.baseURL.absoluteString + "/cat.png")!, headers: ["Accept: image/png"])
            XCTAssertEqual(otherAccept.status, 404)
        }
        // ... unless the key leaves it out.
        let loose = StubRegistry()
        try loose.load(har: fixture, matching: [.method, .url])
        try await withServer(loose) { server in
            let got = try curlGet(URL(string: server.baseURL.absoluteString + "/cat.webp?w=64")!, headers: ["Accept: image/png"])
            XCTAssertEqual(got.status, 200)
            XCTAssertEqual(got.body, expected[2].body)
        }
    }

    func testReplaysInProcessFollowingTheRecordedRedirect() async throws {
        let expected = try recorded()
        let stubs = StubRegistry()
        try stubs.load(har: fixture, matching: [.method, .url])
        let session = URLSession(configuration: .stubbed(by: stubs))
        for want in expected where want.status != 301 {
            let (body, response) = try await session.data(from: URL(string: "https://shop.example.com" + want.pathAndQuery)!)
            let http = try XCTUnwrap(response as? HTTPURLResponse)
            XCTAssertEqual(http.statusCode, want.status, want.pathAndQuery)
            XCTAssertEqual(body, want.body, want.pathAndQuery)
            XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), want.contentType, want.pathAndQuery)
            XCTAssertNil(http.value(forHTTPHeaderField: ":status"), want.pathAndQuery)
        }
        // old.png -> https://img.example.com/cat.png, answered from the HAR too.
        let (body, response) = try await session.data(from: URL(string: "https://img.example.com/old.png")!)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(response.url?.absoluteString, "https://img.example.com/cat.png")
        XCTAssertEqual(body, expected[1].body)
    }

    /// The page Chromium loads: two images, a redirect to a third, a missing one and a fetch.
    private let page = """
        <!doctype html><meta charset="utf-8"><title>Understudy</title>
        <img src="/cat.png"><img src="/cat.webp"><img src="/old.png"><img src="/missing.png">
        <script>fetch("/data.json").then(r => r.text()).then(t => document.title = t)</script>
        """

    /// Records `url` with headless Chromium (`Fixtures/record_chromium_har.py`, which builds the
    /// HAR from DevTools protocol events the way DevTools' exporter does) into `output`.
    private func recordWithChromium(_ url: URL, to output: URL) throws {
        #if !os(Linux)
        throw XCTSkip("recording drives Debian's chromium package, which `make test-deps` installs on Linux only")
        #endif
        let script = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("record_chromium_har.py")
        let which = Process()
        which.executableURL = URL(fileURLWithPath: "/bin/sh")
        which.arguments = ["-c", "command -v chromium || command -v chromium-browser"]
        let found = Pipe()
        which.standardOutput = found
        try which.run()
        let chromium = String(decoding: found.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        which.waitUntilExit()
        guard !chromium.isEmpty else {
            XCTFail("chromium is not installed: run `make test-deps` (it installs Debian's chromium)")
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, chromium, url.absoluteString, output.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("recording with Chromium failed (\(process.terminationStatus)): \(stderr)")
            throw CocoaError(.fileReadUnknown)
        }
    }

    func testAPageLoadRecordedFromHeadlessChromiumReplays() async throws {
        try requireEncoding(.webp)
        let png = try ImageGenerator.photoLike(width: 40, height: 30, seed: 9).pngData()
        let moved = try ImageGenerator.generate(width: 16, height: 16, pattern: .checkerboard).pngData()
        let webp = try lossyWebP()
        let origin = StubRegistry()
        origin.stub(.path("/"), named: "page", response: .data(Data(page.utf8), contentType: "text/html; charset=utf-8"))
        origin.stub(.path("/cat.png"), named: "png", response: .data(png))
        origin.stub(.path("/cat.webp"), named: "webp", response: .data(webp))
        origin.stub(.path("/old.png"), named: "old", response: .redirect(to: "/moved.png", status: 302))
        origin.stub(.path("/moved.png"), named: "moved", response: .data(moved))
        origin.stub(.path("/missing.png"), named: "missing", response: .text("no such image").status(404))
        origin.stub(.path("/data.json"), named: "json", response: .json(["id": 7]))
        origin.stub(.path("/favicon.ico"), named: "favicon", response: .text("no icon").status(404))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("chromium.har")

        try await withServer(origin) { server in
            try recordWithChromium(server.baseURL.appendingPathComponent("/"), to: output)
            let har = try HARDocument(contentsOf: output)
            XCTAssertEqual(har.log.browser?.name, "Chromium")
            XCTAssertEqual(har.log.pages?.count, 1)
            let paths = har.log.entries.map { URL(string: $0.request.url)?.path ?? "" }
            for path in ["/", "/cat.png", "/cat.webp", "/old.png", "/moved.png", "/missing.png", "/data.json"] {
                XCTAssertTrue(paths.contains(path), "\(path) not recorded: \(paths)")
            }
            let byPath = Dictionary(har.log.entries.map { (URL(string: $0.request.url)?.path ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            XCTAssertEqual(byPath["/cat.webp"]?.response.content.encoding, "base64")
            XCTAssertEqual(byPath["/cat.webp"]?.response.content.data, webp)
            XCTAssertEqual(byPath["/cat.png"]?.response.content.data, png)
            XCTAssertEqual(byPath["/old.png"]?.response.status, 302)
            XCTAssertEqual(byPath["/old.png"]?.response.redirectURL, "/moved.png")
            XCTAssertEqual(byPath["/cat.png"]?.extras["_resourceType"], .string("image"))

            // Over the wire, each recorded request sent again with the browser's Accept: what
            // the origin answers, the replay answers.
            let replay = StubRegistry()
            try replay.load(har: output)
            try await withServer(replay) { replayServer in
                for entry in har.log.entries {
                    let url = try XCTUnwrap(URLComponents(string: entry.request.url))
                    let pathAndQuery = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
                    let accept = entry.request.headers.first { $0.name.lowercased() == "accept" }?.value ?? "*/*"
                    let want = try curlGet(URL(string: server.baseURL.absoluteString + pathAndQuery)!, headers: ["Accept: \(accept)"])
                    let got = try curlGet(URL(string: replayServer.baseURL.absoluteString + pathAndQuery)!, headers: ["Accept: \(accept)"])
                    XCTAssertEqual(got.status, want.status, pathAndQuery)
                    XCTAssertEqual(got.body, want.body, pathAndQuery)
                    XCTAssertEqual(got.headers["Content-Type"], want.headers["Content-Type"], pathAndQuery)
                    XCTAssertEqual(got.headers["Location"], want.headers["Location"], pathAndQuery)
                }
            }

            // In-process, keyed on method and URL: URLSession's Accept is not the browser's.
            let inProcess = StubRegistry()
            try inProcess.load(har: output, matching: [.method, .url])
            let session = URLSession(configuration: .stubbed(by: inProcess))
            for (path, body) in [("/cat.png", png), ("/cat.webp", webp), ("/old.png", moved)] {
                let (data, response) = try await session.data(from: server.baseURL.appendingPathComponent(path))
                XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200, path)
                XCTAssertEqual(data, body, path)
            }
        }
    }
}
