import Foundation
import XCTest

/// `understudy replay` as a process: the ready line, recorded answers in order, clear errors.
final class ReplayCommandTests: XCTestCase {
    private let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

    private func entry(_ path: String, status: Int, headers: [(String, String)] = [], content: String) -> String {
        let headerList = headers.map { #"{"name": "\#($0.0)", "value": "\#($0.1)"}"# }.joined(separator: ", ")
        return #"""
            {"startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
             "request": {"method": "GET", "url": "http://upstream.test\#(path)", "httpVersion": "HTTP/1.1",
                         "headers": [{"name": "Accept", "value": "*/*"}], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": \#(status), "statusText": "", "httpVersion": "HTTP/1.1", "headers": [\#(headerList)], "cookies": [],
                          "content": \#(content), "redirectURL": "", "headersSize": -1, "bodySize": -1},
             "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
            """#
    }

    private func writeHAR(_ entries: [String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("session.har")
        let text = #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [\#(entries.joined(separator: ", "))]}}"#
        try Data(text.utf8).write(to: url)
        return url
    }

    private func curl(_ arguments: [String]) throws -> Data {
        try curlOutput(arguments)
    }

    func testReplaysRecordedAnswersInOrderAndStopsOnSIGTERM() throws {
        let har = try writeHAR([
            entry("/count", status: 200, headers: [("Content-Type", "text/plain")], content: #"{"size": 3, "mimeType": "text/plain", "text": "one"}"#),
            entry("/count", status: 200, headers: [("Content-Type", "text/plain")], content: #"{"size": 3, "mimeType": "text/plain", "text": "two"}"#),
            entry("/cat.png", status: 200, headers: [("Content-Type", "image/png"), ("Content-Length", "999"), ("Transfer-Encoding", "chunked")],
                  content: #"{"size": 70, "mimeType": "image/png", "text": "\#(png)", "encoding": "base64"}"#),
            entry("/old", status: 302, headers: [("Location", "/cat.png")], content: #"{"size": 0, "mimeType": ""}"#),
        ])
        defer { try? FileManager.default.removeItem(at: har.deletingLastPathComponent()) }
        let started = try startUnderstudy(["replay", har.path, "--port", "0", "--strict"])
        let process = started.process
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let ready = started.readyLine
        let pattern = #"^Understudy listening on http://127\.0\.0\.1:\d+ \(3 stubs from "# + NSRegularExpression.escapedPattern(for: har.path) + #"\)\n"#
        XCTAssertNotNil(ready.range(of: pattern, options: .regularExpression), ready)
        let port = started.port
        let base = "http://127.0.0.1:\(port)"

        let bodies = try (0..<3).map { _ in String(decoding: try curl([base + "/count"]), as: UTF8.self) }
        XCTAssertEqual(bodies, ["one", "two", "two"])
        XCTAssertEqual(try curl([base + "/cat.png"]), Data(base64Encoded: png))
        XCTAssertEqual(try curl(["--location", base + "/old"]), Data(base64Encoded: png))
        let redirect = String(decoding: try curl(["--write-out", "%{http_code} %{redirect_url}", "--output", "/dev/null", base + "/old"]), as: UTF8.self)
        XCTAssertEqual(redirect, "302 \(base)/cat.png")
        let unrecorded = String(decoding: try curl(["--write-out", "\n%{http_code}", base + "/dog.png"]), as: UTF8.self)
        XCTAssertTrue(unrecorded.hasSuffix("\n404"), unrecorded)
        XCTAssertTrue(unrecorded.contains("Nearest stubs"), unrecorded)

        XCTAssertTrue(terminate(process), "still running 10 s after SIGTERM")
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func testMalformedHARAndConflictingFlagsAreRefusedClearly() throws {
        let har = try writeHAR([#"{"request": {"method": "GET", "url": "http://h/"}, "response": {"status": 200, "content": {"size": 1, "mimeType": "image/png", "text": "%%%", "encoding": "base64"}}}"#])
        defer { try? FileManager.default.removeItem(at: har.deletingLastPathComponent()) }
        let directory = har.deletingLastPathComponent()
        let bad = try runUnderstudy(["replay", "session.har", "--port", "0"], in: directory)
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "session.har: log.entries[0].response.content.text: not valid base64\n")

        let conflict = try runUnderstudy(["replay", "session.har", "--strict", "--proxy-unmatched", "http://127.0.0.1:9"], in: directory)
        XCTAssertNotEqual(conflict.status, 0)
        XCTAssertTrue(conflict.stderr.contains("--strict answers unrecorded requests with 404; it cannot be combined with --proxy-unmatched"), conflict.stderr)

        let badKey = try runUnderstudy(["replay", "session.har", "--match", "method,path"], in: directory)
        XCTAssertNotEqual(badKey.status, 0)
        XCTAssertTrue(badKey.stderr.contains("--match: unknown match key part 'path'"), badKey.stderr)
    }
}
