import Foundation
import XCTest

/// `understudy record` as a process, recording `understudy serve Stubs`: a valid HAR after SIGINT.
final class RecordCommandTests: XCTestCase {
    private func start(_ arguments: [String]) throws -> (Process, String) {
        let started = try startUnderstudy(arguments)
        return (started.process, started.port)
    }

    private func curl(_ arguments: [String]) throws -> Data {
        try curlOutput(arguments)
    }

    func testRecordsThroughToTheUpstreamAndLeavesACompleteRedactedHARAfterSIGINT() throws {
        let (upstream, upstreamPort) = try start(["serve", "Stubs", "--port", "0", "--log", "quiet"])
        defer { if upstream.isRunning { kill(upstream.processIdentifier, SIGKILL) } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("session.har")
        let upstreamBase = "http://127.0.0.1:\(upstreamPort)"
        let (recorder, port) = try start(["record", "--upstream", upstreamBase, "--out", output.path, "--port", "0", "--log", "quiet"])
        defer { if recorder.isRunning { kill(recorder.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"

        let direct = try curl([upstreamBase + "/images/photo.png"])
        let viaRecorder = try curl(["--header", "Authorization: Bearer t0ken", base + "/images/photo.png"])
        XCTAssertEqual(viaRecorder, direct)
        XCTAssertFalse(direct.isEmpty)
        let gone = String(decoding: try curl(["--write-out", "%{http_code}", "--output", "/dev/null", base + "/gone.png"]), as: UTF8.self)
        XCTAssertEqual(gone, "404")

        kill(recorder.processIdentifier, SIGINT)
        recorder.waitUntilExit()
        XCTAssertEqual(recorder.terminationReason, .exit)
        XCTAssertEqual(recorder.terminationStatus, 0)

        let har = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        let log = try XCTUnwrap(har["log"] as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "1.2")
        let entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        guard entries.count == 2 else { return }
        let request = try XCTUnwrap(entries[0]["request"] as? [String: Any])
        XCTAssertEqual(request["url"] as? String, upstreamBase + "/images/photo.png")
        let headers = try XCTUnwrap(request["headers"] as? [[String: String]])
        XCTAssertTrue(headers.contains(["name": "Authorization", "value": "REDACTED"]), "\(headers)")
        let content = try XCTUnwrap((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])
        XCTAssertEqual(content["encoding"] as? String, "base64")
        XCTAssertEqual((content["text"] as? String).flatMap { Data(base64Encoded: $0) }, direct)
        XCTAssertEqual((entries[1]["response"] as? [String: Any])?["status"] as? Int, 404)

        XCTAssertTrue(terminate(upstream), "still running 10 s after SIGTERM")
    }

    func testServeRecordWritesTheJournalAsHAR() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("served.har")
        let (server, port) = try start(["serve", "Stubs", "--port", "0", "--log", "quiet", "--record", output.path])
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"
        let image = try curl([base + "/images/photo.png"])
        _ = try curl([base + "/gone.png"])
        XCTAssertTrue(terminate(server), "still running 10 s after SIGTERM")
        XCTAssertEqual(server.terminationStatus, 0)

        let har = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        let entries = try XCTUnwrap((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }, [base + "/images/photo.png", base + "/gone.png"])
        let content = try XCTUnwrap((entries.first?["response"] as? [String: Any])?["content"] as? [String: Any])
        XCTAssertEqual((content["text"] as? String).flatMap { Data(base64Encoded: $0) }, image)
        XCTAssertEqual((entries.last?["response"] as? [String: Any])?["status"] as? Int, 404)
        XCTAssertEqual((entries.last?["_understudy"] as? [String: Any])?["stub"] as? String, "not-found")
    }
}
