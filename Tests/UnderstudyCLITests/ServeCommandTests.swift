import Foundation
import UnderstudyTestSupport
import XCTest

/// `understudy serve` as a process: the ready line, real requests, a clean stop on signals.
final class ServeCommandTests: XCTestCase {
    private func startServe(_ arguments: [String]) throws -> (Process, Pipe, String) {
        let started = try startUnderstudy(["serve"] + arguments)
        return (started.process, started.output, started.readyLine)
    }

    private func curl(_ arguments: [String]) throws -> String {
        String(decoding: try curlOutput(arguments), as: UTF8.self)
    }

    /// Whoever reads the ready line may stop the server at once (a script, a test's tear-down):
    /// the signal must not come before the server catches it and be lost, leaving it running.
    func testSIGTERMRightAfterTheReadyLineStopsItEveryTime() throws {
        for attempt in 1...20 {
            let (process, _, _) = try startServe(["Stubs", "--port", "0", "--log", "quiet"])
            XCTAssertTrue(terminate(process), "attempt \(attempt): still running 10 s after SIGTERM")
            XCTAssertEqual(process.terminationReason, .exit, "attempt \(attempt)")
            XCTAssertEqual(process.terminationStatus, 0, "attempt \(attempt)")
        }
    }

    func testServesTheDemoStubsAndStopsOnSIGTERMWithExitZero() throws {
        let (process, out, ready) = try startServe(["Stubs", "--port", "0"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let pattern = #"^Understudy listening on http://127\.0\.0\.1:(\d+) \((\d+) stubs from Stubs\)\n"#
        let match = try XCTUnwrap(ready.range(of: pattern, options: .regularExpression), ready)
        XCTAssertEqual(match.lowerBound, ready.startIndex)
        let port = try XCTUnwrap(ready.split(separator: ":").last?.split(separator: " ").first)
        let base = "http://127.0.0.1:\(port)"
        XCTAssertEqual(try curl(["--write-out", "%{http_code}", "--output", "/dev/null", base + "/gone.png"]), "404")
        XCTAssertEqual(try curl(["--write-out", "%{http_code} %{redirect_url}", "--output", "/dev/null", base + "/old.png"]), "301 \(base)/images/photo.png")
        let health = try curl([base + "/__admin/health"])
        XCTAssertTrue(health.contains(#""status":"ok""#), health)
        XCTAssertTrue(terminate(process), "still running 10 s after SIGTERM")
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
        let log = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(log.contains("GET \(base)/gone.png -> stub \"not-found\" 404"), log)
        XCTAssertTrue(log.contains("GET \(base)/old.png -> stub \"redirect\" 301"), log)
        XCTAssertFalse(log.contains("__admin"), "admin requests are not logged")
    }

    func testStopsOnSIGINTAndLogsJSONLines() throws {
        let (process, out, ready) = try startServe(["Stubs", "--port", "0", "--log", "json"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let port = try XCTUnwrap(ready.split(separator: ":").last?.split(separator: " ").first, ready)
        _ = try curl(["http://127.0.0.1:\(port)/gone.png"])
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let log = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let line = try XCTUnwrap(log.split(separator: "\n").first)
        let entry = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(entry["stub"] as? String, "not-found")
        XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 404)
        XCTAssertEqual(entry["transport"] as? String, "server")
    }

    func testHeadLimitsFromTheCommandLine() throws {
        let server = try startUnderstudy(["serve", "Stubs", "--port", "0", "--log", "quiet", "--max-header-count", "4", "--head-timeout", "300ms"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let started = try XCTUnwrap(Int(server.port))
        let url = "http://127.0.0.1:\(started)/gone.png"
        // curl sends Host, User-Agent and Accept: two more make five fields, one over the limit.
        XCTAssertEqual(try curl(["--write-out", "%{http_code}", "--output", "/dev/null", url]), "404")
        XCTAssertEqual(try curl(["--write-out", "%{http_code}", "--output", "/dev/null", "-H", "X-A: 1", "-H", "X-B: 2", url]), "431")

        // A connection that sends nothing is closed once the head timeout passes.
        let socket = try RawSocket(port: started, receiveTimeout: 10)
        let opened = Date()
        let received = socket.read()
        XCTAssertEqual(received.bytes, [], "nothing is sent on an idle connection")
        XCTAssertEqual(received.ending, .closed, "the idle connection is closed (FIN), not left open")
        XCTAssertLessThan(Date().timeIntervalSince(opened), 9, "closed by the head timeout, not by the read timeout")
    }

    func testQuietLogAndBadFlagsAreRefusedClearly() throws {
        let process = Process()
        process.executableURL = try understudyExecutable()
        process.arguments = ["serve", "--port", "70000"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertNotEqual(process.terminationStatus, 0)
        XCTAssertTrue(message.contains("--port 70000 is out of range; expected 0 to 65535"), message)
        for (flags, expected) in [
            (["--head-timeout", "soon"], "--head-timeout 'soon' is not a positive duration; expected something like 30s or 500ms"),
            (["--head-timeout", "0"], "--head-timeout '0' is not a positive duration"),
            (["--body-timeout", "later"], "--body-timeout 'later' is not a positive duration; expected something like 30s or 500ms"),
            (["--max-header-count", "0"], "--max-header-count must be at least 1, not 0"),
            (["--journal-bytes", "0"], "--journal-bytes must be at least 1, not 0"),
        ] {
            let run = try runUnderstudy(["serve", "Stubs", "--port", "0"] + flags, in: packageRoot)
            XCTAssertNotEqual(run.status, 0, "\(flags)")
            XCTAssertTrue(run.stderr.contains(expected), run.stderr)
        }
    }
}
