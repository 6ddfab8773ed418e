import Foundation
import XCTest

/// `understudy serve --seed`: the same seed and the same requests in the same order draw the
/// same `chance:`; another seed draws otherwise.
final class ServeSeedCommandTests: XCTestCase {
    /// The statuses of 30 requests in a row to a stub answering 503 half the time.
    private func statuses(seed: String, stubs: URL) throws -> [String] {
        let server = try startUnderstudy(["serve", stubs.path, "--port", "0", "--log", "quiet", "--seed", seed])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        return try (0..<30).map { _ in
            String(decoding: try curlOutput(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/busy.png"]), as: UTF8.self)
        }
    }

    func testTheSameSeedAnswersTheSameRequestsAlike() throws {
        let stubs = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: stubs) }
        try Data("stubs:\n  - request: { path: /busy.png }\n    response: { body: ok, status: { code: 503, chance: 0.5 } }\n".utf8)
            .write(to: stubs.appendingPathComponent("busy.yaml"))
        let first = try statuses(seed: "2026", stubs: stubs)
        XCTAssertEqual(Set(first), ["200", "503"])
        XCTAssertEqual(try statuses(seed: "2026", stubs: stubs), first)
        XCTAssertNotEqual(try statuses(seed: "7", stubs: stubs), first)
    }
}
