import Foundation
import Understudy
import UnderstudyHAR
import UnderstudyServer
import UnderstudyTestSupport
import XCTest

/// HAR interop with mitmproxy (10.1 or later, from the project's `.venv`): its HAR replays
/// through Understudy with identical bodies, and Understudy's HAR loads in mitmproxy with the
/// same flows and bodies. `make test` installs mitmproxy into `.venv`; without it these fail.
final class MitmproxyInteropTests: XCTestCase {
    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private func mitmdump() throws -> URL {
        #if !os(Linux)
        throw XCTSkip("mitmproxy comes from the .venv `make test-deps` makes on Linux only")
        #endif
        let candidates: [String?] = [ProcessInfo.processInfo.environment["MITMDUMP"], packageRoot.appendingPathComponent(".venv/bin/mitmdump").path]
        for case let path? in candidates where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        XCTFail("mitmdump is not installed: run `make test-deps` (it installs mitmproxy into .venv)")
        throw CocoaError(.fileNoSuchFile)
    }

    private func upstream() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.path("/cat.png"), named: "cat", response: .data(onePixelPNG))
        stubs.stub(.path("/data.json"), named: "json", response: .json(["id": 7, "name": "caf\u{E9}"]))
        stubs.stub(.path("/old"), named: "old", response: .redirect(to: "/cat.png", status: 302))
        stubs.stub(.path("/missing"), named: "missing", response: .text("nothing here").status(404))
        stubs.stub(.path("/boom"), named: "boom", response: .text("it broke").status(500))
        return stubs
    }

    private let paths = ["/cat.png", "/data.json", "/old", "/missing", "/boom"]

    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mitm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func waitForListener(port: Int, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if acceptsConnections(port: port) { return true }
            usleep(100_000)
        }
        return false
    }

    /// SIGTERM, then up to 30 s for mitmproxy to save and exit; SIGKILL after that.
    private func stop(_ process: Process) -> Bool {
        process.terminate()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    func testAHARWrittenByMitmproxyReplaysWithIdenticalBodies() async throws {
        let mitmdump = try mitmdump()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let harURL = directory.appendingPathComponent("mitm.har")
        try await withServer(upstream()) { server in
            let port = try freeLoopbackPort()
            let process = Process()
            // The test process blocks SIGTERM and a child inherits that mask, which would keep
            // mitmproxy from ever seeing the signal: unblock it, then become mitmdump.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            let unblock = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM}); os.execv(sys.argv[1], sys.argv[1:])"
            process.arguments = ["python3", "-c", unblock, mitmdump.path, "--mode", "reverse:\(server.baseURL.absoluteString)", "--listen-host", "127.0.0.1", "--listen-port", String(port),
                                 "--set", "hardump=\(harURL.path)", "--quiet"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            XCTAssertTrue(waitForListener(port: port), "mitmdump did not start listening")
            var direct: [String: CurlResponse] = [:]
            for path in paths {
                _ = try curlGet(URL(string: "http://127.0.0.1:\(port)\(path)")!)
                direct[path] = try curlGet(URL(string: server.baseURL.absoluteString + path)!)
            }
            // mitmproxy writes the HAR when it shuts down.
            XCTAssertTrue(stop(process), "mitmdump did not stop on SIGTERM")

            let har = try HARDocument(contentsOf: harURL)
            XCTAssertEqual(har.log.entries.count, paths.count)
            let replay = StubRegistry()
            try replay.load(har: harURL)
            try await withServer(replay) { replayServer in
                for path in paths {
                    let got = try curlGet(URL(string: replayServer.baseURL.absoluteString + path)!)
                    let want = try XCTUnwrap(direct[path])
                    XCTAssertEqual(got.status, want.status, path)
                    XCTAssertEqual(got.body, want.body, path)
                    XCTAssertEqual(got.headers["Content-Type"], want.headers["Content-Type"], path)
                    XCTAssertEqual(got.headers["Location"], want.headers["Location"], path)
                }
            }
        }
    }

    func testAHARWrittenByUnderstudyLoadsInMitmproxyWithTheSameFlowsAndBodies() async throws {
        let mitmdump = try mitmdump()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = upstream()
        stubs.journal.keepsBodies = true
        try await withServer(stubs) { server in
            for path in paths {
                _ = try curlGet(URL(string: server.baseURL.absoluteString + path)!)
            }
        }
        let har = stubs.journal.har()
        let harURL = directory.appendingPathComponent("understudy.har")
        try har.write(to: harURL)

        // An addon that prints each flow read: URL, status and the body as base64.
        let addon = directory.appendingPathComponent("flows.py")
        let flowsURL = directory.appendingPathComponent("flows.jsonl")
        try Data("""
            import base64, json
            out = open(\(String(reflecting: flowsURL.path)), "w")
            def response(flow):
                out.write(json.dumps({"url": flow.request.url, "status": flow.response.status_code,
                                      "body": base64.b64encode(flow.response.content or b"").decode()}) + "\\n")
                out.flush()
            """.utf8).write(to: addon)
        let process = Process()
        process.executableURL = mitmdump
        process.arguments = ["-n", "-r", harURL.path, "-s", addon.path, "--quiet"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, stderr)

        let lines = String(decoding: try Data(contentsOf: flowsURL), as: UTF8.self).split(separator: "\n")
        let flows = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(flows.count, har.log.entries.count)
        for (flow, entry) in zip(flows, har.log.entries) {
            XCTAssertEqual(flow["url"] as? String, entry.request.url)
            XCTAssertEqual(flow["status"] as? Int, entry.response.status)
            XCTAssertEqual((flow["body"] as? String).flatMap { Data(base64Encoded: $0) }, entry.response.content.data ?? Data(), entry.request.url)
        }
    }
}
