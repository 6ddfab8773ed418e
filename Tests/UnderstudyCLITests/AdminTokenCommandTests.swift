import Foundation
import XCTest

/// `serve`, `record` and `replay` refuse to bind a non-loopback address without `--admin-token`,
/// saying which flag is missing, and exit non-zero before listening.
final class AdminTokenCommandTests: XCTestCase {
    func testNonLoopbackHostWithoutATokenIsRefusedByEveryListeningCommand() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("admin-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Stubs"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"log": {"version": "1.2", "entries": []}}"#.utf8).write(to: directory.appendingPathComponent("empty.har"))
        let commands = [
            ["serve", "Stubs"],
            ["record", "--upstream", "http://127.0.0.1:9", "--out", "out.har"],
            ["replay", "empty.har"],
        ]
        for command in commands {
            let run = try runUnderstudy(command + ["--host", "0.0.0.0", "--port", "0"], in: directory)
            XCTAssertEqual(run.status, 1, "\(command)")
            XCTAssertEqual(run.stdout, "", "no ready line: \(command)")
            XCTAssertEqual(
                run.stderr,
                "binding 0.0.0.0 exposes the admin API beyond this machine; pass an admin token (--admin-token) to bind a non-loopback host\n",
                "\(command)"
            )
        }
    }
}
