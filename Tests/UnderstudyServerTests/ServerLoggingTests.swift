import Foundation
import Logging
import Understudy
import UnderstudyServer
import XCTest

/// The server's log through swift-log: what a library user's own `LogHandler` receives.
final class ServerLoggingTests: XCTestCase {
    /// Keeps every record it is given.
    struct CapturingHandler: LogHandler {
        final class Records: @unchecked Sendable {
            private let lock = NSLock()
            private var events: [LogEvent] = []

            func append(_ event: LogEvent) {
                lock.withLock { events.append(event) }
            }

            var all: [LogEvent] {
                lock.withLock { events }
            }
        }

        let records: Records
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            records.append(event)
        }
    }

    private func metadata(_ event: LogEvent) -> [String: String] {
        (event.metadata ?? [:]).mapValues { "\($0)" }
    }

    func testEachInteractionIsARecordWithItsPartsAsMetadata() async throws {
        let records = CapturingHandler.Records()
        var configuration = StubServer.Configuration()
        configuration.logger = Logger(label: "test") { _ in CapturingHandler(records: records) }
        let stubs = StubRegistry()
        stubs.stub(.path("/a.png"), named: "cat", response: .image(.generated(width: 4, height: 4, pattern: .gradient), as: .png))
        stubs.stub(.path("/reset"), named: "boom", response: .failure(.connectionReset))
        stubs.stub(.path("/bad"), named: "bad", response: .file(URL(fileURLWithPath: "/nonexistent/understudy.png")))
        try await withServer(stubs, configuration: configuration) { server in
            let base = server.baseURL.absoluteString
            _ = try curl(["\(base)/a.png"])
            _ = try curl(["\(base)/reset"])
            _ = try curl(["\(base)/missing"])
            _ = try curl(["\(base)/bad"])
            _ = try curl(["\(base)/__admin/health"])
            try await stubs.journal.wait(count: 4)
        }
        let events = records.all
        XCTAssertEqual(events.count, 4, "one record per request; admin requests are not logged: \(events.map(\.message))")
        let byURL = Dictionary(events.map { (metadata($0)["url"] ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        let base = try XCTUnwrap(byURL.keys.first { $0.hasSuffix("/a.png") }?.dropLast("/a.png".count))

        let image = try XCTUnwrap(byURL["\(base)/a.png"])
        XCTAssertEqual(image.level, .info)
        XCTAssertNotNil(image.message.description.range(of: #"^GET http://127\.0\.0\.1:\d+/a\.png -> stub "cat" 200 \d+ms$"#, options: .regularExpression), image.message.description)
        var parts = metadata(image)
        XCTAssertNotNil(Double(parts.removeValue(forKey: "durationMs") ?? ""), "durationMs is a number")
        XCTAssertEqual(parts, ["id": "1", "method": "GET", "url": "\(base)/a.png", "stub": "cat", "status": "200", "outcome": "completed", "transport": "server"])

        let fault = try XCTUnwrap(byURL["\(base)/reset"])
        XCTAssertEqual(fault.level, .info)
        XCTAssertEqual(metadata(fault)["fault"], "connection-reset")
        XCTAssertEqual(metadata(fault)["outcome"], "fault")
        XCTAssertNil(metadata(fault)["status"], "no head was sent")

        let unmatched = try XCTUnwrap(byURL["\(base)/missing"])
        XCTAssertNil(metadata(unmatched)["stub"])
        XCTAssertEqual(metadata(unmatched)["status"], "404")
        XCTAssertEqual(metadata(unmatched)["outcome"], "unmatched")
        XCTAssertTrue(unmatched.message.description.contains(" -> unmatched 404 "), unmatched.message.description)

        let failed = try XCTUnwrap(byURL["\(base)/bad"])
        XCTAssertEqual(failed.level, .warning, "a stub that cannot render is worth a warning")
        XCTAssertEqual(metadata(failed)["outcome"], "failed")
        XCTAssertTrue(metadata(failed)["error"]?.contains("/nonexistent/understudy.png") ?? false, "\(metadata(failed))")
    }

    func testTheJournalLimitDroppingEntriesIsAWarning() async throws {
        let records = CapturingHandler.Records()
        var configuration = StubServer.Configuration()
        configuration.logger = Logger(label: "test") { _ in CapturingHandler(records: records) }
        let stubs = StubRegistry(journalLimit: 2)
        stubs.stub(.path("/a"), named: "a", response: .text("a"))
        try await withServer(stubs, configuration: configuration) { server in
            for _ in 0..<4 { _ = try curl(["\(server.baseURL.absoluteString)/a"]) }
        }
        let warnings = records.all.filter { $0.level == .warning }
        XCTAssertEqual(warnings.map(\.message.description), [
            "journal limit 2 reached: dropped 1 oldest entry", "journal limit 2 reached: dropped 2 oldest entries",
        ])
        XCTAssertEqual(warnings.map(metadata), [
            ["event": "journal-limit", "limit": "2", "dropped": "1"], ["event": "journal-limit", "limit": "2", "dropped": "2"],
        ])
    }

    func testALoggerAboveWarningIsNotAskedAndTheDefaultIsSilent() async throws {
        let records = CapturingHandler.Records()
        var configuration = StubServer.Configuration()
        var logger = Logger(label: "test") { _ in CapturingHandler(records: records) }
        logger.logLevel = .error
        configuration.logger = logger
        let stubs = StubRegistry()
        stubs.stub(.path("/bad"), named: "bad", response: .file(URL(fileURLWithPath: "/nonexistent/understudy.png")))
        try await withServer(stubs, configuration: configuration) { server in
            _ = try curl(["\(server.baseURL.absoluteString)/bad"])
        }
        XCTAssertEqual(records.all.count, 0)
        XCTAssertEqual(StubServer.Configuration().logger.logLevel, .critical, "the default logger discards everything")
    }
}
