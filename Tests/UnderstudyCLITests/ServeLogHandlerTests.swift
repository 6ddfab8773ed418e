import Foundation
import Logging
import Understudy
import UnderstudyServer
@testable import UnderstudyCLI
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--log text|json|quiet` as the swift-log handler the CLI installs: fed by a real server, it
/// prints exactly the lines `RequestLog` formats for the journal's entries.
final class ServeLogHandlerTests: XCTestCase {
    private struct Printed {
        let out: [String]
        let err: String
    }

    /// Serves four requests (one over a journal limit of 3) with the handler for `format`, then
    /// logs an error as the CLI does for a HAR it cannot write.
    private func serve(_ format: ServeLogFormat, colored: Bool = false) async throws -> (Printed, StubRegistry) {
        let out = Pipe(), err = Pipe()
        let output = ServeLogHandler.Output(standardOutput: out.fileHandleForWriting, standardError: err.fileHandleForWriting)
        let logger = Logger(label: "test") { _ in ServeLogHandler(format: format, colored: colored, output: output) }
        let stubs = StubRegistry(journalLimit: 3)
        stubs.stub(.path("/a.png"), named: "cat", response: .text("a"))
        let server = try await StubServer.start(serving: stubs, configuration: StubServer.Configuration(logger: logger))
        let session = URLSession(configuration: .ephemeral)
        for path in ["/a.png", "/missing", "/a.png", "/a.png"] {
            _ = try await session.data(from: server.baseURL.appendingPathComponent(path))
        }
        try await server.stop()
        logger.error("cannot write /read-only/x.har: permission denied")
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let printed = Printed(
            out: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            err: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
        return (printed, stubs)
    }

    func testTextLinesAreTheRequestLogsOwnAndTheDropNoticeFollows() async throws {
        let (printed, stubs) = try await serve(.text, colored: true)
        let log = RequestLog(format: .text, colored: true)
        let kept = stubs.journal.interactions.compactMap { log.line(for: $0) }
        // Four lines (the first no longer in the journal), the notice of its drop, the final newline.
        XCTAssertEqual(printed.out.count, 6, "\(printed.out)")
        XCTAssertEqual(Array(printed.out[1...]), kept + [log.journalDropLine(limit: 3, dropped: 1)!, ""])
        XCTAssertTrue(printed.out[0].hasSuffix(#"/a.png -> stub "cat" \#u{1B}[32m200\#u{1B}[0m \#(printed.out[0].split(separator: " ").last!)"#), printed.out[0])
        XCTAssertTrue(printed.out[1].contains("\u{1B}[31munmatched\u{1B}[0m"), printed.out[1])
        XCTAssertEqual(printed.err, "cannot write /read-only/x.har: permission denied\n")
    }

    func testJSONLinesAreTheJournalEntries() async throws {
        let (printed, stubs) = try await serve(.json)
        let log = RequestLog(format: .json)
        let kept = stubs.journal.interactions.compactMap { log.line(for: $0) }
        XCTAssertEqual(printed.out.count, 6, "\(printed.out)")
        XCTAssertEqual(Array(printed.out[1...]), kept + [#"{"dropped":1,"event":"journal-limit","limit":3}"#, ""])
        let first = try JSONDecoder().decode(JournalEntry.self, from: Data(printed.out[0].utf8))
        XCTAssertEqual([first.id, first.response?.status], [1, 200])
    }

    func testQuietPrintsNoRequestLogButStillTheErrors() async throws {
        let (printed, _) = try await serve(.quiet)
        XCTAssertEqual(printed.out, [""])
        XCTAssertEqual(printed.err, "cannot write /read-only/x.har: permission denied\n")
    }
}
