import Foundation
import XCTest

/// `understudy serve` over HTTP/2 with prior knowledge, its log lines, and `--no-http2`.
final class ServeHTTP2Tests: XCTestCase {
    private func curl(_ arguments: [String]) throws -> String {
        String(decoding: try curlOutput(arguments), as: UTF8.self)
    }

    func testServesH2cAndLogsTheVersion() throws {
        let server = try startUnderstudy(["serve", "Stubs", "--port", "0"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(server.port)"
        XCTAssertEqual(try curl(["--http2-prior-knowledge", "--write-out", "%{http_code} %{http_version}", "--output", "/dev/null", base + "/gone.png"]), "404 2")
        XCTAssertEqual(try curl(["--write-out", "%{http_code} %{http_version}", "--output", "/dev/null", base + "/gone.png"]), "404 1.1")
        XCTAssertTrue(terminate(server.process), "still running 10 s after SIGTERM")
        let log = String(decoding: server.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = log.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("GET \(base)/gone.png HTTP/2 -> stub \"not-found\" 404 ") }, log)
        XCTAssertTrue(lines.contains { $0.hasPrefix("GET \(base)/gone.png -> stub \"not-found\" 404 ") }, "HTTP/1.1 lines as before: \(log)")
    }

    func testNoHTTP2TurnsPriorKnowledgeAway() throws {
        let server = try startUnderstudy(["serve", "Stubs", "--port", "0", "--log", "quiet", "--no-http2"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let url = "http://127.0.0.1:\(server.port)/gone.png"
        XCTAssertNotEqual(try curl(["--http2-prior-knowledge", "--write-out", "%{http_version}", "--output", "/dev/null", url]), "2")
        XCTAssertEqual(try curl(["--write-out", "%{http_code} %{http_version}", "--output", "/dev/null", url]), "404 1.1")
    }
}
