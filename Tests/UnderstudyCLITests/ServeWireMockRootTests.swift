import Foundation
import XCTest

/// `understudy serve` started as WireMock is: `--root-dir`, the current directory with
/// WireMock's layout, WireMock's flags with their meaning, and the ones it cannot honour refused.
final class ServeWireMockRootTests: XCTestCase {
    private var root: URL!
    private var processes: [Process] = []

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-root-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for process in processes {
            XCTAssertTrue(terminate(process), "understudy did not stop within 10 s of SIGTERM")
        }
        try? FileManager.default.removeItem(at: root)
    }

    func testRootDirIsMadeAndGlobalTemplatingAndJournalLimitTakeEffect() throws {
        let served = try start(["serve", "--root-dir", root.path, "--port", "0", "--global-response-templating",
                                "--max-request-journal-entries", "2", "--verbose", "--disable-banner", "--log", "quiet"], in: root)
        XCTAssertTrue(served.ready.hasSuffix("(0 stubs from \(root.path))\n"), served.ready)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("mappings").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("__files").path))
        try #"{"request": {"urlPath": "/who"}, "response": {"body": "{{request.query.name}} at {{request.path}}"}}"#
            .write(to: root.appendingPathComponent("mappings/who.json"), atomically: true, encoding: .utf8)
        let base = "http://127.0.0.1:\(served.port)"
        _ = try curlOutput(["--request", "POST", base + "/__admin/mappings/reset"])
        XCTAssertEqual(String(decoding: try curlOutput([base + "/who?name=ann"]), as: UTF8.self), "ann at /who")
        for _ in 0..<3 { _ = try curlOutput([base + "/who?name=bob"]) }
        let health = try JSONSerialization.jsonObject(with: curlOutput([base + "/__admin/health"])) as? [String: Any]
        XCTAssertEqual((health?["journal"] as? [String: Any])?["limit"] as? Int, 2)
        XCTAssertEqual((health?["journal"] as? [String: Any])?["count"] as? Int, 2)
    }

    func testTheCurrentDirectoryWithWireMocksLayoutIsTheRoot() throws {
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
        try #"{"request": {"url": "/here"}, "response": {"body": "from the current directory"}}"#
            .write(to: root.appendingPathComponent("mappings/here.json"), atomically: true, encoding: .utf8)
        let served = try start(["serve", "--port", "0", "--log", "quiet"], in: root)
        XCTAssertTrue(served.ready.hasSuffix("(1 stubs from .)\n"), served.ready)
        XCTAssertEqual(String(decoding: try curlOutput(["http://127.0.0.1:\(served.port)/here"]), as: UTF8.self), "from the current directory")
    }

    func testAMappingOverTheBodyLimitIs413AndAddsNothing() throws {
        let served = try start(["serve", "--root-dir", root.path, "--port", "0", "--max-body", "200", "--log", "quiet"], in: root)
        let base = "http://127.0.0.1:\(served.port)"
        let big = #"{"request": {"url": "/big"}, "response": {"body": ""# + String(repeating: "x", count: 500) + #""}}"#
        let answer = String(decoding: try curlOutput(["--request", "POST", "--data-binary", big, "--write-out", " %{http_code}", base + "/__admin/mappings"]), as: UTF8.self)
        XCTAssertEqual(answer, "request body over the limit of 200 bytes\n 413")
        XCTAssertEqual(String(decoding: try curlOutput([base + "/__admin/mappings"]), as: UTF8.self), #"{"mappings":[],"meta":{"total":0}}"# + "\n")
    }

    func testTheGlobalFixedDelayHoldsEveryAnswerRepeatsIncluded() throws {
        let served = try start(["serve", "--root-dir", root.path, "--port", "0", "--log", "quiet"], in: root)
        let base = "http://127.0.0.1:\(served.port)"
        _ = try curlOutput(["--request", "POST", "--data-binary", #"{"request": {"url": "/same"}, "response": {"body": "same"}}"#, base + "/__admin/mappings"])
        func seconds(_ count: Int) throws -> Double {
            // The same request again and again on one connection: the repeat fast path too.
            let output = String(decoding: try curlOutput(Array(repeating: [base + "/same", "--output", "/dev/null"], count: count).flatMap { $0 }
                + ["--write-out", "%{time_total}\n"]), as: UTF8.self)
            return output.split(separator: "\n").compactMap { Double($0) }.reduce(0, +)
        }
        XCTAssertLessThan(try seconds(3), 0.3)
        _ = try curlOutput(["--request", "POST", "--data-binary", #"{"fixedDelay": 200}"#, base + "/__admin/settings"])
        XCTAssertGreaterThanOrEqual(try seconds(3), 0.6, "each of the three waited 200 ms")
        _ = try curlOutput(["--request", "POST", "--data-binary", #"{"fixedDelay": 0}"#, base + "/__admin/settings"])
        XCTAssertLessThan(try seconds(3), 0.3)
    }

    func testHTTPSPortAndBindAddressAreWireMocksNamesForTLSPortAndHost() throws {
        let caDirectory = root.appendingPathComponent("ca")
        let served = try start(["serve", "--root-dir", root.path, "--bind-address", "127.0.0.1", "--port", "0", "--https-port", "0",
                                "--ca-dir", caDirectory.path, "--log", "quiet"], in: root)
        XCTAssertTrue(served.ready.contains(" and https://127.0.0.1:"), served.ready)
    }

    /// `--no-request-journal`, as WireMock: requests are answered and none is kept; the list says
    /// the journal is disabled, and a count or search, which would answer 0 whatever came, is refused.
    func testNoRequestJournalAnswersAndKeepsNothing() throws {
        let served = try start(["serve", "--root-dir", root.path, "--port", "0", "--no-request-journal", "--log", "quiet"], in: root)
        let base = "http://127.0.0.1:\(served.port)"
        _ = try curlOutput(["--request", "POST", "--data-binary", #"{"request": {"url": "/a"}, "response": {"body": "a"}}"#, base + "/__admin/mappings"])
        for _ in 0..<3 { XCTAssertEqual(String(decoding: try curlOutput([base + "/a"]), as: UTF8.self), "a") }
        XCTAssertEqual(
            String(decoding: try curlOutput([base + "/__admin/requests"]), as: UTF8.self),
            #"{"meta":{"total":0},"requestJournalDisabled":true,"requests":[]}"# + "\n"
        )
        let count = String(decoding: try curlOutput(["--request", "POST", "--data-binary", #"{"url": "/a"}"#, "--write-out", " %{http_code}", base + "/__admin/requests/count"]), as: UTF8.self)
        XCTAssertTrue(count.contains("The request journal is disabled (--no-request-journal), so no verification is possible"), count)
        XCTAssertTrue(count.hasSuffix(" 500"), count)
    }

    func testFlagsItCannotHonourAreRefusedSayingSo() throws {
        let cases: [([String], String)] = [
            (["--proxy-all", "upstream.test"], "Error: --proxy-all 'upstream.test' is not an absolute URL; expected something like http://127.0.0.1:8081"),
            (["--proxy-all", "http://a.test", "--proxy-unmatched", "http://b.test"], "Error: --proxy-all http://a.test and --proxy-unmatched http://b.test name two upstreams; give one"),
            (["--no-request-journal", "--max-request-journal-entries", "5"], "Error: --no-request-journal and --max-request-journal-entries contradict each other; give one"),
            (["--record-mappings"], "Error: --record-mappings cannot be honoured: Understudy records to HAR; use `understudy record --upstream URL --out FILE.har`"),
            (["--extensions", "com.example.Ext"], "Error: --extensions cannot be honoured: Understudy runs no Java extensions; stubs answered by code are Swift closures"),
        ]
        for (flags, message) in cases {
            let run = try runUnderstudy(["serve", "--root-dir", root.path, "--port", "0"] + flags, in: root)
            XCTAssertNotEqual(run.status, 0, "\(flags)")
            XCTAssertEqual(run.stderr.split(separator: "\n").first.map(String.init), message, "\(flags)")
        }
    }

    // MARK: - Helpers

    private func start(_ arguments: [String], in directory: URL) throws -> (ready: String, port: String) {
        let process = Process()
        process.executableURL = try understudyExecutable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        var line = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let ready = String(decoding: line, as: UTF8.self)
        let prefix = "Understudy listening on http://127.0.0.1:"
        guard ready.hasPrefix(prefix), let port = ready.dropFirst(prefix.count).split(separator: " ").first else {
            XCTFail("no ready line: \(ready)")
            throw CocoaError(.fileReadUnknown)
        }
        return (ready, String(port))
    }
}
