import Foundation
import Understudy
import UnderstudyHAR
import UnderstudyServer
import XCTest

/// `understudy record` in a library: forwarding, upstream URLs, redaction, the file on disk.
final class HARRecorderTests: XCTestCase {
    private func temporaryHAR() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recorder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("out.har")
    }

    private func upstream() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.path("/login"), named: "login", response: .json(["ok": true]).headers(["Set-Cookie": "session=s3cret; Path=/; HttpOnly"]))
        stubs.stub(.path("/cat.png"), named: "cat", response: .data(onePixelPNG))
        return stubs
    }

    private let secretHeaders = ["Authorization: Bearer t0ken", "Cookie: session=s3cret; theme=dark", "X-Api-Key: k3y", "Accept: */*"]

    func testRecordsUpstreamURLsBodiesAndRedactsSecretsInHeadersAndCookies() async throws {
        let output = try temporaryHAR()
        defer { try? FileManager.default.removeItem(at: output.deletingLastPathComponent()) }
        try await withServer(upstream()) { upstreamServer in
            let recorder = HARRecorder(upstream: upstreamServer.baseURL, output: output, redaction: HARRedaction(extraHeaders: ["x-api-key"]))
            let configuration = StubServer.Configuration(onInteraction: { _ in recorder.interactionFinished() })
            let server = try await StubServer.start(serving: recorder.registry, configuration: configuration)
            do {
                let login = try curlGet(server.baseURL.appendingPathComponent("login"), headers: secretHeaders)
                XCTAssertEqual(login.headers["Set-Cookie"], "session=s3cret; Path=/; HttpOnly", "the client itself sees the real values")
                // Rewritten after each interaction, without a flush: the file soon holds the first one.
                var written = 0
                for _ in 0..<100 where written == 0 {
                    written = (try? HARDocument(contentsOf: output))?.log.entries.count ?? 0
                    if written == 0 { try await Task.sleep(for: .milliseconds(20)) }
                }
                XCTAssertEqual(written, 1)

                let image = try curlGet(server.baseURL.appendingPathComponent("cat.png"))
                XCTAssertEqual(image.body, onePixelPNG)
                try await server.stop()
            } catch {
                try? await server.stop()
                throw error
            }
            try recorder.flush()

            let har = try HARDocument(contentsOf: output)
            XCTAssertEqual(har.log.entries.map(\.request.url), [
                upstreamServer.baseURL.absoluteString + "/login", upstreamServer.baseURL.absoluteString + "/cat.png",
            ])
            let first = har.log.entries[0]
            let requestHeaders = Dictionary(first.request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            XCTAssertEqual(requestHeaders["Authorization"], "REDACTED")
            XCTAssertEqual(requestHeaders["Cookie"], "REDACTED")
            XCTAssertEqual(requestHeaders["X-Api-Key"], "REDACTED")
            XCTAssertEqual(requestHeaders["Accept"], "*/*")
            XCTAssertEqual(first.request.cookies, [HARCookie(name: "session", value: "REDACTED"), HARCookie(name: "theme", value: "REDACTED")])
            XCTAssertTrue(first.response.headers.contains(HARNameValue(name: "Set-Cookie", value: "REDACTED")))
            XCTAssertEqual(first.response.cookies, [HARCookie(name: "session", value: "REDACTED", path: "/", httpOnly: true)])
            XCTAssertFalse(first.response.headers.contains { $0.name == "X-Understudy-Stub" })
            XCTAssertEqual(first.response.content.text, #"{"ok":true}"#)
            XCTAssertEqual(har.log.entries[1].response.content.data, onePixelPNG)
            XCTAssertEqual(har.log.entries[1].response.content.encoding, "base64")
            let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
            XCTAssertFalse(text.contains("s3cret") || text.contains("t0ken") || text.contains("k3y"), text)
        }
    }

    func testKeepSecretsKeepsTheValuesButStillRedactsNamedHeaders() async throws {
        let output = try temporaryHAR()
        defer { try? FileManager.default.removeItem(at: output.deletingLastPathComponent()) }
        try await withServer(upstream()) { upstreamServer in
            let recorder = HARRecorder(upstream: upstreamServer.baseURL, output: output,
                                       redaction: HARRedaction(extraHeaders: ["X-Api-Key"], keepsSecrets: true))
            try await withServer(recorder.registry) { server in
                _ = try curlGet(server.baseURL.appendingPathComponent("login"), headers: secretHeaders)
            }
            try recorder.flush()
            let entry = try XCTUnwrap(try HARDocument(contentsOf: output).log.entries.first)
            XCTAssertTrue(entry.request.headers.contains(HARNameValue(name: "Authorization", value: "Bearer t0ken")))
            XCTAssertTrue(entry.request.headers.contains(HARNameValue(name: "X-Api-Key", value: "REDACTED")))
            XCTAssertEqual(entry.request.cookies.first, HARCookie(name: "session", value: "s3cret"))
            XCTAssertEqual(entry.response.cookies.first?.value, "s3cret")
        }
    }

    func testRecordingReplaysWithTheSameAnswers() async throws {
        let output = try temporaryHAR()
        defer { try? FileManager.default.removeItem(at: output.deletingLastPathComponent()) }
        try await withServer(upstream()) { upstreamServer in
            let recorder = HARRecorder(upstream: upstreamServer.baseURL, output: output)
            try await withServer(recorder.registry) { server in
                _ = try curlGet(server.baseURL.appendingPathComponent("cat.png"))
            }
            try recorder.flush()
            let replay = StubRegistry()
            try replay.load(har: output)
            XCTAssertEqual(replay.stubs.map(\.name), ["out-1"])
            try await withServer(replay) { server in
                let got = try curlGet(server.baseURL.appendingPathComponent("cat.png"))
                XCTAssertEqual(got.status, 200)
                XCTAssertEqual(got.body, onePixelPNG)
                XCTAssertEqual(got.headers["Content-Type"], "image/png")
            }
        }
    }
}
