import Foundation
import XCTest

/// `understudy serve --tls-port` and `understudy record --proxy` as processes.
final class HTTPSCommandTests: XCTestCase {
    private func temporaryDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    func testServeWithATLSPortNamesBothListenersAndServesHTTPSFromTheCA() throws {
        let caDirectory = try temporaryDirectory("serve-ca").appendingPathComponent("ca")
        let server = try startUnderstudy(["serve", "Stubs", "--port", "0", "--tls-port", "0", "--ca-dir", caDirectory.path, "--log", "quiet"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let pattern = #"^Understudy listening on http://127\.0\.0\.1:\d+ and https://127\.0\.0\.1:(\d+) \(\d+ stubs from Stubs\)\n$"#
        XCTAssertNotNil(server.readyLine.range(of: pattern, options: .regularExpression), server.readyLine)
        let tlsPort = try XCTUnwrap(server.readyLine.components(separatedBy: "https://127.0.0.1:").last?.split(separator: " ").first)
        let caFile = caDirectory.appendingPathComponent("ca.pem").path
        let attributes = try FileManager.default.attributesOfItem(atPath: caDirectory.appendingPathComponent("ca-key.pem").path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "the CA key is the owner's only")

        let answer = String(decoding: try curlOutput(["--cacert", caFile, "--write-out", "%{http_code} %{scheme}", "--output", "/dev/null", "https://127.0.0.1:\(tlsPort)/gone.png"]), as: UTF8.self)
        XCTAssertEqual(answer, "404 HTTPS", "the demo stub answers over TLS, trusted through the CA alone")
        let pem = String(decoding: try curlOutput(["http://127.0.0.1:\(server.port)/__admin/ca.pem"]), as: UTF8.self)
        XCTAssertEqual(pem, try String(contentsOfFile: caFile, encoding: .utf8))
        kill(server.process.processIdentifier, SIGINT)
        server.process.waitUntilExit()
        XCTAssertEqual(server.process.terminationStatus, 0)
    }

    func testServeWithoutATLSPortMakesNoCAUntilAClientAsksForHTTPS() throws {
        let caDirectory = try temporaryDirectory("lazy-ca").appendingPathComponent("ca")
        let server = try startUnderstudy(["serve", "Stubs", "--port", "0", "--ca-dir", caDirectory.path, "--log", "quiet"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        XCTAssertFalse(FileManager.default.fileExists(atPath: caDirectory.path), "no CA before anyone needs one")
        // curl through the proxy without trusting the CA: the CONNECT made the CA, the handshake failed.
        _ = try curlOutput(["-x", "http://127.0.0.1:\(server.port)", "https://img.example.com/gone.png"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: caDirectory.appendingPathComponent("ca.pem").path))
        let trusted = String(decoding: try curlOutput([
            "-x", "http://127.0.0.1:\(server.port)", "--cacert", caDirectory.appendingPathComponent("ca.pem").path,
            "--write-out", "%{http_code}", "--output", "/dev/null", "https://img.example.com/gone.png",
        ]), as: UTF8.self)
        XCTAssertEqual(trusted, "404")
    }

    func testRecordProxyRecordsWhatAClientSendsThroughIt() throws {
        let upstream = try startUnderstudy(["serve", "Stubs", "--port", "0", "--log", "quiet"])
        defer { if upstream.process.isRunning { kill(upstream.process.processIdentifier, SIGKILL) } }
        let directory = try temporaryDirectory("record-proxy")
        let output = directory.appendingPathComponent("proxy.har")
        let recorder = try startUnderstudy(["record", "--proxy", "--out", output.path, "--port", "0", "--ca-dir", directory.appendingPathComponent("ca").path, "--log", "quiet"])
        defer { if recorder.process.isRunning { kill(recorder.process.processIdentifier, SIGKILL) } }
        XCTAssertTrue(recorder.readyLine.contains("from a forward proxy"), recorder.readyLine)

        let target = "http://127.0.0.1:\(upstream.port)/images/photo.png"
        let direct = try curlOutput([target])
        let proxied = try curlOutput(["-x", "http://127.0.0.1:\(recorder.port)", "-H", "Cookie: session=secret", target])
        XCTAssertEqual(proxied, direct)
        XCTAssertFalse(direct.isEmpty)

        kill(recorder.process.processIdentifier, SIGINT)
        recorder.process.waitUntilExit()
        XCTAssertEqual(recorder.process.terminationStatus, 0)
        let har = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        let entries = try XCTUnwrap((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 1)
        let request = try XCTUnwrap(entries.first?["request"] as? [String: Any])
        XCTAssertEqual(request["url"] as? String, target, "the URL the client asked for, not the proxy's")
        XCTAssertTrue((request["headers"] as? [[String: String]])?.contains(["name": "Cookie", "value": "REDACTED"]) ?? false)
        let response = try XCTUnwrap(entries.first?["response"] as? [String: Any])
        let headers = try XCTUnwrap(response["headers"] as? [[String: String]])
        XCTAssertFalse(headers.contains { $0["name"]?.lowercased() == "x-understudy-stub" && $0["value"] == "record" }, "the proxy's own marker is not recorded")
        let content = try XCTUnwrap(response["content"] as? [String: Any])
        XCTAssertEqual((content["text"] as? String).flatMap { Data(base64Encoded: $0) }, direct)
    }
}
