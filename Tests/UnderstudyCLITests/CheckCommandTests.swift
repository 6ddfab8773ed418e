import Foundation
import Understudy
@testable import UnderstudyCLI
import XCTest

/// `understudy check`: the library verdict, the argument parsing, and the built binary.
final class CheckCommandTests: XCTestCase {
    private var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-check-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: base)
    }

    private func write(_ path: String, _ text: String) throws {
        let url = base.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    private func relative(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: base)
    }

    private func writeValidStubs() throws {
        try write("Stubs/a.yaml", "stubs:\n  - request: { path: /a }\n  - request: { path: /b }\n")
        try write("Stubs/sub/b.json", #"{"stubs": [{"request": {"path": "/c"}, "response": {"status": 204}}]}"#)
        try write("More/c.yml", "stubs:\n  - name: c\n")
    }

    private func writeBrokenStubs() throws {
        try write("Bad/a.yaml", "stubs:\n  - response: { fault: explode }\n")
        try write("Bad/b.json", "{\"stubs\": [\n  {\"times\": 0}\n]}")
    }

    // MARK: - Library

    func testSummaryCountsStubsAndFilesOfEveryDirectory() throws {
        try writeValidStubs()
        let check = StubFileCheck(paths: [relative("Stubs"), relative("More")])
        XCTAssertTrue(check.isValid)
        XCTAssertEqual(check.exitCode, 0)
        XCTAssertEqual(check.summary, "OK: 4 stubs in 3 files from Stubs, More")
        let single = StubFileCheck(paths: [relative("More/c.yml")])
        XCTAssertEqual(single.summary, "OK: 1 stub in 1 file from More/c.yml")
    }

    func testErrorsOfEveryDirectoryAndExitCode2() throws {
        try writeBrokenStubs()
        let check = StubFileCheck(paths: [relative("Bad"), relative("Missing")])
        XCTAssertFalse(check.isValid)
        XCTAssertEqual(check.exitCode, 2)
        XCTAssertEqual(check.errors, [
            "Bad/a.yaml:2: stubs[0].response.fault: unknown fault 'explode'; expected one of connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway, disconnect-after-request, disconnect-during-request-body, disconnect-during-response-body, reset-during-response-body, shutdown-input-at-end, shutdown-output-at-end, slow-close, timeout, limit-data",
            "Bad/b.json:2: stubs[0].times: expected an integer >= 1, found integer 0",
            "Missing: no such file or directory; expected a directory of stub files or a stub file",
        ])
        XCTAssertEqual(check.summary, "3 errors in stub files from Bad, Missing")
    }

    func testArgumentsDefaultToStubs() throws {
        XCTAssertEqual(try UnderstudyCommand.Check.parse([]).paths, ["Stubs"])
        XCTAssertEqual(try UnderstudyCommand.Check.parse(["A", "B"]).paths, ["A", "B"])
        XCTAssertThrowsError(try UnderstudyCommand.parseAsRoot(["chekc"]))
    }

    // MARK: - The binary

    private func run(_ arguments: [String]) throws -> UnderstudyRun {
        try runUnderstudy(arguments, in: base)
    }

    func testBinaryPrintsTheSummaryAndExits0() throws {
        try writeValidStubs()
        let result = try run(["check", "Stubs", "More"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout, "OK: 4 stubs in 3 files from Stubs, More\n")
        XCTAssertEqual(result.stderr, "")
    }

    func testBinaryDefaultsToStubsDirectory() throws {
        try writeValidStubs()
        let result = try run(["check"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout, "OK: 3 stubs in 2 files from Stubs\n")
    }

    func testBinaryPrintsEveryErrorOnStderrAndExits2() throws {
        try writeBrokenStubs()
        let result = try run(["check", "Bad"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr, """
            Bad/a.yaml:2: stubs[0].response.fault: unknown fault 'explode'; expected one of connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway, disconnect-after-request, disconnect-during-request-body, disconnect-during-response-body, reset-during-response-body, shutdown-input-at-end, shutdown-output-at-end, slow-close, timeout, limit-data
            Bad/b.json:2: stubs[0].times: expected an integer >= 1, found integer 0

            """)
    }

    func testBinaryReportsAMissingDirectory() throws {
        let result = try run(["check", "NoSuchDir"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr, "NoSuchDir: no such file or directory; expected a directory of stub files or a stub file\n")
    }
}
